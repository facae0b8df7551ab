#!/usr/bin/python3
"""tools/compare.py's measurements against packings it did not produce: lattices written
by hand into an HDF5 file of dempact's layout (simple cubic: packing fraction pi/6 =
0.5236, coordination 6; FCC: pi/(3 sqrt 2) = 0.7405, coordination 12), spheres cut by
planes (halves, quarters, eighths, a cap against its closed form), a constructed rattler
example that needs the iteration, and a settling time on a made-up energy curve.

    /usr/bin/python3 tests/compare/test_measure.py
"""

import math
import os
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import h5py  # noqa: E402
import compare  # noqa: E402
import compare_measure as cm  # noqa: E402

SC = math.pi / 6
FCC = math.pi / (3 * math.sqrt(2))


def write_lattice_h5(path, centres, radius, box, contacts, friction=True, end=1.0):
    """A one-snapshot file with dempact's layout (docs/output.md), holding the given
    particles and particle-particle contacts, in a closed box (a floor and four sides)."""
    n = len(centres)
    lo, hi = box
    case = f"""name: lattice
domain: {{min: [{lo[0]}, {lo[1]}, {lo[2]}], max: [{hi[0]}, {hi[1]}, {hi[2]}]}}
gravity: [0, 0, -9.81]
time: {{end: {end}}}
contacts:
  - materials: [glass, glass]
    law: hertz_tti
    params: {{restitution: 0.5}}
{"    friction: {coefficient: 0.3}" if friction else ""}
walls:
  - {{name: floor, type: plane, material: steel, point: [0, 0, {lo[2]}], normal: [0, 0, 1]}}
"""
    mass = np.full(n, 1e-3)
    with h5py.File(path, "w") as f:
        f.attrs["dempact_version"] = "test"
        f.attrs["case_name"] = "lattice"
        f.attrs["dt"] = 1e-6
        f.attrs["format"] = 2
        f.attrs["wall_names"] = ["floor"]
        f["case_text"] = case
        s = f.create_group("snapshots/000000")
        s.attrs["time"] = 1.0
        s.attrs["step"] = 1000
        s.attrs["n_particles"] = n
        s["id"] = np.arange(n, dtype=np.int64)
        s["radius"] = np.full(n, radius)
        s["mass"] = mass
        s["position"] = np.asarray(centres, dtype=float)
        c = s.create_group("contacts")
        m = len(contacts)
        c.attrs["n_contacts"] = m
        c["id"] = np.asarray(contacts, dtype=np.int64).reshape(m, 2)
        c["wall"] = np.zeros(m, dtype=np.uint8)
        c["overlap"] = np.full(m, 1e-3 * radius)
        c["normal_force"] = np.linspace(0.5, 1.5, m)
        t = f.create_group("timeseries")
        t["time"] = np.linspace(0, 1, 11)
        for k in ("kinetic_energy", "rotational_energy", "elastic_energy", "dissipated_damping",
                  "dissipated_friction", "dissipated_rolling", "dissipated_plasticity"):
            t[k] = np.zeros(11)
        t["kinetic_energy"][0] = 1.0
        t["dissipated_damping"][-1] = 1.0
        t["gravitational_energy"] = np.zeros(11)
        t["wall_force"] = np.zeros((11, 1, 3))
        t["wall_force"][:, 0, 2] = -mass.sum() * 9.81


def lattice(kind, a, cells, origin=0.0):
    """Centres of a simple cubic (sphere radius a/2) or FCC (radius a sqrt2/4) lattice of
    cubic cells of side a, cells = (nx, ny, nz), and the touching pairs."""
    basis = [(0.5, 0.5, 0.5)] if kind == "sc" else [(0.25, 0.25, 0.25), (0.75, 0.75, 0.25),
                                                   (0.75, 0.25, 0.75), (0.25, 0.75, 0.75)]
    radius = a / 2 if kind == "sc" else a * math.sqrt(2) / 4
    pts = [((i + bx) * a + origin, (j + by) * a + origin, (k + bz) * a + origin)
           for i in range(cells[0]) for j in range(cells[1]) for k in range(cells[2])
           for bx, by, bz in basis]
    pts = np.array(pts)
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
    i, j = np.nonzero(np.triu(np.abs(d - 2 * radius) < 1e-9 * a, 1))
    return pts, radius, np.stack([i, j], axis=1)


class Volumes(unittest.TestCase):
    def test_cut_spheres(self):
        lo, hi = np.zeros(3), np.ones(3)
        v = 4 / 3 * math.pi * 0.2 ** 3
        for centre, frac in [((0.5, 0.5, 0.5), 1), ((0, 0.5, 0.5), 0.5), ((0.5, 0.5, 1), 0.5),
                             ((0, 0, 0.5), 0.25), ((1, 0.5, 0), 0.25), ((0, 1, 1), 0.125),
                             ((2, 2, 2), 0)]:
            got = cm.sphere_box_volume(np.array([centre]), np.array([0.2]), lo, hi)[0]
            self.assertAlmostEqual(got / v, frac, delta=1e-9, msg=str(centre))

    def test_cap(self):
        # a sphere of radius 0.2 whose centre is 0.1 inside a face: the cap outside has
        # height h = 0.1, volume pi h^2 (3 r - h) / 3
        r, h = 0.2, 0.1
        inside = 4 / 3 * math.pi * r ** 3 - math.pi * h * h * (3 * r - h) / 3
        for centre in ((0.1, 0.5, 0.5), (0.5, 0.9, 0.5), (0.5, 0.5, 0.1)):
            got = cm.sphere_box_volume(np.array([centre]), np.array([r]), np.zeros(3), np.ones(3))[0]
            self.assertAlmostEqual(got / inside, 1, delta=1e-5, msg=str(centre))


