/* The step loop: velocity Verlet, with the neighbour list rebuilt only when a particle
 * has moved more than half the skin; creating and freeing a simulation. The units it
 * calls own the rest: pair_table.c, ghosts.c, list_build.c, force_loop.c (with
 * pair_geometry.h and contact_ends.h), integrate.c, wall_loads.c; energy.c and
 * restore.c implement the energy books and the restart of sim.h. */
#include "engine/sim.h"
#include "engine/fail.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exact_sum.h"
#include "engine/population/fill.h"
#include "force_loop.h"
#include "friction.h"
#include "engine/neighbours/ghosts.h"
#include "engine/neighbours/lees_edwards.h"
#include "integrate.h"
#include "engine/neighbours/list_build.h"
#include "observables.h"
#include "engine/collide/pair_restitution.h"
#include "pair_table.h"
#include "engine/neighbours/reorder.h"
#include "engine/checks/runaway.h"
#include "engine/checks/timestep.h"
#include "engine/walls/wall_loads.h"

/* Below s->parallel_min items a loop runs on one thread: opening a parallel region
 * costs more than the work (and spinning threads starve other processes).
 * cfg.tuning.parallel_min overrides the default, so that tests can run small systems on
 * several threads. */
#define PARALLEL_MIN_DEFAULT 4096

/* The step's clock (sim.pass_seconds): the time since `*since` goes to `pass`, and
 * *since moves to now. Each stretch of sim_step goes to one pass, so the passes add up
 * to the whole step; one clock read per pass, a few per step. */
static void lap(sim *s, int pass, double *since)
{
    double now = omp_get_wtime();
    s->pass_seconds[pass] += now - *since;
    *since = now;
}

/* The forces on every particle and wall. Within a step (`in_step`)
 * integrate_advance_positions has started the particles' sums, and the velocities are
 * corrected as the sums end. `clock`: the step's (lap). Returns 0 or -1 (out of memory). */
static int compute_forces(sim *s, const int in_step, double *clock)
{
    s->spring_span = in_step ? s->dt : 0.0; /* the forces at the start move no spring */
    for (int q = 0; q < SIM_WORK_KINDS; q++) s->work_step[q] = 0.0;
    s->n_contacts = 0;
    s->max_overlap = 0.0;
    if (!in_step) integrate_start_sums(s);
    lap(s, SIM_PASS_BOOKS, clock);
    force_loop_run(s, &s->pairs, 0);
    force_loop_run(s, &s->wall_pairs, 1);
    s->pair_forces_recorded = s->pairs.force[0] != NULL;
    lees_edwards_plane(s, in_step);
    lap(s, SIM_PASS_PAIRS, clock);
    integrate_add_stored_forces(s, in_step);
    lap(s, SIM_PASS_INTEGRATION, clock);
    int rc = wall_loads_sum(s);
    lap(s, SIM_PASS_BOOKS, clock);
    return rc;
}

/* Memory ran out at `where` (SIM_MEMORY_*): the step stops here. */
static void out_of_memory(sim *s, int where)
{
    s->fault = SIM_FAULT_NO_MEMORY;
    s->fault_memory = where;
}

int sim_failed_anywhere(const sim *s, int failed)
{
    return s->ghost_hooks ? s->ghost_hooks->any(failed != 0, s->ghost_hooks->ctx) : failed != 0;
}

int sim_update_ghosts(sim *s)
{
    if (s->ghost_hooks) return s->ghost_hooks->update(s, s->ghost_hooks->ctx);
    ghosts_update(s, &s->p);
    return 0;
}

