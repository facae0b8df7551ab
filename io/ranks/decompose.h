/* How a case's particles are split over the ranks of an MPI run: Zoltan partitions them
 * (RCB, RIB or HSFC: the case's parallel.method) weighted by their work, one part per
 * rank, and each rank's share is summed over all of them. Program layer, MPI builds only
 * (DEMPACT_MPI); every rank calls each function (collective). */
#ifndef DEMPACT_DECOMPOSE_H
#define DEMPACT_DECOMPOSE_H

#include <stddef.h>
#include <stdio.h>
#include "engine/sim.h"

typedef struct rank_share {
    size_t particles;
    double weight;          /* the work of its particles: 1 + contacts each */
    double lo[3], hi[3];    /* bounding box of its particles' centres (none: lo > hi) */
    double cut_lo[3], cut_hi[3]; /* RCB: the box Zoltan cut for it, within the domain */
} rank_share;

typedef struct decomposition {
    int n_ranks;
    partition_method method;
    rank_share *share;      /* n_ranks */
    double imbalance;       /* largest weight over the mean */
    /* Zoltan's partition, its cuts kept: which part a point or a box is in (halo.h) */
    struct Zoltan_Struct *zoltan;
} decomposition;

/* Splits the particles of s, which every rank has built alike, over the ranks (none at
 * all, as in a case that only inlets fill: its domain, into boxes of equal volume).
 * Returns 0, or -1 with a message in err (Zoltan failed, out of memory). */
int decompose(const sim *s, decomposition *d, char *err, size_t err_len);
/* decompose for a run already split: each rank hands Zoltan its own particles, with
 * their present work (a rebalance: halo_rebalance). */
int decompose_again(const sim *s, decomposition *d, char *err, size_t err_len);
/* How far the ranks' own work (rank_share.weight's rule: 1 + contacts per particle) is
 * out of balance now: the largest rank's over the mean, 1 when there is none. */
double decompose_work_imbalance(const sim *s);
/* Whether the split can run: no more ranks than neighbour cells, and (RCB) no rank's box
 * thinner than the cutoff along an axis it was cut on, which would take ghosts from
 * beyond its neighbours. Returns 0, or -1 with a message naming parallel in err. */
int decompose_check(const sim *s, const decomposition *d, char *err, size_t err_len);
void decompose_print(FILE *out, const decomposition *d);
/* Frees the shares and the partition (collective). */
void decompose_free(decomposition *d);

#endif
