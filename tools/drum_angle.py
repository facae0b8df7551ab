#!/usr/bin/env python3
"""Dynamic angle of repose in a rotating drum, from the snapshots of a dempact run.

The drum's axis is taken along y (as in cases/drum.yaml). In each snapshot after
--from seconds the particles are projected on the x-z plane; the free surface is the
highest particle top in each of --bins vertical slices across the middle 60% of the bed's
width (away from the drum wall, where the surface bends); a straight line fitted through
those points gives the surface's angle to the horizontal. The angle is reported per
snapshot, and as the mean and standard deviation over them.

usage: drum_angle.py OUTPUT.h5 [--from 1.5] [--bins 16] [--plot PNG]

Needs numpy and h5py: run it with the project's environment, `.venv/bin/python
tools/drum_angle.py` (bash tools/setup.sh makes it).
"""
import argparse
import math
import sys

try:
    import h5py
    import numpy as np
except ImportError as missing:  # pragma: no cover
    import venv_hint
    sys.exit(venv_hint.message("drum_angle", missing))


def surface_angle(x, z, r, bins):
    lo, hi = np.quantile(x, 0.02), np.quantile(x, 0.98)
    span = hi - lo
    edges = np.linspace(lo + 0.2 * span, hi - 0.2 * span, bins + 1)
    cx, cz = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        sel = (x >= a) & (x < b)
        if sel.any():
            k = np.argmax(z[sel] + r[sel])
            cx.append(x[sel][k])
            cz.append((z[sel] + r[sel])[k])
    if len(cx) < 4:
        return math.nan, None
    fit = np.polyfit(cx, cz, 1)
    return math.degrees(math.atan(abs(fit[0]))), (np.array(cx), np.array(cz), fit)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("h5")
    ap.add_argument("--from", dest="t_from", type=float, default=1.5,
                    help="ignore snapshots before this time, s (default 1.5)")
    ap.add_argument("--bins", type=int, default=16)
    ap.add_argument("--plot")
    a = ap.parse_args()
    angles, last = [], None
    with h5py.File(a.h5, "r") as f:
        for name in sorted(f["snapshots"].keys()):
            s = f["snapshots"][name]
            t = float(s.attrs["time"])
            if t < a.t_from:
                continue
            x = np.asarray(s["position"])
            r = np.asarray(s["radius"])
            angle, detail = surface_angle(x[:, 0], x[:, 2], r, a.bins)
            angles.append(angle)
            last = (t, x, r, detail, angle)
            print(f"t = {t:6.3f} s: surface at {angle:5.1f} degrees")
    if not angles:
        sys.exit(f"drum_angle: no snapshot after t = {a.t_from} s")
    angles = np.array(angles)
    print(f"dynamic angle of repose: {np.nanmean(angles):.1f} +- {np.nanstd(angles):.1f} "
          f"degrees over {len(angles)} snapshots")
    if a.plot and last[3] is not None:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        t, x, r, (cx, cz, fit), angle = last
        fig, ax = plt.subplots(figsize=(5, 5))
        ax.scatter(x[:, 0] * 1e3, x[:, 2] * 1e3, s=2, c="0.6")
        ax.plot(cx * 1e3, cz * 1e3, "o")
        ax.plot(cx * 1e3, np.polyval(fit, cx) * 1e3, "-", label=f"{angle:.1f} degrees")
        ax.set_aspect("equal")
        ax.set_xlabel("x [mm]")
        ax.set_ylabel("z [mm]")
        ax.set_title(f"t = {t:.2f} s")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
