/* The force loop (force_loop.h).
 *
 * Determinism, without locks or atomics: each contact's force is computed once. The
 * particles are split into blocks of CONTACT_BLOCK (a fixed size, not one per thread);
 * the blocks run in parallel, and a block adds each pair's force and torque to both
 * particles when both are its own, and otherwise to i, leaving the j side on the pair
 * for a later pass (engine/neighbours/contacts.h, cross pairs). So every particle's forces are
 * summed in an order fixed by the list and the blocks, never by the threads: 1 and N
 * threads give bit-identical results. */
#include "force_loop.h"

#include <omp.h>

#include <stdlib.h>

#include "contact_ends.h"
#include "engine/exact_sum.h"
#include "force_scratch.h"
#include "fused_pass.h"
#include "pair_adhesion.h"
#include "pair_delivery.h"
#include "pair_geometry.h"

/* apply_friction for a tangential law that also keeps per-contact state (the
 * Mindlin-Deresiewicz model's slip). Out of line: inlined, it cost the other models 4 %
 * more instructions in force_loop_run (callgrind, bench of 20000 spheres); out of
 * line, 1 %. */
__attribute__((noinline))
static void apply_with_state(const friction_coeffs *fc, contact_list *c, contact_kinematics *kin,
                            size_t k, double f_t[3], double m_r[3], double power[2])
{
    double xi[3], theta[3] = {0.0, 0.0, 0.0}, slip[CONTACT_SLIP_HISTORY];
    for (int a = 0; a < 3; a++) {
        xi[a] = c->tangential[a][k];
        if (c->rolling[0]) theta[a] = c->rolling[a][k];
    }
    for (int h = 0; h < CONTACT_SLIP_HISTORY; h++) slip[h] = c->slip[h][k];
    friction_force(fc, kin, xi, &c->coulomb_margin[k], theta, slip, f_t, m_r, power);
    for (int a = 0; a < 3; a++) {
        c->tangential[a][k] = xi[a];
        if (c->rolling[0]) c->rolling[a][k] = theta[a];
    }
    for (int h = 0; h < CONTACT_SLIP_HISTORY; h++) c->slip[h][k] = slip[h];
}

/* Tangential force and rolling torque on i of contact k (slot m of the chunk), from
 * its normal force, for the laws friction_force_batch cannot take (those with a
 * per-contact form only); updates the contact's springs. */
static void apply_friction(const sim *s, contact_list *c, const chunk_scratch *cs, size_t m,
                           size_t k, double f_normal, double f_t[3], double m_r[3],
                           double power[2])
{
    contact_kinematics kin = {.n = {cs->nx[m], cs->ny[m], cs->nz[m]},
                              .d = overlap_in_contact(cs->d[m]), /* adhesion: d may be < 0 */
                              .r_eff = cs->r_eff[m], .m_eff = cs->m_eff[m],
                              .inertia_r = cs->inertia_r[m], .f_normal = f_normal,
                              .dt = s->dt};
    double xi[3], theta[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < 3; a++) {
        kin.v_rel[a] = cs->v_rel[a][m];
        kin.w_rel[a] = cs->w_rel[a][m];
        kin.disp[a] = cs->disp[a][m];
        kin.turn[a] = cs->turn[a][m];
    }
    const friction_coeffs *fc = &s->laws[cs->law[m]].friction;
    if (friction_keeps_state(fc)) {
        apply_with_state(fc, c, &kin, k, f_t, m_r, power);
        return;
    }
    for (int a = 0; a < 3; a++) {
        xi[a] = c->tangential[a][k];
        if (c->rolling[0]) theta[a] = c->rolling[a][k];
    }
    friction_force(fc, &kin, xi, &c->coulomb_margin[k], theta, NULL, f_t, m_r, power);
    for (int a = 0; a < 3; a++) {
        c->tangential[a][k] = xi[a];
        if (c->rolling[0]) c->rolling[a][k] = theta[a];
    }
}

/* Friction of the n contacts of one law in bs (chunk slots bs->from[], normal forces
 * bs->f_normal[]) into bs->f_t, m_r and power; updates the contacts' springs in the
 * list. `whole`: the batch is the whole chunk in order (bs->from[q] == q), so the
 * chunk's own arrays serve and nothing is gathered. */
