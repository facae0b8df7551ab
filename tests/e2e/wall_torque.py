#!/usr/bin/env python3
"""The torque a bed at rest exerts on its floor, against statics.

usage: wall_torque.py DEMPACT CASE

Runs CASE (a single plane floor, particles that come to rest on it) and checks the last
time-series sample of /timeseries/wall_torque against the moment balance of the resting
bed: internal contact forces cancel in pairs, so the floor carries the moment of the
weights, T = sum_k (x_k - p) x (-m_k g) about the floor's point p (x_k the centres in
the last snapshot). Also checks the floor's force against the total weight. Exits 1 on a
mismatch beyond 1e-3 of the scale |M g| times the bed's extent.
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

dempact, case = sys.argv[1], sys.argv[2]
G = np.array([0.0, 0.0, -9.81])
P = np.array([0.02, -0.01, 0.0])  # the floor's point in the case
with tempfile.TemporaryDirectory() as work:
    subprocess.run([dempact, "run", case, "--output", work, "--quiet", "--threads", "1"],
                   check=True)
    with h5py.File(os.path.join(work, "wall_torque.h5"), "r") as f:
        ts = f["timeseries"]
        ke = ts["kinetic_energy"][-1] + ts["rotational_energy"][-1]
        force, torque = ts["wall_force"][-1, 0], ts["wall_torque"][-1, 0]
        last = f["snapshots"][sorted(f["snapshots"])[-1]]
        x, m = last["position"][()], last["mass"][()]
weight = m[:, None] * G                      # (N, 3)
expect_force = weight.sum(axis=0)            # what the particles press on the floor with
expect_torque = np.cross(x - P, weight).sum(axis=0)
scale = np.linalg.norm(expect_force) * np.ptp(x - P, axis=0).max()
print(f"kinetic energy at the end {ke:.3e} J")
print(f"floor force  {force}  statics {expect_force}")
print(f"floor torque {torque}  statics {expect_torque}  (scale {scale:.3e} N m)")
err_f = np.abs(force - expect_force).max() / np.linalg.norm(expect_force)
err_t = np.abs(torque - expect_torque).max() / scale
print(f"relative error: force {err_f:.2e}, torque {err_t:.2e}")
sys.exit(0 if err_f < 1e-3 and err_t < 1e-3 else 1)
