#!/usr/bin/env python3
"""tools/coarse_grain (docs/coarse-graining.md) against what it did not compute itself.

    .venv/bin/python tests/coarse_grain/test_coarse_grain.py bed       # the settled bed's checks
    .venv/bin/python tests/coarse_grain/test_coarse_grain.py hostile   # bad input and --help

`bed` makes tests/coarse_grain/settled_bed.yaml's bed (3000 beads, 22 diameters deep,
periodic sides) through the Python package, relaxes it to rest (kinetic damping: every
velocity zeroed whenever the kinetic energy has passed a maximum) and writes three
snapshots 2 ms apart, then checks:
- momentum balance: the vertical stress of a profile along z equals the weight of the
  beads whose centres lie above each height per unit area (counted from the snapshots
  with numpy), within 1 %, for the Gaussian and Lucy's kernel of width w = d/2, in the
  band from two diameters above the floor to seven below the highest centre. Below it
  the kernel (cutoff 3w = 1.5 d) reaches the floor's contact points, under which the
  stress drops to 0. Above it the bed's density falls off over its ragged surface (about
  4 d deep): a kernel smooths the weight above by w^2/2 g drho/dz, which is 1 % there.
  In the bulk the difference is a few beads' weight either way (0.1 to 0.4 %);
- the box average equals the virial sum (1/V) (sum m v' v' - sum_c f_c (x) l_c) from the
  snapshots' contacts with numpy (branches from the positions by the minimum image,
  not the snapshot's endpoints), on the bed and on a pour still falling and colliding
  (where the kinetic part is not negligible), to 1e-9 of the largest component;
- width independence: profiles with w = d/2, d and 2d (d the mean diameter) agree in the
  bed's homogeneous part (seven diameters from the floor and the highest centre: more
  than 3 x 2d): density and vertical stress within 1.5 % at every point, the horizontal
  stress's linear trend over the band within 1.5 % (the horizontal stress itself is
  carried by force chains and varies by 10 % from layer to layer);
- a grid (Gaussian and Lucy) averaged over x and y equals the profile in that band
  within 0.5 %.
`hostile` checks that every bad input of the program and of tools/coarse_grain.py (26
arguments and files, 4 damaged snapshots, 3 calls of the Python entry) is refused with exit status 2, a one-line message naming the argument or file, and nothing
written, and that --help prints the usage.

DEMPACT_COARSE_GRAIN names the program (ctest sets it), else build/tools/coarse_grain.
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import coarse_grain  # noqa: E402
import dempact_h5  # noqa: E402

G = 9.81
sys.path.insert(0, HERE)
from checks import check, exit_status, program  # noqa: E402


def cg(*args):
    return subprocess.run([program()] + [str(a) for a in args], capture_output=True, text=True)


def make_bed(folder):
    """The settled bed at rest: three snapshots in folder/settled_bed.h5."""
    import dempact
    sim = dempact.Simulation(os.path.join(HERE, "settled_bed.yaml"))
    sim.run()
    m = sim.masses
    last, quenched = 0.0, 0
    while sim.time < 0.45:  # kinetic damping: zero every velocity past a kinetic energy maximum
        sim.run(until=sim.time + 0.0005)
        v = sim.velocities
        ke = 0.5 * float((m * (v * v).sum(1)).sum())
        if ke < last:
            sim.set_velocities(np.zeros_like(v))
            quenched, last = quenched + 1, 0.0
        else:
            last = ke
    for _ in range(3):
        sim.run(until=sim.time + 0.002)
        sim.write_snapshot(folder)
    print(f"bed: t = {sim.time:.4f} s, {quenched} quenches, net vertical force "
          f"{sim.forces[:, 2].sum():+.2e} N of the weight {G * m.sum():.3f} N", flush=True)
    return os.path.join(folder, "settled_bed.h5")


def make_pour(folder):
    """The bed's case 60 ms in, beads still falling onto the floor: snapshots every 20 ms."""
    import dempact
    text = open(os.path.join(HERE, "settled_bed.yaml")).read()
    text = text.replace("name: settled_bed", "name: pour_early").replace("end: 0.35", "end: 0.2")
    text = text.replace("output_interval: 0.05", "output_interval: 0.02")
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, "pour_early.yaml")
    with open(case, "w") as f:
        f.write(text)
    sim = dempact.Simulation(case)
    sim.run(until=0.2, output=folder)
    return os.path.join(folder, "pour_early.h5")


