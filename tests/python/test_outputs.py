"""What Simulation writes, the dempact program reads and continues: outputs that append
(never start anew under a simulation's feet), no step written twice, a driven run's
file that says so, and the limits `dempact run` applies to its output."""
import shutil
import subprocess

import h5py
import numpy as np
import pytest

import dempact


def restart(program, case, path, end_time, folder):
    return subprocess.run([str(program), "run", str(case), "--restart", str(path), "--end-time",
                           repr(end_time), "--output", str(folder), "--quiet"],
                          capture_output=True, text=True)


def steps_of(path):
    first = dempact.read(path, index=0)
    return [dempact.read(path, index=k)["step"] for k in range(first["snapshots"])]


def test_coming_back_to_a_folder_appends(here, program, tmp_path):
    # A, a step, B, a step, A: A keeps its first snapshot and gets the third
    case = here / "tiny.yaml"
    sim = dempact.Simulation(case)
    a = sim.write_snapshot(tmp_path / "A")
    sim.step()
    b = sim.write_snapshot(tmp_path / "B")
    sim.step()
    assert sim.write_snapshot(tmp_path / "A") == a
    sim.step()
    sim.write_snapshot(tmp_path / "B" / ".." / "A")  # the same folder, spelt otherwise
    assert steps_of(a) == [0, 2, 3]
    assert steps_of(b) == [1]
    dt = sim.dt
    sim.close()
    for path in (a, b):
        done = restart(program, case, path, 10 * dt, tmp_path / "more")
        assert done.returncode == 0, done.stderr


def test_no_step_is_written_twice(here, program, tmp_path):
    case = here / "tiny.yaml"
    sim = dempact.Simulation(case)
    path = sim.run(until=100 * sim.dt, output=tmp_path)
    steps = steps_of(path)
    assert steps == [0, 50, 100]
    # the same state again: the output already holds it
    assert sim.write_snapshot(tmp_path) == path
    assert steps_of(path) == steps
    # a changed state at the same step cannot be stored: refused, and nothing written
    sim.set_velocity(0, (0.1, 0.0, 0.0))
    with pytest.raises(dempact.Error, match="holds a snapshot of step 100 already"):
        sim.write_snapshot(tmp_path)
    sim.step()
    sim.write_snapshot(tmp_path)
    # run() starts where the output stands: no second snapshot of step 101
    sim.run(until=150 * sim.dt, output=tmp_path)
    assert steps_of(path) == [0, 50, 100, 101, 150]
    dt = sim.dt
    sim.close()
    done = restart(program, case, path, 200 * dt, tmp_path / "more")
    assert done.returncode == 0, done.stderr


def test_a_driven_run_restarts_without_the_energy_check(cases, program, tmp_path):
    # a velocity set in the middle of a contact adds energy the restart's watchdog would
    # take for a closed system gaining it (exit 4); the file says the run was driven
    case = cases / "collision.yaml"
    sim = dempact.Simulation(case)
    sim.step(4200)  # touching
    assert not sim.driven
    sim.write_snapshot(tmp_path / "before")
    sim.set_velocity(0, (2.0, 0.0, 0.0))
    assert sim.driven
    sim.write_snapshot(tmp_path / "out")
    sim.step(100)
    path = sim.write_snapshot(tmp_path / "out")
    end = (sim.step_count + 2000) * sim.dt
    sim.close()
    with h5py.File(path, "r") as f:
        assert f.attrs["driven"] == 1
    with h5py.File(tmp_path / "before" / "collision.h5", "r") as f:
        # marked from the moment it was driven, on every output it has
        assert f.attrs["driven"] == 1
    done = restart(program, case, path, end, tmp_path / "more")
    assert done.returncode == 0, done.stderr
    with h5py.File(tmp_path / "more" / "collision.h5", "r") as f:
        assert f.attrs["driven"] == 1  # the continuation is the same driven run
    # without the mark the same file is refused by the energy check: the mark matters
    shutil.copytree(tmp_path / "out", tmp_path / "unmarked")
    with h5py.File(tmp_path / "unmarked" / "collision.h5", "r+") as f:
        del f.attrs["driven"]
    done = restart(program, case, tmp_path / "unmarked" / "collision.h5", end, tmp_path / "again")
    assert done.returncode == 4 and "gaining energy" in done.stderr, done.stderr


