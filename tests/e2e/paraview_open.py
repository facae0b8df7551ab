"""Run with ParaView's own Python: pvpython paraview_open.py RUN.xmf
Opens a dempact output's .xmf files the way a user does (the Xdmf3 Reader (T): NAME.xmf,
NAME_contacts.xmf and, when there, NAME_walls.xmf), drives the animation forward through
every time step, back to the first, to the last and to the first again, and checks what
ParaView sees at each step against the HDF5 files, read with h5py:
  - the time steps are the snapshots' times, the same in the three files (every
    snapshot NAME.h5 names, and at most one more a run was adding when it stopped:
    that one is read from its own file);
  - the particles are one plain unstructured grid (no blocks to lose) of N points and N
    cells, and the range of the point array "radius" is the snapshot's;
  - the contacts are one two-point line per contact with the snapshot's normal_force and
    overlap ranges as cell data (a snapshot without contacts: the one zero-length
    stand-in line, every value 0), and no radius array;
  - the walls are the snapshot's triangles, its wall indices as cell data;
  - a Glyph filter (Sphere, scaled by radius, factor 2), the documented recipe, makes
    spheres of the particles' true size.
Exits 1 with a message on the first difference (a crash of the reader kills pvpython)."""
import os
import sys

try:
    import h5py
    from paraview import servermanager
    from paraview.simple import GetAnimationScene, GetTimeKeeper, Glyph, Xdmf3ReaderT
except ImportError as e:
    sys.exit(f"FAIL: {e} (needs python3-paraview and python3-h5py: run with /usr/bin/pvpython)")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def array_range(data, where, name):
    arrays = data.GetPointData() if where == "point" else data.GetCellData()
    a = arrays.GetArray(name)
    if a is None:
        fail(f"{where} array {name} missing")
    return a.GetRange(0)


def main(xmf):
    xmf = os.path.abspath(xmf)  # ParaView's XDMF 3 reader needs the folder in the path
    stem = xmf[:-len(".xmf")]
    f = h5py.File(stem + ".h5", "r", locking=False)
    snaps = [f["snapshots"][k] for k in sorted(f["snapshots"].keys())]
    extra = f"{stem}.d/{len(snaps):06d}.h5"  # the .xmf files may name it before NAME.h5 does
    files = {"particles": xmf, "contacts": stem + "_contacts.xmf"}
    if os.path.exists(stem + "_walls.xmf"):
        files["walls"] = stem + "_walls.xmf"
    elif "wall_names" in f.attrs:
        fail(f"the case has walls and {stem}_walls.xmf is missing")
    readers = {k: Xdmf3ReaderT(FileName=[v]) for k, v in files.items()}
    times = None
    for kind, r in readers.items():
        r.UpdatePipelineInformation()
        t = list(r.TimestepValues) if len(snaps) > 1 else [float(snaps[0].attrs["time"])]
        if times is not None and t != times:
            fail(f"{kind} has time steps {t[:3]}..., the particles {times[:3]}...")
        times = t
    if len(times) == len(snaps) + 1 and os.path.exists(extra):
        snaps.append(h5py.File(extra, "r", locking=False)["/"])
    if len(times) != len(snaps):
        fail(f"ParaView sees {len(times)} time steps, the output has {len(snaps)} snapshots")
    for t, g in zip(times, snaps):
        if abs(t - g.attrs["time"]) > 1e-12 * max(1.0, abs(t)):
            fail(f"time step {t} is not the snapshot's time {g.attrs['time']}")
    glyph = Glyph(Input=readers["particles"], GlyphType="Sphere")
    glyph.ScaleArray = ["POINTS", "radius"]
    glyph.ScaleFactor = 2.0
    glyph.GlyphMode = "All Points"
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    keeper = GetTimeKeeper()
    # forward through every step, back to the first, the last, the first again
    moves = ["GoToFirst"] + ["GoToNext"] * (len(times) - 1) + ["GoToFirst", "GoToLast", "GoToFirst"]
    n_contacts = 0
    for move in moves:
        getattr(scene, move)()
        t = keeper.Time
        k = min(range(len(times)), key=lambda q: abs(times[q] - t))
        g = snaps[k]
        for r in readers.values():
            r.UpdatePipeline(t)
        got = {kind: servermanager.Fetch(r) for kind, r in readers.items()}
        for kind, data in got.items():
            if data.GetClassName() != "vtkUnstructuredGrid":
                fail(f"t = {t}: {kind} is a {data.GetClassName()}, not one unstructured grid")
        p, c = got["particles"], got["contacts"]
        n, m = int(g.attrs["n_particles"]), int(g["contacts"].attrs["n_contacts"])
        if max(n, 1) != p.GetNumberOfPoints() or max(n, 1) != p.GetNumberOfCells():
            fail(f"t = {t}: {p.GetNumberOfPoints()} points, {p.GetNumberOfCells()} cells, expected {n}")
        if n:
            r = g["radius"][()]
            if array_range(p, "point", "radius") != (r.min(), r.max()):
                fail(f"t = {t}: radius range {array_range(p, 'point', 'radius')}, file {r.min()}, {r.max()}")
        if c.GetNumberOfCells() != max(m, 1) or c.GetNumberOfPoints() != 2 * max(m, 1):
            fail(f"t = {t}: {c.GetNumberOfCells()} contact lines, expected {m}")
        if c.GetPointData().GetArray("radius") is not None:
            fail("the contacts have a radius array: a Glyph over them would draw spheres")
        if c.GetCellType(0) not in (3, 4):  # VTK_LINE, VTK_POLY_LINE (of two points)
            fail(f"t = {t}: contact cells are of VTK type {c.GetCellType(0)}, not lines")
        for name in ("normal_force", "overlap"):
            v = g["contacts"][name][()] if m else [0.0]
            if array_range(c, "cell", name) != (min(v), max(v)):
                fail(f"t = {t}: {name} range {array_range(c, 'cell', name)}, file {min(v)}, {max(v)}")
        if "walls" in got:
            w, tri = got["walls"], len(g["walls/triangles"])
            if w.GetNumberOfCells() != max(tri, 1) or (tri and w.GetCellType(0) != 5):  # VTK_TRIANGLE
                fail(f"t = {t}: {w.GetNumberOfCells()} wall cells, expected {tri} triangles")
            if tri and array_range(w, "cell", "wall") != (g["walls/wall"][()].min(), g["walls/wall"][()].max()):
                fail(f"t = {t}: wall index range {array_range(w, 'cell', 'wall')}")
        n_contacts += m
        # spheres of the true size at the particles
        if n:
            glyph.UpdatePipeline(t)
            bounds = servermanager.Fetch(glyph).GetBounds()
            pos, r = g["position"][()], g["radius"][()]
            for a in range(3):
                lo, hi = (pos[:, a] - r).min(), (pos[:, a] + r).max()
                # a tessellated sphere reaches a little less far than the true one
                if abs(bounds[2 * a] - lo) > 0.1 * r.max() or abs(bounds[2 * a + 1] - hi) > 0.1 * r.max():
                    fail(f"t = {t}: glyph bounds {bounds} are not the spheres' [{lo}, {hi}] along axis {a}")
    if n_contacts == 0 and len(snaps) > 2:
        fail("no snapshot has contacts: the case does not test the force network")
    print(f"ParaView: {len(times)} time steps of {', '.join(readers)}, played forward, back to the first, "
          f"to the last and to the first again; they match {os.path.basename(stem)}.h5")


if __name__ == "__main__":
    main(sys.argv[1])
