#!/usr/bin/env python3
"""The same settled packing in dempact and LAMMPS, from the same initial particles.

Usage: .venv/bin/python tools/lammps_packing.py [--dempact build/dempact] [--lmp lmp] [--seeds 1,2,3]
           [--particles 2000] [--time 0.6] [--threads 1] [--tangential-damping on|off]
           [--keep DIR] [--reuse] [--json FILE] [--smoke]

For each seed: polydisperse spheres (radius uniform in [1, 1.5] mm, glass-like: 2500
kg/m^3, E = 1e7 Pa, nu = 0.3) are placed at random without overlap (random sequential
addition, this script's own generator) in a tall region of a box that is periodic in x and
y and has a floor at z = 0, and written twice with 17 significant digits: as a particle
CSV for `dempact run` (`source: file`) and as a LAMMPS data file (`read_data`, atom_style
sphere). Both codes pour them under gravity with the same law, step, skin and neighbour
rule and run for --time seconds; then the script compares, per code over the seeds:

  packing fraction   bulk: the spheres' volume inside the slab 4 mean diameters above the
                     floor up to 4 below the free surface (the 99th percentile of z + r),
                     spherical caps cut exactly, over the slab's volume
  coordination       contacts per sphere (pairs with positive overlap, from the final
                     positions, periodic images included) of the spheres centred in that
                     slab; and the same without rattlers (spheres with < 2 contacts)
  kinetic energy     translational + rotational, sampled every 5 ms: log10 KE at 0.1, 0.2,
                     ... s, and the settling time (the last time KE is above 1e-6 of its peak;
                     the run's end if it still is at the end)

Each is printed as mean and standard deviation (sd) over the seeds per code, the
difference of the means, that difference over the larger sd and over its standard error
se = sqrt(sd_d^2 / n + sd_l^2 / n), and whether it lies within the seed-to-seed spread
(|difference| <= the larger sd; with 3 seeds a code compared with itself fails this about
one time in five per quantity, so read diff/se too: beyond 2-3 it is a real difference).
One seed's run is one realisation of a chaotic pour: two codes on the same file diverge
within a few collisions, so the seeds are the only yardstick. Exit status 0 when every quantity agrees, 1 otherwise. --smoke runs 200
particles for 0.15 s (seconds, not minutes) and checks only that both codes run and the
comparison is produced (exit status 0 whatever it says).

THE MAPPING (as tests/lammps/compare_collide.py checks on a binary collision, Mindlin
cases included)
  dempact  hertz_tti e with fit: published (the TTI fit maps e to LAMMPS's alpha; the
           default, calibrated at the step, would not), cohesion removal on; friction
           {coefficient: MU, restitution: e}
           (Mindlin: k_t = 8 G* sqrt(R* d), eta_t = 2 sqrt(5/6) beta(e) sqrt(k_t m*))
  LAMMPS   pair_style granular: hertz/material E cor nu damping tsuji
           tangential mindlin NULL XGAMMAT MU limit_damping, with alpha(cor) = f(e)
           (cor = 0.5, e = 0.616226) and XGAMMAT = 2 sqrt(5/6) beta(e) sqrt(8 G*) /
           (alpha(cor) sqrt(4/3 E*)).
  floor    dempact: a plane wall of the same material. LAMMPS: fix wall/gran granular with
           the same coefficients except two: E_wall = E / (1 + nu), because this LAMMPS
           (29 Sep 2021) takes E* = E / (2 (1 - nu)) for a wall (tools/bench_compare.py;
           measured here again by a drop test), and the Mindlin stiffness given as a
           number, 8 G* (NULL for a wall is not the pair's 8 G*). The floor mapping is
           checked by an oblique impact of one sphere on the floor in both codes
           (printed first: rebound velocities and spin).
  What still differs per contact (tests/lammps/compare_collide.py and its
  mindlin_reference.py take each apart on one collision):
    reset     after a sliding step LAMMPS's tangential spring holds the Coulomb force
              minus the dashpot's share, dempact's all of it (engine/step/friction.h);
    arm       LAMMPS's contact velocity takes the spin times R, dempact's times R - d/2:
              for these soft spheres (d/R up to 6 % in a 1 m/s impact) that alone moves
              the spin of a partly slipping impact by about 5 %;
    velocity  LAMMPS's forces see v(n+1/2), dempact's v(n+1/2) + dt/2 a(n): at 50 steps
              per contact (this tool's step) compare_collide.py's collisions differ by
              0.09, 0.4 and 0.45 % in restitution, contact time and peak force, and by 2-5 %
              in the spin of a partly slipping impact (1e-5 and 1e-3 at its own step).
  --tangential-damping off takes the first out (no dashpot: the reset rules coincide).

LAST RESULT (seeds 1-6, 2000 spheres, 0.6 s; mean (sd) dempact | LAMMPS, diff / se):
  packing fraction   0.6006 (0.0013) | 0.6026 (0.0020), -2.1 se (LAMMPS denser in 6/6)
  coordination       5.036 (0.033)   | 5.034 (0.044),   0.1 se
  settling time      0.382 (0.040) s | 0.435 (0.093) s, -1.3 se
  log10 KE at 0.1, 0.2, 0.3, 0.4, 0.5 s within 0.5, 1.4, 0.5, 1.7, 0.2 se
  every quantity within the seed-to-seed spread (|diff| <= the larger sd).
  --tangential-damping off: packing fraction 0.6028 (0.0016) | 0.6022 (0.0022), +0.6 se;
  coordination 5.044 | 5.048; settling time 0.377 | 0.411 s (-1.5 se); all within spread.
  The floor check shows the same: normal rebound within 2.4e-5, tangential within 0.2-0.9
  % with the dashpot, up to 8 % on the spin without it (there the arm is left alone).
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import h5py  # noqa: F401 - read_dempact needs it; checked here, before any run
    import numpy as np
except ImportError as missing:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import venv_hint
    sys.exit(venv_hint.message("lammps_packing", missing))

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the case ------------------------------------------------------------------------

RHO, YOUNG, NU = 2500.0, 1.0e7, 0.3
R_MIN, R_MAX = 0.0010, 0.0015
MU = 0.5
COR = 0.5                                   # LAMMPS tsuji argument
GRAVITY = 9.81
E_EFF = YOUNG / (2.0 * (1.0 - NU * NU))
G_EFF = 1.0 / (2.0 * (2.0 - NU) / (YOUNG / (2.0 * (1.0 + NU))))
KE_SAMPLE = 0.005                           # s between kinetic-energy samples


def alpha_tsuji(cor):
    c = cor
    return (1.2728 - 4.2783 * c + 11.087 * c ** 2 - 22.348 * c ** 3 + 27.467 * c ** 4
            - 18.022 * c ** 5 + 4.8218 * c ** 6)


def tti_restitution_for(factor):
    return math.exp(-factor * math.sqrt(10.1354 / (2.2664 ** 2 - factor ** 2)))


def beta_of(e):
    if e >= 1.0:
        return 0.0
    le = math.log(e)
    return -le / math.sqrt(le * le + math.pi ** 2)


ALPHA = alpha_tsuji(COR)
E_TTI = tti_restitution_for(ALPHA)


def xgammat(e_t):
    return 2.0 * math.sqrt(5.0 / 6.0) * beta_of(e_t) * math.sqrt(8.0 * G_EFF) / (
        ALPHA * math.sqrt(4.0 / 3.0 * E_EFF))


E_T = E_TTI                                  # the tangential dashpot's restitution
XGAMMAT = xgammat(E_T)


def g17(x):
    return "%.17g" % x


class Geometry:
    def __init__(self, n, smoke):
        self.n = n
        mean_volume = 4.0 / 3.0 * math.pi * (R_MAX ** 4 - R_MIN ** 4) / (4.0 * (R_MAX - R_MIN))
        self.side = 0.012 if smoke else 0.03                 # periodic x and y [m]
        height = n * mean_volume / (0.2 * self.side ** 2)  # initial solid fraction 0.2
        self.z_lo, self.z_hi = R_MAX, R_MAX + height
        self.top = self.z_hi + 4 * R_MAX                     # box top (a lid never reached)
        v_impact = math.sqrt(2.0 * GRAVITY * self.z_hi)
        self.dt = hertz_contact_time(R_MIN, v_impact) / 50.0
        self.skin = 0.2 * R_MAX


def hertz_contact_time(r, v):
    """Undamped Hertz contact time of two spheres of radius r at relative speed v."""
    m_eff = RHO * 4.0 / 3.0 * math.pi * r ** 3 / 2.0
    r_eff = r / 2.0
    d_max = (15.0 * m_eff * v * v / (16.0 * E_EFF * math.sqrt(r_eff))) ** 0.4
    return 2.0 * 1.4716 * d_max / v


def place(seed, geo):
    """Random sequential addition: periodic in x and y, inside [z_lo, z_hi] in z."""
    rng = np.random.default_rng(seed)
    pos = np.zeros((geo.n, 3))
    rad = rng.uniform(R_MIN, R_MAX, geo.n)
    rad = np.sort(rad)[::-1]               # largest first: packs easily
    placed = 0
    tries = 0
    while placed < geo.n:
        tries += 1
        if tries > 200 * geo.n:
            raise SystemExit("lammps_packing: could not place %d spheres" % geo.n)
        r = rad[placed]
        p = np.array([rng.uniform(0, geo.side), rng.uniform(0, geo.side),
                      rng.uniform(geo.z_lo + r, geo.z_hi - r)])
        if placed:
            d = pos[:placed] - p
            d[:, :2] -= geo.side * np.round(d[:, :2] / geo.side)
            if np.any(np.einsum("ij,ij->i", d, d) < (rad[:placed] + r) ** 2):
                continue
        pos[placed] = p
        placed += 1
    return pos, rad


def write_csv(path, pos, rad):
    with open(path, "w") as f:
        f.write("x,y,z,radius\n")
        for p, r in zip(pos, rad):
            f.write("%s,%s,%s,%s\n" % (g17(p[0]), g17(p[1]), g17(p[2]), g17(r)))


def write_data(path, pos, rad, geo):
    with open(path, "w") as f:
        f.write("lammps_packing.py initial particles (the same as the CSV beside it)\n\n")
        f.write("%d atoms\n1 atom types\n\n" % len(rad))
        f.write("0 %s xlo xhi\n0 %s ylo yhi\n0 %s zlo zhi\n\n" % (g17(geo.side), g17(geo.side),
                                                                  g17(geo.top)))
        f.write("Atoms # sphere\n\n")
        for k, (p, r) in enumerate(zip(pos, rad)):
            f.write("%d 1 %s %s %s %s %s\n" % (k + 1, g17(2 * r), g17(RHO), g17(p[0]), g17(p[1]),
                                               g17(p[2])))


# ---- dempact ------------------------------------------------------------------------------

DEMPACT_CASE = """# lammps_packing.py: seed {seed}
name: {name}
domain:
  min: [0, 0, 0]
  max: [{side}, {side}, {top}]
  periodic: [true, true, false]
