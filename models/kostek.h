/* Kostek's law on one contact (models/kostek.c), `static inline` so that the law's batch
 * and a fused kernel can call it: the pressure at an overlap for the state at the step
 * start, and the state it leaves. The law is one piece: not an elastic part with a
 * damping part (models/normal_parts.h). */
#ifndef DEMPACT_KOSTEK_H
#define DEMPACT_KOSTEK_H

#include <math.h>

/* its parameters (and constants, c[] = the parameters) and its state slots */
enum { P_E_E, P_M_E, P_E_P, P_M_P, P_E_EP_L, P_E_EP_UNL, P_M_EP, P_AREA, N_PARAMS };
enum { H_P_MAX, H_D_EP, H_P };

/* d_ep after the pressure p, from d_ep0 at the step start (eq. 2.4). Comparing
 * deflections, not pressures, avoids the 1/m_ep root: p exceeds the loading-curve
 * pressure of d_ep0 exactly when e_ep_l p^m_ep > d_ep0. */
static inline double kostek_ep_deflection(const double *c, double d_ep0, double p, double *slope)
{
    double pm = pow(p, c[P_M_EP]);
    double loading = c[P_E_EP_L] * pm, unloading = c[P_E_EP_UNL] * pm;
    if (loading > d_ep0) { *slope = c[P_M_EP] * loading / p; return loading; }
    if (unloading < d_ep0) { *slope = c[P_M_EP] * unloading / p; return unloading; }
    *slope = 0.0; /* stick */
    return d_ep0;
}

/* Deflection d(p) for the state (p_max, d_ep0) and its slope dd/dp, for p > 0. */
static inline double kostek_deflection(const double *c, double p_max, double d_ep0, double p,
                                       double *slope)
{
    double d_e = c[P_E_E] * pow(p, c[P_M_E]);
    double s_ep, d_ep = kostek_ep_deflection(c, d_ep0, p, &s_ep);
    *slope = c[P_M_E] * d_e / p + s_ep;
    if (p > p_max) {
        double d_p = c[P_E_P] * pow(p, c[P_M_P]);
        *slope += c[P_M_P] * d_p / p;
        return d_e + d_p + d_ep;
    }
    return d_e + c[P_E_P] * pow(p_max, c[P_M_P]) + d_ep;
}

/* The pressure at overlap d for the state (p_max, d_ep0): the root of d(p) = d, by Newton
 * steps kept inside a shrinking bracket, with bisection whenever a step would leave it or
 * would not halve the previous step (the kinks where d_ep changes stage). */
static inline double kostek_pressure(const double *c, double p_max, double d_ep0, double d,
                              double guess)
{
    if (!(d > c[P_E_P] * pow(p_max, c[P_M_P]))) return 0.0; /* within the plastic set */
    double lo = 0.0, hi = pow(d / c[P_E_E], 1.0 / c[P_M_E]); /* d(hi) >= d_e(hi) = d */
    double x = guess > lo && guess < hi ? guess : 0.5 * hi;
    double step_old = hi - lo, step = step_old;
    for (int it = 0; it < 200; it++) {
        double slope, f = kostek_deflection(c, p_max, d_ep0, x, &slope) - d;
        if (f == 0.0) return x;
        if (f > 0.0) hi = x; else lo = x;
        double next = x - f / slope;
        if (!(next > lo && next < hi) || fabs(2.0 * f) > fabs(step_old * slope)) {
            step_old = step;
            step = 0.5 * (hi - lo);
            next = lo + step;
        } else {
            step_old = step;
            step = x - next;
        }
        if (fabs(next - x) <= 1e-15 * next || hi - lo <= 1e-15 * hi) return next;
        x = next;
    }
    return x;
}

/* One contact at overlap d from the state (p_max, d_ep, p) at the step start, updated in
 * place: returns the normal force p A. */
static inline double kostek_contact_force(const double *c, double d, double *p_max, double *d_ep,
                                          double *p_last)
{
    double p = kostek_pressure(c, *p_max, *d_ep, d, *p_last);
    double unused;
    *d_ep = p > 0.0 ? kostek_ep_deflection(c, *d_ep, p, &unused) : 0.0;
    *p_max = fmax(*p_max, p);
    *p_last = p;
    return p * c[P_AREA];
}

#endif
