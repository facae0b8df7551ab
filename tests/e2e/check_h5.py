#!/usr/bin/env python3
"""Usage: check_h5.py FILE.h5
Opens a dempact output as it is (no repair step, also right after a crash) with h5py,
reads every dataset of every snapshot through NAME.h5's links and checks each against
its snapshot's particle, contact and wall counts; checks that the .xmf files beside it
name only snapshot files that are there: every snapshot NAME.h5 names, and at most the
one a run was adding when it stopped. Prints the number of snapshots and the last
step."""
import glob
import os
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    sys.exit(f"FAIL: {e}: install python3-h5py and python3-numpy (tools/setup.sh) and use /usr/bin/python3")


def check_group(name, g, rows):
    for key, d in g.items():
        if isinstance(d, h5py.Group):
            continue
        a = d[()]
        assert a.shape[0] == rows(key), f"{name}/{key}: {a.shape}, expected {rows(key)} rows"
        assert np.all(np.isfinite(a)), f"{name}/{key} is not finite"


def main(path):
    with h5py.File(path, "r", locking=False) as f:
        snaps = f["snapshots"]
        names = sorted(snaps.keys())
        assert names == [f"{k:06d}" for k in range(len(names))], f"gaps in {names}"
        for name in names:
            g = snaps[name]
            n = int(g.attrs["n_particles"])
            m = int(g["contacts"].attrs["n_contacts"])
            for key, d in g.items():
                if key == "engine":  # restart data: read it all
                    for ed in d.values():
                        ed[()]
                elif key == "contacts":
                    check_group(f"{name}/contacts", d, lambda k: 2 * m if k == "endpoints" else m)
                elif key == "walls":
                    v, t = len(d["vertices"]), len(d["triangles"])
                    check_group(f"{name}/walls", d, lambda k: v if k == "vertices" else t)
                    assert t == 0 or d["triangles"][()].max() < v, f"{name}/walls: a triangle names no vertex"
                elif key == "vertex_index":
                    assert np.array_equal(d[()], np.arange(len(d))) and len(d) >= max(n, 2 * m)
                else:
                    a = d[()]
                    assert a.shape[0] == n, f"{name}/{key}: {a.shape}, expected {n} rows"
                    # position_at_rebuild is +inf where the engine marked its list stale
                    assert key == "position_at_rebuild" or np.all(np.isfinite(a)), f"{name}/{key} is not finite"
        ts = f["timeseries"]
        t = ts["time"][()]
        for key, d in ts.items():
            assert d.shape[0] == len(t), f"timeseries/{key}: {d.shape[0]} rows, time has {len(t)}"
        last = int(snaps[names[-1]].attrs["step"]) if names else -1
    folder = os.path.dirname(os.path.abspath(path))
    stem = re.sub(r"\.h5$", "", os.path.basename(path))
    for xmf in glob.glob(os.path.join(folder, stem + "*.xmf")):
        text = open(xmf).read()
        named = sorted(set(re.findall(r">([^<>:]+\.h5):/", text)))
        for snapshot_file in named:
            assert os.path.isfile(os.path.join(folder, snapshot_file)), f"{xmf} names {snapshot_file}, which is not there"
        steps = len(re.findall(r"<Time Value=", text))
        assert steps in (len(names), len(names) + 1), f"{xmf} has {steps} time steps, {path} {len(names)} snapshots"
    print(len(names), last)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except (AssertionError, OSError, KeyError) as e:
        sys.exit(f"FAIL: {sys.argv[1]}: {e}")
