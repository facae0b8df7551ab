/* Servo walls: a plane or rectangle that moves along its normal n to hold a target
 * normal load, the standard DEM servo (a proportional controller, as PFC's and
 * LIGGGHTS's servo walls).
 *
 * The load. F = -(load on the wall) . n, the force with which the particles push the
 * wall back along -n (compressive: > 0), as wall_loads_sum summed it after the step's
 * force computation: in a fixed order (or exactly, by id), so the same bits for any
 * number of threads, and over every rank (a split run sums exactly and reduces the
 * sums), so every rank moves the wall alike.
 *
 * The controller. After the forces at t_n the wall takes for the step to t_n+1 the speed
 *   u_n = gain (F_target(t_n) - F_n),   clipped to |u_n| <= max_speed(t_n),
 * along n (towards the particles when they push less than the target), and moves by
 * u_n dt: x(t) = x_n + u_n (t - t_n). Quasi-statically a bed of stiffness K under the
 * wall then closes the error by the factor (1 - gain K dt) per step: the load relaxes
 * to the target with the time constant 1 / (gain K), and the gain must keep
 * gain K dt < 1 (docs/case-file.md, "Servo walls", says how to choose it). The speed
 * limit bounds how far the wall moves per step (max_speed dt), and so the neighbour
 * rebuilds (walls.c): the largest speed limit of its schedule is its surface speed.
 *
 * Restarts. The state (x_n, t_n, u_n, and where the wall was at the last rebuild) is
 * written with each snapshot (engine/wall_servo) and read back, so a restarted run
 * moves it as the original did. */
#include "walls.h"

#include <math.h>
#include <stdio.h>

int wall_servo_check(const wall_spec *w, size_t k, char *err, size_t err_len)
{
    if (w->n_servo == 0) return 0;
    if (w->kind != WALL_PLANE && w->kind != WALL_RECTANGLE) {
        snprintf(err, err_len, "walls[%zu].servo: only a plane or a rectangle can be a servo wall", k);
        return -1;
    }
    if (w->n_motion > 0 || w->velocity[0] != 0.0 || w->velocity[1] != 0.0 ||
        w->velocity[2] != 0.0 || w->angular_velocity != 0.0) {
        snprintf(err, err_len, "walls[%zu].servo: a servo wall moves itself; give it no velocity, "
                               "motion or rotation", k);
        return -1;
    }
    if (w->n_servo < 0 || w->n_servo > WALL_MAX_SERVO) {
        snprintf(err, err_len, "walls[%zu].servo.targets: %d entries, 1 to %d", k, w->n_servo,
                 WALL_MAX_SERVO);
        return -1;
    }
    if (!(w->servo_gain > 0.0) || !isfinite(w->servo_gain)) {
        snprintf(err, err_len, "walls[%zu].servo.gain = %g must be > 0 and finite [m/(N s)]", k,
                 w->servo_gain);
        return -1;
    }
    for (int q = 0; q < w->n_servo; q++) {
        double t = w->servo_time[q], f = w->servo_force[q], v = w->servo_speed[q];
        if (!(t >= 0.0) || !isfinite(t) || (q > 0 && t < w->servo_time[q - 1])) {
            snprintf(err, err_len, "walls[%zu].servo.targets[%d].time = %g must be finite, >= 0 "
                                   "and not before the entry above", k, q, t);
            return -1;
        }
        if (!(f >= 0.0) || !isfinite(f)) {
            snprintf(err, err_len, "walls[%zu].servo.targets[%d]: the target force %g N must be "
                                   ">= 0 and finite", k, q, f);
            return -1;
        }
        if (!(v > 0.0) || !isfinite(v)) {
            snprintf(err, err_len, "walls[%zu].servo.targets[%d].max_speed = %g must be > 0 and "
                                   "finite [m/s]", k, q, v);
            return -1;
        }
    }
    return 0;
}

double wall_servo_target(const wall_spec *w, double t, double *limit)
{
    int k = 0; /* the last entry at or before t (the first before them all) */
    while (k + 1 < w->n_servo && w->servo_time[k + 1] <= t) k++;
    *limit = w->servo_speed[k];
    if (t <= w->servo_time[0] || k + 1 == w->n_servo) return w->servo_force[k];
    double t0 = w->servo_time[k], t1 = w->servo_time[k + 1]; /* t0 <= t < t1 */
    return w->servo_force[k] + (w->servo_force[k + 1] - w->servo_force[k]) * ((t - t0) / (t1 - t0));
}

void walls_servo_update(wall_set *ws)
{
    for (size_t k = 0; k < ws->n; k++) {
        wall_state *st = &ws->state[k];
        if (!st->servo) continue;
        const wall_spec *w = &ws->walls[k];
        const double *f = ws->force + 3 * k, *n = w->normal;
        double load = -(f[0] * n[0] + f[1] * n[1] + f[2] * n[2]);
        double limit, target = wall_servo_target(w, ws->time, &limit);
        double u = w->servo_gain * (target - load);
        if (isnan(u)) u = 0.0; /* a failed force computation: the run stops on it */
        if (u > limit) u = limit;
        if (u < -limit) u = -limit;
        st->servo_x = st->servo_now;
        st->servo_t = ws->time;
        st->servo_v = u;
    }
}

void walls_servo_place(const wall_spec *w, wall_state *st, double t)
{
    /* the replays of the last rebuild ask for its time (list_build.c, restore.c) */
    double x = t == st->rebuild_t ? st->rebuild_x : st->servo_x + st->servo_v * (t - st->servo_t);
    st->servo_now = x;
    for (int a = 0; a < 3; a++) {
        st->shift[a] = x * w->normal[a];
        st->velocity[a] = st->servo_v * w->normal[a];
    }
}

void walls_mark_rebuild(wall_set *ws)
{
    for (size_t k = 0; k < ws->n; k++) {
        wall_state *st = &ws->state[k];
        if (!st->servo) continue;
        st->rebuild_x = st->servo_now;
        st->rebuild_t = ws->time;
    }
}

size_t walls_n_servo(const wall_set *ws)
{
    size_t n = 0;
    for (size_t k = 0; k < ws->n; k++) n += ws->state[k].servo != 0;
    return n;
}

void walls_servo_save(const wall_set *ws, double *out)
{
    for (size_t k = 0; k < ws->n; k++) {
        const wall_state *st = &ws->state[k];
        double *o = out + WALL_SERVO_STATE * k;
        o[0] = st->servo_x;
        o[1] = st->servo_t;
        o[2] = st->servo_v;
        o[3] = st->rebuild_x;
        o[4] = st->rebuild_t;
    }
}

int walls_servo_load(wall_set *ws, const double *in, char *err, size_t err_len)
{
    for (size_t k = 0; k < ws->n; k++) {
        wall_state *st = &ws->state[k];
        const double *v = in + WALL_SERVO_STATE * k;
        if (!st->servo) continue;
        for (int q = 0; q < WALL_SERVO_STATE; q++)
            if (!isfinite(v[q])) {
                snprintf(err, err_len, "walls[%zu]: the servo state's value %d is %g, not finite",
                         k, q, v[q]);
                return -1;
            }
        st->servo_x = v[0];
        st->servo_t = v[1];
        st->servo_v = v[2];
        st->rebuild_x = v[3];
        st->rebuild_t = v[4];
    }
    return 0;
}
