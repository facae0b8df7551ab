/* Triangulated wall surfaces: topology, a search grid, and the contacts of a sphere.
 *
 * One contact per touched feature. Every triangle within reach offers its closest point,
 * which lies inside its face, on one of its edges or at one of its corners. A point on
 * an edge or a corner is shared by the triangles around that edge or vertex, and a
 * sphere over a flat or gently folded surface is also within reach of the edges of the
 * triangles next to the one it sits on. The rule (the "Voronoi region" rule):
 *   - a face point is always a contact;
 *   - an edge or vertex point is a contact only if it is also the closest point of every
 *     other triangle around that edge or vertex (none of them is closer, to a tolerance
 *     of 1e-9 of the reach). Over a flat or concave fold a neighbouring face is closer,
 *     so the edge is no contact; on a convex ridge or corner it is;
 *   - points closer than that tolerance to each other are one contact (the two
 *     triangles of an edge both offer it; the one with the lower index is kept).
 * So a sphere on an edge shared by two triangles gets one contact, a sphere in a crease
 * gets one per face it touches, and a sphere in a box corner three.
 *
 * Vertices are welded where their coordinates are exactly equal (as STL files repeat
 * them); edges join welded vertices. Triangles whose area is below 1e-12 of their
 * longest edge squared are dropped. */
#include "walls.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FOUND 64

struct wall_mesh {
    size_t n_tri, n_vert, n_edge;
    double *v;            /* 3 per vertex */
    uint32_t *tri;        /* 3 vertex ids per triangle */
    double *normal;       /* 3 per triangle, unit */
    uint32_t *tri_edge;   /* 3 per triangle: edge k joins corners k and k+1 (mod 3) */
    size_t *edge_first;   /* n_edge + 1: triangles around edge e are edge_tri[first..] */
    uint32_t *edge_tri;
    size_t *vert_first;   /* n_vert + 1: triangles around vertex v */
    uint32_t *vert_tri;
    /* uniform grid over the bounding box, cells of side h */
    double lo[3], hi[3], h;
    long dims[3];
    size_t *cell_first;   /* n_cells + 1 */
    uint32_t *cell_tri;
    long *tri_cell_lo;    /* 3 per triangle: its lowest cell along each axis */
    double extent;        /* largest side of the bounding box */
};

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void wall_mesh_free(wall_mesh *m)
{
    if (!m) return;
    free(m->v); free(m->tri); free(m->normal); free(m->tri_edge);
    free(m->edge_first); free(m->edge_tri); free(m->vert_first); free(m->vert_tri);
    free(m->cell_first); free(m->cell_tri); free(m->tri_cell_lo);
    free(m);
}

size_t wall_mesh_triangles(const wall_mesh *m)
{
    return m->n_tri;
}

/* ---- building -------------------------------------------------------------------- */

typedef struct corner_rec {
    double x[3];
    size_t index; /* 3 t + k: corner k of triangle t */
} corner_rec;

static int compare_corners(const void *pa, const void *pb)
{
    const corner_rec *a = pa, *b = pb;
    for (int k = 0; k < 3; k++) {
        if (a->x[k] < b->x[k]) return -1;
        if (a->x[k] > b->x[k]) return 1;
    }
    return a->index < b->index ? -1 : a->index > b->index;
}

typedef struct edge_rec {
    uint32_t a, b, tri, k;
} edge_rec;

