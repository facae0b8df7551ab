/* The numerical watchdog (engine/checks/watchdog.h): quiet runs pass, each kind of problem is
 * found and named (a particle too fast for the step, one that ran far out of the domain,
 * stopped by the engine before its neighbour grid), the grid survives any spread, dropping a particle leaves the run it would have been without it,
 * and the energy sum does not depend on the number of threads. */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/population/rng.h"
#include "engine/sim.h"
#include "world_helpers.h"
#include "engine/checks/watchdog.h"

#define MAX_BALLS 6000

typedef struct world {
    material mat;
    law_binding bind;
    wall_spec floor;
    particle_source src;
    double pos[3 * MAX_BALLS], vel[3 * MAX_BALLS], rad[MAX_BALLS];
    sim_config cfg;
} world;

/* n glass balls of radius 5 mm in a row along x, at heights 10, 12, 14 ... mm, with a
 * floor at z = 0, gravity, hertz_tti (e = 0.5). `skip` leaves one ball out (-1: none). */
static world *balls(int n, int skip, const char *law)
{
    world *w = calloc(1, sizeof *w);
    int m = 0;
    for (int k = 0; k < n; k++) {
        if (k == skip) continue;
        w->pos[3 * m] = 0.02 * k + 0.01;
        w->pos[3 * m + 1] = 0.05;
        w->pos[3 * m + 2] = 0.01 + 0.002 * k;
        w->rad[m] = 0.005;
        m++;
    }
    w->mat = (material){"glass", 2500.0, 1e7, 0.25};
    w->bind = (law_binding){.law = law_find(law), .cohesion_removal = true};
    int e = law_param_index(w->bind.law, "restitution");
    if (e >= 0) w->bind.params[e] = 0.5;
    w->floor = (wall_spec){.name = "floor", .kind = WALL_PLANE, .normal = {0, 0, 1}};
    w->src = list_source(w->pos, w->vel, w->rad, (size_t)m);
    sim_config *c = &w->cfg;
    wire_world(c, &w->mat, &w->bind, &w->src, &w->floor, 1);
    c->gravity[2] = -9.81;
    for (int a = 0; a < 3; a++) c->domain_max[a] = a == 0 ? 0.02 * n : 0.1;
    return w;
}

static void create(sim *s, const world *w)
{
    char err[512];
    if (sim_create(s, &w->cfg, err, sizeof err) != 0) fail_msg("sim_create: %s", err);
}

/* Falling, bouncing and settling balls never alarm the watchdog; neither does an
 * elastic law, whose energy is conserved only up to the integrator's error, nor
 * friction and rolling resistance on balls sliding along the floor. */
static void run_quietly(const char *law, double mu)
{
    world *w = balls(5, -1, law);
    w->bind.friction.mu = mu; /* Mindlin and a Coulomb slider */
    if (mu > 0.0) {
        w->bind.friction.rolling = rolling_law_find("constant");
        w->bind.friction.mu_rolling = 0.1;
        for (int k = 0; k < 5; k++) w->vel[3 * k] = 0.3; /* sliding along the floor, */
        w->cfg.periodic[0] = true;                          /* round and round */
    }
    sim s;
    create(&s, w);
    watchdog_state st;
    watchdog_start(&st, &s, NULL);
    assert_true(isfinite(st.energy_budget));
    size_t touched = 0;
    for (int k = 0; k < 40000; k++) {
        sim_step(&s);
        watchdog_report r;
        if (watchdog_guard(&s, &st, &r) != WATCHDOG_OK) {
            char msg[1024];
            watchdog_format(&r, &s, msg, sizeof msg);
            fail_msg("%s: %s", law, msg);
        }
        touched += s.n_contacts;
    }
    assert_true(touched > 0); /* the balls did bounce */
    sim_free(&s);
    free(w);
}

static void test_quiet_runs(void **state)
{
    run_quietly("hertz_tti", 0.0);
    run_quietly("hertz", 0.0);
    run_quietly("linear", 0.0);
    run_quietly("hertz_tti", 0.5);
}

