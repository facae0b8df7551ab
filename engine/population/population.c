#include "population.h"
#include "engine/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/exact_sum.h"
#include "engine/neighbours/list_build.h"
#include "engine/sim.h"

/* Mean mass of a sphere with radius uniform in [a, b]: rho 4/3 pi E[r^3]. */
static double mean_mass(double density, double a, double b)
{
    double r3 = b > a ? (b * b * b * b - a * a * a * a) / (4.0 * (b - a)) : a * a * a;
    return density * 4.0 / 3.0 * M_PI * r3;
}

int population_init(sim *s, char *err, size_t err_len)
{
    const sim_config *cfg = &s->cfg;
    s->inlets = calloc((size_t)cfg->n_inlets + 1, sizeof *s->inlets);
    s->outlets = calloc((size_t)cfg->n_outlets + 1, sizeof *s->outlets);
    s->outlet_step = calloc(2 * (size_t)cfg->n_outlets + 1, sizeof *s->outlet_step);
    if (!s->inlets || !s->outlets || !s->outlet_step) {
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    for (int k = 0; k < cfg->n_inlets; k++) {
        const inlet_spec *in = &cfg->inlets[k];
        inlet_state *st = &s->inlets[k];
        st->random.state = in->seed;
        st->next_time = in->start;
        st->rate = in->mass_rate > 0.0
            ? in->mass_rate / mean_mass(cfg->materials[in->material].density, in->radius_min,
                                        in->radius_max)
            : in->rate;
    }
    return 0;
}

int population_check(const sim *s, char *err, size_t err_len)
{
    for (int k = 0; k < s->cfg.n_inlets; k++) {
        const inlet_spec *in = &s->cfg.inlets[k];
        double interval = in->interval > 0.0 ? in->interval : 100.0 * s->dt;
        double per_insertion = s->inlets[k].rate * interval;
        double cube = 2.0 * in->radius_max, room = 1.0;
        for (int a = 0; a < 3; a++) room *= floor((in->region_max[a] - in->region_min[a]) / cube);
        if (per_insertion <= room) continue;
        const char *key = in->mass_rate > 0.0 ? "mass_rate" : "rate";
        snprintf(err, err_len,
                 "inlets[%d].%s = %g %s asks for %.4g particles at each insertion (every %g s%s), "
                 "but the inlet's region holds at most %.0f spheres of radius %g m (one per cube "
                 "of side %g m): lower the rate, insert more often (inlets[%d].interval) or "
                 "enlarge the region", k, key, in->mass_rate > 0.0 ? in->mass_rate : in->rate,
                 in->mass_rate > 0.0 ? "kg/s" : "particles/s", per_insertion, interval,
                 in->interval > 0.0 ? "" : ": 100 steps", room, in->radius_max, cube, k);
        return -1;
    }
    return 0;
}

void population_free(sim *s)
{
    free(s->inlets);
    free(s->outlets);
    free(s->outlet_step);
    s->inlets = NULL;
    s->outlets = NULL;
    s->outlet_step = NULL;
}

static int inside_box(const double x[3], const double lo[3], const double hi[3])
{
    return x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] &&
           x[2] >= lo[2] && x[2] <= hi[2];
}

/* A sphere a new one must not overlap: centre and radius. */
enum { SPHERE = 4 };

static void put_sphere(double *row, const double x[3], double r)
{
    row[0] = x[0];
    row[1] = x[1];
    row[2] = x[2];
    row[3] = r;
}

/* The local particles near an inlet's region (within reach of a new sphere), as rows
 * of SPHERE doubles, with room for `extra` more. NULL: out of memory. */
static double *neighbours_of_region(const sim *s, const inlet_spec *in, double reach,
                                    size_t extra, size_t *n_out)
{
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = in->region_min[a] - reach;
        hi[a] = in->region_max[a] + reach;
    }
    const particle_store *p = &s->p;
    double *near = malloc(SPHERE * (p->n_local + extra + 1) * sizeof *near);
    size_t n = 0;
    for (size_t i = 0; near && i < p->n_local; i++) {
        double x[3] = {p->x[i], p->y[i], p->z[i]};
        if (!inside_box(x, lo, hi)) continue;
        put_sphere(&near[SPHERE * n++], x, p->radius[i]);
    }
    *n_out = n;
    return near;
}

