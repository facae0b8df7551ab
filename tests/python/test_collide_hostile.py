"""dempact.collide() and `dempact collide` against hostile arguments: every call either
raises dempact.Error or returns finite numbers, within a bounded wall time; the program
refuses (exit 2) exactly what the function refuses, with the same message (the same C
check, collision_request_build, names the argument each entrance's way); Ctrl-C stops a
long collision and a calibration with KeyboardInterrupt within a second."""
import json
import math
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

import dempact

# Each call is bounded: the approach takes at most 1e5 steps, a contact at most 2e5, a
# sticky one 2e6 (about 5 s on a loaded machine); this is generous for a sanitizer build.
CALL_SECONDS = 30.0

HOSTILE = [math.nan, -math.nan, math.inf, -math.inf, -1.0, 0.0, -0.0, 5e-324, 1e-300, 1e-15,
           1e-9, 1e-8, 1e-6, 0.3, 0.5, 1.0, 2.0, 89.99, 1e4, 1.0001e4, 1e300,
           1.7976931348623157e308]
FLOATS = st.one_of(st.sampled_from(HOSTILE), st.floats())
NUMBERS = st.one_of(FLOATS, st.integers(-1000, 1000))
NOT_NUMBERS = st.sampled_from([True, False, np.bool_(True), "1", "abc", "nan", None, b"1",
                               [1.0], 1j, 10**400, -10**400])
LAWS = ["hertz", "hertz_tti", "linear", "hertz_kk", "hertz_lh", "zhang", "exact"]
NOT_LAWS = ["herz", "", "HERTZ", 3, None]

# values a valid call could hold: most calls hold some, and one or two hostile ones
GOOD = {
    "restitution": [None, 0.1, 0.5, 0.9, 1.0],
    "velocity": [0.1, 1.0, 3.0, 1e-8],
    "radius": [0.001, 0.01, 0.1],
    "density": [2500.0, 7800.0],
    "young": [1e7, 2e11],
    "poisson": [0.2, 0.3, -0.99999999999, 0.4999],
    "params": [None, {"fit": "published"}, {"eta": 2e4}, {"stiffness": 1e7}],
    "cohesion_removal": [True, False, np.bool_(False)],
    "dt": [0.0, "auto", 1e-8, 1e-9],
    "calibrate": [False, True],
    "friction": [0.0, 0.3],
    "tangential_restitution": [None, 0.5],
    "angle": [None, 0.0, 30.0, 60.0],
    "tangential_velocity": [None, 0.5],
    "spin1": [(0.0, 0.0, 0.0), (0.0, 0.0, 100.0)],
    "spin2": [(0.0, 0.0, 0.0), [10.0, 0.0, 0.0], np.array([0.0, 5.0, 0.0])],
}
PARAM_KEYS = ["restitution", "stiffness", "damping", "eta", "fit", "stiffness_formula",
              "stifness", "", "a=b"]


def hostile_vector(numbers):
    return st.one_of(st.tuples(numbers, numbers, numbers), st.tuples(numbers, numbers),
                     st.sampled_from(["abc", None, 1.0, (1.0, "x", 2.0), (True, 0, 0)]))


def hostile_values(numbers, flags, params, vector, laws, dts):
    """For each argument, what a hostile caller passes."""
    hostile = {key: numbers for key in GOOD}
    hostile.update({
        "cohesion_removal": flags, "calibrate": flags, "params": params,
        "dt": st.one_of(numbers, st.sampled_from(dts)),
        "spin1": vector, "spin2": vector, "law": laws})
    return hostile


HOSTILE_FOR = hostile_values(
    st.one_of(NUMBERS, NOT_NUMBERS),
    st.one_of(st.booleans(), st.sampled_from(["no", "yes", "", 0, 1, None, 2.0])),
    st.one_of(st.dictionaries(st.sampled_from(PARAM_KEYS),
                              st.one_of(NUMBERS, st.sampled_from(
                                  ["published", "calibrated", "time", "bogus", True, None])),
                              max_size=3),
              st.sampled_from([[("restitution", 0.5)], "restitution=0.5", {1: 2}])),
    hostile_vector(NUMBERS), st.sampled_from(LAWS + NOT_LAWS), ["auto", "Auto", 1e-15, 1e-12])


@st.composite
def calls(draw, hostile_for):
    """Arguments of one call: a law, some plausible values, and up to two hostile ones."""
    kw = {"law": draw(st.sampled_from(LAWS))}
    for key, good in GOOD.items():
        if draw(st.integers(0, 3)) == 0:
            kw[key] = draw(st.sampled_from(good))
    for _ in range(draw(st.sampled_from([0, 1, 1, 2]))):
        key = draw(st.sampled_from(sorted(hostile_for)))
        kw[key] = draw(hostile_for[key])
    return kw


