#!/usr/bin/env python3
"""An output of the older single-file layout (format 2) is read and restarted.

usage: restart_older_file.py DEMPACT CASE OLD.h5

OLD.h5 is CASE's output in layout 2 (one HDF5 file holding every snapshot) to half its
end time, written by an older dempact (tests/data/e2e/format2_pour.h5): `dempact info`
must list its snapshots, and a restart from it must run to the end and carry its
snapshots unchanged. The physics of that older build is not this one's, so bit-identity
is checked on a layout-2 file made here: this dempact's own output to half the end time,
rewritten by h5py in the layout-2 shape (every snapshot a group of the one file, the case
text a variable-length string, no energy_residual series). Two restarts from it must each
end bit-identical (positions, velocities, spins, step) to an unbroken run of CASE:
  - in place, from a copy from which every contacts/tangential_slip and
    engine/wall_work_sum was deleted (what a file from before the microslip model and
    the walls' running work sums looks like; without the reader's zero fill, or with
    wall_work_sum required, the restart is refused): the output becomes layout 3 in the
    same folder, with its snapshots carried into NAME.d/;
  - into another folder, from the file as it is.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

dempact, case, old = sys.argv[1], sys.argv[2], sys.argv[3]
name = next(l.split(":", 1)[1].strip() for l in open(case) if l.startswith("name:"))


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def last_state(h5):
    with h5py.File(h5, "r") as f:
        snaps = f["snapshots"]
        s = snaps[sorted(snaps)[-1]]
        out = {k: s[k][()] for k in ("position", "velocity", "angular_velocity")}
        out["step"] = int(s.attrs["step"])
        out["format"] = int(f.attrs["format"])
        out["count"] = len(snaps)
    return out


def same(a, b):
    return a["step"] == b["step"] and all(np.array_equal(a[k], b[k]) for k in ("position", "velocity", "angular_velocity"))


def to_layout2(src, dst):
    """Rewrites the layout-3 output src (NAME.h5 and NAME.d/) as one layout-2 file dst."""
    with h5py.File(src, "r") as f, h5py.File(dst, "w") as g:
        for k, v in f.attrs.items():
            g.attrs[k] = v
        g.attrs["format"] = np.int32(2)
        text = f["case_text"][()]
        g.create_dataset("case_text", data=text.decode() if isinstance(text, bytes) else text,
                         dtype=h5py.string_dtype("utf-8"))
        ts = g.create_group("timeseries")
        for k in f["timeseries"]:
            if k != "energy_residual":
                f.copy(f["timeseries"][k], ts, k)
        snaps = g.create_group("snapshots")
        for k in sorted(f["snapshots"]):
            src_snap = f["snapshots"][k]
            dst_snap = snaps.create_group(k)
            for a, v in src_snap.attrs.items():
                dst_snap.attrs[a] = v
            for item in src_snap:
                if item not in ("walls", "vertex_index"):
                    f.copy(src_snap[item], dst_snap, item)


with tempfile.TemporaryDirectory() as work:
    def run(out, *extra):
        subprocess.run([dempact, "run", case, "--output", out, "--quiet", "--threads", "1", *extra], check=True)

    with h5py.File(old, "r") as f:
        assert int(f.attrs["format"]) == 2, "the stored file is not of layout 2"
        kept = len(f["snapshots"])
    info = subprocess.run([dempact, "info", old], capture_output=True, text=True)
    if info.returncode != 0 or f"snapshots:   {kept}" not in info.stdout or "layout format 2" not in info.stdout:
        fail(f"dempact info on the layout-2 file:\n{info.stdout}{info.stderr}")

    # restarts from the real older file: carried as they are, run to the end
    real = os.path.join(work, "real")
    run(real, "--restart", old)
    with h5py.File(old, "r") as f, h5py.File(os.path.join(real, name + ".h5"), "r") as g:
        for k in sorted(f["snapshots"]):
            for field in ("position", "velocity", "angular_velocity"):
                if not np.array_equal(f["snapshots"][k][field][()], g["snapshots"][k][field][()]):
                    fail(f"snapshot {k} of the layout-2 file was not carried as it is ({field})")
        if int(g.attrs["format"]) != 3 or len(g["snapshots"]) <= kept:
            fail("the restart from the layout-2 file did not go on in layout 3")

    # the unbroken run, and this dempact's own layout-2 file to half its end time
    c = os.path.join(work, "c")
    run(c)
    unbroken = last_state(os.path.join(c, name + ".h5"))
    with h5py.File(old, "r") as f:
        half = float(f["snapshots"][sorted(f["snapshots"])[-1]].attrs["time"])
    h = os.path.join(work, "half")
    run(h, "--end-time", repr(half))
    made = os.path.join(work, "made.h5")
    to_layout2(os.path.join(h, name + ".h5"), made)

    # in place, from a copy with the later datasets deleted
    a = os.path.join(work, "a")
    os.mkdir(a)
    h5 = os.path.join(a, name + ".h5")
    shutil.copy(made, h5)
    removed = removed_sums = 0
    with h5py.File(h5, "r+") as f:
        for snap in f["snapshots"].values():
            if "tangential_slip" in snap["contacts"]:
                del snap["contacts"]["tangential_slip"]
                removed += 1
            if "wall_work_sum" in snap["engine"]:
                del snap["engine"]["wall_work_sum"]
                removed_sums += 1
    assert removed > 0 and removed_sums > 0, "the file had no tangential_slip or wall_work_sum to remove"
    run(a, "--restart", h5)
    in_place = last_state(h5)
    with h5py.File(made, "r") as f:
        made_count = len(f["snapshots"])
    for k in range(made_count):
        if not os.path.isfile(os.path.join(a, f"{name}.d/{k:06d}.h5")):
            fail(f"snapshot {k} of the layout-2 file was not carried into {name}.d/")
    # into another folder, from the file as it is
    b = os.path.join(work, "b")
    run(b, "--restart", made)
    elsewhere = last_state(os.path.join(b, name + ".h5"))

for label, got in (("in place", in_place), ("elsewhere", elsewhere)):
    if got["format"] != 3 or got["count"] != unbroken["count"]:
        fail(f"{label}: layout {got['format']} with {got['count']} snapshots, the unbroken run has {unbroken['count']}")
    if not same(got, unbroken):
        fail(f"{label}: the restarted run at step {got['step']} differs from the unbroken one at {unbroken['step']}")
print(f"layout 2: dempact info lists the older file's {kept} snapshots and a restart carries them; "
      f"a layout-2 file of this build restarted in place (tangential_slip removed from "
      f"{removed}, wall_work_sum from {removed_sums} snapshots) and elsewhere, both bit-identical to the "
      f"unbroken run at step {unbroken['step']}")