def domain_of(run):
    import yaml
    d = yaml.safe_load(run.case_text)["domain"]
    return np.array(d["min"], float), np.array(d["max"], float), np.array(d.get("periodic", [0, 0, 0]), bool)


def virial(snap, lo, hi, periodic):
    """(1/V) (sum m v' v' - sum_c f_c (x) l_c), compression positive, from the snapshot."""
    length = hi - lo
    volume = float(np.prod(length))
    m, v = snap.mass, snap.velocity
    vbar = (m[:, None] * v).sum(0) / m.sum()
    dv = v - vbar
    kinetic = np.einsum("p,pa,pb->ab", m, dv, dv)
    c = snap.contacts
    if c is None or len(c.wall) == 0:
        return kinetic / volume, kinetic / volume
    row = {int(i): k for k, i in enumerate(snap.id)}
    keep = c.ended != 2
    i = np.array([row[int(x)] for x in c.id[:, 0]], dtype=np.int64)
    xi = snap.position[i]
    branch = np.empty_like(xi)
    wall = c.wall.astype(bool)
    branch[wall] = c.point[wall] - xi[wall]
    j = np.array([row[int(x)] if not w else 0 for x, w in zip(c.id[:, 1], wall)], dtype=np.int64)
    b = snap.position[j] - xi
    for a in range(3):
        if periodic[a]:
            b[:, a] -= length[a] * np.round(b[:, a] / length[a])
    branch[~wall] = b[~wall]
    force = c.normal_force_vector + c.tangential_force
    contact = -np.einsum("ca,cb->ab", force[keep], branch[keep])
    return (kinetic + contact) / volume, kinetic / volume


def fabric_sum(snap, volume):
    """sum over contacts of (V_i + V_j) n (x) n / V (V_i alone for a wall contact)."""
    c = snap.contacts
    if c is None or len(c.wall) == 0:
        return np.zeros((3, 3))
    vol = {int(i): 4.0 / 3.0 * np.pi * r ** 3 for i, r in zip(snap.id, snap.radius)}
    weight = np.array([vol[int(a)] + (0.0 if w else vol[int(b)]) for (a, b), w in zip(c.id, c.wall)])
    weight[c.ended == 2] = 0.0
    return np.einsum("c,ca,cb->ab", weight, c.normal, c.normal) / volume


def weight_above(run_file, heights, area):
    run = dempact_h5.Run(run_file)
    total = np.zeros_like(heights)
    for snap in run:
        z, m = snap.position[:, 2], snap.mass
        order = np.argsort(z)
        above = np.cumsum(m[order][::-1])[::-1]  # mass with centre at or above z[order[k]]
        k = np.searchsorted(z[order], heights, side="right")
        total += np.where(k < len(z), above[np.minimum(k, len(z) - 1)], 0.0)
    return G * total / len(run) / area


