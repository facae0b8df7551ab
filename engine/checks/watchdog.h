/* The numerical watchdog: after a step, is the simulation still sane?
 *
 * It finds, in this order (the first problem found is reported):
 *  - a non-finite position, velocity, angular velocity, force or torque;
 *  - a contact whose overlap exceeds max_overlap_fraction (default 0.5) of the smaller
 *    radius (of the particle's radius against a wall);
 *  - a particle whose centre left the domain along a non-periodic axis;
 *  - a particle that moves more than WATCHDOG_STEP_FRACTION of its radius in one step
 *    (|v| dt > 0.5 r): the explicit step cannot resolve its contacts any more, and a
 *    step later it may be anywhere;
 *  - energy rising in a closed dissipative system (below).
 * Before all of these it reports a step the engine refused to complete (sim.fault: a
 * particle farther outside the domain than SIM_RUNAWAY_MARGIN domain lengths, found at a
 * neighbour rebuild, before the grid is sized for it). That one always stops the run,
 * whatever on_error says.
 * and reports the particle, its contact (the other particle or the wall), the contact's
 * law and the step. It only reads the simulation: watchdog_check() is a pure function
 * of the sim and the energy budget. watchdog_guard() wraps it for the step loop: it
 * checks every `interval` steps and, when the case chose on_error: drop_particle,
 * removes the offending particle and checks again.
 *
 * Energy. E = kinetic (translational + rotational) + gravitational potential energy,
 * the latter measured from the face of the domain gravity points to, so E >= 0 inside
 * the domain. In a closed system (no inlet, no outlet, every wall at rest) whose contact
 * laws are all elastic or dissipative (every law in models/registry.c is, within its
 * parameter ranges, and so are friction and rolling resistance), E plus the energy stored
 * in the contacts never rises. The stored energy is >= 0 and at the start at most
 * sum |F| d over the touching contacts (for any force that grows with the overlap),
 * so E may never exceed the budget E(0) + sum |F(0)| d(0). The check stops the run when
 * E > budget (1 + energy_tolerance) (default tolerance 0.01: velocity Verlet does not
 * conserve energy exactly within a contact). It is off when the system is not closed
 * (inlets, outlets, moving walls), when gravity has a component along a periodic axis
 * (the potential has no bottom there), or when the case says energy_tolerance: off.
 * Comparing with the previous step instead would be wrong: a rebound legitimately
 * turns stored elastic energy back into kinetic energy within a few steps.
 *
 * Split over MPI ranks (sim_split), the budget and a full check's energy are summed over
 * the ranks (each rank's pairs those whose first particle it owns); a light check's
 * proof is one rank's particles' energy, a part of the whole.
 *
 * Results do not depend on the number of threads: sums are taken over fixed blocks in
 * a fixed order, and the first offender is the one with the lowest index.
 *
 * Cost: watchdog_guard() runs after every step (case key watchdog.interval: every N
 * steps). Each check is one vectorised pass over positions and velocities; the
 * contact lists are scanned only when the step's deepest overlap (sim.max_overlap, which
 * the engine computes anyway) exceeds the limit for the smallest radius; every 100th
 * check also reads angular velocities, forces and torques and sums the energy. On the
 * default case (3000 beads, one thread) that is about 2% of a step. */
#ifndef DEMPACT_WATCHDOG_H
#define DEMPACT_WATCHDOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "engine/sim.h"

#define WATCHDOG_DEFAULT_OVERLAP 0.5
#define WATCHDOG_DEFAULT_ENERGY_TOLERANCE 0.01
#define WATCHDOG_FULL_EVERY 100 /* every 100th check of the guard is a full one */
#define WATCHDOG_STEP_FRACTION 0.5 /* of its radius: the most a particle may move per step */

typedef enum watchdog_problem {
    WATCHDOG_OK = 0,
    WATCHDOG_NOT_FINITE,   /* a NaN or infinite value */
    WATCHDOG_OVERLAP,      /* a contact overlaps more than allowed */
    WATCHDOG_LEFT_DOMAIN,  /* a centre outside the box along a non-periodic axis */
    WATCHDOG_ENERGY_RISE,  /* energy created in a closed dissipative system */
    WATCHDOG_NO_PARTICLES, /* every particle was dropped */
    WATCHDOG_TOO_FAST,     /* a particle moves more than WATCHDOG_STEP_FRACTION r per step */
    WATCHDOG_RUNAWAY       /* the engine refused a step (sim.fault) */
} watchdog_problem;

