"""The checks before the first step, on ranks: a case one process refuses, `mpirun -np N
dempact run` refuses with the same exit status and the same message, and writes nothing.
On ranks the case is checked partly before the split (every rank holds every particle)
and partly after it (each holds its own: the first neighbour list, the forces, the
watchdog's look at the start), so the refusals must not depend on where they are made.

1. Every tests/data/cases/bad_*.yaml, on 2 ranks.
2. A start with two contacts deeper than the watchdog allows (written here): particle 0
   into the floor, particle 1 into a lattice bead, far apart. One process names the first
   it finds, the pair of beads (pairs come before walls); on 3 and 4 ranks the two lie
   on different ranks, and the rank that holds the wall contact comes first: the ranks
   must still name the beads (on these counts, a rank reporting its own problem alone
   would name the floor).

Usage: start_check.py DEMPACT CASES_DIR WORKDIR"""
import glob
import os
import shutil
import subprocess
import sys

# (every rank of a refused run exits by itself: no grace period for mpirun to kill them)
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--mca", "odls_base_sigkill_timeout", "0"]


def fail(msg):
    print("start_check: " + msg)
    sys.exit(1)


def refusal(cmd, out):
    """Exit status and message (the first line on stderr; mpirun adds its own after)."""
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run(cmd + ["--output", out, "--quiet", "--threads", "1"], capture_output=True,
                       text=True, timeout=120)
    lines = r.stderr.strip().splitlines()
    return r.returncode, lines[0] if lines else "", os.path.exists(out)


def same_refusal(dempact, case, ranks, work, label):
    one = refusal([dempact, "run", case], os.path.join(work, "one"))
    if one[0] == 0:
        fail(f"{label}: one process ran it (a refused case was expected)")
    many = refusal(MPIRUN + ["-np", str(ranks), dempact, "run", case], os.path.join(work, "many"))
    if many[:2] != one[:2]:
        fail(f"{label} on {ranks} ranks: exit {many[0]}, '{many[1]}'\n"
             f"one process: exit {one[0]}, '{one[1]}'")
    if one[2] or many[2]:
        fail(f"{label}: the refused run wrote its output folder")


def two_overlaps(work):
    csv = os.path.join(work, "two_overlaps.csv")
    with open(csv, "w") as f:
        # into the floor by 0.6 of its radius; into the lattice bead at (0.031, 0.031,
        # 0.012) by 0.91 (the watchdog's limit: 0.5)
        f.write("x,y,z,radius\n0.0105,0.0105,0.0004,0.001\n0.03175,0.03175,0.01175,0.001\n")
    case = os.path.join(work, "two_overlaps.yaml")
    with open(case, "w") as f:
        f.write(f"""name: two_overlaps
parallel: {{reproducible: true}}
domain: {{min: [0, 0, 0], max: [0.04, 0.04, 0.04]}}
gravity: [0, 0, 0]
time: {{end: 0.001}}
materials:
  - {{name: glass, density: 2500, young: 1.0e7, poisson: 0.25}}
contacts:
  - {{materials: [glass, glass], law: hertz_tti, params: {{restitution: 0.5}}}}
walls:
  - {{name: floor, type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}}
particles:
  - {{source: file, material: glass, file: {csv}}}
  - {{source: lattice, material: glass, region: {{min: [0, 0, 0.002], max: [0.04, 0.04, 0.04]}},
     radius: 0.001, gap: 0.5}}
""")
    return case


def main():
    dempact, cases, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    bad = sorted(glob.glob(os.path.join(cases, "bad_*.yaml")))
    if not bad:
        fail(f"no bad_*.yaml in {cases}")
    for case in bad:
        same_refusal(dempact, case, 2, work, os.path.basename(case))
    print(f"{len(bad)} refused cases: on 2 ranks the exit status and message of one process")
    case = two_overlaps(work)
    for ranks in (3, 4):
        same_refusal(dempact, case, ranks, work, "two overlaps")
    print("two overlaps at the start, on different ranks: 3 and 4 ranks name the pair one "
          "process names")
    print("ok")


if __name__ == "__main__":
    main()
