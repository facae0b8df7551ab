#include "walls.h"

#include <math.h>

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double wall_distance(const wall_spec *w, const double c[3], double n[3])
{
    double rel[3] = {c[0] - w->point[0], c[1] - w->point[1], c[2] - w->point[2]};
    double h = dot(rel, w->normal); /* height above the plane */
    if (w->kind == WALL_PLANE) {
        /* one-sided: a centre behind the plane still gets pushed back along the normal */
        for (int a = 0; a < 3; a++) n[a] = -w->normal[a];
        return h;
    }
    /* rectangle: clamp the in-plane coordinates to the rectangle */
    double v_axis[3] = {w->normal[1] * w->axis_u[2] - w->normal[2] * w->axis_u[1],
                        w->normal[2] * w->axis_u[0] - w->normal[0] * w->axis_u[2],
                        w->normal[0] * w->axis_u[1] - w->normal[1] * w->axis_u[0]};
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
