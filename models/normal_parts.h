/* The parts a normal law is composed of: an elastic part (the spring) and a damping part
 * (the dashpot), each a `static inline` function on one contact, combined at compile
 * time into a law's per-contact force and its batch loop (NORMAL_BATCH). Inlined, the
 * composition is the arithmetic a hand-written law would do, in the same order: the
 * same bits, and loops that vectorise as before.
 *
 * A part comes in two functions:
 *   X_of(coeffs)          its constants, read once per batch from law_coeffs.c (before
 *                         the loop, so that the loop keeps them in registers);
 *   X_force(&consts, &x, ...)  on one contact x:
 *     elastic:  double E_force(const E *s, normal_contact *x, double *k)
 *               returns the spring force and sets k, the spring's prefactor (K in K d^n,
 *               for dashpots that scale with it);
 *     damping:  double D_force(const D *p, const normal_contact *x, double k, double fe)
 *               returns the whole normal force from the spring force fe (most add a
 *               dashpot, fe + c d'; the Hertzian damping laws scale it, fe (1 + chi d'/v0)).
 * A new dashpot is one damping part here and a law that names it (docs/architecture.md).
 *
 * Slots of law_coeffs.c: an elastic part's constants in [0, NORMAL_DAMPING_C0), a
 * damping part's in [NORMAL_DAMPING_C0, LAW_MAX_COEFFS), the floor on v0 in
 * NORMAL_V_FLOOR for either; the coefficient calibrate solves is NORMAL_DAMPING_COEFF. */
#ifndef DEMPACT_NORMAL_PARTS_H
#define DEMPACT_NORMAL_PARTS_H

#include <math.h>
#include <stddef.h>

#include "law.h"

enum {
    /* elastic parts */
    NORMAL_STIFFNESS = 0,  /* a given K (0: Hertz's K_hz of each contact) */
    NORMAL_EXPONENT = 1,   /* n in K d^n */
    NORMAL_K_FACTOR = 2,   /* linear: the factor of its stiffness formula */
    NORMAL_V_FLOOR = 7,    /* v0 = max(v0, v_floor), for either part */
    /* damping parts */
    NORMAL_DAMPING_C0 = 8,
    NORMAL_DAMPING_COEFF = NORMAL_DAMPING_C0, /* chi, xi, eta, alpha, ...: what calibrate solves */
    NORMAL_DAMPING_C1,
    NORMAL_DAMPING_C2,
    NORMAL_DAMPING_C3,
    NORMAL_SLOTS
};
_Static_assert(NORMAL_SLOTS <= LAW_MAX_COEFFS, "the parts' slots fit law_coeffs.c");

/* One contact as the parts see it. v0 is read only by laws that declare
 * LAW_CAP_IMPACT_VELOCITY, the state only by laws with n_state > 0 (NULL otherwise). */
typedef struct normal_contact {
    double d, rate, v0, r_eff, m_eff;
    double *state[LAW_MAX_HISTORY]; /* the contact's history slots, in and out */
    int first;                      /* set by a part that keeps state: first touch */
} normal_contact;

#define NP_INLINE static inline __attribute__((always_inline))

/* ---- elastic parts ------------------------------------------------------------------ */

/* hertz: F = K_hz d^(3/2), K_hz = 4/3 E* sqrt(R*); d^(3/2) as d sqrt(d), which vectorises */
typedef struct hertz_spring {
    double e4; /* 4/3 E* */
} hertz_spring;

NP_INLINE hertz_spring hertz_spring_of(const law_coeffs *c)
{
    return (hertz_spring){4.0 / 3.0 * c->young_eff};
}

NP_INLINE double hertz_spring_force(const hertz_spring *s, normal_contact *x, double *k)
{
    *k = s->e4 * sqrt(x->r_eff);
    return *k * x->d * sqrt(x->d);
}

/* hertz with a given stiffness or exponent: F = K d^n, K given or K_hz, n given or 3/2.
 * K = k_given + k_hertz sqrt(R*) with one of the two 0, which keeps the loop branchless;
 * pow only where n is not 3/2 (a batch splits on n, NORMAL_BATCH_SPLIT). */
