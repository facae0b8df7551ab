#!/usr/bin/env python3
"""A cohesive packing in dempact and LAMMPS: the same spheres poured with JKR adhesion.

Usage: .venv/bin/python tools/lammps_cohesive_packing.py [--dempact build/dempact] [--lmp lmp]
           [--seeds 1,2,3] [--particles 400] [--time 0.6] [--work 2] [--mu 0.5] [--keep DIR]
           [--band-phi 0.05] [--band-z 1.0]

tools/lammps_packing.py's pour (its generator, geometry, step, skin and measurement:
glass-like spheres of radius uniform in [1, 1.5] mm, 2500 kg/m^3, E = 1e7 Pa, nu = 0.3,
Mindlin friction mu 0.5, a floor at z = 0 and periodic x and y, 12 mm wide) with JKR
adhesion of work w (default 2 J/m^2: the largest pull 3/2 pi w R* is about 29 times
a mean sphere's weight) between the spheres and none on the floor. It prints per code,
over the seeds, the bulk packing fraction and the coordination number (pairs with a
positive overlap; a JKR contact in tension past touching is not counted, in either code)
and exits 1 when the codes' means differ by more than a loose band (--band-phi in the
packing fraction, --band-z in the coordination number): the mapping below is not exact,
so this is a report, not a check of equality.

THE MAPPING, and what it leaves different
  dempact  hertz_tti e (fit: published), cohesion_removal false, friction mindlin
           {coefficient: mu, restitution: e}, adhesion {model: jkr, work: w}; the floor a
           second material with the same moduli and an entry without adhesion.
  LAMMPS   pair granular jkr E cor nu gamma damping tsuji tangential mindlin NULL XGAMMAT mu,
           gamma = w / 2 (tests/lammps/compare_adhesion.py: its jkr is dempact's hertz +
           jkr on every step in contact); the floor as tools/lammps_packing.py's.
  Differences (pair_granular.cpp, 29 Sep 2021):
    break     LAMMPS lets a JKR contact go at the largest pull (d = -3^(1/3) a_c^2/R*),
              dempact at d = -3 a_c^2/R*: LAMMPS's loop costs half the energy (2.079
              against 4.210 pi w a_c^2) and it sticks below 0.70 of dempact's V_s;
    dashpot   LAMMPS's tsuji dashpot takes its stiffness from the JKR contact radius a,
              sqrt(m* 4/3 E* a), larger than Hertz's sqrt(R* d) in compression and not 0
              in tension; dempact's hertz_tti dashpot sees the overlap clipped at 0
              (d+^(1/4)), so it damps less and not at all past touching;
    cohesion  LAMMPS refuses limit_damping with jkr, so its dashpot may pull; dempact runs
              with cohesion_removal false to match;
    friction  LAMMPS caps the tangential force at mu |F_JKR + 3 pi w R*| (its Fncrit: the
              load plus twice the pull-off force), dempact at mu max(F_law, 0), the Hertz
              law's part alone: LAMMPS's contacts resist sliding more, at zero load
              mu 3 pi w R* where dempact's resist none;
    and tools/lammps_packing.py's (the tangential spring's reset, the spin's lever arm,
    the velocity the forces see).

LAST RESULT (seeds 1-3, 400 spheres, 0.6 s, w = 2 J/m^2; mean (sd) dempact | LAMMPS):
  mu 0.5   packing fraction 0.5744 (0.0063) | 0.5521 (0.0075); coordination 5.234 (0.070) |
           4.778 (0.026); no rattlers; log10 KE(end) / KE(peak) -4.8 | -4.5
  mu 0     packing fraction 0.6358 (0.0035) | 0.6395 (0.0018); coordination 6.806 (0.069) |
           6.798 (0.074)
  Without friction the codes agree within a standard deviation though the break and the
  dashpot still differ; with it LAMMPS's cap (mu |F_JKR + 3 pi w R*|) leaves its packing
  looser and less connected. About 45 s per seed for both codes.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lammps_packing as lp  # noqa: E402  (checks numpy and h5py, with the .venv hint)

import numpy as np  # noqa: E402

DEMPACT_CASE = """# lammps_cohesive_packing.py: seed {seed}
name: {name}
domain:
  min: [0, 0, 0]
  max: [{side}, {side}, {top}]
  periodic: [true, true, false]
