#!/usr/bin/env python3
"""tools/frictionless_shear.py's analysis against contact networks made by hand.

    .venv/bin/python tests/validation/test_frictionless_shear.py

1. z*: a periodic simple cubic lattice (6 contacts each) gives 6 with no rattler; a
   periodic FCC lattice (12 each) gives 12; a sphere hung on the cubic lattice by 3
   contacts is a rattler and takes nothing of the others' (z* still 6, 1 rattler in
   N + 1); a chain (2 contacts each) has no backbone (z* 0, all rattlers); a lattice
   whose contacts all have overlap 0 or are wall contacts counts none of them.
2. The --check rule on made-up points: monotone points ending at the published limits
   pass; mu that rises as I falls, phi that falls, or a last point outside a bound fail,
   each naming the quantity.
3. The case it writes: the base shear cell without friction, at the rate, with the end
   time strain / rate.
"""
import os
import sys
import unittest

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import frictionless_shear as fs  # noqa: E402


class Contacts:
    def __init__(self, pairs, overlap=1e-6, wall=False):
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        self.id = pairs
        self.overlap = np.full(len(pairs), overlap)
        self.wall = np.full(len(pairs), wall, dtype=np.int8)


def lattice(n, offsets):
    """Pairs of a periodic n x n x n lattice of sites joined to the sites at `offsets`
    (each pair once); ids start at 100 (not indices)."""
    def site(i, j, k):
        return 100 + (i % n) * n * n + (j % n) * n + (k % n)
    pairs = set()
    for i in range(n):
        for j in range(n):
            for k in range(n):
                for di, dj, dk in offsets:
                    a, b = site(i, j, k), site(i + di, j + dj, k + dk)
                    pairs.add((min(a, b), max(a, b)))
    return sorted(pairs), np.arange(100, 100 + n ** 3)


CUBIC = [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
FCC = [(1, 1, 0), (1, -1, 0), (1, 0, 1), (1, 0, -1), (0, 1, 1), (0, 1, -1)]


class ZStar(unittest.TestCase):
    def test_cubic(self):
        pairs, ids = lattice(4, CUBIC)
        self.assertEqual(fs.z_star(Contacts(pairs), ids), (6.0, 0.0))

    def test_fcc(self):
        # FCC as the sites of a cubic lattice with their 12 face-diagonal neighbours
        pairs, ids = lattice(4, FCC)
        self.assertEqual(fs.z_star(Contacts(pairs), ids), (12.0, 0.0))

    def test_rattler_hung_by_three(self):
        pairs, ids = lattice(4, CUBIC)
        extra = 99
        pairs = pairs + [(extra, 100), (extra, 101), (extra, 104)]
        ids = np.append(ids, extra)
        z, rattlers = fs.z_star(Contacts(pairs), ids)
        self.assertEqual(z, 6.0)
        self.assertAlmostEqual(rattlers, 1.0 / len(ids))

    def test_chain(self):
        ids = np.arange(10)
        pairs = [(i, (i + 1) % 10) for i in range(10)]
        self.assertEqual(fs.z_star(Contacts(pairs), ids), (0.0, 1.0))

    def test_untouching_and_walls(self):
        pairs, ids = lattice(3, CUBIC)
        self.assertEqual(fs.z_star(Contacts(pairs, overlap=0.0), ids), (0.0, 1.0))
        self.assertEqual(fs.z_star(Contacts(pairs, wall=True), ids), (0.0, 1.0))
        self.assertEqual(fs.z_star(None, ids), (0.0, 1.0))


def point(i, mu, phi, z):
    return {"inertial_number": i, "mu": mu, "phi": phi, "z_star": z}


class Check(unittest.TestCase):
    GOOD = [point(0.025, 0.19, 0.627, 0.0), point(0.008, 0.145, 0.634, 5.0),
            point(0.0025, 0.12, 0.638, 5.9)]

    def test_good(self):
        self.assertEqual(fs.check(self.GOOD), [])

    def test_each_failure_named(self):
        rising = self.GOOD[:2] + [point(0.0025, 0.15, 0.638, 5.9)]
        falling = self.GOOD[:2] + [point(0.0025, 0.12, 0.630, 5.9)]
        for points, word in [(rising, "mu does not fall"), (falling, "phi does not rise"),
                             (self.GOOD[:2] + [point(0.0025, 0.085, 0.638, 5.9)], "mu = 0.0850"),
                             (self.GOOD[:2] + [point(0.0025, 0.12, 0.645, 5.9)], "phi = 0.6450"),
                             (self.GOOD[:2] + [point(0.0025, 0.12, 0.638, 5.5)], "z_star = 5.5000")]:
            failures = fs.check(points)
            self.assertTrue(any(word in f for f in failures), (word, failures))


class Case(unittest.TestCase):
    def test_frictionless_case(self):
        base = open(fs.BASE["small"]).read()
        case = fs.frictionless_case(base, 2.5, 8.0, "x")
        self.assertNotIn("friction", case["contacts"][0])
        self.assertEqual(case["domain"]["lees_edwards"]["shear_rate"], 2.5)
        self.assertAlmostEqual(case["time"]["end"], 3.2)
        self.assertAlmostEqual(case["time"]["output_interval"], 0.16)


if __name__ == "__main__":
    unittest.main(verbosity=2)
