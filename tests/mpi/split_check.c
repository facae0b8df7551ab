/* split_check CASE STEPS: a case split over the ranks (sim_split with io/ranks/halo.h's hooks)
 * against the same case in one process, which every rank also runs, both summing by id
 * (parallel.reproducible).
 *
 * Run under mpirun. After the split, and again after STEPS steps of both, every particle
 * is on exactly one rank, and its position, velocity, spin, force and torque have the
 * bits of the one-process run's; so have, at the end, the energy books, the observables
 * and the walls' loads, summed over the ranks; and the watchdog's energy check sees over
 * the ranks what it sees in one process. Exits 1 if any check failed on any rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <math.h>

#include "engine/step/observables.h"
#include "engine/checks/watchdog.h"
#include "engine/sim.h"
#include "io/case/case.h"
#include "io/ranks/decompose.h"
#include "io/ranks/halo.h"

static int failures;
static int self_rank;

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void check(const char *when, const sim *ref, const sim *s)
{
    const particle_store *r = &ref->p, *p = &s->p;
    size_t n_ids = (size_t)r->next_id;
    size_t *by_id = malloc((n_ids + 1) * sizeof *by_id);
    int *count = calloc(n_ids + 1, sizeof *count);
    for (size_t q = 0; q < n_ids; q++) by_id[q] = (size_t)-1;
    for (size_t i = 0; i < r->n_local; i++) by_id[r->id[i]] = i;
    size_t differ = 0;
    for (size_t i = 0; i < p->n_local; i++) {
        size_t o = by_id[p->id[i]];
        count[p->id[i]]++;
        if (o == (size_t)-1) {
            if (failures++ < 10) fprintf(stderr, "rank %d: %s: particle %lld is not in the one-process run\n", self_rank, when, (long long)p->id[i]);
            continue;
        }
        /* a store without torques holds none: they are 0 (particles.h) */
        const double mine[] = {p->x[i], p->y[i], p->z[i], p->vx[i], p->vy[i], p->vz[i], p->wx[i],
                               p->wy[i], p->wz[i], p->fx[i], p->fy[i], p->fz[i],
                               p->tx ? p->tx[i] : 0.0, p->ty ? p->ty[i] : 0.0,
                               p->tz ? p->tz[i] : 0.0};
        const double theirs[] = {r->x[o], r->y[o], r->z[o], r->vx[o], r->vy[o], r->vz[o],
                                 r->wx[o], r->wy[o], r->wz[o], r->fx[o], r->fy[o], r->fz[o],
                                 r->tx ? r->tx[o] : 0.0, r->ty ? r->ty[o] : 0.0,
                                 r->tz ? r->tz[o] : 0.0};
        for (size_t k = 0; k < sizeof mine / sizeof mine[0]; k++)
            if (!same_bits(mine[k], theirs[k])) {
                if (differ++ < 5)
                    fprintf(stderr, "rank %d: %s: particle %lld field %zu: %.17g, one process %.17g\n",
                            self_rank, when, (long long)p->id[i], k, mine[k], theirs[k]);
                failures++;
                break;
            }
    }
    MPI_Allreduce(MPI_IN_PLACE, count, (int)n_ids, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    size_t present = 0;
    for (size_t q = 0; q < n_ids; q++) {
        present += by_id[q] != (size_t)-1;
        if (count[q] != (by_id[q] != (size_t)-1) && failures++ < 10)
            fprintf(stderr, "rank %d: %s: particle %zu is on %d ranks\n", self_rank, when, q, count[q]);
    }
    long long stats[3] = {(long long)p->n_local, (long long)p->n_remote, (long long)differ};
    MPI_Allreduce(MPI_IN_PLACE, stats, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (self_rank == 0)
        printf("%s: %zu particles in one process, %lld on the ranks (%lld remote entries), "
               "%lld differ\n", when, present, stats[0], stats[1], stats[2]);
    free(by_id);
    free(count);
}

/* The energy books and observables, summed over the ranks: the one-process run's bits. */
static void books(const char *when, sim *ref, sim *s)
{
    double a[40], b[40];
    size_t n = 0;
    double sa[SIM_STORED_KINDS], sb[SIM_STORED_KINDS];
    sim_stored_energy(ref, sa);
    sim_stored_energy(s, sb);
    for (int q = 0; q < SIM_STORED_KINDS; q++, n++) { a[n] = sa[q]; b[n] = sb[q]; }
    for (int q = 0; q < SIM_WORK_KINDS; q++, n++) { a[n] = ref->work[q]; b[n] = s->work[q]; }
    a[n] = sim_kinetic_energy(ref); b[n++] = sim_kinetic_energy(s);
    sim_observables oa = {0}, ob = {0};
    sim_observe(ref, &oa);
    sim_observe(s, &ob);
    a[n] = oa.kinetic_energy; b[n++] = ob.kinetic_energy;
    a[n] = oa.rotational_energy; b[n++] = ob.rotational_energy;
    a[n] = oa.gravitational_energy; b[n++] = ob.gravitational_energy;
    a[n] = oa.elastic_energy; b[n++] = ob.elastic_energy;
    a[n] = oa.dissipated_damping; b[n++] = ob.dissipated_damping;
    a[n] = oa.dissipated_friction; b[n++] = ob.dissipated_friction;
    a[n] = oa.energy_residual; b[n++] = ob.energy_residual;
    a[n] = oa.shear_work; b[n++] = ob.shear_work; /* a sheared box's (0 otherwise) */
    a[n] = oa.shear_stress; b[n++] = ob.shear_stress;
    a[n] = oa.normal_stress; b[n++] = ob.normal_stress;
    a[n] = oa.mean_stress; b[n++] = ob.mean_stress;
    a[n] = oa.box_height; b[n++] = ob.box_height;
    a[n] = oa.lees_edwards_offset; b[n++] = ob.lees_edwards_offset;
    for (size_t w = 0; w < ref->walls.n; w++)
        for (int k = 0; k < 3 && n < 40; k++, n++) { a[n] = ref->walls.force[3 * w + k]; b[n] = s->walls.force[3 * w + k]; }
    for (size_t k = 0; k < n; k++)
        if (!same_bits(a[k], b[k]) && failures++ < 10)
            fprintf(stderr, "rank %d: %s: book %zu is %.17g, one process %.17g\n", self_rank, when, k, b[k], a[k]);
    if (self_rank == 0)
        printf("%s: %zu energy books, observables and wall loads compared (kinetic %.6g J, "
               "the normal law's work less what it stores %.6g J)\n", when, n, a[SIM_STORED_KINDS + SIM_WORK_KINDS],
               a[SIM_STORED_KINDS + SIM_WORK_NORMAL] - a[SIM_WORK_NORMAL]);
}

/* Particle `id`'s index among s's own, or -1. */
static long own_index(const sim *s, int64_t id)
{
    for (size_t i = 0; i < s->p.n_local; i++)
        if (s->p.id[i] == id) return (long)i;
    return -1;
}

/* Gives particle 0 (where it is its rank's) kinetic energy dE more. */
static void push(sim *s, double dE)
{
    long i = own_index(s, 0);
    if (i < 0) return;
    particle_store *p = &s->p;
    double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
    double speed = sqrt(v2 + 2.0 * dE / p->mass[i]);
    p->vx[i] = speed; /* along x, all of it */
    p->vy[i] = p->vz[i] = 0.0;
}

/* The watchdog's energy check over the ranks: the budget is one process's (to rounding:
 * each rank's part is summed in its own order), and energy gained by one particle, 3%
 * of the budget, is a rise at the next full check on every rank, as in one process,
 * though no rank's own particles hold more than the budget. */
static void watchdog_energy_over_ranks(sim *ref, sim *s)
{
    if (!watchdog_energy_applies(ref)) return;
    watchdog_state wr, ws;
    watchdog_start(&wr, ref, NULL);
    watchdog_start(&ws, s, NULL);
    if (!(fabs(ws.energy_budget - wr.energy_budget) <= 1e-12 * wr.energy_budget) && failures++ < 10)
        fprintf(stderr, "rank %d: energy budget %.17g J over the ranks, %.17g J in one process\n",
                self_rank, ws.energy_budget, wr.energy_budget);
    push(ref, 0.03 * wr.energy_budget);
    push(s, 0.03 * wr.energy_budget);
    ref->step = s->step = 0; /* a full check */
    watchdog_report rr, rs;
    watchdog_problem pr = watchdog_guard(ref, &wr, &rr), ps = watchdog_guard(s, &ws, &rs);
    double mine = watchdog_energy(s);
    if ((pr != WATCHDOG_ENERGY_RISE || ps != WATCHDOG_ENERGY_RISE || mine > ws.energy_budget) &&
        failures++ < 10)
        fprintf(stderr, "rank %d: energy check %d in one process, %d on the ranks (this rank's "
                "particles %.6g J of a budget of %.6g J)\n", self_rank, (int)pr, (int)ps, mine,
                ws.energy_budget);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &self_rank);
    if (argc != 3) {
        fprintf(stderr, "usage: mpirun -np N split_check CASE.yaml STEPS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long steps = strtol(argv[2], NULL, 10);
    char err[4096];
    sim_config cfg;
    sim ref, s;
    if (case_load(argv[1], &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "split_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cfg.reproducible = true;
    if (sim_create(&ref, &cfg, err, sizeof err) != 0 || sim_create(&s, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "split_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    decomposition d;
    halo h;
    sim_ghost_hooks hooks;
    if (decompose(&s, &d, err, sizeof err) != 0 || halo_init(&h, &d) != 0) {
        fprintf(stderr, "split_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    halo_hooks(&h, &hooks);
    if (sim_split(&s, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "split_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    check("split", &ref, &s);
    /* halfway, the particles are split afresh by where they are then (taking effect at
     * the next rebuild, which both runs make at the same step) */
    decomposition fresh;
    for (long k = 0; k < steps; k++) {
        if (k == steps / 2) {
            if (halo_rebalance(&h, &s, &fresh, err, sizeof err) != 0) {
                fprintf(stderr, "split_check: %s\n", err);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            if (self_rank == 0) {
                printf("rebalanced at step %ld:\n", k);
                decompose_print(stdout, &fresh);
            }
        }
        sim_step(&ref);
        sim_step(&s);
    }
    char when[160];
    snprintf(when, sizeof when, "after %ld steps (%lld rebuilds, %d with a new split, %zu "
             "contacts in one process)", steps, (long long)s.n_rebuilds, h.switched, ref.n_contacts);
    if (steps > 1 && h.switched != 1 && failures++ < 10)
        fprintf(stderr, "rank %d: the rebalance took effect %d times\n", self_rank, h.switched);
    check(when, &ref, &s);
    books("books", &ref, &s);
    watchdog_energy_over_ranks(&ref, &s);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (self_rank == 0) printf("split_check: %d failed checks on %d ranks\n", all, h.n_ranks);
    sim_free(&s);
    sim_free(&ref);
    halo_free(&h);
    decompose_free(&d);
    if (steps > 0) decompose_free(&fresh);
    sim_config_free(&cfg);
    MPI_Finalize();
    return all ? 1 : 0;
}
