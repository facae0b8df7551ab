/* Rolling law `constant`: a constant torque against the rolling direction (Ai et al.'s
 * model A). On i, from the relative rolling velocity w_r = w_i - w_j without its twist
 * part along n:
 *   M = -mu_r R* F_n w_r / |w_r|
 * It chatters by tiny amounts once rolling stops, as this model does in every code. */
#include "friction_law.h"
#include "rolling_constant.h"

#include <math.h>

static int constant_setup(const double *params, const friction_pair *pair, friction_coeffs *fc,
                          law_error *err)
{
    (void)params, (void)pair, (void)fc;
    return 0;
}

/* no-trapping-math, as rolling_constant_torque's (rolling_constant.h) */
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
        const double n[3] = {n0[q], n1[q], n2[q]}, w[3] = {w0[q], w1[q], w2[q]};
        double m[3];
        double limit = mu_r * r_eff[q] * f_normal[q];
        power[q] = rolling_constant_torque(limit, n, w, m);
        m0[q] = m[0];
        m1[q] = m[1];
        m2[q] = m[2];
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
