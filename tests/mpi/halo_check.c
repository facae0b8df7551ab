/* halo_check CASE: the ranks' own particles and ghosts (io/ranks/halo.h) against the store of
 * one process, which every rank also builds from the case.
 *
 * Run under mpirun. Each rank keeps its own particles and receives its ghosts, then:
 * - every particle is owned by exactly one rank, the one whose part holds its centre;
 * - every entry a rank holds is an entry of the one-process store (a particle, or a
 *   periodic image with the same shift), with the same bits in every field;
 * - every pair of entries closer than the cutoff, one of them a particle the rank owns,
 *   has both entries on the rank (what its pair list will need), found by brute force
 *   over the one-process store from the owners of the points alone;
 * - with RCB, a rank holds exactly the entries within the cutoff (per axis) of its box
 *   or of a periodic copy of it, again by brute force (Zoltan's own boxes);
 * - after halo_update the ghosts move with their particles to the bit;
 * - after every particle moves by up to 0.7 cutoffs (wrapped on periodic axes),
 *   halo_migrate and halo_exchange give all of the above again, with every array of a
 *   migrated particle carried bit for bit.
 * Prints the bytes sent, and exits 1 if any check failed on any rank. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <zoltan.h>

#include "engine/neighbours/ghosts.h"
#include "engine/sim.h"
#include "io/case/case.h"
#include "io/ranks/decompose.h"
#include "io/ranks/halo.h"

static int failures;
static int self_rank;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            if (failures++ < 10) {                                                        \
                fprintf(stderr, "rank %d: ", self_rank);                                  \
                fprintf(stderr, __VA_ARGS__);                                             \
                fputc('\n', stderr);                                                      \
            }                                                                             \
        }                                                                                 \
    } while (0)

/* A value in [-1, 1) from a particle id and a salt, the same on every rank. */
static double noise(int64_t id, int salt)
{
    uint64_t z = (uint64_t)id * 0x9E3779B97F4A7C15ull + (uint64_t)salt * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 31;
    z *= 0x94D049BB133111EBull;
    z ^= z >> 29;
    return (double)(z >> 11) / 4503599627370496.0 - 1.0; /* 2^52 */
}

/* Every double array of the particles but the positions set from (id, salt). */
static void stir(particle_store *p, int salt)
{
    void *array[PARTICLE_ARRAYS];
    size_t size[PARTICLE_ARRAYS], n = particles_arrays(p, array, size);
    double *keep[] = {p->radius, p->mass, p->inv_mass, p->inv_inertia, p->x, p->y, p->z};
    for (size_t k = 2; k < n; k++) {
        int fixed = 0;
        for (size_t q = 0; q < sizeof keep / sizeof keep[0]; q++) fixed |= array[k] == keep[q];
        if (fixed) continue;
        double *a = array[k];
        for (size_t i = 0; i < p->n_local; i++) a[i] = noise(p->id[i], salt * 64 + (int)k);
    }
}

