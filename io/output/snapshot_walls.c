/* The walls as triangles, where they are at a snapshot's time, for ParaView (the
 * snapshot's walls group). A wall's reference geometry (engine/config.h) is moved as
 * the engine moves it (engine/walls/walls.h): x = c + R(w t) (x0 - c) + v t. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wall_triangles_free(wall_triangles *t)
{
    free(t->vertices);
    free(t->corners);
    free(t->wall);
    memset(t, 0, sizeof *t);
}

typedef struct builder {
    wall_triangles *out;
    size_t cap_v, cap_t;
    int failed;
} builder;

static size_t add_vertex(builder *b, const double x[3])
{
    wall_triangles *o = b->out;
    if (o->n_vertices == b->cap_v) {
        size_t cap = b->cap_v ? 2 * b->cap_v : 64;
        double *v = realloc(o->vertices, 3 * cap * sizeof *v);
        if (!v) {
            b->failed = 1;
            return 0;
        }
        o->vertices = v;
        b->cap_v = cap;
    }
    memcpy(o->vertices + 3 * o->n_vertices, x, 3 * sizeof *x);
    return o->n_vertices++;
}

static void add_triangle(builder *b, size_t a, size_t c, size_t d, int32_t wall)
{
    wall_triangles *o = b->out;
    if (b->failed) return;
    if (o->n_triangles == b->cap_t) {
        size_t cap = b->cap_t ? 2 * b->cap_t : 64;
        int64_t *k = realloc(o->corners, 3 * cap * sizeof *k);
        if (k) o->corners = k;
        int32_t *w = realloc(o->wall, cap * sizeof *w);
        if (w) o->wall = w;
        if (!k || !w) {
            b->failed = 1;
            return;
        }
        b->cap_t = cap;
    }
    int64_t *k = o->corners + 3 * o->n_triangles;
    k[0] = (int64_t)a;
    k[1] = (int64_t)c;
    k[2] = (int64_t)d;
    o->wall[o->n_triangles++] = wall;
}

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static int normalise(double a[3])
{
    double n = sqrt(dot(a, a));
    if (!(n > 0.0) || !isfinite(n)) return -1;
    for (int k = 0; k < 3; k++) a[k] /= n;
    return 0;
}

/* Two unit vectors perpendicular to unit n and to each other. */
static void basis(const double n[3], double e1[3], double e2[3])
{
    double a[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.9) a[0] = 0, a[1] = 1;
    cross(n, a, e1);
    normalise(e1);
    cross(n, e1, e2);
}

/* Where a wall's reference placement is now. */
typedef struct placement {
    int moves, rotates;
    double rot[9], centre[3], pivot[3], shift[3];
} placement;

static void place_point(const placement *pl, const double x0[3], double x[3])
{
    if (!pl->moves) {
        memcpy(x, x0, 3 * sizeof *x);
    } else if (!pl->rotates) {
        for (int a = 0; a < 3; a++) x[a] = x0[a] + pl->shift[a];
    } else {
        double r[3] = {x0[0] - pl->pivot[0], x0[1] - pl->pivot[1], x0[2] - pl->pivot[2]};
        for (int a = 0; a < 3; a++)
            x[a] = pl->centre[a] + pl->rot[3 * a] * r[0] + pl->rot[3 * a + 1] * r[1] + pl->rot[3 * a + 2] * r[2];
    }
}

static void place_direction(const placement *pl, const double n0[3], double n[3])
{
    if (!pl->moves || !pl->rotates) {
        memcpy(n, n0, 3 * sizeof *n);
        return;
    }
    for (int a = 0; a < 3; a++)
        n[a] = pl->rot[3 * a] * n0[0] + pl->rot[3 * a + 1] * n0[1] + pl->rot[3 * a + 2] * n0[2];
}

/* The convex polygon where the plane (p, n) cuts the box, fanned into triangles; a
 * square of the box's diagonal around the point nearest the box's centre if the plane
 * misses the box. */
