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

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "models/law.h"
#include "engine/population/particles.h"

/* Per-pair state of the Mindlin-Deresiewicz tangential model (engine/step/friction.h):
 * branch, the two turning-point forces and the last step's normal force. */
#define CONTACT_SLIP_HISTORY 4

/* contact_list.touching: a pair's state. A pair ends when the force of a touching step
 * carries its impulse up to a separation the integrator finds within that step
 * (engine/step/contact_ends.h): that step it is ENDING (it still holds its force); from the
 * next on, if it still overlaps, ENDED: it holds no force and no history while it keeps
 * opening, and touches afresh if it closes again before it is apart. Bit 0: the pair
 * holds a force (contact_holds_force). */
enum { CONTACT_APART = 0, CONTACT_TOUCHING = 1, CONTACT_ENDED = 2, CONTACT_ENDING = 3 };

static inline int contact_holds_force(uint8_t state) { return state & 1; }

/* A state as snapshots keep it (contacts/ended: 0 in contact, 1 ending, 2 ended), and
 * back; a state past 2 has been refused before (io/output/restart_state.c). */
static inline uint8_t contact_ended_code(uint8_t state)
{
    return state == CONTACT_ENDING ? 1 : state == CONTACT_ENDED ? 2 : 0;
}

static inline uint8_t contact_state_of_code(uint8_t code)
{
    return code == 1 ? CONTACT_ENDING : code == 2 ? CONTACT_ENDED : CONTACT_TOUCHING;
}

typedef struct contact_list {
    size_t n, capacity;
    size_t n_first;       /* particles indexed by first_of_i (n_local) */
    uint32_t *i;          /* first particle (local) */
    uint32_t *j;          /* second particle (local or ghost index), or wall index */
    uint32_t *owner_j;    /* the local particle j stands for (== j unless a ghost) */
    uint8_t *touching;                  /* CONTACT_APART, _TOUCHING, _ENDING or _ENDED */
    double *impact_velocity;            /* v0, stored at first touch (only when some law
                                           uses it: has_impact) */
    double *history[LAW_MAX_HISTORY];   /* the law's slots */
    double *tangential[3];              /* tangential spring: displacement of j's contact
                                           point relative to i's [m] (engine/step/friction.h) */
    double *coulomb_margin;             /* with the tangential spring: mu_s F_n - |F_t|
                                           at the last step, 0 if it slid [N] (the
                                           spring laws' closing bump,
                                           models/tangential_spring.h) */
    double *rolling[3];                 /* rolling spring: relative rotation [rad] */
    double *slip[CONTACT_SLIP_HISTORY]; /* Mindlin-Deresiewicz microslip state (only
                                           that model has it: has_slip) */
    double *force[3];                   /* force on i from the last step (on j: minus):
                                           the recorded forces. A wall list holds them
                                           always (the walls' loads read them); a
                                           particle list only while it records them
                                           (records_forces; NULL otherwise) */
    double *torque[3];                  /* torque on i, last step: wall lists only (a
                                           particle pair adds its torques to the
                                           particles directly, or through cross_torque) */
    double *overlap;                    /* wall lists only: overlap of the last step,
                                           > 0 when touching (<= 0: apart; for pairs
                                           apart it is 0, not the gap). A particle pair's
                                           follows from the positions: contact_overlap() */
    uint32_t *first_of_i; /* n_first + 1: pairs of particle p are first_of_i[p]..[p+1]
                             (list indices are 32-bit: at most CONTACT_MAX_PAIRS) */
    /* Cross pairs (particle-particle lists only; contact_list_index_cross): the pairs
     * whose i and owner_j lie in different blocks of `block` consecutive particles.
     * The force loop runs the blocks in parallel, each adding its pairs' forces to its
     * own particles; a cross pair's j side goes to another block's particle, so it is
     * left on the pair's cross slot (cross_force, cross_torque) and added in a pass of
     * its own.
     * cross_slot[k]: the pair's cross index q, or CONTACT_SAME_BLOCK; cross entries
     * are grouped by owner_j: those of particle p are cross_first[p]..[p+1], and
     * cross_pair[q] is the pair's list index. */
    size_t block;
    int by_id;            /* every pair is a cross pair, ordered by ids (sim_config
                             .reproducible: contact_list_index_cross) */
    uint32_t *cross_slot;
    size_t n_cross, cross_capacity;
    uint32_t *cross_first;
    uint32_t *cross_pair;
    double *cross_force[3];             /* force on i of cross pair q, last step (on
                                           owner_j: minus); 0 for a pair apart */
    double *cross_torque[3];            /* torque on owner_j of cross pair q, last step
                                           (only with friction) */
    /* Which optional arrays the list holds (contact_list_configure, before the first
     * reserve; a list never configured holds them all). The others stay NULL: a run
     * without friction pays for no springs or torques, a law without history for no
     * history slots. */
    int configured;
    int n_history;        /* history[0..n_history-1] */
    int is_wall;          /* a particle-wall list: torque[3] with friction, no cross pairs */
    int has_friction;     /* tangential[3], coulomb_margin (and torque[3], cross_torque[3]) */
    int has_rolling;      /* rolling[3] */
    int has_slip;         /* slip[CONTACT_SLIP_HISTORY] (the microslip model) */
    int has_impact;       /* impact_velocity (a law with LAW_CAP_IMPACT_VELOCITY) */
    /* a particle list that records its pairs' forces (force[3]): set by
     * contact_list_configure, switched by contact_list_record_forces. Nothing in a step
     * reads them (a cross pair's j side takes cross_force), only snapshots, the
     * watchdog and the Python package: 24 bytes per candidate pair, held only while
     * someone will read them (sim_record_pair_forces) */
    int records_forces;
    int history_only;     /* a history carrier (contact_list_keep_touching): first_of_i,
                             owner_j, touching and the history arrays, nothing else */
    /* a carrier kept by ids of a list that records its forces also holds each pair's
     * last force[3]: the next force
     * evaluation replaces it, but a split run's start makes its last rebuild again and
     * a snapshot or the watchdog may read it before. A carrier kept by index feeds only
     * rebuilds that a force evaluation follows (contact_list_adopt_history takes no
     * force): it holds none, 24 bytes less per touching pair. */
    int keeps_forces;
    /* a carrier kept by ids (contact_list_keep_touching with ids): each pair's ends by
     * id, i's and j's (a wall pair: its wall key, owner_j), so that the pairs find their
     * history whatever happened to the particles' indices meanwhile */
    int64_t *key_i, *key_j;
} contact_list;

