#!/usr/bin/env python3
"""tools/compare.py --stage shear --size small end to end: hertz_tti and the elastic
hertz law, one seed each (cases/shear_small.yaml, 500 beads sheared at 20 1/s under
1 kPa for 0.3 s; about 12 s of CPU a run), the report checked against what the HDF5
files say when read here by other means, and against physics:

- report.md has the flow and the dissipation tables with both laws, and its three
  figures; table.csv one row per run;
- mu, phi and the shares recomputed from the time series alone (plain means over
  t >= t_end / 2 with h5py, not the tool's code) equal table.csv's;
- the barostat holds p at the target within 2%; the shear work's rate equals
  <tau> rate V within 3% (the box's power is the mean stress's); the shares + stored -
  residual add up to 1, the residual below 1e-3 of the work;
- hertz has no normal dashpot: its damping share is exactly 0 and friction takes the
  rest; hertz_tti's dashpot takes a share > 0.05; mu of frictional spheres (mu_p 0.5) at
  I ~ 0.06 lies in 0.25 to 0.6 and phi in 0.5 to 0.65 (a dense flow: below the
  particles' friction, above a loose packing; the runs give about 0.40 and 0.58); both
  runs steady;
- --report-only rebuilds the same table.csv from the HDF5 files alone.

The sweep (--rates 20,80 --restitution 0.3,0.9, hertz_tti, one seed, the small case cut
at 0.15 s, its reference end: 3 strain units, about 10 s of CPU in all):
- table.csv has the 4 runs, one per (e, rate), each from its own folder
  runs/hertz_tti_off_eE_rR; each run's case ends at 0.15 x 20 / R and shears at R, and
  its window spans the same strain (1.5 units) at both rates;
- I grows with the rate at each e (I ~ rate at the same p: the ratio within 20% of 4),
  the shares + stored - residual add up to 1 in every row;
- report.md has the 4 rows in each table, the fit table's rows (2 rates: no mu(I) fit)
  and the figures mu(I), phi(I);
- the same command keeps the 4 runs; a call with another --restitution list or another
  --rates list is refused (exit 2, one line naming the argument, the folder unchanged).

    .venv/bin/python tests/compare/test_shear_end_to_end.py --dempact build/dempact
"""

import argparse
import csv
import math
import os
import shutil
import sys
import tempfile
import unittest

import h5py
import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_cli import run_compare, tree_digest  # noqa: E402

DEMPACT = None
LAWS = ["hertz_tti", "hertz"]


class ShearStage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="compare_shear_")
        cls.out = os.path.join(cls.tmp, "report")
        cls.code, _, cls.err = run_compare(
            ["--stage", "shear", "--size", "small", "--laws", ",".join(LAWS), "--seeds", "1",
             "--jobs", "2", "--out", cls.out, "--dempact", DEMPACT], timeout=600)
        with open(os.path.join(cls.out, "table.csv")) as f:
            cls.rows = {r["law"]: r for r in csv.DictReader(f)}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def h5(self, law):
        mode = "none" if law == "hertz" else "off"
        return os.path.join(self.out, "runs", f"{law}_{mode}", "seed0", f"{law}_{mode}.h5")

    def test_report(self):
        self.assertEqual(self.code, 0, self.err)
        with open(os.path.join(self.out, "report.md")) as f:
            text = f.read()
        self.assertIn("## Steady flow", text)
        self.assertIn("## Dissipation split", text)
        for law in LAWS:
            self.assertEqual(text.count(f"| {law} |"), 2, law)
        for fig in ("shear_measures.svg", "shear_energy.svg", "shear_mu_time.svg"):
            self.assertTrue(os.path.isfile(os.path.join(self.out, fig)), fig)
            self.assertIn(f"({fig})", text)
        self.assertEqual(sorted(self.rows), sorted(LAWS))

    def test_recomputed(self):
        for law in LAWS:
            row = {k: float(v) for k, v in self.rows[law].items()
                   if k not in ("law", "calibrate", "material", "adhesion", "stage", "steady")}
            with h5py.File(self.h5(law), "r") as f:
                ts = {k: f["timeseries"][k][()] for k in f["timeseries"]}
                radius = f["snapshots/000000/radius"][()]
            t = ts["time"]
            w = t >= 0.5 * t[-1] - 1e-12
            mu = ts["shear_stress"][w].mean() / ts["normal_stress"][w].mean()
            self.assertAlmostEqual(row["mu"], mu, delta=1e-12, msg=law)
            phi = np.sum(4 / 3 * math.pi * radius ** 3) / (0.015 * 0.015 * ts["box_height"][w].mean())
            self.assertAlmostEqual(row["phi"], phi, delta=1e-12, msg=law)
            work = ts["shear_work"][w][-1] - ts["shear_work"][w][0]
            for k in ("damping", "friction", "rolling", "plasticity"):
                b = ts[f"dissipated_{k}"][w]
                self.assertAlmostEqual(row[f"share_{k}"], (b[-1] - b[0]) / work, delta=1e-12)
            # physics
            self.assertAlmostEqual(row["p_Pa"] / 1000.0, 1.0, delta=0.02, msg=law)
            self.assertAlmostEqual(row["power_ratio"], 1.0, delta=0.03, msg=law)
            self.assertAlmostEqual(row["share_sum"], 1.0, delta=1e-9, msg=law)
            self.assertLess(abs(row["share_residual"]), 1e-3, msg=law)
            self.assertTrue(0.25 < row["mu"] < 0.6, (law, row["mu"]))
            self.assertTrue(0.5 < row["phi"] < 0.65, (law, row["phi"]))
            self.assertEqual(self.rows[law]["steady"], "True", law)
        self.assertEqual(float(self.rows["hertz"]["share_damping"]), 0.0)
        self.assertAlmostEqual(float(self.rows["hertz"]["share_friction"]), 1.0, delta=0.01)
        self.assertGreater(float(self.rows["hertz_tti"]["share_damping"]), 0.05)

    def test_report_only(self):
        with open(os.path.join(self.out, "table.csv")) as f:
            before = f.read()
        code, _, err = run_compare(["--report-only", self.out, "--dempact", DEMPACT],
                                   timeout=300)
        self.assertEqual(code, 0, err)
        with open(os.path.join(self.out, "table.csv")) as f:
            after = f.read()
        # the run times come from done.json: the same; every measure from the HDF5 files
        self.assertEqual(before, after)


