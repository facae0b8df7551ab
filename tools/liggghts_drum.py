#!/usr/bin/env python3
"""cases/drum.yaml turned in LIGGGHTS from dempact's own initial beads, measured by
tools/drum_angle.py.

usage: liggghts_drum.py --dempact build/dempact [--seeds 3,4,5] [--work DIR] [--json OUT]
           [--friction-scale 1] [--restitution 0.5] [--facets 120] [--liggghts liggghts]
           [--reuse]

For each seed (the case's `particles[0].seed`, 3, and others) it
  1. takes the case's initial beads from `dempact run --end-time 1e-5` (two steps:
     its first snapshot holds the 2400 beads the case's random source places, at rest),
     as tools/liggghts_hopper.py does, and writes them as a LIGGGHTS data file;
  2. writes the drum (radius 50 mm, y from -15 to 15 mm) as an ASCII STL mesh of --facets
     facets around (vertices on R (pi/N) / sin(pi/N), so that the facets' mean distance
     from the axis is R, as tools/liggghts_hopper.py), turned by fix move/mesh about the
     y axis at 2 rad/s (period pi s); the end caps are primitive planes y = -+15 mm;
  3. runs LIGGGHTS (one rank) with the law mapped as tools/liggghts_hopper.py maps the
     hopper's (Hertz with Y*, G*; LIGGGHTS's restitution e_L whose Tsuji-type dashpot is
     dempact's hertz_tti dashpot at e = 0.5; tangential history, mu 0.5; rolling_friction
     cdt, mu_r 0.05; all walls steel, E 2e11, nu 0.3; limitForce on), at dempact's step
     for the case, 4.03551e-6 s, for 30 intervals of 0.1 s (a dump at each);
  4. measures the dynamic angle with tools/drum_angle.py --from 1.5 (16 dumps, 1.5-3 s),
     the tool that measures dempact's drum.

--friction-scale and --restitution change all contacts' friction and restitution.
--json OUT writes the per-seed angles (tests/validation/liggghts_drum.json, which
tests/validation/flow_case.sh reads).

Needs Debian's liggghts package, and numpy and h5py: run it with the project's environment,
`.venv/bin/python tools/liggghts_drum.py` (bash tools/setup.sh makes it).
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
try:
    import h5py
    import numpy as np
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("liggghts_drum", missing))
from bench_compare import liggghts_restitution_for, tti_factor  # noqa: E402
from liggghts_heap import dumps_as_h5  # noqa: E402
import liggghts_files  # noqa: E402

DT = 4.03551e-06        # dempact's auto step for cases/drum.yaml (dempact check)
INTERVAL = 0.1          # the case's output interval [s]
END = 3.0
R_DRUM, Y_HALF = 0.05, 0.015
BOX = ((-0.06, 0.06), (-0.02, 0.02), (-0.06, 0.06))  # the case's domain

INPUT = """# tools/liggghts_drum.py: cases/drum.yaml, seed {seed}
""" + liggghts_files.PREAMBLE + """read_data       particles.data
neighbor        0.001 bin
neigh_modify    delay 0
fix m1 all property/global youngsModulus peratomtype 1.0e7 2.0e11
fix m2 all property/global poissonsRatio peratomtype 0.25 0.3
fix m3 all property/global coefficientRestitution peratomtypepair 2 {e} {e} {e} {e}
fix m4 all property/global coefficientFriction peratomtypepair 2 {mu} {mu} {mu} {mu}
fix m5 all property/global coefficientRollingFriction peratomtypepair 2 0.05 0.05 0.05 0.05
pair_style      gran model hertz tangential history rolling_friction cdt limitForce on
pair_coeff      * *
timestep        {dt}
fix drum all mesh/surface file drum.stl type 2
fix walls all wall/gran model hertz tangential history rolling_friction cdt mesh n_meshes 1 meshes drum limitForce on
fix turn all move/mesh mesh drum rotate origin 0. 0. 0. axis 0. 1. 0. period {period}
fix back all wall/gran model hertz tangential history rolling_friction cdt primitive type 2 yplane -{y} limitForce on
fix front all wall/gran model hertz tangential history rolling_friction cdt primitive type 2 yplane {y} limitForce on
fix gravity all gravity 9.81 vector 0 0 -1
fix integrate all nve/sphere
thermo_style    custom step atoms ke
thermo          {every}
thermo_modify   lost ignore norm no
dump d all custom {every} dump/d*.txt id x y z radius
run {steps}
"""


def drum_stl(facets):
    stretch = (math.pi / facets) / math.sin(math.pi / facets)
    r = R_DRUM * stretch
    lines = ["solid drum"]
    for j in range(facets):
        p, q = 2 * math.pi * j / facets, 2 * math.pi * (j + 1) / facets
        a, b = (r * math.cos(p), -Y_HALF, r * math.sin(p)), (r * math.cos(q), -Y_HALF, r * math.sin(q))
        c, d = (r * math.cos(p), Y_HALF, r * math.sin(p)), (r * math.cos(q), Y_HALF, r * math.sin(q))
        for tri in ((a, b, d), (a, d, c)):
            lines.append("facet normal 0 0 0\n outer loop")
            lines += [" vertex %.9g %.9g %.9g" % v for v in tri]
            lines.append(" endloop\nendfacet")
    return "\n".join(lines + ["endsolid drum"]) + "\n"


def initial_beads(a, seed, folder):
    """The case's initial beads for this seed, from one step of dempact."""
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "cases", "drum.yaml")
    with open(src) as f:
        text = f.read()
    case, n = re.subn(r"(?m)^    seed: 3$", f"    seed: {seed}", text)
    if n != 1:
        sys.exit(f"liggghts_drum: {src}: no single line '    seed: 3' to change")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "drum.yaml"), "w") as f:
        f.write(case)
    subprocess.run([os.path.abspath(a.dempact), "run", "drum.yaml", "--output", ".", "--quiet",
                    "--end-time", "1e-5"], cwd=folder, check=True)
    with h5py.File(os.path.join(folder, "drum.h5"), "r") as f:
        s = f["snapshots/000000"]
        return (np.asarray(s["id"]), np.asarray(s["position"]), np.asarray(s["radius"]),
                np.asarray(s["mass"]))