typedef struct power_spring {
    double k_given, k_hertz, n;
} power_spring;

NP_INLINE power_spring power_spring_of(const law_coeffs *c)
{
    const double k_given = c->c[NORMAL_STIFFNESS];
    return (power_spring){k_given, k_given > 0.0 ? 0.0 : 4.0 / 3.0 * c->young_eff,
                          c->c[NORMAL_EXPONENT]};
}

NP_INLINE double power_spring_force(const power_spring *s, normal_contact *x, double *k)
{
    *k = s->k_given + s->k_hertz * sqrt(x->r_eff);
    return s->n == 1.5 ? *k * x->d * sqrt(x->d) : *k * pow(x->d, s->n);
}

/* linear: F = K d, K given or from the impact (models/linear.c), fixed at first touch
 * in state slot 0 */
typedef struct linear_spring {
    double k_given, factor, v_floor, young_eff;
} linear_spring;

NP_INLINE linear_spring linear_spring_of(const law_coeffs *c)
{
    return (linear_spring){c->c[NORMAL_STIFFNESS], c->c[NORMAL_K_FACTOR], c->c[NORMAL_V_FLOOR],
                           c->young_eff};
}

/* K of a contact: given, or 1.053 or 1.198 (v0 R* E*^2 sqrt(m*))^(2/5) (linear.c) */
NP_INLINE double linear_spring_stiffness(const linear_spring *s, double r_eff, double m_eff,
                                         double v0)
{
    if (s->k_given > 0.0) return s->k_given;
    double v = fmax(v0, s->v_floor);
    double e = s->young_eff;
    return s->factor * pow(v * r_eff * e * e * sqrt(m_eff), 0.4);
}

NP_INLINE double linear_spring_force(const linear_spring *s, normal_contact *x, double *k)
{
    double *hk = x->state[0];
    x->first = *hk == 0.0;
    if (x->first) *hk = linear_spring_stiffness(s, x->r_eff, x->m_eff, x->v0);
    *k = *hk;
    return *hk * x->d;
}

/* ---- damping parts ------------------------------------------------------------------ */

/* none: the spring alone */
typedef struct no_dashpot {
    char unused;
} no_dashpot;

NP_INLINE no_dashpot no_dashpot_of(const law_coeffs *c) { return (no_dashpot){0}; }

NP_INLINE double no_dashpot_force(const no_dashpot *p, const normal_contact *x, double k,
                                  double fe)
{
    return fe;
}

/* critical_ratio: + xi sqrt(8 m* E* sqrt(R*)) d^(1/4) d' */
typedef struct critical_ratio_dashpot {
    double xi, young_eff;
} critical_ratio_dashpot;

NP_INLINE critical_ratio_dashpot critical_ratio_dashpot_of(const law_coeffs *c)
{
    return (critical_ratio_dashpot){c->c[NORMAL_DAMPING_COEFF], c->young_eff};
}

NP_INLINE double critical_ratio_dashpot_force(const critical_ratio_dashpot *p,
                                              const normal_contact *x, double k, double fe)
{
    double eta = p->xi * sqrt(8.0 * x->m_eff * p->young_eff * sqrt(x->r_eff));
    return fe + eta * sqrt(sqrt(x->d)) * x->rate;
}

/* tti: + eta d^(1/4) d', eta = factor(e) sqrt(m* K) */
typedef struct tti_dashpot {
    double factor;
} tti_dashpot;

NP_INLINE tti_dashpot tti_dashpot_of(const law_coeffs *c)
{
    return (tti_dashpot){c->c[NORMAL_DAMPING_COEFF]};
}

NP_INLINE double tti_dashpot_force(const tti_dashpot *p, const normal_contact *x, double k,
                                   double fe)
{
    double eta = p->factor * sqrt(x->m_eff * k);
    return fe + eta * sqrt(sqrt(x->d)) * x->rate;
}

/* kk: + eta d^(1/2) d' */
typedef struct kk_dashpot {
    double eta;
} kk_dashpot;

NP_INLINE kk_dashpot kk_dashpot_of(const law_coeffs *c)
{
    return (kk_dashpot){c->c[NORMAL_DAMPING_COEFF]};
}

