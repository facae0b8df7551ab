#!/usr/bin/env python3
"""Measurements of a settled packing, used by tools/compare.py and tested on their own
(tests/compare/test_measure.py) against packings the engine did not make.

Every function takes plain numpy arrays, so that a test can build a lattice by hand.
Conventions (docs/compare.md repeats them):

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
- Stress from contact forces (Christoffersen, Mehrabadi & Nemat-Nasser, "A
  micromechanical description of granular material behavior", J. Appl. Mech. 48 (1981)
  339-344, doi:10.1115/1.3157619; as coarse-grained by Goldhirsch, "Stress, stress
  asymmetry and couple stress: from discrete particles to continuous fields", Granular
  Matter 12 (2010) 239-252, doi:10.1007/s10035-010-0181-z, with a box kernel):
  sigma = -(1/V) sum_c w_c f_c (x) l_c, f_c the force on the contact's first particle
  i, l_c its branch vector from i's centre (to j's centre for a pair, to the contact
  point for a wall), w_c the fraction of the branch segment inside the region of volume
  V. Compression is positive (sigma = minus the Cauchy stress), so a packing resting
  under gravity has sigma_zz > 0; row = force component, column = branch direction.
  Weighting by the segment's fraction makes the estimate exact for slabs: in a static
  packing with no side walls, sigma_zz averaged over a slab is the weight above each
  height, averaged over the slab, divided by the cross-section. The kinetic part
  (sum of m v v) is left out: it is below 1e-4 of the contact part once settled.
- Fabric (Oda, "Initial fabrics and their relations to mechanical properties of
  granular material", Soils and Foundations 12 (1972) 17-36,
  doi:10.3208/sandf1960.12.17): phi = sum_c w_c n_c (x) n_c / sum_c w_c over the
  particle-particle contacts, weights as for the stress; trace 1, isotropic = I/3.
  Anisotropy: phi_zz - (phi_xx + phi_yy)/2 (> 0: contacts preferentially vertical; 1
  for vertical contacts only) and the deviator's norm sqrt(3/2 phi':phi') (0 isotropic,
  1 for contacts along one axis).
- Settled: the translational kinetic energy per particle below SETTLE_FRACTION m g d
  (mean mass and diameter), for the rest of the run (see settling_time).
"""

import sys

try:
    import numpy as np
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("compare_measure", missing))

SETTLE_FRACTION = 1e-4  # settled: kinetic energy per particle below this x m g d

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


def settling_time(time, energy, fraction=1e-6, hold=10, scale=None):
    """The first time after which the energy stays below fraction x scale (default: its
    peak), for at least the run's last `hold` samples (NaN if it never does)."""
    time = np.asarray(time)
    energy = np.asarray(energy)
    if len(energy) == 0 or not np.isfinite(energy).all():
        return float("nan")
    peak = energy.max() if scale is None else scale
    above = np.nonzero(energy >= fraction * peak)[0]
    last = above[-1] if len(above) else -1
    if len(energy) - (last + 1) < hold:
        return float("nan")
    return float(time[last + 1])


def settle_scale(n, mean_mass, mean_diameter, g):
    """The energy scale of settling: n m g d, the work of lifting every particle by its
    diameter (mean mass and diameter; |g|). A packing whose translational kinetic energy
    stays below SETTLE_FRACTION of it moves at rms speeds below sqrt(2e-4 g d), about
    0.014 sqrt(g d): a particle would take 70 sqrt(d/g) (1.4 s for 4 mm beads) to move
    by its own diameter, several times the duration of the whole pour."""
    return float(n * mean_mass * abs(g) * mean_diameter)


def segment_fraction_in_box(start, vec, lo, hi):
    """Fraction of each segment start + s vec, s in [0, 1], that lies in the box [lo, hi]
    (Liang-Barsky clipping; an axis with lo = -inf and hi = inf does not clip)."""
    start = np.asarray(start, dtype=float).reshape(-1, 3)
    vec = np.asarray(vec, dtype=float).reshape(-1, 3)
    s0 = np.zeros(len(start))
    s1 = np.ones(len(start))
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(3):
            p, v = start[:, k], vec[:, k]
            moving = v != 0
            ta = np.where(moving, (lo[k] - p) / np.where(moving, v, 1), -np.inf)
            tb = np.where(moving, (hi[k] - p) / np.where(moving, v, 1), np.inf)
            s0 = np.maximum(s0, np.where(moving, np.minimum(ta, tb), -np.inf))
            s1 = np.minimum(s1, np.where(moving, np.maximum(ta, tb), np.inf))
            outside = ~moving & ((p < lo[k]) | (p > hi[k]))
            s1 = np.where(outside, s0, s1)
    return np.clip(s1 - s0, 0.0, 1.0)