static void plane_patch(builder *b, const double p[3], const double n[3], const double lo[3],
                        const double hi[3], int32_t wall)
{
    double size = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                       (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double eps = 1e-12 * (size > 0.0 ? size : 1.0);
    double pts[24][3];
    int np = 0;
    for (int edge = 0; edge < 12; edge++) {
        int axis = edge / 4, other1 = (axis + 1) % 3, other2 = (axis + 2) % 3;
        double a[3], c[3];
        a[axis] = lo[axis];
        c[axis] = hi[axis];
        a[other1] = c[other1] = (edge & 1) ? hi[other1] : lo[other1];
        a[other2] = c[other2] = (edge & 2) ? hi[other2] : lo[other2];
        double da[3] = {a[0] - p[0], a[1] - p[1], a[2] - p[2]}, dc[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]};
        double sa = dot(da, n), sc = dot(dc, n);
        double cand[2][3];
        int nc = 0;
        if (fabs(sa) <= eps) memcpy(cand[nc++], a, sizeof a);
        if (fabs(sc) <= eps) memcpy(cand[nc++], c, sizeof c);
        if (nc == 0 && ((sa < 0.0 && sc > 0.0) || (sa > 0.0 && sc < 0.0))) {
            double f = sa / (sa - sc);
            for (int k = 0; k < 3; k++) cand[0][k] = a[k] + f * (c[k] - a[k]);
            nc = 1;
        }
        for (int q = 0; q < nc; q++) {
            int seen = 0;
            for (int r = 0; r < np && !seen; r++)
                seen = fabs(pts[r][0] - cand[q][0]) <= eps && fabs(pts[r][1] - cand[q][1]) <= eps &&
                       fabs(pts[r][2] - cand[q][2]) <= eps;
            if (!seen && np < 24) memcpy(pts[np++], cand[q], sizeof cand[q]);
        }
    }
    double e1[3], e2[3];
    basis(n, e1, e2);
    if (np < 3) { /* the plane misses the box */
        double centre[3], half = 0.5 * (size > 0.0 ? size : 1.0);
        for (int k = 0; k < 3; k++) centre[k] = 0.5 * (lo[k] + hi[k]);
        double d[3] = {centre[0] - p[0], centre[1] - p[1], centre[2] - p[2]}, s = dot(d, n);
        for (int k = 0; k < 3; k++) centre[k] -= s * n[k];
        np = 4;
        for (int q = 0; q < 4; q++) {
            double u = (q == 0 || q == 3) ? -half : half, v = q < 2 ? -half : half;
            for (int k = 0; k < 3; k++) pts[q][k] = centre[k] + u * e1[k] + v * e2[k];
        }
    }
    /* order around the centroid */
    double mid[3] = {0, 0, 0}, angle[24];
    for (int q = 0; q < np; q++)
        for (int k = 0; k < 3; k++) mid[k] += pts[q][k] / np;
    for (int q = 0; q < np; q++) {
        double d[3] = {pts[q][0] - mid[0], pts[q][1] - mid[1], pts[q][2] - mid[2]};
        angle[q] = atan2(dot(d, e2), dot(d, e1));
    }
    for (int q = 1; q < np; q++) /* insertion sort: at most 24 points */
        for (int r = q; r > 0 && angle[r] < angle[r - 1]; r--) {
            double t = angle[r];
            angle[r] = angle[r - 1];
            angle[r - 1] = t;
            double tmp[3];
            memcpy(tmp, pts[r], sizeof tmp);
            memcpy(pts[r], pts[r - 1], sizeof tmp);
            memcpy(pts[r - 1], tmp, sizeof tmp);
        }
    size_t first = add_vertex(b, pts[0]);
    for (int q = 1; q < np; q++) add_vertex(b, pts[q]);
    for (int q = 1; q + 1 < np; q++) add_triangle(b, first, first + (size_t)q, first + (size_t)q + 1, wall);
}

static void rectangle(builder *b, const wall_spec *w, const placement *pl, int32_t wall)
{
    double v[3];
    cross(w->normal, w->axis_u, v);
    size_t first = 0;
    for (int q = 0; q < 4; q++) {
        double su = (q == 0 || q == 3) ? -1.0 : 1.0, sv = q < 2 ? -1.0 : 1.0, x0[3], x[3];
        for (int k = 0; k < 3; k++)
            x0[k] = w->point[k] + su * w->half_size[0] * w->axis_u[k] + sv * w->half_size[1] * v[k];
        place_point(pl, x0, x);
        size_t id = add_vertex(b, x);
        if (q == 0) first = id;
    }
    add_triangle(b, first, first + 1, first + 2, wall);
    add_triangle(b, first, first + 2, first + 3, wall);
}

