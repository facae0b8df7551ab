/* The per-contact torque of the rolling law `viscous` (models/rolling_viscous.c, which
 * describes the law), `static inline` so that the law and a fused kernel can call it. */
#ifndef DEMPACT_ROLLING_VISCOUS_H
#define DEMPACT_ROLLING_VISCOUS_H

#include <math.h>

#include "friction_kernels.h"
#include "friction_law.h"
#include "rolling_stiffness.h"

/* fc->r */
enum { ROLLING_VISCOUS_ZETA };

/* One contact (the law's `one`): sets the torque m_r on i, returns the power -m_r . w_r
 * (theta: unused, the law keeps no spring). */
static inline double rolling_viscous_torque(const friction_coeffs *fc,
                                            const contact_kinematics *k, double theta[3],
                                            double m_r[3])
{
    (void)theta;
    double w_r[3];
    tangent_part(k->w_rel, k->n, w_r);
    double k_r = rolling_stiffness(fc, k->d, k->r_eff);
    double eta_r = 2.0 * fc->r[ROLLING_VISCOUS_ZETA] * sqrt(k->inertia_r * k_r);
    double limit = fc->mu_r * k->r_eff * k->f_normal;
    double speed = sqrt(friction_dot(w_r, w_r));
    double per = eta_r * speed > limit ? limit / speed : eta_r; /* at the cap: mu_r R* F_n */
    for (int a = 0; a < 3; a++) m_r[a] = -per * w_r[a];
    return -friction_dot(m_r, w_r);
}

#endif
