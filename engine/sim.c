/* The step loop: velocity Verlet, with the neighbour list rebuilt only when a particle
 * has moved more than half the skin; creating and freeing a simulation. The units it
 * calls own the rest: pair_table.c, ghosts.c, list_build.c, force_loop.c (with
 * pair_geometry.c and contact_ends.c), integrate.c, wall_loads.c; energy.c and
 * restore.c implement the energy books and the restart of sim.h. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill.h"
#include "force_loop.h"
#include "friction.h"
#include "ghosts.h"
#include "integrate.h"
#include "list_build.h"
#include "observables.h"
#include "pair_restitution.h"
#include "pair_table.h"
#include "reorder.h"
#include "runaway.h"
#include "timestep.h"
#include "wall_loads.h"

/* Below s->parallel_min items a loop runs on one thread: opening a parallel region
 * costs more than the work (and spinning threads starve other processes). The
 * environment variable DEMPACT_PARALLEL_MIN overrides the default, so that tests can
 * run small systems on several threads. */
#define PARALLEL_MIN_DEFAULT 4096

/* The forces on every particle and wall. Within a step (`in_step`) integrate_advance_positions
 * has started the particles' sums, and the velocities are corrected as the sums end. */
static void compute_forces(sim *s, const int in_step)
{
    s->spring_span = in_step ? s->dt : 0.0; /* the forces at the start move no spring */
    for (int q = 0; q < SIM_WORK_KINDS; q++) s->work_step[q] = 0.0;
    s->n_contacts = 0;
    s->max_overlap = 0.0;
    if (!in_step) integrate_start_sums(s);
    force_loop_run(s, &s->pairs, 0);
    force_loop_run(s, &s->wall_pairs, 1);
    integrate_add_stored_forces(s, in_step);
    wall_loads_sum(s);
}

/* Inlets and outlets: removes the particles that entered an outlet, inserts what the
 * inlets owe, and rebuilds the neighbour list if anything changed (contact histories
 * follow their particles through the renumbering). Returns 0 or -1 (out of memory). */
static int change_population(sim *s)
{
    population_accrue(s);
    size_t leaving = 0;
    if (s->cfg.n_outlets > 0) {
        uint8_t *flags = realloc(s->leaving, s->p.n_local + 1);
        if (!flags) return -1;
        s->leaving = flags;
        leaving = population_mark_outgoing(s, flags);
    }
    int inserting = population_changes_due(s);
    if (leaving == 0 && !inserting) return 0;
    s->p.n_total = s->p.n_local; /* ghosts are remade by the rebuild */
    if (leaving > 0) {
        int64_t *new_index = malloc((s->p.n_local + 1) * sizeof *new_index);
        if (!new_index) return -1;
        particles_remove(&s->p, s->leaving, new_index);
        contact_list_remap(&s->pairs, new_index, s->p.n_local, 0);
        contact_list_remap(&s->wall_pairs, new_index, s->p.n_local, 1);
        free(new_index);
    }
    if (inserting && population_insert(s) < 0) return -1;
    return list_rebuild(s);
}

void sim_step(sim *s)
{
    if (s->fault) return; /* the watchdog reports it; nothing moves any more */
    if (s->cfg.n_inlets > 0 || s->cfg.n_outlets > 0) {
        int rc = change_population(s);
        if (rc == REBUILD_REFUSED) return;
        if (rc != 0) {
            fprintf(stderr, "dempact: out of memory while inserting or removing particles\n");
            exit(3);
        }
    }
    double moved = integrate_advance_positions(s, &s->p, s->dt);
    walls_move(&s->walls, (double)(s->step + 1) * s->dt); /* to where they are at the step's end */
    if (list_needs_rebuild(s, moved)) {
        int rc = list_rebuild(s);
        if (rc == REBUILD_REFUSED) { /* the positions are the step's end's, the forces not */
            s->step++;
            s->time = s->step * s->dt;
            return;
        }
        if (rc != 0) {
            fprintf(stderr, "dempact: out of memory in the neighbour rebuild (%zu particles, "
                    "%zu candidate pairs before it)\n", s->p.n_local, s->pairs.n);
            exit(3);
        }
    } else {
        ghosts_update(s, &s->p);
    }
    compute_forces(s, 1); /* and corrects the velocities */
    s->step++;
    s->time = s->step * s->dt;
}

