#!/usr/bin/env python3
"""Restitution curves: the restitution each law really produces against the one requested.

Runs `dempact collide --sweep ... --format csv` for every law that takes a restitution
parameter (read from `dempact laws`), and for the Hertzian damping laws
(F = K d^n (1 + chi(e) d'/v0)) compares the engine's measured restitution with the closed form e_out, the root in (0, 1] of

    chi (1 + e_out) = ln((1 + chi) / (1 - e_out chi))

computed here, independently of the C code, from this file's own table of chi(e).
This is the engine's version of Fig. 10 of Sheikhi Azqandi & Safaeifar (2024) and Fig. 7
of Alaci et al.

Output (stdout, or --csv FILE):
    law,restitution_requested,restitution_out_engine,restitution_out_closed_form,
    relative_difference,calibrated
relative_difference = (engine - reference) / reference, where the reference is the closed
form when there is one, else the requested restitution (how far the law is from the
diagonal). restitution_requested is the engine's own grid value (restitution_in).
calibrated is 1 for rows run with `collide --calibrate` (damping solved so that the
collision restitutes exactly the requested e; reference = requested e), 0 otherwise.

Checked (exit status 1 when violated): every Hertzian damping law's row against its closed
form within --tolerance (relative), every calibrated row against the requested e within
--calibrate-tolerance (default: --tolerance), and a Hertzian damping law whose sweep
collide refuses.
Rows of the other laws (linear, hertz_tti, zhang, ...) are reported, not checked. Laws or
builds whose collide refuses --calibrate altogether are skipped with a message.
Exit status 2: bad usage, or dempact could not be run at all.

Run it with the project's environment: `.venv/bin/python tools/restitution_curves.py
--dempact build/dempact` (bash tools/setup.sh makes .venv/).
"""

import argparse
import csv
import io
import math
import re
import subprocess
import sys
import time

# --------------------------------------------------------------------------------------
# Closed form for the Hertzian damping laws (docs/physics.md; Sheikhi Azqandi & Safaeifar
# 2024, eq. 11; Alaci et al., eqs. 10-15)
# --------------------------------------------------------------------------------------


def _chi_minus_log1p(chi):
    """chi - ln(1 + chi), accurate also for tiny chi (series: chi^2/2 - chi^3/3 + ...)."""
    if abs(chi) < 0.5:
        # chi - ln(1+chi) = sum_{k>=2} (-1)^k chi^k / k (the direct difference cancels)
        s, p = 0.0, chi * chi
        for k in range(2, 80):
            t = p / k
            s += t if k % 2 == 0 else -t
            if t < 1e-18 * s:
                break
            p *= chi
        return s
    return chi - math.log1p(chi)


def _s_minus_expm1(s):
    """s - (e^s - 1) = -(s^2/2! + s^3/3! + ...), accurate also for tiny |s| (the direct
    difference loses the relative precision of s there, and e_out = -expm1(s)/chi needs it)."""
    if abs(s) < 1.0:
        total, term = 0.0, s
        for k in range(2, 40):
            term *= s / k  # s^k / k!
            total -= term
            if abs(term) < 1e-18 * abs(total):
                break
        return total
    return s - math.expm1(s)


def closed_form_restitution(chi):
    """Real restitution e_out of F = K d^n (1 + chi d'/v0): the root in (0, 1] of
    g(x) = chi (1 + x) - ln((1 + chi) / (1 - x chi)).

    g is strictly decreasing on (0, 1/chi) (g' = -chi^2 x / (1 - x chi)), g(0) > 0 and
    g -> -inf at x -> 1/chi, so the root is unique. Near x -> 1/chi (large chi) x itself is
    a poor variable: substitute u = 1 - x chi in (0, 1] and s = ln u in (-inf, 0]. Then
    g = 0 becomes
        f(s) = (s - expm1(s)) + (chi - ln(1 + chi)) = 0,
    f is increasing on s < 0 (f' = -expm1(s) > 0), f(0) = chi - ln(1+chi) > 0 and
    f(-c) = -e^{-c} < 0 with c = 1 + chi - ln(1 + chi), so [-c, 0] brackets the root.
    Safeguarded Newton inside the bracket, then x = -expm1(s) / chi (no cancellation).
    """
    if not (chi >= 0.0) or math.isinf(chi):
        raise ValueError("chi must be finite and >= 0, got %r" % chi)
    if chi == 0.0:
        return 1.0
    a = _chi_minus_log1p(chi)  # > 0
    c = 1.0 + a
    lo, hi = -c, 0.0  # f(lo) < 0 < f(hi)

    def f(s):
        return _s_minus_expm1(s) + a

    # Starting point: for large c the root is s ~ -c - e^{-c}; for small chi, s ~ -sqrt(2a).
    s = -c if c > 2.0 else -math.sqrt(2.0 * a)
    s = min(max(s, lo), hi)
    for _ in range(200):
        fs = f(s)
        if fs == 0.0:
            break
        if fs < 0.0:
            lo = s
        else:
            hi = s
        d = -math.expm1(s)  # f'(s)
        s_new = s - fs / d if d > 0.0 else 0.5 * (lo + hi)
        if not (lo < s_new < hi):
            s_new = 0.5 * (lo + hi)
        # Converged when a step no longer changes s beyond rounding (relative: s may be tiny,
        # and e_out = -expm1(s)/chi needs s to full relative precision when chi is small).
        if abs(s_new - s) <= 1e-16 * abs(s_new):
            s = s_new
            break
        s = s_new
    x = -math.expm1(s) / chi
    return min(x, 1.0)