gravity: [0, 0, -{g}]
time:
  end: {end}
  step: {dt}
  output_interval: 0
  timeseries_interval: {sample}
neighbour:
  skin: {skin}
materials:
  - {{name: glass, density: {rho}, young: {young}, poisson: {nu}}}
contacts:
  - materials: [glass, glass]
    law: hertz_tti
    cohesion_removal: true
    params: {{restitution: {e}, fit: published}}
    friction: {{coefficient: {mu}, model: mindlin, restitution: {e_t}}}
walls:
  - {{name: floor, type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}}
  - {{name: lid, type: plane, material: glass, point: [0, 0, {top}], normal: [0, 0, -1]}}
particles:
  - {{source: file, material: glass, file: {csv}}}
"""


def dempact_case_text(name, seed, csv, geo, end):
    return DEMPACT_CASE.format(seed=seed, name=name, side=g17(geo.side), top=g17(geo.top),
                               g=g17(GRAVITY), end=g17(end), dt=g17(geo.dt),
                               sample=g17(KE_SAMPLE), skin=g17(geo.skin), rho=g17(RHO),
                               young=g17(YOUNG), nu=g17(NU), e=g17(E_TTI), e_t=g17(E_T), mu=g17(MU),
                               csv=csv)


def run_dempact(dempact, workdir, name, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run(["nice", "-n", "5", dempact, "run", name + ".yaml", "--output", "out_" + name,
                          "--threads", str(threads), "--quiet"],
                         cwd=workdir, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit("lammps_packing: dempact run %s failed (%d):\n%s" % (name, out.returncode,
                                                                            out.stderr[-3000:]))
    return read_dempact(os.path.join(workdir, "out_" + name, name + ".h5"))


def read_dempact(path):
    import h5py
    with h5py.File(path, "r", locking=False) as f:
        ts = f["timeseries"]
        t = np.asarray(ts["time"][()])
        ke = np.asarray(ts["kinetic_energy"][()]) + np.asarray(ts["rotational_energy"][()])
        snaps = sorted(f["snapshots"].keys())
        last = f["snapshots"][snaps[-1]]
        pos = np.asarray(last["position"][()])
        rad = np.asarray(last["radius"][()])
    return {"t": t, "ke": ke, "pos": pos, "rad": rad}


# ---- LAMMPS -----------------------------------------------------------------------------

LAMMPS_INPUT = """# lammps_packing.py: seed {seed}
units           si
atom_style      sphere
atom_modify     map array
boundary        p p f
comm_modify     vel yes
read_data       {data}
pair_style      granular
pair_coeff      * * hertz/material {young} {cor} {nu} damping tsuji tangential mindlin NULL {xg} {mu} limit_damping
fix             floor all wall/gran granular hertz/material {young_wall} {cor} {nu} damping tsuji tangential mindlin {kt_wall} {xg} {mu} limit_damping zplane 0.0 NULL
fix             gravity all gravity {g} vector 0 0 -1
fix             integrate all nve/sphere
neighbor        {skin} bin
neigh_modify    delay 0 every 1 check yes
timestep        {dt}
compute         k all ke
compute         r all erotate/sphere
fix             ke all print {every} "$(time:%.10g) $(c_k:%.10g) $(c_r:%.10g)" file ke.txt screen no title "# time ke erotate"
thermo          {thermo}
run             {steps}
write_dump      all custom final.txt id radius x y z modify sort id format float %.17g
"""


def lammps_input(seed, data, geo, end, wall_factor):
    steps = int(round(end / geo.dt))
    every = max(1, int(round(KE_SAMPLE / geo.dt)))
    return LAMMPS_INPUT.format(seed=seed, data=data, young=g17(YOUNG), cor=g17(COR), nu=g17(NU),
                               xg=g17(XGAMMAT), mu=g17(MU), young_wall=g17(YOUNG / wall_factor),
                               kt_wall=g17(8.0 * G_EFF), g=g17(GRAVITY), skin=g17(geo.skin),
                               dt=g17(geo.dt), every=every, thermo=max(1, steps // 10), steps=steps)


def run_lammps(lmp, workdir):
    out = subprocess.run(["nice", "-n", "5", lmp, "-in", "in.packing", "-log", "log.lammps",
                          "-nocite"], cwd=workdir, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    if out.returncode != 0:
        raise SystemExit("lammps_packing: LAMMPS failed in %s:\n%s%s" % (workdir, out.stdout[-3000:],
                                                                        out.stderr[-2000:]))
    ke = np.loadtxt(os.path.join(workdir, "ke.txt"), comments="#", ndmin=2)
    rows = []
    with open(os.path.join(workdir, "final.txt")) as f:
        lines = f.read().splitlines()
    start = lines.index(next(l for l in lines if l.startswith("ITEM: ATOMS"))) + 1
    for l in lines[start:]:
        rows.append([float(v) for v in l.split()])
    a = np.array(rows)
    return {"t": ke[:, 0], "ke": ke[:, 1] + ke[:, 2], "pos": a[:, 2:5], "rad": a[:, 1]}


# ---- the floor check -----------------------------------------------------------------------

FLOOR_CASE = """name: floor
domain: {{min: [-0.05, -0.05, 0], max: [0.05, 0.05, 0.05]}}
time: {{end: {end}, step: {dt}, output_interval: 0}}
neighbour: {{skin: {skin}}}
materials:
  - {{name: glass, density: {rho}, young: {young}, poisson: {nu}}}