static void test_not_finite(void **state)
{
    world *w = balls(5, -1, "hertz_tti");
    sim s;
    create(&s, w);
    s.p.vy[3] = NAN;
    watchdog_state st;
    watchdog_start(&st, &s, NULL);
    watchdog_report r;
    assert_int_equal(watchdog_check(&s, &st, false, &r), WATCHDOG_NOT_FINITE);
    assert_int_equal(r.particle_id, 3);
    assert_string_equal(r.quantity, "velocity");
    char msg[1024];
    watchdog_format(&r, &s, msg, sizeof msg);
    assert_non_null(strstr(msg, "watchdog: step 0"));
    assert_non_null(strstr(msg, "the velocity of particle 3 is not finite"));
    sim_free(&s);
    free(w);
}

static void test_overlap(void **state)
{
    world *w = balls(3, -1, "hertz_tti");
    w->pos[3 * 1 + 0] = w->pos[0] + 0.007; /* ball 1 into ball 0: 3 mm = 0.6 r */
    w->pos[3 * 1 + 2] = w->pos[2];
    sim s;
    create(&s, w);
    watchdog_report r;
    assert_int_equal(watchdog_check_start(&s, &r), WATCHDOG_OVERLAP);
    assert_true(r.contact.found);
    assert_int_equal(r.contact.wall, -1);
    assert_true((r.particle_id == 0 && r.contact.other_id == 1) ||
                (r.particle_id == 1 && r.contact.other_id == 0));
    assert_string_equal(r.contact.law, "hertz_tti");
    assert_true(fabs(r.contact.fraction - 0.6) < 1e-9);
    char msg[1024];
    watchdog_format(&r, &s, msg, sizeof msg);
    assert_non_null(strstr(msg, "particles: as created"));
    assert_non_null(strstr(msg, "law hertz_tti (glass on glass)"));
    /* a higher limit lets it through */
    s.cfg.watchdog.max_overlap_fraction = 0.7;
    assert_int_equal(watchdog_check_start(&s, &r), WATCHDOG_OK);
    sim_free(&s);
    free(w);
}

static void test_left_domain(void **state)
{
    world *w = balls(4, -1, "hertz_tti");
    sim s;
    create(&s, w);
    s.p.z[2] = 0.1001;
    watchdog_state st;
    watchdog_start(&st, &s, NULL);
    watchdog_report r;
    assert_int_equal(watchdog_check(&s, &st, false, &r), WATCHDOG_LEFT_DOMAIN);
    assert_int_equal(r.particle_id, 2);
    assert_int_equal(r.axis, 2);
    assert_int_equal(r.side, 1);
    /* along a periodic axis it is no problem */
    s.cfg.periodic[2] = true;
    st.energy_budget = NAN;
    assert_int_equal(watchdog_check(&s, &st, true, &r), WATCHDOG_OK);
    sim_free(&s);
    free(w);
}

/* The particle check_start names for `problem`: `in_memory` by the store's order,
 * `by_id` summing by id. */
static void assert_named(sim *s, watchdog_problem problem, int64_t in_memory, int64_t by_id)
{
    watchdog_report r;
    for (int reproducible = 0; reproducible < 2; reproducible++) {
        s->cfg.reproducible = reproducible;
        assert_int_equal(watchdog_check_start(s, &r), problem);
        assert_int_equal(r.particle_id, reproducible ? by_id : in_memory);
    }
}

/* Of several particles with a problem, the first in memory is named; summing by id (as
 * every run on ranks does), the smallest id, whatever the store's order. Ids 1 and 3
 * swap places here, so that the two rules disagree. */
