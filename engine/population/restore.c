/* Restart support (sim.h): rebuilds the neighbour list exactly as the run last built
 * it, puts the particles back where they were and restores each touching pair's
 * history. io/output/restart.c reads a snapshot into the sim_restart_state. */
#include "engine/sim.h"
#include "engine/fail.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/neighbours/ghosts.h"
#include "engine/neighbours/lees_edwards.h"
#include "engine/step/integrate.h"
#include "engine/neighbours/list_build.h"

const pair_history_field sim_pair_history[] = {
    {"impact_velocity", offsetof(contact_list, impact_velocity), 1, 0},
    {"law_history", offsetof(contact_list, history), LAW_MAX_HISTORY, 0},
    {"tangential_spring", offsetof(contact_list, tangential), 3, 0},
    {"coulomb_margin", offsetof(contact_list, coulomb_margin), 1, 1},
    {"rolling_spring", offsetof(contact_list, rolling), 3, 0},
    {"tangential_slip", offsetof(contact_list, slip), CONTACT_SLIP_HISTORY, 1}, /* microslip */
};
const int sim_n_pair_history = (int)(sizeof sim_pair_history / sizeof sim_pair_history[0]);

/* NULL when the list does not hold it (contact_list_configure). */
double *sim_pair_history_array(const contact_list *c, const pair_history_field *f, int comp)
{
    double *const *arrays = (double *const *)(const void *)((const char *)c + f->offset);
    return arrays[comp];
}

/* Particle ids to rows, sorted (ids may be sparse: no table as long as the largest id). */
typedef struct id_row {
    int64_t id;
    size_t row;
} id_row;

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const id_row *)a)->id, y = ((const id_row *)b)->id;
    return (x > y) - (x < y);
}

/* A sorted index of ids[0..n-1]; NULL if out of memory. *dup: an id present twice, or -1. */
static id_row *id_index(const int64_t *ids, size_t n, int64_t *dup)
{
    id_row *x = malloc((n ? n : 1) * sizeof *x);
    if (!x) return NULL;
    for (size_t r = 0; r < n; r++) x[r] = (id_row){ids[r], r};
    qsort(x, n, sizeof *x, by_id);
    *dup = -1;
    for (size_t r = 1; r < n && *dup < 0; r++)
        if (x[r].id == x[r - 1].id) *dup = x[r].id;
    return x;
}

static size_t id_find(const id_row *x, size_t n, int64_t id)
{
    id_row key = {id, 0};
    const id_row *hit = bsearch(&key, x, n, sizeof *x, by_id);
    return hit ? hit->row : SIZE_MAX;
}

/* The snapshot's particles, in its order: the case's particles matched by id, and those
 * an inlet inserted made again the way the inlet did (particles_add). */
