#include "fill.h"
#include "engine/fail.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rng.h"

static double draw_radius(rng *r, const particle_source *src)
{
    return src->radius_min == src->radius_max ? src->radius_min
                                              : rng_range(r, src->radius_min, src->radius_max);
}

/* The store's particles must stay indexable by the neighbour grid's uint32_t (list_build.c)
 * and fit in memory: FILL_BYTES_PER_PARTICLE is a floor of what one costs (its fields in
 * the particle store and the neighbour list; a run needs more), compared with the
 * machine's physical memory before anything is allocated, so that a case asking for
 * 1e12 spheres is refused with a message instead of being killed by the kernel. */
#define FILL_MAX_PARTICLES 2147483647.0
#define FILL_BYTES_PER_PARTICLE 200.0

static int check_count(const particle_store *p, double count, int index, const char *what,
                       char *err, size_t err_len)
{
    double total = (double)p->n_local + count;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double memory = pages > 0 && page > 0 ? (double)pages * (double)page : HUGE_VAL;
    if (total <= FILL_MAX_PARTICLES && total * FILL_BYTES_PER_PARTICLE <= memory) return 0;
    if (total > FILL_MAX_PARTICLES)
        snprintf(err, err_len, "particles[%d]: %s %.4g particles, more than the engine's limit of "
                 "%.0f", index, what, count, FILL_MAX_PARTICLES);
    else
        snprintf(err, err_len, "particles[%d]: %s %.4g particles, which need at least %.3g GB, "
                 "more than this machine's %.3g GB of memory", index, what, count,
                 total * FILL_BYTES_PER_PARTICLE / 1e9, memory / 1e9);
    return -1;
}

static bool stopped(const volatile sig_atomic_t *stop, int index, char *err, size_t err_len)
{
    if (!stop || !*stop) return false;
    snprintf(err, err_len, "particles[%d]: stopped by a signal while placing the particles", index);
    return true;
}

static int fill_lattice(particle_store *p, const particle_source *src, const material *mat,
                        int index, const volatile sig_atomic_t *stop, char *err, size_t err_len)
{
    rng r = {src->seed};
    double spacing = 2.0 * src->radius_max * (1.0 + src->gap);
    long n[3];
    double sites = 1.0;
    for (int a = 0; a < 3; a++) {
        double room = src->region_max[a] - src->region_min[a] - 2.0 * src->radius_max;
        /* in doubles first: a region 1e9 radii wide has more sites than a long counts */
        double rows = room < 0.0 ? 0.0 : floor(room / spacing + 1e-9) + 1.0;
        sites *= rows;
        n[a] = rows < 2147483647.0 ? (long)rows : 2147483647L;
    }
    double wanted = src->count > 0 ? fmin((double)src->count, sites) : sites;
    if (check_count(p, wanted, index, src->count > 0 ? "the lattice places" :
                    "the lattice fills its region with", err, err_len) != 0)
        return -1;
    long placed = 0, limit = (long)wanted;
    for (long k = 0; k < n[2] && placed < limit; k++)
        for (long j = 0; j < n[1] && placed < limit; j++) {
            if (stopped(stop, index, err, err_len)) return -1;
            for (long i = 0; i < n[0] && placed < limit; i++) {
                double pos[3] = {src->region_min[0] + src->radius_max + i * spacing,
                                 src->region_min[1] + src->radius_max + j * spacing,
                                 src->region_min[2] + src->radius_max + k * spacing};
                if (particles_add(p, src->material, draw_radius(&r, src), mat->density, pos,
                                  src->velocity) < 0) {
                    snprintf(err, err_len, "particles[%d]: out of memory", index);
                    return FAIL_NO_MEMORY;
                }
                placed++;
            }
        }
    if (placed == 0) {
        snprintf(err, err_len, "particles[%d]: the region is too small for one sphere of radius %g",
                 index, src->radius_max);
        return -1;
    }
    return 0;
}

/* A throw-away hash of the spheres already in or near the region, so that each random
 * trial checks only its neighbourhood. */
typedef struct fill_grid {
    double origin[3], cell;
    long dims[3];
    long *head, *next; /* linked lists per cell, over particle indices */
    size_t next_capacity;
} fill_grid;

static long fill_cell(const fill_grid *g, const double x[3])
{
    long c[3];
    for (int a = 0; a < 3; a++) {
        long v = (long)floor((x[a] - g->origin[a]) / g->cell);
        if (v < 0 || v >= g->dims[a]) return -1;
        c[a] = v;
    }
    return (c[2] * g->dims[1] + c[1]) * g->dims[0] + c[0];
}

static void fill_insert(fill_grid *g, const particle_store *p, size_t i)
{
    double x[3] = {p->x[i], p->y[i], p->z[i]};
    long c = fill_cell(g, x);
    if (c < 0) return;
    g->next[i] = g->head[c];
    g->head[c] = (long)i;
}

static int overlaps_any(const fill_grid *g, const particle_store *p, const double x[3], double r)
{
    long c0[3];
    for (int a = 0; a < 3; a++) c0[a] = (long)floor((x[a] - g->origin[a]) / g->cell);
    for (long dz = -1; dz <= 1; dz++)
        for (long dy = -1; dy <= 1; dy++)
            for (long dx = -1; dx <= 1; dx++) {
                long c[3] = {c0[0] + dx, c0[1] + dy, c0[2] + dz};
                if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= g->dims[0] ||
                    c[1] >= g->dims[1] || c[2] >= g->dims[2])
                    continue;
                for (long q = g->head[(c[2] * g->dims[1] + c[1]) * g->dims[0] + c[0]]; q >= 0;
                     q = g->next[q]) {
                    double ex = p->x[q] - x[0], ey = p->y[q] - x[1], ez = p->z[q] - x[2];
                    double s = p->radius[q] + r;
                    if (ex * ex + ey * ey + ez * ez < s * s) return 1;
                }
            }
    return 0;
}

