/* The one removal path (engine/population/population.h: population_remove) through each of its
 * callers in one process: an outlet (population_change, a step's first part, summing in
 * index order and by id) and the watchdog's drop_particle (watchdog_drop_particle, one
 * particle at a time, the next before any rebuild). Each is checked against the state
 * just before it, particle by particle and contact by contact, by id:
 *  - the survivors: every per-particle array (particles_arrays) to the bit, their ids
 *    in their order, next_id, the removed ones gone; after an outlet the positions are
 *    wrapped (the rebuild that follows wraps them), after a drop the forces of its
 *    partners lose what its contacts exerted on them (the watchdog's rule) and the
 *    positions of the last rebuild follow their particles;
 *  - the contacts: after an outlet, every touching pair without a removed end keeps its
 *    history (touching state, impact velocity, the law's slots, the tangential and
 *    rolling springs, the microslip state) through the rebuild, and no other pair has
 *    one; after a drop, the lists keep every other pair in their order with every
 *    per-contact array, its first particle, its partner (the same entry: a ghost's
 *    position to the bit) and its place in first_of_i.
 * The case is tests/data/e2e/microslip_pour.yaml (periodic along x: ghosts; friction
 * with the microslip state; rolling springs; a law with history slots and impact
 * velocities on the walls), run 1500 steps so that many pairs touch. Three victim sets
 * per outlet run, three drops in a row: about 10 s on one core. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/neighbours/ghosts.h"
#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "io/case/case.h"
#include "io/session/tuning_env.h"

static sim_tuning tuning;

enum { N_OUTLETS = 40 };
#define SETTLE 0.08 /* s: the pour has landed, about 800 pairs touch */

/* ---- the state before ----------------------------------------------------------------- */

typedef struct particles_before {
    size_t n, n_arrays;
    int64_t next_id;
    void *array[PARTICLE_ARRAYS];
    size_t size[PARTICLE_ARRAYS];
    int position[PARTICLE_ARRAYS]; /* the axis of x, y, z; -1 for the others */
    int force[PARTICLE_ARRAYS];    /* the axis of fx, fy, fz; -1 for the others */
    double *x_at_rebuild;
    size_t *by_id; /* next_id entries: index of the particle with that id, or SIZE_MAX */
} particles_before;

static void keep_particles(const sim *s, particles_before *b)
{
    particle_store *p = (particle_store *)&s->p;
    memset(b, 0, sizeof *b);
    b->n = p->n_local;
    b->next_id = p->next_id;
    void *array[PARTICLE_ARRAYS];
    b->n_arrays = particles_arrays(p, array, b->size);
    const double *pos[3] = {p->x, p->y, p->z}, *f[3] = {p->fx, p->fy, p->fz};
    for (size_t k = 0; k < b->n_arrays; k++) {
        b->array[k] = malloc(b->n * b->size[k] + 1);
        memcpy(b->array[k], array[k], b->n * b->size[k]);
        b->position[k] = b->force[k] = -1;
        for (int a = 0; a < 3; a++) {
            if (array[k] == pos[a]) b->position[k] = a;
            if (array[k] == f[a]) b->force[k] = a;
        }
    }
    b->x_at_rebuild = malloc(3 * b->n * sizeof(double) + 1);
    memcpy(b->x_at_rebuild, s->x_at_rebuild, 3 * b->n * sizeof(double));
    b->by_id = malloc((size_t)b->next_id * sizeof *b->by_id + 1);
    for (int64_t q = 0; q < b->next_id; q++) b->by_id[q] = SIZE_MAX;
    for (size_t i = 0; i < b->n; i++) b->by_id[p->id[i]] = i;
}

static void free_particles(particles_before *b)
{
    for (size_t k = 0; k < b->n_arrays; k++) free(b->array[k]);
    free(b->x_at_rebuild);
    free(b->by_id);
}

static double value_before(const particles_before *b, size_t k, size_t i)
{
    double v;
    memcpy(&v, (const char *)b->array[k] + i * b->size[k], sizeof v);
    return v;
}

/* A contact as the state before had it: its ends by id, its entry j's id and position,
 * the overlap the last force computation found, and every per-contact array (NAN where
 * the list holds none). */
typedef struct pair_before {
    int64_t id_i, id_j; /* a wall pair: id_j is the wall key (owner_j) */
    int64_t entry_id;   /* the id of the entry j names */
    double entry_x[3];
    double overlap_now;
    uint8_t touching;
    double impact, history[LAW_MAX_HISTORY], tangential[3], rolling[3];
    double slip[CONTACT_SLIP_HISTORY], force[3], torque[3], overlap;
} pair_before;