contacts:
  - materials: [glass, glass]
    law: hertz_tti
    cohesion_removal: true
    params: {{restitution: {e}, fit: published}}
    friction: {{coefficient: {mu}, model: mindlin, restitution: {e_t}}}
walls:
  - {{name: floor, type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}}
  - {{name: lid, type: plane, material: glass, point: [0, 0, 0.05], normal: [0, 0, -1]}}
  - {{name: x0, type: plane, material: glass, point: [-0.05, 0, 0], normal: [1, 0, 0]}}
  - {{name: x1, type: plane, material: glass, point: [0.05, 0, 0], normal: [-1, 0, 0]}}
  - {{name: y0, type: plane, material: glass, point: [0, -0.05, 0], normal: [0, 1, 0]}}
  - {{name: y1, type: plane, material: glass, point: [0, 0.05, 0], normal: [0, -1, 0]}}
particles:
  - {{source: file, material: glass, file: floor.csv}}
"""

FLOOR_LAMMPS = """units si
atom_style sphere
atom_modify map array
boundary f f f
comm_modify vel yes
region box block -0.05 0.05 -0.05 0.05 0 0.05 units box
create_box 1 box
create_atoms 1 single 0 0 {z0} units box
set type 1 diameter {diameter}
set type 1 density {rho}
set atom 1 vx {vx} vz -{vz}
pair_style granular
pair_coeff * * hertz/material {young} {cor} {nu} damping tsuji tangential mindlin NULL {xg} {mu} limit_damping
fix floor all wall/gran granular hertz/material {young_wall} {cor} {nu} damping tsuji tangential mindlin {kt_wall} {xg} {mu} limit_damping zplane 0.0 NULL
fix integrate all nve/sphere
timestep {dt}
compute om all property/atom omegax omegay omegaz
fix out all print {steps} "floor-check $(vx[1]:%.17g) $(vz[1]:%.17g) $(c_om[1][2]:%.17g)"
run {steps}
"""


def probe_wall_factor(lmp, workdir):
    """LAMMPS's wall E* over the right one, by tools/bench_compare.py's drop test."""
    sys.path.insert(0, HERE)
    import bench_compare
    return bench_compare.probe_lammps_wall(lmp, workdir, YOUNG, NU)


def floor_check(dempact, lmp, workdir, wall_factor):
    """One sphere (r = 1.25 mm) hits the floor at 1 m/s, 30 and 60 degrees from the normal."""
    r = 0.00125
    rows = []
    for angle in (30.0, 60.0):
        v = 1.0
        vx, vz = v * math.sin(math.radians(angle)), v * math.cos(math.radians(angle))
        t_c = hertz_contact_time(r, vz) * 2 ** 0.4  # sphere on a flat: m* = m, R* = r
        dt = t_c / 4000.0
        z0 = r * 1.002
        end = (z0 - r) / vz + 3 * t_c
        d = os.path.join(workdir, "floor_%g" % angle)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "floor.csv"), "w") as f:
            f.write("x,y,z,radius,vx,vy,vz\n0,0,%s,%s,%s,0,%s\n" % (g17(z0), g17(r), g17(vx), g17(-vz)))
        with open(os.path.join(d, "floor.yaml"), "w") as f:
            f.write(FLOOR_CASE.format(end=g17(end), dt=g17(dt), skin=g17(0.2 * r), rho=g17(RHO),
                                      young=g17(YOUNG), nu=g17(NU), e=g17(E_TTI), e_t=g17(E_T), mu=g17(MU)))
        out = subprocess.run([dempact, "run", "floor.yaml", "--output", "out", "--threads", "1", "--quiet"], cwd=d,
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit("lammps_packing: floor check failed in dempact:\n" + out.stderr[-2000:])
        import h5py
        with h5py.File(os.path.join(d, "out", "floor.h5"), "r", locking=False) as f:
            last = f["snapshots"][sorted(f["snapshots"].keys())[-1]]
            dv = last["velocity"][()][0]
            dw = last["angular_velocity"][()][0]
        text = FLOOR_LAMMPS.format(z0=g17(z0), diameter=g17(2 * r), rho=g17(RHO), vx=g17(vx),
                                   vz=g17(vz), young=g17(YOUNG), cor=g17(COR), nu=g17(NU),
                                   xg=g17(XGAMMAT), mu=g17(MU), young_wall=g17(YOUNG / wall_factor),
                                   kt_wall=g17(8.0 * G_EFF), dt=g17(dt), steps=int(round(end / dt)))
        with open(os.path.join(d, "in.floor"), "w") as f:
            f.write(text)
        out = subprocess.run([lmp, "-in", "in.floor", "-log", "none", "-nocite"], cwd=d,
                             capture_output=True, text=True)
        found = re.findall(r"floor-check (\S+) (\S+) (\S+)", out.stdout)
        if out.returncode != 0 or len(found) < 2:
            raise SystemExit("lammps_packing: floor check failed in LAMMPS:\n" + out.stdout[-2000:])
        lv = [float(v) for v in found[-1]]     # the first line is step 0
        rows.append((angle, (dv[0], dv[2], dw[1]), lv))
    return rows


# ---- measuring ---------------------------------------------------------------------------------


def cap_volume(r, h):
    """Volume of a sphere's cap of height h (0 <= h <= 2r)."""
    h = np.clip(h, 0.0, 2.0 * r)
    return math.pi * h * h * (3.0 * r - h) / 3.0


