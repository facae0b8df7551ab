/* The per-contact torque of the rolling law `constant` (models/rolling_constant.c),
 * `static inline` so that the law's batch and a fused kernel can call it. */
#ifndef DEMPACT_ROLLING_CONSTANT_H
#define DEMPACT_ROLLING_CONSTANT_H

#include <math.h>

/* One contact: M = -limit w_r / |w_r| on i, limit = mu_r R* F_n, w_r the part of w = w_i
 * - w_j across the normal n; sets m, returns the power -M . w_r. No torque where w_r is 0
 * or below 1e-12 |w|: a relative rotation about the normal alone (a pure twist) leaves a
 * w_r of rounding size (|n| is 1 only to rounding), which points along n, and normalising
 * it would put the full torque about the normal.
 * Every lane divides (by 1 where there is no torque, the result then not taken), so that
 * a loop over it has selects instead of branches and vectorises; one division per contact.
 * no-trapping-math: nothing here reads the floating-point exception flags, and it lets
 * GCC evaluate both sides of a select (the same results, bit for bit); a caller that
 * inlines it takes the same attribute. */
__attribute__((optimize("no-trapping-math"))) static inline __attribute__((always_inline)) double
rolling_constant_torque(double limit, const double n[3], const double w[3], double m[3])
{
    double wn = w[0] * n[0] + w[1] * n[1] + w[2] * n[2];
    double r0 = w[0] - wn * n[0], r1 = w[1] - wn * n[1], r2 = w[2] - wn * n[2];
    double len2 = r0 * r0 + r1 * r1 + r2 * r2, len = sqrt(len2);
    int turning = len2 > 1e-24 * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double by = turning ? len : 1.0;
    double per = -limit / by;
    double q0 = per * r0, q1 = per * r1, q2 = per * r2;
    double a0 = turning ? q0 : 0.0, a1 = turning ? q1 : 0.0, a2 = turning ? q2 : 0.0;
    m[0] = a0;
    m[1] = a1;
    m[2] = a2;
    return -(a0 * r0 + a1 * r1 + a2 * r2);
}

#endif
