#!/usr/bin/env python3
"""Mixing rules through the program (docs/case-file.md#mixing-pairs-without-an-entry).

Usage: mixing_check.py DEMPACT CASE

CASE (tests/data/e2e/mixed_pair.yaml) gives only [glass, glass] and [steel, steel]:
1. `dempact check CASE` exits 0 and prints the mixed pair glass on steel, the two
   entries with their lines in the file (found here by their text), and each value the
   rule gives, against the rule computed here from the entries: the geometric mean of
   the restitutions, the friction and rolling coefficients, the static coefficients (the
   steel entry's absent static is its coefficient) and the rolling dashpots (steel's the
   default 0.3); and the engine's collision of the pair restitutes sqrt(e1 e2).
2. `dempact run CASE` runs it (exit 0).
3. The same case with the steel entry's friction model changed to viscous: check and run
   exit 2 with FILE:LINE of contacts:, both entries' lines and the reason, and run
   writes nothing.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

dempact, case = sys.argv[1], sys.argv[2]
text = open(case).read()
lines = text.splitlines()


def line_of(fragment):
    return next(k + 1 for k, s in enumerate(lines) if fragment in s)


glass, steel = line_of("- materials: [glass, glass]"), line_of("- materials: [steel, steel]")
contacts = line_of("contacts:")
# the entries' values, as the file gives them
for fragment in ["params: {restitution: 0.5}", "params: {restitution: 0.9}",
                 "friction: {coefficient: 0.3, model: mindlin, static: 0.4}",
                 "friction: {coefficient: 0.5, model: mindlin}",
                 "rolling: {model: spring, coefficient: 0.05, damping: 0.2}",
                 "rolling: {model: spring, coefficient: 0.1}"]:
    assert fragment in text, fragment
want = {
    "restitution": math.sqrt(0.5 * 0.9),
    "friction coefficient": math.sqrt(0.3 * 0.5),
    "static": math.sqrt(0.4 * 0.5),
    "rolling coefficient": math.sqrt(0.05 * 0.1),
    "damping": math.sqrt(0.2 * 0.3),
}
failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


out = subprocess.run([dempact, "check", case], capture_output=True, text=True, timeout=120)
check(out.returncode == 0, f"check exit {out.returncode}: {out.stderr}")
head = (f"  mixed      glass on steel from contacts[0] (glass on glass, line {glass}) and "
        f"contacts[1] (steel on steel, line {steel}):")
check(head in out.stdout, f"check does not print {head!r}:\n{out.stdout}")
block = out.stdout.split(head, 1)[-1].splitlines()[1:4]
law = next((s for s in block if "law hertz_tti:" in s), "")
friction = next((s for s in block if "friction mindlin:" in s), "")
rolling = next((s for s in block if "rolling spring:" in s), "")
got = {}
for name, line, key in [("restitution", law, "restitution"),
                        ("friction coefficient", friction, "coefficient"),
                        ("static", friction, "static"),
                        ("rolling coefficient", rolling, "coefficient"),
                        ("damping", rolling, "damping")]:
    m = re.search(rf"\b{key} ([0-9.e+-]+) \(geometric mean of", line)
    check(m is not None, f"{name}: not in {line!r}")
    if m:
        got[name] = float(m.group(1))
        check(abs(got[name] - want[name]) <= 1e-8 * want[name],
              f"{name}: printed {got[name]}, the rule gives {want[name]}")
check("fit calibrated (same in both)" in law, f"fit: {law!r}")
m = re.search(r"restitution glass on steel: asks ([0-9.]+), gets ([0-9.]+)", out.stdout)
check(m is not None and abs(float(m.group(2)) - want["restitution"]) < 1e-3,
      f"the mixed pair's restitution: {m and m.group(0)}")
print("check:", got)

with tempfile.TemporaryDirectory() as tmp:
    run = subprocess.run([dempact, "run", case, "--output", os.path.join(tmp, "o"), "--quiet"],
                         capture_output=True, text=True, timeout=300)
    check(run.returncode == 0, f"run exit {run.returncode}: {run.stderr}")

    bad = os.path.join(tmp, "unmixable.yaml")
    with open(bad, "w") as f:
        f.write(text.replace("friction: {coefficient: 0.5, model: mindlin}",
                             "friction: {coefficient: 0.5, model: viscous, damping: 50}"))
    for cmd in (["check", bad], ["run", bad, "--output", os.path.join(tmp, "bad"), "--quiet"]):
        r = subprocess.run([dempact] + cmd, capture_output=True, text=True, timeout=120)
        check(r.returncode == 2, f"{cmd[0]} of unmixable entries: exit {r.returncode}")
        for frag in [f"{bad}:{contacts}: contacts: no entry for [glass, steel]",
                     f"contacts[0] ([glass, glass], line {glass})",
                     f"contacts[1] ([steel, steel], line {steel})",
                     "their friction models differ (mindlin and viscous)"]:
            check(frag in r.stderr, f"{cmd[0]}: message lacks {frag!r}: {r.stderr}")
    check(not os.path.exists(os.path.join(tmp, "bad")), "run of a refused case wrote output")
sys.exit(1 if failed else 0)
