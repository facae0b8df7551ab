#!/usr/bin/env python3
"""The shear stage of tools/compare.py: measures a Lees-Edwards shear cell's steady flow
from its time series (docs/compare.md, "The shear stage"). Used by tools/compare.py
(`--stage shear`) and tested on its own (tests/compare/test_shear.py) against time
series made up with known answers.

Rules (docs/compare.md repeats them):

- The steady window is the last half of the run, [t_end / 2, t_end] (WINDOW). The run
  is steady there when neither mu nor phi trends through it: a straight line fitted to
  the block values (below) against the blocks' mid-times has a slope within STEADY_Z of
  its standard error (the t statistic of the slope, from the residuals about the line:
  about 2% of stationary runs exceed 3 by chance with 10 blocks). drift = the slope times
  the window's duration, the change across it. A run whose window drifts is still
  measured; the report marks it.
- Block averages: the window's samples are cut into BLOCKS contiguous blocks of (nearly)
  equal count; a measure's within-run standard error is the sample standard deviation
  of its block values over sqrt(BLOCKS). Blocks of 15 samples or more (15 ms at the
  cases' sampling) are longer than a collision's correlations at these rates.
- mu = sign(rate) <shear_stress> / <normal_stress> over the window (shear_stress =
  -sigma_xz, normal_stress = sigma_zz, compression positive: docs/output.md); tau and p
  the two means. phi = V_p / (L_x L_y <box_height>), V_p the particles' volume.
  I = |rate| d / sqrt(p / rho), d the mean diameter, rho the particles' density.
- The dissipation split: each dissipated_* book's increase over the window divided by
  the increase of shear_work (the box's work on the particles) over it: the shares of
  the dissipated power. With stored = the increase of E = kinetic + rotational +
  gravitational + elastic over the window and residual = the increase of
  energy_residual (E + dissipated - E(0) - shear_work), the shares obey
  sum(dissipation shares) + stored share - residual share = 1 exactly: the energy books
  close over the window up to the residual, and in steady flow the stored share is
  noise about 0.
- power ratio: the shear work's rate over the window over |rate| <tau> L_x L_y <H>, the
  power the mean shear stress puts into the box: 1 in steady flow (the barostat's work
  averages out).
"""

import math
import sys

try:
    import numpy as np
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("compare_shear", missing))

WINDOW = 0.5     # the steady window: this last fraction of the run
BLOCKS = 10      # blocks of the window for the within-run standard errors
STEADY_Z = 3.0   # the halves of the window may differ by this many standard errors
BOOKS = ("damping", "friction", "rolling", "plasticity")
G_STANDARD = 9.81  # m/s^2: the gravity behind the stage's v_floor (v_floor below)


def is_shear(case):
    """A case of the shear stage: its domain has Lees-Edwards boundaries."""
    domain = case.get("domain") if isinstance(case, dict) else None
    return isinstance(domain, dict) and isinstance(domain.get("lees_edwards"), dict)


def window(t, fraction=WINDOW):
    """The indices of the steady window: the samples at or after
    t_end - fraction (t_end - t_start)."""
    t = np.asarray(t, dtype=float)
    start = t[-1] - fraction * (t[-1] - t[0])
    return np.nonzero(t >= start - 1e-12 * max(abs(t[-1]), 1.0))[0]


