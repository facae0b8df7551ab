/* The per-contact torque of the rolling law `liggghts_cdt` (models/rolling_liggghts_cdt.c,
 * which describes the law), `static inline` so that the law and a fused kernel can call it. */
#ifndef DEMPACT_ROLLING_LIGGGHTS_CDT_H
#define DEMPACT_ROLLING_LIGGGHTS_CDT_H

#include <math.h>

#include "friction_kernels.h"
#include "friction_law.h"

/* One contact (the law's `one`): the torque mu_r R* F_n along the whole relative rotation
 * w = w_i - w_j, its part along n then dropped:
 *   m_r = -mu_r R* F_n (w - (w.n) n) / |w|      (0 where w is 0)
 * sets m_r on i, returns the power -m_r . w (theta: unused, the law keeps no spring). */
static inline double rolling_liggghts_cdt_torque(const friction_coeffs *fc,
                                                 const contact_kinematics *k, double theta[3],
                                                 double m_r[3])
{
    (void)theta;
    double w_r[3];
    tangent_part(k->w_rel, k->n, w_r);
    double spin = sqrt(friction_dot(k->w_rel, k->w_rel));
    double per = spin > 0.0 ? fc->mu_r * k->r_eff * k->f_normal / spin : 0.0;
    for (int a = 0; a < 3; a++) m_r[a] = -per * w_r[a];
    return -friction_dot(m_r, w_r);
}

#endif
