"""mpirun -np 2 dempact bench against one rank: the same bed, stepped on two ranks, ends in
the state the one-rank run (summing by id, as a split run does) ends in, and the JSON
says how many ranks ran and what they sent.

Usage: bench_ranks.py DEMPACT"""
import json
import os
import subprocess
import sys

BED = ["--particles", "1250", "--steps", "300", "--friction", "0.5", "--threads", "1",
       "--quiet", "--format", "json"]
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root"]


def fail(msg):
    print("bench_ranks: " + msg)
    sys.exit(1)


def bench(cmd):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr[-2000:]}")
    return json.loads(r.stdout)


def main():
    dempact = sys.argv[1]
    one = bench([dempact, "bench", *BED, "--reproducible", "on"])
    two = bench(MPIRUN + ["-np", "2", dempact, "bench", *BED])
    if two["ranks"] != 2 or one["ranks"] != 1:
        fail(f"ranks reported {one['ranks']} and {two['ranks']}, not 1 and 2")
    if two["particles"] != one["particles"]:
        fail(f"{two['particles']} particles on two ranks, {one['particles']} on one")
    # the end state, printed to 6 digits: the same on both (split_check compares bits)
    for key in ("contacts_per_particle_end", "pair_contacts_per_particle_end",
                "fastest_sphere_end", "neighbour_rebuilds"):
        if two[key] != one[key]:
            fail(f"{key}: {two[key]} on two ranks, {one[key]} on one")
    if not two["settings"]["reproducible"]:
        fail("two ranks did not sum by id")
    mean, most = two["bytes_per_step_per_rank"]
    if not 0 < mean <= most:
        fail(f"bytes per step per rank {mean}, at most {most}")
    print(f"bench on 2 ranks: {two['particles']} spheres, ends as on one rank (fastest "
          f"{two['fastest_sphere_end']} m/s, {two['contacts_per_particle_end']} contacts each); "
          f"a rank sends {mean:.0f} bytes per step")


if __name__ == "__main__":
    main()
