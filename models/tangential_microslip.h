/* The per-contact force of the tangential law `mindlin_deresiewicz`
 * (models/tangential_microslip.c, which describes the law), `static inline` so that the
 * law and a fused kernel can call it. */
#ifndef DEMPACT_TANGENTIAL_MICROSLIP_H
#define DEMPACT_TANGENTIAL_MICROSLIP_H

#include <math.h>

#include "friction_kernels.h"
#include "friction_law.h"

/* fc->t */
enum { MICROSLIP_BETA };

/* the state: branch, T*, T**, the last step's normal force */
enum { MD_BRANCH, MD_T_STAR, MD_T_2STAR, MD_LAST_N };
/* branches */
enum { MD_LOADING = 0, MD_UNLOADING = 1, MD_RELOADING = 2 };

/* theta = (1 - x)^(1/3), clamped to [0, 1] */
static inline double md_theta(double x)
{
    if (x >= 1.0) return 0.0;
    if (x <= 0.0) return 1.0;
    return cbrt(1.0 - x);
}

/* One contact (the law's `one`): updates the force xi and the state slip, sets f_t on i,
 * returns the power f_t . v_t. */
static inline double microslip_force(const friction_coeffs *fc, const contact_kinematics *k,
                                     double xi[3], double slip[FRICTION_SLIP_HISTORY],
                                     double f_t[3])
{
    double v_t[3], dd[3];
    tangent_part(k->v_rel, k->n, v_t);
    tangent_part(k->disp, k->n, dd);
    turn_into_plane(xi, k->n);
    double mu = fc->mu, N = k->f_normal;
    double dN = N - slip[MD_LAST_N];
    slip[MD_LAST_N] = N;
    int branch = (int)slip[MD_BRANCH];
    double t_star = slip[MD_T_STAR], t_2star = slip[MD_T_2STAR];
    double k0 = 8.0 * fc->shear_eff * sqrt(k->r_eff * k->d);
    double eta_t = 2.0 * sqrt(5.0 / 6.0) * fc->t[MICROSLIP_BETA] * sqrt(k0 * k->m_eff);
    double q = mu * N;
    if (!(q > 0.0)) { /* no normal force: no friction, and the contact forgets */
        for (int a = 0; a < 3; a++) xi[a] = f_t[a] = 0.0;
        slip[MD_BRANCH] = slip[MD_T_STAR] = slip[MD_T_2STAR] = 0.0;
        return 0.0;
    }
    /* T: magnitude of the force, the scalar the 1D law acts on, along e */
    double T = sqrt(friction_dot(xi, xi)), e[3] = {0.0, 0.0, 0.0};
    if (T > 0.0) {
        for (int a = 0; a < 3; a++) e[a] = xi[a] / T;
    } else {
        double l = sqrt(friction_dot(dd, dd));
        if (l > 0.0)
            for (int a = 0; a < 3; a++) e[a] = dd[a] / l;
    }
    double dpar = friction_dot(dd, e);
    /* a falling normal force: Thornton's corrections (a rising one adds sticking area);
     * the turning points only mean something once the contact has turned */
    double dn_term = dN < 0.0 ? mu * dN : 0.0;
    if (branch != MD_LOADING) {
        t_star += dn_term;
        t_2star -= dn_term;
    }
    /* turning points */
    if (branch == MD_LOADING && dpar < 0.0 && T > 0.0) {
        branch = MD_UNLOADING;
        t_star = T;
    } else if (branch == MD_RELOADING && dpar < 0.0) {
        branch = MD_UNLOADING;
        t_star = T;
    } else if (branch == MD_UNLOADING && dpar > 0.0) {
        branch = MD_RELOADING;
        t_2star = T;
    }
    double theta, sign;
    if (branch == MD_LOADING) {
        theta = md_theta((T + dn_term) / q);
        sign = 1.0;
    } else if (branch == MD_UNLOADING) {
        theta = md_theta((t_star - T + 2.0 * dn_term) / (2.0 * q));
        sign = -1.0;
    } else {
        theta = md_theta((T - t_2star + 2.0 * dn_term) / (2.0 * q));
        sign = 1.0;
    }
    double t_new = T + k0 * theta * dpar + sign * dn_term * (1.0 - theta);
    /* the part of the step across the force turns it, at the no-slip stiffness (with
     * k0 theta a fully slipping contact, theta = 0, could never change direction) */
    for (int a = 0; a < 3; a++) xi[a] = t_new * e[a] + k0 * (dd[a] - dpar * e[a]);
    if (t_new < 0.0) {
        /* the force passed through zero: the frame turns with it (T >= 0 again) */
        if (branch == MD_UNLOADING) {
            branch = MD_RELOADING;
            t_2star = -t_star;
        } else {
            for (int a = 0; a < 3; a++) xi[a] -= t_new * e[a];
        }
    } else if (branch == MD_RELOADING && t_new >= t_star) {
        branch = MD_LOADING; /* back on the virgin curve */
    }
    double f2 = 0.0;
    for (int a = 0; a < 3; a++) {
        f_t[a] = xi[a] + eta_t * v_t[a];
        f2 += f_t[a] * f_t[a];
    }
    if (f2 > q * q) { /* gross sliding: the spring holds the whole force, memory is lost */
        double scale = q / capped_length(f2, f_t[0], f_t[1], f_t[2]);
        for (int a = 0; a < 3; a++) xi[a] = f_t[a] *= scale;
        branch = MD_LOADING;
    }
    slip[MD_BRANCH] = branch;
    slip[MD_T_STAR] = t_star;
    slip[MD_T_2STAR] = t_2star;
    return friction_dot(f_t, v_t);
}

#endif