def contact_stress(centre, branch, force, lo, hi, volume):
    """The stress tensor (3 x 3, Pa, compression positive) of the region [lo, hi] of the
    given volume from its contacts: centre (M, 3) of each contact's first particle i,
    branch (M, 3) from i's centre to j's centre or to the wall contact point, force (M, 3)
    on i. sigma_ab = -(1/V) sum_c w_c f_a l_b, w_c the branch's fraction in the region.
    Returns the tensor and the weights."""
    w = segment_fraction_in_box(centre, branch, lo, hi)
    f = np.asarray(force, dtype=float).reshape(-1, 3)
    l = np.asarray(branch, dtype=float).reshape(-1, 3)
    sigma = -np.einsum("c,ca,cb->ab", w, f, l) / volume
    return sigma, w


def fabric_tensor(normal, weight=None):
    """sum_c w_c n_c (x) n_c / sum_c w_c (NaN if no weight)."""
    n = np.asarray(normal, dtype=float).reshape(-1, 3)
    n = n / np.linalg.norm(n, axis=1)[:, None]
    w = np.ones(len(n)) if weight is None else np.asarray(weight, dtype=float)
    total = w.sum()
    if not total > 0:
        return np.full((3, 3), np.nan)
    return np.einsum("c,ca,cb->ab", w, n, n) / total


def deviator(t):
    return t - np.trace(t) / 3.0 * np.eye(3)


def fabric_anisotropy(phi):
    """phi_zz - (phi_xx + phi_yy) / 2, and sqrt(3/2 phi':phi') (phi' the deviator)."""
    d = deviator(phi)
    return float(phi[2, 2] - 0.5 * (phi[0, 0] + phi[1, 1])), float(np.sqrt(1.5 * np.sum(d * d)))


def stress_invariants(sigma):
    """Mean stress p = tr/3 and deviatoric stress q = sqrt(3/2 s:s) of the symmetric part
    (Pa), and the ratio of horizontal to vertical stress (sxx + syy) / (2 szz)."""
    s = 0.5 * (sigma + sigma.T)
    d = deviator(s)
    p = float(np.trace(s) / 3.0)
    q = float(np.sqrt(1.5 * np.sum(d * d)))
    k = float(0.5 * (s[0, 0] + s[1, 1]) / s[2, 2]) if s[2, 2] != 0 else float("nan")
    return p, q, k


def periodic_images(centres, radii, lo, hi, periodic):
    """The spheres plus their images across the periodic faces they cross (each periodic
    axis of length hi - lo), for measuring volumes in a region of a periodic domain."""
    c = np.asarray(centres, dtype=float).reshape(-1, 3)
    r = np.asarray(radii, dtype=float).reshape(-1)
    for k in range(3):
        if not periodic[k]:
            continue
        length = hi[k] - lo[k]
        c = c.copy()
        c[:, k] = lo[k] + np.mod(c[:, k] - lo[k], length)
        low = c[:, k] - r < lo[k]
        high = c[:, k] + r > hi[k]
        up, down = c[low].copy(), c[high].copy()
        up[:, k] += length
        down[:, k] -= length
        c = np.concatenate([c, up, down])
        r = np.concatenate([r, r[low], r[high]])
    return c, r


def energy_books(ts, wall_work=0.0):
    """What each mechanism dissipated by the end of the run (J), and the balance's
    residual: (E(end) + dissipated - E(0) - W) in J and relative to dissipated + |W|
    (E = kinetic + rotational + gravitational + elastic, W the work of moving walls)."""
    books = {k: float(ts[f"dissipated_{k}"][-1]) for k in ("damping", "friction", "rolling",
                                                         "plasticity")}
    held = [ts[k] for k in ("kinetic_energy", "rotational_energy", "gravitational_energy",
                            "elastic_energy")]
    e0 = float(sum(x[0] for x in held))
    e1 = float(sum(x[-1] for x in held))
    lost = sum(books.values())
    residual = e1 + lost - e0 - wall_work
    scale = lost + abs(wall_work)
    return books, residual, (residual / scale if scale > 0 else float("nan"))


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
