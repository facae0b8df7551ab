#!/usr/bin/env python3
"""DEM8 case 2, the bidisperse rotating drum, in dempact and LIGGGHTS side by side.

usage: dem8_drum.py write-case [--out cases/dem8_drum.yaml]
       dem8_drum.py run [--end-time 5] [--interval 0.1] [--settle 0.5] [--work DIR]
           [--codes dempact,liggghts[,lammps]] [--one-after-other] [--reuse-settle]
           [--dempact build/dempact] [--liggghts liggghts] [--lmp lmp] [--json OUT]
           [--check-band 0.10]

The benchmark (Dosta et al. 2024, Computer Physics Communications 296, 109066, case 2;
Yade's examples/DEM2020Benchmark/Case2_rotating_drum.py): a steel drum, radius 0.1 m about
the y axis, 0.06 m deep (y in [-0.03, 0.03]), both end caps turning with it at 2 rad/s,
right-handed about +y (the wall at +x moves down); gravity -9.81 along z. Two materials:
  M1: r = 1 mm, E 1 GPa, nu 0.2, rho 2500 kg/m^3, 30,000 particles (on top);
  M2: r = 2 mm, E 0.5 GPa, nu 0.2, rho 2000 kg/m^3, 8,000 particles (below);
  steel: E 210 GPa, nu 0.2, rho 7200.
Hertz-Mindlin with (restitution e, friction mu) per pair: M1-M1 0.5/0.3, M1-M2 0.45/0.2,
M2-M2 0.4/0.4, M1-steel and M2-steel 0.4/0.2; no rolling resistance. Reported: the
number of M1 and of M2 particles in zone 1 (x < 0, z > 0) and zone 2 (x > 0, z < 0)
against time for 5 s (the Yade script's zones and sense of rotation).

The law, mapped (the same in both codes here):
  normal: 4/3 E* sqrt(R*) d^(3/2) with the dashpot of Yade's MindlinPhys and LIGGGHTS'
      `model hertz`, gamma = 2 sqrt(5/6) beta sqrt(2 E* sqrt(R* d) m*), beta =
      -ln e / sqrt(ln^2 e + pi^2). dempact's hertz_critical_ratio is
      xi sqrt(8 m* E* sqrt(R*)) d^(1/4) d', the same force at xi = sqrt(5/6) beta;
      no clipping of the dashpot's pull (dempact cohesion_removal: false, LIGGGHTS
      limitForce off, its default);
  tangential: Mindlin's history spring 8 G* sqrt(R* d), Coulomb cap mu F_n, no
      tangential dashpot (Yade's MindlinPhys has none unless `es` is given: dempact's
      hertz_critical_ratio gives its spring none, LIGGGHTS gets tangential_damping off).
The step is 1.5e-6 s (the organisers' step for M1; 0.18 of M1's Rayleigh time).

Filling. The benchmark starts from published settled positions (a download from the
organisers, not reachable from this machine). Here the bed is built as the benchmark's
is layered: M2 on a simple cubic lattice (spacing 1.05 d) in the lowest rows of the
drum, M1 on a lattice above it, every centre at least r + 0.5 mm inside the drum; then
`run --settle S` lets it fall and settle for S seconds with the drum at rest (dempact),
and both codes start turning the drum from those settled positions at t = 0, as the
benchmark does. --settle 0 starts both codes from the lattice itself (the short speed
runs do that: it is the same initial state for both).

`run` writes DIR/dempact/ (the case, its output), DIR/liggghts/ and DIR/lammps/ (data
file, meshes, input, dumps), runs the codes at the same time on one core each
(OMP_NUM_THREADS=1, nice 5; --one-after-other runs them in turn), and prints the zone counts of both at every
--interval (and the end) side by side, and each code's wall time and particle-steps per
second (steps x particles / seconds of the whole process: wall and CPU time; on a
shared machine the CPU time is the one to compare). --json OUT writes the
table and timings. Exit status 77 when a peer's executable is missing (ctest's skip). --check-band B exits 1 unless (a) every report of each code counts
all 38,000 particles inside the drum and (b) from t >= 1 s on, each zone's count
averaged over the reports differs between the codes by at most B of the two codes'
mean count of that zone (B = 0.10 by default: a stated criterion, not a band derived
from seed-to-seed spreads; see docs/validation.md#dem8-drum).

LIGGGHTS' walls are STL meshes: the barrel with --facets facets around (default 200;
vertices on a radius R (pi/N)/sin(pi/N), so the facets' mean distance from the axis is R
and they depart from the circle by at most 6 um, 0.6% of an M1 radius) and the two caps
as triangle fans; all three turn with `fix move/mesh rotate`. dempact's are a cylinder
and two planes turning about their normal.

LAMMPS (Debian's lmp, 29 Sep 2021; --codes ...,lammps) can express the case too:
pair_style granular hertz/material with its tsuji dashpot at alpha(cor) = sqrt(5) beta(e)
(which is the same dashpot), Mindlin without a tangential dashpot, and the drum as a
cylinder region with its caps turning (region rotate) under fix wall/gran/region, one
fix per material because a wall fix takes one E*; E is given as LAMMPS needs it to
make each pair's E* (lammps_lines()). What differs per contact (the spin's lever arm,
the velocity the force sees) is listed in tools/lammps_packing.py.
--reuse-settle takes DIR/dempact/M1.csv and M2.csv of an earlier run instead of settling.

Needs numpy and h5py: run it with the project's environment, `.venv/bin/python
tools/dem8_drum.py` (bash tools/setup.sh makes it), and Debian's liggghts.
"""
import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import h5py
    import numpy as np
