/* The engine's machinery checked against independent computations: a brute-force
 * contact search, Hertz statics, wall geometry, and thread-count independence. */
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

#include "engine/collide/collision.h"
#include "engine/neighbours/contacts.h"
#include "engine/population/field_alloc.h"
#include "engine/population/rng.h"
#include "models/restitution.h"
#include "engine/sim.h"
#include "world_helpers.h"
#include "engine/walls/walls.h"

typedef struct world {
    material mats[2];
    law_binding binds[2];
    wall_spec walls[6];
    particle_source src;
    double *pos, *vel, *rad;
    sim_config cfg;
} world;

/* n random spheres (radii uniform in [r_min, r_max], overlaps allowed) with random
 * velocities in a box of side L; soft Hertz contacts so that many pairs touch. */
static void random_world(world *w, long n, double L, double r_min, double r_max, double speed,
                         const bool periodic[3], uint64_t seed)
{
    memset(w, 0, sizeof *w);
    rng r = {seed};
    w->pos = malloc(3 * n * sizeof(double));
    w->vel = malloc(3 * n * sizeof(double));
    w->rad = malloc(n * sizeof(double));
    for (long i = 0; i < n; i++) {
        w->rad[i] = rng_range(&r, r_min, r_max);
        for (int a = 0; a < 3; a++) {
            double lo = periodic[a] ? 0.0 : w->rad[i], hi = periodic[a] ? L : L - w->rad[i];
            w->pos[3 * i + a] = rng_range(&r, lo, hi);
            w->vel[3 * i + a] = rng_range(&r, -speed, speed);
        }
    }
    w->mats[0] = (material){"soft", 1000.0, 1e6, 0.3};
    w->binds[0] = (law_binding){.material_a = 0, .material_b = 0, .law = law_find("hertz"),
                                .cohesion_removal = true};
    w->src = list_source(w->pos, w->vel, w->rad, n);
    sim_config *c = &w->cfg;
    wire_world(c, w->mats, w->binds, &w->src, NULL, 0);
    for (int a = 0; a < 3; a++) {
        c->domain_min[a] = 0.0;
        c->domain_max[a] = L;
        c->periodic[a] = periodic[a];
    }
}

static void free_world(world *w) { free(w->pos); free(w->vel); free(w->rad); }

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Touching pairs (as sorted keys lo << 32 | hi) found by trying every pair, with the
 * minimum-image convention on periodic axes. */
static size_t brute_force_pairs(const sim *s, uint64_t *keys)
{
    const particle_store *p = &s->p;
    size_t n = 0;
    for (size_t i = 0; i < p->n_local; i++)
        for (size_t j = i + 1; j < p->n_local; j++) {
            double d[3] = {p->x[j] - p->x[i], p->y[j] - p->y[i], p->z[j] - p->z[i]};
            for (int a = 0; a < 3; a++) {
                if (!s->cfg.periodic[a]) continue;
                double L = s->cfg.domain_max[a] - s->cfg.domain_min[a];
                d[a] -= L * round(d[a] / L);
            }
            double reach = p->radius[i] + p->radius[j];
            if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach)
                keys[n++] = ((uint64_t)i << 32) | j;
        }
    qsort(keys, n, sizeof *keys, compare_keys);
    return n;
}

static size_t engine_pairs(const sim *s, uint64_t *keys)
{
    const contact_list *c = &s->pairs;
    size_t n = 0;
    for (size_t k = 0; k < c->n; k++) {
        if (contact_overlap(c, &s->p, k) <= 0.0) continue;
        uint64_t a = c->i[k], b = c->owner_j[k];
        keys[n++] = a < b ? (a << 32) | b : (b << 32) | a;
    }
    qsort(keys, n, sizeof *keys, compare_keys);
    return n;
}

