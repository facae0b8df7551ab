#!/usr/bin/env python3
"""Usage: check_manual.py SOURCE_DIR

The manual's own rules: README.md stays under 150 lines; its table of shipped cases
(first header cell "case") lists every cases/*.yaml, and only those, each with a run
time; and nothing a user reads (README.md, docs/*.md, `source` strings and comments of
models/) tells development history or points at documents that do not ship with dempact
(the project's working notes, seed papers by number, sibling folders).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mdtables  # noqa: E402

FORBIDDEN = [
    (r"\bsession \d+", "development history ('session N')"),
    (r"tried and reverted", "development history"),
    (r"not done yet", "development history"),
    (r"\bnew in\b", "development history"),
    (r"\.\./shared", "a folder that does not ship"),
    (r"\bseed \d{3}\b", "a working note's seed number"),
    (r"\bfamily \d\b", "a working note's law family number"),
    (r"(?<!docs/)(?<![(\[])(?<![\w/])physics\.md", "the working notes' physics.md (link docs/physics.md)"),
]


def main():
    src = sys.argv[1]
    problems = []
    readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
    n = len(readme.splitlines())
    if n >= 150:
        problems.append(f"README.md has {n} lines: keep it under 150")

    shipped = {os.path.basename(p) for p in glob.glob(os.path.join(src, "cases", "*.yaml"))}
    listed = set()
    for _, header, rows in mdtables.tables(readme):
        if not header or header[0] != "case":
            continue
        time_col = next((k for k, h in enumerate(header) if "time" in h), None)
        if time_col is None:
            problems.append("README.md: the cases table has no run-time column")
        for row in rows:
            names = [s for s in re.findall(r"[\w-]+\.yaml", row[0])]
            listed.update(names)
            if time_col is not None and (time_col >= len(row) or not row[time_col].strip()):
                problems.append(f"README.md: no run time for {names}")
    for c in sorted(shipped - listed):
        problems.append(f"README.md: the cases table does not list cases/{c}")
    for c in sorted(listed - shipped):
        problems.append(f"README.md: the cases table lists {c}, which is not in cases/")

    files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    files += sorted(glob.glob(os.path.join(src, "models", "*.[ch]")))
    for path in files:
        for k, line in enumerate(open(path, encoding="utf-8"), 1):
            for pattern, why in FORBIDDEN:
                if re.search(pattern, line, re.I):
                    problems.append(f"{os.path.relpath(path, src)}:{k}: {why}: {line.strip()[:90]}")
    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        sys.exit(1)
    print(f"README.md {n} lines, {len(shipped)} cases listed, {len(files)} files free of history "
          "and of unshipped references")


if __name__ == "__main__":
    main()
