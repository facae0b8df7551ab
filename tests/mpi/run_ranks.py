"""mpirun -np N dempact run against one process: each case (its parallel.reproducible
turned on, as a split run has it) runs once without mpirun and once on each number of
ranks given, and every snapshot file (particles, contacts, engine state, walls: on ranks
written by all of them together through parallel HDF5, read here through h5py's serial
HDF5, as a build without MPI reads it) and the whole time series must have the same
bits, every dataset and attribute, the ParaView files the same text.

Cases (tests/data/e2e and cases/), on 2 and 4 ranks: small_pour (walls, periodic x, two
materials, friction, both rolling models), mpi_periodic_box (periodic along three axes,
crossing streams), a trough made of an STL surface (written here). On 2 ranks: small_pour
again with parallel.rebalance: 1.0 (the ranks split afresh every thousand steps), the
drum (a turning cylinder wall: its work is summed over ranks), the hopper to 0.3 s (12,000
beads, cylinder and cone walls, the first 15 g through the orifice into the outlet), a
sliding pair that crosses the cut between the ranks and keeps its tangential spring
(written here), inlet_restart (an inlet places the same beads on every rank, clear of
every rank's, each keeps its own; an outlet's count and mass are summed over the
ranks), the heap on 2 and 4 ranks (no particle at the start: the ranks split the domain
into boxes, and the inlet fills them), blow_up (the watchdog stops the run on the rank that holds the ball: every rank
must stop with exit 4 and the same last snapshot; on 4 ranks the one ball cannot be
split, and the run is refused with nothing written), a head-on collision across the cut
whose faster bead watchdog.on_error: drop_particle drops (written here), the same with
two beads as fast as each other (the smaller id is dropped), and
drop_particle (a bead shot out of an open box, dropped). Then SIGTERM to one rank alone
(every rank stops at the same step with a last snapshot, which restarts) and restarts
from 2 ranks onto 1, 2 and 4 and from one process onto 2; the periodic box from 4 ranks
onto 2, the trough from 2 onto 4, the hopper and a settled periodic bed (thousands of
contacts, many across the cuts) from one process onto 2 and 4, and a file without
/@initial_energy (an older one, which every rank restores whole) onto 1 and 2.

Usage: run_ranks.py DEMPACT E2E_DATA CASES_DIR WORKDIR RANKS..."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root"]


def fail(msg):
    print("run_ranks: " + msg)
    sys.exit(1)


def reproducible(src, dst, parallel="reproducible: true", name=None):
    """A copy of case src at dst that sums by id (or has the parallel mapping given);
    paths in it made absolute; renamed when name is given."""
    text = open(src).read()
    text = re.sub(r"(?m)^parallel:.*\n", "", text)
    if name:
        text = re.sub(r"(?m)^name:.*$", "name: " + name, text)
    base = os.path.dirname(os.path.abspath(src))
    text = re.sub(r"(file:\s*)([^\s,}]+)", lambda m: m.group(1) + os.path.join(base, m.group(2)), text)
    with open(dst, "w") as f:
        f.write("parallel: {" + parallel + "}\n" + text)
    return dst


def trough(work):
    """A V-shaped trough of four triangles (an ASCII STL) under a small pour."""
    stl = os.path.join(work, "trough.stl")
    # the two faces of the V, each a rectangle across x from 0 to 0.03 m
    faces = [((0, 0.0, 0.02), (0, 0.01, 0.0)), ((0, 0.01, 0.0), (0, 0.02, 0.02))]
    with open(stl, "w") as f:
        f.write("solid trough\n")
        for a, b in faces:
            quad = [(0.0, a[1], a[2]), (0.03, a[1], a[2]), (0.03, b[1], b[2]), (0.0, b[1], b[2])]
            for tri in ((quad[0], quad[1], quad[2]), (quad[0], quad[2], quad[3])):
                f.write(" facet normal 0 0 0\n  outer loop\n")
                for v in tri:
                    f.write(f"   vertex {v[0]} {v[1]} {v[2]}\n")
                f.write("  endloop\n endfacet\n")
        f.write("endsolid trough\n")
    case = os.path.join(work, "mpi_trough.yaml")
    with open(case, "w") as f:
        f.write(f"""name: mpi_trough
