/* Small pieces the tangential and rolling laws share: turning a spring into the
 * current tangent plane, and the damping factor of a restitution. */
#ifndef DEMPACT_FRICTION_KERNELS_H
#define DEMPACT_FRICTION_KERNELS_H

#include <math.h>

static inline __attribute__((always_inline)) double friction_dot(const double a[3],
                                                                  const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* v's part in the tangent plane of n: v - (v . n) n (a relative velocity, displacement
 * or spin without its normal part). */
static inline void tangent_part(const double v[3], const double n[3], double out[3])
{
    double vn = friction_dot(v, n);
    for (int a = 0; a < 3; a++) out[a] = v[a] - vn * n[a];
}

/* Turning a spring vector v into the tangent plane of n, keeping its length (the contact
 * frame has rotated since the last step), in two halves: plane_part takes v's normal
 * part away and returns v's new squared length now2, with the old one in *len2 (now2 =
 * 0: no rescaling to do); the rescaling by sqrt(len2 / now2) is the other half, and
 * turn_into_plane does both.
 * The length lost is vn^2 / 2 |v|^2 relative; below 1e-16 (a contact that barely turned
 * this step, as most in a dense packing) the rescaling would change v by less than its
 * own rounding: skip the division and square root, the slowest part of a frictional
 * contact. The spring-slider batch runs the halves in separate loops, so that the
 * division and root vectorise. */
static inline __attribute__((always_inline)) double plane_part(double v[3], const double n[3],
                                                               double *len2)
{
    *len2 = friction_dot(v, v);
    if (*len2 == 0.0) return 0.0;
    double vn = friction_dot(v, n);
    for (int a = 0; a < 3; a++) v[a] -= vn * n[a];
    if (vn * vn <= 1e-16 * *len2) return 0.0;
    return friction_dot(v, v);
}

static inline __attribute__((always_inline)) void turn_into_plane(double v[3],
                                                                  const double n[3])
{
    double len2, now2 = plane_part(v, n, &len2);
    if (now2 > 0.0) {
        double scale = sqrt(len2 / now2);
        for (int a = 0; a < 3; a++) v[a] *= scale;
    }
}

/* The length of a force or torque v whose squared length v2 a cap compares: sqrt(v2),
 * or, where v2 overflowed (a trial force above 1e154), the length found without
 * squaring, so that the cap scales the force down instead of to 0. The same bits as
 * sqrt(v2) wherever v2 is finite. */
static inline double capped_length(double v2, double v0, double v1, double v2_)
{
    double l = sqrt(v2);
    return l < HUGE_VAL ? l : hypot(hypot(v0, v1), v2_);
}

/* beta = -ln e / sqrt(ln^2 e + pi^2): a dashpot 2 beta sqrt(k m) restitutes e on a
 * linear spring k (0 for e outside (0, 1)). */
static inline double friction_damping_factor(double e)
{
    if (!(e > 0.0) || e >= 1.0) return 0.0;
    double l = log(e);
    return -l / sqrt(l * l + M_PI * M_PI);
}

/* The dashpots' restitution: e_t if given (> 0), else the normal law's e, else 1 (no
 * dashpot). */
static inline double friction_restitution(double e_t, double law_restitution)
{
    return e_t > 0.0 ? e_t : law_restitution > 0.0 ? law_restitution : 1.0; /* NAN > 0 is false */
}

#endif
