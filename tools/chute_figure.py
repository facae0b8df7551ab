#!/usr/bin/env python3
"""The figure of the steady chute (docs/validation.md, "Chute flow"), from the JSON of
`tools/chute.py --steady --json OUT`: left, v_x(z) of both codes with the Bagnold profile
A (H^(3/2) - (H - z)^(3/2)) fitted to each; middle, phi(z); right, the mean downhill
velocity <v_x> against time, the flow from rest and the stopping staircase, each stage's
angle marked.

usage: chute_figure.py CHUTE.json OUT.png

Needs matplotlib: run it with `.venv/bin/python tools/chute_figure.py`.
"""
import argparse
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError as missing:  # pragma: no cover
    import venv_hint
    sys.exit(venv_hint.message("chute_figure", missing))

STYLE = {"dempact": ("C0", "o"), "lammps": ("C3", "s")}
LABEL = {"dempact": "dempact", "lammps": "LAMMPS"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="tools/chute.py --steady --json's output")
    ap.add_argument("png", help="the figure to write")
    a = ap.parse_args()
    try:
        r = json.load(open(a.json))
    except (OSError, ValueError) as e:
        print(f"chute_figure: {a.json}: {e}", file=sys.stderr)
        return 2
    codes = [c for c in ("dempact", "lammps") if c in r and "flow" in r[c]]
    if not codes:
        print(f"chute_figure: {a.json}: no steady run (tools/chute.py --steady --json)",
              file=sys.stderr)
        return 2
    fig, (ax_v, ax_phi, ax_t) = plt.subplots(1, 3, figsize=(13, 4.2),
                                             gridspec_kw={"width_ratios": [1, 0.8, 1.6]})
    for c in codes:
        f = r[c]["flow"]
        colour, mark = STYLE[c]
        z, v, phi, h = np.array(f["z"]), np.array(f["vx"]), np.array(f["phi"]), f["H"]
        ax_v.plot(v, z, mark, color=colour, mfc="none", label=LABEL[c])
        zz = np.linspace(0, h, 100)
        ax_v.plot(f["A_at_1.5"] * (h ** 1.5 - (h - zz) ** 1.5), zz, "-", color=colour, lw=1,
                  label=f"A = {f['A_at_1.5']:.3f}, a = 3/2")
        ax_phi.plot(phi, z, mark + "-", color=colour, mfc="none", lw=0.8, label=LABEL[c])
        ax_phi.axhline(h, color=colour, lw=0.6, ls=":")
        t = [row[0] for row in f["trace"]]
        vx = [row[1] for row in f["trace"]]
        ax_t.plot(t, vx, "-", color=colour, lw=1.2, label=LABEL[c])
        last = f["trace"][-1]
        for s in r[c]["stop_scan"]:
            rows = [last] + s["trace"]  # joined to the reading before the stage
            ax_t.plot([row[0] for row in rows], [row[1] for row in rows], "-", color=colour,
                      lw=1.2)
            last = s["trace"][-1]
            if c == codes[0]:
                ax_t.axvline(s["from"], color="0.6", lw=0.6)
                ax_t.text(s["from"], 0.97, f" {s['angle']:g}°", transform=ax_t.get_xaxis_transform(),
                          va="top", fontsize=8)
        if f["t_steady"]:
            ax_t.axvspan(f["t_steady"] - 2 * r["window"], f["t_steady"], color=colour, alpha=0.12)
    ax_v.set(xlabel="v_x (sqrt(g d))", ylabel="z above the base (d)",
             title=f"steady flow at {r['angle']:g}°")
    ax_v.legend(fontsize=7)
    ax_phi.set(xlabel="solid fraction phi", xlim=(0, 0.75), title="H dotted")
    ax_phi.legend(fontsize=7)
    ax_t.set(xlabel="t (sqrt(d/g))", ylabel="<v_x> of the grains (sqrt(g d))",
             title="from rest, then lowered (shaded: the window measured)")
    ax_t.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
