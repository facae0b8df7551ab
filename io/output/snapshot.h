/* Snapshot output: what `dempact run` writes. docs/output.md is the full layout (every
 * dataset, its shape, unit and meaning); tools/dempact_h5.py reads it into numpy arrays.
 *
 * The files of a run named NAME in folder DIR (layout `format` 3):
 *   DIR/NAME.d/NNNNNN.h5   one HDF5 file per snapshot (NNNNNN = 000000, 000001, ...):
 *                          attributes time, step, n_particles; the particles' datasets,
 *                          contacts/ (the force network), engine/ (restart data), walls/
 *                          (the walls' triangles where they are at that time), and
 *                          vertex_index (0, 1, 2, ...: the .xmf's connectivity)
 *   DIR/NAME.h5            the entry point: root attributes, /case_text, the time
 *                          series (/timeseries/...) and /snapshots/NNNNNN, each an
 *                          HDF5 external link to NAME.d/NNNNNN.h5 (so
 *                          f["snapshots/000003/position"] reads the positions)
 *   DIR/NAME.xmf           ParaView: the particles, one time step per snapshot
 *   DIR/NAME_contacts.xmf  ParaView: the contact network as lines
 *   DIR/NAME_walls.xmf     ParaView: the walls as triangles (only when there are walls)
 *
 * Crash safety without any repair step: every file is written under a temporary name
 * inside NAME.d, fsync'd and renamed into place (atomic on POSIX file systems). A
 * snapshot file is complete before NAME.h5 and the .xmf files name it, and is never
 * written again, so a run killed at any moment leaves every snapshot NAME.h5 names
 * readable, and readers (h5py, h5dump, ParaView) may open the files while the run goes
 * on. The writer holds a lock (flock) on NAME.d: a second run cannot write the same
 * output. Not thread-safe (the Debian HDF5 library is not): call from one thread. */
#ifndef DEMPACT_SNAPSHOT_H
#define DEMPACT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "engine/neighbours/contacts.h"
#include "engine/step/observables.h"
#include "engine/population/particles.h"
#include "engine/sim.h"
#include "engine/walls/walls.h"

/* Version of the layout, in the root attribute `format` of NAME.h5. Format 2 (one
 * HDF5 file holding everything) is still read: `dempact info` and restarts. */
#define SNAPSHOT_FORMAT 3

typedef struct snapshot_file snapshot_file;

typedef struct snapshot_run_info {
    const char *case_name; /* NULL: "" */
    const char *case_text; /* NULL: no /case_text dataset */
    const char *version;   /* NULL: "" */
    const char *build;     /* NULL: "" */
    double dt;
    const wall_set *walls; /* NULL: no walls (names, time-series wall loads, triangles) */
    /* the domain: plane walls are drawn as their patch inside it, and a snapshot without
     * particles or contacts draws its stand-in at its centre (all zero: the origin) */
    double domain_min[3], domain_max[3];
    int overwrite;         /* replace whatever is in the way (dempact run --overwrite) */
    int sums_by_id;        /* the run sums by id (parallel.reproducible, or on several
                              ranks): a restart does too (root attribute sums_by_id) */
    double initial_energy; /* sim.initial_energy, the energy books' start (root attribute
                              initial_energy): a restart takes it from here rather
                              than starting the case again */
    int driven;            /* velocities or walls were set from outside (the Python
                              package, io/session/dempact_api.h): root attribute driven = 1, and a
                              restart keeps the watchdog's energy check off */
} snapshot_run_info;

/* What one snapshot records. Only the local particles of p (0..n_local-1) are written,
 * never periodic ghosts. pairs and wall_pairs may be NULL (no contacts); walls NULL:
 * no walls/ group; position_at_rebuild (3 per particle, the engine's positions at its
 * last neighbour rebuild) may be NULL (the snapshot then cannot be restarted from). */
