/* Tangential laws `mindlin` (the default) and `linear`: a Cundall-Strack spring with a
 * Coulomb slider.
 *
 * The spring xi is the displacement of j's contact point relative to i's, accumulated
 * since first touch, turned into the current tangent plane every step (its length kept),
 * so that a pair that rolls around each other keeps its stored force. The trial force on
 * i is F = k_t xi + eta_t v_t (v_t: tangential velocity of j's contact point relative
 * to i's);
 *   mindlin (no slip):  k_t = 8 G* sqrt(R* d),  eta_t = 2 sqrt(5/6) beta sqrt(k_t m*)
 *   linear:             k_t given,             eta_t = 2 beta sqrt(k_t m*)
 * with beta = -ln e_t / sqrt(ln^2 e_t + pi^2) from the tangential restitution e_t (by
 * default the normal law's restitution, so the tangential dashpot follows the normal
 * one). If |F| exceeds mu_s F_n the contact slides, F = mu F_n F/|F|, and xi relaxes
 * towards F / k_t (tangential_spring_force): the spring holds the sliding force, never the
 * dashpot's share, so the contact slides, passing mu F_n, for as long as its surfaces
 * slip. At the step where a sticking contact starts to slide the force gets the impulse
 * the step's trapezoid misses at that kink (closing_bump), from the Coulomb margin each
 * contact keeps (friction_batch.margin).
 *
 * The spring grows by the step's relative displacement of the contact points, taken by
 * the engine from the mid-step velocities (second order in dt), and a contact born
 * during the step only by the part of the step it has existed (engine/step/pair_geometry.h);
 * the dashpot takes the predicted end-of-step velocity. */
#include "friction_law.h"
#include "friction_kernels.h"
#include "tangential_spring.h"

#include <math.h>
#include <stdio.h>

#define PARAM_STATIC                                                                    \
    {"static", 0.0, "-", "static Coulomb coefficient mu_s (>= coefficient); 0: the coefficient", \
     NULL, 0.0, FRICTION_MAX_COEFFICIENT}
#define PARAM_TANGENTIAL_RESTITUTION                                                    \
    {"restitution", 0.0, "-", "tangential restitution e_t of the dashpot; 0: the normal law's e", \
     NULL, 1e-6, 1.0}

static const law_param mindlin_params[] = {PARAM_STATIC, PARAM_TANGENTIAL_RESTITUTION};
static const law_param linear_params[] = {
    {"stiffness", NAN, "N/m", "tangential spring k_t", NULL, 0.0, FRICTION_MAX_STIFFNESS},
    PARAM_STATIC, PARAM_TANGENTIAL_RESTITUTION};

_Static_assert(SPRING_BETA < FRICTION_MAX_COEFFS, "the constants fit friction_coeffs.t");

/* mu_static below mu is refused (the parameter at index k_static) */
static int spring_setup(double mu_static, int k_static, double k_t, double e_t,
                        const friction_pair *pair, friction_coeffs *fc, law_error *err)
{
    if (mu_static > 0.0 && mu_static < fc->mu)
        return law_fail(err, k_static, "is below the (dynamic) coefficient %g", fc->mu);
    fc->t[SPRING_MU_STATIC] = mu_static > 0.0 ? mu_static : fc->mu;
    fc->t[SPRING_K_T] = k_t;
    fc->t[SPRING_BETA] = friction_damping_factor(friction_restitution(e_t, pair->law_restitution));
    return 0;
}

static int mindlin_setup(const double *params, const friction_pair *pair, friction_coeffs *fc,
                         law_error *err)
{
    return spring_setup(params[0], 0, 0.0, params[1], pair, fc, err);
}

static int linear_setup(const double *params, const friction_pair *pair, friction_coeffs *fc,
                        law_error *err)
{
    if (!(params[0] > 0.0)) return law_fail(err, 0, "must be above 0");
    return spring_setup(params[1], 1, params[0], params[2], pair, fc, err);
}

/* The spring-slider of a batch of contacts: per contact, turn xi into the tangent plane
 * keeping its length, add the tangential part of the step's displacement, take
 * F = k_t xi + eta_t v_t and cap it at mu F_n (with the closing bump where it starts to
 * slide, b->margin). */
