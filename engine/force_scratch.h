/* The force loop's per-thread scratch: a chunk of at most CHUNK contacts' geometry and
 * kinematics (chunk_scratch, filled by pair_geometry.h) and one law's batch of them
 * (batch_scratch: the law's inputs and results, friction, forces by chunk slot).
 * Engine-internal (force_loop.c, pair_geometry.h, contact_ends.h). */
#ifndef DEMPACT_FORCE_SCRATCH_H
#define DEMPACT_FORCE_SCRATCH_H

#include <stddef.h>
#include <stdint.h>
#include "sim.h"

#define CHUNK 256

typedef struct chunk_scratch {
    size_t n;
    int one_law;           /* the law of every contact in the chunk, or -1: several */
    double worst;          /* the largest overlap (0 if none touches) */
    uint32_t slot[CHUNK];  /* contact index */
    int law[CHUNK];        /* index into s->laws */
    double d[CHUNK], rate[CHUNK], v0[CHUNK], r_eff[CHUNK], m_eff[CHUNK];
    double nx[CHUNK], ny[CHUNK], nz[CHUNK];
    /* for friction: lever arms (centre to contact point), velocity of j's contact point
     * relative to i's, w_i - w_j, and the reduced rolling inertia */
    double arm_i[CHUNK], arm_j[CHUNK], v_rel[3][CHUNK], w_rel[3][CHUNK], inertia_r[CHUNK];
    /* the springs' increments: the contact points' relative displacement and the
     * relative rotation during the step (contact_point_motion) */
    double disp[3][CHUNK], turn[3][CHUNK];
    /* particle pairs, by candidate: separation (j's centre minus i's), distance,
     * overlap, touching (a touching pair's candidate is its slot minus the chunk's
     * start); the pairs touching for the first time */
    double sep[3][CHUNK], dist[CHUNK], overlap[CHUNK];
    uint8_t touches[CHUNK];
    uint32_t first_touch[CHUNK];
    uint8_t fresh[CHUNK];  /* by chunk slot: the pair touched for the first time */
} chunk_scratch;

typedef struct batch_scratch {
    double d[CHUNK], rate[CHUNK], v0[CHUNK], r_eff[CHUNK], m_eff[CHUNK], f[CHUNK];
    double h[LAW_MAX_HISTORY][CHUNK];
    uint32_t from[CHUNK];
    /* friction: the normal force that caps it, the springs, the results, and (for a
     * chunk of several laws) the gathered normals and relative velocities */
    double f_normal[CHUNK], f_t[3][CHUNK], m_r[3][CHUNK], power[2][CHUNK];
    double normal[3][CHUNK], v_rel[3][CHUNK], w_rel[3][CHUNK], disp[3][CHUNK];
    uint32_t slot[CHUNK];
    /* each contact's force on i and torques on i and j, by chunk slot (deliver_forces) */
    double force[3][CHUNK], torque_i[3][CHUNK], torque_j[3][CHUNK];
} batch_scratch;

#endif
