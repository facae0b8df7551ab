/* The contact list: every candidate pair found by the last neighbour rebuild, with the
 * history record of the pairs that touch. Candidates are grouped by their first
 * particle i (CSR), so a particle's force is summed over its pairs in a fixed order.
 *
 * History (touching flag, impact velocity v0, the law's own slots, the tangential and
 * rolling springs) belongs to the pair
 * of particles, not to a slot in this list: contact_list_adopt_history() carries it
 * across rebuilds, and it is cleared the step a pair stops touching. */
#ifndef DEMPACT_CONTACTS_H
#define DEMPACT_CONTACTS_H

#include <stddef.h>
#include <stdint.h>
#include "../models/law.h"

/* Per-pair state of the Mindlin-Deresiewicz tangential model (engine/friction.h):
 * branch, the two turning-point forces and the last step's normal force. */
#define CONTACT_SLIP_HISTORY 4

typedef struct contact_list {
    size_t n, capacity;
    size_t n_first;       /* particles indexed by first_of_i (n_local) */
    uint32_t *i;          /* first particle (local) */
    uint32_t *j;          /* second particle (local or ghost index), or wall index */
    uint32_t *owner_j;    /* the local particle j stands for (== j unless a ghost) */
    uint8_t *touching;
    double *impact_velocity;            /* v0, stored at first touch */
    double *history[LAW_MAX_HISTORY];   /* the law's slots */
    double *tangential[3];              /* tangential spring: displacement of j's contact
                                           point relative to i's [m] (engine/friction.h) */
    double *rolling[3];                 /* rolling spring: relative rotation [rad] */
    double *slip[CONTACT_SLIP_HISTORY]; /* Mindlin-Deresiewicz microslip state (only
                                           that model has it: has_slip) */
    double *force[3];                   /* force on i from the last step (on j: minus) */
    double *torque[6];                  /* torque on i (0-2) and on j (3-5), last step */
    double *overlap;                    /* overlap of the last step, > 0 when touching
                                           (<= 0: apart; for pairs apart it is 0, not the
                                           gap) */
    size_t *first_of_i;   /* n_first + 1: pairs of particle p are first_of_i[p]..[p+1] */
    /* pairs whose owner_j is p: second_of[first_of_j[p]..first_of_j[p+1]] (index order) */
    size_t *first_of_j;
    uint32_t *second_of;
    /* Which optional arrays the list holds (contact_list_configure, before the first
     * reserve; a list never configured holds them all). The others stay NULL: a run
     * without friction pays for no springs or torques, a law without history for no
     * history slots. */
    int configured;
    int n_history;        /* history[0..n_history-1] */
    int has_friction;     /* tangential[3] and torque[6] */
    int has_rolling;      /* rolling[3] */
    int has_slip;         /* slip[CONTACT_SLIP_HISTORY] (the microslip model) */
} contact_list;

void contact_list_free(contact_list *c);
/* Chooses the optional arrays of an empty list (see contact_list.configured). */
void contact_list_configure(contact_list *c, int n_history, int friction, int rolling,
                            int slip);
int contact_list_reserve(contact_list *c, size_t capacity);

/* Builds the reverse index (first_of_j, second_of) for `n_particles` owners. Only for
 * particle-particle lists. Returns 0 or -1. */
int contact_list_index_second(contact_list *c, size_t n_particles);

/* Copies the history of every pair of `old` that still is a candidate in `c` (matched
 * by (i, owner_j)) into c. Both lists must be grouped by i (first_of_i valid). */
void contact_list_adopt_history(contact_list *c, const contact_list *old, int parallel);

/* After particles were removed or renumbered: maps i and owner_j through new_index
 * (-1: removed; the pair is dropped), keeping the list's order, and recomputes
 * first_of_i for n_particles particles. For a wall list owner_j is a wall index and
 * stays. j (a ghost index) is left stale: only a rebuild may follow. */
void contact_list_remap(contact_list *c, const int64_t *new_index, size_t n_particles,
                        int is_wall);

/* Clears pair k's history (the pair has separated). */
void contact_clear_history(contact_list *c, size_t k);

#endif