def bed_checks(work):
    bed = make_bed(os.path.join(work, "bed"))
    run = dempact_h5.Run(bed)
    lo, hi, periodic = domain_of(run)
    snap = run.snapshot()
    d = float(2 * snap.radius.mean())
    top = max(float(s.position[:, 2].max()) for s in run)
    area = float((hi[0] - lo[0]) * (hi[1] - lo[1]))
    everything = ["--from", 0.0]

    # momentum balance
    for kernel in ("gauss", "lucy"):
        out = os.path.join(work, f"profile_{kernel}.h5")
        done = cg(bed, "--out", out, "--width", d / 2, "--kernel", kernel, "--profile", "z", "--bins", 400, *everything)
        check(done.returncode == 0, f"profile {kernel}: {done.stdout.strip()} {done.stderr.strip()}")
        f = coarse_grain.load(out)
        z, szz = f["z"], f["stress"][:, 2, 2]
        band = (z > lo[2] + 2 * d) & (z < top - 7 * d)
        w = weight_above(bed, z, area)
        err = np.abs(szz[band] / w[band] - 1)
        check(err.max() < 0.01, f"momentum balance ({kernel}, w = d/2): sigma_zz against the weight above, "
                                f"z in [{lo[2] + 2 * d:.4f}, {top - 7 * d:.4f}] m ({band.sum()} points): "
                                f"largest error {100 * err.max():.3f} %")
        check(f["attrs"]["n_snapshots"] == 3, "the window holds the three snapshots")

    # box average against the virial sum
    for name, run_file in (("bed", bed), ("falling pour", make_pour(os.path.join(work, "pour")))):
        r = dempact_h5.Run(run_file)
        out = os.path.join(work, f"box_{name[0]}.h5")
        done = cg(run_file, "--out", out, "--width", d, "--box", *everything)
        check(done.returncode == 0, f"box {name}: {done.stdout.strip()} {done.stderr.strip()}")
        f = coarse_grain.load(out)
        parts = [virial(s, lo, hi, periodic) for s in r]
        want = np.mean([p[0] for p in parts], axis=0)
        kin = np.mean([p[1] for p in parts], axis=0)
        scale = np.abs(want).max()
        err = np.abs(f["stress"] - want).max() / scale
        check(err < 1e-9, f"box stress = virial sum ({name}, {len(r)} snapshots): difference {err:.2e} of "
                          f"{scale:.4g} Pa (kinetic part {np.abs(kin).max():.3g} Pa)")
        check(np.abs(f["kinetic_stress"] - kin).max() <= 1e-9 * max(np.abs(kin).max(), 1e-30),
              f"box kinetic stress = sum m v' v' / V ({name})")
        fabric = np.mean([fabric_sum(s, float(np.prod(hi - lo))) for s in r], axis=0)
        err = np.abs(f["fabric"] - fabric).max() / np.abs(fabric).max()
        check(err < 1e-12, f"box fabric = sum (V_i + V_j) n n / V ({name}): difference {err:.1e}, trace "
                           f"{np.trace(fabric):.4f}")
        rho = np.mean([s.mass.sum() for s in r]) / float(np.prod(hi - lo))
        check(abs(float(f["density"]) / rho - 1) < 1e-12, f"box density = total mass / V ({name})")

    # width independence
    fields = {}
    for factor in (0.5, 1.0, 2.0):
        out = os.path.join(work, f"width_{factor}.h5")
        done = cg(bed, "--out", out, "--width", factor * d, "--profile", "z", "--bins", 400, *everything)
        check(done.returncode == 0, f"profile w = {factor} d: {done.stderr.strip()}")
        fields[factor] = coarse_grain.load(out)
    z = fields[1.0]["z"]
    band = (z > lo[2] + 7 * d) & (z < top - 7 * d)
    for key, pick, tol in (("density", lambda f: f["density"], 0.015),
                           ("sigma_zz", lambda f: f["stress"][:, 2, 2], 0.015)):
        ref = pick(fields[1.0])[band]
        for factor in (0.5, 2.0):
            err = np.abs(pick(fields[factor])[band] / ref - 1).max()
            check(err < tol, f"width independence of {key}: w = {factor} d against w = d, z in "
                             f"[{lo[2] + 7 * d:.4f}, {top - 7 * d:.4f}] m: largest difference {100 * err:.2f} % "
                             f"(tolerance {100 * tol:.1f} %)")
    # the horizontal stress is no smooth field (force chains: +-10 % from layer to layer);
    # its trend over the band, a straight line, which every kernel keeps, must agree
    ends = np.array([lo[2] + 7 * d, top - 7 * d])
    line = {f: np.polyval(np.polyfit(z[band], fields[f]["stress"][band, 0, 0], 1), ends) for f in fields}
    for factor in (0.5, 2.0):
        err = np.abs(line[factor] / line[1.0] - 1).max()
        check(err < 0.015, f"width independence of sigma_xx's trend over the band: w = {factor} d against w = d: "
                           f"{100 * err:.2f} % (tolerance 1.5 %)")

    # the grid: its XDMF beside it, and averaged over x and y it is the profile (in the
    # homogeneous band any kernel gives the same fields: the 3D Gaussian cut off at a
    # sphere and Lucy's 3D kernel, whose branch integrals are other closed forms, against
    # the 1D Gaussian)
    for kernel in ("gauss", "lucy"):
        out = os.path.join(work, f"grid_{kernel}.h5")
        done = cg(bed, "--out", out, "--width", d, "--kernel", kernel, "--grid", "8,8,100", *everything)
        check(done.returncode == 0 and os.path.isfile(os.path.join(work, f"grid_{kernel}.xmf")),
              f"grid ({kernel}): OUT.h5 and OUT.xmf written")
        f = coarse_grain.load(out)
        shape = f["stress"].shape
        check(shape == (100, 8, 8, 3, 3), f"grid stress is (nz, ny, nx, 3, 3): {shape}")
        gz = f["z"]
        inside = (gz > lo[2] + 7 * d) & (gz < top - 7 * d)
        for key, grid_value, profile_value in (
                ("density", f["density"].mean(axis=(1, 2)), fields[1.0]["density"]),
                ("sigma_zz", f["stress"][:, :, :, 2, 2].mean(axis=(1, 2)), fields[1.0]["stress"][:, 2, 2])):
            err = np.abs(grid_value[inside] / np.interp(gz[inside], z, profile_value) - 1).max()
            check(err < 0.005, f"grid ({kernel}) averaged over x and y = profile ({key}, w = d): {100 * err:.2f} % "
                               "(tolerance 0.5 %)")


