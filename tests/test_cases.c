/* The shipped cases, loaded from their YAML files and run in-process, checked against
 * what physics says they must do. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engine/sim.h"
#include "io/case/case.h"

static void load(const char *name, sim_config *cfg, sim *s)
{
    char path[1024], err[2048];
    const char *root = getenv("DEMPACT_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/cases/%s", root ? root : ".", name);
    if (case_load(path, cfg, err, sizeof err) != 0) fail_msg("%s", err);
    if (sim_create(s, cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

/* A ball bouncing on a floor with a linear dashpot tuned to e: each rebound height is
 * e^2 times the previous one (h = v^2 / 2g). */
static void bounce_rebound_heights_fall_by_e_squared(void **state)
{
    sim_config cfg;
    sim s;
    load("bounce.yaml", &cfg, &s);
    double e = cfg.bindings[0].params[law_param_index(cfg.bindings[0].law, "restitution")];
    double R = s.p.radius[0], apex[8];
    int n_apex = 0;
    double prev_vz = s.p.vz[0];
    while (s.time < cfg.end_time && n_apex < 8) {
        sim_step(&s);
        if (prev_vz > 0.0 && s.p.vz[0] <= 0.0) apex[n_apex++] = s.p.z[0] - R;
        prev_vz = s.p.vz[0];
    }
    assert_true(n_apex >= 3);
    for (int k = 1; k < n_apex; k++) {
        double e_measured = sqrt(apex[k] / apex[k - 1]);
        print_message("rebound %d: height %.6f m, e = %.5f (law: %.2f)\n", k, apex[k], e_measured, e);
        /* the apex is caught within one step, and gravity acts during the contact */
        assert_true(fabs(e_measured - e) / e < 0.003);
    }
    sim_free(&s);
    sim_config_free(&cfg);
}

/* Two elastic spheres head on: momentum and kinetic energy are conserved, so they
 * leave with the velocities exchanged. */
static void elastic_collision_conserves_energy(void **state)
{
    sim_config cfg;
    sim s;
    load("collision.yaml", &cfg, &s);
    double e0 = sim_kinetic_energy(&s), v0 = s.p.vx[0], v1 = s.p.vx[1];
    int touched = 0;
    while (s.time < cfg.end_time) {
        sim_step(&s);
        touched |= s.n_contacts > 0;
    }
    assert_true(touched);
    assert_int_equal(s.n_contacts, 0);
    assert_true(fabs(sim_kinetic_energy(&s) - e0) / e0 < 1e-6);
    assert_true(fabs(s.p.vx[0] - v1) < 1e-6 && fabs(s.p.vx[1] - v0) < 1e-6);
    assert_true(fabs(s.p.vx[0] + s.p.vx[1]) < 1e-12); /* momentum */
    sim_free(&s);
    sim_config_free(&cfg);
}

static void pour_builds_with_stable_step(void **state)
{
    sim_config cfg;
    sim s;
    load("pour.yaml", &cfg, &s);
    assert_int_equal(s.p.n_local, 3000);
    assert_true(s.dt > 0 && s.dt <= s.dt_limit);
    /* the random fill never overlaps */
    assert_int_equal(s.n_contacts, 0);
    sim_free(&s);
    sim_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounce_rebound_heights_fall_by_e_squared),
        cmocka_unit_test(elastic_collision_conserves_energy),
        cmocka_unit_test(pour_builds_with_stable_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
