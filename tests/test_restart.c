/* Restart (io/output/restart.c, engine/population/restore.c): a run restored from a
 * snapshot continues bit-identically; every per-pair history array of contact_list is
 * saved; the case comparison accepts what a restart may change and refuses the rest. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700

#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "io/case/case.h"
#include "io/output/restart.h"
#include "io/output/snapshot.h"
#include "remove_tree.h"
#include "io/session/tuning_env.h"

static char out_dir[PATH_MAX];

/* ------------------------------------------------ the history table is complete */

/* Every array that contact_clear_history resets (a pair's history) must be one the
 * restart saves (sim_pair_history), besides the touching flag. Found generically: fill
 * the first bytes of every array of a contact_list, clear pair 0, and see which arrays
 * changed. A new history array added to contact_list and to contact_clear_history
 * without a line in sim_pair_history fails here, naming its offset. */
static void test_history_table_is_complete(void **state)
{
    (void)state;
    contact_list c;
    memset(&c, 0, sizeof c);
    assert_int_equal(contact_list_reserve(&c, 16), 0);
    size_t first = offsetof(contact_list, i), slots = (sizeof c - first) / sizeof(void *);
    unsigned char **slot = (unsigned char **)(void *)((char *)&c + first);
    for (size_t k = 0; k < slots; k++)
        if (slot[k]) memset(slot[k], 0xAB, c.capacity); /* >= 1 byte per element */
    contact_clear_history(&c, 0);
    int covered_count = 0;
    for (size_t k = 0; k < slots; k++) {
        size_t off = first + k * sizeof(void *);
        int cleared = slot[k] && slot[k][0] == 0;
        int covered = off == offsetof(contact_list, touching);
        for (int f = 0; f < sim_n_pair_history; f++)
            for (int comp = 0; comp < sim_pair_history[f].count; comp++)
                if (sim_pair_history[f].offset + (size_t)comp * sizeof(double *) == off) covered = 1;
        if (cleared != covered)
            fail_msg("contact_list member at offset %zu is %s by contact_clear_history but %s in "
                     "sim_pair_history (engine/population/restore.c)", off,
                     cleared ? "cleared" : "not cleared", covered ? "listed" : "not listed");
        covered_count += covered;
    }
    int listed = 1;
    for (int f = 0; f < sim_n_pair_history; f++) listed += sim_pair_history[f].count;
    assert_int_equal(covered_count, listed);
    contact_list_free(&c);
}

/* A neighbour rebuild refills the list in place while a carrier holds the history of
 * its touching pairs (contact_list_keep_touching). Every history array the restart
 * saves (sim_pair_history, which the test above keeps complete) must ride along, for
 * exactly the touching pairs, grouped by particle as in the list: a history array left
 * out of the carrier would be lost at every rebuild. */
