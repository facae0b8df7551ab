/* Closed forms for the restitution of the Hertzian damping laws
 * (models/hertz_damping.c): F = K d^n (1 + chi d'/v0) has a first integral, and the
 * restitution it really produces, e_out, solves
 *
 *     chi (1 + e_out) = ln((1 + chi) / (1 - e_out chi)),
 *
 * independently of n, K, m* and v0 (Sheikhi Azqandi & Safaeifar, Int. J. Optim. Civil Eng. 14 (2024), eq. 11;
 * Alaci et al., IOP Conf. Ser. Mater. Sci. Eng. (two balls in damped collision), eqs. 10-15). */
#ifndef DEMPACT_RESTITUTION_H
#define DEMPACT_RESTITUTION_H

/* The chi that restitutes exactly e: the root in (0, 1/e) of the equation above with
 * e_out = e; 0 for e = 1. Accurate to a few ulp for every e in (0, 1]; as e -> 0 the
 * root tends to 1/e (1 - e chi underflows below e ~ 0.0015). NAN outside (0, 1]. */
double hertzian_chi_exact(double e);

/* The restitution e_out in (0, 1] that a law with damping factor chi >= 0 produces;
 * 1 for chi = 0. Robust for chi up to 1e3 and beyond (e_out -> 1/chi). NAN for
 * chi < 0 or NAN. */
double hertzian_restitution_out(double chi);

#endif
