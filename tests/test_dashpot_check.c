/* engine/checks/dashpot_check.h against closed forms: a glass ball (R = 5 mm) born resting on
 * a glass floor, 20 um into it, under hunt_crossley has the dashpot
 * c = K chi d^(3/2) / v_floor (K = 4/3 E* sqrt(R), chi = 3 (1 - e) / 2), so c dt / m
 * scales as 1 / v_floor and crosses 1 where the closed form says; a plastic law is
 * skipped. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engine/neighbours/contacts.h"
#include "engine/checks/dashpot_check.h"
#include "engine/sim.h"
#include "world_helpers.h"

#define RADIUS 0.005
#define YOUNG 1e7
#define POISSON 0.25
#define DENSITY 2500.0

typedef floor_world world;

/* The ball at rest, 20 um into the floor, under `law` with its defaults, e = 0.5 and
 * v_floor (when the law has them). */
static void make(world *w, sim *s, const char *law, double v_floor)
{
    *w = (world){.pos = {0.05, 0.05, RADIUS - 2e-5}, .rad = {RADIUS}};
    w->mat = (material){"glass", DENSITY, YOUNG, POISSON};
    w->bind = (law_binding){.law = law_find(law), .cohesion_removal = true};
    assert_non_null(w->bind.law);
    for (int k = 0; k < w->bind.law->n_params; k++)
        w->bind.params[k] = w->bind.law->params[k].default_value;
    int e = law_param_index(w->bind.law, "restitution"), f = law_param_index(w->bind.law, "v_floor");
    if (e >= 0) w->bind.params[e] = 0.5;
    if (f >= 0) w->bind.params[f] = v_floor;
    w->floor = (wall_spec){.name = "floor", .kind = WALL_PLANE, .normal = {0, 0, 1}};
    w->src = list_source(w->pos, w->vel, w->rad, 1);
    sim_config *c = &w->cfg;
    wire_world(c, &w->mat, &w->bind, &w->src, &w->floor, 1);
    c->gravity[2] = -9.81;
    for (int a = 0; a < 3; a++) c->domain_max[a] = 0.1;
    char err[512];
    if (sim_create(s, c, err, sizeof err) != 0) fail_msg("sim_create: %s", err);
    sim_step(s); /* the contact is born, at rest: v0 is below any floor used here */
    assert_int_equal(s->wall_pairs.n, 1);
    assert_true(s->wall_pairs.touching[0]);
}

/* c dt / m from the closed form, at the ball's overlap now */
static double closed_form(const sim *s, double v_floor)
{
    double d = contact_overlap(&s->wall_pairs, &s->p, 0);
    double e_star = YOUNG / (2.0 * (1.0 - POISSON * POISSON)); /* glass on glass */
    double k = 4.0 / 3.0 * e_star * sqrt(RADIUS), chi = 3.0 * (1.0 - 0.5) / 2.0;
    double mass = DENSITY * 4.0 / 3.0 * M_PI * RADIUS * RADIUS * RADIUS;
    return k * chi * d * sqrt(d) / v_floor * s->dt / mass;
}

static void test_hunt_crossley_against_closed_form(void **state)
{
    (void)state;
    const double floors[] = {1e-8, 1e-3, 1.0};
    double ratios[3];
    for (int q = 0; q < 3; q++) {
        world w;
        sim s;
        make(&w, &s, "hunt_crossley", floors[q]);
        dashpot_check dc;
        dashpot_check_run(&s, &dc);
        double expected = closed_form(&s, floors[q]);
        print_message("v_floor %g m/s: c dt / m = %.6g (closed form %.6g), %zu unresolved\n",
                      floors[q], dc.worst, expected, dc.unresolved);
        assert_true(fabs(dc.worst - expected) <= 1e-6 * expected);
        assert_int_equal(dc.unresolved, expected > 1.0 ? 1 : 0);
        assert_non_null(dc.worst_law);
        assert_string_equal(dc.worst_law->law->name, "hunt_crossley");
        double d = contact_overlap(&s.wall_pairs, &s.p, 0);
        assert_true(fabs(dc.worst_overlap - d / RADIUS) <= 1e-12);
        ratios[q] = expected;
        sim_free(&s);
    }
    /* the floors span both sides of the limit */
    assert_true(ratios[0] > 1.0 && ratios[2] < 1.0);
}

/* The default v_floor (0 in the case: models/law_params.h) is the case's
 * sqrt(2 |g| d), d the smallest diameter: here 0.443 m/s, at which the ball's dashpot is
 * resolved by the step; without gravity, 1 mm/s. */
static void test_default_floor_from_the_case(void **state)
{
    (void)state;
    world w;
    sim s;
    make(&w, &s, "hunt_crossley", 0.0);
    double expected = sqrt(2.0 * 9.81 * 2.0 * RADIUS);
    const law_instance *li = &s.laws[0];
    print_message("default v_floor %.6f m/s (sqrt(2 g d) = %.6f)\n", li->v_floor, expected);
    assert_true(fabs(li->v_floor - expected) <= 1e-15 * expected);
    dashpot_check dc;
    dashpot_check_run(&s, &dc);
    assert_true(fabs(dc.worst - closed_form(&s, expected)) <= 1e-6 * dc.worst);
    assert_int_equal(dc.unresolved, 0);
    sim_free(&s);
    w.cfg.gravity[2] = 0.0;
    char err[512];
    if (sim_create(&s, &w.cfg, err, sizeof err) != 0) fail_msg("sim_create: %s", err);
    assert_true(s.laws[0].v_floor == 1e-3);
    sim_free(&s);
}

static void test_plastic_law_is_skipped(void **state)
{
    (void)state;
    world w;
    sim s;
    make(&w, &s, "kostek", 0.0);
    dashpot_check dc;
    dashpot_check_run(&s, &dc);
    assert_int_equal(dc.unresolved, 0);
    assert_true(dc.worst == 0.0 && dc.worst_law == NULL);
    sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hunt_crossley_against_closed_form),
        cmocka_unit_test(test_default_floor_from_the_case),
        cmocka_unit_test(test_plastic_law_is_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
