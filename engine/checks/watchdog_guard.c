/* The step loop's guard (watchdog_guard) and dropping a particle: what it exerted taken
 * back from its partners, then population_remove, the one way a particle leaves. */
#include "watchdog.h"

#include <math.h>
#include <stdlib.h>

#include "engine/population/population.h"
#include "watchdog_internal.h"

void watchdog_start(watchdog_state *st, const sim *s, FILE *log)
{
    *st = (watchdog_state){.energy_budget = watchdog_energy_budget(s),
                           .radius_floor = watchdog_radius_floor(s), .mass_floor = watchdog_mass_floor(s),
                           .log = log};
}

/* The energy particle i carries: kinetic plus potential (what leaves with it). */
double watchdog_particle_energy(const sim *s, size_t i)
{
    const particle_store *q = &s->p;
    double e = 0.5 * q->mass[i] * (q->vx[i] * q->vx[i] + q->vy[i] * q->vy[i] + q->vz[i] * q->vz[i]);
    double origin[3];
    watchdog_potential_origin(s, origin);
    e -= q->mass[i] * (s->cfg.gravity[0] * (q->x[i] - origin[0]) + s->cfg.gravity[1] * (q->y[i] - origin[1]) +
                       s->cfg.gravity[2] * (q->z[i] - origin[2]));
    return e;
}

void watchdog_log_drop(const watchdog_state *st, const char *msg, int64_t id)
{
    if (st->log)
        fprintf(st->log, "%s\n  -> dropped particle %lld (watchdog.on_error: drop_particle)\n", msg,
                (long long)id);
}

watchdog_problem watchdog_guard(sim *s, watchdog_state *st, watchdog_report *r)
{
    watchdog_settings w = watchdog_settings_of(s);
    /* split over ranks, a full check's energy is everyone's: summed here, where every
     * rank comes at the same steps */
    bool due = s->step % w.interval == 0, full = (s->step / w.interval) % WATCHDOG_FULL_EVERY == 0;
    if (s->ghost_hooks && due && full && isfinite(st->energy_budget))
        st->energy_everywhere = watchdog_over_ranks(s, watchdog_energy(s));
    if (!due && !s->fault) {
        r->problem = WATCHDOG_OK;
        return WATCHDOG_OK;
    }
    bool drop = w.on_error == WATCHDOG_ACTION_DROP_PARTICLE;
    if (s->ghost_hooks && drop && due) return watchdog_guard_on_ranks(s, st, full, r);
    for (;;) {
        watchdog_problem p = watchdog_check(s, st, full, r);
        /* on ranks, a step no other rank checks is no step to drop in: the engine's
         * fault that brought this rank here stops the run */
        if (p == WATCHDOG_OK || !drop || s->ghost_hooks || p == WATCHDOG_ENERGY_RISE ||
            p == WATCHDOG_NO_PARTICLES || p == WATCHDOG_RUNAWAY || r->particle < 0)
            return p;
        char msg[1024];
        watchdog_format(r, s, msg, sizeof msg);
        watchdog_log_drop(st, msg, r->particle_id);
        size_t i = (size_t)r->particle;
        if (isfinite(st->energy_budget)) {
            /* what it carried leaves with it */
            double e = watchdog_particle_energy(s, i);
            if (isfinite(e)) st->energy_budget = fmax(0.0, st->energy_budget - e);
        }
        watchdog_drop_particle(s, i);
        st->dropped++;
        if (s->p.n_local == 0 && s->cfg.n_inlets == 0) {
            r->problem = WATCHDOG_NO_PARTICLES;
            return r->problem;
        }
    }
}

/* ---- dropping a particle ------------------------------------------------------------- */

/* Takes back from this rank's particles what their contacts with particle `id` (it, its
 * periodic images, a ghost of it) exerted on them. */
static void release_partners(sim *s, int64_t id)
{
    particle_store *p = &s->p;
    contact_list *c = &s->pairs;
    double *f[3] = {p->fx, p->fy, p->fz};
    /* the pairs' forces, which a run that drops particles records at every step
     * (io/session/run_driver.c); without them (a simulation that records none) the
     * partners keep what the particle exerted on them */
    for (size_t k = 0; k < c->n && c->force[0]; k++) {
        bool first = p->id[c->i[k]] == id, second = p->id[c->j[k]] == id;
        if (first == second) continue; /* not it, or it with itself */
        if (!contact_in_touch(contact_overlap(c, p, k), c->touching[k])) continue; /* apart */
        size_t other = first ? c->owner_j[k] : c->i[k];
        if (other < p->n_local)
            for (int a = 0; a < 3; a++) f[a][other] += first ? c->force[a][k] : -c->force[a][k]; /* it got -force */
    }
    /* a partner whose force stays non-finite keeps only its weight */
    for (size_t i = 0; i < p->n_local; i++)
        if (!watchdog_all_finite(p->fx[i], p->fy[i], p->fz[i]))
            for (int a = 0; a < 3; a++) f[a][i] = p->mass[i] * s->cfg.gravity[a];
}

static void out_of_memory(sim *s)
{
    s->fault = SIM_FAULT_NO_MEMORY;
    s->fault_memory = SIM_MEMORY_DROP;
}

/* Removes what `remove` marks among the store's first n_marked entries
 * (population_remove: the lists follow, the next step rebuilds them). */
static void remove_marked(sim *s, const uint8_t *remove, size_t n_marked)
{
    int64_t *new_index = malloc(population_removal_room(s) * sizeof *new_index);
    if (!new_index) {
        out_of_memory(s);
        return;
    }
    population_remove(s, remove, n_marked, new_index, POPULATION_LISTS_FOLLOW);
    free(new_index);
}

/* On ranks, where another rank drops particle `id`: its contacts with this rank's
 * particles end as its drop ends them there (what it exerted taken back, the pairs
 * gone); its ghosts go at the next step's rebuild. */
void watchdog_forget_ghost(sim *s, int64_t id)
{
    particle_store *p = &s->p;
    release_partners(s, id);
    size_t entries = population_removal_room(s) - 1;
    uint8_t *ghost = calloc(entries + 1, 1);
    if (!ghost) {
        out_of_memory(s);
        return;
    }
    for (size_t g = p->n_local; g < entries; g++) ghost[g] = p->id[g] == id;
    remove_marked(s, ghost, entries);
    free(ghost);
}

void watchdog_drop_particle(sim *s, size_t d)
{
    particle_store *p = &s->p;
    if (d >= p->n_local) return;
    release_partners(s, p->id[d]);
    uint8_t *remove = calloc(p->n_local + 1, 1);
    if (!remove) {
        out_of_memory(s);
        return;
    }
    remove[d] = 1;
    remove_marked(s, remove, p->n_local);
    free(remove);
}