static int restore_particles(sim *s, const sim_restart_state *st, const id_row *fresh,
                             size_t *bad, char *err, size_t err_len)
{
    *bad = SIZE_MAX; /* out of memory */
    const particle_store *p = &s->p;
    particle_store q, made;
    if (particles_init(&q, st->n) != 0) goto oom; /* (st->n may be 0: a rank's share) */
    if (p->tx0 && particles_keep_spin_history(&q) != 0) {
        particles_free(&q);
        goto oom;
    }
    if (particles_init(&made, 1) != 0) {
        particles_free(&q);
        goto oom;
    }
    int rc = -1;
    for (size_t r = 0; r < st->n; r++) {
        int64_t id = st->id[r];
        size_t i = id_find(fresh, p->n_local, id);
        const particle_store *from = p;
        if (i == SIZE_MAX) { /* not one of the case's: inserted during the run */
            int32_t t = st->type[r];
            if (id < 0 || t < 0 || t >= s->cfg.n_materials ||
                (st->next_id >= 0 && id >= st->next_id)) {
                *bad = r;
                snprintf(err, err_len, "particle id %lld (material %d) of the snapshot is not "
                                       "one the case creates", (long long)id, t);
                goto done;
            }
            double zero[3] = {0.0, 0.0, 0.0};
            made.n_local = made.n_total = 0;
            if (particles_add(&made, t, st->radius[r], s->cfg.materials[t].density, zero, zero) != 0)
                goto oom_done;
            from = &made;
            i = 0;
        }
        if (from->type[i] != st->type[r] || memcmp(&from->radius[i], &st->radius[r], sizeof(double)) ||
            memcmp(&from->mass[i], &st->mass[r], sizeof(double))) {
            *bad = r;
            snprintf(err, err_len, "particle id %lld: the case makes it material %d, radius %.17g m, "
                                   "mass %.17g kg; the snapshot has material %d, radius %.17g m, "
                                   "mass %.17g kg (the case's particles changed)",
                     (long long)id, from->type[i], from->radius[i], from->mass[i], st->type[r],
                     st->radius[r], st->mass[r]);
            goto done;
        }
        if (particles_fixed(from, i) &&
            (st->velocity[3 * r] != 0.0 || st->velocity[3 * r + 1] != 0.0 ||
             st->velocity[3 * r + 2] != 0.0 || st->angular_velocity[3 * r] != 0.0 ||
             st->angular_velocity[3 * r + 1] != 0.0 || st->angular_velocity[3 * r + 2] != 0.0)) {
            *bad = r;
            snprintf(err, err_len, "particle id %lld: the case fixes it (particles[].fixed), "
                                   "the snapshot has it moving (the case's particles changed)",
                     (long long)id);
            goto done;
        }
        q.id[r] = id;
        q.type[r] = from->type[i];
        q.radius[r] = from->radius[i];
        q.mass[r] = from->mass[i];
        q.inv_mass[r] = from->inv_mass[i];
        q.inv_inertia[r] = from->inv_inertia[i];
        /* positions of the last rebuild first: the rebuild below replays it */
        q.x[r] = st->position_at_rebuild[3 * r];
        q.y[r] = st->position_at_rebuild[3 * r + 1];
        q.z[r] = st->position_at_rebuild[3 * r + 2];
        q.vx[r] = st->velocity[3 * r]; q.vy[r] = st->velocity[3 * r + 1]; q.vz[r] = st->velocity[3 * r + 2];
        q.wx[r] = st->angular_velocity[3 * r]; q.wy[r] = st->angular_velocity[3 * r + 1];
        q.wz[r] = st->angular_velocity[3 * r + 2];
        q.fx[r] = st->force[3 * r]; q.fy[r] = st->force[3 * r + 1]; q.fz[r] = st->force[3 * r + 2];
        if (q.tx) { /* (without, no torque acts: particles.h) */
            q.tx[r] = st->torque[3 * r]; q.ty[r] = st->torque[3 * r + 1];
            q.tz[r] = st->torque[3 * r + 2];
            if (sim_spin_free(s)) /* a snapshot of a run with friction, restarted without
                                     but with an external torque: no contact's torque acts
                                     from here on (the steps leave it) */
                q.tx[r] = q.ty[r] = q.tz[r] = 0.0;
        }
        q.fx0[r] = q.fy0[r] = q.fz0[r] = 0.0;
        if (q.tx0) q.tx0[r] = q.ty0[r] = q.tz0[r] = 0.0;
    }
    q.n_local = q.n_total = st->n;
    q.has_fixed = p->has_fixed; /* the case's fixed particles (their 1/mass is copied) */
    q.next_id = st->next_id >= 0 ? st->next_id : p->next_id;
    double *xr = realloc(s->x_at_rebuild, 3 * (st->n + 1) * sizeof *xr);
    if (!xr) goto oom_done;
    s->x_at_rebuild = xr;
    particles_free(&s->p);
    s->p = q;
    rc = 0;
    goto done;
oom_done:
    snprintf(err, err_len, "out of memory");
    rc = FAIL_NO_MEMORY;
done:
    if (rc != 0) particles_free(&q);
    particles_free(&made);
    return rc;
oom:
    snprintf(err, err_len, "out of memory");
    return FAIL_NO_MEMORY;
}

/* by_place: the list is the run's own (replayed), find each pair at its saved place;
 * else (the run had invalidated its list, so the next step rebuilds it and only the set
 * of pairs matters) by its other end: the particle, or the how-manieth entry with the
 * same wall (an STL wall's touching entries are its first ones). */