/* ---- creation ----------------------------------------------------------------------- */

static double largest_radius(const particle_store *p)
{
    double r = 0.0;
    for (size_t i = 0; i < p->n_local; i++) r = fmax(r, p->radius[i]);
    return r;
}

int sim_create(sim *s, const sim_config *cfg, char *err, size_t err_len)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    const char *pmin = getenv("DEMPACT_PARALLEL_MIN");
    s->parallel_min = pmin ? strtoul(pmin, NULL, 10) : PARALLEL_MIN_DEFAULT;
    /* DEMPACT_BLOCK: smaller blocks, so that tests of small systems have cross pairs */
    const char *block = getenv("DEMPACT_BLOCK");
    s->block = block && strtoul(block, NULL, 10) > 0 ? strtoul(block, NULL, 10) : CONTACT_BLOCK;
    /* DEMPACT_SEARCH_ROOM=0: the neighbour search's buffers start nearly empty, so that
     * tests take the path where they grow (build_list) */
    const char *room = getenv("DEMPACT_SEARCH_ROOM");
    s->search_room = room ? strtod(room, NULL) : -1.0;
    const char *reorder_min = getenv("DEMPACT_REORDER_MIN"); /* engine/reorder.h */
    s->reorder = 1;
    s->reorder_min = reorder_min ? strtoul(reorder_min, NULL, 10) : REORDER_MIN;
    if (particles_init(&s->p, 1024) != 0) goto oom;
    for (int k = 0; k < cfg->n_sources; k++) {
        const particle_source *src = &cfg->sources[k];
        if (fill_source(&s->p, src, &cfg->materials[src->material], k, cfg->stop, err,
                        err_len) != 0)
            return -1;
    }
    if (cfg->sources_copied) cfg->sources_copied(cfg->sources_copied_ctx);
    if (s->p.n_local == 0 && cfg->n_inlets == 0) {
        snprintf(err, err_len, "particles: the case creates no particles (and has no inlet)");
        return -1;
    }
    if (s->p.n_local > UINT32_MAX / 2) { snprintf(err, err_len, "particles: too many particles"); return -1; }
    if (walls_init(&s->walls, cfg->walls, (size_t)cfg->n_walls, err, err_len) != 0 ||
        walls_check_particles(&s->walls, &s->p, err, err_len) != 0)
        return -1;
    if (pair_table_setup(s, err, err_len) != 0 || pair_table_check_cover(s, err, err_len) != 0) return -1;
    pair_table_configure_lists(s);

    double r_max = largest_radius(&s->p);
    for (int k = 0; k < cfg->n_inlets; k++) r_max = fmax(r_max, cfg->inlets[k].radius_max);
    s->largest_radius = r_max;
    if (population_init(s, err, err_len) != 0) return -1;
    s->skin = cfg->skin > 0.0 ? cfg->skin : 0.1 * 2.0 * r_max;
    s->cutoff = 2.0 * r_max + s->skin;
    for (int a = 0; a < 3; a++) {
        double len = cfg->domain_max[a] - cfg->domain_min[a];
        if (cfg->periodic[a] && len <= 2.0 * s->cutoff) {
            snprintf(err, err_len,
                     "domain.periodic: axis %c is %g m long; it must be longer than twice the "
                     "largest diameter plus the skin (%g m)",
                     "xyz"[a], len, 2.0 * s->cutoff);
            return -1;
        }
    }
    if (choose_timestep(s, err, err_len) != 0 || population_check(s, err, err_len) != 0)
        return -1;
    if (pair_restitution_calibrate(s, err, err_len) != 0) return -1;

    int built = list_rebuild(s);
    if (built == REBUILD_REFUSED) { /* the case reader keeps particles in the domain */
        if (s->fault == SIM_FAULT_RUNAWAY)
            snprintf(err, err_len, "particles: particle %lld lies more than %g domain lengths "
                     "outside the domain along %c", (long long)s->p.id[s->fault_particle],
                     SIM_RUNAWAY_MARGIN, "xyz"[s->fault_axis]);
        else if (s->fault == SIM_FAULT_PAIRS)
            snprintf(err, err_len, "particles: the neighbour list would hold more than %zu "
                     "candidate pairs (particles crowded into few cells)", CONTACT_MAX_PAIRS);
        else
            snprintf(err, err_len, "particles: their spread is too wide for a neighbour grid");
        return -1;
    }
    if (built != 0) goto oom;
    compute_forces(s, 0);
    sim_observables start = {0};
    s->initial_energy = 0.0;
    sim_observe(s, &start);
    s->initial_energy = start.kinetic_energy + start.rotational_energy +
                        start.gravitational_energy + start.elastic_energy;
    return 0;