static void batch_friction(const sim *s, contact_list *c, const chunk_scratch *cs,
                           batch_scratch *bs, const friction_coeffs *fc, size_t n, int whole)
{
    if (!friction_batchable(fc)) {
        for (size_t q = 0; q < n; q++) {
            double f_t[3], m_r[3], power[2];
            apply_friction(s, c, cs, bs->from[q], cs->slot[bs->from[q]], bs->f_normal[q],
                           f_t, m_r, power);
            for (int a = 0; a < 3; a++) {
                bs->f_t[a][q] = f_t[a];
                bs->m_r[a][q] = m_r[a];
            }
            bs->power[0][q] = power[0];
            bs->power[1][q] = power[1];
        }
        return;
    }
    friction_batch b = {.n = n, .f_normal = bs->f_normal, .margin = c->coulomb_margin,
                        .slot = cs->slot, .dt = s->dt};
    for (int a = 0; a < 3; a++) {
        b.xi[a] = c->tangential[a];
        b.f_t[a] = bs->f_t[a];
        b.m_r[a] = bs->m_r[a];
    }
    b.power[0] = bs->power[0];
    b.power[1] = bs->power[1];
    if (whole) {
        b.normal[0] = cs->nx; b.normal[1] = cs->ny; b.normal[2] = cs->nz;
        b.d = cs->d; b.r_eff = cs->r_eff; b.m_eff = cs->m_eff;
        for (int a = 0; a < 3; a++) {
            b.v_rel[a] = cs->v_rel[a];
            b.w_rel[a] = cs->w_rel[a];
            b.disp[a] = cs->disp[a];
        }
    } else { /* the law's d, r_eff, m_eff are gathered already (chunk_forces) */
        const double *chunk_normal[3] = {cs->nx, cs->ny, cs->nz};
        for (int a = 0; a < 3; a++)
            for (size_t q = 0; q < n; q++) {
                size_t m = bs->from[q];
                bs->normal[a][q] = chunk_normal[a][m];
                bs->v_rel[a][q] = cs->v_rel[a][m];
                bs->w_rel[a][q] = cs->w_rel[a][m];
                bs->disp[a][q] = cs->disp[a][m];
            }
        for (int a = 0; a < 3; a++) {
            b.normal[a] = bs->normal[a];
            b.v_rel[a] = bs->v_rel[a];
            b.w_rel[a] = bs->w_rel[a];
            b.disp[a] = bs->disp[a];
        }
        b.d = bs->d; b.r_eff = bs->r_eff; b.m_eff = bs->m_eff;
        for (size_t q = 0; q < n; q++) bs->slot[q] = cs->slot[bs->from[q]];
        b.slot = bs->slot;
    }
    friction_force_batch(fc, &b);
}

static inline __attribute__((always_inline)) void
contact_result(contact_list *c, const chunk_scratch *cs, const batch_scratch *bs,
               result_context *rc, size_t q, size_t m, const int friction,
               const int rolling, const int torques, const int exact, double f_i[3],
               double t_i[3], double t_j[3])
{
    double f = bs->f[q];
    double nrm[3] = {cs->nx[m], cs->ny[m], cs->nz[m]};
    double f_t[3] = {0.0, 0.0, 0.0}, m_r[3] = {0.0, 0.0, 0.0};
    const int booked = !exact || c->i[cs->slot[m]] < rc->own;
    if (rc->work_kind >= 0 && booked)
        add_work(rc, rc->work_kind, f * cs->rate[m] * rc->dt, &rc->normal, exact);
    if (friction) {
        for (int a = 0; a < 3; a++) f_t[a] = bs->f_t[a][q];
        if (booked) add_work(rc, SIM_WORK_TANGENTIAL, bs->power[0][q] * rc->dt, &rc->tangential, exact);
    }
    if (rolling) {
        for (int a = 0; a < 3; a++) m_r[a] = bs->m_r[a][q];
        if (booked) add_work(rc, SIM_WORK_ROLLING, bs->power[1][q] * rc->dt, &rc->rolling, exact);
    }
    for (int a = 0; a < 3; a++) f_i[a] = -f * nrm[a] + f_t[a];
    for (int h = 0; h < rc->nh; h++) c->history[h][cs->slot[m]] = bs->h[h][q];
    if (!torques) return;
    /* torque of the tangential force about each centre, plus the rolling torque */
    double nxf[3] = {nrm[1] * f_t[2] - nrm[2] * f_t[1], nrm[2] * f_t[0] - nrm[0] * f_t[2],
                     nrm[0] * f_t[1] - nrm[1] * f_t[0]};
    for (int a = 0; a < 3; a++) {
        t_i[a] = cs->arm_i[m] * nxf[a] + m_r[a];
        t_j[a] = cs->arm_j[m] * nxf[a] - m_r[a];
    }
}