static void test_named_by_id(void **state)
{
    world *w = balls(6, -1, "hertz_tti");
    w->pos[3 * 3 + 0] = w->pos[3 * 2 + 0] + 0.007; /* ball 3 into ball 2 (0.6 r), */
    w->pos[3 * 3 + 2] = w->pos[3 * 2 + 2];
    w->pos[3 * 5 + 0] = w->pos[3 * 4 + 0] + 0.007; /* and ball 5 into ball 4 */
    w->pos[3 * 5 + 2] = w->pos[3 * 4 + 2];
    sim s;
    create(&s, w);
    s.p.id[1] = 3;
    s.p.id[3] = 1;
    watchdog_report r;
    assert_int_equal(watchdog_check_start(&s, &r), WATCHDOG_OVERLAP);
    assert_true(r.particle_id == 2 || r.particle_id == 1); /* the pair at 2 and 3 */
    s.p.id[4] = 0; /* the pair at 4 and 5 now has the smallest ids (0 and 5) */
    s.p.id[0] = 4;
    s.cfg.reproducible = 1;
    assert_int_equal(watchdog_check_start(&s, &r), WATCHDOG_OVERLAP);
    assert_true(r.particle_id == 0 || r.particle_id == 5);
    /* two centres outside the box: store places 1 and 3 (ids 3 and 1) */
    s.cfg.watchdog.max_overlap_fraction = 1.0;
    s.p.z[1] = s.p.z[3] = 0.1001;
    assert_named(&s, WATCHDOG_LEFT_DOMAIN, 3, 1);
    /* too fast: the same two, back inside */
    s.p.z[1] = s.p.z[3] = 0.05;
    s.p.vx[1] = s.p.vx[3] = 10.0 * 0.005 / s.dt;
    assert_named(&s, WATCHDOG_TOO_FAST, 3, 1);
    /* not finite */
    s.p.vx[1] = s.p.vx[3] = NAN;
    assert_named(&s, WATCHDOG_NOT_FINITE, 3, 1);
    sim_free(&s);
    free(w);
}

static void test_energy_rise(void **state)
{
    world *w = balls(4, -1, "hertz_tti");
    for (int k = 0; k < 4; k++) w->vel[3 * k] = 0.1;
    sim s;
    create(&s, w);
    watchdog_state st;
    watchdog_start(&st, &s, NULL);
    watchdog_report r;
    assert_int_equal(watchdog_check(&s, &st, true, &r), WATCHDOG_OK);
    s.p.vx[1] = 0.2; /* + 0.5 m (0.04 - 0.01) = 0.015 m of J: above 1% */
    /* a light check does not sum the energy, and no ball alone holds the budget */
    assert_int_equal(watchdog_check(&s, &st, false, &r), WATCHDOG_OK);
    assert_int_equal(watchdog_check(&s, &st, true, &r), WATCHDOG_ENERGY_RISE);
    assert_int_equal(r.particle_id, 1);
    assert_true(r.energy > r.energy_budget * 1.01);
    /* one ball with more kinetic energy than the whole budget: every check sees it */
    s.p.vx[2] = 10.0;
    assert_int_equal(watchdog_check(&s, &st, false, &r), WATCHDOG_ENERGY_RISE);
    assert_int_equal(r.particle_id, 2);
    /* gravity along a periodic axis: no energy check */
    s.cfg.periodic[2] = true;
    assert_false(watchdog_energy_applies(&s));
    sim_free(&s);
    free(w);
}

/* A run that drops ball 2 at once matches, ball by ball, the run that never had it. */
static void test_drop_particle(void **state)
{
    world *wa = balls(6, -1, "hertz_tti"), *wb = balls(6, 2, "hertz_tti");
    wa->cfg.watchdog.on_error = WATCHDOG_ACTION_DROP_PARTICLE;
    sim a, b;
    create(&a, wa);
    create(&b, wb);
    a.p.x[2] = NAN;
    watchdog_state st;
    watchdog_start(&st, &a, NULL);
    watchdog_report r;
    assert_int_equal(watchdog_guard(&a, &st, &r), WATCHDOG_OK);
    assert_int_equal(st.dropped, 1);
    assert_int_equal(a.p.n_local, 5);
    for (int k = 0; k < 30000; k++) {
        sim_step(&a);
        sim_step(&b);
        assert_int_equal(watchdog_guard(&a, &st, &r), WATCHDOG_OK);
    }
    assert_int_equal(a.p.n_local, b.p.n_local);
    for (size_t i = 0; i < a.p.n_local; i++) {
        assert_int_equal(a.p.id[i], i < 2 ? (int64_t)i : (int64_t)i + 1);
        assert_true(a.p.z[i] == b.p.z[i] && a.p.vz[i] == b.p.vz[i]);
    }
    sim_free(&a);
    sim_free(&b);
    free(wa);
    free(wb);
}

