"""Ctrl-C during Simulation.step() and run(): KeyboardInterrupt between two steps within
a second of the signal, a simulation that goes on as if it had never stopped, and an
output that `dempact run --restart` continues."""
import os
import select
import signal
import subprocess
import sys
import time

import dempact

# The child: the case, a long call, then what the parent checks. SIGINT gets Python's
# own handler whatever the child inherited (a shell starts background jobs with SIGINT
# ignored, and Python then installs none).
CHILD = r"""
import signal, sys, time
import numpy as np
import dempact
signal.signal(signal.SIGINT, signal.default_int_handler)
case, mode, folder = sys.argv[1:4]
sim = dempact.Simulation(case)
print("started", flush=True)
try:
    if mode == "step":
        sim.step(10 ** 9)
    else:
        sim.run(until=1e3, output=folder)
    print("finished", flush=True)
    sys.exit(1)
except KeyboardInterrupt:
    print("interrupted", sim.step_count, flush=True)
# bit-identical to a run that never stopped, and usable: one more step
k = sim.step_count
again = dempact.Simulation(case)
again.step(k)
assert np.array_equal(sim.positions, again.positions), "positions differ"
assert np.array_equal(sim.velocities, again.velocities), "velocities differ"
sim.step()
assert sim.step_count == k + 1
print("stepped", sim.step_count, flush=True)
"""


def read_line(proc, timeout):
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline().decode().strip() if ready else None


def interrupt(case, mode, folder):
    """Starts the child, sends SIGINT 0.5 s into the call; returns (the step reached,
    seconds from the signal to KeyboardInterrupt)."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(case), mode, str(folder)],
                            stdout=subprocess.PIPE)
    try:
        assert read_line(proc, 30) == "started"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        line = read_line(proc, 10)
        took = time.monotonic() - sent
        assert line and line.startswith("interrupted"), f"no KeyboardInterrupt: {line!r}"
        step = int(line.split()[1])
        assert read_line(proc, 60) == f"stepped {step + 1}"
        assert proc.wait(30) == 0
        return step, took
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_stops_step(here, tmp_path):
    step, took = interrupt(here / "free_fall.yaml", "step", tmp_path)
    assert step > 0
    assert took < 1.0, f"KeyboardInterrupt {took:.2f} s after SIGINT"


def test_ctrl_c_stops_run_with_a_complete_output(here, program, tmp_path):
    case = here / "free_fall.yaml"
    step, took = interrupt(case, "run", tmp_path / "out")
    assert took < 1.0, f"KeyboardInterrupt {took:.2f} s after SIGINT"
    path = tmp_path / "out" / "free_fall.h5"
    # as `dempact run` on SIGINT: the last snapshot is the step reached
    last = dempact.read(path)
    assert last["step"] == step
    # the program continues it, bit-identically to the package stepping straight there
    sim = dempact.Simulation(case)
    end = step + 200
    done = subprocess.run([str(program), "run", str(case), "--restart", str(path), "--end-time",
                           repr(end * sim.dt), "--output", str(tmp_path / "more"), "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    more = dempact.read(tmp_path / "more" / "free_fall.h5")
    sim.step(more["step"])
    assert more["step"] >= step + 199
    assert (more["position"] == sim.positions).all()
    assert (more["velocity"] == sim.velocities).all()


def test_a_signal_handler_that_does_not_raise_lets_the_call_finish(here):
    # the handler runs between steps (while step() is in C) and records the signal; only
    # a handler that raises stops the steps
    sim = dempact.Simulation(here / "tiny.yaml")
    seen = []
    old = signal.signal(signal.SIGALRM, lambda *a: seen.append(sim.step_count))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        sim.step(100000)  # about a second
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert len(seen) == 1 and 0 < seen[0] < 100000, seen
    assert sim.step_count == 100000
