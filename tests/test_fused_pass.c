/* The force loop's fused passes (engine/step/fused_pass.h) against its generic passes:
 * for every registered law of a form (models/normal_parts.h: NORMAL_FORMS), without
 * friction, with Mindlin's spring and with Mindlin's spring and the constant rolling
 * torque, a dense settling packing run both ways must give the same bits: positions,
 * velocities, spins, the contacts' forces and springs and the books of work. The
 * generic passes compute each law's forces by its batch function, the fused ones by the
 * per-contact parts: the test holds the two to the same physics, contact by contact,
 * through first touches, separations and Coulomb slips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/population/rng.h"
#include "engine/sim.h"
#include "models/friction_law.h"
#include "models/normal_parts.h"
#include "world_helpers.h"

enum { N_SPHERES = 600, STEPS = 150 };

typedef struct packing {
    material mat;
    law_binding bind;
    wall_spec floor;
    particle_source src;
    double pos[3 * N_SPHERES], vel[3 * N_SPHERES], rad[N_SPHERES];
    sim_config cfg;
} packing;

/* Overlapping spheres of radii 0.8 to 1.6 mm thrown about in a 2 cm box, periodic in x
 * and y, with a floor: contacts start, slide, roll and end at every step. */
static void make_packing(packing *k, const dem_law *law, int variant)
{
    memset(k, 0, sizeof *k);
    rng r = {42};
    const double L = 0.02;
    for (int i = 0; i < N_SPHERES; i++) {
        k->rad[i] = rng_range(&r, 0.8e-3, 1.6e-3);
        for (int a = 0; a < 3; a++) {
            k->pos[3 * i + a] = rng_range(&r, a == 2 ? k->rad[i] : 0.0, a == 2 ? L : L);
            k->vel[3 * i + a] = rng_range(&r, -0.3, 0.3);
        }
    }
    k->mat = (material){"glass", 2500.0, 1e7, 0.25};
    k->bind = (law_binding){.law = law, .cohesion_removal = true};
    /* the laws' defaults, and a restitution of 0.5 where the law has one (the target of
     * its calibration, where it calibrates) */
    for (int p = 0; p < law->n_params; p++) k->bind.params[p] = law->params[p].default_value;
    int e = law_param_index(law, "restitution");
    if (e >= 0) k->bind.params[e] = 0.5;
    k->bind.calibrate = e >= 0 && law_has(&law->plugin, LAW_CAP_CALIBRATES);
    if (variant >= 1) k->bind.friction.mu = 0.4;
    if (variant == 2) {
        k->bind.friction.mu_rolling = 0.1;
        k->bind.friction.rolling = rolling_law_find("constant");
    }
    k->floor = (wall_spec){.kind = WALL_PLANE, .normal = {0, 0, 1}};
    k->src = list_source(k->pos, k->vel, k->rad, N_SPHERES);
    wire_world(&k->cfg, &k->mat, &k->bind, &k->src, &k->floor, 1);
    k->cfg.gravity[2] = -9.81;
    for (int a = 0; a < 3; a++) {
        k->cfg.domain_max[a] = L;
        k->cfg.periodic[a] = a < 2;
    }
    k->cfg.domain_max[2] = 2 * L;
}

/* What the run ends with, as bytes to compare. */
typedef struct outcome {
    double *state; /* x, y, z, v, w of each particle; work[] */
    size_t n_state;
    double *pairs; /* force on i and spring of each candidate pair */
    size_t n_pairs;
    size_t contacts, fused_law;
} outcome;

static outcome run(const dem_law *law, int variant, force_passes passes)
{
    packing k;
    make_packing(&k, law, variant);
    k.cfg.passes = passes;
    sim s;
    char err[512];
    int rc = sim_create(&s, &k.cfg, err, sizeof err);
    if (rc != 0) print_message("%s: %s\n", law->name, err);
    assert_int_equal(rc, 0);
    outcome o = {.fused_law = (size_t)s.laws[0].fused};
    for (int step = 0; step < STEPS; step++) {
        sim_step(&s);
        o.contacts += s.n_contacts;
    }
    size_t n = s.p.n_local;
    const double *fields[] = {s.p.x, s.p.y, s.p.z, s.p.vx, s.p.vy, s.p.vz, s.p.wx, s.p.wy, s.p.wz};
    o.n_state = 9 * n + SIM_WORK_KINDS;
    o.state = malloc(o.n_state * sizeof *o.state);
    for (int f = 0; f < 9; f++) memcpy(o.state + f * n, fields[f], n * sizeof(double));
    memcpy(o.state + 9 * n, s.work, SIM_WORK_KINDS * sizeof(double));
    const contact_list *c = &s.pairs;
    o.n_pairs = 6 * c->n;
    o.pairs = calloc(o.n_pairs + 1, sizeof *o.pairs);
    for (int a = 0; a < 3; a++) {
        memcpy(o.pairs + a * c->n, c->force[a], c->n * sizeof(double));
        if (c->has_friction) memcpy(o.pairs + (3 + a) * c->n, c->tangential[a], c->n * sizeof(double));
    }
    sim_free(&s);
    return o;
}

static const char *const variant_name[] = {"frictionless", "mindlin", "mindlin + constant rolling"};

static void same_bits_for_every_form(void **state)
{
    int laws = 0;
    for (int l = 0; l < law_count(); l++) {
        const dem_law *law = law_at(l);
        if (law->form == NORMAL_FORM_NONE) continue;
        laws++;
        for (int variant = 0; variant < 3; variant++) {
            outcome g = run(law, variant, PASSES_GENERIC), f = run(law, variant, PASSES_FUSED);
            print_message("%-26s %-27s %zu contact-steps\n", law->name, variant_name[variant],
                          f.contacts);
            assert_true(f.fused_law != 0); /* a fused pass ran */
            assert_true(f.contacts > 100 * STEPS);
            assert_int_equal(g.contacts, f.contacts);
            assert_int_equal(g.n_state, f.n_state);
            assert_memory_equal(g.state, f.state, g.n_state * sizeof(double));
            assert_int_equal(g.n_pairs, f.n_pairs);
            assert_memory_equal(g.pairs, f.pairs, g.n_pairs * sizeof(double));
            free(g.state); free(g.pairs); free(f.state); free(f.pairs);
        }
    }
    /* hertz, the four Hertz dashpots and the eight Hertzian damping laws */
    assert_true(laws >= 13);
}

/* What the shipped cases and the bench run has a fused pass (hertz_tti with Mindlin and
 * the constant rolling torque); a law of its own making does not, and runs the generic
 * passes. */
static void which_combinations_are_fused(void **state)
{
    packing k;
    make_packing(&k, law_find("hertz_tti"), 2);
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &k.cfg, err, sizeof err), 0);
    assert_true(s.laws[0].fused != 0);
    sim_free(&s);
    make_packing(&k, law_find("linear"), 1);
    assert_int_equal(sim_create(&s, &k.cfg, err, sizeof err), 0);
    assert_int_equal(s.laws[0].fused, 0);
    sim_free(&s);
    make_packing(&k, law_find("hertz_tti"), 1);
    k.bind.friction.mu_rolling = 0.1;
    k.bind.friction.rolling = rolling_law_find("viscous");
    assert_int_equal(sim_create(&s, &k.cfg, err, sizeof err), 0);
    assert_int_equal(s.laws[0].fused, 0);
    sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_bits_for_every_form),
        cmocka_unit_test(which_combinations_are_fused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