static int compare_edges(const void *pa, const void *pb)
{
    const edge_rec *x = pa, *y = pb;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    if (x->tri != y->tri) return x->tri < y->tri ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Keeps the triangles of non-negligible area; welds their corners. */
static int build_vertices(wall_mesh *m, const double *tri, long n)
{
    size_t kept = 0;
    double *corners = malloc(9 * (size_t)n * sizeof *corners);
    if (!corners) return -1;
    for (long t = 0; t < n; t++) {
        const double *a = tri + 9 * t, *b = a + 3, *c = a + 6;
        double ab[3], ac[3], bc[3], x[3];
        for (int k = 0; k < 3; k++) {
            ab[k] = b[k] - a[k];
            ac[k] = c[k] - a[k];
            bc[k] = c[k] - b[k];
        }
        x[0] = ab[1] * ac[2] - ab[2] * ac[1];
        x[1] = ab[2] * ac[0] - ab[0] * ac[2];
        x[2] = ab[0] * ac[1] - ab[1] * ac[0];
        double longest = fmax(dot(ab, ab), fmax(dot(ac, ac), dot(bc, bc)));
        if (!(sqrt(dot(x, x)) > 1e-12 * longest)) continue;
        memcpy(corners + 9 * kept, a, 9 * sizeof *corners);
        kept++;
    }
    m->n_tri = kept;
    size_t nc = 3 * kept;
    corner_rec *order = malloc((nc ? nc : 1) * sizeof *order);
    m->tri = malloc((nc ? nc : 1) * sizeof *m->tri);
    m->v = malloc((nc ? 3 * nc : 1) * sizeof *m->v);
    m->normal = malloc((kept ? 3 * kept : 1) * sizeof *m->normal);
    if (!order || !m->tri || !m->v || !m->normal) {
        free(order);
        free(corners);
        return -1;
    }
    for (size_t k = 0; k < nc; k++) {
        memcpy(order[k].x, corners + 3 * k, sizeof order[k].x);
        order[k].index = k;
    }
    qsort(order, nc, sizeof *order, compare_corners);
    size_t nv = 0;
    for (size_t k = 0; k < nc; k++) {
        const double *p = order[k].x, *q = k ? order[k - 1].x : NULL;
        if (!q || q[0] != p[0] || q[1] != p[1] || q[2] != p[2]) {
            memcpy(m->v + 3 * nv, p, 3 * sizeof *p);
            nv++;
        }
        m->tri[order[k].index] = (uint32_t)(nv - 1);
    }
    m->n_vert = nv;
    for (size_t t = 0; t < kept; t++) {
        const double *a = m->v + 3 * m->tri[3 * t], *b = m->v + 3 * m->tri[3 * t + 1],
                     *c = m->v + 3 * m->tri[3 * t + 2];
        double ab[3], ac[3], *x = m->normal + 3 * t;
        for (int k = 0; k < 3; k++) {
            ab[k] = b[k] - a[k];
            ac[k] = c[k] - a[k];
        }
        x[0] = ab[1] * ac[2] - ab[2] * ac[1];
        x[1] = ab[2] * ac[0] - ab[0] * ac[2];
        x[2] = ab[0] * ac[1] - ab[1] * ac[0];
        double len = sqrt(dot(x, x));
        for (int k = 0; k < 3; k++) x[k] /= len;
    }
    free(order);
    free(corners);
    return 0;
}

static int build_adjacency(wall_mesh *m)
{
    size_t nt = m->n_tri, ne3 = 3 * nt;
    edge_rec *e = malloc((ne3 ? ne3 : 1) * sizeof *e);
    m->tri_edge = malloc((ne3 ? ne3 : 1) * sizeof *m->tri_edge);
    m->edge_tri = malloc((ne3 ? ne3 : 1) * sizeof *m->edge_tri);
    m->edge_first = malloc((ne3 + 1) * sizeof *m->edge_first);
    m->vert_first = calloc(m->n_vert + 1, sizeof *m->vert_first);
    m->vert_tri = malloc((ne3 ? ne3 : 1) * sizeof *m->vert_tri);
    if (!e || !m->tri_edge || !m->edge_tri || !m->edge_first || !m->vert_first || !m->vert_tri) {
        free(e);
        return -1;
    }
    for (size_t t = 0; t < nt; t++)
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
            e[3 * t + k] = (edge_rec){a < b ? a : b, a < b ? b : a, (uint32_t)t, k};
        }
    qsort(e, ne3, sizeof *e, compare_edges);
    size_t ne = 0;
    for (size_t q = 0; q < ne3; q++) {
        if (q == 0 || e[q].a != e[q - 1].a || e[q].b != e[q - 1].b) m->edge_first[ne++] = q;
        m->edge_tri[q] = e[q].tri;
        m->tri_edge[3 * e[q].tri + e[q].k] = (uint32_t)(ne - 1);
    }
    m->edge_first[ne] = ne3;
    m->n_edge = ne;
    free(e);
    for (size_t q = 0; q < ne3; q++) m->vert_first[m->tri[q] + 1]++;
    for (size_t v = 0; v < m->n_vert; v++) m->vert_first[v + 1] += m->vert_first[v];
    size_t *fill = malloc((m->n_vert + 1) * sizeof *fill);
    if (!fill) return -1;
    memcpy(fill, m->vert_first, (m->n_vert + 1) * sizeof *fill);
    for (size_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) m->vert_tri[fill[m->tri[3 * t + k]]++] = (uint32_t)t;
    free(fill);
    return 0;
}

