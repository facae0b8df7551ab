"""dempact.read: one snapshot of an output (`dempact run`'s or write_snapshot's
DIR/NAME.h5, docs/output.md) as numpy arrays, over h5py."""
import h5py
import numpy as np

from ._core import Error


def _group_arrays(group):
    return {name: np.asarray(item[()]) for name, item in group.items()
            if isinstance(item, h5py.Dataset)}


def read(path, index=-1, step=None):
    """Returns snapshot `index` of the output at `path` (the last by default; or the one
    taken at `step`) as a dict: "time", "step", every per-particle dataset ("id",
    "position", "velocity", ...), "contacts" (a dict of the contact network's datasets)
    and "snapshots" (how many the file holds)."""
    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        raise Error(f"{path}: cannot open: {exc}") from None
    with f:
        if "snapshots" not in f or len(f["snapshots"]) == 0:
            raise Error(f"{path}: holds no snapshots (not a dempact output?)")
        names = sorted(f["snapshots"])
        if step is not None:
            found = [n for n in names if int(f["snapshots"][n].attrs["step"]) == step]
            if not found:
                raise Error(f"{path}: no snapshot at step {step}")
            name = found[0]
        else:
            try:
                name = names[index]
            except IndexError:
                raise Error(f"{path}: index {index}: the file holds {len(names)} snapshots") from None
        snap = f["snapshots"][name]
        out = _group_arrays(snap)
        out["time"] = float(snap.attrs["time"])
        out["step"] = int(snap.attrs["step"])
        out["contacts"] = _group_arrays(snap["contacts"]) if "contacts" in snap else {}
        out["snapshots"] = len(names)
        return out