def chi_exact(e):
    """chi of the 'exact' law: the root in (0, 1/e) of chi (1 + e) = ln((1+chi)/(1-e chi)),
    i.e. the chi whose closed-form restitution is e. Found by bisection on ln(chi) with
    closed_form_restitution (decreasing in chi: more damping, less restitution)."""
    if e >= 1.0:
        return 0.0
    lo, hi = math.log(1e-300), math.log(1e300)
    for _ in range(400):
        mid = 0.5 * (lo + hi)
        if closed_form_restitution(math.exp(mid)) > e:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return math.exp(0.5 * (lo + hi))


# chi(e) of the Hertzian damping laws (docs/laws.md, their table). The keys are dempact's law names.
FAMILY3_CHI = {
    "hunt_crossley": lambda e: 1.5 * (1.0 - e),
    "lankarani_nikravesh": lambda e: 0.75 * (1.0 - e * e),
    "flores": lambda e: 8.0 * (1.0 - e) / (5.0 * e),
    "gharib_hurmuzlu": lambda e: 1.0 / e,
    "hu_guo": lambda e: 1.5 * (1.0 - e) / e,
    "safaeifar_farshidianfar": lambda e: 1.25 * (1.0 - e) / e,
    "sheikhi_azqandi_safaeifar": lambda e: (200.0 / 159.0) * (1.0 - e) / e,
    "exact": chi_exact,
}

# Laws whose damping `collide --calibrate` is to solve for although they have no restitution
# parameter of their own today (they get an optional one used only with --calibrate).
CALIBRATION_ONLY_LAWS = ("hertz_critical_ratio", "hertz_kk", "hertz_lh")


def family3_closed_form(law, e):
    return closed_form_restitution(FAMILY3_CHI[law](e))


def simulate_restitution(chi, n=1.5, steps=20000):
    """Independent check of closed_form_restitution: integrate the dimensionless
    x'' = -x^n (1 + chi x'), x(0) = 0, x'(0) = 1 with RK4 until x returns to 0, and return
    -x' there (linear interpolation at the crossing). The result is independent of n."""
    # Time scale: the undamped contact lasts ~ 2 * 1.4716 * x_m with x_m = (5/4)^(2/5) for n=1.5;
    # use a generous fixed step and keep stepping until separation.
    h = 3.2 / steps

    def acc(x, v):
        return -(x ** n if x > 0.0 else 0.0) * (1.0 + chi * v)

    x, v = 0.0, 1.0
    for _ in range(50 * steps):
        k1x, k1v = v, acc(x, v)
        k2x, k2v = v + 0.5 * h * k1v, acc(x + 0.5 * h * k1x, v + 0.5 * h * k1v)
        k3x, k3v = v + 0.5 * h * k2v, acc(x + 0.5 * h * k2x, v + 0.5 * h * k2v)
        k4x, k4v = v + h * k3v, acc(x + h * k3x, v + h * k3v)
        xn = x + h / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
        vn = v + h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)
        if xn <= 0.0 and vn < 0.0:
            w = x / (x - xn)
            return -(v + w * (vn - v))
        x, v = xn, vn
    raise RuntimeError("no separation")


