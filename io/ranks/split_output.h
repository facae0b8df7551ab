/* The output of a run split over MPI ranks: every rank writes its block of each snapshot
 * into the one file through parallel HDF5, particles in id order, contacts in the order
 * of their first particle's id: the file one process writes, dataset for dataset, to the
 * bit. Program layer, MPI builds only; collective. */
#ifndef DEMPACT_SPLIT_OUTPUT_H
#define DEMPACT_SPLIT_OUTPUT_H

#include <stddef.h>

#include "engine/sim.h"
#include "io/output/snapshot.h"

/* Writes s's snapshot to out (rank 0's; the other ranks pass NULL). Every rank returns
 * the same: 0, or -1 with a message in err (out of memory on some rank, a failed write,
 * or rank 0's listing of the file failed: its message). */
int split_output_write(snapshot_file *out, const sim *s, char *err, size_t err_len);

#endif
