/* The adhesion laws on one contact (models/adhesion_law.h): `static inline` functions
 * that a law's batch loop calls, and a fused kernel can call as well. Each law comes as
 *   X_of(ac)                 its constants, read once per batch from adhesion_coeffs.a;
 *   X_force(&consts, d, ...) F_adh on one contact [N] (< 0: a pull), 0 out of contact;
 *   X_energy(&consts, d, ...) U(d) = integral of F_adh from the reach to d [J] (<= 0);
 * with d the overlap, R* the reduced radius and r_i, r_j the radii (r_j 0: a wall, a
 * sphere of infinite radius). docs/laws.md ("Adhesion") and docs/physics.md give the
 * formulas and their derivations. */
#ifndef DEMPACT_ADHESION_PARTS_H
#define DEMPACT_ADHESION_PARTS_H

#include <math.h>

#include "adhesion_law.h"

#define AP_INLINE static inline __attribute__((always_inline))

/* The largest values a case may give (the keys' max_value). Neither bounds physics: each
 * lies far beyond any material and keeps every product the laws form finite.
 *  - a work of adhesion w [J/m^2]: twice the surface energy of like surfaces, below
 *    10 J/m^2 for every solid (metals 1-3, glass and silica about 0.1-1, polymers 0.05);
 *  - a cohesion energy density k_c [J/m^3 = Pa]: a stress on the contact area, so at
 *    most the theoretical strength of a solid, E/10, 1e11 Pa for diamond. */
#define ADHESION_MAX_WORK 1e3
#define ADHESION_MAX_ENERGY_DENSITY 1e12
/*  - a liquid bridge's volume [m^3]: a cubic metre, beyond any bridge between grains;
 *  - a liquid's surface tension [N/m = J/m^2]: a surface energy, bounded as the work of
 *    adhesion (ADHESION_MAX_WORK; water 0.072, mercury 0.49, molten metals below 3);
 *  - a liquid's viscosity [Pa s]: 1e12, that of glass at its transition (water 1e-3,
 *    glycerol 1.4, pitch 1e8);
 *  - the roughness that cuts the lubrication gap off [m]: a metre. */
#define ADHESION_MAX_VOLUME 1.0
#define ADHESION_MAX_VISCOSITY 1e12
#define ADHESION_MAX_ROUGHNESS 1.0

/* ---- jkr: Johnson, Kendall & Roberts (1971) ------------------------------------------
 * The contact radius a of two elastic spheres with work of adhesion w, as a function of
 * the overlap d, and the force:
 *   d = a^2/R* - sqrt(2 pi w a / E*),   F_JKR = 4 E* a^3 / (3 R*) - sqrt(8 pi w E* a^3).
 * In the units a_c (a_c^3 = pi w R*^2 / (8 E*), where dd/da = 0: the break under
 * displacement control), l = a_c^2 / R* for lengths and pi w R* for forces, with
 * x = sqrt(a / a_c) and delta = d / l:
 *   delta = x^4 - 4 x,   F_JKR / (pi w R*) = x^6 / 6 - x^3,
 * the stable branch being x >= 1 (delta >= -3, the reach d_c = -3 l, where F_JKR is
 * -5/6 pi w R*; the largest pull, -3/2 pi w R*, at x^6 = 9, a^3 = a_0^3 / 4). The engine
 * adds the normal law's Hertz force K_hz d+^(3/2), which in these units is
 * delta+^(3/2) / 6 pi w R*, so the law returns F_adh = F_JKR - that: for delta > 0, with
 * X = x^2 and t = sqrt(delta) (X - t = 4x / (X + t), so nothing cancels),
 *   F_adh / (pi w R*) = -(4/3) X (X + 2t) / (X + t)^2,
 * from -4/3 at touching to -1 deep in the contact; for delta <= 0 F_JKR itself. */
enum { JKR_WORK, JKR_PI_W, JKR_AC3, JKR_SLOTS }; /* a[]: w, pi w, pi w / (8 E*) */
_Static_assert(JKR_SLOTS <= ADHESION_MAX_COEFFS, "jkr's constants fit adhesion_coeffs.a");

typedef struct jkr_adhesion {
    double pi_w; /* pi w [N/m] */
    double ac3;  /* a_c^3 / R*^2 = pi w / (8 E*) [m] */
} jkr_adhesion;

AP_INLINE jkr_adhesion jkr_adhesion_of(const adhesion_coeffs *ac)
{
    return (jkr_adhesion){ac->a[JKR_PI_W], ac->a[JKR_AC3]};
}

