#include "bed.h"
#include "engine/neighbours/reorder.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "engine/sim.h"

/* Lattice spacing of the initial fill, in diameters, and the settled solid fraction used
 * to size a tile (a random packing of frictionless spheres under gravity). */
#define FILL_SPACING 1.25
#define SETTLED_FRACTION 0.60
#define DEFAULT_DEPTH 16.0
/* Settling stops when the fastest sphere is slower than this times sqrt(g d). */
#define SETTLED_SPEED 1e-3
/* ... and the largest net force on a sphere below this many times its weight. */
#define SETTLED_FORCE 1e-2

int bed_alloc(bed *b, size_t n)
{
    memset(b, 0, sizeof *b);
    size_t m = n > 0 ? n : 1;
    b->x = calloc(3 * m, sizeof *b->x);
    b->v = calloc(3 * m, sizeof *b->v);
    b->radius = calloc(m, sizeof *b->radius);
    if (!b->x || !b->v || !b->radius) { bed_free(b); return -1; }
    b->n = n;
    return 0;
}

void bed_free(bed *b)
{
    free(b->x);
    free(b->v);
    free(b->radius);
    memset(b, 0, sizeof *b);
}

void bed_release_particles(void *bed_ptr)
{
    bed *b = bed_ptr;
    free(b->x);
    free(b->v);
    free(b->radius);
    b->x = b->v = b->radius = NULL;
}

void bed_wrap(bed *b)
{
    for (size_t i = 0; i < b->n; i++)
        for (int a = 0; a < 2; a++) {
            double len = b->hi[a] - b->lo[a], *x = &b->x[3 * i + a];
            if (*x >= b->hi[a] || *x < b->lo[a]) *x -= len * floor((*x - b->lo[a]) / len);
            if (*x >= b->hi[a]) *x = b->lo[a]; /* rounding right at the face */
        }
}

void bed_setup_fill(bed_setup *st, const bed *b, const material *mat, const law_binding *law,
                    double gravity, double dt, double skin)
{
    memset(st, 0, sizeof *st);
    st->mat = *mat;
    st->mat.density = b->density;
    st->law = *law;
    st->law.material_a = st->law.material_b = 0;
    st->source = (particle_source){.kind = SOURCE_LIST, .material = 0, .n_list = (long)b->n,
                                   .list_position = b->x, .list_velocity = b->v,
                                   .list_radius = b->radius};
    snprintf(st->floor.name, sizeof st->floor.name, "floor");
    st->floor.kind = WALL_PLANE;
    st->floor.material = 0;
    st->floor.point[2] = b->lo[2];
    st->floor.normal[2] = 1.0;
    sim_config *c = &st->cfg;
    snprintf(c->name, sizeof c->name, "bed");
    c->materials = &st->mat;
    c->n_materials = 1;
    c->bindings = &st->law;
    c->n_bindings = 1;
    c->walls = &st->floor;
    c->n_walls = 1;
    c->sources = &st->source;
    c->n_sources = 1;
    for (int a = 0; a < 3; a++) {
        c->domain_min[a] = b->lo[a];
        c->domain_max[a] = b->hi[a];
    }
    c->periodic[0] = c->periodic[1] = true;
    c->gravity[2] = -gravity;
    c->dt = dt;
    c->dt_check = true;
    c->skin = skin;
    /* a settled bed: the fastest impact is a fall across its own depth (not the box's:
     * a data file may put the lid anywhere) */
    double top = b->lo[2];
    for (size_t i = 0; i < b->n; i++) top = fmax(top, b->x[3 * i + 2] + b->radius[i]);
    c->impact_speed_estimate = fmax(0.1, sqrt(2.0 * gravity * (top - b->lo[2])));
}

/* ---- Morton order (engine/neighbours/reorder.h) ------------------------------------------------ */

