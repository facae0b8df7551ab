#!/usr/bin/env python3
"""A servo wall on ranks: tests/data/e2e/small_servo.yaml (a servo lid with a schedule of
targets pressing 300 falling spheres; parallel.reproducible on, as a split run has it)
run in one process and on 2 ranks must give the same bits in every dataset of every
snapshot and in the whole time series: every rank moves the lid by the same load, summed
over the ranks. Then the 2-rank run stopped at 0.02 s and restarted on 2 ranks ends as
the one that never stopped.

Usage: servo_ranks.py DEMPACT E2E_DATA"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2"]
dempact, data = sys.argv[1], sys.argv[2]


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[()]) if isinstance(o, h5py.Dataset) else None)
    return out


def same_output(a, b, what):
    ok = True
    for d in (a, b):
        assert os.path.exists(os.path.join(d, "small_servo.h5")), d
    ta, tb = datasets(os.path.join(a, "small_servo.h5")), datasets(os.path.join(b, "small_servo.h5"))
    snaps = sorted(os.listdir(os.path.join(a, "small_servo.d")))
    pairs = [(ta, tb)] + [(datasets(os.path.join(a, "small_servo.d", s)),
                           datasets(os.path.join(b, "small_servo.d", s))) for s in snaps]
    for x, y in pairs:
        if x.keys() != y.keys():
            ok = False
        for k in x:
            if k in y and not np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f"):
                print(f"FAIL {what}: {k} differs")
                ok = False
    print(("ok   " if ok else "FAIL ") + f"{what}: {len(snaps)} snapshots and the time series")
    return ok


with tempfile.TemporaryDirectory() as work:
    case = os.path.join(work, "small_servo.yaml")
    text = open(os.path.join(data, "small_servo.yaml")).read()
    with open(case, "w") as f:
        f.write("parallel: {reproducible: true}\n" + re.sub(r"(?m)^parallel:.*\n", "", text))
    run = [dempact, "run", case, "--quiet", "--threads", "1", "--output"]
    subprocess.run(run + [os.path.join(work, "one")], check=True)
    subprocess.run(MPIRUN + run + [os.path.join(work, "two")], check=True)
    ok = same_output(os.path.join(work, "one"), os.path.join(work, "two"), "1 process, 2 ranks")
    subprocess.run(MPIRUN + run + [os.path.join(work, "half"), "--end-time", "0.02"], check=True)
    subprocess.run(MPIRUN + run + [os.path.join(work, "rest"), "--restart",
                                   os.path.join(work, "half", "small_servo.h5")], check=True)
    ok = same_output(os.path.join(work, "one"), os.path.join(work, "rest"),
                     "restarted at 0.02 s on 2 ranks") and ok
sys.exit(0 if ok else 1)
