#!/usr/bin/env python3
"""The report of tools/compare.py's shear stage: report.md with two tables (the steady
flow: mu, phi, I, Z; the dissipation split), three SVG figures, table.csv (one row per
run) and summary.csv (mean, standard deviation and standard error over the seeds, per
law and mode). The layout, the law families and the figures' style are
tools/compare_report.py's; the measures are tools/compare_shear.py's.

A report of several rates or restitutions is tools/compare_shear_sweep_report.py's.

Every cell is the mean over the seeds ± its standard error: the larger of the seeds'
(sd / sqrt(n)) and the runs' own from the window's blocks, sqrt(sum se_i^2) / n (error_of);
with one seed the run's block error, marked "1 run" in the seeds column. Used by tools/compare.py; `compare.py --report-only DIR` rebuilds a
report.
"""

import math
import os
import sys

import compare_report as cr
import compare_shear as cs

# (key, header, format): the tables of report.md
FLOW = [
    ("mu", "mu = tau / p", "{:.4f}"),
    ("phi", "phi", "{:.4f}"),
    ("inertial_number", "I", "{:.4f}"),
    ("z_mean", "Z", "{:.2f}"),
    ("tau_Pa", "tau (Pa)", "{:.1f}"),
    ("p_Pa", "p (Pa)", "{:.1f}"),
    ("restitution_actual", "e actual", "{:.3f}"),
]
DISSIPATION = [
    ("share_damping", "normal damping", "{:.4f}"),
    ("share_friction", "friction", "{:.4f}"),
    ("share_rolling", "rolling", "{:.4f}"),
    ("share_plasticity", "plasticity", "{:.4f}"),
    ("share_stored", "stored", "{:+.1e}"),
    ("share_residual", "residual", "{:.1e}"),
    ("power_ratio", "power / (tau rate V)", "{:.3f}"),
    ("cpu_time_s", "CPU (s)", "{:.1f}"),
]
PARTS = [("share_damping", "normal damping"), ("share_friction", "friction"),
         ("share_rolling", "rolling"), ("share_plasticity", "plasticity")]


def error_of(rows, key, idx):
    """The error bar of a mean over the seeds: the larger of its standard error over the
    seeds, sd / sqrt(n), and the runs' own, sqrt(sum of their block standard errors
    squared) / n (KEY_se): with few seeds the seeds' spread can be small by chance (two
    seeds that happen to agree), while the blocks still say how well each run fixed its
    value. With one seed the run's block error; NaN where neither exists."""
    mean, sd, n = cr.stats([rows[i].get(key, float("nan")) for i in idx])
    if n == 0:
        return float("nan")
    own = [rows[i].get(f"{key}_se", float("nan")) for i in idx]
    own = [x for x in own if isinstance(x, (int, float)) and math.isfinite(x)]
    pooled = math.sqrt(sum(x * x for x in own)) / len(own) if own else float("nan")
    seeds = sd / math.sqrt(n) if n > 1 else float("nan")
    finite = [x for x in (seeds, pooled) if math.isfinite(x)]
    return max(finite) if finite else float("nan")


def cell(rows, key, idx, fmt):
    mean, _, n = cr.stats([rows[i].get(key, float("nan")) for i in idx])
    if n == 0:
        return "-"
    err = error_of(rows, key, idx)
    return fmt.format(mean) + (" ± " + fmt.format(err).lstrip("+") if math.isfinite(err) else "")


