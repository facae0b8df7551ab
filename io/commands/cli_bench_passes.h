/* `dempact bench`: where the timed steps' time went, pass by pass (sim.pass_seconds:
 * neighbour build, pair loop, integration, books), in seconds per step and as a share of
 * the bench's wall-clock time. */
#ifndef DEMPACT_CLI_BENCH_PASSES_H
#define DEMPACT_CLI_BENCH_PASSES_H

#include <stdio.h>

#include "engine/sim.h"

typedef struct bench_passes {
    double seconds[SIM_PASSES]; /* per step, the ranks' mean */
    double percent[SIM_PASSES]; /* of the bench's seconds per step (the slowest rank's) */
} bench_passes;

/* The passes of the steps between `before` (sim.pass_seconds then) and now, over
 * `steps` steps that took `per_step` seconds each. Collective over ranks. */
bench_passes bench_passes_measure(const sim *s, const double before[SIM_PASSES], long steps,
                                  double per_step);
/* `"passes": {...}, ` (json) or the text lines; nothing without steps. */
void bench_passes_print(FILE *out, const bench_passes *b, long steps, int json);

#endif
