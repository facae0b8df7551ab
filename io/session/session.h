/* One way into a simulation, for every entrance: `dempact run`, `dempact check`, the
 * Python package (dempact_api.h) and the ranks of a run split over MPI. session_open
 * reads the case, checks it, tunes the engine, places the particles, and starts the
 * simulation (its first neighbour list and forces, checked by the watchdog) or restores
 * it from a snapshot; session_output opens the output; session_run steps it through
 * the run driver (run_driver.h), the one loop every entrance steps with.
 *
 * Nothing here prints (but the run driver's log) or exits: every failure comes back as
 * a dem_error (status.h) whose status is the exit status of `dempact`. */
#ifndef DEMPACT_SESSION_H
#define DEMPACT_SESSION_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/config.h"
#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "io/output/output_schedule.h"
#include "io/output/restart.h"
#include "run_driver.h"
#include "io/output/snapshot.h"
#include "status.h"

/* A simulation split over MPI ranks: what io/ranks/ranks.c gives the session (ranks_session,
 * NULL in one process). Every function is collective. */
typedef struct session_ranks {
    int count, self;
    /* the status and message of the lowest rank whose status is not 0, on every rank */
    int (*agree)(int status, char *msg, size_t len);
    /* the largest status over the ranks */
    int (*worst)(int status);
    /* the split from a run's start, around sim_start (split_run_begin, split_run_weigh);
     * each returns 0 or a failure value (engine/fail.h) with a message */
    int (*begin)(sim *s, char *err, size_t err_len);
    int (*weigh)(sim *s, char *err, size_t err_len);
    /* splits a simulation every rank holds whole (the restart of an older file) */
    int (*start)(sim *s, char *err, size_t err_len);
    /* a restart on ranks, each keeping its share of the snapshot */
    const restart_share *share;
    /* the run driver's collectives */
    const run_ranks *driver;
} session_ranks;

typedef struct session_request {
    const char *case_path;
    volatile sig_atomic_t *stop;  /* a signal handler's flag (NULL: none), polled by the
                                     reader and the fills (the run: session_run's) */
    const sim_tuning *tuning;     /* NULL: the environment's (tuning_env.h) */
    const char *restart;          /* a snapshot file to restore from (NULL: the case's start) */
    int64_t from_step;            /* its snapshot at this step (< 0: the last) */
    double end_time;              /* > 0: replaces the case's time.end */
    const session_ranks *ranks;   /* NULL: one process */
    int sums_by_id;               /* sum by id whatever the case says (parallel.reproducible:
                                     `dempact check` on ranks, each building the whole case) */
    FILE *log;                    /* where the watchdog announces a dropped particle */
    const char *who;              /* starts the messages of what follows the case's own
                                     check (e.g. "dempact run"; NULL: none) */
} session_request;

typedef struct session {
    sim_config cfg;
    sim s;
    int opened;                   /* cfg and s hold allocations */
    const session_ranks *ranks;   /* NULL: one process */
    const char *who;              /* session_request.who */
    int split_from_start;         /* the ranks split at the start or the restart */
    const char *restart;          /* the file restored from (NULL: none) */
    restart_point rp;             /* its snapshot */
    int64_t total_steps;          /* the run ends at this step */
    output_grid snapshots, samples;
    snapshot_file *out;           /* session_output's (NULL on a rank that does not write) */
    double *wall_load;            /* 9 per wall: a time-series sample's wall loads and displacements */
    watchdog_state wd;
    run_driver d;                 /* the loop's state (session_run) */
} session;

/* Reads, checks, tunes, places and starts (or restores) the simulation of rq's case; on
 * ranks each rank keeps its own particles. Returns 0 or e->status: STATUS_BAD_INPUT (the
 * message names file, line and key), STATUS_NO_MEMORY, 128 + N (signal N arrived).
 * Close the session either way. */
int session_open(session *ss, const session_request *rq, dem_error *e);

/* Opens DIR/NAME.h5 for the run (rank 0's; snapshot_check_output, then
 * snapshot_open: a restart's output carries the file's snapshots up to its point) and
 * writes the first sample and snapshot of a run from the start. Returns 0 or e->status. */
int session_output(session *ss, const char *dir, int overwrite, dem_error *e);

/* Steps to ss->total_steps through the run driver into ss->out (NULL in one process: the
 * steps alone) on the grids ss->snapshots and ss->samples, under the watchdog, with
 * how's stop, poll, log, who, progress and written (the rest is the session's). Every
 * entrance steps through here. Returns the outcome; e->status
 * is its status (0 finished, 128 + N stopped by signal N (a poll's stop: 128), STATUS_WATCHDOG,
 * STATUS_NO_MEMORY, STATUS_RUN_FAILED for a write that failed otherwise) and e->msg
 * what went wrong. */
run_outcome session_run(session *ss, const run_driver *how, dem_error *e);

void session_close(session *ss);

#endif
