/* The linear visco-elastic law, F = K d + eta d' (docs/laws.md, docs/physics.md).
 *
 * K is given, or follows from the impact velocity by one of three formulas (with
 * beta = pi / ln e):
 *   energy:  K = 1.053 (v0 R* E*^2 sqrt(m*))^(2/5)        stores Hertz's elastic energy
 *   overlap: K = energy K x exp(-atan(beta)/beta)^2         reaches Hertz's largest overlap
 *   time:    K = 1.198 (v0 R* E*^2 sqrt(m*))^(2/5) (1 + beta^-2)  lasts Hertz's contact time
 * and eta is given, or eta = sqrt(4 m* K / (1 + beta^2)), which restitutes exactly e in a
 * binary collision (cohesion removal off). K and eta depend on v0, R* and m*, so they are
 * computed at first touch and kept in the contact's history. The law is the elastic part
 * `linear` with the damping part `linear` (models/normal_parts.h: linear_spring,
 * linear_dashpot). */
#include <math.h>
#include <stdio.h>

#include "law.h"
#include "law_params.h"
#include "normal_parts.h"

enum { P_RESTITUTION, P_STIFFNESS, P_FORMULA, P_DAMPING, P_VFLOOR, P_FIT };
enum { FORMULA_ENERGY, FORMULA_OVERLAP, FORMULA_TIME };

static const char *const formula_names[] = {"energy", "overlap", "time", NULL};

static const law_param linear_params[] = {
    PARAM_RESTITUTION(1.0),
    {"stiffness", 0.0, "N/m", "spring constant K; 0: from stiffness_formula", NULL, 0.0,
     HUGE_VAL},
    {"stiffness_formula", FORMULA_ENERGY, "-",
     "how K follows from the impact when stiffness is 0: energy, overlap or time",
     formula_names, 0, 2},
    {"damping", -1.0, "N s/m", "dashpot eta; -1: from restitution", NULL, -1.0, HUGE_VAL},
    PARAM_VELOCITY_FLOOR,
    PARAM_FIT,
};

static const char *const linear_history[] = {"stiffness", "damping"};

/* 1 / beta = ln(e) / pi, which stays finite (0) for e = 1. */
static double inverse_beta(double e) { return log(e) / M_PI; }

static int linear_setup(const double *p, const law_pair_props *pair, law_coeffs *out,
                        law_error *err)
{
    double ib = inverse_beta(p[P_RESTITUTION]);
    double factor;
    switch ((int)p[P_FORMULA]) {
    case FORMULA_OVERLAP: {
        /* exp(-atan(beta)/beta)^2; atan(beta)/beta -> 0 as e -> 1 */
        double ratio = ib == 0.0 ? 0.0 : atan(1.0 / ib) * ib;
        factor = 1.053 * exp(-2.0 * ratio);
        break;
    }
    case FORMULA_TIME: factor = 1.198 * (1.0 + ib * ib); break;
    default: factor = 1.053; break;
    }
    if (p[P_DAMPING] < 0.0 && p[P_DAMPING] != -1.0)
        return law_fail(err, P_DAMPING,
                        "damping = %g: give a value >= 0, or -1 for 'from restitution'",
                        p[P_DAMPING]);
    out->c[NORMAL_STIFFNESS] = p[P_STIFFNESS];
    out->c[NORMAL_K_FACTOR] = factor;
    out->c[NORMAL_V_FLOOR] = p[P_VFLOOR] > 0.0 ? p[P_VFLOOR] : LAW_VELOCITY_FLOOR;
    out->c[LINEAR_INV_BETA] = ib;
    out->c[LINEAR_DAMPING] = p[P_DAMPING];
    out->c[NORMAL_DAMPING_COEFF] = 1.0; /* eta's scale: what calibration solves for */
    return 0;
}

static void linear_force(const law_coeffs *c, const law_batch *b)
{
    NORMAL_BATCH(linear_spring, linear_dashpot, c, b, 1, 2);
}

static double linear_contact_time(const law_coeffs *c, double r_eff, double m_eff, double v0)
{
    const linear_spring spring = linear_spring_of(c);
    const linear_dashpot dashpot = linear_dashpot_of(c);
    double k = linear_spring_stiffness(&spring, r_eff, m_eff, v0);
    double eta = linear_dashpot_eta(&dashpot, k, m_eff);
    double w0 = sqrt(k / m_eff), zeta = eta / (2.0 * sqrt(k * m_eff));
    if (zeta >= 1.0) return M_PI / w0; /* overdamped: the undamped time still bounds dt */
    return M_PI / (w0 * sqrt(1.0 - zeta * zeta));
}

/* The spring stores K d^2 / 2 (K is fixed at first touch, in history slot 0). */
static double linear_elastic_energy(const law_coeffs *c, double d, double r_eff,
                                    const double *history)
{
    return 0.5 * history[0] * d * d;
}

/* Calibration scales eta (from e, or given) by a factor. */
static const law_calibration linear_calibration = {"eta_scale", NORMAL_DAMPING_COEFF,
                                                   P_RESTITUTION, -1, P_FIT, P_DAMPING, 0};

const dem_law law_linear = {
    .name = "linear",
    .summary = "F = K d + eta d'; K given or from the energy/overlap/time formula, eta given or from e",
    .source = "P. A. Cundall, O. D. L. Strack (1979), A discrete numerical model for granular "
              "assemblies, Geotechnique 29(1), 47-65 (the spring-dashpot)\n"
              "R. L. Rangel, DEMLab: Discrete Element Method Laboratory, release 1.0, "
              "doi:10.5281/zenodo.3234644, class ContactForceN_ViscoElasticLinear (the energy, "
              "overlap and time stiffness formulas, eta from e)",
    .params = linear_params,
    .n_params = sizeof linear_params / sizeof linear_params[0],
    .n_state = 2,
    .state_names = linear_history,
    .elastic = "linear",
    .damping = "linear",
    /* the energy, overlap and time stiffness formulas read v0 */
    .caps = LAW_CAP_CONTACT_TIME | LAW_CAP_CALIBRATES | LAW_CAP_LINEAR_IN_RATE | LAW_CAP_ENERGY |
            LAW_CAP_IMPACT_VELOCITY,
    .setup = linear_setup,
    .force = linear_force,
    .contact_time = linear_contact_time,
    .calibration = &linear_calibration,
    .elastic_energy = linear_elastic_energy,
};
