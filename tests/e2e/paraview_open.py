"""Run with ParaView's own Python: pvpython paraview_open.py RUN.xmf
Opens a dempact run's .xmf the way a user does (the Xdmf3 Reader (T)) and checks what
ParaView sees against the HDF5 file beside it, read with h5py:
  - the number of time steps and their times are the snapshots';
  - at every step the "particles" block has N points (N = n_particles of the snapshot)
    and the range of the point array "radius" is the snapshot's;
  - the "contacts" block has one two-point line per contact, and the ranges of the cell
    arrays normal_force and overlap are the snapshot's;
  - a Glyph filter (Sphere, scaled by radius, factor 2), the README's recipe, makes
    spheres of the particles' true size and nothing at the contact lines.
Exits 1 with a message on the first difference."""
import os
import sys

import numpy as np

try:
    import h5py
    from paraview import servermanager
    from paraview.simple import Glyph, Xdmf3ReaderT
except ImportError as e:
    sys.exit(f"FAIL: {e} (needs python3-paraview and python3-h5py: run with /usr/bin/pvpython)")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def array_range(block, where, name):
    data = block.GetPointData() if where == "point" else block.GetCellData()
    a = data.GetArray(name)
    if a is None:
        fail(f"{where} array {name} missing")
    return a.GetRange(0)


def blocks(dataset):
    out = {}
    for b in range(dataset.GetNumberOfBlocks()):
        name = dataset.GetMetaData(b).Get(dataset.NAME())
        out[name.split("[")[0]] = dataset.GetBlock(b)
    return out


def main(xmf):
    h5 = os.path.splitext(xmf)[0] + ".h5"
    f = h5py.File(h5, "r", locking=False)
    snaps = [f["snapshots"][k] for k in sorted(f["snapshots"].keys())]
    reader = Xdmf3ReaderT(FileName=[xmf])
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues)
    if len(times) != len(snaps):
        fail(f"ParaView sees {len(times)} time steps, the file has {len(snaps)} snapshots")
    glyph = Glyph(Input=reader, GlyphType="Sphere")
    glyph.ScaleArray = ["POINTS", "radius"]
    glyph.ScaleFactor = 2.0
    glyph.GlyphMode = "All Points"
    n_contacts = 0
    for t, g in zip(times, snaps):
        if abs(t - g.attrs["time"]) > 1e-12 * max(1.0, abs(t)):
            fail(f"time step {t} is not the snapshot's time {g.attrs['time']}")
        reader.UpdatePipeline(t)
        b = blocks(servermanager.Fetch(reader))
        if set(b) != {"particles", "contacts"}:
            fail(f"t = {t}: blocks {sorted(b)}, expected particles and contacts")
        p, c = b["particles"], b["contacts"]
        n, m = int(g.attrs["n_particles"]), int(g["contacts"].attrs["n_contacts"])
        if p.GetNumberOfPoints() != n or p.GetNumberOfCells() != n:
            fail(f"t = {t}: {p.GetNumberOfPoints()} points, {p.GetNumberOfCells()} cells, expected {n}")
        r = g["radius"][()]
        if array_range(p, "point", "radius") != (r.min(), r.max()):
            fail(f"t = {t}: radius range {array_range(p, 'point', 'radius')}, file {r.min()}, {r.max()}")
        if c.GetNumberOfCells() != m or c.GetNumberOfPoints() != 2 * m:
            fail(f"t = {t}: {c.GetNumberOfCells()} contact lines, expected {m}")
        if m:
            if c.GetCellType(0) not in (3, 4):  # VTK_LINE, VTK_POLY_LINE (of two points)
                fail(f"t = {t}: contact cells are of VTK type {c.GetCellType(0)}, not lines")
            for name in ("normal_force", "overlap"):
                v = g["contacts"][name][()]
                if array_range(c, "cell", name) != (v.min(), v.max()):
                    fail(f"t = {t}: {name} range {array_range(c, 'cell', name)}, file {v.min()}, {v.max()}")
        n_contacts += m
        # spheres of the true size at the particles, nothing at the contacts' ends
        glyph.UpdatePipeline(t)
        gb = blocks(servermanager.Fetch(glyph))
        bounds = gb["particles"].GetBounds()
        pos = g["position"][()]
        for a in range(3):
            lo, hi = (pos[:, a] - r).min(), (pos[:, a] + r).max()
            # a tessellated sphere reaches a little less far than the true one
            if abs(bounds[2 * a] - lo) > 0.1 * r.max() or abs(bounds[2 * a + 1] - hi) > 0.1 * r.max():
                fail(f"t = {t}: glyph bounds {bounds} are not the spheres' [{lo}, {hi}] along axis {a}")
        if m and gb.get("contacts") is not None and gb["contacts"].GetNumberOfPoints():
            cb = gb["contacts"].GetBounds()
            ends = g["contacts"]["endpoints"][()]
            if cb[0] < ends[:, 0].min() - 1e-9 or cb[1] > ends[:, 0].max() + 1e-9:
                fail(f"t = {t}: the Glyph draws spheres at the contact lines (bounds {cb})")
    if n_contacts == 0:
        fail("no snapshot has contacts: the case does not test the force network")
    print(f"ParaView: {len(times)} time steps, particles and contacts match {os.path.basename(h5)} "
          f"({n_contacts} contact lines in all)")


if __name__ == "__main__":
    main(sys.argv[1])
