"""Measurements of a settled packing, used by tools/compare.py and tested on their own
(tests/compare/test_measure.py) against packings the engine did not make.

Every function takes plain numpy arrays, so that a test can build a lattice by hand.
Conventions (the README's "Comparing the laws" section repeats them):

- Packing fraction: the volume of the spheres inside a box region divided by the box's
  volume, each sphere cut by the box exactly (not the centre rule): the part of a sphere
  inside the box is the integral over z of the area of its disc inside the rectangle,
  the area in closed form, the integral by Gauss-Legendre in the angle (z = zc + r sin t,
  which makes the integrand smooth at the poles).
- Coordination: contacts per particle, counted over the particles whose centre lies in
  the region, every contact counting (particle and wall).
- Rattlers: particles with fewer than `min_contacts` contacts, removed iteratively (a
  removed rattler no longer counts as a neighbour, which may make another one a rattler)
  from the whole packing. min_contacts is 2 with friction: as Thornton's "mechanical
  coordination number" (Geotechnique 50, 2000), which leaves out the particles with 0 or
  1 contacts, since they carry no load; and 4 = d + 1 without friction (the fewest
  contacts that hold a frictionless sphere in 3D, the usual criterion of jamming
  studies).
"""

import numpy as np

_GL_X, _GL_W = np.polynomial.legendre.leggauss(64)


def _seg(s_int, lo, hi):
    """Integral over [lo, hi] (hi < lo gives 0) of a function with antiderivative s_int."""
    hi = np.maximum(hi, lo)
    return s_int(hi) - s_int(lo)