/* l = a_c^2 / R* [m]: the unit of overlap (the reach is -3 l). */
AP_INLINE double jkr_length(const jkr_adhesion *j, double r_eff)
{
    double a_c = cbrt(j->ac3 * r_eff * r_eff);
    return a_c * a_c / r_eff;
}

/* The root x >= 1 of x^4 - 4x = delta for delta >= -3 (below: x at -3, i.e. 1), in
 * closed form (Ferrari): (x^2 + y)^2 = 2y (x + 1/y)^2 when y > 0 solves the resolvent
 * cubic y^3 + delta y - 2 = 0, then x = (s + sqrt(8/s - s^2)) / 2 with s = sqrt(2y).
 * The cubic has one positive root for delta > -3 (Cardano's u^3 = 1 + sqrt(1 +
 * delta^3/27), v = -delta / (3u), y = u + v), taken without cancellation: y = u + v
 * directly where delta < 0 (both terms positive), and y = 2 / (u^2 - uv + v^2) (from
 * u^3 + v^3 = 2) where delta >= 0. A fixed sequence of operations (two cube roots
 * counting jkr_length's, three square roots): the same bits for the same input. Against
 * a 40-digit root it is within 3e-15 relative for delta from -2.999 to 1e12
 * (tests/test_adhesion.c); next to delta = -3, where dx/ddelta is infinite, it carries
 * the rounding of delta + 3 as the root itself does. Finite for delta below 1e100. */
AP_INLINE double jkr_root(double delta)
{
    double dl = fmax(delta, -3.0);
    double u = cbrt(1.0 + sqrt(fmax(1.0 + dl * dl * dl / 27.0, 0.0)));
    double v = -dl / (3.0 * u);
    double y = dl < 0.0 ? u + v : 2.0 / (u * u - u * v + v * v);
    double s = sqrt(2.0 * y);
    return 0.5 * (s + sqrt(fmax(8.0 / s - s * s, 0.0)));
}

/* F_adh / (pi w R*) at delta (> -3), from its root x. */
AP_INLINE double jkr_unit_force(double delta, double x)
{
    double X = x * x, t = sqrt(fmax(delta, 0.0)), s = X + t;
    double pressed = -4.0 / 3.0 * X * (X + 2.0 * t) / (s * s);
    double x3 = X * x;
    double tension = x3 * (x3 / 6.0 - 1.0);
    return delta > 0.0 ? pressed : tension;
}

AP_INLINE double jkr_force(const jkr_adhesion *j, double d, double r_eff)
{
    double delta = d / jkr_length(j, r_eff);
    double f = jkr_unit_force(delta, jkr_root(delta));
    return delta > -3.0 ? j->pi_w * r_eff * f : 0.0;
}

/* U(d) = integral of F_adh from the reach: in the units above (energy pi w R* l),
 *   delta <= 0: U_JKR = x^10/15 - 2x^7/3 + x^4 - 2/5 (the integral in x of
 *               (x^6/6 - x^3)(4x^3 - 4) from 1), written in e = x - 1, where it is
 *               e^2 (-5 - 34/3 e - ...) (its value and slope vanish at the reach);
 *   delta > 0:  U_JKR - delta^(5/2)/15 (the Hertz energy the normal law books), which
 *               with X = x^2 and h = X - t = 4x / (X + t) is
 *               -X^3 h^2/4 + 5 X^2 h^3/12 - 13 X h^4/48 + h^5/15 - 2/5,
 *               free of the cancellation of its two terms (each ~ delta^(5/2) where U
 *               is ~ -delta). At touching both give -2/5 - (12/5) 4^(1/3). */
AP_INLINE double jkr_unit_energy(double delta, double x)
{
    double e = x - 1.0;
    double tail = 28.0 / 3.0 + e * (22.0 / 3.0 + e * (3.0 + e * (2.0 / 3.0 + e / 15.0)));
    double tension =
        e * e * (-5.0 + e * (-34.0 / 3.0 + e * (-25.0 / 3.0 + e * (14.0 / 5.0 + e * tail))));
    double X = x * x, t = sqrt(fmax(delta, 0.0)), h = 4.0 * x / (X + t);
    double pressed =
        h * h * (-0.25 * X * X * X + h * (5.0 / 12.0 * X * X + h * (-13.0 / 48.0 * X + h / 15.0))) -
        0.4;
    return delta > 0.0 ? pressed : tension;
}

AP_INLINE double jkr_energy(const jkr_adhesion *j, double d, double r_eff)
{
    double l = jkr_length(j, r_eff), delta = d / l;
    double u = jkr_unit_energy(delta, jkr_root(delta));
    return delta > -3.0 ? j->pi_w * r_eff * l * u : 0.0;
}

