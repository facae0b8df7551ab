/* The closest point of each analytic wall shape, in the wall's reference placement, and
 * the closest point of one triangle. */
#include "walls.h"

#include <math.h>

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* A unit vector perpendicular to the unit vector u (a fixed choice). */
static void any_perpendicular(const double u[3], double e[3])
{
    int k = fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0
            : fabs(u[1]) <= fabs(u[2])                            ? 1
                                                                  : 2;
    double axis[3] = {0.0, 0.0, 0.0};
    axis[k] = 1.0;
    cross(u, axis, e);
    double len = sqrt(dot(e, e));
    for (int a = 0; a < 3; a++) e[a] /= len;
}

static double rectangle_distance(const wall_spec *w, const double c[3], double n[3])
{
    double rel[3] = {c[0] - w->point[0], c[1] - w->point[1], c[2] - w->point[2]};
    double v_axis[3];
    cross(w->normal, w->axis_u, v_axis);
    double u = fmax(-w->half_size[0], fmin(w->half_size[0], dot(rel, w->axis_u)));
    double v = fmax(-w->half_size[1], fmin(w->half_size[1], dot(rel, v_axis)));
    double to[3], len2 = 0.0;
    for (int a = 0; a < 3; a++) {
        double closest = w->point[a] + u * w->axis_u[a] + v * v_axis[a];
        to[a] = closest - c[a];
        len2 += to[a] * to[a];
    }
    double len = sqrt(len2);
    if (len == 0.0) { /* centre exactly on the rectangle: push along the normal */
        for (int a = 0; a < 3; a++) n[a] = -w->normal[a];
        return 0.0;
    }
    for (int a = 0; a < 3; a++) n[a] = to[a] / len;
    return len;
}

/* Cylinder (radii equal) and cone: a surface of revolution whose meridian is the
 * segment from (s, r) = (0, r0) to (length, r1), s along the axis from `point`, r the
 * distance from the axis. The closest point lies in the centre's own meridian
 * half-plane, so the problem is the 2D distance from (s_c, r_c) to that segment. Where
 * the centre's foot falls on the segment the distance is signed (positive on the
 * particles' side: inside for WALL_SIDE_INNER); past either end the closest point is
 * the end's rim, at an unsigned distance (the ends are open). */
static double frustum_distance(const wall_spec *w, const double c[3], double n[3])
{
    const double *u = w->axis;
    double rel[3] = {c[0] - w->point[0], c[1] - w->point[1], c[2] - w->point[2]};
    double s = dot(rel, u), rho[3], e[3];
    for (int a = 0; a < 3; a++) rho[a] = rel[a] - s * u[a];
    double r = sqrt(dot(rho, rho));
    if (r > 0.0) {
        for (int a = 0; a < 3; a++) e[a] = rho[a] / r;
    } else { /* on the axis: every meridian is as close; take a fixed one */
        any_perpendicular(u, e);
    }
    double r0 = w->radii[0], L = w->length, dr = w->radii[1] - r0;
    double ell = sqrt(L * L + dr * dr);
    double ts = L / ell, tr = dr / ell; /* unit tangent of the meridian */
    double ms = -tr, mr = ts;           /* unit normal away from the axis */
    double tau = s * ts + (r - r0) * tr;
    double inner = w->side == WALL_SIDE_INNER ? 1.0 : -1.0;
    if (tau >= 0.0 && tau <= ell) {
        double h = s * ms + (r - r0) * mr; /* > 0: the centre is outside the surface */
        for (int a = 0; a < 3; a++) n[a] = inner * (ms * u[a] + mr * e[a]);
        return -inner * h;
    }
    double qs = tau < 0.0 ? 0.0 : L, qr = tau < 0.0 ? r0 : r0 + dr;
    double ds = qs - s, dq = qr - r, len = sqrt(ds * ds + dq * dq);
    if (len == 0.0) {
        for (int a = 0; a < 3; a++) n[a] = inner * (ms * u[a] + mr * e[a]);
        return 0.0;
    }
    for (int a = 0; a < 3; a++) n[a] = (ds * u[a] + dq * e[a]) / len;
    return len;
}

double wall_distance(const wall_spec *w, const double c[3], double n[3])
{
    switch (w->kind) {
    case WALL_PLANE: {
        double rel[3] = {c[0] - w->point[0], c[1] - w->point[1], c[2] - w->point[2]};
        /* one-sided: a centre behind the plane still gets pushed back along the normal */
        for (int a = 0; a < 3; a++) n[a] = -w->normal[a];
        return dot(rel, w->normal); /* height above the plane */
    }
    case WALL_RECTANGLE: return rectangle_distance(w, c, n);
    case WALL_CYLINDER:
    case WALL_CONE: return frustum_distance(w, c, n);
    default: /* WALL_STL: see walls_mesh_contacts */
        n[0] = n[1] = 0.0;
        n[2] = -1.0;
        return HUGE_VAL;
    }
}

/* Ericson, Real-Time Collision Detection, 5.1.5: the Voronoi region of p among the
 * triangle's vertices, edges and face, tested in that order. */
int wall_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                             const double c[3], double q[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k];
        cp[k] = p[k] - c[k];
    }
    double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        for (int k = 0; k < 3; k++) q[k] = a[k];
        return 1;
    }
    double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        for (int k = 0; k < 3; k++) q[k] = b[k];
        return 2;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double t = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++) q[k] = a[k] + t * ab[k];
        return 4;
    }
    double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        for (int k = 0; k < 3; k++) q[k] = c[k];
        return 3;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double t = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++) q[k] = a[k] + t * ac[k];
        return 6;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++) q[k] = b[k] + t * (c[k] - b[k]);
        return 5;
    }
    double denom = 1.0 / (va + vb + vc);
    double v = vb * denom, w = vc * denom;
    for (int k = 0; k < 3; k++) q[k] = a[k] + ab[k] * v + ac[k] * w;
    return 0;
}