static int restore_history(sim *s, const sim_restart_state *st, const id_row *rows, size_t n_rows,
                           int by_place, size_t *bad, char *err, size_t err_len)
{
    /* and their last forces, which the next force evaluation makes again for the pairs
     * in contact alone: a pair the replay took from an earlier list (sim_start's, by id)
     * would otherwise add that list's force to its particles' sums */
    contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n; k++) {
            contact_clear_history(lists[L], k);
            for (int a = 0; a < 3 && lists[L]->force[0]; a++) lists[L]->force[a][k] = 0.0;
        }
    for (size_t q = 0; q < s->pairs.n_cross && s->pairs.cross_force[0]; q++)
        for (int a = 0; a < 3; a++) s->pairs.cross_force[a][q] = 0.0;
    for (size_t m = 0; m < st->n_contacts; m++) {
        int64_t a = st->contact_id[2 * m], b = st->contact_id[2 * m + 1], slot = st->contact_slot[m];
        int is_wall = st->contact_wall[m] != 0;
        contact_list *c = is_wall ? &s->wall_pairs : &s->pairs;
        size_t i = id_find(rows, n_rows, a), k = c->n;
        /* a rank's share: a pair whose first particle is not here where it stands is
         * another rank's (candidates_of; the halo brings every particle that pairs
         * with this rank's own, so this is a safeguard) */
        if (i == SIZE_MAX && st->contact_row) continue;
        /* a particle of this rank's own has one process's entries: an other rank's
         * particle only those with this rank's (candidates_of) */
        int place = by_place && i < s->p.n_local;
        /* the same place in the replayed list, holding the same other end */
        if (place && slot >= 0 && (size_t)slot < c->first_of_i[i + 1] - c->first_of_i[i]) {
            k = c->first_of_i[i] + (size_t)slot;
            int same = is_wall ? (int64_t)c->j[k] == b : s->p.id[c->owner_j[k]] == b;
            if (!same) k = c->n;
        }
        if (!place && i < c->n_first) {
            size_t seen = 0; /* earlier saved contacts of i with the same wall */
            for (size_t q = m; is_wall && q-- > 0 && st->contact_id[2 * q] == a;)
                seen += st->contact_wall[q] && st->contact_id[2 * q + 1] == b;
            for (size_t q = c->first_of_i[i]; q < c->first_of_i[i + 1] && k == c->n; q++) {
                if (is_wall ? (int64_t)c->j[q] != b : s->p.id[c->owner_j[q]] != b) continue;
                if (is_wall && seen-- > 0) continue;
                k = q;
            }
        }
        if (k == c->n) {
            *bad = m;
            snprintf(err, err_len, "contact %lld of the snapshot (particle %lld with %s %lld) is not "
                                   "where the replayed neighbour list has it",
                     (long long)(st->contact_row ? st->contact_row[m] : (int64_t)m), (long long)a,
                     is_wall ? "wall" : "particle", (long long)b);
            return -1;
        }
        c->touching[k] = contact_state_of_code(st->contact_ended ? st->contact_ended[m] : 0);
        for (int f = 0; f < sim_n_pair_history; f++) {
            const pair_history_field *hf = &sim_pair_history[f];
            for (int comp = 0; comp < hf->count; comp++) {
                double *dst = sim_pair_history_array(c, hf, comp);
                if (dst) dst[k] = st->history[f][m * hf->count + comp]; /* else unused */
            }
        }
    }
    return 0;
}