static int fill_random(particle_store *p, const particle_source *src, const material *mat,
                       int index, const volatile sig_atomic_t *stop, char *err, size_t err_len)
{
    rng r = {src->seed};
    double r_largest = src->radius_max;
    for (size_t i = 0; i < p->n_local; i++) r_largest = fmax(r_largest, p->radius[i]);
    if (check_count(p, (double)src->count, index, "the random fill asks for", err, err_len) != 0)
        return -1;
    fill_grid g = {.cell = 2.0 * r_largest};
    double cells = 1.0; /* in doubles: a wide region must not overflow the count */
    for (int a = 0; a < 3; a++) {
        g.origin[a] = src->region_min[a] - g.cell;
        double d = ceil((src->region_max[a] - src->region_min[a]) / g.cell) + 3.0;
        cells *= d;
        g.dims[a] = d < 1e9 ? (long)d : 1000000000L;
    }
    if (!(cells <= (double)(1L << 26))) {
        snprintf(err, err_len, "particles[%d]: the region is too large for a random fill of "
                 "spheres of radius %g m (%.3g cells of the fill's grid, at most %ld): use a "
                 "lattice source or a smaller region", index, src->radius_max, cells, 1L << 26);
        return -1;
    }
    long total = g.dims[0] * g.dims[1] * g.dims[2];
    size_t final_n = p->n_local + (size_t)src->count;
    g.head = malloc((size_t)total * sizeof *g.head);
    g.next = malloc(final_n * sizeof *g.next);
    int rc = -1;
    if (!g.head || !g.next || particles_reserve(p, final_n) != 0) {
        snprintf(err, err_len, "particles[%d]: out of memory", index);
        rc = FAIL_NO_MEMORY;
        goto done;
    }
    for (long c = 0; c < total; c++) g.head[c] = -1;
    for (size_t i = 0; i < p->n_local; i++) fill_insert(&g, p, i);

    /* A random sequential addition jams near 38 % packing; give up well before wasting
     * minutes and say how far it got. */
    const long max_trials_per_particle = 10000;
    for (long placed = 0; placed < src->count; placed++) {
        if ((placed & 1023) == 0 && stopped(stop, index, err, err_len)) goto done;
        double rad = draw_radius(&r, src), x[3];
        long trial = 0;
        for (;; trial++) {
            if (trial == max_trials_per_particle) {
                snprintf(err, err_len,
                         "particles[%d]: could place only %ld of %ld non-overlapping spheres in "
                         "the region; enlarge the region or lower the count",
                         index, placed, src->count);
                goto done;
            }
            for (int a = 0; a < 3; a++)
                x[a] = rng_range(&r, src->region_min[a] + rad, src->region_max[a] - rad);
            if (!overlaps_any(&g, p, x, rad)) break;
        }
        long i = particles_add(p, src->material, rad, mat->density, x, src->velocity);
        fill_insert(&g, p, (size_t)i);
    }
    rc = 0;
done:
    free(g.head);
    free(g.next);
    return rc;
}

static int fill_list(particle_store *p, const particle_source *src, const material *mat,
                     int index, char *err, size_t err_len)
{
    if (particles_reserve(p, p->n_local + (size_t)src->n_list) != 0) {
        snprintf(err, err_len, "particles[%d]: out of memory", index);
        return FAIL_NO_MEMORY;
    }
    for (long k = 0; k < src->n_list; k++) {
        const double *v = src->list_velocity ? src->list_velocity + 3 * k : src->velocity;
        long i = particles_add(p, src->material, src->list_radius[k], mat->density,
                               src->list_position + 3 * k, v);
        if (i < 0) {
            snprintf(err, err_len, "particles[%d]: out of memory", index);
            return FAIL_NO_MEMORY;
        }
        if (src->list_angular_velocity) { /* initial spin, rad/s */
            const double *w = src->list_angular_velocity + 3 * k;
            p->wx[i] = w[0]; p->wy[i] = w[1]; p->wz[i] = w[2];
        }
    }
    return 0;
}

/* Fixes particles [from, n_local) in place (particle_source.fixed): at rest, and 1/mass
 * and 1/inertia 0, which keep them so through every kick (particles_fixed). */
static void fix_particles(particle_store *p, size_t from)
{
    for (size_t i = from; i < p->n_local; i++) {
        p->inv_mass[i] = 0.0;
        p->inv_inertia[i] = 0.0;
        p->vx[i] = p->vy[i] = p->vz[i] = 0.0;
        p->vhx[i] = p->vhy[i] = p->vhz[i] = 0.0;
        p->wx[i] = p->wy[i] = p->wz[i] = 0.0;
    }
    if (p->n_local > from) p->has_fixed = 1;
}

int fill_source(particle_store *p, const particle_source *src, const material *mat,
                int index, const volatile sig_atomic_t *stop, char *err, size_t err_len)
{
    size_t from = p->n_local;
    int rc = -1;
    switch (src->kind) {
    case SOURCE_LATTICE: rc = fill_lattice(p, src, mat, index, stop, err, err_len); break;
    case SOURCE_RANDOM: rc = fill_random(p, src, mat, index, stop, err, err_len); break;
    case SOURCE_LIST: rc = fill_list(p, src, mat, index, err, err_len); break;
    default:
        snprintf(err, err_len, "particles[%d]: unknown source kind", index);
        return -1;
    }
    if (rc == 0 && src->fixed) fix_particles(p, from);
    return rc;
}