SWEEP = ["--stage", "shear", "--size", "small", "--laws", "hertz_tti", "--seeds", "1",
         "--rates", "20,80", "--restitution", "0.3,0.9", "--end-time", "0.15", "--jobs", "2"]


class ShearSweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="compare_sweep_")
        cls.out = os.path.join(cls.tmp, "report")
        cls.code, _, cls.err = run_compare(SWEEP + ["--out", cls.out, "--dempact", DEMPACT],
                                           timeout=600)
        with open(os.path.join(cls.out, "table.csv")) as f:
            cls.rows = list(csv.DictReader(f))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_rows(self):
        self.assertEqual(self.code, 0, self.err)
        got = sorted((float(r["restitution"]), float(r["shear_rate_1_s"])) for r in self.rows)
        self.assertEqual(got, [(0.3, 20.0), (0.3, 80.0), (0.9, 20.0), (0.9, 80.0)])
        for r in self.rows:
            e, rate = float(r["restitution"]), float(r["shear_rate_1_s"])
            folder = os.path.join(self.out, "runs", f"hertz_tti_off_e{e:g}_r{rate:g}", "seed0")
            with open(os.path.join(folder, "case.yaml")) as f:
                case = yaml.safe_load(f)
            self.assertEqual(case["domain"]["lees_edwards"]["shear_rate"], rate)
            self.assertAlmostEqual(case["time"]["end"], 0.15 * 20.0 / rate, delta=1e-15)
            self.assertEqual(case["contacts"][0]["params"]["restitution"], e)
            with h5py.File(os.path.join(folder, f"hertz_tti_off_e{e:g}_r{rate:g}.h5")) as f:
                t = f["timeseries/time"][()]
            self.assertAlmostEqual(t[-1], 0.15 * 20.0 / rate, delta=1e-9)
            self.assertAlmostEqual(float(r["window_strain"]), 1.5, delta=0.05)
            self.assertAlmostEqual(float(r["share_sum"]), 1.0, delta=1e-9)
        for e in (0.3, 0.9):
            i = {float(r["shear_rate_1_s"]): float(r["inertial_number"])
                 for r in self.rows if float(r["restitution"]) == e}
            self.assertGreater(i[80.0], i[20.0])
            self.assertAlmostEqual(i[80.0] / i[20.0] / 4.0, 1.0, delta=0.2)

    def test_report(self):
        with open(os.path.join(self.out, "report.md")) as f:
            text = f.read()
        for head in ("## Steady flow", "## Dissipation split", "## mu(I) and phi(I)"):
            self.assertIn(head, text)
        for e in ("0.3", "0.9"):
            for rate in ("20", "80"):
                self.assertEqual(text.count(f"| hertz_tti | off | {e} | {rate} |"), 2)
            self.assertIn(f"| hertz_tti | off | {e} | 2 | - (fewer than 3 rates)", text)
        for fig in ("shear_mu_of_i.svg", "shear_phi_of_i.svg", "shear_energy.svg"):
            self.assertTrue(os.path.isfile(os.path.join(self.out, fig)), fig)

    def test_resume_and_refusals(self):
        before = tree_digest(self.out)
        for change, option in ((["--restitution", "0.3"], "--restitution"),
                               (["--rates", "20,80,160"], "--rates"),
                               (["--rates", "20"], "--rates")):
            args = list(SWEEP)
            k = args.index(change[0])
            args[k + 1] = change[1]
            code, _, err = run_compare(args + ["--out", self.out, "--dempact", DEMPACT],
                                       timeout=300)
            self.assertEqual(code, 2, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertTrue(err.startswith(f"compare.py: {option}:"), err)
            self.assertEqual(tree_digest(self.out), before, change)
        # the same lists in another order: the same call, every run kept
        args = list(SWEEP)
        args[args.index("--rates") + 1] = "80,20"
        code, _, err = run_compare(args + ["--out", self.out, "--dempact", DEMPACT],
                                   timeout=300)
        self.assertEqual(code, 0, err)
        self.assertIn("0 runs to make, 4 complete kept", err)


def main():
    global DEMPACT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact", required=True)
    args, rest = ap.parse_known_args()
    DEMPACT = args.dempact
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
