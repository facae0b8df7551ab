/* Spatial hash: a uniform grid of cells at least `cutoff` wide over the bounding box of
 * all particles (local and ghost), filled by a counting sort. Rebuilt only when some
 * particle has moved more than half the skin since the last rebuild. */
#ifndef DEMPACT_NEIGHBOUR_H
#define DEMPACT_NEIGHBOUR_H

#include <stddef.h>
#include <stdint.h>
#include "particles.h"

typedef struct neighbour_grid {
    double origin[3], cell_size;
    long dims[3];
    size_t n_cells, cells_capacity, items_capacity;
    size_t *cell_start; /* n_cells + 1 */
    uint32_t *items;    /* particle indices, grouped by cell */
    uint32_t *cell_of;  /* cell of each particle */
} neighbour_grid;

void neighbour_grid_free(neighbour_grid *g);

/* Bins particles 0..p->n_total-1 into cells of at least `cutoff`. Returns 0 or -1
 * (allocation failure). */
int neighbour_grid_build(neighbour_grid *g, const particle_store *p, double cutoff);

/* Calls visit(i, q, ctx) for every q in the 27 cells around particle i's cell. */
#define NEIGHBOUR_CELLS_MAX 27
size_t neighbour_cells_around(const neighbour_grid *g, uint32_t i, size_t cells[NEIGHBOUR_CELLS_MAX]);

#endif
