#!/usr/bin/env python3
"""The report of tools/compare.py: report.md with its SVG figures, table.csv (one row per
run) and summary.csv (mean and standard deviation over the seeds, per law and mode).

Figures are small multiples, one panel per law family (docs/compare.md), the seeds'
spread drawn as a band (curves) or error bars (one standard deviation, measures), 9 pt
text at least, so that 16 laws and two calibration modes stay readable. Used by
tools/compare.py; `compare.py --report-only DIR` rebuilds a report.
"""

import csv
import io
import math
import os
import sys

try:
    import numpy as np
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("compare_report", missing))

import compare_folder as cf
import compare_measure as cm

FAMILIES = [
    ("Hertz + viscous dashpot", ["hertz_critical_ratio", "hertz_tti", "hertz_kk", "hertz_lh"]),
    ("Hertzian damping, chi d'/v0", ["hunt_crossley", "lankarani_nikravesh", "flores",
                                     "gharib_hurmuzlu", "hu_guo", "safaeifar_farshidianfar",
                                     "sheikhi_azqandi_safaeifar", "exact"]),
    ("Zhang et al.", ["zhang"]),
    ("linear spring-dashpot", ["linear"]),
    ("Kostek (plastic)", ["kostek"]),
    ("Hertz, undamped", ["hertz"]),
]
MODE_ORDER = {"off": 0, "-": 1, "on*": 2, "on": 3}
FONT = 9  # pt, the smallest text of every figure

# (key, header, format): the two tables of report.md, mean +- sd over the seeds
STRUCTURE = [
    ("settling_time_s", "settling time (s)", "{:.3f}"),
    ("phi_bulk", "phi bulk", "{:.4f}"),
    ("z_mean", "Z", "{:.2f}"),
    ("z_no_rattlers", "Z (no rattlers)", "{:.2f}"),
    ("rattler_fraction", "rattlers", "{:.3f}"),
    ("sigma_zz_Pa", "sigma_zz (Pa)", "{:.1f}"),
    ("k_ratio", "K = sigma_h / sigma_v", "{:.3f}"),
    ("sigma_zz_over_overburden", "sigma_zz / overburden", "{:.3f}"),
    ("fabric_zz", "fabric zz", "{:.3f}"),
    ("fabric_anisotropy", "fabric anisotropy", "{:.3f}"),
    ("overlap_mean_rel", "mean overlap / r", "{:.2e}"),
    ("held_past_touching", "held past touching", "{:.3f}"),
    ("tension_fraction", "in tension", "{:.3f}"),
]
ENERGY = [
    ("restitution_asked", "e asked", "{:.3f}"),
    ("restitution_actual", "e actual", "{:.3f}"),
    ("diss_total_J", "dissipated (J)", "{:.3e}"),
    ("frac_damping", "normal damping", "{:.3f}"),
    ("frac_friction", "friction", "{:.3f}"),
    ("frac_rolling", "rolling", "{:.3f}"),
    ("frac_plasticity", "plasticity", "{:.3f}"),
    ("energy_balance_error", "residual / dissipated", "{:.1e}"),
    ("floor_load_over_weight", "floor load / weight", "{:.3f}"),
    ("cpu_time_s", "CPU (s)", "{:.1f}"),
]


def family_of(law):
    for k, (_, laws) in enumerate(FAMILIES):
        if law in laws:
            return k
    return len(FAMILIES)


def label(law, mode):
    return law if mode in ("off", "-") else f"{law} ({mode})"


def groups(rows):
    """{(law, mode): [row indices]} in the report's order: family, law, mode."""
    out = {}
    for k, row in enumerate(rows):
        out.setdefault((row["law"], row["calibrate"]), []).append(k)
    order = sorted(out, key=lambda g: (family_of(g[0]), FAMILIES[family_of(g[0])][1].index(g[0])
                                       if family_of(g[0]) < len(FAMILIES) else 0,
                                       g[0], MODE_ORDER.get(g[1], 9)))
    return {g: out[g] for g in order}


def stats(values):
    """mean, sample standard deviation (NaN for one value), count of finite values."""
    v = np.array([x for x in values if isinstance(x, (int, float)) and math.isfinite(x)], float)
    if len(v) == 0:
        return float("nan"), float("nan"), 0
    return float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else float("nan"), len(v)