/* contact_result for each of a law's n contacts, into bs->force, torque_i and torque_j
 * by chunk slot (deliver_forces puts them where they go). */
static inline __attribute__((always_inline)) void
contact_results(contact_list *c, const chunk_scratch *cs, batch_scratch *bs,
                const result_context *rc, size_t n, const int friction, const int rolling,
                const int torques, const int exact)
{
    result_context r = work_open(rc);
    for (size_t q = 0; q < n; q++) {
        size_t m = bs->from[q];
        double f_i[3], t_i[3], t_j[3];
        contact_result(c, cs, bs, &r, q, m, friction, rolling, torques, exact, f_i, t_i, t_j);
        for (int a = 0; a < 3; a++) bs->force[a][m] = f_i[a];
        if (!torques) continue;
        for (int a = 0; a < 3; a++) {
            bs->torque_i[a][m] = t_i[a];
            bs->torque_j[a][m] = t_j[a];
        }
    }
    work_close(&r);
}

/* contact_results with its constants chosen: friction, rolling, torques (the list has
 * friction) and `exact` (constant at each call). */
static inline __attribute__((always_inline)) void
results_of_law(contact_list *c, const chunk_scratch *cs, batch_scratch *bs,
               const result_context *rc, size_t n, int friction, int rolling, const int exact)
{
    if (!friction) {
        if (c->has_friction) contact_results(c, cs, bs, rc, n, 0, 0, 1, exact);
        else contact_results(c, cs, bs, rc, n, 0, 0, 0, exact);
    } else if (!rolling) {
        contact_results(c, cs, bs, rc, n, 1, 0, 1, exact);
    } else {
        contact_results(c, cs, bs, rc, n, 1, 1, 1, exact);
    }
}

/* deliver_forces for a chunk of particle pairs (delivery, pair_delivery.h); `fused`:
 * the chunk is one law's batch, in order (contact q is slot m), whose results are
 * computed here, in the same pass. The flags are constants at each call. */
static inline __attribute__((always_inline)) void
add_to_particles(contact_list *c, const chunk_scratch *cs, const batch_scratch *bs,
                 const force_sums *sums, const int torques, const result_context *rc,
                 const int fused, const int friction, const int rolling, const int by_id)
{
    const size_t n = cs->n;
    const uint32_t *restrict slot = cs->slot;
    const uint32_t *restrict first = c->i, *restrict owner = c->owner_j;
    const uint32_t *restrict cross = c->cross_slot;
    if (n == 0) return;
    delivery dl;
    delivery_open(&dl, sums, c, first[slot[0]], torques, by_id);
    result_context r = {0};
    if (fused) r = work_open(rc);
    for (size_t m = 0; m < n; m++) {
        uint32_t k = slot[m];
        double f[3], ti[3], tj[3];
        if (fused) {
            contact_result(c, cs, bs, &r, m, m, friction, rolling, torques, by_id, f, ti, tj);
        } else {
            for (int a = 0; a < 3; a++) {
                f[a] = bs->force[a][m];
                if (torques) {
                    ti[a] = bs->torque_i[a][m];
                    tj[a] = bs->torque_j[a][m];
                }
            }
        }
        delivery_pair(&dl, k, first[k], owner[k], cross[k], f, ti, tj, torques, by_id);
    }
    delivery_flush(&dl, torques, by_id);
    if (fused) work_close(&r);
}

/* Puts the forces of a chunk's contacts (bs->force, torque_i, torque_j), in list
 * order, where they go: the force on i on the pair (output, wall loads, a cross pair's
 * j side); with `sums`, force and torque added to the particles (add_to_particles);
 * without (a wall list), the torque on i kept on the pair. */
static void deliver_forces(contact_list *c, const chunk_scratch *cs, const batch_scratch *bs,
                           const force_sums *sums)
{
    const int torques = c->has_friction;
    if (sums) {
        if (c->by_id) {
            if (torques) add_to_particles(c, cs, bs, sums, 1, NULL, 0, 0, 0, 1);
            else add_to_particles(c, cs, bs, sums, 0, NULL, 0, 0, 0, 1);
        } else {
            if (torques) add_to_particles(c, cs, bs, sums, 1, NULL, 0, 0, 0, 0);
            else add_to_particles(c, cs, bs, sums, 0, NULL, 0, 0, 0, 0);
        }
        return;
    }
    const uint32_t *slot = cs->slot;
    for (int a = 0; a < 3; a++)
        for (size_t m = 0; m < cs->n; m++) {
            c->force[a][slot[m]] = bs->force[a][m];
            if (torques) c->torque[a][slot[m]] = bs->torque_i[a][m];
        }
}

