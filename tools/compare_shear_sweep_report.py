#!/usr/bin/env python3
"""The report of tools/compare.py's shear stage over several shear rates or
restitutions (--rates, --restitution E1,E2,...): report.md with the steady flow and the
dissipation split per law, calibration, restitution and rate, the fits of mu(I) and
phi(I) per law and restitution (tools/compare_shear_fit.py), the figures mu against I
and phi against I (a panel per restitution, a line per law, error bars from the seeds)
and the shares, table.csv (one row per run) and summary.csv (mean, sd and se over the
seeds per law, mode, e and rate). The cells and error bars are
tools/compare_shear_report.py's (error_of); docs/compare.md, "A sweep of I and e".
"""

import math
import os
import sys

import compare_folder as cf
import compare_report as cr
import compare_shear as cs
import compare_shear_fit as fit
import compare_shear_report as csr

HEAD = ["law", "calibrate", "e", "rate (1/s)", "seeds"]
FLOW = [("inertial_number", "I", "{:.4f}"), ("mu", "mu = tau / p", "{:.4f}"),
        ("phi", "phi", "{:.4f}"), ("z_mean", "Z", "{:.2f}"), ("p_Pa", "p (Pa)", "{:.1f}"),
        ("restitution_actual", "e actual", "{:.3f}")]
DISSIPATION = [("share_damping", "normal damping", "{:.4f}"),
               ("share_friction", "friction", "{:.4f}"),
               ("share_rolling", "rolling", "{:.4f}"),
               ("share_plasticity", "plasticity", "{:.4f}"),
               ("share_stored", "stored", "{:+.1e}"),
               ("share_residual", "residual", "{:.1e}"),
               ("power_ratio", "power / (tau rate V)", "{:.3f}"),
               ("cpu_time_s", "CPU (s)", "{:.1f}")]


def _e(e):
    return "-" if e is None else f"{e:g}"


