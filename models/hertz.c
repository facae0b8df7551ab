/* Hertz with a viscous dashpot, F = K_hz d^(3/2) + F_v, K_hz = 4/3 E* sqrt(R*) (docs/laws.md;
 * the variants of DEMLab's ContactForceN_ViscoElasticNonlinear, each with its paper).
 *
 *   hertz                 F_v = 0
 *   hertz_critical_ratio  F_v = xi sqrt(8 m* E* sqrt(R*)) d^(1/4) d'
 *   hertz_tti             F_v = eta d^(1/4) d',
 *                         eta = -2.2664 ln(e) sqrt(m* K_hz) / sqrt(ln(e)^2 + 10.1354)
 *   hertz_kk              F_v = eta d^(1/2) d'
 *   hertz_lh              F_v = eta m* d'
 *
 * Each is the elastic part `hertz` with a damping part (models/normal_parts.h): none,
 * critical_ratio, tti, kk, lh. d^(3/2) and d^(1/4) are written with sqrt so that the
 * loops vectorise. */
#include <math.h>
#include <stdio.h>

#include "law.h"
#include "law_params.h"
#include "normal_parts.h"

static const law_param no_params[] = {{0}};

/* hertz_kk, hertz_lh and hertz_critical_ratio take their dashpot as given; restitution
 * is only the target of calibrate: true, which then solves the dashpot instead. */
#define PARAM_CALIBRATION_TARGET                                                      \
    {"restitution", 0.0, "-",                                                         \
     "e that calibrate: true makes a binary collision restitute (only with calibrate)", \
     NULL, 0.0, 1.0}

static const law_param critical_ratio_params[] = {
    {"xi", NAN, "-", "ratio of critical damping (0 elastic, 1 critically damped)", NULL, 0.0,
     HUGE_VAL},
    PARAM_CALIBRATION_TARGET,
};
static const law_param tti_params[] = {PARAM_RESTITUTION(NAN), PARAM_FIT};
static const law_param kk_params[] = {
    {"eta", NAN, "N s/m^(3/2)", "dashpot coefficient eta in eta d^(1/2) d'", NULL, 0.0, HUGE_VAL},
    PARAM_CALIBRATION_TARGET,
};
static const law_param lh_params[] = {
    {"eta", NAN, "1/s", "dashpot coefficient eta in eta m* d'", NULL, 0.0, HUGE_VAL},
    PARAM_CALIBRATION_TARGET,
};

/* hertz_kk, hertz_lh, hertz_critical_ratio: the dashpot coefficient as given */
static int copy_first_param(const double *p, const law_pair_props *pair, law_coeffs *out,
                            law_error *err)
{
    out->c[NORMAL_DAMPING_COEFF] = p ? p[0] : 0.0;
    return 0;
}

/* TTI: keep the e-dependent factor; sqrt(m* K_hz) differs per contact. */
static int tti_setup(const double *p, const law_pair_props *pair, law_coeffs *out,
                     law_error *err)
{
    double ln_e = log(p[0]);
    out->c[NORMAL_DAMPING_COEFF] = -2.2664 * ln_e / sqrt(ln_e * ln_e + 10.1354);
    return 0;
}

/* The Hertz spring with each dashpot (models/normal_parts.h). */
static void hertz_force(const law_coeffs *c, const law_batch *b)
{
    NORMAL_FORM_BATCH(HERTZ, c, b);
}

static void critical_ratio_force(const law_coeffs *c, const law_batch *b)
{
    NORMAL_FORM_BATCH(HERTZ_CRITICAL_RATIO, c, b);
}

static void tti_force(const law_coeffs *c, const law_batch *b)
{
    NORMAL_FORM_BATCH(HERTZ_TTI, c, b);
}

static void kk_force(const law_coeffs *c, const law_batch *b)
{
    NORMAL_FORM_BATCH(HERTZ_KK, c, b);
}

static void lh_force(const law_coeffs *c, const law_batch *b)
{
    NORMAL_FORM_BATCH(HERTZ_LH, c, b);
}

/* Damping shortens a contact only slightly; the undamped Hertz time bounds the step. */
static double hertz_law_contact_time(const law_coeffs *c, double r_eff, double m_eff, double v0)
{
    return hertz_contact_time(c->young_eff, r_eff, m_eff, v0);
}

/* The Hertz spring stores 2/5 K_hz d^(5/2); the dashpots store nothing. */
static double hertz_elastic_energy(const law_coeffs *c, double d, double r_eff,
                                   const double *history)
{
    return 0.4 * hertz_stiffness(c->young_eff, r_eff) * d * d * sqrt(d);
}

/* calibrate solves the dashpot coefficient; restitution (parameter 1, or TTI's 0) is
 * its target, and the given coefficient (parameter 0) what it replaces. */
static const law_calibration xi_calibration = {"xi", NORMAL_DAMPING_COEFF, 1, 0, -1, -1, 0};
static const law_calibration tti_calibration = {"eta/sqrt(m* K_hz)", NORMAL_DAMPING_COEFF, 0,
                                                -1, 1, -1, 0};
