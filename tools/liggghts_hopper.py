#!/usr/bin/env python3
"""The hopper's Beverloo discharge in LIGGGHTS, from dempact's own initial particles.

usage: liggghts_hopper.py [--dempact-runs /tmp/bev2] [--work DIR]
           [--diameters 0.0225,0.027,0.0315,0.036] [--friction 0.5] [--rolling 0.05]
           [--facets 120] [--liggghts liggghts] [--reuse]
           [--seeds N] [--dempact PATH] [--json OUT]

--seeds N takes the replicates tools/beverloo.py --seeds N pours (hopper_<D>mm_s<k>.h5
for k >= 1) as N sets of beads and fits the mean rates, as beverloo.py does. With
--dempact PATH, a replicate whose dempact run is missing from --dempact-runs gets its
beads from `dempact run --end-time 3e-5` (one step: its first snapshot holds the case's
initial particles, all LIGGGHTS needs), and the dempact column is left out where no
full run is there.
--json OUT writes LIGGGHTS's rates and fit (tests/validation/flow_case.sh reads it).

For each orifice diameter D it takes dempact's finished run DIR/hopper_<D>mm.h5
(tools/beverloo.py --work DIR) and
  1. writes its first snapshot (/snapshots/000000: ids, positions, radii; density =
     mass / volume, 2500) as a LIGGGHTS data file: the same 12,000 beads at rest;
  2. writes the bin (cylinder R_bin = 70 mm, 0.25 m tall, from the cone's top) and the
     cone (60 degrees from the vertical, from the orifice's rim at z = 0.02 up to R_bin)
     as ASCII STL meshes: --facets facets around (default 120), rows about 10 mm tall.
     The vertices lie on a radius R (pi/N) / sin(pi/N), so that the facets' mean
     distance from the axis is the true radius; a facet then departs from the true
     surface by at most R (1 - cos(pi/N)) / 2 ~ 12 um at R_bin and N = 120 (0.6 % of
     a bead's radius, 2-2.5 mm); the orifice's rim is a 120-gon whose area is that of
     the circle to 0.01 %;
  3. runs LIGGGHTS (one rank) with dempact's law, mapped:
       normal:  pair_style gran model hertz (4/3 Y* sqrt(R* d) d, Y* and G* from E, nu of
                both sides, as dempact) with the coefficient of restitution e_L that makes
                LIGGGHTS's Tsuji-type dashpot dempact's hertz_tti dashpot at e = 0.5:
                bench_compare.liggghts_restitution_for(tti_factor(0.5)); limitForce on
                (no attraction; dempact's cohesion removal);
       tangential history: k_t = 8 G* sqrt(R* d), Coulomb limit mu F_n (dempact's Mindlin
                spring, tangential restitution = the law's);
       rolling_friction cdt: constant torque mu_r R* F_n against the relative rotation;
       walls: both meshes steel (E 2e11, nu 0.3) with the same laws and coefficients;
       timestep 3e-5 s, gravity 9.81, 40,000 steps (1.2 s), dumps at dempact's snapshot
       steps (every 667 and the last), particles leaving the box are dropped (the
       measurement only counts those above the orifice);
  4. measures W and rho_b from the dumps with beverloo.measure_snapshots (the same
     window: t >= 0.45 s while at most 40 % is discharged; the same probe) and fits
     Beverloo's law to LIGGGHTS's and to dempact's rates with beverloo.fit.

Differences that remain (LIGGGHTS 3.8.0's sources against engine/step/friction.c):
  - sliding: LIGGGHTS caps the spring force k_t xi alone at mu F_n and drops the
    tangential dashpot while sliding; dempact caps spring + dashpot;
  - rolling (cdt): LIGGGHTS's torque is mu_r R* (k_n d) w_r / |w| with w = w_i - w_j
    *including* its twist part and the torque's normal part removed afterwards, so a
    twisting pair gets less than mu_r R* F_n; it uses the elastic normal force k_n d,
    dempact the total F_n (elastic + dashpot, >= 0); at a wall the lever is the
    contact radius rather than R_i, and the twist is not removed before normalising.
    dempact's rolling law `liggghts_cdt` is this torque bar the elastic force (docs/laws.md).
On dempact's own beads the second one matters most: LIGGGHTS's cdt torque is 0.75-0.77
of dempact's (0.84 of its dissipation) averaged over the pairs of the flowing bed, i.e.
an effective rolling coefficient of about 0.038 instead of 0.05.
--friction and --rolling change the bead-bead and bead-wall coefficients together (for
the sensitivity of W); the dempact column is always the runs in --dempact-runs (pass a
folder of dempact runs made with the same coefficients to compare like with like).

Last run (LIGGGHTS 3.8.0, one rank, 2.1-3.6 min per orifice; D = 22.5, 27, 31.5, 36 mm):
  friction 0.5, rolling 0.05: W = 74.5, 130.9, 227.0, 339.3 g/s (C 0.514, k 1.48); a
      replicate with 128 facets: 77.1, 136.8, 220.4, 326.8 (C 0.442, k 1.17); dempact
      70.4, 129.9, 222.4, 329.0 (C 0.511, k 1.51);
  friction 0.3: W = 84.2, 150.8, 240.5, 359.1 (C 0.477, k 1.18; dempact's README: C
      0.480, k 1.25);
  rolling 0: W = 78.3, 141.8, 236.8, 361.0 (C 0.530, k 1.47); dempact with rolling 0
      83.1, 150.0, 237.1, 359.9 (C 0.482, k 1.23);
  rolling 0.066 (= 0.05 / 0.76, dempact's torque): 69.9 and 327.3 at 22.5 and 36 mm.
Replicates differ by 3-5% in W per orifice (dempact at 22.5 mm with a step of 2.99e-5:
67.1 against 70.4), which moves a four-orifice fit's C by +-0.04 and k by +-0.3:
C ~ 0.45-0.53 is what these parameters give in both codes.

Needs Debian's liggghts package, and numpy and h5py: run it with the project's environment,
`.venv/bin/python tools/liggghts_hopper.py` (bash tools/setup.sh makes it).
"""
import argparse
import glob
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import beverloo  # noqa: E402
from bench_compare import liggghts_restitution_for, tti_factor  # noqa: E402
import liggghts_files  # noqa: E402

