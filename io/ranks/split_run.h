/* A simulation split over the ranks of an MPI run: Zoltan's decomposition of the
 * particles (decompose.h), checked, and each rank's own particles and ghosts (halo.h)
 * as the engine's ghost hooks (sim_split). Program layer, MPI builds only; collective. */
#ifndef DEMPACT_SPLIT_RUN_H
#define DEMPACT_SPLIT_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "decompose.h"
#include "halo.h"
#include "io/session/run_driver.h"
#include "io/session/session.h"

typedef struct split_run {
    decomposition d[2];   /* the split the halo follows, and the one before or to come */
    halo h;
    sim_ghost_hooks hooks;
    FILE *log;            /* rank 0's, where rebalances are told (or NULL) */
    double force_seconds; /* s->force_seconds at the last balance measurement */
    int rebalances;       /* splits made afresh */
} split_run;

/* Steps between two measurements of the ranks' balance (split_run_balance). */
#define SPLIT_BALANCE_EVERY 1000

/* Splits s, which every rank has built alike with its lists (a restart's, the bench's),
 * over the ranks (split_run_begin, then sim_split); `out` (rank 0's, or NULL) gets the
 * decomposition, and later each rebalance. Returns 0, or a failure value (engine/fail.h)
 * with a message in err (the split cannot run, out of memory). */
int split_run_start(sim *s, split_run *r, FILE *out, char *err, size_t err_len);
/* The split from a run's start, around sim_start: split_run_begin splits s, which every
 * rank has placed alike (sim_place), by the particles alone (there are no contacts yet)
 * and hands the ghosts to the ranks, whose first rebuild in sim_start keeps each one's
 * own; after sim_start, split_run_weigh splits afresh by each particle's contacts, a
 * split the ranks take at the first rebuild that falls due (r->h.next; r->h.d until
 * then). No rank holds the whole case's lists. r->log (NULL after these) takes the
 * rebalances. Each returns 0, or a failure value (engine/fail.h) with a message in err
 * (the split cannot run, out of memory); free r after either. */
int split_run_begin(sim *s, split_run *r, char *err, size_t err_len);
int split_run_weigh(sim *s, split_run *r, char *err, size_t err_len);
/* The split of a restart (restart_share): each rank's block of the snapshot's rows
 * (ids and positions, n of them) split by count, checked, and the halo over it, whose
 * hooks (r->hooks) sim_restore_share takes. Returns 0, or -1 with a message. */
int split_run_rows(sim *s, split_run *r, const int64_t *id, const double *x, size_t n, char *err,
                   size_t err_len);
/* The split these made, and the one by contacts to come if any (rank 0's out). */
void split_run_print_start(const split_run *r, FILE *out);
/* The traffic of the run so far, over all ranks: bytes a rank sends per step at the
 * updates, and per rebuild (migration and exchange), the mean over the ranks and the
 * largest. */
void split_run_traffic(const split_run *r, double per_step[2], double per_rebuild[2]);
void split_run_free(split_run *r);

/* Every SPLIT_BALANCE_EVERY steps: the ranks' force-loop time since the last time
 * (sim.force_seconds); when the slowest took more than parallel.rebalance times the
 * mean and the largest rank's work (decompose_work_imbalance) is at least that many
 * times the mean too, the particles are split afresh by their present positions and work
 * (halo_rebalance: from the next rebuild that falls due), and the split is told on the
 * log. Collective; does nothing at other steps. */
void split_run_balance(split_run *r, sim *s);

/* The run driver's collectives over the ranks (sums, a shared message, the snapshot
 * every rank writes its block of: split_output.h, the balance above). */
void split_run_driver(split_run *r, run_ranks *out);

/* The session's ranks (session.h) over this process's one split: made by the session
 * (at the start, or once a restart is restored), its rebalances told on log (rank 0's,
 * or NULL); the restart's messages start with case_path. */
const session_ranks *split_run_session(const char *case_path, FILE *log);
/* The split it made, and the one by contacts to come if any. */
void split_run_session_print(FILE *out);
void split_run_session_traffic(double per_step[2], double per_rebuild[2]);
void split_run_session_end(void);

#endif