except ImportError as missing:  # pragma: no cover
    import venv_hint
    sys.exit(venv_hint.message("dem8_drum", missing))

R_DRUM, HALF_DEPTH, OMEGA = 0.1, 0.03, 2.0
DT = 1.5e-6
MARGIN = 5e-4                 # lattice centres at least r + MARGIN inside the drum
GAP = 0.05                    # lattice spacing 2 r (1 + GAP)
MATERIALS = {                 # name: (E, nu, rho, radius, count)
    "M1": (1.0e9, 0.2, 2500.0, 0.001, 30000),
    "M2": (0.5e9, 0.2, 2000.0, 0.002, 8000),
    "steel": (210.0e9, 0.2, 7200.0, None, 0),
}
PAIRS = {                     # (e, mu) per pair, Yade's MatchMaker tables
    ("M1", "M1"): (0.5, 0.3),
    ("M1", "M2"): (0.45, 0.2),
    ("M2", "M2"): (0.4, 0.4),
    ("M1", "steel"): (0.4, 0.2),
    ("M2", "steel"): (0.4, 0.2),
}
DOMAIN = ((-0.105, 0.105), (-0.035, 0.035), (-0.105, 0.105))
N_TOTAL = sum(m[4] for m in MATERIALS.values())
CODES = ("dempact", "liggghts", "lammps")


def n_steps(end):
    """Steps to reach `end`: dempact's rule (the first step at or after it)."""
    return math.ceil(end / DT - 1e-9)


def beta(e):
    le = math.log(e)
    return -le / math.sqrt(le * le + math.pi ** 2)


def xi_of(e):
    """dempact's critical ratio that is Yade's / LIGGGHTS' Hertz dashpot at restitution e."""
    return math.sqrt(5.0 / 6.0) * beta(e)


def g(x):
    return "%.10g" % x


# ---- the packing: lattice rows inside the drum, M2 below, M1 above --------------------------

def lattice_rows():
    """[(material, z_centre, x_half_width, count)] rows of the layered bed, bottom up."""
    rows, z_top = [], None
    for name in ("M2", "M1"):
        r, left = MATERIALS[name][3], MATERIALS[name][4]
        spacing = 2 * r * (1 + GAP)
        reach = R_DRUM - r - MARGIN                     # largest centre distance from the axis
        per_y = int(math.floor((2 * (HALF_DEPTH - MARGIN) - 2 * r) / spacing + 1e-9)) + 1
        z = -reach + spacing / 2 if z_top is None else z_top + spacing / 2 + r * (1 + GAP)
        while left > 0:
            if abs(z) >= reach:
                sys.exit("dem8_drum: the lattice does not fit in the drum")
            half = math.sqrt(reach * reach - z * z)
            per_x = int(math.floor(2 * half / spacing + 1e-9)) + 1
            if per_x >= 1 and half >= 0:
                n = min(left, per_x * per_y)
                rows.append((name, z, (per_x - 1) * spacing / 2, n))
                left -= n
                z_top = z + r
            z += spacing
    return rows