/* Inlets, outlets and the work accumulators. */
static int restore_engine(sim *s, const sim_restart_state *st, char *err, size_t err_len)
{
    if (st->work)
        for (int q = 0; q < SIM_WORK_KINDS; q++) s->work[q] = st->work[q];
    /* the walls' work and the running sums behind it (work is the trapezoidal value,
     * work_sum minus half the last step's power x dt); a file without the sums goes on
     * from the trapezoidal value, within half a step's power x dt */
    if (st->wall_work && s->walls.work)
        for (size_t w = 0; w < s->walls.n; w++) {
            s->walls.work[w] = st->wall_work[w];
            s->walls.work_sum[w] = st->wall_work_sum ? st->wall_work_sum[w] : st->wall_work[w];
        }
    /* the servo walls' state, which the replay of the last rebuild reads (replay_lists) */
    if (walls_n_servo(&s->walls) > 0) {
        if (!st->wall_servo) {
            snprintf(err, err_len, "the snapshot has no state of the case's servo walls");
            return -1;
        }
        if (walls_servo_load(&s->walls, st->wall_servo, err, err_len) != 0) return -1;
    }
    size_t ni = (size_t)s->cfg.n_inlets * sizeof *s->inlets, no = (size_t)s->cfg.n_outlets * sizeof *s->outlets;
    if ((ni && (!st->inlets || st->inlets_bytes != ni)) || (no && (!st->outlets || st->outlets_bytes != no))) {
        snprintf(err, err_len, "the snapshot's inlet and outlet states do not fit the case's %d inlets "
                               "and %d outlets (written by another version of dempact?)",
                 s->cfg.n_inlets, s->cfg.n_outlets);
        return -1;
    }
    if (ni) memcpy(s->inlets, st->inlets, ni);
    if (no) memcpy(s->outlets, st->outlets, no);
    return 0;
}

/* The particles and the engine's state of st replace those of s (placed from the case):
 * *bad is the row of st a refusal names (SIZE_MAX: out of memory). */
