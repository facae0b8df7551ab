/* The recorded contact forces (sim_record_pair_forces, docs/output.md "contacts@
 * forces_recorded"), against the particles' force sums, which the force loop makes
 * without them (a cross pair's j side from its cross slot).
 *
 * tests/data/e2e/memcheck_pour.yaml (200 spheres, two materials, planes and a rectangle,
 * a periodic axis) with blocks of 16 particles (sim_config.tuning.block), so that many
 * pairs are cross pairs: run without recording until spheres touch one another and the
 * walls, then:
 *  - a step that records: the snapshot's contact table (contact_table_build: what a
 *    snapshot writes) has a force on i for every contact; each particle's force is its
 *    weight plus its contacts' (plus on i, minus on j, plus from a wall), within the
 *    rounding of a different order of the sums and of the table's split into normal and
 *    tangential parts; the table says recorded;
 *  - a step that does not record: the table says so, its particle pairs' forces are
 *    NaN and its wall contacts' finite, and the particles' forces are those of a twin
 *    run that recorded every step, bit for bit (recording changes no result).
 * No generated inputs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <cmocka.h>

#include "engine/sim.h"
#include "io/case/case.h"
#include "io/output/snapshot.h"

static void make_sim(sim *s, sim_config *cfg, int record)
{
    const char *src = getenv("DEMPACT_SOURCE_DIR");
    char path[PATH_MAX], err[2048];
    snprintf(path, sizeof path, "%s/tests/data/e2e/memcheck_pour.yaml", src ? src : ".");
    if (case_load(path, cfg, err, sizeof err) != 0) fail_msg("%s", err);
    cfg->tuning.block = 16; /* many cross pairs */
    if (sim_place(s, cfg, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(sim_record_pair_forces(s, record), 0);
    if (sim_start(s, err, sizeof err) != 0) fail_msg("%s", err);
}

static size_t touching(const contact_list *c)
{
    size_t n = 0;
    for (size_t k = 0; k < c->n; k++) n += c->touching[k] != 0;
    return n;
}

static size_t index_of(const sim *s, int64_t id)
{
    for (size_t i = 0; i < s->p.n_local; i++)
        if (s->p.id[i] == id) return i;
    fail_msg("no particle %lld", (long long)id);
    return 0;
}

static void table_of(const sim *s, contact_table *t)
{
    snapshot_state st = {.p = &s->p, .pairs = &s->pairs, .wall_pairs = &s->wall_pairs,
                         .walls = &s->walls, .engine = s, .time = s->time, .step = s->step};
    assert_int_equal(contact_table_build(t, &st), 0);
}

/* Each particle's force against its weight and its contacts' in table t. */
static void check_sums(const sim *s, const contact_table *t)
{
    size_t n = s->p.n_local;
    double *sum = calloc(3 * n, sizeof *sum), *size = calloc(3 * n, sizeof *size);
    assert_non_null(sum);
    assert_non_null(size);
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            sum[3 * i + a] = s->p.mass[i] * s->cfg.gravity[a];
            size[3 * i + a] = fabs(sum[3 * i + a]);
        }
    for (size_t r = 0; r < t->m; r++) {
        size_t i = index_of(s, t->id[2 * r]);
        for (int a = 0; a < 3; a++) {
            double f = t->normal_force_vector[3 * r + a] + t->tangential_force[3 * r + a];
            assert_true(isfinite(f));
            sum[3 * i + a] += f;
            size[3 * i + a] += fabs(f);
            if (!t->wall[r]) {
                size_t j = index_of(s, t->id[2 * r + 1]);
                sum[3 * j + a] -= f;
                size[3 * j + a] += fabs(f);
            }
        }
    }
    const double *force[3] = {s->p.fx, s->p.fy, s->p.fz};
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            if (!(fabs(force[a][i] - sum[3 * i + a]) <= 1e-12 * size[3 * i + a]))
                fail_msg("particle %lld: force %c %.17g, weight and contacts %.17g",
                         (long long)s->p.id[i], "xyz"[a], force[a][i], sum[3 * i + a]);
    free(sum);
    free(size);
}

static void test_recorded_forces(void **state)
{
    (void)state;
    sim s, twin;
    sim_config cfg, cfg_twin;
    make_sim(&s, &cfg, 0);
    make_sim(&twin, &cfg_twin, 1);
    int k = 0;
    for (; k < 200000 && (touching(&s.pairs) < 20 || touching(&s.wall_pairs) < 5); k++) {
        sim_step(&s);
        sim_step(&twin);
    }
    assert_true(k < 200000);
    assert_null(s.pairs.force[0]); /* none held while not recorded */
    assert_true(s.pairs.n_cross > 0);

    /* a recorded step after unrecorded ones */
    assert_int_equal(sim_record_pair_forces(&s, 1), 0);
    sim_step(&s);
    sim_step(&twin);
    contact_table t;
    table_of(&s, &t);
    assert_int_equal(t.unrecorded, 0);
    size_t cross = 0; /* recorded contacts that are cross pairs */
    for (size_t q = 0; q < s.pairs.n; q++)
        cross += s.pairs.touching[q] && s.pairs.cross_slot[q] != CONTACT_SAME_BLOCK;
    assert_true(cross > 0);
    check_sums(&s, &t);
    print_message("recorded step %lld: %zu contacts (%zu cross pairs) sum to the particles' forces\n",
                  (long long)s.step, t.m, cross);
    contact_table_free(&t);

    /* an unrecorded step */
    assert_int_equal(sim_record_pair_forces(&s, 0), 0);
    sim_step(&s);
    sim_step(&twin);
    table_of(&s, &t);
    assert_int_equal(t.unrecorded, 1);
    size_t walls = 0;
    for (size_t r = 0; r < t.m; r++)
        for (int a = 0; a < 3; a++) {
            double f = t.normal_force_vector[3 * r + a];
            assert_true(t.wall[r] ? isfinite(f) : isnan(f));
            walls += t.wall[r] && a == 0;
        }
    assert_true(walls > 0 && walls < t.m);
    contact_table_free(&t);
    /* the twin recorded every step: the same particles, the same bits */
    assert_int_equal(s.p.n_local, twin.p.n_local);
    for (size_t i = 0; i < s.p.n_local; i++) {
        assert_true(s.p.id[i] == twin.p.id[i]);
        assert_memory_equal(&s.p.fx[i], &twin.p.fx[i], sizeof(double));
        assert_memory_equal(&s.p.fy[i], &twin.p.fy[i], sizeof(double));
        assert_memory_equal(&s.p.fz[i], &twin.p.fz[i], sizeof(double));
        assert_memory_equal(&s.p.x[i], &twin.p.x[i], sizeof(double));
    }
    sim_free(&s);
    sim_free(&twin);
    sim_config_free(&cfg);
    sim_config_free(&cfg_twin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_forces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
