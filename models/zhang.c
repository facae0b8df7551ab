/* An arbitrary damping exponent (Zhang et al. 2021, Mech. Syst. Signal Process. 159, 107808;
 * docs/laws.md),
 *
 *   F = K d^n + lambda d^m d',
 *   lambda = 3 m* (m+1) (1-e) v0 / (4 alpha) * (e m* (n+1) v0^2 / (2K))^(-(m+1)/(n+1))
 *                                                                          (their eq. 53)
 *
 * with K = K_hz = 4/3 E* sqrt(R*) and n = 3/2 unless given, and v0 = max(v0, v_floor).
 * lambda depends only on what is fixed at first touch, so it is computed then and kept
 * in the contact's history.
 *
 * alpha(e): for n = 3/2 and the six m the paper tabulates, its fits (eqs. 47-52). For any
 * other (m, n), the paper's own procedure: in dimensionless form the collision is
 * x'' + k* x^n + lambda* x^m x' = 0, x(0) = 0, x'(0) = 1, k* = e(n+1)/2,
 * lambda* = 3(1-e)(m+1)/(4 alpha) (eqs. 42-46), so the restitution depends on (m, n, e,
 * alpha) only; alpha is chosen so that it equals e. That is a calibration of alpha with
 * cohesion removal off (the setting the fits were made with), done by models/calibrate.c
 * on any reference collision and cached per (m, n, e).
 *
 * The law is the elastic part `hertz` (K d^n) with the damping part `zhang`
 * (models/normal_parts.h: power_spring, zhang_dashpot); alpha is its damping coefficient. */
#include <math.h>
#include <stdio.h>

#include "calibrate.h"
#include "law.h"
#include "law_params.h"
#include "normal_parts.h"
#include "zhang.h"

enum { P_RESTITUTION, P_M, P_N, P_STIFFNESS, P_VFLOOR, P_FIT };

static const law_param zhang_params[] = {
    PARAM_RESTITUTION(NAN),
    {"m", 1.5, "-", "damping exponent m in lambda d^m d'", NULL, 0.0, 10.0},
    {"n", 1.5, "-", "elastic exponent n in K d^n", NULL, 1e-3, 10.0},
    {"stiffness", 0.0, "N/m^n", "K in K d^n; 0: Hertz K_hz = 4/3 E* sqrt(R*) of each contact",
     NULL, 0.0, HUGE_VAL},
    PARAM_DASHPOT_VELOCITY_FLOOR,
    PARAM_FIT,
};
static const char *const zhang_history[] = {"lambda"};

double zhang_alpha_fit(double m, double e)
{
    if (m == 2.0) return 1.363 * e * e * e - 2.136 * e * e + 0.8356 * e + 0.9404;
    if (m == 1.5) return 0.6181 * exp(-3.52 * e) + 0.899 * exp(0.09025 * e);
    if (m == 1.0) return 1.514 * exp(-14.14 * e) + 1.289 * exp(-0.2474 * e);
    if (m == 0.65) return 2.5891 * exp(-20.41 * e) + 1.417 * exp(-0.3188 * e);
    if (m == 0.5) return 2.9191 * exp(-22.63 * e) + 1.468 * exp(-0.3505 * e);
    if (m == 0.25) return 2.911 * exp(-23.87 * e) + 1.517 * exp(-0.356 * e);
    return NAN;
}

static double stiffness_of(const law_coeffs *c, double r_eff)
{
    double k = c->c[NORMAL_STIFFNESS];
    return k > 0.0 ? k : hertz_stiffness(c->young_eff, r_eff);
}

static void zhang_force(const law_coeffs *c, const law_batch *b)
{
    NORMAL_BATCH(power_spring, zhang_dashpot, c, b, 1, 1);
}

static double zhang_contact_time(const law_coeffs *c, double r_eff, double m_eff, double v0)
{
    return power_law_contact_time(stiffness_of(c, r_eff), c->c[NORMAL_EXPONENT], m_eff, v0);
}

extern const dem_law law_zhang;

