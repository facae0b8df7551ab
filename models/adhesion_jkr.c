/* Adhesion law `jkr`: Johnson, Kendall & Roberts' elastic adhesive contact of spheres
 * (models/adhesion_parts.h has the formulas). It replaces Hertz's force-overlap curve by
 * its own, so it adds F_JKR(d) - K_hz d+^(3/2) to the normal law's force and needs a
 * normal law whose elastic part is Hertz's spring as it stands: K_hz d^(3/2) with
 * K_hz = 4/3 E* sqrt(R*), whatever its dashpot. Its contact lasts past touching, to the
 * reach d_c = -3 a_c^2 / R* where it breaks under displacement control. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "adhesion_law.h"
#include "adhesion_parts.h"
#include "normal_parts.h"

static const law_param jkr_params[] = {
    {"work", NAN, "J/m^2", "work of adhesion w (2 gamma for like surfaces of energy gamma)",
     NULL, 0.0, ADHESION_MAX_WORK},
};

/* Why `normal` (set up as `c`, or NULL when not yet) is not plain Hertz, or NULL. A law
 * of the elastic part `hertz` may take a stiffness K or an exponent n of its own
 * (normal_parts.h: power_spring): plain when K is 0 and n is 3/2 (or 0: the laws of
 * hertz_spring, which has no exponent, leave its slot unset). */
static const char *not_plain_hertz(const dem_law *normal, const law_coeffs *c, char *why,
                                   size_t len)
{
    if (!normal->elastic)
        snprintf(why, len, "law %s is of one piece, without Hertz's spring", normal->name);
    else if (strcmp(normal->elastic, "hertz") != 0)
        snprintf(why, len, "law %s's elastic part is %s", normal->name, normal->elastic);
    else if (c && c->c[NORMAL_STIFFNESS] != 0.0)
        snprintf(why, len, "law %s has a stiffness of its own, %g", normal->name,
                 c->c[NORMAL_STIFFNESS]);
    else if (c && c->c[NORMAL_EXPONENT] != 1.5 && c->c[NORMAL_EXPONENT] != 0.0)
        snprintf(why, len, "law %s has the exponent %g", normal->name, c->c[NORMAL_EXPONENT]);
    else
        return NULL;
    return why;
}

static int jkr_setup(const double *params, const law_pair_props *pair, const dem_law *normal,
                     const law_coeffs *normal_coeffs, adhesion_coeffs *ac, law_error *err)
{
    const double w = params[0];
    if (!(w > 0.0 && w <= ADHESION_MAX_WORK))
        return law_fail(err, 0, "must be in (0, %g] J/m^2", ADHESION_MAX_WORK);
    ac->a[JKR_WORK] = w;
    ac->a[JKR_PI_W] = M_PI * w;
    ac->a[JKR_AC3] = NAN;
    if (!normal) return 0; /* a mixing rule's check: no normal law, no moduli yet */
    char why[160];
    if (not_plain_hertz(normal, normal_coeffs, why, sizeof why))
        return law_fail(err, -1,
                        "jkr replaces Hertz's force-overlap curve, so it needs a normal law "
                        "whose elastic part is Hertz's K_hz d^(3/2) as it stands: %s",
                        why);
    const double e = pair->young_eff;
    if (isnan(e)) return 0; /* adhesion_check_params: the moduli not known yet */
    if (!(e > 0.0 && isfinite(e)))
        return law_fail(err, -1, "jkr needs the pair's E* above 0 (E* = %g)", e);
    /* a_c^3 / R*^2 within 1e+-100 m keeps the curve's scales (a_c, l = a_c^2 / R*, d / l)
     * finite for any radius from 1e-30 to 1e30 m (adhesion_parts.h: jkr_root) */
    const double ac3 = M_PI * w / (8.0 * e);
    if (!(ac3 >= 1e-100 && ac3 <= 1e100))
        return law_fail(err, 0, "against E* = %g Pa gives pi w / (8 E*) = %g m, outside "
                        "[1e-100, 1e100] m, where JKR's scales cannot be represented", e, ac3);
    ac->a[JKR_AC3] = ac3;
    return 0;
}

static void jkr_batch(const adhesion_coeffs *ac, const adhesion_batch *b)
{
    const jkr_adhesion j = jkr_adhesion_of(ac);
    const double *restrict d = b->overlap, *restrict r_eff = b->r_eff;
    double *restrict force = b->force;
    for (size_t q = 0; q < b->n; q++) force[q] = jkr_force(&j, d[q], r_eff[q]);
}

/* -3 a_c^2 / R*: where dd/da = 0 (docs/physics.md) */
static double jkr_reach(const adhesion_coeffs *ac, double r_eff)
{
    const jkr_adhesion j = jkr_adhesion_of(ac);
    return -3.0 * jkr_length(&j, r_eff);
}

/* 3/2 pi w R*, at a^3 = a_0^3 / 4 */
static double jkr_pull_off(const adhesion_coeffs *ac, double r_eff)
{
    return 1.5 * ac->a[JKR_PI_W] * r_eff;
}

static double jkr_energy_of(const adhesion_coeffs *ac, double d, double r_eff, double r_i,
                            double r_j)
{
    const jkr_adhesion j = jkr_adhesion_of(ac);
    return jkr_energy(&j, d, r_eff);
}

const adhesion_law adhesion_jkr = {
    .name = "jkr",
    .summary = "F = F_JKR(d) - K_hz d+^(3/2) beside a Hertz normal law: d = a^2/R* - "
               "sqrt(2 pi w a/E*), F_JKR = 4 E* a^3/(3 R*) - sqrt(8 pi w E* a^3); breaks at "
               "d = -3 a_c^2/R*, a_c^3 = pi w R*^2/(8 E*); pull-off 3/2 pi w R*",
    .source = "K. L. Johnson, K. Kendall, A. D. Roberts (1971), Surface energy and the contact "
              "of elastic solids, Proc. R. Soc. Lond. A 324(1558), 301-313, "
              "doi:10.1098/rspa.1971.0141",
    .params = jkr_params,
    .n_params = 1,
    .caps = LAW_CAP_ENERGY,
    .setup = jkr_setup,
    .force = jkr_batch,
    .reach = jkr_reach,
    .pull_off = jkr_pull_off,
    .energy = jkr_energy_of,
};