#define OR_NAN(ptr, k) ((ptr) ? (ptr)[k] : NAN)

static pair_before pair_of(const sim *s, const contact_list *c, size_t k)
{
    const particle_store *p = &s->p;
    pair_before e;
    memset(&e, 0, sizeof e);
    e.id_i = p->id[c->i[k]];
    e.id_j = c->is_wall ? (int64_t)c->owner_j[k] : p->id[c->owner_j[k]];
    e.entry_id = c->is_wall ? -1 : p->id[c->j[k]];
    if (!c->is_wall) {
        e.entry_x[0] = p->x[c->j[k]];
        e.entry_x[1] = p->y[c->j[k]];
        e.entry_x[2] = p->z[c->j[k]];
    }
    e.overlap_now = contact_overlap(c, p, k);
    e.touching = c->touching[k];
    e.impact = OR_NAN(c->impact_velocity, k);
    for (int h = 0; h < LAW_MAX_HISTORY; h++) e.history[h] = OR_NAN(c->history[h], k);
    for (int a = 0; a < 3; a++) {
        e.tangential[a] = OR_NAN(c->tangential[a], k);
        e.rolling[a] = OR_NAN(c->rolling[a], k);
        e.force[a] = c->force[a][k];
        e.torque[a] = OR_NAN(c->torque[a], k);
    }
    for (int h = 0; h < CONTACT_SLIP_HISTORY; h++) e.slip[h] = OR_NAN(c->slip[h], k);
    e.overlap = OR_NAN(c->overlap, k);
    return e;
}

