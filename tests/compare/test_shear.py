#!/usr/bin/env python3
"""tools/compare.py's shear stage against answers it did not produce:

- the steady-flow measures (tools/compare_shear.py) on made-up time series with known
  answers: constant stresses and box height give mu = tau / p, phi = V_p / (A H) and
  I = rate d / sqrt(p / rho) exactly, with zero block errors; books growing linearly give
  each share as its rate over the shear work's rate, and the shares + stored - residual
  add up to 1; a transient before the window is left out; block standard errors equal
  the closed form for stepped blocks; a ramp inside the window is flagged as not steady,
  stationary noise is not; a negative shear rate gives the same mu. Generated inputs:
  hypothesis, 40 examples of (tau, p, H, the books' rates, the residual's rate, the
  rate's sign) per run;
- the whole row of compare.measure on an HDF5 file of dempact's layout written here
  (the run's law from the case's header, phi from the snapshot's radii, rho from the
  material, Z from the contacts, e's collision speed rate d);
- the planning: which runs `--stage shear` makes for given laws, seeds and --calibrate
  (from `dempact laws`), each run's case (the law swapped in, the Lees-Edwards keys
  kept, the seed offset), the base case of each --stage and --size, and the refusals
  (--stage shear with a case without domain.lees_edwards, --stage packing with one):
  exit 2, one line, nothing written; the stage's v_floor, sqrt(2 g d_min), in the cases
  of the laws that take it and in the marker, and --param's in its place (two tiny
  comparisons cut at 3 ms).

    .venv/bin/python tests/compare/test_shear.py [--dempact build/dempact]

Without --dempact the planning tests that need `dempact laws` are skipped.
"""

import argparse
import json
import math
import os
import sys
import tempfile
import unittest

import h5py
import numpy as np
import yaml
from hypothesis import given, settings, strategies as st

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import compare_shear as cs  # noqa: E402
from compare_cli import run_compare  # noqa: E402

DEMPACT = None


def series(t, tau=400.0, p=1000.0, h=0.016, rates=(3.0, 7.0, 0.5, 0.0), resid_rate=0.0,
           stored=1e-4, sign=1.0):
    """A made-up time series of a Lees-Edwards run: constant stresses and box height,
    each dissipated_* book growing at its rate (W), the residual at resid_rate, the held
    energies constant (stored, split over the four terms), and shear_work what the books
    then need: W = dissipated + E - E(0) - residual."""
    t = np.asarray(t, dtype=float)
    ts = {"time": t, "shear_stress": np.full(len(t), sign * tau),
          "normal_stress": np.full(len(t), p), "box_height": np.full(len(t), h)}
    for k, r in zip(cs.BOOKS, rates):
        ts[f"dissipated_{k}"] = r * t
    for k in ("kinetic_energy", "rotational_energy", "gravitational_energy", "elastic_energy"):
        ts[k] = np.full(len(t), stored / 4)
    ts["energy_residual"] = resid_rate * t
    ts["shear_work"] = sum(r * t for r in rates) - resid_rate * t
    return ts


T = np.linspace(0.0, 0.3, 301)
VP, AREA, D, RHO = 500 * 4 / 3 * math.pi * 1e-9, 0.015 ** 2, 0.002, 2500.0


