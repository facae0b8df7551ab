#!/usr/bin/env python3
"""Frictionless spheres in steady simple shear, against what published DEM says of them.

Usage: .venv/bin/python tools/frictionless_shear.py [--rates 8,2.5,0.8,0.25] [--strain 8]
           [--size small|full] [--out DIR] [--json FILE] [--dempact build/dempact] [--check]

Published DEM of frictionless, nearly rigid spheres: under slow steady shear they keep the
random close packing fraction, phi_RCP = 0.639 (Agnolin and Roux 2007), with a
macroscopic friction coefficient mu = tau / p near 0.1 (an internal friction angle near 6
degrees), and both mu and the volume approach those limits as powers of the inertial
number I (Peyneau and Roux 2008, "Frictionless bead packs have macroscopic friction, but
no dilatancy"). Their contact network is isostatic there: z* = 6 contacts per sphere on
the force-carrying backbone (Agnolin and Roux: z* close to 6 for frictionless packings
assembled at RCP). docs/validation.md ("Frictionless spheres in simple shear") cites them.

THE CELL: tools/compare.py's shear cell (cases/shear_small.yaml, 500 beads, with --size
full cases/shear_cell.yaml, 1000 beads: glass, d 1.8 to 2.2 mm, E 0.1 GPa, hertz_tti e 0.5,
Lees-Edwards boundaries at an imposed normal stress of 1 kPa, p / E = 1e-5: the rigid
limit) with its friction taken out, sheared at each rate of --rates (1/s) for --strain
units of strain (the end time strain / rate; a snapshot every twentieth of it).

THE MEASUREMENT: tools/compare_shear.py's over the last half of each run (mu, phi, I, the
coordination Z, with block standard errors and its steadiness test), and z*: the
contacts per sphere once rattlers (fewer than 4 contacts, removed until none is left)
are taken out, and the fraction of rattlers, averaged over the snapshots of the last half.
A flowing cell at larger I has no rigid backbone (the removal takes every sphere): z* is
then reported as 0.

--check (validation_frictionless_shear) fails unless, from the largest rate to the
smallest, mu falls and phi rises (the approach to the quasi-static limit), and at the
smallest rate mu lies in [0.09, 0.15], phi in [0.629, 0.644] and z* in [5.6, 6.2]: the
published limits (0.1, 0.639, 6) with room for the remaining distance to the limit at
that I and for a cell of 500 beads. With friction (mu_p = 0.5) the same cell gives mu
0.36 to 0.40 and phi 0.58 (docs/compare.md, docs/validation.md "mu(I) in simple shear"):
the check tells the two apart by far.

Needs numpy, h5py and PyYAML: run it with the project's environment, `.venv/bin/python
tools/frictionless_shear.py` (bash tools/setup.sh makes it).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

try:
    import numpy as np
    import yaml
    import compare_shear
    import dempact_h5
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("frictionless_shear", missing))

BASE = {"small": os.path.join(ROOT, "cases", "shear_small.yaml"),
        "full": os.path.join(ROOT, "cases", "shear_cell.yaml")}
PHI_RCP, MU_QS, Z_ISOSTATIC = 0.639, 0.1, 6.0
BOUNDS = {"mu": (0.09, 0.15), "phi": (0.629, 0.644), "z_star": (5.6, 6.2)}


def positive_list(text):
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}")
    if not values or any(not (v > 0 and math.isfinite(v)) for v in values):
        raise argparse.ArgumentTypeError(f"every rate must be a number above 0, got {text!r}")
    if len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"a rate is given twice in {text!r}")
    return sorted(values, reverse=True)


def frictionless_case(base_text, rate, strain, name):
    """The base shear cell without friction, at `rate`, for `strain` units of strain."""
    case = yaml.safe_load(base_text)
    for contact in case["contacts"]:
        contact.pop("friction", None)
        contact.pop("rolling", None)
    case["name"] = name
    case["domain"]["lees_edwards"]["shear_rate"] = float(rate)
    end = strain / rate
    case["time"]["end"] = end
    case["time"]["output_interval"] = end / 20.0
    return case


def z_star(contacts, ids):
    """Contacts per sphere on the backbone (rattlers, with fewer than 4 contacts, taken
    out until none is left) and the rattlers' fraction; (0, 1) without a backbone."""
    if contacts is None:
        return 0.0, 1.0
    touching = (contacts.overlap > 0) & ~contacts.wall.astype(bool)
    pairs = contacts.id[touching]
    alive = np.isin(ids, pairs)  # spheres with at least one contact
    index = {int(i): k for k, i in enumerate(ids)}
    a = np.array([index[int(i)] for i in pairs[:, 0]], dtype=int)
    b = np.array([index[int(i)] for i in pairs[:, 1]], dtype=int)
    keep = np.ones(len(a), dtype=bool)
    while True:
        degree = np.bincount(a[keep], minlength=len(ids)) + np.bincount(b[keep], minlength=len(ids))
        rattlers = alive & (degree < 4)
        if not rattlers.any():
            break
        alive &= ~rattlers
        keep &= alive[a] & alive[b]
    n = int(alive.sum())
    return (2.0 * int(keep.sum()) / n if n else 0.0), 1.0 - n / len(ids)