static void check_search_matches_brute_force(const bool periodic[3], uint64_t seed)
{
    world w;
    long n = 600;
    random_world(&w, n, 0.05, 0.5e-3, 2.5e-3, 2.0, periodic, seed);
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
    assert_null(s.p.tx0); /* no friction turns a spin: no spins' history (particles.h) */
    size_t cap = (size_t)n * n / 2;
    uint64_t *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
    size_t total = 0;
    for (int step = 0; step < 400; step++) {
        size_t na = brute_force_pairs(&s, a), nb = engine_pairs(&s, b);
        if (na != nb || memcmp(a, b, na * sizeof *a)) {
            for (size_t q = 0, r = 0; q < na || r < nb;) {
                if (r >= nb || (q < na && a[q] < b[r])) {
                    uint64_t i = a[q] >> 32, j = a[q] & 0xffffffff;
                    print_message("step %d missing %llu %llu: %g %g %g / %g %g %g\n", step,
                                  (unsigned long long)i, (unsigned long long)j, s.p.x[i], s.p.y[i], s.p.z[i], s.p.x[j], s.p.y[j], s.p.z[j]);
                    q++;
                } else if (q >= na || b[r] < a[q]) { print_message("extra %llx\n", (unsigned long long)b[r]); r++; }
                else { q++; r++; }
            }
        }
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na * sizeof *a);
        total += na;
        sim_step(&s);
    }
    print_message("periodic %d%d%d: %zu touching pairs checked over 400 steps, %lld rebuilds\n",
                  periodic[0], periodic[1], periodic[2], total, (long long)s.n_rebuilds);
    assert_true(total > 1000);
    assert_true(s.n_rebuilds > 3); /* the lists really were rebuilt under motion */
    free(a); free(b);
    sim_free(&s);
    free_world(&w);
}

static void neighbour_search_matches_brute_force(void **state)
{
    const bool none[3] = {false, false, false}, one[3] = {true, false, false},
               all[3] = {true, true, true};
    check_search_matches_brute_force(none, 1);
    check_search_matches_brute_force(one, 2);
    check_search_matches_brute_force(all, 3);
}

/* A sphere resting on a plane under gravity settles where Hertz's spring holds its
 * weight: m g = K_hz d^(3/2), K_hz = 4/3 E* sqrt(R). */
static void ball_on_wall_settles_to_hertz_static_overlap(void **state)
{
    double R = 0.01, rho = 7800, E = 2e11, nu = 0.3, g = 9.81;
    material steel = {"steel", rho, E, nu};
    law_binding bind = {.law = law_find("hertz_tti"), .cohesion_removal = true};
    bind.params[0] = 0.3;
    double pos[3] = {0, 0, R}, vel[3] = {0, 0, 0}, rad[1] = {R};
    particle_source src = {.kind = SOURCE_LIST, .n_list = 1, .list_position = pos,
                           .list_velocity = vel, .list_radius = rad};
    wall_spec floor_wall = {.kind = WALL_PLANE, .normal = {0, 0, 1}};
    sim_config cfg = {.materials = &steel, .n_materials = 1, .bindings = &bind,
                      .n_bindings = 1, .walls = &floor_wall, .n_walls = 1, .sources = &src,
                      .n_sources = 1, .gravity = {0, 0, -g}, .dt_check = true,
                      .domain_min = {-0.1, -0.1, 0}, .domain_max = {0.1, 0.1, 0.1}};
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &cfg, err, sizeof err), 0);
    double m = s.p.mass[0];
    double e_eff = E / (2 * (1 - nu * nu)); /* the wall is steel too */
    double d_static = pow(m * g / (4.0 / 3.0 * e_eff * sqrt(R)), 2.0 / 3.0);
    while (s.time < 0.02) sim_step(&s);
    double d = R - s.p.z[0];
    print_message("static overlap %.6e, Hertz %.6e, speed %.2e after %lld steps\n", d,
                  d_static, fabs(s.p.vz[0]), (long long)s.step);
    assert_true(fabs(d - d_static) / d_static < 1e-3);
    sim_free(&s);
}

