/* The runaway guard: a particle far outside the domain stops the engine before the
 * neighbour grid is sized for it (sim.h, SIM_FAULT_RUNAWAY). Without it one particle
 * shot out at 1e12 m/s stretches the grid over 1e9 m, so that every other particle falls
 * into one cell and the neighbour search pairs them all (gigabytes); at 1e300 m/s the
 * cell counts themselves overflow. */
#ifndef DEMPACT_RUNAWAY_H
#define DEMPACT_RUNAWAY_H

#include <stdbool.h>

struct sim;

/* The first local particle (lowest index) whose centre lies more than
 * SIM_RUNAWAY_MARGIN domain lengths outside the domain along some axis, periodic or
 * not, or -1. Its axis in *axis. NaN positions are left to the watchdog (they are not
 * "far"; the grid puts them in its first cell). One pass over the positions: it runs at
 * each neighbour rebuild, not each step. */
long runaway_find(const struct sim *s, int *axis);

/* Whether x lies within SIM_RUNAWAY_MARGIN domain lengths of the domain along axis a. */
bool runaway_within(const struct sim *s, int a, double x);

#endif
