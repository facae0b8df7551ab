/* Kostek's elastic-plastic rough-contact law (R. Kostek, J. Theor. Appl. Mech. 50(2), 509-530,
 * 2012, eqs. 2.1-2.5 and the Appendix; docs/laws.md).
 *
 * The contact deflection is a function of the nominal pressure p and of two state
 * variables, the largest pressure so far p_max and the elasto-plastic deflection d_ep:
 *
 *   d = d_e + d_p + d_ep,   d_e = e_e p^m_e,   d_p = e_p p_max^m_p   (eqs. 2.1, 2.5)
 *
 * and d_ep has three stages (eq. 2.4): it follows the loading curve e_ep_l p^m_ep while
 * it grows (p above the loading-curve pressure (d_ep/e_ep_l)^(1/m_ep)), the unloading
 * curve e_ep_unl p^m_ep while it shrinks (p below the unloading-curve pressure
 * (d_ep/e_ep_unl)^(1/m_ep)), and sticks in between. e_ep_unl > e_ep_l keeps that band
 * non-empty. The force is F = p A with A the nominal contact area.
 *
 * The paper gives p -> d; the engine gives d and wants p. For the state at the step start,
 * d(p) is continuous and strictly increasing (every term is non-decreasing in p and d_e
 * is strictly increasing), and d(0) = e_p p_max^m_p (d_ep on the unloading curve is 0 at
 * p = 0): below that plastic set the surfaces are apart although the spheres overlap,
 * and p = 0. Above it the root is bracketed by 0 and (d/e_e)^(1/m_e) (d >= d_e alone)
 * and found by a safeguarded Newton iteration. The new state then follows from the
 * solved p and the step-start state only: the engine stores it once per accepted step.
 *
 * The law is rate independent (the paper's plastic element carries a pressure of fixed
 * sign, not a viscous one): it dissipates through the hysteresis loop alone, so it has
 * no damping coefficient to calibrate. */
#include <math.h>
#include <stdio.h>

#include "kostek.h"
#include "law.h"


/* The paper's Table 1 is in micrometres and MPa: d [um] = e [um MPa^-m] p [MPa]^m. In SI,
 * d [m] = 1e-6 e (1e-6 p [Pa])^m, so e_SI [m Pa^-m] = e x 1e-6 x (1e-6)^m. The literals
 * below are that product (tests/test_kostek.c recomputes it with pow). */
#define KOSTEK_E_P 6.449725879470204e-11     /* 0.534 um MPa^-0.653 x 1e-6 x 1e-6^0.653 */
#define KOSTEK_E_E 1.9406261895264663e-09    /* 1.148 um MPa^-0.462 x 1e-6 x 1e-6^0.462 */
#define KOSTEK_E_EP_L 5.105131613562656e-10  /* 0.302 um MPa^-0.462 x 1e-6 x 1e-6^0.462 */
#define KOSTEK_E_EP_UNL 8.84100607249427e-10 /* 0.523 um MPa^-0.462 x 1e-6 x 1e-6^0.462 */

static const law_param kostek_params[] = {
    {"e_e", KOSTEK_E_E, "m Pa^-m_e", "elastic compliance: d_e = e_e p^m_e (> 0)", NULL, 0.0,
     HUGE_VAL},
    {"m_e", 0.462, "-", "elastic exponent m_e (> 0)", NULL, 0.0, HUGE_VAL},
    {"e_p", KOSTEK_E_P, "m Pa^-m_p", "plastic compliance: d_p = e_p p_max^m_p (> 0)", NULL,
     0.0, HUGE_VAL},
    {"m_p", 0.653, "-", "plastic exponent m_p (> 0)", NULL, 0.0, HUGE_VAL},
    {"e_ep_l", KOSTEK_E_EP_L, "m Pa^-m_ep",
     "elasto-plastic loading curve: d_ep = e_ep_l p^m_ep while d_ep grows (> 0)", NULL, 0.0,
     HUGE_VAL},
    {"e_ep_unl", KOSTEK_E_EP_UNL, "m Pa^-m_ep",
     "elasto-plastic unloading curve: d_ep = e_ep_unl p^m_ep while d_ep shrinks (> e_ep_l)",
     NULL, 0.0, HUGE_VAL},
    {"m_ep", 0.462, "-", "elasto-plastic exponent m_ep (> 0)", NULL, 0.0, HUGE_VAL},
    {"area", 1e-6, "m^2",
     "nominal contact area A, F = p A (1e-6 m^2 is a placeholder: choose it per case)", NULL,
     0.0, HUGE_VAL},
};

_Static_assert(sizeof kostek_params / sizeof kostek_params[0] == N_PARAMS,
               "one descriptor per parameter");

static const char *const kostek_history[] = {"p_max", "d_ep", "p"};

_Static_assert(N_PARAMS <= LAW_MAX_COEFFS, "setup keeps every parameter in law_coeffs.c");

