/* Shared by io/restart.c (the file: its layout, snapshots, time series, case) and
 * io/restart_state.c (the restart snapshot's arrays, checked and restored). */
#ifndef DEMPACT_RESTART_INTERNAL_H
#define DEMPACT_RESTART_INTERNAL_H

#include <hdf5.h>
#include "restart.h"
#include "snapshot_internal.h"

/* Largest step a snapshot may have: step x dt stays exact to the last bit. */
#define RESTART_MAX_STEP (INT64_C(1) << 53)
/* Most particles and contacts a snapshot may hold (the engine's indices are 32-bit). */
#define RESTART_MAX_ROWS (INT64_C(1) << 31)

typedef struct restart_file {
    const char *path;
    char *folder;    /* where its links point from */
    hid_t file;
    int format;      /* 2 or 3 */
    double dt;
    int *no_memory;  /* set to 1 once an allocation failed (restart_fail_memory) */
} restart_file;

/* Writes "'PATH': " and the message to err; returns -1. */
int restart_refuse(const restart_file *f, char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for an allocation that failed: restart_from_file returns FAIL_NO_MEMORY. */
int restart_fail_memory(const restart_file *f, char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Opens snapshot k: the group /snapshots/NNNNNN (format 2), or the root of the file its
 * link names, once the link is checked to name NAME.d/NNNNNN.h5 and that a regular file
 * is there (format 3). Returns the group, with the file to close in *file (-1 if none),
 * or -1 with a message. */
hid_t restart_open_snapshot(const restart_file *f, int k, hid_t *file, char *err, size_t err_len);
void restart_close_snapshot(hid_t g, hid_t file);

/* Snapshot rp->index of f (opened with restart_open_snapshot), checked whole against
 * the case of s, chunk by chunk; in one process (keep) every row kept for
 * restart_restore_state. Returns 0 and *out, or -1 with a message. */
typedef struct restart_state restart_state;
int restart_check_state(const restart_file *f, hid_t g, const restart_point *rp, sim *s, int keep,
                        restart_state **out, char *err, size_t err_len);
/* Restores the checked snapshot into s: all of it (share NULL), or on ranks each one's
 * share (restart_share; collective). Returns 0, or -1 with a message. */
int restart_restore_state(restart_state *rs, sim *s, const restart_share *share, char *err, size_t err_len);
void restart_state_free(restart_state *rs);

#endif
