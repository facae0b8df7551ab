/* Spatial hash: a uniform grid of cells at least `cutoff` wide over the bounding box of
 * all particles (local and ghost), filled by a counting sort. Rebuilt only when some
 * particle has moved more than half the skin since the last rebuild. */
#ifndef DEMPACT_NEIGHBOUR_H
#define DEMPACT_NEIGHBOUR_H

#include <stddef.h>
#include <stdint.h>
#include "engine/population/particles.h"

/* An item's position and radius, copied in cell order (neighbour_grid_pack). */
typedef struct neighbour_item {
    double x, y, z, r;
} neighbour_item;

typedef struct neighbour_grid {
    double origin[3], cell_size;
    long dims[3];
    size_t n_cells, cells_capacity, items_capacity;
    size_t *cell_start; /* n_cells + 1 */
    uint32_t *items;    /* particle indices, grouped by cell */
    uint32_t *cell_of;  /* cell of each particle */
    /* while a search runs (neighbour_grid_pack .. _unpack), per item k: */
    neighbour_item *packed; /* items[k]'s position and radius */
    uint32_t *owner;        /* the local particle items[k] stands for (particles_owner) */
} neighbour_grid;

void neighbour_grid_free(neighbour_grid *g);

/* Copies the items' positions, radii and owners into cell order, so that a search
 * reads the cells around a particle as contiguous memory: gathering them from the
 * particle arrays (x, y, z, radius and ghost owners, five cache misses per item) was
 * most of the search's time. The copies cost 36 bytes per particle, so they live only
 * while the list is built. Returns 0 or -1 (allocation failure). */
int neighbour_grid_pack(neighbour_grid *g, const particle_store *p);
void neighbour_grid_unpack(neighbour_grid *g);

/* Bins particles 0..p->n_total-1 into cells of at least `cutoff` (larger when the grid
 * would have more than 2^24 cells). Returns 0, -1 (allocation failure) or
 * NEIGHBOUR_BAD_SPREAD: the particles' bounding box is wider than a double can hold
 * (or the cutoff is not a positive number), so no grid can be sized for it. */
#define NEIGHBOUR_BAD_SPREAD (-2)
int neighbour_grid_build(neighbour_grid *g, const particle_store *p, double cutoff);

/* The items in the 27 cells around particle i's cell, as up to 9 ranges of `items`
 * (one per row of cells along x: the cells x-1, x, x+1 of a row are consecutive, so
 * their items are too). The order is the cells' order, z then y then x. Returns how
 * many ranges: items begin[r] .. end[r] - 1. */
#define NEIGHBOUR_ROWS_MAX 9
size_t neighbour_rows_around(const neighbour_grid *g, uint32_t i, size_t begin[NEIGHBOUR_ROWS_MAX],
                             size_t end[NEIGHBOUR_ROWS_MAX]);

#endif
