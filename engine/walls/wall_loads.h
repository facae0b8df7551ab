/* The load on each wall (force and torque about its reference point) from its contacts,
 * summed in a fixed order, and the work a moving wall does on the particles.
 * Engine-internal (sim.c). */
#ifndef DEMPACT_WALL_LOADS_H
#define DEMPACT_WALL_LOADS_H

#include "engine/sim.h"

/* Returns 0 or -1 (out of memory). */
int wall_loads_sum(sim *s);

#endif