import h5py  # noqa: E402
import numpy as np  # noqa: E402

DT = 3.0e-5
STEPS = 40000           # 1.2 s
EVERY = 667             # dempact's snapshot steps (0.02 s / 3e-5 rounded up), and the last
BIN_LENGTH = 0.25
ROW = 0.01              # target height of a row of facets [m]
BOX = ((-0.075, 0.075), (-0.075, 0.075), (-0.03, 0.31))  # dempact's domain

INPUT = """# tools/liggghts_hopper.py: dempact's hopper, D = {d_mm:.1f} mm
""" + liggghts_files.PREAMBLE + """read_data       particles.data
neighbor        0.001 bin
neigh_modify    delay 0
fix m1 all property/global youngsModulus peratomtype 1.0e7 2.0e11
fix m2 all property/global poissonsRatio peratomtype 0.25 0.3
fix m3 all property/global coefficientRestitution peratomtypepair 2 {e} {e} {e} {e}
fix m4 all property/global coefficientFriction peratomtypepair 2 {mu} {mu} {mu} {mu}
fix m5 all property/global coefficientRollingFriction peratomtypepair 2 {mur} {mur} {mur} {mur}
pair_style      gran model hertz tangential history rolling_friction cdt limitForce on
pair_coeff      * *
fix bin all mesh/surface file bin.stl type 2
fix cone all mesh/surface file cone.stl type 2
fix walls all wall/gran model hertz tangential history rolling_friction cdt mesh n_meshes 2 meshes bin cone limitForce on
""" + liggghts_files.run_tail("id x y z")


def frustum_stl(name, z0, r0, z1, r1, facets):
    """ASCII STL of the open surface of revolution from (z0, r0) to (z1, r1)."""
    stretch = (math.pi / facets) / math.sin(math.pi / facets)  # facets' mean radius = r
    rows = max(1, round(math.hypot(z1 - z0, r1 - r0) / ROW))
    lines = [f"solid {name}"]
    for i in range(rows):
        za, zb = z0 + (z1 - z0) * i / rows, z0 + (z1 - z0) * (i + 1) / rows
        ra, rb = [(r0 + (r1 - r0) * f) * stretch for f in (i / rows, (i + 1) / rows)]
        for j in range(facets):
            p, q = 2 * math.pi * j / facets, 2 * math.pi * (j + 1) / facets
            a, b = (ra * math.cos(p), ra * math.sin(p), za), (ra * math.cos(q), ra * math.sin(q), za)
            c, d = (rb * math.cos(p), rb * math.sin(p), zb), (rb * math.cos(q), rb * math.sin(q), zb)
            for tri in ((a, b, d), (a, d, c)):
                lines.append("facet normal 0 0 0\n outer loop")
                lines += [" vertex %.9g %.9g %.9g" % v for v in tri]
                lines.append(" endloop\nendfacet")
    lines.append(f"endsolid {name}")
    return "\n".join(lines) + "\n"


