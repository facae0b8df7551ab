#!/usr/bin/env python3
"""One code on Silbert's chute, driven from Python: run to a steady flow, measure it, then
lower the angle stage by stage until the layer stops (tools/chute.py runs both codes).

Both codes are stepped in chunks of --interval and read between chunks, so that the same
rules decide when the flow is steady and when it has stopped:
  - dempact through its Python package (`dempact.Simulation`); a change of angle is an
    external load m (g(theta) - g(theta_0)) on every grain (`set_external_loads`);
  - LAMMPS through its C library (Debian's liblammps.so.0, with ctypes: `lammps_command`,
    `lammps_gather_atoms`); a change of angle redefines `fix gravity`.

Steady flow: from the grains at rest at --angle, the mean downhill velocity <v_x> and the
kinetic energy per grain e_k = <|v|^2>/2 (translational, m = 1, in m g d) are averaged
over consecutive windows of --window; the flow is steady at the end of window k when
<v_x> and e_k of windows k - 1 and k differ by less than --tol-v and --tol-ke (relative).
The profiles (tools/chute.py's measure) are then taken over those two windows. No steady
state by --t-max: the run says so and is measured over its last two windows anyway.

Stopping: from the steady flow, gravity turns to each of --stop's angles in turn. A stage
ends when the layer has stopped (|<v_x>| < --v-stop and e_k < --ke-stop at a reading),
when it is steady (windows of --stage-window, the same tolerances), or after --stage-max;
the scan ends at the first stage that stops.

usage: chute_live.py --code dempact|lammps --json OUT [--dempact build/dempact]
         [--lammps-lib liblammps.so.0] [--angle 22] [--window 50] [--tol-v 0.01]
         [--tol-ke 0.02] [--t-max 1500] [--interval 2] [--stop 21,20,19,18]
         [--stage-window 40] [--stage-max 200] [--v-stop 0.01] [--ke-stop 1e-4] [--work DIR]
"""
import argparse
import ctypes
import json
import math
import os
import sys
import time

try:
    import numpy as np
except ImportError as missing:  # pragma: no cover
    import venv_hint
    sys.exit(venv_hint.message("chute_live", missing))

import chute

N_BASE = int(chute.LX) * int(chute.LY)


class DempactChute:
    """dempact's chute through the Python package, gravity at `angle` in the case."""

    def __init__(self, folder, angle, end):
        import dempact  # the package tools/setup.sh installs into .venv
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "chute_live.yaml")
        open(path, "w").write(chute.case_text(angle, end, end, "chute_live"))
        self.sim = dempact.Simulation(path)
        self.angle0 = angle
        self.grains = self.sim.ids >= N_BASE  # the base is the case's first source
        self.kind = np.where(self.grains, 0, 1)

    def time(self):
        return self.sim.time

    def run_to(self, t):
        self.sim.run(until=t)

    def set_angle(self, theta):
        load = np.zeros((len(self.sim.ids), 3))
        load[self.grains] = np.outer(self.sim.masses[self.grains],
                                     chute.gravity(theta) - chute.gravity(self.angle0))
        self.sim.set_external_loads(load)

    def state(self):
        return self.kind, self.sim.positions, self.sim.velocities


# LAMMPS's pair granular with bench/in.chute's values (--lammps-pair granular): as
# gran/hooke/history but for the tangential spring, which pair granular turns into the
# tangent plane keeping its length (as dempact does), where gran/hooke/history projects it
# (shortening it)
PAIR_GRANULAR = (f"pair_coeff * * hooke {chute.KN!r} {chute.GAMMA_N!r} tangential linear_history "
                 f"{chute.KT!r} 0.0 {chute.MU!r} damping mass_velocity")