def table(rows, grouped, columns, steady=False):
    head = ["law", "calibrate", "seeds"] + [h for _, h, _ in columns] + (["steady"] if steady else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (law, mode), idx in grouped.items():
        cells = [law, mode, str(len(idx)) if len(idx) > 1 else "1 run"]
        cells += [cell(rows, key, idx, fmt) for key, _, fmt in columns]
        if steady:
            drifting = sum(1 for i in idx if not rows[i].get("steady"))
            cells.append("yes" if not drifting else f"{drifting} of {len(idx)} drift")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def is_sweep(rows, meta):
    """A report of several rates or restitutions (--rates, --restitution E1,E2): its
    tables and figures are per rate and e (tools/compare_shear_sweep_report.py)."""
    rates = {abs(r.get("shear_rate_1_s", 0.0)) for r in rows}
    es = {r["restitution"] for r in rows if math.isfinite(r.get("restitution", float("nan")))}
    return bool(meta.get("rates") or meta.get("restitutions")) or len(rates) > 1 or len(es) > 1


def figures(out, rows, curves, grouped):
    plt = cr._pyplot()
    made = []
    measures = [("mu", "mu = tau / p", None), ("phi", "solid fraction phi", None),
                ("inertial_number", "inertial number I", None), ("z_mean", "Z", None)]
    cr.dot_panels(plt, os.path.join(out, "shear_measures.svg"), rows, grouped, measures,
                  "Steady simple shear: mean over the seeds, bar: its standard error",
                  error=lambda key, idx: error_of(rows, key, idx))
    made.append(("shear_measures.svg", "mu, phi, I and Z, law by law"))
    cr.energy_bars(plt, os.path.join(out, "shear_energy.svg"), rows, grouped, parts=PARTS,
                   residual=("share_residual", "|residual| / shear work"),
                   xlabel="share of the shear's power (steady window)")
    made.append(("shear_energy.svg", "Where the shear's power goes"))
    starts = [cv["window_start"] for cv in curves]
    cr.curve_panels(plt, os.path.join(out, "shear_mu_time.svg"), grouped, curves, "time", "mu",
                    "time (s)", "tau / p (10-sample means)",
                    "mu against time (line: median of the seeds, band: their range; "
                    "dotted: the steady window's start)", vline=min(starts) if starts else None,
                    legend="lower right")
    made.append(("shear_mu_time.svg", "mu against time: the transient and the steady window"))
    return made


# the report's definitions (the sweep's report, compare_shear_sweep_report.py, too)
DEFINITIONS = [
    "- mu = <shear_stress> / <normal_stress> over the window (-sigma_xz and sigma_zz "
    "of the Lees-Edwards box, compression positive); tau and p the two means.",
    "- phi = the particles' volume / (L_x L_y <box height>); I = rate d / sqrt(p / rho), "
    "d the mean diameter, rho the particles' density; Z = 2 x particle contacts with "
    "overlap > 0 / particles, over the window's snapshots.",
    "- The shares: each dissipated_* book's increase over the window / shear_work's "
    "increase; stored: the increase of kinetic + rotational + gravitational + elastic "
    "energy / the "
    "same; residual: energy_residual's increase / the same. dissipation shares + "
    "stored - residual = 1 exactly.",
    "- power / (tau rate V): the shear work's rate over the window / (<tau> rate L_x "
    "L_y <H>): 1 in steady flow.",
    f"- steady: a line fitted to the {cs.BLOCKS} block values of mu (and of phi) "
    f"against time has a slope within {cs.STEADY_Z:g} of its standard error; "
    "'k of n drift': k seeds did not.",
    "- e actual: a head-on collision of two particles of the mean radius at the "
    "run's step and at the shear's speed across one diameter, rate d "
    "(`dempact collide`).",
    "- calibrate: off (published mapping), on (calibrated to e), on* (calibrated: the "
    "law has no other way to e), - (no restitution: hertz, kostek)."]


def write(out, rows, curves, meta):
    if is_sweep(rows, meta):
        import compare_shear_sweep_report
        return compare_shear_sweep_report.write(out, rows, meta)
    grouped = cr.groups(rows)
    cr.write_csv(out, rows, grouped, spreads=("sd", "se"))
    made = figures(out, rows, curves, grouped)
    first = rows[0]
    lines = ["# Contact-law comparison: steady simple shear", ""]
    if meta.get("base_case"):
        lines.append(f"Base case: `{os.path.basename(meta['base_case'])}`, "
                     f"{first['particles']} particles sheared at {first['shear_rate_1_s']:g} 1/s "
                     f"under {first['pressure_target_Pa']:g} Pa, restitution asked "
                     f"{meta.get('restitution', float('nan')):g}; {meta.get('dempact', 'dempact ?')}.")
    adhesions = sorted({r.get("adhesion", "none") for r in rows})
    lines.append("Adhesion: " + " | ".join(f"`{x}`" for x in adhesions) + ".")
    invocations = meta.get("invocations", [])
    if invocations:
        lines.append("Commands: " + "; ".join(f"`{i['command']}`" for i in invocations) + ".")
    seeds = sorted({r["seed"] for r in rows})
    lines += [f"Seed offsets: {', '.join(map(str, seeds))}. Steady window: the last "
              f"{cs.WINDOW:g} of each run, {first['window_start_s']:g} to "
              f"{first['window_end_s']:g} s ({first['window_strain']:.2g} strain units). "
              "Each cell: mean over the seeds ± its standard error: the larger of the "
              "seeds' (sd / sqrt(n)) and the runs' own from "
              f"{cs.BLOCKS} blocks of the window (one seed: '1 run'). "
              "Definitions: docs/compare.md, \"The shear stage\".", "",
              "## Steady flow", ""]
    lines += table(rows, grouped, FLOW, steady=True)
    lines += ["", "## Dissipation split (shares of the shear's work over the window)", ""]
    lines += table(rows, grouped, DISSIPATION)
    lines += ["", "## Figures", ""]
    for name, caption in made:
        lines += [f"![{caption}]({name})", ""]
    lines += ["## Definitions", ""] + DEFINITIONS
    cr.write_report(out, lines, made)
    return rows


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
