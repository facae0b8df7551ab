"""`mpirun -np N dempact check` splits the case's particles over N ranks through Zoltan,
and what it prints is checked against the particles themselves.

For small_pour on 2 and 4 ranks (RCB, then RIB):
- the ranks' particle counts add up to the case's particles, and the imbalance printed is
  the largest weight over the mean of the weights printed;
- RCB: the sub-domains tile the domain (their volumes add up to its volume, no two
  overlap), and each rank's count lies between the particles of a one-rank run's first
  snapshot strictly inside its sub-domain and those inside or on its cuts (RCB cuts
  through centres);
- the imbalance is at most 1.10 (Zoltan aims at 1.05; particles come whole).
Weights: small_pour's beads after 0.08 s, restarted as a case of their own, start with
contacts; on 2 and 4 ranks the weights add up to the particles plus their contacts (the
n_contacts of that case's first snapshot), and each rank's lies between those of the
centres strictly inside its RCB sub-domain and those inside or on its cuts. `dempact run`
of that case on 2 and 4 ranks prints its first split (before any neighbour list: each
particle weighs 1) and the split by contacts it takes at its first rebuild, whose weights
must pass the same checks.
On one rank under mpirun a short run gives the same bits as without mpirun. Refused,
exit status 2 with a message naming parallel: a split thinner than the cutoff
(mpi_slender on 16 ranks), more ranks than neighbour cells (mpi_cube on 9).

Usage: decomposition.py DEMPACT SMALL_POUR.yaml MPI_SLENDER.yaml MPI_CUBE.yaml
"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root"]
RANK = re.compile(r"^\s+rank (\d+)\s+(\d+) particles, weight ([0-9.e+]+)"
                  r"(?:, sub-domain \[([^,]+), ([^\]]+)\] x \[([^,]+), ([^\]]+)\] x "
                  r"\[([^,]+), ([^\]]+)\] m)?")


def fail(what):
    raise SystemExit("FAIL: " + what)


def mpirun(n, args, **kw):
    return subprocess.run(MPIRUN + ["-np", str(n)] + args, capture_output=True, text=True, **kw)


def split(dempact, case, n):
    r = mpirun(n, [dempact, "check", case])
    if r.returncode != 0:
        fail(f"check on {n} ranks: exit {r.returncode}\n{r.stdout}{r.stderr}")
    total = int(re.search(r"particles\s+(\d+):", r.stdout).group(1))
    imbalance = float(re.search(r"imbalance ([0-9.]+)", r.stdout).group(1))
    ranks = []
    for line in r.stdout.splitlines():
        m = RANK.match(line)
        if m:
            box = [float(v) for v in m.groups()[3:]] if m.group(4) else None
            ranks.append((int(m.group(2)), float(m.group(3)), box))
    if len(ranks) != n:
        fail(f"{n} ranks, {len(ranks)} rank lines:\n{r.stdout}")
    return total, imbalance, ranks, r.stdout


def first_snapshot(dempact, case, out, end="1e-5"):
    """A one-rank run's first (or, with `end`, last) snapshot: positions, radii, contacts."""
    subprocess.run([dempact, "run", case, "--output", out, "--end-time", end, "--quiet"],
                   check=True)
    name = [f for f in os.listdir(out) if f.endswith(".d")][0]
    snaps = sorted(os.listdir(os.path.join(out, name)))
    with h5py.File(os.path.join(out, name, snaps[0] if end == "1e-5" else snaps[-1]), "r") as f:
        return {k: f[k][()] for k in ("position", "radius", "n_contacts")}


def positions(dempact, case, tmp):
    return first_snapshot(dempact, case, os.path.join(tmp, "one"))["position"]


def settled_case(dempact, pour, tmp):
    """small_pour's beads after 0.08 s as a case of their own, at rest, in contact."""
    bed = first_snapshot(dempact, pour, os.path.join(tmp, "poured"), end="0.08")
    csv = os.path.join(tmp, "bed.csv")
    with open(csv, "w") as f:
        f.write("x,y,z,radius\n")
        for (x, y, z), r in zip(bed["position"], bed["radius"]):
            f.write(f"{x!r},{y!r},{z!r},{r!r}\n")
    text = open(pour).read().split("\nparticles:")[0]
    path = os.path.join(tmp, "bed.yaml")
    with open(path, "w") as f:
        f.write(text.replace("name: small_pour", "name: bed"))
        f.write(f"\nparticles:\n  - {{source: file, material: glass, file: {csv}}}\n")
    return path