/* ... of every rank, when the run is split (the same rows on each, whatever their order:
 * the overlap test below is a yes or no). */
static double *neighbours_everywhere(const sim *s, const inlet_spec *in, double reach,
                                     size_t extra, size_t *n_out)
{
    double *mine = neighbours_of_region(s, in, reach, s->ghost_hooks ? 0 : extra, n_out);
    if (!s->ghost_hooks) return mine;
    double *all = NULL;
    int rc = s->ghost_hooks->gather(mine, mine ? *n_out : 0, SPHERE, extra, mine == NULL, &all,
                                    n_out, s->ghost_hooks->ctx);
    free(mine);
    return rc == 0 ? all : NULL;
}

static int overlaps(const double *near, size_t n_near, const double x[3], double r)
{
    for (size_t q = 0; q < n_near; q++) {
        const double *b = &near[SPHERE * q];
        double dx = b[0] - x[0], dy = b[1] - x[1], dz = b[2] - x[2];
        double gap = b[3] + r;
        if (dx * dx + dy * dy + dz * dz < gap * gap) return 1;
    }
    return 0;
}

/* Whether a sphere (centre x, radius r) would touch or cross a wall where it is now: an
 * inlet region may reach through a wall (a hopper's cone, a drum), and a sphere placed
 * into a wall would be shot out by the overlap. */
static int touches_wall(const sim *s, const double x[3], double r)
{
    for (size_t w = 0; w < s->walls.n; w++) {
        if (s->walls.walls[w].kind == WALL_STL) {
            wall_contact c;
            if (walls_mesh_contacts(&s->walls, w, x, r, &c, 1) > 0) return 1;
            continue;
        }
        double n[3];
        if (!(walls_distance(&s->walls, w, x, n) > r)) return 1;
    }
    return 0;
}

#define ATTEMPTS_PER_PARTICLE 50

/* Places `count` spheres of inlet k at random free positions (each inside the region).
 * Returns how many were placed, or -1 on out of memory. */
static long place(sim *s, int k, long count)
{
    const inlet_spec *in = &s->cfg.inlets[k];
    inlet_state *st = &s->inlets[k];
    particle_store *p = &s->p;
    size_t n_near;
    double *near = neighbours_everywhere(s, in, in->radius_max + s->largest_radius, (size_t)count, &n_near);
    if (!near) return -1;
    const material *mat = &s->cfg.materials[in->material];
    long placed = 0;
    for (long q = 0; q < count; q++) {
        /* the run stops after this step (split over ranks, the ranks agree on a stop
         * only after the step: every one places all) */
        if (!s->ghost_hooks && s->cfg.stop && *s->cfg.stop) {
            st->failed += count - q;
            break;
        }
        double r = rng_range(&st->random, in->radius_min, in->radius_max), x[3];
        int ok = 0;
        for (int t = 0; t < ATTEMPTS_PER_PARTICLE && !ok; t++) {
            for (int a = 0; a < 3; a++) {
                double lo = in->region_min[a] + r, hi = in->region_max[a] - r;
                x[a] = hi > lo ? rng_range(&st->random, lo, hi)
                               : 0.5 * (in->region_min[a] + in->region_max[a]);
            }
            ok = !overlaps(near, n_near, x, r) && !touches_wall(s, x, r);
        }
        if (!ok) { st->failed++; continue; }
        long i = particles_add(p, in->material, r, mat->density, x, in->velocity);
        if (i < 0) { free(near); return -1; }
        put_sphere(&near[SPHERE * n_near++], x, r);
        st->inserted++;
        st->mass_inserted += p->mass[i];
        placed++;
    }
    free(near);
    return placed;
}

int population_changes_due(const sim *s)
{
    for (int k = 0; k < s->cfg.n_inlets; k++) {
        const inlet_spec *in = &s->cfg.inlets[k];
        const inlet_state *st = &s->inlets[k];
        int active = s->time >= in->start && (in->stop <= 0.0 || s->time < in->stop);
        if (active && s->time >= st->next_time && st->due >= 1.0) return 1;
    }
    return 0;
}