static int zhang_setup(const double *p, const law_pair_props *pair, law_coeffs *out,
                       law_error *err)
{
    double e = p[P_RESTITUTION], m = p[P_M], n = p[P_N];
    if (!(e > 0.0 && e <= 1.0) || !(m >= 0.0) || !(n > 0.0) || !(p[P_STIFFNESS] >= 0.0))
        return law_fail(err, -1, "restitution = %g, m = %g, n = %g, stiffness = %g: give e in "
                        "(0, 1], m >= 0, n > 0, stiffness >= 0", e, m, n, p[P_STIFFNESS]);
    out->c[ZHANG_M] = m;
    out->c[NORMAL_EXPONENT] = n;
    out->c[ZHANG_E] = e;
    out->c[NORMAL_STIFFNESS] = p[P_STIFFNESS];
    out->c[NORMAL_V_FLOOR] = p[P_VFLOOR] > 0.0 ? p[P_VFLOOR] : LAW_VELOCITY_FLOOR;
    double fit = n == 1.5 ? zhang_alpha_fit(m, e) : NAN;
    if (!isnan(fit) || e == 1.0) { /* at e = 1 lambda is 0 whatever alpha */
        out->c[NORMAL_DAMPING_COEFF] = isnan(fit) ? 1.0 : fit;
        return 0;
    }
    /* the paper's procedure, on a reference collision: the result does not depend on it */
    law_coeffs trial = *out;
    trial.c[NORMAL_DAMPING_COEFF] = zhang_alpha_fit(1.5, e); /* a starting guess of the right size */
    trial.cohesion_removal = 0;
    law_reference ref = {.r_eff = 1e-3, .m_eff = 1e-3, .v0 = 1.0};
    if (trial.young_eff <= 0.0 && trial.c[NORMAL_STIFFNESS] <= 0.0) trial.young_eff = 1e9;
    char msg[200];
    if (law_calibrate(&law_zhang, &trial, &ref, e, msg, sizeof msg) != 0)
        return law_fail(err, -1, "cannot find alpha for m = %g, n = %g, e = %g: %s", m, n, e, msg);
    out->c[NORMAL_DAMPING_COEFF] = trial.c[NORMAL_DAMPING_COEFF];
    return 0;
}

/* The spring K d^n stores K d^(n+1) / (n+1). */
static double zhang_elastic_energy(const law_coeffs *c, double d, double r_eff,
                                   const double *history)
{
    double n = c->c[NORMAL_EXPONENT];
    return stiffness_of(c, r_eff) * pow(d, n + 1.0) / (n + 1.0);
}

static const law_calibration alpha_calibration = {"alpha", NORMAL_DAMPING_COEFF, P_RESTITUTION,
                                                  -1, P_FIT, -1, 1};

const dem_law law_zhang = {
    .name = "zhang",
    .summary = "F = K d^n + lambda d^m d', lambda = 3 m* (m+1)(1-e) v0/(4 alpha) "
               "(e m* (n+1) v0^2/(2K))^(-(m+1)/(n+1)); alpha fitted (n = 3/2, m in {2, 1.5, 1, "
               "0.65, 0.5, 0.25}) or solved so that e is restituted",
    .source = "J. Zhang, C. Huang, L. Zhao, J. Di, G. He, W. Li (2021), Continuous contact force "
              "model with an arbitrary damping term exponent: Model and discussion, Mech. Syst. "
              "Signal Process. 159, 107808, doi:10.1016/j.ymssp.2021.107808, eqs. 42-54",
    .params = zhang_params,
    .n_params = sizeof zhang_params / sizeof zhang_params[0],
    .n_state = 1,
    .state_names = zhang_history,
    .elastic = "hertz",
    .damping = "zhang",
    .caps = LAW_CAP_CONTACT_TIME | LAW_CAP_CALIBRATES | LAW_CAP_LINEAR_IN_RATE | LAW_CAP_ENERGY |
            LAW_CAP_IMPACT_VELOCITY,
    .setup = zhang_setup,
    .force = zhang_force,
    .contact_time = zhang_contact_time,
    .calibration = &alpha_calibration,
    .elastic_energy = zhang_elastic_energy,
};