static void test_carrier_keeps_every_history_array(void **state)
{
    (void)state;
    contact_list c, carry;
    memset(&c, 0, sizeof c);
    memset(&carry, 0, sizeof carry);
    assert_int_equal(contact_list_reserve(&c, 16), 0); /* never configured: every array */
    contact_list_configure_carrier(&carry, 0, 1, LAW_MAX_HISTORY, 1, 1, 1);
    /* particle 0 has pairs 0 (touching) and 1 (apart), particle 1 none, particle 2 pair 2 */
    static const uint32_t first[4] = {0, 2, 2, 3};
    c.first_of_i = malloc(sizeof first);
    assert_non_null(c.first_of_i);
    memcpy(c.first_of_i, first, sizeof first);
    c.n = 3;
    c.n_first = 3;
    for (size_t k = 0; k < c.n; k++) {
        c.owner_j[k] = (uint32_t)(5 + k);
        c.touching[k] = k != 1;
        for (int a = 0; a < 3; a++) c.force[a][k] = 1000.0 * a + (double)k;
        for (int f = 0; f < sim_n_pair_history; f++)
            for (int comp = 0; comp < sim_pair_history[f].count; comp++)
                sim_pair_history_array(&c, &sim_pair_history[f], comp)[k] = 100.0 * f + 10.0 * comp + (double)k;
    }
    assert_int_equal(contact_list_keep_touching(&carry, &c), 0);
    assert_int_equal(carry.n, 2);
    assert_int_equal(carry.n_first, 3);
    static const uint32_t carried_first[4] = {0, 1, 1, 2};
    assert_memory_equal(carry.first_of_i, carried_first, sizeof carried_first);
    static const size_t from[2] = {0, 2}; /* carrier entry m is list pair from[m] */
    for (size_t m = 0; m < 2; m++) {
        assert_int_equal(carry.owner_j[m], c.owner_j[from[m]]);
        assert_int_equal(carry.touching[m], 1);
        for (int f = 0; f < sim_n_pair_history; f++)
            for (int comp = 0; comp < sim_pair_history[f].count; comp++) {
                const double *got = sim_pair_history_array(&carry, &sim_pair_history[f], comp);
                if (!got)
                    fail_msg("the carrier does not hold %s[%d]", sim_pair_history[f].name, comp);
                if (got[m] != 100.0 * f + 10.0 * comp + (double)from[m])
                    fail_msg("%s[%d] of touching pair %zu: carried %g", sim_pair_history[f].name,
                             comp, from[m], got[m]);
            }
    }
    /* no second list, and no forces: the rebuilds a carrier by index feeds are followed
     * by a force evaluation (contact_list.keeps_forces) */
    assert_null(carry.overlap);
    assert_null(carry.force[0]);
    /* kept by ids, the pair's last force too (read before the next evaluation: a split
     * run's start, which makes its last rebuild again) */
    static const int64_t ids[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    assert_int_equal(contact_list_keep_touching_by_id(&carry, &c, ids), 0);
    assert_int_equal(carry.n, 2);
    assert_non_null(carry.force[0]);
    for (size_t m = 0; m < 2; m++) {
        assert_true(carry.key_i[m] == (int64_t)(from[m] == 0 ? 0 : 2));
        assert_true(carry.key_j[m] == (int64_t)c.owner_j[from[m]]);
        for (int a = 0; a < 3; a++) assert_true(carry.force[a][m] == c.force[a][from[m]]);
    }
    contact_list_free(&c);
    contact_list_free(&carry);
}

/* ------------------------------------------------------------ case comparison */

static const char *base_case =
    "name: a\n"
    "time: {end: 1.0, output_interval: 0.1}\n"
    "materials:\n"
    "  - {name: glass, density: 2500, young: 1.0e7, poisson: 0.25}\n"
    "contacts:\n"
    "  - {materials: [glass, glass], law: hertz_tti, params: {restitution: 0.5}}\n";

static void test_compare_cases(void **state)
{
    (void)state;
    char why[512];
    /* what may change: name, end, intervals; layout, comments and number spelling */
    const char *same =
        "# the same case, written differently\n"
        "name: b\n"
        "time:\n"
        "  end: 2.0\n"
        "  timeseries_interval: 0.01\n"
        "materials:\n"
        "  - name: glass\n"
        "    density: 2.5e3\n"
        "    young: 10000000\n"
        "    poisson: 0.25\n"
        "contacts:\n"
        "  - materials: [glass, glass]\n"
        "    law: hertz_tti\n"
        "    params: {restitution: 5e-1}\n";
    assert_int_equal(restart_compare_cases(base_case, same, why, sizeof why), 0);
    struct {
        const char *from, *to, *where;
    } changes[] = {
        {"restitution: 0.5", "restitution: 0.6", "contacts[0].params.restitution"},
        {"law: hertz_tti", "law: hertz", "contacts[0].law"},
        {"density: 2500", "density: 2600", "materials[0].density"},
        {"output_interval: 0.1}", "output_interval: 0.1, step: 1e-6}", "time.step"},
        {"[glass, glass]", "[glass, glass, glass]", "contacts[0].materials"},
    };
    for (size_t k = 0; k < sizeof changes / sizeof changes[0]; k++) {
        char text[1024];
        const char *at = strstr(base_case, changes[k].from);
        assert_non_null(at);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - base_case), base_case, changes[k].to,
                 at + strlen(changes[k].from));
        why[0] = '\0';
        assert_int_equal(restart_compare_cases(base_case, text, why, sizeof why), 1);
        if (!strstr(why, changes[k].where)) fail_msg("'%s' does not name %s", why, changes[k].where);
    }
    /* a key removed, a key added */
    assert_int_equal(restart_compare_cases(base_case, "name: a\n", why, sizeof why), 1);
    assert_non_null(strstr(why, "time is (a mapping) in the file's case and (missing) in this one"));
    assert_int_equal(restart_compare_cases("a: 1\n", "a: 1\nb: 2\n", why, sizeof why), 1);
    assert_non_null(strstr(why, "b is (missing)"));
    assert_int_equal(restart_compare_cases("a: [1\n", "a: 1\n", why, sizeof why), -1);
}

/* ------------------------------------------------------- bit-identical restart */

/* The tuning every sim of this test gets: the environment's (tests/CMakeLists.txt runs
 * the test again sorting every case), and test_restart_is_bit_identical_sorting's own. */
static sim_tuning tuning;