def _quadrant_area(a, b, rho):
    """Area of the disc of radius rho centred at the origin with x < a and y < b
    (arrays of the same shape)."""
    rho = np.maximum(rho, 0.0)
    a = np.clip(a, -rho, rho)
    s = lambda x: np.sqrt(np.maximum(rho * rho - x * x, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = lambda x: np.where(rho > 0, np.clip(x / np.where(rho > 0, rho, 1), -1, 1), 0)
        G = lambda x: 0.5 * (x * s(x) + rho * rho * np.arcsin(ratio(x)))  # int s dx
    two_s = lambda x: 2 * G(x)
    bb = np.clip(b, -rho, rho)
    c = np.sqrt(np.maximum(rho * rho - bb * bb, 0.0))
    mid = lambda x: bb * x + G(x)  # int (b + s) dx, for |x| < c
    outer = np.where(b >= 0, 1.0, 0.0)  # |x| > c: 2 s if b >= 0, else 0
    area = (outer * _seg(two_s, -rho, np.minimum(a, -c))
            + _seg(mid, -c, np.minimum(a, c))
            + outer * _seg(two_s, c, np.minimum(a, rho)))
    area = np.where(b >= rho, 2 * (G(a) - G(-rho)), area)
    area = np.where(b <= -rho, 0.0, area)
    return area


def disc_rect_area(cx, cy, rho, x0, x1, y0, y1):
    """Area of the discs (centres cx, cy, radii rho) inside [x0, x1] x [y0, y1]."""
    q = _quadrant_area
    return (q(x1 - cx, y1 - cy, rho) - q(x0 - cx, y1 - cy, rho)
            - q(x1 - cx, y0 - cy, rho) + q(x0 - cx, y0 - cy, rho))


def sphere_box_volume(centres, radii, lo, hi):
    """Volume of each sphere inside the box [lo, hi] (exact up to the quadrature, about
    1e-9 relative for a sphere cut by one or two planes)."""
    c = np.asarray(centres, dtype=float).reshape(-1, 3)
    r = np.asarray(radii, dtype=float).reshape(-1)
    vol = np.zeros(len(r))
    inside = np.all((c - r[:, None] >= lo) & (c + r[:, None] <= hi), axis=1)
    vol[inside] = 4.0 / 3.0 * np.pi * r[inside] ** 3
    touches = (~inside) & np.all((c + r[:, None] > lo) & (c - r[:, None] < hi), axis=1)
    idx = np.nonzero(touches)[0]
    if len(idx) == 0:
        return vol
    cc, rr = c[idx], r[idx]
    # z = zc + r sin t, t in [t0, t1]; dz = r cos t dt; disc radius r cos t
    t0 = np.arcsin(np.clip((lo[2] - cc[:, 2]) / rr, -1, 1))
    t1 = np.arcsin(np.clip((hi[2] - cc[:, 2]) / rr, -1, 1))
    half = 0.5 * (t1 - t0)
    t = 0.5 * (t1 + t0)[:, None] + half[:, None] * _GL_X[None, :]
    rho = rr[:, None] * np.cos(t)
    A = disc_rect_area(cc[:, 0:1], cc[:, 1:2], rho, lo[0], hi[0], lo[1], hi[1])
    vol[idx] = half * np.sum(_GL_W[None, :] * A * rr[:, None] * np.cos(t), axis=1)
    return vol


def packing_fraction(centres, radii, lo, hi):
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    return float(sphere_box_volume(centres, radii, lo, hi).sum() / np.prod(hi - lo))


def in_box(centres, lo, hi):
    c = np.asarray(centres).reshape(-1, 3)
    return np.all((c >= lo) & (c <= hi), axis=1)


def contact_counts(n, pairs, wall_of=None):
    """Contacts of each of n particles (indices 0..n-1). pairs: (M, 2) particle indices
    of particle-particle contacts; wall_of: particle index of each wall contact."""
    counts = np.zeros(n, dtype=np.int64)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    np.add.at(counts, pairs[:, 0], 1)
    np.add.at(counts, pairs[:, 1], 1)
    if wall_of is not None and len(wall_of):
        np.add.at(counts, np.asarray(wall_of, dtype=np.int64), 1)
    return counts


def rattlers(n, pairs, wall_of=None, min_contacts=2):
    """Boolean mask of the rattlers, removed iteratively, and the contact counts of the
    particles left (rattlers: 0)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    wall_of = np.asarray([] if wall_of is None else wall_of, dtype=np.int64)
    rattler = np.zeros(n, dtype=bool)
    while True:
        keep = ~(rattler[pairs[:, 0]] | rattler[pairs[:, 1]])
        counts = contact_counts(n, pairs[keep], wall_of[~rattler[wall_of]])
        new = (~rattler) & (counts < min_contacts)
        if not new.any():
            counts[rattler] = 0
            return rattler, counts
        rattler |= new


def coordination(n, pairs, wall_of, select, min_contacts):
    """Mean coordination of the selected particles (mask), with and without rattlers, and
    the fraction of the selected particles that are rattlers."""
    counts = contact_counts(n, pairs, wall_of)
    ratt, counts_nr = rattlers(n, pairs, wall_of, min_contacts)
    sel = np.asarray(select, dtype=bool)
    if not sel.any():
        return float("nan"), float("nan"), float("nan")
    z = counts[sel].mean()
    keep = sel & ~ratt
    z_nr = counts_nr[keep].mean() if keep.any() else float("nan")
    return float(z), float(z_nr), float(ratt[sel].mean())


def surface_height(centres, radii, lo_xy, hi_xy, cell):
    """The free surface: the median over square columns of side `cell` (covering the
    region lo_xy..hi_xy) of the highest sphere top (z + r) of the column."""
    c = np.asarray(centres).reshape(-1, 3)
    nx = max(1, int((hi_xy[0] - lo_xy[0]) / cell))
    ny = max(1, int((hi_xy[1] - lo_xy[1]) / cell))
    ix = np.floor((c[:, 0] - lo_xy[0]) / (hi_xy[0] - lo_xy[0]) * nx).astype(int)
    iy = np.floor((c[:, 1] - lo_xy[1]) / (hi_xy[1] - lo_xy[1]) * ny).astype(int)
    ok = (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny)
    top = np.full(nx * ny, -np.inf)
    np.maximum.at(top, ix[ok] * ny + iy[ok], c[ok, 2] + np.asarray(radii)[ok])
    top = top[np.isfinite(top)]
    return float(np.median(top)) if len(top) else float("nan")


def settling_time(time, energy, fraction=1e-6, hold=10):
    """The first time after which the energy stays below fraction x its peak, for at least
    the run's last `hold` samples (NaN if it never does)."""
    time = np.asarray(time)
    energy = np.asarray(energy)
    if len(energy) == 0 or not np.isfinite(energy).all():
        return float("nan")
    peak = energy.max()
    above = np.nonzero(energy >= fraction * peak)[0]
    last = above[-1] if len(above) else -1
    if len(energy) - (last + 1) < hold:
        return float("nan")
    return float(time[last + 1])