class Lattices(unittest.TestCase):
    def check(self, kind, phi, z, tol):
        a = 0.004
        pts, radius, pairs = lattice(kind, a, (9, 9, 10), origin=0.0)
        box = (np.zeros(3), np.array([9 * a, 9 * a, 10 * a + 0.02]))  # room above the top
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lattice.h5")
            write_lattice_h5(path, pts, radius, box, pairs)
            row, curves = compare.measure(path)
        self.assertAlmostEqual(row["phi_bulk"], phi, delta=tol)
        self.assertAlmostEqual(row["z_mean"], z, delta=1e-12)
        self.assertAlmostEqual(row["z_no_rattlers"], z, delta=1e-12)
        self.assertEqual(row["rattler_fraction"], 0.0)
        self.assertAlmostEqual(row["floor_load_over_weight"], 1.0, delta=1e-12)
        self.assertAlmostEqual(row["energy_balance_error"], 0.0, delta=1e-12)

    def test_incomplete_run(self):
        # a file whose last snapshot (t = 1) is short of the case's end (2 s): left out
        pts, radius, pairs = lattice("sc", 0.004, (3, 3, 3))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "short.h5")
            write_lattice_h5(path, pts, radius, (np.zeros(3), np.full(3, 0.02)), pairs, end=2.0)
            with self.assertRaises(compare.Incomplete):
                compare.measure(path)

    def test_simple_cubic(self):
        # the bulk box is 2 diameters = 2 cells in from each wall and from the top:
        # a whole number of cells, so pi/6 up to the quadrature
        self.check("sc", SC, 6, 2e-6)   # 0.5236

    def test_fcc(self):
        # 2 diameters = sqrt 2 cells: the bulk box cuts the lattice off its period,
        # which moves the fraction by a few 1e-4 at this size
        self.check("fcc", FCC, 12, 5e-4)  # 0.7405
        a = 1.0
        pts, radius, _ = lattice("fcc", a, (7, 7, 7))
        lo = np.array([1.3, 1.7, 1.1])
        self.assertAlmostEqual(cm.packing_fraction(pts, np.full(len(pts), radius), lo, lo + [3, 4, 5]),
                               FCC, delta=2e-6)

    def test_region_offset(self):
        # a region cutting the lattice anywhere, a whole number of cells wide: still pi/6
        a = 1.0
        pts, radius, _ = lattice("sc", a, (8, 8, 8))
        lo = np.array([1.37, 2.11, 1.5])
        self.assertAlmostEqual(cm.packing_fraction(pts, np.full(len(pts), radius), lo, lo + [4, 3, 5]),
                               SC, delta=2e-6)


class Rattlers(unittest.TestCase):
    # a triangle 2-3-4 with a chain 0-1-2 hanging off it, and a wall under 5 which
    # touches nothing else. With friction (2 contacts needed): 0 has one contact, and
    # once it is gone 1 has one too: rattlers {0, 1, 5}; the triangle keeps 2 each.
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 2)]
    walls = [5]

    def test_iterative(self):
        ratt, counts = cm.rattlers(6, self.pairs, self.walls, min_contacts=2)
        self.assertEqual(np.nonzero(ratt)[0].tolist(), [0, 1, 5])
        self.assertEqual(counts.tolist(), [0, 0, 2, 2, 2, 0])

    def test_frictionless_removes_all(self):
        ratt, _ = cm.rattlers(6, self.pairs, self.walls, min_contacts=4)
        self.assertTrue(ratt.all())

    def test_coordination(self):
        z, z_nr, frac = cm.coordination(6, self.pairs, self.walls, np.ones(6, bool), 2)
        self.assertAlmostEqual(z, (1 + 2 + 3 + 2 + 2 + 1) / 6)
        self.assertAlmostEqual(z_nr, 2.0)
        self.assertAlmostEqual(frac, 3 / 6)


class Piston(unittest.TestCase):
    def test_schedule(self):
        # down 0.2 m/s for 0.1 s, up 0.1 m/s for 0.05 s, then rest (as the engine:
        # tests/compare/test_wall_motion.c)
        wall = {"point": [0, 0, 1], "motion": [{"duration": 0.1, "velocity": [0, 0, -0.2]},
                                               {"duration": 0.05, "velocity": [0, 0, 0.1]}]}
        z = compare.piston_position(wall, [0, 0.05, 0.1, 0.125, 0.15, 3.0])[:, 2]
        np.testing.assert_allclose(z, [1, 0.99, 0.98, 0.9825, 0.985, 0.985], atol=1e-15)
        still = compare.piston_position({"point": [0, 0, 1], "velocity": [0, 0, -1]}, [0.5])
        np.testing.assert_allclose(still[0], [0, 0, 0.5], atol=1e-15)


class Settling(unittest.TestCase):
    def test_threshold(self):
        t = np.linspace(0, 1, 101)
        e = np.exp(-20 * t) * (1 + 0.5 * np.sin(40 * t) ** 2)
        e[5] = 2.0  # the peak
        got = cm.settling_time(t, e, 1e-6)
        # the first sample after which every sample is below 2e-6 (and 10 samples at least)
        below = e < 2e-6
        k = next(k for k in range(len(t)) if below[k:].all())
        self.assertEqual(got, t[k])
        self.assertTrue(0.5 < got < 0.8)
        self.assertTrue(math.isnan(cm.settling_time(t, np.ones_like(t), 1e-6)))
        # below only for the last 9 samples: not confirmed
        late = np.where(t < 0.915, 1.0, 1e-9)
        self.assertTrue(math.isnan(cm.settling_time(t, late, 1e-6)))
        self.assertEqual(cm.settling_time(t, np.where(t < 0.895, 1.0, 1e-9), 1e-6), t[90])


if __name__ == "__main__":
    unittest.main()
