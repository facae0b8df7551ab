#!/usr/bin/env python3
"""The runs of tools/compare.py: each `dempact run` in a process group of its own, a
given number at a time, and what SIGINT (Ctrl-C) and SIGTERM do to them.

A stop signal while runs go on is passed to each of them once (dempact then writes a
last snapshot and exits 130 or 143); no new run starts; the tool waits for them (at most
GRACE seconds, then SIGKILL) and reports the runs that completed. A second signal kills
the runs at once. Outside the runs a stop signal raises Stopped. A run's process ends
with the tool's even when the tool is killed outright (Linux: PR_SET_PDEATHSIG).

Used by tools/compare.py; it has no command of its own.
"""

import ctypes
import os
import signal
import subprocess
import sys
import time

GRACE = 60.0  # seconds a run has to stop after the signal is passed on
POLL = 0.05   # seconds between looks at the runs


class Stopped(BaseException):
    """SIGINT or SIGTERM arrived; signum says which. (Not an Exception, as
    KeyboardInterrupt is not: no `except Exception` of the tool swallows it.)"""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _State:
    signum = 0      # the first stop signal, 0 if none
    count = 0       # how many arrived
    running = False  # runs are going: the loop handles the signal


def _on_signal(signum, frame):
    _State.count += 1
    if not _State.signum:
        _State.signum = signum
    if not _State.running:
        raise Stopped(signum)


def catch_stop_signals():
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)


def stop_signal():
    return _State.signum


def _libc_prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _libc_prctl()
_PR_SET_PDEATHSIG = 1


def _child_setup(parent):
    def setup():
        os.setpgid(0, 0)  # not in the terminal's group: only the tool passes Ctrl-C on
        if _PRCTL is not None:
            _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
        if os.getppid() != parent:  # the tool ended before the line above
            os._exit(128 + signal.SIGTERM)
    return setup


def _signal_all(procs, signum):
    for p in procs:
        try:
            os.kill(p.pid, signum)
        except ProcessLookupError:
            pass


def run_all(jobs, parallel, prepare, finished, env=None):
    """Runs the jobs, `parallel` at a time, in their order. prepare(job) makes its folder
    and returns (argv, log path); finished(job, status, wall s, cpu s) is called as each
    ends (status: the exit status, 128 + N for signal N). Returns the stop signal's
    number, or 0 when every job ran."""
    pending = list(jobs)
    running = {}  # pid -> (job, Popen, start time)
    told, killed, deadline = set(), False, None
    _State.running = True
    try:
        while pending or running:
            while pending and len(running) < parallel and not _State.signum:
                job = pending.pop(0)
                argv, log_path = prepare(job)
                with open(log_path, "w") as log:
                    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, env=env,
                                         preexec_fn=_child_setup(os.getpid()))
                running[p.pid] = (job, p, time.time())
            if _State.signum:
                pending.clear()
                fresh = [p for _, p, _ in running.values() if p.pid not in told]
                _signal_all(fresh, _State.signum)
                told.update(p.pid for p in fresh)
                deadline = deadline or time.time() + GRACE
                if not killed and (_State.count > 1 or time.time() > deadline):
                    _signal_all([p for _, p, _ in running.values()], signal.SIGKILL)
                    killed = True
            if not running:
                continue
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if pid == 0:
                time.sleep(POLL)
                continue
            job, p, t0 = running.pop(pid)
            p.returncode = code = os.waitstatus_to_exitcode(status)
            finished(job, code if code >= 0 else 128 - code, time.time() - t0,
                     usage.ru_utime + usage.ru_stime)
    finally:
        _State.running = False
        if running:  # an error of the tool's own: the runs end with it
            procs = [p for _, p, _ in running.values()]
            _signal_all(procs, signal.SIGTERM)
            for p in procs:
                try:
                    p.wait(GRACE)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    if _State.signum:
        return _State.signum
    return 0


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
