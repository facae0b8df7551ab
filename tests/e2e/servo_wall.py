#!/usr/bin/env python3
"""Servo walls (walls[].servo) against closed forms, their speed limit, restarts, and
refusals.

usage: servo_wall.py DEMPACT DATA_DIR

1. servo_sphere.yaml: a plane holding 1 N on a sphere on the floor. At rest the plane
   carries the target and the floor the same; each contact's overlap is Hertz's,
   d = (3 F / (4 E* sqrt(R)))^(2/3), so the plane stands 1 mm + 2 d below its start.
   The plane's work equals the elastic energy plus what the dashpots dissipated. While it
   comes down to the sphere it moves at its speed limit: 0.02 m/s x t. A rectangle given
   a stress of 1 N over its own area (4 x its half sizes) does the same.
2. The speed limit: between time-series samples a servo wall moves at most
   max_speed x the time between them (servo_sphere and small_servo, whose limit drops
   from 1 to 0.2 m/s at 0.03 s).
3. small_servo.yaml on 2 threads (every loop parallel) gives the bits of 1 thread, every
   snapshot and the time series; stopped at 0.02 s and restarted to 0.04 s it ends bit
   for bit as the run that never stopped (every dataset of the last snapshot, and the
   time series).
4. Hostile servo keys: exit 2, a message naming the key, nothing written.
Exits 1 on the first failure.
"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

dempact, data = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(case, out, *extra):
    subprocess.run([dempact, "run", case, "--output", out, "--quiet", "--threads", "1", *extra],
                   check=True)


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()]) if isinstance(o, h5py.Dataset) else None)
    return out


def same_run(a, b):
    """Every dataset of the two outputs' index files and snapshot files has the same bits."""
    snaps = sorted(os.listdir(a[:-3] + ".d"))
    files = [(a, b)] + [(os.path.join(a[:-3] + ".d", s), os.path.join(b[:-3] + ".d", s)) for s in snaps]
    for x, y in files:
        dx, dy = datasets(x), datasets(y)
        if dx.keys() != dy.keys() or not all(
                np.array_equal(dx[k], dy[k], equal_nan=dx[k].dtype.kind == "f") for k in dx):
            return False
    return len(snaps) >= 3


def series(path):
    with h5py.File(path, "r") as f:
        return {k: f["timeseries"][k][()] for k in f["timeseries"]}


