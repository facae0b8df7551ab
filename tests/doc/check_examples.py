#!/usr/bin/env python3
"""Usage: check_examples.py DEMPACT SOURCE_DIR

Every complete case in the manual (a ```yaml block of README.md or docs/*.md with a
top-level `domain:` key) must be accepted by `dempact check`, so that a reader who copies
one gets a case that runs. Fragments (blocks without `domain:`) are left alone.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^```yaml\n(.*?)^```", re.M | re.S)


def main():
    dempact, src = sys.argv[1], sys.argv[2]
    pages = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    problems, count = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for page in pages:
            for k, block in enumerate(BLOCK.findall(open(page, encoding="utf-8").read())):
                if not re.search(r"^domain:", block, re.M):
                    continue
                count += 1
                path = os.path.join(tmp, f"{os.path.basename(page)}-{k}.yaml")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(block)
                r = subprocess.run([dempact, "check", path], capture_output=True, text=True)
                if r.returncode != 0:
                    problems.append(f"{os.path.relpath(page, src)}, yaml block {k + 1}: dempact "
                                    f"check exits {r.returncode}: {r.stderr.strip()[:300]}")
    if count == 0:
        problems.append("no complete case in the manual (a yaml block with domain:)")
    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        sys.exit(1)
    print(f"{count} complete cases in the manual pass dempact check")


if __name__ == "__main__":
    main()