def test_an_undriven_output_has_no_mark(here, tmp_path):
    sim = dempact.Simulation(here / "tiny.yaml")
    path = sim.run(until=60 * sim.dt, output=tmp_path)
    with h5py.File(path, "r") as f:
        assert "driven" not in f.attrs


def test_run_refuses_what_dempact_run_refuses(cases, program, tmp_path):
    # bounce: a snapshot every 5 ms; to 1e4 s that is 2e6 snapshots, past the limit
    case = cases / "bounce.yaml"
    sim = dempact.Simulation(case)
    with pytest.raises(dempact.Error) as caught:
        sim.run(until=1e4, output=tmp_path / "py")
    done = subprocess.run([str(program), "run", str(case), "--end-time", "1e4", "--output",
                           str(tmp_path / "program")], capture_output=True, text=True)
    assert done.returncode == 2
    key = done.stderr.strip().removeprefix("dempact run: ").split(" (with")[0]
    assert "2e+06 snapshots" in key
    assert str(caught.value).removeprefix("run: ").split(" (with")[0] == key
    assert not (tmp_path / "py").exists() and not (tmp_path / "program").exists()
    assert sim.step_count == 0
    # past 2^53 steps, with output or without
    for output in (None, tmp_path / "py"):
        with pytest.raises(dempact.Error, match=r"more than the 9007199254740992 \(2\^53\)"):
            sim.run(until=1e10, output=output)
    with pytest.raises(dempact.Error, match=r"past step 9007199254740992 \(2\^53\)"):
        sim.step(2 ** 53 + 1)
    with pytest.raises(dempact.Error, match="before the simulation's step"):
        sim.step(10)
        sim.run(until=sim.dt)
    assert sim.step_count == 10


def test_run_ends_where_dempact_run_ends(here, program, tmp_path):
    # an end between two steps: both stop at the first step whose time reaches it
    case = here / "tiny.yaml"
    end = 0.0001234
    subprocess.run([str(program), "run", str(case), "--end-time", repr(end), "--output",
                    str(tmp_path / "program"), "--quiet"], check=True)
    theirs = dempact.read(tmp_path / "program" / "tiny.h5")
    sim = dempact.Simulation(case)
    ours = dempact.read(sim.run(until=end, output=tmp_path / "py"))
    assert ours["step"] == theirs["step"] == sim.step_count == 124
    np.testing.assert_array_equal(ours["position"], theirs["position"])
    assert steps_of(tmp_path / "py" / "tiny.h5") == steps_of(tmp_path / "program" / "tiny.h5")


def test_arguments_of_the_wrong_kind(here, tmp_path):
    sim = dempact.Simulation(here / "tiny.yaml")
    for bad in (0.7, True, np.float64(0.0), "0", None):
        with pytest.raises(dempact.Error, match="set_velocity: id: an integer") as caught:
            sim.set_velocity(bad, (0, 0, 0))
        assert isinstance(caught.value, TypeError)
    sim.set_velocity(np.int32(0), (0, 0, 0.5))  # numpy integers are integers
    for bad in (None, 3, b"out"):
        with pytest.raises(TypeError, match="write_snapshot: folder: a path"):
            sim.write_snapshot(bad)
    with pytest.raises(dempact.Error, match="an empty path"):
        sim.write_snapshot("")
    (tmp_path / "file").write_text("x")
    with pytest.raises(dempact.Error, match="file"):
        sim.write_snapshot(tmp_path / "file")
    for bad in (1.5, True, None, "3"):
        with pytest.raises(TypeError, match="step: n: an integer"):
            sim.step(bad)
    for bad in (float("nan"), float("inf"), 10 ** 400):
        with pytest.raises(dempact.Error, match="not a finite number"):
            sim.run(until=bad)
    with pytest.raises(dempact.Error, match="must be finite and at most 10000 m/s"):
        sim.set_velocity(0, (0, 0, 2e4))
    with pytest.raises(dempact.Error, match="more than 0.5 of its radius"):
        sim.set_velocity(0, (0, 0, 3000.0))
    np.testing.assert_array_equal(sim.velocities[0], [0, 0, 0.5])  # unchanged
    assert sim.step_count == 0 and not (tmp_path / "None").exists()