/* Dropping one of two touching balls takes its push back from the other. */
static void test_drop_in_contact(void **state)
{
    world *w = balls(3, -1, "hertz_tti");
    w->cfg.gravity[2] = 0.0;
    w->cfg.n_walls = 0;
    w->pos[3 * 1 + 0] = w->pos[0] + 0.0095; /* 0.5 mm overlap with ball 0 */
    w->pos[3 * 1 + 2] = w->pos[2];
    sim s;
    create(&s, w);
    assert_true(fabs(s.p.fx[0]) > 0.0);
    watchdog_drop_particle(&s, 1);
    assert_true(s.p.fx[0] == 0.0 && s.p.fy[0] == 0.0 && s.p.fz[0] == 0.0);
    sim_step(&s);
    assert_int_equal(s.n_contacts, 0);
    sim_free(&s);
    free(w);
}

/* The overlap of a pair of particles touching across a periodic face (read from the
 * positions: contact_overlap) must survive dropping another particle: until the next
 * rebuild the pair still points at the ghost image, not at the particle itself. */
static double periodic_pair_overlap(const sim *s)
{
    const contact_list *c = &s->pairs;
    for (size_t k = 0; k < c->n; k++)
        if (c->touching[k] && s->p.id[c->i[k]] == 0 && s->p.id[c->owner_j[k]] == 3)
            return contact_overlap(c, &s->p, k);
    return -1.0;
}

static void test_drop_keeps_periodic_overlaps(void **state)
{
    world *w = balls(4, -1, "hertz_tti");
    w->cfg.gravity[2] = 0.0;
    w->cfg.n_walls = 0;
    w->cfg.periodic[0] = true; /* x in [0, 0.08] */
    w->pos[0] = 0.005;
    w->pos[3 * 3] = 0.0755; /* 0.0095 from ball 0 through the face: 0.5 mm overlap */
    w->pos[3 * 3 + 2] = w->pos[2];
    sim s;
    create(&s, w);
    double before = periodic_pair_overlap(&s);
    assert_true(fabs(before - 0.0005) < 1e-12);
    watchdog_drop_particle(&s, 1);
    double after = periodic_pair_overlap(&s);
    if (after != before) fail_msg("overlap through the face %g m before the drop, %g after", before, after);
    sim_step(&s); /* and after the rebuild, still touching through the face */
    after = periodic_pair_overlap(&s);
    if (!(after > 0.0004 && after < 0.0005)) fail_msg("after a step: %g m", after); /* pushing apart */
    sim_free(&s);
    free(w);
}

/* The energy is summed over fixed blocks: 1 and 3 threads give the same bits. */
/* A particle moving more than half its radius per step is named; one just below is not.
 * The threshold is the documented |v| dt > 0.5 r, tried at 0.49 and 0.51 of the radius. */
static void test_too_fast(void **state)
{
    (void)state;
    world *w = balls(3, -1, "hertz_tti");
    w->cfg.gravity[2] = 0.0;
    w->cfg.watchdog.energy_tolerance = -1.0; /* the kick given here is not the physics' */
    sim s;
    create(&s, w);
    watchdog_state st;
    watchdog_start(&st, &s, NULL);
    watchdog_report r;
    double per_step = 0.005 / s.dt; /* one radius per step, m/s */
    s.p.vx[1] = 0.49 * per_step;
    assert_int_equal(watchdog_check(&s, &st, false, &r), WATCHDOG_OK);
    s.p.vx[1] = 0.51 * per_step;
    assert_int_equal(watchdog_check(&s, &st, false, &r), WATCHDOG_TOO_FAST);
    assert_int_equal(r.particle_id, s.p.id[1]);
    assert_true(fabs(r.limit - 0.5 * 0.005) < 1e-15);
    char msg[1024];
    watchdog_format(&r, &s, msg, sizeof msg);
    assert_non_null(strstr(msg, "particle 1 moves"));
    assert_non_null(strstr(msg, "more than 0.5 of its radius"));
    sim_free(&s);
    free(w);
}

/* A particle shot out of the domain with the watchdog looking only every 1000 steps: the
 * neighbour rebuild refuses it once it is more than one domain length out (before the
 * grid is sized for it), the step stops there and the guard reports it at once, naming
 * the particle and where it is; sim_step does nothing more. */
