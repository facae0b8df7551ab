#!/usr/bin/env python3
"""tools/peer_band.py, the flow validations' band, against scipy's two-sample t-test.

    .venv/bin/python tests/validation/test_peer_band.py

1. Its table of Student's t(0.975, df) against scipy.stats.t.ppf, to 5e-4.
2. On generated samples (hypothesis, 60 examples: 1-4 dempact values, 2-4 peer values,
   3 more for the spread or none), its verdict is Student's test at 5% (p >= 0.05
   inside; the statistic checked against scipy's ttest_ind with equal variances where
   there are no extra spread values); samples whose t is within 1e-3 of the quantile
   are left out (the table is rounded).
3. The program: exit 0 inside, 1 outside, 2 with a one-line message naming the argument
   or file for bad input.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

from hypothesis import HealthCheck, assume, given, settings, strategies as st
from scipy import stats

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOOL = os.path.join(ROOT, "tools", "peer_band.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import peer_band  # noqa: E402

angle = st.floats(min_value=10.0, max_value=40.0, allow_nan=False)


class PeerBand(unittest.TestCase):
    def test_t_table(self):
        for df, t in peer_band.T975.items():
            self.assertAlmostEqual(t, stats.t.ppf(0.975, df), delta=5e-4, msg=f"df {df}")

    @settings(max_examples=60, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.filter_too_much])
    @given(st.lists(angle, min_size=1, max_size=12), st.lists(angle, min_size=2, max_size=12),
           st.one_of(st.just([]), st.lists(angle, min_size=3, max_size=3)))
    def test_verdict_is_students(self, dem, peer, spread):
        md, ml, sp, df, half = peer_band.band(dem, peer, spread)
        assume(sp > 0.01)
        t_stat = (md - ml) / (sp * math.sqrt(1 / len(dem) + 1 / len(peer)))
        # the table's t is rounded to 5e-4: leave out samples that close to the boundary
        assume(abs(abs(t_stat) - stats.t.ppf(0.975, df)) > 1e-3)
        p = 2 * stats.t.sf(abs(t_stat), df)
        if not spread and len(dem) > 1:   # the pooled statistic is scipy's own test's
            self.assertAlmostEqual(p, stats.ttest_ind(dem, peer, equal_var=True).pvalue,
                                   delta=1e-9)
        self.assertEqual(abs(md - ml) <= half, p >= 0.05, (p, md - ml, half))

    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)

    def test_program(self):
        with tempfile.TemporaryDirectory() as tmp:
            peer = os.path.join(tmp, "peer.json")
            with open(peer, "w") as f:
                json.dump({"angles": [24.7, 26.3, 21.8]}, f)
            inside = self.run_tool("--dempact", "26.9,27.4,25.3", "--peer", peer)
            self.assertEqual(inside.returncode, 0, inside.stdout + inside.stderr)
            self.assertIn("band +-4.06", inside.stdout)
            outside = self.run_tool("--dempact", "30,31,29", "--peer", peer)
            self.assertEqual(outside.returncode, 1, outside.stdout)
            self.assertIn("OUTSIDE", outside.stdout)
            for args, named in ((("--dempact", "2x", "--peer", peer), "--dempact"),
                                (("--dempact", "26", "--peer", os.path.join(tmp, "no.json")),
                                 "no.json"),
                                (("--dempact", "26", "--peer", peer, "--spread-pours", "a"),
                                 "--spread-pours")):
                bad = self.run_tool(*args)
                self.assertEqual(bad.returncode, 2, bad.stderr)
                self.assertEqual(len(bad.stderr.strip().splitlines()), 1, bad.stderr)
                self.assertIn(named, bad.stderr)
                self.assertEqual(bad.stdout, "")


if __name__ == "__main__":
    unittest.main()