void contact_list_free(contact_list *c);
/* Chooses the optional arrays of an empty list (see contact_list.configured). */
void contact_list_configure(contact_list *c, int is_wall, int impact, int n_history,
                            int friction, int rolling, int slip);
int contact_list_reserve(contact_list *c, size_t capacity);
/* Starts (on) or stops recording the forces of particle list c (contact_list
 * .records_forces): starting allocates force[3] for the list's capacity, every pair at
 * 0 (a pair apart reads 0; the force loop writes those in contact), stopping frees it.
 * Nothing for a list that records already, or does not. Returns 0 or -1 (out of
 * memory: c then records nothing). */
int contact_list_record_forces(contact_list *c, int on);

/* The most pairs a list holds: its indices are uint32_t (4.4 candidates per sphere
 * reach it at about 10^9 spheres); building a longer list fails as out of memory. */
#define CONTACT_MAX_PAIRS ((size_t)UINT32_MAX - 1)

#define CONTACT_SAME_BLOCK UINT32_MAX
/* Particles per block of the force loop (contact_list.block). Fixed, never the number
 * of threads: which pairs are cross pairs, and so the order in which each particle's
 * forces are summed, must not depend on how many threads run. */
#define CONTACT_BLOCK 2048

/* Finds the cross pairs of a particle-particle list for blocks of `block` particles
 * among `n_particles` (contact_list.block) and zeroes their cross_force and cross_torque. With `ids`
 * (the order by id, sim_config.reproducible) every pair is a cross pair, and each
 * particle's entries are sorted by the id of the pair's particle i, so that the j sides
 * are added in an order set by the ids alone. Returns 0 or -1 (allocation failure). */
int contact_list_index_cross(contact_list *c, size_t n_particles, size_t block,
                             const int64_t *ids);

/* Makes `carry` (configured as a history carrier, contact_list_configure_carrier)
 * hold the touching pairs of c with their history, grouped by i as in c, so that c can
 * be rebuilt in place and adopt it back (contact_list_adopt_history). A carrier holds
 * about a sixth of what a second whole list would: only the pairs that touch (3 of 4.4
 * per sphere in a bed) and only their history, not their forces. Returns 0 or -1 (out
 * of memory). */
