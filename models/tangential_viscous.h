/* The per-contact force of the tangential law `viscous` (models/tangential_viscous.c),
 * `static inline` so that the law's batch and a fused kernel can call it. */
#ifndef DEMPACT_TANGENTIAL_VISCOUS_H
#define DEMPACT_TANGENTIAL_VISCOUS_H

#include <math.h>

/* One contact: F = gamma_t m* v_t on i, capped at mu F_n (|F| > mu F_n: F = mu F_n
 * v_t / |v_t|), v_t the tangential part of the velocity u; sets f_t, returns the power
 * f_t . v_t. */
static inline __attribute__((always_inline)) double
tangential_viscous_force(double gamma, double mu, const double n[3], const double u[3],
                         double m_eff, double f_normal, double f_t[3])
{
    double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    double v_t[3] = {u[0] - un * n[0], u[1] - un * n[1], u[2] - un * n[2]};
    double eta = gamma * m_eff, limit = mu * f_normal;
    double speed = sqrt(v_t[0] * v_t[0] + v_t[1] * v_t[1] + v_t[2] * v_t[2]);
    /* sliding: the cap; one division either way */
    double per = eta * speed > limit ? limit / speed : eta;
    double p = 0.0;
    for (int a = 0; a < 3; a++) {
        f_t[a] = per * v_t[a];
        p += f_t[a] * v_t[a];
    }
    return p;
}

#endif
