#!/usr/bin/env python3
"""tools/compare.py's measurements against packings it did not produce: lattices written
by hand into an HDF5 file of dempact's layout (simple cubic: packing fraction pi/6 =
0.5236, coordination 6; FCC: pi/(3 sqrt 2) = 0.7405, coordination 12), spheres cut by
planes (halves, quarters, eighths, a cap against its closed form), a constructed rattler
example that needs the iteration, a settling time on a made-up energy curve; the stress
tensor against tractions on planes (a simple cubic lattice loaded by known bond forces:
sigma_aa = F_a / a^2, shear -T / a^2) and against statics (a column of spheres on a
floor: the weight over the area in a slab at the floor, half of it over the whole
column, the weight above each height averaged over any slab); the fabric tensor on
simple cubic and FCC lattices (I/3) and on vertical contacts only (diag(0, 0, 1));
periodic images; the energy books on a made-up history.

    .venv/bin/python tests/compare/test_measure.py
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


def write_lattice_h5(path, centres, radius, box, contacts, friction=True, end=1.0,
                     periodic=(False, False, False), force=None):
    """A one-snapshot file with dempact's layout (docs/output.md), holding the given
    particles and particle-particle contacts (each pushing its pair apart along the line
    of centres, by `force` or forces from 0.5 to 1.5 N), in a box with a floor and, along
    the axes that are not periodic, side walls. With periodic axes a pair's normal is
    taken to the nearest image."""
    n = len(centres)
    lo, hi = box
    case = f"""name: lattice
domain: {{min: [{lo[0]}, {lo[1]}, {lo[2]}], max: [{hi[0]}, {hi[1]}, {hi[2]}],
  periodic: [{str(periodic[0]).lower()}, {str(periodic[1]).lower()}, {str(periodic[2]).lower()}]}}
gravity: [0, 0, -9.81]
time: {{end: {end}}}
materials:
  - {{name: glass, density: 2500, young: 1.0e7, poisson: 0.25}}
contacts:
  - materials: [glass, glass]
    law: hertz_tti
    params: {{restitution: 0.5}}
{"    friction: {coefficient: 0.3}" if friction else ""}
walls:
  - {{name: floor, type: plane, material: steel, point: [0, 0, {lo[2]}], normal: [0, 0, 1]}}
