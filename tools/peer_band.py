#!/usr/bin/env python3
"""Whether dempact's mean of a flow measure agrees with a peer code's, within their seed spread.

usage: peer_band.py --dempact A1,A2,... --peer PEER.json [--spread-pours B1,B2,...] [--name heap]

The peer's JSON holds its per-seed values under "angles" (tests/validation/liggghts_heap.json).
Both codes pour the same case from independent seeds; a pour's value is one draw of a
chaotic pile, so the two means are compared as two samples (Student's two-sample test with
a pooled spread):
  s_p^2 = (sum_d (a - mean_d)^2 + sum_L (b - mean_L)^2 [+ sum_s (c - mean_s)^2]) / df,
  df    = (n_d - 1) + (n_L - 1) [+ (n_s - 1)],
  pass when |mean_d - mean_L| <= t(0.975, df) s_p sqrt(1/n_d + 1/n_L).
t(0.975, df) is Student's two-sided 95% quantile: two codes whose pours scatter alike about
the same mean fail one time in twenty (a pour set is fixed by its seeds, so a given build
passes or fails every time; a change that moves the bits draws again). The pooled spread
assumes both codes scatter alike, which their pours show (docs/validation.md#flow-cases).
--spread-pours adds dempact pours of the unperturbed case to the spread alone (not to the
mean): a single perturbed pour (n_d = 1) is then compared with the spread of the others.
No model allowance is added: the band is the pours' scatter alone.
Exit status 0 when inside the band, 1 outside, 2 bad input.
"""
import argparse
import json
import math
import sys

# Student's t, two-sided 95% (the 0.975 quantile), by degrees of freedom
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
        16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074,
        23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045,
        30: 2.042}


def values(text, what):
    try:
        out = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        print(f"peer_band: {what}: not a comma-separated list of numbers: {text!r}", file=sys.stderr)
        sys.exit(2)
    return out


def squares(xs):
    if not xs:
        return 0.0, 0
    m = sum(xs) / len(xs)
    return sum((x - m) ** 2 for x in xs), len(xs) - 1


def band(dem, peer, spread=()):
    """(mean_d, mean_L, s_p, df, half-width of the band)."""
    ss, df = 0.0, 0
    for xs in (dem, peer, spread):
        s, d = squares(list(xs))
        ss, df = ss + s, df + d
    if df < 1 or df not in T975:
        raise ValueError(f"{df} degrees of freedom (1 to {max(T975)} supported)")
    sp = math.sqrt(ss / df)
    half = T975[df] * sp * math.sqrt(1.0 / len(dem) + 1.0 / len(peer))
    return sum(dem) / len(dem), sum(peer) / len(peer), sp, df, half


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact", required=True, help="dempact's values, comma-separated")
    ap.add_argument("--peer", required=True, help="the peer's JSON (key \"angles\")")
    ap.add_argument("--spread-pours", default="", help="more dempact values for the spread")
    ap.add_argument("--name", default="angle")
    a = ap.parse_args()
    dem = values(a.dempact, "--dempact")
    spread = values(a.spread_pours, "--spread-pours")
    try:
        with open(a.peer) as f:
            peer = [float(v) for v in json.load(f)["angles"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"peer_band: {a.peer}: no list \"angles\" of numbers ({e})", file=sys.stderr)
        return 2
    if not dem or len(peer) < 2:
        print("peer_band: needs at least one dempact value and two of the peer's", file=sys.stderr)
        return 2
    try:
        md, ml, sp, df, half = band(dem, peer, spread)
    except ValueError as e:
        print(f"peer_band: {e}", file=sys.stderr)
        return 2
    diff = md - ml
    ok = abs(diff) <= half
    print(f"{a.name}: dempact {md:.2f} over {len(dem)}, peer {ml:.2f} over {len(peer)}; "
          f"pooled sd {sp:.2f} ({df} dof); difference {diff:+.2f}, band +-{half:.2f} "
          f"(t {T975[df]} x sd x sqrt(1/{len(dem)} + 1/{len(peer)})): "
          + ("inside" if ok else "OUTSIDE"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