def hostile_checks(work):
    import dempact
    folder = os.path.join(work, "run")
    text = open(os.path.join(HERE, "settled_bed.yaml")).read().replace("end: 0.35", "end: 0.002")
    text = text.replace("output_interval: 0.05", "output_interval: 0.001")
    case = os.path.join(work, "settled_bed.yaml")
    with open(case, "w") as f:
        f.write(text)
    dempact.Simulation(case).run(output=folder)
    good = os.path.join(folder, "settled_bed.h5")
    out = os.path.join(work, "out.h5")
    text_file = os.path.join(work, "not_h5.h5")
    with open(text_file, "w") as f:
        f.write("not HDF5\n")
    bare = os.path.join(work, "bare.h5")
    with h5py.File(bare, "w") as f:
        f.create_group("snapshots")

    done = cg("--help")
    check(done.returncode == 0 and done.stdout.startswith("usage: coarse_grain"), "--help prints the usage, exit 0")
    base = ["--out", out, "--width", 0.004]
    cases = [
        ("a missing file", ["/no/such/run.h5", *base, "--box"], "/no/such/run.h5"),
        ("a text file", [text_file, *base, "--box"], "not an HDF5 file"),
        ("an HDF5 file without a case", [bare, *base, "--box"], "case_text"),
        ("no snapshot in the window", [good, *base, "--box", "--from", 100], "no snapshot"),
        ("--from after --to", [good, *base, "--box", "--from", 1, "--to", 0], "--from"),
        ("a zero width", [good, "--out", out, "--width", 0, "--box"], "--width"),
        ("a negative width", [good, "--out", out, "--width", -1, "--box"], "--width"),
        ("a NaN width", [good, "--out", out, "--width", "nan", "--box"], "--width"),
        ("a width that is no number", [good, "--out", out, "--width", "2mm", "--box"], "--width"),
        ("no width", [good, "--out", out, "--box"], "--width"),
        ("no --out", [good, "--width", 0.004, "--box"], "--out"),
        ("an --out folder that does not exist", [good, "--out", "/no/such/dir/x.h5", "--width", 0.004, "--box"],
         "does not exist"),
        ("two modes", [good, *base, "--box", "--grid", "2,2,2"], "exactly one"),
        ("no mode", [good, *base], "exactly one"),
        ("a profile without bins", [good, *base, "--profile", "z"], "--bins"),
        ("a profile along w", [good, *base, "--profile", "w", "--bins", 4], "--profile"),
        ("zero bins", [good, *base, "--profile", "z", "--bins", 0], "--bins"),
        ("a grid of too many points", [good, *base, "--grid", "1000,1000,1000"], "--grid"),
        ("a grid of two counts", [good, *base, "--grid", "4,4"], "--grid"),
        ("a fractional grid count", [good, *base, "--grid", "4,4,2.5"], "--grid"),
        ("a region outside the domain", [good, *base, "--grid", "2,2,2", "--region", "0,0,0,1,1,1"], "--region"),
        ("a region upside down", [good, *base, "--grid", "2,2,2", "--region", "0,0,0.1,0.04,0.04,0.05"],
         "--region"),
        ("a kernel wider than the period", [good, "--out", out, "--width", 0.01, "--grid", "2,2,2"], "period"),
        ("an unknown kernel", [good, *base, "--box", "--kernel", "box"], "--kernel"),
        ("an unknown option", [good, *base, "--box", "--bogus"], "--bogus"),
        ("two run files", [good, good, *base, "--box"], "one run file"),
    ]
    for what, args, word in cases:
        done = cg(*args)
        lines = done.stderr.strip().splitlines()
        check(done.returncode == 2 and len(lines) == 1 and word in lines[0] and not os.path.exists(out)
              and not os.path.exists(os.path.join(work, "out.xmf")),
              f"{what}: exit {done.returncode}, {done.stderr.strip()!r}")
    # damaged snapshots: a copy of the run with its last snapshot's file changed
    import shutil
    for what, damage, word in (
            ("a position that is not finite", lambda f: f["position"].__setitem__((0, 2), np.nan), "not finite"),
            ("no mass", lambda f: f.__delitem__("mass"), "no dataset mass"),
            ("radii of the wrong length", lambda f: (f.__delitem__("radius"), f.create_dataset("radius", data=[1.0])),
             "radius is not"),
            ("a zero radius", lambda f: f["radius"].__setitem__(3, 0.0), "radius 0")):
        bad = os.path.join(work, "damaged")
        shutil.rmtree(bad, ignore_errors=True)
        shutil.copytree(folder, bad)
        with h5py.File(os.path.join(bad, "settled_bed.d", "000002.h5"), "r+") as f:
            damage(f)
        done = cg(os.path.join(bad, "settled_bed.h5"), *base, "--box")
        lines = done.stderr.strip().splitlines()
        check(done.returncode == 2 and len(lines) == 1 and word in lines[0] and "000002" in lines[0]
              and not os.path.exists(out), f"a snapshot with {what}: exit {done.returncode}, {done.stderr.strip()!r}")
    done = cg(good, *base, "--box")
    check(done.returncode == 0 and os.path.exists(out), "the same run with good arguments is written")
    # the Python entry
    py = [sys.executable, os.path.join(ROOT, "tools", "coarse_grain.py")]
    env = dict(os.environ, DEMPACT_COARSE_GRAIN=program())
    done = subprocess.run(py + ["--help"], capture_output=True, text=True, env=env)
    check(done.returncode == 0 and "usage:" in done.stdout, "tools/coarse_grain.py --help")
    done = subprocess.run(py + [good, "--out", os.path.join(work, "p.h5"), "--width", "-1", "--box"],
                          capture_output=True, text=True, env=env)
    check(done.returncode == 2 and "--width" in done.stderr, "tools/coarse_grain.py passes exit status 2 on")
    try:
        os.environ["DEMPACT_COARSE_GRAIN"] = program()
        coarse_grain.run(good, os.path.join(work, "q.h5"), 0.004, profile="z")
        check(False, "coarse_grain.run raises on bad input")
    except RuntimeError as e:
        check("--bins" in str(e), f"coarse_grain.run raises on bad input: {e}")


def main(argv):
    which = argv[0] if argv else "bed"
    with tempfile.TemporaryDirectory(prefix="coarse_grain_") as work:
        (bed_checks if which == "bed" else hostile_checks)(work)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
