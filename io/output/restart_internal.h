/* Shared by io/output/restart.c (the file: its layout, snapshots, time series, case),
 * io/output/restart_state.c (the restart snapshot checked and restored), io/output/restart_arrays.c
 * (its arrays, read by chunks) and io/output/restart_values.c (their values checked). */
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

/* ---- the snapshot's arrays (restart_arrays.c) ---- */

/* The per-row datasets of a snapshot (or a chunk of their rows), and the engine's. */
typedef struct snap_arrays {
    int64_t *id, *contact_id, *contact_slot;
    int32_t *type;
    uint8_t *contact_wall, *contact_ended;
    double *radius, *mass, *position, *position_at_rebuild, *velocity, *angular_velocity;
    double *force, *torque;
    double *history[SIM_MAX_HISTORY_FIELDS];
    double *work, *wall_work, *wall_work_sum, *wall_servo;
    uint8_t *inlets, *outlets;
    size_t inlets_bytes, outlets_bytes;
} snap_arrays;

/* Reads dataset `name` of g, which must be (rows) or (rows, cols) and store that many
 * values, into a new buffer of elem bytes per value; NULL with a message. */
void *restart_read_array(const restart_file *f, int k, hid_t g, const char *name, hid_t mem_type,
                         size_t elem, size_t rows, size_t cols, char *err, size_t err_len);
void restart_arrays_free(snap_arrays *a);

/* Rows read at a time: a restart holds a chunk of each dataset, and the rows it keeps
 * (all of them in one process; its share on each rank). */
#define RESTART_CHUNK ((size_t)65536)

enum { COL_I64, COL_I32, COL_U8, COL_F64 };

/* A per-row dataset of the snapshot and the array of snap_arrays it goes to. */
typedef struct column {
    char name[96];
    size_t offset;   /* of its pointer in snap_arrays */
    int kind;
    size_t cols;     /* values per row (1: a dataset of rank 1) */
    int absent;      /* not in the file (older files): zeros */
} column;
#define PARTICLE_COLUMNS 10
#define CONTACT_COLUMNS_MAX (4 + SIM_MAX_HISTORY_FIELDS)
extern const column restart_particle_columns[PARTICLE_COLUMNS];
/* The contacts' datasets, those older files lack marked absent. Returns how many. */
int restart_contact_columns(hid_t g, column *c);
/* Checks that each dataset is (rows) or (rows, cols) and stores that many values. */
int restart_check_shapes(const restart_file *f, int k, hid_t g, const column *c, int n, size_t rows,
                         char *err, size_t err_len);
/* Room for `rows` rows of each column in a (whose arrays are NULL or hold fewer). */
int restart_reserve_columns(snap_arrays *a, const column *c, int n, size_t rows);
/* Rows first .. first + count - 1 of each column into a's rows 0 .. count - 1. */
int restart_read_chunk(const restart_file *f, int k, hid_t g, const column *c, int n, snap_arrays *a,
                       size_t first, size_t count, char *err, size_t err_len);
/* Row r of `from` to row q of `to`, in every column. */
void restart_copy_row(snap_arrays *to, size_t q, snap_arrays *from, size_t r, const column *c, int n);
/* The arrays shifted to start at row `first` (to read a chunk into its place). */
snap_arrays restart_shifted(snap_arrays *a, const column *c, int n, size_t first);

/* ---- their values checked (restart_values.c) ---- */

/* The checks. Each returns 0, or -1 with the message. */
typedef struct checker {
    const restart_file *f;
    int k;            /* the snapshot */
    const sim *s;
    double reach;     /* the domain's diagonal: nothing moves that far in one step */
    char *err;
    size_t err_len;
    size_t first;     /* the snapshot's row of the arrays' row 0 (they hold a chunk) */
} checker;

int restart_check_particles(const checker *c, const snap_arrays *a, size_t n, int64_t next_id);
/* ids: every particle id of the snapshot, sorted. */
int restart_check_contacts(const checker *c, const snap_arrays *a, const int64_t *ids, size_t n, size_t m);
/* The inlets' and outlets' states (population_h5.h): each field in its range. */
int restart_check_population(const checker *c, const snap_arrays *a, double time, int64_t next_id);
int restart_check_sums(const checker *c, const char *what, const double *v, size_t n);
/* The servo walls' state (engine/wall_servo, n values): finite. */
int restart_check_servo(const checker *c, const double *v, size_t n);
/* Whether id is among the n sorted ids; the order they are sorted in (qsort). */
int restart_find_sorted(const int64_t *sorted, size_t n, int64_t id);
int restart_cmp_i64(const void *x, const void *y);

#endif
