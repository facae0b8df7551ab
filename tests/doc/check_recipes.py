#!/usr/bin/env python3
"""Usage: check_recipes.py CC SOURCE_DIR LINK_FILE

docs/architecture.md's recipes for plug-ins, followed to the letter: every fenced code
block whose info string names a file (```c models/x.c) is either new (written as that
file) or an addition to an existing one: to models/normal_parts.h before its last
#endif, to a registry as its `extern` lines before the list and its `&law,` lines at the
end of the list of the law's kind. The copies and the new files are compiled with
tests/doc/recipe_main.c against the libraries (LINK_FILE: one library or flag a line,
as CMake wrote it), the copies' symbols taking the place of the originals', and the
program checks every throw-away law against its closed form, the registry checks and
the case reader. Fails when a block cannot be placed, the program does not build, or a
check fails.
"""
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(?P<indent>[ \t]*)```c (?P<path>\S+)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.M | re.S)


def blocks(text):
    for m in FENCE.finditer(text):
        indent = m.group("indent")
        lines = [l[len(indent):] if l.startswith(indent) else l.lstrip()
                 for l in m.group("body").splitlines()]
        yield m.group("path"), "\n".join(lines) + "\n"


def add_to_list(source, array, entries):
    """The entries at the end of the initialiser of `array` (before its closing '};')."""
    m = re.search(r"^static const \w+ \*const " + re.escape(array) + r"\[\] = \{\n(.*?)^\};",
                  source, re.M | re.S)
    if not m:
        sys.exit(f"FAIL: the registry has no list '{array}' to add to (the recipe is stale)")
    return source[:m.end(1)] + "".join(f"    {e}\n" for e in entries) + source[m.end(1):]


def patch_registry(source, block, path):
    externs = [l for l in block.splitlines() if l.startswith("extern ")]
    entries = [l.strip() for l in block.splitlines() if l.strip().startswith("&")]
    if not externs or len(entries) != sum(len(l.split(",")) for l in externs):
        sys.exit(f"FAIL: {path}: the recipe's registry block needs an extern line and an "
                 "entry per law")
    kind = {}
    for l in externs:
        m = re.match(r"extern const (\w+) (.*);", l)
        for name in m.group(2).split(","):
            kind[name.strip()] = m.group(1)
    first = re.search(r"^static const \w+ \*const \w+\[\] = \{", source, re.M)
    if not first:
        sys.exit(f"FAIL: {path} has no registry list (the recipe is stale)")
    source = source[:first.start()] + "\n".join(externs) + "\n\n" + source[first.start():]
    lists = {"dem_law": "registry", "tangential_law": "tangential_registry",
             "rolling_law": "rolling_registry"}
    for e in entries:
        name = e.strip("&,").strip()
        if name not in kind or kind[name] not in lists:
            sys.exit(f"FAIL: {path}: registry entry {e} has no extern line of a known kind")
        source = add_to_list(source, lists[kind[name]], [e])
    return source


def main():
    cc, src, link_file = sys.argv[1], sys.argv[2], sys.argv[3]
    text = open(os.path.join(src, "docs", "architecture.md"), encoding="utf-8").read()
    found = list(blocks(text))
    if len(found) < 6:
        sys.exit(f"FAIL: docs/architecture.md has {len(found)} recipe blocks, expected the "
                 "normal, tangential and rolling recipes")
    links = [l.strip() for l in open(link_file).read().splitlines() if l.strip()]
    with tempfile.TemporaryDirectory() as out:
        copies = {}
        for path, body in found:
            original = os.path.join(src, path)
            name = os.path.basename(path)
            if path.endswith("registry.c"):
                copies[name] = patch_registry(copies.get(name) or open(original).read(), body,
                                              path)
            elif os.path.exists(original):
                base = copies.get(name) or open(original).read()
                end = base.rstrip().rfind("#endif")
                if not path.endswith(".h") or end < 0:
                    sys.exit(f"FAIL: {path} exists and is not a header to add a part to")
                copies[name] = base[:end] + body + "\n" + base[end:]
            else:
                copies[name] = body
        for name, body in copies.items():
            with open(os.path.join(out, name), "w") as f:
                f.write(body)
        sources = [os.path.join(out, n) for n in copies if n.endswith(".c")]
        program = os.path.join(out, "recipe_check")
        cmd = [cc, "-std=gnu11", "-O2", "-Wall", "-Werror=implicit-function-declaration",
               "-Wno-unused-parameter", "-fopenmp", "-I" + out, "-I" + os.path.join(src, "models"),
               "-I" + src, os.path.join(src, "tests", "doc", "recipe_main.c")] + sources + \
            links + ["-fopenmp", "-lm", "-o", program]
        built = subprocess.run(cmd, capture_output=True, text=True)
        if built.returncode != 0:
            print(built.stdout + built.stderr)
            sys.exit("FAIL: the recipes do not build: " + " ".join(cmd))
        ran = subprocess.run([program, out], capture_output=True, text=True)
        print(ran.stdout + ran.stderr, end="")
        if ran.returncode != 0:
            sys.exit("FAIL: the recipes' laws fail their checks")
    print(f"{len(found)} recipe blocks of docs/architecture.md built into laws that pass "
          "their checks")


if __name__ == "__main__":
    main()