/* by_id: sum by id (parallel.reproducible) whatever the case says. */
static void load_case_summing(const char *name, int by_id, sim_config *cfg, sim *s)
{
    const char *src = getenv("DEMPACT_SOURCE_DIR");
    char path[PATH_MAX], err[2048];
    snprintf(path, sizeof path, "%s/tests/data/e2e/%s", src ? src : ".", name);
    if (case_load(path, cfg, err, sizeof err) != 0) fail_msg("%s", err);
    cfg->tuning = tuning;
    if (by_id) cfg->reproducible = 1;
    if (sim_create(s, cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

static void load_case(const char *name, sim_config *cfg, sim *s) { load_case_summing(name, 0, cfg, s); }

static snapshot_state state_of(const sim *s)
{
    return (snapshot_state){.p = &s->p, .pairs = &s->pairs, .wall_pairs = &s->wall_pairs,
                            .walls = &s->walls, .position_at_rebuild = s->x_at_rebuild,
                            .engine = s, .time = s->time, .step = s->step};
}

#define SAME(a, b, n) assert_memory_equal((a), (b), (n) * sizeof *(a))

/* A snapshot file for run s of case c, in the folder `sub` of the test's output folder. */
static snapshot_file *open_snapshots(const sim_config *c, const sim *s, const char *sub,
                                     const char *name)
{
    char dir[PATH_MAX], err[2048] = "";
    snprintf(dir, sizeof dir, "%s/%s", out_dir, sub);
    snapshot_run_info info = {.case_name = c->name, .case_text = c->case_text, .dt = s->dt,
                              .walls = &s->walls};
    snapshot_file *f = snapshot_create(dir, name, &info, NULL, err, sizeof err);
    if (!f) fail_msg("%s", err);
    return f;
}

static void same_state(const sim *a, const sim *b)
{
    assert_int_equal(a->step, b->step);
    assert_true(a->time == b->time && a->dt == b->dt);
    size_t n = a->p.n_local;
    assert_int_equal(n, b->p.n_local);
    SAME(a->p.id, b->p.id, n);
    SAME(a->p.x, b->p.x, n); SAME(a->p.y, b->p.y, n); SAME(a->p.z, b->p.z, n);
    SAME(a->p.vx, b->p.vx, n); SAME(a->p.vy, b->p.vy, n); SAME(a->p.vz, b->p.vz, n);
    SAME(a->p.wx, b->p.wx, n); SAME(a->p.wy, b->p.wy, n); SAME(a->p.wz, b->p.wz, n);
    SAME(a->p.fx, b->p.fx, n); SAME(a->p.fy, b->p.fy, n); SAME(a->p.fz, b->p.fz, n);
    assert_true(!a->p.tx == !b->p.tx); /* torques held in both or neither (particles.h) */
    if (a->p.tx) {
        SAME(a->p.tx, b->p.tx, n); SAME(a->p.ty, b->p.ty, n); SAME(a->p.tz, b->p.tz, n);
    }
    SAME(a->x_at_rebuild, b->x_at_rebuild, 3 * n);
    SAME(a->work, b->work, SIM_WORK_KINDS);
    assert_int_equal(a->p.next_id, b->p.next_id);
    const contact_list *la[2] = {&a->pairs, &a->wall_pairs}, *lb[2] = {&b->pairs, &b->wall_pairs};
    for (int L = 0; L < 2; L++) {
        size_t m = la[L]->n;
        assert_int_equal(m, lb[L]->n);
        SAME(la[L]->i, lb[L]->i, m);
        SAME(la[L]->j, lb[L]->j, m);
        SAME(la[L]->owner_j, lb[L]->owner_j, m);
        SAME(la[L]->touching, lb[L]->touching, m);
        for (int f = 0; f < sim_n_pair_history; f++)
            for (int comp = 0; comp < sim_pair_history[f].count; comp++) {
                const double *ha = sim_pair_history_array(la[L], &sim_pair_history[f], comp),
                             *hb = sim_pair_history_array(lb[L], &sim_pair_history[f], comp);
                assert_true((ha == NULL) == (hb == NULL)); /* the same case holds the same arrays */
                if (ha) SAME(ha, hb, m);
            }
    }
}

/* small_pour.yaml: periodic along x (ghosts), plane and rectangle walls, friction and
 * both rolling models. Run A writes snapshots at steps 2500 (between neighbour
 * rebuilds, off any schedule) and 4000 and goes on to 6000; B restarts from each and
 * must be bit-identical to A at 6000. */
/* Pairs of s that their adhesion holds in contact past touching (overlap <= 0). */
static size_t held_past_touching(const sim *s)
{
    size_t n = 0;
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n; k++)
            n += contact_holds_force(lists[L]->touching[k]) &&
                 contact_overlap(lists[L], &s->p, k) <= 0.0;
    return n;
}

static void restart_is_bit_identical(const char *case_file, int microslip, int sorting)
{
    sim a, b;
    sim_config ca, cb;
    load_case(case_file, &ca, &a);
    char dir[PATH_MAX], err[2048] = "";
    snprintf(dir, sizeof dir, "bit_%s", ca.name);
    snapshot_file *f = open_snapshots(&ca, &a, dir, ca.name);
    int64_t rebuilds_at_2500 = -1;
    while (a.step < 6000) {
        sim_step(&a);
        if (a.step == 2500 || a.step == 4000) {
            if (strstr(case_file, "sticky")) { /* the snapshot holds pairs past touching */
                print_message("step %lld: %zu pairs held past touching\n", (long long)a.step,
                              held_past_touching(&a));
                assert_true(held_past_touching(&a) > 0);
            }
            snapshot_state st = state_of(&a);
            assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
            if (a.step == 2500) rebuilds_at_2500 = a.n_rebuilds;
        }
    }
    assert_true(a.n_rebuilds > rebuilds_at_2500); /* the list was rebuilt after the snapshot */
    print_message("%lld rebuilds, %lld of them sorted the particles\n", (long long)a.n_rebuilds,
                  (long long)a.n_reorders);
    if (sorting) assert_true(a.n_reorders > 0);
    char h5[PATH_MAX];
    snprintf(h5, sizeof h5, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);
    size_t touching = 0, with_state = 0, turned = 0;
    for (size_t k = 0; k < a.pairs.n; k++) touching += a.pairs.touching[k] != 0;
    const contact_list *lists[2] = {&a.pairs, &a.wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n && lists[L]->slip[0]; k++) { /* NULL: no microslip */
            with_state += lists[L]->slip[3][k] != 0.0;     /* normal force of the last step */
            turned += lists[L]->slip[0][k] != 0.0;         /* past a turning point */
        }
    assert_true(touching > 5); /* the test means something */
    if (microslip) {
        print_message("microslip state in %zu contacts, %zu of them past a turning point\n",
                      with_state, turned);
        assert_true(with_state > 5 && turned > 0);
    }

    const int64_t from[2] = {2500, -1}; /* -1: the last snapshot (4000) */
    for (int k = 0; k < 2; k++) {
        load_case(case_file, &cb, &b);
        restart_point rp;
        if (restart_from_file(h5, from[k], cb.case_text, &b, &rp, err, sizeof err) != 0) fail_msg("%s", err);
        restart_point_free(&rp);
        assert_int_equal(rp.step, k == 0 ? 2500 : 4000);
        assert_int_equal(rp.index, k == 0 ? 0 : 1);
        assert_int_equal(rp.count, 2);
        while (b.step < 6000) sim_step(&b);
        same_state(&a, &b);
        sim_free(&b);
        sim_config_free(&cb);
    }
    sim_free(&a);
    sim_config_free(&ca);
}

static void test_restart_is_bit_identical(void **state)
{
    (void)state;
    restart_is_bit_identical("small_pour.yaml", 0, 0);
}

/* The same with the particles sorted along the curve at the rebuilds (engine/neighbours/reorder.h;
 * this case is too small for that by default): a sorted order is part of the state a
 * snapshot keeps. */
static void test_restart_is_bit_identical_sorting(void **state)
{
    (void)state;
    sim_tuning outside = tuning;
    tuning.set_reorder_min = true;
    tuning.reorder_min = 1;
    restart_is_bit_identical("small_pour.yaml", 0, 1);
    tuning = outside;
}

/* The same with the Mindlin-Deresiewicz tangential model, whose per-pair state
 * (contact_list.slip: branch, turning points, last normal force) must come back too. */
static void test_restart_is_bit_identical_with_microslip(void **state)
{
    (void)state;
    restart_is_bit_identical("microslip_pour.yaml", 1, 0);
}

/* The same with adhesion (sticky_pour.yaml: JKR between the spheres, liquid bridges to
 * the walls):
 * pairs that their adhesion holds past touching at the snapshot must stay in contact
 * after the restart, as they do in the run that goes on. */
static void test_restart_is_bit_identical_with_adhesion(void **state)
{
    (void)state;
    restart_is_bit_identical("sticky_pour.yaml", 0, 0);
}

/* Two beads pressed together at the start (two_apart.yaml) have parted by the snapshot,
 * their pair still in the list (a candidate within the skin). The restart's list is
 * made again from the case's (sim_create's, whose rebuild carries a touching pair's
 * history and last force): the pair's force from the start must not come back, for it
 * is added to the beads' sums until the pair touches again. Summed by index and by id. */
static void test_restart_after_a_pair_parted(void **state)
{
    (void)state;
    for (int by_id = 0; by_id < 2; by_id++) {
        sim a, b;
        sim_config ca, cb;
        load_case_summing("two_apart.yaml", by_id, &ca, &a);
        assert_int_equal(a.pairs.n, 1);
        assert_true(a.pairs.touching[0] != 0); /* pressed together */
        while (a.pairs.n == 1 && a.pairs.touching[0] != 0) {
            assert_true(a.step < 1000);
            sim_step(&a);
        }
        assert_int_equal(a.pairs.n, 1); /* parted, and still a candidate */
        char err[2048] = "";
        snapshot_file *f = open_snapshots(&ca, &a, by_id ? "parted_by_id" : "parted", ca.name);
        snapshot_state st = state_of(&a);
        assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
        char h5[PATH_MAX];
        snprintf(h5, sizeof h5, "%s", snapshot_h5_path(f));
        assert_int_equal(snapshot_close(f), 0);
        int64_t parted = a.step;
        while (a.step < parted + 200) sim_step(&a);
        print_message("summed by %s: parted at step %lld, %.4g m/s apart\n", by_id ? "id" : "index",
                      (long long)parted, a.p.vx[1] - a.p.vx[0]);

        load_case_summing("two_apart.yaml", by_id, &cb, &b);
        restart_point rp;
        if (restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err) != 0) fail_msg("%s", err);
        restart_point_free(&rp);
        while (b.step < parted + 200) sim_step(&b);
        same_state(&a, &b);
        sim_free(&a);
        sim_free(&b);
        sim_config_free(&ca);
        sim_config_free(&cb);
    }
}

/* How many pairs of s are in contact state `state` (contact_list.touching). */
static size_t pairs_in_state(const sim *s, uint8_t state)
{
    size_t n = 0;
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n; k++) n += lists[L]->touching[k] == state;
    return n;
}

