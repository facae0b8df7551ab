/* Lees-Edwards boundaries (engine/neighbours/lees_edwards.h) checked against what they
 * must reproduce: a brute-force contact search with the sheared minimum image, the
 * closed-form path of a particle crossing a z face, a collision across the faces' plane
 * against the same collision in an open box (Galilean invariance), and the energy books
 * closing with the shear's work under a barostat. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/neighbours/contacts.h"
#include "engine/population/rng.h"
#include "engine/sim.h"
#include "engine/step/observables.h"
#include "world_helpers.h"

typedef struct sheared_world {
    material mat;
    law_binding bind;
    particle_source src;
    double *pos, *vel, *rad;
    sim_config cfg;
} sheared_world;

/* n particles (positions, velocities, radii copied) in the periodic box [0, L]^3 sheared
 * at `rate`; law: hertz (elastic) or, with friction mu > 0, hertz_tti with e = 0.5. */
static void sheared(sheared_world *w, size_t n, const double *pos, const double *vel,
                    const double *rad, double L, double rate, double young, double mu)
{
    memset(w, 0, sizeof *w);
    w->pos = malloc(3 * n * sizeof(double));
    w->vel = malloc(3 * n * sizeof(double));
    w->rad = malloc(n * sizeof(double));
    memcpy(w->pos, pos, 3 * n * sizeof(double));
    memcpy(w->vel, vel, 3 * n * sizeof(double));
    memcpy(w->rad, rad, n * sizeof(double));
    w->mat = (material){"glass", 2500.0, young, 0.25};
    if (mu > 0.0) {
        w->bind = (law_binding){.law = law_find("hertz_tti"), .cohesion_removal = true};
        w->bind.params[0] = 0.5;
        w->bind.friction = (contact_friction){.mu = mu};
    } else {
        w->bind = (law_binding){.law = law_find("hertz"), .cohesion_removal = true};
    }
    w->src = list_source(w->pos, w->vel, w->rad, n);
    wire_world(&w->cfg, &w->mat, &w->bind, &w->src, NULL, 0);
    for (int a = 0; a < 3; a++) {
        w->cfg.domain_min[a] = 0.0;
        w->cfg.domain_max[a] = L;
        w->cfg.periodic[a] = true;
    }
    w->cfg.lees_edwards = (lees_edwards_spec){.on = true, .shear_rate = rate};
}

static void unshear(sheared_world *w)
{
    free(w->pos);
    free(w->vel);
    free(w->rad);
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t pair_key(uint64_t a, uint64_t b) { return a < b ? (a << 32) | b : (b << 32) | a; }

/* Every touching pair by the sheared minimum image: j's image across the z faces k box
 * heights down lies k offsets back along x; then the nearest image along x and y. */
static size_t brute_force_pairs(const sim *s, uint64_t *keys)
{
    const particle_store *p = &s->p;
    double L[3];
    for (int a = 0; a < 3; a++) L[a] = s->cfg.domain_max[a] - s->cfg.domain_min[a];
    size_t n = 0;
    for (size_t i = 0; i < p->n_local; i++)
        for (size_t j = i + 1; j < p->n_local; j++) {
            double dz = p->z[j] - p->z[i];
            double k = round(dz / L[2]);
            dz -= k * L[2];
            double dx = p->x[j] - k * s->le.offset - p->x[i], dy = p->y[j] - p->y[i];
            dx -= round(dx / L[0]) * L[0];
            dy -= round(dy / L[1]) * L[1];
            double reach = p->radius[i] + p->radius[j];
            if (dx * dx + dy * dy + dz * dz < reach * reach) keys[n++] = pair_key(i, j);
        }
    qsort(keys, n, sizeof *keys, compare_keys);
    return n;
}

static size_t engine_pairs(const sim *s, uint64_t *keys)
{
    const contact_list *c = &s->pairs;
    size_t n = 0;
    for (size_t k = 0; k < c->n; k++)
        if (contact_overlap(c, &s->p, k) > 0.0) keys[n++] = pair_key(c->i[k], c->owner_j[k]);
    qsort(keys, n, sizeof *keys, compare_keys);
    return n;
}

/* 500 soft spheres with random velocities in a box sheared fast (the images slide 1 m/s):
 * at every step the engine's touching pairs are the brute force's. */
static void search_matches_brute_force_under_shear(void **state)
{
    (void)state;
    const size_t n = 500;
    const double L = 0.04;
    double *pos = malloc(3 * n * sizeof *pos), *vel = malloc(3 * n * sizeof *vel),
           *rad = malloc(n * sizeof *rad);
    rng r = {11};
    for (size_t i = 0; i < n; i++) {
        rad[i] = rng_range(&r, 0.5e-3, 2.0e-3);
        for (int a = 0; a < 3; a++) {
            pos[3 * i + a] = rng_range(&r, 0.0, L);
            vel[3 * i + a] = rng_range(&r, -1.0, 1.0);
        }
    }
    sheared_world w;
    sheared(&w, n, pos, vel, rad, L, 25.0, 1e6, 0.0);
    w.cfg.tuning = (sim_tuning){.set_parallel_min = true, .parallel_min = 0, .block = 32};
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
    size_t cap = n * n / 2, total = 0;
    uint64_t *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
    double offset_start = s.le.offset;
    for (int step = 0; step < 400; step++) {
        size_t na = brute_force_pairs(&s, a), nb = engine_pairs(&s, b);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na * sizeof *a);
        total += na;
        sim_step(&s);
    }
    print_message("%zu touching pairs over 400 steps, %lld rebuilds, offset %g m\n", total,
                  (long long)s.n_rebuilds, s.le.offset);
    assert_true(total > 1000);
    assert_true(s.n_rebuilds > 3);
    assert_true(fabs(s.le.offset - offset_start) > 0.0);
    free(a); free(b);
    sim_free(&s);
    unshear(&w);
    free(pos); free(vel); free(rad);
}

