#!/usr/bin/env python3
"""The shear stage's sweep of tools/compare.py (--rates, --restitution E1,E2,...)
against made-up inputs with known answers:

- the list options (tools/compare_sweep.py): a list of distinct values in range, in any
  order, comes back sorted; an empty item, a value that is not a number, not finite,
  out of range, or given twice is refused naming the option (hypothesis: 60 generated
  lists a run, and a fixed list of bad ones);
- the end time of a rate: every rate shears the base case's strain, |R| t_end(R) =
  |R_ref| t_ref, the output intervals scale by R_ref / R, the case's sign of the rate is
  kept, --end-time replaces the case's end as the reference (hypothesis: 60 generated
  (R_ref, t_ref, R) a run);
- the run folders' names (one e and no --rates: LAW_MODE, today's layout) and the
  planning of the sweep (the laws without a restitution once per rate);
- the fits (tools/compare_shear_fit.py): mu(I) recovers known mu_s, mu_2, I_0 from
  points on the curve (5 points and 3 points), says "not determined" for points on a
  straight line and for a falling mu; phi = phi_c - a I recovers a known line and its
  errors' closed form for two points;
- the grouping of made-up rows per law, mode, e and rate (2 seeds each; hertz's rows,
  without a restitution, one group per rate), and the curves per law and e;
- the command line: a bad --rates (0, -5, abc, empty, a value twice, ...) or
  --restitution list is refused before anything else, exit 2, one line naming the
  argument, the --out folder not made; --rates and a list of e with the packing stage
  are refused naming the argument (12 calls of tools/compare.py, about 5 s);
- the marker's rule (compare.differing_setting): a report of e = 0.3,0.9 and rates
  5,20,80 refuses a call with another list of either (added, removed or changed values,
  or without --rates), naming the argument; the same lists in another order are the
  same call.

    .venv/bin/python tests/compare/test_shear_sweep.py
"""

import math
import os
import sys
import unittest

import subprocess
import tempfile

import numpy as np
from hypothesis import given, settings, strategies as st

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import compare  # noqa: E402
import compare_report as cr  # noqa: E402
import compare_shear_fit as fit  # noqa: E402
import compare_sweep as sweep  # noqa: E402


def shear_case(rate=20.0, end=0.3, out=0.05, ts=0.001):
    return {"domain": {"lees_edwards": {"shear_rate": rate, "pressure": 1000.0,
                                        "pressure_time": 0.01}},
            "time": {"end": end, "step": "auto", "output_interval": out,
                     "timeseries_interval": ts}}


class ListOptions(unittest.TestCase):
    @settings(max_examples=60, deadline=None, database=None)
    @given(st.lists(st.floats(1e-3, 1e4, allow_nan=False), min_size=1, max_size=8,
                    unique=True), st.randoms(use_true_random=False))
    def test_valid_lists_sorted(self, values, rnd):
        values = [float(f"{v:.6g}") for v in values]
        if len(set(values)) != len(values):
            return
        rnd.shuffle(values)
        text = ",".join(repr(v) for v in values)
        self.assertEqual(sweep.parse_values(text, "--rates", 0.0), sorted(values))

    def test_bad_values_refused(self):
        for option, low, high, bad in (
                ("--rates", 0.0, None, ["0", "-5", "abc", "", "5,,20", "20,20", "20,20.0",
                                        "nan", "inf", "5,", ",".join(["1"] * 30)]),
                ("--restitution", 0.0, 1.0, ["0", "1.5", "0.3,0.3", "0.3,", "e", "-0.5"])):
            for text in bad:
                with self.assertRaises(sweep.SweepError, msg=text) as cm:
                    sweep.parse_values(text, option, low, high)
                self.assertTrue(str(cm.exception).startswith(option + " "), str(cm.exception))
        self.assertEqual(sweep.parse_values("1", "--restitution", 0.0, 1.0), [1.0])
        self.assertIsNone(sweep.parse_values(None, "--rates", 0.0))