parallel: {{reproducible: true}}
domain: {{min: [0, 0, 0], max: [0.03, 0.02, 0.05], periodic: [true, false, false]}}
gravity: [0, 0, -9.81]
time: {{end: 0.04, output_interval: 0.01}}
materials:
  - {{name: glass, density: 2500, young: 1.0e7, poisson: 0.25}}
  - {{name: steel, density: 7800, young: 2.0e11, poisson: 0.3}}
contacts:
  - {{materials: [glass, glass], law: hertz_tti, params: {{restitution: 0.5}}, friction: {{coefficient: 0.5}}}}
  - {{materials: [glass, steel], law: hertz_tti, params: {{restitution: 0.6}}, friction: {{coefficient: 0.3}}}}
walls:
  - {{type: stl, material: steel, file: {stl}}}
particles:
  - {{source: random, material: glass, region: {{min: [0, 0.002, 0.022], max: [0.03, 0.018, 0.05]}}, count: 300, radius: 0.001, seed: 3}}
""")
    return case


def soft_beads(work, name, movers, end, extra="", friction=""):
    """A case of soft beads in a 4 x 1 x 1 cm box without gravity: a row of 16 resting
    beads along x at y = 7.5 mm that sets where RCB cuts for 2 ranks (7 of them before x
    = 18.1 mm, the 8th there, 8 more beyond: the cut falls between the 8th and the 9th),
    and movers, rows (x, y, z, vx, vy, vz, wx, wy, wz) at y = 2.5 mm or so, ids 16 on."""
    csv = os.path.join(work, name + ".csv")
    with open(csv, "w") as f:
        f.write("x,y,z,radius,vx,vy,vz,wx,wy,wz\n")
        for k in range(16):
            x = 0.00125 + 0.0023 * k if k < 7 else 0.0181 + 0.0023 * (k - 7)
            f.write(f"{x},0.0075,0.005,0.001,0,0,0,0,0,0\n")
        for x, y, z, *motion in movers:
            f.write(f"{x},{y},{z},0.001," + ",".join(str(v) for v in motion) + "\n")
    case = os.path.join(work, name + ".yaml")
    with open(case, "w") as f:
        f.write(f"""name: {name}
parallel: {{reproducible: true}}
domain: {{min: [0, 0, 0], max: [0.04, 0.01, 0.01]}}
gravity: [0, 0, 0]
time: {{end: {end}, output_interval: 0.0002}}
{extra}materials:
  - {{name: soft, density: 2500, young: 1.0e5, poisson: 0.25}}
contacts:
  - {{materials: [soft, soft], law: hertz_tti, params: {{restitution: 0.9}}{friction}}}
particles:
  - {{source: file, material: soft, file: {csv}}}