static void wall_distances(void **state)
{
    wall_spec plane = {.kind = WALL_PLANE, .point = {0, 0, 1}, .normal = {0, 0, 1}};
    double n[3], c[3] = {5, -3, 1.25};
    assert_true(fabs(wall_distance(&plane, c, n) - 0.25) < 1e-15);
    assert_true(n[2] == -1.0);
    wall_spec rect = {.kind = WALL_RECTANGLE, .point = {0, 0, 0}, .normal = {0, 0, 1},
                      .axis_u = {1, 0, 0}, .half_size = {1, 2}};
    double above[3] = {0.5, 1.5, 0.3}; /* over the face */
    assert_true(fabs(wall_distance(&rect, above, n) - 0.3) < 1e-15);
    double beyond[3] = {1.3, 0, 0.4}; /* past the edge x = 1: distance to the edge */
    assert_true(fabs(wall_distance(&rect, beyond, n) - 0.5) < 1e-15);
    assert_true(fabs(n[0] + 0.6) < 1e-15 && fabs(n[2] + 0.8) < 1e-15);
    double corner[3] = {2, 3, 0}; /* nearest point is the corner (1, 2, 0) */
    assert_true(fabs(wall_distance(&rect, corner, n) - sqrt(2.0)) < 1e-15);
}

/* 1500 random spheres (overlapping: many contacts at once) under gravity, hertz_tti
 * with e = 0.5. */
static void settling_world(world *w, const bool periodic[3], double speed, uint64_t seed)
{
    random_world(w, 1500, 0.04, 0.8e-3, 1.6e-3, speed, periodic, seed);
    w->cfg.gravity[2] = -9.81;
    w->binds[0].law = law_find("hertz_tti");
    w->binds[0].params[0] = 0.5;
}

/* Positions and velocities after a dense, settling run must not depend on threads.
 * Blocks of 64 particles (tuning.block), so that the 1500 spheres make 24 blocks and
 * many pairs cross from one block to another (engine/neighbours/contacts.h). With `tight`, the
 * neighbour search's buffers start nearly empty (tuning.search_room 0) and grow at
 * every rebuild: the list must come out the same. */
static void run_with_threads(int threads, double *out, size_t n_out, bool tight)
{
    omp_set_num_threads(threads);
    const bool periodic[3] = {true, false, false};
    world w;
    settling_world(&w, periodic, 0.5, 7);
    w.walls[0] = (wall_spec){.kind = WALL_PLANE, .normal = {0, 0, 1}};
    w.walls[1] = (wall_spec){.kind = WALL_PLANE, .point = {0, 0, 0}, .normal = {0, 1, 0}};
    w.walls[2] = (wall_spec){.kind = WALL_PLANE, .point = {0, 0.04, 0}, .normal = {0, -1, 0}};
    w.cfg.walls = w.walls;
    w.cfg.n_walls = 3;
    w.cfg.tuning = (sim_tuning){.block = 64, .set_search_room = tight, .search_room = 0.0};
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
    print_message("%zu threads: %zu of %zu pairs cross blocks; %lld rebuilds%s\n", (size_t)threads,
                  s.pairs.n_cross, s.pairs.n, (long long)s.n_rebuilds, tight ? ", tight buffers" : "");
    assert_true(s.pairs.n_cross > 200);
    s.parallel_min = 0; /* split even this small system among the threads */
    for (int k = 0; k < 300; k++) sim_step(&s);
    size_t n = s.p.n_local;
    assert_true(6 * n == n_out);
    memcpy(out, s.p.x, n * sizeof *out);
    memcpy(out + n, s.p.y, n * sizeof *out);
    memcpy(out + 2 * n, s.p.z, n * sizeof *out);
    memcpy(out + 3 * n, s.p.vx, n * sizeof *out);
    memcpy(out + 4 * n, s.p.vy, n * sizeof *out);
    memcpy(out + 5 * n, s.p.vz, n * sizeof *out);
    sim_free(&s);
    free_world(&w);
}

