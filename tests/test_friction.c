/* Friction and rolling resistance (engine/friction.c) against rigid-body mechanics: a
 * sphere launched sliding without spin on a plane, and a binary oblique collision's
 * conservation laws. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/sim.h"

#define G 9.81

typedef struct plane_world {
    material mat;
    law_binding bind;
    wall_spec floor;
    particle_source src;
    double pos[3], vel[3], rad[1];
    sim_config cfg;
} plane_world;

/* A steel sphere (R = 1 cm) resting on a steel floor at its static Hertz overlap, moving
 * along x at v0 without spin; hertz_tti with e = 0.3 damps the normal direction. */
static void plane_world_init(plane_world *w, double v0, double mu, int rolling_model,
                             double mu_r)
{
    memset(w, 0, sizeof *w);
    double R = 0.01, rho = 7800, E = 2e11, nu = 0.3;
    w->mat = (material){"steel", rho, E, nu};
    w->bind = (law_binding){.law = law_find("hertz_tti"), .cohesion_removal = true};
    w->bind.params[0] = 0.3;
    w->bind.friction = (contact_friction){.mu = mu, .rolling_model = rolling_model,
                                          .mu_rolling = mu_r};
    w->floor = (wall_spec){.kind = WALL_PLANE, .normal = {0, 0, 1}};
    double m = rho * 4.0 / 3.0 * M_PI * R * R * R;
    double e_star = E / (1.0 - nu * nu); /* the wall has the same material */
    double k = 4.0 / 3.0 * e_star * sqrt(R);
    double d_static = pow(m * G / k, 2.0 / 3.0);
    w->pos[2] = R - d_static;
    w->vel[0] = v0;
    w->rad[0] = R;
    w->src = (particle_source){.kind = SOURCE_LIST, .n_list = 1, .list_position = w->pos,
                               .list_velocity = w->vel, .list_radius = w->rad};
    sim_config *c = &w->cfg;
    c->materials = &w->mat; c->n_materials = 1;
    c->bindings = &w->bind; c->n_bindings = 1;
    c->walls = &w->floor; c->n_walls = 1;
    c->sources = &w->src; c->n_sources = 1;
    c->gravity[2] = -G;
    c->dt_check = true;
    c->impact_speed_estimate = v0;
    for (int a = 0; a < 3; a++) { c->domain_min[a] = -10.0; c->domain_max[a] = 10.0; }
    c->domain_min[2] = 0.0;
    c->domain_max[2] = 0.1;
}

static void make(sim *s, plane_world *w)
{
    char err[512];
    if (sim_create(s, &w->cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

/* Sliding, the friction mu m g slows the centre and spins the sphere up until
 * v = w R: at t = 2 v0 / (7 mu g), with v = 5/7 v0. Then, with no rolling resistance,
 * it rolls on at that speed. */
static void test_sliding_sphere_starts_rolling(void **state)
{
    double v0 = 1.0, mu = 0.3, R = 0.01;
    plane_world w;
    plane_world_init(&w, v0, mu, ROLLING_NONE, 0.0);
    sim s;
    make(&s, &w);
    double t_roll = 2.0 * v0 / (7.0 * mu * G), t_seen = NAN;
    while (s.time < 2.0 * t_roll) {
        sim_step(&s);
        double slip = s.p.vx[0] - s.p.wy[0] * R; /* contact point speed (w_y > 0 rolls +x) */
        if (isnan(t_seen) && slip < 1e-3 * v0) t_seen = s.time;
    }
    print_message("rolls from t = %.6f s (theory %.6f s); v = %.6f m/s (theory %.6f)\n",
                  t_seen, t_roll, s.p.vx[0], 5.0 / 7.0 * v0);
    assert_true(fabs(t_seen - t_roll) / t_roll < 0.01);
    assert_true(fabs(s.p.vx[0] - 5.0 / 7.0 * v0) / v0 < 2e-3);
    assert_true(fabs(s.p.vx[0] - s.p.wy[0] * R) < 2e-3 * v0); /* rolling, not sliding */
    sim_free(&s);
}

/* With the constant rolling torque mu_r R F_n the sphere stops. Sliding phase:
 * v' = -mu g, w' = 5 g (mu - mu_r) / (2R), rolling from t1 = v0 / (g (3.5 mu - 2.5 mu_r));
 * then v' = -(5/7) mu_r g. The distance is v0 t1 - mu g t1^2 / 2 + v1^2 / (10/7 mu_r g). */
static void test_constant_rolling_torque_stops_sphere(void **state)
{
    double v0 = 0.5, mu = 0.3, mu_r = 0.05;
    plane_world w;
    plane_world_init(&w, v0, mu, ROLLING_CONSTANT, mu_r);
    sim s;
    make(&s, &w);
    double t1 = v0 / (G * (3.5 * mu - 2.5 * mu_r)), v1 = v0 - mu * G * t1;
    double distance = v0 * t1 - 0.5 * mu * G * t1 * t1 + v1 * v1 / (10.0 / 7.0 * mu_r * G);
    double t_stop = t1 + v1 / (5.0 / 7.0 * mu_r * G);
    double e0 = sim_kinetic_energy(&s);
    while (s.time < 1.5 * t_stop && s.p.vx[0] > 1e-4 * v0) sim_step(&s);
    print_message("stops at x = %.5f m after %.4f s (theory %.5f m after %.4f s)\n", s.p.x[0],
                  s.time, distance, t_stop);
    assert_true(fabs(s.p.x[0] - distance) / distance < 0.01);
    assert_true(fabs(s.time - t_stop) / t_stop < 0.01);
    /* the energy balance: sliding friction took what the sliding phase lost, rolling
     * resistance the rest (the sphere stays on the floor, so gravity does no work) */
    double work[SIM_WORK_KINDS], lost = e0 - sim_kinetic_energy(&s);
    sim_contact_work(&s, work);
    double slide_loss = e0 - 0.5 * (7.0 / 5.0) * (4.0 / 3.0 * M_PI * 1e-6 * 7800) * v1 * v1;
    print_message("energy lost %.6e J: friction %.6e J (sliding phase lost %.6e), rolling "
                  "%.6e J\n", lost, work[SIM_WORK_TANGENTIAL], slide_loss, work[SIM_WORK_ROLLING]);
    assert_true(fabs(work[SIM_WORK_TANGENTIAL] + work[SIM_WORK_ROLLING] - lost) < 0.01 * lost);
    sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliding_sphere_starts_rolling),
        cmocka_unit_test(test_constant_rolling_torque_stops_sphere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