class StrainRule(unittest.TestCase):
    def test_small_case(self):
        case = shear_case()
        end = sweep.apply_rate(case, 5.0)
        self.assertAlmostEqual(end, 1.2, delta=1e-15)
        self.assertEqual(case["time"]["end"], end)
        self.assertAlmostEqual(case["time"]["output_interval"], 0.2, delta=1e-15)
        self.assertAlmostEqual(case["time"]["timeseries_interval"], 0.004, delta=1e-15)
        self.assertEqual(case["domain"]["lees_edwards"]["shear_rate"], 5.0)
        self.assertEqual(case["domain"]["lees_edwards"]["pressure_time"], 0.01)
        self.assertEqual(case["time"]["step"], "auto")
        # --end-time 0.1 is the reference at the case's rate: 2 strain units
        case = shear_case(rate=-20.0)
        self.assertAlmostEqual(sweep.apply_rate(case, 80.0, 0.1), 0.025, delta=1e-15)
        self.assertEqual(case["domain"]["lees_edwards"]["shear_rate"], -80.0)

    @settings(max_examples=60, deadline=None, database=None)
    @given(st.floats(-500, 500).filter(lambda r: abs(r) > 1e-2), st.floats(1e-3, 10),
           st.floats(1e-2, 1e3))
    def test_same_strain(self, ref_rate, ref_end, rate):
        case = shear_case(ref_rate, ref_end)
        end = sweep.apply_rate(case, rate)
        self.assertAlmostEqual(rate * end / (abs(ref_rate) * ref_end), 1.0, delta=1e-12)
        # the samples per strain unit are the case's
        self.assertAlmostEqual(case["time"]["timeseries_interval"] * rate,
                               0.001 * abs(ref_rate), delta=1e-12 * abs(ref_rate))
        self.assertEqual(math.copysign(1, case["domain"]["lees_edwards"]["shear_rate"]),
                         math.copysign(1, ref_rate))


class Planning(unittest.TestCase):
    def test_folder_names(self):
        self.assertEqual(sweep.suffix("off", 0.5, None, False), "")
        self.assertEqual(sweep.suffix("off", 0.3, 20.0, True), "_e0.3_r20")
        self.assertEqual(sweep.suffix("-", 0.3, 20.0, True), "_r20")
        self.assertEqual(sweep.suffix("on", 0.3, None, True), "_e0.3")

    def test_variants(self):
        def plans_of_e(e):
            return [("hertz_tti", "off", {"restitution": e}, False, [0, 1]),
                    ("hertz", "-", {}, False, [0, 1])]
        v = sweep.variants(plans_of_e, [0.3, 0.9], [5.0, 20.0, 80.0])
        self.assertEqual(len(v), 2 * 3 + 3)
        self.assertEqual(sorted((x[0], x[5], x[6]) for x in v if x[0] == "hertz"),
                         [("hertz", 0.3, r) for r in (5.0, 20.0, 80.0)])
        self.assertEqual(sorted({(x[5], x[6]) for x in v if x[0] == "hertz_tti"}),
                         [(e, r) for e in (0.3, 0.9) for r in (5.0, 20.0, 80.0)])
        for x in v:
            if x[0] == "hertz_tti":
                self.assertEqual(x[2]["restitution"], x[5])
        self.assertEqual(len(sweep.variants(plans_of_e, [0.5], None)), 2)


class Fits(unittest.TestCase):
    def test_mu_recovered(self):
        import mu_of_i
        truth = (0.38, 0.64, 0.28)
        for i in ([0.01, 0.03, 0.1, 0.3, 1.0], [0.02, 0.1, 0.5]):
            mu = mu_of_i.mu_model(i, *truth)
            f = fit.fit_mu(i, mu, [0.003] * len(i))
            self.assertTrue(f["ok"], f)
            for k, want in zip(("mu_s", "mu_2", "I_0"), truth):
                self.assertAlmostEqual(f[k] / want, 1.0, delta=1e-5, msg=(k, i))

    def test_mu_not_determined(self):
        # a straight line over the range: the curve's bend (I_0) is not fixed
        i = np.array([0.016, 0.063, 0.25])
        f = fit.fit_mu(i, 0.4 + 0.1 * i, [0.005] * 3)
        self.assertFalse(f["ok"], f)
        self.assertIn("not fixed", f["why"])
        f = fit.fit_mu(i, [0.5, 0.45, 0.4], [0.005] * 3)
        self.assertFalse(f["ok"], f)

    def test_phi_line(self):
        i = np.array([0.01, 0.05, 0.2, 0.3])
        phi_c, a, _, _ = fit.fit_line(i, 0.6 - 0.2 * i, [0.001] * 4)
        self.assertAlmostEqual(phi_c, 0.6, delta=1e-12)
        self.assertAlmostEqual(a, 0.2, delta=1e-12)
        # two points, error s each: phi_c's error s sqrt(x1^2 + x2^2) / (x2 - x1)
        phi_c, a, ce, ae = fit.fit_line([0.1, 0.3], [0.58, 0.54], [0.002, 0.002])
        self.assertAlmostEqual(a, 0.2, delta=1e-12)
        self.assertAlmostEqual(ce, 0.002 * math.sqrt(0.01 + 0.09) / 0.2, delta=1e-12)
        self.assertAlmostEqual(ae, 0.002 * math.sqrt(2) / 0.2, delta=1e-12)