def particle_sources(rows):
    """The case's particles: one lattice source per row (fill order k, j, i: a short
    last row of a material fills whole columns of x at the lowest y first)."""
    lines = []
    for name, z, half, n in rows:
        r = MATERIALS[name][3] + 1e-9     # 1 nm of room: the lattice's first centre is at
        y = HALF_DEPTH - MARGIN           # region min + r, so its rows start at z - 1 nm
        lines.append("  - {source: lattice, material: %s, radius: %s, gap: %s, count: %d,\n"
                     "     region: {min: [%s, %s, %s], max: [%s, %s, %s]}}"
                     % (name, g(MATERIALS[name][3]), g(GAP), n, g(-half - r), g(-y), g(z - r), g(half + r), g(y),
                        g(z + r)))
    return "\n".join(lines)


def file_sources(folder):
    return "\n".join("  - {source: file, material: %s, file: %s}"
                     % (name, os.path.abspath(os.path.join(folder, name + ".csv")))
                     for name in ("M1", "M2"))


HEADER = """\
# dem8_drum.yaml: DEM8 case 2 (Dosta et al. 2024, Comput. Phys. Commun. 296, 109066), the
# bidisperse rotating drum: 30,000 M1 (r 1 mm) over 8,000 M2 (r 2 mm) in a steel drum,
# R 0.1 m about y, 0.06 m deep, turning at 2 rad/s (wall at +x moving down) for 5 s.
# Written by `tools/dem8_drum.py write-case` (edit the tool, not this file); the tool's
# docstring gives the law's mapping and what differs from the benchmark (the filling).
# This file starts the drum turning from the lattice; `tools/dem8_drum.py run` settles the
# bed first and runs LIGGGHTS on the same positions. Full run: 3.33 million steps of
# 38,000 particles (1.27e11 particle-steps; hours on one core, docs/performance.md#dem8-drum).
"""


def case_text(particles, end, interval, omega=OMEGA):
    mats = "\n".join("  - {name: %s, density: %s, young: %s, poisson: %s}"
                     % (n, g(v[2]), g(v[0]), g(v[1])) for n, v in MATERIALS.items())
    contacts = []
    for (a, b), (e, mu) in PAIRS.items():
        contacts.append("  - materials: [%s, %s]        # e %s, mu %s\n"
                        "    law: hertz_critical_ratio\n"
                        "    params: {xi: %s}\n"
                        "    cohesion_removal: false\n"
                        "    friction: {coefficient: %s, model: mindlin}"
                        % (a, b, g(e), g(mu), "%.17g" % xi_of(e), g(mu)))
    rot = ("" if omega == 0 else
           ",\n     rotation: {axis_point: [0, 0, 0], axis: [0, 1, 0], angular_velocity: %s}"
           % g(omega))
    walls = ("  - {name: drum, type: cylinder, material: steel, point: [0, %s, 0], axis: [0, 1, 0],\n"
             "     radius: %s, length: %s, side: inner%s}\n"
             "  - {name: back, type: plane, material: steel, point: [0, %s, 0], normal: [0, 1, 0]%s}\n"
             "  - {name: front, type: plane, material: steel, point: [0, %s, 0], normal: [0, -1, 0]%s}"
             % (g(-HALF_DEPTH), g(R_DRUM), g(2 * HALF_DEPTH), rot, g(-HALF_DEPTH), rot,
                g(HALF_DEPTH), rot))
    return (HEADER + "name: dem8_drum\n"
            "domain:\n  min: [%s, %s, %s]\n  max: [%s, %s, %s]\n"
            "gravity: [0, 0, -9.81]\n"
            "time:\n  end: %s\n  output_interval: %s\n  step: %s\n"
            "materials:\n%s\ncontacts:\n%s\nwalls:\n%s\nparticles:\n%s\n"
            % (g(DOMAIN[0][0]), g(DOMAIN[1][0]), g(DOMAIN[2][0]), g(DOMAIN[0][1]),
               g(DOMAIN[1][1]), g(DOMAIN[2][1]), g(end), g(interval), g(DT), mats,
               "\n".join(contacts), walls, particles))


# ---- LIGGGHTS ------------------------------------------------------------------------------

