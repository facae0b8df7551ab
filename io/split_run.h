/* A simulation split over the ranks of an MPI run: Zoltan's decomposition of the
 * particles (decompose.h), checked, and each rank's own particles and ghosts (halo.h)
 * as the engine's ghost hooks (sim_split). Program layer, MPI builds only; collective. */
#ifndef DEMPACT_SPLIT_RUN_H
#define DEMPACT_SPLIT_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "decompose.h"
#include "halo.h"
#include "run_driver.h"

typedef struct split_run {
    decomposition d;
    halo h;
    sim_ghost_hooks hooks;
} split_run;

/* Splits s, which every rank has built alike, over the ranks; `out` (rank 0's, or NULL)
 * gets the decomposition. Returns 0, or -1 with a message in err (the split cannot run,
 * out of memory). */
int split_run_start(sim *s, split_run *r, FILE *out, char *err, size_t err_len);
/* The traffic of the run so far, over all ranks: bytes a rank sends per step at the
 * updates, and per rebuild (migration and exchange), the mean over the ranks and the
 * largest. */
void split_run_traffic(const split_run *r, double per_step[2], double per_rebuild[2]);
void split_run_free(split_run *r);

/* The run driver's collectives over the ranks (sums, a shared message, the snapshot
 * gathered and written on rank 0: split_output.h). */
void split_run_driver(run_ranks *out);

#endif