static long cell_of(const wall_mesh *m, int a, double x)
{
    double f = floor((x - m->lo[a]) / m->h);
    if (!(f >= 0.0)) return 0;
    if (f >= (double)m->dims[a]) return m->dims[a] - 1;
    return (long)f;
}

static void triangle_box(const wall_mesh *m, size_t t, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = HUGE_VAL;
        hi[a] = -HUGE_VAL;
        for (int k = 0; k < 3; k++) {
            double x = m->v[3 * m->tri[3 * t + k] + a];
            lo[a] = fmin(lo[a], x);
            hi[a] = fmax(hi[a], x);
        }
    }
}

static int build_grid(wall_mesh *m)
{
    size_t nt = m->n_tri;
    double mean = 0.0;
    for (int a = 0; a < 3; a++) {
        m->lo[a] = HUGE_VAL;
        m->hi[a] = -HUGE_VAL;
    }
    for (size_t v = 0; v < m->n_vert; v++)
        for (int a = 0; a < 3; a++) {
            m->lo[a] = fmin(m->lo[a], m->v[3 * v + a]);
            m->hi[a] = fmax(m->hi[a], m->v[3 * v + a]);
        }
    m->extent = 0.0;
    for (int a = 0; a < 3; a++) m->extent = fmax(m->extent, m->hi[a] - m->lo[a]);
    for (size_t t = 0; t < nt; t++) {
        double lo[3], hi[3];
        triangle_box(m, t, lo, hi);
        mean += fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    }
    mean /= (double)nt;
    /* cells about the size of a triangle, at most 4 per triangle */
    double h = fmax(mean, 1e-9 * m->extent);
    size_t limit = 4 * nt > 64 ? 4 * nt : 64;
    for (;;) {
        size_t cells = 1;
        for (int a = 0; a < 3; a++) {
            m->dims[a] = (long)floor((m->hi[a] - m->lo[a]) / h) + 1;
            cells *= (size_t)m->dims[a];
        }
        if (cells <= limit) break;
        h *= 1.25;
    }
    m->h = h;
    size_t n_cells = (size_t)m->dims[0] * (size_t)m->dims[1] * (size_t)m->dims[2];
    m->cell_first = calloc(n_cells + 1, sizeof *m->cell_first);
    m->tri_cell_lo = malloc(3 * nt * sizeof *m->tri_cell_lo);
    if (!m->cell_first || !m->tri_cell_lo) return -1;
    for (int pass = 0; pass < 2; pass++) {
        size_t *fill = NULL;
        if (pass == 1) {
            for (size_t c = 0; c < n_cells; c++) m->cell_first[c + 1] += m->cell_first[c];
            m->cell_tri = malloc((m->cell_first[n_cells] ? m->cell_first[n_cells] : 1) *
                                 sizeof *m->cell_tri);
            fill = malloc((n_cells + 1) * sizeof *fill);
            if (!m->cell_tri || !fill) {
                free(fill);
                return -1;
            }
            memcpy(fill, m->cell_first, (n_cells + 1) * sizeof *fill);
        }
        for (size_t t = 0; t < nt; t++) {
            double lo[3], hi[3];
            long c0[3], c1[3];
            triangle_box(m, t, lo, hi);
            for (int a = 0; a < 3; a++) {
                c0[a] = cell_of(m, a, lo[a]);
                c1[a] = cell_of(m, a, hi[a]);
                m->tri_cell_lo[3 * t + a] = c0[a];
            }
            for (long z = c0[2]; z <= c1[2]; z++)
                for (long y = c0[1]; y <= c1[1]; y++)
                    for (long x = c0[0]; x <= c1[0]; x++) {
                        size_t cell = ((size_t)z * m->dims[1] + (size_t)y) * m->dims[0] + (size_t)x;
                        if (pass == 0) m->cell_first[cell + 1]++;
                        else m->cell_tri[fill[cell]++] = (uint32_t)t;
                    }
        }
        free(fill);
    }
    return 0;
}

