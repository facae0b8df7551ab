#!/usr/bin/env python3
"""An allocation that fails on one rank ends the run cleanly on every rank.

    alloc_failure.py DEMPACT FAIL_ALLOC_SO CASE WORKDIR [--ranks 2] [--end-time T] [--sites N]
                     [--restart-at T0]

Runs CASE on 2 ranks under mpirun (--ranks 0: as one process, without it) with
fail_alloc.so preloaded (tests/mpi/fail_alloc.c), first counting, on each rank, the call
sites of dempact's own malloc, calloc and realloc
in the order they are first reached; then, for each of up to N of those sites per rank
(spread evenly over them), runs the case again with that site's first call failing on
that rank alone. Each run must end by itself within the time limit (no rank left waiting
in a collective another has left), with no MPI abort, and either with the program's
out-of-memory status 3 and a message saying "out of memory" on stderr, or with exit 0
and an output identical to the run without failures (h5diff: the allocation had a
fallback that changes nothing else); and the output folder must hold no temporary file,
every snapshot the output's NAME.h5 names reading back (`dempact info`). With
--restart-at T0, a run without failures first writes the case's output to T0, and every
run restarts from it (`--restart`): the restart's reading, checks and split are swept.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys

TIMEOUT = 120
EXIT_OUT_OF_MEMORY = 3
# OpenMPI 4.1's launcher, reporting a rank's non-zero exit, can itself fail to unpack its
# help message on a loaded machine and exit 15 whatever the ranks did ("Data unpack had
# inadequate space" or "Data unpack would read past end of buffer", in show_help.c); such
# a run says nothing of dempact, and is run once more (a second failure of the kind fails
# the test).
def launcher_fault(stderr):
    return "Data unpack" in stderr and "show_help.c" in stderr


def launch(args, ranks, env_extra, cwd):
    """Runs args under mpirun on `ranks` ranks, or as one plain process (ranks 0)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive", **env_extra)
    cmd = []
    if ranks > 0:
        cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(ranks)]
        for key in env_extra:
            cmd += ["-x", key]
    # a run that hangs is ended with every rank: SIGTERM to mpirun, which passes it on to
    # the ranks it started (they are not in its process group), then SIGKILL to the group
    p = subprocess.Popen(cmd + args, env=env, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.terminate()
        try:
            p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
        raise
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dempact")
    ap.add_argument("shim")
    ap.add_argument("case")
    ap.add_argument("workdir")
    ap.add_argument("--ranks", type=int, default=2, help="0: one process, without mpirun")
    ap.add_argument("--end-time", default="0.01")
    ap.add_argument("--sites", type=int, default=0, help="at most this many per rank (0: all)")
    ap.add_argument("--restart-at", default=None, help="every run restarts from the output at this time")
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    name = os.path.splitext(os.path.basename(a.case))[0]
    failures = []
    restart = []
    if a.restart_at:
        base = os.path.join(a.workdir, "base")
        r = launch([os.path.abspath(a.dempact), "run", os.path.abspath(a.case), "--output", base, "--quiet",
                    "--end-time", a.restart_at], a.ranks, {}, a.workdir)
        if r.returncode != 0:
            sys.exit(f"FAIL: the run to restart from did not end cleanly: {r.stderr}")
        restart = ["--restart", os.path.join(base, name + ".h5")]

    def run(tag, extra):
        out = os.path.join(a.workdir, tag)
        env = dict(extra, LD_PRELOAD=os.path.abspath(a.shim))
        for attempt in range(2):
            shutil.rmtree(out, ignore_errors=True)
            try:
                r = launch([os.path.abspath(a.dempact), "run", os.path.abspath(a.case), "--output",
                            out, "--quiet", "--end-time", a.end_time] + restart, a.ranks, env,
                           a.workdir)
            except subprocess.TimeoutExpired:
                return None, out
            if not launcher_fault(r.stderr):
                break
            print(f"  {tag}: the launcher failed reporting the exit (OpenMPI); run again", flush=True)
        return r, out

    for rank in range(max(a.ranks, 1)):
        log = os.path.join(a.workdir, f"sites{rank}")
        which = {"DEMPACT_FAIL_RANK": str(rank)} if a.ranks > 0 else {}
        r, out = run(f"count{rank}", dict(which, DEMPACT_FAIL_LOG=log))
        if r is None or r.returncode != 0:
            sys.exit(f"FAIL: the run without failures did not end cleanly: {r and r.stderr}")
        with open(log) as f:
            sites = [line.split() for line in f]
        where = {int(k): off for k, off in sites}
        sites = [int(k) for k, _ in sites]
        chosen = sites
        if a.sites and len(sites) > a.sites:
            chosen = [sites[round(k * (len(sites) - 1) / (a.sites - 1))] for k in range(a.sites)]
        who = f"rank {rank}" if a.ranks > 0 else "one process"
        print(f"{who}: {len(sites)} allocation sites reached, failing {len(chosen)} of them", flush=True)
        counts = {}
        for at in chosen:
            tag = f"r{rank}_{at}"
            r, out = run(tag, dict(which, DEMPACT_FAIL_AT=str(at)))
            problem = check(a.dempact, r, out, name, os.path.join(a.workdir, f"count{rank}"))
            outcome = "timeout" if r is None else r.returncode
            counts[outcome] = counts.get(outcome, 0) + 1
            if problem:
                site = function_at(program_run(a.dempact, a.ranks), where[at])
                failures.append(f"{who}, allocation {at} ({site}): {problem}")
                print(f"  allocation {at} in {site}: {problem}", flush=True)
            shutil.rmtree(out, ignore_errors=True)
        print(f"  exit statuses: {counts}")
    if failures:
        print(f"FAIL: {len(failures)} runs did not end cleanly")
        sys.exit(1)
    print("every run ended cleanly on every rank")


def program_run(dempact, ranks):
    """The file the ranks run: under mpirun, dempact runs the dempact-mpi beside it
    (io/commands/cli_relaunch.c), whose addresses the log holds."""
    mpi = os.path.join(os.path.dirname(os.path.realpath(dempact)), "dempact-mpi")
    return mpi if ranks > 0 and os.path.exists(mpi) else dempact


def function_at(dempact, offset):
    """The function (and line, with debug information) of a call site's return address."""
    try:
        r = subprocess.run(["addr2line", "-f", "-s", "-e", dempact, hex(int(offset, 16) - 1)],
                           capture_output=True, text=True)
        return " ".join(r.stdout.split())
    except OSError:
        return offset


def same_output(out, ref, name):
    """Why out differs from ref (every HDF5 file of the output, h5diff), or None."""
    files = [name + ".h5"] + [os.path.join(name + ".d", f)
                              for f in sorted(os.listdir(os.path.join(ref, name + ".d")))]
    for f in files:
        if not os.path.exists(os.path.join(out, f)):
            return f"{f} missing"
        d = subprocess.run(["h5diff", os.path.join(out, f), os.path.join(ref, f)],
                           capture_output=True, text=True)
        if d.returncode != 0:
            return f"{f} differs from the run without failures: {d.stdout.strip()[:300]}"
    return None


def check(dempact, r, out, name, ref):
    if r is None:
        return f"still running after {TIMEOUT} s (a rank waits for another)"
    # (mpirun adds its own banner when the ranks exit non-zero: the program's lines come first)
    told = r.stderr.split("-----")[0].strip()
    said = told[-400:]
    if "MPI_ABORT" in r.stderr:
        return "MPI abort: " + said
    if r.returncode not in (0, EXIT_OUT_OF_MEMORY):
        return f"exit {r.returncode}: {said}"
    if r.returncode == EXIT_OUT_OF_MEMORY and "out of memory" not in told:
        return f"exit 3 without 'out of memory': {said}"
    if r.returncode == 0:  # a fallback may change nothing but the speed
        return same_output(out, ref, name)
    if os.path.isdir(out):
        for root, _, files in os.walk(out):
            for f in files:
                if f.endswith(".tmp"):
                    return f"left {os.path.join(root, f)}"
        index = os.path.join(out, name + ".h5")
        if os.path.exists(index):
            i = subprocess.run([dempact, "info", index], capture_output=True, text=True)
            if i.returncode != 0:
                return "dempact info: " + i.stderr.strip()[-300:]
    return None


if __name__ == "__main__":
    main()
