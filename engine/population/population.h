/* Particles coming in and going out during a run: inlets insert particles into a
 * region at a steady rate without overlapping anything there; outlets remove the
 * particles whose centre enters their region and count what left.
 *
 * Both run between steps on one thread, in a fixed order, from seeded generators, so a
 * run stays reproducible and bit-identical for any thread count. Particle ids are never
 * reused. A change of population makes the engine rebuild its neighbour list; contact
 * histories are carried over by particle, through the renumbering (population_remove,
 * below: the one removal path). */
#ifndef DEMPACT_POPULATION_H
#define DEMPACT_POPULATION_H

#include <stddef.h>
#include <stdint.h>
#include "rng.h"

struct sim;

typedef struct inlet_state {
    rng random;
    double rate;          /* particles per second */
    double due;           /* particles owed so far and not yet placed */
    double next_time;     /* next insertion attempt */
    long inserted, failed;
    double mass_inserted; /* kg */
} inlet_state;

typedef struct outlet_state {
    long removed;
    double mass_removed;  /* kg, since the start */
} outlet_state;

/* Allocates and seeds the states of the case's inlets and outlets. Returns 0 or -1. */
int population_init(struct sim *s, char *err, size_t err_len);
void population_free(struct sim *s);

/* Refuses an inlet whose insertions cannot fit in its region: rate x interval particles
 * at each insertion (interval 0: 100 steps), against what the region holds at most, one
 * sphere of the largest radius per cube of side twice that radius (simple cubic packing:
 * more than a random insertion ever places, which jams near 38 % solid fraction). Without
 * it a rate of 1e12 particles/s asks for 4e8 placements per insertion. Needs the step
 * (after choose_timestep). Returns 0, or -1 with a message naming the key. */
int population_check(const struct sim *s, char *err, size_t err_len);

/* Adds what each active inlet owes for this step (rate x dt). */
void population_accrue(struct sim *s);

/* Inserts what the inlets owe at this time (particles are appended); stops early when
 * the caller's stop flag (sim_config.stop) is set. Split over ranks, every rank places
 * the same particles, clear of every rank's (the ghost hooks' gather), and keeps them
 * all: the caller keeps its own (the hooks' keep_own). Returns how many were added.
 * Ghosts must have been dropped (n_total == n_local). -1 on out of memory. */
long population_insert(struct sim *s);

/* Marks the particles inside an outlet region in remove[] (n_local entries). Returns
 * how many are marked. */
size_t population_mark_outgoing(struct sim *s, uint8_t *remove);
/* Adds the marked particles to their outlets' counts and masses: in index order, or,
 * summing by id (sim_config.reproducible), exactly and over the ranks of a split run
 * (collective there). */
void population_count_outgoing(struct sim *s, const uint8_t *remove);

/* ---- removing particles: the one way a particle leaves --------------------------------
 *
 * Every removal goes through population_remove: an outlet's (population_change), the
 * watchdog's drop_particle and, split over ranks, another rank's drop seen here
 * (watchdog_guard.c), and the particles a rank hands to or leaves to other ranks
 * (io/ranks/halo.c, io/ranks/halo_hooks.c). The rule:
 *  - the local particles marked go in one pass; the others keep their order, each moving
 *    to the number of survivors before it (new_index[i], -1 for a removed one), with
 *    every per-particle array of the store (particles_remove); ids stay with their
 *    particles and are never reused (next_id is unchanged);
 *  - ghost entries stay where they are, out of the store's count (n_total = n_local):
 *    the next rebuild makes them again, and until then the lists still read them;
 *  - with POPULATION_LISTS_FOLLOW the contact lists follow: a pair with a removed end
 *    (a removed particle, its periodic images, a marked ghost entry) goes with its
 *    history; every other pair keeps its place in the list's order, its history and
 *    springs, with i, owner_j and a local partner's j renumbered (a ghost partner's j
 *    stays); first_of_i spans the survivors (and, split over ranks, the other ranks'
 *    particles that are first particles, which stay where they are); the positions of
 *    the last rebuild follow their particles; and the lists are marked stale: the next
 *    step rebuilds them (the cross pairs are indexed there). The forces the removed
 *    particles exerted stay on their partners (the watchdog takes them back first).
 *  - with POPULATION_LISTS_CARRIED the touching pairs wait in s->carry and s->wall_carry
 *    by the ids of their ends for a rebuild that follows (sim_config.reproducible, or
 *    within a rebuild on ranks): the lists and the last rebuild's positions are left to
 *    it.
 * The caller allocates new_index with population_removal_room(s) entries, asked after
 * the last change of s: every entry of the store the lists may name, ghost entries
 * out of the count after an earlier removal included (each entry's new index on
 * return; a ghost entry's is itself, or -1 if marked).
 * remove[] marks the first n_marked entries of the store (n_marked >= n_local); entries
 * from n_marked on stay. Cannot fail; returns how many local particles went. */
typedef enum population_lists {
    POPULATION_LISTS_FOLLOW,
    POPULATION_LISTS_CARRIED
} population_lists;

size_t population_removal_room(const struct sim *s);
size_t population_remove(struct sim *s, const uint8_t *remove, size_t n_marked,
                         int64_t *new_index, population_lists lists);

/* The population's part of a step (sim_step's first): the particles that entered an
 * outlet leave (population_remove), the inlets insert what they owe, and the neighbour
 * lists are rebuilt if anything changed, the contacts' history carried over. Split
 * over ranks, collective. Returns 0, -1 (out of memory, on every rank) or
 * REBUILD_REFUSED (list_build.h). */
int population_change(struct sim *s);

/* Whether an inlet is due to insert now (cheap: called every step). */
int population_changes_due(const struct sim *s);

#endif