static void results_identical_for_any_thread_count(void **state)
{
    size_t n = 6 * 1500;
    double *one = malloc(n * sizeof *one), *two = malloc(n * sizeof *two),
           *three = malloc(n * sizeof *three);
    run_with_threads(1, one, n, false);
    run_with_threads(2, two, n, false);
    run_with_threads(3, three, n, true);
    assert_memory_equal(one, two, n * sizeof *one);
    assert_memory_equal(one, three, n * sizeof *one);
    free(one); free(two); free(three);
}

/* Newton's third law, summed over the whole system: with no gravity and no walls the
 * contact forces add up to zero, and so do the moments about the origin,
 *   sum_i (x_i x f_i + t_i) = 0,
 * because each pair's tangential force acts at one point on the line of centres
 * (arm_i + arm_j = |x_j - x_i|) and its rolling torque is a couple. A pair whose j side
 * were lost or counted twice on its way between blocks would break both. `block`
 * particles per block of the force loop; with friction, after `steps` steps (the
 * springs load). Returns the largest particle force, for the scale. */
static double check_pair_sums_vanish(size_t block, int steps, double *fx_out)
{
    const bool periodic[3] = {false, false, false};
    world w;
    random_world(&w, 1500, 0.04, 0.8e-3, 1.6e-3, 0.5, periodic, 11);
    w.binds[0].law = law_find("hertz_tti");
    w.binds[0].params[0] = 0.5;
    w.binds[0].friction = (contact_friction){.mu = 0.5, .rolling = rolling_law_find("constant"),
                                             .mu_rolling = 0.1};
    w.cfg.tuning.block = block;
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
    assert_non_null(s.p.tx0); /* friction turns the spins: their history is held */
    for (int k = 0; k < steps; k++) sim_step(&s);
    const particle_store *p = &s.p;
    double f[3] = {0, 0, 0}, moment[3] = {0, 0, 0}, f_scale = 0.0, m_scale = 0.0;
    for (size_t i = 0; i < p->n_local; i++) {
        double x[3] = {p->x[i], p->y[i], p->z[i]}, fi[3] = {p->fx[i], p->fy[i], p->fz[i]};
        double t[3] = {p->tx[i], p->ty[i], p->tz[i]};
        double m[3] = {x[1] * fi[2] - x[2] * fi[1] + t[0], x[2] * fi[0] - x[0] * fi[2] + t[1],
                       x[0] * fi[1] - x[1] * fi[0] + t[2]};
        for (int a = 0; a < 3; a++) {
            f[a] += fi[a];
            moment[a] += m[a];
            f_scale = fmax(f_scale, fabs(fi[a]));
            m_scale = fmax(m_scale, fabs(m[a]));
        }
    }
    print_message("blocks of %zu, %zu cross pairs of %zu, %zu touching: sum f = (%.2g %.2g %.2g) "
                  "of %.3g N, sum moment %.2g of %.3g N m\n", block, s.pairs.n_cross, s.pairs.n,
                  s.n_contacts, f[0], f[1], f[2], f_scale, fmax(fabs(moment[0]), fabs(moment[2])),
                  m_scale);
    assert_true(s.n_contacts > 500);
    for (int a = 0; a < 3; a++) {
        assert_true(fabs(f[a]) < 1e-12 * f_scale * p->n_local);
        assert_true(fabs(moment[a]) < 1e-12 * m_scale * p->n_local);
    }
    assert_true(m_scale > 0.0);
    memcpy(fx_out, p->fx, p->n_local * sizeof *fx_out);
    sim_free(&s);
    free_world(&w);
    return f_scale;
}

/* The same forces whatever the blocks (up to the order of the sums), and conserved
 * momentum and angular momentum with many cross pairs (blocks of 16) and with none (one
 * block). */
static void pair_forces_balance_across_blocks(void **state)
{
    double *small = malloc(1500 * sizeof *small), *one = malloc(1500 * sizeof *one);
    double scale = check_pair_sums_vanish(16, 5, small);
    check_pair_sums_vanish(100000, 5, one);
    double worst = 0.0;
    for (int i = 0; i < 1500; i++) worst = fmax(worst, fabs(small[i] - one[i]));
    print_message("blocks of 16 and one block: forces differ by at most %.2g N (of %.3g)\n",
                  worst, scale);
    assert_true(worst < 1e-12 * scale);
    free(small); free(one);
}