def write_data(path, ids, x, r, m):
    """dempact's beads (ids from 0, masses m) as LIGGGHTS's atoms of type 1."""
    rho = m / (4.0 / 3.0 * math.pi * r ** 3)
    liggghts_files.write_data(path, f"dempact {len(ids)} beads", 2, BOX,
                              ((ids[i] + 1, 1, 2 * r[i], rho[i], x[i, 0], x[i, 1], x[i, 2])
                               for i in range(len(ids))))


def angle_of(h5):
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "drum_angle.py")
    out = subprocess.run([sys.executable, tool, h5, "--from", "1.5"], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"^dynamic angle of repose: ([0-9.]+) \+- ([0-9.]+)", out, re.M)
    return float(m.group(1)), float(m.group(2)), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact", default="build/dempact")
    ap.add_argument("--seeds", default="3,4,5")
    ap.add_argument("--work", default="liggghts_drum_runs")
    ap.add_argument("--json", default=None)
    ap.add_argument("--friction-scale", type=float, default=1.0)
    ap.add_argument("--restitution", type=float, default=0.5)
    ap.add_argument("--facets", type=int, default=120)
    ap.add_argument("--liggghts", default="liggghts")
    ap.add_argument("--reuse", action="store_true", help="measure runs already in --work")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    every = math.ceil(INTERVAL / DT)   # dumps just after each 0.1 s, as dempact's snapshots
    steps = every * round(END / INTERVAL)
    angles, spreads, minutes = [], [], []
    for seed in seeds:
        folder = os.path.abspath(os.path.join(a.work, f"drum_s{seed}"))
        if not (a.reuse and glob.glob(os.path.join(folder, "dump", "d*.txt"))):
            ids, x, r, m = initial_beads(a, seed, os.path.join(folder, "dempact"))
            os.makedirs(os.path.join(folder, "dump"), exist_ok=True)
            write_data(os.path.join(folder, "particles.data"), ids, x, r, m)
            with open(os.path.join(folder, "drum.stl"), "w") as f:
                f.write(drum_stl(a.facets))
            e = liggghts_restitution_for(tti_factor(a.restitution))
            with open(os.path.join(folder, "in.drum"), "w") as f:
                f.write(INPUT.format(seed=seed, e="%.17g" % e, mu=0.5 * a.friction_scale,
                                     dt=DT, period="%.17g" % math.pi, y=Y_HALF, every=every,
                                     steps=steps))
            start = time.time()
            with open(os.path.join(folder, "screen.txt"), "w") as out:
                subprocess.run([a.liggghts, "-in", "in.drum"], cwd=folder, stdout=out,
                               stderr=subprocess.STDOUT, check=True)
            minutes.append((time.time() - start) / 60)
        angle, spread, out = angle_of(dumps_as_h5(folder, DT, "drum_liggghts.h5", False))
        angles.append(angle)
        spreads.append(spread)
        print(f"seed {seed}: {out.strip().splitlines()[-1]}" +
              (f" ({minutes[-1]:.1f} min)" if len(minutes) == len(angles) else ""), flush=True)
    mean = float(np.mean(angles))
    sd = float(np.std(angles, ddof=1)) if len(angles) > 1 else float("nan")
    print(f"LIGGGHTS drum: mean angle {mean:.2f} degrees, sd {sd:.2f} over {len(angles)} fills")
    if a.json:
        result = {
            "angles": angles, "spread_over_snapshots": spreads, "seeds": seeds, "mean": mean,
            "sd": sd, "friction_scale": a.friction_scale, "restitution": a.restitution,
            "dt": DT, "facets": a.facets, "program": "LIGGGHTS 3.8.0 (Debian liggghts), one rank",
            "note": ("LIGGGHTS 3.8.0 (Debian's liggghts package, one rank) turning "
                     "cases/drum.yaml from dempact's initial beads of each seed, law mapped "
                     "as in tools/liggghts_drum.py's docstring, angle by tools/drum_angle.py "
                     "--from 1.5; regenerate with .venv/bin/python tools/liggghts_drum.py "
                     f"--dempact build/dempact --seeds {a.seeds} --json "
                     "tests/validation/liggghts_drum.json"),
        }
        if minutes:
            result["minutes"] = minutes
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
