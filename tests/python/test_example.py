"""python/examples/drag.py runs (its Stokes drag through set_external_loads is checked in
test_external_forces.py), and a drag applied by changing velocities between steps is the
exact relaxation towards the fluid's velocity: one sphere in a uniform flow without
gravity or contacts."""
import math
import subprocess
import sys

import numpy as np

import dempact


def test_drag_example_runs(here, tmp_path):
    example = here.parents[1] / "python" / "examples" / "drag.py"
    out = subprocess.run([sys.executable, str(example), "--steps", "20", "--output",
                          str(tmp_path)], check=True, capture_output=True, text=True).stdout
    assert "mean vx" in out
    assert dempact.read(tmp_path / "pour.h5")["snapshots"] == 2


def test_drag_relaxes_towards_the_flow(cases):
    # a sphere of cases/collision.yaml alone in the flow u: v(t) = u + (v0 - u) exp(-c t / m)
    sim = dempact.Simulation(cases / "collision.yaml")
    m, c, u = sim.masses[0], 500.0, np.array([0.0, 0.2, 0.0])
    v0 = sim.velocities[0].copy()
    for _ in range(200):  # before the spheres touch
        v = sim.velocities.copy()
        v[0] = u + (v[0] - u) * math.exp(-c * sim.dt / m)
        sim.set_velocities(v)
        sim.step()
    np.testing.assert_allclose(sim.velocities[0], u + (v0 - u) * math.exp(-c * sim.time / m),
                               rtol=1e-10, atol=1e-15)
