#!/usr/bin/env python3
"""Usage: check_h5.py FILE.h5
Reads every dataset of every snapshot of a dempact output file with h5py (the file must
open without any recovery: run `dempact info` first after a crash) and checks each
against its snapshot's particle and contact counts; checks that the .xmf beside it names
no snapshot the file does not have. Prints the number of snapshots and the last step."""
import os
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    sys.exit(f"FAIL: {e}: install python3-h5py and python3-numpy (tools/setup.sh) and use /usr/bin/python3")


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
                    for ek, ed in d.items():
                        ed[()]
                    continue
                if isinstance(d, h5py.Group):
                    for ck, cd in d.items():
                        a = cd[()]
                        rows = 2 * m if ck == "endpoints" else m
                        assert a.shape[0] == rows, f"{name}/contacts/{ck}: {a.shape}, expected {rows} rows"
                        assert np.all(np.isfinite(a)), f"{name}/contacts/{ck} is not finite"
                else:
                    a = d[()]
                    assert a.shape[0] == n, f"{name}/{key}: {a.shape}, expected {n} rows"
                    # position_at_rebuild is infinite where the engine marked its list stale
                    assert key == "position_at_rebuild" or np.all(np.isfinite(a)), f"{name}/{key} is not finite"
        ts = f["timeseries"]
        t = ts["time"][()]
        for key, d in ts.items():
            assert d.shape[0] == len(t), f"timeseries/{key}: {d.shape[0]} rows, time has {len(t)}"
        last = int(snaps[names[-1]].attrs["step"]) if names else -1
    xmf = re.sub(r"\.h5$", ".xmf", path)
    if os.path.exists(xmf):
        grids = len(re.findall(r'<Grid Name="snapshot_', open(xmf).read()))
        assert grids <= len(names), f"{xmf} names {grids} snapshots, the file has {len(names)}"
    print(len(names), last)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except (AssertionError, OSError, KeyError) as e:
        sys.exit(f"FAIL: {sys.argv[1]}: {e}")