/* contact_results and deliver_forces in one pass, for a chunk of particle pairs that is
 * one law's batch in chunk order (no staging of forces and torques by chunk slot). The
 * same operations in the same order: the same bits. */
static void deliver_one_law(contact_list *c, const chunk_scratch *cs, const batch_scratch *bs,
                            const force_sums *sums, const result_context *rc,
                            const int friction, const int rolling)
{
    if (rc->exact) { /* ordered by ids (contact_list.by_id), summed exactly */
        if (!c->has_friction) add_to_particles(c, cs, bs, sums, 0, rc, 1, 0, 0, 1);
        else if (!friction) add_to_particles(c, cs, bs, sums, 1, rc, 1, 0, 0, 1);
        else if (!rolling) add_to_particles(c, cs, bs, sums, 1, rc, 1, 1, 0, 1);
        else add_to_particles(c, cs, bs, sums, 1, rc, 1, 1, 1, 1);
        return;
    }
    if (!c->has_friction) add_to_particles(c, cs, bs, sums, 0, rc, 1, 0, 0, 0);
    else if (!friction) add_to_particles(c, cs, bs, sums, 1, rc, 1, 0, 0, 0);
    else if (!rolling) add_to_particles(c, cs, bs, sums, 1, rc, 1, 1, 0, 0);
    else add_to_particles(c, cs, bs, sums, 1, rc, 1, 1, 1, 0);
}

/* Calls each law once for its contacts in the chunk and stores the force on i in the
 * list; a chunk of particle pairs also adds force and torque to both particles (to
 * `sums`; a cross pair's j side is kept on the pair, c->cross_torque). Adds the work
 * done on the chunk's contacts during this step to work[] (SIM_WORK_*). */
static void chunk_forces(const sim *s, contact_list *c, const chunk_scratch *cs,
                         batch_scratch *bs, double work[SIM_WORK_KINDS], exact_sum *exact,
                         const force_sums *sums)
{
    size_t done = 0;
    int n_laws = s->n_materials * s->n_materials;
    for (int L = 0; L < n_laws && done < cs->n; L++) {
        if (cs->one_law >= 0 && L != cs->one_law) continue;
        const law_instance *li = &s->laws[L];
        int nh = li->law ? li->law->n_state : 0;
        size_t n = 0;
        law_batch batch = {.force = bs->f};
        /* with adhesion the law and the friction see the overlap clipped at 0 (gathered) */
        const int adhesive = li->adhesion.law != NULL;
        if (cs->one_law >= 0 && !adhesive) { /* the whole chunk: the law reads the chunk's arrays */
            n = cs->n;
            for (size_t m = 0; m < n; m++) {
                bs->from[m] = (uint32_t)m;
                for (int h = 0; h < nh; h++) bs->h[h][m] = c->history[h][cs->slot[m]];
            }
            batch.overlap = cs->d; batch.overlap_rate = cs->rate; batch.impact_velocity = cs->v0;
            batch.r_eff = cs->r_eff; batch.m_eff = cs->m_eff;
        } else { /* gather this law's contacts */
            for (size_t m = 0; m < cs->n; m++) {
                if (cs->law[m] != L) continue;
                uint32_t k = cs->slot[m];
                bs->from[n] = (uint32_t)m;
                bs->batch_of[m] = (uint32_t)n;
                bs->d[n] = adhesive ? overlap_in_contact(cs->d[m]) : cs->d[m];
                bs->rate[n] = cs->rate[m];
                if (c->impact_velocity) bs->v0[n] = cs->v0[m];
                bs->r_eff[n] = cs->r_eff[m]; bs->m_eff[n] = cs->m_eff[m];
                for (int h = 0; h < nh; h++) bs->h[h][n] = c->history[h][k];
                n++;
            }
            batch.overlap = bs->d; batch.overlap_rate = bs->rate; batch.impact_velocity = bs->v0;
            batch.r_eff = bs->r_eff; batch.m_eff = bs->m_eff;
        }
        if (n == 0) continue;
        done += n;
        batch.n = n;
        for (int h = 0; h < LAW_MAX_HISTORY; h++) batch.history[h] = bs->h[h];
        li->law->force(&li->coeffs, &batch);
        if (li->coeffs.cohesion_removal)
            for (size_t q = 0; q < n; q++) bs->f[q] = bs->f[q] < 0.0 ? 0.0 : bs->f[q];
        const int friction = li->friction.active;
        if (friction) {
            for (size_t q = 0; q < n; q++) bs->f_normal[q] = bs->f[q] > 0.0 ? bs->f[q] : 0.0;
            batch_friction(s, c, cs, bs, &li->friction, n, cs->one_law >= 0 && !adhesive);
        }
        /* the adhesion after friction, whose cap takes the law's force alone
         * (models/adhesion_law.h); the first and last steps after both: the cap takes
         * the force at the instant, and the ends integrate the adhesion too */
        adhesion_batch ab;
        if (adhesive) add_adhesion(s, c, cs, bs, li, n, &ab);
        if (s->spring_span > 0.0)
            contact_ends(s, c, li, L, cs, bs, &batch, adhesive ? &ab : NULL, nh);
        result_context rc = {.nh = nh, .dt = s->dt, .work = work, .exact = exact,
                             .own = s->p.n_local, .work_kind = work_kind_of(li)};
        const int rolling = friction && friction_has_rolling_torque(&li->friction);
        if (sums && cs->one_law >= 0) {
            deliver_one_law(c, cs, bs, sums, &rc, friction, rolling);
            return;
        }
        if (rc.exact) results_of_law(c, cs, bs, &rc, n, friction, rolling, 1);
        else results_of_law(c, cs, bs, &rc, n, friction, rolling, 0);
    }
    deliver_forces(c, cs, bs, sums);
}

