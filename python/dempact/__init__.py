"""dempact from Python: run a case step by step, read and change its particles between
steps, write snapshots, list the contact laws and collide two spheres.

    import dempact
    sim = dempact.Simulation("cases/pour.yaml")
    sim.run(until=0.01)
    print(sim.time, sim.positions[:3])

Per-particle arrays are read-only numpy copies, row k being the particle with the k-th
smallest id (sim.ids): the engine keeps x, y and z apart and reorders its particles at
neighbour rebuilds, so no view of its memory would keep its meaning across a step.
Errors raise dempact.Error with the engine's message (the case file's line and key); an
argument of the wrong type raises a dempact.Error that is also a TypeError.
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


class _WrongType(Error, TypeError):
    """An argument of the wrong type: a dempact.Error that is also a TypeError."""


_INT64_MAX = 2 ** 63 - 1


def _integer(what, value):
    """A whole number: a Python int or a numpy integer (not a bool, not a float)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _WrongType(f"{what}: an integer, not {value!r} ({type(value).__name__})")
    return int(value)


def _number(what, value):
    """A real number as a float: an int, a float or a numpy number (not a bool, not a
    string); whether it is finite is for the caller's rules."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise _WrongType(f"{what}: a number, not {reprlib.repr(value)} ({type(value).__name__})")
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _finite(what, value):
    """A finite real number."""
    x = _number(what, value)
    if not math.isfinite(x):
        raise Error(f"{what}: {reprlib.repr(value)} is not a finite number")
    return x


def _optional_number(what, value):
    return None if value is None else _number(what, value)


def _vector(what, v, component=_finite):
    """Three numbers (each through `component`), from a sequence of three."""
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or not hasattr(v, "__iter__"):
        raise _WrongType(f"{what}: three numbers (x, y, z), not {reprlib.repr(v)}")
    if len(v) != 3:
        raise Error(f"{what}: three components (x, y, z), not {len(v)}")
    return tuple(component(f"{what}[{k}]", c) for k, c in enumerate(v))


def _flag(what, value):
    """True or False (numpy's too), nothing that merely converts to one ('no' is no flag)."""
    if not isinstance(value, (bool, np.bool_)):
        raise _WrongType(f"{what}: True or False, not {reprlib.repr(value)}")
    return bool(value)


def _path(what, value):
    """A non-empty path: a str or an os.PathLike naming one."""
    if not isinstance(value, (str, os.PathLike)):
        raise _WrongType(f"{what}: a path (str or os.PathLike), not {value!r}")
    path = os.fspath(value)
    if not isinstance(path, str):
        raise _WrongType(f"{what}: a path as str, not {path!r}")
    if not path:
        raise Error(f"{what}: an empty path")
    if "\0" in path:
        raise Error(f"{what}: {path!r} holds a NUL character")
    return path


class Simulation:
    """One simulation of a case file, built and checked as `dempact run` does before its
    first step. Each step is checked by the numerical watchdog; a step it stops raises
    dempact.Error and the simulation takes no further step. Arguments are checked as
    `dempact run` checks its options: a value it would refuse raises dempact.Error, a
    value of the wrong type a dempact.Error that is also a TypeError. Ctrl-C during
    step() or run() raises KeyboardInterrupt between two steps; the simulation stays
    usable (docs/python.md)."""

    def __init__(self, case):
        self._run = _core.Run(_path("case", case))

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

    @property
    def driven(self):
        """Whether velocities, walls or external loads were set from outside (the
        outputs say so)."""
        return self._run.info()["driven"]

    def step(self, n=1):
        """Takes n steps (an integer >= 0; the step count stays at most 2^53)."""
        n = _integer("step: n", n)
        self._run.step(max(-1, min(n, _INT64_MAX)))

    def run(self, until=None, output=None):
        """Steps until the time reaches `until` [s] (the case's time.end by default), to
        the step `dempact run --end-time until` ends at (the first whose time reaches
        it), with its checks. With `output` (a folder), as `dempact run`: samples and
        snapshots go to output/NAME.h5 on the case's time.output_interval and
        time.timeseries_interval grids, the state at the start first if the output holds
        no snapshot of this step, and the last step's always. Returns the path of
        NAME.h5, or None without output."""
        until = self.end_time if until is None else _finite("run: until", until)
        folder = None if output is None else _path("run: output", output)
        return self._run.run_to(until, folder)

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
        """Forces of the last force evaluation [N], (N, 3): contacts, gravity and the
        external loads."""
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
        """Sets particle `id`'s velocity [m/s] for the next step: finite, at most 1e4
        m/s and at most half its radius per step (the rules of a case's particles)."""
        id = _integer("set_velocity: id", id)
        v = _vector("set_velocity: v", v)
        if not -_INT64_MAX - 1 <= id <= _INT64_MAX:
            raise Error(f"set_velocity: no particle has id {id}")
        self._run.set_velocity(id, v)

    def set_velocities(self, v):
        """Sets every particle's velocity: v is (N, 3), in id order (as velocities)."""
        if isinstance(v, (str, bytes)):
            raise _WrongType(f"set_velocities: an (N, 3) array of numbers, not {v!r}")
        try:
            v = np.array(v, dtype=np.float64, order="C")
        except (TypeError, ValueError) as e:
            raise _WrongType(f"set_velocities: an (N, 3) array of numbers ({e})") from None
        if v.ndim != 2 or v.shape[1] != 3:
            raise Error(f"set_velocities: v must be (N, 3), not {v.shape}")
        self._run.set_velocities(v.tobytes())

    def set_wall_velocity(self, index, v):
        """Wall `index` translates at v [m/s] from now on (from where it is now)."""
        index = _integer("set_wall_velocity: index", index)
        v = _vector("set_wall_velocity: v", v)
        if not 0 <= index <= _INT64_MAX:
            raise Error(f"wall index {index}: the case has {len(self.wall_names)} walls")
        self._run.set_wall_velocity(index, v)

    # ---- external loads (a fluid solver coupling by forces)
    def set_external_loads(self, force, torque=None):
        """Applies force [N] (and torque [N m]) to every particle from now on, in every
        step until changed or cleared: (N, 3) arrays of numbers in id order (as
        positions). Each call replaces the last; torque None sets none (and drops any
        set before). The loads act on top of gravity and the contacts, and their work
        is booked in the energy balance (external_work). Refused, with nothing changed:
        a shape other than (N, 3), a value that is not finite, and a load that alone
        would move a particle more than half its radius per step within one step
        (|F| dt^2 / m, or turn it more than half a radian: |T| dt^2 / I). A particle
        an inlet inserts later carries none until the next call; the loads follow the
        particles through the engine's reordering and removals. The run counts as
        driven from outside (driven, docs/python.md)."""
        force = self._loads("force", force)
        torque = None if torque is None else self._loads("torque", torque)
        self._run.set_external_loads(force, torque)

    def clear_external_loads(self):
        """Removes the external loads from now on (the work they did stays booked)."""
        self._run.clear_external_loads()

    @property
    def external_work(self):
        """Work the external loads have done on the particles since t = 0 [J]: each
        step's load times the step's displacement (and turn), as gravity's potential
        energy counts it; the output's energy_residual subtracts it."""
        return self._run.external_work()

    @staticmethod
    def _loads(what, a):
        """An array of numbers as C-ordered float64 (its shape and values are checked
        in C: python/dempact/_forces.c and engine/step/external_loads.c)."""
        if a is None or isinstance(a, (str, bytes)):
            raise _WrongType(f"set_external_loads: {what}: an (N, 3) array of numbers, not {a!r}")
        kind = getattr(getattr(a, "dtype", None), "kind", "f")
        if kind not in "fiu":
            raise _WrongType(f"set_external_loads: {what}: an (N, 3) array of real numbers, "
                             f"not of dtype {a.dtype}")
        try:
            return np.ascontiguousarray(a, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise _WrongType(f"set_external_loads: {what}: an (N, 3) array of numbers ({e})") from None

    # ---- output
    def write_snapshot(self, folder):
        """Appends a snapshot of now to FOLDER/NAME.h5 (the layout of `dempact run`,
        docs/output.md; NAME the case's name). This simulation's first write to a folder
        starts the output there, replacing an earlier output of the same case; later
        writes append to it, also after writes to other folders. A second write of the
        same step leaves the output as it is, or raises dempact.Error when velocities,
        walls or external loads were set since the first. Returns the path of NAME.h5."""
        return self._run.write_snapshot(_path("write_snapshot: folder", folder))

    def close(self):
        """Frees the simulation (and closes its outputs) now rather than when collected."""
        self._run.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def laws():
    """Every contact law the build knows, as `dempact laws` lists them: a list of dicts
    with name, summary, source, parameters (each: name, default, unit, help, choices,
    min, max), calibrates (the coefficient calibration solves, or None), history, and
    elastic and damping: the two parts it composes (None for a law of one piece), the names
    a case may give instead of the law's."""
    return _core.laws()


def friction_laws():
    """Every tangential law (kind "friction", under a contact's friction.model) and rolling
    law (kind "rolling", under rolling.model) the build knows, as `dempact laws --friction`
    lists them: a list of dicts with kind, name, summary, source, keys (the keys each takes
    beside coefficient and model, as laws()'s parameters), default (the tangential law a
    case gets without friction.model) and spring (it stores elastic energy)."""
    return _core.friction_laws()


def _params(params, what="params"):
    """params as (name, float or str) pairs: a number, or the name of a choice."""
    if params is None:
        return []
    if not isinstance(params, collections.abc.Mapping):
        raise Error(f"{what}: {reprlib.repr(params)} is not a dict of parameter names and values")
    pairs = []
    for key, value in params.items():
        if not isinstance(key, str) or not key or "=" in key or "\0" in key:
            raise Error(f"{what}: {reprlib.repr(key)} is not a parameter name")
        if isinstance(value, str):
            if "\0" in value:
                raise Error(f"{what}: {key}: {reprlib.repr(value)} is not a number or a choice's name")
            pairs.append((key, value))
        else:
            pairs.append((key, _number(f"{what}: {key}", value)))
    return pairs


def _model(what, name, known="dempact.friction_laws()"):
    """A tangential, rolling or adhesion law's name, or None."""
    if name is not None and (not isinstance(name, str) or "\0" in name):
        raise _WrongType(f"{what}: {reprlib.repr(name)} is not a law's name "
                         f"(see {known})")
    return name


def collide(law, restitution=None, velocity=1.0, radius=0.01, density=7800.0, young=2e11,
            poisson=0.3, params=None, cohesion_removal=True, dt=0.0, calibrate=False,
            friction=0.0, tangential_restitution=None, angle=None, tangential_velocity=None,
            spin1=(0.0, 0.0, 0.0), spin2=(0.0, 0.0, 0.0), friction_model=None,
            friction_params=None, rolling=None, rolling_model=None, rolling_params=None,
            adhesion=None, adhesion_params=None):
    """Two identical spheres collide through the engine, as `dempact collide` runs them;
    returns the dict its JSON output holds. dt: 0 for 1/4000 of the contact time, "auto"
    for the step a run would choose, or a step [s]. params: the law's other parameters
    by name (a number, or a choice's name). friction_model: the tangential law by name
    (None: mindlin) with its keys in friction_params; rolling_model: a rolling law with
    its coefficient `rolling` and keys in rolling_params (dempact.friction_laws() lists
    them), as a case's friction and rolling mappings. adhesion: an adhesion law by name
    (`dempact laws --adhesion` lists them) with its keys in adhesion_params, as a case's
    adhesion mapping: the dict then names them and says `stuck` (True: the contact still
    held when the run gave up; restitution_out 0). Every number must be an int, a float or a
    numpy number (not a bool or a string), every flag True or False; the values are
    checked by the rules of `dempact collide` (the same code): anything it refuses raises
    dempact.Error naming the argument. The run is bounded (docs/python.md) and Ctrl-C
    stops it with KeyboardInterrupt."""
    if not isinstance(law, str) or "\0" in law:
        raise _WrongType(f"law: {reprlib.repr(law)} is not a law's name (see dempact.laws())")
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
        _vector("spin1", spin1, _number), _vector("spin2", spin2, _number),
        _model("friction_model", friction_model), _params(friction_params, "friction_params"),
        _optional_number("rolling", rolling), _model("rolling_model", rolling_model),
        _params(rolling_params, "rolling_params"), _model("adhesion", adhesion, "dempact laws --adhesion"),
        _params(adhesion_params, "adhesion_params"))