struct sim;
typedef struct snapshot_state {
    const particle_store *p;
    const contact_list *pairs, *wall_pairs;
    const wall_set *walls;
    const double *position_at_rebuild;
    const struct sim *engine; /* NULL, or the simulation: its accumulators, inlets and
                                 outlets go to the snapshot's engine group (restart data) */
    double time;
    int64_t step;
    /* Particles written in the order of their ids, contacts in the order of their first
     * particle's id, then their place in its entries (slot): an order no decomposition
     * changes, for runs that sum by id (sim_config.reproducible), on one or many ranks.
     * 0: both as the store and the lists hold them (a restart replays that order). */
    int in_id_order;
    /* An MPI rank's block of a snapshot (split_output.c): its contacts (in any order)
     * and each particle's count of touching contacts, in p's order. NULL: both come
     * from pairs and wall_pairs. */
    const struct contact_table *contacts;
    const int32_t *n_contacts;
} snapshot_state;

/* The touching pairs of a snapshot, as written to its contacts group. */
typedef struct contact_table {
    size_t m;
    int64_t *id;       /* 2 m: particle id, other particle id or wall index */
    uint8_t *wall;     /* m */
    int64_t *slot;     /* m: the pair's place among its first particle's list entries */
    uint8_t *ended;    /* m: 0 in contact, 1 ending this step, 2 ended (contact_list.touching) */
    double *point, *normal, *normal_force_vector, *tangential_force; /* 3 m */
    double *overlap, *normal_force;                                  /* m */
    double *endpoints; /* 6 m: the two ends of the segment ParaView draws */
    double *history[SIM_MAX_HISTORY_FIELDS]; /* per sim_pair_history field: count m */
    /* the particle pairs' forces were not recorded (sim_record_pair_forces): their rows'
     * forces are NaN (contacts@forces_recorded 0) */
    int unrecorded;
} contact_table;

/* Fills t from the contact lists of st (empty when st has none): the pairs whose first
 * particle is one of st->p's local ones (an MPI rank's own; in one process, every pair).
 * Returns 0 or -1 (memory). */
int contact_table_build(contact_table *t, const snapshot_state *st);
void contact_table_free(contact_table *t);
/* The columns of t, each one's data and bytes per row (for copying rows about, e.g.
 * an MPI run sending them to the rank that writes them). Returns how many (at most CONTACT_TABLE_COLUMNS). */
#define CONTACT_TABLE_COLUMNS (11 + SIM_MAX_HISTORY_FIELDS)
int contact_table_columns(const contact_table *t, void *data[], size_t row_bytes[]);
/* Room for m rows (at least one). Returns 0 or -1 (memory; t is then empty). */
int contact_table_alloc(contact_table *t, size_t m);
/* How many particles and walls each local particle of st touches (n_local values):
 * every pair that holds a force and names it, whichever particle is first. */
void snapshot_contact_counts(const snapshot_state *st, int32_t *n_contacts);

/* ---------------------------------------------------------------- time series */

/* A time-series column: dataset name under /timeseries, member of sim_observables,
 * integer or not, unit and meaning (the dataset's attributes). */
typedef struct snapshot_ts_column {
    const char *name;
    size_t offset;
    int is_int;
    const char *unit, *meaning;
    int optional; /* files written before it existed lack it: read as NaN */
} snapshot_ts_column;
extern const snapshot_ts_column snapshot_ts_columns[];
extern const size_t snapshot_n_ts_columns;
/* wall_force, wall_torque and wall_displacement, (T, W, 3) each */
#define SNAPSHOT_WALL_SERIES 3 /* wall_force, wall_torque, wall_displacement */
extern const snapshot_ts_column snapshot_wall_series[SNAPSHOT_WALL_SERIES];

/* Samples held in memory (the writer rewrites /timeseries from them). */
typedef struct snapshot_series {
    size_t n, cap, n_walls;
    sim_observables *rows;  /* their wall_force and wall_torque pointers are not used */
    double *wall[SNAPSHOT_WALL_SERIES]; /* 3 n_walls per row: force, torque, displacement */
} snapshot_series;

/* Appends a sample (o->wall_force, o->wall_torque and o->wall_displacement hold 3 per wall when o->n_walls
 * is s->n_walls; otherwise NaN is stored). Returns 0 or -1 (memory). */
int snapshot_series_add(snapshot_series *s, const sim_observables *o);
void snapshot_series_free(snapshot_series *s);

/* ------------------------------------------------------------ a run's output */

/* What a restart carries into the output (io/output/restart.h fills it): snapshots 0..keep-1
 * of the file at `path` and its time-series samples up to the restart step. */