class SteadyFlow(unittest.TestCase):
    def test_constant_flow(self):
        row = cs.steady_flow(series(T), VP, AREA, 20.0, D, RHO)
        self.assertEqual(row["mu"], 0.4)
        self.assertEqual(row["mu_se"], 0.0)
        self.assertAlmostEqual(row["phi"], VP / (AREA * 0.016), delta=1e-15)
        self.assertLess(row["phi_se"], 1e-15)
        self.assertAlmostEqual(row["inertial_number"], 20.0 * D / math.sqrt(1000.0 / RHO),
                               delta=1e-15)
        self.assertTrue(row["steady"])
        self.assertEqual((row["window_start_s"], row["window_end_s"]), (0.15, 0.3))
        self.assertEqual(row["window_samples"], 151)
        self.assertAlmostEqual(row["window_strain"], 3.0, delta=1e-12)

    def test_shares_of_linear_books(self):
        rates = (3.0, 7.0, 0.5, 1.5)
        row = cs.steady_flow(series(T, rates=rates), VP, AREA, 20.0, D, RHO)
        for k, r in zip(cs.BOOKS, rates):
            self.assertAlmostEqual(row[f"share_{k}"], r / 12.0, delta=1e-12, msg=k)
            self.assertLess(row[f"share_{k}_se"], 1e-12)
        self.assertEqual(row["share_stored"], 0.0)
        self.assertEqual(row["share_residual"], 0.0)
        self.assertAlmostEqual(row["share_sum"], 1.0, delta=1e-12)
        self.assertAlmostEqual(row["shear_power_W"], 12.0, delta=1e-9)

    @settings(max_examples=40, deadline=None)
    @given(tau=st.floats(1.0, 1e4), p=st.floats(10.0, 1e5), h=st.floats(1e-3, 1.0),
           rates=st.tuples(*[st.floats(0.0, 10.0)] * 4).filter(lambda r: sum(r) > 0.1),
           resid=st.floats(-1e-3, 1e-3), sign=st.sampled_from([1.0, -1.0]))
    def test_generated(self, tau, p, h, rates, resid, sign):
        rate = sign * 20.0
        row = cs.steady_flow(series(T, tau, p, h, rates, resid, sign=sign), VP, AREA, rate, D,
                             RHO)
        self.assertAlmostEqual(row["mu"], tau / p, delta=1e-12 * tau / p)
        self.assertAlmostEqual(row["phi"], VP / (AREA * h), delta=1e-12 * VP / (AREA * h))
        self.assertAlmostEqual(row["p_Pa"], p, delta=1e-12 * p)
        work = sum(rates) - resid
        for k, r in zip(cs.BOOKS, rates):
            self.assertAlmostEqual(row[f"share_{k}"], r / work, delta=1e-9, msg=k)
        self.assertAlmostEqual(row["share_residual"], resid / work, delta=1e-9)
        self.assertAlmostEqual(row["share_sum"], 1.0, delta=1e-9)
        self.assertTrue(row["steady"])

    def test_transient_left_out(self):
        ts = series(T)
        early = T < 0.15
        ts["shear_stress"][early] = 50.0
        ts["box_height"][early] = 0.03
        row = cs.steady_flow(ts, VP, AREA, 20.0, D, RHO)
        self.assertEqual(row["mu"], 0.4)
        self.assertAlmostEqual(row["phi"], VP / (AREA * 0.016), delta=1e-15)

    def test_block_errors(self):
        # 10 blocks of 15 samples, tau stepping 400, 401, ..., 409 from block to block:
        # the block means' sample sd over sqrt(10)
        t = np.linspace(0.0, 0.299, 300)
        ts = series(t)
        w = cs.window(t)
        self.assertEqual(len(w), 150)
        ts["shear_stress"][w] = 400.0 + np.repeat(np.arange(10.0), 15)
        row = cs.steady_flow(ts, VP, AREA, 20.0, D, RHO)
        se = np.arange(10.0).std(ddof=1) / math.sqrt(10)
        self.assertAlmostEqual(row["tau_Pa_se"], se, delta=1e-12)
        self.assertAlmostEqual(row["mu_se"], se / 1000.0, delta=1e-15)
        self.assertAlmostEqual(row["tau_Pa"], 404.5, delta=1e-12)

    def test_drift_is_flagged(self):
        ts = series(T)
        w = cs.window(T)
        ts["box_height"][w] = np.linspace(0.016, 0.015, len(w))  # still compacting
        row = cs.steady_flow(ts, VP, AREA, 20.0, D, RHO)
        self.assertFalse(row["steady"])
        # the change across the window: phi at H = 0.015 minus phi at 0.016, near enough
        # (phi ~ 1/H is not a line)
        self.assertAlmostEqual(row["phi_drift"] / (VP / AREA * (1 / 0.015 - 1 / 0.016)), 1,
                               delta=0.02)
        rng = np.random.default_rng(7)
        ts = series(T)
        ts["shear_stress"] = ts["shear_stress"] + rng.normal(0, 40, len(T))
        ts["box_height"] = ts["box_height"] * (1 + rng.normal(0, 0.01, len(T)))
        row = cs.steady_flow(ts, VP, AREA, 20.0, D, RHO)
        self.assertTrue(row["steady"], row)
        self.assertGreater(row["mu_se"], 0.0)
        self.assertEqual(cs.trend([0, 1, 2], [5, 5, 5]), (0.0, 0.0))
        slope, z = cs.trend([0, 1, 2, 3], [1.0, 1.5, 1.0, 1.5])
        # slope 0.1, residuals -0.1, 0.3, -0.3, 0.1: s^2 = 0.2 / 2, sxx = 5
        self.assertAlmostEqual(slope, 0.1, delta=1e-15)
        self.assertAlmostEqual(z, 0.1 / math.sqrt(0.1 / 5), delta=1e-12)

    def test_shear_case_kind(self):
        self.assertTrue(cs.is_shear({"domain": {"lees_edwards": {"shear_rate": 1}}}))
        self.assertFalse(cs.is_shear({"domain": {"min": [0, 0, 0]}}))
        self.assertFalse(cs.is_shear([]))


