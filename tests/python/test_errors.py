"""Bad input and a run that goes wrong raise dempact.Error with the engine's message,
and the interpreter lives on."""
import pathlib

import numpy as np
import pytest

import dempact


def test_missing_case_names_the_file(tmp_path):
    with pytest.raises(dempact.Error, match="nothing_here.yaml: cannot open"):
        dempact.Simulation(tmp_path / "nothing_here.yaml")


def test_bad_yaml_names_line_and_key(here, tmp_path):
    text = (here / "free_fall.yaml").read_text().replace("poisson: 0.25", "poisson: 0.7")
    case = tmp_path / "bad.yaml"
    case.write_text(text)
    (tmp_path / "free_fall_sphere.csv").write_text((here / "free_fall_sphere.csv").read_text())
    with pytest.raises(dempact.Error, match=r"bad.yaml:\d+: materials\[0\]\.poisson"):
        dempact.Simulation(case)
    case.write_text(text.replace("gravity:", "gravty:"))
    with pytest.raises(dempact.Error, match="gravty"):
        dempact.Simulation(case)


def test_unknown_law_parameter_is_named():
    with pytest.raises(dempact.Error, match="stifness"):
        dempact.collide(law="hertz_tti", params={"stifness": 1.0})
    with pytest.raises(dempact.Error, match="unknown law 'herz'"):
        dempact.collide(law="herz")
    with pytest.raises(dempact.Error, match="restitution"):
        dempact.collide(law="hertz_tti", restitution=1.5)


def test_a_run_the_watchdog_stops_raises_and_stays_stopped(here):
    sim = dempact.Simulation(here / "free_fall.yaml")
    sim.set_velocity(0, (0.0, 0.0, 1000.0))  # out through the top of the domain
    with pytest.raises(dempact.Error, match=r"watchdog: step \d+ .*particle 0"):
        sim.step(5000)
    stopped = sim.step_count
    with pytest.raises(dempact.Error, match="the run was stopped"):
        sim.step()
    assert sim.step_count == stopped


def test_bad_arguments(here):
    sim = dempact.Simulation(here / "free_fall.yaml")
    with pytest.raises(dempact.Error, match="no particle has id 7"):
        sim.set_velocity(7, (0, 0, 0))
    with pytest.raises(dempact.Error, match="wall index 3"):
        sim.set_wall_velocity(3, (0, 0, 0))
    with pytest.raises(dempact.Error, match="at most"):
        sim.set_wall_velocity(0, (0, 0, 1e5))
    # a wall may move at most half the smallest radius per step, as in a case file: just
    # past that it is refused by name, and its motion stays as it was (at rest)
    fast = 0.55 * sim.radii.min() / sim.dt
    assert fast < 1e4
    with pytest.raises(dempact.Error, match=r"walls\[0\]: its motion reaches .* more than 0.5 "
                       "of the smallest radius"):
        sim.set_wall_velocity(0, (0, 0, fast))
    untouched = dempact.Simulation(here / "free_fall.yaml")
    sim.step(2000)  # the refused wall would have crossed 1100 radii by now
    untouched.step(2000)
    np.testing.assert_array_equal(sim.positions, untouched.positions)
    np.testing.assert_array_equal(sim.velocities, untouched.velocities)
    sim.set_wall_velocity(0, (0, 0, 0.45 * sim.radii.min() / sim.dt))  # within: accepted
    sim.close()
    with pytest.raises(dempact.Error, match="closed"):
        sim.step()


def test_a_servo_wall_takes_no_velocity(tmp_path):
    """A servo wall moves itself to hold its load (docs/case-file.md#servo-walls-wallsservo):
    set_wall_velocity refuses it by name, and the run goes on as if never asked."""
    data = pathlib.Path(__file__).resolve().parents[1] / "data" / "e2e"
    case = tmp_path / "servo_sphere.yaml"
    case.write_text((data / "servo_sphere.yaml").read_text().replace("end: 0.3", "end: 0.01"))
    (tmp_path / "servo_sphere.csv").write_text((data / "servo_sphere.csv").read_text())
    sim, untouched = dempact.Simulation(case), dempact.Simulation(case)
    with pytest.raises(dempact.Error, match=r"walls\[1\] \('press'\) is a servo wall"):
        sim.set_wall_velocity(1, (0, 0, -0.01))
    sim.set_wall_velocity(0, (0, 0, 0))  # the floor is not: accepted
    sim.step(200)
    untouched.step(200)
    np.testing.assert_array_equal(sim.positions, untouched.positions)