def self_test():
    """Root finder against its own definition, the exact law's round trip, limits, and an
    RK4 integration of the dimensionless equation of motion. Returns a list of failures."""
    failures = []

    def check(name, ok, detail):
        status = "ok  " if ok else "FAIL"
        print("self-test %s %s: %s" % (status, name, detail), file=sys.stderr)
        if not ok:
            failures.append(name)

    # 1. the root satisfies the equation it solves (residual in the log form, relative)
    # (for chi beyond ~30, 1 - e_out chi < 1e-13 and x chi rounds to 1: range check only)
    worst = 0.0
    for chi in [1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.999, 1.0, 1.001, 1.5, 2.0, 5.0,
                20.0, 50.0, 200.0, 1e6]:
        x = closed_form_restitution(chi)
        if not (0.0 < x <= 1.0 and x * chi <= 1.0):
            check("range chi=%g" % chi, False, "e_out=%r" % x)
        if 1e-3 <= chi <= 20.0:
            lhs = chi * (1.0 + x)
            rhs = math.log1p(chi) - math.log1p(-x * chi)
            worst = max(worst, abs(lhs - rhs) / lhs)
    check("residual", worst < 1e-9, "worst relative residual %.2e over chi in [1e-3, 20]" % worst)
    # 2. limits: chi -> 0 gives e_out -> 1 - (2/3) chi (from the series), chi -> inf gives 1/chi
    x = closed_form_restitution(1e-6)
    check("small chi", abs((1.0 - x) / 1e-6 - 2.0 / 3.0) < 1e-5, "(1-e_out)/chi = %.9f (2/3)" % ((1.0 - x) / 1e-6))
    x = closed_form_restitution(200.0)
    check("large chi", abs(x * 200.0 - 1.0) < 1e-12, "e_out*chi = %.15f (1 - ~e^-199)" % (x * 200.0))
    # 3. the exact law restitutes e
    worst = 0.0
    for e in [1e-4, 0.01, 0.05, 0.3, 0.5, 0.8, 0.95, 0.99, 0.999999]:
        worst = max(worst, abs(family3_closed_form("exact", e) - e) / e)
    check("exact law round trip", worst < 1e-12, "worst |e_out - e|/e = %.2e" % worst)
    # 4. direct integration of the equation of motion
    worst = 0.0
    for chi, n in [(0.05, 1.5), (0.7, 1.5), (3.0, 1.5), (12.0, 1.5), (0.7, 1.0), (3.0, 2.5)]:
        sim = simulate_restitution(chi, n=n, steps=4000)
        cf = closed_form_restitution(chi)
        worst = max(worst, abs(sim - cf) / cf)
    check("RK4 integration", worst < 1e-4,
          "worst relative difference %.2e (chi 0.05..12, n = 1, 3/2, 5/2)" % worst)
    return failures


# --------------------------------------------------------------------------------------
# Talking to dempact
# --------------------------------------------------------------------------------------


class Refused(Exception):
    """dempact collide exited non-zero; .message is its diagnostic."""

    def __init__(self, message, status):
        super().__init__(message)
        self.message = message
        self.status = status


def run_dempact(dempact, args):
    try:
        p = subprocess.run([dempact] + args, capture_output=True, text=True)
    except OSError as exc:
        print("restitution_curves: cannot run %s: %s" % (dempact, exc), file=sys.stderr)
        sys.exit(2)
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        msg = lines[0] if lines else "exit status %d, no message" % p.returncode
        raise Refused(msg, p.returncode)
    return p.stdout


def read_laws(dempact):
    """{law: {parameter: required?}} from `dempact laws`."""
    text = run_dempact(dempact, ["laws"])
    laws, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^([a-z][a-z0-9_]*)\s*$", line)
        if m:
            current = m.group(1)
            laws[current] = {}
            continue
        m = re.match(r"^  ([a-z][a-z0-9_]*)\s+default\s+(\S+)", line)
        if m and current is not None:
            laws[current][m.group(1)] = m.group(2) == "required"
    if not laws:
        print("restitution_curves: `%s laws` listed no laws" % dempact, file=sys.stderr)
        sys.exit(2)
    return laws


def parse_collide_csv(text):
    """[(restitution_in, restitution_out, calibrated coefficient name or None, value or None)]"""
    out = []
    for r in csv.DictReader(io.StringIO(text)):
        try:
            coef, val = r.get("calibrated_coefficient") or None, r.get("calibrated_value") or None
            out.append((float(r["restitution_in"]), float(r["restitution_out"]),
                        coef, float(val) if val is not None else None))
        except (KeyError, TypeError, ValueError):
            raise Refused("unexpected collide output: %r" % text[:200], 0)
    if not out:
        raise Refused("collide printed no rows: %r" % text[:200], 0)
    return out


