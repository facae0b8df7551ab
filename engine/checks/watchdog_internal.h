/* What the watchdog's files share (watchdog.h is the interface): the checks
 * (watchdog.c), the contacts a report names (watchdog_contacts.c), the guard and the
 * drop (watchdog_guard.c) and the agreement across ranks (watchdog_ranks.c). The
 * messages (watchdog_format.c) need only watchdog.h. */
#ifndef DEMPACT_WATCHDOG_INTERNAL_H
#define DEMPACT_WATCHDOG_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "watchdog.h"

static inline bool watchdog_all_finite(double a, double b, double c)
{
    return isfinite(a) && isfinite(b) && isfinite(c);
}

/* ---- watchdog.c ---- */
/* The point of zero potential energy: the face of the domain gravity points to. */
void watchdog_potential_origin(const sim *s, double origin[3]);
/* Lower bounds of every radius and mass now and to come (inlets included). */
double watchdog_radius_floor(const sim *s);
double watchdog_mass_floor(const sim *s);
/* The sum of the ranks' x (x in one process; collective in a split run). */
double watchdog_over_ranks(const sim *s, double x);

/* ---- watchdog_contacts.c ---- */
/* Of several particles with a problem, or contacts too deep, a run that sums by id
 * (cfg.reproducible, and every run on ranks) names the one with the smallest id (the pair
 * with the smallest pair of ids): what no numbering and no split changes, so that every
 * rank names what one process names. Otherwise the first in the store's order. */
bool watchdog_by_id(const sim *s);
/* Is particle i a better choice than best (-1: none yet)? */
bool watchdog_sooner(const sim *s, size_t i, long best);
/* Fills c with contact k of list L (0: particle pairs, 1: walls) seen from particle i. */
void watchdog_describe_contact(const sim *s, int L, size_t k, size_t i, watchdog_contact *c);
/* The contact of particle i with a non-finite force, else with the largest force; after
 * a step that did not record the pairs' forces (watchdog_pair_forces_recorded), the
 * contact with a non-finite overlap, else the deepest. */
void watchdog_strongest_contact(const sim *s, size_t i, watchdog_contact *out);
/* Whether the last step recorded the particle pairs' forces (sim_record_pair_forces). */
bool watchdog_pair_forces_recorded(const sim *s);
/* The first contact (lowest index, pairs before walls; by id: the smallest key)
 * overlapping more than `fraction` of its smaller radius; returns its list (0, 1) or -1. */
int watchdog_first_deep_contact(const sim *s, double fraction, size_t *k_out);

/* ---- watchdog_guard.c ---- */
/* The energy particle i carries: kinetic plus potential (what leaves with it). */
double watchdog_particle_energy(const sim *s, size_t i);
/* Announces a drop on st->log. */
void watchdog_log_drop(const watchdog_state *st, const char *msg, int64_t id);
/* On ranks, where another rank drops particle `id`: its contacts with this rank's
 * particles end as its drop ends them there. */
void watchdog_forget_ghost(sim *s, int64_t id);

/* ---- watchdog_ranks.c ---- */
/* Whether this rank's problem p is the first of all ranks' (collective). */
bool watchdog_first_here(const sim *s, watchdog_problem p, const watchdog_report *r);
/* watchdog_guard on ranks with on_error: drop_particle, at a step every rank checks. */
watchdog_problem watchdog_guard_on_ranks(sim *s, watchdog_state *st, bool full, watchdog_report *r);

#endif