wall_mesh *wall_mesh_build(const double *tri, long n, int *no_memory, char *err, size_t err_len)
{
    *no_memory = 0;
    if (n <= 0) {
        snprintf(err, err_len, "the surface has no triangles");
        return NULL;
    }
    if ((unsigned long)n > UINT32_MAX / 4) {
        snprintf(err, err_len, "the surface has %ld triangles; at most %u are supported", n,
                 UINT32_MAX / 4);
        return NULL;
    }
    for (long k = 0; k < 9 * n; k++)
        if (!isfinite(tri[k])) {
            snprintf(err, err_len, "triangle %ld has a coordinate that is not a finite number",
                     k / 9 + 1);
            return NULL;
        }
    wall_mesh *m = calloc(1, sizeof *m);
    if (!m || build_vertices(m, tri, n) != 0) goto oom;
    if (m->n_tri == 0) {
        snprintf(err, err_len, "all %ld triangles of the surface have zero area", n);
        wall_mesh_free(m);
        return NULL;
    }
    if (build_adjacency(m) != 0 || build_grid(m) != 0) goto oom;
    return m;
oom:
    wall_mesh_free(m);
    snprintf(err, err_len, "out of memory");
    *no_memory = 1;
    return NULL;
}

double wall_mesh_reach(const wall_mesh *m, const double c[3], const double u[3])
{
    double reach = 0.0;
    for (size_t v = 0; v < m->n_vert; v++) {
        double rel[3] = {m->v[3 * v] - c[0], m->v[3 * v + 1] - c[1], m->v[3 * v + 2] - c[2]};
        double s = dot(rel, u), r2 = dot(rel, rel) - s * s;
        reach = fmax(reach, sqrt(fmax(r2, 0.0)));
    }
    return reach;
}

/* ---- queries ----------------------------------------------------------------------- */

static int closest_on(const wall_mesh *m, size_t t, const double c[3], double q[3])
{
    return wall_closest_on_triangle(c, m->v + 3 * m->tri[3 * t], m->v + 3 * m->tri[3 * t + 1],
                                    m->v + 3 * m->tri[3 * t + 2], q);
}