def measure(path, case):
    run = dempact_h5.Run(path)
    row, _ = compare_shear.measure(run, case, case["contacts"][0]["materials"][0])
    zs, rattlers = [], []
    for k in range(len(run)):
        if run.times[k] >= row["window_start_s"]:
            snap = run.snapshot(index=k)
            z, f = z_star(snap.contacts, snap.id)
            zs.append(z)
            rattlers.append(f)
    keys = ("mu", "mu_se", "phi", "phi_se", "inertial_number", "inertial_number_se", "z_mean",
            "p_Pa", "steady", "window_strain")
    out = {k: row[k] for k in keys}
    out["z_star"] = float(np.mean(zs))
    out["z_star_se"] = float(np.std(zs, ddof=1) / math.sqrt(len(zs))) if len(zs) > 1 else float("nan")
    out["rattlers"] = float(np.mean(rattlers))
    return out


def check(points):
    """The --check criteria (the docstring); a list of failures."""
    failures = []
    for a, b in zip(points, points[1:]):  # from the largest rate down
        if not b["mu"] < a["mu"]:
            failures.append(f"mu does not fall from I = {a['inertial_number']:.4g} to "
                            f"{b['inertial_number']:.4g}: {a['mu']:.4f} then {b['mu']:.4f}")
        if not b["phi"] > a["phi"]:
            failures.append(f"phi does not rise from I = {a['inertial_number']:.4g} to "
                            f"{b['inertial_number']:.4g}: {a['phi']:.4f} then {b['phi']:.4f}")
    last = points[-1]
    for key, (lo, hi) in BOUNDS.items():
        if not lo <= last[key] <= hi:
            failures.append(f"{key} = {last[key]:.4f} at I = {last['inertial_number']:.4g}, "
                            f"outside [{lo}, {hi}]")
    return failures


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--rates", type=positive_list, default=[8.0, 2.5, 0.8, 0.25],
                   help="shear rates in 1/s, comma-separated (default 8,2.5,0.8,0.25: I about "
                        "0.025 down to 0.0008 in the small cell)")
    p.add_argument("--strain", type=float, default=8.0, help="units of strain per run (default 8)")
    p.add_argument("--size", choices=("small", "full"), default="small")
    p.add_argument("--out", help="keep the runs in this folder (default: a temporary one)")
    p.add_argument("--json", help="write the points to this file")
    p.add_argument("--dempact", default=os.path.join(ROOT, "build", "dempact"))
    p.add_argument("--check", action="store_true", help="apply the criteria above; exit 1 if one fails")
    a = p.parse_args(argv)
    if not (a.strain > 0 and math.isfinite(a.strain)):
        p.error(f"--strain must be a number above 0, got {a.strain}")
    if not os.access(a.dempact, os.X_OK):
        p.error(f"--dempact {a.dempact}: not an executable")
    base_text = open(BASE[a.size]).read()
    work = a.out or tempfile.mkdtemp(prefix="frictionless_shear_")
    os.makedirs(work, exist_ok=True)
    points = []
    for rate in a.rates:
        name = f"frictionless_{rate:g}".replace(".", "p")
        case = frictionless_case(base_text, rate, a.strain, name)
        path = os.path.join(work, name + ".yaml")
        with open(path, "w") as f:
            yaml.safe_dump(case, f, sort_keys=False)
        start = time.time()
        out = subprocess.run([a.dempact, "run", path, "--output", os.path.join(work, name),
                              "--quiet"], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"frictionless_shear: dempact run {path} exited {out.returncode}: "
                     f"{out.stderr.strip()}")
        point = measure(os.path.join(work, name, name + ".h5"), case)
        point.update(rate_1_s=rate, seconds=time.time() - start)
        points.append(point)
        print(f"rate {rate:g} 1/s: I = {point['inertial_number']:.4g}, mu = {point['mu']:.4f} "
              f"+- {point['mu_se']:.4f}, phi = {point['phi']:.4f} +- {point['phi_se']:.4f}, "
              f"Z = {point['z_mean']:.2f}, z* = {point['z_star']:.2f} (rattlers "
              f"{point['rattlers']:.3f}), {'steady' if point['steady'] else 'DRIFTS'}, "
              f"{point['seconds']:.0f} s", flush=True)
    print(f"published quasi-static limits: mu {MU_QS}, phi {PHI_RCP}, z* {Z_ISOSTATIC:g}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"size": a.size, "strain": a.strain, "points": points}, f, indent=1)
    if a.check:
        failures = check(points)
        for f in failures:
            print("FAIL:", f)
        print(f"{'0 passed, 1 failed' if failures else '1 passed, 0 failed'}")
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
