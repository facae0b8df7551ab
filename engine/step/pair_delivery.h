/* Where the force loop puts each contact's results: the work it books (result_context)
 * and the forces and torques it adds to the particles (delivery), shared by the loop's
 * generic passes (force_loop.c) and its fused passes (fused_pass.c), so that both add
 * the same terms in the same order: the same bits. Static functions, engine-internal. */
#ifndef DEMPACT_PAIR_DELIVERY_H
#define DEMPACT_PAIR_DELIVERY_H

#include <stdint.h>

#include "engine/exact_sum.h"
#include "engine/neighbours/contacts.h"
#include "engine/sim.h"

/* Where a chunk of particle pairs puts its forces: the force and torque sums of the
 * particles (local particles only). NULL for a wall list, whose forces and torques stay
 * on its pairs until integrate_add_stored_forces. */
typedef struct force_sums {
    double *f[3], *t[3];
} force_sums;

/* What a law's batch gives contact q (chunk slot m = bs->from[q]): the force on i and,
 * with `torques` (the list has friction), the torques on i and j about their centres;
 * writes back the law's history slots and adds the work done during this step to
 * work[]. `friction` (the law has it) and `rolling` (it has a rolling torque: bs->m_r
 * and power[1] are set) are constants at each call, as are the other flags below, so
 * each case compiles to its own loop. */
typedef struct result_context {
    int nh, work_kind; /* work_kind -1: a conservative law, no work booked */
    double dt, *work;
    /* the sums of work[work_kind], work[SIM_WORK_TANGENTIAL] and work[SIM_WORK_ROLLING]
     * while a loop adds to them (work_open, work_close): in registers, where work[]
     * might alias the forces the loop stores; the same additions in the same order */
    double normal, tangential, rolling;
    /* with sim_config.reproducible: the unit's exact sums of each kind of work
     * (exact_sum.h), which take every contact's work instead of the three above, so
     * that how the contacts fall into units and chunks does not count */
    exact_sum *exact;
    /* ... which books only the pairs whose first particle is this rank's (below
     * `own`): a pair listed under another rank's particle is that rank's to book */
    size_t own;
} result_context;

/* The kind of work a law instance's contacts book (SIM_WORK_*), or -1: none (a
 * conservative law without adhesion; an adhesion's pull-off loses energy, which the
 * normal work books: energy.c keeps the stored energy of such contacts there too). */
static inline int work_kind_of(const law_instance *li)
{
    const law_plugin *p = &li->law->plugin;
    return law_has(p, LAW_CAP_PLASTIC)                                ? SIM_WORK_PLASTIC
           : law_has(p, LAW_CAP_CONSERVATIVE) && !li->adhesion.law ? -1
                                                                     : SIM_WORK_NORMAL;
}

/* Adds one contact's work of `kind` to its sum: plain (`sum`), or exactly (`exact`, a
 * constant at each call: rc->exact is set). */
static inline __attribute__((always_inline)) void
add_work(result_context *rc, int kind, double term, double *sum, const int exact)
{
    if (exact) exact_sum_add(&rc->exact[kind], term);
    else *sum += term;
}

static inline __attribute__((always_inline)) result_context work_open(const result_context *rc)
{
    result_context r = *rc;
    r.normal = rc->work_kind >= 0 ? rc->work[rc->work_kind] : 0.0;
    r.tangential = rc->work[SIM_WORK_TANGENTIAL];
    r.rolling = rc->work[SIM_WORK_ROLLING];
    return r;
}

static inline __attribute__((always_inline)) void work_close(const result_context *r)
{
    if (r->work_kind >= 0) r->work[r->work_kind] = r->normal;
    r->work[SIM_WORK_TANGENTIAL] = r->tangential;
    r->work[SIM_WORK_ROLLING] = r->rolling;
}

