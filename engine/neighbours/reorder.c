#include "reorder.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The low 21 bits of v, spread to every third bit. */
static uint64_t spread_bits(uint64_t v)
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

unsigned long long reorder_key(const double x[3], const double origin[3], double cell)
{
    uint64_t key = 0;
    for (int a = 0; a < 3; a++) {
        double q = floor((x[a] - origin[a]) / cell);
        /* outside the box or not a number: the nearest end of the curve */
        uint64_t c = q >= 0.0 ? (q < 2097151.0 ? (uint64_t)q : 2097151u) : 0u;
        key |= spread_bits(c) << a;
    }
    return key;
}

typedef struct keyed { uint64_t key; size_t index; } keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index); /* ties: the present order */
}

int reorder_sort(size_t n, const unsigned long long *keys, size_t *order)
{
    keyed *k = malloc((n ? n : 1) * sizeof *k);
    if (!k) return -1;
    for (size_t i = 0; i < n; i++) k[i] = (keyed){keys[i], i};
    qsort(k, n, sizeof *k, by_key);
    for (size_t i = 0; i < n; i++) order[i] = k[i].index;
    free(k);
    return 0;
}

/* Particles per segment of reorder_plan's passes, which run in parallel. */
#define PLAN_SEGMENT 1024

static unsigned long long key_of(const particle_store *p, size_t i, const double origin[3],
                                 double cell)
{
    double x[3] = {p->x[i], p->y[i], p->z[i]};
    return reorder_key(x, origin, cell);
}

int reorder_plan(const particle_store *p, size_t min, const double origin[3], double cell,
                 int parallel, size_t **from)
{
    *from = NULL;
    size_t n = p->n_local;
    if (n < min || n < 2) return 0;
    /* count the particles out of order first: most rebuilds stop here, with no buffer
     * (a count: the same for any split into segments) */
    size_t descents = 0, n_seg = (n + PLAN_SEGMENT - 1) / PLAN_SEGMENT;
    #pragma omp parallel for schedule(static) reduction(+ : descents) if (parallel && n_seg > 1)
    for (size_t g = 0; g < n_seg; g++) {
        size_t lo = g * PLAN_SEGMENT, hi = lo + PLAN_SEGMENT < n ? lo + PLAN_SEGMENT : n;
        unsigned long long previous = lo > 0 ? key_of(p, lo - 1, origin, cell) : 0;
        for (size_t i = lo; i < hi; i++) {
            unsigned long long key = key_of(p, i, origin, cell);
            descents += i > 0 && key < previous;
            previous = key;
        }
    }
    if (descents * REORDER_SLACK <= n) return 0;
    unsigned long long *keys = malloc(n * sizeof *keys);
    size_t *order = malloc(n * sizeof *order);
    int rc = keys && order ? 1 : -1;
    if (rc > 0) {
        #pragma omp parallel for schedule(static) if (parallel)
        for (size_t i = 0; i < n; i++) keys[i] = key_of(p, i, origin, cell);
    }
    if (rc > 0 && reorder_sort(n, keys, order) != 0) rc = -1;
    free(keys);
    if (rc < 0) {
        free(order);
        order = NULL;
    }
    *from = order;
    return rc;
}