def table(rows, grouped, columns, steady=False):
    head = HEAD + [h for _, h, _ in columns] + (["steady"] if steady else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (law, mode, e, rate), idx in grouped.items():
        cells = [law, mode, _e(e), f"{rate:g}", str(len(idx)) if len(idx) > 1 else "1 run"]
        cells += [csr.cell(rows, key, idx, fmt) for key, _, fmt in columns]
        if steady:
            drifting = sum(1 for i in idx if not rows[i].get("steady"))
            cells.append("yes" if not drifting else f"{drifting} of {len(idx)} drift")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def points(rows, members, key):
    """(I, I error, value, value error) of a curve's points (members: [(rate, idx)])."""
    out = []
    for _, idx in members:
        i = cr.stats([rows[k].get("inertial_number", float("nan")) for k in idx])[0]
        v = cr.stats([rows[k].get(key, float("nan")) for k in idx])[0]
        out.append((i, csr.error_of(rows, "inertial_number", idx), v,
                    csr.error_of(rows, key, idx)))
    return [p for p in out if math.isfinite(p[0]) and math.isfinite(p[2])]


def fits(rows, grouped):
    """{(law, mode, e): {"rates", "mu": fit dict or None, "phi": (phi_c, a, errors)}}."""
    out = {}
    for key, members in fit.curves(grouped).items():
        mu_pts = points(rows, members, "mu")
        phi_pts = points(rows, members, "phi")
        entry = {"rates": len(members), "mu": None, "phi": None}
        if len(mu_pts) >= fit.MIN_RATES:
            i, _, mu, err = (list(c) for c in zip(*mu_pts))
            entry["mu"] = fit.fit_mu(i, mu, err)
        if len(phi_pts) >= 2:
            i, _, phi, err = (list(c) for c in zip(*phi_pts))
            entry["phi"] = fit.fit_line(i, phi, err)
        out[key] = entry
    return out


def _pm(v, err, fmt):
    return fmt.format(v) + (" ± " + fmt.format(err) if math.isfinite(err) else "")


def fit_table(fitted):
    head = ["law", "calibrate", "e", "rates", "mu_s", "mu_2", "I_0", "phi_c", "a (phi = phi_c - a I)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (law, mode, e), f in fitted.items():
        cells = [law, mode, _e(e), str(f["rates"])]
        mu = f["mu"]
        if mu is None:
            cells += [f"- (fewer than {fit.MIN_RATES} rates)", "-", "-"]
        elif not mu["ok"]:
            cells += [f"not determined: {mu['why']}", "-", "-"]
        else:
            cells += [_pm(mu["mu_s"], mu["mu_s_err"], "{:.3f}"),
                      _pm(mu["mu_2"], mu["mu_2_err"], "{:.3f}"),
                      _pm(mu["I_0"], mu["I_0_err"], "{:.3g}")]
        if f["phi"] is None:
            cells += ["-", "-"]
        else:
            phi_c, a, phi_c_err, a_err = f["phi"]
            cells += [_pm(phi_c, phi_c_err, "{:.4f}"), _pm(a, a_err, "{:.3f}")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def write_csv(out, rows, grouped):
    """table.csv (one row per run, grouped) and summary.csv (per law, mode, e, rate:
    mean, sd and se over the seeds of every numeric column)."""
    cr.write_csv(out, rows, grouped, spreads=("sd", "se"),
                 key_columns=("law", "calibrate", "restitution", "rate_1_s"),
                 key_cells=lambda g: [g[0], g[1], "" if g[2] is None else repr(g[2]), repr(g[3])])


def curve_figure(plt, path, rows, grouped, fitted, key, ylabel, title):
    """One panel per restitution (the laws without one in every panel, dotted), a line
    per law and mode through its points, error bars (I and the measure) from the seeds,
    and the fit where it is determined (thin)."""
    import numpy as np
    by_curve = fit.curves(grouped)
    es = sorted({e for (_, _, e) in by_curve if e is not None}) or [None]
    fig, axes = cr._panels(plt, len(es))
    cmap = plt.get_cmap("tab10")
    laws = list(dict.fromkeys((law, mode) for (law, mode, _) in by_curve))
    for ax, e in zip(axes, es):
        for (law, mode, e_c), members in by_curve.items():
            if e_c is not None and e_c != e:
                continue
            colour = cmap(laws.index((law, mode)) % 10)
            pts = sorted(points(rows, members, key))
            if not pts:
                continue
            i, i_err, v, v_err = (np.array(c, float) for c in zip(*pts))
            ax.errorbar(i, v, xerr=np.nan_to_num(i_err), yerr=np.nan_to_num(v_err),
                        fmt="o" + (":" if e_c is None else "-"), ms=4, capsize=2, lw=1,
                        color=colour, label=cr.label(law, mode))
            f = fitted.get((law, mode, e_c), {})
            grid = np.geomspace(i.min(), i.max(), 50)
            if key == "mu" and f.get("mu") and f["mu"]["ok"]:
                import mu_of_i
                ax.plot(grid, mu_of_i.mu_model(grid, f["mu"]["mu_s"], f["mu"]["mu_2"],
                                               f["mu"]["I_0"]), lw=0.6, color=colour)
            if key == "phi" and f.get("phi") and math.isfinite(f["phi"][0]):
                ax.plot(grid, f["phi"][0] - f["phi"][1] * grid, lw=0.6, color=colour)
        ax.set_xscale("log")
        ax.set_xlabel("inertial number I")
        ax.set_ylabel(ylabel)
        ax.set_title("e asked " + _e(e) + ("; dotted: no restitution" if e is not None else ""))
        ax.grid(alpha=0.3, lw=0.5)
        ax.legend(frameon=False)
    fig.suptitle(title, fontsize=cr.FONT + 3)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_size_inches()[1]))
    cf.atomic_save(path, lambda tmp: fig.savefig(tmp, format="svg"))
    plt.close(fig)


def figures(out, rows, grouped, fitted):
    plt = cr._pyplot()
    curve_figure(plt, os.path.join(out, "shear_mu_of_i.svg"), rows, grouped, fitted, "mu",
                 "mu = tau / p", "mu(I): mean over the seeds, bars: standard errors; "
                 "thin: the fit mu_s + (mu_2 - mu_s) / (1 + I_0 / I)")
    curve_figure(plt, os.path.join(out, "shear_phi_of_i.svg"), rows, grouped, fitted, "phi",
                 "solid fraction phi", "phi(I): mean over the seeds, bars: standard "
                 "errors; thin: phi_c - a I")
    labelled = {(law, f"{mode}, e {_e(e)}, {rate:g}/s"): idx
                for (law, mode, e, rate), idx in grouped.items()}
    cr.energy_bars(plt, os.path.join(out, "shear_energy.svg"), rows, labelled,
                   parts=csr.PARTS, residual=("share_residual", "|residual| / shear work"),
                   xlabel="share of the shear's power (steady window)")
    return [("shear_mu_of_i.svg", "mu against I, a line per law, a panel per restitution"),
            ("shear_phi_of_i.svg", "phi against I, a line per law, a panel per restitution"),
            ("shear_energy.svg", "Where the shear's power goes, per law, e and rate")]


def write(out, rows, meta):
    grouped = fit.sweep_groups(rows, cr.groups(rows))
    write_csv(out, rows, grouped)
    fitted = fits(rows, grouped)
    made = figures(out, rows, grouped, fitted)
    first = rows[0]
    rates = sorted({k[3] for k in grouped})
    es = sorted({k[2] for k in grouped if k[2] is not None})
    lines = ["# Contact-law comparison: steady simple shear, a sweep of I and e", ""]
    if meta.get("base_case"):
        lines.append(f"Base case: `{os.path.basename(meta['base_case'])}`, "
                     f"{first['particles']} particles under {first['pressure_target_Pa']:g} Pa, "
                     f"sheared at {', '.join(f'{r:g}' for r in rates)} 1/s, restitutions asked "
                     f"{', '.join(f'{e:g}' for e in es) or '-'}; "
                     f"{meta.get('dempact', 'dempact ?')}.")
    adhesions = sorted({r.get("adhesion", "none") for r in rows})
    lines.append("Adhesion: " + " | ".join(f"`{x}`" for x in adhesions) + ".")
    invocations = meta.get("invocations", [])
    if invocations:
        lines.append("Commands: " + "; ".join(f"`{i['command']}`" for i in invocations) + ".")
    strains = sorted({round(r["window_strain"], 2) for r in rows})
    seeds = sorted({r["seed"] for r in rows})
    lines += [f"Seed offsets: {', '.join(map(str, seeds))}. Every rate shears the same "
              "strain (a run at rate R ends at t_end R_ref / R); steady window: the last "
              f"{cs.WINDOW:g} of each run ({', '.join(f'{s:g}' for s in strains)} strain "
              "units). Each cell: mean over the seeds ± its standard error: the larger of "
              "the seeds' (sd / sqrt(n)) and the runs' own from "
              f"{cs.BLOCKS} blocks of the window (one seed: '1 run'). e '-': the law has no "
              "restitution (one run per rate). Definitions: docs/compare.md, \"The shear "
              "stage\".", "", "## Steady flow", ""]
    lines += table(rows, grouped, FLOW, steady=True)
    lines += ["", "## Dissipation split (shares of the shear's work over the window)", ""]
    lines += table(rows, grouped, DISSIPATION)
    lines += ["", "## mu(I) and phi(I) per law and restitution", "",
              f"mu(I) = mu_s + (mu_2 - mu_s) / (1 + I_0 / I) fitted to the points of at least "
              f"{fit.MIN_RATES} rates, weighted by their errors (tools/mu_of_i.py's fit); "
              "'not determined' where the points do not fix a parameter (its error exceeds "
              "its value). phi = phi_c - a I: a weighted straight line.", ""]
    lines += fit_table(fitted)
    lines += ["", "## Figures", ""]
    for name, caption in made:
        lines += [f"![{caption}]({name})", ""]
    lines += ["## Definitions", ""] + csr.DEFINITIONS
    cr.write_report(out, lines, made)
    return rows


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
