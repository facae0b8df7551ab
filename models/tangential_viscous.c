/* Tangential law `viscous`: a dashpot against the sliding velocity, capped by Coulomb,
 * with no spring (Haff & Werner's tangential force; LAMMPS's gran/hooke without shear
 * history is the same law):
 *   F = gamma_t m* v_t,  capped at mu F_n  (|F| > mu F_n: F = mu F_n v_t / |v_t|)
 * v_t is the tangential velocity of j's contact point relative to i's (predicted, as every
 * dashpot takes it). Without a spring a contact cannot stick: a particle on a slope
 * creeps at the speed where gamma_t m* v_t balances the pull, and a pair's tangential
 * motion relaxes at the rate gamma_t m* (1/m_i + 1/m_j + R_i^2/I_i + R_j^2/I_j) (3.5
 * gamma_t for a sphere sliding on a wall). Nothing is stored, and the force has no
 * energy to give back: all its work is dissipated. */
#include "friction_law.h"
#include "tangential_viscous.h"

#include <math.h>

/* fc->t */
enum { VISCOUS_GAMMA };
_Static_assert(VISCOUS_GAMMA < FRICTION_MAX_COEFFS, "the constants fit friction_coeffs.t");

static const law_param viscous_params[] = {
    {"damping", NAN, "1/s", "gamma_t: the force is gamma_t m* v_t below the Coulomb cap", NULL,
     0.0, FRICTION_MAX_DAMPING_RATE}};

static int viscous_setup(const double *params, const friction_pair *pair, friction_coeffs *fc,
                         law_error *err)
{
    (void)pair;
    fc->t[VISCOUS_GAMMA] = params[0];
    return 0;
}

static void viscous_batch(const friction_coeffs *fc, const friction_batch *b)
{
    const double gamma = fc->t[VISCOUS_GAMMA], mu = fc->mu;
    for (size_t q = 0; q < b->n; q++) {
        double n[3] = {b->normal[0][q], b->normal[1][q], b->normal[2][q]};
        double u[3] = {b->v_rel[0][q], b->v_rel[1][q], b->v_rel[2][q]}, f[3];
        b->power[0][q] = tangential_viscous_force(gamma, mu, n, u, b->m_eff[q], b->f_normal[q], f);
        for (int a = 0; a < 3; a++) b->f_t[a][q] = f[a];
    }
}

/* No spring; the dashpot gamma_t m*, for the step. */
static void viscous_stiffness(const friction_coeffs *fc, double d, double r_eff, double m_eff,
                              double *k, double *c)
{
    (void)d, (void)r_eff;
    *k = 0.0;
    *c = fc->t[VISCOUS_GAMMA] * m_eff;
}

const tangential_law tangential_viscous = {
    .name = "viscous",
    .summary = "F = gamma_t m* v_t capped at mu F_n: a dashpot, no spring (a contact cannot stick)",
    .source = "Haff P.K., Werner B.T. (1986), Computer simulation of the mechanical sorting "
              "of grains, Powder Technol. 48(3), 239-245",
    .params = viscous_params,
    .n_params = 1,
    .caps = LAW_CAP_STEP_SPRING,
    .setup = viscous_setup,
    .batch = viscous_batch,
    .stiffness = viscous_stiffness,
    .damping_key = "damping",
};