/* Adds a chunk's particle pairs' forces and torques, in list order, to the particles:
 * each pair's force on i is added to i and, within the block, minus it to j; a cross
 * pair's force and its torque on j stay on its cross slot (c->cross_force,
 * c->cross_torque) for integrate_add_stored_forces. Where the list records its forces
 * (contact_list.records_forces) each pair's force on i is also kept on the pair
 * (c->force), for its readers; otherwise pair_f is NULL and nothing is kept.
 * A particle's pairs are consecutive in the list: its side is summed in registers
 * (f_i, t_i) and added once. Its partners have higher indices (particle_candidates), so
 * none of them is the particle whose sums are held.
 * Ordered by id (`by_id`: every pair a cross pair, contact_list_index_cross), the
 * particle's sums are taken into the registers and put back instead: each force is then
 * added to the sum on its own, in list order, wherever the chunks split the particle's
 * pairs (their boundaries depend on how the particles are numbered).
 * `torques` and `by_id` are constants at each call, so each case compiles to its own
 * loop (the default order must not pay for by_id). */
typedef struct delivery {
    double *f[3], *t[3];        /* the particles' sums */
    double *pair_f[3];          /* c->force (NULL: not recorded) */
    double *cross_f[3];         /* c->cross_force */
    double *cross_t[3];         /* c->cross_torque */
    uint32_t held;              /* the particle whose side is in f_i, t_i */
    double f_i[3], t_i[3];
} delivery;

static inline __attribute__((always_inline)) void
delivery_open(delivery *dl, const force_sums *sums, contact_list *c, uint32_t first_i,
              const int torques, const int by_id)
{
    for (int a = 0; a < 3; a++) {
        dl->f[a] = sums->f[a];
        dl->t[a] = sums->t[a];
        dl->pair_f[a] = c->force[a];
        dl->cross_f[a] = c->cross_force[a];
        dl->cross_t[a] = c->cross_torque[a];
        dl->f_i[a] = dl->t_i[a] = 0.0;
    }
    dl->held = first_i;
    if (by_id) {
        for (int a = 0; a < 3; a++) dl->f_i[a] = dl->f[a][first_i];
        if (torques)
            for (int a = 0; a < 3; a++) dl->t_i[a] = dl->t[a][first_i];
    }
}

/* Puts the held particle's side back into its sums. */
static inline __attribute__((always_inline)) void
delivery_flush(delivery *dl, const int torques, const int by_id)
{
    uint32_t held = dl->held;
    if (by_id) {
        for (int a = 0; a < 3; a++) dl->f[a][held] = dl->f_i[a];
        if (torques)
            for (int a = 0; a < 3; a++) dl->t[a][held] = dl->t_i[a];
    } else {
        for (int a = 0; a < 3; a++) dl->f[a][held] += dl->f_i[a];
        if (torques)
            for (int a = 0; a < 3; a++) dl->t[a][held] += dl->t_i[a];
    }
}

/* Pair k (i, owner of j o, cross slot q): its force f on i and torques ti, tj on i and j. */
static inline __attribute__((always_inline)) void
delivery_pair(delivery *dl, uint32_t k, uint32_t i, uint32_t o, uint32_t q, const double f[3],
              const double ti[3], const double tj[3], const int torques, const int by_id)
{
    if (i != dl->held) {
        delivery_flush(dl, torques, by_id);
        if (by_id) {
            for (int a = 0; a < 3; a++) dl->f_i[a] = dl->f[a][i];
            if (torques)
                for (int a = 0; a < 3; a++) dl->t_i[a] = dl->t[a][i];
        } else {
            for (int a = 0; a < 3; a++) dl->f_i[a] = 0.0;
            if (torques)
                for (int a = 0; a < 3; a++) dl->t_i[a] = 0.0;
        }
        dl->held = i;
    }
    if (dl->pair_f[0])
        for (int a = 0; a < 3; a++) dl->pair_f[a][k] = f[a];
    for (int a = 0; a < 3; a++) dl->f_i[a] += f[a];
    if (q == CONTACT_SAME_BLOCK)
        for (int a = 0; a < 3; a++) dl->f[a][o] -= f[a];
    else
        for (int a = 0; a < 3; a++) dl->cross_f[a][q] = f[a];
    if (!torques) return;
    for (int a = 0; a < 3; a++) dl->t_i[a] += ti[a];
    if (q == CONTACT_SAME_BLOCK)
        for (int a = 0; a < 3; a++) dl->t[a][o] += tj[a];
    else
        for (int a = 0; a < 3; a++) dl->cross_t[a][q] = tj[a];
}

#endif