class LammpsChute:
    """LAMMPS's chute (tools/chute.py's input) through liblammps with ctypes."""

    def __init__(self, folder, angle, lib, pair=None):
        os.makedirs(folder, exist_ok=True)
        self.lib = ctypes.CDLL(lib)
        self.lib.lammps_open_no_mpi.restype = ctypes.c_void_p
        self.lib.lammps_open_no_mpi.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                                ctypes.c_void_p]
        self.lib.lammps_command.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        self.lib.lammps_command.restype = ctypes.c_char_p
        self.lib.lammps_gather_atoms.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                                 ctypes.c_int, ctypes.c_void_p]
        self.lib.lammps_get_natoms.restype = ctypes.c_double
        self.lib.lammps_get_natoms.argtypes = [ctypes.c_void_p]
        args = [b"lmp", b"-log", os.path.join(folder, "log.lammps").encode(), b"-screen", b"none"]
        argv = (ctypes.c_char_p * len(args))(*args)
        self.h = self.lib.lammps_open_no_mpi(len(args), argv, None)
        data = os.path.join(folder, "chute.data")
        chute.write_lammps_data(data)
        text = chute.lammps_input(angle, 1.0, 1.0, data, "unused")
        for line in text.splitlines():
            if line and not line.startswith(("#", "dump", "thermo", "run")):
                if pair and line.startswith("pair_style"):
                    line = "pair_style granular"
                if pair and line.startswith("pair_coeff"):
                    line = PAIR_GRANULAR
                self.command(line)
        self.command("thermo 1000000000")
        self.step = 0
        n = int(self.lib.lammps_get_natoms(self.h))
        self.x, self.v = (ctypes.c_double * (3 * n))(), (ctypes.c_double * (3 * n))()
        types = (ctypes.c_int * n)()
        self.lib.lammps_gather_atoms(self.h, b"type", 0, 1, types)
        self.kind = np.where(np.array(types[:]) == 2, 1, 0)  # dempact's index: base is 1
        self.n = n

    def command(self, line):
        self.lib.lammps_command(self.h, line.encode())

    def time(self):
        return self.step * chute.DT

    def run_to(self, t):
        steps = int(round(t / chute.DT)) - self.step
        if steps > 0:
            self.command(f"run {steps}")
            self.step += steps

    def set_angle(self, theta):
        self.command("unfix 1")
        self.command(f"fix 1 all gravity 1.0 chute {theta!r}")

    def state(self):
        self.lib.lammps_gather_atoms(self.h, b"x", 1, 3, self.x)
        self.lib.lammps_gather_atoms(self.h, b"v", 1, 3, self.v)
        return (self.kind, np.frombuffer(self.x).reshape(self.n, 3).copy(),
                np.frombuffer(self.v).reshape(self.n, 3).copy())


def reading(code):
    """(t, <v_x>, e_k) of the grains now, and the frame for the profiles."""
    kind, x, v = code.state()
    g = v[kind == 0]
    t = code.time()
    return (t, float(np.mean(g[:, 0])), float(0.5 * np.mean(np.sum(g * g, axis=1)))), \
        (t, kind, x, v)


def window_means(trace, t_lo, t_hi):
    rows = [r for r in trace if t_lo < r[0] <= t_hi + 1e-9]
    return (float(np.mean([r[1] for r in rows])), float(np.mean([r[2] for r in rows])))


def agree(a, b, tol_v, tol_ke):
    return abs(a[0] - b[0]) <= tol_v * abs(b[0]) and abs(a[1] - b[1]) <= tol_ke * abs(b[1])


def relaxation(trace):
    """Least squares of <v_x>(t) = v_inf + (v_0 - v_inf) exp(-(t - t_0) / tau) over a
    stage's readings (tau on a grid from 5 to 5000 time units): where the stage's speed is
    heading, and how fast. Returns (v_inf, tau), or None for fewer than 5 readings."""
    if len(trace) < 5:
        return None
    t = np.array([r[0] for r in trace]) - trace[0][0]
    v = np.array([r[1] for r in trace])
    best = None
    for tau in np.geomspace(5.0, 5000.0, 400):
        basis = np.vstack([np.ones_like(t), np.exp(-t / tau)]).T
        coef, res, _, _ = np.linalg.lstsq(basis, v, rcond=None)
        err = float(np.sum((basis @ coef - v) ** 2))
        if best is None or err < best[0]:
            best = (err, float(coef[0]), float(tau))
    return best[1], best[2]


def steady_flow(code, a, clock):
    """Runs until two consecutive windows agree; returns the record and the frames."""
    trace, frames, windows = [], [], []
    steady_at = None
    t = code.time()
    while t < a.t_max - 1e-9 and steady_at is None:
        t = min(t + a.interval, a.t_max)
        start = time.monotonic()
        code.run_to(t)
        clock["seconds"] += time.monotonic() - start
        row, frame = reading(code)
        trace.append(row)
        frames.append(frame)
        k = int(round(t / a.window))
        if abs(t - k * a.window) < 1e-9 and k >= 1:
            windows.append((t,) + window_means(trace, t - a.window, t))
            print(f"flow t = {t:g}: window <v_x> {windows[-1][1]:.4g}, e_k {windows[-1][2]:.4g}",
                  flush=True)
            if len(windows) >= 2 and agree(windows[-1][1:], windows[-2][1:], a.tol_v, a.tol_ke):
                steady_at = t
    keep = [f for f in frames if f[0] >= t - 2 * a.window - 1e-9]
    result = chute.measure_with_spread(keep, 2 * a.window)
    result.update(steady=steady_at is not None, t_steady=steady_at, t_end=t,
                  windows=windows, trace=trace)
    return result


