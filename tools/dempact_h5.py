#!/usr/bin/env python3
"""Read a dempact output file (DIR/NAME.h5) into numpy arrays.

    import sys; sys.path.insert(0, "tools")      # or copy this file next to your script
    import dempact_h5

    run = dempact_h5.Run("output/pour.h5")
    print(run.case_name, run.dt, len(run))       # case, timestep, number of snapshots
    print(run.steps, run.times)                  # step and time of every snapshot
    snap = run.snapshot(time=0.2)                # the snapshot nearest t = 0.2 s
    snap = run.snapshot(step=40000)              # ... at exactly that step
    snap = run.snapshot()                        # ... the last one (index=-1)
    snap.position.shape, snap.radius.max()       # (N, 3) and (N,) numpy arrays
    snap.contacts.normal_force                   # (M,): the force network
    snap.contacts.id                             # (M, 2): particle ids (wall index if wall)
    snap.walls.vertices, snap.walls.triangles    # the walls as triangles at that time
    ts = run.timeseries()                        # dict: time, kinetic_energy, ..., wall_force,
                                                 # wall_torque, wall_displacement
    print(run.case_text)                         # the case file the run was made with

Every dataset of docs/output.md is an attribute of the snapshot (per particle), of its
`contacts` (per contact) or of its `walls` (per wall triangle). Needs h5py and numpy: run
with the project's environment, `.venv/bin/python` (bash tools/setup.sh makes it).

From the command line, `dempact_h5.py FILE.h5 [--time T | --step N | --index K]` prints
the file's snapshots and a summary of one of them.

A run writes each snapshot to its own file (DIR/NAME.d/NNNNNN.h5) and DIR/NAME.h5 links
to them, so f["snapshots/000003/position"] works in plain h5py too. Every file opens as
it is, even while the run writes or after it was killed. Files of the older single-file
layout (format 2) read the same way.
"""

import os
import sys

try:
    import h5py
    import numpy as np
except ImportError as exc:  # pragma: no cover - message for users without h5py
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import venv_hint
    if __name__ == "__main__":
        sys.exit(venv_hint.message("dempact_h5", exc))
    raise ImportError(venv_hint.message("dempact_h5", exc)) from exc


