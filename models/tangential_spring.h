/* The per-contact force of the tangential laws `mindlin` and `linear`
 * (models/tangential_spring.c): a Cundall-Strack spring with a dashpot and a Coulomb
 * slider, `static inline` so that the laws' batch and a fused kernel can call it. The
 * batch runs it in blocks whose stiffness and spring turning come first, in loops of
 * their own that vectorise (tangential_spring.c). */
#ifndef DEMPACT_TANGENTIAL_SPRING_H
#define DEMPACT_TANGENTIAL_SPRING_H

#include <math.h>

#include "friction_kernels.h"
#include "friction_law.h"

#define TS_INLINE static inline __attribute__((always_inline))

/* fc->t of the spring laws, as their setup fills it */
enum { SPRING_MU_STATIC, SPRING_K_T, SPRING_BETA };

/* A pair of materials' spring constants, read once per batch: the given k_linear, 8 G*,
 * the dashpot's factor (2 beta, or 2 sqrt(5/6) beta for mindlin) and the coefficients. */
typedef struct spring_constants {
    double k_linear, g8, eta_factor, mu, mu_static;
    double inv_dt; /* 1 / the step: the slider's relaxation (tangential_spring_force) */
} spring_constants;

TS_INLINE spring_constants tangential_spring_of(const friction_coeffs *fc, const int linear,
                                                double dt)
{
    return (spring_constants){fc->t[SPRING_K_T], 8.0 * fc->shear_eff,
                              (linear ? 2.0 : 2.0 * sqrt(5.0 / 6.0)) * fc->t[SPRING_BETA],
                              fc->mu, fc->t[SPRING_MU_STATIC], 1.0 / dt};
}

/* The spring k_t and dashpot eta_t of a contact at overlap d: mindlin's 8 G* sqrt(R* d)
 * (g8 = 8 G*), or the given k_linear; eta_t = eta_factor sqrt(k_t m*). */
TS_INLINE void tangential_spring_constants(const int linear, double k_linear, double g8,
                                           double eta_factor, double r_eff, double d,
                                           double m_eff, double *k_t, double *eta_t)
{
    double k = linear ? k_linear : g8 * sqrt(r_eff * d);
    *k_t = k;
    *eta_t = eta_factor * sqrt(k * m_eff);
}

/* The trial of one contact, before the cap: the tangential part t of the velocity u,
 * the spring s_in (turned into the tangent plane of n) grown by the tangential part of
 * the step's displacement p into s, and the trial force g = k_t s + eta_t t on i.
 * Returns |g|^2. */
TS_INLINE double tangential_trial(const double n[3], const double u[3], const double p[3],
                                  const double s_in[3], double k_t, double eta_t, double t[3],
                                  double s[3], double g[3])
{
    double vn = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    double pn = p[0] * n[0] + p[1] * n[1] + p[2] * n[2];
    for (int a = 0; a < 3; a++) {
        t[a] = u[a] - vn * n[a];
        s[a] = s_in[a] + (p[a] - pn * n[a]);
        g[a] = k_t * s[a] + eta_t * t[a];
    }
    return g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
}

/* One contact: s is its spring already turned into the tangent plane of n (length
 * kept); it grows by the tangential part of the step's displacement p, the trial force
 * on i is F = k_t s + eta_t v_t (v_t: the tangential part of the velocity u), and above
 * mu_s F_n the contact slides: F = mu F_n F/|F|, and the spring relaxes towards holding
 * all of it (below). relax = eta_t / dt. Sets f and s, returns the power F . v_t.
 *
 * The contact is a Kelvin-Voigt element (the spring k_t and the dashpot eta_t side by
 * side) in series with a Coulomb slider. While it sticks the element stretches with the
 * contact points, s' = v_t. While it slides the element carries the capped force F,
 * k_t s + eta_t s' = F: the spring moves towards F / k_t at the rate the dashpot allows,
 * over the time eta_t / k_t. One backward-Euler step of that:
 *     s = (F + (eta_t / dt) s_in) / (k_t + eta_t / dt)        (s_in: the turned spring)
 * which is s = F / k_t without a dashpot, and for any step keeps s between s_in and
 * F / k_t: the spring never stores the dashpot's share of the trial force.
 *
 * Two simpler resets fail. s = F / k_t jumps the spring by eta_t v_t / k_t at every
 * sliding step; a contact at the cap alternates sticking and sliding steps ever more
 * often as the step shrinks, and those jumps add up to an error that does not shrink
 * (Chung & Ooi's oblique alumina impact at 5 degrees: 5 changes between sticking and
 * sliding at any step with this rule, 141 at t_c / 16000 with that one, and a rebound
 * spin 0.19 rad/s apart between t_c / 4000 and t_c / 16000). s = (F - eta_t v_t) / k_t
 * (LAMMPS) stores the dashpot's share with its sign turned: when eta_t v_t > mu F_n the
 * spring points against the force, and a contact sliding throughout passes less than
 * mu times the normal impulse (4 % less in Chung & Ooi's test 6 at e = 0.5). */
