/* Inlets and outlets (engine/population/population.c): insertion at the requested rate without
 * overlaps, removal with mass counted, ids never reused, contact histories that follow
 * their particles through the renumbering, and thread-count independence. */
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

#include "engine/sim.h"
#include "io/session/tuning_env.h"

typedef struct box_world {
    material mat;
    law_binding bind;
    wall_spec walls[6];
    inlet_spec inlet;
    outlet_spec outlet;
    sim_config cfg;
} box_world;

/* A 4 x 4 cm box with a floor and four side walls; glass spheres poured in from an
 * inlet at the top; optionally an outlet over one corner of the floor. */
static void box_world_init(box_world *w, double rate, int with_outlet)
{
    memset(w, 0, sizeof *w);
    w->mat = (material){"glass", 2500, 1e7, 0.25};
    w->bind = (law_binding){.law = law_find("hertz_tti"), .cohesion_removal = true,
                            .friction = {.mu = 0.5}};
    w->bind.params[0] = 0.5;
    const double L = 0.04;
    double pts[5][3] = {{0, 0, 0}, {0, 0, 0}, {L, 0, 0}, {0, 0, 0}, {0, L, 0}};
    double nrm[5][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (int k = 0; k < 5; k++) {
        w->walls[k].kind = WALL_PLANE;
        memcpy(w->walls[k].point, pts[k], sizeof pts[k]);
        memcpy(w->walls[k].normal, nrm[k], sizeof nrm[k]);
    }
    w->inlet = (inlet_spec){.name = "top", .region_min = {0, 0, 0.08},
                            .region_max = {L, L, 0.1}, .rate = rate, .radius_min = 0.001,
                            .radius_max = 0.0015, .velocity = {0, 0, -0.5}, .seed = 7};
    w->outlet = (outlet_spec){.name = "corner", .region_min = {0, 0, 0},
                              .region_max = {0.015, 0.015, 0.004}};
    sim_config *c = &w->cfg;
    c->materials = &w->mat; c->n_materials = 1;
    c->bindings = &w->bind; c->n_bindings = 1;
    c->walls = w->walls; c->n_walls = 5;
    c->inlets = &w->inlet; c->n_inlets = 1;
    c->outlets = &w->outlet; c->n_outlets = with_outlet;
    c->gravity[2] = -9.81;
    c->dt_check = true;
    for (int a = 0; a < 3; a++) c->domain_max[a] = a == 2 ? 0.1 : L;
}

/* The tuning every sim of this test gets: the environment's (tests/CMakeLists.txt), and
 * test_population_thread_independent's own. */
static sim_tuning tuning;

static void make(sim *s, box_world *w)
{
    char err[512];
    w->cfg.tuning = tuning;
    if (sim_create(s, &w->cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

/* Smallest gap between a particle from `first` on and any other particle. */
static double smallest_gap(const sim *s, size_t first)
{
    const particle_store *p = &s->p;
    double worst = HUGE_VAL;
    for (size_t i = first; i < p->n_local; i++)
        for (size_t j = 0; j < p->n_local; j++) {
            if (j == i) continue;
            double dx = p->x[j] - p->x[i], dy = p->y[j] - p->y[i], dz = p->z[j] - p->z[i];
            worst = fmin(worst, sqrt(dx * dx + dy * dy + dz * dz) - p->radius[i] - p->radius[j]);
        }
    return worst;
}

/* An empty box filled at 4000 particles/s for 0.05 s: about 200 particles, all inside
 * the inlet's region when they appear, none overlapping, ids 0..n-1. */
static void test_inlet_rate_and_no_overlap(void **state)
{
    box_world w;
    box_world_init(&w, 4000.0, 0);
    sim s;
    make(&s, &w);
    assert_int_equal(s.p.n_local, 0);
    size_t before = 0;
    while (s.time < 0.05) {
        sim_step(&s);
        if (s.p.n_local != before) {
            /* just inserted (and moved one step): the new particles touch nothing, within
             * what one step of motion can close (1e-5 m is 1% of a radius) */
            assert_true(smallest_gap(&s, before) > -1e-5);
            before = s.p.n_local;
        }
    }
    double expected = 4000.0 * s.time;
    print_message("%zu particles after %.4f s (rate x time = %.1f, %ld failed)\n", s.p.n_local,
                  s.time, expected, s.inlets[0].failed);
    /* insertions come in batches every 100 steps: at most one batch behind */
    double batch = 4000.0 * 100.0 * s.dt;
    assert_true(fabs((double)s.p.n_local - expected) <= batch + 1.0);
    assert_int_equal(s.inlets[0].failed, 0);
    /* ids 0..n-1, each once (in any order: runs may sort their particles) */
    uint8_t *seen = calloc(s.p.n_local, 1);
    for (size_t i = 0; i < s.p.n_local; i++) {
        assert_true(s.p.id[i] >= 0 && (size_t)s.p.id[i] < s.p.n_local && !seen[s.p.id[i]]);
        seen[s.p.id[i]] = 1;
    }
    free(seen);
    sim_free(&s);
}

/* An inlet region that a tilted wall cuts through: no particle is placed touching or
 * behind the wall (signed distance from the plane at least its radius, up to one step
 * of motion). */
static void test_inlet_keeps_out_of_walls(void **state)
{
    box_world w;
    box_world_init(&w, 4000.0, 0);
    double nz = 1.0 / sqrt(1.0 + 0.7 * 0.7);
    w.walls[5] = (wall_spec){.kind = WALL_PLANE, .point = {0.02, 0.02, 0.09},
                             .normal = {0.7 * nz, 0, nz}};
    w.cfg.n_walls = 6;
    sim s;
    make(&s, &w);
    size_t before = 0;
    double closest = HUGE_VAL;
    while (s.time < 0.02) {
        sim_step(&s);
        for (size_t i = before; i < s.p.n_local; i++) {
            double d = (s.p.x[i] - 0.02) * 0.7 * nz + (s.p.z[i] - 0.09) * nz - s.p.radius[i];
            closest = fmin(closest, d);
        }
        before = s.p.n_local;
    }
    print_message("%zu particles placed above the tilted wall (%ld attempts failed); smallest "
                  "gap to it %.3e m\n", s.p.n_local, s.inlets[0].failed, closest);
    assert_true(s.p.n_local > 20);
    assert_true(closest > -1e-5); /* 1% of a radius: one step of motion */
    sim_free(&s);
}

/* With an outlet over a corner of the floor: what leaves is counted (number and mass
 * add up with what is left), ids stay unique and are never reused. */
static void test_outlet_counts_and_ids(void **state)
{
    box_world w;
    box_world_init(&w, 4000.0, 1);
    sim s;
    make(&s, &w);
    while (s.time < 0.2) sim_step(&s);
    const particle_store *p = &s.p;
    double mass_left = 0.0;
    for (size_t i = 0; i < p->n_local; i++) mass_left += p->mass[i];
    print_message("inserted %ld (%.6e kg), removed %ld (%.6e kg), %zu left\n",
                  s.inlets[0].inserted, s.inlets[0].mass_inserted, s.outlets[0].removed,
                  s.outlets[0].mass_removed, p->n_local);
    assert_true(s.outlets[0].removed > 0);
    assert_int_equal((long)p->n_local + s.outlets[0].removed, s.inlets[0].inserted);
    assert_true(fabs(mass_left + s.outlets[0].mass_removed - s.inlets[0].mass_inserted) <
                1e-12 * s.inlets[0].mass_inserted);
    /* ids never reused: all distinct and below next_id (in any order: runs may sort) */
    uint8_t *seen = calloc((size_t)p->next_id + 1, 1);
    for (size_t i = 0; i < p->n_local; i++) {
        assert_true(p->id[i] >= 0 && p->id[i] < p->next_id && !seen[p->id[i]]);
        seen[p->id[i]] = 1;
    }
    free(seen);
    assert_true(p->next_id == s.inlets[0].inserted);
    sim_free(&s);
}

/* The same run on 1 and 2 threads ends bit-identical: insertion and removal are serial
 * and seeded. */
static void test_population_thread_independent(void **state)
{
    double *x[2];
    size_t n[2];
    sim_tuning outside = tuning;
    tuning.set_parallel_min = true; /* split even this small system */
    tuning.parallel_min = 0;
    for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t + 1);
        box_world w;
        box_world_init(&w, 4000.0, 1);
        sim s;
        make(&s, &w);
        while (s.time < 0.06) sim_step(&s);
        n[t] = s.p.n_local;
        x[t] = malloc(3 * n[t] * sizeof(double));
        for (size_t i = 0; i < n[t]; i++) {
            x[t][3 * i] = s.p.x[i]; x[t][3 * i + 1] = s.p.y[i]; x[t][3 * i + 2] = s.p.z[i];
        }
        sim_free(&s);
    }
    assert_int_equal(n[0], n[1]);
    assert_memory_equal(x[0], x[1], 3 * n[0] * sizeof(double));
    tuning = outside;
    free(x[0]);
    free(x[1]);
}

/* Removing a particle renumbers the others; a touching pair elsewhere keeps its
 * history (its tangential spring is carried to the pair's new indices). */
static void test_history_survives_removal(void **state)
{
    box_world w;
    box_world_init(&w, 4000.0, 0);
    w.inlet.stop = 0.1;
    sim s;
    make(&s, &w);
    while (s.time < 0.12) sim_step(&s);
    /* the touching pair whose spring is loaded most (a lasting contact, not one an impact
     * is reloading this step), and its ids */
    const contact_list *c = &s.pairs;
    size_t k0 = c->n;
    for (size_t k = 0; k < c->n; k++)
        if (c->touching[k] && c->owner_j[k] == c->j[k] && c->tangential[0][k] != 0.0 &&
            (k0 == c->n || fabs(c->tangential[0][k]) > fabs(c->tangential[0][k0])))
            k0 = k;
    assert_true(k0 < c->n);
    int64_t id_i = s.p.id[c->i[k0]], id_j = s.p.id[c->owner_j[k0]];
    double spring = c->tangential[0][k0];
    /* an outlet that takes exactly one other particle, the one with the smallest index
     * that is neither of the pair */
    size_t victim = 0;
    while (s.p.id[victim] == id_i || s.p.id[victim] == id_j) victim++;
    double r = 1e-5;
    w.outlet = (outlet_spec){.region_min = {s.p.x[victim] - r, s.p.y[victim] - r, s.p.z[victim] - r},
                             .region_max = {s.p.x[victim] + r, s.p.y[victim] + r, s.p.z[victim] + r}};
    s.cfg.outlets = &w.outlet;
    s.cfg.n_outlets = 1;
    s.cfg.inlets = NULL;
    s.cfg.n_inlets = 0;
    size_t n_before = s.p.n_local;
    /* one step: the victim leaves at its start, then the springs move on by one step */
    int found = 0;
    sim_step(&s);
    assert_int_equal(s.p.n_local, n_before - 1);
    for (size_t k = 0; k < c->n; k++) {
        if (!c->touching[k]) continue;
        if (s.p.id[c->i[k]] == id_i && s.p.id[c->owner_j[k]] == id_j) {
            found = 1;
            print_message("spring %.6e before, %.6e one step later\n", spring,
                          c->tangential[0][k]);
            /* one step changes a loaded spring by far less than it holds */
            assert_true(fabs(c->tangential[0][k] - spring) < 0.1 * fabs(spring));
        }
    }
    assert_true(found);
    sim_free(&s);
}

int main(void)
{
    tuning_from_env(&tuning);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inlet_rate_and_no_overlap),
        cmocka_unit_test(test_inlet_keeps_out_of_walls),
        cmocka_unit_test(test_outlet_counts_and_ids),
        cmocka_unit_test(test_population_thread_independent),
        cmocka_unit_test(test_history_survives_removal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
