/* The rolling stiffness of Ai et al.'s model C, for the rolling laws that scale with it:
 * k_r = 2.25 mu_r^2 R*^2 k_n, k_n = 2 E* sqrt(R* d). */
#ifndef DEMPACT_ROLLING_STIFFNESS_H
#define DEMPACT_ROLLING_STIFFNESS_H

#include <math.h>

#include "friction_law.h"

static inline double rolling_stiffness(const friction_coeffs *fc, double d, double r_eff)
{
    double k_n = 2.0 * fc->young_eff * sqrt(r_eff * d);
    return 2.25 * fc->mu_r * fc->mu_r * r_eff * r_eff * k_n;
}

#endif