/* ---- dmt: Derjaguin, Muller & Toporov (1975) -----------------------------------------
 * Hertz's contact plus a constant pull 2 pi w R* while the surfaces touch (d > 0). */
enum { DMT_WORK, DMT_PULL, DMT_SLOTS }; /* a[]: w, 2 pi w */

typedef struct dmt_adhesion {
    double pull; /* 2 pi w [N/m] */
} dmt_adhesion;

AP_INLINE dmt_adhesion dmt_adhesion_of(const adhesion_coeffs *ac)
{
    return (dmt_adhesion){ac->a[DMT_PULL]};
}

AP_INLINE double dmt_force(const dmt_adhesion *p, double d, double r_eff)
{
    return d > 0.0 ? -p->pull * r_eff : 0.0;
}

AP_INLINE double dmt_energy(const dmt_adhesion *p, double d, double r_eff)
{
    return d > 0.0 ? -p->pull * r_eff * d : 0.0;
}

/* ---- sjkr, sjkr2: LIGGGHTS' simplified JKR cohesion ---------------------------------
 * F_adh = -k_c A while d > 0, k_c the cohesion energy density, A an area:
 *   sjkr   the circle where the two spheres' surfaces cross, A = pi a^2 with
 *            a^2 = d (2r_i - d)(2r_j - d)(2r_i + 2r_j - d) / (4 r^2),  r = r_i + r_j - d
 *          the distance of the centres; with u = 1/r_j (0 for a wall: the limit of an
 *          infinite radius, a^2 = d (2r_i - d)) this is
 *            a^2 = d (2r_i - d)(2 - d u)(2 + (2r_i - d) u) / (4 (1 + (r_i - d) u)^2);
 *          U = -k_c V, V the volume of the lens the spheres share (moving one sphere by
 *          dd sweeps the area A: dV/dd = A),
 *            V = pi d^2 (12 r_i - 4d + (d^2 - 4 r_i d) u) / (12 (1 + (r_i - d) u));
 *   sjkr2  A = 2 pi R* d (the first order in d of the above); U = -k_c pi R* d^2.
 * Valid while d is below the smaller radius (a sphere's centre inside the other's
 * surface is no contact DEM resolves). */
enum { SJKR_ENERGY_DENSITY, SJKR_PI_K, SJKR_SLOTS }; /* a[]: k_c, pi k_c */

typedef struct sjkr_adhesion {
    double pi_k; /* pi k_c [Pa] */
} sjkr_adhesion;

AP_INLINE sjkr_adhesion sjkr_adhesion_of(const adhesion_coeffs *ac)
{
    return (sjkr_adhesion){ac->a[SJKR_PI_K]};
}

/* 1 / r_j, 0 for a wall */
AP_INLINE double sjkr_inverse_radius(double r_j) { return 1.0 / (r_j > 0.0 ? r_j : INFINITY); }

/* a^2 [m^2]: the squared radius of the circle where the surfaces cross. */
AP_INLINE double sjkr_circle2(double d, double r_i, double r_j)
{
    double u = sjkr_inverse_radius(r_j), g = 1.0 + (r_i - d) * u;
    return d * (2.0 * r_i - d) * (2.0 - d * u) * (2.0 + (2.0 * r_i - d) * u) / (4.0 * g * g);
}

AP_INLINE double sjkr_force(const sjkr_adhesion *p, double d, double r_i, double r_j)
{
    return d > 0.0 ? -p->pi_k * sjkr_circle2(d, r_i, r_j) : 0.0;
}

AP_INLINE double sjkr_energy(const sjkr_adhesion *p, double d, double r_i, double r_j)
{
    double u = sjkr_inverse_radius(r_j);
    double v = d * d * (12.0 * r_i - 4.0 * d + (d * d - 4.0 * r_i * d) * u) /
               (12.0 * (1.0 + (r_i - d) * u));
    return d > 0.0 ? -p->pi_k * v : 0.0;
}

AP_INLINE double sjkr2_force(const sjkr_adhesion *p, double d, double r_eff)
{
    return d > 0.0 ? -2.0 * p->pi_k * r_eff * d : 0.0;
}

AP_INLINE double sjkr2_energy(const sjkr_adhesion *p, double d, double r_eff)
{
    return d > 0.0 ? -p->pi_k * r_eff * d * d : 0.0;
}