static double distance_to(const wall_mesh *m, size_t t, const double c[3])
{
    double q[3];
    closest_on(m, t, c, q);
    double d[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
    return sqrt(dot(d, d));
}

/* Visits every triangle whose cells meet the box around c of half side `reach`, each
 * once (in the first cell it shares with the box), in a fixed order. */
#define FOR_NEAR_TRIANGLES(m, c, reach, t, ...)                                            \
    do {                                                                                    \
        long q0_[3], q1_[3];                                                                \
        int empty_ = 0;                                                                     \
        for (int a_ = 0; a_ < 3; a_++) {                                                    \
            if ((c)[a_] + (reach) < (m)->lo[a_] || (c)[a_] - (reach) > (m)->hi[a_]) empty_ = 1; \
            q0_[a_] = cell_of((m), a_, (c)[a_] - (reach));                                  \
            q1_[a_] = cell_of((m), a_, (c)[a_] + (reach));                                  \
        }                                                                                   \
        if (empty_) break;                                                                  \
        for (long z_ = q0_[2]; z_ <= q1_[2]; z_++)                                          \
            for (long y_ = q0_[1]; y_ <= q1_[1]; y_++)                                      \
                for (long x_ = q0_[0]; x_ <= q1_[0]; x_++) {                                \
                    size_t cell_ = ((size_t)z_ * (m)->dims[1] + (size_t)y_) * (m)->dims[0] + \
                                   (size_t)x_;                                              \
                    for (size_t k_ = (m)->cell_first[cell_]; k_ < (m)->cell_first[cell_ + 1]; \
                         k_++) {                                                            \
                        size_t t = (m)->cell_tri[k_];                                       \
                        const long *lo_ = (m)->tri_cell_lo + 3 * t;                         \
                        if ((lo_[0] > q0_[0] ? lo_[0] : q0_[0]) != x_ ||                    \
                            (lo_[1] > q0_[1] ? lo_[1] : q0_[1]) != y_ ||                    \
                            (lo_[2] > q0_[2] ? lo_[2] : q0_[2]) != z_)                      \
                            continue;                                                       \
                        __VA_ARGS__                                                         \
                    }                                                                       \
                }                                                                           \
    } while (0)

size_t wall_mesh_count_near(const wall_mesh *m, const double c[3], double reach, size_t max)
{
    size_t count = 0;
    FOR_NEAR_TRIANGLES(m, c, reach, t, {
        if (count < max && distance_to(m, t, c) < reach) count++;
    });
    return count;
}

typedef struct found_contact {
    double distance, q[3];
    size_t tri;
} found_contact;

static int before(const found_contact *a, const found_contact *b)
{
    return a->distance < b->distance || (a->distance == b->distance && a->tri < b->tri);
}

int wall_mesh_contacts(const wall_mesh *m, const double c[3], double reach,
                       wall_contact *out, int max)
{
    found_contact found[MAX_FOUND];
    int n_found = 0;
    double scale = fmax(fmax(fabs(c[0]), fabs(c[1])), fmax(fabs(c[2]), m->extent));
    double tol = 1e-9 * reach + 16.0 * DBL_EPSILON * scale;
    FOR_NEAR_TRIANGLES(m, c, reach, t, {
        found_contact f = {.tri = t};
        int feature = closest_on(m, t, c, f.q);
        double d[3] = {f.q[0] - c[0], f.q[1] - c[1], f.q[2] - c[2]};
        f.distance = sqrt(dot(d, d));
        if (!(f.distance < reach)) continue;
        if (feature != 0) { /* an edge or a corner: only if no triangle around it is closer */
            const size_t *first;
            const uint32_t *around;
            size_t id;
            if (feature <= 3) {
                id = m->tri[3 * t + feature - 1];
                first = m->vert_first;
                around = m->vert_tri;
            } else {
                id = m->tri_edge[3 * t + feature - 4];
                first = m->edge_first;
                around = m->edge_tri;
            }
            int valid = 1;
            for (size_t k = first[id]; k < first[id + 1] && valid; k++)
                if (around[k] != t && distance_to(m, around[k], c) < f.distance - tol) valid = 0;
            if (!valid) continue;
        }
        int dup = -1;
        for (int k = 0; k < n_found && dup < 0; k++) {
            double e[3] = {f.q[0] - found[k].q[0], f.q[1] - found[k].q[1], f.q[2] - found[k].q[2]};
            if (dot(e, e) <= tol * tol) dup = k;
        }
        if (dup >= 0) {
            if (f.tri > found[dup].tri) continue;
            for (int k = dup; k + 1 < n_found; k++) found[k] = found[k + 1];
            n_found--;
        }
        if (n_found == MAX_FOUND && !before(&f, &found[n_found - 1])) continue;
        int at = n_found < MAX_FOUND ? n_found++ : MAX_FOUND - 1;
        while (at > 0 && before(&f, &found[at - 1])) {
            found[at] = found[at - 1];
            at--;
        }
        found[at] = f;
    });
    int n = n_found < max ? n_found : max;
    for (int k = 0; k < n; k++) {
        const found_contact *f = &found[k];
        out[k].distance = f->distance;
        if (f->distance > 0.0) {
            for (int a = 0; a < 3; a++) out[k].n[a] = (f->q[a] - c[a]) / f->distance;
        } else { /* centre on the surface: push along the triangle's normal */
            for (int a = 0; a < 3; a++) out[k].n[a] = -m->normal[3 * f->tri + a];
        }
    }
    return n;
}
