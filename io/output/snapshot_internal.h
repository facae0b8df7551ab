/* Shared between io/output/snapshot*.c and io/output/restart*.c; not a public interface. */
#ifndef DEMPACT_SNAPSHOT_INTERNAL_H
#define DEMPACT_SNAPSHOT_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include "snapshot.h"
#include "snapshot_share.h"
#include "engine/fail.h"
#include "engine/sim.h"

void snapshot_set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether the failure of the public call under way (snapshot.h) was an allocation's:
 * set where it happens (snapshot_set_no_memory, or directly beside sh5_error), cleared
 * as each public call starts, and returned by it as FAIL_NO_MEMORY (engine/fail.h). One
 * call at a time, as the writer is used (the program's main thread). */
extern int snapshot_no_memory;
/* snapshot_set_err for a failed allocation: also sets snapshot_no_memory. */
void snapshot_set_no_memory(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
char *snapshot_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------ snapshot_fs.c */

/* mkdir -p. Returns 0, or -1 with a message naming `dir`. */
int fs_make_dirs(const char *dir, char *err, size_t err_len);
/* fsync of a file by path; returns 0 or an errno value. */
int fs_sync_file(const char *path);
/* fsync of a folder (folders that cannot be synced are not an error). */
void fs_sync_dir(const char *dir);
/* Makes tmp durable and renames it to path (atomic). Returns 0, or -1 with a message. */
int fs_publish(const char *tmp, const char *path, char *err, size_t err_len);
/* A hard link of src at dst, or a copy when the file system has none (fsync'd).
 * Returns 0 or an errno value. dst must not exist. */
int fs_link_or_copy(const char *src, const char *dst);
/* Opens folder dir and takes an exclusive flock on it. Returns the descriptor, -2 if
 * another process holds it, or -1 with errno set. */
int fs_lock_dir(const char *dir);
/* The folder part of a path ("." if none), malloc'd. */
char *fs_dirname(const char *path);
/* 1 if a and b name the same file. */
int fs_same_file(const char *a, const char *b);

/* ------------------------------------------------------------ snapshot_h5.c */

/* HDF5's automatic error printing off for the duration of a call. */
typedef struct h5_quiet {
    H5E_auto2_t func;
    void *data;
} h5_quiet;
void h5_quiet_begin(h5_quiet *q);
void h5_quiet_end(const h5_quiet *q);

/* The innermost message on HDF5's error stack, or the system error behind it (a full
 * disk says "No space left on device"), captured where a call fails. */
extern char sh5_error[512];
void sh5_capture_error(void);

hid_t sh5_string_type(void);
/* An attribute, scalar (n == 0) or 1-D of n values; value points to const char * for
 * string types. Returns 0, or -1 with sh5_error. */
int sh5_attr(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, hsize_t n,
             const void *value);
int sh5_string_attr(hid_t loc, const char *name, const char *value);
/* A contiguous dataset (buf may be NULL when it has no elements) with string
 * attributes unit and meaning. Object times are not recorded: the same run gives the
 * same bytes. */
int sh5_dataset(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, int rank,
                const hsize_t *dims, const void *buf, const char *unit, const char *meaning);
/* Rows of a dataset of part->total rows of `cols` values (0: 1-D) of which this process
 * writes its runs (one process: part->count[0] == total, the whole), buf holding them
 * one after the other. Returns 0, or -1 with sh5_error. */
typedef struct sh5_part {
    hsize_t total, first[2], count[2];
} sh5_part;
int sh5_rows(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, hsize_t cols,
             const sh5_part *part, const void *buf, const char *unit, const char *meaning);
/* From now on the datasets and files the helpers make are written together by the
 * processes of share (snapshot_share.h; NULL: by this one alone): collective calls, each
 * process's rows its own, the rest the root's, and a failure on one a failure on all. */
void sh5_share(const snapshot_share *share);
hid_t sh5_group(hid_t loc, const char *name);
int sh5_close(herr_t (*close_fn)(hid_t), hid_t id);
/* A new file (truncating), in the HDF5 1.8 object format (readable by every HDF5 >=
 * 1.8: h5py, ParaView, VisIt), without file locking (the writer's files are private
 * until renamed). */
hid_t sh5_create_file(const char *path);
/* A read-only open without file locking (a run may be writing beside it). */
hid_t sh5_open_read(const char *path);

#define SH5_F64 H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE
#define SH5_I64 H5T_STD_I64LE, H5T_NATIVE_INT64
#define SH5_I32 H5T_STD_I32LE, H5T_NATIVE_INT32
#define SH5_U8 H5T_STD_U8LE, H5T_NATIVE_UINT8

/* ---------------------------------------------------------- snapshot_walls.c */

/* The walls as triangles where they are at time t. */
typedef struct wall_triangles {
    size_t n_vertices, n_triangles;
    double *vertices; /* 3 per vertex */
    int64_t *corners; /* 3 per triangle: vertex rows */
    int32_t *wall;    /* per triangle: the wall's index */
} wall_triangles;

/* Planes as their patch inside the box [box_min, box_max] (a square of the box's
 * diagonal around the point nearest the box's centre when the plane misses it),
 * rectangles as two triangles, cylinders and cones as WALL_RING_SEGMENTS quads of two
 * triangles, STL walls as their triangles. Returns 0 or -1 (memory). */
#define WALL_RING_SEGMENTS 64
/* engine/wall_servo (group e): the servo walls' state, when there are servo walls.
 * Returns 0, or -1 with sh5_error (snapshot_no_memory set when memory ran out). */
int snapshot_write_servo(hid_t e, const wall_set *ws);
int wall_triangles_build(wall_triangles *out, const wall_set *ws, double t,
                         const double box_min[3], const double box_max[3]);
void wall_triangles_free(wall_triangles *t);

/* ------------------------------------------------------------ snapshot_meta.c */

/* What NAME.h5 and the .xmf files need to know of a snapshot, from its file. */
typedef struct snapshot_meta {
    double time;
    int64_t step;
    int64_t n_particles, n_contacts;
    int64_t n_wall_vertices, n_wall_triangles; /* 0, 0: no walls group */
    int64_t vertex_len; /* length of vertex_index (format 2 groups: 0) */
    uint64_t bytes;     /* the snapshot file's size */
} snapshot_meta;

/* Reads the meta of snapshot group g and checks that its attributes agree with the
 * shapes of every dataset the .xmf files and a restart read (format 3: vertex_index
 * and walls too). Returns 0, or -1 with the first disagreement in why (FAIL_NO_MEMORY
 * when an allocation failed). */
int snapshot_meta_read(hid_t g, int format, snapshot_meta *m, char *why, size_t why_len);

/* Rows of dataset `name` of loc, which must have the given rank and, past the first
 * dimension, the given dims (rest may be NULL for rank 1), and hold as many bytes as
 * its shape says (not a header claiming more than is stored). Returns the rows, or -1
 * with why. */
int64_t snapshot_dataset_rows(hid_t loc, const char *name, int rank, const hsize_t *rest,
                              char *why, size_t why_len);

/* ------------------------------------------------------------ snapshot_data.c */

/* The per-dataset documentation written as attributes unit and meaning. */
typedef struct field_doc {
    const char *name, *unit, *meaning;
} field_doc;
/* The doc of dataset `name` in the snapshot's root ("" group), "contacts", "engine" or
 * "walls"; NULL if unknown. */
const field_doc *snapshot_field_doc(const char *group, const char *name);

/* Writes snapshot st to a new file at path (see snapshot.h); walls are drawn inside the
 * box. share: NULL, or the processes writing it together, st holding this one's block
 * (snapshot_share.h). Fills m (the whole file's counts). Returns 0, or -1 with a
 * message (on every process of a share). */
int snapshot_data_write(const char *path, const snapshot_state *st, const snapshot_share *share,
                        const double box_min[3], const double box_max[3], snapshot_meta *m, char *err,
                        size_t err_len);

/* Writes a format-2 snapshot group (src) as a file at path: its datasets and attributes
 * copied, unit and meaning added, vertex_index and the walls (ws at the snapshot's time,
 * NULL: none) written. Fills m. Returns 0, or -1 with a message. */
int snapshot_data_convert(hid_t src, const char *path, const wall_set *ws, const double box_min[3],
                          const double box_max[3], snapshot_meta *m, char *err, size_t err_len);

/* ----------------------------------------------------------- snapshot_index.c */

/* Writes NAME.h5's content to a new file at path: the root attributes, /case_text,
 * /timeseries from series, and /snapshots/NNNNNN linked to SNAPDIR/NNNNNN.h5 for k <
 * count (snapdir relative to the file's folder: "NAME.d"). */
int snapshot_index_write(const char *path, const snapshot_run_info *info, const char *snapdir,
                         int count, const snapshot_series *series, char *err, size_t err_len);

/* ------------------------------------------------------------ snapshot_xdmf.c */

/* Writes the .xmf files of snapshots 0..count-1 (files SNAPDIR/NNNNNN.h5, relative to
 * the .xmf's folder) to tmp[0] (particles), tmp[1] (contacts) and, when has_walls,
 * tmp[2] (walls); the caller renames them into place. A snapshot without particles or
 * contacts (or wall triangles) gets a stand-in of one point (one zero-length line, one
 * zero-area triangle) at `centre` with every value 0: ParaView's XDMF 3 readers crash
 * on an empty grid. Returns 0, or -1 with a message (no tmp file left). */
int snapshot_xdmf_write(const char *const tmp[3], const char *snapdir, const snapshot_meta *m,
                        int count, int has_walls, const double centre[3], char *err,
                        size_t err_len);
/* Bytes the three files will take for count snapshots, roughly. */
uint64_t snapshot_xdmf_size(int count, int has_walls);

/* -------------------------------------------------------- snapshot_contacts.c */

/* contact_table (snapshot.h) is built here. */

/* ------------------------------------------------------------ snapshot.c */

/* An open output (snapshot.h): its paths, the snapshots written and named. */
struct snapshot_file {
    char *dir;                 /* DIR, "." for none */
    char *h5_path;             /* DIR/NAME.h5 */
    char *snapdir, *snapdir_rel; /* DIR/NAME.d and NAME.d */
    char *index_tmp;           /* DIR/NAME.d/.index.h5.tmp */
    char *xmf[3], *xmf_tmp[3]; /* particles, contacts, walls */
    int lock_fd;
    snapshot_run_info info;
    int has_walls;
    double centre[3];
    snapshot_meta *meta;       /* per snapshot file written */
    int count, cap;            /* snapshot files written */
    int indexed;               /* ... and named by NAME.h5 */
    size_t indexed_rows;       /* samples NAME.h5 holds */
    snapshot_series series;
    int failed;
    uint64_t bytes_since;      /* snapshot bytes written since NAME.h5 was last rewritten */
    double catalogued_at, catalogue_seconds;
    uint64_t last_size;
};

snapshot_file *snapshot_file_new(const char *dir, const char *name, const snapshot_run_info *info);
void snapshot_file_free(snapshot_file *f);
/* DIR/NAME.d/NNNNNN.h5 with the suffix, malloc'd. */
char *snapshot_file_path(const snapshot_file *f, int k, const char *suffix);
/* Appends the meta of a snapshot file written. Returns 0 or -1 (out of memory). */
int snapshot_add_meta(snapshot_file *f, const snapshot_meta *m);
/* Rewrites NAME.h5 and the .xmf files for every snapshot file written and every
 * sample: all written to temporary files first, then renamed into place (the .xmf
 * files, then NAME.h5), so that a failure leaves the previous ones. */
int snapshot_catalogue(snapshot_file *f, char *err, size_t err_len);

#endif