LIGGGHTS_INPUT = """# tools/dem8_drum.py: DEM8 case 2 in LIGGGHTS
atom_style      granular
atom_modify     map array
boundary        f f f
newton          off
communicate     single vel yes
units           si
hard_particles  yes
read_data       particles.data
neighbor        0.0002 bin
neigh_modify    delay 0
fix m1 all property/global youngsModulus peratomtype {E}
fix m2 all property/global poissonsRatio peratomtype {nu}
fix m3 all property/global coefficientRestitution peratomtypepair 3 {e}
fix m4 all property/global coefficientFriction peratomtypepair 3 {mu}
pair_style      gran model hertz tangential history tangential_damping off
pair_coeff      * *
fix barrel all mesh/surface file barrel.stl type 3
fix caps all mesh/surface file caps.stl type 3
fix walls all wall/gran model hertz tangential history mesh n_meshes 2 meshes barrel caps tangential_damping off
fix turn1 all move/mesh mesh barrel rotate origin 0. 0. 0. axis 0. 1. 0. period {period}
fix turn2 all move/mesh mesh caps rotate origin 0. 0. 0. axis 0. 1. 0. period {period}
fix gravity all gravity 9.81 vector 0 0 -1
fix integrate all nve/sphere
timestep        {dt}
thermo_style    custom step atoms ke
thermo          {every}
thermo_modify   lost ignore norm no
variable next equal "step + {every} - (step + {every} > {steps} && step < {steps}) * (step + {every} - {steps})"
dump d all custom 1 dump/d*.txt id type x y z
dump_modify d every v_next first yes sort id
run {steps}
"""


def barrel_and_caps_stl(facets):
    """ASCII STL of the barrel (axis y) and of the two caps (fans), vertices on the
    stretched radius R (pi/N) / sin(pi/N)."""
    rs = R_DRUM * (math.pi / facets) / math.sin(math.pi / facets)
    rows = 6
    ring = [(rs * math.cos(2 * math.pi * j / facets), rs * math.sin(2 * math.pi * j / facets))
            for j in range(facets + 1)]

    def facet(tri):
        return ("facet normal 0 0 0\n outer loop\n"
                + "".join(" vertex %.9g %.9g %.9g\n" % v for v in tri) + " endloop\nendfacet")

    barrel = ["solid barrel"]
    for i in range(rows):
        ya = -HALF_DEPTH + 2 * HALF_DEPTH * i / rows
        yb = -HALF_DEPTH + 2 * HALF_DEPTH * (i + 1) / rows
        for j in range(facets):
            (x0, z0), (x1, z1) = ring[j], ring[j + 1]
            a, b, c, d = (x0, ya, z0), (x1, ya, z1), (x0, yb, z0), (x1, yb, z1)
            barrel += [facet((a, b, d)), facet((a, d, c))]
    barrel.append("endsolid barrel")
    caps = ["solid caps"]
    for y in (-HALF_DEPTH, HALF_DEPTH):
        for j in range(facets):
            (x0, z0), (x1, z1) = ring[j], ring[j + 1]
            caps.append(facet(((0.0, y, 0.0), (x0, y, z0), (x1, y, z1))))
    caps.append("endsolid caps")
    return "\n".join(barrel) + "\n", "\n".join(caps) + "\n"


def liggghts_matrices():
    names = ("M1", "M2", "steel")

    def pair(a, b, k):
        if a == b == "steel":
            return PAIRS[("M1", "steel")][k]
        return PAIRS.get((a, b), PAIRS.get((b, a)))[k]
    e = " ".join(g(pair(a, b, 0)) for a in names for b in names)
    mu = " ".join(g(pair(a, b, 1)) for a in names for b in names)
    return (" ".join(g(MATERIALS[n][0]) for n in names),
            " ".join(g(MATERIALS[n][1]) for n in names), e, mu)