def slab_volume(z, r, lo, hi):
    """Volume of each sphere inside lo <= z' <= hi."""
    below = cap_volume(r, lo - (z - r))     # the part under lo
    above = cap_volume(r, (z + r) - hi)     # the part over hi
    return np.maximum(4.0 / 3.0 * math.pi * r ** 3 - below - above, 0.0)


def contacts(pos, rad, side):
    """Number of touching neighbours of each sphere (periodic in x and y)."""
    n = len(rad)
    count = np.zeros(n, dtype=int)
    for i in range(0, n, 256):
        d = pos[i:i + 256, None, :] - pos[None, :, :]
        d[:, :, :2] -= side * np.round(d[:, :, :2] / side)
        dist = np.sqrt(np.einsum("ijk,ijk->ij", d, d))
        touch = dist < rad[i:i + 256, None] + rad[None, :]
        for k in range(touch.shape[0]):
            touch[k, i + k] = False
        count[i:i + 256] = touch.sum(axis=1)
    return count


def measure(run, geo, end):
    pos, rad = run["pos"], run["rad"]
    z = pos[:, 2]
    d_mean = 2.0 * rad.mean()
    surface = np.percentile(z + rad, 99.0)
    lo, hi = 4.0 * d_mean, surface - 4.0 * d_mean
    res = {"surface": surface}
    if hi <= lo:
        hi = lo + d_mean                      # smoke runs: too shallow for a bulk; measure anyway
    res["phi"] = slab_volume(z, rad, lo, hi).sum() / (geo.side ** 2 * (hi - lo))
    c = contacts(pos, rad, geo.side)
    inside = (z >= lo) & (z <= hi)
    res["Z"] = c[inside].mean()
    res["Z_no_rattlers"] = c[inside & (c >= 2)].mean() if np.any(inside & (c >= 2)) else 0.0
    res["rattlers"] = np.mean(c[inside] < 2)
    t, ke = run["t"], run["ke"]
    peak = ke.max()
    above = np.nonzero(ke > 1e-6 * peak)[0]
    # not settled by the end (still above at the last sample): the end, a lower bound
    res["t_settle"] = (end if above[-1] >= len(ke) - 2 else t[above[-1]]) if len(above) else 0.0
    for ts in np.arange(0.1, t[-1] + 1e-9, 0.1):
        k = int(np.argmin(abs(t - ts)))
        res["log10KE@%.1f" % ts] = math.log10(max(ke[k], 1e-300))
    res["log10KE_peak"] = math.log10(peak)
    return res