def cell(fmt, values, key, rows_end):
    mean, sd, n = stats(values)
    if n == 0:
        if key == "settling_time_s":
            return f"> {max(rows_end):.2f}"
        return "-"
    text = fmt.format(mean)
    if math.isfinite(sd):
        text += " ± " + fmt.format(sd)
    if key == "settling_time_s" and n < len(values):
        text += f" ({len(values) - n} of {len(values)} > {max(rows_end):.2f})"
    return text


def table(rows, grouped, columns):
    head = ["law", "calibrate", "seeds"] + [h for _, h, _ in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (law, mode), idx in grouped.items():
        cells = [law, mode, str(len(idx))]
        for key, _, fmt in columns:
            cells.append(cell(fmt, [rows[k].get(key, float("nan")) for k in idx], key,
                              [rows[k]["end_time_s"] for k in idx]))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def loop_table(rows, grouped):
    """The stress-strain loop at the pressures a servo piston holds (compare.py's
    servo_holds): the strain and the stress measured at the end of each hold, law by
    law; nothing without a servo piston."""
    holds = []
    while all(f"hold{len(holds) + 1}_strain" in r for r in rows):
        j = len(holds) + 1
        target = rows[0][f"hold{j}_target_Pa"]
        holds.append((j, target))
    if not holds:
        return []
    columns = []
    for j, target in holds:
        columns += [(f"hold{j}_strain", f"strain at {target / 1000:g} kPa ({j})", "{:.5f}"),
                    (f"hold{j}_stress_Pa", f"stress ({j}, Pa)", "{:.0f}")]
    lines = ["", "## Stress-strain loop at the held pressures", "",
             "The servo piston's held stresses, in the order it holds them; strain: the "
             "piston's travel since the touch / its height above the floor then, at the end "
             "of each hold; stress: its load / area measured then.", ""]
    return lines + table(rows, grouped, columns)


def write_csv(out, rows, grouped, spreads=("sd",), key_columns=("law", "calibrate"),
              key_cells=list):
    """table.csv (one row per run, grouped) and summary.csv (per group: the columns
    key_columns, filled by key_cells(group key), the seeds, then the mean and the
    spreads over the seeds of every numeric column)."""
    keys = list(dict.fromkeys(k for row in rows for k in row))
    f = io.StringIO(newline="")
    w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
    w.writeheader()
    for idx in grouped.values():
        for k in sorted(idx, key=lambda k: rows[k]["seed"]):
            w.writerow({c: rows[k].get(c, "") for c in keys})
    cf.atomic_write(os.path.join(out, "table.csv"), f.getvalue())
    numeric = [k for k in keys if k not in ("law", "calibrate", "seed", "material")
               and all(isinstance(r.get(k, 0.0), (int, float)) for r in rows)]
    f = io.StringIO(newline="")
    w = csv.writer(f)
    w.writerow(list(key_columns) + ["seeds"] + [f"{k}_{s}" for k in numeric
                                                for s in ("mean",) + tuple(spreads)])
    for group, idx in grouped.items():
        vals = []
        for k in numeric:
            mean, sd, n = stats([rows[i].get(k, float("nan")) for i in idx])
            spread = {"sd": sd, "se": sd / math.sqrt(n) if n > 1 else float("nan")}
            vals += [repr(mean)] + [repr(spread[s]) for s in spreads]
        w.writerow(list(key_cells(group)) + [len(idx)] + vals)
    cf.atomic_write(os.path.join(out, "summary.csv"), f.getvalue())


# ---------------------------------------------------------------- figures


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": FONT + 1, "axes.titlesize": FONT + 2,
                         "axes.labelsize": FONT + 1, "legend.fontsize": FONT,
                         "xtick.labelsize": FONT, "ytick.labelsize": FONT,
                         "svg.fonttype": "none"})  # text stays text in the SVG
    return plt


def _plain_log_ticks(axis):
    """Decades as 1e-04, not as mathtext powers (whose exponents print below 9 pt)."""
    from matplotlib import ticker
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:.0e}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def _families_present(grouped):
    present = sorted({family_of(law) for law, _ in grouped})
    names = [FAMILIES[k][0] if k < len(FAMILIES) else "other" for k in present]
    return present, names


