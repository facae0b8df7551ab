/* Snapshot output: one HDF5 file per run (DIR/NAME.h5) and an XDMF 3 sidecar
 * (DIR/NAME.xmf) that ParaView opens as a time series of points.
 *
 * HDF5 layout
 *   /                         attributes dempact_version, build, case_name (strings,
 *                             variable-length UTF-8) and dt (double, s)
 *   /case_text                scalar variable-length UTF-8 string: the case file's full
 *                             text (absent when run_info.case_text is NULL)
 *   /snapshots/NNNNNN         one group per snapshot, NNNNNN = 0-based index, 6 digits
 *                             zero-padded; attributes time (double, s), step (int64),
 *                             n_particles (int64, N); datasets
 *       id (int64, N)  type (int32, N)  radius (double, N)  mass (double, N)
 *       position, velocity, angular_velocity, force (double, N x 3, row-major)
 *   /vertex_index             int64 0, 1, 2, ..., at least as long as the largest
 *                             snapshot: the Polyvertex connectivity the .xmf gives each
 *                             grid (a hyperslab of its first N entries), without which
 *                             ParaView's XDMF 3 reader makes no cells. Not particle data.
 *
 * Only the local particles (0..n_local-1) are written, never periodic ghosts; N may
 * change from one snapshot to the next. A snapshot is written under the temporary
 * name /incomplete_snapshot and moved to /snapshots/NNNNNN only when complete, then
 * the file is flushed: everything under /snapshots is always a whole snapshot, and
 * readers must ignore anything else. The .xmf is rewritten (temporary file + rename)
 * after each flush, so it only ever names snapshots that are in the .h5.
 *
 * The file is opened without HDF5 file locking so that h5py, h5dump or ParaView can
 * read it while the run is going on (between snapshots).
 *
 * Not thread-safe (the Debian HDF5 library is not): call from one thread. */
#ifndef DEMPACT_SNAPSHOT_H
#define DEMPACT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "../engine/particles.h"

typedef struct snapshot_file snapshot_file;

typedef struct snapshot_run_info {
    const char *case_name; /* NULL: "" */
    const char *case_text; /* NULL: no /case_text dataset */
    const char *version;   /* NULL: "" */
    const char *build;     /* NULL: "" */
    double dt;
} snapshot_run_info;

/* Creates DIR/NAME.h5 and DIR/NAME.xmf (creating DIR and its parents if needed;
 * NULL or "" means the current folder), replacing existing files of those names.
 * NAME must be non-empty and contain neither '/' nor ':' (XDMF splits file:path at
 * the first colon). Returns NULL with a message naming the path on failure. */
snapshot_file *snapshot_create(const char *dir, const char *name,
                               const snapshot_run_info *info, char *err, size_t err_len);

/* Appends one snapshot of the local particles of p, flushes the HDF5 file and
 * rewrites the .xmf. Returns 0, or -1 with err. On failure before the snapshot was
 * complete nothing is added (the count is unchanged); if only the flush or the .xmf
 * rewrite failed, the snapshot is in the file, counted, and named by the next .xmf. */
int snapshot_write(snapshot_file *f, const particle_store *p, double time, int64_t step,
                   char *err, size_t err_len);

int snapshot_count(const snapshot_file *f);
const char *snapshot_h5_path(const snapshot_file *f);
const char *snapshot_xmf_path(const snapshot_file *f);

/* Closes the file and frees f. Returns 0, or -1 if HDF5 could not close the file
 * cleanly. NULL-safe. */
int snapshot_close(snapshot_file *f);

#endif
