"""tools/dem8_drum.py and dem8_setup.py against what they did not produce: the shipped
case is what the tool writes; the lattice keeps the benchmark's counts and every sphere inside the drum; the
dashpot mapping restitutes each pair's e (dempact check's head-on collision at the step)
and is the closed form of LIGGGHTS' Hertz dashpot; the zone counter on hand-placed points.

    .venv/bin/python -m pytest -q tests/python/test_dem8_drum.py

No generated inputs (about 2 s).
"""
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import dem8_drum  # noqa: E402
import dem8_setup  # noqa: E402

CASE = os.path.join(ROOT, "cases", "dem8_drum.yaml")


def program():
    exe = os.environ.get("DEMPACT_PROGRAM") or os.path.join(
        os.environ.get("DEMPACT_BUILD_DIR", os.path.join(ROOT, "build")), "dempact")
    if not os.path.exists(exe):
        pytest.skip(f"no dempact at {exe}")
    return exe


def test_shipped_case_is_the_tools():
    text = dem8_setup.case_text(dem8_setup.particle_sources(dem8_setup.lattice_rows()), 5.0, 0.1)
    with open(CASE) as f:
        assert f.read() == text, "cases/dem8_drum.yaml differs: run tools/dem8_drum.py write-case"


def test_lattice_counts_and_inside():
    rows = dem8_setup.lattice_rows()
    for name in ("M1", "M2"):
        assert sum(n for m, _, _, n in rows if m == name) == dem8_setup.MATERIALS[name][4]
    # M2 entirely below M1, as in the benchmark's bed
    top_m2 = max(z for m, z, _, _ in rows if m == "M2") + 0.002
    low_m1 = min(z for m, z, _, _ in rows if m == "M1") - 0.001
    assert top_m2 < low_m1
    for m, z, half, _ in rows:
        r = dem8_setup.MATERIALS[m][3]
        assert math.hypot(half, z) <= dem8_setup.R_DRUM - r - dem8_setup.MARGIN + 1e-12


def test_dashpot_is_liggghts():
    # LIGGGHTS: gamma = 2 sqrt(5/6) beta sqrt(2 E* sqrt(R* d) m*); dempact's critical ratio:
    # xi sqrt(8 m* E* sqrt(R*)) d^(1/4). Same force at any E*, R*, m*, d.
    for e in (0.4, 0.45, 0.5):
        E, R, m, d = 7.3e8, 6.6e-4, 9.1e-6, 3.1e-6
        b = -math.log(e) / math.sqrt(math.log(e) ** 2 + math.pi ** 2)
        liggghts = 2 * math.sqrt(5 / 6) * b * math.sqrt(2 * E * math.sqrt(R * d) * m)
        dempact = dem8_setup.xi_of(e) * math.sqrt(8 * m * E * math.sqrt(R)) * d ** 0.25
        assert dempact == pytest.approx(liggghts, rel=1e-14)


def test_case_checks_and_restitutes():
    out = subprocess.run([program(), "check", CASE], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = dict(re.findall(r"restitution (\w+ on \w+): gets ([0-9.]+)", out.stdout))
    assert len(got) == 5
    for (a, b), (e, _) in dem8_setup.PAIRS.items():
        # the closed form is the continuous collision; the step (1/50 of the contact or
        # less) moves it by under 1%
        assert float(got[f"{a} on {b}"]) == pytest.approx(e, rel=0.01)


def test_zone_counter():
    x = np.array([[-0.01, 0, 0.01], [-0.01, 0, 0.01], [0.01, 0, -0.01], [0.01, 0, 0.01],
                  [-0.01, 0, -0.01], [0.02, 0, -0.05], [0.2, 0, 0]])
    small = np.array([True, False, True, True, True, False, True])
    c = dem8_drum.zone_counts(x, small)
    assert c == {"zone1_M1": 1, "zone1_M2": 1, "zone2_M1": 1, "zone2_M2": 1, "inside": 6}