int bed_sort(bed *b, double cell)
{
    size_t n = b->n;
    unsigned long long *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    double *tmp = malloc((3 * n + 1) * sizeof *tmp);
    int rc = -1;
    if (!keys || !order || !tmp) goto done;
    for (size_t i = 0; i < n; i++) keys[i] = reorder_key(&b->x[3 * i], b->lo, cell);
    if (reorder_sort(n, keys, order) != 0) goto done;
    double *fields[2] = {b->x, b->v};
    for (int f = 0; f < 2; f++) {
        for (size_t i = 0; i < n; i++)
            for (int a = 0; a < 3; a++) tmp[3 * i + a] = fields[f][3 * order[i] + a];
        memcpy(fields[f], tmp, 3 * n * sizeof *tmp);
    }
    for (size_t i = 0; i < n; i++) tmp[i] = b->radius[order[i]];
    memcpy(b->radius, tmp, n * sizeof *tmp);
    rc = 0;
done:
    free(keys);
    free(order);
    free(tmp);
    return rc;
}

/* ---- one settled tile ------------------------------------------------------------------ */

/* Fills a tile `width` wide with n spheres on a jittered lattice. */
static int tile_fill(bed *t, size_t n, double r, double width, uint64_t seed)
{
    if (bed_alloc(t, n) != 0) return -1;
    double d = 2.0 * r;
    long cols = (long)floor(width / (FILL_SPACING * d));
    if (cols < 1) cols = 1;
    double s = width / cols, sz = FILL_SPACING * d;
    double jx = 0.5 * (s - d), jz = 0.5 * (sz - d); /* jitter: at most half the gap */
    size_t per_layer = (size_t)(cols * cols);
    size_t layers = (n + per_layer - 1) / per_layer;
    rng g = {seed};
    size_t *sites = malloc(per_layer * sizeof *sites);
    if (!sites) return -1;
    size_t i = 0;
    for (size_t k = 0; k < layers; k++) {
        size_t in_layer = n - i < per_layer ? n - i : per_layer;
        for (size_t q = 0; q < per_layer; q++) sites[q] = q;
        if (in_layer < per_layer) /* a partial layer takes random sites (Fisher-Yates) */
            for (size_t q = per_layer - 1; q > 0; q--) {
                size_t w = (size_t)(rng_uniform(&g) * (double)(q + 1));
                size_t tmp = sites[q]; sites[q] = sites[w]; sites[w] = tmp;
            }
        for (size_t q = 0; q < in_layer; q++, i++) {
            long cx = (long)(sites[q] % (size_t)cols), cy = (long)(sites[q] / (size_t)cols);
            t->x[3 * i] = (cx + 0.5) * s + rng_range(&g, -jx, jx);
            t->x[3 * i + 1] = (cy + 0.5) * s + rng_range(&g, -jx, jx);
            t->x[3 * i + 2] = 0.5 * sz + k * sz + rng_range(&g, -jz, jz);
            t->radius[i] = r;
        }
    }
    free(sites);
    t->lo[0] = t->lo[1] = t->lo[2] = 0.0;
    t->hi[0] = t->hi[1] = width;
    t->hi[2] = layers * sz + d;
    bed_wrap(t);
    return 0;
}

static double max_speed(const sim *s)
{
    const particle_store *p = &s->p;
    double worst = 0.0;
    for (size_t i = 0; i < p->n_local; i++)
        worst = fmax(worst, p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i]);
    return sqrt(worst);
}

/* Global viscous drag: every velocity scaled by `factor`. */
static void drag(sim *s, double factor)
{
    particle_store *p = &s->p;
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        p->vx[i] *= factor; p->vy[i] *= factor; p->vz[i] *= factor;
        p->wx[i] *= factor; p->wy[i] *= factor; p->wz[i] *= factor;
    }
}

/* Largest net force on a sphere over its weight. */
static double max_force_ratio(const sim *s, double g)
{
    const particle_store *p = &s->p;
    double worst = 0.0;
    for (size_t i = 0; i < p->n_local; i++) {
        double f2 = p->fx[i] * p->fx[i] + p->fy[i] * p->fy[i] + p->fz[i] * p->fz[i];
        worst = fmax(worst, f2 / (p->mass[i] * p->mass[i] * g * g));
    }
    return sqrt(worst);
}

