/* Periodic wrapping and ghost images (ghosts.h). */
#include "ghosts.h"

#include "lees_edwards.h"

/* compare-and-shift: particles move less than a box length between rebuilds */
static inline double wrapped(double x, double lo, double hi)
{
    return x >= hi ? x - (hi - lo) : x < lo ? x + (hi - lo) : x;
}

void ghosts_wrap(sim *s)
{
    lees_edwards_wrap(s); /* across z with its shift along x first, then x and y as ever */
    double *pos[3] = {s->p.x, s->p.y, s->p.z};
    for (int a = 0; a < 3; a++) {
        if (!s->cfg.periodic[a]) continue;
        double lo = s->cfg.domain_min[a], hi = s->cfg.domain_max[a];
        for (size_t i = 0; i < s->p.n_local; i++) pos[a][i] = wrapped(pos[a][i], lo, hi);
    }
}

void ghosts_wrap_point(const sim *s, double x[3])
{
    for (int a = 0; a < 3; a++)
        if (s->cfg.periodic[a]) x[a] = wrapped(x[a], s->cfg.domain_min[a], s->cfg.domain_max[a]);
}

int ghosts_add(particle_store *p, size_t owner, const double shift[3])
{
    if (p->n_total == p->capacity && particles_reserve(p, 2 * p->capacity + 16) != 0) return -1;
    if (particles_reserve_ghosts(p, p->n_total - p->n_local + 1) != 0) return -1;
    size_t g = p->n_total++, k = g - p->n_local;
    p->id[g] = p->id[owner];
    p->type[g] = p->type[owner];
    p->radius[g] = p->radius[owner];
    p->mass[g] = p->mass[owner];
    p->inv_mass[g] = p->inv_mass[owner];
    p->inv_inertia[g] = p->inv_inertia[owner];
    p->ghost_owner[k] = owner;
    for (int a = 0; a < 3; a++) p->ghost_shift[3 * k + a] = shift[a];
    return 0;
}

/* ghosts_images under Lees-Edwards: an image across a z face is shifted along x by
 * -+ the offset too, and brought back into the box along x; whether it needs images
 * across x is then asked where it lands. */
static size_t sheared_images(const sim *s, const double pos[3], double shift[GHOSTS_MAX_IMAGES][3])
{
    const double *lo = s->cfg.domain_min, *hi = s->cfg.domain_max;
    double length[3];
    for (int a = 0; a < 3; a++) length[a] = hi[a] - lo[a];
    int z_choices[3] = {0}, n_z = 1;
    if (pos[2] < lo[2] + s->cutoff) z_choices[n_z++] = 1;
    if (pos[2] > hi[2] - s->cutoff) z_choices[n_z++] = -1;
    size_t n = 0;
    for (int az = 0; az < n_z; az++) {
        int cz = z_choices[az];
        double x = pos[0] + cz * s->le.offset_at_rebuild, wrap = 0.0;
        if (cz) { /* back into [lo, hi) along x: at most two box lengths away */
            while (x + wrap >= hi[0]) wrap -= length[0];
            while (x + wrap < lo[0]) wrap += length[0];
        }
        int x_choices[3] = {0}, n_x = 1, y_choices[3] = {0}, n_y = 1;
        if (x + wrap < lo[0] + s->cutoff) x_choices[n_x++] = 1;
        if (x + wrap > hi[0] - s->cutoff) x_choices[n_x++] = -1;
        if (s->cfg.periodic[1]) {
            if (pos[1] < lo[1] + s->cutoff) y_choices[n_y++] = 1;
            if (pos[1] > hi[1] - s->cutoff) y_choices[n_y++] = -1;
        }
        for (int ax = 0; ax < n_x; ax++)
            for (int ay = 0; ay < n_y; ay++) {
                int cx = x_choices[ax], cy = y_choices[ay];
                if (!cx && !cy && !cz) continue;
                shift[n][0] = cz * s->le.offset_at_rebuild + wrap + cx * length[0];
                shift[n][1] = cy * length[1];
                shift[n][2] = cz * length[2];
                n++;
            }
    }
    return n;
}

size_t ghosts_images(const sim *s, const double pos[3], double shift[GHOSTS_MAX_IMAGES][3])
{
    if (s->cfg.lees_edwards.on) return sheared_images(s, pos, shift);
    int choices[3][3], n_choice[3];
    for (int a = 0; a < 3; a++) {
        n_choice[a] = 0;
        choices[a][n_choice[a]++] = 0;
        if (!s->cfg.periodic[a]) continue;
        if (pos[a] < s->cfg.domain_min[a] + s->cutoff) choices[a][n_choice[a]++] = 1;
        if (pos[a] > s->cfg.domain_max[a] - s->cutoff) choices[a][n_choice[a]++] = -1;
    }
    size_t n = 0;
    for (int ax = 0; ax < n_choice[0]; ax++)
        for (int ay = 0; ay < n_choice[1]; ay++)
            for (int az = 0; az < n_choice[2]; az++) {
                int img[3] = {choices[0][ax], choices[1][ay], choices[2][az]};
                if (!img[0] && !img[1] && !img[2]) continue;
                for (int a = 0; a < 3; a++)
                    shift[n][a] = img[a] * (s->cfg.domain_max[a] - s->cfg.domain_min[a]);
                n++;
            }
    return n;
}

