/* Servo walls (engine/walls/wall_servo.c) against their documented rule
 * (docs/case-file.md, "Servo walls"): the target schedule (linear between entries, a step
 * at equal times, constant outside), the speed limit of each entry, the controller
 *   u = gain (F_target - F),  |u| <= max_speed,
 * with F the load along -normal, the placement x(t) = x_n + u_n (t - t_n), the replay of
 * the last rebuild's placement, and the refusals of walls made in code. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/walls/walls.h"

/* A plane at z = 1 facing down (the particles below), a servo on it. */
static wall_spec servo_plane(void)
{
    wall_spec w;
    memset(&w, 0, sizeof w);
    w.kind = WALL_PLANE;
    w.point[2] = 1.0;
    w.normal[2] = -1.0;
    w.servo_gain = 0.5;
    const double t[] = {0.0, 1.0, 1.0, 2.0, 3.0}, f[] = {0.0, 10.0, 4.0, 4.0, 8.0},
                 v[] = {1.0, 0.25, 0.25, 2.0, 0.5};
    w.n_servo = 5;
    for (int k = 0; k < 5; k++) {
        w.servo_time[k] = t[k];
        w.servo_force[k] = f[k];
        w.servo_speed[k] = v[k];
    }
    return w;
}

static void schedule(void **state)
{
    (void)state;
    wall_spec w = servo_plane();
    double limit;
    assert_true(wall_servo_target(&w, -1.0, &limit) == 0.0 && limit == 1.0); /* before: first */
    assert_true(wall_servo_target(&w, 0.25, &limit) == 2.5 && limit == 1.0); /* ramp 0 -> 10 */
    assert_true(wall_servo_target(&w, 0.999, &limit) > 9.98 && limit == 1.0);
    assert_true(wall_servo_target(&w, 1.0, &limit) == 4.0 && limit == 0.25); /* the step */
    assert_true(wall_servo_target(&w, 1.5, &limit) == 4.0 && limit == 0.25); /* held */
    assert_true(wall_servo_target(&w, 2.5, &limit) == 6.0 && limit == 2.0);  /* ramp 4 -> 8 */
    assert_true(wall_servo_target(&w, 9.0, &limit) == 8.0 && limit == 0.5);  /* after: last */
}

static void controller(void **state)
{
    (void)state;
    wall_spec w = servo_plane();
    wall_set ws;
    char err[256];
    assert_int_equal(walls_init(&ws, &w, 1, err, sizeof err), 0);
    assert_true(ws.state[0].servo && ws.state[0].moves && ws.max_surface_speed == 2.0);
    /* t = 1.5: target 4 N, limit 0.25 m/s. The particles push the wall up (+z) with 3.8 N:
     * u = 0.5 (4 - 3.8) = 0.1 m/s towards them (along the normal, -z) */
    walls_move(&ws, 1.5);
    ws.force[2] = 3.8;
    walls_servo_update(&ws);
    assert_true(fabs(ws.state[0].servo_v - 0.5 * (4.0 - 3.8)) < 1e-15);
    walls_move(&ws, 1.75);
    assert_true(fabs(ws.state[0].shift[2] - (-0.1 * 0.25)) < 1e-15);
    assert_true(fabs(ws.state[0].velocity[2] + 0.1) < 1e-15);
    walls_mark_rebuild(&ws); /* rebuilt at 1.75 */
    /* far below the target: clipped to +0.25 m/s; far above: -0.25 m/s (it retreats) */
    ws.force[2] = 0.0;
    walls_servo_update(&ws);
    assert_true(ws.state[0].servo_v == 0.25);
    walls_move(&ws, 1.8);
    double x = ws.state[0].servo_now;
    assert_true(fabs(x - (0.025 + 0.25 * 0.05)) < 1e-15);
    ws.force[2] = 100.0;
    walls_servo_update(&ws);
    assert_true(ws.state[0].servo_v == -0.25);
    /* the replay of the rebuild finds the wall where it was then, and comes back */
    walls_move(&ws, 1.75);
    assert_true(fabs(ws.state[0].servo_now - 0.025) < 1e-15);
    walls_move(&ws, 1.8);
    assert_true(ws.state[0].servo_now == x);
    /* a load that is not a number stops it (the run stops on it) */
    ws.force[2] = NAN;
    walls_servo_update(&ws);
    assert_true(ws.state[0].servo_v == 0.0);
    /* the restart state round trip */
    double saved[WALL_SERVO_STATE];
    walls_servo_save(&ws, saved);
    ws.state[0].servo_x = ws.state[0].rebuild_x = -7.0;
    assert_int_equal(walls_servo_load(&ws, saved, err, sizeof err), 0);
    walls_move(&ws, 1.75);
    assert_true(fabs(ws.state[0].servo_now - 0.025) < 1e-15);
    saved[2] = INFINITY;
    assert_int_equal(walls_servo_load(&ws, saved, err, sizeof err), -1);
    walls_free(&ws);
}

static void refusals(void **state)
{
    (void)state;
    wall_set ws;
    char err[256];
    wall_spec w = servo_plane();
    w.kind = WALL_CYLINDER;
    w.axis[2] = 1.0;
    w.radii[0] = w.radii[1] = 1.0;
    w.length = 1.0;
    assert_int_not_equal(walls_init(&ws, &w, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "walls[0].servo: only a plane or a rectangle"));
    w = servo_plane();
    w.velocity[0] = 1.0;
    assert_int_not_equal(walls_init(&ws, &w, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "moves itself"));
    w = servo_plane();
    w.servo_gain = -1.0;
    assert_int_not_equal(walls_init(&ws, &w, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "walls[0].servo.gain"));
    w = servo_plane();
    w.servo_time[3] = 0.5;
    assert_int_not_equal(walls_init(&ws, &w, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "walls[0].servo.targets[3].time"));
    w = servo_plane();
    w.servo_speed[1] = 0.0;
    assert_int_not_equal(walls_init(&ws, &w, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "walls[0].servo.targets[1].max_speed"));
    w = servo_plane();
    w.servo_force[4] = -1.0;
    assert_int_not_equal(walls_init(&ws, &w, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "walls[0].servo.targets[4]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(schedule),
        cmocka_unit_test(controller),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