static void test_runaway(void **state)
{
    (void)state;
    world *w = balls(3, -1, "hertz_tti");
    w->cfg.gravity[2] = 0.0;
    w->cfg.watchdog.interval = 1000;
    w->cfg.watchdog.energy_tolerance = -1.0;
    sim s;
    create(&s, w);
    watchdog_state st;
    watchdog_start(&st, &s, NULL);
    watchdog_report r;
    double length = s.cfg.domain_max[0] - s.cfg.domain_min[0];
    s.p.vx[2] = 0.4 * 0.005 / s.dt; /* below the per-step limit: only the grid's guard acts */
    int64_t steps = 0;
    while (!s.fault && steps < 1000000) {
        sim_step(&s);
        steps++;
        watchdog_problem p = watchdog_guard(&s, &st, &r);
        if (p != WATCHDOG_OK) break;
    }
    assert_int_equal(s.fault, SIM_FAULT_RUNAWAY);
    assert_int_equal(r.problem, WATCHDOG_RUNAWAY);
    assert_int_equal(r.particle_id, 2);
    assert_int_equal(r.axis, 0);
    /* beyond the margin, and by less than the skin past it (a rebuild per half skin) */
    double beyond = r.position[0] - (s.cfg.domain_max[0] + SIM_RUNAWAY_MARGIN * length);
    assert_true(beyond > 0.0 && beyond <= s.skin);
    char msg[1024];
    watchdog_format(&r, &s, msg, sizeof msg);
    assert_non_null(strstr(msg, "particle 2 is far outside the domain: x = "));
    int64_t at = s.step;
    double x = s.p.x[2];
    sim_step(&s);
    assert_int_equal(s.step, at);
    assert_true(s.p.x[2] == x);
    sim_free(&s);
    free(w);
}

/* The neighbour grid of particles spread over any finite width: at most 2^24 cells, and
 * a width a double cannot hold (1e308 - -1e308) refused instead of overflowing. */
static void test_grid_spread(void **state)
{
    (void)state;
    double x[4] = {0, 1e-3, 5e297, -1e300}, y[4] = {0, 0, 0, 1e300}, z[4] = {0, 0, 0, 0};
    double r[4] = {1e-3, 1e-3, 1e-3, 1e-3};
    particle_store p = {.x = x, .y = y, .z = z, .radius = r, .n_local = 4, .n_total = 4};
    neighbour_grid g = {0};
    assert_int_equal(neighbour_grid_build(&g, &p, 2.2e-3), 0);
    assert_true(g.n_cells <= (size_t)1 << 24);
    assert_true(g.dims[0] >= 1 && g.dims[1] >= 1 && g.dims[2] >= 1);
    assert_int_equal(g.cell_start[g.n_cells], 4); /* every particle binned */
    x[2] = 1.7e308;
    x[3] = -1.7e308;
    assert_int_equal(neighbour_grid_build(&g, &p, 2.2e-3), NEIGHBOUR_BAD_SPREAD);
    neighbour_grid_free(&g);
}

static void test_energy_threads(void **state)
{
    world *w = balls(1, -1, "hertz");
    rng g = {7};
    int n = MAX_BALLS;
    for (int i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            w->pos[3 * i + a] = rng_range(&g, 0.001, 0.099);
            w->vel[3 * i + a] = rng_range(&g, -1.0, 1.0);
        }
        w->rad[i] = 0.0005;
    }
    w->src.n_list = n;
    for (int a = 0; a < 3; a++) w->cfg.domain_max[a] = 0.1;
    w->cfg.watchdog.max_overlap_fraction = 1.0;
    sim s;
    create(&s, w);
    s.parallel_min = 0;
    omp_set_num_threads(1);
    double e1 = watchdog_energy(&s);
    omp_set_num_threads(3);
    double e3 = watchdog_energy(&s);
    assert_true(e1 == e3);
    sim_free(&s);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiet_runs),
        cmocka_unit_test(test_not_finite),    cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_left_domain),
        cmocka_unit_test(test_named_by_id),   cmocka_unit_test(test_energy_rise),
        cmocka_unit_test(test_drop_particle), cmocka_unit_test(test_drop_in_contact),
        cmocka_unit_test(test_drop_keeps_periodic_overlaps),
        cmocka_unit_test(test_energy_threads),
        cmocka_unit_test(test_too_fast),      cmocka_unit_test(test_runaway),
        cmocka_unit_test(test_grid_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