def collide(opts, law, extra):
    base = ["collide", "--law", law, "--velocity", repr(opts.velocity), "--format", "csv"]
    if opts.cohesion_removal:
        base += ["--cohesion-removal", opts.cohesion_removal]
    for p in opts.law_params.get(law, []):
        base += ["--param", p]
    return parse_collide_csv(run_dempact(opts.dempact, base + extra))


def sweep_spec(opts):
    return "%r:%r:%d" % (opts.e_from, opts.e_to, opts.points)


def grid(opts):
    if opts.points == 1:
        return [opts.e_from]
    return [opts.e_from + (opts.e_to - opts.e_from) * i / (opts.points - 1) for i in range(opts.points)]


def run_plain(opts, law):
    return collide(opts, law, ["--sweep", sweep_spec(opts)])


def run_calibrated(opts, law):
    """Calibrated curve: ([rows], [(e, message) of the points collide refused]).

    One `collide --calibrate --sweep` call; if collide refuses it (a sweep stops at its
    first failing point), one call per point. Raises Refused when every point is refused
    (collide without --calibrate, or a law it cannot calibrate): the curve is skipped."""
    try:
        return collide(opts, law, ["--calibrate", "--sweep", sweep_spec(opts)]), []
    except Refused as first:
        rows, refused = [], []
        for e in grid(opts):
            try:
                rows += collide(opts, law, ["--calibrate", "--restitution", repr(e)])
            except Refused as r:
                refused.append((e, r.message))
        if not rows:
            raise first
        return rows, refused


# --------------------------------------------------------------------------------------
# Plot
# --------------------------------------------------------------------------------------


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError as exc:
        import venv_hint
        print(venv_hint.message("restitution_curves", exc) + " Or pass --no-plot.",
              file=sys.stderr)
        sys.exit(2)


# Distinct colours (tab10, then four more); laws whose curves lie close together (flores,
# hu_guo, safaeifar_farshidianfar, sheikhi_azqandi_safaeifar, exact) must stay apart.
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#4b0082", "#b8860b", "#008080"]