/* ---- capillary: a liquid bridge, Willett et al. (2000) and Lian et al. (1993) ----------
 * A bridge of liquid volume V, contact angle theta and surface tension gamma between the
 * surfaces, from touching until it ruptures at the gap S_c = (1 + theta/2) V^(1/3) (Lian,
 * Thornton & Adams; theta in radians): the reach is -S_c. Willett et al.'s closed form for
 * equal spheres of radius R, S the half-separation,
 *   F = -2 pi R gamma cos(theta) / (1 + 2.1 S+ + 10 S+^2),   S+ = S sqrt(R / V),
 * taken for unequal spheres by Derjaguin's approximation, R the harmonic mean of the radii,
 * 2 r_i r_j / (r_i + r_j) = 2 R* (2 r_i against a wall). With the gap s = -d = 2S:
 *   F_cap = -F_0 / (1 + u (2.1 + 10 u)),   F_0 = 4 pi gamma cos(theta) R*,
 *   u = S+ = k s,   k = sqrt(R* / (2V)),
 * at s = max(-d, 0): while the surfaces overlap, the force at contact, -F_0 (F_0 the
 * pull-off force: the pull falls with the gap).
 * Optionally Reynolds' lubrication of the film between the surfaces,
 *   F_v = 6 pi eta R*^2 d' / max(-d, rho),
 * rho the roughness that cuts the gap off (the force stays finite at touching and through
 * the contact); d' > 0 approaching, so it resists the motion both ways.
 * U(d) = integral of F_cap from -S_c to d (F_v is dissipative and not in it): with
 * b = 10, a = 2.1, q = sqrt(4b - a^2), integral du / (1 + a u + b u^2) =
 * (2/q) atan((2 b u + a)/q), and the difference of two arctangents of positive arguments
 * A_c, A taken as one, atan((A_c - A) / (1 + A_c A)), A_c - A = 2 b k (S_c - s) / q (free of
 * cancellation next to the rupture):
 *   U = -(F_0 / k)(2/q) atan(2 b k (S_c - s) / q / (1 + A_c A)) - F_0 max(d, 0). */
enum {
    CAP_VOLUME,    /* V [m^3] */
    CAP_THETA,     /* theta [rad] */
    CAP_PULL,      /* 4 pi gamma cos(theta) [N/m]: F_0 = CAP_PULL R* */
    CAP_RUPTURE,   /* S_c [m] */
    CAP_HALF_INV_V, /* 1 / (2V) [m^-3]: k^2 = R* / (2V) */
    CAP_VISCOUS,   /* 6 pi eta [Pa s] */
    CAP_MIN_GAP,   /* rho [m] */
    CAP_SLOTS
};
_Static_assert(CAP_SLOTS <= ADHESION_MAX_COEFFS, "capillary's constants fit adhesion_coeffs.a");

#define CAP_A 2.1  /* Willett et al.'s coefficients of S+ and S+^2 */
#define CAP_B 10.0

typedef struct capillary_adhesion {
    double pull, rupture, half_inv_v, viscous, min_gap;
} capillary_adhesion;

AP_INLINE capillary_adhesion capillary_adhesion_of(const adhesion_coeffs *ac)
{
    return (capillary_adhesion){ac->a[CAP_PULL], ac->a[CAP_RUPTURE], ac->a[CAP_HALF_INV_V],
                                ac->a[CAP_VISCOUS], ac->a[CAP_MIN_GAP]};
}

/* F_cap + F_v at overlap d, overlap rate `rate`; 0 at and past the rupture */
AP_INLINE double capillary_force(const capillary_adhesion *c, double d, double rate,
                                 double r_eff)
{
    double s = fmax(-d, 0.0), u = sqrt(r_eff * c->half_inv_v) * s;
    double cap = -c->pull * r_eff / (1.0 + u * (CAP_A + CAP_B * u));
    double lub = c->viscous * r_eff * r_eff * rate / fmax(-d, c->min_gap);
    double f = cap + (c->viscous > 0.0 ? lub : 0.0);
    return d > -c->rupture ? f : 0.0;
}

AP_INLINE double capillary_energy(const capillary_adhesion *c, double d, double r_eff)
{
    const double q = sqrt(4.0 * CAP_B - CAP_A * CAP_A);
    double k = sqrt(r_eff * c->half_inv_v), f0 = c->pull * r_eff;
    double s = fmax(-d, 0.0);
    double a_c = (2.0 * CAP_B * k * c->rupture + CAP_A) / q, a = (2.0 * CAP_B * k * s + CAP_A) / q;
    double gap = fmin(c->rupture + d, c->rupture); /* S_c - s */
    double angle = atan(2.0 * CAP_B * k * gap / q / (1.0 + a_c * a));
    double u = -f0 / k * (2.0 / q) * angle - f0 * fmax(d, 0.0);
    return d > -c->rupture ? u : 0.0;
}

#endif