/* A thread's scratch for force_unit. */
typedef struct unit_scratch {
    chunk_scratch cs;
    batch_scratch bs;
} unit_scratch;

/* Unit u of list c (force_loop_run): its contacts' forces, CHUNK at a time, its work
 * summed into its own slot of s->chunk_work (or s->chunk_exact), the touching pairs
 * counted into *touching and the largest overlap into *worst. */
static inline __attribute__((always_inline)) void
force_unit(sim *s, contact_list *c, size_t u, const int is_wall, int fused,
           const force_sums *sums, unit_scratch *us, size_t *touching, double *worst)
{
    chunk_scratch *cs = &us->cs;
    size_t first, last;
    if (is_wall) {
        first = u * CHUNK;
        last = first + CHUNK < c->n ? first + CHUNK : c->n;
    } else {
        size_t end = (u + 1) * c->block < c->n_first ? (u + 1) * c->block : c->n_first;
        first = c->first_of_i[u * c->block];
        last = c->first_of_i[end];
    }
    double *work = &s->chunk_work[SIM_WORK_KINDS * u];
    exact_sum *exact = s->cfg.reproducible ? &s->chunk_exact[SIM_WORK_KINDS * u] : NULL;
    for (int q = 0; q < SIM_WORK_KINDS; q++) {
        work[q] = 0.0;
        if (exact) exact_sum_clear(&exact[q]);
    }
    for (size_t start = first; start < last; start += CHUNK) {
        size_t end = start + CHUNK < last ? start + CHUNK : last;
        if (is_wall) wall_pair_geometry(s, c, start, end, cs);
        else {
            particle_pair_select(s, c, start, end, cs);
            const law_instance *li = cs->one_law >= 0 ? &s->laws[cs->one_law] : NULL;
            if (fused && li && li->fused &&
                fused_pass_serves(li->fused, c->has_friction, s->cfg.passes)) {
                fused_pass_run(s, c, cs, start, li, work, sums);
                *touching += cs->n;
                *worst = cs->worst > *worst ? cs->worst : *worst;
                continue;
            }
            particle_pair_touching(s, c, start, cs);
        }
        chunk_forces(s, c, cs, &us->bs, work, exact, is_wall ? NULL : sums);
        *touching += cs->n;
        *worst = cs->worst > *worst ? cs->worst : *worst;
    }
}

/* The forces of every touching contact in list c; also counts the touching contacts
 * (into s->n_contacts) and finds the largest overlap (s->max_overlap).
 *
 * The list runs in units, in parallel: a wall list in chunks of CHUNK entries, whose
 * forces stay on the pairs; a particle-pair list in blocks of c->block particles (its
 * pairs grouped by i, CHUNK at a time), each adding its pairs' forces to the particles
 * it owns (chunk_forces). A unit's work is summed in list order, the units' in unit
 * order: the same bits for any number of threads. */