long population_insert(sim *s)
{
    long added = 0;
    int failed = 0;
    for (int k = 0; k < s->cfg.n_inlets; k++) {
        const inlet_spec *in = &s->cfg.inlets[k];
        inlet_state *st = &s->inlets[k];
        int active = s->time >= in->start && (in->stop <= 0.0 || s->time < in->stop);
        if (!active || s->time < st->next_time || st->due < 1.0) continue;
        double interval = in->interval > 0.0 ? in->interval : 100.0 * s->dt;
        st->next_time = s->time + interval;
        long count = (long)floor(st->due);
        st->due -= (double)count; /* what cannot be placed now is counted as failed */
        long placed = place(s, k, count);
        /* split over ranks, a rank that ran out of memory still takes every inlet's
         * collective (their placements gather), and then fails with the others */
        if (placed < 0 && !s->ghost_hooks) return -1;
        if (placed < 0) failed = 1;
        else added += placed;
    }
    return failed ? -1 : added;
}

void population_accrue(sim *s)
{
    for (int k = 0; k < s->cfg.n_inlets; k++) {
        const inlet_spec *in = &s->cfg.inlets[k];
        if (s->time >= in->start && (in->stop <= 0.0 || s->time < in->stop))
            s->inlets[k].due += s->inlets[k].rate * s->dt;
    }
}

/* The first outlet whose region holds x, or -1. */
static int outlet_at(const sim *s, const double x[3])
{
    for (int k = 0; k < s->cfg.n_outlets; k++) {
        const outlet_spec *o = &s->cfg.outlets[k];
        if (inside_box(x, o->region_min, o->region_max)) return k;
    }
    return -1;
}

size_t population_mark_outgoing(sim *s, uint8_t *remove)
{
    const particle_store *p = &s->p;
    size_t n = 0;
    #pragma omp parallel for reduction(+ : n) schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        double x[3] = {p->x[i], p->y[i], p->z[i]};
        remove[i] = outlet_at(s, x) >= 0;
        n += remove[i];
    }
    return n;
}

void population_count_outgoing(sim *s, const uint8_t *remove)
{
    const particle_store *p = &s->p;
    int n_out = s->cfg.n_outlets;
    if (!s->cfg.reproducible) { /* the masses in index order */
        for (size_t i = 0; i < p->n_local; i++) {
            if (!remove[i]) continue;
            double x[3] = {p->x[i], p->y[i], p->z[i]};
            int k = outlet_at(s, x);
            s->outlets[k].removed++;
            s->outlets[k].mass_removed += p->mass[i];
        }
        return;
    }
    /* by id: each outlet's count and mass of this step summed exactly, whatever the
     * particles' order (and over the ranks), then added to its totals */
    exact_sum *step = s->outlet_step;
    for (int q = 0; q < 2 * n_out; q++) exact_sum_clear(&step[q]);
    for (size_t i = 0; i < p->n_local; i++) {
        if (!remove[i]) continue;
        double x[3] = {p->x[i], p->y[i], p->z[i]};
        int k = outlet_at(s, x);
        exact_sum_add(&step[2 * k], 1.0);
        exact_sum_add(&step[2 * k + 1], p->mass[i]);
    }
    sim_reduce_exact(s, step, 2 * n_out);
    for (int k = 0; k < n_out; k++) {
        double removed = exact_sum_value(&step[2 * k]), mass = exact_sum_value(&step[2 * k + 1]);
        if (removed == 0.0) continue;
        s->outlets[k].removed += (long)removed;
        s->outlets[k].mass_removed += mass;
    }
}

/* Inlets and outlets: removes the particles that entered an outlet, inserts what the
 * inlets owe, and rebuilds the neighbour list if anything changed (contact histories
 * follow their particles through the renumbering). Returns 0 or -1 (out of memory, on
 * every rank of a split run). */
