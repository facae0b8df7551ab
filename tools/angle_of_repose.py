#!/usr/bin/env python3
"""Angle of repose of a heap, from the last (or a chosen) snapshot of a dempact run.

The heap's axis is the horizontal centroid of the particles above the floor level. The
free surface is the highest particle top (z + r) in each ring of radius [r, r + dr)
around the axis; the angle is the slope of a straight line fitted through the surface
between 25% and 75% of the heap's radius (away from the rounded top and the toe), and
is also reported for each side (+x, -x, +y, -y quadrants) to show the scatter.

usage: angle_of_repose.py OUTPUT.h5 [--snapshot N] [--floor Z] [--bins N] [--plot PNG]

Needs numpy and h5py: run it with the project's environment, `.venv/bin/python
tools/angle_of_repose.py` (bash tools/setup.sh makes it).
"""
import argparse
import math
import sys

try:
    import h5py
    import numpy as np
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("angle_of_repose", missing))


def last_snapshot(f, wanted):
    names = sorted(f["snapshots"].keys())
    if not names:
        sys.exit("angle_of_repose: the file holds no snapshot")
    if wanted is None:
        return f["snapshots"][names[-1]]
    name = f"{wanted:06d}"
    if name not in f["snapshots"]:
        sys.exit(f"angle_of_repose: no snapshot {wanted} (the file has {len(names)})")
    return f["snapshots"][name]


def surface(r, top, r_max, bins):
    """Highest top in each ring; rings without particles are left out."""
    edges = np.linspace(0.0, r_max, bins + 1)
    centre, height = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (r >= lo) & (r < hi)
        if inside.any():
            centre.append(0.5 * (lo + hi))
            height.append(top[inside].max())
    return np.array(centre), np.array(height)


def slope_angle(r, top, bins):
    if len(r) < 20:
        return math.nan, None
    r_max = np.quantile(r, 0.98)
    c, h = surface(r, top, r_max, bins)
    keep = (c > 0.25 * r_max) & (c < 0.75 * r_max)
    if keep.sum() < 3:
        return math.nan, None
    fit = np.polyfit(c[keep], h[keep], 1)
    return math.degrees(math.atan(-fit[0])), (c, h, fit, keep)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("h5")
    ap.add_argument("--snapshot", type=int, help="snapshot number (default: the last)")
    ap.add_argument("--floor", type=float, default=0.0,
                    help="z of the plate; particles below it are ignored (default 0)")
    ap.add_argument("--bins", type=int, default=20, help="rings (default 20)")
    ap.add_argument("--plot", help="PNG of the surface profile and the fit")
    a = ap.parse_args()
    with h5py.File(a.h5, "r") as f:
        snap = last_snapshot(f, a.snapshot)
        x = np.asarray(snap["position"])
        rad = np.asarray(snap["radius"])
        t = float(snap.attrs["time"]) if "time" in snap.attrs else math.nan
    on_plate = x[:, 2] > a.floor
    x, rad = x[on_plate], rad[on_plate]
    if len(x) < 20:
        sys.exit(f"angle_of_repose: only {len(x)} particles above z = {a.floor}: no heap")
    axis = x[:, :2].mean(axis=0)
    dx, dy = x[:, 0] - axis[0], x[:, 1] - axis[1]
    r = np.hypot(dx, dy)
    top = x[:, 2] + rad - a.floor
    angle, detail = slope_angle(r, top, a.bins)
    sides = {}
    for name, sel in (("+x", dx > np.abs(dy)), ("-x", -dx > np.abs(dy)),
                      ("+y", dy > np.abs(dx)), ("-y", -dy > np.abs(dx))):
        sides[name], _ = slope_angle(r[sel], top[sel], max(8, a.bins // 2))
    print(f"snapshot at t = {t:.4g} s: {len(x)} particles on the plate, heap height "
          f"{top.max() * 1e3:.1f} mm, axis ({axis[0] * 1e3:.1f}, {axis[1] * 1e3:.1f}) mm")
    print(f"angle of repose: {angle:.1f} degrees  (sides: " +
          ", ".join(f"{k} {v:.1f}" for k, v in sides.items()) + ")")
    if a.plot and detail is not None:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        c, h, fit, keep = detail
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(r * 1e3, top * 1e3, ",", color="0.6", label="particle tops")
        ax.plot(c * 1e3, h * 1e3, "o", label="surface (highest top per ring)")
        ax.plot(c[keep] * 1e3, np.polyval(fit, c[keep]) * 1e3, "-",
                label=f"fit: {angle:.1f} degrees")
        ax.set_xlabel("distance from the heap axis [mm]")
        ax.set_ylabel("height above the plate [mm]")
        ax.set_aspect("equal")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
