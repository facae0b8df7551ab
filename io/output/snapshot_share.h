/* A snapshot several processes write together: the ranks of an MPI run, each its own
 * block of the rows of one file, through parallel HDF5 (collective writes). The writer
 * knows no MPI: the caller (io/ranks/split_output.c) opens the way (a file access list with
 * HDF5's MPI-IO driver, a collective transfer list) and answers its two questions
 * (did every process succeed; what does the root say).
 *
 * Each process holds a block of the particles in id order: rows particles_before ..
 * particles_before + n - 1 of the file, the blocks in process order. Its contacts are
 * those whose first particle is in its block, so its pairs of particles are one run of
 * the file's contact rows and its particle-wall contacts another (the file lists every
 * pair of particles first). What is not rows (attributes, the engine group, the walls)
 * every process creates alike and the root writes. */
#ifndef DEMPACT_SNAPSHOT_SHARE_H
#define DEMPACT_SNAPSHOT_SHARE_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

typedef struct snapshot_share {
    hid_t fapl; /* file access: HDF5's MPI-IO driver on the processes' communicator */
    hid_t dxpl; /* dataset transfer: collective */
    int root;   /* nonzero on the one process that writes what is not rows */
    /* the box walls are drawn in (the output's, snapshot_run_info's domain) */
    double domain_min[3], domain_max[3];
    int self, n_processes;
    int64_t particles_before, particles_total;
    /* [0] pairs of particles, [1] particle-wall contacts */
    int64_t contacts_before[2], contacts_total[2];
    /* collective: 1 when ok is nonzero on every process, else 0 */
    int (*all_ok)(int ok, void *ctx);
    /* collective: the root's text (len bytes with its terminating 0) in every text */
    void (*from_root)(char *text, size_t len, void *ctx);
    void *ctx;
} snapshot_share;

#endif