def stopping(code, a, clock):
    """The staircase of angles from the steady flow; each stage's end and its trace."""
    stages = []
    for theta in (float(x) for x in a.stop.split(",")) if a.stop else ():
        code.set_angle(theta)
        t0 = code.time()
        trace, windows, outcome = [], [], "undecided"
        t = t0
        while t < t0 + a.stage_max - 1e-9:
            t = min(t + a.interval, t0 + a.stage_max)
            start = time.monotonic()
            code.run_to(t)
            clock["seconds"] += time.monotonic() - start
            row, _ = reading(code)
            trace.append(row)
            if abs(row[1]) < a.v_stop and row[2] < a.ke_stop:
                outcome = "stopped"
                break
            k = int(round((t - t0) / a.stage_window))
            if abs(t - t0 - k * a.stage_window) < 1e-9 and k >= 1:
                windows.append((t,) + window_means(trace, t - a.stage_window, t))
                if len(windows) >= 2 and agree(windows[-1][1:], windows[-2][1:], a.tol_v,
                                               a.tol_ke):
                    outcome = "steady"
                    break
        print(f"stage {theta:g} degrees, t = {t0:g} to {t:g}: {outcome}, <v_x> {trace[-1][1]:.4g}, "
              f"e_k {trace[-1][2]:.4g}", flush=True)
        stages.append({"angle": theta, "from": t0, "to": t, "outcome": outcome,
                       "windows": windows, "trace": trace, "relaxation": relaxation(trace)})
        if outcome == "stopped":
            break
    return stages


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", choices=("dempact", "lammps"), required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--lammps-lib", default="liblammps.so.0")
    ap.add_argument("--lammps-pair", choices=("hooke/history", "granular"), default="hooke/history",
                    help="LAMMPS's pair style: gran/hooke/history (bench/in.chute's) or granular")
    ap.add_argument("--angle", type=float, default=22.0)
    ap.add_argument("--window", type=float, default=50.0)
    ap.add_argument("--tol-v", type=float, default=0.01)
    ap.add_argument("--tol-ke", type=float, default=0.02)
    ap.add_argument("--t-max", type=float, default=1500.0)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--stop", default=None, help="angles to lower the steady flow through")
    ap.add_argument("--stage-window", type=float, default=40.0)
    ap.add_argument("--stage-max", type=float, default=200.0)
    ap.add_argument("--v-stop", type=float, default=0.01)
    ap.add_argument("--ke-stop", type=float, default=1e-4)
    ap.add_argument("--work", default="chute-work")
    a = ap.parse_args()
    for name in ("window", "tol_v", "tol_ke", "t_max", "interval", "stage_window", "stage_max",
                 "v_stop", "ke_stop"):
        if not getattr(a, name) > 0:
            ap.error(f"--{name.replace('_', '-')} {getattr(a, name)}: give a number > 0")
    for name in ("window", "stage_window"):
        ratio = getattr(a, name) / a.interval
        if abs(ratio - round(ratio)) > 1e-9:
            ap.error(f"--{name.replace('_', '-')} {getattr(a, name)}: give a whole number of "
                     f"--interval {a.interval}")
    if a.t_max < 2 * a.window:
        ap.error(f"--t-max {a.t_max}: give at least two --window ({2 * a.window})")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    folder = os.path.join(a.work, a.code + "_live")
    end = a.t_max + a.stage_max * (len(a.stop.split(",")) if a.stop else 0) + 1.0
    code = (DempactChute(folder, a.angle, end) if a.code == "dempact"
            else LammpsChute(folder, a.angle, a.lammps_lib, a.lammps_pair == "granular"))
    clock = {"seconds": 0.0}
    flow = steady_flow(code, a, clock)
    flow_steps, flow_seconds = int(round(flow["t_end"] / chute.DT)), clock["seconds"]
    stages = stopping(code, a, clock)
    n = len(code.kind)
    steps = int(round(code.time() / chute.DT))
    result = {"code": a.code, "angle": a.angle, "flow": flow, "stop_scan": stages,
              "criteria": {k: getattr(a, k) for k in ("window", "tol_v", "tol_ke", "t_max",
                                                      "interval", "stage_window", "stage_max",
                                                      "v_stop", "ke_stop")},
              "particles": n, "steps": steps, "step_seconds": clock["seconds"],
              "particle_steps_per_second": n * steps / clock["seconds"],
              "flow_particle_steps_per_second": n * flow_steps / flow_seconds}
    with open(a.json, "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