static const law_calibration eta_calibration = {"eta", NORMAL_DAMPING_COEFF, 1, 0, -1, -1, 0};

/* Where each law comes from (`dempact laws` prints it; docs/laws.md cites the same): Hertz
 * for the spring, then the dashpot's paper. DEMLab is the code whose class collects these
 * variants; it is the source of the critical-ratio form and of TTI's closed-form eta. */
#define HERTZ_SOURCE                                                                \
    "H. Hertz (1882), Ueber die Beruehrung fester elastischer Koerper, J. Reine Angew. " \
    "Math. 92, 156-171, doi:10.1515/crll.1882.92.156"
#define DEMLAB_SOURCE                                                               \
    "R. L. Rangel, DEMLab: Discrete Element Method Laboratory, release 1.0, "       \
    "doi:10.5281/zenodo.3234644, class ContactForceN_ViscoElasticNonlinear"
#define SOURCE_law_hertz HERTZ_SOURCE
#define SOURCE_law_hertz_critical_ratio HERTZ_SOURCE "\n" DEMLAB_SOURCE " (the dashpot)"
#define SOURCE_law_hertz_tti                                                        \
    HERTZ_SOURCE "\n"                                                               \
    "Y. Tsuji, T. Tanaka, T. Ishida (1992), Lagrangian numerical simulation of plug flow of " \
    "cohesionless particles in a horizontal pipe, Powder Technol. 71(3), 239-250, "  \
    "doi:10.1016/0032-5910(92)88030-L (the dashpot)\n" DEMLAB_SOURCE " (eta from e)"
#define SOURCE_law_hertz_kk                                                         \
    HERTZ_SOURCE "\n"                                                               \
    "G. Kuwabara, K. Kono (1987), Restitution coefficient in a collision between two "  \
    "spheres, Jpn. J. Appl. Phys. 26(8), 1230-1233, doi:10.1143/JJAP.26.1230 (the dashpot)"
#define SOURCE_law_hertz_lh                                                         \
    HERTZ_SOURCE "\n"                                                               \
    "J. Lee, H. J. Herrmann (1993), Angle of repose and angle of marginal stability: "  \
    "molecular dynamics of granular particles, J. Phys. A: Math. Gen. 26(2), 373-383 " \
    "(the dashpot)"

#define HERTZ_LAW(ident, lname, ldamping, lsummary, lparams, nparams, lsetup, lforce, lform, lcal) \
    const dem_law ident = {                                                         \
        .name = lname,                                                              \
        .summary = lsummary,                                                        \
        .source = SOURCE_##ident,                                                   \
        .params = lparams,                                                          \
        .n_params = nparams,                                                        \
        /* hertz alone: no dashpot, nothing dissipated; the others: a dashpot */    \
        .caps = LAW_CAP_CONTACT_TIME | LAW_CAP_LINEAR_IN_RATE | LAW_CAP_ENERGY |     \
                ((lcal) == NULL ? LAW_CAP_CONSERVATIVE : LAW_CAP_CALIBRATES),        \
        .elastic = "hertz",                                                         \
        .damping = ldamping,                                                        \
        .setup = lsetup,                                                            \
        .force = lforce,                                                            \
        .form = lform,                                                              \
        .contact_time = hertz_law_contact_time,                                     \
        .calibration = lcal,                                                        \
        .elastic_energy = hertz_elastic_energy,                                     \
    }

HERTZ_LAW(law_hertz, "hertz", "none", "F = K_hz d^(3/2), K_hz = 4/3 E* sqrt(R*) (elastic)",
          no_params, 0, copy_first_param, hertz_force, NORMAL_FORM_HERTZ, NULL);
HERTZ_LAW(law_hertz_critical_ratio, "hertz_critical_ratio", "critical_ratio",
          "F = K_hz d^(3/2) + xi sqrt(8 m* E* sqrt(R*)) d^(1/4) d'", critical_ratio_params, 2,
          copy_first_param, critical_ratio_force, NORMAL_FORM_HERTZ_CRITICAL_RATIO, &xi_calibration);
HERTZ_LAW(law_hertz_tti, "hertz_tti", "tti",
          "F = K_hz d^(3/2) + eta d^(1/4) d', eta = -2.2664 ln(e) sqrt(m* K_hz)/sqrt(ln(e)^2+10.1354) "
          "(Tsuji-Tanaka-Ishida)",
          tti_params, 2, tti_setup, tti_force, NORMAL_FORM_HERTZ_TTI, &tti_calibration);
HERTZ_LAW(law_hertz_kk, "hertz_kk", "kk", "F = K_hz d^(3/2) + eta d^(1/2) d' (Kuwabara-Kono)",
          kk_params, 2, copy_first_param, kk_force, NORMAL_FORM_HERTZ_KK, &eta_calibration);
HERTZ_LAW(law_hertz_lh, "hertz_lh", "lh", "F = K_hz d^(3/2) + eta m* d' (Lee-Herrmann)", lh_params,
          2, copy_first_param, lh_force, NORMAL_FORM_HERTZ_LH, &eta_calibration);