NP_INLINE double kk_dashpot_force(const kk_dashpot *p, const normal_contact *x, double k,
                                  double fe)
{
    return fe + p->eta * sqrt(x->d) * x->rate;
}

/* lh: + eta m* d' */
typedef struct lh_dashpot {
    double eta;
} lh_dashpot;

NP_INLINE lh_dashpot lh_dashpot_of(const law_coeffs *c)
{
    return (lh_dashpot){c->c[NORMAL_DAMPING_COEFF]};
}

NP_INLINE double lh_dashpot_force(const lh_dashpot *p, const normal_contact *x, double k,
                                  double fe)
{
    return fe + p->eta * x->m_eff * x->rate;
}

/* the Hertzian damping laws: x (1 + chi d'/max(v0, v_floor)) */
typedef struct hertzian_dashpot {
    double chi, v_floor;
} hertzian_dashpot;

NP_INLINE hertzian_dashpot hertzian_dashpot_of(const law_coeffs *c)
{
    return (hertzian_dashpot){c->c[NORMAL_DAMPING_COEFF], c->c[NORMAL_V_FLOOR]};
}

NP_INLINE double hertzian_dashpot_force(const hertzian_dashpot *p, const normal_contact *x,
                                        double k, double fe)
{
    double v0 = fmax(x->v0, p->v_floor);
    return fe * (1.0 + p->chi * x->rate / v0);
}

/* zhang: + lambda d^m d', lambda fixed at first touch in state slot 0 (models/zhang.c) */
enum { ZHANG_M = NORMAL_DAMPING_C1, ZHANG_E = NORMAL_DAMPING_C2 };
typedef struct zhang_dashpot {
    double m, n, e, v_floor, prefactor, scale_exponent;
} zhang_dashpot;

NP_INLINE zhang_dashpot zhang_dashpot_of(const law_coeffs *c)
{
    const double m = c->c[ZHANG_M], n = c->c[NORMAL_EXPONENT], e = c->c[ZHANG_E];
    return (zhang_dashpot){m, n, e, c->c[NORMAL_V_FLOOR],
                           0.75 * (m + 1.0) * (1.0 - e) / c->c[NORMAL_DAMPING_COEFF],
                           -(m + 1.0) / (n + 1.0)};
}

NP_INLINE double zhang_dashpot_force(const zhang_dashpot *p, const normal_contact *x, double k,
                                     double fe)
{
    double *lambda = x->state[0];
    if (*lambda == 0.0) { /* first touch (or e = 1, where lambda stays 0) */
        double v0 = fmax(x->v0, p->v_floor), mass = x->m_eff;
        *lambda = p->prefactor * mass * v0 *
                  pow(p->e * mass * (p->n + 1.0) * v0 * v0 / (2.0 * k), p->scale_exponent);
    }
    return fe + *lambda * pow(x->d, p->m) * x->rate;
}

/* linear: + eta d', eta given or sqrt(4 m* K / (1 + beta^2)) from e, fixed at first touch
 * in state slot 1 (after the linear spring's K in slot 0) */
enum { LINEAR_INV_BETA = NORMAL_DAMPING_C1, LINEAR_DAMPING = NORMAL_DAMPING_C2 };
typedef struct linear_dashpot {
    double scale, given, inv_beta;
} linear_dashpot;

NP_INLINE linear_dashpot linear_dashpot_of(const law_coeffs *c)
{
    return (linear_dashpot){c->c[NORMAL_DAMPING_COEFF], c->c[LINEAR_DAMPING],
                            c->c[LINEAR_INV_BETA]};
}

NP_INLINE double linear_dashpot_eta(const linear_dashpot *p, double k, double m_eff)
{
    if (p->given >= 0.0) return p->scale * p->given;
    double ib2 = p->inv_beta * p->inv_beta;
    /* = sqrt(4 m K / (1 + beta^2)) */
    return p->scale * sqrt(4.0 * m_eff * k * ib2 / (1.0 + ib2));
}

NP_INLINE double linear_dashpot_force(const linear_dashpot *p, const normal_contact *x,
                                      double k, double fe)
{
    double *heta = x->state[1];
    if (x->first) *heta = linear_dashpot_eta(p, k, x->m_eff);
    return fe + *heta * x->rate;
}

