/* Adhesion law `capillary`: a pendular liquid bridge between the surfaces
 * (models/adhesion_parts.h has the formulas). The bridge forms when the surfaces touch
 * and lasts past touching until the gap reaches Lian et al.'s rupture distance S_c; its
 * pull is Willett et al.'s closed form, and an optional lubrication force (Reynolds') of
 * the liquid's viscosity resists the normal motion while the bridge lasts. Every touching
 * pair gets a bridge of the given volume: the liquid is neither conserved nor carried
 * from one contact to the next. It leaves the normal law's elastic part as it is, so it
 * combines with every normal law. */
#include <math.h>

#include "adhesion_law.h"
#include "adhesion_parts.h"

enum { P_VOLUME, P_ANGLE, P_TENSION, P_VISCOSITY, P_ROUGHNESS };

static const law_param capillary_params[] = {
    {"volume", NAN, "m^3", "liquid volume V of each bridge", NULL, 0.0, ADHESION_MAX_VOLUME},
    {"contact_angle", 0.0, "deg", "contact angle theta of the liquid on the solid, in degrees "
     "(0: perfectly wetting)", NULL, 0.0, 90.0},
    {"surface_tension", NAN, "N/m", "surface tension gamma of the liquid", NULL, 0.0,
     ADHESION_MAX_WORK},
    {"viscosity", 0.0, "Pa s", "dynamic viscosity eta of the liquid for the lubrication "
     "force 6 pi eta R*^2 d' / max(S, roughness) (0: none)", NULL, 0.0, ADHESION_MAX_VISCOSITY},
    {"roughness", 0.0, "m", "the surfaces' roughness: the smallest lubrication gap, needed "
     "above 0 with a viscosity", NULL, 0.0, ADHESION_MAX_ROUGHNESS},
};

static int capillary_setup(const double *params, const law_pair_props *pair,
                           const dem_law *normal, const law_coeffs *normal_coeffs,
                           adhesion_coeffs *ac, law_error *err)
{
    const double v = params[P_VOLUME], deg = params[P_ANGLE], gamma = params[P_TENSION];
    const double eta = params[P_VISCOSITY], rho = params[P_ROUGHNESS];
    if (!(v > 0.0 && v <= ADHESION_MAX_VOLUME))
        return law_fail(err, P_VOLUME, "must be in (0, %g] m^3", ADHESION_MAX_VOLUME);
    if (!(deg >= 0.0 && deg <= 90.0))
        return law_fail(err, P_ANGLE, "must be in [0, 90] degrees (a liquid that wets the "
                        "solid; above 90 a bridge pushes)");
    if (!(gamma > 0.0 && gamma <= ADHESION_MAX_WORK))
        return law_fail(err, P_TENSION, "must be in (0, %g] N/m", ADHESION_MAX_WORK);
    if (!(eta >= 0.0 && eta <= ADHESION_MAX_VISCOSITY))
        return law_fail(err, P_VISCOSITY, "must be in [0, %g] Pa s", ADHESION_MAX_VISCOSITY);
    if (!(rho >= 0.0 && rho <= ADHESION_MAX_ROUGHNESS))
        return law_fail(err, P_ROUGHNESS, "must be in [0, %g] m", ADHESION_MAX_ROUGHNESS);
    if (eta > 0.0 && !(rho > 0.0))
        return law_fail(err, P_ROUGHNESS, "must be above 0 with a viscosity: the lubrication "
                        "force 6 pi eta R*^2 d' / S grows without bound as the gap S closes, "
                        "and the roughness is the smallest gap it takes");
    const double theta = deg * (M_PI / 180.0);
    ac->a[CAP_VOLUME] = v;
    ac->a[CAP_THETA] = theta;
    ac->a[CAP_PULL] = 4.0 * M_PI * gamma * cos(theta);
    ac->a[CAP_RUPTURE] = (1.0 + 0.5 * theta) * cbrt(v);
    ac->a[CAP_HALF_INV_V] = 0.5 / v;
    ac->a[CAP_VISCOUS] = 6.0 * M_PI * eta;
    ac->a[CAP_MIN_GAP] = rho;
    return 0;
}

static void capillary_batch(const adhesion_coeffs *ac, const adhesion_batch *b)
{
    const capillary_adhesion c = capillary_adhesion_of(ac);
    const double *restrict d = b->overlap, *restrict rate = b->overlap_rate;
    const double *restrict r_eff = b->r_eff;
    double *restrict force = b->force;
    for (size_t q = 0; q < b->n; q++) force[q] = capillary_force(&c, d[q], rate[q], r_eff[q]);
}

/* -S_c, Lian et al.'s rupture distance: the same for every R* */
static double capillary_reach(const adhesion_coeffs *ac, double r_eff)
{
    return -ac->a[CAP_RUPTURE];
}

/* F_0 = 4 pi gamma cos(theta) R*, the pull at contact: the force falls with the gap */
static double capillary_pull_off(const adhesion_coeffs *ac, double r_eff)
{
    return ac->a[CAP_PULL] * r_eff;
}

/* The lubrication at its smallest gap, the roughness: 6 pi eta R*^2 / roughness (0
 * without a viscosity). */
static double capillary_dashpot(const adhesion_coeffs *ac, double r_eff)
{
    return ac->a[CAP_VISCOUS] > 0.0 ? ac->a[CAP_VISCOUS] * r_eff * r_eff / ac->a[CAP_MIN_GAP]
                                    : 0.0;
}

static double capillary_energy_of(const adhesion_coeffs *ac, double d, double r_eff,
                                  double r_i, double r_j)
{
    const capillary_adhesion c = capillary_adhesion_of(ac);
    return capillary_energy(&c, d, r_eff);
}

const adhesion_law adhesion_capillary = {
    .name = "capillary",
    .summary = "liquid bridge: F = -4 pi gamma cos(theta) R* / (1 + 2.1 S+ + 10 S+^2), "
               "S+ = (S/2) sqrt(2 R*/V), S = max(-d, 0) the gap, + 6 pi eta R*^2 d' / "
               "max(S, roughness); forms at touching, ruptures at S = (1 + theta/2) V^(1/3); "
               "pull-off 4 pi gamma cos(theta) R*",
    .source = "C. D. Willett, M. J. Adams, S. A. Johnson, J. P. K. Seville (2000), Capillary "
              "bridges between two spherical bodies, Langmuir 16(24), 9396-9405, "
              "doi:10.1021/la000657y\n"
              "G. Lian, C. Thornton, M. J. Adams (1993), A theoretical study of the liquid "
              "bridge forces between two rigid spherical bodies, J. Colloid Interface Sci. "
              "161(1), 138-147, doi:10.1006/jcis.1993.1452",
    .params = capillary_params,
    .n_params = 5,
    .caps = LAW_CAP_ENERGY | LAW_CAP_STEP_SPRING,
    .setup = capillary_setup,
    .force = capillary_batch,
    .reach = capillary_reach,
    .pull_off = capillary_pull_off,
    .energy = capillary_energy_of,
    .dashpot = capillary_dashpot,
    .damping_key = "roughness",
};
