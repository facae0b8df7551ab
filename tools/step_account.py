#!/usr/bin/env python3
"""Where a step's time goes: the roofline account of docs/performance.md ("Where the time goes").

Usage: step_account.py --dempact BIN --bed FILE [--steps S] [--repeats R] [--ghz F]
                       [--flops-per-cycle W] [--triad-gbs B] [--callgrind-steps C]

Runs `BIN bench --load FILE --steps S --threads 1` frictionless and with --friction 0.5,
interleaved, R times each (default 1000 steps, 3 times), and prints the medians of the
bench's passes (seconds per step and percent: neighbours, pairs, integration, books) and,
per touching pair of the pair loop, the time, the floating-point operations and bytes the
force path does for it (the counts below, from the code), what rate of each that makes,
and what fraction of the core's peak (GHZ x W flop per cycle; default 2.6 GHz x 8: one
4-wide add and one 4-wide multiply per cycle, AVX2 without FMA) and of the memory
bandwidth B (GB/s, tools/stream_triad) it is. With --callgrind-steps C it also counts the
instructions of C steps under `valgrind --tool=callgrind --toggle-collect=sim_step`, per
pass and per touching pair: the figure a shared machine does not move.

The counts are what the code does per pair (docs/performance.md gives the rule and each
term); whoever changes the force path changes them here and in the doc.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

# Floating-point operations (add, sub, mul, div, sqrt each one; compares, selects and
# negations none; a loop-invariant product none; a sub-expression the compiler computes
# once, once) of the force path of hertz_tti, one material, per pair:
FLOPS = {
    # every listed pair: separation, squared distance, radii's sum, sqrt, overlap, test
    "listed": 12,
    # each touching pair besides: normal, rate, R*, m*, ending test (24, 2 div); Hertz
    # spring and TTI dashpot (12, 4 sqrt); work, force, both particles' sums (15)
    0.0: 51,
    # with Mindlin friction besides: contact points' motion (57), spring constants (6,
    # 2 sqrt), turning the spring into the plane (18 + 1 div + 1 sqrt), spring, dashpot,
    # cap and power (46) and the sliding force and spring every contact computes, kept
    # where it slides (10, 2 div, 1 sqrt: tangential_spring_lane), tangential work and
    # torques (23), both particles' torque sums (6)
    0.5: 51 + 57 + 6 + 20 + 56 + 23 + 6,
}
# Bytes the pair loop reads or writes per pair (8 per double, 4 per index, 1 per flag):
BYTES = {
    # every listed pair: i and j (8), the touching flag (1), j's centre (24) and radius (8)
    "listed": 41,
    # each touching pair: j's velocity (24) and mass (8), owner and cross slot (8), the
    # force kept on the pair (24 written), j's force sum (48 read and written)
    0.0: 112,
    # with friction besides: j's spin (24), mid-step velocity and spin (48), the spring
    # (48 read and written), j's torque sum (48 read and written)
    0.5: 112 + 24 + 48 + 48 + 48,
    # and each particle once, as the first of its pairs: its centre, radius, velocity and
    # mass (64), its force sum (48 read and written); with friction its spin, mid-step
    # velocity and spin (72) and torque sum (48 read and written)
    "particle": {0.0: 112, 0.5: 112 + 72 + 48},
}
PASSES = ("neighbours", "pairs", "integration", "books")
# the functions sim_step calls, by pass (callgrind, inclusive); the books are the rest
CALLGRIND_PASSES = {
    "neighbours": ("list_needs_rebuild", "list_rebuild", "ghosts_update"),
    "pairs": ("force_loop_run",),
    "integration": ("integrate_advance_positions", "walls_move", "integrate_add_stored_forces"),
}


def bench(dempact, bed, steps, mu):
    out = subprocess.run([dempact, "bench", "--load", bed, "--steps", str(steps), "--threads", "1",
                          "--friction", str(mu), "--format", "json", "--quiet"],
                         check=True, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    return json.loads(out)


def touching_per_step(r):
    """Touching contacts (particle pairs and wall pairs) the pair loop computes per step."""
    n = r["particles"]
    pairs = r["pair_contacts_per_particle_end"] * n / 2
    walls = (r["contacts_per_particle_end"] - r["pair_contacts_per_particle_end"]) * n
    return pairs, walls


def callgrind_inclusive(dempact, bed, steps, mu):
    """Instructions of each function while inside sim_step (inclusive), over `steps` steps."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=sim_step",
                        "--callgrind-out-file=" + out, dempact, "bench", "--load", bed, "--steps",
                        str(steps), "--threads", "1", "--friction", str(mu), "--quiet"],
                       check=True, capture_output=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                              check=True, capture_output=True, text=True).stdout
    inclusive = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*:(\w+)", line)
        if m and m.group(2) not in inclusive:
            inclusive[m.group(2)] = int(m.group(1).replace(",", ""))
    return inclusive


