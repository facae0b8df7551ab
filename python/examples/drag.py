#!/usr/bin/env python3
"""Spheres poured into a box through a moving fluid: each step the Stokes drag
F = -3 pi mu d (v - u(x, t)) acts on every sphere, set through set_external_loads.

The fluid (viscosity mu) is a gust along x that grows with height and swings back and
forth: u = U (z - z_min) / H sin(2 pi t / T). The drag is computed from the velocities
at the start of each step and acts over the step, on top of gravity and the contacts
(a fluid solver coupling by forces does the same with its own u). Set explicitly, it
is stable for dt < 2 tau and accurate for dt << tau, tau = m / (3 pi mu d) the sphere's
drag time, which the example prints. The work the drag did is in the energy books
(sim.external_work).

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
    ap.add_argument("--mu", type=float, default=0.05, help="fluid viscosity mu [Pa s]")
    ap.add_argument("--speed", type=float, default=0.5, help="gust speed U [m/s]")
    ap.add_argument("--period", type=float, default=0.01, help="gust period T [s]")
    ap.add_argument("--output", help="write a snapshot to this folder every 500 steps")
    args = ap.parse_args()

    sim = dempact.Simulation(args.case)
    z = sim.positions[:, 2]
    z_min, height = z.min(), max(z.max() - z.min(), 1e-12)
    tau = sim.masses / (3 * math.pi * args.mu * 2 * sim.radii)
    print(f"{len(tau)} spheres, dt = {sim.dt:.3g} s, drag time m / (3 pi mu d) from "
          f"{tau.min():.3g} to {tau.max():.3g} s")
    if sim.dt >= tau.min():
        raise SystemExit(f"drag.py: the step {sim.dt:.3g} s is not below the shortest drag time "
                         f"{tau.min():.3g} s: the explicit drag would be inaccurate or unstable; "
                         "lower --mu")
    for k in range(args.steps):
        x, v = sim.positions, sim.velocities      # in id order, as every array
        c = 3 * math.pi * args.mu * 2 * sim.radii[:, None]
        u = np.zeros_like(v)
        u[:, 0] = args.speed * (x[:, 2] - z_min) / height * math.sin(2 * math.pi * sim.time / args.period)
        sim.set_external_loads(-c * (v - u))
        sim.step()
        if k % 500 == 0 or k == args.steps - 1:
            print(f"t = {sim.time:.5f} s  mean vx = {sim.velocities[:, 0].mean():+.4f} m/s  "
                  f"contacts = {len(sim.contacts()[0])}  drag work = {sim.external_work:+.4g} J")
            if args.output:
                sim.write_snapshot(args.output)


if __name__ == "__main__":
    main()
