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

/* The step's share of the impulse that velocity Verlet misses where a sticking contact
 * starts to slide. While it sticks the force follows the trial T = |k_t s + eta_t v_t|;
 * from the instant T reaches the static limit C_s = mu_s F_n it is the sliding force
 * C_d = mu F_n: the force's slope jumps (a kink) within the step, and the trapezoid
 * (F(t_n) + F(t_n+1)) dt / 2 over the step misses part of its impulse. Taking T and the
 * caps as linear over the step, the kink falls at theta = margin / (margin + excess) of
 * it (margin = C_s - T at the step before, > 0 as it stuck; excess = T - C_s now), and
 * the exact impulse of that force less the trapezoid is
 *     dt [ (1 - theta) margin / 2 + (theta - 1/2) (C_s - C_d) ]
 * (the first term is theta excess / 2: with mu_s = mu it is all). The force stored at the
 * step's end is kicked into the velocities twice, half a step each (this step's last
 * half-kick and the next one's first), so adding this bump [N] to it once delivers the
 * missing impulse, at a timing error of half a step that costs a third-order position
 * error. Without it the rebound spin of an oblique impact converges erratically through
 * the switch: where within a step the kink falls changes with the step
 * (docs/validation.md, "The tangential spring in the stick regime").
 * len: T; limit: C_s; cap: C_d. Only for a contact that slides now and stuck before. */
TS_INLINE double closing_bump(double margin, double len, double limit, double cap)
{
    double theta = margin / (margin + (len - limit));
    return 0.5 * (1.0 - theta) * margin + (theta - 0.5) * (limit - cap);
}

/* One contact: s is its spring already turned into the tangent plane of n (length
 * kept); it grows by the tangential part of the step's displacement p, the trial force
 * on i is F = k_t s + eta_t v_t (v_t: the tangential part of the velocity u), and above
 * mu_s F_n the contact slides: F = mu F_n F/|F|, and the spring relaxes towards holding
 * all of it (below). relax = eta_t / dt. *margin: in, the Coulomb margin mu_s F_n - |F|
 * of the last step (0 if it slid, or is new); out, this step's. A contact that slides
 * now and stuck before gets closing_bump added along F. Sets f and s, returns the power
 * F . v_t.
 *
 * The contact is a Kelvin-Voigt element (the spring k_t and the dashpot eta_t side by
 * side) in series with a Coulomb slider. While it sticks the element stretches with the
 * contact points, s' = v_t. While it slides the element carries the capped force F,
 * k_t s + eta_t s' = F: the spring moves towards F / k_t at the rate the dashpot allows,
 * over the time eta_t / k_t. One backward-Euler step of that:
 *     s = (F + (eta_t / dt) s_in) / (k_t + eta_t / dt)        (s_in: the turned spring)
 * which is s = F / k_t without a dashpot, and for any step keeps s between s_in and
 * F / k_t: the spring never stores the dashpot's share of the trial force (nor the
 * closing bump, which is the integrator's, not the slider's).
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
                                         double mu_static, double f_normal, double *margin,
                                         double f[3])
{
    double t[3], sp[3], g[3];
    double g_2 = tangential_trial(n, u, p, s, k_t, eta_t, t, sp, g);
    double t0 = t[0], t1 = t[1], t2 = t[2], s0 = sp[0], s1 = sp[1], s2 = sp[2];
    double g0 = g[0], g1 = g[1], g2 = g[2];
    double limit = mu_static * f_normal;
    double stuck = *margin;
    if (g_2 > limit * limit) {
        /* sliding: the dynamic coefficient caps the force; the slider relaxes the spring */
        double l = capped_length(g_2, g0, g1, g2), cap = mu * f_normal;
        double scale = cap / l;
        double bump = stuck > 0.0 ? closing_bump(stuck, l, limit, cap) / l : 0.0;
        double h0 = g0 * scale, h1 = g1 * scale, h2 = g2 * scale;
        double stiff = k_t + relax;
        double compliance = stiff > 0.0 ? 1.0 / stiff : 0.0; /* one division, not three */
        s0 = (h0 + relax * s[0]) * compliance;
        s1 = (h1 + relax * s[1]) * compliance;
        s2 = (h2 + relax * s[2]) * compliance;
        g0 = h0 + g0 * bump;
        g1 = h1 + g1 * bump;
        g2 = h2 + g2 * bump;
        *margin = 0.0;
    } else {
        *margin = limit - sqrt(g_2);
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
 * so the same bits (tests/test_friction.c holds the two together, and test_fused_pass.c
 * the batch, which runs this, to the fused pass, which runs tangential_spring_force),
 * except on the two kinds of contact it hands over: it returns 1, and the caller runs
 * tangential_spring_force on the contact instead, for
 *   - a contact that starts to slide (it stuck at the last step: stuck > 0): the closing
 *     bump, a division and a few products that only such contacts need (one step
 *     in a contact's life, or a few), which the lanes would otherwise all pay for;
 *   - a trial force whose square overflows while it slides (above 1e154 N:
 *     capped_length).
 * s_in: the spring turned into the plane; stuck: the last step's margin; s_out, f,
 * *margin and *power: the results. A loop over it needs no-trapping-math: the lanes that
 * do not slide may divide by 0. */
TS_INLINE int tangential_spring_lane(const double n[3], const double u[3], const double p[3],
                                     const double s_in[3], double k_t, double eta_t,
                                     double relax, double mu, double mu_static,
                                     double f_normal, double stuck, double s_out[3],
                                     double f[3], double *margin, double *power)
{
    double t[3], sp[3], g[3];
    double g_2 = tangential_trial(n, u, p, s_in, k_t, eta_t, t, sp, g);
    double t0 = t[0], t1 = t[1], t2 = t[2], s0 = sp[0], s1 = sp[1], s2 = sp[2];
    double g0 = g[0], g1 = g[1], g2 = g[2];
    double limit = mu_static * f_normal;
    int slide = g_2 > limit * limit;
    double l = sqrt(g_2), cap = mu * f_normal;
    double scale = cap / l;
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
    *margin = slide ? 0.0 : limit - l;
    *power = f[0] * t0 + f[1] * t1 + f[2] * t2;
    return slide & ((stuck > 0.0) | !(l < HUGE_VAL));
}

/* One contact whole, as the batch computes it in its blocks: the stiffness and dashpot
 * at overlap d, the spring xi (in and out) turned into the tangent plane of n, then
 * tangential_spring_force (margin in and out). Sets f, returns the power. */
TS_INLINE double tangential_spring_contact(const spring_constants *sc, const int linear,
                                           const double n[3], const double u[3],
                                           const double p[3], double xi[3], double r_eff,
                                           double d, double m_eff, double f_normal,
                                           double *margin, double f[3])
{
    double k_t, eta_t;
    tangential_spring_constants(linear, sc->k_linear, sc->g8, sc->eta_factor, r_eff, d, m_eff,
                                &k_t, &eta_t);
    turn_into_plane(xi, n);
    return tangential_spring_force(n, u, p, xi, k_t, eta_t, eta_t * sc->inv_dt, sc->mu,
                                   sc->mu_static, f_normal, margin, f);
}

#endif
