#!/usr/bin/env python3
"""The rules of docs/architecture.md that the sources' text shows:

- `#ifdef DEMPACT_MPI` (or `#if defined(DEMPACT_MPI)`) only in the ranks' interface
  (ranks.c) and the program's start (cli_main.c): the commands reach the ranks through
  ranks.h, whose one-process build splits nothing;
- no exit status or failure is read from a message's words: no `strstr` over an error
  message (a buffer named err, msg, why or e.msg) and none that looks for "out of memory"
  (a failure is a value: engine/fail.h, io/session/status.h).

    check_structure.py SOURCE_DIR
"""
import pathlib
import re
import sys

MPI_ALLOWED = {"ranks.c", "cli_main.c"}
MPI_GUARD = re.compile(r"^\s*#\s*(ifdef|ifndef)\s+DEMPACT_MPI\b|^\s*#\s*(el)?if\b.*\bDEMPACT_MPI\b")
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
    for p in problems:
        print(p)
    if problems:
        sys.exit(f"FAIL: {len(problems)} places break the architecture's rules")
    print(f"{len(files)} sources keep the rules")


if __name__ == "__main__":
    main()
