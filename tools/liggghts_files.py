#!/usr/bin/env python3
"""What the LIGGGHTS peers share (tools/liggghts_hopper.py, liggghts_heap.py,
liggghts_drum.py, dem8_peers.py): the opening lines of an input script, the data file of
the particles, and the dumps read back in step order."""
import glob
import os
import sys

# granular spheres in SI units, the walls' normal forces on hard particles
PREAMBLE = """atom_style      granular
atom_modify     map array
boundary        f f f
newton          off
communicate     single vel yes
units           si
hard_particles  yes
"""


def run_tail(columns):
    """The closing lines of a peer's input (LIGGGHTS or LAMMPS, same syntax): gravity along
    -z, the spheres integrated, a dump of `columns` every {every} steps and at the last,
    {steps}, then the run. {dt}, {every} and {steps} stay for the input's format()."""
    return ("fix gravity all gravity 9.81 vector 0 0 -1\n"
            "fix integrate all nve/sphere\n"
            "timestep        {dt}\n"
            "thermo_style    custom step atoms ke\n"
            "thermo          {every}\n"
            "thermo_modify   lost ignore norm no\n"
            # the next dump's step: every {every} steps, and the end step whatever it is
            "variable next equal \"step + {every} - (step + {every} > {steps} && step < {steps})"
            " * (step + {every} - {steps})\"\n"
            "dump d all custom 1 dump/d*.txt " + columns + "\n"
            "dump_modify d every v_next first yes sort id\n"
            "run {steps}\n")


def write_data(path, title, n_types, box, rows):
    """A LIGGGHTS data file (atom style granular): `box` ((lo, hi) per axis), then one
    atom per row (id, type, diameter, density, x, y, z), written to 17 digits."""
    rows = list(rows)
    with open(path, "w") as f:
        f.write(f"{title}\n\n{len(rows)} atoms\n{n_types} atom types\n\n")
        for (lo, hi), ax in zip(box, "xyz"):
            f.write(f"{lo} {hi} {ax}lo {ax}hi\n")
        f.write("\nAtoms\n\n")
        for i, kind, diameter, density, x, y, z in rows:
            f.write("%d %d %.17g %.17g %.17g %.17g %.17g\n" % (i, kind, diameter, density, x, y, z))


def dump_files(folder):
    """The dumps FOLDER/dump/dNNN.txt, in step order."""
    return sorted(glob.glob(os.path.join(folder, "dump", "d*.txt")),
                  key=lambda p: int(os.path.basename(p)[1:-4]))


def read_dump(path):
    """(step, rows) of one dump: its timestep and its atoms' columns (2-d, numpy)."""
    import numpy as np
    with open(path) as f:
        f.readline()
        step = int(f.readline())
        for _ in range(7):
            f.readline()
        return step, np.loadtxt(f, ndmin=2)


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