static double wall_seconds(void)
{
    return omp_get_wtime();
}

static int tile_settle(bed *t, const bed_spec *spec, long *steps, double *speed, char *err,
                       size_t err_len)
{
    bed_setup st;
    bed_setup_fill(&st, t, &spec->mat, &spec->law, spec->gravity, spec->dt, spec->skin);
    sim s;
    if (sim_create(&s, &st.cfg, err, err_len) != 0) { sim_free(&s); return -1; }
    double d = 2.0 * spec->radius, g = spec->gravity;
    double v_settled = SETTLED_SPEED * sqrt(g * d);
    /* The spheres fall freely (their contacts damp the impacts) for as long as the top
     * layer needs to reach the floor; then a drag at a rate of 2 sqrt(g / d) (a sphere
     * falls one diameter in sqrt(2 d / g)) takes the energy that the packing's slow
     * compaction keeps releasing. Tried and dropped: FIRE minimisation (twice as many
     * steps: the frictionless packing collapses locally again and again), weaker or
     * stronger drag (0.2 to 2 sqrt(g / d): no faster), a denser start, and compacting
     * under 16 g first (the release to 1 g then creeps for as long again). */
    double dt0 = s.dt;
    long fall_steps = (long)ceil(sqrt(2.0 * (t->hi[2] - t->lo[2]) / g) / dt0);
    double rate = 2.0 * sqrt(g / d), factor = exp(-rate * dt0);
    long check_every = 50, n = 0;
    double v = HUGE_VAL, force = HUGE_VAL;
    for (; n < BED_MAX_SETTLE_STEPS; n++) {
        sim_step(&s);
        if (n >= fall_steps) drag(&s, factor);
        if ((n + 1) % check_every == 0) {
            v = max_speed(&s);
            force = max_force_ratio(&s, g);
            if (spec->verbose && (n + 1) % (check_every * 200) == 0)
                fprintf(stderr, "bed: settling step %ld, fastest sphere %.3g m/s, largest net force "
                                "%.3g weights (settled below %.3g m/s and %.3g)\n",
                        n + 1, v, force, v_settled, SETTLED_FORCE);
            if (n + 1 >= fall_steps && v < v_settled && force < SETTLED_FORCE) { n++; break; }
        }
    }
    *steps = n;
    *speed = v;
    if (!(v < v_settled && force < SETTLED_FORCE)) {
        snprintf(err, err_len, "the bed did not settle within %d steps (fastest sphere %g m/s, "
                 "largest net force %g weights; settled below %g m/s and %g): the step may be "
                 "too large for the material", BED_MAX_SETTLE_STEPS, v, force, v_settled,
                 SETTLED_FORCE);
        sim_free(&s);
        return -1;
    }
    /* take the settled state back */
    const particle_store *p = &s.p;
    double top = 0.0;
    for (size_t i = 0; i < p->n_local; i++) {
        size_t k = (size_t)p->id[i];
        t->x[3 * k] = p->x[i]; t->x[3 * k + 1] = p->y[i]; t->x[3 * k + 2] = p->z[i];
        t->v[3 * k] = p->vx[i]; t->v[3 * k + 1] = p->vy[i]; t->v[3 * k + 2] = p->vz[i];
        top = fmax(top, p->z[i] + p->radius[i]);
    }
    t->hi[2] = top;
    bed_wrap(t);
    sim_free(&s);
    return 0;
}

/* ---- the bed ------------------------------------------------------------------------------ */

/* N as mx x my tiles of n_t spheres, mx <= my <= 2 mx, with the largest n_t in
 * [BED_TILE_MIN, BED_TILE_MAX] (or N itself up to BED_TILE_MAX). Returns 0, or -1 if
 * no such split exists. */