def initial_particles(h5):
    with h5py.File(h5, "r") as f:
        s = f["snapshots/000000"]
        ids, x, r, m = (np.asarray(s[k]) for k in ("id", "position", "radius", "mass"))
        v = np.asarray(s["velocity"])
    if np.abs(v).max() > 0:
        sys.exit(f"liggghts_hopper: {h5}: the first snapshot is not at rest")
    return ids, x, r, m


def write_data(path, ids, x, r, m):
    """dempact's beads (ids from 0, masses m) as LIGGGHTS's atoms of type 1."""
    rho = m / (4.0 / 3.0 * math.pi * r ** 3)
    liggghts_files.write_data(path, f"dempact {len(ids)} beads", 2, BOX,
                              ((ids[i] + 1, 1, 2 * r[i], rho[i], x[i, 0], x[i, 1], x[i, 2])
                               for i in range(len(ids))))


def dump_snapshots(folder, mass_of_id, radius_of_id):
    """(time, x, m, r) of each LIGGGHTS dump, in step order."""
    for path in liggghts_files.dump_files(folder):
        step, data = liggghts_files.read_dump(path)
        ids = data[:, 0].astype(int) - 1 if len(data) else np.zeros(0, int)
        x = data[:, 1:4] if len(data) else np.zeros((0, 3))
        yield step * DT, x, mass_of_id[ids], radius_of_id[ids]


def initial_run(a, d_orifice, seed):
    """dempact's run of this orifice and replicate in --dempact-runs; without one (and
    with --dempact), the case's initial beads alone (a run of one step)."""
    suffix = f"_s{seed}" if seed else ""
    h5 = os.path.join(a.dempact_runs, f"hopper_{d_orifice * 1e3:.1f}mm{suffix}.h5")
    if os.path.exists(h5) or not a.dempact:
        return h5
    os.makedirs(a.dempact_runs, exist_ok=True)
    case, _ = beverloo.write_case(d_orifice, a.dempact_runs, seed)
    subprocess.run([a.dempact, "run", case, "--output", a.dempact_runs, "--quiet",
                    "--end-time", "3e-5"], check=True)
    return h5


def has_discharge(h5):
    """Whether the dempact file is a whole run (not the initial beads alone)."""
    with h5py.File(h5, "r") as f:
        return len(f["snapshots"]) > 10


