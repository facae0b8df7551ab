/* Zhang et al.'s law: what tests and tools need beyond the registry. */
#ifndef DEMPACT_ZHANG_H
#define DEMPACT_ZHANG_H

/* alpha(e) as fitted by Zhang et al. for n = 3/2 (eqs. 47-52); NAN unless m is
 * one of the six tabulated exponents 2, 1.5, 1, 0.65, 0.5, 0.25. */
double zhang_alpha_fit(double m, double e);

#endif