int population_change(sim *s)
{
    population_accrue(s);
    size_t leaving = 0;
    int failed = 0;
    if (s->cfg.n_outlets > 0) {
        uint8_t *flags = realloc(s->leaving, s->p.n_local + 1);
        if (flags) {
            s->leaving = flags;
            leaving = population_mark_outgoing(s, flags);
        }
        failed = !flags;
    }
    int inserting = population_changes_due(s); /* the same on every rank */
    int due = failed ? 2 : leaving > 0 || inserting; /* 2: out of memory */
    if (s->ghost_hooks) due = s->ghost_hooks->any(due, s->ghost_hooks->ctx);
    if (due == 2) return -1;
    if (!due) return 0;
    if (s->cfg.n_outlets > 0) population_count_outgoing(s, s->leaving);
    /* by id, the touching pairs go through by their ends' ids (the list holds pairs of
     * other ranks' particles, which no renumbering here knows): kept now, before the
     * particles are */
    const int by_id = s->cfg.reproducible;
    int64_t *new_index = NULL;
    failed = by_id && list_keep_touching(s) != 0;
    if (!failed && leaving > 0) failed = !(new_index = malloc(population_removal_room(s) * sizeof *new_index));
    if (sim_failed_anywhere(s, failed)) {
        free(new_index);
        return -1;
    }
    if (leaving > 0)
        population_remove(s, s->leaving, s->p.n_local, new_index,
                          by_id ? POPULATION_LISTS_CARRIED : POPULATION_LISTS_FOLLOW);
    free(new_index);
    s->p.n_total = s->p.n_local; /* ghosts are remade by the rebuild */
    s->p.n_remote = 0;
    size_t before = s->p.n_local;
    failed = inserting && population_insert(s) < 0;
    if (!failed && inserting && s->ghost_hooks) failed = s->ghost_hooks->keep_own(s, before, s->ghost_hooks->ctx) != 0;
    if (sim_failed_anywhere(s, failed)) return -1;
    return by_id ? list_rebuild_carried(s) : list_rebuild(s);
}

/* ---- removing particles (population.h: the rule) -------------------------------------- */

size_t population_removal_room(const sim *s)
{
    const particle_store *p = &s->p;
    size_t n = p->n_total > p->n_local ? p->n_total : p->n_local;
    if (s->list_stale) { /* after an earlier removal the lists may name ghost entries
                            beyond n_total (first particles or partners) */
        const contact_list *c = &s->pairs;
        if (c->n_first > n) n = c->n_first;
        for (size_t k = 0; k < c->n; k++) {
            if (c->j[k] >= n) n = (size_t)c->j[k] + 1;
            if (c->owner_j[k] >= n) n = (size_t)c->owner_j[k] + 1;
        }
    }
    return n + 1;
}

/* Rows of three doubles per local particle moved to their particles' new indices (in
 * increasing order: a row only moves down). */
static void compact_rows3(double *rows, const int64_t *new_index, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int64_t to = new_index[i];
        if (to < 0 || (size_t)to == i) continue;
        for (int a = 0; a < 3; a++) rows[3 * (size_t)to + a] = rows[3 * i + a];
    }
}

/* The first particles a list's first_of_i spans after the removal: the survivors, and
 * the other ranks' particles listed as first particles (entries from n_before on, which
 * stay where they are). */
static size_t first_span(const contact_list *c, size_t n_before, size_t n_after)
{
    return c->n_first > n_before ? c->n_first : n_after;
}

/* The lists follow the renumbering (POPULATION_LISTS_FOLLOW). */
static void lists_follow(sim *s, const int64_t *new_index, size_t n_before)
{
    const size_t n_after = s->p.n_local;
    contact_list *pairs = &s->pairs, *walls = &s->wall_pairs;
    contact_list_remap(pairs, new_index, first_span(pairs, n_before, n_after), 0);
    contact_list_remap(walls, new_index, first_span(walls, n_before, n_after), 1);
    /* a local partner's j follows its particle (as owner_j did); a ghost partner's j
     * keeps naming the ghost's entry, which still holds the image's position, so that
     * contact_overlap stays right until the rebuild */
    for (size_t k = 0; k < pairs->n; k++)
        if (pairs->j[k] < n_before) pairs->j[k] = pairs->owner_j[k];
    if (s->x_at_rebuild) compact_rows3(s->x_at_rebuild, new_index, n_before);
    s->list_stale = 1;
}

size_t population_remove(sim *s, const uint8_t *remove, size_t n_marked, int64_t *new_index,
                         population_lists lists)
{
    particle_store *p = &s->p;
    const size_t n_before = p->n_local, entries = population_removal_room(s) - 1;
    size_t removed = particles_remove(p, remove, new_index); /* n_total = n_local */
    for (size_t g = n_before; g < entries; g++)
        new_index[g] = g < n_marked && remove[g] ? -1 : (int64_t)g;
    /* (an array the engine keeps per particle beside the store, across rebuilds, follows
     * new_index here, in both modes) */
    if (lists == POPULATION_LISTS_FOLLOW) lists_follow(s, new_index, n_before);
    return removed;
}