/* A frictional run of 1500 spheres in the case's (random) order; after 20 steps the
 * next rebuild sorts the particles along the curve if `sort` (engine/neighbours/reorder.h), and
 * 20 steps more. out: angular velocity and position, 6 per particle, by id. */
static void run_sorted_midway(int sort, double *out, int64_t *reorders)
{
    const bool periodic[3] = {true, true, false};
    world w;
    settling_world(&w, periodic, 0.2, 5);
    w.binds[0].friction = (contact_friction){.mu = 0.5, .rolling = rolling_law_find("constant"),
                                             .mu_rolling = 0.1};
    w.walls[0] = (wall_spec){.kind = WALL_PLANE, .normal = {0, 0, 1}};
    w.cfg.walls = w.walls;
    w.cfg.n_walls = 1;
    w.cfg.tuning = (sim_tuning){.set_reorder_min = true, .reorder_min = 1000000000}; /* never */
    sim s;
    char err[512];
    assert_int_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
    for (int k = 0; k < 20; k++) sim_step(&s);
    s.reorder = sort;
    s.reorder_min = 1;
    s.x_at_rebuild[0] = HUGE_VAL; /* both runs rebuild at the next step */
    for (int k = 0; k < 20; k++) sim_step(&s);
    *reorders = s.n_reorders;
    const particle_store *p = &s.p;
    for (size_t i = 0; i < p->n_local; i++) {
        double *o = out + 6 * p->id[i];
        o[0] = p->wx[i]; o[1] = p->wy[i]; o[2] = p->wz[i];
        o[3] = p->x[i]; o[4] = p->y[i]; o[5] = p->z[i];
    }
    sim_free(&s);
    free_world(&w);
}

/* Sorting the particles carries each one's state and each contact's history (the
 * tangential springs, loaded by then) along: a run sorted midway matches, particle by
 * particle, a run never sorted, to rounding (the sums run in another order). A spring
 * lost or given to another pair would change the spins at once. */
static void sorting_keeps_state_and_history(void **state)
{
    double *sorted = malloc(6 * 1500 * sizeof *sorted), *kept = malloc(6 * 1500 * sizeof *kept);
    int64_t n_sorted, n_kept;
    run_sorted_midway(1, sorted, &n_sorted);
    run_sorted_midway(0, kept, &n_kept);
    assert_true(n_sorted >= 1); /* at the forced rebuild, maybe again later */
    assert_int_equal(n_kept, 0);
    double dw = 0.0, w_max = 0.0, dx = 0.0;
    for (int i = 0; i < 1500; i++)
        for (int a = 0; a < 3; a++) {
            dw = fmax(dw, fabs(sorted[6 * i + a] - kept[6 * i + a]));
            w_max = fmax(w_max, fabs(kept[6 * i + a]));
            dx = fmax(dx, fabs(sorted[6 * i + 3 + a] - kept[6 * i + 3 + a]));
        }
    print_message("sorted midway vs never: spins differ by %.2g of %.3g rad/s, positions by %.2g m\n",
                  dw, w_max, dx);
    assert_true(w_max > 1.0);
    assert_true(dw < 1e-9 * w_max);
    assert_true(dx < 1e-15);
    free(sorted); free(kept);
}

/* After the first rebuild the particles lie along the curve: consecutive particles in
 * memory are neighbours in space, which random order is not. */
