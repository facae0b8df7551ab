/* One snapshot's sums (Goldhirsch 2010; Weinhart et al. 2012), at every point of the grid,
 * of the profile or of the box:
 *   per particle p at x_p:   m W, V_p W, m v W, m u u W, m u W      (W = W(r - x_p))
 *                            V_p (sum over p's contacts of n (x) n) W
 *                            (u = v, or in a sheared cell v less the streaming profile)
 *   per contact c, i its first particle at x_i, l its branch:
 *     contact stress  -f (x) l int_0^1 W(r - x_i - s l) ds          (f the force on i)
 *     wall force      f W(r - x_i - l), only for a wall contact
 * A pair's branch runs from i's centre to j's (its periodic image beside i: the
 * snapshot's endpoints); a wall contact's from i's centre to the contact point, where the
 * wall's force enters the momentum balance as a force density (Weinhart et al. 2012, the
 * boundary interaction force density). Along periodic axes every sum is taken over the
 * images of its particle or segment within the cutoff; the caller makes sure there is at
 * most one per point (the cutoff and a branch fit in the period). In a sheared cell the
 * z faces slide: a grid's or a z profile's sums take each particle and branch at its
 * images across them too, shifted along x by the offset (and v_x by U). */
#include "coarse_grain.h"

#include <math.h>
#include <stdlib.h>

typedef struct span {
    int64_t k0, k1; /* points k0 .. k1 */
    double shift;   /* the image's shift along the axis */
} span;

/* The points along axis a that lie within [x0, x1] or an image of it: up to 3 spans. */
static int spans(const cg_grid *g, int a, double x0, double x1, span out[3])
{
    int count = 0;
    int images = g->periodic[a] ? 1 : 0;
    for (int m = -images; m <= images; m++) {
        double shift = m * g->length[a];
        double f0 = ceil((x0 + shift - g->lo[a]) / g->h[a] - 0.5);
        double f1 = floor((x1 + shift - g->lo[a]) / g->h[a] - 0.5);
        if (f0 < 0) f0 = 0;
        if (f1 > (double)(g->n[a] - 1)) f1 = (double)(g->n[a] - 1);
        if (f0 > f1) continue;
        out[count++] = (span){(int64_t)f0, (int64_t)f1, shift};
    }
    return count;
}

static double coord(const cg_grid *g, int a, int64_t k)
{
    return g->lo[a] + ((double)k + 0.5) * g->h[a];
}

static void add(double *acc, int64_t point, int off, const double *vals, int nv, double w)
{
    double *dst = acc + point * CG_FIELDS + off;
    for (int q = 0; q < nv; q++) dst[q] += w * vals[q];
}

/* The Gaussian at a point is a product of one factor per axis: up to SEP points per axis,
 * the factors are computed once per axis (the same values as cg_w3's to rounding; the
 * cutoff ball is tested on the squared distances). Returns 0 when a span is longer. */
#define SEP 512
static int separable(const cg_grid *g, const cg_kernel *k, const double x[3], const span *sx, int nx,
                     const span *sy, int ny, const span *sz, int nz, const double *vals, int nv, int off,
                     double *acc)
{
    const span *sp[3] = {sx, sy, sz};
    int ns[3] = {nx, ny, nz};
    double e[3][SEP], d2[3][SEP];
    int64_t idx[3][SEP];
    int count[3];
    double inv = 1.0 / (2.0 * k->w * k->w);
    for (int a = 0; a < 3; a++) {
        count[a] = 0;
        for (int q = 0; q < ns[a]; q++)
            for (int64_t i = sp[a][q].k0; i <= sp[a][q].k1; i++) {
                if (count[a] == SEP) return 0;
                double d = coord(g, a, i) - (x[a] + sp[a][q].shift);
                d2[a][count[a]] = d * d;
                e[a][count[a]] = exp(-d * d * inv);
                idx[a][count[a]++] = i;
            }
    }
    double c2 = k->c * k->c;
    for (int iz = 0; iz < count[2]; iz++)
        for (int iy = 0; iy < count[1]; iy++) {
            double r2 = d2[2][iz] + d2[1][iy];
            if (r2 >= c2) continue;
            double ezy = k->n3 * e[2][iz] * e[1][iy];
            int64_t row = (idx[2][iz] * g->n[1] + idx[1][iy]) * g->n[0];
            for (int ix = 0; ix < count[0]; ix++)
                if (r2 + d2[0][ix] < c2) add(acc, row + idx[0][ix], off, vals, nv, ezy * e[0][ix]);
        }
    return 1;
}

/* vals (nv of them) times the kernel at the points near x (l NULL), or times the kernel
 * integrated along the segment x .. x + l. */