static pair_before *keep_pairs(const sim *s, const contact_list *c)
{
    pair_before *e = malloc((c->n + 1) * sizeof *e);
    for (size_t k = 0; k < c->n; k++) e[k] = pair_of(s, c, k);
    return e;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Every per-contact array of two pairs to the bit. */
static int same_arrays(const pair_before *f, const pair_before *e)
{
    int same = f->touching == e->touching && same_bits(f->impact, e->impact) &&
               same_bits(f->overlap, e->overlap);
    for (int h = 0; h < LAW_MAX_HISTORY; h++) same &= same_bits(f->history[h], e->history[h]);
    for (int h = 0; h < CONTACT_SLIP_HISTORY; h++) same &= same_bits(f->slip[h], e->slip[h]);
    for (int a = 0; a < 3; a++)
        same &= same_bits(f->tangential[a], e->tangential[a]) && same_bits(f->rolling[a], e->rolling[a]) &&
                same_bits(f->force[a], e->force[a]) && same_bits(f->torque[a], e->torque[a]);
    return same;
}

static int gone(const uint8_t *victim_id, int64_t id) { return id >= 0 && victim_id[id]; }

/* ---- the survivors ---------------------------------------------------------------------- */

/* Every survivor's arrays against the state before (positions wrapped with `wrapped`;
 * forces from `forces`, 3 per particle before, when given), the victims gone, the ids
 * in their order when the particles kept it. */
static void check_particles(const sim *s, const particles_before *b, const uint8_t *victim_id,
                            size_t n_victims, int wrapped, const double *forces, int ordered)
{
    particle_store *p = (particle_store *)&s->p;
    assert_int_equal(p->n_local, b->n - n_victims);
    assert_int_equal(p->next_id, b->next_id);
    void *array[PARTICLE_ARRAYS];
    size_t size[PARTICLE_ARRAYS];
    assert_int_equal(particles_arrays(p, array, size), b->n_arrays);
    size_t last = 0;
    for (size_t i = 0; i < p->n_local; i++) {
        int64_t id = p->id[i];
        assert_false(gone(victim_id, id));
        size_t o = b->by_id[id];
        assert_true(o != SIZE_MAX);
        if (ordered && i > 0) assert_true(o > last); /* the survivors keep their order */
        last = o;
        double x[3];
        for (size_t k = 0; k < b->n_arrays; k++)
            if (b->position[k] >= 0) x[b->position[k]] = value_before(b, k, o);
        if (wrapped) ghosts_wrap_point(s, x);
        for (size_t k = 0; k < b->n_arrays; k++) {
            const char *now = (const char *)array[k] + i * size[k];
            if (b->position[k] >= 0) {
                if (!same_bits(*(const double *)(const void *)now, x[b->position[k]]))
                    fail_msg("particle %lld: position %d moved in the removal", (long long)id, b->position[k]);
            } else if (b->force[k] >= 0 && forces) {
                if (!same_bits(*(const double *)(const void *)now, forces[3 * o + (size_t)b->force[k]]))
                    fail_msg("particle %lld: force %d is not the rule's", (long long)id, b->force[k]);
            } else if (memcmp(now, (const char *)b->array[k] + o * size[k], size[k]) != 0) {
                fail_msg("particle %lld: array %zu changed in the removal", (long long)id, k);
            }
        }
    }
}

/* ---- an outlet ---------------------------------------------------------------------- */

static void load(sim_config *cfg, sim *s, int by_id, outlet_spec *outlets, int n_outlets)
{
    const char *src = getenv("DEMPACT_SOURCE_DIR");
    char path[PATH_MAX], err[2048];
    snprintf(path, sizeof path, "%s/tests/data/e2e/microslip_pour.yaml", src ? src : ".");
    if (case_load(path, cfg, err, sizeof err) != 0) fail_msg("%s", err);
    cfg->tuning = tuning;
    cfg->reproducible = by_id;
    /* outlets far outside the domain until the test places them on its victims (the
     * case has none) */
    if (n_outlets > 0) {
        for (int k = 0; k < n_outlets; k++)
            outlets[k] = (outlet_spec){.name = "victim", .region_min = {1, 1, 1}, .region_max = {1, 1, 1}};
        free(cfg->outlets);
        cfg->outlets = outlets;
        cfg->n_outlets = n_outlets;
    }
    if (sim_create(s, cfg, err, sizeof err) != 0) fail_msg("%s", err);
    while (s->time < SETTLE) sim_step(s);
}

/* The canonical key of a pair: its ends' ids, lower first (a wall pair: particle, wall),
 * and the sign its springs take seen from the lower. */
static void canonical(const pair_before *e, int is_wall, int64_t key[2], double *sign)
{
    int flip = !is_wall && e->id_j < e->id_i;
    key[0] = flip ? e->id_j : e->id_i;
    key[1] = flip ? e->id_i : e->id_j;
    *sign = flip ? -1.0 : 1.0;
}

/* Every touching pair of the list before without a removed end has its history after,
 * and no other pair has any. */
static size_t check_history_carried(const sim *s, const contact_list *c, const pair_before *before,
                                    size_t n_before, const uint8_t *victim_id)
{
    size_t n_after = c->n, carried = 0;
    pair_before *after = keep_pairs(s, c);
    uint8_t *matched = calloc(n_after + 1, 1);
    for (size_t m = 0; m < n_before; m++) {
        const pair_before *e = &before[m];
        if (!e->touching || gone(victim_id, e->id_i) || (!c->is_wall && gone(victim_id, e->id_j))) continue;
        int64_t key[2], other[2];
        double sign, sign_after = 1.0;
        canonical(e, c->is_wall, key, &sign);
        size_t k = 0;
        for (; k < n_after; k++) {
            canonical(&after[k], c->is_wall, other, &sign_after);
            if (other[0] == key[0] && other[1] == key[1]) break;
        }
        if (k == n_after) fail_msg("pair (%lld, %lld) lost its history", (long long)key[0], (long long)key[1]);
        const pair_before *f = &after[k];
        matched[k] = 1;
        carried++;
        int same = f->touching == e->touching && same_bits(f->impact, e->impact);
        for (int h = 0; h < LAW_MAX_HISTORY; h++) same &= same_bits(f->history[h], e->history[h]);
        for (int h = 0; h < CONTACT_SLIP_HISTORY; h++) same &= same_bits(f->slip[h], e->slip[h]);
        for (int a = 0; a < 3; a++) { /* the springs are j's relative to i's */
            same &= same_bits(sign_after * f->tangential[a], sign * e->tangential[a]) ||
                    (isnan(f->tangential[a]) && isnan(e->tangential[a]));
            same &= same_bits(sign_after * f->rolling[a], sign * e->rolling[a]) ||
                    (isnan(f->rolling[a]) && isnan(e->rolling[a]));
        }
        if (!same) fail_msg("pair (%lld, %lld): its history changed", (long long)key[0], (long long)key[1]);
    }
    for (size_t k = 0; k < n_after; k++)
        if (!matched[k] && after[k].touching)
            fail_msg("pair (%lld, %lld) has a history it did not have", (long long)after[k].id_i,
                     (long long)after[k].id_j);
    free(matched);
    free(after);
    return carried;
}

/* Particles i = first, first + every, ... that touch something, at most `most`. */
static size_t choose_victims(const sim *s, size_t first, size_t every, size_t most, size_t *victims)
{
    uint8_t *touches = calloc(s->p.n_local + 1, 1);
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n; k++)
            if (lists[L]->touching[k]) {
                touches[lists[L]->i[k]] = 1;
                if (!L) touches[lists[L]->owner_j[k]] = 1;
            }
    size_t n = 0;
    for (size_t i = first; i < s->p.n_local && n < most; i += every)
        if (touches[i]) victims[n++] = i;
    free(touches);
    return n;
}