TS_INLINE double tangential_spring_force(const double n[3], const double u[3],
                                         const double p[3], double s[3], double k_t,
                                         double eta_t, double relax, double mu,
                                         double mu_static, double f_normal, double f[3])
{
    double t[3], sp[3], g[3];
    double g_2 = tangential_trial(n, u, p, s, k_t, eta_t, t, sp, g);
    double t0 = t[0], t1 = t[1], t2 = t[2], s0 = sp[0], s1 = sp[1], s2 = sp[2];
    double g0 = g[0], g1 = g[1], g2 = g[2];
    double limit = mu_static * f_normal;
    if (g_2 > limit * limit) {
        /* sliding: the dynamic coefficient caps the force; the slider relaxes the spring */
        double scale = mu * f_normal / capped_length(g_2, g0, g1, g2);
        g0 *= scale;
        g1 *= scale;
        g2 *= scale;
        double stiff = k_t + relax;
        double compliance = stiff > 0.0 ? 1.0 / stiff : 0.0; /* one division, not three */
        s0 = (g0 + relax * s[0]) * compliance;
        s1 = (g1 + relax * s[1]) * compliance;
        s2 = (g2 + relax * s[2]) * compliance;
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    f[0] = g0;
    f[1] = g1;
    f[2] = g2;
    return g0 * t0 + g1 * t1 + g2 * t2;
}

/* tangential_spring_force with selects in place of its branch, for a loop over
 * contacts that vectorises (models/tangential_spring.c): every contact takes the sliding
 * arithmetic too, and keeps it where it slides. The same operations on the values kept,
 * so the same bits (tests/test_fused_pass.c holds the batch, which runs this, to the
 * fused pass, which runs tangential_spring_force), except where the trial force's square
 * overflows while it slides (a trial force above 1e154 N): there it returns 1, and the
 * caller runs tangential_spring_force on the contact instead (capped_length). s_in: the
 * spring turned into the plane; s_out, f and *power: the results. A loop over it needs
 * no-trapping-math: the lanes that do not slide may divide by 0. */
TS_INLINE int tangential_spring_lane(const double n[3], const double u[3], const double p[3],
                                     const double s_in[3], double k_t, double eta_t,
                                     double relax, double mu, double mu_static,
                                     double f_normal, double s_out[3], double f[3],
                                     double *power)
{
    double t[3], sp[3], g[3];
    double g_2 = tangential_trial(n, u, p, s_in, k_t, eta_t, t, sp, g);
    double t0 = t[0], t1 = t[1], t2 = t[2], s0 = sp[0], s1 = sp[1], s2 = sp[2];
    double g0 = g[0], g1 = g[1], g2 = g[2];
    double limit = mu_static * f_normal;
    int slide = g_2 > limit * limit;
    double l = sqrt(g_2);
    double scale = mu * f_normal / l;
    double h0 = g0 * scale, h1 = g1 * scale, h2 = g2 * scale;
    double stiff = k_t + relax;
    double compliance = stiff > 0.0 ? 1.0 / stiff : 0.0;
    double c0 = (h0 + relax * s_in[0]) * compliance, c1 = (h1 + relax * s_in[1]) * compliance,
           c2 = (h2 + relax * s_in[2]) * compliance;
    f[0] = slide ? h0 : g0;
    f[1] = slide ? h1 : g1;
    f[2] = slide ? h2 : g2;
    s_out[0] = slide ? c0 : s0;
    s_out[1] = slide ? c1 : s1;
    s_out[2] = slide ? c2 : s2;
    *power = f[0] * t0 + f[1] * t1 + f[2] * t2;
    return slide & !(l < HUGE_VAL);
}

/* One contact whole, as the batch computes it in its blocks: the stiffness and dashpot
 * at overlap d, the spring xi (in and out) turned into the tangent plane of n, then
 * tangential_spring_force. Sets f, returns the power. */
TS_INLINE double tangential_spring_contact(const spring_constants *sc, const int linear,
                                           const double n[3], const double u[3],
                                           const double p[3], double xi[3], double r_eff,
                                           double d, double m_eff, double f_normal, double f[3])
{
    double k_t, eta_t;
    tangential_spring_constants(linear, sc->k_linear, sc->g8, sc->eta_factor, r_eff, d, m_eff,
                                &k_t, &eta_t);
    turn_into_plane(xi, n);
    return tangential_spring_force(n, u, p, xi, k_t, eta_t, eta_t * sc->inv_dt, sc->mu,
                                   sc->mu_static, f_normal, f);
}

#endif
