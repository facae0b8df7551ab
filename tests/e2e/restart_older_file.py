#!/usr/bin/env python3
"""A snapshot written before the microslip model (no contacts/tangential_slip) and before
the walls' running work sums (no engine/wall_work_sum) restarts.

usage: restart_older_file.py DEMPACT CASE

Runs CASE (no microslip: its slip state is zero; with walls) to half its end time,
deletes every contacts/tangential_slip and engine/wall_work_sum dataset from the file
(what a file from before both looks like), restarts to the end, and compares the last
snapshot with an unbroken run: positions, velocities and spins must be bit-identical.
Without the reader's zero fill, or with wall_work_sum required, the restart is refused.
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

dempact, case = sys.argv[1], sys.argv[2]
name = next(l.split(":", 1)[1].strip() for l in open(case) if l.startswith("name:"))
end = 0.02
with tempfile.TemporaryDirectory() as work:
    def run(out, *extra):
        subprocess.run([dempact, "run", case, "--output", out, "--quiet", "--threads", "1", *extra],
                       check=True)
    run(os.path.join(work, "a"), "--end-time", str(end / 2))
    h5 = os.path.join(work, "a", name + ".h5")
    with h5py.File(h5, "r+") as f:
        removed = removed_sums = 0
        for snap in f["snapshots"].values():
            if "tangential_slip" in snap["contacts"]:
                del snap["contacts"]["tangential_slip"]
                removed += 1
            if "wall_work_sum" in snap["engine"]:
                del snap["engine"]["wall_work_sum"]
                removed_sums += 1
    assert removed > 0, "the file had no tangential_slip to remove"
    assert removed_sums > 0, "the file had no engine/wall_work_sum to remove"
    run(os.path.join(work, "a"), "--restart", h5, "--end-time", str(end))
    run(os.path.join(work, "b"), "--end-time", str(end))
    last = {}
    for tag, path in (("restarted", h5), ("unbroken", os.path.join(work, "b", name + ".h5"))):
        with h5py.File(path, "r") as f:
            snaps = f["snapshots"]
            s = snaps[sorted(snaps)[-1]]
            last[tag] = {k: s[k][()] for k in ("position", "velocity", "angular_velocity")}
            last[tag]["step"] = s.attrs["step"]
same = last["restarted"]["step"] == last["unbroken"]["step"] and all(
    np.array_equal(last["restarted"][k], last["unbroken"][k])
    for k in ("position", "velocity", "angular_velocity"))
print(f"removed tangential_slip and wall_work_sum from {removed} and {removed_sums} snapshots; "
      f"restarted run at step "
      f"{last['restarted']['step']} {'bit-identical to' if same else 'DIFFERS from'} the unbroken one")
sys.exit(0 if same else 1)
