#!/usr/bin/env python3
"""mu(I) in simple shear, dempact (Lees-Edwards cell) beside LAMMPS (fix deform xz, remap
v), on the same particles and law (tools/mu_of_i.py; docs/validation.md, "mu(I) in simple
shear").

    .venv/bin/python tests/validation/mu_of_i_lammps.py --dempact build/dempact [--lmp lmp]

A small sweep: 500 spheres (a cell of about 8 diameters), three solid fractions (0.54,
0.56, 0.575: I from about 0.3 to 0.08), 10 units of strain each, in both codes. Fails
(exit 1) when, at any point,
- dempact's mu and LAMMPS's differ by more than 3 sqrt(se_d^2 + se_l^2), se each code's
  standard error from its block averages (10 blocks after the first third), or their
  inertial numbers by more than 3 of theirs: two chaotic runs of the same cell are
  independent samples of the same steady state, so a systematic difference of the codes
  shows as a difference beyond the band (about 0.02 in mu here);
- in either code mu does not increase with I (each point's mu above the previous one's,
  the points sorted by I).
A run that fails or is refused is a failure.
"""
import argparse
import json
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import mu_of_i  # noqa: E402

POINTS = [(0.54, 0.30), (0.56, 0.19), (0.575, 0.076)]   # (phi, the I LAMMPS gives there)
PARTICLES = 500
STRAIN = 10.0
BAND = 3.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact", default=os.path.join(ROOT, "build", "dempact"))
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--json")
    a = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as work:
        rows = []
        for phi, i_guess in POINTS:
            gdot = mu_of_i.gdot_for(i_guess)
            for code, exe in (("lammps", a.lmp), ("dempact", os.path.abspath(a.dempact))):
                r = mu_of_i.run_point(code, exe, work, phi, gdot, PARTICLES, STRAIN, 10, 1)
                rows.append(r)
        print(mu_of_i.table(rows))
        for phi, _ in POINTS:
            d = next(r for r in rows if r["code"] == "dempact" and r["phi"] == phi)
            l = next(r for r in rows if r["code"] == "lammps" and r["phi"] == phi)
            for key in ("mu", "I"):
                band = BAND * math.hypot(d[key + "_err"], l[key + "_err"])
                ok = abs(d[key] - l[key]) <= band
                print("%s phi %.3f %s: dempact %.4f, LAMMPS %.4f, difference %.4f, band %.4f" % (
                    "ok  " if ok else "FAIL", phi, key, d[key], l[key], d[key] - l[key], band))
                if not ok:
                    failures.append("phi %.3f %s" % (phi, key))
        for code in ("dempact", "lammps"):
            rs = sorted((r for r in rows if r["code"] == code), key=lambda r: r["I"])
            mus = [r["mu"] for r in rs]
            ok = all(b > a_ for a_, b in zip(mus, mus[1:]))
            print("%s %s: mu increases with I: %s" % ("ok  " if ok else "FAIL", code,
                                                      ", ".join("%.4f" % m for m in mus)))
            if not ok:
                failures.append("%s mu(I) not increasing" % code)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
