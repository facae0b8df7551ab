/* Rolling law `spring`: an elastic-plastic spring-dashpot (Ai et al.'s model C). A rolling
 * spring theta (the relative rotation since first touch, turned into the tangent plane
 * every step as the tangential spring is) of stiffness
 *   k_r = 2.25 mu_r^2 R*^2 k_n,  k_n = 2 E* sqrt(R* d) (Hertz's normal stiffness),
 * gives M_k = -k_r theta, capped at mu_r R* F_n (theta reset to match), plus a dashpot
 * -eta_r w_r, eta_r = 2 zeta_r sqrt(I_r k_r) (I_r: the pair's reduced rolling inertia
 * about the contact point), which is switched off while the spring is at its cap. */
#include "friction_law.h"
#include "friction_kernels.h"
#include "rolling_spring.h"
#include "rolling_stiffness.h"

#include <math.h>

_Static_assert(ROLLING_SPRING_ZETA < FRICTION_MAX_COEFFS, "the constants fit friction_coeffs.r");

static const law_param spring_params[] = {
    {"damping", 0.3, "-", "zeta_r: the dashpot as a fraction of critical, 2 sqrt(I_r k_r)", NULL,
     0.0, ROLLING_MAX_DAMPING}};

static int spring_setup(const double *params, const friction_pair *pair, friction_coeffs *fc,
                        law_error *err)
{
    (void)pair;
    fc->r[ROLLING_SPRING_ZETA] = params[0];
    return 0;
}

static double spring_energy(const friction_coeffs *fc, double d, double r_eff,
                            const double theta[3])
{
    return 0.5 * rolling_stiffness(fc, d, r_eff) * friction_dot(theta, theta);
}

/* k_r and the dashpot below the cap, for the step. */
static void spring_stiffness(const friction_coeffs *fc, double d, double r_eff,
                             double inertia_r, double *k, double *c)
{
    *k = rolling_stiffness(fc, d, r_eff);
    *c = 2.0 * fc->r[ROLLING_SPRING_ZETA] * sqrt(inertia_r * *k);
}

const rolling_law rolling_spring = {
    .name = "spring",
    .summary = "elastic-plastic spring-dashpot (Ai et al.'s model C): M = -k_r theta - eta_r w_r, "
               "k_r = 2.25 mu_r^2 R*^2 k_n, capped at mu_r R* F_n",
    .source = "Ai J., Chen J.-F., Rotter J.M., Ooi J.Y. (2011), Assessment of rolling "
              "resistance models in discrete element simulations, Powder Technol. 206(3), "
              "269-282",
    .params = spring_params,
    .n_params = 1,
    .caps = LAW_CAP_USES_TURN | LAW_CAP_STEP_SPRING | LAW_CAP_ENERGY,
    .setup = spring_setup,
    .one = rolling_spring_torque,
    .spring_energy = spring_energy,
    .stiffness = spring_stiffness,
    .stiffness_key = "coefficient",
    .damping_key = "damping",
};
