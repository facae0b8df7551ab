/* Walls at run time: their placement at the current time, distances from it, the
 * neighbour-rebuild criterion of moving walls, and checks of the starting particles.
 *
 * Moving walls and the neighbour list. Wall contacts are the candidates found at each
 * rebuild: every particle whose centre is within radius + skin of a wall. Between
 * rebuilds a particle moves at most skin / 2 (the particles' own criterion); a moving
 * wall must move at most skin / 2 too, so that no pair closes a gap of `skin` unseen.
 * The walls force a rebuild each time the simulated time crosses a multiple of
 *   T = skin / (4 V),
 * V the fastest speed of any wall surface (translation speed plus angular speed times
 * the largest distance of the surface from the rotation axis), and every step when a
 * wall moves more than skin / 4 per step: since the last rebuild a wall has then moved
 * at most V (T + dt) <= skin / 2. The criterion depends on the step number alone, so a
 * restarted run rebuilds when the original did. Motions that leave a surface in place
 * (a cylinder or cone spinning about its own axis, a plane spinning about its normal or
 * sliding in itself) have V = 0 and never force a rebuild: a rotating drum costs
 * nothing extra. A servo wall (wall_servo.c) moves at most at its speed limit: that
 * limit is its V. */
#include "walls.h"
#include "engine/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static double norm(const double a[3])
{
    return sqrt(dot(a, a));
}

/* Distance of x from the line through c along unit u. */
static double distance_from_line(const double x[3], const double c[3], const double u[3])
{
    double rel[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]}, perp[3];
    cross(rel, u, perp);
    return norm(perp);
}

static const char *kind_name(wall_kind k)
{
    switch (k) {
    case WALL_PLANE: return "plane";
    case WALL_RECTANGLE: return "rectangle";
    case WALL_CYLINDER: return "cylinder";
    case WALL_CONE: return "cone";
    default: return "stl";
    }
}

/* Checks what the reader checks, for walls made in code. */
static int check_shape(const wall_spec *w, size_t k, char *err, size_t err_len)
{
    const double tol = 1e-9;
    if (w->kind == WALL_PLANE || w->kind == WALL_RECTANGLE) {
        if (fabs(norm(w->normal) - 1.0) > tol) {
            snprintf(err, err_len, "walls[%zu].normal: must be a unit vector", k);
            return -1;
        }
    }
    if (w->kind == WALL_RECTANGLE &&
        (fabs(norm(w->axis_u) - 1.0) > tol || !(w->half_size[0] > 0.0 && w->half_size[1] > 0.0))) {
        snprintf(err, err_len, "walls[%zu]: a rectangle needs a unit axis and half sizes > 0", k);
        return -1;
    }
    if (w->kind == WALL_CYLINDER || w->kind == WALL_CONE) {
        if (fabs(norm(w->axis) - 1.0) > tol) {
            snprintf(err, err_len, "walls[%zu].axis: must be a unit vector", k);
            return -1;
        }
        if (!(w->length > 0.0) || !isfinite(w->length)) {
            snprintf(err, err_len, "walls[%zu].length = %g must be > 0", k, w->length);
            return -1;
        }
        if (!(w->radii[0] >= 0.0 && w->radii[1] >= 0.0 && w->radii[0] + w->radii[1] > 0.0)) {
            snprintf(err, err_len, "walls[%zu]: the radii (%g, %g) must be >= 0 and not both 0",
                     k, w->radii[0], w->radii[1]);
            return -1;
        }
        if (w->kind == WALL_CYLINDER && w->radii[0] != w->radii[1]) {
            snprintf(err, err_len, "walls[%zu]: a cylinder has one radius", k);
            return -1;
        }
    }
    if (w->kind == WALL_STL && (!w->mesh || w->n_triangles <= 0)) {
        snprintf(err, err_len, "walls[%zu]: the surface has no triangles", k);
        return -1;
    }
    return 0;
}

/* Largest distance from the rotation axis of any point of the wall's surface (an upper
 * bound for cylinders and cones). */
