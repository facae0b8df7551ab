/* balance_check CASE STEPS: when a run on ranks splits its particles afresh
 * (split_run_balance, io/ranks/split_run.h), against the rule docs/case-file.md states:
 * the slowest rank's force-loop time more than parallel.rebalance times the mean, and
 * the largest rank's work (1 + contacts per particle) at least that many times the mean.
 *
 * Run under mpirun. The case is split (split_run_start) and run STEPS steps (its
 * particles touch), to a balance step. Then rank 0's force-loop time since the last
 * measurement is made 50 times the others' (a core shared with another job), while the
 * work W is whatever the split and the flow made it:
 *  1. parallel.rebalance 1.01 W: the time is far out, the work is not: no new split;
 *  2. parallel.rebalance W: both are: a new split, waiting for the next rebuild;
 *  3. the times even again, parallel.rebalance 1 (a split at every measurement if the
 *     time says so): no new split.
 * W itself is checked against the split's own sums: once a split by the contacts has
 * taken effect (at the next rebuild, a few steps on), the ranks' work is out of balance as
 * the split's weights said, within 5 % (the contacts of those few steps).
 * Exits 1 if any check failed on any rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/sim.h"
#include "io/case/case.h"
#include "io/ranks/decompose.h"
#include "io/ranks/split_run.h"

static int failures, self_rank;

static void expect(int ok, const char *what)
{
    if (!ok && failures++ < 10) fprintf(stderr, "rank %d: %s\n", self_rank, what);
}

/* split_run_balance at a balance step, rank 0's force loop `slow` times the others' */
static void measure(split_run *r, sim *s, double slow)
{
    r->force_seconds = s->force_seconds - (self_rank == 0 ? slow : 1.0);
    split_run_balance(r, s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &self_rank);
    if (argc != 3) {
        fprintf(stderr, "usage: mpirun -np N balance_check CASE.yaml STEPS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long steps = strtol(argv[2], NULL, 10);
    char err[4096];
    sim_config cfg;
    sim s;
    split_run r = {0};
    if (case_load(argv[1], &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "balance_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cfg.reproducible = true; /* a split run sums by id */
    if (sim_create(&s, &cfg, err, sizeof err) != 0 ||
        split_run_start(&s, &r, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "balance_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long k = 0; k < steps; k++) sim_step(&s);
    /* a split by the contacts, taken at the next rebuild: then the ranks' work is out of
     * balance as the sums decompose made from Zoltan's answer say */
    decomposition *fresh = &r.d[1];
    if (halo_rebalance(&r.h, &s, fresh, err, sizeof err) != 0) {
        fprintf(stderr, "balance_check: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long long rebuilds = s.n_rebuilds;
    while (s.n_rebuilds == rebuilds) sim_step(&s);
    double w_split = decompose_work_imbalance(&s);
    char what[256];
    snprintf(what, sizeof what, "the work right after the split is %.9g times the mean, the "
             "split's own sums say %.9g", w_split, fresh->imbalance);
    if (self_rank == 0) printf("balance_check: %s\n", what);
    expect(fabs(w_split / fresh->imbalance - 1.0) <= 0.05, what);

    while (s.step % SPLIT_BALANCE_EVERY != 0) sim_step(&s);
    expect(r.h.next == NULL, "a split is still waiting for its rebuild at the balance step");
    double w = decompose_work_imbalance(&s);
    if (self_rank == 0)
        printf("balance_check: at step %lld the largest rank's work is %.6g times the mean "
               "(%zu contacts on rank 0)\n", (long long)s.step, w, s.n_contacts);
    expect(w >= 1.0 && w < 1.9, "the work's imbalance is outside [1, 1.9): the case cannot "
                                "tell the rule's two halves apart");

    s.cfg.rebalance = 1.01 * w;
    measure(&r, &s, 50.0);
    expect(r.rebalances == 0 && r.h.next == NULL,
           "split afresh while the work was within parallel.rebalance of the mean");
    s.cfg.rebalance = w;
    measure(&r, &s, 50.0);
    expect(r.rebalances == 1 && r.h.next != NULL,
           "no new split with both the time and the work out of balance");
    /* the next rebuild takes it; then the times even: nothing more */
    rebuilds = s.n_rebuilds;
    while (s.n_rebuilds == rebuilds || s.step % SPLIT_BALANCE_EVERY != 0) sim_step(&s);
    s.cfg.rebalance = 1.0;
    measure(&r, &s, 1.0);
    expect(r.rebalances == 1 && r.h.next == NULL, "split afresh with the times even");

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (self_rank == 0) printf("balance_check: %d failed checks on %d ranks\n", all, r.h.n_ranks);
    split_run_free(&r);
    sim_free(&s);
    sim_config_free(&cfg);
    MPI_Finalize();
    return all ? 1 : 0;
}
