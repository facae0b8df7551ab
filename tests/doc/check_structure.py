#!/usr/bin/env python3
"""The rules of docs/architecture.md that the sources' text shows:

- `#ifdef DEMPACT_MPI` (or `#if defined(DEMPACT_MPI)`) only in the ranks' interface
  (ranks.c) and the program's start (cli_main.c): the commands reach the ranks through
  ranks.h, whose one-process build splits nothing;
- no exit status or failure is read from a message's words: no `strstr` over an error
  message (a buffer named err, msg, why or e.msg) and none that looks for "out of memory"
  (a failure is a value: engine/fail.h, io/session/status.h);
- no source file over 600 lines, and no folder of engine/ or io/ holding a third of the
  C code of engine/, models/ and io/ directly;
- includes go one way: models/ includes nothing of engine/ or io/, engine/ nothing of
  io/, and the split over the ranks (io/ranks/) only the engine's public headers, the
  ones at engine/'s top (sim.h, split.h, ...), never a header inside its folders.

    check_structure.py SOURCE_DIR
"""
import pathlib
import re
import sys

MPI_ALLOWED = {"ranks.c", "cli_main.c"}
MPI_GUARD = re.compile(r"^\s*#\s*(ifdef|ifndef)\s+DEMPACT_MPI\b|^\s*#\s*(el)?if\b.*\bDEMPACT_MPI\b")
MAX_LINES = 600
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
READS_MESSAGE = re.compile(r"strstr\s*\(\s*(err|msg|why|e\.msg|e->msg)\b|strstr\s*\([^;]*\"out of memory")


def main():
    root = pathlib.Path(sys.argv[1])
    problems = []
    files = [f for folder in ("engine", "models", "io", "python") for f in sorted((root / folder).rglob("*.[ch]"))
             if "build" not in f.relative_to(root).parts]
    if not files:
        sys.exit(f"{root}: no C sources under engine/, models/, io/, python/")
    for f in files:
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            where = f"{f.relative_to(root)}:{n}"
            if MPI_GUARD.search(line) and f.name not in MPI_ALLOWED:
                problems.append(f"{where}: #ifdef DEMPACT_MPI outside ranks.c and cli_main.c "
                                "(reach the ranks through ranks.h)")
            if READS_MESSAGE.search(line):
                problems.append(f"{where}: reads a message's words (return a failure value, "
                                "engine/fail.h)")
    problems += shape_problems(root, files)
    for p in problems:
        print(p)
    if problems:
        sys.exit(f"FAIL: {len(problems)} places break the architecture's rules")
    print(f"{len(files)} sources keep the rules")


def shape_problems(root, files):
    """The tree's shape and the direction of its includes."""
    problems = []
    per_folder, total = {}, 0
    for f in files:
        rel = f.relative_to(root)
        lines = f.read_text(errors="replace").splitlines()
        if len(lines) > MAX_LINES:
            problems.append(f"{rel}: {len(lines)} lines, more than {MAX_LINES} (split it by job)")
        if rel.parts[0] in ("engine", "models", "io"):
            total += len(lines)
            per_folder[rel.parent] = per_folder.get(rel.parent, 0) + len(lines)
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc, where = m.group(1), f"{rel}:{n}"
            if rel.parts[0] == "models" and inc.startswith(("engine/", "io/")):
                problems.append(f"{where}: models/ includes {inc} (the laws know no engine)")
            if rel.parts[0] == "engine" and inc.startswith("io/"):
                problems.append(f"{where}: engine/ includes {inc} (the engine knows no io/)")
            if rel.parts[:2] == ("io", "ranks") and inc.startswith("engine/") and inc.count("/") > 1:
                problems.append(f"{where}: the split over ranks includes {inc}, inside the engine's "
                                "folders (use its public headers: engine/sim.h, engine/split.h)")
    for folder, n in sorted(per_folder.items()):
        if folder.parts[0] in ("engine", "io") and 3 * n > total:
            problems.append(f"{folder}/: {n} of {total} lines directly, more than a third")
    return problems


if __name__ == "__main__":
    main()
