/* The per-contact torque of the rolling law `spring` (models/rolling_spring.c, which
 * describes the law), `static inline` so that the law and a fused kernel can call it. */
#ifndef DEMPACT_ROLLING_SPRING_H
#define DEMPACT_ROLLING_SPRING_H

#include <math.h>

#include "friction_kernels.h"
#include "friction_law.h"
#include "rolling_stiffness.h"

/* fc->r */
enum { ROLLING_SPRING_ZETA };

/* One contact (the law's `one`): updates theta, sets the torque m_r on i, returns the
 * power -m_r . w_r. */
static inline double rolling_spring_torque(const friction_coeffs *fc, const contact_kinematics *k,
                                           double theta[3], double m_r[3])
{
    double w_r[3], turn[3];
    tangent_part(k->w_rel, k->n, w_r);
    tangent_part(k->turn, k->n, turn);
    double limit = fc->mu_r * k->r_eff * k->f_normal;
    turn_into_plane(theta, k->n);
    for (int a = 0; a < 3; a++) theta[a] += turn[a];
    double k_r = rolling_stiffness(fc, k->d, k->r_eff);
    double m2 = 0.0;
    for (int a = 0; a < 3; a++) {
        m_r[a] = -k_r * theta[a];
        m2 += m_r[a] * m_r[a];
    }
    if (m2 > limit * limit) { /* fully mobilised: the spring slips, no damping */
        double scale = limit / capped_length(m2, m_r[0], m_r[1], m_r[2]);
        for (int a = 0; a < 3; a++) {
            m_r[a] *= scale;
            theta[a] = k_r > 0.0 ? -m_r[a] / k_r : 0.0;
        }
        return -friction_dot(m_r, w_r);
    }
    double eta_r = 2.0 * fc->r[ROLLING_SPRING_ZETA] * sqrt(k->inertia_r * k_r);
    for (int a = 0; a < 3; a++) m_r[a] -= eta_r * w_r[a];
    return -friction_dot(m_r, w_r);
}

#endif