static void particles_sorted_along_the_curve(void **state)
{
    const bool periodic[3] = {false, false, false};
    double gap[2];
    for (int sorted = 0; sorted < 2; sorted++) {
        world w;
        random_world(&w, 4000, 0.1, 0.8e-3, 1.6e-3, 0.0, periodic, 3);
        if (!sorted) /* never */
            w.cfg.tuning = (sim_tuning){.set_reorder_min = true, .reorder_min = 1000000000};
        sim s;
        char err[512];
        assert_int_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
        const particle_store *p = &s.p;
        double sum = 0.0;
        for (size_t i = 1; i < p->n_local; i++)
            sum += sqrt(pow(p->x[i] - p->x[i - 1], 2) + pow(p->y[i] - p->y[i - 1], 2) +
                        pow(p->z[i] - p->z[i - 1], 2));
        gap[sorted] = sum / (double)(p->n_local - 1);
        /* every particle is still itself: its position and radius as the case gave them */
        for (size_t i = 0; i < p->n_local; i++) {
            int64_t k = p->id[i];
            assert_true(p->x[i] == w.pos[3 * k] && p->z[i] == w.pos[3 * k + 2]);
            assert_true(p->radius[i] == w.rad[k]);
        }
        sim_free(&s);
        free_world(&w);
    }
    print_message("mean distance between consecutive particles: %.3g m in the case's order, "
                  "%.3g m sorted\n", gap[0], gap[1]);
    assert_true(gap[1] < 0.2 * gap[0]);
}

/* The contact history must survive neighbour rebuilds: with a skin far smaller than the
 * overlap, the list is rebuilt many times during one contact, and Hunt-Crossley's
 * damping chi d'/v0 still uses the impact velocity stored at first touch. Were v0
 * re-taken at a rebuild, the restitution would leave its closed form. */
static void history_survives_rebuilds_during_contact(void **state)
{
    collision_spec sp;
    collision_defaults(&sp, law_find("hunt_crossley"));
    sp.params[law_param_index(sp.law, "restitution")] = 0.5;
    sp.skin = 1e-7; /* the largest overlap is about 2e-5 m */
    collision_result r;
    char err[256];
    assert_int_equal(collision_run(&sp, &r, err, sizeof err), 0);
    double expected = hertzian_restitution_out(1.5 * (1.0 - 0.5));
    print_message("%ld rebuilds in contact; e_out %.6f, closed form %.6f\n",
                  r.rebuilds_in_contact, r.restitution_out, expected);
    assert_true(r.rebuilds_in_contact > 50);
    assert_true(fabs(r.restitution_out - expected) / expected < 2e-3);
}

/* The per-field arrays (engine/population/field_alloc.h): large ones must start at different cache
 * lines within a page, since arrays that share one L1 set evict one another (15% at
 * 10M spheres), and growing or shrinking one, across the mapping threshold both ways,
 * must keep its first entries. */
static void field_arrays_spread_over_cache_lines_and_keep_contents(void **state)
{
    (void)state;
    enum { N_ARRAYS = 24, BIG = 40000, HUGE_N = 400000, SMALL = 100 };
    double *a[N_ARRAYS];
    for (int k = 0; k < N_ARRAYS; k++) {
        a[k] = field_realloc(NULL, BIG * sizeof(double));
        assert_non_null(a[k]);
#ifndef DEMPACT_FIELDS_FROM_MALLOC /* sanitizer builds: every array from malloc */
        assert_int_equal((uintptr_t)a[k] % 64, 0);
        for (int m = 0; m < k; m++)
            if ((uintptr_t)a[m] % 4096 == (uintptr_t)a[k] % 4096)
                fail_msg("arrays %d and %d both start at byte %u of a page", m, k,
                         (unsigned)((uintptr_t)a[k] % 4096));
#endif
    }
    for (int k = 0; k < BIG; k++) a[0][k] = 0.5 * k - 1.0 / 3.0;
    double *grown = field_realloc(a[0], HUGE_N * sizeof(double)); /* mapped -> mapped */
    assert_non_null(grown);
    for (int k = 0; k < BIG; k++) assert_true(grown[k] == 0.5 * k - 1.0 / 3.0);
    grown[HUGE_N - 1] = 7.0; /* the new room is there */
    double *small = field_realloc(grown, SMALL * sizeof(double)); /* mapped -> heap */
    assert_non_null(small);
    assert_int_equal((uintptr_t)small % 16, 0);
    for (int k = 0; k < SMALL; k++) assert_true(small[k] == 0.5 * k - 1.0 / 3.0);
    double *again = field_realloc(small, BIG * sizeof(double)); /* heap -> mapped */
    assert_non_null(again);
    for (int k = 0; k < SMALL; k++) assert_true(again[k] == 0.5 * k - 1.0 / 3.0);
    a[0] = again;
    for (int k = 0; k < N_ARRAYS; k++) field_free(a[k]);
    field_free(NULL);
}

