#!/usr/bin/env python3
"""cases/heap.yaml poured in LIGGGHTS, measured by tools/angle_of_repose.py.

usage: liggghts_heap.py [--seeds 11,12,13] [--work DIR] [--json OUT]
           [--friction-scale 1] [--restitution 0.3] [--dt 4.16493e-6] [--liggghts liggghts]
           [--reuse]

For each seed it writes the heap as a LIGGGHTS input and runs it (one rank):
  beads:   glass (E 1e7, nu 0.25, 2500 kg/m^3), radii uniform in [1.3, 1.7] mm by number,
           as nine equally likely sizes at the centres of nine equal bins (LIGGGHTS's
           particle templates hold one radius each; the nine sizes have the uniform
           distribution's mean and its variance to 1.2%);
  inlet:   fix insert/rate/region in the case's box (12 x 12 x 10 mm at z = 50-60 mm),
           2500 beads/s at rest, each wholly inside, no overlap, until the case's stop
           at 2.5 s (the fix is removed then; it owes 6250 beads, and, as dempact's,
           places fewer: the box is full of falling beads), an insertion every ~4.2e-4 s (dempact's 100
           steps of 4.165e-6 s); the seed is the first prime above 10000 + 1000 x seed
           (LIGGGHTS wants primes above 10000), so the pours are independent draws, not
           dempact's;
  plate:   a 6 x 6 cm square at z = 0 (two triangles, fix mesh/surface), steel
           (E 2e11, nu 0.3);
  outlets: the box is dempact's domain less its outlets ([-0.07, 0.07]^2 x [-0.02, 0.12]),
           and LIGGGHTS drops what leaves it: a bead is removed where dempact's outlets
           remove it (LIGGGHTS at its next neighbour rebuild, dempact at the next step;
           both well away from the plate);
  law:     mapped as tools/liggghts_hopper.py maps the hopper's: pair_style gran model
           hertz (Y*, G* from E, nu of both sides), with LIGGGHTS's restitution e_L that
           makes its Tsuji-type dashpot dempact's hertz_tti dashpot at the case's
           restitution (bench_compare.liggghts_restitution_for(tti_factor(e)));
           tangential history (k_t = 8 G* sqrt(R* d), Coulomb limit mu F_n: mu 0.5
           glass-glass, 0.8 glass-steel); rolling_friction cdt (mu_r 0.2 glass-glass,
           0.3 glass-steel); limitForce on. The differences that remain are those listed
           in tools/liggghts_hopper.py (the sliding cap, the cdt torque's use of the
           elastic force and of the twist);
  time:    3 s, gravity 9.81; step --dt (default dempact's auto step for the case,
           4.16493e-6 s, t_c/50 of a 1.8 m/s glass-glass impact);
  measure: the last dump (t = 3 s) is written as a one-snapshot HDF5 file
           (snapshots/000000/position, radius, attribute time) and measured by
           tools/angle_of_repose.py, the tool that measures dempact's heap.

--friction-scale scales both friction coefficients and --restitution sets both contacts'
restitution (the perturbed pours of docs/validation.md#flow-cases).
--json OUT writes the per-seed angles (tests/validation/liggghts_heap.json, which
tests/validation/flow_case.sh reads).

Needs Debian's liggghts package, and numpy and h5py: run it with the project's environment,
`.venv/bin/python tools/liggghts_heap.py` (bash tools/setup.sh makes it).
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_compare import liggghts_restitution_for, tti_factor  # noqa: E402
import liggghts_files  # noqa: E402

try:
    import h5py
    import numpy as np
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("liggghts_heap", missing))

END = 3.0
RADIUS = (0.0013, 0.0017)
SIZES = 9
RATE, STOP = 2500.0, 2.5
DEMPACT_STEP = 4.16493e-06             # dempact's auto step for this case (dempact check)
DEMPACT_INTERVAL = 100 * DEMPACT_STEP  # dempact's insertion interval [s]
HALF_PLATE = 0.03

INPUT = """# tools/liggghts_heap.py: cases/heap.yaml, seed {seed}
""" + liggghts_files.PREAMBLE + """region          box block -0.07 0.07 -0.07 0.07 -0.02 0.12 units box
create_box      2 box
neighbor        0.00085 bin
neigh_modify    delay 0
fix m1 all property/global youngsModulus peratomtype 1.0e7 2.0e11
fix m2 all property/global poissonsRatio peratomtype 0.25 0.3
fix m3 all property/global coefficientRestitution peratomtypepair 2 {e} {e} {e} {e}
fix m4 all property/global coefficientFriction peratomtypepair 2 {mu_gg} {mu_gs} {mu_gs} {mu_gs}
fix m5 all property/global coefficientRollingFriction peratomtypepair 2 0.2 0.3 0.3 0.3
pair_style      gran model hertz tangential history rolling_friction cdt limitForce on
pair_coeff      * *
timestep        {dt}
fix plate all mesh/surface file plate.stl type 2
fix walls all wall/gran model hertz tangential history rolling_friction cdt mesh n_meshes 1 meshes plate limitForce on
fix gravity all gravity 9.81 vector 0 0 -1
{templates}
fix pdd all particledistribution/discrete/numberbased {pdd_seed} {sizes} {weights}
region inlet block -0.006 0.006 -0.006 0.006 0.05 0.06 units box
fix ins all insert/rate/region seed {ins_seed} distributiontemplate pdd verbose no nparticles {count} particlerate {rate} insert_every {every} overlapcheck yes all_in yes vel constant 0 0 0 region inlet
fix integrate all nve/sphere
thermo_style    custom step atoms ke
thermo          {thermo}
thermo_modify   lost ignore norm no
dump d all custom {steps} dump/d*.txt id x y z radius
run {stop_steps}
unfix ins
run {rest_steps}
"""


def next_prime(n):
    while any(n % p == 0 for p in range(2, int(math.isqrt(n)) + 1)):
        n += 1
    return n


def plate_stl():
    h = HALF_PLATE
    a, b, c, d = (-h, -h, 0.0), (h, -h, 0.0), (h, h, 0.0), (-h, h, 0.0)
    lines = ["solid plate"]
    for tri in ((a, b, c), (a, c, d)):
        lines.append("facet normal 0 0 1\n outer loop")
        lines += [" vertex %.9g %.9g %.9g" % v for v in tri]
        lines.append(" endloop\nendfacet")
    return "\n".join(lines + ["endsolid plate"]) + "\n"


def write_input(folder, seed, a):
    width = (RADIUS[1] - RADIUS[0]) / SIZES
    templates, weights = [], []
    for k in range(SIZES):
        r = RADIUS[0] + (k + 0.5) * width
        templates.append(f"fix pts{k} all particletemplate/sphere {next_prime(20000 + 100 * k)} "
                         f"atom_type 1 density constant 2500 radius constant {r:.9g}")
        weights.append(f"pts{k} {1.0 / SIZES:.12g}")
    e = liggghts_restitution_for(tti_factor(a.restitution))
    every = max(1, round(DEMPACT_INTERVAL / a.dt))
    steps = round(END / a.dt)
    stop_steps = round(STOP / a.dt)
    text = INPUT.format(seed=seed, e="%.17g" % e, mu_gg=0.5 * a.friction_scale,
                        mu_gs=0.8 * a.friction_scale, dt=a.dt, templates="\n".join(templates),
                        pdd_seed=next_prime(10000 + 1000 * seed + 500),
                        ins_seed=next_prime(10000 + 1000 * seed), sizes=SIZES,
                        weights=" ".join(weights), count=round(RATE * STOP), rate=RATE,
                        every=every, thermo=round(0.1 / a.dt), steps=steps,
                        stop_steps=stop_steps, rest_steps=steps - stop_steps)
    os.makedirs(os.path.join(folder, "dump"), exist_ok=True)
    with open(os.path.join(folder, "in.heap"), "w") as f:
        f.write(text)
    with open(os.path.join(folder, "plate.stl"), "w") as f:
        f.write(plate_stl())


def dumps_as_h5(folder, dt, name, last_only):
    """LIGGGHTS's dumps (id x y z radius) as a dempact-like HDF5 file that the measuring
    tools read: snapshots/NNNNNN/position, radius, attribute time."""
    files = liggghts_files.dump_files(folder)
    if not files:
        sys.exit(f"liggghts: {folder}: LIGGGHTS wrote no dump")
    h5 = os.path.join(folder, name)
    with h5py.File(h5, "w") as out:
        for k, path in enumerate(files[-1:] if last_only else files):
            step, data = liggghts_files.read_dump(path)
            s = out.create_group(f"snapshots/{k:06d}")
            s.attrs["time"] = step * dt
            s["position"] = data[:, 1:4]
            s["radius"] = data[:, 4]
    return h5


def angle_of(h5):
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "angle_of_repose.py")
    out = subprocess.run([sys.executable, tool, h5], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"^angle of repose: ([-0-9.]+) degrees", out, re.M)
    return float(m.group(1)), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="11,12,13")
    ap.add_argument("--work", default="liggghts_heap_runs")
    ap.add_argument("--json", default=None)
    ap.add_argument("--friction-scale", type=float, default=1.0)
    ap.add_argument("--restitution", type=float, default=0.3)
    ap.add_argument("--dt", type=float, default=DEMPACT_STEP)
    ap.add_argument("--liggghts", default="liggghts")
    ap.add_argument("--reuse", action="store_true", help="measure runs already in --work")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    angles, minutes = [], []
    for seed in seeds:
        folder = os.path.join(a.work, f"heap_s{seed}")
        if not (a.reuse and glob.glob(os.path.join(folder, "dump", "d*.txt"))):
            write_input(folder, seed, a)
            start = time.time()
            with open(os.path.join(folder, "screen.txt"), "w") as out:
                subprocess.run([a.liggghts, "-in", "in.heap"], cwd=folder, stdout=out,
                               stderr=subprocess.STDOUT, check=True)
            minutes.append((time.time() - start) / 60)
        angle, out = angle_of(dumps_as_h5(folder, a.dt, "heap_liggghts.h5", True))
        angles.append(angle)
        print(f"seed {seed}: {out.strip()}" +
              (f"\n  ({minutes[-1]:.1f} min)" if len(minutes) == len(angles) else ""),
              flush=True)
    mean = float(np.mean(angles))
    sd = float(np.std(angles, ddof=1)) if len(angles) > 1 else float("nan")
    print(f"LIGGGHTS heap: mean angle {mean:.2f} degrees, sd {sd:.2f} over {len(angles)} pours")
    if a.json:
        result = {
            "angles": angles, "seeds": seeds, "mean": mean, "sd": sd,
            "friction_scale": a.friction_scale, "restitution": a.restitution, "dt": a.dt,
            "program": "LIGGGHTS 3.8.0 (Debian liggghts), one rank",
            "note": ("LIGGGHTS 3.8.0 (Debian's liggghts package, one rank) pouring "
                     "cases/heap.yaml, law mapped as in tools/liggghts_heap.py's docstring, "
                     "angle by tools/angle_of_repose.py on the dump at t = 3 s; regenerate "
                     "with .venv/bin/python tools/liggghts_heap.py --seeds "
                     f"{a.seeds} --json tests/validation/liggghts_heap.json"),
        }
        if minutes:
            result["minutes"] = minutes
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