/* A lone particle rising through the top face comes back through the bottom in the
 * frame of the images: from then on x = x0 - U t (mod L), v_x = -U, and the shear has
 * done its kinetic energy's change, m U^2 / 2. */
static void crossing_shifts_position_and_velocity(void **state)
{
    (void)state;
    const double L = 0.02, rate = 10.0, U = rate * L, vz = 1.0;
    double pos[3] = {0.007, 0.01, L - 0.002}, vel[3] = {0.0, 0.0, vz}, rad[1] = {1e-3};
    sheared_world w;
    sheared(&w, 1, pos, vel, rad, L, rate, 1e7, 0.0);
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
    while (s.time < 0.01) sim_step(&s);
    double t = s.time;
    double x = fmod(pos[0] - U * t, L);
    if (x < 0.0) x += L;
    double gap = fabs(s.p.x[0] - x);
    gap = fmin(gap, L - gap);
    double z = pos[2] + vz * t - L;
    sim_observables o = {0};
    sim_observe(&s, &o);
    double m = s.p.mass[0];
    print_message("t %g: x %.15g (expected %.15g), z %.15g (%.15g), vx %.17g, work %.17g (%.17g)\n",
                  t, s.p.x[0], x, s.p.z[0], z, s.p.vx[0], o.shear_work, 0.5 * m * U * U);
    assert_true(gap < 1e-12);
    assert_true(fabs(s.p.z[0] - z) < 1e-12);
    assert_true(fabs(s.p.vx[0] + U) <= 1e-15 * U);
    assert_true(s.p.vz[0] == vz);
    assert_true(fabs(o.shear_work - 0.5 * m * U * U) <= 1e-12 * 0.5 * m * U * U);
    assert_true(fabs(o.energy_residual) <= 1e-12 * 0.5 * m * U * U);
    sim_free(&s);
    unshear(&w);
}

/* Two frictional spheres meet across the z faces: one rising near the top, the other
 * sinking near the bottom, whose image above slides at U (they part without crossing). The same collision in an open
 * box, the second sphere placed where that image is and moving at U, must end with the
 * same velocities and spins (the second's shifted by U): the image's velocity enters
 * the dashpots and the tangential spring as a real partner's does. */
