/* Restarting a run from a snapshot: `dempact run CASE --restart FILE [--from-step N]`.
 *
 * The snapshot's particles (matched to the case's by id), their velocities, forces and
 * torques, the positions of the engine's last neighbour rebuild and the history of
 * every touching pair are put back into a simulation freshly built from the case, with
 * the file's time, step and timestep; the run then continues bit-identically to one
 * that never stopped (engine/sim.h, "restart support").
 *
 * The case must be the one the file was written with: its YAML document must equal the
 * file's /case_text except for `name`, `time.end`, `time.output_interval` and
 * `time.timeseries_interval` (comments, layout and the spelling of numbers do not
 * matter: 0.5 and 5e-1 are equal). Particles read from a CSV file are checked one by
 * one: material, radius and mass must be the same.
 *
 * The file is treated as hostile: every number read from it is checked where it enters
 * (finite, in range, consistent with the rest of the file and with the case), and a
 * file that fails a check is refused with a message naming the file, the snapshot, the
 * dataset or attribute, the value and the limit (docs/output.md, "What a restart
 * checks"). Layouts 2 (one file) and 3 (NAME.h5 and NAME.d/) are read. */
#ifndef DEMPACT_RESTART_H
#define DEMPACT_RESTART_H

#include <stddef.h>
#include <stdint.h>
#include "engine/fail.h"
#include "engine/sim.h"
#include "snapshot.h"

typedef struct restart_point {
    int index;       /* the snapshot restarted from: /snapshots/NNNNNN */
    int count;       /* snapshots in the file */
    int64_t step;
    double time;
    double dt;       /* the file's timestep, now s->dt */
    double case_dt;  /* the timestep the case chose by itself */
    /* what the output carries over: snapshots 0..index and the samples up to step */
    snapshot_carry carry;
} restart_point;

/* Whether the run that wrote h5_path summed by id (its root attribute sums_by_id): a
 * restart from it must too, to go on bit for bit. 1 yes, 0 no (or a file from before
 * the attribute), -1 not a dempact output at all (restart_from_file says what). */
int restart_sums_by_id(const char *h5_path);

/* Whether h5_path holds the energy its run started with (root attribute
 * initial_energy): then a restart needs no start of the case (sim_start), which a
 * restart on ranks (restart_share) relies on. 1 yes, 0 no, -1 not a dempact output. */
int restart_has_initial_energy(const char *h5_path);

/* A restart on ranks, each of which keeps its share of the snapshot (program layer:
 * io/ranks/split_run.h makes the split, the caller agrees the ranks). Every rank checks the
 * whole file, chunk by chunk, as one process does, then hands `split` its block of the
 * particles (rows n r / N .. n (r + 1) / N - 1: ids and where the run's last rebuild
 * had them), keeps the rows `owns` says are its own and their contacts, and restores
 * them (sim_restore_share with `hooks`). */
typedef struct restart_share {
    int rank, ranks;
    /* 0 when no rank failed (failed 0 on every rank), else the failure value
     * (engine/fail.h) and message (msg, len bytes) of the lowest rank that did, on every
     * rank */
    int (*agree)(int failed, char *msg, size_t len, void *ctx);
    /* splits the particles over the ranks (collective): 0, or -1 with a message */
    int (*split)(sim *s, const int64_t *id, const double *x, size_t n, void *ctx, char *err, size_t err_len);
    /* whether a particle at x is this rank's (after split) */
    int (*owns)(const double x[3], void *ctx);
    const sim_ghost_hooks *hooks;
    void *ctx;
} restart_share;

/* Finds the snapshot at step from_step (the last one if from_step < 0), checks the file
 * and case_text against the file's, and restores the snapshot into s (made by
 * sim_create from that case; the energy books start from the file's initial_energy
 * where it has one). Reads only. Returns 0, or -1 (FAIL_NO_MEMORY when an allocation
 * failed) with a message (a step that
 * has no snapshot lists the steps that have one). Free rp with restart_point_free
 * either way. */
int restart_from_file(const char *h5_path, int64_t from_step, const char *case_text, sim *s,
                      restart_point *rp, char *err, size_t err_len);
/* restart_from_file on ranks, each keeping its share (restart_share; s placed by
 * sim_place alone, the file having restart_has_initial_energy). Collective. */
int restart_from_file_shared(const char *h5_path, int64_t from_step, const char *case_text,
                             const restart_share *share, sim *s, restart_point *rp, char *err,
                             size_t err_len);
void restart_point_free(restart_point *rp);

/* Compares two case texts as YAML documents, ignoring the keys a restart may change.
 * Returns 0 if they match, 1 with the first difference in why, -1 if one does not
 * parse. */
int restart_compare_cases(const char *stored, const char *given, char *why, size_t why_len);

#endif