static void ring_surface(builder *b, const wall_spec *w, const placement *pl, int32_t wall)
{
    double e1[3], e2[3];
    basis(w->axis, e1, e2);
    size_t first = 0;
    for (int end = 0; end < 2; end++)
        for (int q = 0; q < WALL_RING_SEGMENTS; q++) {
            double phi = 2.0 * M_PI * q / WALL_RING_SEGMENTS, r = w->radii[end], x0[3], x[3];
            for (int k = 0; k < 3; k++)
                x0[k] = w->point[k] + end * w->length * w->axis[k] + r * (cos(phi) * e1[k] + sin(phi) * e2[k]);
            place_point(pl, x0, x);
            size_t id = add_vertex(b, x);
            if (end == 0 && q == 0) first = id;
        }
    for (size_t q = 0; q < WALL_RING_SEGMENTS; q++) {
        size_t a = first + q, c = first + (q + 1) % WALL_RING_SEGMENTS;
        add_triangle(b, a, c, a + WALL_RING_SEGMENTS, wall);
        add_triangle(b, c, c + WALL_RING_SEGMENTS, a + WALL_RING_SEGMENTS, wall);
    }
}

static void stl_surface(builder *b, const wall_spec *w, const placement *pl, int32_t wall)
{
    for (long t = 0; w->mesh && t < w->n_triangles; t++) {
        size_t id[3];
        for (int c = 0; c < 3; c++) {
            double x[3];
            place_point(pl, w->mesh + 9 * t + 3 * c, x);
            id[c] = add_vertex(b, x);
        }
        add_triangle(b, id[0], id[1], id[2], wall);
    }
}

int wall_triangles_build(wall_triangles *out, const wall_set *ws, double t, const double box_min[3],
                         const double box_max[3])
{
    memset(out, 0, sizeof *out);
    builder b = {out, 0, 0, 0};
    if (!ws || ws->n == 0) return 0;
    /* the engine's placement at time t, on a copy of its state (walls_move writes it) */
    wall_set moved = *ws;
    wall_state *state = NULL;
    double *ref = NULL;
    if (ws->state) {
        state = malloc(ws->n * sizeof *state);
        ref = malloc(3 * ws->n * sizeof *ref);
        if (!state || !ref) {
            free(state);
            free(ref);
            return -1;
        }
        memcpy(state, ws->state, ws->n * sizeof *state);
        if (ws->ref_point) memcpy(ref, ws->ref_point, 3 * ws->n * sizeof *ref);
        moved.state = state;
        moved.ref_point = ref;
        walls_move(&moved, t);
    }
    for (size_t k = 0; k < ws->n && !b.failed; k++) {
        const wall_spec *w = &ws->walls[k];
        placement pl = {0};
        if (state && state[k].shape_moves) {
            pl.moves = 1;
            pl.rotates = state[k].rotates_shape;
            memcpy(pl.rot, state[k].rot, sizeof pl.rot);
            memcpy(pl.centre, state[k].centre, sizeof pl.centre);
            memcpy(pl.pivot, w->rotation_point, sizeof pl.pivot);
            memcpy(pl.shift, state[k].shift, sizeof pl.shift);
        }
        int32_t id = (int32_t)k;
        switch (w->kind) {
        case WALL_PLANE: {
            double p[3], n[3];
            place_point(&pl, w->point, p);
            place_direction(&pl, w->normal, n);
            if (normalise(n) == 0) plane_patch(&b, p, n, box_min, box_max, id);
            break;
        }
        case WALL_RECTANGLE: rectangle(&b, w, &pl, id); break;
        case WALL_CYLINDER:
        case WALL_CONE: ring_surface(&b, w, &pl, id); break;
        case WALL_STL: stl_surface(&b, w, &pl, id); break;
        }
    }
    free(state);
    free(ref);
    if (b.failed) {
        wall_triangles_free(out);
        return -1;
    }
    return 0;
}

int snapshot_write_servo(hid_t e, const wall_set *ws)
{
    if (walls_n_servo(ws) == 0) return 0;
    double *servo = malloc(WALL_SERVO_STATE * ws->n * sizeof *servo);
    if (!servo) {
        snprintf(sh5_error, sizeof sh5_error, "out of memory");
        snapshot_no_memory = 1;
        return -1;
    }
    walls_servo_save(ws, servo);
    const field_doc *doc = snapshot_field_doc("engine", "wall_servo");
    hsize_t dims[2] = {(hsize_t)ws->n, WALL_SERVO_STATE};
    int rc = sh5_dataset(e, "wall_servo", SH5_F64, 2, dims, servo, doc->unit, doc->meaning);
    free(servo);
    return rc;
}