class _Table:
    """Named numpy arrays, as attributes and as a dict."""

    def __init__(self, arrays, attrs):
        self.arrays = arrays
        self.attrs = attrs

    def __getattr__(self, name):
        try:
            return self.__dict__["arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name):
        return self.arrays[name]

    def keys(self):
        return self.arrays.keys()

    def __len__(self):
        rows = self.arrays.get("id", self.arrays.get("wall"))  # per particle, contact or triangle
        return 0 if rows is None else len(rows)


class Snapshot(_Table):
    """One snapshot: per-particle arrays as attributes (id, type, radius, mass, position,
    velocity, angular_velocity, force, torque, n_contacts, kinetic_energy,
    rotational_energy, position_at_rebuild), `contacts` (a table of per-contact arrays,
    None if the snapshot has none), `walls` (vertices, triangles and wall: the walls'
    triangles at this time; None without walls), `time`, `step`, `index`."""

    def __init__(self, group, index):
        arrays = {k: np.asarray(v[()]) for k, v in group.items() if isinstance(v, h5py.Dataset)}
        super().__init__(arrays, dict(group.attrs))
        self.index = index
        self.time = float(group.attrs["time"])
        self.step = int(group.attrs["step"])
        self.contacts = None
        if "contacts" in group:
            c = group["contacts"]
            self.contacts = _Table({k: np.asarray(v[()]) for k, v in c.items()}, dict(c.attrs))
        self.walls = None
        if "walls" in group:
            w = group["walls"]
            self.walls = _Table({k: np.asarray(v[()]) for k, v in w.items()}, dict(w.attrs))

    def __repr__(self):
        m = "no" if self.contacts is None else len(self.contacts)
        return (f"<Snapshot {self.index}: step {self.step}, t = {self.time:g} s, "
                f"{len(self)} particles, {m} contacts>")


class Run:
    """A dempact output file. Snapshots are read on demand."""

    def __init__(self, path):
        self.path = str(path)
        with self._open() as f:
            self.version = _text(f.attrs.get("dempact_version", ""))
            self.case_name = _text(f.attrs.get("case_name", ""))
            self.dt = float(f.attrs.get("dt", float("nan")))
            self.format = int(f.attrs.get("format", 1))
            self.wall_names = [_text(w) for w in f.attrs.get("wall_names", [])]
            self.case_text = _text(f["case_text"][()]) if "case_text" in f else None
            names = []
            if "snapshots" in f:
                k = 0
                while f"{k:06d}" in f["snapshots"]:
                    names.append(f"{k:06d}")
                    k += 1
            self._names = names
            self.steps = np.array([int(f["snapshots"][n].attrs["step"]) for n in names], dtype=np.int64)
            self.times = np.array([float(f["snapshots"][n].attrs["time"]) for n in names])
            self.n_particles = np.array([int(f["snapshots"][n].attrs["n_particles"]) for n in names],
                                        dtype=np.int64)

    def _open(self):
        return h5py.File(self.path, "r", locking=False)

    def __len__(self):
        return len(self._names)

    def index_of(self, step=None, time=None, index=None):
        """The snapshot index for a step (exact), a time (nearest) or an index."""
        if len(self) == 0:
            raise LookupError(f"{self.path} holds no snapshot")
        given = [x is not None for x in (step, time, index)]
        if sum(given) > 1:
            raise ValueError("give one of step, time and index")
        if step is not None:
            hit = np.nonzero(self.steps == step)[0]
            if len(hit) == 0:
                raise LookupError(f"no snapshot at step {step}; steps: {self.steps.tolist()}")
            return int(hit[0])
        if time is not None:
            return int(np.argmin(np.abs(self.times - time)))
        k = -1 if index is None else int(index)
        if not -len(self) <= k < len(self):
            raise IndexError(f"snapshot index {k} out of range ({len(self)} snapshots)")
        return k % len(self)

    def snapshot(self, step=None, time=None, index=None):
        """Loads a snapshot: by step (exact), time (nearest) or index (default: the last)."""
        k = self.index_of(step, time, index)
        with self._open() as f:
            return Snapshot(f["snapshots"][self._names[k]], k)

    def __iter__(self):
        for k in range(len(self)):
            yield self.snapshot(index=k)

    def timeseries(self):
        """The global values sampled during the run: a dict of numpy arrays (T,), and
        wall_force, wall_torque and wall_displacement (T, W, 3) when there are walls. NaN
        columns are not computed yet."""
        with self._open() as f:
            if "timeseries" not in f:
                return {}
            return {k: np.asarray(v[()]) for k, v in f["timeseries"].items()}


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def main(argv):
    import argparse

    p = argparse.ArgumentParser(description="Summarise a dempact output file.")
    p.add_argument("file")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--time", type=float)
    g.add_argument("--step", type=int)
    g.add_argument("--index", type=int)
    a = p.parse_args(argv)
    run = Run(a.file)
    print(f"{a.file}: case {run.case_name}, dempact {run.version}, dt = {run.dt:g} s, "
          f"{len(run)} snapshots")
    for k in range(len(run)):
        print(f"  {k:4d}  step {run.steps[k]:10d}  t = {run.times[k]:.8g} s  "
              f"{run.n_particles[k]} particles")
    if len(run) == 0:
        return 0
    s = run.snapshot(step=a.step, time=a.time, index=a.index)
    print(s)
    print(f"  radius {s.radius.min():.4g} .. {s.radius.max():.4g} m, "
          f"kinetic energy {s.kinetic_energy.sum():.6g} J")
    if s.contacts is not None and len(s.contacts):
        fn = s.contacts.normal_force
        print(f"  normal force {fn.min():.4g} .. {fn.max():.4g} N, largest overlap "
              f"{s.contacts.overlap.max():.4g} m")
    ts = run.timeseries()
    if "time" in ts and len(ts["time"]):
        print(f"  time series: {len(ts['time'])} samples, t = {ts['time'][0]:g} .. "
              f"{ts['time'][-1]:g} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