static void deposit(const cg_grid *g, const cg_kernel *k, const double x[3], const double *l, const double *vals,
                    int nv, int off, double *acc)
{
    if (g->mode == CG_BOX) {
        add(acc, 0, off, vals, nv, 1.0 / g->measure);
        return;
    }
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        double e = l ? l[a] : 0.0;
        lo[a] = fmin(x[a], x[a] + e) - k->c;
        hi[a] = fmax(x[a], x[a] + e) + k->c;
    }
    if (g->mode == CG_PROFILE) {
        int a = g->axis;
        span s[3];
        int ns = spans(g, a, lo[a], hi[a], s);
        for (int q = 0; q < ns; q++)
            for (int64_t i = s[q].k0; i <= s[q].k1; i++) {
                double z = coord(g, a, i) - (x[a] + s[q].shift);
                double w = l ? cg_line1(k, z, l[a]) : cg_w1(k, z);
                if (w != 0.0) add(acc, i, off, vals, nv, w / g->measure);
            }
        return;
    }
    span sx[3], sy[3], sz[3];
    int nx = spans(g, 0, lo[0], hi[0], sx), ny = spans(g, 1, lo[1], hi[1], sy), nz = spans(g, 2, lo[2], hi[2], sz);
    if (!l && k->kind == CG_GAUSS && separable(g, k, x, sx, nx, sy, ny, sz, nz, vals, nv, off, acc)) return;
    for (int qz = 0; qz < nz; qz++)
        for (int64_t iz = sz[qz].k0; iz <= sz[qz].k1; iz++)
            for (int qy = 0; qy < ny; qy++)
                for (int64_t iy = sy[qy].k0; iy <= sy[qy].k1; iy++)
                    for (int qx = 0; qx < nx; qx++)
                        for (int64_t ix = sx[qx].k0; ix <= sx[qx].k1; ix++) {
                            double d[3] = {coord(g, 0, ix) - (x[0] + sx[qx].shift),
                                           coord(g, 1, iy) - (x[1] + sy[qy].shift),
                                           coord(g, 2, iz) - (x[2] + sz[qz].shift)};
                            double w = l ? cg_line3(k, d, l) : cg_w3(k, d);
                            if (w != 0.0) add(acc, (iz * g->n[1] + iy) * g->n[0] + ix, off, vals, nv, w);
                        }
}

/* x wrapped into the period along periodic axes (a run wraps its particles only at its
 * neighbour rebuilds, so a centre may stand a little outside). */
static void wrapped(const cg_grid *g, const double *in, double out[3], const double *domain_lo)
{
    for (int a = 0; a < 3; a++) {
        out[a] = in[a];
        if (g->periodic[a]) {
            double L = g->length[a];
            out[a] = domain_lo[a] + fmod(in[a] - domain_lo[a], L);
            if (out[a] < domain_lo[a]) out[a] += L;
        }
    }
}

static double sphere_volume(double r)
{
    return 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
}

/* ---- a sheared cell (Lees-Edwards; docs/coarse-graining.md, "A sheared cell") ----
 * The engine's images: a particle at (x, z) moving at v has an image at (x + offset,
 * z + H) moving at v + U e_x and one at (x - offset, z - H) at v - U e_x, U = gdot H. */

/* A stored particle brought into the cell [lo, lo + H) along z through the sliding faces
 * (the engine wraps its particles at its neighbour rebuilds only): k periods down, x by
 * k offsets back and v_x by k U; then x and y into their periods. */
static void sheared_place(const cg_grid *g, const cg_snapshot *s, const double *pos, double *vx, double out[3])
{
    const double lo = g->origin[2], height = g->length[2];
    double k = floor((pos[2] - lo) / height);
    double in[3] = {pos[0] - k * s->offset, pos[1], pos[2] - k * height};
    if (in[2] >= lo + height) { /* rounding at the faces */
        in[2] -= height;
        in[0] -= s->offset;
        k += 1.0;
    } else if (in[2] < lo) {
        in[2] += height;
        in[0] += s->offset;
        k -= 1.0;
    }
    if (vx) *vx -= k * s->shear_rate * height;
    wrapped(g, in, out, g->origin);
}

/* x's image across the z faces on `side` (+1 above the top face, -1 below the bottom),
 * its x back in its period. */
static void sheared_image(const cg_grid *g, const cg_snapshot *s, const double x[3], int side, double out[3])
{
    const double in[3] = {x[0] + side * s->offset, x[1], x[2] + side * g->length[2]};
    wrapped(g, in, out, g->origin);
    out[2] = in[2]; /* z stays outside the cell: the images are not wrapped along z */
}

