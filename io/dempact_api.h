/* A small API for programs that drive a simulation themselves (the Python package in
 * python/, a coupling to a fluid code): open a case as `dempact run` does before its
 * first step, step it under the watchdog, change velocities between steps, and write
 * snapshots in the layout of `dempact run` (docs/output.md). Every function returns 0,
 * or -1 with a message in err; none prints or exits. */
#ifndef DEMPACT_API_H
#define DEMPACT_API_H

#include <stddef.h>
#include <stdint.h>
#include "../engine/config.h"
#include "../engine/sim.h"
#include "../engine/watchdog.h"
#include "snapshot.h"

typedef struct dempact_run {
    sim_config cfg;
    sim s;
    watchdog_state wd;
    int opened;               /* cfg and s hold allocations */
    double *shift_free_speed; /* per wall: its surface speed bound beyond translation */
    snapshot_file *out;       /* the output write_snapshot appends to, or NULL */
    char *out_dir;
    double *wall_load;        /* 6 per wall: the time-series sample's wall loads */
    char stopped[1024];       /* why the watchdog stopped the run ("": it did not) */
} dempact_run;

/* Reads the case and builds the simulation, with the checks of `dempact check` (the
 * message names file, line and key). On failure r holds nothing to free. */
int dempact_open(dempact_run *r, const char *case_path, char *err, size_t err_len);
void dempact_close(dempact_run *r);

/* n steps, each followed by the watchdog's check (as `dempact run`). A step the engine
 * refused or the watchdog stopped: -1 with the watchdog's message, and every further
 * step is refused too. */
int dempact_step(dempact_run *r, int64_t n, char *err, size_t err_len);

/* The local index of the particle with this id, or -1. */
long dempact_find(const dempact_run *r, int64_t id);

/* The caller changed velocities between steps (as a fluid coupling does): the system
 * is driven from outside, so the watchdog's energy check (a closed system never gains
 * energy) no longer applies. */
void dempact_driven(dempact_run *r);

/* Wall w translates at v from the current time on (its placement now is kept; its
 * turning, if any, is unchanged). */
int dempact_set_wall_velocity(dempact_run *r, size_t w, const double v[3], char *err,
                              size_t err_len);

/* Steps to step `end` as `dempact run` would (io/run_driver.h): with dir, samples and
 * snapshots go to DIR/NAME.h5 on the case's output grids (its time.output_interval and
 * time.timeseries_interval, counted from step 0), the state at the start first when the
 * output is new there, and the last step's always; warnings go to stderr. dir NULL: as
 * dempact_step. The watchdog's stop is final, as in dempact_step. */
int dempact_run_to(dempact_run *r, int64_t end, const char *dir, char *err, size_t err_len);

/* Appends a snapshot (and a time-series sample) to DIR/NAME.h5, NAME the case's name.
 * The first call for a folder starts a new output there, replacing an earlier output of
 * the same case; a call with another folder closes the previous output first. */
int dempact_write_snapshot(dempact_run *r, const char *dir, char *err, size_t err_len);

#endif