def write_liggghts(folder, x, r, end, every, facets):
    os.makedirs(os.path.join(folder, "dump"), exist_ok=True)
    for old in glob.glob(os.path.join(folder, "dump", "d*.txt")):
        os.remove(old)
    small = r < 1.5e-3
    with open(os.path.join(folder, "particles.data"), "w") as f:
        f.write(f"DEM8 drum {len(r)} particles\n\n{len(r)} atoms\n3 atom types\n\n")
        for (lo, hi), ax in zip(DOMAIN, "xyz"):
            f.write(f"{lo} {hi} {ax}lo {ax}hi\n")
        f.write("\nAtoms\n\n")
        for i in range(len(r)):
            name = "M1" if small[i] else "M2"
            f.write("%d %d %.17g %.17g %.17g %.17g %.17g\n"
                    % (i + 1, 1 if small[i] else 2, 2 * r[i], MATERIALS[name][2],
                       x[i, 0], x[i, 1], x[i, 2]))
    barrel, caps = barrel_and_caps_stl(facets)
    with open(os.path.join(folder, "barrel.stl"), "w") as f:
        f.write(barrel)
    with open(os.path.join(folder, "caps.stl"), "w") as f:
        f.write(caps)
    E, nu, e, mu = liggghts_matrices()
    steps = n_steps(end)
    with open(os.path.join(folder, "in.drum"), "w") as f:
        f.write(LIGGGHTS_INPUT.format(E=E, nu=nu, e=e, mu=mu, period="%.17g" % (2 * math.pi / OMEGA),
                                      dt=g(DT), every=every, steps=steps))
    return steps


def liggghts_reports(folder):
    """(time, x, is_small) of each LIGGGHTS dump, in step order."""
    files = sorted(glob.glob(os.path.join(folder, "dump", "d*.txt")),
                   key=lambda p: int(os.path.basename(p)[1:-4]))
    for path in files:
        with open(path) as f:
            f.readline()
            step = int(f.readline())
            for _ in range(7):
                f.readline()
            data = np.loadtxt(f, ndmin=2)
        yield step * DT, data[:, 2:5], data[:, 1] == 1


# ---- LAMMPS --------------------------------------------------------------------------------

LAMMPS_INPUT = """# tools/dem8_drum.py: DEM8 case 2 in LAMMPS
atom_style      sphere
atom_modify     map array
boundary        f f f
newton          off
comm_modify     vel yes
units           si
read_data       particles.data
neighbor        0.0002 bin
neigh_modify    delay 0
pair_style      granular
{pairs}
group           m1 type 1
group           m2 type 2
variable        theta equal {omega}*time
region          drum cylinder y 0 0 {radius} {ylo} {yhi} side in units box rotate v_theta 0 0 0 0 1 0
{walls}
fix             gravity all gravity 9.81 vector 0 0 -1
fix             integrate all nve/sphere
timestep        {dt}
thermo_style    custom step atoms ke
thermo          {every}
thermo_modify   lost ignore norm no
variable        next equal "step + {every} - (step + {every} > {steps} && step < {steps}) * (step + {every} - {steps})"
dump            d all custom 1 dump/d*.txt id type x y z
dump_modify     d every v_next first yes sort id
run             {steps}
"""


def e_star(a, b):
    (ea, na), (eb, nb) = MATERIALS[a][:2], MATERIALS[b][:2]
    return 1.0 / ((1 - na * na) / ea + (1 - nb * nb) / eb)


def g_star(a, b):
    (ea, na), (eb, nb) = MATERIALS[a][:2], MATERIALS[b][:2]
    return 1.0 / (2 * (2 - na) * (1 + na) / ea + 2 * (2 - nb) * (1 + nb) / eb)


def lammps_lines():
    """pair_coeff and wall fixes: LAMMPS 29 Sep 2021's hertz/material takes one E for a
    pair and makes E* = E / (2 (1 - nu^2)) of it (so E = 2 (1 - nu^2) E* of the two
    materials), and for a wall E* = E / (2 (1 - nu)) (tools/lammps_packing.py); its tsuji
    dashpot is alpha(cor) sqrt(m* K_hz) d^(1/4), Yade's / LIGGGHTS' at alpha = sqrt(5)
    beta(e); Mindlin's k_t = 8 G* a (NULL for a pair, 8 G* as a number for a wall), no
    tangential dashpot (0)."""
    from bench_compare import lammps_cor_for
    nu = MATERIALS["M1"][1]
    pairs, walls = [], []
    for (a, b), (e, mu) in PAIRS.items():
        cor = lammps_cor_for(math.sqrt(5.0) * beta(e))
        if b == "steel":
            walls.append("fix             wall_%s %s wall/gran/region granular hertz/material %s %s %s "
                         "damping tsuji tangential mindlin %s 0.0 %s region drum"
                         % (a, a.lower(), "%.17g" % (2 * (1 - nu) * e_star(a, b)), "%.17g" % cor,
                            g(nu), "%.17g" % (8 * g_star(a, b)), g(mu)))
        else:
            ta, tb = (1 if a == "M1" else 2), (1 if b == "M1" else 2)
            pairs.append("pair_coeff      %d %d hertz/material %s %s %s damping tsuji "
                         "tangential mindlin NULL 0.0 %s"
                         % (ta, tb, "%.17g" % (2 * (1 - nu * nu) * e_star(a, b)), "%.17g" % cor,
                            g(nu), g(mu)))
    return "\n".join(pairs), "\n".join(walls)


