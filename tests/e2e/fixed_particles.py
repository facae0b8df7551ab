"""Fixed particles (particles[].fixed: true) against what they promise (docs/case-file.md).

usage: fixed_particles.py DEMPACT

1. A grain meets a fixed grain head on (linear spring-dashpot, k = 2e5, eta = 50, m = 1,
   no gravity): it leaves at e v0 with e the closed form of m x'' = -k x - eta x', that
   is with the effective mass the moving grain's own (m* = m, the fixed one infinitely
   massive), within 1e-3; the harmonic m* = m/2 would give 0.779, 0.06 away. The same
   bounce with a restitution of 0.8 asked (the linear law's damping solved for the
   pair's reference collision, which for a material all fixed is m* = m) gives 0.8.
2. Grains with friction and rolling resistance (Ai's spring, which reads the rolling
   inertia: a fixed partner's is infinite) fall onto a rough base of fixed grains under gravity, with the watchdog's
   energy check on: the fixed grains keep their positions to the bit and a zero
   velocity and spin in every snapshot, no value is NaN, and the run ends (exit 0: the
   energy books balance within the watchdog's 1%).
3. That run with 1 and 2 threads (DEMPACT_PARALLEL_MIN=0, DEMPACT_BLOCK=32): every
   snapshot's particle arrays are bit-identical.
4. A restart from the middle snapshot runs to the same end, to the bit, fixed grains
   still fixed.
5. The Python package's set_velocity refuses a velocity other than 0 for a fixed
   particle (skipped without the package).
6. Bad input is refused with exit 2 and the key named: fixed: maybe, a fixed source
   with a velocity, a fixed file source whose file gives a velocity.
No generated inputs: one fixed set of cases per run; about 10 s.
"""
import math
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

DEMPACT = os.path.abspath(sys.argv[1])
DENSITY = 6.0 / math.pi  # m = 1 for d = 1
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(folder, case, *args, env=None):
    path = os.path.join(folder, case[0] + ".yaml")
    open(path, "w").write(case[1])
    return subprocess.run([DEMPACT, "run", path, "--overwrite", "--quiet", *args],
                          capture_output=True, text=True, cwd=folder,
                          env=dict(os.environ, **(env or {})))


def snapshots(folder, out, name):
    d = os.path.join(folder, out, name + ".d")
    frames = []
    for f in sorted(os.listdir(d)):
        with h5py.File(os.path.join(d, f), "r") as h:
            frames.append({k: h[k][()] for k in ("id", "type", "position", "velocity",
                                                 "angular_velocity", "force",
                                                 "rotational_energy")}
                          | {"time": float(h.attrs["time"])})
    return frames


MATERIALS = f"""materials:
  - {{name: grain, density: {DENSITY!r}, young: 1.0e6, poisson: 0.3}}
  - {{name: base, density: {DENSITY!r}, young: 1.0e6, poisson: 0.3}}
"""


def contacts(friction):
    text = "contacts:\n"
    for pair, eta in (("[grain, grain]", 25.0), ("[grain, base]", 50.0), ("[base, base]", 25.0)):
        text += (f"  - materials: {pair}\n    law: linear\n    cohesion_removal: false\n"
                 f"    params: {{stiffness: 2.0e5, damping: {eta}}}\n")
        if friction and pair != "[base, base]":
            text += ("    friction: {model: linear, coefficient: 0.5, stiffness: 57142.857,\n"
                     "               restitution: 1.0}\n"
                     "    rolling: {model: spring, coefficient: 0.1}\n")
    return text


def bounce(folder):
    open(os.path.join(folder, "base1.csv"), "w").write("x,y,z,radius\n0,0,0.5,0.5\n")
    open(os.path.join(folder, "top1.csv"), "w").write(
        "x,y,z,radius,vx,vy,vz\n0,0,1.6,0.5,0,0,-1\n")
    case = ("bounce", f"""name: bounce
domain: {{min: [-2, -2, -1], max: [2, 2, 4]}}
gravity: [0, 0, 0]
time: {{end: 0.2, step: 1.0e-5, output_interval: 0.2}}
{MATERIALS}{contacts(False)}particles:
  - {{source: file, material: base, file: base1.csv, fixed: true}}
  - {{source: file, material: grain, file: top1.csv}}
""")
    r = run(folder, case)
    check(r.returncode == 0, f"bounce on a fixed grain runs ({r.stderr.strip()[-200:]})")
    last = snapshots(folder, "output", "bounce")[-1]
    b, k = 25.0, 2.0e5
    closed = math.exp(-math.pi * b / math.sqrt(k / 1.0 - b * b))
    e = float(last["velocity"][1][2])
    check(abs(e - closed) < 1e-3, f"restitution on a fixed grain {e:.5f}, closed form with "
                                  f"m* = m {closed:.5f}")
    check(np.all(last["position"][0] == [0.0, 0.0, 0.5]) and np.all(last["velocity"][0] == 0),
          "the fixed grain has not moved")
    # a restitution asked of the linear law: its damping is solved for m* = m on a pair
    # whose one material is all fixed, so the bounce restitutes what was asked
    asked = case[1].replace("params: {stiffness: 2.0e5, damping: 50.0}",
                            "params: {stiffness: 2.0e5, restitution: 0.8}")
    r = run(folder, ("bounce", asked))
    e = float(snapshots(folder, "output", "bounce")[-1]["velocity"][1][2])
    check(r.returncode == 0 and abs(e - 0.8) < 1e-3,
          f"restitution 0.8 asked on a fixed grain: {e:.5f} (solved for m* = m/2 it would give 0.854)")