def numbers_in(value):
    """Every number a result holds (nested lists and dicts)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from numbers_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from numbers_in(v)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


def collide_bounded(kw):
    """dempact.collide(**kw): ("error", message) or ("result", dict), within CALL_SECONDS."""
    start = time.monotonic()
    try:
        outcome = ("result", dempact.collide(**kw))
    except dempact.Error as e:
        outcome = ("error", str(e))
    took = time.monotonic() - start
    assert took < CALL_SECONDS, f"collide({kw!r}) took {took:.1f} s"
    return outcome


def is_elastic_head_on(kw, r):
    """Undamped Hertz, head on, no spin, no friction: the closed form restitutes 1."""
    return (r["law"] == "hertz" and r["friction"] == 0 and
            r["tangential_velocity"] == 0 and all(
                [float(c) for c in kw.get(s, (0, 0, 0))] == [0, 0, 0] for s in ("spin1", "spin2")) and
            kw.get("cohesion_removal", True))


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(calls(HOSTILE_FOR))
@example({"law": "hertz", "velocity": 1e-8})
@example({"law": "hertz", "velocity": 1e-6})
@example({"law": "hertz", "dt": 1e-15})
@example({"law": "hertz", "poisson": -0.99999999999})
@example({"law": "hertz", "poisson": -0.99999999999, "dt": "auto"})
@example({"law": "hertz", "spin1": (math.nan, 0, 0)})
@example({"law": "hertz", "cohesion_removal": "no"})
@example({"law": "hertz_tti", "restitution": 0.9, "params": {"restitution": 0.3}})
@example({"law": "hertz", "angle": 30.0, "tangential_velocity": 1.0})
@example({"law": "hertz_lh", "params": {"eta": 1e9}, "cohesion_removal": False})
@example({"law": "hertz", "velocity": 1e4})
def test_hostile_arguments_raise_or_give_finite_numbers(kw):
    kind, what = collide_bounded(kw)
    event(kind)
    if kind == "error":
        assert what and "\n" not in what
        return
    numbers = list(numbers_in(what))
    assert numbers and all(math.isfinite(x) for x in numbers), what
    assert what["steps"] > 0 and what["dt"] > 0 and what["contact_time"] > 0
    if is_elastic_head_on(kw, what):
        assert what["restitution_out"] == pytest.approx(1.0, abs=1e-3), what


# ---- the program refuses what the function refuses, with the same message

# what the command line can say too: numbers, flags, a choice's name
PROGRAM_HOSTILE_FOR = hostile_values(
    FLOATS, st.booleans(),
    st.one_of(st.dictionaries(st.sampled_from(["restitution", "stiffness", "eta", "stifness"]),
                              FLOATS, max_size=2), st.just({"fit": "published"})),
    st.tuples(FLOATS, FLOATS, FLOATS), st.sampled_from(LAWS + ["herz"]), ["auto", 1e-15, 1e-12])


def plain(kw):
    """kw as the command line gives it: numbers as floats, vectors as tuples."""
    out = {}
    for key, value in kw.items():
        if key in ("spin1", "spin2"):
            value = tuple(float(c) for c in value)
        elif key == "cohesion_removal":
            value = bool(value)
        out[key] = value
    return {k: v for k, v in out.items() if v is not None}


OPTION = {"params": "--param"}


def number_text(x):
    """The shortest %g text that reads back as x (what the package hands the law too)."""
    x = float(x)
    if math.isnan(x):  # Python drops a NaN's sign, C's strtod and %g keep it
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    text = "%.15g" % x
    return text if float(text) == x else "%.17g" % x


def command_line(program, kw):
    args = [str(program), "collide"]
    for key, value in kw.items():
        option = OPTION.get(key, "--" + key.replace("_", "-"))
        if key == "params":
            for name, v in value.items():
                args += [option, f"{name}={v if isinstance(v, str) else number_text(v)}"]
        elif key == "cohesion_removal":
            args += [option, "on" if value else "off"]
        elif key == "calibrate":
            args += [option] if value else []
        elif key in ("spin1", "spin2"):
            args += [option, ",".join(number_text(c) for c in value)]
        elif isinstance(value, str):
            args += [option, value]
        else:
            args += [option, number_text(value)]
    return args


def python_names(message):
    """The program's message with its options named as the function names its arguments."""
    return re.sub(r"--([a-z][a-z0-9-]*)",
                  lambda m: "params" if m[1] == "param" else m[1].replace("-", "_"), message)


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(calls(PROGRAM_HOSTILE_FOR).map(plain))
@example({"law": "hertz", "velocity": 1e-8})
@example({"law": "hertz", "dt": 1e-15})
@example({"law": "hertz", "spin1": (math.nan, 0.0, 0.0)})
@example({"law": "hertz_tti", "restitution": 0.9, "params": {"restitution": 0.3}})
@example({"law": "hertz", "angle": 30.0, "tangential_velocity": 1.0})
def test_the_program_refuses_what_the_function_refuses(program, kw):
    kind, what = collide_bounded(kw)
    event(kind)
    start = time.monotonic()
    run = subprocess.run(command_line(program, kw), capture_output=True, text=True,
                         timeout=CALL_SECONDS)
    assert time.monotonic() - start < CALL_SECONDS
    if kind == "error":
        assert run.returncode == 2, (kw, what, run.stdout)
        said = run.stderr.strip()
        assert said.startswith("dempact collide: ")
        assert python_names(said[len("dempact collide: "):]) == what
    else:
        assert run.returncode == 0, (kw, run.stderr)
        printed = json.loads(run.stdout)
        assert set(printed) == set(what)
        for key, value in printed.items():
            if key != "restitution_in":  # printed to 12 digits
                assert value == what[key], key