/* Pairs whose contact ended within a step (contact_list.touching ENDING: its last force
 * carried it to its separation; ENDED: still overlapping, holding no force): a restart
 * from a snapshot taken the step before a pair is first found ended (one at least is
 * ENDING then) must go on bit-identically, so the state is part of what a snapshot keeps
 * (contacts/ended); restored as merely touching, that pair would push again. A probe run
 * finds the step. ended_pour.yaml: linear, e = 0.1, no cohesion removal, whose pairs end
 * that way now and then. */
static void test_restart_with_ended_pairs(void **state)
{
    (void)state;
    sim a, b;
    sim_config ca, cb;
    load_case("ended_pour.yaml", &ca, &a);
    while (pairs_in_state(&a, CONTACT_ENDED) == 0) {
        assert_true(a.step < 8000); /* else the case no longer tests what it is for */
        sim_step(&a);
    }
    int64_t at = a.step - 1;
    sim_free(&a);
    sim_config_free(&ca);

    load_case("ended_pour.yaml", &ca, &a);
    while (a.step < at) sim_step(&a);
    size_t ending = pairs_in_state(&a, CONTACT_ENDING);
    print_message("step %lld: %zu pairs ending, ended the next step\n", (long long)at, ending);
    assert_true(ending > 0);
    char err[2048] = "";
    snapshot_file *f = open_snapshots(&ca, &a, "ended", ca.name);
    snapshot_state st = state_of(&a);
    assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
    char h5[PATH_MAX];
    snprintf(h5, sizeof h5, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);
    while (a.step < at + 1500) sim_step(&a);

    load_case("ended_pour.yaml", &cb, &b);
    restart_point rp;
    if (restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err) != 0) fail_msg("%s", err);
    restart_point_free(&rp);
    assert_int_equal(rp.step, at);
    while (b.step < at + 1500) sim_step(&b);
    same_state(&a, &b);
    sim_free(&b);
    sim_config_free(&cb);

    /* a state that is none of 0, 1, 2 is refused by name */
    hid_t fh = H5Fopen(h5, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(fh >= 0);
    hid_t d = H5Dopen2(fh, "/snapshots/000000/contacts/ended", H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t space = H5Dget_space(d);
    hssize_t rows = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    assert_true(rows > 0);
    uint8_t *ended_rows = calloc((size_t)rows, 1);
    assert_non_null(ended_rows);
    assert_true(H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, ended_rows) >= 0);
    ended_rows[rows - 1] = 5;
    assert_true(H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, ended_rows) >= 0);
    free(ended_rows);
    H5Dclose(d);
    H5Fclose(fh);
    load_case("ended_pour.yaml", &cb, &b);
    assert_int_equal(restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "contacts/ended"));
    assert_non_null(strstr(err, "it is 0, 1 or 2"));
    sim_free(&a);
    sim_free(&b);
    sim_config_free(&ca);
    sim_config_free(&cb);
}