def callgrind(dempact, bed, steps, mu):
    """Instructions per step, in all and by pass. The setup steps through sim_step too
    (the law's calibration collides two spheres): a run of 0 steps counts them, and the
    difference is the bench's steps alone."""
    run, setup = (callgrind_inclusive(dempact, bed, k, mu) for k in (steps, 0))
    count = lambda f: run.get(f, 0) - setup.get(f, 0)
    total = count("sim_step")
    by_pass = {p: sum(count(f) for f in fs) for p, fs in CALLGRIND_PASSES.items()}
    by_pass["books"] = total - sum(by_pass.values())
    return total / steps, {p: v / steps for p, v in by_pass.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dempact", required=True)
    ap.add_argument("--bed", required=True)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ghz", type=float, default=2.6)
    ap.add_argument("--flops-per-cycle", type=float, default=8.0)
    ap.add_argument("--triad-gbs", type=float, default=None)
    ap.add_argument("--callgrind-steps", type=int, default=0)
    a = ap.parse_args()
    if a.steps < 1 or a.repeats < 1 or a.callgrind_steps < 0:
        sys.exit("step_account.py: --steps and --repeats take a whole number >= 1")
    runs = {0.0: [], 0.5: []}
    for k in range(a.repeats):  # interleaved: both laws see the same minutes of the machine
        for mu in runs:
            runs[mu].append(bench(a.dempact, a.bed, a.steps, mu))
            print("run %d, friction %g: %.4g particle-steps/s" %
                  (k + 1, mu, runs[mu][-1]["particle_steps_per_second"]), file=sys.stderr)
    peak = a.ghz * a.flops_per_cycle
    for mu, rs in runs.items():
        med = lambda f: statistics.median(f(r) for r in rs)
        r0 = rs[0]
        n = r0["particles"]
        pairs, walls = touching_per_step(r0)
        listed = r0["listed_pairs_per_particle"] * n
        print("\n## friction %g: %d spheres, %.4g listed pairs, %.4g touching pairs and %.4g "
              "wall contacts per step" % (mu, n, listed, pairs, walls))
        print("particle-steps per second (median of %d): %.4g" % (len(rs), med(lambda r: r["particle_steps_per_second"])))
        print("\n| pass | s per step | % of the step |\n|---|---|---|")
        for p in PASSES:
            print("| %s | %.4g | %.1f |" % (p, med(lambda r: r["passes"][p]["seconds_per_step"]),
                                          med(lambda r: r["passes"][p]["percent"])))
        pair_s = med(lambda r: r["passes"]["pairs"]["seconds_per_step"])
        contacts = pairs + walls
        flops = FLOPS["listed"] * listed + FLOPS[mu] * contacts
        moved = BYTES["listed"] * listed + BYTES[mu] * contacts + BYTES["particle"][mu] * n
        print("\npair loop, per touching contact: %.1f ns, %.0f flop and %.0f bytes (with its "
              "share of the listed pairs and of the particles)" % (1e9 * pair_s / contacts, flops / contacts, moved / contacts))
        print("  %.3g GFLOP/s: %.1f%% of %.3g GFLOP/s peak" % (flops / pair_s / 1e9,
                                                             100 * flops / pair_s / 1e9 / peak, peak))
        gbs = moved / pair_s / 1e9
        line = "  %.3g GB/s" % gbs
        if a.triad_gbs:
            line += ": %.1f%% of the triad's %.3g GB/s" % (100 * gbs / a.triad_gbs, a.triad_gbs)
        print(line)
        print("  per particle-step: %.1f ns in the pair loop, %.1f ns in all" %
              (1e9 * pair_s / n, 1e9 * med(lambda r: r["seconds_per_step"]) / n))
        if a.callgrind_steps:
            total, by_pass = callgrind(a.dempact, a.bed, a.callgrind_steps, mu)
            print("\ncallgrind, %d steps: %.4g instructions per step, %.1f per particle-step" %
                  (a.callgrind_steps, total, total / n))
            print("\n| pass | instructions per step | % | per touching contact |\n|---|---|---|---|")
            for p in PASSES:
                print("| %s | %.4g | %.1f | %.1f |" % (p, by_pass[p], 100 * by_pass[p] / total,
                                                      by_pass[p] / contacts))


if __name__ == "__main__":
    main()