/* A contact as the report names it. */
typedef struct watchdog_contact {
    bool found;
    int64_t other_id;  /* the other particle's id, or -1 against a wall */
    int wall;          /* the wall's index, or -1 */
    const char *law;   /* the contact's law */
    int material_a, material_b; /* the particle's material, the other's (or the wall's) */
    double overlap;    /* m */
    double fraction;   /* overlap / smaller radius */
    double force;      /* |F| on the particle from this contact, N; NaN where the step
                          did not record it (force_recorded) */
    bool force_recorded; /* a wall contact's force always; a particle pair's where the
                            last step recorded it (sim_record_pair_forces) */
} watchdog_contact;

typedef struct watchdog_report {
    watchdog_problem problem;
    int64_t step;
    double time;
    long particle;        /* local index of the offending particle, or -1 */
    int64_t particle_id;  /* its id, or -1 */
    const char *quantity; /* NOT_FINITE: "position", "velocity", "angular velocity",
                             "force" or "torque" */
    double position[3], velocity[3], force[3];
    watchdog_contact contact; /* OVERLAP: the contact at fault; otherwise the particle's
                                 strongest contact (non-finite or largest force), if any;
                                 after a step that did not record the pairs' forces, its
                                 deepest (non-finite or largest overlap) */
    double limit;         /* OVERLAP: the allowed fraction; LEFT_DOMAIN: the face crossed;
                             ENERGY_RISE: the energy allowed, J; TOO_FAST: the distance
                             allowed per step, m; RUNAWAY: the distance from the domain
                             allowed, m */
    int axis, side;       /* LEFT_DOMAIN, RUNAWAY: 0..2, -1 below min / +1 above max */
    double energy, energy_budget; /* J, when the energy check applies (else NAN) */
} watchdog_report;

/* What the step loop keeps between checks. */
typedef struct watchdog_state {
    double energy_budget; /* J; NAN when the energy check does not apply */
    double radius_floor;  /* m: no particle, present or to come from an inlet, is smaller */
    double mass_floor;    /* kg: nor lighter */
    int64_t dropped;      /* particles dropped so far */
    double energy_everywhere; /* split over ranks: E of all particles at the last full
                                 check (sim_reduce_exact) */
    FILE *log;            /* where drops are announced (NULL: nowhere) */
} watchdog_state;

/* The settings with their defaults filled in. */
watchdog_settings watchdog_settings_of(const sim *s);

/* Does the energy check apply to this simulation (see above)? */
bool watchdog_energy_applies(const sim *s);

/* Kinetic + gravitational energy, plus the adhesion's of the contacts (sim_adhesion_energy), J
 * (deterministic for any number of threads). */
double watchdog_energy(const sim *s);

/* E(0) + sum |F| d over the touching contacts: the most E may ever reach. NAN when the
 * energy check does not apply. */
double watchdog_energy_budget(const sim *s);

/* Checks the simulation's current state against st (from watchdog_start). A light
 * check reads positions and velocities: non-finite values, centres outside the domain,
 * a particle whose kinetic energy alone exceeds the budget; the contact lists
 * only when the step's deepest overlap (sim.max_overlap) could be beyond the limit.
 * A `full` one adds angular velocities, forces and torques and the energy sum. Returns
 * the problem found (also in r->problem), WATCHDOG_OK if none. */
watchdog_problem watchdog_check(const sim *s, const watchdog_state *st, bool full,
                                watchdog_report *r);

/* The same checks, but for the state a case creates, before the first step (no energy
 * check): a problem here is a problem of the input. Split over ranks (collective), only
 * the rank holding the problem one process would find first returns it. */
watchdog_problem watchdog_check_start(const sim *s, watchdog_report *r);

/* One message, without a trailing newline. Starts with "step N (t = T s): " for a run,
 * with "particles: " before the first step (so case_locate_error can give the line). */
void watchdog_format(const watchdog_report *r, const sim *s, char *out, size_t len);

/* For the step loop: sets up the budget. */
void watchdog_start(watchdog_state *st, const sim *s, FILE *log);

/* For the step loop, after each sim_step(): checks every `interval` steps, a full check
 * every WATCHDOG_FULL_EVERY-th time (step 0, 100, 200, ... with interval 1). With
 * on_error: drop_particle it removes each offending particle (announcing it on
 * st->log) and checks again; it returns WATCHDOG_OK when the run may go on, else the
 * problem that stops it (energy rise, or nothing left to drop). */
watchdog_problem watchdog_guard(sim *s, watchdog_state *st, watchdog_report *r);

/* Removes local particle i and its contacts (particles_remove, contact_list_remap);
 * the neighbour lists are rebuilt at the next step. What its contacts exerted on its
 * partners in the last force computation is taken back from their forces (not the
 * torques). Out of memory, it sets sim.fault (SIM_FAULT_NO_MEMORY). Exposed for the
 * tests. */
void watchdog_drop_particle(sim *s, size_t i);

#endif