# ---- main ----------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dempact", default=os.path.join(HERE, "..", "build", "dempact"))
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--particles", type=int, default=2000)
    ap.add_argument("--time", type=float, default=0.6, help="simulated seconds")
    ap.add_argument("--threads", type=int, default=1, help="dempact's OpenMP threads")
    ap.add_argument("--keep", default="", help="work in this folder and keep it")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse finished runs")
    ap.add_argument("--json", default="", help="also write the results here")
    ap.add_argument("--smoke", action="store_true", help="200 particles, 0.15 s: a quick check")
    ap.add_argument("--tangential-damping", choices=("on", "off"), default="on",
                    help="off: no tangential dashpot in either code (e_t = 1, XGAMMAT = 0), "
                         "where their rules for a sliding contact's spring coincide")
    a = ap.parse_args()
    if a.smoke:
        a.particles, a.time = 200, 0.15
    global E_T, XGAMMAT
    if a.tangential_damping == "off":
        E_T, XGAMMAT = 1.0, 0.0
    lmp = shutil.which(a.lmp)
    if not lmp:
        print("lammps_packing: LAMMPS '%s' not found (Debian: apt-get install lammps)" % a.lmp)
        return 1
    dempact = os.path.abspath(a.dempact)
    seeds = [int(s) for s in a.seeds.split(",")]
    geo = Geometry(a.particles, a.smoke)
    workdir = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="dempact_packing_")
    os.makedirs(workdir, exist_ok=True)
    print("%d spheres, r in [%g, %g] m, box %g x %g m periodic, floor at 0, poured from z <= %.3g m;"
          % (a.particles, R_MIN, R_MAX, geo.side, geo.side, geo.z_hi))
    print("hertz_tti e = %.6f = LAMMPS tsuji %g, Mindlin mu = %g, e_t = %.6f (XGAMMAT = %.6f), "
          "dt = %.4g s, %.3g s simulated, seeds %s" % (E_TTI, COR, MU, E_T, XGAMMAT, geo.dt, a.time,
                                                       a.seeds), flush=True)

    wall_factor = probe_wall_factor(lmp, workdir)
    print("LAMMPS's wall E* / E / (2 (1 - nu^2)) = %.6f (1 + nu = %.6f): E_wall = E / %.6f"
          % (wall_factor, 1 + NU, wall_factor))
    print("floor check, one sphere at 1 m/s (dempact | LAMMPS | rel diff):")
    for angle, dv, lv in floor_check(dempact, lmp, workdir, wall_factor):
        for label, x, y in zip(("vx out", "vz out", "wy out"), dv, lv):
            print("  %4.0f deg %-7s %13.7g %13.7g %9.2e" % (angle, label, x, y, abs(x - y) / abs(y)))
    sys.stdout.flush()

    results = {"dempact": [], "lammps": []}
    for seed in seeds:
        d = os.path.join(workdir, "seed%d" % seed)
        os.makedirs(d, exist_ok=True)
        pos, rad = place(seed, geo)
        write_csv(os.path.join(d, "init.csv"), pos, rad)
        write_data(os.path.join(d, "init.data"), pos, rad, geo)
        name = "packing"
        with open(os.path.join(d, name + ".yaml"), "w") as f:
            f.write(dempact_case_text(name, seed, "init.csv", geo, a.time))
        with open(os.path.join(d, "in.packing"), "w") as f:
            f.write(lammps_input(seed, "init.data", geo, a.time, wall_factor))
        t0 = time.time()
        h5 = os.path.join(d, "out_" + name, name + ".h5")
        run = read_dempact(h5) if a.reuse and os.path.exists(h5) else run_dempact(dempact, d, name, a.threads)
        t1 = time.time()
        m = measure(run, geo, a.time)
        results["dempact"].append(m)
        print("seed %d dempact (%4.0f s): phi %.4f  Z %.3f  Z(no rattlers) %.3f  rattlers %.3f  "
              "t_settle %.3f s" % (seed, t1 - t0, m["phi"], m["Z"], m["Z_no_rattlers"], m["rattlers"],
                                   m["t_settle"]), flush=True)
        t0 = time.time()
        run = run_lammps(lmp, d) if not (a.reuse and os.path.exists(os.path.join(d, "final.txt"))) \
            else None
        if run is None:
            ke = np.loadtxt(os.path.join(d, "ke.txt"), comments="#", ndmin=2)
            rows = np.loadtxt(os.path.join(d, "final.txt"), skiprows=9, ndmin=2)
            run = {"t": ke[:, 0], "ke": ke[:, 1] + ke[:, 2], "pos": rows[:, 2:5], "rad": rows[:, 1]}
        t1 = time.time()
        m = measure(run, geo, a.time)
        results["lammps"].append(m)
        print("seed %d LAMMPS  (%4.0f s): phi %.4f  Z %.3f  Z(no rattlers) %.3f  rattlers %.3f  "
              "t_settle %.3f s" % (seed, t1 - t0, m["phi"], m["Z"], m["Z_no_rattlers"], m["rattlers"],
                                   m["t_settle"]), flush=True)

    keys = [k for k in results["dempact"][0] if k in results["lammps"][0] and k != "surface"]
    print("\n%-16s %21s %21s %10s %8s %8s  %s" % ("quantity", "dempact mean (sd)", "LAMMPS mean (sd)",
                                                  "diff", "diff/sd", "diff/se", "within the seed spread?"))
    summary = {}
    all_agree = True
    for k in keys:
        dv = np.array([r[k] for r in results["dempact"]])
        lv = np.array([r[k] for r in results["lammps"]])
        sd_d = dv.std(ddof=1) if len(dv) > 1 else float("nan")
        sd_l = lv.std(ddof=1) if len(lv) > 1 else float("nan")
        spread = max(sd_d, sd_l)
        diff = dv.mean() - lv.mean()
        se = math.sqrt(sd_d ** 2 / len(dv) + sd_l ** 2 / len(lv)) if spread == spread else float("nan")
        ok = bool(abs(diff) <= spread) if spread == spread else None
        all_agree = all_agree and bool(ok)
        summary[k] = {"dempact": dv.tolist(), "lammps": lv.tolist(), "diff": float(diff), "se": se,
                      "sd_dempact": float(sd_d), "sd_lammps": float(sd_l), "within_spread": ok}
        print("%-16s %12.5g (%7.2g) %12.5g (%7.2g) %10.3g %8.2f %8.2f  %s"
              % (k, dv.mean(), sd_d, lv.mean(), sd_l, diff,
                 abs(diff) / spread if spread > 0 else (0.0 if diff == 0 else float("inf")),
                 abs(diff) / se if se > 0 else (0.0 if diff == 0 else float("inf")),
                 "yes" if ok else ("n/a" if ok is None else "NO")))
    print("\nall quantities within the seed-to-seed spread: %s" % ("yes" if all_agree else "no"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"particles": a.particles, "time": a.time, "dt": geo.dt, "seeds": seeds,
                       "wall_factor": wall_factor, "summary": summary}, f, indent=1)
    if not a.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if all_agree or a.smoke else 1


if __name__ == "__main__":
    sys.exit(main())
