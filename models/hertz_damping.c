/* The Hertzian damping laws, F = K d^n (1 + chi(e) d'/v0) (docs/laws.md, docs/physics.md).
 *
 * K = K_hz = 4/3 E* sqrt(R*) (per contact) and n = 3/2 unless given; v0 is the impact
 * velocity stored at first touch, floored by v_floor for contacts born at rest. The laws
 * differ only in chi(e), named after their authors:
 *
 *   hunt_crossley             3(1-e)/2
 *   lankarani_nikravesh       3(1-e^2)/4
 *   flores                    8(1-e)/(5e)
 *   gharib_hurmuzlu           1/e
 *   hu_guo                    3(1-e)/(2e)
 *   safaeifar_farshidianfar   5(1-e)/(4e)
 *   sheikhi_azqandi_safaeifar (200/159)(1-e)/e   (Sheikhi Azqandi & Safaeifar, eqs. 28-30,
 *                                                 their integral I = 0.31788)
 *   exact                     the root of chi(1+e) = ln((1+chi)/(1-e chi)) in (0, 1/e)
 *
 * Each is the elastic part `hertz` (K d^n) with its own damping part, named after the law;
 * each law's setup stores its chi, and one force function serves all eight
 * (models/normal_parts.h: power_spring, hertzian_dashpot).
 *
 * The equation of motion m* d'' = -K d^n (1 + chi d'/v0) has a first integral
 * (Alaci et al., eq. 10; docs/physics.md): with s = d'/v0,
 * s ds / (1 + chi s) = -(K/(m* v0^2)) d^n dd, so over
 * the whole contact (d back to 0) the law restitutes the e_out that solves
 * chi (1 + e_out) = ln((1 + chi)/(1 - e_out chi)), whatever n, K, m* and v0
 * (models/restitution.h). The same integral keeps 1 - e_out chi > 0, and |d'| <= e_out v0
 * during restitution (|d'| grows monotonically to e_out v0 as d -> 0), so the factor
 * 1 + chi d'/v0 >= 1 - chi e_out > 0: the force never turns negative, and cohesion
 * removal does not change these laws (tests/test_hertz_damping.c checks it).
 *
 * d^(3/2) is written with sqrt so that the loop vectorises; pow is used only for a
 * given exponent n != 3/2 (the loop is chosen once per batch). */
#include <math.h>
#include <stdio.h>

#include "law.h"
#include "law_params.h"
#include "normal_parts.h"
#include "restitution.h"

enum { P_RESTITUTION, P_STIFFNESS, P_EXPONENT, P_VFLOOR };

static const law_param hertzian_params[] = {
    PARAM_RESTITUTION(NAN),
    {"stiffness", 0.0, "N/m^n", "K in K d^n; 0: Hertz K_hz = 4/3 E* sqrt(R*) of each contact",
     NULL, 0.0, HUGE_VAL},
    {"exponent", 1.5, "-", "exponent n in K d^n (> 0)", NULL, 0.0, 10.0},
    PARAM_DASHPOT_VELOCITY_FLOOR,
};
#define N_PARAMS ((int)(sizeof hertzian_params / sizeof hertzian_params[0]))

/* What every law's setup shares: all but chi. */
static int common_setup(const double *p, law_coeffs *out, law_error *err)
{
    double e = p[P_RESTITUTION], n = p[P_EXPONENT];
    if (!(e > 0.0 && e <= 1.0))
        return law_fail(err, P_RESTITUTION, "restitution = %g: give a value in (0, 1]", e);
    if (!(n > 0.0 && n <= 10.0))
        return law_fail(err, P_EXPONENT, "exponent = %g: give a value in (0, 10]", n);
    if (!(p[P_STIFFNESS] >= 0.0) || !(p[P_VFLOOR] >= 0.0))
        return law_fail(err, -1, "stiffness = %g, v_floor = %g: give stiffness >= 0, v_floor >= 0",
                        p[P_STIFFNESS], p[P_VFLOOR]);
    out->c[NORMAL_STIFFNESS] = p[P_STIFFNESS];
    out->c[NORMAL_EXPONENT] = n;
    out->c[NORMAL_V_FLOOR] = p[P_VFLOOR] > 0.0 ? p[P_VFLOOR] : LAW_VELOCITY_FLOOR;
    return 0;
}