/* no-trapping-math: tangential_spring_lane's (its lanes that do not slide divide by 0) */
__attribute__((optimize("no-trapping-math"))) static inline __attribute__((always_inline)) void
spring_batch(const friction_coeffs *fc, const friction_batch *b, const int linear)
{
    const double *restrict n0 = b->normal[0], *restrict n1 = b->normal[1],
                 *restrict n2 = b->normal[2];
    const double *restrict u0 = b->v_rel[0], *restrict u1 = b->v_rel[1],
                 *restrict u2 = b->v_rel[2];
    const double *restrict p0 = b->disp[0], *restrict p1 = b->disp[1],
                 *restrict p2 = b->disp[2];
    const double *restrict d = b->d, *restrict r_eff = b->r_eff, *restrict m_eff = b->m_eff;
    const double *restrict f_normal = b->f_normal;
    double *restrict x0 = b->xi[0], *restrict x1 = b->xi[1], *restrict x2 = b->xi[2];
    double *restrict kept = b->margin;
    const uint32_t *restrict slot = b->slot;
    double *restrict f0 = b->f_t[0], *restrict f1 = b->f_t[1], *restrict f2 = b->f_t[2];
    double *restrict power = b->power[0];
    const spring_constants sc = tangential_spring_of(fc, linear, b->dt);
    const double inv_dt = sc.inv_dt;
    const double k_linear = sc.k_linear, g8 = sc.g8, eta_factor = sc.eta_factor;
    const double mu = sc.mu, mu_static = sc.mu_static;
    /* tangential_spring_contact for each contact, in blocks: the stiffness and dashpot of
     * each contact first, TANGENTIAL_BLOCK at a time, in a loop of their own: it
     * vectorises, and the main loop no longer waits on two square roots per contact. */
    enum { TANGENTIAL_BLOCK = 64 };
    double stiffness[TANGENTIAL_BLOCK], damping[TANGENTIAL_BLOCK];
    double turned[3][TANGENTIAL_BLOCK], len2[TANGENTIAL_BLOCK], now2[TANGENTIAL_BLOCK];
    double restore[TANGENTIAL_BLOCK], spring[3][TANGENTIAL_BLOCK];
    double stuck[TANGENTIAL_BLOCK], margin[TANGENTIAL_BLOCK];
    unsigned char handed[TANGENTIAL_BLOCK]; /* tangential_spring_lane's hand-overs */
    for (size_t lo = 0; lo < b->n; lo += TANGENTIAL_BLOCK) {
        const size_t hi = lo + TANGENTIAL_BLOCK < b->n ? lo + TANGENTIAL_BLOCK : b->n;
        for (size_t q = lo; q < hi; q++)
            tangential_spring_constants(linear, k_linear, g8, eta_factor, r_eff[q], d[q],
                                        m_eff[q], &stiffness[q - lo], &damping[q - lo]);
        /* turn_into_plane's halves (plane_part, then the rescaling in a loop that
         * vectorises); now2 = 0 marks a spring left as plane_part left it */
        for (size_t q = lo; q < hi; q++) {
            uint32_t k = slot[q];
            double v[3] = {x0[k], x1[k], x2[k]}, normal[3] = {n0[q], n1[q], n2[q]};
            now2[q - lo] = plane_part(v, normal, &len2[q - lo]);
            turned[0][q - lo] = v[0]; turned[1][q - lo] = v[1]; turned[2][q - lo] = v[2];
            stuck[q - lo] = kept[k];
        }
        for (size_t e = 0; e < hi - lo; e++) {
            double w2 = now2[e] > 0.0 ? now2[e] : 1.0;
            restore[e] = sqrt(len2[e] / w2);
        }
        /* the spring turned (rescaled where plane_part left it to be), then the force,
         * branch-free (tangential_spring_lane): a loop that vectorises */
        int any = 0;
        for (size_t e = 0; e < hi - lo; e++)
            for (int a = 0; a < 3; a++)
                turned[a][e] = now2[e] > 0.0 ? turned[a][e] * restore[e] : turned[a][e];
        #pragma GCC ivdep /* GCC does not read restrict on locals: each array is its own */
        for (size_t q = lo; q < hi; q++) {
            const size_t e = q - lo;
            const double n[3] = {n0[q], n1[q], n2[q]}, u[3] = {u0[q], u1[q], u2[q]},
                         p[3] = {p0[q], p1[q], p2[q]};
            const double sp[3] = {turned[0][e], turned[1][e], turned[2][e]};
            double g[3], s_new[3], pw;
            handed[e] = (unsigned char)tangential_spring_lane(
                n, u, p, sp, stiffness[e], damping[e], damping[e] * inv_dt, mu, mu_static,
                f_normal[q], stuck[e], s_new, g, &margin[e], &pw);
            any |= handed[e];
            for (int a = 0; a < 3; a++) spring[a][e] = s_new[a];
            f0[q] = g[0];
            f1[q] = g[1];
            f2[q] = g[2];
            power[q] = pw;
        }
        for (size_t q = lo; q < hi; q++) {
            const size_t e = q - lo;
            uint32_t k = slot[q];
            if (any && handed[e]) { /* starting to slide, or a trial force above 1e154 N */
                const double n[3] = {n0[q], n1[q], n2[q]}, u[3] = {u0[q], u1[q], u2[q]},
                             p[3] = {p0[q], p1[q], p2[q]};
                double sp[3] = {turned[0][e], turned[1][e], turned[2][e]}, g[3];
                margin[e] = stuck[e];
                power[q] = tangential_spring_force(n, u, p, sp, stiffness[e], damping[e],
                                                   damping[e] * inv_dt, mu, mu_static,
                                                   f_normal[q], &margin[e], g);
                f0[q] = g[0];
                f1[q] = g[1];
                f2[q] = g[2];
                for (int a = 0; a < 3; a++) spring[a][e] = sp[a];
            }
            x0[k] = spring[0][e];
            x1[k] = spring[1][e];
            x2[k] = spring[2][e];
            kept[k] = margin[e];
        }
    }
}

