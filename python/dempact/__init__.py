"""dempact from Python: run a case step by step, read and change its particles between
steps, write snapshots, list the contact laws and collide two spheres.

    import dempact
    sim = dempact.Simulation("cases/pour.yaml")
    sim.run(until=0.01)
    print(sim.time, sim.positions[:3])

Per-particle arrays are read-only numpy copies, row k being the particle with the k-th
smallest id (sim.ids): the engine keeps x, y and z apart and reorders its particles at
neighbour rebuilds, so no view of its memory would keep its meaning across a step.
Errors raise dempact.Error with the engine's message (the case file's line and key).
"""
import collections.abc
import math
import numbers
import os
import reprlib

import numpy as np

from . import _core
from ._core import Error
from .snapshots import read

__all__ = ["Simulation", "Error", "laws", "collide", "read"]


class Simulation:
    """One simulation of a case file, built and checked as `dempact run` does before its
    first step. Each step is checked by the numerical watchdog; a step it stops raises
    dempact.Error and the simulation takes no further step."""

    def __init__(self, case):
        self._run = _core.Run(str(case))

    # ---- time
    @property
    def time(self):
        """Simulated time [s]."""
        return self._run.info()["time"]

    @property
    def dt(self):
        """The timestep [s]."""
        return self._run.info()["dt"]

    @property
    def step_count(self):
        """Steps taken since t = 0."""
        return self._run.info()["step"]

    @property
    def end_time(self):
        """The case's time.end [s]."""
        return self._run.info()["end_time"]

    @property
    def name(self):
        return self._run.info()["name"]

    @property
    def wall_names(self):
        """The walls' names, by index (set_wall_velocity's index)."""
        return self._run.info()["walls"]

    def step(self, n=1):
        """Takes n steps."""
        self._run.step(int(n))

    def run(self, until=None, output=None):
        """Steps until the time reaches `until` [s] (the case's time.end by default):
        round((until - time) / dt) steps, so the last step lands nearest to it. With
        `output` (a folder), as `dempact run`: samples and snapshots go to
        output/NAME.h5 on the case's time.output_interval and time.timeseries_interval
        grids, the state at the start first if the output is new there, and the last
        step's always. Returns the path of NAME.h5, or None without output."""
        until = self.end_time if until is None else float(until)
        n = max(0, round((until - self.time) / self.dt))
        self._run.run_to(self._run.info()["step"] + n, None if output is None else str(output))
        if output is not None:
            return os.path.join(str(output), self.name + ".h5")
        return None

    # ---- particles (read-only copies, in id order)
    def _vectors(self, name):
        return np.frombuffer(self._run.field(name), dtype=np.float64).reshape(-1, 3)

    def _scalars(self, name, dtype=np.float64):
        return np.frombuffer(self._run.field(name), dtype=dtype)

    @property
    def ids(self):
        """Particle ids (int64, ascending): row k of every array is particle ids[k]."""
        return self._scalars("id", np.int64)

    @property
    def positions(self):
        """Centres [m], (N, 3)."""
        return self._vectors("position")

    @property
    def velocities(self):
        """Velocities [m/s], (N, 3)."""
        return self._vectors("velocity")

    @property
    def angular_velocities(self):
        """Angular velocities [rad/s], (N, 3)."""
        return self._vectors("angular_velocity")

    @property
    def forces(self):
        """Forces of the last force evaluation [N], (N, 3): contacts and gravity."""
        return self._vectors("force")

    @property
    def torques(self):
        """Torques of the last force evaluation [N m], (N, 3)."""
        return self._vectors("torque")

    @property
    def radii(self):
        """Radii [m], (N,)."""
        return self._scalars("radius")

    @property
    def masses(self):
        """Masses [kg], (N,)."""
        return self._scalars("mass")

    def contacts(self):
        """The touching particle pairs: (i_id, j_id, force), force (M, 3) [N] being the
        force on particle i_id from the last step (on j_id it is minus that)."""
        ids, force = self._run.contacts()
        ids = np.frombuffer(ids, dtype=np.int64).reshape(-1, 2)
        return ids[:, 0], ids[:, 1], np.frombuffer(force, dtype=np.float64).reshape(-1, 3)

    # ---- changes between steps
    def set_velocity(self, id, v):
        """Sets particle `id`'s velocity [m/s] for the next step."""
        v = [float(c) for c in v]
        if len(v) != 3:
            raise Error("set_velocity: v takes three components")
        self._run.set_velocity(int(id), tuple(v))

    def set_velocities(self, v):
        """Sets every particle's velocity: v is (N, 3), in id order (as velocities)."""
        v = np.ascontiguousarray(v, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != 3:
            raise Error(f"set_velocities: v must be (N, 3), not {v.shape}")
        self._run.set_velocities(v.tobytes())

    def set_wall_velocity(self, index, v):
        """Wall `index` translates at v [m/s] from now on (from where it is now)."""
        v = [float(c) for c in v]
        if len(v) != 3:
            raise Error("set_wall_velocity: v takes three components")
        self._run.set_wall_velocity(int(index), tuple(v))

    # ---- output
    def write_snapshot(self, folder):
        """Appends a snapshot of now to FOLDER/NAME.h5 (the layout of `dempact run`,
        docs/output.md; NAME the case's name). The first call for a folder starts the
        output, replacing an earlier output of the same case there. Returns the path
        of NAME.h5."""
        return self._run.write_snapshot(str(folder))

    def close(self):
        """Frees the simulation (and closes its output) now rather than when collected."""
        self._run.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def laws():
    """Every contact law the build knows, as `dempact laws` lists them: a list of dicts
    with name, summary, source, parameters (each: name, default, unit, help, choices,
    min, max), calibrates (the coefficient calibration solves, or None), history."""
    return _core.laws()


def friction_laws():
    """Every tangential law (kind "friction", under a contact's friction.model) and rolling
    law (kind "rolling", under rolling.model) the build knows, as `dempact laws --friction`
    lists them: a list of dicts with kind, name, summary, source, keys (the keys each takes
    beside coefficient and model, as laws()'s parameters), default (the tangential law a
    case gets without friction.model) and spring (it stores elastic energy)."""
    return _core.friction_laws()


def _number(name, value):
    """value as a float: an int, a float or a numpy number; not a bool, not a string."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise Error(f"{name}: {reprlib.repr(value)} is not a number")
    try:
        return float(value)
    except (OverflowError, ValueError, TypeError):
        raise Error(f"{name}: {reprlib.repr(value)} is not a number a double holds") from None


def _optional_number(name, value):
    return None if value is None else _number(name, value)


def _flag(name, value):
    """value as a bool: True or False (numpy's too), nothing that merely converts to one."""
    if not isinstance(value, (bool, np.bool_)):
        raise Error(f"{name}: {reprlib.repr(value)} is not True or False")
    return bool(value)


def _vector(name, value):
    """Three numbers, from a sequence of three."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 3:
        raise Error(f"{name}: {reprlib.repr(value)} is not three numbers")
    return tuple(_number(f"{name}[{k}]", c) for k, c in enumerate(value))


def _params(params):
    """params as (name, float or str) pairs: a number, or the name of a choice."""
    if params is None:
        return []
    if not isinstance(params, collections.abc.Mapping):
        raise Error(f"params: {reprlib.repr(params)} is not a dict of parameter names and values")
    pairs = []
    for key, value in params.items():
        if not isinstance(key, str) or not key or "=" in key or "\0" in key:
            raise Error(f"params: {reprlib.repr(key)} is not a parameter name")
        if isinstance(value, str):
            if "\0" in value:
                raise Error(f"params: {key}: {reprlib.repr(value)} is not a number or a choice's name")
            pairs.append((key, value))
        else:
            pairs.append((key, _number(f"params: {key}", value)))
    return pairs


def collide(law, restitution=None, velocity=1.0, radius=0.01, density=7800.0, young=2e11,
            poisson=0.3, params=None, cohesion_removal=True, dt=0.0, calibrate=False,
            friction=0.0, tangential_restitution=None, angle=None, tangential_velocity=None,
            spin1=(0.0, 0.0, 0.0), spin2=(0.0, 0.0, 0.0)):
    """Two identical spheres collide through the engine, as `dempact collide` runs them;
    returns the dict its JSON output holds. dt: 0 for 1/4000 of the contact time, "auto"
    for the step a run would choose, or a step [s]. params: the law's other parameters
    by name (a number, or a choice's name). Every number must be an int, a float or a
    numpy number (not a bool or a string), every flag True or False; the values are
    checked by the rules of `dempact collide` (the same code): anything it refuses raises
    dempact.Error naming the argument. The run is bounded (docs/python.md) and Ctrl-C
    stops it with KeyboardInterrupt."""
    if not isinstance(law, str) or "\0" in law:
        raise Error(f"law: {reprlib.repr(law)} is not a law's name (see dempact.laws())")
    dt_auto = isinstance(dt, str) and dt == "auto"
    return _core.collide(
        law, _params(params), _optional_number("restitution", restitution),
        _number("velocity", velocity), _number("radius", radius), _number("density", density),
        _number("young", young), _number("poisson", poisson),
        0.0 if dt_auto else _number("dt", dt), dt_auto,
        _flag("cohesion_removal", cohesion_removal), _flag("calibrate", calibrate),
        _number("friction", friction),
        _optional_number("tangential_restitution", tangential_restitution),
        _optional_number("angle", angle), _optional_number("tangential_velocity", tangential_velocity),
        _vector("spin1", spin1), _vector("spin2", spin2))