def write_lammps(folder, x, r, end, every):
    os.makedirs(os.path.join(folder, "dump"), exist_ok=True)
    for old in glob.glob(os.path.join(folder, "dump", "d*.txt")):
        os.remove(old)
    small = r < 1.5e-3
    with open(os.path.join(folder, "particles.data"), "w") as f:
        f.write(f"DEM8 drum {len(r)} particles\n\n{len(r)} atoms\n2 atom types\n\n")
        for (lo, hi), ax in zip(DOMAIN, "xyz"):
            f.write(f"{lo} {hi} {ax}lo {ax}hi\n")
        f.write("\nAtoms # sphere\n\n")
        for i in range(len(r)):
            name = "M1" if small[i] else "M2"
            f.write("%d %d %.17g %.17g %.17g %.17g %.17g\n"
                    % (i + 1, 1 if small[i] else 2, 2 * r[i], MATERIALS[name][2],
                       x[i, 0], x[i, 1], x[i, 2]))
    pairs, walls = lammps_lines()
    with open(os.path.join(folder, "in.drum"), "w") as f:
        f.write(LAMMPS_INPUT.format(pairs=pairs, walls=walls, omega=g(OMEGA), radius=g(R_DRUM),
                                    ylo=g(-HALF_DEPTH), yhi=g(HALF_DEPTH), dt=g(DT), every=every,
                                    steps=n_steps(end)))


# ---- dempact -------------------------------------------------------------------------------

def dempact_reports(h5):
    with h5py.File(h5, "r") as f:
        for key in sorted(f["snapshots"].keys()):
            s = f["snapshots"][key]
            yield (float(s.attrs["time"]), np.asarray(s["position"]),
                   np.asarray(s["radius"]) < 1.5e-3)


def snapshot(h5, which):
    with h5py.File(h5, "r") as f:
        keys = sorted(f["snapshots"].keys())
        s = f["snapshots"][keys[which]]
        return np.asarray(s["position"]), np.asarray(s["radius"])


def run_dempact(a, folder, particles, end, interval, omega, tag):
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, tag + ".yaml")
    with open(case, "w") as f:
        f.write(case_text(particles, end, interval, omega))
    return [a.dempact, "run", case, "--output", folder, "--quiet", "--overwrite",
            "--threads", "1"], os.path.join(folder, "dem8_drum.h5")   # named by the case's name


def write_csvs(folder, x, r):
    os.makedirs(folder, exist_ok=True)
    for name, keep in (("M1", r < 1.5e-3), ("M2", r >= 1.5e-3)):
        np.savetxt(os.path.join(folder, name + ".csv"), np.column_stack([x[keep], r[keep]]),
                   delimiter=",", header="x,y,z,radius", comments="", fmt="%.17g")


# ---- counting ------------------------------------------------------------------------------

def zone_counts(x, small):
    z1 = (x[:, 0] < 0) & (x[:, 2] > 0)
    z2 = (x[:, 0] > 0) & (x[:, 2] < 0)
    inside = ((x[:, 0] ** 2 + x[:, 2] ** 2 < R_DRUM ** 2) & (np.abs(x[:, 1]) < HALF_DEPTH))
    return {"zone1_M1": int((z1 & small).sum()), "zone1_M2": int((z1 & ~small).sum()),
            "zone2_M1": int((z2 & small).sum()), "zone2_M2": int((z2 & ~small).sum()),
            "inside": int(inside.sum())}


def table(reports):
    """{step: counts}: keyed by step, the one clock both codes share."""
    return {int(round(t / DT)): zone_counts(x, s) for t, x, s in reports}


def timed(cmd, cwd, log):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = open(os.path.join(cwd, log), "w")
    return subprocess.Popen(["nice", "-n", "5"] + cmd, cwd=cwd, stdout=out,
                            stderr=subprocess.STDOUT, env=env), time.time()


