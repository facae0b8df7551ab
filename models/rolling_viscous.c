/* Rolling law `viscous`: a damper against the relative rolling velocity w_r (w_i - w_j
 * without its twist part along n), capped at the plastic limit, with no spring:
 *   M = -eta_r w_r,  eta_r = 2 zeta_r sqrt(I_r k_r),  |M| <= mu_r R* F_n
 * with the rolling stiffness k_r = 2.25 mu_r^2 R*^2 k_n of the `spring` model, so that
 * zeta_r means what it means there (a fraction of critical damping), and I_r the pair's
 * reduced rolling inertia about the contact point. It is the spring model's dashpot
 * alone: it resists rolling in proportion to its speed, holds no torque at rest (a
 * sphere on a slope creeps instead of stopping), and stores no energy. A sphere spinning
 * on a frictionless wall slows as exp(-eta_r t / I). */
#include "friction_law.h"
#include "friction_kernels.h"
#include "rolling_stiffness.h"
#include "rolling_viscous.h"

#include <math.h>

_Static_assert(ROLLING_VISCOUS_ZETA < FRICTION_MAX_COEFFS, "the constants fit friction_coeffs.r");

static const law_param viscous_params[] = {
    {"damping", NAN, "-", "zeta_r: the damper as a fraction of critical, 2 sqrt(I_r k_r)", NULL,
     0.0, ROLLING_MAX_DAMPING}};

static int viscous_setup(const double *params, const friction_pair *pair, friction_coeffs *fc,
                         law_error *err)
{
    (void)pair;
    fc->r[ROLLING_VISCOUS_ZETA] = params[0];
    return 0;
}

/* No spring; the damper eta_r, for the step. */
static void viscous_stiffness(const friction_coeffs *fc, double d, double r_eff,
                              double inertia_r, double *k, double *c)
{
    *k = 0.0;
    *c = 2.0 * fc->r[ROLLING_VISCOUS_ZETA] * sqrt(inertia_r * rolling_stiffness(fc, d, r_eff));
}

const rolling_law rolling_viscous = {
    .name = "viscous",
    .summary = "M = -eta_r w_r, eta_r = 2 zeta_r sqrt(I_r k_r), capped at mu_r R* F_n: the "
               "spring model's dashpot without its spring",
    .source = "Ai J., Chen J.-F., Rotter J.M., Ooi J.Y. (2011), Assessment of rolling "
              "resistance models in discrete element simulations, Powder Technol. 206(3), "
              "269-282",
    .params = viscous_params,
    .n_params = 1,
    .caps = LAW_CAP_USES_TURN | LAW_CAP_STEP_SPRING,
    .setup = viscous_setup,
    .one = rolling_viscous_torque,
    .stiffness = viscous_stiffness,
    .damping_key = "damping",
};
