/* Particles in space-filling-curve order. A particle's neighbours should lie near it in
 * memory: the force loop reads both particles of every pair, and a pair whose second
 * particle is far away in the arrays is a cache miss. Inlets insert particles in the
 * order they come, and flows mix them; in random order a 50,000-sphere bed runs at half
 * the speed of the same bed in curve order (dempact bench). So at a neighbour rebuild,
 * when the particles have drifted far enough out of the Morton (Z-curve) order of their
 * cells, they are sorted back into it (engine/neighbours/list_build.c, list_rebuild). The decision and the
 * order depend only on the positions and the present order, never on threads. */
#ifndef DEMPACT_REORDER_H
#define DEMPACT_REORDER_H

#include <stddef.h>
#include "engine/population/particles.h"

/* Fewer particles than this are never reordered (sim.reorder_min; cfg.tuning.reorder_min
 * overrides it, so that tests can sort small cases, or never sort): they fit in cache, and small cases (a collision, a test) keep particle
 * k of the case at index k. */
#define REORDER_MIN 1024
/* Sort again when more than one particle in REORDER_SLACK is out of order (has a
 * smaller key than the particle before it). */
#define REORDER_SLACK 16

/* The Morton key of the cell (of side `cell`, counted from `origin`) holding x. */
unsigned long long reorder_key(const double x[3], const double origin[3], double cell);

/* order[0..n-1]: the indices 0..n-1 sorted by keys[], ties in index order (stable).
 * Returns 0 or -1 (out of memory). */
int reorder_sort(size_t n, const unsigned long long *keys, size_t *order);

/* Whether the local particles of p (at least `min` of them) are due for sorting, and
 * the order if so (`parallel`: on the OpenMP threads; the answer is the same): returns 1
 * and sets *from (malloc'd, n_local entries: new particle i is old particle from[i];
 * particles in one cell keep their present order), 0 (the order stays; *from NULL), or
 * -1 (out of memory). */
int reorder_plan(const particle_store *p, size_t min, const double origin[3], double cell,
                 int parallel, size_t **from);

#endif