def cmd_run(a):
    work = os.path.abspath(a.work)
    codes = a.codes.split(",")
    for c in codes:
        if c not in CODES:
            sys.exit(f"dem8_drum: --codes: unknown code {c!r} (dempact, liggghts, lammps)")
    for c, exe in (("liggghts", a.liggghts), ("lammps", a.lmp)):
        if c in codes and not shutil.which(exe):
            print(f"dem8_drum: {exe} not found (--{'lmp' if c == 'lammps' else c}): skipped")
            sys.exit(77)
    folders = {c: os.path.join(work, c) for c in CODES}
    dem_dir = folders["dempact"]
    os.makedirs(dem_dir, exist_ok=True)
    if a.settle > 0:
        if not (a.reuse_settle and os.path.exists(os.path.join(dem_dir, "M2.csv"))):
            cmd, h5 = run_dempact(a, os.path.join(work, "settle"),
                                  particle_sources(lattice_rows()), a.settle, a.settle, 0.0,
                                  "settle")
            print(f"dem8_drum: settling the bed for {a.settle} s (dempact, drum at rest)",
                  flush=True)
            subprocess.run(["nice", "-n", "5"] + cmd, check=True,
                           env=dict(os.environ, OMP_NUM_THREADS="1"))
            x, r = snapshot(h5, -1)
            write_csvs(dem_dir, x, r)
            with h5py.File(h5, "r") as f:
                ke = f["timeseries/kinetic_energy"][-1] if "timeseries" in f else float("nan")
            print(f"dem8_drum: settled bed: kinetic energy {ke:.3g} J at {a.settle} s", flush=True)
        particles = file_sources(dem_dir)
    else:
        particles = particle_sources(lattice_rows())
    interval = min(a.interval, a.end_time)
    every = int(round(interval / DT))
    cmd, h5 = run_dempact(a, dem_dir, particles, a.end_time, every * DT, OMEGA, "dem8_drum")
    # the initial positions all codes start from: dempact's first snapshot of a one-step run
    probe = os.path.join(work, "initial")
    pcmd, ph5 = run_dempact(a, probe, particles, DT, DT, OMEGA, "initial")
    subprocess.run(pcmd, check=True)
    x0, r0 = snapshot(ph5, 0)
    n = len(r0)
    commands = {"dempact": cmd}
    if "liggghts" in codes:
        write_liggghts(folders["liggghts"], x0, r0, a.end_time, every, a.facets)
        commands["liggghts"] = [a.liggghts, "-in", "in.drum"]
    if "lammps" in codes:
        write_lammps(folders["lammps"], x0, r0, a.end_time, every)
        commands["lammps"] = [a.lmp, "-in", "in.drum"]
    order = [c for c in CODES if c in codes]
    procs, seconds, cpu = {}, {}, {}

    def finish(code):
        p, t0 = procs[code]
        _, status, usage = os.wait4(p.pid, 0)      # the child's own CPU time (nice execs it)
        p.returncode = os.waitstatus_to_exitcode(status)
        seconds[code], cpu[code] = time.time() - t0, usage.ru_utime + usage.ru_stime
        if p.returncode != 0:
            for q, _ in procs.values():
                if q.poll() is None:
                    q.kill()
            sys.exit(f"dem8_drum: {code} failed (exit {p.returncode}), see its screen.txt")

    for code in order:
        procs[code] = timed(commands[code], folders[code], "screen.txt")
        print(f"dem8_drum: {code} running ({n} particles, {a.end_time} s)", flush=True)
        if a.one_after_other:
            finish(code)
    for code in order:
        if code not in seconds:
            finish(code)
    steps = n_steps(a.end_time)
    tables = {}
    if "dempact" in codes:
        tables["dempact"] = table(dempact_reports(h5))
    for code in ("liggghts", "lammps"):
        if code in codes:
            tables[code] = table(liggghts_reports(folders[code]))
    times = sorted(set().union(*[set(t) for t in tables.values()]))
    keys = ("zone1_M1", "zone1_M2", "zone2_M1", "zone2_M2", "inside")
    print("\nDEM8 drum: particles per zone (zone 1: x < 0, z > 0; zone 2: x > 0, z < 0)")
    print("%8s " % "t [s]" + " ".join("%*s" % (max(21, 7 * len(order)), k) for k in keys))
    width = max(21, 7 * len(order))
    print("%8s " % "" + " ".join("%*s" % (width, " / ".join(c[:3] for c in order)) for _ in keys))
    for t in times:
        cells = []
        for k in keys:
            cells.append("%*s" % (width, " / ".join(str(tables[c][t][k]) if t in tables[c] else "-"
                                                      for c in order)))
        print("%8.6f " % (t * DT) + " ".join(cells))
    print("\nwall time (whole process, one core each%s):"
          % ("" if a.one_after_other else ", run at the same time"))
    speed, speed_cpu = {}, {}
    for code in order:
        speed[code] = n * steps / seconds[code]
        speed_cpu[code] = n * steps / cpu[code]
        print(f"  {code:9s} wall {seconds[code]:8.1f} s, {speed[code]:.3g} particle-steps/s; "
              f"CPU {cpu[code]:8.1f} s, {speed_cpu[code]:.3g} particle-steps/s "
              f"(5 s benchmark: {N_TOTAL * 5 / DT / speed_cpu[code] / 3600:.1f} h of CPU)")
    result = {"particles": n, "step": DT, "steps": steps, "end_time": a.end_time,
              "settle": a.settle, "seconds": seconds, "cpu_seconds": cpu,
              "particle_steps_per_s": speed, "particle_steps_per_cpu_s": speed_cpu,
              "counts": {c: {("%.9g" % (t * DT)): v for t, v in tab.items()}
                         for c, tab in tables.items()}}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    if a.check_band is not None:
        sys.exit(check(tables, a.check_band))


