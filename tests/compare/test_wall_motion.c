/* A wall's piecewise-constant motion schedule (`motion:` in a case; engine/walls/walls.c
 * wall_translation): the position at any time is the sum of each segment's velocity
 * times the time spent in it, computed by hand here; the velocity is the current
 * segment's, zero after the last; a piston on a schedule launches a sphere at twice its
 * speed and its work equals the sphere's kinetic energy (the wall's power uses the
 * current segment's velocity); the case reader reads the schedule and refuses bad ones
 * with the file and line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/sim.h"
#include "engine/walls/walls.h"
#include "io/case/case.h"

/* down 0.2 m/s for 0.1 s, up 0.1 m/s for 0.05 s, sideways and down for 0.1 s, then rest */
static wall_spec scheduled_plane(void)
{
    wall_spec w = {.kind = WALL_PLANE, .point = {0, 0, 1}, .normal = {0, 0, -1}, .n_motion = 3,
                   .motion_duration = {0.1, 0.05, 0.1},
                   .motion_velocity = {{0, 0, -0.2}, {0, 0, 0.1}, {0.3, 0, -0.1}}};
    return w;
}

static void schedule_positions(void **state)
{
    (void)state;
    wall_spec w = scheduled_plane();
    wall_set ws;
    char err[256];
    if (walls_init(&ws, &w, 1, err, sizeof err) != 0) fail_msg("%s", err);
    assert_true(ws.max_surface_speed == 0.2); /* sliding in its plane (x) does not count */
    struct {
        double t, z, x, vz, vx;
    } expect[] = {
        {0.0, 0.0, 0.0, -0.2, 0.0},
        {0.05, -0.01, 0.0, -0.2, 0.0},
        {0.1, -0.02, 0.0, 0.1, 0.0},          /* at a segment's end: the next one's velocity */
        {0.125, -0.0175, 0.0, 0.1, 0.0},
        {0.16, -0.016, 0.003, -0.1, 0.3},
        {0.2, -0.02, 0.015, -0.1, 0.3},
        {0.25, -0.025, 0.03, 0.0, 0.0},      /* the end of the schedule: at rest */
        {7.0, -0.025, 0.03, 0.0, 0.0},
    };
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++) {
        walls_move(&ws, expect[k].t);
        double v[3], x[3] = {0, 0, 0};
        walls_point_velocity(&ws, 0, x, v);
        print_message("t = %g: shift (%.17g, %.17g), velocity (%g, %g)\n", expect[k].t,
                      ws.state[0].shift[0], ws.state[0].shift[2], v[0], v[2]);
        assert_true(fabs(ws.state[0].shift[2] - expect[k].z) < 1e-15);
        assert_true(fabs(ws.state[0].shift[0] - expect[k].x) < 1e-15);
        assert_true(ws.state[0].shift[1] == 0.0);
        assert_true(v[2] == expect[k].vz && v[0] == expect[k].vx && v[1] == 0.0);
        /* the plane's distance from a point follows it */
        double n[3], c[3] = {0, 0, 0.5};
        assert_true(fabs(walls_distance(&ws, 0, c, n) - (0.5 + expect[k].z)) < 1e-15);
    }
    walls_free(&ws);
}

/* A steel plane under a steel sphere (10 mm gap), on the schedule: at rest for 10 ms,
 * up at V = 0.5 m/s for 40 ms (it meets the sphere at 30 ms), then at rest. With
 * Hertz's elastic law it launches the sphere at 2 V, and the work it did (its power
 * taken with the current segment's velocity) equals the sphere's kinetic energy. */