#define CHI_SETUP(fname, expr)                                                          \
    static int fname(const double *p, const law_pair_props *pair, law_coeffs *out,      \
                     law_error *err)                                                    \
    {                                                                                   \
        if (common_setup(p, out, err) != 0) return -1;                                  \
        const double e = p[P_RESTITUTION];                                              \
        out->c[NORMAL_DAMPING_COEFF] = (expr);                                          \
        return 0;                                                                       \
    }

CHI_SETUP(hunt_crossley_setup, 1.5 * (1.0 - e))
CHI_SETUP(lankarani_nikravesh_setup, 0.75 * (1.0 - e) * (1.0 + e))
CHI_SETUP(flores_setup, 8.0 * (1.0 - e) / (5.0 * e))
CHI_SETUP(gharib_hurmuzlu_setup, 1.0 / e)
CHI_SETUP(hu_guo_setup, 3.0 * (1.0 - e) / (2.0 * e))
CHI_SETUP(safaeifar_farshidianfar_setup, 5.0 * (1.0 - e) / (4.0 * e))
CHI_SETUP(sheikhi_azqandi_safaeifar_setup, 200.0 / 159.0 * (1.0 - e) / e)
CHI_SETUP(exact_setup, hertzian_chi_exact(e))

/* The loop is chosen once per batch: d sqrt(d) for n = 3/2, which vectorises, else pow. */
static void hertzian_force(const law_coeffs *c, const law_batch *b)
{
    if (c->c[NORMAL_EXPONENT] == 1.5)
        NORMAL_FORM_BATCH(HERTZIAN, c, b);
    else
        NORMAL_FORM_BATCH(HERTZIAN, c, b);
}

/* Damping shortens the compression, so the undamped time bounds the step. */
static double hertzian_contact_time(const law_coeffs *c, double r_eff, double m_eff, double v0)
{
    double k = c->c[NORMAL_STIFFNESS], n = c->c[NORMAL_EXPONENT];
    if (k == 0.0 && n == 1.5) return hertz_contact_time(c->young_eff, r_eff, m_eff, v0);
    if (k == 0.0) k = hertz_stiffness(c->young_eff, r_eff);
    return power_law_contact_time(k, n, m_eff, v0);
}

/* The spring K d^n stores K d^(n+1) / (n+1). */
static double hertzian_elastic_energy(const law_coeffs *c, double d, double r_eff,
                                      const double *history)
{
    double k = c->c[NORMAL_STIFFNESS] > 0.0 ? c->c[NORMAL_STIFFNESS]
                                            : hertz_stiffness(c->young_eff, r_eff);
    double n = c->c[NORMAL_EXPONENT];
    return k * pow(d, n + 1.0) / (n + 1.0);
}

/* calibrate solves chi for the restitution (parameter 0) */
static const law_calibration chi_calibration = {"chi", NORMAL_DAMPING_COEFF, P_RESTITUTION, -1,
                                                -1, -1, 0};

#define HERTZIAN_LAW(ident, lname, lsummary, lsource, lsetup)                           \
    const dem_law ident = {                                                             \
        .name = lname,                                                                  \
        .elastic = "hertz",                                                             \
        .damping = lname,                                                               \
        .summary = "F = K d^n (1 + chi d'/max(v0, v_floor)), " lsummary                 \
                   "; K = 4/3 E* sqrt(R*), n = 3/2 unless given",                       \
        .source = lsource,                                                              \
        .params = hertzian_params,                                                      \
        .n_params = N_PARAMS,                                                           \
        .setup = lsetup,                                                                \
        .force = hertzian_force,                                                        \
        .form = NORMAL_FORM_HERTZIAN,                                                   \
        .contact_time = hertzian_contact_time,                                          \
        .calibration = &chi_calibration,                                                \
        .elastic_energy = hertzian_elastic_energy,                                      \
        .caps = LAW_CAP_CONTACT_TIME | LAW_CAP_CALIBRATES | LAW_CAP_LINEAR_IN_RATE |    \
                LAW_CAP_ENERGY | LAW_CAP_IMPACT_VELOCITY,                               \
    }