with tempfile.TemporaryDirectory() as work:
    # 1. the closed form
    run(os.path.join(data, "servo_sphere.yaml"), os.path.join(work, "sphere"))
    ts = series(os.path.join(work, "sphere", "servo_sphere.h5"))
    target, R, gap = 1.0, 0.005, 0.001
    e_star = 1.0 / ((1 - 0.25**2) / 1.0e7 + (1 - 0.3**2) / 2.0e11)
    d = (3 * target / (4 * e_star * np.sqrt(R))) ** (2 / 3)
    press = ts["wall_force"][-1, 1, 2]   # the sphere pushes the plane up (along -normal)
    floor = -ts["wall_force"][-1, 0, 2]
    travel = -ts["wall_displacement"][-1, 1, 2]
    print(f"target {target} N: plane carries {press:.12g} N, floor {floor:.12g} N")
    print(f"Hertz overlap {d:.12g} m: plane travel {travel:.12g} m, closed form {gap + 2 * d:.12g} m")
    check(abs(press - target) < 1e-9 and abs(floor - target) < 1e-9, "load settles to the target")
    check(abs(travel - (gap + 2 * d)) < 1e-6 * d, "travel = gap + 2 Hertz overlaps (1e-6 of d)")
    # the energy books: the plane's work = elastic energy + what the dashpots took
    with h5py.File(os.path.join(work, "sphere", "servo_sphere.h5"), "r") as f:
        last = f["snapshots"][sorted(f["snapshots"])[-1]]
        work_done = float(last["engine/wall_work"][1])
    stored = ts["elastic_energy"][-1] + ts["dissipated_damping"][-1]
    print(f"plane's work {work_done:.9g} J, elastic + dissipated {stored:.9g} J, "
          f"residual {ts['energy_residual'][-1]:.3g} J")
    check(work_done > 0 and abs(ts["energy_residual"][-1]) < 1e-4 * work_done
          and abs(work_done - stored) < 1e-4 * work_done, "the energy books close (1e-4)")
    t = ts["time"]
    k = int(np.searchsorted(t, 0.04))  # before it touches (at 0.05 s)
    free = -ts["wall_displacement"][k, 1, 2]
    check(abs(free - 0.02 * t[k]) < 1e-12, f"comes down at the limit: {free:.15g} m at {t[k]:g} s")

    # a rectangle's stress acts on its own area (4 x half sizes): 1250 Pa on 8e-4 m^2 = 1 N
    base = open(os.path.join(data, "servo_sphere.yaml")).read()
    servo = "servo: {force: 1.0, gain: 0.02, max_speed: 0.02}"
    plane = "    type: plane\n"
    assert servo in base and plane in base
    rect = base.replace(servo, "servo: {stress: 1250, gain: 0.02, max_speed: 0.02}").replace(
        plane, "    type: rectangle\n    axis: [1, 0, 0]\n    half_size: [0.01, 0.02]\n")
    with open(os.path.join(work, "servo_sphere.csv"), "w") as dst, \
            open(os.path.join(data, "servo_sphere.csv")) as src:
        dst.write(src.read())
    with open(os.path.join(work, "rectangle.yaml"), "w") as f:
        f.write(rect)
    run(os.path.join(work, "rectangle.yaml"), os.path.join(work, "rect"))
    rts = series(os.path.join(work, "rect", "servo_sphere.h5"))
    print(f"rectangle: 1250 Pa x 8e-4 m^2, carries {rts['wall_force'][-1, 1, 2]:.12g} N")
    check(abs(rts["wall_force"][-1, 1, 2] - 1.0) < 1e-9 and np.array_equal(
        rts["wall_displacement"][-1], ts["wall_displacement"][-1]),
        "a rectangle's stress over its own area: the plane's load and travel")

    # 2. the speed limit
    def limited(ts, wall, limit_at, what):
        t = ts["time"]
        x = ts["wall_displacement"][:, wall, :]
        step = np.linalg.norm(np.diff(x, axis=0), axis=1)
        bound = np.array([limit_at(a, b) * (b - a) for a, b in zip(t[:-1], t[1:])])
        worst = float(np.max(step / bound))
        check(worst <= 1 + 1e-9, f"{what}: travel per sample / (max_speed x interval) <= 1 "
                                 f"(largest {worst:.12g})")

    limited(ts, 1, lambda a, b: 0.02, "servo_sphere")
    small = os.path.join(data, "small_servo.yaml")
    run(small, os.path.join(work, "full"))
    full_h5 = os.path.join(work, "full", "small_servo.h5")
    ts_full = series(full_h5)
    limited(ts_full, 5, lambda a, b: 1.0 if a < 0.03 - 1e-12 else 0.2, "small_servo")

    # 3. two threads (every loop parallel, small blocks) and the restart
    env = dict(os.environ, OMP_WAIT_POLICY="passive", DEMPACT_PARALLEL_MIN="0",
               DEMPACT_BLOCK="32")
    for n in (1, 2):  # the same tuning (block sizes set the order of the sums)
        subprocess.run([dempact, "run", small, "--output", os.path.join(work, f"threads{n}"),
                        "--quiet", "--threads", str(n)], check=True, env=env)
    check(same_run(os.path.join(work, "threads1", "small_servo.h5"),
                   os.path.join(work, "threads2", "small_servo.h5")),
          "2 threads: every snapshot and the time series bit-identical to 1 thread")
    run(small, os.path.join(work, "half"), "--end-time", "0.02")
    run(small, os.path.join(work, "rest"), "--restart", os.path.join(work, "half", "small_servo.h5"))
    rest_h5 = os.path.join(work, "rest", "small_servo.h5")
    with h5py.File(full_h5, "r") as a, h5py.File(rest_h5, "r") as b:
        la, lb = sorted(a["snapshots"]), sorted(b["snapshots"])
        check(la == lb, f"the same snapshots ({len(la)})")
        sa, sb = a["snapshots"][la[-1]], b["snapshots"][lb[-1]]
        names = []
        sa.visit(lambda n: names.append(n) if isinstance(sa[n], h5py.Dataset) else None)
        same = all(np.array_equal(sa[n][()], sb[n][()]) for n in names)
        check(same and "engine/wall_servo" in names,
              f"restart: last snapshot bit-identical ({len(names)} datasets)")
        moved = sa["engine/wall_servo"][5, 0]
        check(moved > 0.01, f"the lid moved {moved:.6g} m along its normal by the end")
    ts_rest = series(rest_h5)
    check(all(np.array_equal(ts_full[k], ts_rest[k], equal_nan=True) for k in ts_full),
          "restart: time series bit-identical")

    # 4. hostile values
    hostile = [
        ("servo: {force: 1.0, gain: 0.02, max_speed: -0.05}", "walls[1].servo.max_speed"),
        ("servo: {force: 1.0, gain: 0, max_speed: 0.02}", "walls[1].servo.gain"),
        ("servo: {force: -1.0, gain: 0.02, max_speed: 0.02}", "walls[1].servo.force"),
        ("servo: {force: .nan, gain: 0.02, max_speed: 0.02}", "walls[1].servo.force"),
        ("servo: {stress: 100, gain: 0.02, max_speed: 0.02}", "walls[1].servo.stress"),
        ("servo: {gain: 0.02, max_speed: 0.02}", "walls[1].servo"),
        ("servo: {force: 1, gain: 0.02, max_speed: 0.02, targets: [{time: 0, force: 1}]}",
         "walls[1].servo.targets"),
        ("servo: {gain: 0.02, max_speed: 0.02, targets: [{time: 0.2, force: 1}, "
         "{time: 0.1, force: 2}]}", "walls[1].servo.targets[1].time"),
        ("servo: {gain: 0.02, max_speed: 0.02, targets: [{time: 0, force: 1, stress: 3}]}",
         "walls[1].servo.targets[0]"),
        ("servo: {gain: 0.02, max_speed: 0.02, targets: [{time: 0, force: 1, max_speed: 0}]}",
         "walls[1].servo.targets[0].max_speed"),
        ("servo: {force: 1.0, gain: 0.02, max_speed: 1.0e6}", "walls[1]"),
        ("servo: {force: 1.0, gain: 0.02, max_speed: 0.02}\n    velocity: [0, 0, -1]",
         "walls[1].velocity"),
        ("servo: {force: 1.0, gain: 0.02, max_speed: 0.02}\n    motion: [{duration: 1, "
         "velocity: [0, 0, -1]}]", "walls[1].motion"),
        ("servo: {force: 1.0, gain: 0.02, max_speed: 0.02, speed: 3}", "speed"),
    ]
    cyl = base.replace("- {name: floor, type: plane, material: steel, point: [0, 0, 0], "
                       "normal: [0, 0, 1]}",
                       "- {name: floor, type: cylinder, material: steel, point: [0, 0, 0], "
                       "axis: [0, 0, 1], radius: 0.01, length: 0.02, servo: {force: 1, gain: 1, "
                       "max_speed: 1}}")
    cases = [(base.replace(servo, h), key) for h, key in hostile] + [(cyl, "walls[0].servo")]
    for n, (text, key) in enumerate(cases):
        path = os.path.join(work, f"hostile{n}.yaml")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(work, f"hostile_out{n}")
        p = subprocess.run([dempact, "run", path, "--output", out, "--quiet"],
                           capture_output=True, text=True)
        msg = p.stderr.strip().splitlines()[0] if p.stderr.strip() else ""
        check(p.returncode == 2 and key in msg and not os.path.exists(out),
              f"refused ({p.returncode}) naming {key}: {msg}")

sys.exit(1 if failures else 0)