static int restore_state(sim *s, const sim_restart_state *st, size_t *bad, char *err, size_t err_len)
{
    int64_t fresh_dup = -1;
    id_row *fresh = id_index(s->p.id, s->p.n_local, &fresh_dup);
    *bad = SIZE_MAX;
    if (!fresh) {
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    int rc = restore_particles(s, st, fresh, bad, err, err_len);
    free(fresh);
    if (rc == 0) rc = restore_engine(s, st, err, err_len);
    if (rc != 0) return fail_value(rc);
    s->dt = st->dt;
    s->step = st->step;
    s->time = st->time;
    return 0;
}

/* The index of the particles whose pairs this process lists from them: its own, and
 * (split over ranks) the other ranks' where they stand themselves (candidates_of). */
static id_row *listed_index(const particle_store *p, size_t *n)
{
    id_row *x = malloc((p->n_local + p->n_remote + 1) * sizeof *x);
    if (!x) return NULL;
    *n = 0;
    for (size_t i = 0; i < p->n_local + p->n_remote; i++) {
        const double *shift = i < p->n_local ? NULL : &p->ghost_shift[3 * (i - p->n_local)];
        if (!shift || (shift[0] == 0.0 && shift[1] == 0.0 && shift[2] == 0.0)) x[(*n)++] = (id_row){p->id[i], i};
    }
    qsort(x, *n, sizeof *x, by_id);
    return x;
}

/* The neighbour list the run last built, made again from st (whose particles s holds
 * in st's order), the particles then put where st has them, and the pairs' history
 * restored: over the ranks when s->ghost_hooks is set (collective). *bad is the contact
 * a refusal names (SIZE_MAX: out of memory). */
static int replay_lists(sim *s, const sim_restart_state *st, size_t *bad, char *err, size_t err_len)
{
    particle_store *p = &s->p;
    const int stale = st->list_stale;
    *bad = SIZE_MAX;
    /* A run that changed its particles outside a rebuild (the watchdog dropping one)
     * marked its list stale: the next step rebuilds it. Then build the list from the
     * current positions (every touching pair is in it), and keep the mark. */
    if (stale)
        for (size_t r = 0; r < st->n; r++) {
            p->x[r] = st->position[3 * r];
            p->y[r] = st->position[3 * r + 1];
            p->z[r] = st->position[3 * r + 2];
        }
    walls_move(&s->walls, isnan(st->rebuild_wall_time) || stale ? st->time : st->rebuild_wall_time);
    /* The snapshot's order is the one the run's last rebuild left (sorted or not):
     * keep it, so the list is built as that rebuild built it. */
    int reorder = s->reorder;
    s->reorder = 0;
    if (st->lees_edwards) lees_edwards_restore(s, st->lees_edwards, 1); /* as the rebuild had it */
    int rc = list_rebuild(s);
    s->reorder = reorder;
    if (st->lees_edwards) lees_edwards_restore(s, st->lees_edwards, 0); /* as it is now */
    walls_move(&s->walls, st->time);
    s->list_stale = stale;
    if (rc != 0) {
        snprintf(err, err_len, rc == REBUILD_REFUSED ? "the neighbour rebuild was refused" : "out of memory");
        return rc == REBUILD_REFUSED ? FAIL_REFUSED : FAIL_NO_MEMORY;
    }
    /* where the particles are now: st's row of each (a split kept only its own, in
     * st's order, but looks them up by id) */
    int64_t dup = -1;
    id_row *rows = s->ghost_hooks ? id_index(st->id, st->n, &dup) : NULL;
    if (sim_failed_anywhere(s, s->ghost_hooks && !rows)) {
        free(rows);
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    for (size_t i = 0; i < p->n_local; i++) {
        size_t r = rows ? id_find(rows, st->n, p->id[i]) : i;
        p->x[i] = st->position[3 * r];
        p->y[i] = st->position[3 * r + 1];
        p->z[i] = st->position[3 * r + 2];
    }
    free(rows);
    if (s->ghost_hooks) {
        if (s->ghost_hooks->update(s, s->ghost_hooks->ctx) != 0) {
            snprintf(err, err_len, "out of memory");
            return FAIL_NO_MEMORY;
        }
    } else {
        ghosts_update(s, p);
    }
    size_t n_listed = 0;
    id_row *listed = listed_index(p, &n_listed);
    if (!listed) {
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    rc = restore_history(s, st, listed, n_listed, !stale, bad, err, err_len);
    free(listed);
    return rc;
}

int sim_restore(sim *s, const sim_restart_state *st, char *err, size_t err_len)
{
    if (st->n > UINT32_MAX / 2) {
        snprintf(err, err_len, "the snapshot has %zu particles", st->n);
        return -1;
    }
    if (!(st->dt > 0.0) || !isfinite(st->dt) || !isfinite(st->time) || st->step < 0) {
        snprintf(err, err_len, "the snapshot's time %g s, step %lld or timestep %g s is not valid",
                 st->time, (long long)st->step, st->dt);
        return -1;
    }
    int64_t dup = -1;
    id_row *rows = id_index(st->id, st->n, &dup);
    free(rows);
    if (!rows) {
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    if (dup >= 0) {
        snprintf(err, err_len, "particle id %lld appears twice in the snapshot", (long long)dup);
        return -1;
    }
    size_t bad;
    int rc = restore_state(s, st, &bad, err, err_len);
    return rc != 0 ? rc : replay_lists(s, st, &bad, err, err_len);
}

/* A refusal on ranks: the one that names the earliest row of the file (`row`, this
 * rank's: -2 out of memory, which comes first, -1 a refusal that names no row;
 * INT64_MAX none) on every rank, as one process names it. Returns 0 when no rank
 * refused, else the failure value (engine/fail.h). */
static int first_refusal(const sim *s, int64_t row, char *err, size_t err_len)
{
    double first = -sim_reduce_largest(s, -(double)row);
    if (first == (double)INT64_MAX) return 0;
    s->ghost_hooks->share(err, err_len, (double)row == first, s->ghost_hooks->ctx);
    return first == -2.0 ? FAIL_NO_MEMORY : FAIL_REFUSED;
}

/* rc: a failure value, or 0 */
static int64_t row_of(const int64_t *rows, size_t bad, int rc)
{
    if (rc == 0) return INT64_MAX;
    if (rc == FAIL_NO_MEMORY) return -2;
    return bad == SIZE_MAX ? -1 : rows[bad];
}

int sim_restore_share(sim *s, const sim_restart_state *st, const sim_ghost_hooks *hooks, char *err,
                      size_t err_len)
{
    s->ghost_hooks = hooks;
    size_t bad = SIZE_MAX;
    int rc = restore_state(s, st, &bad, err, err_len);
    if ((rc = first_refusal(s, row_of(st->row, bad, rc), err, err_len)) != 0) return rc;
    /* the replay is collective to its end: a refusal of the history is agreed after it */
    rc = replay_lists(s, st, &bad, err, err_len);
    return first_refusal(s, row_of(st->contact_row, bad, rc), err, err_len);
}
