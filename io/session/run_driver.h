/* The run driver: the time loop of `dempact run`, for any program that takes a case to
 * its end with output. Steps under the watchdog; time-series samples and snapshots on
 * their grids (output_schedule.h); a check of the normal dashpots against the step; a
 * free-space check once a snapshot's size is known; a stop flag polled after each step
 * (a signal handler sets it: a last snapshot, then out); progress through a callback.
 * Split over MPI ranks (run_ranks), the ranks agree after every step on what ends the
 * loop (a stop, a watchdog problem, memory), so that all of them leave it together.
 *
 * It never exits. It writes only to `log` (warnings and the watchdog's message, each
 * line starting with `who`), and reports what ended the loop as a run_outcome with a
 * message; the caller says what that means to its user (cli_run.c prints it and picks
 * the exit status). */
#ifndef DEMPACT_RUN_DRIVER_H
#define DEMPACT_RUN_DRIVER_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "io/output/output_schedule.h"
#include "io/output/snapshot.h"
#include "status.h"

typedef enum run_outcome {
    RUN_FINISHED,     /* total_steps reached: the last sample and snapshot are written */
    RUN_STOPPED,      /* *stop became nonzero: a snapshot of the step reached is written
                         (the next step, when the one it came after did not record the
                         pairs' forces: run_driver.record_always) */
    RUN_WATCHDOG,     /* the watchdog stopped the run (err: its message); a last snapshot
                         is written */
    RUN_NO_MEMORY,    /* the step ran out of memory (s->fault, s->fault_memory) */
    RUN_WRITE_FAILED, /* a snapshot or sample could not be written (err: why; failure:
                         STATUS_NO_MEMORY or STATUS_RUN_FAILED) */
} run_outcome;

/* What a run split over MPI ranks adds (io/ranks/split_run.h makes it; NULL in one process).
 * Every call is collective: every rank makes it at the same point of the loop. */
typedef struct run_ranks {
    /* v[0 .. n-1] summed over the ranks, in place (flags: any rank's) */
    void (*sum)(double *v, int n, void *ctx);
    /* v[0 .. n-1]: the largest over the ranks, in place */
    void (*largest)(double *v, int n, void *ctx);
    /* the message of the lowest rank with have != 0, into every rank's msg */
    void (*share)(char *msg, size_t len, int have, void *ctx);
    /* writes s's snapshot to out (the writing rank's; NULL on the others); every rank
     * returns the same */
    int (*write_snapshot)(void *ctx, snapshot_file *out, const sim *s, char *err, size_t err_len);
    /* after each step: looks at the ranks' balance now and then, and splits afresh */
    void (*balance)(void *ctx, sim *s);
    void *ctx;
} run_ranks;

typedef struct run_driver {
    sim *s;
    snapshot_file *out;
    int64_t total_steps;                /* the run ends at this step */
    output_grid snapshots, samples;     /* output_grids() */
    watchdog_state *wd;                 /* watchdog_start()ed on s */
    double *wall_load;                  /* room for 9 doubles per wall (samples) */
    const volatile sig_atomic_t *stop;  /* NULL: never stopped from outside */
    /* called before the first step and after each, or NULL: nonzero stops the run as
     * *stop does (one process; it must be cheap) */
    int (*poll)(void *ctx);
    void *poll_ctx;
    FILE *log;                          /* NULL: no warnings */
    const char *who;                    /* the start of each log line, e.g. "dempact run" */
    const run_ranks *ranks;             /* an MPI run's, or NULL */
    /* called after each step (last: the final step), or NULL */
    void (*progress)(void *ctx, const struct run_driver *d, int last);
    void *progress_ctx;
    /* after each step: particles and touching contacts, over all ranks (out) */
    size_t particles, contacts;
    int written;                        /* snapshots in `out` so far (in and out) */
    int stopped_by;                     /* RUN_STOPPED: the value of *stop that stopped it
                                           (split: the largest over the ranks that had one) */
    int warned_dashpots;                /* the dashpot warning was given (in and out) */
    /* every step records the particle pairs' forces (sim_record_pair_forces): a caller
     * that may read them after any step (the Python package). Otherwise a step records
     * them when a snapshot follows it (on the snapshot grid, the last step, the step a
     * stop takes effect at) or the watchdog drops particles (on_error: drop_particle,
     * whose release of the partners reads them) */
    int record_always;
    int failure;                        /* RUN_WRITE_FAILED: its status (status.h; split:
                                           the largest over the ranks) */
} run_driver;

/* The first time-series sample and snapshot of a run that starts from the case (not a
 * restart), written as the loop writes them (split: by every rank). Returns 0, or -1
 * with a message. */
int run_driver_begin(run_driver *d, char *err, size_t err_len);

/* Steps from s->step to total_steps (or until stopped). out NULL in one process: the
 * steps alone, no samples or snapshots (dempact_step). */
run_outcome run_driver_loop(run_driver *d, char *err, size_t err_len);

/* What one snapshot records, from the simulation. */
snapshot_state run_driver_state(const sim *s);
int run_driver_write_snapshot(snapshot_file *out, const sim *s, char *err, size_t err_len);
/* Appends a time-series sample (out NULL: observes only, as an MPI rank that does not
 * write must); wall_load: room for 6 doubles per wall. */
int run_driver_add_sample(snapshot_file *out, const sim *s, double *wall_load, char *err,
                          size_t err_len);
/* Warns on log, once (*warned), when a touching contact's normal dashpot is stiffer than
 * the step can integrate (engine/checks/dashpot_check.h). */
void run_driver_warn_dashpots(const sim *s, FILE *log, const char *who, int *warned);

#endif