static void collision_across_faces_matches_open_box(void **state)
{
    (void)state;
    const double L = 0.02, rate = 10.0, U = rate * L, r = 1e-3, dt = 2e-6;
    double pos[6] = {0.0100, 0.0100, L - 1.5e-3, 0.0097, 0.0100, 1.5e-3};
    double vel[6] = {0.0, 0.0, 0.25, 0.0, 0.0, -0.25}, rad[2] = {r, r};
    sheared_world w;
    sheared(&w, 2, pos, vel, rad, L, rate, 1e7, 0.3);
    w.cfg.dt = dt;
    w.cfg.impact_speed_estimate = 0.5; /* the dashpot's calibration: the same in both */
    sim le;
    char err[512];
    assert_int_equal(sim_create(&le, &w.cfg, err, sizeof err), 0);

    /* the open box: the second sphere where its image is, at the image's velocity */
    double pos2[6] = {pos[0], pos[1], pos[2], pos[3], pos[4], pos[5] + L};
    double vel2[6] = {vel[0], vel[1], vel[2], U, vel[4], vel[5]};
    sheared_world o;
    sheared(&o, 2, pos2, vel2, rad, L, rate, 1e7, 0.3);
    o.cfg.lees_edwards.on = false;
    for (int a = 0; a < 3; a++) {
        o.cfg.periodic[a] = false;
        o.cfg.domain_min[a] = -0.1;
        o.cfg.domain_max[a] = 0.1;
    }
    o.cfg.dt = dt;
    o.cfg.impact_speed_estimate = 0.5;
    sim open;
    assert_int_equal(sim_create(&open, &o.cfg, err, sizeof err), 0);
    int touched = 0;
    for (int step = 0; step < 4000; step++) {
        sim_step(&le);
        sim_step(&open);
        touched |= le.n_contacts > 0;
    }
    assert_true(touched);
    assert_int_equal(le.p.id[0], 0);
    double v_le[2][6], v_open[2][6];
    for (size_t i = 0; i < 2; i++) {
        double *a = v_le[le.p.id[i]], *b = v_open[open.p.id[i]];
        a[0] = le.p.vx[i] + (le.p.id[i] == 1 ? U : 0.0);
        a[1] = le.p.vy[i]; a[2] = le.p.vz[i];
        a[3] = le.p.wx[i]; a[4] = le.p.wy[i]; a[5] = le.p.wz[i];
        b[0] = open.p.vx[i]; b[1] = open.p.vy[i]; b[2] = open.p.vz[i];
        b[3] = open.p.wx[i]; b[4] = open.p.wy[i]; b[5] = open.p.wz[i];
    }
    print_message("after: sphere 0 v (%.9f %.9f %.9f) w (%.6f %.6f %.6f); open box (%.9f %.9f %.9f) "
                  "(%.6f %.6f %.6f)\n", v_le[0][0], v_le[0][1], v_le[0][2], v_le[0][3], v_le[0][4],
                  v_le[0][5], v_open[0][0], v_open[0][1], v_open[0][2], v_open[0][3], v_open[0][4],
                  v_open[0][5]);
    /* the collision turned the first sphere back and spun it (friction acted) */
    assert_true(v_le[0][2] < 0.0);
    assert_true(fabs(v_le[0][4]) > 1.0);
    for (int i = 0; i < 2; i++)
        for (int a = 0; a < 6; a++) {
            double scale = a < 3 ? 0.25 : 0.25 / r;
            assert_true(fabs(v_le[i][a] - v_open[i][a]) < 1e-9 * scale);
        }
    sim_free(&le);
    sim_free(&open);
    unshear(&w);
    unshear(&o);
}

/* 300 loose frictional spheres pressed by the barostat to 500 Pa while sheared: the
 * energy balance closes with the shear's work (slip, crossings, the box's compression),
 * the contacts dissipate, and the box holds the pressure. */
static void energy_books_close_under_a_barostat(void **state)
{
    (void)state;
    const size_t n = 300;
    const double L = 0.012, H = 0.03;
    double *pos = malloc(3 * n * sizeof *pos), *vel = calloc(3 * n, sizeof *vel),
           *rad = malloc(n * sizeof *rad);
    rng r = {5};
    for (size_t i = 0; i < n; i++) { /* loose: a 5 x 5 x 12 grid of 2.4 x 2.4 x 2.5 mm cells */
        rad[i] = rng_range(&r, 0.9e-3, 1.1e-3);
        size_t cell[3] = {i % 5, (i / 5) % 5, i / 25};
        double size[3] = {L / 5, L / 5, H / 12};
        for (int a = 0; a < 3; a++)
            pos[3 * i + a] = (cell[a] + 0.5) * size[a] + rng_range(&r, -0.1e-3, 0.1e-3);
    }
    sheared_world w;
    sheared(&w, n, pos, vel, rad, L, 20.0, 1e8, 0.5);
    w.cfg.domain_max[2] = H;
    w.cfg.lees_edwards.pressure = 500.0;
    w.cfg.lees_edwards.pressure_time = 0.01;
    w.cfg.lees_edwards.max_strain_rate = 20.0;
    w.cfg.lees_edwards.initial_profile = true;
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
    double p_sum = 0.0, tau_sum = 0.0;
    long samples = 0;
    sim_observables o = {0};
    while (s.time < 0.12) {
        sim_step(&s);
        if (s.time > 0.06) {
            sim_observe(&s, &o);
            p_sum += o.normal_stress;
            tau_sum += o.shear_stress;
            samples++;
        }
    }
    sim_observe(&s, &o);
    double dissipated = o.dissipated_damping + o.dissipated_friction;
    print_message("height %.5f m, <p> %.1f Pa, mu %.3f, shear work %.6e J, residual %.3e J, "
                  "dissipated %.6e J (normal %.3e)\n", o.box_height, p_sum / samples,
                  tau_sum / p_sum, o.shear_work, o.energy_residual, dissipated,
                  o.dissipated_damping);
    assert_true(o.shear_work > 0.0);
    assert_true(fabs(o.energy_residual) < 1e-3 * o.shear_work);
    assert_true(o.dissipated_damping > 0.0 && o.dissipated_friction > 0.0);
    assert_true(fabs(p_sum / samples - 500.0) < 50.0);
    assert_true(o.box_height < 0.6 * H); /* the loose start was pressed */
    sim_free(&s);
    unshear(&w);
    free(pos); free(vel); free(rad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(search_matches_brute_force_under_shear),
        cmocka_unit_test(crossing_shifts_position_and_velocity),
        cmocka_unit_test(collision_across_faces_matches_open_box),
        cmocka_unit_test(energy_books_close_under_a_barostat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
