"""Silbert's chute (cases/chute.yaml) in dempact and LAMMPS: Bagnold's profile, a solid
fraction even in height, and the two codes alike (tools/chute.py does the measuring).

usage: chute.py DEMPACT SOURCE_DIR [LAMMPS]

Runs tools/chute.py at 24 degrees to t = 200 sqrt(d/g), measured over [150, 200], in
both codes on the same chute and the same initial grains. Each value comes with a
spread: half the difference between the window's two halves (the mean speed still rises
by about 2% per 10 sqrt(d/g) at t = 200, docs/validation.md, "Chute flow"; before
t = 150 the profile is not yet Bagnold's: at t = 60 its best exponent is above 2.5).
Fails when
  - dempact's profile departs from Bagnold's: the least-squares fit of
    A (H^(3/2) - (H - z)^(3/2)) leaves an rms residual above 5% of the largest speed, or
    the best exponent a of A (H^a - (H - z)^a) is outside [1.2, 2.1];
  - dempact's solid fraction changes with height in the bulk: a bin of 0.25 H < z <
    0.75 H more than 0.04 from the bulk mean;
  - dempact and LAMMPS differ in H, phi_bulk, v_mean or the flow rate by more than
    3 sqrt(s_dempact^2 + s_lammps^2) + 2% of the value (s: the spreads).
LAMMPS missing: exit 77 (ctest's skip). One run of each code, no generated inputs: about
10 minutes on one core (dempact about 4, LAMMPS about 4, on a quiet core).
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

dempact, src = os.path.abspath(sys.argv[1]), sys.argv[2]
lmp = sys.argv[3] if len(sys.argv) > 3 else shutil.which("lmp")
if not lmp:
    print("SKIP: no LAMMPS (lmp) on PATH")
    sys.exit(77)
work = tempfile.mkdtemp(prefix="chute.")
try:
    out = os.path.join(work, "chute.json")
    subprocess.run([sys.executable, os.path.join(src, "tools", "chute.py"), "--dempact", dempact,
                    "--lammps", lmp, "--end", "200", "--window", "50", "--interval", "2",
                    "--work", work, "--json", out], check=True)
    r = json.load(open(out))
finally:
    shutil.rmtree(work, ignore_errors=True)
d, l = r["dempact"], r["lammps"]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


check(d["bagnold_rms_relative"] < 0.05,
      f"Bagnold fit at a = 3/2: rms residual {d['bagnold_rms_relative']:.3f} of the top speed (< 0.05)")
check(1.2 <= d["bagnold_exponent"] <= 2.1, f"best exponent {d['bagnold_exponent']:.3f} in [1.2, 2.1]")
zs, phis = d["z"], d["phi"]
bulk = [p for z, p in zip(zs, phis) if 0.25 * d["H"] < z < 0.75 * d["H"]]
worst = max(abs(p - d["phi_bulk"]) for p in bulk)
check(worst < 0.04, f"phi in the bulk {d['phi_bulk']:.3f}, farthest bin {worst:.3f} away (< 0.04)")
for key in ("H", "phi_bulk", "v_mean", "flow_rate"):
    tol = 3.0 * math.hypot(d["spread"][key], l["spread"][key]) + 0.02 * abs(l[key])
    check(abs(d[key] - l[key]) <= tol,
          f"{key}: dempact {d[key]:.4g}, LAMMPS {l[key]:.4g}, |difference| "
          f"{abs(d[key] - l[key]):.3g} <= {tol:.3g}")
print(f"speed: dempact {d['particle_steps_per_second']:.3g}, LAMMPS "
      f"{l['particle_steps_per_second']:.3g} particle-steps/s")
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