__attribute__((optimize("no-trapping-math")))
static void mindlin_batch(const friction_coeffs *fc, const friction_batch *b)
{
    spring_batch(fc, b, 0);
}

__attribute__((optimize("no-trapping-math")))
static void linear_batch(const friction_coeffs *fc, const friction_batch *b)
{
    spring_batch(fc, b, 1);
}

static double mindlin_energy(const friction_coeffs *fc, double d, double r_eff,
                             const double xi[3], const double state[FRICTION_SLIP_HISTORY])
{
    (void)state;
    return 0.5 * (8.0 * fc->shear_eff * sqrt(r_eff * d)) * friction_dot(xi, xi);
}

static double linear_energy(const friction_coeffs *fc, double d, double r_eff,
                            const double xi[3], const double state[FRICTION_SLIP_HISTORY])
{
    (void)d, (void)r_eff, (void)state;
    return 0.5 * fc->t[SPRING_K_T] * friction_dot(xi, xi);
}

/* The spring and dashpot the batch computes for a contact at overlap d, for the step. */
static void mindlin_stiffness(const friction_coeffs *fc, double d, double r_eff, double m_eff,
                              double *k, double *c)
{
    *k = 8.0 * fc->shear_eff * sqrt(r_eff * d);
    *c = 2.0 * sqrt(5.0 / 6.0) * fc->t[SPRING_BETA] * sqrt(*k * m_eff);
}

static void linear_stiffness(const friction_coeffs *fc, double d, double r_eff, double m_eff,
                             double *k, double *c)
{
    (void)d, (void)r_eff;
    *k = fc->t[SPRING_K_T];
    *c = 2.0 * fc->t[SPRING_BETA] * sqrt(*k * m_eff);
}

const tangential_law tangential_mindlin = {
    .name = "mindlin",
    .summary = "F = k_t xi + eta_t v_t capped at mu F_n, k_t = 8 G* sqrt(R* d) (Mindlin, no slip), "
               "eta_t = 2 sqrt(5/6) beta(e_t) sqrt(k_t m*)",
    .source = "Cundall P.A., Strack O.D.L. (1979), A discrete numerical model for granular "
              "assemblies, Geotechnique 29(1), 47-65, doi:10.1680/geot.1979.29.1.47\n"
              "Mindlin R.D. (1949), Compliance of elastic bodies in contact, J. Appl. Mech. 16, "
              "259-268",
    .params = mindlin_params,
    .n_params = 2,
    .caps = LAW_CAP_STEP_SPRING | LAW_CAP_ENERGY,
    .setup = mindlin_setup,
    .batch = mindlin_batch,
    .spring_energy = mindlin_energy,
    .stiffness = mindlin_stiffness,
    .damping_key = "restitution",
};

const tangential_law tangential_linear = {
    .name = "linear",
    .summary = "F = k_t xi + eta_t v_t capped at mu F_n, k_t given, "
               "eta_t = 2 beta(e_t) sqrt(k_t m*)",
    .source = "Cundall P.A., Strack O.D.L. (1979), A discrete numerical model for granular "
              "assemblies, Geotechnique 29(1), 47-65, doi:10.1680/geot.1979.29.1.47",
    .params = linear_params,
    .n_params = 3,
    .caps = LAW_CAP_STEP_SPRING | LAW_CAP_ENERGY,
    .setup = linear_setup,
    .batch = linear_batch,
    .spring_energy = linear_energy,
    .stiffness = linear_stiffness,
    .stiffness_key = "stiffness",
    .damping_key = "restitution",
};