int bed_tiling(long n, long *mx, long *my, long *n_t)
{
    if (n < 1) return -1;
    if (n <= BED_TILE_MAX) { *mx = *my = 1; *n_t = n; return 0; }
    for (long t = BED_TILE_MAX; t >= BED_TILE_MIN; t--) {
        if (n % t) continue;
        long k = n / t;
        for (long a = (long)floor(sqrt((double)k)); a >= 1 && 2 * a * a >= k; a--)
            if (k % a == 0) { *mx = a; *my = k / a; *n_t = t; return 0; }
    }
    return -1;
}

int bed_build(const bed_spec *spec, bed *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    long mx, my, tile_n;
    if (bed_tiling(spec->n, &mx, &my, &tile_n) != 0) {
        long below = spec->n - 1, above = spec->n + 1, a, b, c;
        while (below > 0 && bed_tiling(below, &a, &b, &c) != 0) below--;
        while (bed_tiling(above, &a, &b, &c) != 0) above++;
        snprintf(err, err_len, "%ld spheres cannot be split into identical tiles of %d to %d "
                 "(a tile cannot lose a sphere once settled: a frictionless surface flows); the "
                 "nearest counts that can are %ld and %ld", spec->n, BED_TILE_MIN, BED_TILE_MAX,
                 below, above);
        return -1;
    }
    double r = spec->radius, d = 2.0 * r;
    double depth = spec->depth > 0 ? spec->depth : DEFAULT_DEPTH;
    size_t n_t = (size_t)tile_n;
    /* footprint of n_t spheres `depth` diameters deep, at least wide enough for the
     * periodic ghosts (twice the largest diameter plus skin) and two lattice columns */
    double skin = spec->skin > 0 ? spec->skin : 0.2 * r;
    double width = sqrt((double)n_t * M_PI / 6.0 * d * d * d / (SETTLED_FRACTION * depth * d));
    width = fmax(width, fmax(2.0 * (d + skin) * 1.05, 2.0 * FILL_SPACING * d));

    bed tile;
    double t0 = wall_seconds();
    if (tile_fill(&tile, n_t, r, width, spec->seed) != 0) {
        bed_free(&tile);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    tile.density = spec->mat.density;
    if (spec->verbose)
        fprintf(stderr, "bed: %ld spheres as %ld x %ld tiles of %zu, each %.4g m wide; settling one tile\n",
                spec->n, mx, my, n_t, width);
    long steps;
    double speed;
    if (tile_settle(&tile, spec, &steps, &speed, err, err_len) != 0) { bed_free(&tile); return -1; }

    if (bed_alloc(out, (size_t)spec->n) != 0) {
        bed_free(&tile);
        snprintf(err, err_len, "out of memory for %ld spheres", spec->n);
        return -1;
    }
    size_t k = 0;
    for (long ty = 0; ty < my; ty++)
        for (long tx = 0; tx < mx; tx++)
            for (size_t i = 0; i < n_t; i++, k++) {
                out->x[3 * k] = tile.x[3 * i] + tx * width;
                out->x[3 * k + 1] = tile.x[3 * i + 1] + ty * width;
                out->x[3 * k + 2] = tile.x[3 * i + 2];
                for (int a = 0; a < 3; a++) out->v[3 * k + a] = tile.v[3 * i + a];
                out->radius[k] = r;
            }
    out->density = spec->mat.density;
    out->lo[0] = out->lo[1] = out->lo[2] = 0.0;
    out->hi[0] = mx * width;
    out->hi[1] = my * width;
    /* room above the top for LAMMPS's and LIGGGHTS's non-periodic z box */
    out->hi[2] = tile.hi[2] + 4.0 * d;
    out->tiles[0] = (int)mx;
    out->tiles[1] = (int)my;
    out->tile_particles = n_t;
    out->settle_steps = steps;
    out->settle_speed = speed;
    bed_free(&tile);
    bed_wrap(out);
    /* the curve the engine sorts by (its cells are the neighbour cutoff wide, counted
     * from the box's corner: engine/neighbours/reorder.h), so that it finds the bed in order */
    if (bed_sort(out, d + skin) != 0) {
        bed_free(out);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    out->settle_seconds = wall_seconds() - t0;
    return 0;
}
