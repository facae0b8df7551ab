/* The force loop's per-thread scratch: a chunk of at most CHUNK contacts' geometry and
 * kinematics (chunk_scratch, filled by pair_geometry.h) and one law's batch of them
 * (batch_scratch: the law's inputs and results, friction, forces by chunk slot).
 * Engine-internal (force_loop.c, pair_geometry.h, contact_ends.h). */
#ifndef DEMPACT_FORCE_SCRATCH_H
#define DEMPACT_FORCE_SCRATCH_H

#include <stddef.h>
#include <stdint.h>
#include "engine/sim.h"

#define CHUNK 256
/* Each array has room for CHUNK entries and one cache line more. At exactly CHUNK
 * doubles (2 KiB) every array would start at one of two offsets within 4 KiB, so the
 * lines holding entry m of the thirty-odd arrays a contact touches would compete for
 * two of L1's sets (8 lines each) and evict one another: 40% of the force loop's
 * stores then missed L1. The extra line staggers the arrays across the sets. */
#define CHUNK_ROOM (CHUNK + 8)

typedef struct chunk_scratch {
    size_t n;
    int one_law;           /* the law of every contact in the chunk, or -1: several */
    double worst;          /* the largest overlap (0 if none touches) */
    uint32_t slot[CHUNK_ROOM];  /* contact index */
    int law[CHUNK_ROOM];        /* index into s->laws */
    double d[CHUNK_ROOM], rate[CHUNK_ROOM], v0[CHUNK_ROOM], r_eff[CHUNK_ROOM], m_eff[CHUNK_ROOM];
    double nx[CHUNK_ROOM], ny[CHUNK_ROOM], nz[CHUNK_ROOM];
    /* for friction: lever arms (centre to contact point), velocity of j's contact point
     * relative to i's, w_i - w_j (set for laws with a rolling model) and the reduced
     * rolling inertia (for the rolling spring) */
    double arm_i[CHUNK_ROOM], arm_j[CHUNK_ROOM], v_rel[3][CHUNK_ROOM], w_rel[3][CHUNK_ROOM];
    double inertia_r[CHUNK_ROOM];
    /* the springs' increments: the contact points' relative displacement and the
     * relative rotation during the step (contact_point_motion) */
    double disp[3][CHUNK_ROOM], turn[3][CHUNK_ROOM];
    /* particle pairs, by candidate: separation (j's centre minus i's), distance,
     * overlap, touching (a touching pair's candidate is its slot minus the chunk's
     * start); the pairs touching for the first time */
    double sep[3][CHUNK_ROOM], dist[CHUNK_ROOM], overlap[CHUNK_ROOM];
    uint8_t touches[CHUNK_ROOM];
    /* the chunk slots of the pairs that touch for the first time, and of those that may
     * separate within the step (closing faster than half their overlap per step): the
     * only ones contact_ends looks at */
    uint32_t first_touch[CHUNK_ROOM], ending[CHUNK_ROOM];
    size_t n_first, n_ending;
} chunk_scratch;

typedef struct batch_scratch {
    double d[CHUNK_ROOM], rate[CHUNK_ROOM], v0[CHUNK_ROOM], r_eff[CHUNK_ROOM], m_eff[CHUNK_ROOM];
    double f[CHUNK_ROOM];
    double h[LAW_MAX_HISTORY][CHUNK_ROOM];
    uint32_t from[CHUNK_ROOM], batch_of[CHUNK_ROOM]; /* batch_of[from[q]] == q */
    /* friction: the normal force that caps it, the springs, the results, and (for a
     * chunk of several laws) the gathered normals and relative velocities */
    double f_normal[CHUNK_ROOM], f_t[3][CHUNK_ROOM], m_r[3][CHUNK_ROOM], power[2][CHUNK_ROOM];
    double normal[3][CHUNK_ROOM], v_rel[3][CHUNK_ROOM], w_rel[3][CHUNK_ROOM], disp[3][CHUNK_ROOM];
    uint32_t slot[CHUNK_ROOM];
    /* adhesion (models/adhesion_law.h): the overlap itself (d holds it clipped at 0),
     * the radii and the adhesion's force */
    double adh_d[CHUNK_ROOM], r_i[CHUNK_ROOM], r_j[CHUNK_ROOM], f_adh[CHUNK_ROOM];
    /* each contact's force on i and torques on i and j, by chunk slot (deliver_forces) */
    double force[3][CHUNK_ROOM], torque_i[3][CHUNK_ROOM], torque_j[3][CHUNK_ROOM];
} batch_scratch;

#endif