oom:
    snprintf(err, err_len, "out of memory");
    return -1;
}

void sim_free(sim *s)
{
    particles_free(&s->p);
    neighbour_grid_free(&s->grid);
    contact_list_free(&s->pairs);
    contact_list_free(&s->carry);
    contact_list_free(&s->wall_pairs);
    contact_list_free(&s->wall_carry);
    free(s->laws);
    walls_free(&s->walls);
    free(s->x_at_rebuild);
    free(s->leaving);
    free(s->chunk_work);
    population_free(s);
    memset(s, 0, sizeof *s);
}

/* ---- restart support ---- */
/* (io/restart.c reads a snapshot into a sim_restart_state; see sim.h.) */
#include <stddef.h>

const pair_history_field sim_pair_history[] = {
    {"impact_velocity", offsetof(contact_list, impact_velocity), 1, 0},
    {"law_history", offsetof(contact_list, history), LAW_MAX_HISTORY, 0},
    {"tangential_spring", offsetof(contact_list, tangential), 3, 0},
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
                             char *err, size_t err_len)
{
    const particle_store *p = &s->p;
    particle_store q, made;
    if (particles_init(&q, st->n) != 0) goto oom;
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
            snprintf(err, err_len, "particle id %lld: the case makes it material %d, radius %.17g m, "
                                   "mass %.17g kg; the snapshot has material %d, radius %.17g m, "
                                   "mass %.17g kg (the case's particles changed)",
                     (long long)id, from->type[i], from->radius[i], from->mass[i], st->type[r],
                     st->radius[r], st->mass[r]);
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
        q.tx[r] = st->torque[3 * r]; q.ty[r] = st->torque[3 * r + 1]; q.tz[r] = st->torque[3 * r + 2];
        if (sim_spin_free(s)) /* a snapshot of a run with friction, restarted without:
                                       no torque acts from here on (the steps leave it) */
            q.tx[r] = q.ty[r] = q.tz[r] = 0.0;
        q.fx0[r] = q.fy0[r] = q.fz0[r] = q.tx0[r] = q.ty0[r] = q.tz0[r] = 0.0;
    }
    q.n_local = q.n_total = st->n;
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
done:
    if (rc != 0) particles_free(&q);
    particles_free(&made);
    return rc;
oom:
    snprintf(err, err_len, "out of memory");
    return -1;
}

/* by_place: the list is the run's own (replayed), find each pair at its saved place;
 * else (the run had invalidated its list, so the next step rebuilds it and only the set
 * of pairs matters) by its other end: the particle, or the how-manieth entry with the
 * same wall (an STL wall's touching entries are its first ones). */
