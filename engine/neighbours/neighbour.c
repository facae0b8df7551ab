#include "neighbour.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Keeps the grid at most this many cells; a wider spread of particles gets bigger cells. */
#define MAX_CELLS (1L << 24)

void neighbour_grid_free(neighbour_grid *g)
{
    free(g->cell_start);
    free(g->items);
    free(g->cell_of);
    neighbour_grid_unpack(g);
    memset(g, 0, sizeof *g);
}

int neighbour_grid_pack(neighbour_grid *g, const particle_store *p)
{
    size_t n = g->cell_start[g->n_cells];
    neighbour_grid_unpack(g);
    g->packed = malloc((n ? n : 1) * sizeof *g->packed);
    g->owner = malloc((n ? n : 1) * sizeof *g->owner);
    if (!g->packed || !g->owner) {
        neighbour_grid_unpack(g);
        return -1;
    }
    #pragma omp parallel for schedule(static) if (n > 50000)
    for (size_t k = 0; k < n; k++) {
        uint32_t q = g->items[k];
        g->packed[k] = (neighbour_item){p->x[q], p->y[q], p->z[q], p->radius[q]};
        g->owner[k] = (uint32_t)particles_owner(p, q);
    }
    return 0;
}

void neighbour_grid_unpack(neighbour_grid *g)
{
    free(g->packed);
    free(g->owner);
    g->packed = NULL;
    g->owner = NULL;
}

static long cell_coord(double x, double origin, double size, long dim)
{
    double c = floor((x - origin) / size);
    if (!(c >= 0.0)) return 0; /* also catches NaN (and is where a NaN position goes) */
    return c >= (double)dim ? dim - 1 : (long)c;
}

int neighbour_grid_build(neighbour_grid *g, const particle_store *p, double cutoff)
{
    size_t n = p->n_total;
    const double *pos[3] = {p->x, p->y, p->z};
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        lo[a] = HUGE_VAL; hi[a] = -HUGE_VAL;
        for (size_t i = 0; i < n; i++) {
            double v = pos[a][i];
            if (isfinite(v)) { lo[a] = fmin(lo[a], v); hi[a] = fmax(hi[a], v); }
        }
        if (!(lo[a] <= hi[a])) lo[a] = hi[a] = 0.0;
    }
    /* The cell counts are taken in doubles, so that no spread of particles can overflow
     * them: a spread whose width is not even a finite number is refused (the engine's
     * runaway guard stops such a run before it gets here); any finite spread ends with
     * cells large enough for MAX_CELLS. */
    if (!(cutoff > 0.0) || !isfinite(cutoff)) return NEIGHBOUR_BAD_SPREAD;
    for (int a = 0; a < 3; a++)
        if (!isfinite(hi[a] - lo[a])) return NEIGHBOUR_BAD_SPREAD;
    double size = cutoff;
    for (;;) {
        double total = 1.0;
        for (int a = 0; a < 3; a++) total *= floor((hi[a] - lo[a]) / size) + 1.0;
        if (total <= (double)MAX_CELLS) break;
        size *= 1.5;
    }
    for (int a = 0; a < 3; a++) g->dims[a] = (long)floor((hi[a] - lo[a]) / size) + 1;
    g->cell_size = size;
    for (int a = 0; a < 3; a++) g->origin[a] = lo[a];
    g->n_cells = (size_t)(g->dims[0] * g->dims[1] * g->dims[2]); /* <= MAX_CELLS */
    /* the items are indexed by uint32_t (sim_create keeps n below UINT32_MAX / 2) */
    if (n > UINT32_MAX) return NEIGHBOUR_BAD_SPREAD;

    if (g->n_cells + 1 > g->cells_capacity) {
        free(g->cell_start);
        g->cells_capacity = g->n_cells + 1;
        g->cell_start = malloc(g->cells_capacity * sizeof *g->cell_start);
        if (!g->cell_start) return -1;
    }
    if (n > g->items_capacity || !g->items) {
        free(g->items); free(g->cell_of);
        g->items_capacity = n > 0 ? n : 1;
        g->items = malloc(g->items_capacity * sizeof *g->items);
        g->cell_of = malloc(g->items_capacity * sizeof *g->cell_of);
        if (!g->items || !g->cell_of) return -1;
    }
    memset(g->cell_start, 0, (g->n_cells + 1) * sizeof *g->cell_start);
    for (size_t i = 0; i < n; i++) {
        long c[3];
        for (int a = 0; a < 3; a++) c[a] = cell_coord(pos[a][i], g->origin[a], size, g->dims[a]);
        uint32_t cell = (uint32_t)((c[2] * g->dims[1] + c[1]) * g->dims[0] + c[0]);
        g->cell_of[i] = cell;
        g->cell_start[cell + 1]++;
    }
    for (size_t c = 0; c < g->n_cells; c++) g->cell_start[c + 1] += g->cell_start[c];
    /* stable counting sort: within a cell, particles keep index order */
    size_t *fill = malloc((g->n_cells + 1) * sizeof *fill);
    if (!fill) return -1;
    memcpy(fill, g->cell_start, (g->n_cells + 1) * sizeof *fill);
    for (size_t i = 0; i < n; i++) g->items[fill[g->cell_of[i]]++] = (uint32_t)i;
    free(fill);
    return 0;
}

size_t neighbour_rows_around(const neighbour_grid *g, uint32_t i, size_t begin[NEIGHBOUR_ROWS_MAX],
                             size_t end[NEIGHBOUR_ROWS_MAX])
{
    long cell = g->cell_of[i];
    long cx = cell % g->dims[0], cy = (cell / g->dims[0]) % g->dims[1],
         cz = cell / (g->dims[0] * g->dims[1]);
    long x0 = cx > 0 ? cx - 1 : 0, x1 = cx + 1 < g->dims[0] ? cx + 1 : cx;
    size_t k = 0;
    for (long z = cz - 1; z <= cz + 1; z++) {
        if (z < 0 || z >= g->dims[2]) continue;
        for (long y = cy - 1; y <= cy + 1; y++) {
            if (y < 0 || y >= g->dims[1]) continue;
            long row = (z * g->dims[1] + y) * g->dims[0];
            begin[k] = g->cell_start[row + x0];
            end[k] = g->cell_start[row + x1 + 1];
            k++;
        }
    }
    return k;
}
