#!/usr/bin/env python3
"""The DEM8 drum in LIGGGHTS and LAMMPS: their data files, meshes, inputs and dump reader
(tools/dem8_drum.py's docstring gives the mapping of each)."""
import glob
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import liggghts_files  # noqa: E402
from dem8_setup import DOMAIN, DT, HALF_DEPTH, MATERIALS, OMEGA, PAIRS, R_DRUM, beta, g, n_steps


# ---- LIGGGHTS ------------------------------------------------------------------------------

LIGGGHTS_INPUT = """# tools/dem8_drum.py: DEM8 case 2 in LIGGGHTS
""" + liggghts_files.PREAMBLE + """read_data       particles.data
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
""" + liggghts_files.run_tail("id type x y z")


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
    liggghts_files.write_data(
        os.path.join(folder, "particles.data"), f"DEM8 drum {len(r)} particles", 3, DOMAIN,
        ((i + 1, 1 if small[i] else 2, 2 * r[i], MATERIALS["M1" if small[i] else "M2"][2],
          x[i, 0], x[i, 1], x[i, 2]) for i in range(len(r))))
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
    for path in liggghts_files.dump_files(folder):
        step, data = liggghts_files.read_dump(path)
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
""" + liggghts_files.run_tail("id type x y z")


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


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