def plot(plt, opts, results, png):
    laws = list(dict.fromkeys(r["law"] for r in results))
    checked = [r for r in results if r["calibrated"] or r["law"] in FAMILY3_CHI]
    if checked:
        fig, (ax, axr) = plt.subplots(2, 1, figsize=(10.5, 10), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1.2]})
    else:
        fig, ax = plt.subplots(figsize=(10.5, 7.5))
        axr = None
    lo, hi = opts.e_from, opts.e_to
    dense = [lo + (hi - lo) * i / 400 for i in range(401)] if hi > lo else [lo]
    for k, law in enumerate(laws):
        col = COLOURS[k % len(COLOURS)]
        # shrinking open markers: points of laws that coincide show as concentric rings
        ms = max(8.5 - 0.35 * k, 3.5)
        plain = [r for r in results if r["law"] == law and not r["calibrated"]]
        calib = [r for r in results if r["law"] == law and r["calibrated"]]
        label = law
        if law in FAMILY3_CHI:
            ax.plot(dense, [family3_closed_form(law, e) for e in dense], color=col, lw=1.5, zorder=2)
            if plain:
                ax.plot([r["e"] for r in plain], [r["engine"] for r in plain], ls="none", marker="o",
                        ms=ms, mfc="none", mew=1.3, color=col, zorder=3)
        elif plain:
            ax.plot([r["e"] for r in plain], [r["engine"] for r in plain], ls=":", lw=1.2,
                    marker="s", ms=ms, mfc="none", mew=1.3, color=col, zorder=3)
            label += " (no closed form)"
        if calib:
            ax.plot([r["e"] for r in calib], [r["engine"] for r in calib], ls="none", marker="x",
                    ms=7, mew=1.5, color=col, zorder=4)
            if not plain and law not in FAMILY3_CHI:
                label += " (calibrated only)"
        ax.plot([], [], color=col, lw=4, label=label)  # legend: one colour swatch per law
        if axr is not None:
            for rs, mk in ((plain if law in FAMILY3_CHI else [], "o"), (calib, "x")):
                if rs:
                    axr.plot([r["e"] for r in rs], [max(abs(r["rel"]), 1e-13) for r in rs],
                             marker=mk, ms=4.5, mfc="none", lw=0.7, color=col)
    ax.plot([0, 1], [0, 1], color="black", lw=1.0, ls=(0, (5, 4)), zorder=5, label="e_out = e")
    # legend entries for the symbols
    ax.plot([], [], color="gray", lw=1.5, label="line: closed form (Hertzian damping laws)")
    ax.plot([], [], color="gray", ls="none", marker="o", mfc="none", mew=1.3,
            label="o: engine (dempact collide), Hertzian damping laws")
    if any(not r["calibrated"] and r["law"] not in FAMILY3_CHI for r in results):
        ax.plot([], [], color="gray", ls=":", marker="s", mfc="none", mew=1.3, label="s: engine, other laws")
    if any(r["calibrated"] for r in results):
        ax.plot([], [], color="gray", ls="none", marker="x", mew=1.5, label="x: engine, --calibrate")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("restitution produced, e_out")
    ax.grid(True, alpha=0.3)
    cr = opts.cohesion_removal or "on (engine default)"
    ax.set_title("Restitution produced against restitution requested\n"
                 "head-on binary collision, v0 = %g m/s, cohesion removal %s" % (opts.velocity, cr))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    last = ax
    if axr is not None:
        axr.axhline(opts.tolerance, color="red", lw=1.0, ls="--", label="tolerance %g" % opts.tolerance)
        if opts.calibrate and opts.calibrate_tolerance != opts.tolerance:
            axr.axhline(opts.calibrate_tolerance, color="red", lw=1.0, ls=":",
                        label="calibrated tolerance %g" % opts.calibrate_tolerance)
        axr.set_yscale("log")
        axr.set_ylabel("|engine - reference|\n/ reference")
        axr.set_title("reference: closed form (o, Hertzian damping laws)" +
                      (", requested e (x, calibrated)" if any(r["calibrated"] for r in results) else ""),
                      fontsize=9)
        axr.grid(True, which="both", alpha=0.3)
        axr.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
        last = axr
    last.set_xlabel("restitution requested, e")
    fig.tight_layout()
    fig.savefig(png, dpi=110, bbox_inches="tight")
    plt.close(fig)


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] + " Compares the Hertzian damping laws with their closed form.",
        epilog="Exit status: 0 all checks pass, 1 a check failed, 2 usage or dempact error.")
    ap.add_argument("--dempact", required=True, help="path to the dempact program")
    ap.add_argument("--laws", help="comma-separated law names (default: every law with a "
                    "restitution parameter in `dempact laws`; with --calibrate also "
                    + ", ".join(CALIBRATION_ONLY_LAWS) + ")")
    ap.add_argument("--from", dest="e_from", type=float, default=0.05, help="first e (default 0.05)")
    ap.add_argument("--to", dest="e_to", type=float, default=0.99, help="last e (default 0.99)")
    ap.add_argument("--points", type=int, default=20, help="number of e values (default 20)")
    ap.add_argument("--velocity", type=float, default=1.0, help="impact velocity v0, m/s (default 1)")
    ap.add_argument("--cohesion-removal", choices=["on", "off"],
                    help="passed to collide (default: collide's default, on)")
    ap.add_argument("--param", action="append", default=[], metavar="LAW:KEY=VALUE",
                    help="extra --param KEY=VALUE for one law's collide runs (repeatable), "
                    "e.g. zhang:m=1")
    ap.add_argument("--calibrate", action="store_true",
                    help="also run each law with collide --calibrate (damping solved to restitute "
                    "exactly e); laws or builds that refuse it are skipped with a message")
    ap.add_argument("--tolerance", type=float, default=0.002,
                    help="largest relative difference allowed (default 0.002)")
    ap.add_argument("--calibrate-tolerance", type=float,
                    help="the same for calibrated rows against the requested e (default: --tolerance)")
    ap.add_argument("--csv", metavar="FILE", help="write the CSV to FILE instead of stdout")
    ap.add_argument("--png", metavar="FILE", default="restitution_curves.png",
                    help="plot file (default restitution_curves.png)")
    ap.add_argument("--no-plot", action="store_true", help="do not draw (matplotlib not needed)")
    ap.add_argument("--self-test", action="store_true",
                    help="first check the closed-form root finder (root residual, limits, exact "
                    "law round trip, RK4 integration of the equation of motion)")
    opts = ap.parse_args(argv)
    if not (0.0 < opts.e_from <= 1.0 and 0.0 < opts.e_to <= 1.0):
        ap.error("--from and --to must lie in (0, 1]")
    if opts.e_from > opts.e_to:
        ap.error("--from must not exceed --to")
    if opts.points < 1 or (opts.points == 1 and opts.e_from != opts.e_to) or \
            (opts.points > 1 and opts.e_from == opts.e_to):
        ap.error("--points must be >= 1 (1 only when --from equals --to)")
    if not (opts.velocity > 0.0):
        ap.error("--velocity must be > 0")
    if not (opts.tolerance > 0.0):
        ap.error("--tolerance must be > 0")
    if opts.calibrate_tolerance is None:
        opts.calibrate_tolerance = opts.tolerance
    if not (opts.calibrate_tolerance > 0.0):
        ap.error("--calibrate-tolerance must be > 0")
    opts.law_params = {}
    for p in opts.param:
        m = re.match(r"^([a-z][a-z0-9_]*):([^=]+=.*)$", p)
        if not m:
            ap.error("--param takes LAW:KEY=VALUE, got %r" % p)
        opts.law_params.setdefault(m.group(1), []).append(m.group(2))
    return opts