def run_one(a, d_orifice, seed=0):
    suffix = f"_s{seed}" if seed else ""
    tag = f"hopper_{d_orifice * 1e3:.1f}mm{suffix}"
    h5 = initial_run(a, d_orifice, seed)
    folder = os.path.join(a.work, tag)
    length = (beverloo.R_BIN - d_orifice / 2) / math.tan(beverloo.HALF_ANGLE)
    top = beverloo.ORIFICE_Z + length
    ids, x, r, m = initial_particles(h5)
    mass_of_id, radius_of_id = np.zeros(ids.max() + 1), np.zeros(ids.max() + 1)
    mass_of_id[ids], radius_of_id[ids] = m, r
    seconds = None
    if not (a.reuse and os.path.exists(os.path.join(folder, "log.liggghts"))):
        os.makedirs(os.path.join(folder, "dump"), exist_ok=True)
        for old in glob.glob(os.path.join(folder, "dump", "d*.txt")):
            os.remove(old)
        write_data(os.path.join(folder, "particles.data"), ids, x, r, m)
        with open(os.path.join(folder, "bin.stl"), "w") as f:
            f.write(frustum_stl("bin", top, beverloo.R_BIN, top + BIN_LENGTH, beverloo.R_BIN,
                                a.facets))
        with open(os.path.join(folder, "cone.stl"), "w") as f:
            f.write(frustum_stl("cone", beverloo.ORIFICE_Z, d_orifice / 2, top, beverloo.R_BIN,
                                a.facets))
        e = liggghts_restitution_for(tti_factor(0.5))
        with open(os.path.join(folder, "in.hopper"), "w") as f:
            f.write(INPUT.format(d_mm=d_orifice * 1e3, e="%.17g" % e, mu=a.friction,
                                 mur=a.rolling, dt=DT, every=EVERY, steps=STEPS))
        print(f"liggghts_hopper: running {tag} in {folder}", flush=True)
        start = time.time()
        with open(os.path.join(folder, "screen.txt"), "w") as out:
            subprocess.run([a.liggghts, "-in", "in.hopper"], cwd=folder, stdout=out,
                           stderr=subprocess.STDOUT, check=True)
        seconds = time.time() - start
    w, rho_b, d, _ = beverloo.measure_snapshots(dump_snapshots(folder, mass_of_id, radius_of_id),
                                                length, folder)
    if has_discharge(h5):
        w_dem, rho_dem, d_dem, _ = beverloo.measure(h5, length)
    else:
        w_dem = rho_dem = d_dem = float("nan")
    return w, rho_b, d, w_dem, rho_dem, d_dem, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact-runs", default="/tmp/bev2")
    ap.add_argument("--work", default="liggghts_hopper_runs")
    ap.add_argument("--diameters", default="0.0225,0.027,0.0315,0.036")
    ap.add_argument("--friction", type=float, default=0.5)
    ap.add_argument("--rolling", type=float, default=0.05)
    ap.add_argument("--facets", type=int, default=120)
    ap.add_argument("--liggghts", default="liggghts")
    ap.add_argument("--reuse", action="store_true", help="measure runs already in --work")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--dempact", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    diameters = [float(v) for v in a.diameters.split(",")]
    runs = {}
    # replicate by replicate, so that a stopped sweep leaves whole sets of orifices
    for seed in range(a.seeds):
        for d_orifice in diameters:
            row = run_one(a, d_orifice, seed)
            runs[(d_orifice, seed)] = row
            w, rho_b, _, w_dem, rho_dem, _, seconds = row
            took = f", {seconds / 60:.1f} min" if seconds else ""
            print(f"D = {d_orifice * 1e3:5.1f} mm, replicate {seed}: W = {w * 1e3:7.2f} g/s "
                  f"LIGGGHTS, {w_dem * 1e3:7.2f} g/s dempact; rho_b = "
                  f"{rho_b:.0f} / {rho_dem:.0f} kg/m^3{took}", flush=True)
    rows, per_seed = [], []
    for d_orifice in diameters:
        reps = [runs[(d_orifice, seed)] for seed in range(a.seeds)]
        per_seed.append([r[0] for r in reps])
        rows.append((d_orifice,) + tuple(float(np.mean([r[q] for r in reps]))
                                         for q in range(6)))
    result = {"liggghts": {}, "dempact": {}}
    if len(rows) >= 2:
        D = np.array([r[0] for r in rows])
        for name, iw, irho, idd in (("LIGGGHTS", 1, 2, 3), ("dempact", 4, 5, 6)):
            ws = [r[iw] for r in rows]
            if not np.all(np.isfinite(ws)):
                continue
            rho_b = np.mean([r[irho] for r in rows])
            d = np.mean([r[idd] for r in rows])
            C, k, misfit = beverloo.fit(D, ws, rho_b, d)
            print(f"{name:8s} Beverloo fit: C = {C:.3f}, k = {k:.2f} (rho_b = {rho_b:.0f} "
                  f"kg/m^3, d = {d * 1e3:.2f} mm); largest misfit {misfit * 100:.1f}%")
            result[name.lower()] = {"C": C, "k": k, "rho_b": rho_b, "d": d,
                                    "W": [float(v) for v in ws]}
    if a.json:
        import json
        result.update({"diameters": [r[0] for r in rows], "seeds": a.seeds,
                       "W_per_replicate": per_seed, "friction": a.friction,
                       "rolling": a.rolling, "facets": a.facets,
                       "program": "LIGGGHTS 3.8.0 (Debian liggghts), one rank, dt 3e-5 s"})
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