static double rotation_reach(const wall_spec *w, const wall_state *st)
{
    const double *c = w->rotation_point, *u = w->rotation_axis;
    switch (w->kind) {
    case WALL_RECTANGLE: {
        double v_axis[3], reach = 0.0;
        cross(w->normal, w->axis_u, v_axis);
        for (int corner = 0; corner < 4; corner++) {
            double su = corner & 1 ? 1.0 : -1.0, sv = corner & 2 ? 1.0 : -1.0, x[3];
            for (int a = 0; a < 3; a++)
                x[a] = w->point[a] + su * w->half_size[0] * w->axis_u[a] +
                       sv * w->half_size[1] * v_axis[a];
            reach = fmax(reach, distance_from_line(x, c, u));
        }
        return reach;
    }
    case WALL_CYLINDER:
    case WALL_CONE: {
        double end[3];
        for (int a = 0; a < 3; a++) end[a] = w->point[a] + w->length * w->axis[a];
        return fmax(distance_from_line(w->point, c, u) + w->radii[0],
                    distance_from_line(end, c, u) + w->radii[1]);
    }
    case WALL_STL: return wall_mesh_reach(st->mesh, c, u);
    default: return HUGE_VAL;
    }
}

/* Whether turning about the rotation axis leaves the surface where it is. */
static int rotation_keeps_shape(const wall_spec *w)
{
    double x[3];
    if (w->kind == WALL_PLANE) {
        cross(w->rotation_axis, w->normal, x);
        return norm(x) <= 1e-12;
    }
    if (w->kind != WALL_CYLINDER && w->kind != WALL_CONE) return 0;
    cross(w->rotation_axis, w->axis, x);
    double size = norm(w->point) + w->length + w->radii[0] + w->radii[1];
    return norm(x) <= 1e-12 && distance_from_line(w->rotation_point, w->point, w->axis) <= 1e-12 * size;
}

/* How far the translation has taken the wall by time t, and its velocity then: v t, or
 * the schedule's segments summed, each v_s times the time spent in it (at a segment's
 * end the velocity is the next segment's; after the last, zero). */
static void wall_translation(const wall_spec *w, double t, double shift[3], double v[3])
{
    for (int a = 0; a < 3; a++) {
        shift[a] = w->n_motion ? 0.0 : w->velocity[a] * t;
        v[a] = w->n_motion ? 0.0 : w->velocity[a];
    }
    double start = 0.0;
    for (int s = 0; s < w->n_motion; s++) {
        const double *vs = w->motion_velocity[s], end = start + w->motion_duration[s];
        if (t < end || t <= start) {
            for (int a = 0; a < 3; a++) {
                if (t > start) shift[a] += vs[a] * (t - start);
                v[a] = vs[a];
            }
            return;
        }
        for (int a = 0; a < 3; a++) shift[a] += vs[a] * w->motion_duration[s];
        start = end;
    }
}

/* The largest translation speed (along n if n is not NULL) of the motion. */
static double translation_speed(const wall_spec *w, const double *n)
{
    double top = n ? fabs(dot(w->velocity, n)) : norm(w->velocity);
    for (int s = 0; s < w->n_motion; s++) {
        double v = n ? fabs(dot(w->motion_velocity[s], n)) : norm(w->motion_velocity[s]);
        top = v > top || isnan(v) ? v : top;
    }
    return top;
}

static int setup_motion(const wall_spec *w, wall_state *st, size_t k, char *err, size_t err_len)
{
    if (wall_servo_check(w, k, err, err_len) != 0) return -1;
    if (w->n_servo > 0) { /* moves along its normal, at most at its largest speed limit */
        st->servo = st->moves = st->shape_moves = 1;
        for (int q = 0; q < w->n_servo; q++)
            st->surface_speed = fmax(st->surface_speed, w->servo_speed[q]);
        return 0;
    }
    double speed = translation_speed(w, NULL);
    int turns = w->angular_velocity != 0.0;
    if (!isfinite(speed) || !isfinite(w->angular_velocity)) {
        snprintf(err, err_len, "walls[%zu]: its motion is not finite", k);
        return -1;
    }
    if (turns && fabs(norm(w->rotation_axis) - 1.0) > 1e-9) {
        snprintf(err, err_len, "walls[%zu].rotation.axis: must be a unit vector", k);
        return -1;
    }
    st->moves = speed > 0.0 || turns;
    for (int a = 0; a < 3; a++) st->omega[a] = turns ? w->angular_velocity * w->rotation_axis[a] : 0.0;
    st->rotates_shape = turns && !rotation_keeps_shape(w);
    if (w->kind == WALL_PLANE && st->rotates_shape) {
        snprintf(err, err_len, "walls[%zu].rotation: an infinite plane can only turn about its "
                               "normal; use a rectangle (or an STL surface) for a turning flat wall",
                 k);
        return -1;
    }
    double shift_speed = w->kind == WALL_PLANE ? translation_speed(w, w->normal) : speed;
    st->surface_speed = shift_speed;
    if (st->rotates_shape) st->surface_speed += fabs(w->angular_velocity) * rotation_reach(w, st);
    st->shape_moves = st->surface_speed > 0.0;
    return 0;
}