int cg_sum_snapshot(const cg_grid *g, const cg_kernel *k, const cg_snapshot *s, double *acc)
{
    const double *domain_lo = g->origin;
    /* each particle's sum of n (x) n over its contacts (a pair's n (x) n is the same from
     * either end), deposited with the particle */
    double *nn = calloc((size_t)(s->n + 1) * 9, sizeof *nn);
    /* a sheared cell: each particle's place in the cell, for its contacts' branches */
    double *at = g->lees_edwards ? malloc((size_t)(s->n + 1) * 3 * sizeof *at) : NULL;
    if (!nn || (g->lees_edwards && !at)) {
        free(nn);
        free(at);
        return -1;
    }
    for (int64_t c = 0; c < s->m; c++) {
        if (s->ended[c] == 2) continue; /* an ended contact holds no force and is no contact */
        const double *nrm = &s->normal[3 * c];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                nn[9 * s->row_i[c] + 3 * a + b] += nrm[a] * nrm[b];
                if (!s->wall[c]) nn[9 * s->row_j[c] + 3 * a + b] += nrm[a] * nrm[b];
            }
    }
    const double speed = g->lees_edwards ? s->shear_rate * g->length[2] : 0.0; /* U */
    for (int64_t i = 0; i < s->n; i++) {
        double x[3], vals[CG_PARTICLE_FIELDS];
        double v[3] = {s->vel[3 * i], s->vel[3 * i + 1], s->vel[3 * i + 2]};
        double u[3] = {v[0], v[1], v[2]};
        if (g->lees_edwards) {
            /* the kinetic stress's velocity: about the streaming profile gdot (z - z_centre) x,
             * z the stored height, not wrapped: the engine shifts v_x by gdot H when it
             * wraps a particle across a z face, so the stored pair goes together (and u is
             * the same at every image) */
            u[0] -= s->shear_rate * (s->pos[3 * i + 2] - (domain_lo[2] + 0.5 * g->length[2]));
            sheared_place(g, s, &s->pos[3 * i], &v[0], x);
            for (int a = 0; a < 3; a++) at[3 * i + a] = x[a];
        } else {
            wrapped(g, &s->pos[3 * i], x, domain_lo);
        }
        double m = s->mass[i], vp = sphere_volume(s->radius[i]);
        vals[CG_DENSITY] = m;
        vals[CG_VOLUME_FRACTION] = vp;
        for (int a = 0; a < 3; a++) vals[CG_MOMENTUM + a] = m * v[a];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) vals[CG_KINETIC + 3 * a + b] = m * u[a] * u[b];
        for (int q = 0; q < 9; q++) vals[CG_FABRIC + q] = vp * nn[9 * i + q];
        for (int a = 0; a < 3; a++) vals[CG_DRIFT + a] = m * u[a];
        deposit(g, k, x, NULL, vals, CG_PARTICLE_FIELDS, CG_DENSITY, acc);
        for (int side = -1; side <= 1 && g->images_z; side += 2) {
            double y[3];
            sheared_image(g, s, x, side, y);
            vals[CG_MOMENTUM] = m * (v[0] + side * speed);
            deposit(g, k, y, NULL, vals, CG_PARTICLE_FIELDS, CG_DENSITY, acc);
        }
    }
    free(nn);
    for (int64_t c = 0; c < s->m; c++) {
        if (s->ended[c] == 2) continue;
        const double *xi = &s->ends[6 * c], *f = &s->force[3 * c];
        double x[3], l[3], stress[9];
        if (g->lees_edwards) {
            /* a sheared cell: i where its particle stands in the cell; a pair's branch along
             * the normal, of length r_i + r_j - overlap, needs no image (the image across a
             * z face is shifted by the offset along x); a wall's from i to the contact point */
            for (int a = 0; a < 3; a++) x[a] = at[3 * s->row_i[c] + a];
            double dist = s->wall[c] ? 0.0 : s->radius[s->row_i[c]] + s->radius[s->row_j[c]] - s->overlap[c];
            for (int a = 0; a < 3; a++)
                l[a] = s->wall[c] ? s->point[3 * c + a] - xi[a] : s->normal[3 * c + a] * dist;
        } else {
            wrapped(g, xi, x, domain_lo);
            for (int a = 0; a < 3; a++) l[a] = s->wall[c] ? s->point[3 * c + a] - xi[a] : s->ends[6 * c + 3 + a] - xi[a];
        }
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) stress[3 * a + b] = -f[a] * l[b];
        /* the branch and its images across the z faces: the segment's part beyond a face
         * counts at the points beyond it, inside the cell on the other side */
        const int images = g->images_z ? 1 : 0;
        for (int side = -images; side <= images; side++) {
            double y[3] = {x[0], x[1], x[2]};
            if (side) sheared_image(g, s, x, side, y);
            deposit(g, k, y, l, stress, 9, CG_CONTACT, acc);
            if (s->wall[c]) {
                double end[3] = {y[0] + l[0], y[1] + l[1], y[2] + l[2]};
                deposit(g, k, end, NULL, f, 3, CG_WALL_FORCE, acc);
            }
        }
    }
    free(at);
    return 0;
}
