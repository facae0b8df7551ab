/* Adhesion laws `sjkr` and `sjkr2`: LIGGGHTS' simplified JKR cohesion (`cohesion_model
 * sjkr` and `sjkr2`), a cohesion energy density k_c times an area, as a pull while the
 * surfaces touch (models/adhesion_parts.h):
 *   sjkr   F = -k_c pi a^2, a the radius of the circle where the two surfaces cross
 *          (against a wall, a sphere of infinite radius: a^2 = d (2r - d)), as LIGGGHTS'
 *          sjkr (its sphere-sphere area from the centres' distance, its wall area
 *          pi (r^2 - (r - d)^2), which is the same limit);
 *   sjkr2  F = -k_c 2 pi R* d, as LIGGGHTS' sjkr2 (2 pi r d against a wall), the first
 *          order in d of sjkr's.
 * Neither changes the elastic part, so they combine with every normal law. Their pull
 * grows with the overlap, so the largest pull of a quasi-static contact depends on the
 * load it was pressed with: they have no pull-off force of their own (pull_off NAN). */
#include <math.h>

#include "adhesion_law.h"
#include "adhesion_parts.h"

static const law_param sjkr_params[] = {
    {"energy_density", NAN, "J/m^3",
     "cohesion energy density k_c (LIGGGHTS' cohesionEnergyDensity): the pull per unit area",
     NULL, 0.0, ADHESION_MAX_ENERGY_DENSITY},
};

static int sjkr_setup(const double *params, const law_pair_props *pair, const dem_law *normal,
                      const law_coeffs *normal_coeffs, adhesion_coeffs *ac, law_error *err)
{
    const double k = params[0];
    if (!(k > 0.0 && k <= ADHESION_MAX_ENERGY_DENSITY))
        return law_fail(err, 0, "must be in (0, %g] J/m^3", ADHESION_MAX_ENERGY_DENSITY);
    ac->a[SJKR_ENERGY_DENSITY] = k;
    ac->a[SJKR_PI_K] = M_PI * k;
    return 0;
}

static void sjkr_batch(const adhesion_coeffs *ac, const adhesion_batch *b)
{
    const sjkr_adhesion p = sjkr_adhesion_of(ac);
    const double *restrict d = b->overlap, *restrict r_i = b->r_i, *restrict r_j = b->r_j;
    double *restrict force = b->force;
    for (size_t q = 0; q < b->n; q++) force[q] = sjkr_force(&p, d[q], r_i[q], r_j[q]);
}

static void sjkr2_batch(const adhesion_coeffs *ac, const adhesion_batch *b)
{
    const sjkr_adhesion p = sjkr_adhesion_of(ac);
    const double *restrict d = b->overlap, *restrict r_eff = b->r_eff;
    double *restrict force = b->force;
    for (size_t q = 0; q < b->n; q++) force[q] = sjkr2_force(&p, d[q], r_eff[q]);
}

static double sjkr_reach(const adhesion_coeffs *ac, double r_eff) { return 0.0; }

/* no pull-off force of its own: the pull grows with the overlap (above) */
static double sjkr_pull_off(const adhesion_coeffs *ac, double r_eff) { return NAN; }

static double sjkr_energy_of(const adhesion_coeffs *ac, double d, double r_eff, double r_i,
                             double r_j)
{
    const sjkr_adhesion p = sjkr_adhesion_of(ac);
    return sjkr_energy(&p, d, r_i, r_j);
}

static double sjkr2_energy_of(const adhesion_coeffs *ac, double d, double r_eff, double r_i,
                              double r_j)
{
    const sjkr_adhesion p = sjkr_adhesion_of(ac);
    return sjkr2_energy(&p, d, r_eff);
}

#define LIGGGHTS_SOURCE                                                                 \
    "C. Kloss, C. Goniva, A. Hager, S. Amberger, S. Pirker (2012), Models, algorithms and " \
    "validation for opensource DEM and CFD-DEM, Prog. Comput. Fluid Dyn. 12(2/3), 140-152, " \
    "doi:10.1504/PCFD.2012.047457 (LIGGGHTS; cohesion_model_sjkr.h, cohesion_model_sjkr2.h)"

const adhesion_law adhesion_sjkr = {
    .name = "sjkr",
    .summary = "F = -k_c pi a^2 while d > 0, a the radius of the circle where the surfaces "
               "cross (LIGGGHTS' cohesion sjkr)",
    .source = LIGGGHTS_SOURCE,
    .params = sjkr_params,
    .n_params = 1,
    .caps = LAW_CAP_ENERGY,
    .setup = sjkr_setup,
    .force = sjkr_batch,
    .reach = sjkr_reach,
    .pull_off = sjkr_pull_off,
    .energy = sjkr_energy_of,
};

const adhesion_law adhesion_sjkr2 = {
    .name = "sjkr2",
    .summary = "F = -k_c 2 pi R* d while d > 0 (LIGGGHTS' cohesion sjkr2)",
    .source = LIGGGHTS_SOURCE,
    .params = sjkr_params,
    .n_params = 1,
    .caps = LAW_CAP_ENERGY,
    .setup = sjkr_setup,
    .force = sjkr2_batch,
    .reach = sjkr_reach,
    .pull_off = sjkr_pull_off,
    .energy = sjkr2_energy_of,
};