void sim_step(sim *s)
{
    if (s->fault) return; /* the watchdog (or the program) reports it; nothing moves */
    double clock = omp_get_wtime();
    if (s->cfg.n_inlets > 0 || s->cfg.n_outlets > 0) {
        int rc = population_change(s);
        if (rc == REBUILD_REFUSED) return;
        if (rc != 0) {
            out_of_memory(s, SIM_MEMORY_POPULATION);
            return;
        }
    }
    lap(s, SIM_PASS_BOOKS, &clock);
    double moved = integrate_advance_positions(s, &s->p, s->dt);
    double pressed = lees_edwards_barostat(s); /* the box height, the particles' z with it */
    if (pressed < 0.0) {
        out_of_memory(s, SIM_MEMORY_REBUILD);
        return;
    }
    if (pressed > 0.0) moved = (sqrt(moved) + pressed) * (sqrt(moved) + pressed);
    lees_edwards_advance(s); /* the images too */
    walls_move(&s->walls, (double)(s->step + 1) * s->dt); /* to where they are at the step's end */
    lap(s, SIM_PASS_INTEGRATION, &clock);
    int due = list_needs_rebuild(s, moved);
    if (s->ghost_hooks) due = s->ghost_hooks->any(due, s->ghost_hooks->ctx);
    if (due) {
        int rc = list_rebuild(s);
        if (rc == REBUILD_REFUSED) { /* the positions are the step's end's, the forces not */
            s->step++;
            s->time = s->step * s->dt;
            return;
        }
        if (rc != 0) {
            out_of_memory(s, SIM_MEMORY_REBUILD);
            return;
        }
    } else if (sim_update_ghosts(s) != 0) {
        out_of_memory(s, SIM_MEMORY_REBUILD);
        return;
    }
    lap(s, SIM_PASS_NEIGHBOURS, &clock);
    if (compute_forces(s, 1, &clock) != 0) { /* and corrects the velocities */
        out_of_memory(s, SIM_MEMORY_WALL_LOADS);
        return;
    }
    s->step++;
    s->time = s->step * s->dt;
}

int sim_record_pair_forces(sim *s, int on)
{
    if (s->cfg.lees_edwards.on) on = 1; /* the shear's books read them every step */
    int was = s->pairs.force[0] != NULL;
    int rc = contact_list_record_forces(&s->pairs, on);
    if ((s->pairs.force[0] != NULL) != was) s->pair_forces_recorded = 0; /* until the next forces */
    return rc;
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
    int rc = sim_place(s, cfg, err, err_len);
    return rc != 0 ? rc : sim_start(s, err, err_len);
}

int sim_place(sim *s, const sim_config *cfg, char *err, size_t err_len)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    const sim_tuning *t = &cfg->tuning;
    s->parallel_min = t->set_parallel_min ? t->parallel_min : PARALLEL_MIN_DEFAULT;
    s->block = t->block > 0 ? t->block : CONTACT_BLOCK;
    s->search_room = t->set_search_room ? t->search_room : -1.0;
    s->reorder = 1;
    s->reorder_min = t->set_reorder_min ? t->reorder_min : REORDER_MIN;
    if (particles_init(&s->p, 1024) != 0) goto oom;
    int rc;
    for (int k = 0; k < cfg->n_sources; k++) {
        const particle_source *src = &cfg->sources[k];
        if ((rc = fill_source(&s->p, src, &cfg->materials[src->material], k, cfg->stop, err,
                              err_len)) != 0)
            return rc;
    }
    if (cfg->sources_copied) cfg->sources_copied(cfg->sources_copied_ctx);
    if (s->p.n_local == 0 && cfg->n_inlets == 0) {
        snprintf(err, err_len, "particles: the case creates no particles (and has no inlet)");
        return -1;
    }
    if (s->p.n_local > UINT32_MAX / 2) { snprintf(err, err_len, "particles: too many particles"); return -1; }
    if ((rc = walls_init(&s->walls, cfg->walls, (size_t)cfg->n_walls, err, err_len)) != 0 ||
        (rc = walls_check_particles(&s->walls, &s->p, err, err_len)) != 0)
        return fail_value(rc);
    /* the loads' exact sums (wall_loads.c), made now: split over ranks, a step allocates
     * nothing between its collectives */
    if (cfg->reproducible && s->walls.n > 0 &&
        !(s->walls.exact = malloc(6 * s->walls.n * sizeof *s->walls.exact)))
        goto oom;
    if ((rc = pair_table_setup(s, err, err_len)) != 0 ||
        (rc = pair_table_check_cover(s, err, err_len)) != 0)
        return fail_value(rc);
    if (pair_table_configure_lists(s) != 0) goto oom;

    double r_max = largest_radius(&s->p);
    for (int k = 0; k < cfg->n_inlets; k++) r_max = fmax(r_max, cfg->inlets[k].radius_max);
    s->largest_radius = r_max;
    if ((rc = population_init(s, err, err_len)) != 0) return fail_value(rc);
    s->skin = cfg->skin > 0.0 ? cfg->skin : 0.1 * 2.0 * r_max;
    s->cutoff = 2.0 * r_max + s->skin;
    if (cfg->lees_edwards.on) lees_edwards_start_profile(s);
    if ((rc = pair_table_check_reach(s, err, err_len)) != 0) return fail_value(rc);
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
    if ((rc = choose_timestep(s, err, err_len)) != 0 || (rc = population_check(s, err, err_len)) != 0)
        return fail_value(rc);
    return pair_restitution_calibrate(s, err, err_len);
