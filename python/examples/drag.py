#!/usr/bin/env python3
"""Spheres poured into a box through a moving fluid: each step the drag
F = -c (v - u(x, t)) acts on every sphere, applied by changing velocities between steps.

Over one step the drag alone relaxes v towards the fluid's u exactly as
v <- u + (v - u) exp(-c dt / m) (stable for any c); the engine then adds gravity and the
contacts. The fluid here is a gust along x that grows with height and swings back and
forth: u = U (z - z_min) / H sin(2 pi t / T).

    .venv/bin/python python/examples/drag.py [--case cases/pour.yaml] [--steps 2000]
"""
import argparse
import math
import pathlib

import numpy as np

import dempact

HERE = pathlib.Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", default=str(HERE.parents[1] / "cases" / "pour.yaml"))
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--c", type=float, default=2e-3, help="drag coefficient c [kg/s]")
    ap.add_argument("--speed", type=float, default=0.5, help="gust speed U [m/s]")
    ap.add_argument("--period", type=float, default=0.01, help="gust period T [s]")
    ap.add_argument("--output", help="write a snapshot to this folder every 500 steps")
    args = ap.parse_args()

    sim = dempact.Simulation(args.case)
    m = sim.masses[:, None]
    z = sim.positions[:, 2]
    z_min, height = z.min(), max(z.max() - z.min(), 1e-12)
    print(f"{len(m)} spheres, dt = {sim.dt:.3g} s, drag time m/c from "
          f"{m.min() / args.c:.3g} to {m.max() / args.c:.3g} s")
    for k in range(args.steps):
        x, v = sim.positions, sim.velocities
        u = np.zeros_like(v)
        u[:, 0] = args.speed * (x[:, 2] - z_min) / height * math.sin(2 * math.pi * sim.time / args.period)
        sim.set_velocities(u + (v - u) * np.exp(-args.c * sim.dt / m))
        sim.step()
        if k % 500 == 0 or k == args.steps - 1:
            print(f"t = {sim.time:.5f} s  mean vx = {sim.velocities[:, 0].mean():+.4f} m/s  "
                  f"contacts = {len(sim.contacts()[0])}")
            if args.output:
                sim.write_snapshot(args.output)


if __name__ == "__main__":
    main()