/* The ghosts are counted first, so that the store grows once and by what they need
 * (growing by doubling kept up to twice the particles' memory for a few ghosts). */
int ghosts_make(sim *s)
{
    particle_store *p = &s->p;
    p->n_total = p->n_local;
    p->n_remote = 0;
    double shift[GHOSTS_MAX_IMAGES][3];
    size_t n_ghosts = 0;
    for (size_t i = 0; i < p->n_local; i++) {
        const double pos[3] = {p->x[i], p->y[i], p->z[i]};
        n_ghosts += ghosts_images(s, pos, shift);
    }
    if (n_ghosts > 0 && p->n_local + n_ghosts > p->capacity &&
        particles_reserve(p, p->n_local + n_ghosts + n_ghosts / 8 + 16) != 0)
        return -1;
    if (n_ghosts > 0 && particles_reserve_ghosts(p, n_ghosts) != 0) return -1;
    for (size_t i = 0; i < p->n_local; i++) {
        /* read through p each time: ghosts_add may move the arrays */
        const double pos[3] = {p->x[i], p->y[i], p->z[i]};
        size_t n = ghosts_images(s, pos, shift);
        for (size_t q = 0; q < n; q++)
            if (ghosts_add(p, i, shift[q]) != 0) return -1;
    }
    return 0;
}

/* How an image across the z faces of a sheared box moves past its particle since the
 * rebuild: along x by the offset's growth, along z by the height's, at U along x. */
typedef struct shear_drift {
    double x, z, u;
} shear_drift;

static shear_drift shear_drift_now(const sim *s)
{
    return (shear_drift){s->le.offset - s->le.offset_at_rebuild,
                         s->cfg.domain_max[2] - s->cfg.domain_min[2] - s->le.height_at_rebuild,
                         lees_edwards_speed(s)};
}

/* Image g of particle o (o = g for another rank's entry, holding its particle's motion)
 * at o's position plus its shift, moved on by d (side: lees_edwards_side), with o's
 * velocity and U along x; its spins are o's. */
static inline void sheared_place(particle_store *p, size_t g, size_t o, const shear_drift *d)
{
    const size_t k = g - p->n_local;
    const int side = lees_edwards_side(p, g);
    p->x[g] = p->x[o] + p->ghost_shift[3 * k] + side * d->x;
    p->y[g] = p->y[o] + p->ghost_shift[3 * k + 1];
    p->z[g] = p->z[o] + p->ghost_shift[3 * k + 2] + side * d->z;
    p->vx[g] = p->vx[o] + side * d->u; p->vy[g] = p->vy[o]; p->vz[g] = p->vz[o];
    p->wx[g] = p->wx[o]; p->wy[g] = p->wy[o]; p->wz[g] = p->wz[o];
}

/* ghosts_update under Lees-Edwards */
static void sheared_update(const sim *s, particle_store *p)
{
    const size_t first = p->n_local + p->n_remote;
    const shear_drift d = shear_drift_now(s);
    #pragma omp parallel for schedule(static) if (p->n_total - first > s->parallel_min)
    for (size_t g = first; g < p->n_total; g++) sheared_place(p, g, p->ghost_owner[g - p->n_local], &d);
}

void ghosts_place_remote(const sim *s, particle_store *p, size_t g)
{
    if (s->cfg.lees_edwards.on) {
        const shear_drift d = shear_drift_now(s);
        sheared_place(p, g, g, &d);
        return;
    }
    const double *shift = &p->ghost_shift[3 * (g - p->n_local)];
    p->x[g] += shift[0];
    p->y[g] += shift[1];
    p->z[g] += shift[2];
}

void ghosts_update(const sim *s, particle_store *p)
{
    if (s->cfg.lees_edwards.on) {
        sheared_update(s, p);
        return;
    }
    const size_t first = p->n_local + p->n_remote; /* the remote ones come by message */
    #pragma omp parallel for schedule(static) if (p->n_total - first > s->parallel_min)
    for (size_t g = first; g < p->n_total; g++) {
        size_t k = g - p->n_local, o = p->ghost_owner[k];
        p->x[g] = p->x[o] + p->ghost_shift[3 * k];
        p->y[g] = p->y[o] + p->ghost_shift[3 * k + 1];
        p->z[g] = p->z[o] + p->ghost_shift[3 * k + 2];
        p->vx[g] = p->vx[o]; p->vy[g] = p->vy[o]; p->vz[g] = p->vz[o];
        p->wx[g] = p->wx[o]; p->wy[g] = p->wy[o]; p->wz[g] = p->wz[o];
    }
}