/* A piston on a motion schedule (down, up, down, rest; tests/compare/piston_restart.yaml,
 * dt 5.5 us: the segments end at steps 1811, 2535 and 3260): restarts from steps 1000
 * and 1600 (first segment; at 1600 the piston presses the beads) and 2200 (second)
 * reach step 4000 in the same state, the piston's place, load and work included, and
 * rebuild the wall list with the piston where the run's last rebuild had it. */
static void test_restart_in_a_motion_schedule(void **state)
{
    (void)state;
    sim a, b;
    sim_config ca, cb;
    load_case("../../compare/piston_restart.yaml", &ca, &a);
    char err[2048] = "";
    snapshot_file *f = open_snapshots(&ca, &a, "piston", "piston");
    double most = 0.0;
    int pressing = 0; /* snapshots taken while the piston did work */
    size_t wall_candidates[3]; /* the wall list at each snapshot */
    int moved_since_rebuild = 0; /* snapshots taken with the piston off its rebuild place */
    while (a.step < 4000) {
        sim_step(&a);
        if (a.walls.force[3 * 5 + 2] > most) most = a.walls.force[3 * 5 + 2];
        if (a.step == 1000 || a.step == 1600 || a.step == 2200) {
            snapshot_state st = state_of(&a);
            assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
            pressing += a.walls.work_sum[5] != a.walls.work[5];
            wall_candidates[a.step == 1000 ? 0 : a.step == 1600 ? 1 : 2] = a.wall_pairs.n;
            moved_since_rebuild += a.rebuild_wall_time != a.time;
        }
    }
    assert_true(moved_since_rebuild > 0);
    assert_true(most > 0.01); /* the piston pressed the beads (N) */
    assert_true(pressing > 0); /* so its running and trapezoidal sums differed */
    char h5[PATH_MAX];
    snprintf(h5, sizeof h5, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);
    const int64_t from[3] = {1000, 1600, 2200};
    for (int k = 0; k < 3; k++) {
        load_case("../../compare/piston_restart.yaml", &cb, &b);
        restart_point rp;
        if (restart_from_file(h5, from[k], cb.case_text, &b, &rp, err, sizeof err) != 0) fail_msg("%s", err);
        restart_point_free(&rp);
        /* the wall list rebuilt as the run's last rebuild built it: with the piston where
         * it was then, not where it is at the snapshot (a list built there holds the
         * beads within reach of the piston's later place) */
        assert_int_equal(b.wall_pairs.n, wall_candidates[k]);
        while (b.step < 4000) sim_step(&b);
        same_state(&a, &b);
        SAME(a.walls.force, b.walls.force, 3 * a.walls.n);
        SAME(a.walls.state[5].shift, b.walls.state[5].shift, 3);
        /* the piston's work: the snapshot keeps the running sum behind it too, so it
         * goes on bit for bit (it went on within half a step's power x dt before) */
        print_message("piston's work %.17g J, restarted from step %lld: %.17g J\n",
                      a.walls.work[5], (long long)from[k], b.walls.work[5]);
        assert_true(a.walls.work[5] != 0.0);
        SAME(a.walls.work, b.walls.work, a.walls.n);
        SAME(a.walls.work_sum, b.walls.work_sum, a.walls.n);
        sim_free(&b);
        sim_config_free(&cb);
    }
    sim_free(&a);
    sim_config_free(&ca);
}

