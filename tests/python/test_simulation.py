"""dempact.Simulation against closed forms and conservation laws."""
import numpy as np
import pytest

import dempact


def test_free_fall_follows_the_parabola(here):
    # velocity Verlet integrates a constant force exactly: x = x0 + v0 t + g t^2 / 2
    sim = dempact.Simulation(here / "free_fall.yaml")
    x0, v0 = sim.positions[0].copy(), sim.velocities[0].copy()
    g = np.array([0.0, 0.0, -9.81])
    assert sim.step_count == 0 and sim.time == 0.0
    sim.step(500)
    sim.step()
    sim.run(until=1000 * sim.dt)
    t = sim.time
    assert sim.step_count == 1000
    assert t == pytest.approx(1000 * sim.dt, rel=1e-12)
    np.testing.assert_allclose(sim.positions[0], x0 + v0 * t + 0.5 * g * t * t, rtol=0, atol=1e-13)
    np.testing.assert_allclose(sim.velocities[0], v0 + g * t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sim.forces[0], sim.masses[0] * g, rtol=1e-12)
    # mass of a glass sphere of radius 5 mm
    assert sim.masses[0] == pytest.approx(2500 * 4 / 3 * np.pi * 0.005 ** 3, rel=1e-12)


def test_arrays_are_read_only_copies(here):
    sim = dempact.Simulation(here / "free_fall.yaml")
    pos = sim.positions
    with pytest.raises(ValueError):
        pos[0, 0] = 1.0
    sim.step(10)
    assert not np.array_equal(pos, sim.positions)


def test_set_velocity_between_steps(here):
    sim = dempact.Simulation(here / "free_fall.yaml")
    sim.set_velocity(0, (1.0, 0.0, 0.0))
    x0 = sim.positions[0].copy()
    sim.step(100)
    t = sim.time
    np.testing.assert_allclose(sim.positions[0], x0 + np.array([1.0, 0, 0]) * t +
                               0.5 * np.array([0, 0, -9.81]) * t * t, atol=1e-13)
    sim.set_velocities(np.zeros((1, 3)))
    np.testing.assert_array_equal(sim.velocities, np.zeros((1, 3)))


def test_two_sphere_collision_conserves_momentum(cases):
    # cases/collision.yaml: 1 m/s head on, elastic Hertz, no gravity
    sim = dempact.Simulation(cases / "collision.yaml")
    m = sim.masses
    p0 = (m[:, None] * sim.velocities).sum(axis=0)
    seen = 0
    while sim.time < 0.0006:
        sim.step(20)
        i, j, f = sim.contacts()
        if len(i):
            seen += 1
            assert (i[0], j[0]) in ((0, 1), (1, 0))
            # the pair's force is all the force on its particles (third law)
            k = {0: 0, 1: 1}
            np.testing.assert_allclose(sim.forces[k[i[0]]], f[0], rtol=1e-12)
            np.testing.assert_allclose(sim.forces[k[j[0]]], -f[0], rtol=1e-12)
        p = (m[:, None] * sim.velocities).sum(axis=0)
        np.testing.assert_allclose(p, p0, rtol=0, atol=1e-15 * np.abs(m[:, None] * sim.velocities).sum())
    assert seen > 5, "the spheres never touched"
    # elastic: they leave at the speed they came in with, reversed
    np.testing.assert_allclose(sim.velocities[:, 0], [-0.5, 0.5], rtol=1e-3)


def test_moving_wall_meets_the_sphere_on_time(here):
    # the floor (z = 0) starts moving up at v after 100 steps at rest; the sphere
    # (radius r, centre at h, no gravity) is first pushed when v (t - t0) > h - r
    sim = dempact.Simulation(here / "wall_approach.yaml")
    assert sim.wall_names == ["floor"]
    sim.step(100)
    t0, v = sim.time, 0.05
    sim.set_wall_velocity(0, (0.0, 0.0, v))
    h, r = sim.positions[0, 2], sim.radii[0]
    touch = t0 + (h - r) / v
    while sim.forces[0, 2] == 0.0:
        assert sim.time < touch + 2 * sim.dt, "the wall did not arrive"
        sim.step()
    assert abs(sim.time - touch) <= sim.dt
    assert sim.forces[0, 2] > 0.0
    sim.step(2000)
    assert sim.velocities[0, 2] > v  # pushed ahead of the wall, then struck away


def test_run_with_output_writes_the_cases_grid(here, tmp_path):
    # run(output=...) writes as `dempact run` does: a snapshot at t = 0 and one every
    # time.output_interval (0.01 s) to time.end (0.1 s), each at its own time on the
    # parabola; a second run() goes on in the same file
    sim = dempact.Simulation(here / "free_fall.yaml")
    x0, v0 = sim.positions[0].copy(), sim.velocities[0].copy()
    g = np.array([0.0, 0.0, -9.81])
    path = sim.run(until=0.05, output=tmp_path)
    assert sim.run(output=tmp_path) == path
    first = dempact.read(path, index=0)
    assert first["snapshots"] == 11
    for k in range(11):
        snap = dempact.read(path, index=k)
        t = snap["time"]
        assert abs(t - 0.01 * k) <= 0.5 * sim.dt
        # exact but for rounding, which grows over the 237,600 steps
        np.testing.assert_allclose(snap["position"][0], x0 + v0 * t + 0.5 * g * t * t,
                                   rtol=0, atol=1e-11)
    assert snap["step"] == sim.step_count
