/* A small API for programs that drive a simulation themselves (the Python package in
 * python/, a coupling to a fluid code): open a case as `dempact run` does before its
 * first step, step it under the watchdog, change velocities between steps, and write
 * snapshots in the layout of `dempact run` (docs/output.md). Every function returns 0,
 * or -1 with a message in err; none prints or exits. */
#ifndef DEMPACT_API_H
#define DEMPACT_API_H

#include <stddef.h>
#include <stdint.h>
#include "engine/config.h"
#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "session.h"
#include "io/output/snapshot.h"

/* An output a simulation writes (a folder's NAME.h5): it stays open, and locked, until
 * dempact_close, so that coming back to a folder appends to it. */
typedef struct dempact_output {
    snapshot_file *file;
    char *dir;                /* the folder's real path */
    uint64_t changes;         /* dempact_run.changes when its last snapshot was written */
} dempact_output;

/* What dempact_step and dempact_run_to return when `poll` asked them to stop. */
#define DEMPACT_STOPPED 1

typedef struct dempact_run {
    session ss;               /* the case, the simulation, the watchdog (session.h) */
    double *shift_free_speed; /* per wall: its surface speed bound beyond translation */
    snapshot_file *out;       /* the output written last, or NULL */
    dempact_output *outs;     /* every output written so far */
    size_t n_outs;
    char stopped[1024];       /* why the watchdog stopped the run ("": it did not) */
    int driven;               /* velocities or walls were set from outside */
    uint64_t changes;         /* how many times they were */
    /* Called between steps by dempact_step and dempact_run_to (the caller sets it after
     * dempact_open; NULL: never): nonzero stops them before the next step (a signal
     * arrived). Polled before every step: it must be cheap. */
    int (*poll)(void *ctx);
    void *poll_ctx;
} dempact_run;

/* Opens the case as `dempact run` and `dempact check` do (session_open: read, checked,
 * tuned from the environment, placed and started; the message names file, line and
 * key). On failure r holds nothing to free. */
int dempact_open(dempact_run *r, const char *case_path, char *err, size_t err_len);
void dempact_close(dempact_run *r);

/* n steps, each followed by the watchdog's check, through the loop of `dempact run`
 * (session_run, without output). Refused: n < 0,
 * and a step count past TIMESTEP_MAX_STEPS (2^53, as `dempact run` refuses a time.end
 * beyond it). A step the engine refused or the watchdog stopped: -1 with the watchdog's
 * message, and every further step is refused too. Stopped by poll: DEMPACT_STOPPED,
 * after a whole step (the steps taken are those an uninterrupted run takes). */
int dempact_step(dempact_run *r, int64_t n, char *err, size_t err_len);

/* The local index of the particle with this id, or -1. */
long dempact_find(const dempact_run *r, int64_t id);

/* Whether local particle i may take velocity v, by the rules a case's particles obey
 * (finite, at most CASE_MAX_SPEED, at most WATCHDOG_STEP_FRACTION of its radius per
 * step: timestep_check_particle_speed). 0, or -1 with a message starting with `who`. */
int dempact_check_velocity(const dempact_run *r, size_t i, const double v[3], const char *who,
                           char *err, size_t err_len);
/* Checks (dempact_check_velocity), then sets particle `id`'s velocity (dempact_driven).
 * A refused velocity changes nothing. */
int dempact_set_velocity(dempact_run *r, int64_t id, const double v[3], char *err, size_t err_len);

/* The caller changed velocities between steps (as a fluid coupling does): the system
 * is driven from outside, so the watchdog's energy check (a closed system never gains
 * energy) no longer applies, and every output says so (root attribute driven = 1) from
 * its next snapshot on, so that a restart from it keeps the check off too. */
void dempact_driven(dempact_run *r);

/* Wall w translates at v from the current time on (its placement now is kept; its
 * turning, if any, is unchanged). The run is driven from then on (dempact_driven). */
int dempact_set_wall_velocity(dempact_run *r, size_t w, const double v[3], char *err,
                              size_t err_len);

/* Steps to the time `until` as `dempact run --end-time until` would (io/session/run_driver.h),
 * to the step it ends at (timestep_end_step: the first whose time reaches until), with
 * its checks: without dir, those of the end (timestep_end_step); with dir, those of the
 * whole run (timestep_schedule: the end, the snapshot count and the output's size, with
 * the case's intervals). An end before the current step is refused. With dir, samples
 * and snapshots go to DIR/NAME.h5 on the case's output grids (its time.output_interval
 * and time.timeseries_interval, counted from step 0), the state at the start first when
 * the output holds no snapshot of this step, and the last step's always; warnings go
 * to stderr. dir NULL: as dempact_step. Stopped by poll: DEMPACT_STOPPED, with a
 * snapshot of the step reached written (as `dempact run` on SIGINT). The watchdog's
 * stop is final, as in dempact_step. */
int dempact_run_to(dempact_run *r, double until, const char *dir, char *err, size_t err_len);

/* Appends a snapshot (and a time-series sample) of now to DIR/NAME.h5, NAME the case's
 * name. The first write of this simulation to a folder starts the output there
 * (replacing an earlier output of the same case, as `dempact run` does); later writes,
 * also after writes to other folders, append to it. An output holding a snapshot of
 * this step already is left as it is (0), unless velocities or walls were set since
 * that snapshot: refused (-1), the step being taken. At most TIMESTEP_MAX_SNAPSHOTS
 * snapshots per output. Refused once the watchdog stopped the run (a state no run can
 * go on from). */
int dempact_write_snapshot(dempact_run *r, const char *dir, char *err, size_t err_len);

#endif