/* Particles inserted by an inlet and removed by an outlet before the snapshot: the
 * restart makes the inserted ones again, and the inlet goes on with its generator. */
static void test_restart_with_inlet_and_outlet(void **state)
{
    (void)state;
    sim a, b;
    sim_config ca, cb;
    load_case("inlet_restart.yaml", &ca, &a);
    char err[2048] = "";
    snapshot_file *f = open_snapshots(&ca, &a, "inlet", "inlet");
    while (a.step < 24000) {
        sim_step(&a);
        if (a.step == 16001) {
            assert_true(a.inlets[0].inserted > 50 && a.outlets[0].removed > 0);
            snapshot_state st = state_of(&a);
            assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
        }
    }
    char h5[PATH_MAX];
    snprintf(h5, sizeof h5, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);
    load_case("inlet_restart.yaml", &cb, &b);
    restart_point rp;
    if (restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err) != 0) fail_msg("%s", err);
    restart_point_free(&rp);
    while (b.step < 24000) sim_step(&b);
    same_state(&a, &b);
    assert_memory_equal(a.inlets, b.inlets, sizeof *a.inlets);
    assert_memory_equal(a.outlets, b.outlets, sizeof *a.outlets);
    sim_free(&b);
    sim_config_free(&cb);
    sim_free(&a);
    sim_config_free(&ca);
}

/* A snapshot taken right after the watchdog dropped a particle (its list is remapped,
 * marked stale, and rebuilt at the next step): the restart restores the same pairs. */