def _panels(plt, n, width=4.2, height=3.2):
    ncol = min(3, n)
    nrow = int(math.ceil(n / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(width * ncol, height * nrow), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def curve_panels(plt, path, grouped, curves, xkey, ykey, xlabel, ylabel, title, logy=False,
                 threshold=None, transform=None, swap=False, legend="best", ylim=None,
                 vline=None):
    """One panel per law family; per law and mode the median over the seeds as a line and
    the seeds' range (min to max) as a band."""
    fams, names = _families_present(grouped)
    fig, axes = _panels(plt, len(fams))
    cmap = plt.get_cmap("tab10")
    for ax, fam, name in zip(axes, fams, names):
        k = 0
        for (law, mode), idx in grouped.items():
            if family_of(law) != fam:
                continue
            series = [transform(curves[i]) if transform else (curves[i][xkey], curves[i][ykey])
                      for i in idx]
            series = [s for s in series if s is not None and len(s[0])]
            if not series:
                continue
            n = min(len(s[0]) for s in series)
            x = series[0][0][:n]
            y = np.array([s[1][:n] for s in series], dtype=float)
            colour = cmap(k % 10)
            style = "--" if mode.startswith("on") else "-"
            k += 1
            with np.errstate(all="ignore"):
                mid, low, high = np.nanmedian(y, 0), np.nanmin(y, 0), np.nanmax(y, 0)
            if logy:
                mid, low, high = (np.maximum(v, 1e-300) for v in (mid, low, high))
            if swap:
                ax.plot(mid, x, style, color=colour, lw=1.2, label=label(law, mode))
                ax.fill_betweenx(x, low, high, color=colour, alpha=0.25, lw=0)
            else:
                ax.plot(x, mid, style, color=colour, lw=1.2, label=label(law, mode))
                ax.fill_between(x, low, high, color=colour, alpha=0.25, lw=0)
        if logy:
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
        if threshold is not None:
            ax.axhline(threshold, color="k", lw=0.8, ls=":")
        if vline is not None:
            ax.axvline(vline, color="k", lw=0.8, ls=":")
        if ylim is not None:
            ax.set_ylim(*ylim)
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, lw=0.5)
        ax.legend(loc=legend, frameon=False)
    fig.suptitle(title, fontsize=FONT + 3)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_size_inches()[1]))  # room for it
    cf.atomic_save(path, lambda tmp: fig.savefig(tmp, format="svg"))
    plt.close(fig)


def dot_panels(plt, path, rows, grouped, measures, title, error=None):
    """One panel per measure: every law and mode a row (grouped by family), the mean over
    the seeds a dot, one standard deviation an error bar (or error(key, row indices),
    the bar's half-width)."""
    labels = [label(law, mode) for law, mode in grouped]
    fams = [family_of(law) for law, _ in grouped]
    y = np.arange(len(labels))[::-1]
    n = len(measures)
    ncol = min(3, n)
    nrow = int(math.ceil(n / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol + 1.8, 0.24 * len(labels) * nrow + 1.4 * nrow),
                             squeeze=False, sharey=True)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    cmap = plt.get_cmap("tab10")
    for ax, (key, name, extra) in zip(axes.flat, measures):
        for yy, (g, idx), fam in zip(y, grouped.items(), fams):
            mean, sd, cnt = stats([rows[k].get(key, float("nan")) for k in idx])
            if cnt == 0:
                continue
            if error is not None:
                sd = error(key, idx)
            ax.errorbar(mean, yy, xerr=sd if math.isfinite(sd) else None, fmt="o",
                        ms=4, color=cmap(fam % 10), capsize=2, lw=1)
            if extra:
                m2, _, c2 = stats([rows[k].get(extra, float("nan")) for k in idx])
                if c2:
                    ax.plot(m2, yy, marker="|", ms=9, mew=1.5, color="k", ls="none")
        ax.set_title(name)
        ax.grid(axis="x", alpha=0.3, lw=0.5)
        for b in np.nonzero(np.diff(fams))[0]:
            ax.axhline(y[b] - 0.5, color="0.6", lw=0.5)
    for ax in axes[:, 0]:
        ax.set_yticks(y)
        ax.set_yticklabels(labels)
    fig.suptitle(title, fontsize=FONT + 3)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_size_inches()[1]))  # room for it
    cf.atomic_save(path, lambda tmp: fig.savefig(tmp, format="svg"))
    plt.close(fig)


ENERGY_PARTS = [("frac_damping", "normal damping"), ("frac_friction", "friction"),
                ("frac_rolling", "rolling"), ("frac_plasticity", "plasticity")]


