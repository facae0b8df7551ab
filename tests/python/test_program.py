"""dempact.Simulation against what the dempact program writes for the same case, and
write_snapshot / read against the simulation's own arrays."""
import subprocess

import numpy as np

import dempact


def by_id(snap, name):
    order = np.argsort(snap["id"])
    return snap[name][order]


def run_program(program, case, folder, end_time):
    subprocess.run([str(program), "run", str(case), "--output", str(folder), "--end-time",
                    repr(end_time), "--quiet"], check=True)


def test_positions_equal_the_programs(program, cases, tmp_path):
    # pour: 3000 spheres falling into a box, 150 steps (the program writes the first
    # and the last snapshot of a run this short)
    sim = dempact.Simulation(cases / "pour.yaml")
    steps = 150
    run_program(program, cases / "pour.yaml", tmp_path, steps * sim.dt)
    snap = dempact.read(tmp_path / "pour.h5")
    assert snap["step"] == steps
    sim.step(steps)
    np.testing.assert_array_equal(sim.ids, np.sort(snap["id"]))
    np.testing.assert_array_equal(sim.positions, by_id(snap, "position"))
    np.testing.assert_array_equal(sim.velocities, by_id(snap, "velocity"))


def test_collision_snapshots_equal_the_programs(program, cases, tmp_path):
    # the head-on collision, snapshot by snapshot through the contact
    run_program(program, cases / "collision.yaml", tmp_path, 6e-4)
    sim = dempact.Simulation(cases / "collision.yaml")
    first = dempact.read(tmp_path / "collision.h5", index=0)
    for k in range(first["snapshots"]):
        snap = dempact.read(tmp_path / "collision.h5", index=k)
        sim.step(snap["step"] - sim.step_count)
        assert sim.time == snap["time"]
        np.testing.assert_array_equal(sim.positions, by_id(snap, "position"))
        np.testing.assert_array_equal(sim.angular_velocities, by_id(snap, "angular_velocity"))


def test_write_snapshot_reads_back(cases, tmp_path):
    sim = dempact.Simulation(cases / "collision.yaml")
    sim.step(4200)  # touching
    path = sim.write_snapshot(tmp_path / "out")
    sim.step(100)
    sim.write_snapshot(tmp_path / "out")
    snap = dempact.read(path)
    assert snap["snapshots"] == 2 and snap["step"] == 4300
    np.testing.assert_array_equal(sim.positions, by_id(snap, "position"))
    np.testing.assert_array_equal(sim.forces, by_id(snap, "force"))
    i, j, f = sim.contacts()
    assert len(i) == 1
    c = snap["contacts"]
    np.testing.assert_array_equal(c["id"], np.column_stack([i, j]))
    # the file's network splits the force on i into normal and tangential parts
    np.testing.assert_allclose(c["normal_force_vector"] + c["tangential_force"], f, rtol=1e-14)
    earlier = dempact.read(path, index=0)
    assert earlier["step"] == 4200
