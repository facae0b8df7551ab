/* When a run writes its snapshots and time-series samples: at the steps nearest the
 * times k x interval (k = 0, 1, 2, ...), computed from k each time so that nothing
 * drifts. With an automatic step the interval is a whole number of steps
 * (engine/checks/timestep.h) and the steps are exactly k x interval / dt; a step given in the
 * case that does not divide the interval puts each snapshot at most half a step off its
 * time (`dempact check` and `run` say so). A run also writes a snapshot at its first
 * and last steps, and when it stops early (a signal, the watchdog). */
#ifndef DEMPACT_OUTPUT_SCHEDULE_H
#define DEMPACT_OUTPUT_SCHEDULE_H

#include <stdint.h>

typedef struct output_grid {
    double interval, dt; /* interval 0: no grid (only `every`, if set) */
    int64_t every;       /* > 0: the interval is this many steps exactly */
} output_grid;

/* The grid of an interval (s) for step dt. interval <= 0 with every_steps > 0: a grid
 * of every_steps steps; both 0: no grid. */
output_grid output_grid_make(double interval, double dt, int64_t every_steps);

/* Step of grid point k. */
int64_t output_grid_step(const output_grid *g, int64_t k);

/* True if `step` is one of the grid's steps. */
int output_grid_due(const output_grid *g, int64_t step);

/* How many grid steps lie in (after, before). */
int64_t output_grid_count(const output_grid *g, int64_t after, int64_t before);

/* True if the interval is not a whole number of steps (snapshots off their times by
 * up to dt / 2). */
int output_grid_inexact(const output_grid *g);

struct sim_config;
/* The snapshot and time-series grids of a case run with step dt to total_steps. */
void output_grids(const struct sim_config *cfg, double dt, int64_t total_steps,
                  output_grid *snapshots, output_grid *samples);

#endif
