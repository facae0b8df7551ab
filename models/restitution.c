/* Closed forms of the Hertzian damping laws' restitution (see restitution.h).
 *
 * Both functions find a root of the same function of (chi, e):
 *
 *     G(chi, e) = ln(1 + chi) - ln(1 - e chi) - chi (1 + e)
 *               = sum_{k>=2} ((-1)^(k+1) + e^k) chi^k / k,
 *
 * G < 0 below the root and G -> +inf as e chi -> 1, whichever of chi or e is the
 * unknown (and the root is unique). G is of order chi^2 (1 - e) near the root when chi is small, so evaluating it
 * from the logarithms loses most digits; H = G / chi^2 is evaluated from the series for
 * chi <= 1/4 (ratio chi, so 30 terms reach double precision) and from log1p otherwise.
 * The roots are found by bisection to adjacent doubles: setup-time only, and immune to
 * the log's pole at e chi = 1, which is where the root sits (to double precision) for
 * chi >~ 700 or e <~ 0.0015. */
#include "restitution.h"

#include <math.h>

#define SERIES_LIMIT 0.25

/* G(chi, e) / chi^2 for chi > 0, 0 <= e <= 1; +inf when e chi >= 1. */
static double scaled_g(double chi, double e)
{
    if (e * chi >= 1.0) return HUGE_VAL;
    if (chi > SERIES_LIMIT)
        return (log1p(chi) - log1p(-e * chi) - chi * (1.0 + e)) / (chi * chi);
    /* k = 2 term written as (e - 1)(e + 1) / 2 to keep its digits when e ~ 1 */
    double sum = (e - 1.0) * (e + 1.0) / 2.0;
    double chi_pow = chi, e_pow = e * e;
    for (int k = 3; k <= 60; k++) {
        e_pow *= e;
        double coeff = (k % 2 ? 1.0 : -1.0) + e_pow;
        double term = coeff * chi_pow / k;
        sum += term;
        chi_pow *= chi; /* chi^(k-1): bounds the rest, against a sum of order chi */
        if (chi_pow < 1e-18 * chi) break;
    }
    return sum;
}

double hertzian_chi_exact(double e)
{
    if (!(e > 0.0 && e <= 1.0)) return NAN;
    if (e == 1.0) return 0.0;
    /* scaled_g(., e) < 0 on (0, root), > 0 on (root, 1/e) */
    double lo = 0.0, hi = 1.0 / e;
    for (int it = 0; it < 2000; it++) {
        double mid = lo + 0.5 * (hi - lo);
        if (mid <= lo || mid >= hi) break;
        if (scaled_g(mid, e) < 0.0) lo = mid; else hi = mid;
    }
    return 0.5 * (lo + hi);
}

double hertzian_restitution_out(double chi)
{
    if (!(chi >= 0.0)) return NAN;
    if (chi == 0.0) return 1.0;
    if (isinf(chi)) return 0.0;
    /* G(chi, .) increases with e: negative at e = 0, positive at min(1, 1/chi) */
    double lo = 0.0, hi = fmin(1.0, 1.0 / chi);
    if (scaled_g(chi, hi) <= 0.0) return hi;
    for (int it = 0; it < 2000; it++) {
        double mid = lo + 0.5 * (hi - lo);
        if (mid <= lo || mid >= hi) break;
        if (scaled_g(chi, mid) < 0.0) lo = mid; else hi = mid;
    }
    return 0.5 * (lo + hi);
}
