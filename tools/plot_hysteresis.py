#!/usr/bin/env python3
"""Draw force against overlap from the CSV files of build/tools/hysteresis.

Each file gets its own panel (laws differ by orders of magnitude in force and overlap),
or all share one with --overlay. Turning points of the path (where the overlap rate
changes sign) are marked, so that loading, unloading and reloading branches can be told
apart. Run it with the project's environment: `.venv/bin/python tools/plot_hysteresis.py
FILE.csv ...` (bash tools/setup.sh makes .venv/).
"""
import argparse
import csv
import os
import sys

DEMO = """\
demo (from the repository root, after building into build/):

  # Kostek, Table 1 defaults: virgin loading to ~20 MPa (9.56 um), unloading to just
  # above the plastic set (e_p p_max^m_p = 3.78 um), reloading past the old maximum
  build/tools/hysteresis --law kostek --path 9.56e-6,3.9e-6,1.2e-5 --rate 0.01 \\
      --steps 2000 > /tmp/kostek.csv
  # Hunt-Crossley (e = 0.8) driven at 1 m/s into 20 um and back
  build/tools/hysteresis --law hunt_crossley --param restitution=0.8 \\
      --path 2e-5,0 --rate 1 > /tmp/hunt_crossley.csv
  tools/plot_hysteresis.py /tmp/kostek.csv /tmp/hunt_crossley.csv --out /tmp/loops.png
"""


def read(path):
    """Columns of one CSV as lists of floats, by header name."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or not {"overlap", "force"} <= set(rows[0]):
        raise ValueError(f"{path}: not a hysteresis CSV (needs overlap and force columns)")
    head = rows[0]
    cols = {name: [] for name in head}
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(head):
            raise ValueError(f"{path}:{line}: {len(row)} fields, header has {len(head)}")
        for name, text in zip(head, row):
            cols[name].append(float(text))
    return cols


def turning_points(cols):
    """Indices where the overlap rate changes sign (the path's corners)."""
    rate = cols.get("overlap_rate")
    if not rate:
        return []
    return [k for k in range(1, len(rate)) if (rate[k] > 0) != (rate[k - 1] > 0)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, epilog=DEMO,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="CSV files written by build/tools/hysteresis")
    ap.add_argument("--out", required=True, help="PNG file to write")
    ap.add_argument("--label", action="append", default=[],
                    help="legend label per file, in order (default: the file name)")
    ap.add_argument("--overlay", action="store_true", help="draw all files in one panel")
    ap.add_argument("--title", default="force against overlap")
    args = ap.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as missing:
        import venv_hint
        print(venv_hint.message("plot_hysteresis", missing), file=sys.stderr)
        return 2

    try:
        data = [read(p) for p in args.csv]
    except (OSError, ValueError) as e:
        print(f"plot_hysteresis: {e}", file=sys.stderr)
        return 2
    labels = args.label + [os.path.splitext(os.path.basename(p))[0]
                           for p in args.csv[len(args.label):]]
    n_panels = 1 if args.overlay else len(data)
    fig, axes = plt.subplots(1, n_panels, figsize=(5.5 * n_panels, 4.5), squeeze=False)
    for k, (cols, label) in enumerate(zip(data, labels)):
        ax = axes[0][0 if args.overlay else k]
        d_um = [d * 1e6 for d in cols["overlap"]]
        line, = ax.plot(d_um, cols["force"], lw=1.2, label=label)
        corners = turning_points(cols)
        ax.plot([d_um[i] for i in corners], [cols["force"][i] for i in corners], "o",
                color=line.get_color(), ms=4)
        ax.set_xlabel("overlap [um]")
        ax.set_ylabel("normal force [N]")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left")
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
