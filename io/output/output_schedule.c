/* See output_schedule.h. */
#include "output_schedule.h"

#include <math.h>

#include "engine/config.h"

output_grid output_grid_make(double interval, double dt, int64_t every_steps)
{
    output_grid g = {0.0, dt, 0};
    if (!(interval > 0.0) || !(dt > 0.0) || !isfinite(interval / dt) || interval / dt > 0x1p62) {
        g.every = every_steps > 0 ? every_steps : 0;
        return g;
    }
    g.interval = interval;
    double r = interval / dt, n = nearbyint(r);
    if (n >= 1.0 && fabs(r - n) <= 1e-9 * r) g.every = (int64_t)n;
    return g;
}

int64_t output_grid_step(const output_grid *g, int64_t k)
{
    if (g->every > 0) return k * g->every;
    if (!(g->interval > 0.0)) return INT64_MAX;
    return (int64_t)llround((double)k * g->interval / g->dt);
}

int output_grid_due(const output_grid *g, int64_t step)
{
    if (g->every > 0) return step % g->every == 0;
    if (!(g->interval > 0.0)) return 0;
    int64_t k = (int64_t)llround((double)step * g->dt / g->interval);
    for (int64_t q = k - 1; q <= k + 1; q++) /* the nearest k, whatever the rounding */
        if (q >= 0 && output_grid_step(g, q) == step) return 1;
    return 0;
}

int64_t output_grid_count(const output_grid *g, int64_t after, int64_t before)
{
    if (before <= after + 1) return 0;
    if (g->every > 0) {
        int64_t last = (before - 1) / g->every, first = after / g->every; /* k in (first, last] */
        return last > first ? last - first : 0;
    }
    if (!(g->interval > 0.0)) return 0;
    int64_t k = (int64_t)floor((double)after * g->dt / g->interval) - 1, n = 0;
    if (k < 0) k = 0;
    while (output_grid_step(g, k) <= after) k++;
    int64_t top = (int64_t)ceil((double)before * g->dt / g->interval) + 1;
    for (; k <= top; k++) n += output_grid_step(g, k) < before;
    return n;
}

int output_grid_inexact(const output_grid *g) { return g->interval > 0.0 && g->every == 0; }

void output_grids(const sim_config *cfg, double dt, int64_t total_steps, output_grid *snapshots,
                  output_grid *samples)
{
    *snapshots = output_grid_make(cfg->output_interval, dt, 0);
    if (cfg->timeseries_interval > 0.0)
        *samples = output_grid_make(cfg->timeseries_interval, dt, 0);
    else if (cfg->output_interval > 0.0)
        *samples = output_grid_make(cfg->output_interval / 10.0, dt, 0);
    else /* a hundred samples over the run */
        *samples = output_grid_make(0.0, dt, total_steps / 100 > 0 ? total_steps / 100 : 1);
}