int walls_init(wall_set *ws, wall_spec *walls, size_t n, char *err, size_t err_len)
{
    memset(ws, 0, sizeof *ws);
    ws->walls = walls;
    ws->n = n;
    int rc = FAIL_REFUSED;
    if (n == 0) return 0;
    ws->state = calloc(n, sizeof *ws->state);
    ws->force = calloc(3 * n, sizeof *ws->force);
    ws->torque = calloc(3 * n, sizeof *ws->torque);
    ws->ref_point = calloc(3 * n, sizeof *ws->ref_point);
    ws->work = calloc(n, sizeof *ws->work);
    ws->work_sum = calloc(n, sizeof *ws->work_sum);
    if (!ws->state || !ws->force || !ws->torque || !ws->ref_point || !ws->work || !ws->work_sum) {
        snprintf(err, err_len, "out of memory");
        walls_free(ws);
        return FAIL_NO_MEMORY;
    }
    for (size_t k = 0; k < n; k++) {
        const wall_spec *w = &walls[k];
        wall_state *st = &ws->state[k];
        if (check_shape(w, k, err, err_len) != 0) goto fail;
        if (w->kind == WALL_STL) {
            char msg[256];
            int no_memory;
            st->mesh = wall_mesh_build(w->mesh, w->n_triangles, &no_memory, msg, sizeof msg);
            if (!st->mesh) {
                snprintf(err, err_len, "walls[%zu]: %s (%s '%s')", k, msg, kind_name(w->kind),
                         w->name);
                rc = no_memory ? FAIL_NO_MEMORY : FAIL_REFUSED;
                goto fail;
            }
        }
        if (setup_motion(w, st, k, err, err_len) != 0) goto fail;
        if (st->surface_speed > ws->max_surface_speed) ws->max_surface_speed = st->surface_speed;
        if (st->moves) ws->n_moving++;
    }
    walls_move(ws, 0.0);
    return 0;
fail:
    walls_free(ws);
    return rc;
}

void walls_free(wall_set *ws)
{
    for (size_t k = 0; ws->state && k < ws->n; k++) wall_mesh_free(ws->state[k].mesh);
    free(ws->state);
    free(ws->force);
    free(ws->torque);
    free(ws->ref_point);
    free(ws->work);
    free(ws->work_sum);
    free(ws->partial);
    free(ws->exact);
    memset(ws, 0, sizeof *ws);
}

/* Rodrigues: R = cos I + sin [u]x + (1 - cos) u u^T. */
static void rotation_matrix(const double u[3], double angle, double r[9])
{
    double c = cos(angle), s = sin(angle), t = 1.0 - c;
    r[0] = c + t * u[0] * u[0];
    r[1] = t * u[0] * u[1] - s * u[2];
    r[2] = t * u[0] * u[2] + s * u[1];
    r[3] = t * u[1] * u[0] + s * u[2];
    r[4] = c + t * u[1] * u[1];
    r[5] = t * u[1] * u[2] - s * u[0];
    r[6] = t * u[2] * u[0] - s * u[1];
    r[7] = t * u[2] * u[1] + s * u[0];
    r[8] = c + t * u[2] * u[2];
}

void walls_move(wall_set *ws, double t)
{
    ws->time = t;
    for (size_t k = 0; k < ws->n; k++) {
        const wall_spec *w = &ws->walls[k];
        wall_state *st = &ws->state[k];
        const double *ref = w->angular_velocity != 0.0 ? w->rotation_point : w->point;
        if (st->servo) walls_servo_place(w, st, t);
        else wall_translation(w, t, st->shift, st->velocity);
        for (int a = 0; a < 3; a++) {
            st->centre[a] = w->rotation_point[a] + st->shift[a];
            st->ref_point[a] = ref[a] + st->shift[a];
            ws->ref_point[3 * k + a] = st->ref_point[a];
        }
        if (st->rotates_shape) rotation_matrix(w->rotation_axis, w->angular_velocity * t, st->rot);
    }
}

int walls_need_rebuild(const wall_set *ws, double t_old, double t_new, double skin)
{
    double v = ws->max_surface_speed;
    if (!(v > 0.0)) return 0;
    if (v * (t_new - t_old) > 0.25 * skin) return 1;
    double period = 0.25 * skin / v;
    return floor(t_new / period) != floor(t_old / period);
}