def check(tables, band):
    """0 if every report keeps all particles in the drum and the codes' zone counts,
    averaged over t >= 1 s, are within band of each other; else 1 (and why)."""
    bad = []
    for code, tab in tables.items():
        for t, v in tab.items():
            if v["inside"] != N_TOTAL:
                bad.append(f"{code} at t = {t * DT:.6g} s: {v['inside']} of {N_TOTAL} particles in the drum")
    if "dempact" in tables and "liggghts" in tables:
        late = [t for t in tables["dempact"] if t * DT >= 1.0 and t in tables["liggghts"]]
        if not late:
            bad.append("no common report at t >= 1 s")
        for k in ("zone1_M1", "zone1_M2", "zone2_M1", "zone2_M2"):
            if not late:
                break
            m = [np.mean([tables[c][t][k] for t in late]) for c in ("dempact", "liggghts")]
            ref = 0.5 * (m[0] + m[1])
            ok = abs(m[0] - m[1]) <= band * ref
            print(f"check {k}: dempact {m[0]:.1f}, LIGGGHTS {m[1]:.1f} over t >= 1 s: "
                  f"{abs(m[0] - m[1]) / max(ref, 1e-300):.3f} of their mean "
                  f"({'within' if ok else 'outside'} {band})")
            if not ok:
                bad.append(k)
    for b in bad:
        print("dem8_drum: FAIL: " + b)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    w = sub.add_parser("write-case", help="write the dempact case")
    w.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 "..", "cases", "dem8_drum.yaml"))
    r = sub.add_parser("run", help="run dempact and LIGGGHTS and compare the zone counts")
    r.add_argument("--end-time", type=float, default=5.0)
    r.add_argument("--interval", type=float, default=0.1)
    r.add_argument("--settle", type=float, default=0.5)
    r.add_argument("--work", default="dem8_drum_work")
    r.add_argument("--codes", default="dempact,liggghts")
    r.add_argument("--one-after-other", action="store_true")
    r.add_argument("--dempact", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "build", "dempact"))
    r.add_argument("--liggghts", default="liggghts")
    r.add_argument("--lmp", default="lmp")
    r.add_argument("--reuse-settle", action="store_true")
    r.add_argument("--facets", type=int, default=200)
    r.add_argument("--json")
    r.add_argument("--check-band", type=float)
    a = ap.parse_args()
    if a.what == "write-case":
        with open(a.out, "w") as f:
            f.write(case_text(particle_sources(lattice_rows()), 5.0, 0.1))
        print(f"dem8_drum: wrote {a.out}")
        return
    for k in ("end_time", "interval"):
        if not getattr(a, k) > 0:
            sys.exit(f"dem8_drum: --{k.replace('_', '-')} must be > 0 (got {getattr(a, k)})")
    if a.settle < 0:
        sys.exit(f"dem8_drum: --settle must be >= 0 (got {a.settle})")
    cmd_run(a)


if __name__ == "__main__":
    main()
