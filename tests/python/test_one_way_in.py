"""The package opens a case as the program does (session_open, io/session/session.h): the same
checks, and the same engine tuning from the environment, so that its steps are the
program's to the bit under any tuning."""
import subprocess

import numpy as np

import dempact

CASE = "small_pour.yaml"  # 600 spheres settling: contacts enough for the tuning to matter
TUNED = {"DEMPACT_BLOCK": "8", "DEMPACT_REORDER_MIN": "1"}


def positions(path):
    """The last snapshot's positions, in the order of the particles' ids."""
    snap = dempact.read(path)
    return snap["position"][np.argsort(snap["id"])]


def test_the_environments_tuning_reaches_the_package(here, program, tmp_path, monkeypatch):
    case = here.parents[0] / "data" / "e2e" / CASE
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    subprocess.run([str(program), "run", str(case), "--output", str(tmp_path / "plain"), "--quiet"],
                   check=True)
    for key, value in TUNED.items():
        monkeypatch.setenv(key, value)
    subprocess.run([str(program), "run", str(case), "--output", str(tmp_path / "tuned"), "--quiet"],
                   check=True)
    plain, tuned = positions(tmp_path / "plain" / "small_pour.h5"), positions(tmp_path / "tuned" / "small_pour.h5")
    # the tuning changes the order of some sums, so the last bits: it is seen at all
    assert not np.array_equal(plain, tuned)
    sim = dempact.Simulation(case)  # opened under the tuned environment
    ours = positions(sim.run(until=sim.end_time, output=tmp_path / "py"))
    np.testing.assert_array_equal(ours, tuned)