/* ---- composition ---------------------------------------------------------------------- */

/* Contact i of batch b; v0 and the state only where the law reads them (constants at
 * each use, so the unused loads vanish). */
NP_INLINE normal_contact normal_contact_at(const law_batch *b, size_t i, const int uses_v0,
                                           const int n_state)
{
    normal_contact x = {.d = b->overlap[i], .rate = b->overlap_rate[i],
                        .v0 = uses_v0 ? b->impact_velocity[i] : 0.0, .r_eff = b->r_eff[i],
                        .m_eff = b->m_eff[i]};
    for (int h = 0; h < n_state; h++) x.state[h] = b->history[h] + i;
    return x;
}

/* The force of one contact of the law composing elastic part E with damping part D. */
#define NORMAL_FORCE(E, D, s, p, x)                                                    \
    __extension__({                                                                   \
        double k_;                                                                    \
        double fe_ = E##_force(s, x, &k_);                                            \
        D##_force(p, x, k_, fe_);                                                     \
    })

/* The body of a composed law's batch function: its parts' constants once, then the
 * loop over the contacts. */
#define NORMAL_BATCH(E, D, c, b, uses_v0, n_state)                                     \
    do {                                                                              \
        const E s_ = E##_of(c);                                                       \
        const D p_ = D##_of(c);                                                       \
        for (size_t i_ = 0; i_ < (b)->n; i_++) {                                      \
            normal_contact x_ = normal_contact_at(b, i_, uses_v0, n_state);           \
            (b)->force[i_] = NORMAL_FORCE(E, D, &s_, &p_, &x_);                       \
        }                                                                             \
    } while (0)

/* ---- forms: the compositions the force loop fuses ------------------------------------ */

/* A form names the elastic and damping part types a law composes, whether it reads v0
 * and how many state slots it keeps. A law of a form sets dem_law.form and has for its
 * batch function NORMAL_FORM_BATCH of the form; the force loop's fused passes
 * (engine/step/fused_pass.c) compose the same parts with NORMAL_FORM_FORCE, so that a law
 * is written once and the fused pass and the batch give the same bits.
 * NORMAL_FORM_PARTS_<F>: E, D, uses_v0, n_state. */
#define NORMAL_FORM_PARTS_HERTZ hertz_spring, no_dashpot, 0, 0
#define NORMAL_FORM_PARTS_HERTZ_CRITICAL_RATIO hertz_spring, critical_ratio_dashpot, 0, 0
#define NORMAL_FORM_PARTS_HERTZ_TTI hertz_spring, tti_dashpot, 0, 0
#define NORMAL_FORM_PARTS_HERTZ_KK hertz_spring, kk_dashpot, 0, 0
#define NORMAL_FORM_PARTS_HERTZ_LH hertz_spring, lh_dashpot, 0, 0
#define NORMAL_FORM_PARTS_HERTZIAN power_spring, hertzian_dashpot, 1, 0
#define NORMAL_FORMS(X) X(HERTZ) X(HERTZ_CRITICAL_RATIO) X(HERTZ_TTI) X(HERTZ_KK) X(HERTZ_LH) \
    X(HERTZIAN)

enum normal_form {
    NORMAL_FORM_NONE, /* a law of its own making (linear, zhang, kostek): no fused pass */
#define NORMAL_FORM_ENUM(F) NORMAL_FORM_##F,
    NORMAL_FORMS(NORMAL_FORM_ENUM)
#undef NORMAL_FORM_ENUM
    NORMAL_FORM_COUNT
};

/* The batch function body of form F (a law's `force`). */
#define NORMAL_FORM_BATCH(F, c, b) NORMAL_FORM_BATCH_(c, b, NORMAL_FORM_PARTS_##F)
#define NORMAL_FORM_BATCH_(c, b, ...) NORMAL_FORM_BATCH__(c, b, __VA_ARGS__)
#define NORMAL_FORM_BATCH__(c, b, E, D, uses_v0, n_state) NORMAL_BATCH(E, D, c, b, uses_v0, n_state)

#endif