/* The point of the reference placement that is at x now. */
static void to_reference(const wall_spec *w, const wall_state *st, const double x[3], double out[3])
{
    if (!st->rotates_shape) {
        for (int a = 0; a < 3; a++) out[a] = x[a] - st->shift[a];
        return;
    }
    double rel[3] = {x[0] - st->centre[0], x[1] - st->centre[1], x[2] - st->centre[2]};
    for (int a = 0; a < 3; a++) /* R^T rel */
        out[a] = w->rotation_point[a] +
                 (st->rot[a] * rel[0] + st->rot[3 + a] * rel[1] + st->rot[6 + a] * rel[2]);
}

static void to_world_direction(const wall_state *st, double n[3])
{
    if (!st->rotates_shape) return;
    double r[3];
    for (int a = 0; a < 3; a++)
        r[a] = st->rot[3 * a] * n[0] + st->rot[3 * a + 1] * n[1] + st->rot[3 * a + 2] * n[2];
    for (int a = 0; a < 3; a++) n[a] = r[a];
}

double walls_distance(const wall_set *ws, size_t k, const double c[3], double n[3])
{
    const wall_spec *w = &ws->walls[k];
    const wall_state *st = &ws->state[k];
    if (!st->shape_moves) return wall_distance(w, c, n);
    double x[3];
    to_reference(w, st, c, x);
    double d = wall_distance(w, x, n);
    to_world_direction(st, n);
    return d;
}

int walls_mesh_contacts(const wall_set *ws, size_t k, const double c[3], double reach,
                        wall_contact *out, int max)
{
    const wall_spec *w = &ws->walls[k];
    const wall_state *st = &ws->state[k];
    double x[3];
    if (st->shape_moves) to_reference(w, st, c, x);
    else memcpy(x, c, sizeof x);
    int n = wall_mesh_contacts(st->mesh, x, reach, out, max);
    for (int q = 0; q < n; q++) to_world_direction(st, out[q].n);
    return n;
}

size_t walls_slots(const wall_set *ws, size_t k, const double c[3], double reach)
{
    const wall_spec *w = &ws->walls[k];
    const wall_state *st = &ws->state[k];
    if (w->kind != WALL_STL) {
        double n[3];
        return walls_distance(ws, k, c, n) < reach ? 1 : 0;
    }
    double x[3];
    if (st->shape_moves) to_reference(w, st, c, x);
    else memcpy(x, c, sizeof x);
    return wall_mesh_count_near(st->mesh, x, reach, WALL_MAX_SLOTS);
}

void walls_point_velocity(const wall_set *ws, size_t k, const double x[3], double v[3])
{
    const wall_state *st = &ws->state[k];
    double rel[3] = {x[0] - st->centre[0], x[1] - st->centre[1], x[2] - st->centre[2]}, wx[3];
    cross(st->omega, rel, wx);
    for (int a = 0; a < 3; a++) v[a] = st->velocity[a] + wx[a];
}

int walls_check_particles(const wall_set *ws, const particle_store *p, char *err,
                          size_t err_len)
{
    for (size_t k = 0; k < ws->n; k++) {
        const wall_spec *w = &ws->walls[k];
        if (w->kind != WALL_CYLINDER && w->kind != WALL_CONE) continue;
        int inner = w->side == WALL_SIDE_INNER;
        for (size_t i = 0; i < p->n_local; i++) {
            double c[3] = {p->x[i], p->y[i], p->z[i]}, x[3];
            if (ws->state[k].shape_moves) to_reference(w, &ws->state[k], c, x);
            else memcpy(x, c, sizeof x);
            double rel[3] = {x[0] - w->point[0], x[1] - w->point[1], x[2] - w->point[2]};
            double s = dot(rel, w->axis);
            if (s < 0.0 || s > w->length) continue;
            double perp[3];
            for (int a = 0; a < 3; a++) perp[a] = rel[a] - s * w->axis[a];
            double r = norm(perp);
            double r_wall = w->radii[0] + (w->radii[1] - w->radii[0]) * s / w->length;
            if (inner ? r <= r_wall : r >= r_wall) continue;
            snprintf(err, err_len,
                     "walls[%zu]: particle %lld at (%g, %g, %g) starts %s %s '%s' (side: %s, "
                     "radius %g m there, the centre is %g m from the axis): particles must "
                     "start on the %s side", k, (long long)p->id[i], c[0], c[1], c[2],
                     inner ? "outside" : "inside", kind_name(w->kind), w->name,
                     inner ? "inner" : "outer", r_wall, r, inner ? "inner" : "outer");
            return -1;
        }
    }
    return 0;
}