static void test_restart_after_a_drop(void **state)
{
    (void)state;
    sim a, b;
    sim_config ca, cb;
    load_case("small_pour.yaml", &ca, &a);
    char err[2048] = "";
    snapshot_file *f = open_snapshots(&ca, &a, "drop", "drop");
    while (a.step < 4000) sim_step(&a);
    size_t touching = 0, victim = a.pairs.i[0];
    for (size_t k = 0; k < a.pairs.n; k++) touching += a.pairs.touching[k] != 0;
    for (size_t k = 0; k < a.pairs.n; k++)
        if (a.pairs.touching[k]) { victim = (a.pairs.i[k] + 1) % a.p.n_local; break; }
    assert_true(touching > 0);
    watchdog_drop_particle(&a, victim);
    snapshot_state st = state_of(&a);
    assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
    char h5[PATH_MAX];
    snprintf(h5, sizeof h5, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);
    while (a.step < 5000) sim_step(&a);
    /* from the file as written, then as files written before engine@list_stale marked
     * the stale list: no attribute, +inf in position_at_rebuild */
    for (int older = 0; older < 2; older++) {
        if (older) {
            hid_t fh = H5Fopen(h5, H5F_ACC_RDWR, H5P_DEFAULT);
            assert_true(fh >= 0);
            assert_true(H5Adelete_by_name(fh, "/snapshots/000000/engine", "list_stale", H5P_DEFAULT) >= 0);
            hid_t d = H5Dopen2(fh, "/snapshots/000000/position_at_rebuild", H5P_DEFAULT);
            assert_true(d >= 0);
            double *x0 = malloc(3 * (a.p.n_local + 1) * sizeof *x0);
            assert_non_null(x0);
            assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x0) >= 0);
            x0[0] = HUGE_VAL;
            assert_true(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x0) >= 0);
            free(x0);
            H5Dclose(d);
            H5Fclose(fh);
        }
        load_case("small_pour.yaml", &cb, &b);
        restart_point rp;
        if (restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err) != 0) fail_msg("%s", err);
        restart_point_free(&rp);
        assert_true(b.list_stale);
        while (b.step < 5000) sim_step(&b);
        same_state(&a, &b);
        sim_free(&b);
        sim_config_free(&cb);
    }
    sim_free(&a);
    sim_config_free(&ca);
}

/* Sets a scalar attribute of an object of an HDF5 file (the test's hostile edits). */
static void set_attr(const char *file, const char *obj, const char *name, hid_t type, const void *v)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, type, v) >= 0);
    H5Aclose(a);
    H5Fclose(f);
}

/* Replaces a uint8 attribute of an object by a new one holding v (HDF5 1.10 would not
 * rewrite engine@list_stale in place here: "can't locate open attribute"). */
static void remake_u8_attr(const char *file, const char *obj, const char *name, uint8_t v)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_true(H5Adelete_by_name(f, obj, name, H5P_DEFAULT) >= 0);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate_by_name(f, obj, name, H5T_STD_U8LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, H5T_NATIVE_UINT8, &v) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Fclose(f);
}

