/* The external loads (engine/step/external_loads.h) follow their particles: set by rows in id
 * order, they land on the particle of each id wherever the store keeps it, and stay with
 * it through a reordering (particles_permute, as a rebuild's sort does), a removal
 * (particles_remove, as outlets and the watchdog do) and an insertion (particles_add: the
 * new particle carries none). The force sums change by the loads' difference at once. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/step/external_loads.h"
#include "engine/population/particles.h"
#include "engine/sim.h"

enum { N = 6 };

/* The load that row (id) k gets: distinct per particle and component. */
static double load_of(int64_t id, int k) { return 1e-3 * (double)(10 * id + k + 1); }

/* A bare simulation holding N particles in a row (the loads read only the store and dt). */
static void make(sim *s)
{
    memset(s, 0, sizeof *s);
    assert_int_equal(particles_init(&s->p, 4), 0);
    for (int k = 0; k < N; k++) {
        double x[3] = {0.01 * k, 0, 0};
        assert_true(particles_add(&s->p, 0, 0.001, 2500.0, x, NULL) >= 0);
        s->p.fx[k] = s->p.mass[k] * -9.81; /* a weight to find again */
    }
    s->dt = 1e-6;
}

/* Every particle's loads are those of its id, and its force sum its weight plus them. */
static void check_loads_by_id(const sim *s, int torques)
{
    const particle_store *p = &s->p;
    for (size_t i = 0; i < p->n_local; i++)
        for (int k = 0; k < 6; k++) {
            if (k >= 3 && !torques) {
                assert_null(p->external[k]);
                continue;
            }
            assert_non_null(p->external[k]);
            assert_true(p->external[k][i] == load_of(p->id[i], k));
        }
    for (size_t i = 0; i < p->n_local; i++)
        assert_true(fabs(p->fx[i] - (p->mass[i] * -9.81 + load_of(p->id[i], 0))) <= 1e-15);
}

/* The spins' history a torque needs (particles.h) is held and moves with its particles:
 * the previous torque 0, the mid-step spin the spin (both set from the particle's id). */
static void check_spin_history(const sim *s)
{
    const particle_store *p = &s->p;
    assert_non_null(p->tx0);
    for (size_t i = 0; i < p->n_local; i++) {
        assert_true(p->tx0[i] == 0.0 && p->ty0[i] == 0.0 && p->tz0[i] == 0.0);
        assert_true(p->whx[i] == p->wx[i] && p->why[i] == p->wy[i] && p->whz[i] == p->wz[i]);
        assert_true(p->wx[i] == (p->id[i] < N ? 1.0 + (double)p->id[i] : 0.0));
    }
}

/* rows[k] for the particle with the k-th smallest id (ids are 0..N-1 less those removed). */
static void set_by_id(sim *s, int torques)
{
    enum { MOST = 64 };
    double force[3 * MOST], torque[3 * MOST];
    int64_t ids[MOST];
    size_t n = s->p.n_local;
    assert_true(n <= MOST);
    memcpy(ids, s->p.id, n * sizeof *ids);
    for (size_t a = 0; a < n; a++) /* ascending */
        for (size_t b = a + 1; b < n; b++)
            if (ids[b] < ids[a]) { int64_t t = ids[a]; ids[a] = ids[b]; ids[b] = t; }
    for (size_t r = 0; r < n; r++)
        for (int k = 0; k < 3; k++) {
            force[3 * r + k] = load_of(ids[r], k);
            torque[3 * r + k] = load_of(ids[r], 3 + k);
        }
    char err[512];
    int rc = sim_set_external_loads(s, force, torques ? torque : NULL, n, err, sizeof err);
    if (rc != 0) print_message("%s\n", err);
    assert_int_equal(rc, 0);
}