HERTZIAN_LAW(law_hunt_crossley, "hunt_crossley", "chi = 3(1-e)/2 (Hunt-Crossley)",
             "K. H. Hunt, F. R. E. Crossley (1975), Coefficient of restitution interpreted as "
             "damping in vibroimpact, J. Appl. Mech. 42(2), 440-445, doi:10.1115/1.3423596",
             hunt_crossley_setup);
HERTZIAN_LAW(law_lankarani_nikravesh, "lankarani_nikravesh",
             "chi = 3(1-e^2)/4 (Lankarani-Nikravesh)",
             "H. M. Lankarani, P. E. Nikravesh (1990), A contact force model with hysteresis "
             "damping for impact analysis of multibody systems, J. Mech. Des. 112(3), 369-376, "
             "doi:10.1115/1.2912617", lankarani_nikravesh_setup);
HERTZIAN_LAW(law_flores, "flores", "chi = 8(1-e)/(5e) (Flores et al.)",
             "P. Flores, M. Machado, M. T. Silva, J. M. Martins (2011), On the continuous contact "
             "force models for soft materials in multibody dynamics, Multibody Syst. Dyn. 25(3), "
             "357-375, doi:10.1007/s11044-010-9237-4", flores_setup);
HERTZIAN_LAW(law_gharib_hurmuzlu, "gharib_hurmuzlu", "chi = 1/e (Gharib-Hurmuzlu)",
             "M. Gharib, Y. Hurmuzlu (2012), A new contact force model for low coefficient of "
             "restitution impact, J. Appl. Mech. 79(6), 064506, doi:10.1115/1.4006494",
             gharib_hurmuzlu_setup);
HERTZIAN_LAW(law_hu_guo, "hu_guo", "chi = 3(1-e)/(2e) (Hu-Guo)",
             "S. Hu, X. Guo (2015), A dissipative contact force model for impact analysis in "
             "multibody dynamics, Multibody Syst. Dyn. 35(2), 131-151, "
             "doi:10.1007/s11044-015-9453-z", hu_guo_setup);
HERTZIAN_LAW(law_safaeifar_farshidianfar, "safaeifar_farshidianfar",
             "chi = 5(1-e)/(4e) (Safaeifar-Farshidianfar)",
             "H. Safaeifar, A. Farshidianfar (2020), A new model of the contact force for the "
             "collision between two solid bodies, Multibody Syst. Dyn. 50(3), 233-257",
             safaeifar_farshidianfar_setup);
HERTZIAN_LAW(law_sheikhi_azqandi_safaeifar, "sheikhi_azqandi_safaeifar",
             "chi = (200/159)(1-e)/e (Sheikhi Azqandi-Safaeifar, ICACO optimal)",
             "M. Sheikhi Azqandi, H. Safaeifar (2024), Optimal model of the contact force for the "
             "collision between two solid bodies by ICACO, Int. J. Optim. Civil Eng. 14(1), "
             "eqs. 28-30", sheikhi_azqandi_safaeifar_setup);
HERTZIAN_LAW(law_hertzian_exact, "exact",
             "chi: root in (0, 1/e) of chi(1+e) = ln((1+chi)/(1-e chi)), restitutes e exactly",
             "Y. Zhang, I. Sharf (2004), Compliant force modeling for impact analysis, Proc. ASME "
             "2004 Design Engineering Technical Conferences, paper DETC2004-57220, "
             "doi:10.1115/DETC2004-57220 (the exact relation between chi and e)\n"
             "H. Safaeifar, A. Farshidianfar (2020), A new model of the contact force for the "
             "collision between two solid bodies, Multibody Syst. Dyn. 50(3), 233-257", exact_setup);