typedef struct snapshot_carry {
    char *path;              /* the file restarted from (NAME.h5, or a format-2 file) */
    int format;              /* its layout: 2 or 3 */
    int keep;
    int driven;              /* its root attribute driven: the output keeps it */
    snapshot_series series;
} snapshot_carry;

void snapshot_carry_free(snapshot_carry *c);

/* Checks, touching nothing, that the output DIR/NAME may be written: DIR is (or can be
 * made) a writable folder, and whatever is already there under the output's names is
 * a dempact output of the same case (its case text equal to info->case_text but for
 * the keys a restart may change), the file restarted from (restart_path), or
 * info->overwrite is set. Returns 0, or -1 with a message naming the file in the way
 * and how to proceed. */
int snapshot_check_output(const char *dir, const char *name, const snapshot_run_info *info,
                          const char *restart_path, char *err, size_t err_len);

/* Starts the output DIR/NAME (creating DIR and its parents if needed; NULL or "" is the
 * current folder) after snapshot_check_output: takes the lock, then writes NAME.h5 with
 * the carried snapshots and samples (carry NULL: none), replacing an earlier output of
 * the same case. NAME must be non-empty and contain neither '/' nor ':'. Returns NULL
 * with a message on failure; an output that was not there before is then removed. */
snapshot_file *snapshot_create(const char *dir, const char *name, const snapshot_run_info *info,
                               const snapshot_carry *carry, char *err, size_t err_len);
/* The same, returning 0 with the output in *out, or -1 (FAIL_NO_MEMORY, engine/fail.h,
 * when an allocation failed) with a message and *out NULL. The writer's other calls
 * that return -1 return FAIL_NO_MEMORY for a failed allocation too. */
int snapshot_open(const char *dir, const char *name, const snapshot_run_info *info,
                  const snapshot_carry *carry, snapshot_file **out, char *err, size_t err_len);

/* Writes one snapshot file and (see docs/output.md, "Crash safety") NAME.h5 and the
 * .xmf files naming it, with the samples added so far. Returns 0, or -1 with err: the
 * output then stays as it was after the last snapshot written and further writes are
 * refused. */
int snapshot_write(snapshot_file *f, const snapshot_state *st, char *err, size_t err_len);
/* The same, written by several processes together (an MPI run): every one calls it with
 * its block of the snapshot (snapshot_share.h), the root with the output (the others
 * with f NULL); the root writes NAME.h5 and the .xmf files. Returns 0, or -1 with a
 * message, on every process alike. */
struct snapshot_share;
int snapshot_write_shared(snapshot_file *f, const snapshot_state *st, const struct snapshot_share *share,
                          char *err, size_t err_len);

/* Buffers one time-series sample (o->wall_force and o->wall_torque hold 3 per wall of
 * info->walls); NAME.h5 gets it with the next snapshot_write or snapshot_flush. Returns
 * 0 or -1 (memory). */
int snapshot_add_sample(snapshot_file *f, const sim_observables *o, char *err, size_t err_len);

/* Brings NAME.h5 and the .xmf files up to date (every snapshot and sample). */
int snapshot_flush(snapshot_file *f, char *err, size_t err_len);

/* The run is driven from outside from now on (snapshot_run_info.driven): NAME.h5 is
 * rewritten at once with the root attribute driven = 1 (as snapshot_flush writes it).
 * Returns 0, or -1 with a message (further writes are then refused). */
int snapshot_mark_driven(snapshot_file *f, char *err, size_t err_len);

/* Snapshots NAME.h5 names. */
int snapshot_count(const snapshot_file *f);
const char *snapshot_h5_path(const snapshot_file *f);
const char *snapshot_xmf_path(const snapshot_file *f);
/* Step of the last snapshot NAME.h5 names, -1 if none. */
int64_t snapshot_last_step(const snapshot_file *f);
/* Bytes the last snapshot file took (0 before the first). */
uint64_t snapshot_last_size(const snapshot_file *f);

/* Flushes (as snapshot_flush, unless a write failed), releases the lock and frees f.
 * Returns 0, or -1 if the flush failed. NULL-safe. */
int snapshot_close(snapshot_file *f);

#endif
