/* Snapshot output: one HDF5 file per run (DIR/NAME.h5) and an XDMF 3 sidecar
 * (DIR/NAME.xmf) that ParaView opens as a time series with two blocks, the particles
 * and the contact network. docs/output.md is the full layout (every dataset, its shape,
 * unit and meaning); tools/dempact_h5.py reads it into numpy arrays.
 *
 * HDF5 layout, in short (N particles, M contacts, W walls, T time-series samples)
 *   /                      attributes dempact_version, build, case_name, dt, format,
 *                          wall_names (W strings, when there are walls)
 *   /case_text             the case file's full text
 *   /timeseries/...        (T) global values sampled every time.timeseries_interval,
 *                          wall_force (T, W, 3)
 *   /snapshots/NNNNNN      attributes time, step, n_particles; per particle id, type,
 *                          radius, mass, position, velocity, angular_velocity, force,
 *                          torque, n_contacts, kinetic_energy, rotational_energy and
 *                          position_at_rebuild (restart data)
 *   /snapshots/NNNNNN/engine     restart data: the engine's accumulators, inlets, outlets
 *   /snapshots/NNNNNN/contacts   attribute n_contacts; per touching pair id (M, 2),
 *                          wall, point, normal, overlap, normal_force,
 *                          normal_force_vector, tangential_force, the pair history
 *                          (impact_velocity, law_history, tangential_spring,
 *                          rolling_spring, tangential_slip), slot (restart data) and
 *                          endpoints (2M, 3)
 *   /vertex_index, /zeros  0, 1, 2, ... and 0.0, 0.0, ...: what the .xmf takes for the
 *                          cells' connectivity and the contact block's point radius
 * N and M may change from one snapshot to the next.
 *
 * Crash safety: the file is written through the journaled driver (snapshot_journal.h):
 * each snapshot_write ends with an atomic commit, so the file on disk always holds
 * whole snapshots only, whenever the writer dies. The .xmf is rewritten (temporary file,
 * fsync, rename) after each commit, so it only ever names committed snapshots (past 200
 * snapshots at most every 2 s, and always by snapshot_flush and snapshot_close). Time-
 * series samples are kept in memory and written with the next snapshot.
 *
 * The file is opened without HDF5 file locking so that h5py, h5dump or ParaView can
 * read it while the run is going on; instead the writer holds an open-file-description
 * lock on it (snapshot_journal.h), so a second run cannot write the same file. Not
 * thread-safe (the Debian HDF5 library is not): call from one thread. */
#ifndef DEMPACT_SNAPSHOT_H
#define DEMPACT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "../engine/contacts.h"
#include "../engine/observables.h"
#include "../engine/particles.h"
#include "../engine/walls.h"

/* Version of the layout, in the root attribute `format`. */
#define SNAPSHOT_FORMAT 2

typedef struct snapshot_file snapshot_file;

typedef struct snapshot_run_info {
    const char *case_name; /* NULL: "" */
    const char *case_text; /* NULL: no /case_text dataset */
    const char *version;   /* NULL: "" */
    const char *build;     /* NULL: "" */
    double dt;
    const wall_set *walls; /* NULL: no walls (names and time-series wall forces) */
} snapshot_run_info;

/* What one snapshot records. Only the local particles of p (0..n_local-1) are written,
 * never periodic ghosts. pairs, wall_pairs and walls may be NULL (no contacts group);
 * position_at_rebuild (3 per particle, the engine's positions at its last neighbour
 * rebuild) may be NULL (the snapshot then cannot be restarted from). */
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
} snapshot_state;

/* Creates DIR/NAME.h5 and DIR/NAME.xmf (creating DIR and its parents if needed; NULL or
 * "" means the current folder). Files of those names are replaced only once the new
 * file holds its header (it is built under DIR/NAME.h5.new and renamed). NAME must be
 * non-empty and contain neither '/' nor ':' (XDMF splits file:path at the first colon).
 * Returns NULL with a message naming the path on failure. */
snapshot_file *snapshot_create(const char *dir, const char *name,
                               const snapshot_run_info *info, char *err, size_t err_len);

/* Opens an existing file (after replaying a journal left by a crash) to continue it in
 * place: keeps snapshots 0..keep_index and the time-series samples up to keep_step,
 * deletes the rest, replaces /case_text by info->case_text (when given), rewrites the
 * .xmf beside it and commits. */
snapshot_file *snapshot_reopen(const char *h5_path, int keep_index, int64_t keep_step,
                               const snapshot_run_info *info, char *err, size_t err_len);

/* Copies snapshots 0..keep_index and the time-series samples up to keep_step from the
 * file at src_path into f (which must have no snapshot yet), commits and rewrites the
 * .xmf: a restart into a new file starts with the history of the old one. */
int snapshot_import(snapshot_file *f, const char *src_path, int keep_index, int64_t keep_step,
                    char *err, size_t err_len);

/* Appends one snapshot, writes the buffered time-series samples, commits and rewrites
 * the .xmf. Returns 0, or -1 with err. On failure nothing of the snapshot is in the file
 * (it stays at the last commit) and the count is unchanged; the file should then be
 * closed (the run stops): further writes are refused. */
int snapshot_write(snapshot_file *f, const snapshot_state *st, char *err, size_t err_len);

/* Buffers one time-series sample (o->wall_force holds 3 per wall of info->walls); it is
 * written with the next snapshot_write or snapshot_flush. Returns 0 or -1 (memory). */
int snapshot_add_sample(snapshot_file *f, const sim_observables *o, char *err, size_t err_len);

/* Writes the buffered samples and commits. */
int snapshot_flush(snapshot_file *f, char *err, size_t err_len);

int snapshot_count(const snapshot_file *f);
const char *snapshot_h5_path(const snapshot_file *f);
const char *snapshot_xmf_path(const snapshot_file *f);
/* Step of the last snapshot in the file, -1 if none. */
int64_t snapshot_last_step(const snapshot_file *f);
/* Bytes the last snapshot took in the file (0 before the first). */
uint64_t snapshot_last_size(const snapshot_file *f);

/* Brings the .xmf up to date, closes the file and frees f; whatever was not committed is
 * dropped. Returns 0, or -1 if HDF5 could not close the file cleanly. NULL-safe. */
int snapshot_close(snapshot_file *f);

/* The path of the .xmf for an .h5 path (NAME.h5 -> NAME.xmf), malloc'd. */
char *snapshot_xmf_path_for(const char *h5_path);

#endif