def check_weights(dempact, case, n, tmp):
    snap = first_snapshot(dempact, case, os.path.join(tmp, f"bed_one_{n}"))
    total, imbalance, ranks, _ = split(dempact, case, n)
    weighed(f"bed on {n}", ranks, snap, case)
    print(f"bed on {n} ranks ({int(snap['n_contacts'].sum())} contact ends): weights "
          f"{[w for _, w, _ in ranks]} = particles + contacts in each sub-domain; "
          f"imbalance {imbalance}")
    # a run splits before its first neighbour list, by the particles alone, and takes the
    # split by their contacts at its first rebuild: it prints both
    r = mpirun(n, [dempact, "run", case, "--output", os.path.join(tmp, f"bed_{n}"), "--end-time",
                   "1e-5", "--threads", "1"])
    if r.returncode != 0:
        fail(f"bed run on {n} ranks: exit {r.returncode}\n{r.stderr}")
    rows = [m for m in (RANK.match(line) for line in r.stderr.splitlines()) if m]
    rows = [(int(m.group(2)), float(m.group(3)), [float(v) for v in m.groups()[3:]]) for m in rows]
    if len(rows) != 2 * n:
        fail(f"bed run on {n} ranks: expected two splits of {n} ranks each:\n{r.stderr}")
    first, by_contacts = rows[:n], rows[n:]
    if sum(c for c, _, _ in first) != total or any(w != c for c, w, _ in first):
        fail(f"bed run on {n} ranks: the first split should weigh each of the {total} "
             f"particles 1: {first}")
    weighed(f"bed run on {n}", by_contacts, snap, case)
    print(f"bed run on {n} ranks: first split by particles {[c for c, _, _ in first]}, then by "
          f"contacts, weights {[w for _, w, _ in by_contacts]}"
          f"{' (as check splits it)' if by_contacts == ranks else ''}")


def weighed(label, ranks, snap, case):
    """Each rank's weight is 1 + contacts for each of its particles: the weights add up to
    the particles plus their contact ends (the first snapshot's n_contacts), and each lies
    between those of the centres strictly inside its RCB sub-domain and those inside or on
    its cuts."""
    pos, contacts = snap["position"], snap["n_contacts"]
    lo, hi = domain_of(case)
    if sum(w for _, w, _ in ranks) != len(pos) + int(contacts.sum()):
        fail(f"{label}: the weights add up to {sum(w for _, w, _ in ranks)}, not the "
             f"particles plus their contacts, {len(pos) + int(contacts.sum())}")
    for r, (count, weight, box) in enumerate(ranks):
        strict, closed = in_box(pos, box, lo, hi)
        least = strict.sum() + contacts[strict].sum()
        most = closed.sum() + contacts[closed].sum()
        if not (strict.sum() <= count <= closed.sum() and least <= weight <= most):
            fail(f"{label}: rank {r} has {count} particles of weight {weight}; its "
                 f"sub-domain holds {strict.sum()} to {closed.sum()} (with those on its cuts) "
                 f"of weight {least} to {most}")


def in_box(pos, box, lo, hi):
    """The centres strictly inside a sub-domain (its sides on the domain's faces closed),
    and those in it or on its cuts: RCB cuts through centres, and those on a cut may go
    to either side."""
    b = np.array(box).reshape(3, 2)
    low, high = np.array(lo), np.array(hi)
    strict = np.all(((pos > b[:, 0]) | (b[:, 0] == low)) & ((pos < b[:, 1]) | (b[:, 1] == high)),
                    axis=1)
    closed = np.all((pos >= b[:, 0]) & (pos <= b[:, 1]), axis=1)
    return strict, closed


def domain_of(case):
    text = open(case).read()
    m = re.search(r"min: \[([^\]]+)\], max: \[([^\]]+)\]", text)
    return ([float(v) for v in m.group(1).split(",")], [float(v) for v in m.group(2).split(",")])