/* contact_list_index_cross against its definition, on a random list of 5,000 particles
 * in blocks of 64 (79 blocks, so that the blocks run in parallel): pair k of particle i
 * is a cross pair iff its owner_j lies in another block; the cross pairs of particle p
 * are cross_pair[cross_first[p] .. cross_first[p + 1]), in list order, and cross_slot
 * points back to them; the others are CONTACT_SAME_BLOCK. */
static void cross_pairs_follow_their_definition(void **state)
{
    (void)state;
    enum { N = 5000, BLOCK = 64 };
    int was = omp_get_max_threads();
    for (int threads = 1; threads <= 3; threads++) {
        omp_set_num_threads(threads);
        contact_list c = {0};
        contact_list_configure(&c, 0, 0, 0, 1, 0, 0);
        assert_int_equal(contact_list_reserve(&c, 8 * N), 0);
        rng r = {12345};
        c.first_of_i = malloc((N + 1) * sizeof *c.first_of_i);
        assert_non_null(c.first_of_i);
        size_t n = 0;
        for (size_t i = 0; i < N; i++) { /* 0 to 7 partners above i, some far away */
            c.first_of_i[i] = (uint32_t)n;
            int m = (int)(rng_next(&r) % 8);
            for (int q = 0; q < m && i + 1 < N; q++) {
                uint64_t above = N - i - 1; /* a quarter anywhere above, the rest near */
                uint64_t span = rng_next(&r) % 4 == 0 ? above : (above < 100 ? above : 100);
                c.owner_j[n] = (uint32_t)(i + 1 + rng_next(&r) % span);
                c.i[n] = c.j[n] = 0; /* unread */
                n++;
            }
        }
        c.first_of_i[N] = (uint32_t)n;
        c.n = n;
        c.n_first = N;
        assert_int_equal(contact_list_index_cross(&c, N, BLOCK, NULL), 0);
        size_t cross = 0;
        for (size_t i = 0; i < N; i++)
            for (size_t k = c.first_of_i[i]; k < c.first_of_i[i + 1]; k++) {
                int is_cross = c.owner_j[k] / BLOCK != i / BLOCK;
                if (!is_cross) {
                    assert_int_equal(c.cross_slot[k], CONTACT_SAME_BLOCK);
                    continue;
                }
                cross++;
                uint32_t q = c.cross_slot[k], p = c.owner_j[k];
                assert_true(q >= c.cross_first[p] && q < c.cross_first[p + 1]);
                assert_int_equal(c.cross_pair[q], k);
            }
        assert_int_equal(c.n_cross, cross);
        assert_int_equal(c.cross_first[N], cross);
        for (size_t p = 0; p < N; p++)
            for (size_t q = c.cross_first[p]; q + 1 < c.cross_first[p + 1]; q++)
                assert_true(c.cross_pair[q] < c.cross_pair[q + 1]); /* list order */
        assert_true(cross > n / 10);
        contact_list_free(&c);
    }
    omp_set_num_threads(was);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(history_survives_rebuilds_during_contact),
        cmocka_unit_test(neighbour_search_matches_brute_force),
        cmocka_unit_test(ball_on_wall_settles_to_hertz_static_overlap),
        cmocka_unit_test(wall_distances),
        cmocka_unit_test(results_identical_for_any_thread_count),
        cmocka_unit_test(pair_forces_balance_across_blocks),
        cmocka_unit_test(sorting_keeps_state_and_history),
        cmocka_unit_test(particles_sorted_along_the_curve),
        cmocka_unit_test(field_arrays_spread_over_cache_lines_and_keep_contents),
        cmocka_unit_test(cross_pairs_follow_their_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