def energy_bars(plt, path, rows, grouped, parts=ENERGY_PARTS,
                residual=("energy_balance_error", "|balance residual| / dissipated"),
                xlabel="fraction of the dissipated energy"):
    """Where the energy went: per law and mode the mean fraction of the dissipated energy
    each mechanism took, stacked, and the balance residual beside it."""
    labels = [label(law, mode) for law, mode in grouped]
    y = np.arange(len(labels))[::-1]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 0.26 * len(labels) + 1.6), sharey=True,
                                  gridspec_kw={"width_ratios": [3, 1.3]})
    left = np.zeros(len(labels))
    colours = plt.get_cmap("Set2")
    for k, (key, name) in enumerate(parts):
        vals = np.array([stats([rows[i][key] for i in idx])[0] for idx in grouped.values()])
        vals = np.nan_to_num(vals)
        ax.barh(y, vals, left=left, color=colours(k), label=name, height=0.7)
        left += vals
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.legend(ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    for yy, idx in zip(y, grouped.values()):
        mean, sd, cnt = stats([abs(rows[i][residual[0]]) for i in idx])
        if cnt:
            ax2.errorbar(mean, yy, xerr=sd if math.isfinite(sd) else None, fmt="o", ms=4,
                         color="k", capsize=2, lw=1)
    ax2.set_xscale("log")
    _plain_log_ticks(ax2.xaxis)
    ax2.set_xlabel(residual[1])
    ax2.grid(axis="x", alpha=0.3, lw=0.5)
    fig.tight_layout()
    cf.atomic_save(path, lambda tmp: fig.savefig(tmp, format="svg"))
    plt.close(fig)


def _force_pdf(cv):
    f = cv["fn"][cv["fn"] > 0]
    if len(f) < 10:
        return None
    h, e = np.histogram(f / f.mean(), bins=np.linspace(0, 5, 21), density=True)
    return 0.5 * (e[1:] + e[:-1]), np.where(h > 0, h, np.nan)


def figures(out, rows, curves, grouped):
    plt = _pyplot()
    made = []
    curve_panels(plt, os.path.join(out, "kinetic_energy.svg"), grouped, curves, "time", "ke",
                 "time (s)", "kinetic energy / (N m g d)",
                 "Translational kinetic energy (line: median of the seeds, band: their range; "
                 "dotted: settled)", logy=True,
                 threshold=cm.SETTLE_FRACTION, legend="upper right")
    made.append(("kinetic_energy.svg", "Kinetic energy against time, per law family"))
    measures = [("settling_time_s", "settling time (s)", None),
                ("phi_bulk", "packing fraction (bulk)", None),
                ("z_no_rattlers", "coordination Z (no rattlers)", None),
                ("sigma_zz_over_overburden", "sigma_zz / overburden", None),
                ("k_ratio", "K = sigma_h / sigma_v", None),
                ("fabric_anisotropy", "fabric: zz - (xx + yy)/2", None)]
    if any(math.isfinite(r.get("restitution_actual", float("nan"))) for r in rows):
        measures.append(("restitution_actual", "e actual (| e asked)", "restitution_asked"))
    if any("piston_peak_stress_Pa" in r for r in rows):
        measures.append(("piston_peak_stress_Pa", "piston peak stress (Pa)", None))
    dot_panels(plt, os.path.join(out, "measures.svg"), rows, grouped, measures,
               "Measures of the settled packing: mean over the seeds, bar: one standard deviation")
    made.append(("measures.svg", "The measures, law by law"))
    energy_bars(plt, os.path.join(out, "energy.svg"), rows, grouped)
    made.append(("energy.svg", "Where the energy went"))
    tops = [cv["surface"] for cv in curves if math.isfinite(cv["surface"])]
    curve_panels(plt, os.path.join(out, "packing_profile.svg"), grouped, curves, "z_mid", "phi_z",
                 "packing fraction", "height (m)",
                 "Packing fraction against height (slabs of d_max / 4)", swap=True,
                 legend="center left", ylim=(0, 1.25 * max(tops)) if tops else None)
    made.append(("packing_profile.svg", "Packing fraction against height"))
    curve_panels(plt, os.path.join(out, "force_distribution.svg"), grouped, curves, None, None,
                 "f / <f>", "probability density",
                 "Normal forces between particles, final snapshot", logy=True,
                 transform=_force_pdf, legend="upper right")
    made.append(("force_distribution.svg", "Distribution of the normal contact forces"))
    if any(cv["compression"] is not None for cv in curves):
        def _comp(cv):
            cc = cv["compression"]
            if cc is None:
                return None
            return cc["strain"][cc["moving"]], cc["stress"][cc["moving"]]
        curve_panels(plt, os.path.join(out, "stress_strain.svg"), grouped, curves, None, None,
                     "strain (piston travel / gap at touch)", "piston load / area (Pa)",
                     "Load, unload, reload", transform=_comp)
        made.append(("stress_strain.svg", "Stress against strain under the piston"))
    return made


# ---------------------------------------------------------------- report.md


def write(out, rows, curves, meta):
    grouped = groups(rows)
    write_csv(out, rows, grouped)
    made = figures(out, rows, curves, grouped)
    first = rows[0]
    invocations = meta.get("invocations", [])
    lines = ["# Contact-law comparison", ""]
    if meta.get("base_case"):
        lines.append(f"Base case: `{os.path.basename(meta['base_case'])}`, "
                     f"{first['particles']} particles, restitution asked "
                     f"{meta.get('restitution', float('nan')):g}; {meta.get('dempact', 'dempact ?')}.")
    adhesions = sorted({r.get("adhesion", "none") for r in rows})
    lines.append("Adhesion: " + " | ".join(f"`{x}`" for x in adhesions) + ".")
    if invocations:
        lines.append("Commands: " + "; ".join(f"`{i['command']}`" for i in invocations) + ".")
    seeds = sorted({r["seed"] for r in rows})
    lines += [f"Seed offsets: {', '.join(map(str, seeds))}. Each cell: mean ± sample standard "
              "deviation over the seeds. Definitions, units and sign conventions: "
              "docs/compare.md (summarised below the tables).", "",
              "## Packing, stress and fabric", ""]
    lines += table(rows, grouped, STRUCTURE)
    lines += ["", "## Energy, restitution and cost", ""]
    lines += table(rows, grouped, ENERGY)
    lines += loop_table(rows, grouped)
    lines += ["", "## Figures", ""]
    for name, caption in made:
        lines += [f"![{caption}]({name})", ""]
    lines += ["## Definitions", "",
              f"- Settling time: the first time after which the translational kinetic energy stays "
              f"below {cm.SETTLE_FRACTION:g} N m g d (N particles, mean mass m and diameter d) until "
              "the end of the run, 10 samples at least; '> T': not by the end T.",
              "- Bulk: the box two largest diameters away from the floor, the free surface and any "
              "side walls (a periodic axis spans the whole cell). phi: the spheres' volume in it "
              "(cut exactly). Z: contacts per bulk particle (walls included); rattlers: fewer than 2 "
              "contacts with friction (4 without), removed iteratively.",
              "- Stress: sigma = -(1/V) sum_c w_c f_c (x) l_c over the contacts whose branch vector "
              "(centre to centre, or centre to wall contact point) crosses the bulk, w_c the fraction "
              "inside; compression positive, Pa. K = (sigma_xx + sigma_yy) / (2 sigma_zz). "
              "Overburden: the weight of the particles above each height, averaged over the bulk's "
              "height, per area (1 for a static bed without side walls; below 1 where walls carry "
              "weight).",
              "- Held past touching, in tension: the fraction of the last snapshot's contacts "
              "(particle pairs and walls) with overlap <= 0 (a JKR neck or a liquid bridge "
              "holding the surfaces apart) and with a normal force < 0 (a pull); 0 without "
              "adhesion.",
              "- Fabric: sum w n (x) n / sum w over the particle pairs; isotropic 1/3 each; "
              "anisotropy phi_zz - (phi_xx + phi_yy)/2 (> 0: preferentially vertical contacts).",
              "- Energy: what each mechanism dissipated by the end, as a fraction of the total; "
              "residual: (E(end) + dissipated - E(0) - W) / (dissipated + |W|), E = kinetic + "
              "rotational + gravitational + elastic, W the moving walls' work.",
              "- e asked: the restitution the case gives the law; e actual: what a head-on "
              "collision of two particles of the main material, mean radius, at the run's step "
              "and at the impact speed sqrt(2 KE_peak / M) of the run gives (`dempact collide`, "
              "with the pair's adhesion: 0 where it sticks).",
              "- calibrate: off (published mapping), on (calibrated to e), on* (calibrated: the "
              "law has no other way to e), - (no restitution: hertz, kostek)."]
    write_report(out, lines, made)
    return rows


def write_report(out, lines, made):
    """report.md of `lines`, and away with a figure of an earlier report that this one
    does not draw (`made`: the (name, caption) of those it drew)."""
    for name in cf.FIGURES:
        if name not in {m for m, _ in made} and os.path.lexists(os.path.join(out, name)):
            cf.remove(os.path.join(out, name))
    cf.atomic_write(os.path.join(out, "report.md"), "\n".join(lines) + "\n")


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