def blocks(n, count=BLOCKS):
    """[(first, last + 1)] of `count` contiguous blocks of n samples (fewer blocks when
    n is small: each holds 2 samples at least)."""
    count = max(1, min(count, n // 2))
    edges = np.linspace(0, n, count + 1).round().astype(int)
    return list(zip(edges[:-1], edges[1:]))


def block_se(values):
    """The standard error of a mean from its block values (NaN for one block)."""
    v = np.asarray(values, dtype=float)
    return float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else float("nan")


def _split(ratio_of, n):
    """ratio_of(a, b) over the window's blocks."""
    return [ratio_of(a, b) for a, b in blocks(n)]


def trend(times, values):
    """(slope, its t statistic) of a straight line fitted to values against times; the
    statistic is 0 for a flat line through the points, inf for a sloped one through
    them, NaN with fewer than 3 points."""
    x = np.asarray(times, dtype=float)
    y = np.asarray(values, dtype=float)
    if len(x) < 3:
        return float("nan"), float("nan")
    xc = x - x.mean()
    sxx = float(np.sum(xc * xc))
    slope = float(np.sum(xc * (y - y.mean())) / sxx)
    res = y - y.mean() - slope * xc
    se = math.sqrt(float(np.sum(res * res)) / (len(x) - 2) / sxx)
    scale = max(float(np.max(np.abs(y))), 1e-300)
    if se <= 1e-12 * scale / math.sqrt(sxx):  # a line through the points (rounding)
        return slope, (0.0 if abs(slope) <= 1e-12 * scale / math.sqrt(sxx) else float("inf"))
    return slope, abs(slope) / se


def steady_flow(ts, particle_volume, area, rate, diameter, density, fraction=WINDOW):
    """The shear measures of one run from its time series (a dict of arrays, as
    dempact_h5.Run.timeseries gives): a dict of the measures, their block standard
    errors (KEY_se) and the drift of mu and phi between the window's halves."""
    t = np.asarray(ts["time"], dtype=float)
    w = window(t, fraction)
    n = len(w)
    tau = np.asarray(ts["shear_stress"], dtype=float)[w] * (1.0 if rate >= 0 else -1.0)
    p = np.asarray(ts["normal_stress"], dtype=float)[w]
    h = np.asarray(ts["box_height"], dtype=float)[w]
    phi_t = particle_volume / (area * h)
    work = np.asarray(ts["shear_work"], dtype=float)[w]
    held = sum(np.asarray(ts[k], dtype=float)[w] for k in
               ("kinetic_energy", "rotational_energy", "gravitational_energy", "elastic_energy"))
    books = {k: np.asarray(ts[f"dissipated_{k}"], dtype=float)[w] for k in BOOKS}
    resid = np.asarray(ts["energy_residual"], dtype=float)[w]

    def mean_of(x):
        return lambda a, b: float(x[a:b].mean())

    def mu_of(a, b):
        return float(tau[a:b].mean() / p[a:b].mean())

    def phi_of(a, b):
        return float(particle_volume / (area * h[a:b].mean()))

    def share_of(x):
        # increments from the sample before the block (the window's first sample for the
        # first block), so the blocks' increments add up to the window's
        def f(a, b):
            a0 = max(a - 1, 0)
            dw = work[b - 1] - work[a0]
            return float((x[b - 1] - x[a0]) / dw) if dw != 0 else float("nan")
        return f

    row = {"window_start_s": float(t[w[0]]), "window_end_s": float(t[w[-1]]),
           "window_samples": int(n), "window_strain": float(abs(rate) * (t[w[-1]] - t[w[0]]))}
    tw = t[w]
    mids = [0.5 * (tw[a] + tw[b - 1]) for a, b in blocks(n)]
    duration = float(tw[-1] - tw[0])
    for key, fn in (("mu", mu_of), ("tau_Pa", mean_of(tau)), ("p_Pa", mean_of(p)),
                    ("phi", phi_of), ("box_height_m", mean_of(h))):
        per_block = _split(fn, n)
        row[key] = fn(0, n)
        row[f"{key}_se"] = block_se(per_block)
        if key in ("mu", "phi"):
            slope, z = trend(mids, per_block)
            row[f"{key}_drift"] = slope * duration
            row[f"{key}_drift_z"] = z
    row["steady"] = bool(row["mu_drift_z"] <= STEADY_Z and row["phi_drift_z"] <= STEADY_Z)
    row["inertial_number"] = abs(rate) * diameter / math.sqrt(row["p_Pa"] / density)
    # I ~ p^-1/2: its relative error is half p's
    row["inertial_number_se"] = 0.5 * row["inertial_number"] * row["p_Pa_se"] / row["p_Pa"]
    row["shear_rate_1_s"] = float(rate)
    d_work = float(work[-1] - work[0])
    row["shear_work_J"] = d_work
    row["shear_power_W"] = d_work / duration if duration > 0 else float("nan")
    row["power_ratio"] = (row["shear_power_W"] / (abs(rate) * row["tau_Pa"] * area
                                                  * row["box_height_m"])
                          if row["tau_Pa"] else float("nan"))
    for key, x in list(books.items()) + [("stored", held), ("residual", resid)]:
        per_block = _split(share_of(x), n)
        row[f"share_{key}"] = share_of(x)(0, n)
        row[f"share_{key}_se"] = block_se(per_block)
    row["share_sum"] = (sum(row[f"share_{k}"] for k in BOOKS) + row["share_stored"]
                        - row["share_residual"])
    return row


def mu_curve(ts, rate, samples=10):
    """(time, mu) with tau and p averaged over runs of `samples` samples: the curve
    the report draws to show where the flow becomes steady."""
    t = np.asarray(ts["time"], dtype=float)
    tau = np.asarray(ts["shear_stress"], dtype=float) * (1.0 if rate >= 0 else -1.0)
    p = np.asarray(ts["normal_stress"], dtype=float)
    m = len(t) // samples
    if m == 0:
        return t, np.full(len(t), np.nan)
    cut = slice(len(t) - m * samples, len(t))
    tb = t[cut].reshape(m, samples).mean(1)
    with np.errstate(all="ignore"):
        mu = tau[cut].reshape(m, samples).mean(1) / p[cut].reshape(m, samples).mean(1)
    return tb, mu


def contacts_per_particle(snapshots, n):
    """Z: twice the particle-particle contacts with a positive overlap, over the
    particles, averaged over the snapshots given (NaN for none)."""
    z = []
    for c in snapshots:
        if c is None:
            z.append(0.0)
            continue
        touching = (c.overlap > 0) & ~c.wall.astype(bool)
        z.append(2.0 * float(np.count_nonzero(touching)) / n)
    return float(np.mean(z)) if z else float("nan")


def measure(run, case, main_material):
    """The shear stage's row of one run (dempact_h5.Run of a Lees-Edwards case) and the
    curves its figures need."""
    ts = run.timeseries()
    le = case["domain"]["lees_edwards"]
    lo = np.array(case["domain"]["min"], dtype=float)
    hi = np.array(case["domain"]["max"], dtype=float)
    area = float((hi[0] - lo[0]) * (hi[1] - lo[1]))
    rate = float(le["shear_rate"])
    snap = run.snapshot()
    r = snap.radius
    mat = next(m for m in case["materials"] if m["name"] == main_material)
    density = float(mat["density"])
    diameter = float(2 * r.mean())
    row = steady_flow(ts, float(np.sum(4.0 / 3.0 * math.pi * r ** 3)), area, rate,
                      diameter, density)
    row["pressure_target_Pa"] = float(le.get("pressure", float("nan")))
    row["p_over_target"] = row["p_Pa"] / row["pressure_target_Pa"]
    inside = [k for k in range(len(run)) if run.times[k] >= row["window_start_s"]]
    row["z_mean"] = contacts_per_particle([run.snapshot(index=k).contacts for k in inside],
                                          len(r))
    row["z_snapshots"] = len(inside)
    row["diameter_mean_m"] = diameter
    row["density_kg_m3"] = density
    tb, mu = mu_curve(ts, rate)
    return row, {"time": tb, "mu": mu, "window_start": row["window_start_s"]}


def v_floor(case):
    """The floor on v0 the shear stage gives the laws that divide their dashpot by the
    impact speed (the parameter v_floor): sqrt(2 g d_min), g = 9.81 m/s^2 and d_min the
    smallest diameter, the floor the engine gives the same beads in a case with gravity
    (the packing stage's), so that both stages damp a law's contacts born at rest alike.
    The engine's default without gravity, 1 mm/s, makes the dashpots of the contacts
    born in a dense flow too stiff for the step: cases/shear_small.yaml stops within 5
    ms with `exact` and `hunt_crossley`, and still with the shear's own speed across a
    diameter, rate d_min = 0.036 m/s; from 0.1 m/s it runs. None when the case's
    particles give no radius (a file of particles)."""
    radii = []
    for item in case.get("particles", []):
        r = item.get("radius") if isinstance(item, dict) else None
        if isinstance(r, dict) and "min" in r:
            radii.append(float(r["min"]))
        elif isinstance(r, (int, float)):
            radii.append(float(r))
    return math.sqrt(2 * G_STANDARD * 2 * min(radii)) if radii else None

def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