static void scheduled_piston_launches_sphere(void **state)
{
    (void)state;
    double R = 0.01, V = 0.5;
    material mats[1] = {{"steel", 7800, 2e11, 0.3}};
    law_binding binds[1] = {{.law = law_find("hertz"), .cohesion_removal = true}};
    double pos[3] = {0, 0, 0}, vel[3] = {0, 0, 0}, rad[1] = {R};
    particle_source src = {.kind = SOURCE_LIST, .n_list = 1, .list_position = pos,
                           .list_velocity = vel, .list_radius = rad};
    wall_spec walls[1] = {{.kind = WALL_PLANE, .point = {0, 0, -R - 0.01}, .normal = {0, 0, 1},
                           .n_motion = 3, .motion_duration = {0.01, 0.04, 1.0},
                           .motion_velocity = {{0, 0, 0}, {0, 0, V}, {0, 0, 0}}}};
    sim_config cfg = {0};
    cfg.materials = mats; cfg.n_materials = 1;
    cfg.bindings = binds; cfg.n_bindings = 1;
    cfg.sources = &src; cfg.n_sources = 1;
    cfg.walls = walls; cfg.n_walls = 1;
    cfg.dt_check = true;
    cfg.impact_speed_estimate = 2 * V;
    for (int a = 0; a < 3; a++) { cfg.domain_min[a] = -1.0; cfg.domain_max[a] = 1.0; }
    sim s;
    char err[512];
    if (sim_create(&s, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    while (s.time < 0.07) sim_step(&s);
    double m = s.p.mass[0], ke = 0.5 * m * s.p.vz[0] * s.p.vz[0];
    print_message("launched at %.6f m/s (2 V = %.6f), wall's work %.6e J, kinetic energy %.6e "
                  "J; the wall at z = %.9f\n", s.p.vz[0], 2 * V, s.walls.work[0], ke,
                  walls[0].point[2] + s.walls.state[0].shift[2]);
    assert_true(fabs(s.p.vz[0] - 2 * V) / (2 * V) < 5e-5);
    assert_true(fabs(s.walls.work[0] - ke) / ke < 1e-4);
    assert_true(fabs(s.walls.state[0].shift[2] - 0.04 * V) < 1e-15);
    sim_free(&s);
}

static char dir[] = "/tmp/dempact_wall_motion_XXXXXX";

static const char *write_case(const char *name, const char *walls)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "name: m\n"                                                     /* 1 */
            "domain: {min: [-0.02, -0.02, -0.02], max: [0.02, 0.02, 0.02]}\n" /* 2 */
            "time: {end: 0.001}\n"                                          /* 3 */
            "materials:\n"                                                  /* 4 */
            "  - {name: steel, density: 7800, young: 2.0e11, poisson: 0.3}\n" /* 5 */
            "contacts:\n"                                                   /* 6 */
            "  - {materials: [steel, steel], law: hertz}\n"                 /* 7 */
            "particles:\n"                                                  /* 8 */
            "  - {source: lattice, material: steel, radius: 0.002, count: 8,\n" /* 9 */
            "     region: {min: [-0.01, -0.01, -0.01], max: [0.01, 0.01, 0.01]}}\n" /* 10 */
            "walls:\n"                                                      /* 11 */
            "%s", walls);
    fclose(f);
    return path;
}

static void refused(const char *name, const char *walls, const char *expect)
{
    sim_config cfg;
    char err[1024] = "";
    int rc = case_load(write_case(name, walls), &cfg, err, sizeof err);
    print_message("%s\n", err);
    assert_int_equal(rc, -1);
    if (!strstr(err, expect)) fail_msg("expected '%s' in: %s", expect, err);
}

static void case_file_schedules(void **state)
{
    (void)state;
    sim_config cfg;
    char err[1024];
    const char *path = write_case("ok.yaml",
        "  - name: piston\n"                                                 /* 12 */
        "    type: plane\n"
        "    material: steel\n"
        "    point: [0, 0, 0.015]\n"
        "    normal: [0, 0, -1]\n"
        "    motion:\n"
        "      - {duration: 0.1, velocity: [0, 0, -0.01]}\n"
        "      - {duration: 2.5e-2, velocity: [0, 0, 0.02]}\n");
    if (case_load(path, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    const wall_spec *w = &cfg.walls[0];
    assert_int_equal(w->n_motion, 2);
    assert_true(w->motion_duration[0] == 0.1 && w->motion_duration[1] == 0.025);
    assert_true(w->motion_velocity[0][2] == -0.01 && w->motion_velocity[1][2] == 0.02);
    assert_true(w->velocity[0] == 0 && w->velocity[1] == 0 && w->velocity[2] == 0);
    sim_config_free(&cfg);

    const char *head = "  - {name: piston, type: plane, material: steel, point: [0, 0, 0.015],\n"
                       "     normal: [0, 0, -1],\n";
    char buf[1024];
#define BAD(file, tail, expect) \
    (snprintf(buf, sizeof buf, "%s%s", head, tail), refused(file, buf, expect))
    BAD("zero.yaml", "     motion: [{duration: 0.1, velocity: [0, 0, 1]},\n"
                     "              {duration: 0, velocity: [0, 0, 1]}]}\n",
        "zero.yaml:15: walls[0].motion[1].duration = 0 must be > 0");
    BAD("text.yaml", "     motion: [{duration: soon, velocity: [0, 0, 1]}]}\n",
        "text.yaml:14: walls[0].motion[0].duration: expected a finite number, got 'soon'");
    BAD("both.yaml", "     velocity: [0, 0, 1], motion: [{duration: 1, velocity: [0, 0, 1]}]}\n",
        "both.yaml:14: walls[0].motion: give velocity or motion, not both");
    BAD("empty.yaml", "     motion: []}\n", "empty.yaml:14: walls[0].motion: must list at least one");
    BAD("short.yaml", "     motion: [{duration: 1, velocity: [0, 1]}]}\n", "short.yaml:14:");
    BAD("nodur.yaml", "     motion: [{velocity: [0, 0, 1]}]}\n", "nodur.yaml:14:");
    BAD("typo.yaml", "     motion: [{duration: 1, velocty: [0, 0, 1]}]}\n", "velocty");
    char many[2048] = "     motion: [";
    for (int k = 0; k <= WALL_MAX_MOTION; k++)
        strcat(many, k ? ", {duration: 1, velocity: [0, 0, 0]}" : "{duration: 1, velocity: [0, 0, 0]}");
    strcat(many, "]}\n");
    BAD("many.yaml", many, "many.yaml:14: walls[0].motion: 17 segments, at most 16");
#undef BAD
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(schedule_positions),
        cmocka_unit_test(scheduled_piston_launches_sphere),
        cmocka_unit_test(case_file_schedules),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