static void outlet_removes(int by_id)
{
    sim_config cfg;
    sim s;
    outlet_spec outlets[N_OUTLETS];
    load(&cfg, &s, by_id, outlets, N_OUTLETS);
    for (size_t set = 0; set < 3; set++) {
        size_t victims[N_OUTLETS];
        size_t n = choose_victims(&s, set, 11 + 4 * set, N_OUTLETS, victims);
        assert_true(n >= 10);
        uint8_t *victim_id = calloc((size_t)s.p.next_id + 1, 1);
        const double r = 1e-7; /* a box around each victim's centre holds it alone */
        for (size_t q = 0; q < n; q++) {
            size_t i = victims[q];
            victim_id[s.p.id[i]] = 1;
            double x[3] = {s.p.x[i], s.p.y[i], s.p.z[i]};
            for (int a = 0; a < 3; a++) {
                outlets[q].region_min[a] = x[a] - r;
                outlets[q].region_max[a] = x[a] + r;
            }
        }
        particles_before b;
        keep_particles(&s, &b);
        size_t n_pairs = s.pairs.n, n_walls = s.wall_pairs.n;
        pair_before *pairs = keep_pairs(&s, &s.pairs), *walls = keep_pairs(&s, &s.wall_pairs);
        long removed_before = 0;
        for (int k = 0; k < N_OUTLETS; k++) removed_before += s.outlets[k].removed;
        int64_t reorders = s.n_reorders;

        assert_int_equal(population_change(&s), 0);

        long removed = 0;
        for (int k = 0; k < N_OUTLETS; k++) removed += s.outlets[k].removed;
        assert_int_equal(removed - removed_before, (long)n);
        check_particles(&s, &b, victim_id, n, 1, NULL, s.n_reorders == reorders);
        size_t carried = check_history_carried(&s, &s.pairs, pairs, n_pairs, victim_id) +
                         check_history_carried(&s, &s.wall_pairs, walls, n_walls, victim_id);
        print_message("outlet (%s): %zu removed, %zu touching pairs carried their history\n",
                      by_id ? "by id" : "in index order", n, carried);
        assert_true(carried > 100);
        for (int k = 0; k < N_OUTLETS; k++) /* empty again */
            for (int a = 0; a < 3; a++) outlets[k].region_min[a] = outlets[k].region_max[a] = 1.0;
        free(pairs);
        free(walls);
        free(victim_id);
        free_particles(&b);
        for (int q = 0; q < 50; q++) sim_step(&s); /* and the run goes on */
        assert_int_equal(s.fault, 0);
    }
    sim_free(&s);
    cfg.outlets = NULL; /* the test's own */
    cfg.n_outlets = 0;
    sim_config_free(&cfg);
}

static void test_outlet_in_index_order(void **state)
{
    (void)state;
    outlet_removes(0);
}

static void test_outlet_by_id(void **state)
{
    (void)state;
    outlet_removes(1);
}

/* ---- the watchdog's drop ------------------------------------------------------------------ */

/* The lists after a drop: the pairs before without the victim, in their order, with
 * every per-contact array and the same entries; first_of_i spans them. */
static void check_lists_follow(const sim *s, const contact_list *c, const pair_before *before,
                               size_t n_before, const uint8_t *victim_id)
{
    size_t k = 0;
    for (size_t m = 0; m < n_before; m++) {
        const pair_before *e = &before[m];
        if (gone(victim_id, e->id_i) || (!c->is_wall && gone(victim_id, e->id_j))) continue;
        assert_true(k < c->n);
        pair_before f = pair_of(s, c, k);
        /* the same pair, the same entry j (a ghost's position to the bit) */
        assert_true(f.id_i == e->id_i && f.id_j == e->id_j && f.entry_id == e->entry_id);
        for (int a = 0; a < 3; a++) assert_true(same_bits(f.entry_x[a], e->entry_x[a]));
        if (!same_arrays(&f, e))
            fail_msg("pair (%lld, %lld): a per-contact array changed in the drop", (long long)e->id_i,
                     (long long)e->id_j);
        assert_true(c->first_of_i[c->i[k]] <= k && k < c->first_of_i[c->i[k] + 1]);
        k++;
    }
    assert_int_equal(k, c->n);
    assert_int_equal(c->first_of_i[c->n_first], c->n);
}