/* The one-process store's entries again, after its particles moved. */
static void remake_reference(sim *s)
{
    s->p.n_total = s->p.n_local;
    s->p.n_remote = 0;
    ghosts_wrap(s);
    if (ghosts_make(s) != 0) {
        fprintf(stderr, "halo_check: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ghosts_update(s, &s->p);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void shift_of(const particle_store *p, size_t q, double shift[3])
{
    for (int a = 0; a < 3; a++) shift[a] = q < p->n_local ? 0.0 : p->ghost_shift[3 * (q - p->n_local) + a];
}

/* The entry of store p with this id and shift, or -1. */
static long find_entry(const particle_store *p, const size_t *by_id, int64_t id, const double shift[3])
{
    if (shift[0] == 0.0 && shift[1] == 0.0 && shift[2] == 0.0) return (long)by_id[id];
    for (size_t g = p->n_local; g < p->n_total; g++) {
        double t[3];
        shift_of(p, g, t);
        if (p->id[g] == id && same_bits(t[0], shift[0]) && same_bits(t[1], shift[1]) &&
            same_bits(t[2], shift[2]))
            return (long)g;
    }
    return -1;
}

/* The index of each id among the locals of p (ids are 0 .. n - 1 in a case's store). */
static size_t *index_by_id(const particle_store *p, size_t n_ids)
{
    size_t *by_id = malloc((n_ids + 1) * sizeof *by_id);
    for (size_t q = 0; q < n_ids; q++) by_id[q] = (size_t)-1;
    for (size_t i = 0; i < p->n_local; i++) by_id[p->id[i]] = i;
    return by_id;
}

/* Zoltan's RCB box of part r: its outer sides open, but along a periodic axis, where
 * every centre lies in the domain, closed at the domain's faces. */
static void rcb_box(const sim *s, const decomposition *d, int r, double lo[3], double hi[3])
{
    int ndim = 0;
    Zoltan_RCB_Box(d->zoltan, r, &ndim, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]);
    for (int a = 0; a < 3; a++)
        if (s->cfg.periodic[a]) {
            lo[a] = fmax(lo[a], s->cfg.domain_min[a]);
            hi[a] = fmin(hi[a], s->cfg.domain_max[a]);
        }
}

/* Whether point x lies within `cut` (per axis) of the box or of one of its periodic copies. */
static int near_box(const sim *s, const double lo[3], const double hi[3], const double x[3], double cut)
{
    for (int cx = -1; cx <= 1; cx++)
        for (int cy = -1; cy <= 1; cy++)
            for (int cz = -1; cz <= 1; cz++) {
                const int c[3] = {cx, cy, cz};
                int near = 1;
                for (int a = 0; a < 3; a++) {
                    if (c[a] && !s->cfg.periodic[a]) { near = 0; break; }
                    double u = c[a] * (s->cfg.domain_max[a] - s->cfg.domain_min[a]);
                    if (!(x[a] - u >= lo[a] - cut && x[a] - u <= hi[a] + cut)) near = 0;
                }
                if (near) return 1;
            }
    return 0;
}

static void check(const char *when, const sim *s, const particle_store *v, halo *h)
{
    const particle_store *ref = &s->p;
    const size_t n_ids = ref->n_local;
    size_t *ref_by_id = index_by_id(ref, n_ids), *view_by_id = index_by_id(v, n_ids);
    const double cut = s->cutoff;

    /* ownership: each particle once, on the rank whose part holds its centre */
    int *count = calloc(n_ids, sizeof *count);
    for (size_t i = 0; i < v->n_local; i++) {
        const double x[3] = {v->x[i], v->y[i], v->z[i]};
        CHECK(halo_owner(h, x) == h->self, "%s: particle %lld is not in this rank's part", when,
              (long long)v->id[i]);
        count[v->id[i]]++;
    }
    MPI_Allreduce(MPI_IN_PLACE, count, (int)n_ids, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (size_t q = 0; q < n_ids; q++)
        CHECK(count[q] == 1, "%s: particle %zu is on %d ranks", when, q, count[q]);
    free(count);

    /* every entry is the one-process store's, to the bit */
    void *va[PARTICLE_ARRAYS], *ra[PARTICLE_ARRAYS];
    size_t size[PARTICLE_ARRAYS], n_arrays = particles_arrays((particle_store *)v, va, size);
    particles_arrays((particle_store *)ref, ra, size);
    for (size_t q = 0; q < v->n_total; q++) {
        double shift[3];
        shift_of(v, q, shift);
        long e = find_entry(ref, ref_by_id, v->id[q], shift);
        CHECK(e >= 0, "%s: entry %lld (%g, %g, %g) is not in the one-process store", when,
              (long long)v->id[q], shift[0], shift[1], shift[2]);
        if (e < 0) continue;
        size_t o = ref_by_id[v->id[q]];
        if (q < v->n_local) { /* an own particle: every array */
            for (size_t k = 0; k < n_arrays; k++)
                CHECK(memcmp((char *)va[k] + q * size[k], (char *)ra[k] + o * size[k], size[k]) == 0,
                      "%s: particle %lld differs in array %zu", when, (long long)v->id[q], k);
            continue;
        }
        const double mine[] = {v->x[q], v->y[q], v->z[q], v->vx[q], v->vy[q], v->vz[q], v->wx[q],
                               v->wy[q], v->wz[q], v->radius[q], v->mass[q], v->inv_mass[q],
                               v->inv_inertia[q]};
        const double theirs[] = {ref->x[e], ref->y[e], ref->z[e], ref->vx[e], ref->vy[e],
                                 ref->vz[e], ref->wx[e], ref->wy[e], ref->wz[e], ref->radius[e],
                                 ref->mass[e], ref->inv_mass[e], ref->inv_inertia[e]};
        for (size_t k = 0; k < sizeof mine / sizeof mine[0]; k++)
            CHECK(same_bits(mine[k], theirs[k]), "%s: entry %lld field %zu differs", when,
                  (long long)v->id[q], k);
        CHECK(v->type[q] == ref->type[e], "%s: entry %lld type differs", when, (long long)v->id[q]);
        if (q < v->n_local + v->n_remote) { /* a remote entry carries its mid-step motion */
            const int wh = v->whx != NULL; /* the spins' history, where held */
            const double mid[] = {v->vhx[q], v->vhy[q], v->vhz[q], wh ? v->whx[q] : 0.0,
                                  wh ? v->why[q] : 0.0, wh ? v->whz[q] : 0.0};
            const double want[] = {ref->vhx[o], ref->vhy[o], ref->vhz[o], wh ? ref->whx[o] : 0.0,
                                   wh ? ref->why[o] : 0.0, wh ? ref->whz[o] : 0.0};
            for (int k = 0; k < 6; k++)
                CHECK(same_bits(mid[k], want[k]), "%s: entry %lld mid-step %d differs", when,
                      (long long)v->id[q], k);
        } else {
            CHECK(particles_owner(v, q) < v->n_local && v->id[particles_owner(v, q)] == v->id[q],
                  "%s: own image of %lld has a wrong owner", when, (long long)v->id[q]);
        }
    }

    /* every pair within the cutoff with an own particle has both its entries here */
    size_t pairs = 0;
    for (size_t a = 0; a < ref->n_local; a++) {
        const double xa[3] = {ref->x[a], ref->y[a], ref->z[a]};
        int a_own = halo_owner(h, xa) == h->self;
        for (size_t e = 0; e < ref->n_total; e++) {
            size_t b = particles_owner(ref, e);
            if (b == a) continue;
            double dx = ref->x[e] - xa[0], dy = ref->y[e] - xa[1], dz = ref->z[e] - xa[2];
            if (!(dx * dx + dy * dy + dz * dz < cut * cut)) continue;
            const double xb[3] = {ref->x[b], ref->y[b], ref->z[b]};
            if (!a_own && halo_owner(h, xb) != h->self) continue;
            double shift[3];
            shift_of(ref, e, shift);
            pairs++;
            int have_a = view_by_id[ref->id[a]] != (size_t)-1;
            for (size_t g = v->n_local; g < v->n_local + v->n_remote && !have_a; g++) {
                double t[3];
                shift_of(v, g, t);
                have_a = v->id[g] == ref->id[a] && t[0] == 0.0 && t[1] == 0.0 && t[2] == 0.0;
            }
            int have_e = 0;
            for (size_t g = 0; g < v->n_total && !have_e; g++) {
                double t[3];
                shift_of(v, g, t);
                have_e = v->id[g] == ref->id[e] && same_bits(t[0], shift[0]) &&
                         same_bits(t[1], shift[1]) && same_bits(t[2], shift[2]);
            }
            CHECK(have_a && have_e, "%s: pair %lld-%lld (shift %g %g %g) lacks an entry here",
                  when, (long long)ref->id[a], (long long)ref->id[e], shift[0], shift[1], shift[2]);
        }
    }

    /* RCB: exactly the entries within the cutoff of the box or a periodic copy */
    if (h->d->method == PARTITION_RCB) {
        double lo[3], hi[3];
        rcb_box(s, h->d, h->self, lo, hi);
        size_t expected = 0;
        for (size_t e = 0; e < ref->n_total; e++) {
            const double x[3] = {ref->x[e], ref->y[e], ref->z[e]};
            size_t b = particles_owner(ref, e);
            const double xb[3] = {ref->x[b], ref->y[b], ref->z[b]};
            if (e < ref->n_local && halo_owner(h, xb) == h->self) { expected++; continue; }
            if (near_box(s, lo, hi, x, cut)) expected++;
        }
        CHECK(expected == v->n_total, "%s: %zu entries here, %zu within the cutoff of the box",
              when, v->n_total, expected);
    }
    long long totals[4] = {(long long)v->n_local, (long long)v->n_remote,
                           (long long)(v->n_total - v->n_local - v->n_remote), (long long)pairs};
    MPI_Allreduce(MPI_IN_PLACE, totals, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (h->self == 0)
        printf("%s: %lld particles, %lld remote entries, %lld own images, %lld pairs checked\n",
               when, totals[0], totals[1], totals[2], totals[3]);
    free(ref_by_id);
    free(view_by_id);
}

/* The view's own particles take the reference's state (what a step did to both). */
static void follow(particle_store *v, const particle_store *ref)
{
    size_t *by_id = index_by_id(ref, ref->n_local);
    void *va[PARTICLE_ARRAYS], *ra[PARTICLE_ARRAYS];
    size_t size[PARTICLE_ARRAYS], n = particles_arrays(v, va, size);
    particles_arrays((particle_store *)ref, ra, size);
    for (size_t i = 0; i < v->n_local; i++) {
        size_t o = by_id[v->id[i]];
        for (size_t k = 0; k < n; k++)
            memcpy((char *)va[k] + i * size[k], (char *)ra[k] + o * size[k], size[k]);
    }
    free(by_id);
}

static void report_bytes(const char *what, size_t bytes)
{
    unsigned long long b = bytes, total = 0, most = 0;
    MPI_Reduce(&b, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&b, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (self_rank == 0) printf("  %s: %llu bytes sent in all, at most %llu by one rank\n", what, total, most);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &self_rank);
    if (argc != 2) {
        fprintf(stderr, "usage: mpirun -np N halo_check CASE.yaml\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char err[4096];
    sim_config cfg;
    sim s;
    memset(&s, 0, sizeof s);
    if (case_load(argv[1], &cfg, err, sizeof err) != 0 || sim_create(&s, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "halo_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    stir(&s.p, 1);
    remake_reference(&s);

    decomposition d;
    halo h;
    if (decompose(&s, &d, err, sizeof err) != 0 || halo_init(&h, &d) != 0) {
        fprintf(stderr, "halo_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* every rank holds every particle, as after building the case: this rank's
     * simulation, a store alone (the halo leaves the lists to a rebuild) */
    sim rank;
    memset(&rank, 0, sizeof rank);
    particle_store *v = &rank.p;
    particles_init(v, s.p.n_local);
    if (s.p.tx0) particles_keep_spin_history(v); /* as the case's store (particles.h) */
    v->n_local = v->n_total = s.p.n_local;
    memcpy(v->id, s.p.id, s.p.n_local * sizeof *v->id);
    follow(v, &s.p);
    if (halo_keep_own(&h, &rank) != 0 || halo_exchange(&h, &s, v) != 0) {
        fprintf(stderr, "halo_check: the exchange failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    check("split", &s, v, &h);
    report_bytes("exchange", h.bytes_exchange);

    /* a step's new motion: the ghosts follow */
    stir(&s.p, 2);
    ghosts_update(&s, &s.p);
    follow(v, &s.p);
    if (halo_update(&h, &s, v) != 0) {
        fprintf(stderr, "halo_check: the update failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ghosts_update(&s, v);
    check("update", &s, v, &h);
    report_bytes("update", h.bytes_update);

    /* the particles move by up to 0.7 cutoffs: some leave their rank's part */
    double *pos[3] = {s.p.x, s.p.y, s.p.z};
    for (size_t i = 0; i < s.p.n_local; i++)
        for (int a = 0; a < 3; a++) pos[a][i] += 0.7 * s.cutoff * noise(s.p.id[i], 100 + a);
    remake_reference(&s);
    v->n_total = v->n_local;
    v->n_remote = 0;
    follow(v, &s.p);
    if (halo_migrate(&h, &rank, NULL, 0) != 0 || halo_exchange(&h, &s, v) != 0) {
        fprintf(stderr, "halo_check: the migration failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    check("migration", &s, v, &h);
    report_bytes("migration", h.bytes_migrate);
    long long moved = h.bytes_migrate > 0, all_moved = 0;
    MPI_Allreduce(&moved, &all_moved, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all_moved > 0, "no particle migrated: the test moved too little");

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (self_rank == 0) printf("halo_check: %d failed checks on %d ranks\n", all_failures, h.n_ranks);
    particles_free(v);
    halo_free(&h);
    decompose_free(&d);
    sim_free(&s);
    sim_config_free(&cfg);
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