class ErrorBars(unittest.TestCase):
    def test_error_of(self):
        import compare_shear_report as csr
        # two seeds that agree: the runs' own errors, sqrt(0.3^2 + 0.4^2) / 2 = 0.25
        rows = [{"mu": 1.0, "mu_se": 0.3}, {"mu": 1.0, "mu_se": 0.4}]
        self.assertAlmostEqual(csr.error_of(rows, "mu", [0, 1]), 0.25, delta=1e-15)
        # two that differ: sd / sqrt(2) = 1
        rows = [{"mu": 0.0, "mu_se": 0.1}, {"mu": 2.0, "mu_se": 0.1}]
        self.assertAlmostEqual(csr.error_of(rows, "mu", [0, 1]), 1.0, delta=1e-15)
        # one seed: its block error; no block error (Z): the seeds' alone
        self.assertEqual(csr.error_of(rows, "mu", [1]), 0.1)
        rows = [{"z_mean": 3.0}, {"z_mean": 5.0}, {"z_mean": 4.0}]
        self.assertAlmostEqual(csr.error_of(rows, "z_mean", [0, 1, 2]), 1 / math.sqrt(3),
                               delta=1e-15)


def write_run(path, case_text, radii, ts, contacts_pairs, n_touching):
    """An HDF5 file of dempact's layout: one snapshot at the end, the time series."""
    n = len(radii)
    with h5py.File(path, "w") as f:
        f.attrs["dempact_version"] = "test"
        f.attrs["case_name"] = "made_up"
        f.attrs["dt"] = 1e-5
        f.attrs["format"] = 2
        f["case_text"] = case_text
        s = f.create_group("snapshots/000000")
        s.attrs["time"] = float(ts["time"][-1])
        s.attrs["step"] = 30000
        s.attrs["n_particles"] = n
        s["id"] = np.arange(n, dtype=np.int64)
        s["type"] = np.zeros(n, dtype=np.int32)
        s["radius"] = np.asarray(radii, dtype=float)
        s["mass"] = np.ones(n)
        s["position"] = np.zeros((n, 3))
        m = len(contacts_pairs)
        c = s.create_group("contacts")
        c["id"] = np.asarray(contacts_pairs, dtype=np.int64)
        c["wall"] = np.zeros(m, dtype=np.uint8)
        c["overlap"] = np.array([1e-6] * n_touching + [-1e-6] * (m - n_touching))
        g = f.create_group("timeseries")
        for k, v in ts.items():
            g[k] = v


class MeasureFile(unittest.TestCase):
    def test_row(self):
        with open(os.path.join(ROOT, "cases", "shear_small.yaml")) as fh:
            base = yaml.safe_load(fh)
        text = compare.case_for(base, os.path.join(ROOT, "cases", "shear_small.yaml"),
                                "linear", "off", {"restitution": 0.5, "fit": "published"},
                                False, 0.5, None, seed=1)
        radii = np.array([0.0009, 0.001, 0.0011, 0.001] * 5)
        ts = series(T, tau=300.0, p=900.0, h=0.004, rates=(2.0, 6.0, 0.0, 0.0))
        with tempfile.TemporaryDirectory() as tmp:
            h5 = os.path.join(tmp, "run.h5")
            write_run(h5, text, radii, ts, [(0, 1), (1, 2), (2, 3), (4, 5), (6, 7)], 3)
            row, curves = compare.measure(h5)
        self.assertEqual((row["stage"], row["law"], row["calibrate"], row["seed"]),
                         ("shear", "linear", "off", 1))
        self.assertAlmostEqual(row["mu"], 1 / 3, delta=1e-15)
        vp = float(np.sum(4 / 3 * math.pi * radii ** 3))
        self.assertAlmostEqual(row["phi"], vp / (0.015 ** 2 * 0.004), delta=1e-14)
        self.assertAlmostEqual(row["inertial_number"],
                               20.0 * 0.002 / math.sqrt(900.0 / 2500.0), delta=1e-14)
        self.assertEqual(row["z_mean"], 2 * 3 / 20)
        self.assertAlmostEqual(row["share_damping"], 0.25, delta=1e-12)
        self.assertAlmostEqual(row["share_friction"], 0.75, delta=1e-12)
        self.assertEqual(row["pressure_target_Pa"], 1000.0)
        self.assertAlmostEqual(row["impact_speed_m_s"], 20.0 * 0.002, delta=1e-15)
        self.assertEqual(row["particles"], 20)
        # mu against time: 10-sample means of the constant ratio
        self.assertTrue(np.allclose(curves["mu"], 1 / 3))