int contact_list_keep_touching(contact_list *carry, const contact_list *c);
/* contact_list_keep_touching, the pairs keyed by the ids of their ends (`ids`: the
 * particles' ids as c's indices know them), for contact_list_adopt_by_id. */
int contact_list_keep_touching_by_id(contact_list *carry, const contact_list *c,
                                     const int64_t *ids);
/* contact_list_adopt_history for a list whose pairs are kept from the particle of
 * lower id (sim_config.reproducible) and a carrier kept by ids: each pair of c takes
 * the history of the carried pair with the same ends' ids (one image of a particle
 * meets another at most: a periodic box is over two cutoffs long). `ids`: the
 * particles' ids as c's indices know them now. Returns 0 or -1 (out of memory). */
int contact_list_adopt_by_id(contact_list *c, const contact_list *old, const int64_t *ids,
                             int parallel);
/* contact_list_configure for a history carrier of lists configured with these flags. */
void contact_list_configure_carrier(contact_list *c, int is_wall, int impact, int n_history,
                                    int friction, int rolling, int slip);

/* Copies the history of every pair of `old` that still is a candidate in `c` (matched
 * by its two particles, or its particle and wall key) into c. Both lists must be
 * grouped by i (first_of_i valid). When the particles were renumbered in between
 * (engine/neighbours/reorder.h), particle p of c was from[p] in old; NULL: the same numbering.
 * (A list kept by id uses contact_list_adopt_by_id.) */
void contact_list_adopt_history(contact_list *c, const contact_list *old, int parallel,
                                const size_t *from);

/* After particles were removed or renumbered: maps i and owner_j through new_index
 * (-1: removed; the pair is dropped), keeping the list's order, and recomputes
 * first_of_i for n_particles particles. For a wall list owner_j is a wall index and
 * stays. j (a ghost index) is left stale: only a rebuild may follow. */
void contact_list_remap(contact_list *c, const int64_t *new_index, size_t n_particles,
                        int is_wall);

/* The centre-to-centre vector of particles i and j (into d), its squared length
 * (returned) and their radii's sum: where the force loop and contact_overlap both start,
 * so that both find the same bits. The arrays are parameters so that the force loop's
 * restrict-qualified ones pass through. */
static inline double contact_separation(const double *x, const double *y, const double *z,
                                        const double *radius, uint32_t i, uint32_t j,
                                        double d[3], double *sum_r)
{
    d[0] = x[j] - x[i];
    d[1] = y[j] - y[i];
    d[2] = z[j] - z[i];
    *sum_r = radius[i] + radius[j];
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

/* The overlap of pair k as the last force computation found it: a wall pair's as it
 * stored it; a particle pair's from the positions, which have not moved since (0 for a
 * pair farther apart than touching, <= 0 at exactly touching distance, as in the force
 * loop; negative, the gap, for a pair whose adhesion holds it in contact past touching:
 * models/adhesion_law.h). Storing it would cost 8 bytes per candidate pair. */
static inline double contact_overlap(const contact_list *c, const particle_store *p, size_t k)
{
    if (c->is_wall) return c->overlap[k];
    double d[3], sum_r;
    double dist2 = contact_separation(p->x, p->y, p->z, p->radius, c->i[k], c->j[k], d, &sum_r);
    if (dist2 >= sum_r * sum_r && !contact_holds_force(c->touching[k])) return 0.0;
    return sum_r - sqrt(dist2);
}

/* Is a pair at overlap d (contact_overlap) in state `state` in contact: overlapping, or
 * held past touching by its adhesion (models/adhesion_law.h)? A NaN overlap is not. */
static inline int contact_in_touch(double d, uint8_t state)
{
    return d > 0.0 || (d <= 0.0 && contact_holds_force(state));
}

/* Clears pair k's history (the pair has separated). */
void contact_clear_history(contact_list *c, size_t k);

/* A pair of a carrier kept by ids, as doubles, to travel with its particle to another
 * process (an MPI rank's migration, io/ranks/halo.c): its keys, touching state and history.
 * contact_carried_width: how many doubles, the same for every carrier configured alike. */
size_t contact_carried_width(const contact_list *c);
void contact_carried_pack(const contact_list *c, size_t m, double *out);
/* Room for `extra` more pairs in carrier c, then appending packed ones (the pairs'
 * first_of_i stays as it was: contact_list_adopt_by_id reads only the keys). */
int contact_carried_reserve(contact_list *c, size_t extra);
void contact_carried_append(contact_list *c, const double *in);

#endif