# ---- bounded work and Ctrl-C

def test_a_slow_impact_is_bounded_and_elastic_hertz_restitutes_one(program):
    """1e-8 m/s took 1e10 steps of approach; the gap now closes in at most 1e5 steps."""
    start = time.monotonic()
    run = subprocess.run([str(program), "collide", "--law", "hertz", "--velocity", "1e-8"],
                         capture_output=True, text=True, timeout=60)
    assert time.monotonic() - start < 30
    assert run.returncode == 0, run.stderr
    r = json.loads(run.stdout)
    assert r["restitution_out"] == pytest.approx(1.0, abs=1e-4)
    # Hertz's contact time at 1e-8 m/s: 2.94 d_max / v0 (docs/physics.md)
    m_eff = 7800 * 4 / 3 * math.pi * 0.01**3 / 2
    k_hz = 4 / 3 * 2e11 / (2 * (1 - 0.3**2)) * math.sqrt(0.005)
    d_max = (5 * m_eff * 1e-8**2 / (4 * k_hz))**0.4
    assert r["contact_time"] == pytest.approx(2 * 1.4716 * d_max / 1e-8, rel=0.005)
    assert r["steps"] < 200000


def test_a_tiny_step_is_refused_naming_dt_and_the_limit(program):
    run = subprocess.run([str(program), "collide", "--law", "hertz", "--dt", "1e-15"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert "--dt" in run.stderr and "limit of 200000" in run.stderr
    with pytest.raises(dempact.Error, match=r"^dt: .*limit of 200000"):
        dempact.collide("hertz", dt=1e-15)


def interrupted_after(code, delay=0.7):
    """Runs `code` in a fresh interpreter, sends SIGINT `delay` s after it starts the call,
    and returns (seconds from the signal to the exit, exit status, stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import dempact\nprint('ready', flush=True)\n" + code],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        assert proc.poll() is None, "the call ended before the signal"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        return time.monotonic() - sent, proc.returncode, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# a contact that sticks (KK's dashpot, no cohesion removal) at a fine step: 2e6 steps
STICKY = ("dempact.collide('hertz_kk', params={'eta': 1e9}, cohesion_removal=False, "
          "dt=3.2e-10)")
# calibrations, each up to about a second of trial collisions
CALIBRATIONS = ("for k in range(1000):\n"
                "    dempact.collide('hertz_kk', restitution=0.001 + k * 1e-7, calibrate=True)")


@pytest.mark.parametrize("code", [STICKY, CALIBRATIONS], ids=["sticky_contact", "calibration"])
def test_ctrl_c_raises_keyboard_interrupt_within_a_second(code):
    took, status, err = interrupted_after(code)
    assert "KeyboardInterrupt" in err, err
    assert status in (-signal.SIGINT, 1, 130), status
    assert took < 1.0


def test_ctrl_c_stops_the_program_with_130(program):
    """SIGINT ends `dempact collide` at once, by the signal (a shell's status 130)."""
    proc = subprocess.Popen([str(program), "collide", "--law", "hertz_kk", "--param", "eta=1e9",
                             "--cohesion-removal", "off", "--dt", "3.2e-10"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.7)
        assert proc.poll() is None, "the collision ended before the signal"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        assert time.monotonic() - sent < 1.0
        assert proc.returncode == -signal.SIGINT
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
