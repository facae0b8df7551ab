#!/usr/bin/env python3
"""A case run on 2 ranks against one process: with parallel.reproducible on (as a split
run has it), the two runs must give the same bits in every dataset and attribute of every
snapshot and in the whole time series. Then the 2-rank run stopped at --stop-at and
restarted on 2 ranks ends as the one that never stopped.

It checks the cases whose books every rank must keep alike: a servo wall (every rank moves
the lid by the load summed over the ranks: tests/data/e2e/small_servo.yaml) and a sheared
box (Lees-Edwards: the images' slide across the ranks' cuts, the plane's force, the box
stress the barostat acts on, and the shear's work, summed over the ranks:
tests/data/e2e/mpi_sheared_box.yaml).

Usage: same_on_ranks.py DEMPACT CASE --stop-at T"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2"]
SAME_OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "same_output.sh")


def same_output(a, b, name, what):
    """Every HDF5 file of output folders a and b, bit for bit (h5diff: datasets and
    attributes), through the tests' one comparison."""
    done = subprocess.run(["bash", SAME_OUTPUT, a, b], capture_output=True, text=True)
    snaps = len(os.listdir(os.path.join(a, name + ".d")))
    ok = done.returncode == 0 and snaps > 1
    print(("ok   " if ok else "FAIL ") + f"{what}: {snaps} snapshots and the time series")
    if not ok:
        print(done.stdout + done.stderr)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dempact")
    ap.add_argument("case")
    ap.add_argument("--stop-at", type=float, required=True,
                    help="the restart's time (s): a snapshot's, so that both outputs hold the same files")
    args = ap.parse_args()
    name = os.path.splitext(os.path.basename(args.case))[0]
    with tempfile.TemporaryDirectory() as work:
        case = os.path.join(work, name + ".yaml")
        text = open(args.case).read()
        with open(case, "w") as f:
            f.write("parallel: {reproducible: true}\n" + re.sub(r"(?m)^parallel:.*\n", "", text))
        run = [args.dempact, "run", case, "--quiet", "--threads", "1", "--output"]
        out = lambda d: os.path.join(work, d)
        subprocess.run(run + [out("one")], check=True)
        subprocess.run(MPIRUN + run + [out("two")], check=True)
        ok = same_output(out("one"), out("two"), name, "1 process, 2 ranks")
        subprocess.run(MPIRUN + run + [out("half"), "--end-time", str(args.stop_at)], check=True)
        subprocess.run(MPIRUN + run + [out("rest"), "--restart", os.path.join(out("half"), name + ".h5")],
                       check=True)
        ok = same_output(out("one"), out("rest"), name, f"restarted at {args.stop_at} s on 2 ranks") and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