gravity: [0, 0, -{g}]
time: {{end: {end}, step: {dt}, output_interval: 0, timeseries_interval: {sample}}}
neighbour: {{skin: {skin}}}
materials:
  - {{name: glass, density: {rho}, young: {young}, poisson: {nu}}}
  - {{name: floor, density: {rho}, young: {young}, poisson: {nu}}}
contacts:
  - materials: [glass, glass]
    law: hertz_tti
    cohesion_removal: false
    params: {{restitution: {e}, fit: published}}
    friction: {{coefficient: {mu}, model: mindlin, restitution: {e_t}}}
    adhesion: {{model: jkr, work: {work}}}
  - materials: [glass, floor]
    law: hertz_tti
    cohesion_removal: true
    params: {{restitution: {e}, fit: published}}
    friction: {{coefficient: {mu}, model: mindlin, restitution: {e_t}}}
walls:
  - {{name: floor, type: plane, material: floor, point: [0, 0, 0], normal: [0, 0, 1]}}
  - {{name: lid, type: plane, material: floor, point: [0, 0, {top}], normal: [0, 0, -1]}}
particles:
  - {{source: file, material: glass, file: {csv}}}
"""


def _jkr_input(plain):
    """lammps_packing's LAMMPS input with JKR between the spheres (no limit_damping: LAMMPS
    refuses it with jkr); the floor's fix is the same."""
    hertz = ("pair_coeff      * * hertz/material {young} {cor} {nu} damping tsuji "
             "tangential mindlin NULL {xg} {mu} limit_damping\n")
    jkr = ("pair_coeff      * * jkr {young} {cor} {nu} {gamma} damping tsuji "
           "tangential mindlin NULL {xg} {mu}\n")
    assert plain.count(hertz) == 1, "lammps_packing.py's pair_coeff line changed"
    return plain.replace(hertz, jkr).replace("# lammps_packing.py:", "# lammps_cohesive_packing.py:")


LAMMPS_INPUT = _jkr_input(lp.LAMMPS_INPUT)