def check_split(dempact, case, n, method, pos, tmp):
    path = case
    if method != "rcb":
        path = os.path.join(tmp, f"{method}.yaml")
        with open(path, "w") as f:
            f.write(open(case).read() + f"\nparallel: {{method: {method}}}\n")
    total, imbalance, ranks, text = split(dempact, path, n)
    counts = [c for c, _, _ in ranks]
    weights = [w for _, w, _ in ranks]
    if sum(counts) != total or total != len(pos):
        fail(f"{method} on {n}: counts {counts} add up to {sum(counts)}, not {total}")
    mean = sum(weights) / n
    if abs(imbalance - max(weights) / mean) > 1e-3:
        fail(f"{method} on {n}: imbalance {imbalance} is not max/mean of {weights}")
    if imbalance > 1.10:  # Zoltan's tolerance 1.05, and particles come whole
        fail(f"{method} on {n}: imbalance {imbalance}")
    print(f"{method} on {n} ranks: particles {counts}, weights {weights}, imbalance {imbalance}")
    if method != "rcb":
        return
    lo, hi = domain_of(case)
    volume = np.prod(np.subtract(hi, lo))
    boxes = [np.array(b).reshape(3, 2) for _, _, b in ranks]
    if abs(sum(np.prod(b[:, 1] - b[:, 0]) for b in boxes) - volume) > 1e-9 * volume:
        fail(f"rcb on {n}: the sub-domains do not add up to the domain\n{text}")
    for a in range(n):
        for b in range(a + 1, n):
            overlap = np.prod(np.clip(np.minimum(boxes[a][:, 1], boxes[b][:, 1]) -
                                      np.maximum(boxes[a][:, 0], boxes[b][:, 0]), 0, None))
            if overlap > 1e-12 * volume:
                fail(f"rcb on {n}: sub-domains {a} and {b} overlap")
    for r, (count, _, box) in enumerate(ranks):
        strict, closed = in_box(pos, box, lo, hi)
        if not strict.sum() <= count <= closed.sum():
            fail(f"rcb on {n}: rank {r} has {count} particles; the first snapshot has "
                 f"{strict.sum()} inside its sub-domain and {closed.sum()} with those on its cuts")


def same_bits(a, b):
    with h5py.File(a, "r") as x, h5py.File(b, "r") as y:
        for name in ("id", "position", "velocity", "angular_velocity", "force"):
            if x[name][()].tobytes() != y[name][()].tobytes():
                return False
    return True


def refused(dempact, case, n, args, expect):
    r = mpirun(n, [dempact] + args + [case])
    if r.returncode == 0 or expect not in r.stderr:
        fail(f"{' '.join(args)} {os.path.basename(case)} on {n} ranks: exit {r.returncode}, "
             f"expected a refusal with '{expect}':\n{r.stderr}")
    print(f"refused on {n} ranks: {r.stderr.strip().splitlines()[0]}")


def main():
    dempact, pour, slender, cube = sys.argv[1:5]
    with tempfile.TemporaryDirectory() as tmp:
        pos = positions(dempact, pour, tmp)
        for method in ("rcb", "rib"):
            for n in (2, 4):
                check_split(dempact, pour, n, method, pos, tmp)
        bed = settled_case(dempact, pour, tmp)
        for n in (2, 4):
            check_weights(dempact, bed, n, tmp)
        # one rank under mpirun: the same run as without it
        plain, under = os.path.join(tmp, "plain"), os.path.join(tmp, "under")
        args = ["run", pour, "--end-time", "0.005", "--quiet", "--threads", "1"]
        subprocess.run([dempact] + args + ["--output", plain], check=True)
        r = mpirun(1, [dempact] + args + ["--output", under])
        if r.returncode != 0:
            fail(f"run on one rank under mpirun: exit {r.returncode}\n{r.stderr}")
        last = sorted(os.listdir(os.path.join(plain, "small_pour.d")))[-1]
        if not same_bits(os.path.join(plain, "small_pour.d", last),
                         os.path.join(under, "small_pour.d", last)):
            fail("one rank under mpirun gave other bits than a plain run")
        print("one rank under mpirun: the same bits as without it")
    refused(dempact, slender, 16, ["check"], "parallel: rank")
    refused(dempact, cube, 9, ["check"], "parallel: 9 ranks for a domain of 8 neighbour cells")
    print("ok")


if __name__ == "__main__":
    main()