static void test_restart_refusals(void **state)
{
    (void)state;
    sim a, b;
    sim_config ca, cb;
    load_case("memcheck_pour.yaml", &ca, &a);
    char err[2048] = "";
    snapshot_file *f = open_snapshots(&ca, &a, "refuse", "r");
    for (int k = 0; k < 3; k++) {
        for (int q = 0; q < 10; q++) sim_step(&a);
        snapshot_state st = state_of(&a);
        assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
    }
    char h5[PATH_MAX], snap2[PATH_MAX];
    snprintf(h5, sizeof h5, "%s", snapshot_h5_path(f));
    snprintf(snap2, sizeof snap2, "%s/refuse/r.d/000002.h5", out_dir);
    assert_int_equal(snapshot_close(f), 0);
    restart_point rp;

    /* a step without a snapshot: the message lists the steps that have one */
    load_case("memcheck_pour.yaml", &cb, &b);
    assert_int_equal(restart_from_file(h5, 15, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "no snapshot at that step"));
    assert_non_null(strstr(err, "10, 20, 30"));
    /* another case */
    char *changed = malloc(strlen(cb.case_text) + 64);
    const char *at = strstr(cb.case_text, "restitution: 0.5");
    assert_non_null(at);
    sprintf(changed, "%.*srestitution: 0.4%s", (int)(at - cb.case_text), cb.case_text,
            at + strlen("restitution: 0.5"));
    assert_int_equal(restart_from_file(h5, -1, changed, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "contacts[0].params.restitution is 0.5 in the file's case and 0.4"));
    free(changed);
    /* a particle whose radius differs from the case's (found by id: runs may sort) */
    size_t seven = 0;
    while (seven < b.p.n_local && b.p.id[seven] != 7) seven++;
    assert_true(seven < b.p.n_local);
    b.p.radius[seven] *= 1.0 + 1e-15;
    assert_int_equal(restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "particle id 7"));
    sim_free(&b);
    sim_config_free(&cb);
    /* not a file */
    load_case("memcheck_pour.yaml", &cb, &b);
    assert_int_equal(restart_from_file("/nonexistent.h5", -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "/nonexistent.h5"));

    /* hostile attributes, each named with its value and limit (and put back) */
    int64_t step = (int64_t)1 << 62, good_step = 30;
    set_attr(snap2, "/", "step", H5T_NATIVE_INT64, &step);
    assert_int_equal(restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "snapshot 2: attribute step is 4611686018427387904; it must be in 0 .. 2^53"));
    step = 31; /* time no longer step x dt */
    set_attr(snap2, "/", "step", H5T_NATIVE_INT64, &step);
    assert_int_equal(restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "but step 31 x dt"));
    set_attr(snap2, "/", "step", H5T_NATIVE_INT64, &good_step);
    double nan = NAN, time_good;
    hid_t sf = H5Fopen(snap2, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ta = H5Aopen(sf, "time", H5P_DEFAULT);
    H5Aread(ta, H5T_NATIVE_DOUBLE, &time_good);
    H5Aclose(ta);
    H5Fclose(sf);
    set_attr(snap2, "/", "time", H5T_NATIVE_DOUBLE, &nan);
    assert_int_equal(restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "attribute time is nan"));
    set_attr(snap2, "/", "time", H5T_NATIVE_DOUBLE, &time_good);
    int32_t format = 7, good_format = 3;
    set_attr(h5, "/", "format", H5T_NATIVE_INT32, &format);
    assert_int_equal(restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "attribute /@format is 7; this dempact reads layouts 2 and 3"));
    set_attr(h5, "/", "format", H5T_NATIVE_INT32, &good_format);
    int64_t particles = 201, good_particles = (int64_t)a.p.n_local;
    set_attr(snap2, "/", "n_particles", H5T_NATIVE_INT64, &particles);
    assert_int_equal(restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "rows, the counts say 201"));
    set_attr(snap2, "/", "n_particles", H5T_NATIVE_INT64, &good_particles);
    uint8_t stale = 7, good_stale = 0;
    remake_u8_attr(snap2, "/engine", "list_stale", stale);
    assert_int_equal(restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err), -1);
    restart_point_free(&rp);
    assert_non_null(strstr(err, "snapshot 2: attribute engine@list_stale is unreadable or not 0 or 1"));
    remake_u8_attr(snap2, "/engine", "list_stale", good_stale);
    /* and the good one works, from any snapshot */
    assert_int_equal(restart_from_file(h5, 20, cb.case_text, &b, &rp, err, sizeof err), 0);
    restart_point_free(&rp);
    assert_int_equal(b.step, 20);
    sim_free(&b);
    sim_config_free(&cb);
    load_case("memcheck_pour.yaml", &cb, &b);
    if (restart_from_file(h5, -1, cb.case_text, &b, &rp, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(rp.carry.keep, 3);
    assert_int_equal(rp.carry.format, 3);
    restart_point_free(&rp);
    sim_free(&b);
    sim_config_free(&cb);
    sim_free(&a);
    sim_config_free(&ca);
}

int main(void)
{
    tuning_from_env(&tuning);
    const char *bin = getenv("DEMPACT_BINARY_DIR");
    snprintf(out_dir, sizeof out_dir, "%s/test_output/restart", bin && bin[0] ? bin : "/tmp");
    remove_tree(out_dir); /* every run starts from nothing */
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s/test_output", bin && bin[0] ? bin : "/tmp");
    mkdir(parent, 0777);
    mkdir(out_dir, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_history_table_is_complete),
        cmocka_unit_test(test_carrier_keeps_every_history_array),
        cmocka_unit_test(test_compare_cases),
        cmocka_unit_test(test_restart_is_bit_identical),
        cmocka_unit_test(test_restart_is_bit_identical_sorting),
        cmocka_unit_test(test_restart_is_bit_identical_with_microslip),
        cmocka_unit_test(test_restart_is_bit_identical_with_adhesion),
        cmocka_unit_test(test_restart_with_ended_pairs),
        cmocka_unit_test(test_restart_after_a_pair_parted),
        cmocka_unit_test(test_restart_with_inlet_and_outlet),
        cmocka_unit_test(test_restart_in_a_motion_schedule),
        cmocka_unit_test(test_restart_after_a_drop),
        cmocka_unit_test(test_restart_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