static void follow_reorder_remove_insert(void **state)
{
    (void)state;
    sim s;
    make(&s);
    assert_null(s.p.external[0]); /* nothing until set */
    assert_null(s.p.tx0);         /* no torque turns a spin: no spins' history */
    for (size_t i = 0; i < s.p.n_local; i++) s.p.wx[i] = 1.0 + (double)s.p.id[i];
    /* the store out of id order first, so that rows (id order) and indices differ */
    size_t from[N] = {3, 5, 0, 4, 1, 2};
    assert_int_equal(particles_permute(&s.p, from), 0);
    set_by_id(&s, 1);
    check_loads_by_id(&s, 1);
    check_spin_history(&s);
    /* a rebuild's sort */
    size_t back[N] = {5, 4, 3, 2, 1, 0};
    assert_int_equal(particles_permute(&s.p, back), 0);
    check_loads_by_id(&s, 1);
    check_spin_history(&s);
    /* an outlet or the watchdog removes two */
    uint8_t remove[N] = {0, 1, 0, 0, 1, 0};
    int64_t new_index[N + 1];
    int64_t gone[2] = {s.p.id[1], s.p.id[4]};
    assert_int_equal(particles_remove(&s.p, remove, new_index), 2);
    check_loads_by_id(&s, 1);
    check_spin_history(&s);
    for (size_t i = 0; i < s.p.n_local; i++) assert_true(s.p.id[i] != gone[0] && s.p.id[i] != gone[1]);
    /* an inlet inserts one (past the capacity: the loads' arrays grow with the others) */
    size_t cap = s.p.capacity;
    while (s.p.n_local <= cap) {
        double x[3] = {0.1 + 0.01 * (double)s.p.n_local, 0, 0};
        long i = particles_add(&s.p, 0, 0.001, 2500.0, x, NULL);
        assert_true(i >= 0);
        for (int k = 0; k < 6; k++) assert_true(s.p.external[k][i] == 0.0);
    }
    check_spin_history(&s);
    /* the caller sets them again, one row per particle now: torques dropped */
    for (size_t i = N - 2; i < s.p.n_local; i++) s.p.fx[i] = s.p.mass[i] * -9.81;
    set_by_id(&s, 0);
    check_loads_by_id(&s, 0);
    for (size_t i = 0; i < s.p.n_local; i++) assert_true(fabs(s.p.tx[i]) <= 1e-18);
    sim_clear_external_loads(&s);
    for (int k = 0; k < 6; k++) assert_null(s.p.external[k]);
    for (size_t i = 0; i < s.p.n_local; i++)
        assert_true(fabs(s.p.fx[i] - s.p.mass[i] * -9.81) <= 1e-15);
    particles_free(&s.p);
}

/* A refused call changes nothing: the wrong row count, a value that is not finite, a
 * load past the one-step rule; each message names the argument and the row. */
static void refusals_change_nothing(void **state)
{
    (void)state;
    sim s;
    make(&s);
    set_by_id(&s, 1);
    double fx[N];
    memcpy(fx, s.p.fx, sizeof fx);
    double force[3 * N] = {0}, torque[3 * N] = {0};
    char err[512];
    assert_int_equal(sim_set_external_loads(&s, force, NULL, N - 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "force: 5 rows for 6 particles"));
    force[3 * 2 + 1] = NAN;
    assert_int_equal(sim_set_external_loads(&s, force, NULL, N, err, sizeof err), -1);
    assert_non_null(strstr(err, "force: row 2 (particle 2): (0, nan, 0) is not finite"));
    force[3 * 2 + 1] = 0.0;
    /* |F| dt^2 / m just past half the radius: m = 1.047e-5 kg, r = 1 mm, dt = 1 us */
    double m = s.p.mass[0], limit = 0.5 * 0.001 * m / (s.dt * s.dt);
    force[3 * 4 + 2] = 1.001 * limit;
    assert_int_equal(sim_set_external_loads(&s, force, NULL, N, err, sizeof err), -1);
    assert_non_null(strstr(err, "force: row 4 (particle 4)"));
    force[3 * 4 + 2] = 0.999 * limit;
    double inertia = 0.4 * m * 0.001 * 0.001;
    torque[3 * 1] = -1.001 * 0.5 * inertia / (s.dt * s.dt);
    assert_int_equal(sim_set_external_loads(&s, force, torque, N, err, sizeof err), -1);
    assert_non_null(strstr(err, "torque: row 1 (particle 1)"));
    for (int i = 0; i < N; i++) assert_true(s.p.fx[i] == fx[i]);
    check_loads_by_id(&s, 1);
    torque[3 * 1] = -0.999 * 0.5 * inertia / (s.dt * s.dt);
    assert_int_equal(sim_set_external_loads(&s, force, torque, N, err, sizeof err), 0);
    particles_free(&s.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(follow_reorder_remove_insert),
        cmocka_unit_test(refusals_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
