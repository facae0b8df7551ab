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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_cli import run_compare  # noqa: E402

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


def main():
    global DEMPACT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact", required=True)
    args, rest = ap.parse_known_args()
    DEMPACT = args.dempact
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
