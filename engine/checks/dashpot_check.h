/* The stiffest normal dashpot among the touching contacts, measured against the step.
 *
 * Velocity Verlet with predicted velocities (engine/step/integrate.c) integrates a dashpot
 * m* x'' = -c x' stably only while a = c dt / m* <= 1: one step maps (v, dt x'') by a
 * matrix of trace 1 - 3a/2 and determinant -a/2, whose eigenvalue
 * (1 - 3a/2 - sqrt((1 - 3a/2)^2 + 2a)) / 2 passes -1 at a = 1. The laws whose dashpot
 * scales with d'/v0 give a contact born at rest (v0 = v_floor) a dashpot that grows with
 * its load, and in a loaded packing it passes that limit with v_floor = 1 mm/s: the
 * contact rings at the step's own period and the energy balance no longer closes. The
 * default v_floor, sqrt(2 |g| d) of the case's smallest particle (models/law_params.h),
 * keeps every shipped case below it.
 * `dempact run` checks at each snapshot and warns once. */
#ifndef DEMPACT_DASHPOT_CHECK_H
#define DEMPACT_DASHPOT_CHECK_H

#include <stddef.h>
#include "engine/sim.h"

typedef struct dashpot_check {
    size_t unresolved;              /* touching contacts with c dt / m* > 1 */
    double worst;                   /* the largest c dt / m* (0: no dashpot touching) */
    const law_instance *worst_law;  /* its law (NULL: none) */
    double worst_overlap;           /* its overlap over R* */
} dashpot_check;

/* Scans every touching contact of a law that declares its force linear in the overlap
 * rate (LAW_CAP_LINEAR_IN_RATE, models/plugin.h): its dashpot is c = F(d, d' = 1 m/s) -
 * F(d, d' = 0). A law without the flag (kostek, rate independent) is not checked.
 * Reads the simulation only. */
void dashpot_check_run(const sim *s, dashpot_check *out);

#endif