""")
    return case


def sliding_pair(work):
    """Two soft beads pressed together, spinning the same way (their contact slides and
    its tangential spring stretches), carried along x at 2 m/s from x = 17.8 mm across
    the cut between two ranks (soft_beads' row sets it just ahead of them)."""
    return soft_beads(work, "mpi_sliding_pair",
                      [(0.0178, 0.0025, 0.005, 2, 0, 0, 0, 0, 300), (0.0178, 0.00448, 0.005, 2, 0, 0, 0, 0, 300)],
                      0.0008, friction=", friction: {coefficient: 0.5}")


def head_on(work):
    """A bead (id 16) shot at 3 m/s into a resting one (id 17) across the cut between two
    ranks (soft_beads' row sets the cut between them), their contact soon deeper than
    the watchdog's 5 % of a radius: on_error: drop_particle drops the faster one, on its
    rank, and the other rank takes back the force the dropped bead exerted on the one
    it hit."""
    return soft_beads(work, "mpi_head_on",
                      [(0.0165, 0.0025, 0.005, 3, 0, 0, 0, 0, 0), (0.0195, 0.0025, 0.005, 0, 0, 0, 0, 0, 0)],
                      0.001, extra="watchdog: {on_error: drop_particle, max_overlap_fraction: 0.05}\n")


def mirror_head_on(work):
    """Two beads (ids 16 and 17) meeting head on at 3 m/s each across the cut, their
    contact soon deeper than the watchdog's 5 % of a radius: as fast as each other, the
    one with the smaller id is dropped, on every split as in one process."""
    return soft_beads(work, "mpi_mirror_head_on",
                      [(0.0165, 0.0025, 0.005, 3, 0, 0, 0, 0, 0), (0.0195, 0.0025, 0.005, -3, 0, 0, 0, 0, 0)],
                      0.001, extra="watchdog: {on_error: drop_particle, max_overlap_fraction: 0.05}\n")


def cut_on_2(dempact, case, label):
    """Where RCB cuts the case on 2 ranks (dempact check), along x."""
    r = subprocess.run(MPIRUN + ["-np", "2", dempact, "check", case], capture_output=True, text=True)
    boxes = re.findall(r"sub-domain \[([-0-9.e]+), ([-0-9.e]+)\]", r.stdout)
    if len(boxes) != 2:
        fail(f"{label}: no split in `dempact check` on 2 ranks:\n{r.stdout}{r.stderr}")
    return min(float(b[1]) for b in boxes)


def check_head_on(dempact, work, log):
    """Bead 16 was dropped on its rank while bead 17, which it hit, lives on the other,
    and bead 17 went on with what the collision gave it (bit-identical to one process:
    the caller compares)."""
    cut = cut_on_2(dempact, os.path.join(work, "mpi_head_on.yaml"), "head-on")
    if not 0.0165 < cut < 0.0195:
        fail(f"head-on: the cut at x = {cut} is not between the two beads")
    if "dropped particle 16" not in log:
        fail(f"head-on on 2 ranks: the log does not tell the drop of bead 16:\n{log[-2000:]}")
    out = os.path.join(work, "mpi_head_on_2", "mpi_head_on.d")
    with h5py.File(os.path.join(out, sorted(os.listdir(out))[-1])) as f:
        ids = list(f["id"][()])
        v17 = f["velocity"][ids.index(17)][0] if 17 in ids else 0.0
    if 16 in ids or len(ids) != 17 or not v17 > 0.0:
        fail(f"head-on: at the end ids {ids}, bead 17 at {v17} m/s along x")
    print(f"head-on: bead 16 dropped on its rank, bead 17 across the cut at x = {cut:.5g} m goes on at "
          f"{v17:.3g} m/s, as in one process to the bit")


def check_sliding(dempact, work):
    """The pair crossed the cut and its contact kept sliding with its spring: the split
    run's snapshots (bit-identical to one process's, checked by the caller) show it."""
    cut = cut_on_2(dempact, os.path.join(work, "mpi_sliding_pair.yaml"), "sliding pair")
    out = os.path.join(work, "mpi_sliding_pair_2", "mpi_sliding_pair.d")
    snaps = sorted(os.listdir(out))
    with h5py.File(os.path.join(out, snaps[0])) as f0, h5py.File(os.path.join(out, snaps[-1])) as f1:
        x_start = f0["position"][16:18, 0]
        x_end = f1["position"][16:18, 0]
        ids = f1["contacts/id"][()]
        pair = [k for k in range(len(ids)) if set(ids[k]) == {16, 17}]
        if not (max(x_start) < cut < min(x_end)):
            fail(f"sliding pair: from x = {x_start} to {x_end}, the cut at {cut} not crossed")
        if not pair:
            fail("sliding pair: the two beads no longer touch at the end")
        spring = f1["contacts/tangential_spring"][pair[0]]
        if not np.linalg.norm(spring) > 0:
            fail(f"sliding pair: the tangential spring is {spring} at the end")
    print(f"sliding pair: crossed the cut at x = {cut:.5g} m from {x_start[0]:.5g} to {x_end[0]:.5g} m "
          f"on 2 ranks, still touching, tangential spring {np.linalg.norm(spring):.3g} m, "
          "as in one process to the bit")


def signalled(dempact, work):
    """SIGTERM to one rank alone (not to mpirun) ends the run on every rank at the same
    step with a last snapshot; the output goes on from it on one process."""
    case = os.path.join(work, "small_pour.yaml")
    out = os.path.join(work, "signalled")
    snapdir = os.path.join(out, "small_pour.d")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    job = subprocess.Popen(MPIRUN + ["-np", "2", dempact, "run", case, "--output", out, "--end-time", "1",
                                     "--threads", "1", "--quiet"],
                           stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 300
    while time.time() < deadline and job.poll() is None:
        if os.path.isdir(snapdir) and len([f for f in os.listdir(snapdir) if f.endswith(".h5")]) >= 3:
            break
        time.sleep(0.2)
    ranks = subprocess.run(["pgrep", "-P", str(job.pid), "-f", "dempact"], capture_output=True,
                           text=True).stdout.split()
    if job.poll() is not None or len(ranks) != 2:
        fail(f"signalled: the run ended early or has {len(ranks)} ranks")
    os.kill(int(ranks[-1]), signal.SIGTERM)
    _, err = job.communicate(timeout=300)
    if "stopped by SIGTERM" not in err or job.returncode != 143:
        fail(f"signalled: SIGTERM to one rank did not stop the run cleanly with exit 143 on every rank "
             f"(mpirun exit {job.returncode}):\n{err[-2000:]}")
    with h5py.File(os.path.join(out, "small_pour.h5")) as f:
        steps = [f["snapshots"][k].attrs["step"] for k in f["snapshots"]]
    resumed = os.path.join(work, "signalled_on_1")
    run([dempact, "run", case, "--output", resumed, "--end-time", str(float(steps[-1] * dt_of(
        os.path.join(out, "small_pour.h5"))) + 0.005), "--restart", os.path.join(out, "small_pour.h5"),
         "--quiet", "--threads", "1"])
    print(f"signalled: SIGTERM to rank 1 alone stopped both ranks at step {steps[-1]} with a last "
          f"snapshot ({len(steps)} in the file); it restarts on one process")


def run(cmd, expect=0):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if r.returncode != expect:
        fail(f"{' '.join(cmd)} exited {r.returncode}, not {expect}: {r.stderr[-3000:]}")
    return r.stderr


def same_h5(a, b):
    """Names of datasets or attributes that differ between files a and b."""
    bad = []
    with h5py.File(a) as fa, h5py.File(b) as fb:
        def visit(name, obj):
            if name not in fb:
                bad.append("missing " + name)
                return
            if isinstance(obj, h5py.Dataset):
                x, y = obj[()], fb[name][()]
                if x.shape != y.shape or np.asarray(x).tobytes() != np.asarray(y).tobytes():
                    bad.append(name)
            for k, v in obj.attrs.items():
                if k not in fb[name].attrs or np.asarray(v).tobytes() != np.asarray(fb[name].attrs[k]).tobytes():
                    bad.append(name + "@" + k)
        fa.visititems(visit)
        for k, v in fa.attrs.items():
            if np.asarray(v).tobytes() != np.asarray(fb.attrs[k]).tobytes():
                bad.append("@" + k)
    return bad


def compare(one, many, name, label):
    snaps = sorted(os.listdir(os.path.join(one, name + ".d")))
    other = sorted(os.listdir(os.path.join(many, name + ".d")))
    if snaps != other or not snaps:
        fail(f"{label}: snapshots {other} on ranks, {snaps} on one process")
    for s in snaps:
        bad = same_h5(os.path.join(one, name + ".d", s), os.path.join(many, name + ".d", s))
        if bad:
            fail(f"{label}: snapshot {s} differs from one process's in {bad[:6]}")
    with h5py.File(os.path.join(one, name + ".h5")) as fa, h5py.File(os.path.join(many, name + ".h5")) as fb:
        for k in fa["timeseries"]:
            if fa["timeseries"][k][()].tobytes() != fb["timeseries"][k][()].tobytes():
                fail(f"{label}: time series {k} differs from one process's")
    for xmf in (name + ".xmf", name + "_contacts.xmf"):
        if open(os.path.join(one, xmf)).read() != open(os.path.join(many, xmf)).read():
            fail(f"{label}: {xmf} differs from one process's")
    return len(snaps)


def dt_of(h5):
    with h5py.File(h5) as f:
        return float(f.attrs["dt"])


def restarts(dempact, e2e, cases, work, ranks):
    """Restarts N to M: small_pour stopped half-way on 2 ranks goes on on every other
    number (and on one process) to the end one process reaches without stopping; the
    case as shipped (no parallel: key) run on 2 ranks goes on on one process to the
    2-rank run's end; one process's output that did not sum by id is refused on ranks."""
    case = os.path.join(work, "small_pour.yaml")
    full = os.path.join(work, "small_pour_1")  # main() ran it to 0.04 s
    half = os.path.join(work, "small_pour_half")
    run(MPIRUN + ["-np", "2", dempact, "run", case, "--output", half, "--end-time", "0.02", "--quiet",
                  "--threads", "1"])
    for n in [1] + ranks:
        out = os.path.join(work, f"small_pour_from2_{n}")
        cmd = [dempact, "run", case, "--output", out, "--end-time", "0.04", "--quiet", "--threads", "1",
               "--restart", os.path.join(half, "small_pour.h5")]
        run(cmd if n == 1 else MPIRUN + ["-np", str(n)] + cmd)
        count = compare(full, out, "small_pour", f"small_pour restarted from 2 ranks on {n}")
        print(f"small_pour stopped at 0.02 s on 2 ranks, restarted on {n}: {count} snapshots bit-identical "
              "to one process's uninterrupted run")
    # an inlet and an outlet at work: one process's output at 0.04 s goes on on 2 ranks
    case = os.path.join(work, "inlet_restart.yaml")
    out = os.path.join(work, "inlet_restart_from1_2")
    run(MPIRUN + ["-np", "2", dempact, "run", case, "--output", out, "--end-time", "0.08", "--quiet",
                  "--threads", "1", "--restart", os.path.join(work, "inlet_restart_1", "inlet_restart.h5"),
                  "--from-step", str(round(0.04 / dt_of(os.path.join(work, "inlet_restart_1", "inlet_restart.h5"))))])
    count = compare(os.path.join(work, "inlet_restart_1"), out, "inlet_restart", "inlet_restart from 1 on 2")
    print(f"inlet_restart stopped at 0.04 s on one process, restarted on 2 ranks: {count} snapshots "
          "bit-identical to the uninterrupted run")
    shipped = os.path.join(e2e, "small_pour.yaml")
    two, half, on_one = (os.path.join(work, d) for d in ("shipped_2", "shipped_half", "shipped_on_1"))
    for out, end in ((two, "0.04"), (half, "0.02")):
        run(MPIRUN + ["-np", "2", dempact, "run", shipped, "--output", out, "--end-time", end, "--quiet",
                      "--threads", "1"])
    run([dempact, "run", shipped, "--output", on_one, "--end-time", "0.04", "--quiet", "--threads", "2",
         "--restart", os.path.join(half, "small_pour.h5")])
    count = compare(two, on_one, "small_pour", "shipped small_pour from 2 ranks on one process")
    print(f"small_pour as shipped, stopped on 2 ranks, restarted on one process: {count} snapshots "
          "bit-identical to the uninterrupted 2-rank run")
    # each rank reads its share of the snapshot: periodic along three axes (particles
    # owned by where the last rebuild had them, wrapped into the box) and an STL trough
    # (its contacts found again at their places among the particles' wall entries)
    for name, end, half_end, many_from, many_to in (("mpi_periodic_box", "0.01", "0.005", 4, 2),
                                                    ("mpi_trough", "0.04", "0.02", 2, 4)):
        case = os.path.join(work, name + ".yaml")
        half = os.path.join(work, f"{name}_half_{many_from}")
        out = os.path.join(work, f"{name}_from{many_from}_{many_to}")
        run(MPIRUN + ["-np", str(many_from), dempact, "run", case, "--output", half, "--end-time", half_end,
                      "--quiet", "--threads", "1"])
        run(MPIRUN + ["-np", str(many_to), dempact, "run", case, "--output", out, "--end-time", end, "--quiet",
                      "--threads", "1", "--restart", os.path.join(half, name + ".h5")])
        one = os.path.join(work, name + "_1")
        if name == "mpi_periodic_box":  # its snapshots are the first and the last only
            last = [os.path.join(d, name + ".d", sorted(os.listdir(os.path.join(d, name + ".d")))[-1])
                    for d in (one, out)]
            bad = same_h5(*last)
            if bad:
                fail(f"{name} from {many_from} on {many_to}: the last snapshot differs in {bad[:6]}")
            what = "the last snapshot"
        else:
            what = f"{compare(one, out, name, f'{name} from {many_from} on {many_to}')} snapshots"
        print(f"{name} stopped at {half_end} s on {many_from} ranks, restarted on {many_to}: {what} "
              "bit-identical to one process's uninterrupted run")
    # thousands of contacts restored on their ranks: the hopper from 0.28 s (26,000
    # contacts, 1,250 of them with the cylinder and the cone), and a settled bed periodic
    # along x and y (packing_small twice as long along x, so that the ranks cut it along a
    # periodic axis) from 0.25 s; the first particle of many a pair is another rank's
    hopper = os.path.join(work, "hopper_1", "hopper.h5")
    wide = reproducible(os.path.join(cases, "packing_small.yaml"), os.path.join(work, "packing_wide.yaml"),
                        name="packing_wide")
    text = open(wide).read().replace("max: [0.018, 0.018, 0.12]", "max: [0.036, 0.018, 0.12]")
    text = text.replace("max: [0.018, 0.018, 0.11]", "max: [0.036, 0.018, 0.11]")
    open(wide, "w").write(text)
    wide_one = os.path.join(work, "packing_wide_1")
    run([dempact, "run", wide, "--output", wide_one, "--end-time", "0.3", "--quiet", "--threads", "2"])
    for name, case, one, from_time, end in (("hopper", os.path.join(work, "hopper.yaml"), os.path.join(work, "hopper_1"),
                                             0.28, "0.3"),
                                            ("packing_wide", wide, wide_one, 0.25, "0.3")):
        h5 = os.path.join(one, name + ".h5")
        with h5py.File(h5) as f:
            k = min(f["snapshots"], key=lambda k: abs(float(f["snapshots"][k].attrs["time"]) - from_time))
            step, contacts = int(f["snapshots"][k].attrs["step"]), len(f["snapshots"][k]["contacts/id"])
        for n in ranks:
            out = os.path.join(work, f"{name}_restarted_{n}")
            run(MPIRUN + ["-np", str(n), dempact, "run", case, "--output", out, "--end-time", end, "--quiet",
                          "--threads", "1", "--restart", h5, "--from-step", str(step)])
            count = compare(one, out, name, f"{name} from {from_time} s on {n}")
            print(f"{name} restarted on {n} ranks from {from_time} s ({contacts} contacts): {count} snapshots "
                  "bit-identical to one process's uninterrupted run")
    # a file from before /@initial_energy: every rank restores it whole, then splits
    older = os.path.join(work, "small_pour_older")
    shutil.copytree(os.path.join(work, "small_pour_half"), older)
    with h5py.File(os.path.join(older, "small_pour.h5"), "r+") as f:
        del f.attrs["initial_energy"]
    for n in (1, 2):
        out = os.path.join(work, f"small_pour_older_{n}")
        cmd = [dempact, "run", os.path.join(work, "small_pour.yaml"), "--output", out, "--end-time", "0.04",
               "--quiet", "--threads", "1", "--restart", os.path.join(older, "small_pour.h5")]
        run(cmd if n == 1 else MPIRUN + ["-np", str(n)] + cmd)
        count = compare(full, out, "small_pour", f"small_pour from a file without /@initial_energy on {n}")
        print(f"small_pour from a file without /@initial_energy, restarted on {n}: {count} snapshots "
              "bit-identical to one process's uninterrupted run")
    plain = os.path.join(work, "plain")
    run([dempact, "run", shipped, "--output", plain, "--end-time", "0.01", "--quiet"])
    log = run(MPIRUN + ["-np", "2", dempact, "run", shipped, "--output", os.path.join(work, "refused"),
                        "--restart", os.path.join(plain, "small_pour.h5"), "--quiet"], 2)
    if "did not sum by id" not in log or os.path.exists(os.path.join(work, "refused")):
        fail(f"a restart on ranks from a run that did not sum by id: expected a refusal, got\n{log[-2000:]}")
    print("a restart on 2 ranks from one process's output that did not sum by id: refused")


def main():
    dempact, e2e, cases, work = sys.argv[1:5]
    ranks = [int(r) for r in sys.argv[5:]]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    runs = [  # case, end time (s), expected exit status
        (reproducible(os.path.join(e2e, "small_pour.yaml"), os.path.join(work, "small_pour.yaml")), "0.04", 0),
        (reproducible(os.path.join(e2e, "mpi_periodic_box.yaml"), os.path.join(work, "mpi_periodic_box.yaml")), "0.01", 0),
        (reproducible(os.path.join(e2e, "small_pour.yaml"), os.path.join(work, "rebalancing.yaml"),
                      "reproducible: true, rebalance: 1.0", "rebalancing"), "0.04", 0),
        (reproducible(os.path.join(cases, "drum.yaml"), os.path.join(work, "drum.yaml")), "0.03", 0),
        (reproducible(os.path.join(cases, "hopper.yaml"), os.path.join(work, "hopper.yaml")), "0.3", 0),
        (trough(work), "0.04", 0),
        (sliding_pair(work), "0.0008", 0),
        (reproducible(os.path.join(e2e, "inlet_restart.yaml"), os.path.join(work, "inlet_restart.yaml")), "0.08", 0),
        (reproducible(os.path.join(cases, "heap.yaml"), os.path.join(work, "heap.yaml")), "0.25", 0),
        (reproducible(os.path.join(e2e, "blow_up.yaml"), os.path.join(work, "blow_up.yaml")), "0.2", 4),
        (head_on(work), "0.001", 0),
        (mirror_head_on(work), "0.001", 0),
        (reproducible(os.path.join(e2e, "drop_particle.yaml"), os.path.join(work, "drop_particle.yaml")), "0.04", 0),
    ]
    logs = {}
    for case, end, status in runs:
        name = re.search(r"(?m)^name:\s*(\S+)", open(case).read()).group(1)
        one = os.path.join(work, name + "_1")
        logs[(name, 1)] = run([dempact, "run", case, "--output", one, "--end-time", end, "--quiet", "--threads",
                               "1"], status)
        for n in ranks:
            many = os.path.join(work, f"{name}_{n}")
            log = run(MPIRUN + ["-np", str(n), dempact, "run", case, "--output", many, "--end-time", end,
                                "--threads", "1"], status)
            if f"on {n} ranks" not in log:
                fail(f"{name} on {n} ranks: the log does not say so:\n{log[-2000:]}")
            logs[(name, n)] = log
            if name == "rebalancing" and "split afresh" not in log:
                fail(f"{name} on {n} ranks: no rebalance told in the log:\n{log[-2000:]}")
            if name == "heap" and not re.search(r"rank 1 +0 particles, weight 0, sub-domain", log):
                fail(f"{name} on {n} ranks: the empty domain's split is not in the log:\n{log[-2000:]}")
            count = compare(one, many, name, f"{name} on {n} ranks")
            print(f"{name} on {n} ranks: {count} snapshots and the time series bit-identical to one process"
                  + (" (stopped by the watchdog, exit 4, on every rank)" if status == 4 else ""))
            # one ball and nine beads are not split further; the hopper, the longest case,
            # runs on 2 ranks only (4 oversubscribed on 2 cores took minutes), and so do
            # the drum and the rebalancing (what 4 ranks add there, the pour, the periodic
            # box and the STL trough show)
            if name in ("blow_up", "inlet_restart", "mpi_sliding_pair", "hopper", "mpi_head_on",
                        "mpi_mirror_head_on", "drop_particle", "drum", "rebalancing"):
                break
    check_sliding(dempact, work)
    check_head_on(dempact, work, logs[("mpi_head_on", 2)])
    for n in (1, 2):
        log = logs[("mpi_mirror_head_on", n)]
        if "dropped particle 16" not in log:
            fail(f"mirror head-on on {n} rank(s): as fast as bead 17, bead 16 (the smaller id) must be "
                 f"dropped:\n{log[-2000:]}")
    print("mirror head-on: two beads as fast as each other, the smaller id dropped in one process and "
          "on 2 ranks")
    if "dropped particle" not in logs[("drop_particle", 2)]:
        fail("drop_particle on 2 ranks: the log does not tell the drop")
    print("drop_particle on 2 ranks: the bead shot out of the box dropped, the run went on")
    signalled(dempact, work)
    restarts(dempact, e2e, cases, work, ranks)
    # more ranks than the case can be split over: a clear error, nothing written
    out = os.path.join(work, "too_many")
    log = run(MPIRUN + ["-np", "4", dempact, "run", runs[-1][0], "--output", out, "--quiet"], 2)
    if "use fewer ranks" not in log or os.path.exists(out):
        fail(f"{os.path.basename(runs[-1][0])} on 4 ranks: expected 'use fewer ranks' and no output, got:\n"
             f"{log[-2000:]}")
    print(f"{os.path.basename(runs[-1][0])} on 4 ranks: refused (sub-domain narrower than the cutoff), nothing "
          "written")
    # `check` on as many ranks says one thing: refused, never "good" first
    r = subprocess.run(MPIRUN + ["-np", "3", dempact, "check", runs[-1][0]], capture_output=True, text=True,
                       timeout=300)
    if r.returncode == 0 or "use fewer ranks" not in r.stderr or "the case is good" in r.stdout:
        fail(f"check of {os.path.basename(runs[-1][0])} on 3 ranks: expected only a refusal, got exit {r.returncode}:\n"
             f"{r.stdout[-1000:]}{r.stderr[-1000:]}")
    print(f"check of {os.path.basename(runs[-1][0])} on 3 ranks: refused, and not called good")


if __name__ == "__main__":
    main()
