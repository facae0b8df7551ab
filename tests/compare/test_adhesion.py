#!/usr/bin/env python3
"""tools/compare.py --adhesion (docs/compare.md): refused arguments, and the cohesion
measures of a real small comparison.

- Hostile --adhesion values (an unknown model, a misspelled key, a value out of range,
  one not finite, a required key missing, bad syntax, jkr with laws whose elastic part
  is not Hertz's, an adhesion other than the report's, --report-only with it): exit 2,
  one line on stderr starting "compare.py: --adhesion" that names what is wrong, and the
  sandbox byte for byte as it was. The model, key and range rules are dempact check's:
  the test requires its words (the key, the range) in compare.py's line.
- Real runs of the small packing (hertz_tti, 2 seeds, cut at 0.15 s): with liquid
  bridges (a base case whose entries carry their own dmt adhesion, replaced by
  --adhesion) every seed has contacts held past touching and in tension (> 0), and the
  report's columns agree with the fractions counted here from the HDF5 files with
  h5py (rows of the last snapshot's contacts table that hold a force, `ended` != 2);
  summary.csv's mean and sd are those of table.csv's rows; each run's case gives every
  contact entry the adhesion; the report's header states it. Without adhesion both
  fractions are exactly 0 (no pull without an adhesion: cohesion removal clips the
  dashpot's).

    .venv/bin/python tests/compare/test_adhesion.py --dempact build/dempact

A fixed list of 18 refused calls, 1 accepted, and 2 comparisons of 2 runs each; about
40 s on a shared machine.
"""

import argparse
import csv
import json
import os
import shutil
import statistics
import sys
import tempfile
import unittest

import h5py
import numpy as np
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_cli import ROOT, TINY, run_compare, tree_digest  # noqa: E402

DEMPACT = None
SMALL = os.path.join(ROOT, "cases", "packing_small.yaml")
WET = "capillary:volume=1e-11,surface_tension=0.072"
REAL = ["--seeds", "2", "--jobs", "1", "--end-time", "0.15", "--laws", "hertz_tti"]


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def counted(h5_path):
    """(held past touching, in tension) of the last snapshot, counted from the file."""
    with h5py.File(h5_path, "r") as f:
        snaps = f["snapshots"]
        c = snaps[sorted(snaps)[-1]]["contacts"]
        live = c["ended"][()] != 2
        n = int(live.sum())
        return (np.count_nonzero(c["overlap"][()][live] <= 0) / n,
                np.count_nonzero(c["normal_force"][()][live] < 0) / n)


class Refused(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="compare_adhesion_")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def refused(self, args, *words):
        out = os.path.join(self.tmp, "out")
        before = tree_digest(self.tmp)
        status, _, err = run_compare(TINY + ["--out", out, "--dempact", DEMPACT] + args)
        lines = err.splitlines()
        self.assertEqual(status, 2, err)
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("compare.py: --adhesion"), lines[0])
        for word in words:
            self.assertIn(word, lines[0])
        self.assertEqual(tree_digest(self.tmp), before, "a refused call wrote something")
        return lines[0]

    def test_bad_values(self):
        law = ["--laws", "hertz_tti"]
        self.refused(law + ["--adhesion", "jkx:work=0.05"], "jkx", "jkr, dmt")
        self.refused(law + ["--adhesion", "jkr:wrk=0.05"], "wrk", "work")
        self.refused(law + ["--adhesion", "jkr:work=-1"], "work", "[0, 1000]")
        self.refused(law + ["--adhesion", "jkr:work=2000"], "work", "[0, 1000]")
        self.refused(law + ["--adhesion", "capillary:volume=1e-11,surface_tension=0.07,"
                            "contact_angle=120"], "contact_angle", "90")
        self.refused(law + ["--adhesion", "jkr:work=nan"], "work", "finite")
        self.refused(law + ["--adhesion", "jkr"], "needs work")
        self.refused(law + ["--adhesion", "dmt:work=1,work=2"], "work is given twice")
        for spec in ("jkr:", ":work=1", "jkr:work", "jkr:=1", "work=1"):
            self.refused(law + ["--adhesion", spec], "expected MODEL:KEY=VALUE")

    def test_jkr_needs_hertz(self):
        """jkr with linear and kostek beside Hertzian laws: refused naming those two and
        the laws that can take it; with linear alone: refused in dempact's words."""
        line = self.refused(["--laws", "hertz_tti,linear,hunt_crossley,kostek",
                             "--adhesion", "jkr:work=0.05"],
                            "laws linear, kostek cannot take it", "--laws hertz_tti,hunt_crossley")
        self.assertIn("Hertz", line)
        self.refused(["--laws", "linear", "--adhesion", "jkr:work=0.05"], "linear's elastic part")
        # dmt takes every normal law: the same laws are accepted by the check
        status, _, err = run_compare(TINY + ["--out", os.path.join(self.tmp, "ok"), "--dempact",
                                             DEMPACT, "--laws", "linear",
                                             "--adhesion", "dmt:work=0.05"])
        self.assertEqual(status, 0, err)