oom:
    snprintf(err, err_len, "out of memory");
    return FAIL_NO_MEMORY;
}

int sim_start(sim *s, char *err, size_t err_len)
{
    if (s->cfg.lees_edwards.on && sim_record_pair_forces(s, 1) != 0) {
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    /* split over ranks, this first rebuild keeps each rank's own particles and brings
     * its ghosts (a failure in it is agreed, as is one in the forces) */
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
    double clock = omp_get_wtime();
    if (built != 0 || sim_failed_anywhere(s, compute_forces(s, 0, &clock) != 0)) {
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    sim_observables start = {0};
    s->initial_energy = 0.0;
    sim_observe(s, &start);
    s->initial_energy = start.kinetic_energy + start.rotational_energy +
                        start.gravitational_energy + start.elastic_energy;
    return 0;
}

/* A particle's id and where it is, to find it again after a split renumbered it. */
typedef struct id_place {
    int64_t id;
    double x[3];
} id_place;

static int by_place_id(const void *a, const void *b)
{
    int64_t x = ((const id_place *)a)->id, y = ((const id_place *)b)->id;
    return (x > y) - (x < y);
}

/* A particle-wall pair's overlap is the force loop's (contact_overlap cannot make it
 * from the positions) and a rebuild starts it at 0: the split keeps it by the particle's
 * id and the pair's key, for the first snapshot's contacts. */
typedef struct wall_overlap {
    int64_t id;
    uint32_t key;
    double overlap;
} wall_overlap;

static int by_wall_pair(const void *a, const void *b)
{
    const wall_overlap *x = a, *y = b;
    if (x->id != y->id) return (x->id > y->id) - (x->id < y->id);
    return (x->key > y->key) - (x->key < y->key);
}

static wall_overlap *wall_overlaps_keep(const sim *s, size_t *n_out)
{
    const contact_list *c = &s->wall_pairs;
    wall_overlap *w = malloc((c->n + 1) * sizeof *w);
    *n_out = 0;
    for (size_t k = 0; w && k < c->n; k++)
        if (c->overlap[k] != 0.0) w[(*n_out)++] = (wall_overlap){s->p.id[c->i[k]], c->owner_j[k], c->overlap[k]};
    if (w) qsort(w, *n_out, sizeof *w, by_wall_pair);
    return w;
}

static void wall_overlaps_restore(sim *s, const wall_overlap *w, size_t n)
{
    contact_list *c = &s->wall_pairs;
    for (size_t k = 0; k < c->n; k++) {
        wall_overlap key = {s->p.id[c->i[k]], c->owner_j[k], 0.0};
        const wall_overlap *at = bsearch(&key, w, n, sizeof *w, by_wall_pair);
        if (at) c->overlap[k] = at->overlap;
    }
}

int sim_split(sim *s, const sim_ghost_hooks *hooks, char *err, size_t err_len)
{
    if (!s->cfg.reproducible) {
        snprintf(err, err_len, "parallel.reproducible: a run over several ranks sums by id");
        return -1;
    }
    /* The split makes the last rebuild again, over the ranks: the particles where that
     * rebuild had them (the list it made, and no periodic wrap beyond its own), the
     * walls where they were then. The touching pairs go through it by the ids of their
     * ends (list_rebuild), the forces with their particles; then each particle goes
     * back to where it is now. */
    particle_store *p = &s->p;
    size_t n = p->n_local;
    id_place *now = malloc((n ? n : 1) * sizeof *now);
    size_t n_walls = 0;
    wall_overlap *walls = wall_overlaps_keep(s, &n_walls);
    s->ghost_hooks = hooks;
    if (sim_failed_anywhere(s, !now || !walls)) {
        s->ghost_hooks = NULL;
        free(now);
        free(walls);
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    for (size_t i = 0; i < n; i++) {
        now[i] = (id_place){p->id[i], {p->x[i], p->y[i], p->z[i]}};
        p->x[i] = s->x_at_rebuild[3 * i];
        p->y[i] = s->x_at_rebuild[3 * i + 1];
        p->z[i] = s->x_at_rebuild[3 * i + 2];
    }
    qsort(now, n, sizeof *now, by_place_id);
    double time = s->walls.time;
    int stale = s->list_stale;
    walls_move(&s->walls, s->rebuild_wall_time);
    /* a sheared box's images as that rebuild placed them, its height as it was then */
    const double offset = s->le.offset, top = s->cfg.domain_max[2];
    if (s->cfg.lees_edwards.on) {
        s->le.offset = s->le.offset_at_rebuild;
        s->cfg.domain_max[2] = s->le.top_at_rebuild;
    }
    int rc = list_rebuild(s);
    if (s->cfg.lees_edwards.on) {
        s->le.offset = offset;
        s->cfg.domain_max[2] = top;
    }
    walls_move(&s->walls, time);
    s->list_stale = stale;
    if (rc == 0) wall_overlaps_restore(s, walls, n_walls);
    free(walls);
    for (size_t i = 0; rc == 0 && i < p->n_local; i++) {
        id_place key = {.id = p->id[i]};
        const id_place *at = bsearch(&key, now, n, sizeof *now, by_place_id);
        p->x[i] = at->x[0];
        p->y[i] = at->x[1];
        p->z[i] = at->x[2];
    }
    free(now);
    if (rc == 0 && hooks->update(s, hooks->ctx) != 0) rc = -1;
    if (rc != 0) snprintf(err, err_len, rc == REBUILD_REFUSED ? "the neighbour rebuild was refused"
                                                              : "out of memory");
    return rc == 0 ? 0 : rc == REBUILD_REFUSED ? FAIL_REFUSED : FAIL_NO_MEMORY;
}

void sim_reduce_exact(const sim *s, struct exact_sum *sums, int n)
{
    if (s->ghost_hooks && s->ghost_hooks->reduce) s->ghost_hooks->reduce(sums, n, s->ghost_hooks->ctx);
}

size_t sim_particles_everywhere(const sim *s)
{
    exact_sum n;
    exact_sum_clear(&n);
    exact_sum_add(&n, (double)s->p.n_local);
    sim_reduce_exact(s, &n, 1);
    return (size_t)exact_sum_value(&n);
}

double sim_reduce_largest(const sim *s, double x)
{
    return s->ghost_hooks && s->ghost_hooks->largest ? s->ghost_hooks->largest(x, s->ghost_hooks->ctx) : x;
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
    free(s->le.pairs);
    free(s->leaving);
    free(s->chunk_work);
    free(s->chunk_exact);
    population_free(s);
    memset(s, 0, sizeof *s);
}
