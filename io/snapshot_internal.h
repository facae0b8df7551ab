/* Shared between io/snapshot*.c; not a public interface. */
#ifndef DEMPACT_SNAPSHOT_INTERNAL_H
#define DEMPACT_SNAPSHOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "snapshot.h"
#include "../engine/sim.h"

/* What the .xmf needs to know of each snapshot. */
typedef struct snapshot_meta {
    double time;
    int64_t step;
    int64_t n_particles, n_contacts;
    int has_contacts; /* the snapshot has a contacts group */
} snapshot_meta;

/* Rewrites the .xmf (through tmp_path, fsync, rename) for snapshots 0..count-1 of the
 * HDF5 file h5_name (as the .xmf refers to it: the bare file name). */
int snapshot_xdmf_write(const char *xmf_path, const char *tmp_path, const char *h5_name,
                        const snapshot_meta *m, int count, int64_t vertex_len, char *err,
                        size_t err_len);

/* The touching pairs of a snapshot, as written to its contacts group. */
typedef struct contact_table {
    size_t m;
    int64_t *id;       /* 2 m: particle id, other particle id or wall index */
    uint8_t *wall;     /* m */
    int64_t *slot;     /* m: the pair's place among its first particle's list entries */
    double *point, *normal, *normal_force_vector, *tangential_force; /* 3 m */
    double *overlap, *normal_force;                                  /* m */
    double *endpoints; /* 6 m: the two ends of the segment ParaView draws */
    double *history[SIM_MAX_HISTORY_FIELDS]; /* per sim_pair_history field: count m */
} contact_table;

/* Fills t from the contact lists of st (empty when st has none). Returns 0 or -1
 * (memory). */
int contact_table_build(contact_table *t, const snapshot_state *st);
void contact_table_free(contact_table *t);

#endif
