#!/usr/bin/env python3
"""dempact's rolling law liggghts_cdt against LIGGGHTS 3.8.0's rolling_friction cdt.

    .venv/bin/python tests/liggghts/rolling_cdt.py build/dempact

Two steel spheres (R 1 cm) meet head on at 1 m/s, elastic Hertz without friction, so that
only the rolling torque (mu_r 0.1) changes their spins, in `dempact collide` and in
LIGGGHTS (tests/liggghts/rolling_cdt.in) at the same step. Spins of (300, 400, 0) and
(-100, 0, 200) rad/s give a relative rotation (400, 400, -200) rad/s with a twist about
the line of centres (x): LIGGGHTS's torque is mu_r R* k_n delta along the whole relative
rotation with its normal part dropped, so the twist weakens it. Checked:
  - liggghts_cdt's spins after the rebound equal LIGGGHTS's within 1e-5 of their change;
  - `constant` (the full mu_r R* F_n against the rolling part alone) changes them by
    more than 1.2 times as much, as the closed form says (|w| / |w_t| = 1.34);
  - a relative rotation that only twists ((400, 0, 0) and 0) is left alone by both codes.
Exit 77 (skipped) without Debian's liggghts.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
R, RHO, YOUNG, NU, V0, MU_R = 0.01, 7800.0, 2e11, 0.3, 1.0, 0.1
GAP = 0.01 * R  # dempact collide's gap at the start (engine/collide/collision.c)


def g17(x):
    return repr(float(x))


def dempact(binary, law, spin1, spin2):
    cmd = [binary, "collide", "--law", "hertz", "--velocity", g17(V0), "--radius", g17(R),
           "--density", g17(RHO), "--young", g17(YOUNG), "--poisson", g17(NU),
           "--rolling-model", law, "--rolling", g17(MU_R),
           "--spin1", ",".join(map(g17, spin1)), "--spin2", ",".join(map(g17, spin2)),
           "--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def liggghts(work, spin1, spin2, dt, contact_time):
    x0 = R + GAP / 2.0
    with open(os.path.join(work, "particles.data"), "w") as f:
        f.write("LIGGGHTS data: two spinning spheres\n\n2 atoms\n1 atom types\n\n")
        for axis in "xyz":
            f.write(f"{-20 * R!r} {20 * R!r} {axis}lo {axis}hi\n")
        f.write("\nAtoms\n\n")
        f.write(f"1 1 {2 * R!r} {RHO!r} {-x0!r} 0 0\n2 1 {2 * R!r} {RHO!r} {x0!r} 0 0\n")
        f.write("\nVelocities\n\n")
        f.write(f"1 {V0 / 2!r} 0 0 {' '.join(map(g17, spin1))}\n")
        f.write(f"2 {-V0 / 2!r} 0 0 {' '.join(map(g17, spin2))}\n")
    steps = int(math.ceil((GAP / V0 + 2.0 * contact_time) / dt))
    text = open(os.path.join(HERE, "rolling_cdt.in")).read()
    for key, value in {"YOUNG": g17(YOUNG), "POISSON": g17(NU), "ROLLING": g17(MU_R),
                       "SKIN": g17(0.2 * R), "DT": g17(dt), "STEPS": str(steps)}.items():
        text = text.replace(f"@{key}@", value)
    with open(os.path.join(work, "in.cdt"), "w") as f:
        f.write(text)
    out = subprocess.run(["liggghts", "-in", "in.cdt", "-echo", "none", "-log", "none"],
                         cwd=work, capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("dempact-check spins"):
            w = [float(v) for v in line.split()[2:]]
            return [w[:3], w[3:]]
    raise RuntimeError(f"LIGGGHTS printed no spins: {out.stdout[-500:]} {out.stderr[-500:]}")


def change(before, after):
    return math.sqrt(sum((a - b) ** 2 for s0, s1 in zip(before, after) for a, b in zip(s1, s0)))


def main():
    if shutil.which("liggghts") is None:
        print("liggghts is not installed: skipped")
        return 77
    binary = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as work:
        for spin1, spin2, twist_only in (((300.0, 400.0, 0.0), (-100.0, 0.0, 200.0), False),
                                         ((400.0, 0.0, 0.0), (0.0, 0.0, 0.0), True)):
            cdt = dempact(binary, "liggghts_cdt", spin1, spin2)
            constant = dempact(binary, "constant", spin1, spin2)
            peer = liggghts(work, spin1, spin2, cdt["dt"], cdt["contact_time"])
            before = [spin1, spin2]
            d_cdt, d_const, d_peer = (change(before, w) for w in
                                      (cdt["spin_out"], constant["spin_out"], peer))
            gap = change(cdt["spin_out"], peer)
            print(f"spins {spin1}, {spin2}: change {d_cdt:.6g} rad/s (liggghts_cdt), "
                  f"{d_peer:.6g} (LIGGGHTS), {d_const:.6g} (constant); liggghts_cdt - "
                  f"LIGGGHTS {gap:.3g} rad/s")
            if twist_only:
                if max(d_cdt, d_const, d_peer) > 1e-9:
                    failures.append("a relative rotation about the normal alone was resisted")
                continue
            if not gap <= 1e-5 * d_peer:
                failures.append(f"liggghts_cdt's spins differ from LIGGGHTS's by {gap:.3g} rad/s "
                                f"(their change {d_peer:.4g})")
            if not d_const > 1.2 * d_cdt:
                failures.append(f"constant changed the spins by {d_const:.4g}, not more than 1.2 "
                                f"x liggghts_cdt's {d_cdt:.4g}")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