void force_loop_run(sim *s, contact_list *c, int is_wall)
{
    size_t n_units = is_wall ? (c->n + CHUNK - 1) / CHUNK
                             : (c->n_first + c->block - 1) / c->block;
    particle_store *p = &s->p;
    force_sums sums = {{p->fx, p->fy, p->fz}, {p->tx, p->ty, p->tz}};
    double *chunk_work = s->chunk_work;
    exact_sum *chunk_exact = s->cfg.reproducible ? s->chunk_exact : NULL;
    size_t touching = 0;
    double worst = s->max_overlap;
    double started = omp_get_wtime();
    /* the fused passes where a chunk's law has one (fused_pass.h): not for the forces at
     * the start (no spring moves), nor for a list summed by id, nor with fixed particles
     * (whose pairs' effective mass the generic geometry sets: particles_pair_mass) */
    const int fused = !is_wall && s->spring_span > 0.0 && !chunk_exact &&
                      s->cfg.passes != PASSES_GENERIC && !s->p.has_fixed;
    /* a wall pair costs a distance to a curved surface as well: walls go parallel sooner */
    #pragma omp parallel if (c->n > (is_wall ? s->parallel_min / 8 : s->parallel_min))
    {
        unit_scratch us;
        const size_t run = n_units / (4 * (size_t)omp_get_num_threads()) + 1;
        /* A particle block's partners are mostly in the next block, whose data the block
         * brings into its thread's cache: each thread takes runs of `run` consecutive
         * blocks, about four runs a thread. One block at a time (dynamic, 1) gave each
         * thread every other block, cold: 12% of the frictionless bench's speed on two
         * threads; one run a thread (static) balanced the hopper's few blocks badly (5%).
         * Wall chunks: one at a time. Which thread runs a unit never changes its sums. */
        if (is_wall) {
            #pragma omp for schedule(dynamic, 1) reduction(+ : touching) reduction(max : worst)
            for (size_t u = 0; u < n_units; u++)
                force_unit(s, c, u, 1, fused, &sums, &us, &touching, &worst);
        } else {
            #pragma omp for schedule(dynamic, run) reduction(+ : touching) reduction(max : worst)
            for (size_t u = 0; u < n_units; u++)
                force_unit(s, c, u, 0, fused, &sums, &us, &touching, &worst);
        }
    }
    s->n_contacts += touching;
    s->max_overlap = worst;
    s->force_seconds += omp_get_wtime() - started; /* before any wait for other ranks */
    if (chunk_exact) { /* exact: the units' sums merge in any order, and the ranks' */
        exact_sum total[SIM_WORK_KINDS];
        for (int q = 0; q < SIM_WORK_KINDS; q++) {
            exact_sum_clear(&total[q]);
            for (size_t u = 0; u < n_units; u++) exact_sum_merge(&total[q], &chunk_exact[SIM_WORK_KINDS * u + q]);
        }
        sim_reduce_exact(s, total, SIM_WORK_KINDS);
        for (int q = 0; q < SIM_WORK_KINDS; q++) {
            double step_work = exact_sum_value(&total[q]);
            s->work[q] += step_work;
            s->work_step[q] += step_work;
        }
        return;
    }
    for (size_t u = 0; u < n_units; u++)
        for (int q = 0; q < SIM_WORK_KINDS; q++) {
            s->work[q] += chunk_work[SIM_WORK_KINDS * u + q];
            s->work_step[q] += chunk_work[SIM_WORK_KINDS * u + q];
        }
}

/* Room for the per-unit work sums of either list (force_loop_run). */
int force_loop_reserve_work(sim *s)
{
    size_t blocks = (s->pairs.n_first + s->block - 1) / s->block;
    size_t chunks = (s->wall_pairs.n + CHUNK - 1) / CHUNK;
    size_t need = SIM_WORK_KINDS * ((blocks > chunks ? blocks : chunks) + 1);
    if (need <= s->chunk_work_capacity) return 0;
    double *w = realloc(s->chunk_work, need * sizeof *w);
    if (!w) return -1;
    s->chunk_work = w;
    if (s->cfg.reproducible) {
        exact_sum *e = realloc(s->chunk_exact, need * sizeof *e);
        if (!e) return -1;
        s->chunk_exact = e;
    }
    s->chunk_work_capacity = need;
    return 0;
}
