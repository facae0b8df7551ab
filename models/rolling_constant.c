/* Rolling law `constant`: a constant torque against the rolling direction (Ai et al.'s
 * model A). On i, from the relative rolling velocity w_r = w_i - w_j without its twist
 * part along n:
 *   M = -mu_r R* F_n w_r / |w_r|
 * It chatters by tiny amounts once rolling stops, as this model does in every code. */
#include "friction_law.h"

#include <math.h>

static int constant_setup(const double *params, const friction_pair *pair, friction_coeffs *fc,
                          law_error *err)
{
    (void)params, (void)pair, (void)fc;
    return 0;
}

/* no-trapping-math: nothing here reads the floating-point exception flags, and it lets
 * GCC evaluate both sides of a select (the same results, bit for bit). */
__attribute__((optimize("no-trapping-math")))
static void constant_batch(const friction_coeffs *fc, const friction_batch *b)
{
    const double *restrict n0 = b->normal[0], *restrict n1 = b->normal[1],
                 *restrict n2 = b->normal[2];
    const double *restrict w0 = b->w_rel[0], *restrict w1 = b->w_rel[1],
                 *restrict w2 = b->w_rel[2];
    const double *restrict r_eff = b->r_eff, *restrict f_normal = b->f_normal;
    double *restrict m0 = b->m_r[0], *restrict m1 = b->m_r[1], *restrict m2 = b->m_r[2];
    double *restrict power = b->power[1];
    const double mu_r = fc->mu_r;
    #pragma GCC ivdep /* GCC does not read restrict on locals: each array is its own */
    for (size_t q = 0; q < b->n; q++) {
        double wn = w0[q] * n0[q] + w1[q] * n1[q] + w2[q] * n2[q];
        double r0 = w0[q] - wn * n0[q], r1 = w1[q] - wn * n1[q], r2 = w2[q] - wn * n2[q];
        double limit = mu_r * r_eff[q] * f_normal[q];
        double w = sqrt(r0 * r0 + r1 * r1 + r2 * r2);
        /* every lane divides (by 1 where w is 0, the result then not taken), so that the
         * loop has selects instead of branches and vectorises; one division per contact */
        int turning = w > 0.0;
        double by = turning ? w : 1.0;
        double per = -limit / by;
        double q0 = per * r0, q1 = per * r1, q2 = per * r2;
        double a0 = turning ? q0 : 0.0, a1 = turning ? q1 : 0.0, a2 = turning ? q2 : 0.0;
        m0[q] = a0;
        m1[q] = a1;
        m2[q] = a2;
        power[q] = -(a0 * r0 + a1 * r1 + a2 * r2);
    }
}

const rolling_law rolling_constant = {
    .name = "constant",
    .summary = "M = -mu_r R* F_n w_r / |w_r| (Ai et al.'s model A)",
    .source = "Ai J., Chen J.-F., Rotter J.M., Ooi J.Y. (2011), Assessment of rolling "
              "resistance models in discrete element simulations, Powder Technol. 206(3), "
              "269-282",
    .setup = constant_setup,
    .batch = constant_batch,
};