class Measured(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="compare_adhesion_")
        with open(SMALL) as f:
            case = yaml.safe_load(f)
        for entry in case["contacts"]:  # the entries' own adhesion, which --adhesion replaces
            entry["adhesion"] = {"model": "dmt", "work": 0.5}
        cls.case = os.path.join(cls.tmp, "wet_small.yaml")
        with open(cls.case, "w") as f:
            yaml.safe_dump(case, f, sort_keys=False)
        cls.wet = os.path.join(cls.tmp, "wet")
        cls.dry = os.path.join(cls.tmp, "dry")
        cls.results = [
            run_compare([cls.case, "--out", cls.wet, "--dempact", DEMPACT, "--adhesion", WET]
                        + REAL, timeout=300),
            run_compare(["--size", "small", "--out", cls.dry, "--dempact", DEMPACT] + REAL,
                        timeout=300)]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def runs(self, out):
        found = []
        for seed in (0, 1):
            folder = os.path.join(out, "runs", "hertz_tti_off", f"seed{seed}")
            with open(os.path.join(folder, "done.json")) as f:
                found.append((folder, os.path.join(folder, json.load(f)["h5"])))
        return found

    def check_report(self, out, adhesion_text, positive):
        with open(os.path.join(out, "report.md")) as f:
            report = f.read()
        self.assertIn(f"Adhesion: `{adhesion_text}`.", report)
        self.assertIn("| held past touching | in tension |", report)
        table = rows_of(os.path.join(out, "table.csv"))
        self.assertEqual(len(table), 2)
        by_seed = {int(r["seed"]): r for r in table}
        for seed, (folder, h5) in enumerate(self.runs(out)):
            held, tension = counted(h5)
            row = by_seed[seed]
            self.assertEqual(float(row["held_past_touching"]), held)
            self.assertEqual(float(row["tension_fraction"]), tension)
            if positive:
                self.assertGreater(held, 0.0)
                self.assertGreater(tension, 0.0)
            else:
                self.assertEqual((held, tension), (0.0, 0.0))
        summary = rows_of(os.path.join(out, "summary.csv"))[0]
        for key in ("held_past_touching", "tension_fraction"):
            vals = [float(r[key]) for r in table]
            self.assertAlmostEqual(float(summary[key + "_mean"]), statistics.mean(vals), 15)
            self.assertAlmostEqual(float(summary[key + "_sd"]), statistics.stdev(vals), 15)
        return report

    def test_wet(self):
        status, _, err = self.results[0]
        self.assertEqual(status, 0, err)
        self.check_report(self.wet, "capillary (volume 1e-11, surface_tension 0.072)", True)
        for folder, _ in self.runs(self.wet):
            with open(os.path.join(folder, "case.yaml")) as f:
                case = yaml.safe_load(f)
            for entry in case["contacts"]:
                self.assertEqual(entry["adhesion"], {"model": "capillary", "volume": 1e-11,
                                                     "surface_tension": 0.072})
        with open(os.path.join(self.wet, "compare-report.json")) as f:
            marker = json.load(f)
        self.assertEqual(marker["settings"]["adhesion"]["model"], "capillary")

    def test_dry(self):
        status, _, err = self.results[1]
        self.assertEqual(status, 0, err)
        self.check_report(self.dry, "none", False)

    def test_other_adhesion_refused(self):
        """A report's runs share one adhesion: another, or none, into it is refused."""
        for extra in (["--adhesion", "capillary:volume=2e-11,surface_tension=0.072"], []):
            before = tree_digest(self.tmp)
            status, _, err = run_compare([self.case, "--out", self.wet, "--dempact", DEMPACT]
                                         + REAL + extra)
            self.assertEqual(status, 2, err)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertTrue(err.startswith("compare.py: --adhesion: the report in"), err)
            self.assertEqual(tree_digest(self.tmp), before)
        status, _, err = run_compare(["--report-only", self.wet, "--adhesion", WET])
        self.assertEqual(status, 2, err)
        self.assertIn("--report-only", err)


def main():
    global DEMPACT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact", default=os.path.join(ROOT, "build", "dempact"))
    a, rest = ap.parse_known_args()
    DEMPACT = os.path.abspath(a.dempact)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
