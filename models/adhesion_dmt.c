/* Adhesion law `dmt`: Derjaguin, Muller & Toporov's adhesion of a Hertzian contact, a
 * constant pull 2 pi w R* while the surfaces touch (models/adhesion_parts.h). It leaves
 * the normal law's elastic part as it is, so it combines with every normal law; its
 * contact ends at touching, where the pull, 2 pi w R*, is its pull-off force. */
#include <math.h>

#include "adhesion_law.h"
#include "adhesion_parts.h"

static const law_param dmt_params[] = {
    {"work", NAN, "J/m^2", "work of adhesion w (2 gamma for like surfaces of energy gamma)",
     NULL, 0.0, ADHESION_MAX_WORK},
};

static int dmt_setup(const double *params, const law_pair_props *pair, const dem_law *normal,
                     const law_coeffs *normal_coeffs, adhesion_coeffs *ac, law_error *err)
{
    const double w = params[0];
    if (!(w > 0.0 && w <= ADHESION_MAX_WORK))
        return law_fail(err, 0, "must be in (0, %g] J/m^2", ADHESION_MAX_WORK);
    ac->a[DMT_WORK] = w;
    ac->a[DMT_PULL] = 2.0 * M_PI * w;
    return 0;
}

static void dmt_batch(const adhesion_coeffs *ac, const adhesion_batch *b)
{
    const dmt_adhesion p = dmt_adhesion_of(ac);
    const double *restrict d = b->overlap, *restrict r_eff = b->r_eff;
    double *restrict force = b->force;
    for (size_t q = 0; q < b->n; q++) force[q] = dmt_force(&p, d[q], r_eff[q]);
}

static double dmt_reach(const adhesion_coeffs *ac, double r_eff) { return 0.0; }

static double dmt_pull_off(const adhesion_coeffs *ac, double r_eff)
{
    return ac->a[DMT_PULL] * r_eff;
}

static double dmt_energy_of(const adhesion_coeffs *ac, double d, double r_eff, double r_i,
                            double r_j)
{
    const dmt_adhesion p = dmt_adhesion_of(ac);
    return dmt_energy(&p, d, r_eff);
}

const adhesion_law adhesion_dmt = {
    .name = "dmt",
    .summary = "F = -2 pi w R* while d > 0 (Hertz's contact with a constant pull); pull-off "
               "2 pi w R*",
    .source = "B. V. Derjaguin, V. M. Muller, Yu. P. Toporov (1975), Effect of contact "
              "deformations on the adhesion of particles, J. Colloid Interface Sci. 53(2), "
              "314-326, doi:10.1016/0021-9797(75)90018-1",
    .params = dmt_params,
    .n_params = 1,
    .caps = LAW_CAP_ENERGY,
    .setup = dmt_setup,
    .force = dmt_batch,
    .reach = dmt_reach,
    .pull_off = dmt_pull_off,
    .energy = dmt_energy_of,
};