class Planning(unittest.TestCase):
    def setUp(self):
        if DEMPACT is None:
            self.skipTest("needs --dempact")
        self.table = compare.law_table(DEMPACT)

    def test_runs_and_cases(self):
        path = compare.STAGES["shear"]["small"]
        self.assertEqual(os.path.basename(path), "shear_small.yaml")
        self.assertEqual(os.path.basename(compare.STAGES["shear"]["full"]), "shear_cell.yaml")
        self.assertEqual(compare.SIZES["small"], compare.STAGES["packing"]["small"])
        with open(path) as fh:
            base = yaml.safe_load(fh)
        plans = compare.plan_runs(["hertz_tti", "hertz", "hertz_kk"], self.table, 0.5, "off",
                                  {}, [2, 3])
        runs = [(law, mode, seed) for law, mode, _, _, seeds in plans for seed in seeds]
        self.assertEqual(runs, [("hertz_tti", "off", 2), ("hertz_tti", "off", 3),
                                ("hertz", "-", 2), ("hertz", "-", 3),
                                ("hertz_kk", "on*", 2), ("hertz_kk", "on*", 3)])
        both = compare.plan_runs(["hertz_tti"], self.table, 0.5, "both",
                                 {("hertz_tti", "v_floor"): 0.1}, [0])
        self.assertEqual([(p[0], p[1]) for p in both], [("hertz_tti", "off"), ("hertz_tti", "on")])
        self.assertTrue(all(p[2].get("v_floor") == 0.1 for p in both))
        for law, mode, params, cal, seeds in plans:
            for seed in seeds:
                case = yaml.safe_load(compare.case_for(base, path, law, mode, params, cal, 0.5,
                                                       None, seed))
                self.assertEqual(case["domain"], base["domain"])  # lees_edwards kept
                self.assertEqual(case["particles"][0]["seed"], 1 + seed)
                self.assertEqual(case["name"], compare.mode_dir(law, mode))
                for entry in case["contacts"]:
                    self.assertEqual(entry["law"], law)
                    self.assertEqual(entry["friction"], base["contacts"][0]["friction"])
                    self.assertEqual(entry["calibrate"], cal)

    def test_stage_v_floor(self):
        # the laws with v_floor get sqrt(2 g d_min) (the packing stage's floor for these
        # beads), written into each run's case and the marker; --param overrides it
        floor = math.sqrt(2 * 9.81 * 2 * 0.0009)
        with open(compare.STAGES["shear"]["small"]) as fh:
            self.assertAlmostEqual(cs.v_floor(yaml.safe_load(fh)), floor, delta=1e-15)
        with tempfile.TemporaryDirectory() as tmp:
            for extra, want in (([], floor), (["--param", "hunt_crossley:v_floor=0.3"], 0.3)):
                out = os.path.join(tmp, f"r{len(extra)}")
                code, _, err = run_compare(["--stage", "shear", "--size", "small", "--laws",
                                            "hunt_crossley,hertz_tti", "--seeds", "1",
                                            "--end-time", "0.003", "--jobs", "2", "--out", out,
                                            "--dempact", DEMPACT] + extra, timeout=300)
                self.assertEqual(code, 0, err)
                with open(os.path.join(out, "runs", "hunt_crossley_off", "seed0",
                                       "case.yaml")) as fh:
                    case = yaml.safe_load(fh)
                self.assertAlmostEqual(case["contacts"][0]["params"]["v_floor"], want,
                                       delta=1e-15)
                with open(os.path.join(out, "runs", "hertz_tti_off", "seed0",
                                       "case.yaml")) as fh:
                    case = yaml.safe_load(fh)
                if "v_floor" not in self.table["hertz_tti"]["params"]:
                    self.assertNotIn("v_floor", case["contacts"][0]["params"])
                with open(os.path.join(out, "compare-report.json")) as fh:
                    marker = json.load(fh)
                self.assertAlmostEqual(marker["settings"]["params"]["hunt_crossley"]["v_floor"],
                                       want, delta=1e-15)

    def test_stage_refusals(self):
        with tempfile.TemporaryDirectory() as tmp:
            for args, words in (
                    (["--stage", "shear", os.path.join(ROOT, "cases", "packing_small.yaml")],
                     "has no domain.lees_edwards"),
                    (["--stage", "packing", os.path.join(ROOT, "cases", "shear_small.yaml")],
                     "give --stage shear"),
                    (["--stage", "flow", "--size", "small"], "--stage")):
                out = os.path.join(tmp, "r")
                code, stdout, stderr = run_compare(args + ["--out", out, "--dempact", DEMPACT])
                self.assertEqual(code, 2, stderr)
                self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
                self.assertIn(words, stderr)
                self.assertFalse(os.path.lexists(out))


def main():
    global DEMPACT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact")
    args, rest = ap.parse_known_args()
    DEMPACT = args.dempact
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