def fmt(x):
    return "" if x is None else repr(x)


def main(argv):
    opts = parse_args(argv)
    t_start = time.monotonic()
    plt = None
    if not opts.no_plot:
        plt = import_pyplot()  # fail before the runs, not after them

    failures = []
    if opts.self_test:
        failures += ["self-test " + f for f in self_test()]

    known = read_laws(opts.dempact)
    if opts.laws:
        laws = list(dict.fromkeys(l.strip() for l in opts.laws.split(",") if l.strip()))
        unknown = [l for l in laws if l not in known]
        if unknown:
            print("restitution_curves: dempact has no law %s (see `%s laws`)"
                  % (", ".join(unknown), opts.dempact), file=sys.stderr)
            return 2
    else:
        laws = [l for l in known if "restitution" in known[l]]
        if opts.calibrate:
            laws += [l for l in CALIBRATION_ONLY_LAWS if l in known and l not in laws]
    for l in opts.law_params:
        if l not in laws:
            print("restitution_curves: warning: --param for %s, which is not swept" % l, file=sys.stderr)

    print("restitution_curves: v0 = %g m/s, cohesion removal %s, e = %g..%g (%d points)%s, laws: %s"
          % (opts.velocity, opts.cohesion_removal or "default (on)", opts.e_from, opts.e_to,
             opts.points, ", with --calibrate" if opts.calibrate else "", ", ".join(laws)),
          file=sys.stderr)

    def note(msg):
        print("restitution_curves: " + msg, file=sys.stderr)

    results = []   # dicts: law, e, engine, closed, rel, calibrated, coef, value
    skipped = []
    no_calibrate = False  # set when collide does not know --calibrate at all
    for law in laws:
        # --- the law as it is, restitution parameter = e
        given = {p.split("=", 1)[0] for p in opts.law_params.get(law, [])}
        missing = [p for p, req in known[law].items() if req and p != "restitution" and p not in given]
        rows = []
        if "restitution" not in known[law]:
            note("%s: no restitution parameter, %s" % (law, "calibrated curve only" if opts.calibrate
                                                     else "skipped"))
            if not opts.calibrate:
                skipped.append(law)
        elif missing:
            # e.g. hertz_kk: its restitution parameter only serves --calibrate; eta is required
            note("%s: needs %s (give --param %s:%s=VALUE); %s"
                 % (law, ", ".join(missing), law, missing[0],
                    "calibrated curve only" if opts.calibrate else "skipped"))
            if law in FAMILY3_CHI:
                failures.append("%s: needs parameter %s" % (law, ", ".join(missing)))
            elif not opts.calibrate:
                skipped.append(law)
        else:
            try:
                rows = run_plain(opts, law)
            except Refused as r:
                if law in FAMILY3_CHI:
                    failures.append("%s: collide failed: %s" % (law, r.message))
                    note("FAIL %s: collide failed: %s" % (law, r.message))
                else:
                    note("%s: collide refused the sweep, skipped: %s" % (law, r.message))
                    skipped.append(law)
        for e, eo, _, _ in rows:
            closed = family3_closed_form(law, e) if law in FAMILY3_CHI else None
            ref = closed if closed is not None else e
            results.append(dict(law=law, e=e, engine=eo, closed=closed, rel=(eo - ref) / ref,
                                calibrated=False, coef=None, value=None))
        # --- calibrated: damping solved by collide so that the collision restitutes e
        if opts.calibrate and no_calibrate:
            skipped.append(law + " (calibrated)")
        elif opts.calibrate:
            try:
                crows, refused = run_calibrated(opts, law)
            except Refused as r:
                crows, refused = [], []
                skipped.append(law + " (calibrated)")
                if "'--calibrate'" in r.message:  # "unknown or incomplete option '--calibrate'"
                    no_calibrate = True
                    note("this dempact has no --calibrate (%s): calibrated curves skipped" % r.message)
                else:
                    note("%s: collide refuses --calibrate, calibrated curve skipped: %s" % (law, r.message))
            for e, msg in refused:
                note("FAIL %s: calibration refused at e = %r: %s" % (law, e, msg))
                failures.append("%s calibrated: refused at e = %r: %s" % (law, e, msg))
            for e, eo, coef, value in crows:
                # A calibrated law restitutes e; for a Hertzian damping law that is also its closed form
                # (the calibrated chi is the exact law's chi).
                closed = e if law in FAMILY3_CHI else None
                results.append(dict(law=law, e=e, engine=eo, closed=closed, rel=(eo - e) / e,
                                    calibrated=True, coef=coef, value=value))

    # CSV
    out = open(opts.csv, "w", newline="") if opts.csv else sys.stdout
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["law", "restitution_requested", "restitution_out_engine",
                "restitution_out_closed_form", "relative_difference", "calibrated"])
    for r in results:
        w.writerow([r["law"], fmt(r["e"]), fmt(r["engine"]), fmt(r["closed"]), fmt(r["rel"]),
                    1 if r["calibrated"] else 0])
    if opts.csv:
        out.close()
    else:
        sys.stdout.flush()

    # Checks and summary (stderr)
    if results:
        note("worst |relative difference| per curve (Hertzian damping laws: engine against closed form, "
         "tolerance %g; calibrated: engine against e, tolerance %g; others: against e, not checked):"
             % (opts.tolerance, opts.calibrate_tolerance))
    curves = list(dict.fromkeys((r["law"], r["calibrated"]) for r in results))
    for law, cal in curves:
        rs = [r for r in results if r["law"] == law and r["calibrated"] == cal]
        worst = max(rs, key=lambda r: abs(r["rel"]))
        checked = cal or law in FAMILY3_CHI
        tol = opts.calibrate_tolerance if cal else opts.tolerance
        bad = [r for r in rs if not (abs(r["rel"]) <= tol)]
        verdict = ("FAIL (%d of %d points)" % (len(bad), len(rs)) if checked and bad
                   else "ok" if checked else "not checked")
        extra = ""
        chis = [r for r in rs if cal and law in FAMILY3_CHI and r["coef"] == "chi" and r["value"]]
        if chis:
            # independent look at the calibrated coefficient: it must be the exact law's chi(e)
            dev = max(abs(r["value"] - chi_exact(r["e"])) / chi_exact(r["e"]) for r in chis)
            extra = "; calibrated chi vs exact chi(e): worst %.1e" % dev
        print("  %-26s %-10s %.3e at e = %-9.6g %s%s" % (law, "calibrated" if cal else "",
              abs(worst["rel"]), worst["e"], verdict, extra), file=sys.stderr)
        if checked and bad:
            failures.append("%s%s: %d of %d points beyond tolerance %g (worst %.3e at e = %r)"
                            % (law, " calibrated" if cal else "", len(bad), len(rs), tol,
                               abs(worst["rel"]), worst["e"]))
    if skipped:
        note("skipped: %s" % ", ".join(skipped))

    if plt is not None and results:
        plot(plt, opts, results, opts.png)
        print("restitution_curves: plot written to %s" % opts.png, file=sys.stderr)
    elif plt is not None:
        print("restitution_curves: nothing to plot", file=sys.stderr)

    print("restitution_curves: %d rows in %.1f s" % (len(results), time.monotonic() - t_start),
          file=sys.stderr)
    if failures:
        print("restitution_curves: FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    if not results:
        print("restitution_curves: no law produced a curve", file=sys.stderr)
        return 1
    print("restitution_curves: all checks passed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
