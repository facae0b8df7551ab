#!/usr/bin/env python3
"""The stick-to-slip kink and the impulse velocity Verlet misses there, in the reference
integrator of the oblique Mindlin collision (tests/lammps/mindlin_reference.py).

    .venv/bin/python tests/lammps/test_stick_slip_kink.py

Chung & Ooi's alumina impact (issue 42's: R 2.55 mm, 3.9 m/s, e 0.98, mu 0.092) at 5 and
10 degrees, with dempact's rules, at N = 20, 40, 80, 160 steps per contact time T and
errors of the rebound spin against N = 16000:
  - without the closing impulse the error at 10 degrees falls by less than 2x over one
    halving: where the contact starts to slide again within a step moves erratically
    with N, and the trapezoid misses part of the impulse there;
  - with it, the error falls by at least 3x per halving at both angles (the issue's
    criterion), as velocity Verlet's second order promises;
  - delivered through the force stored at that step (half in each of its half-kicks, as
    dempact's engine does: closing_bump in models/tangential_spring.h) rather than at
    the step's end, the spins are the same within 1e-9 of the spin's change at every N:
    the half step by which half of it comes late costs a third-order position error;
  - the impulse is 0 unless a contact goes from sticking to sliding: at 45 degrees,
    where the contact slides throughout, the two integrations agree to the bit.
"""
import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_collide as cc  # noqa: E402
import mindlin_reference as mr  # noqa: E402

R, RHO, YOUNG, NU = 0.00255, 4000.0, 3.8e11, 0.23
V0, E, MU = 3.9, 0.98, 0.092
E_EFF = 1.0 / (2.0 * (1.0 - NU * NU) / YOUNG)
G_EFF = 1.0 / (2.0 * (2.0 - NU) / (YOUNG / (2.0 * (1.0 + NU))))
T = 7.1671e-6  # the contact time
STEPS = (20, 40, 80, 160)


def spin(angle, n, closing):
    vt = V0 * math.tan(math.radians(angle))
    return mr.collide(R, RHO, E_EFF, G_EFF, V0, vt, (0.0, 0.0), cc.alpha_tsuji(E), cc.beta_of(E),
                      MU, T / n, closing_impulse=closing)["wz1"]


def halvings(angle, closing):
    ref = spin(angle, 16000, closing)
    errors = [abs(spin(angle, n, closing) - ref) for n in STEPS]
    return errors, [a / b for a, b in zip(errors, errors[1:])]


class Kink(unittest.TestCase):
    def test_without_the_impulse_10_degrees_stalls(self):
        errors, ratios = halvings(10.0, False)
        print("10 degrees, without it: errors", [f"{e:.3g}" for e in errors],
              "per halving", [f"{r:.2f}" for r in ratios])
        self.assertLess(min(ratios), 2.0)

    def test_with_the_impulse_second_order(self):
        for angle in (5.0, 10.0):
            errors, ratios = halvings(angle, True)
            print(f"{angle:g} degrees, closing impulse: errors", [f"{e:.3g}" for e in errors],
                  "per halving", [f"{r:.2f}" for r in ratios])
            self.assertGreaterEqual(min(ratios), 3.0, f"{angle} degrees")

    def test_through_the_force_the_same(self):
        for angle in (5.0, 10.0):
            for n in STEPS:
                at_end, in_force = spin(angle, n, True), spin(angle, n, "force")
                self.assertLess(abs(at_end - in_force), 1e-9 * abs(at_end), f"{angle} degrees, N = {n}")

    def test_no_impulse_in_gross_sliding(self):
        for n in (20, 160):
            self.assertEqual(spin(45.0, n, True), spin(45.0, n, False))


if __name__ == "__main__":
    unittest.main(verbosity=2)