def run_seed(args, seed, workdir, geo, wall_factor):
    d = os.path.join(workdir, "seed%d" % seed)
    os.makedirs(d, exist_ok=True)
    pos, rad = lp.place(seed, geo)
    lp.write_csv(os.path.join(d, "particles.csv"), pos, rad)
    lp.write_data(os.path.join(d, "particles.data"), pos, rad, geo)
    g = lp.g17
    name = "cohesive"
    with open(os.path.join(d, name + ".yaml"), "w") as f:
        f.write(DEMPACT_CASE.format(seed=seed, name=name, side=g(geo.side), top=g(geo.top),
                                    g=g(lp.GRAVITY), end=g(args.time), dt=g(geo.dt),
                                    sample=g(lp.KE_SAMPLE), skin=g(geo.skin), rho=g(lp.RHO),
                                    young=g(lp.YOUNG), nu=g(lp.NU), e=g(lp.E_TTI), e_t=g(lp.E_T),
                                    mu=g(args.mu), work=g(args.work), csv="particles.csv"))
    dem = lp.run_dempact(args.dempact, d, name, 1)
    steps = int(round(args.time / geo.dt))
    with open(os.path.join(d, "in.packing"), "w") as f:
        f.write(LAMMPS_INPUT.format(seed=seed, data="particles.data", young=g(lp.YOUNG),
                                    cor=g(lp.COR), nu=g(lp.NU), gamma=g(args.work / 2.0),
                                    xg=g(lp.XGAMMAT), mu=g(args.mu),
                                    young_wall=g(lp.YOUNG / wall_factor),
                                    kt_wall=g(8.0 * lp.G_EFF), g=g(lp.GRAVITY), skin=g(geo.skin),
                                    dt=g(geo.dt), every=max(1, int(round(lp.KE_SAMPLE / geo.dt))),
                                    thermo=max(1, steps // 10), steps=steps))
    lam = lp.run_lammps(args.lmp, d)
    res = []
    for run in (dem, lam):
        r = lp.measure(run, geo, args.time)
        r["ke_left"] = math.log10(max(run["ke"][-1], 1e-300) / run["ke"].max())
        res.append(r)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dempact", default=os.path.join(HERE, "..", "build", "dempact"))
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--particles", type=int, default=400)
    ap.add_argument("--time", type=float, default=0.6, help="simulated seconds")
    ap.add_argument("--work", type=float, default=2.0, help="work of adhesion w [J/m^2]")
    ap.add_argument("--mu", type=float, default=lp.MU, help="friction coefficient (default 0.5)")
    ap.add_argument("--keep", default="", help="work in this folder and keep it")
    ap.add_argument("--band-phi", type=float, default=0.05)
    ap.add_argument("--band-z", type=float, default=1.0)
    args = ap.parse_args()
    lmp = shutil.which(args.lmp)
    if lmp is None:
        print("lammps_cohesive_packing: LAMMPS executable '%s' not found" % args.lmp)
        return 1
    args.lmp = lmp
    seeds = [int(s) for s in args.seeds.split(",")]
    geo = lp.Geometry(args.particles, True)          # the 12 mm wide cell
    workdir = args.keep or tempfile.mkdtemp(prefix="dempact_cohesive_")
    os.makedirs(workdir, exist_ok=True)
    try:
        wall_factor = lp.probe_wall_factor(lmp, workdir)
        r_eff = 0.5 * 0.5 * (lp.R_MIN + lp.R_MAX)
        weight = lp.RHO * 4.0 / 3.0 * math.pi * (0.5 * (lp.R_MIN + lp.R_MAX)) ** 3 * lp.GRAVITY
        print("%d spheres, %g s, mu = %g, w = %g J/m^2 (LAMMPS gamma = %g): pull-off 3/2 pi w R* = %.3g N, "
              "%.1f times a mean sphere's weight; dt = %.4g s; seeds %s"
              % (args.particles, args.time, args.mu, args.work, args.work / 2, 1.5 * math.pi * args.work * r_eff,
                 1.5 * math.pi * args.work * r_eff / weight, geo.dt, args.seeds))
        rows = {"dempact": [], "LAMMPS": []}
        for seed in seeds:
            dem, lam = run_seed(args, seed, workdir, geo, wall_factor)
            rows["dempact"].append(dem)
            rows["LAMMPS"].append(lam)
            print("seed %d: packing fraction %.4f | %.4f, coordination %.3f | %.3f, "
                  "without rattlers %.3f | %.3f, log10 KE(end) / KE(peak) %.2f | %.2f"
                  % (seed, dem["phi"], lam["phi"], dem["Z"], lam["Z"], dem["Z_no_rattlers"],
                     lam["Z_no_rattlers"], dem["ke_left"], lam["ke_left"]))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print("%-26s %-18s %-18s %s" % ("mean (sd)", "dempact", "LAMMPS", "difference"))
    out = 0
    for key, label, band in (("phi", "packing fraction", args.band_phi),
                             ("Z", "coordination", args.band_z),
                             ("Z_no_rattlers", "  without rattlers", None),
                             ("rattlers", "rattler fraction", None),
                             ("ke_left", "log10 KE(end) / KE(peak)", None)):
        stats = {}
        for code in rows:
            v = np.array([r[key] for r in rows[code]])
            stats[code] = (v.mean(), v.std(ddof=1) if len(v) > 1 else 0.0)
        diff = stats["dempact"][0] - stats["LAMMPS"][0]
        over = band is not None and abs(diff) > band
        out |= over
        print("%-26s %-18s %-18s %+.4f%s" % (
            label, "%.4f (%.4f)" % stats["dempact"], "%.4f (%.4f)" % stats["LAMMPS"], diff,
            "  beyond the band %g" % band if over else ""))
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
