"""Random call sequences with hostile values against dempact.Simulation (hypothesis): every
call either does what the documentation says or raises dempact.Error (a wrong type: a
dempact.Error that is also a TypeError); none crashes or hangs, and every output folder a
sequence wrote is one `dempact run --restart` reads and continues (exit 0).

A call is bounded by a timer: a valid call that would run long (run(until=10) is ten
million steps) is interrupted after TIMER seconds by a signal handler that raises, as
Ctrl-C does, and the simulation must then go on from the step reached."""
import math
import os
import pathlib
import signal
import subprocess
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

import dempact

HERE = pathlib.Path(__file__).resolve().parent
CASE = HERE / "tiny.yaml"  # dt = 1e-6 s, time.end 200 steps, a snapshot every 50
TIMER = 0.3               # s: the longest a call may take before it is interrupted
EXAMPLES = 200            # sequences per run


class Timeout(Exception):
    """Raised by the timer's signal handler, between two steps."""


def on_timer(signum, frame):
    raise Timeout()


FOLDERS = ["A", "B", "A/nested/deeper", "B/../A", "afile", "", None, 5, b"A", 1.5,
           pathlib.Path("B")]
huge = st.sampled_from([2 ** 53 + 1, 2 ** 63, -2 ** 63 - 1, 10 ** 12, 10 ** 400])
wrong = st.sampled_from([True, False, 1.0, 0.7, np.float64(2.0), None, math.nan, math.inf, "3",
                         b"3", [1]])
counts = st.one_of(st.integers(-3, 120), st.builds(np.int32, st.integers(0, 50)), huge, wrong)
ids = st.one_of(st.integers(-2, 2), st.builds(np.int64, st.integers(-1, 1)), huge, wrong)
times = st.one_of(st.floats(allow_nan=True, allow_infinity=True), huge, wrong,
                  st.sampled_from([0.0, -1.0, 1e-7, 1.5e-4, 1e-3, 10.0, 1e4, 1e30,
                                   np.float32(1e-4)]))
components = st.one_of(st.floats(-3e3, 3e3), st.floats(allow_nan=True, allow_infinity=True),
                       wrong)
vectors = st.one_of(st.tuples(components, components, components),
                    st.lists(st.floats(-1, 1), max_size=4), wrong)
folders = st.sampled_from(FOLDERS)
calls = st.one_of(
    st.tuples(st.just("step"), counts),
    st.tuples(st.just("run"), times, st.one_of(st.none(), folders)),
    st.tuples(st.just("run_steps"), st.integers(-5, 120), st.one_of(st.none(), folders)),
    st.tuples(st.just("set_velocity"), ids, vectors),
    st.tuples(st.just("write_snapshot"), folders),
    st.tuples(st.just("close")),
)


def place(folder, root):
    """A folder token in the sequence's own temporary folder (relative paths)."""
    if isinstance(folder, (str, os.PathLike)) and os.fspath(folder):
        return root / folder
    return folder


def call(sim, op, root):
    """Makes the call; returns the output folder it wrote to, if any."""
    name = op[0]
    if name == "step":
        sim.step(op[1])
    elif name == "run":
        sim.run(until=op[1], output=place(op[2], root) if op[2] is not None else None)
    elif name == "run_steps":  # an until on the step grid, forward or back
        until = sim.time + op[1] * sim.dt
        sim.run(until=until, output=place(op[2], root) if op[2] is not None else None)
    elif name == "set_velocity":
        sim.set_velocity(op[1], op[2])
    elif name == "write_snapshot":
        sim.write_snapshot(place(op[1], root))
    elif name == "close":
        sim.close()
    if name in ("run", "run_steps") and op[2] is not None:
        return place(op[2], root)
    if name == "write_snapshot":
        return place(op[1], root)
    return None


def check_after(sim, op, before, raised):
    """What a call that returned promised (closed forms of the step count)."""
    step = sim.step_count
    assert step >= before, f"{op}: the step count went back from {before} to {step}"
    assert sim.time == pytest.approx(step * sim.dt, rel=1e-12, abs=0)
    if raised:
        return
    if op[0] == "step":
        assert step == before + int(op[1]), op
    elif op[0] == "run":
        until = sim.end_time if op[1] is None else float(op[1])
        # the first step whose time reaches until (as dempact run --end-time)
        assert step >= until / sim.dt - 1e-6 and step - 1 < until / sim.dt, (op, step)
    elif op[0] == "run_steps":
        assert step == before + op[1], (op, step)


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(calls, min_size=1, max_size=7))
def test_hostile_call_sequences(program, sequence):
    old = signal.signal(signal.SIGALRM, on_timer)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "afile").write_text("a regular file where a folder is asked for\n")
            run_sequence(program, root, sequence)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_sequence(program, root, sequence):
    sim = dempact.Simulation(CASE)
    dt = sim.dt
    closed = stopped = False
    written = set()
    for op in sequence:
        before = None if closed else sim.step_count
        raised = timed_out = False
        signal.setitimer(signal.ITIMER_REAL, TIMER)
        try:
            folder = call(sim, op, root)
            if folder is not None:
                written.add(pathlib.Path(folder).resolve())
        except Timeout:
            timed_out = raised = True
            event(f"{op[0]} interrupted by the timer")
        except dempact.Error as e:
            raised = True
            event(f"{op[0]} refused ({'type' if isinstance(e, TypeError) else 'value'})")
            if "watchdog" in str(e) or "the run was stopped" in str(e):
                stopped = True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if op[0] == "close":
            closed = True
        if closed:
            with pytest.raises(dempact.Error, match="closed"):
                sim.step()
            continue
        check_after(sim, op, before, raised)
        if timed_out and op[0] in ("run", "run_steps") and op[2] is not None:
            written.add(place(op[2], root).resolve())  # the stop's snapshot
        if timed_out and not stopped:
            # interrupted between two steps: the next step goes on from there
            k = sim.step_count
            sim.step()
            assert sim.step_count == k + 1
    sim.close()
    for folder in written:
        path = folder / "tiny.h5"
        assert path.exists(), f"{folder}: written, yet no tiny.h5"
        last = dempact.read(path)
        first = dempact.read(path, index=0)
        steps = [dempact.read(path, index=k)["step"] for k in range(first["snapshots"])]
        assert steps == sorted(set(steps)), f"{path}: steps {steps}"
        done = subprocess.run([str(program), "run", str(CASE), "--restart", str(path),
                               "--end-time", repr((last["step"] + 5) * dt), "--output",
                               str(root / "restarted"), "--quiet"],
                              capture_output=True, text=True, timeout=60)
        # a run the watchdog stopped leaves its last snapshot as `dempact run` does: the
        # state the watchdog stopped, which it stops again
        event("an output restarted" + (" after the watchdog's stop" if stopped else ""))
        allowed = (0, 4) if stopped else (0,)
        assert done.returncode in allowed, f"{path}: {done.stderr}"
