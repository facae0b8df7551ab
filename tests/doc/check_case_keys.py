#!/usr/bin/env python3
"""Usage: check_case_keys.py CASE_KEYS SOURCE_DIR

docs/case-file.md against the case reader. CASE_KEYS (tests/doc/case_keys.c) prints every
key the reader's libcyaml schema accepts; the manual documents keys in tables whose first
header cell is "key", each under a heading whose first code span is the mapping the keys
belong to (`walls[]`, `contacts[].friction`; a heading without one is the top level).
Fails when
- a key the reader accepts is not documented, or a documented key is not accepted;
- a key the reader requires is not documented as required (default "required");
- a documented key leaves its type, unit, default or range empty;
- a law parameter the reader accepts under contacts[].params is missing from the
  parameter tables of docs/laws.md, or laws.md documents one the reader does not accept;
- the friction, rolling and adhesion key tables of docs/laws.md name other keys than the
  reader's.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mdtables  # noqa: E402

PARAMS = "contacts[].params."


def reader_keys(program):
    out = subprocess.run([program], check=True, capture_output=True, text=True).stdout
    keys = {}
    for line in out.splitlines():
        path, kind, need = line.split("\t")
        keys[path] = (kind, need)
    if len(keys) < 50:
        sys.exit(f"FAIL: {program} printed only {len(keys)} keys")
    return keys


def documented_keys(text, where):
    keys, problems = {}, []
    for heading, header, rows in mdtables.tables(text):
        if not header or header[0] != "key":
            continue
        spans = mdtables.code_spans(heading)
        prefix = spans[0] + "." if spans else ""
        need = ["type", "unit", "default", "range"]
        missing = [n for n in need if n not in header]
        if missing:
            problems.append(f"{where}: the table under '{heading}' has no column {missing}")
            continue
        for row in rows:
            names = mdtables.code_spans(row[0])
            if not names:
                continue
            path = prefix + names[0]
            entry = dict(zip(header, row))
            for n in need:
                if not entry.get(n, "").strip():
                    problems.append(f"{where}: {path}: empty {n}")
            if path in keys:
                problems.append(f"{where}: {path} is documented twice")
            keys[path] = entry
    return keys, problems


def law_parameters(text):
    """Parameter names in docs/laws.md's parameter tables (first header cell 'parameter')."""
    names = set()
    for _, header, rows in mdtables.tables(text):
        if header and header[0] == "parameter":
            for row in rows:
                names.update(mdtables.code_spans(row[0])[:1])
    return names


def laws_md_table_keys(text, first):
    """Keys of docs/laws.md tables whose first header cell is `first` (e.g. 'friction key')."""
    names = set()
    for _, header, rows in mdtables.tables(text):
        if header and header[0] == first:
            for row in rows:
                names.update(mdtables.code_spans(row[0])[:1])
    return names


def main():
    program, src = sys.argv[1], sys.argv[2]
    accepted = reader_keys(program)
    case_md = open(os.path.join(src, "docs", "case-file.md"), encoding="utf-8").read()
    laws_md = open(os.path.join(src, "docs", "laws.md"), encoding="utf-8").read()
    documented, problems = documented_keys(case_md, "docs/case-file.md")

    schema = {k: v for k, v in accepted.items() if not k.startswith(PARAMS)}
    for path in sorted(set(schema) - set(documented)):
        problems.append(f"docs/case-file.md: the reader accepts {path}, the manual does not "
                        "document it")
    for path in sorted(set(documented) - set(schema)):
        problems.append(f"docs/case-file.md: documents {path}, which the reader does not accept")
    for path, (kind, need) in sorted(schema.items()):
        if need == "required" and path in documented and \
                not documented[path]["default"].startswith("required"):
            problems.append(f"docs/case-file.md: {path} is required by the reader; its default "
                            f"says '{documented[path]['default']}'")

    params = {k[len(PARAMS):] for k in accepted if k.startswith(PARAMS)}
    in_laws = law_parameters(laws_md)
    for p in sorted(params - in_laws):
        problems.append(f"docs/laws.md: the reader accepts params.{p}, no law table documents it")
    for p in sorted(in_laws - params):
        problems.append(f"docs/laws.md: documents parameter {p}, which the reader does not accept")

    for block, first in (("contacts[].friction.", "friction key"),
                         ("contacts[].rolling.", "rolling key"),
                         ("contacts[].adhesion.", "adhesion key")):
        reader = {k[len(block):] for k in accepted if k.startswith(block)}
        manual = laws_md_table_keys(laws_md, first)
        if reader != manual:
            problems.append(f"docs/laws.md: the '{first}' table lists {sorted(manual)}, the reader "
                            f"accepts {sorted(reader)}")

    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        sys.exit(1)
    print(f"{len(schema)} case-file keys and {len(params)} law parameters documented, "
          "each accepted by the reader")


if __name__ == "__main__":
    main()