def pile_case(folder):
    rng = np.random.default_rng(7)
    with open(os.path.join(folder, "base.csv"), "w") as f:
        f.write("x,y,z,radius\n")
        for i in range(4):
            for j in range(4):
                f.write(f"{i + 0.5},{j + 0.5},{0.25 + 0.5 * rng.random()!r},0.5\n")
    with open(os.path.join(folder, "grains.csv"), "w") as f:
        f.write("x,y,z,radius,vx,vy,vz\n")
        for k in range(5):
            for i in range(3):
                for j in range(3):
                    f.write(f"{0.6 + 1.3 * i + 0.1 * rng.random()!r},"
                            f"{0.6 + 1.3 * j + 0.1 * rng.random()!r},{1.8 + 1.2 * k},0.5,"
                            f"{rng.random() - 0.5!r},{rng.random() - 0.5!r},0\n")
    return ("pile", f"""name: pile
domain: {{min: [0, 0, 0], max: [4, 4, 20], periodic: [true, true, false]}}
gravity: [0.4, 0, -0.9]
time: {{end: 4.0, step: 1.0e-4, output_interval: 1.0}}
watchdog: {{energy_tolerance: 0.01}}
{MATERIALS}{contacts(True)}particles:
  - {{source: file, material: base, file: base.csv, fixed: true}}
  - {{source: file, material: grain, file: grains.csv}}
""")


def pile(folder):
    case = pile_case(folder)
    env = {"DEMPACT_PARALLEL_MIN": "0", "DEMPACT_BLOCK": "32", "OMP_WAIT_POLICY": "passive"}
    outs = {}
    for t in (1, 2):
        r = run(folder, case, "--threads", str(t), "--output", f"t{t}", env=env)
        check(r.returncode == 0, f"the pile on {t} thread(s) runs, energy books within 1% "
                                 f"({r.stderr.strip()[-300:]})")
        outs[t] = snapshots(folder, f"t{t}", "pile")
    f1 = outs[1]
    start = f1[0]
    fixed = start["type"] == 1
    check(fixed.sum() == 16, "16 fixed grains")
    moved = any(not np.array_equal(f["position"][fixed], start["position"][fixed]) for f in f1)
    check(not moved, "fixed grains keep their positions to the bit in every snapshot")
    still = all(np.all(f["velocity"][fixed] == 0) and np.all(f["angular_velocity"][fixed] == 0)
                for f in f1)
    check(still, "fixed grains have zero velocity and spin in every snapshot")
    finite = all(np.all(np.isfinite(f[k])) for f in f1 for k in f if k != "time")
    check(finite, "no NaN or infinity in any snapshot (rotational energy of fixed grains 0)")
    fell = np.min(f1[-1]["position"][~fixed][:, 2]) < 1.6
    check(fell, "the grains reached the base")
    same = len(outs[1]) == len(outs[2]) and all(
        np.array_equal(a[k], b[k]) for a, b in zip(outs[1], outs[2]) for k in a)
    check(same, "1 and 2 threads bit-identical")
    # restart from the middle snapshot of the 1-thread run, in a copy
    shutil.copytree(os.path.join(folder, "t1"), os.path.join(folder, "rs"))
    r = subprocess.run([DEMPACT, "run", os.path.join(folder, "pile.yaml"), "--quiet",
                        "--restart", os.path.join(folder, "rs", "pile.h5"), "--from-step",
                        "20000", "--output", os.path.join(folder, "rs")],
                       capture_output=True, text=True, cwd=folder, env=dict(os.environ, **env))
    check(r.returncode == 0, f"restart from step 20000 runs ({r.stderr.strip()[-300:]})")
    rs = snapshots(folder, "rs", "pile")
    same = np.array_equal(rs[-1]["position"], f1[-1]["position"]) and np.array_equal(
        rs[-1]["velocity"], f1[-1]["velocity"])
    check(same, "the restart ends where the run did, to the bit")
    check(np.array_equal(rs[-1]["position"][fixed], start["position"][fixed]),
          "the restart keeps the fixed grains where they were")


def python_velocity(folder):
    """The Python package's set_velocity: 0 for a fixed particle, nothing else."""
    try:
        import dempact
    except ImportError:
        print("skip the Python package's set_velocity (no dempact package)")
        return
    sim = dempact.Simulation(os.path.join(folder, "pile.yaml"))
    try:
        sim.set_velocity(0, (0.0, 0.0, 1.0))
        refused = ""
    except dempact.Error as e:
        refused = str(e)
    check("fixed" in refused, f"set_velocity on a fixed particle refused: {refused!r}")
    sim.set_velocity(0, (0.0, 0.0, 0.0))
    sim.step(10)
    check(np.all(sim.velocities[0] == 0), "set_velocity 0 on a fixed particle is taken")


def refusals(folder):
    case = pile_case(folder)
    bad = [("fixed: maybe", case[1].replace("fixed: true", "fixed: maybe"), "fixed"),
           ("a fixed source with a velocity",
            case[1].replace("fixed: true", "fixed: true, velocity: [0, 0, -1]"), "velocity"),
           ("a fixed file source that moves",
            case[1].replace("file: base.csv, fixed: true", "file: grains.csv, fixed: true")
                   .replace("file: grains.csv}", "file: base.csv}"), "file")]
    for what, text, key in bad:
        r = run(folder, ("bad", text))
        msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
        check(r.returncode == 2 and key in msg and "bad.yaml" in msg,
              f"{what}: exit {r.returncode}, {msg!r}")
        check(not os.path.exists(os.path.join(folder, "output", "bad.h5")),
              f"{what}: nothing written")


def main():
    folder = tempfile.mkdtemp(prefix="fixed_particles.")
    try:
        bounce(folder)
        pile(folder)
        python_velocity(folder)
        refusals(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True) if not os.environ.get("KEEP") else print(folder)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