"""
    mass = np.full(n, 1e-3)
    pairs = np.asarray(contacts, dtype=np.int64).reshape(-1, 2)
    m = len(pairs)
    d = centres[pairs[:, 1]] - centres[pairs[:, 0]]
    for k in range(3):
        if periodic[k]:
            length = hi[k] - lo[k]
            d[:, k] -= length * np.round(d[:, k] / length)
    normal = d / np.linalg.norm(d, axis=1)[:, None]
    fn = np.linspace(0.5, 1.5, m) if force is None else np.full(m, float(force))
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
        s["type"] = np.zeros(n, dtype=np.int32)
        s["radius"] = np.full(n, radius)
        s["mass"] = mass
        s["position"] = np.asarray(centres, dtype=float)
        c = s.create_group("contacts")
        c.attrs["n_contacts"] = m
        c["id"] = pairs
        c["wall"] = np.zeros(m, dtype=np.uint8)
        c["overlap"] = np.zeros(m)
        c["normal"] = normal
        c["point"] = centres[pairs[:, 0]] + radius * normal
        c["normal_force"] = fn
        c["normal_force_vector"] = -fn[:, None] * normal  # on i: pushed away from j
        c["tangential_force"] = np.zeros((m, 3))
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
        return row

    def test_periodic_simple_cubic(self):
        # periodic in x and y (the lattice fills the period, shifted off the faces, bonds
        # across them to the nearest image), every bond pushing with F = 2 N: the bulk
        # spans the whole period; pi/6, 6 contacts, and the traction on any plane
        # sigma_aa = F / a^2, isotropic fabric
        a, force = 0.004, 2.0
        pts, radius, _ = lattice("sc", a, (6, 6, 10))
        pts = pts + [0.37 * a, -0.41 * a, 0.0]
        lo, hi = np.zeros(3), np.array([6 * a, 6 * a, 10 * a + 0.02])
        d = pts[:, None, :] - pts[None, :, :]
        d[..., :2] -= 6 * a * np.round(d[..., :2] / (6 * a))
        i, j = np.nonzero(np.triu(np.abs(np.linalg.norm(d, axis=2) - a) < 1e-9 * a, 1))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "periodic.h5")
            write_lattice_h5(path, pts, radius, (lo, hi), np.stack([i, j], 1),
                             periodic=(True, True, False), force=force)
            row, _ = compare.measure(path)
        self.assertAlmostEqual(row["phi_bulk"], SC, delta=2e-6)
        self.assertAlmostEqual(row["z_mean"], 6, delta=1e-12)
        for k in ("xx", "yy", "zz"):
            self.assertAlmostEqual(row[f"sigma_{k}_Pa"] / (force / a ** 2), 1.0, delta=1e-9, msg=k)
            self.assertAlmostEqual(row[f"fabric_{k}"], 1 / 3, delta=1e-12, msg=k)
        self.assertAlmostEqual(row["sigma_xz_Pa"], 0.0, delta=1e-9 * force / a ** 2)
        self.assertAlmostEqual(row["k_ratio"], 1.0, delta=1e-9)

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
        row = self.check("sc", SC, 6, 2e-6)   # 0.5236
        # bonds pushing with 0.5 to 1.5 N: the fabric stays I / 3 (2 cells in from the
        # side walls, floor and top: whole cells)
        for k in ("xx", "yy", "zz"):
            self.assertAlmostEqual(row[f"fabric_{k}"], 1 / 3, delta=1e-12)

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

    def test_servo_holds(self):
        # the stretches between two entries of one target, then the last target to the end
        # (docs/case-file.md#servo-walls-wallsservo); a force over the servo's area
        wall = {"servo": {"area": 0.5, "targets": [
            {"time": 0, "stress": 0}, {"time": 0.1, "stress": 0}, {"time": 0.1, "force": 5},
            {"time": 0.3, "stress": 10}, {"time": 0.4, "stress": 2}, {"time": 0.5, "force": 1},
            {"time": 0.6, "stress": 7}]}}
        self.assertEqual(compare.servo_holds(wall, 9.0),
                         [(0.1, 0.0), (0.3, 10.0), (0.5, 2.0), (None, 7.0)])
        self.assertEqual(compare.servo_holds({"servo": {"force": 3}}, 2.0), [(None, 1.5)])
        self.assertEqual(compare.servo_holds({"motion": []}, 2.0), [])

    def test_servo_curve(self):
        # a servo piston's position from the time series' wall_displacement, not from a
        # schedule: strain = travel since the touch / height then; the holds' ends
        case = {"domain": {"min": [0, 0, 0], "max": [1, 2, 3]},
                "walls": [{"name": "piston", "type": "plane", "point": [0, 0, 2],
                           "normal": [0, 0, -1],
                           "servo": {"area": 2, "targets": [
                               {"time": 0, "stress": 4}, {"time": 0.2, "stress": 4},
                               {"time": 0.3, "stress": 1}]}}]}
        t = np.linspace(0, 0.4, 9)  # every 0.05 s
        z = -np.array([0, 0.1, 0.2, 0.3, 0.35, 0.38, 0.3, 0.3, 0.3])
        shift = np.zeros((9, 1, 3))
        shift[:, 0, 2] = z
        force = np.zeros((9, 1, 3))
        force[:, 0, 2] = [0, 0, 0.5, 4, 7, 8, 3, 2, 2]  # the particles push it up
        ts = {"time": t, "wall_force": force, "wall_displacement": shift}
        c = compare.compression_curve(None, case, ts)
        # touch: the first sample at 1% of the peak (index 2, z = 1.8 above the floor)
        np.testing.assert_allclose(c["strain"][2:], (1.8 - (2 + z[2:])) / 1.8, atol=1e-15)
        np.testing.assert_allclose(c["stress"], force[:, 0, 2] / 2, atol=1e-15)
        self.assertEqual(len(c["holds"]), 2)
        (p1, t1, s1, e1), (p2, t2, s2, e2) = c["holds"]
        self.assertEqual((p1, t1, s1), (4.0, 0.2, 3.5))  # the sample at 0.2 s
        self.assertAlmostEqual(e1, (1.8 - 1.65) / 1.8, places=15)
        self.assertEqual((p2, t2, s2), (1.0, 0.4, 1.0))
        self.assertAlmostEqual(e2, (1.8 - 1.7) / 1.8, places=15)


class Stress(unittest.TestCase):
    def sc_bonds(self, a, cells, fx, fy, fz, shear=0.0):
        """A simple cubic lattice (spacing a) with every bond along axis k pushing its two
        spheres apart with force f_k, and a tangential force `shear` on the z bonds along
        x (and on the x bonds along z, so each sphere is in moment balance)."""
        pts, radius, pairs = lattice("sc", a, cells)
        d = pts[pairs[:, 1]] - pts[pairs[:, 0]]
        n = d / np.linalg.norm(d, axis=1)[:, None]
        axis = np.argmax(np.abs(n), axis=1)
        push = np.array([fx, fy, fz])[axis]
        force_on_i = -push[:, None] * n  # pushed away from j
        t = np.zeros_like(force_on_i)
        t[axis == 2, 0] = shear * np.sign(n[axis == 2, 2])
        t[axis == 0, 2] = shear * np.sign(n[axis == 0, 0])
        return pts, radius, pairs, d, force_on_i + t

    def test_lattice_tractions(self):
        # traction on a plane normal to x: one bond line per a^2 carries F_x, so
        # sigma_xx = F_x / a^2 (compression positive); the tangential force on the lower
        # sphere of each z bond is +T x: the Cauchy traction T / a^2, so sigma_xz = -T / a^2
        a, fx, fy, fz, T = 0.002, 1.0, 2.0, 3.0, 0.25
        pts, radius, pairs, d, f = self.sc_bonds(a, (6, 6, 6), fx, fy, fz, T)
        for lo, hi in [((a, a, a), (5 * a, 5 * a, 5 * a)), ((a, 2 * a, a), (4 * a, 5 * a, 3 * a)),
                       ((1.3 * a, 0.7 * a, 2.1 * a), (4.3 * a, 3.7 * a, 5.1 * a))]:
            # boxes whole numbers of cells wide: a bond line per a^2 of each face
            lo, hi = np.array(lo), np.array(hi)
            sigma, w = cm.contact_stress(pts[pairs[:, 0]], d, f, lo, hi, np.prod(hi - lo))
            want = np.array([[fx, 0, -T], [0, fy, 0], [-T, 0, fz]]) / a ** 2
            np.testing.assert_allclose(sigma, want, atol=1e-9 * fz / a ** 2, err_msg=str(lo))
        p, q, k = cm.stress_invariants(sigma)
        self.assertAlmostEqual(p, (fx + fy + fz) / 3 / a ** 2, delta=1e-6 * p)
        self.assertAlmostEqual(k, (fx + fy) / 2 / fz, delta=1e-12)

    def column(self, n, r, m, g=9.81):
        """n spheres of radius r and mass m stacked on a floor at z = 0: centres, the
        contacts' first-particle centres, branch vectors and forces on the first particle
        (statics: the floor carries n m g, the pair above sphere k the n - 1 - k above)."""
        z = r + 2 * r * np.arange(n)
        centres = np.stack([np.zeros(n), np.zeros(n), z], axis=1)
        start, branch, force = [centres[0]], [[0, 0, -r]], [[0, 0, n * m * g]]  # floor
        for k in range(n - 1):
            start.append(centres[k])
            branch.append([0, 0, 2 * r])
            force.append([0, 0, -(n - 1 - k) * m * g])  # j above pushes i down
        return centres, np.array(start), np.array(branch, float), np.array(force, float)

    def test_column_under_gravity(self):
        n, r, m, g, side = 12, 0.001, 2e-5, 9.81, 0.002
        area = side * side
        centres, start, branch, force = self.column(n, r, m, g)
        lo_xy, hi_xy = [-side / 2, -side / 2], [side / 2, side / 2]
        # a slab at the floor, thinner than a radius: the weight over the area
        lo, hi = np.array(lo_xy + [0.0]), np.array(hi_xy + [0.3 * r])
        sigma, _ = cm.contact_stress(start, branch, force, lo, hi, area * 0.3 * r)
        self.assertAlmostEqual(sigma[2, 2] / (n * m * g / area), 1.0, delta=1e-12)
        # the whole column: the mean of a profile falling from W / A to 0, half of it
        lo, hi = np.array(lo_xy + [0.0]), np.array(hi_xy + [2 * r * n])
        sigma, _ = cm.contact_stress(start, branch, force, lo, hi, area * 2 * r * n)
        self.assertAlmostEqual(sigma[2, 2] / (n * m * g / area / 2), 1.0, delta=1e-12)
        self.assertEqual(sigma[0, 0], 0.0)
        # any slab: the weight of the spheres whose centres are above z, averaged over
        # the slab (a staircase, integrated here on a fine grid)
        for z0, z1 in [(0.0031, 0.0094), (0.0005, 0.021), (0.0101, 0.0102)]:
            zz = np.linspace(z0, z1, 200001)
            above = (centres[:, 2][None, :] > zz[:, None]).sum(axis=1) * m * g / area
            want = np.trapz(above, zz) / (z1 - z0)
            lo, hi = np.array(lo_xy + [z0]), np.array(hi_xy + [z1])
            sigma, _ = cm.contact_stress(start, branch, force, lo, hi, area * (z1 - z0))
            self.assertAlmostEqual(sigma[2, 2] / want, 1.0, delta=2e-4, msg=f"{z0}..{z1}")

    def test_segment_fraction(self):
        lo, hi = np.zeros(3), np.ones(3)
        got = cm.segment_fraction_in_box(
            [[0.5, 0.5, -0.5], [0.5, 0.5, 0.5], [2, 2, 2], [-1, 0.5, 0.5], [0.5, 0.5, 0.5]],
            [[0, 0, 2], [0, 0, 0.1], [1, 0, 0], [4, 0, 0], [0, 0, 0]], lo, hi)
        np.testing.assert_allclose(got, [0.5, 1.0, 0.0, 0.25, 1.0])
        free = np.array([-np.inf, -np.inf, 0.0]), np.array([np.inf, np.inf, 1.0])
        np.testing.assert_allclose(cm.segment_fraction_in_box([[50, -9, 0.5]], [[100, 0, 1]], *free), [0.5])


class Fabric(unittest.TestCase):
    def test_lattices_isotropic(self):
        for kind in ("sc", "fcc"):
            pts, radius, pairs = lattice(kind, 1.0, (4, 4, 4))
            d = pts[pairs[:, 1]] - pts[pairs[:, 0]]
            # the bonds of a whole lattice are not all complete cells; weight by the
            # fraction inside a box of whole cells well inside it
            lo, hi = np.full(3, 1.0), np.full(3, 3.0)
            w = cm.segment_fraction_in_box(pts[pairs[:, 0]], d, lo, hi)
            phi = cm.fabric_tensor(d, w)
            np.testing.assert_allclose(phi, np.eye(3) / 3, atol=1e-12, err_msg=kind)
            a, norm = cm.fabric_anisotropy(phi)
            self.assertAlmostEqual(a, 0.0, delta=1e-12)
            self.assertAlmostEqual(norm, 0.0, delta=1e-12)

    def test_vertical_contacts(self):
        n = np.array([[0, 0, 1.0], [0, 0, -2.0], [0, 0, 0.5]])
        phi = cm.fabric_tensor(n)
        np.testing.assert_allclose(phi, np.diag([0, 0, 1.0]), atol=1e-15)
        np.testing.assert_allclose(cm.deviator(phi), np.diag([-1 / 3, -1 / 3, 2 / 3]), atol=1e-15)
        a, norm = cm.fabric_anisotropy(phi)
        self.assertAlmostEqual(a, 1.0, delta=1e-15)
        self.assertAlmostEqual(norm, 1.0, delta=1e-15)


class Periodic(unittest.TestCase):
    def test_images_keep_fraction(self):
        # a simple cubic lattice shifted by a third of a cell and wrapped into a periodic
        # box: the images restore pi/6 in a region spanning the whole period
        a = 1.0
        pts, radius, _ = lattice("sc", a, (5, 5, 5))
        pts = pts + [a / 3, 0.45 * a, 0.0]
        lo, hi = np.zeros(3), np.array([5.0, 5.0, 5.0])
        c, r = cm.periodic_images(pts, np.full(len(pts), radius), lo, hi, (True, True, False))
        self.assertGreater(len(c), len(pts))
        region_lo, region_hi = np.array([0, 0, 1.0]), np.array([5, 5, 4.0])
        self.assertAlmostEqual(cm.packing_fraction(c, r, region_lo, region_hi), SC, delta=2e-6)
        self.assertLess(cm.packing_fraction(pts, np.full(len(pts), radius), region_lo, region_hi),
                        SC - 0.01)  # without the images the cut spheres are lost


class EnergyBooks(unittest.TestCase):
    def test_books_and_residual(self):
        # a made-up history: 10 J of potential energy become 1 J kinetic, 0.5 J elastic,
        # and 2, 3, 0.25, 3 J dissipated; 0.2 J is not booked, and a wall put 0.5 J in
        n = 5
        ts = {"kinetic_energy": np.linspace(0, 1, n), "rotational_energy": np.zeros(n),
              "gravitational_energy": np.linspace(10, 0, n), "elastic_energy": np.linspace(0, 0.5, n),
              "dissipated_damping": np.linspace(0, 2, n), "dissipated_friction": np.linspace(0, 3, n),
              "dissipated_rolling": np.linspace(0, 0.25, n), "dissipated_plasticity": np.linspace(0, 3, n)}
        books, residual, rel = cm.energy_books(ts, wall_work=0.5)
        self.assertEqual(books, {"damping": 2.0, "friction": 3.0, "rolling": 0.25, "plasticity": 3.0})
        self.assertAlmostEqual(residual, (1 + 0.5 + 8.25) - 10 - 0.5)
        self.assertAlmostEqual(rel, residual / 8.75)


class Settling(unittest.TestCase):
    def test_scale(self):
        # 240 beads of 0.1 g and 4 mm: n m g d = 240 * 1e-4 * 9.81 * 0.004
        self.assertAlmostEqual(cm.settle_scale(240, 1e-4, 0.004, -9.81), 9.41760e-4, delta=1e-12)
        t = np.linspace(0, 1, 101)
        e = np.where(t < 0.5, 1.0, 1e-5)
        self.assertEqual(cm.settling_time(t, e, 1e-4, scale=1.0), t[50])
        self.assertTrue(math.isnan(cm.settling_time(t, e, 1e-6, scale=1.0)))

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