static int restore_history(sim *s, const sim_restart_state *st, const id_row *rows,
                           int by_place, char *err, size_t err_len)
{
    contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n; k++) contact_clear_history(lists[L], k);
    for (size_t m = 0; m < st->n_contacts; m++) {
        int64_t a = st->contact_id[2 * m], b = st->contact_id[2 * m + 1], slot = st->contact_slot[m];
        int is_wall = st->contact_wall[m] != 0;
        contact_list *c = is_wall ? &s->wall_pairs : &s->pairs;
        size_t i = id_find(rows, st->n, a), k = c->n;
        /* the same place in the replayed list, holding the same other end */
        if (by_place && i < s->p.n_local && slot >= 0 &&
            (size_t)slot < c->first_of_i[i + 1] - c->first_of_i[i]) {
            k = c->first_of_i[i] + (size_t)slot;
            int same = is_wall ? (int64_t)c->j[k] == b : s->p.id[c->owner_j[k]] == b;
            if (!same) k = c->n;
        }
        if (!by_place && i < s->p.n_local) {
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
            snprintf(err, err_len, "contact %zu of the snapshot (particle %lld with %s %lld) is not "
                                   "where the replayed neighbour list has it", m, (long long)a,
                     is_wall ? "wall" : "particle", (long long)b);
            return -1;
        }
        c->touching[k] = 1;
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

int sim_restore(sim *s, const sim_restart_state *st, char *err, size_t err_len)
{
    if (st->n == 0 || st->n > UINT32_MAX / 2) {
        snprintf(err, err_len, "the snapshot has %zu particles", st->n);
        return -1;
    }
    if (!(st->dt > 0.0) || !isfinite(st->dt) || !isfinite(st->time) || st->step < 0) {
        snprintf(err, err_len, "the snapshot's time %g s, step %lld or timestep %g s is not valid",
                 st->time, (long long)st->step, st->dt);
        return -1;
    }
    int64_t dup = -1, fresh_dup = -1;
    id_row *rows = id_index(st->id, st->n, &dup), *fresh = id_index(s->p.id, s->p.n_local, &fresh_dup);
    int rc = -1;
    if (!rows || !fresh) {
        snprintf(err, err_len, "out of memory");
        goto done;
    }
    if (dup >= 0) {
        snprintf(err, err_len, "particle id %lld appears twice in the snapshot", (long long)dup);
        goto done;
    }
    int invalid = 0;
    for (size_t k = 0; k < 3 * st->n; k++) invalid |= !isfinite(st->position_at_rebuild[k]);
    rc = restore_particles(s, st, fresh, err, err_len);
    if (rc == 0) rc = restore_engine(s, st, err, err_len);
    if (rc == 0) {
        s->dt = st->dt;
        s->step = st->step;
        s->time = st->time;
        /* A run that changed its particles outside a rebuild (the watchdog dropping one)
         * marks its list stale with a non-finite position_at_rebuild: the next step
         * rebuilds it. Then build the list from the current positions (every touching
         * pair is in it), and keep the mark. */
        if (invalid)
            for (size_t r = 0; r < st->n; r++) {
                s->p.x[r] = st->position[3 * r];
                s->p.y[r] = st->position[3 * r + 1];
                s->p.z[r] = st->position[3 * r + 2];
            }
        walls_move(&s->walls, isnan(st->rebuild_wall_time) || invalid ? st->time : st->rebuild_wall_time);
        /* The snapshot's order is the one the run's last rebuild left (sorted or not):
         * keep it, so the list is built as that rebuild built it. */
        int reorder = s->reorder;
        s->reorder = 0;
        if (list_rebuild(s) != 0) {
            snprintf(err, err_len, "out of memory");
            rc = -1;
        }
        s->reorder = reorder;
        walls_move(&s->walls, st->time);
        if (invalid) memcpy(s->x_at_rebuild, st->position_at_rebuild, 3 * st->n * sizeof(double));
    }
    if (rc == 0) {
        particle_store *p = &s->p;
        for (size_t r = 0; r < st->n; r++) {
            p->x[r] = st->position[3 * r];
            p->y[r] = st->position[3 * r + 1];
            p->z[r] = st->position[3 * r + 2];
        }
        ghosts_update(s, p);
        rc = restore_history(s, st, rows, !invalid, err, err_len);
    }
done:
    free(rows);
    free(fresh);
    return rc;
}