static int kostek_setup(const double *p, const law_pair_props *pair, law_coeffs *out,
                        law_error *err)
{
    for (int k = 0; k < N_PARAMS; k++)
        if (!(p[k] > 0.0 && isfinite(p[k])))
            return law_fail(err, k, "%s = %g: give a finite value > 0", kostek_params[k].name,
                            p[k]);
    if (!(p[P_E_EP_UNL] > p[P_E_EP_L]))
        return law_fail(err, P_E_EP_UNL,
                        "e_ep_unl = %g must exceed e_ep_l = %g: the unloading curve is the "
                        "stiffer one, else the stick band between the two curves is empty or "
                        "inverted", p[P_E_EP_UNL], p[P_E_EP_L]);
    for (int k = 0; k < N_PARAMS; k++) out->c[k] = p[k];
    return 0;
}

static void kostek_force(const law_coeffs *coeffs, const law_batch *b)
{
    double *h_pmax = b->history[H_P_MAX], *h_dep = b->history[H_D_EP], *h_p = b->history[H_P];
    for (size_t i = 0; i < b->n; i++)
        b->force[i] = kostek_contact_force(coeffs->c, b->overlap[i], &h_pmax[i], &h_dep[i],
                                           &h_p[i]);
}

/* Work per unit area along the virgin loading curve up to the pressure p:
 * int_0^p p' (dd/dp') dp' = sum over the three terms e p^m of m e p^(m+1) / (m+1). */
static double virgin_work_per_area(const double *c, double p)
{
    const int e[3] = {P_E_E, P_E_P, P_E_EP_L}, m[3] = {P_M_E, P_M_P, P_M_EP};
    double w = 0.0;
    for (int k = 0; k < 3; k++)
        w += c[m[k]] * c[e[k]] * pow(p, c[m[k]] + 1.0) / (c[m[k]] + 1.0);
    return w;
}

/* The timestep must resolve the stiffest part of a contact. That is the stick just after
 * the largest pressure: there only d_e changes, so dF/dd = A / (m_e e_e p^(m_e-1)), which
 * grows with p (m_e < 1 in Table 1). The largest pressure of a virgin impact at v0
 * follows from (1/2) m* v0^2 = A int p dd along the loading curve; the work is monotone
 * in p, so bisection on it finds that pressure. The half period pi sqrt(m* / k) of that
 * stiffness is shorter than the whole (softer on loading) contact, so it bounds the step
 * safely. The impact speed is floored at 1 mm/s so that a contact born at rest still
 * gives a finite time. */
static double kostek_contact_time(const law_coeffs *coeffs, double r_eff, double m_eff,
                                  double v0)
{
    const double *c = coeffs->c;
    double v = fmax(v0, 1e-3), target = 0.5 * m_eff * v * v / c[P_AREA];
    double lo = 0.0, hi = 1.0;
    while (virgin_work_per_area(c, hi) < target && hi < 1e30) { lo = hi; hi *= 2.0; }
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (virgin_work_per_area(c, mid) < target) lo = mid; else hi = mid;
    }
    double p_peak = 0.5 * (lo + hi);
    double k = c[P_AREA] / (c[P_M_E] * c[P_E_E] * pow(p_peak, c[P_M_E] - 1.0));
    return M_PI * sqrt(m_eff / k);
}

/* What an unload would give back: the stick stage recovers only the elastic deflection
 * d_e = e_e p^m_e, so this counts A int p dd_e = A e_e m_e p^(m_e+1) / (m_e+1) (the
 * elasto-plastic part's recoverable share on the unloading curve is neglected: the
 * dissipated plastic energy is slightly over-counted while a contact is loaded). */
static double kostek_elastic_energy(const law_coeffs *coeffs, double d, double r_eff,
                                    const double *history)
{
    const double *c = coeffs->c;
    double p = history[H_P], m = c[P_M_E];
    return c[P_AREA] * c[P_E_E] * m * pow(p, m + 1.0) / (m + 1.0);
}

const dem_law law_kostek = {
    .name = "kostek",
    .summary = "F = p A, d = e_e p^m_e + e_p p_max^m_p + d_ep (loading/stick/unloading), "
               "inverted for p",
    .source = "R. Kostek (2012), The modelling of loading, unloading and reloading of the "
              "elastic-plastic contact of rough surfaces, J. Theor. Appl. Mech. 50(2), 509-530, "
              "eqs. 2.1-2.5, Table 1",
    .params = kostek_params,
    .n_params = N_PARAMS,
    .n_state = 3,
    .state_names = kostek_history,
    /* one piece: no elastic and damping parts (elastic and damping NULL) */
    .caps = LAW_CAP_CONTACT_TIME | LAW_CAP_ENERGY | LAW_CAP_PLASTIC,
    .setup = kostek_setup,
    .force = kostek_force,
    .contact_time = kostek_contact_time,
    .calibration = NULL,
    .elastic_energy = kostek_elastic_energy,
};
