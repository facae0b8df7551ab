/* The linear visco-elastic law, F = K d + eta d' (docs/laws.md, docs/physics.md).
 *
 * K is given, or follows from the impact velocity by one of three formulas (with
 * beta = pi / ln e):
 *   energy:  K = 1.053 (v0 R* E*^2 sqrt(m*))^(2/5)        stores Hertz's elastic energy
 *   overlap: K = energy K x exp(-atan(beta)/beta)^2         reaches Hertz's largest overlap
 *   time:    K = 1.198 (v0 R* E*^2 sqrt(m*))^(2/5) (1 + beta^-2)  lasts Hertz's contact time
 * and eta is given, or eta = sqrt(4 m* K / (1 + beta^2)), which restitutes exactly e in a
 * binary collision (cohesion removal off). K and eta depend on v0, R* and m*, so they are
 * computed at first touch and kept in the contact's history. */
#include <math.h>
#include <stdio.h>

#include "law.h"
#include "law_params.h"

enum { P_RESTITUTION, P_STIFFNESS, P_FORMULA, P_DAMPING, P_VFLOOR };
enum { FORMULA_ENERGY, FORMULA_OVERLAP, FORMULA_TIME };
enum { C_INV_BETA, C_STIFFNESS, C_FORMULA, C_DAMPING, C_VFLOOR, C_FORMULA_FACTOR,
       C_DAMPING_SCALE };

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
                        char *err, size_t err_len)
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
    if (p[P_DAMPING] < 0.0 && p[P_DAMPING] != -1.0) {
        snprintf(err, err_len, "damping = %g: give a value >= 0, or -1 for 'from restitution'",
                 p[P_DAMPING]);
        return -1;
    }
    out->c[C_INV_BETA] = ib;
    out->c[C_STIFFNESS] = p[P_STIFFNESS];
    out->c[C_FORMULA] = p[P_FORMULA];
    out->c[C_DAMPING] = p[P_DAMPING];
    out->c[C_VFLOOR] = p[P_VFLOOR] > 0.0 ? p[P_VFLOOR] : LAW_VELOCITY_FLOOR;
    out->c[C_FORMULA_FACTOR] = factor;
    out->c[C_DAMPING_SCALE] = 1.0; /* what calibration solves for */
    return 0;
}

static double linear_stiffness(const law_coeffs *c, double r_eff, double m_eff, double v0)
{
    if (c->c[C_STIFFNESS] > 0.0) return c->c[C_STIFFNESS];
    double v = fmax(v0, c->c[C_VFLOOR]);
    double e = c->young_eff;
    return c->c[C_FORMULA_FACTOR] * pow(v * r_eff * e * e * sqrt(m_eff), 0.4);
}

static double linear_damping(const law_coeffs *c, double k, double m_eff)
{
    if (c->c[C_DAMPING] >= 0.0) return c->c[C_DAMPING_SCALE] * c->c[C_DAMPING];
    double ib2 = c->c[C_INV_BETA] * c->c[C_INV_BETA];
    /* = sqrt(4 m K / (1 + beta^2)) */
    return c->c[C_DAMPING_SCALE] * sqrt(4.0 * m_eff * k * ib2 / (1.0 + ib2));
}

static void linear_force(const law_coeffs *c, const law_batch *b)
{
    double *hk = b->history[0], *heta = b->history[1];
    for (size_t i = 0; i < b->n; i++) {
        if (hk[i] == 0.0) { /* first touch */
            hk[i] = linear_stiffness(c, b->r_eff[i], b->m_eff[i], b->impact_velocity[i]);
            heta[i] = linear_damping(c, hk[i], b->m_eff[i]);
        }
        b->force[i] = hk[i] * b->overlap[i] + heta[i] * b->overlap_rate[i];
    }
}

static double linear_contact_time(const law_coeffs *c, double r_eff, double m_eff, double v0)
{
    double k = linear_stiffness(c, r_eff, m_eff, v0);
    double eta = linear_damping(c, k, m_eff);
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
static const law_calibration linear_calibration = {"eta_scale", C_DAMPING_SCALE, NULL, 0};

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
    .n_history = 2,
    .history_names = linear_history,
    .setup = linear_setup,
    .force = linear_force,
    .contact_time = linear_contact_time,
    .calibration = &linear_calibration,
    .elastic_energy = linear_elastic_energy,
    .uses_impact_velocity = 1, /* the energy, overlap and time stiffness formulas */
};
