/* What io/ranks/halo.c, io/ranks/halo_ghosts.c and io/ranks/halo_hooks.c share (halo.h is the interface). */
#ifndef DEMPACT_HALO_INTERNAL_H
#define DEMPACT_HALO_INTERNAL_H

#include <stddef.h>
#include "halo.h"

/* Room for `need` elements of `size` bytes in *buf (capacity in *capacity, grown by half
 * again). Returns 0 or -1. */
int halo_grow(void **buf, size_t *capacity, size_t need, size_t size);

/* Sends count[r] records of `width` doubles from h->send_buf, grouped by rank, to each
 * rank r, and receives each rank's into h->recv_buf, grouped by rank (their counts in
 * h->recv_count, their first records in h->recv_first; the total is returned in
 * *received). Adds the bytes sent to other ranks to *bytes. Returns 0 or -1. */
int halo_exchange_records(halo *h, const int *count, int width, size_t *received, size_t *bytes);

#endif
