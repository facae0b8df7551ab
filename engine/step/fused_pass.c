/* The fused passes (fused_pass.h).
 *
 * fused_chunk is the pass, written once; the flags `form` and `variant` are constants
 * at each of its instantiations below (one per row of NORMAL_FORMS and friction
 * variant), so each compiles to a loop with only its law's arithmetic. Each pair sees
 * the operations the generic passes give it (pair_geometry.h pass 3 and
 * contact_motion, the law's NORMAL_FORCE, cohesion removal, tangential_spring_contact
 * (whose cap the batch runs as selects, tangential_spring_lane: the same values),
 * rolling_constant_torque, contact_ends.h, contact_result and delivery_pair), in the
 * same order: the same bits, which tests/test_fused_pass.c checks law by law. */
#include "fused_pass.h"

#include <math.h>
#include <string.h>

#include "contact_ends.h"
#include "friction.h"
#include "models/normal_parts.h"
#include "models/rolling_constant.h"
#include "models/tangential_spring.h"
#include "pair_geometry.h"

enum { FUSED_FRICTIONLESS, FUSED_MINDLIN, FUSED_MINDLIN_CONSTANT, FUSED_VARIANTS };

/* ---- the forms' constants and force, by form (a constant at each use) ---------------- */

/* E, D, uses_v0, n_state of a row of NORMAL_FORMS */
#define FORM_ELASTIC(E, D, V0, NS) E
#define FORM_DAMPING(E, D, V0, NS) D
#define FORM_USES_V0(E, D, V0, NS) V0
#define FORM_N_STATE(E, D, V0, NS) NS
#define FORM_ELASTIC_OF(E, D, V0, NS) E##_of
#define FORM_DAMPING_OF(E, D, V0, NS) D##_of
#define FORM_FIELD(F, WHAT) FORM_FIELD_(WHAT, NORMAL_FORM_PARTS_##F)
#define FORM_FIELD_(WHAT, ...) WHAT(__VA_ARGS__)

/* The parts' constants of every form (one is filled: the chunk's law's). */
typedef union form_constants {
#define FORM_MEMBER(F)                                                                     \
    struct {                                                                              \
        FORM_FIELD(F, FORM_ELASTIC) s;                                                   \
        FORM_FIELD(F, FORM_DAMPING) p;                                                   \
    } F;
    NORMAL_FORMS(FORM_MEMBER)
#undef FORM_MEMBER
} form_constants;

static inline __attribute__((always_inline)) form_constants
form_constants_of(const int form, const law_coeffs *c)
{
    form_constants k;
    memset(&k, 0, sizeof k);
    switch (form) {
#define FORM_CASE(F)                                                                       \
    case NORMAL_FORM_##F:                                                                 \
        k.F.s = FORM_FIELD(F, FORM_ELASTIC_OF)(c);                                       \
        k.F.p = FORM_FIELD(F, FORM_DAMPING_OF)(c);                                       \
        break;
        NORMAL_FORMS(FORM_CASE)
#undef FORM_CASE
    }
    return k;
}

