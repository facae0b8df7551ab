#!/usr/bin/env python3
"""The DEM8 drum's set-up: the benchmark's numbers (Dosta et al. 2024, case 2, as Yade's
examples/DEM2020Benchmark/Case2_rotating_drum.py gives them), the law's mapping onto
dempact's hertz_critical_ratio, the layered lattice and dempact's case text.
tools/dem8_drum.py's docstring tells the whole; it and tools/dem8_peers.py import this."""
import math
import os
import sys


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


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