class Grouping(unittest.TestCase):
    def rows(self):
        rows = []
        for law, mode, es in (("hertz_tti", "off", (0.9, 0.3)), ("hertz", "-", (None,))):
            for e in es:
                for rate in (80.0, 5.0, 20.0):
                    for seed in (1, 0):
                        rows.append({"law": law, "calibrate": mode, "seed": seed,
                                     "restitution": float("nan") if e is None else e,
                                     "shear_rate_1_s": rate, "inertial_number": rate / 320,
                                     "mu": 0.4 + rate / 1000 + seed * 1e-3})
        return rows

    def test_groups(self):
        rows = self.rows()
        g = fit.sweep_groups(rows, cr.groups(rows))
        self.assertEqual(len(g), 2 * 3 + 3)
        for (law, mode, e, rate), idx in g.items():
            self.assertEqual(len(idx), 2)
            for i in idx:
                self.assertEqual(rows[i]["law"], law)
                self.assertEqual(rows[i]["shear_rate_1_s"], rate)
                self.assertTrue(rows[i]["restitution"] == e or
                                (e is None and math.isnan(rows[i]["restitution"])))
        tti = [k for k in g if k[0] == "hertz_tti"]
        self.assertEqual(tti, [("hertz_tti", "off", e, r) for e in (0.3, 0.9)
                               for r in (5.0, 20.0, 80.0)])
        curves = fit.curves(g)
        self.assertEqual(sorted(curves, key=str), sorted(
            [("hertz_tti", "off", 0.3), ("hertz_tti", "off", 0.9), ("hertz", "-", None)],
            key=str))
        self.assertEqual([r for r, _ in curves[("hertz", "-", None)]], [5.0, 20.0, 80.0])


class CommandLine(unittest.TestCase):
    def test_refused(self):
        tool = os.path.join(ROOT, "tools", "compare.py")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            shear = ["--stage", "shear", "--size", "small", "--laws", "hertz"]
            calls = [(shear + ["--rates", v], "--rates") for v in
                     ("0", "-5", "abc", "", "20,20", "5,,20", "nan", "5,")]
            calls += [(shear + ["--restitution", v], "--restitution") for v in
                      ("0.3,0.3", "0.3,1.5")]
            # the packing stage: a valid list, refused (needs dempact's answers first)
            calls += [(["--size", "small", "--rates", "5,20"], "--rates"),
                      (["--size", "small", "--restitution", "0.3,0.9"], "--restitution")]
            dempact = os.path.join(ROOT, "build", "dempact")
            for args, option in calls:
                if "--stage" not in args and not os.path.exists(dempact):
                    continue
                p = subprocess.run([sys.executable, tool] + args + ["--out", out,
                                                                     "--dempact", dempact],
                                   capture_output=True, text=True, timeout=120,
                                   stdin=subprocess.DEVNULL)
                lines = p.stderr.splitlines()
                self.assertEqual(p.returncode, 2, (args, p.stderr))
                self.assertEqual(len(lines), 1, (args, p.stderr))
                self.assertTrue(lines[0].startswith(f"compare.py: {option} "), lines[0])
                self.assertFalse(os.path.lexists(out), args)


class Marker(unittest.TestCase):
    OLD = {"case_sha256": "x", "case": "c", "restitution": [0.3, 0.9], "end_time": None,
           "params": {}, "rates": [5.0, 20.0, 80.0]}

    def test_refusals(self):
        def call(**change):
            new = dict(self.OLD, **change)
            return compare.differing_setting(self.OLD, new, "out", "case")
        self.assertIsNone(call())
        for change, option in ((dict(restitution=[0.3, 0.5, 0.9]), "--restitution"),
                               (dict(restitution=[0.3]), "--restitution"),
                               (dict(restitution=0.3), "--restitution"),
                               (dict(rates=[5.0, 20.0]), "--rates"),
                               (dict(rates=[5.0, 20.0, 80.0, 160.0]), "--rates"),
                               (dict(rates=None), "--rates")):
            msg = call(**change)
            self.assertIsNotNone(msg, change)
            self.assertTrue(msg.startswith(option + ":"), msg)
            self.assertIn("--overwrite", msg)
        # the settings hold the sorted lists: another order is the same call
        self.assertEqual(sweep.parse_values("80,5,20", "--rates", 0.0), self.OLD["rates"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