/* The forces after dropping particle `id`: what its touching contacts exerted on each
 * partner taken back, in the list's order (watchdog.h). */
static double *forces_after_drop(const sim *s, const particles_before *b, const pair_before *pairs,
                                 size_t n_pairs, int64_t id)
{
    double *f = malloc(3 * b->n * sizeof *f + 1);
    for (size_t k = 0; k < b->n_arrays; k++)
        if (b->force[k] >= 0)
            for (size_t i = 0; i < b->n; i++) f[3 * i + (size_t)b->force[k]] = value_before(b, k, i);
    for (size_t m = 0; m < n_pairs; m++) {
        const pair_before *e = &pairs[m];
        int first = e->id_i == id, second = e->id_j == id;
        if (first == second || !(e->overlap_now > 0.0)) continue;
        size_t other = b->by_id[first ? e->id_j : e->id_i];
        if (other == SIZE_MAX) continue; /* another rank's */
        for (int a = 0; a < 3; a++) f[3 * other + a] += first ? e->force[a] : -e->force[a];
    }
    for (size_t i = 0; i < 3 * b->n; i++) /* (the rule's weight for a force left non-finite is not tried here) */
        if (!isfinite(f[i])) fail_msg("particle index %zu: a non-finite force", i / 3);
    return f;
}

static void test_watchdog_drops(void **state)
{
    (void)state;
    sim_config cfg;
    sim s;
    load(&cfg, &s, 0, NULL, 0);
    uint8_t *victim_id = calloc((size_t)s.p.next_id + 1, 1);
    int dropped_ghost_partner = 0;
    for (int drop = 0; drop < 3; drop++) {
        /* a particle touching something, one with a partner through the periodic face
         * first (its pair names a ghost entry) */
        size_t d = s.p.n_local;
        for (size_t k = 0; k < s.pairs.n && d == s.p.n_local; k++)
            if (s.pairs.touching[k] && (drop > 0 || s.pairs.j[k] != s.pairs.owner_j[k]) &&
                !gone(victim_id, s.p.id[s.pairs.i[k]]))
                d = s.pairs.i[k];
        assert_true(d < s.p.n_local);
        for (size_t k = 0; k < s.pairs.n; k++)
            dropped_ghost_partner |= s.pairs.i[k] == d && s.pairs.j[k] != s.pairs.owner_j[k];
        int64_t id = s.p.id[d];
        particles_before b;
        keep_particles(&s, &b);
        size_t n_pairs = s.pairs.n, n_walls = s.wall_pairs.n;
        pair_before *pairs = keep_pairs(&s, &s.pairs), *walls = keep_pairs(&s, &s.wall_pairs);
        double *forces = forces_after_drop(&s, &b, pairs, n_pairs, id);

        watchdog_drop_particle(&s, d); /* the second and third before any rebuild */
        victim_id[id] = 1;

        uint8_t *this_one = calloc((size_t)s.p.next_id + 1, 1);
        this_one[id] = 1;
        check_particles(&s, &b, this_one, 1, 0, forces, 1);
        for (size_t i = 0; i < s.p.n_local; i++) /* the last rebuild's positions follow */
            for (int a = 0; a < 3; a++)
                assert_true(same_bits(s.x_at_rebuild[3 * i + a], b.x_at_rebuild[3 * b.by_id[s.p.id[i]] + a]));
        check_lists_follow(&s, &s.pairs, pairs, n_pairs, this_one);
        check_lists_follow(&s, &s.wall_pairs, walls, n_walls, this_one);
        assert_int_equal(s.list_stale, 1);
        print_message("drop %d: particle %lld, %zu pairs and %zu wall pairs before, %zu and %zu after\n",
                      drop, (long long)id, n_pairs, n_walls, s.pairs.n, s.wall_pairs.n);
        assert_true(s.pairs.n < n_pairs);
        free(this_one);
        free(forces);
        free(pairs);
        free(walls);
        free_particles(&b);
    }
    assert_true(dropped_ghost_partner);
    for (int q = 0; q < 50; q++) sim_step(&s); /* the rebuild after the drops, and on */
    assert_int_equal(s.fault, 0);
    for (size_t i = 0; i < s.p.n_local; i++) assert_false(gone(victim_id, s.p.id[i]));
    free(victim_id);
    sim_free(&s);
    sim_config_free(&cfg);
}

int main(void)
{
    tuning_from_env(&tuning);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outlet_in_index_order),
        cmocka_unit_test(test_outlet_by_id),
        cmocka_unit_test(test_watchdog_drops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