static inline __attribute__((always_inline)) double
form_force(const int form, const form_constants *k, normal_contact *x)
{
    switch (form) {
#define FORM_CASE(F)                                                                       \
    case NORMAL_FORM_##F:                                                                 \
        return FORM_FORCE_(F, NORMAL_FORM_PARTS_##F);
#define FORM_FORCE_(F, ...) FORM_FORCE__(F, __VA_ARGS__)
#define FORM_FORCE__(F, E, D, V0, NS) NORMAL_FORCE(E, D, &k->F.s, &k->F.p, x)
        NORMAL_FORMS(FORM_CASE)
#undef FORM_CASE
    }
    return NAN;
}

static inline __attribute__((always_inline)) int form_uses_v0(const int form)
{
    switch (form) {
#define FORM_CASE(F) case NORMAL_FORM_##F: return FORM_FIELD(F, FORM_USES_V0);
        NORMAL_FORMS(FORM_CASE)
#undef FORM_CASE
    }
    return 0;
}

static inline __attribute__((always_inline)) int form_n_state(const int form)
{
    switch (form) {
#define FORM_CASE(F) case NORMAL_FORM_##F: return FORM_FIELD(F, FORM_N_STATE);
        NORMAL_FORMS(FORM_CASE)
#undef FORM_CASE
    }
    return 0;
}

/* ---- the pass ----------------------------------------------------------------------- */

/* The force at a contact's first or last step (contact_ends.h), for the one contact: its
 * law's batch of one. Out of line: few contacts start or end in a step. */
__attribute__((noinline)) static double
fused_end(contact_list *c, const law_instance *li, int n_state, double dt, size_t k, int fresh,
          int ending, double d, double rate, double v0, double r_eff, double m_eff, double f)
{
    law_batch one = {.n = 1, .overlap = &d, .overlap_rate = &rate, .impact_velocity = &v0,
                     .r_eff = &r_eff, .m_eff = &m_eff};
    for (int h = 0; h < n_state; h++) one.history[h] = c->history[h] + k;
    if (fresh) f = first_touch_force(li, &one, NULL, 0, n_state, dt, f);
    if (ending) {
        int ends;
        f = separation_force(li, &one, NULL, 0, n_state, dt, f, &ends);
        if (ends) c->touching[k] = CONTACT_ENDING;
    }
    return f;
}

/* no-trapping-math, as rolling_constant_torque's (models/rolling_constant.h), which it
 * inlines */
__attribute__((optimize("no-trapping-math"))) static inline __attribute__((always_inline)) void
fused_chunk(const sim *s, contact_list *c, chunk_scratch *cs, size_t start,
            const law_instance *li, double work[SIM_WORK_KINDS], const force_sums *sums,
            const int form, const int variant)
{
    const int friction = variant != FUSED_FRICTIONLESS;
    const int rolling = variant == FUSED_MINDLIN_CONSTANT;
    const int torques = friction; /* a frictionless pass serves lists without friction */
    const int uses_v0 = form_uses_v0(form), n_state = form_n_state(form);
    const particle_store *p = &s->p;
    const double *restrict vx = p->vx, *restrict vy = p->vy, *restrict vz = p->vz;
    const double *restrict radius = p->radius, *restrict mass = p->mass;
    const uint32_t *restrict list_i = c->i + start, *restrict list_j = c->j + start;
    const uint32_t *restrict owner = c->owner_j, *restrict cross = c->cross_slot;
    const double *restrict sep_x = cs->sep[0], *restrict sep_y = cs->sep[1],
                           *restrict sep_z = cs->sep[2], *restrict dist = cs->dist,
                           *restrict overlap = cs->overlap;
    const uint32_t *restrict slot = cs->slot, *restrict first_touch = cs->first_touch;
    double *restrict impact = c->impact_velocity;
    const size_t n = cs->n, n_first = cs->n_first;
    const double dt = s->dt;
    cs->worst = 0.0;
    if (n == 0) return;

    const form_constants fk = form_constants_of(form, &li->coeffs);
    const int cohesion_removal = li->coeffs.cohesion_removal;
    spring_constants sc = {0};
    if (friction) sc = tangential_spring_of(&li->friction, 0, dt);
    const double mu_r = li->friction.mu_r;
    const result_context rc = {.nh = n_state, .dt = dt, .work = work,
                               .work_kind = work_kind_of(li)};
    result_context r = work_open(&rc);
    if (friction) { /* the partners' mid-step velocities and spins: particle_point_motion */
        const double *mid[6] = {p->vhx, p->vhy, p->vhz, p->whx, p->why, p->whz};
        for (size_t m = 0; m < n; m++)
            for (int a = 0; a < 6; a++) __builtin_prefetch(&mid[a][owner[slot[m]]]);
        const double *spin[3] = {p->wx, p->wy, p->wz};
        for (size_t m = 0; m < n; m++)
            for (int a = 0; a < 3; a++) __builtin_prefetch(&spin[a][c->j[slot[m]]]);
    }
    delivery dl;
    delivery_open(&dl, sums, c, c->i[slot[0]], torques, 0);
    double worst = 0.0;
    size_t next_first = 0;
    for (size_t m = 0; m < n; m++) {
        const uint32_t k = slot[m], q = k - (uint32_t)start, i = list_i[q], j = list_j[q];
        const int fresh = next_first < n_first && first_touch[next_first] == m;
        next_first += (size_t)fresh;

        /* the geometry (particle_pair_touching) */
        double inv = 1.0 / dist[q], sum_r = radius[i] + radius[j];
        const double nrm[3] = {sep_x[q] * inv, sep_y[q] * inv, sep_z[q] * inv};
        double rate = -((vx[j] - vx[i]) * nrm[0] + (vy[j] - vy[i]) * nrm[1] +
                        (vz[j] - vz[i]) * nrm[2]);
        double sum_m = mass[i] + mass[j], inv_both = 1.0 / (sum_r * sum_m);
        double r_eff = radius[i] * radius[j] * sum_m * inv_both;
        double m_eff = mass[i] * mass[j] * sum_r * inv_both;
        double d = overlap[q];
        worst = d > worst ? d : worst;
        double v0 = 0.0;
        if (impact) {
            if (fresh) impact[k] = rate;
            v0 = impact[k];
        }
        point_motion pm = {0};
        if (friction) {
            contact_motion(s, nrm, d, rate, i, j, owner[k], 0, rolling, 0, &pm);
            if (fresh) touch_span(nrm, d, pm.disp, pm.turn, 0);
        }

        /* the normal force (the law's batch, then cohesion removal) */
        normal_contact x = {.d = d, .rate = rate, .v0 = uses_v0 ? v0 : 0.0, .r_eff = r_eff,
                            .m_eff = m_eff};
        for (int h = 0; h < n_state; h++) x.state[h] = c->history[h] + k;
        double f = form_force(form, &fk, &x);
        if (cohesion_removal) f = f < 0.0 ? 0.0 : f;

        /* friction (friction_force_batch), capped by the force at the instant */
        double f_t[3] = {0.0, 0.0, 0.0}, m_r[3] = {0.0, 0.0, 0.0}, power[2] = {0.0, 0.0};
        if (friction) {
            double f_normal = f > 0.0 ? f : 0.0;
            double xi[3] = {c->tangential[0][k], c->tangential[1][k], c->tangential[2][k]};
            power[0] = tangential_spring_contact(&sc, 0, nrm, pm.v_rel, pm.disp, xi, r_eff, d,
                                                 m_eff, f_normal, &c->coulomb_margin[k], f_t);
            for (int a = 0; a < 3; a++) c->tangential[a][k] = xi[a];
            if (rolling)
                power[1] = rolling_constant_torque(mu_r * r_eff * f_normal, nrm, pm.w_rel, m_r);
        }

        /* the first and last step (contact_ends) */
        const int ending = (rate < 0.0) & (-rate * dt >= 0.5 * d);
        if (__builtin_expect(fresh | ending, 0))
            f = fused_end(c, li, n_state, dt, k, fresh, ending, d, rate, v0, r_eff, m_eff, f);

        /* the results (contact_result) and where they go (delivery_pair) */
        if (rc.work_kind >= 0) r.normal += f * rate * dt;
        if (friction) r.tangential += power[0] * dt;
        if (rolling) r.rolling += power[1] * dt;
        double f_i[3], t_i[3], t_j[3];
        for (int a = 0; a < 3; a++) f_i[a] = -f * nrm[a] + f_t[a];
        if (torques) {
            double nxf[3] = {nrm[1] * f_t[2] - nrm[2] * f_t[1], nrm[2] * f_t[0] - nrm[0] * f_t[2],
                             nrm[0] * f_t[1] - nrm[1] * f_t[0]};
            for (int a = 0; a < 3; a++) {
                t_i[a] = pm.arm_i * nxf[a] + m_r[a];
                t_j[a] = pm.arm_j * nxf[a] - m_r[a];
            }
        }
        delivery_pair(&dl, k, i, owner[k], cross[k], f_i, t_i, t_j, torques, 0);
    }
    delivery_flush(&dl, torques, 0);
    work_close(&r);
    cs->worst = worst;
}

/* ---- the instantiations ------------------------------------------------------------ */

typedef void (*fused_fn)(const sim *, contact_list *, chunk_scratch *, size_t,
                         const law_instance *, double *, const force_sums *);

#define FUSED_INSTANCE(F, V)                                                               \
    static void fused_##F##_##V(const sim *s, contact_list *c, chunk_scratch *cs,           \
                                size_t start, const law_instance *li, double *work,          \
                                const force_sums *sums)                                    \
    {                                                                                     \
        fused_chunk(s, c, cs, start, li, work, sums, NORMAL_FORM_##F, V);                  \
    }
#define FUSED_INSTANCES(F)                                                                 \
    FUSED_INSTANCE(F, FUSED_FRICTIONLESS)                                                  \
    FUSED_INSTANCE(F, FUSED_MINDLIN)                                                       \
    FUSED_INSTANCE(F, FUSED_MINDLIN_CONSTANT)
NORMAL_FORMS(FUSED_INSTANCES)

/* [form - 1][variant] */
static const fused_fn fused_table[NORMAL_FORM_COUNT - 1][FUSED_VARIANTS] = {
#define FUSED_ROW(F)                                                                       \
    [NORMAL_FORM_##F - 1] = {fused_##F##_FUSED_FRICTIONLESS, fused_##F##_FUSED_MINDLIN,    \
                             fused_##F##_FUSED_MINDLIN_CONSTANT},
    NORMAL_FORMS(FUSED_ROW)
#undef FUSED_ROW
};

int fused_pass_find(const law_instance *li)
{
    if (!li->law || li->law->form <= NORMAL_FORM_NONE || li->law->form >= NORMAL_FORM_COUNT)
        return 0;
    const friction_coeffs *fc = &li->friction;
    int variant;
    if (!fc->active)
        variant = FUSED_FRICTIONLESS;
    else if (fc->tangential != tangential_law_find("mindlin"))
        return 0;
    else if (!fc->rolling)
        variant = FUSED_MINDLIN;
    else if (fc->rolling == rolling_law_find("constant"))
        variant = FUSED_MINDLIN_CONSTANT;
    else
        return 0;
    return 1 + (li->law->form - 1) * FUSED_VARIANTS + variant;
}

/* Where the fused pass runs by default (PASSES_AUTO): where it measured faster than the
 * generic passes (docs/performance.md, "Fused and generic passes"). */
static const int fused_by_default[FUSED_VARIANTS] = {
    [FUSED_FRICTIONLESS] = 1,
    [FUSED_MINDLIN] = 0,
    [FUSED_MINDLIN_CONSTANT] = 0,
};

int fused_pass_serves(int fused, int has_friction, force_passes passes)
{
    int variant = (fused - 1) % FUSED_VARIANTS;
    if (variant == FUSED_FRICTIONLESS && has_friction) return 0;
    return passes == PASSES_FUSED || fused_by_default[variant];
}

void fused_pass_run(const sim *s, contact_list *c, chunk_scratch *cs, size_t start,
                    const law_instance *li, double work[SIM_WORK_KINDS],
                    const force_sums *sums)
{
    int k = li->fused - 1;
    fused_table[k / FUSED_VARIANTS][k % FUSED_VARIANTS](s, c, cs, start, li, work, sums);
}
