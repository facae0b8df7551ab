/* A simulation split over the ranks (split_run.h). */
#include "split_run.h"

#include <string.h>

#include <mpi.h>

#include "engine/fail.h"
#include "ranks.h"
#include "split_output.h"

/* The split d[0] made: checked, and the halo over it. */
static int take_split(sim *s, split_run *r, char *err, size_t err_len)
{
    int rc = decompose_check(s, &r->d[0], err, err_len) != 0 ? FAIL_REFUSED : 0;
    if (rc == 0 && halo_init(&r->h, &r->d[0]) != 0) {
        snprintf(err, err_len, "out of memory");
        rc = FAIL_NO_MEMORY;
    }
    if (rc != 0) {
        decompose_free(&r->d[0]);
        return rc;
    }
    halo_hooks(&r->h, &r->hooks);
    return 0;
}

int split_run_begin(sim *s, split_run *r, char *err, size_t err_len)
{
    memset(r, 0, sizeof *r);
    /* weighed by the pairs s has: none before sim_start, every particle weighs 1 */
    int rc = decompose(s, &r->d[0], err, err_len);
    if (rc == 0) rc = take_split(s, r, err, err_len);
    if (rc != 0) return fail_value(rc);
    s->ghost_hooks = &r->hooks; /* the next rebuild keeps each rank's own */
    return 0;
}

int split_run_rows(sim *s, split_run *r, const int64_t *id, const double *x, size_t n, char *err,
                   size_t err_len)
{
    memset(r, 0, sizeof *r);
    /* Zoltan takes each rank's rows as that rank's particles (decompose_again), each
     * weighing 1 (s has no pairs yet) */
    particle_store rows, placed = s->p;
    int made = particles_init(&rows, n) == 0;
    if (!halo_all_ok(made)) {
        if (made) particles_free(&rows);
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    for (size_t i = 0; i < n; i++) {
        rows.id[i] = id[i];
        rows.x[i] = x[3 * i];
        rows.y[i] = x[3 * i + 1];
        rows.z[i] = x[3 * i + 2];
    }
    rows.n_local = rows.n_total = n;
    s->p = rows;
    int rc = decompose_again(s, &r->d[0], err, err_len);
    s->p = placed;
    particles_free(&rows);
    return rc != 0 ? fail_value(rc) : take_split(s, r, err, err_len);
}

int split_run_start(sim *s, split_run *r, FILE *out, char *err, size_t err_len)
{
    int rc = split_run_begin(s, r, err, err_len);
    if (rc != 0) return rc;
    r->log = out;
    if (out) decompose_print(out, &r->d[0]);
    if ((rc = sim_split(s, &r->hooks, err, err_len)) != 0) {
        split_run_free(r);
        return fail_value(rc);
    }
    return 0;
}

static int has_contacts(const decomposition *d)
{
    double weight = 0.0, particles = 0.0;
    for (int r = 0; r < d->n_ranks; r++) {
        weight += d->share[r].weight;
        particles += (double)d->share[r].particles;
    }
    return weight > particles;
}

int split_run_weigh(sim *s, split_run *r, char *err, size_t err_len)
{
    /* The split by the work the start's contacts give, taken at the first rebuild that
     * falls due (as a rebalance's: one made now would change the run's bits). One that
     * cannot run (a sub-domain thinner than the cutoff) leaves the first in place. */
    char why[1024] = "";
    int rc = halo_rebalance(&r->h, s, &r->d[1], why, sizeof why);
    if (rc == 0 && decompose_check(s, &r->d[1], why, sizeof why) == 0 && has_contacts(&r->d[1]))
        return 0;
    /* none: it cannot run, or there are no contacts (the first split's weights) */
    r->h.next = NULL;
    decompose_free(&r->d[1]);
    if (rc != FAIL_NO_MEMORY) return 0;
    snprintf(err, err_len, "%s", why);
    return FAIL_NO_MEMORY;
}

void split_run_print_start(const split_run *r, FILE *out)
{
    decompose_print(out, r->h.d);
    if (!r->h.next) return;
    fprintf(out, "  that split weighs each particle 1 (made before any contact was known); from "
                 "the first rebuild on the ranks take this one, by the contacts:\n");
    decompose_print(out, r->h.next);
}

void split_run_traffic(const split_run *r, double per_step[2], double per_rebuild[2])
{
    const halo *h = &r->h;
    double mine[2] = {h->n_updates ? h->bytes_updates / (double)h->n_updates : 0.0,
                      h->n_rebuilds ? h->bytes_rebuilds / (double)h->n_rebuilds : 0.0};
    double sum[2], most[2];
    MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    per_step[0] = sum[0] / h->n_ranks;
    per_step[1] = most[0];
    per_rebuild[0] = sum[1] / h->n_ranks;
    per_rebuild[1] = most[1];
}

void split_run_free(split_run *r)
{
    halo_free(&r->h);
    decompose_free(&r->d[0]);
    decompose_free(&r->d[1]);
}

static void sum_over_ranks(double *v, int n, void *ctx)
{
    (void)ctx;
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void largest_over_ranks(double *v, int n, void *ctx)
{
    (void)ctx;
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

static void share_message(char *msg, size_t len, int have, void *ctx)
{
    (void)ctx;
    halo_share_text(msg, len, have);
}

static int write_split_snapshot(void *ctx, snapshot_file *out, const sim *s, char *err, size_t err_len)
{
    (void)ctx;
    return split_output_write(out, s, err, err_len);
}

void split_run_balance(split_run *r, sim *s)
{
    if (s->step % SPLIT_BALANCE_EVERY != 0) return;
    double mine = s->force_seconds - r->force_seconds, most, sum;
    r->force_seconds = s->force_seconds;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double imbalance = sum > 0.0 ? most / (sum / r->h.n_ranks) : 1.0;
    double limit = s->cfg.rebalance > 0.0 ? s->cfg.rebalance : PARALLEL_REBALANCE;
    /* (a split waiting for its rebuild is waited for: every rank knows it) */
    if (!(imbalance > limit) || r->h.next) return;
    /* The time also counts what else the machine runs: a core shared with another job
     * slows its rank while the work is even. A fresh split evens the work by its weights
     * and nothing else, so it is made only where they are out of balance by as much. */
    double work = decompose_work_imbalance(s);
    if (work < limit) return;
    decomposition *fresh = r->h.d == &r->d[0] ? &r->d[1] : &r->d[0];
    decompose_free(fresh);
    char err[1024] = "";
    if (halo_rebalance(&r->h, s, fresh, err, sizeof err) != 0 ||
        decompose_check(s, fresh, err, sizeof err) != 0) {
        /* the split goes on as it is */
        r->h.next = NULL;
        if (r->log) fprintf(r->log, "\nnote: at step %lld the slowest rank's force loop took %.3g "
                                    "times the mean, but a new split cannot run (%s); keeping the "
                                    "present one\n", (long long)s->step, imbalance, err);
        decompose_free(fresh);
        return;
    }
    r->rebalances++;
    if (r->log) {
        fprintf(r->log, "\nat step %lld the slowest rank's force loop took %.3g times the mean "
                        "and the largest rank's work %.3g times (parallel.rebalance: %g); split "
                        "afresh, from the next rebuild on:\n",
                (long long)s->step, imbalance, work, limit);
        decompose_print(r->log, fresh);
    }
}

static void balance(void *ctx, sim *s) { split_run_balance(ctx, s); }

void split_run_driver(split_run *r, run_ranks *out)
{
    *out = (run_ranks){.sum = sum_over_ranks, .largest = largest_over_ranks, .share = share_message,
                       .write_snapshot = write_split_snapshot, .balance = balance, .ctx = r};
}

/* ------------------------------------------------ the session's view (session.h) */

/* One run split over the ranks per process: the split, its collectives for the run
 * driver, its restart by shares. */
static struct {
    split_run split;
    run_ranks driver;
    restart_share share;
    session_ranks ranks;
    const char *case_path;
    FILE *log;
} one;

static int begin_split(sim *s, char *err, size_t err_len)
{
    int rc = split_run_begin(s, &one.split, err, err_len);
    one.split.log = one.log;
    return rc;
}

static int weigh_split(sim *s, char *err, size_t err_len)
{
    return split_run_weigh(s, &one.split, err, err_len);
}

static int start_split(sim *s, char *err, size_t err_len)
{
    int rc = split_run_start(s, &one.split, NULL, err, err_len);
    one.split.log = one.log;
    return rc;
}

static int agree_restart(int failed, char *msg, size_t len, void *ctx)
{
    (void)ctx;
    return ranks_agree(failed, msg, len);
}

static int split_restart(sim *s, const int64_t *id, const double *x, size_t n, void *ctx, char *err,
                         size_t err_len)
{
    (void)ctx;
    char why[1024] = "";
    int rc = split_run_rows(s, &one.split, id, x, n, why, sizeof why);
    if (rc == 0) return 0;
    snprintf(err, err_len, "%s: %s", one.case_path, why);
    return rc;
}

static int owns_restart(const double x[3], void *ctx)
{
    (void)ctx;
    return halo_owner(&one.split.h, x) == one.split.h.self;
}

const session_ranks *split_run_session(const char *case_path, FILE *log)
{
    memset(&one, 0, sizeof one);
    one.case_path = case_path;
    one.log = log;
    split_run_driver(&one.split, &one.driver);
    one.share = (restart_share){.rank = ranks_self(), .ranks = ranks_count(), .agree = agree_restart,
                                .split = split_restart, .owns = owns_restart,
                                .hooks = &one.split.hooks};
    one.ranks = (session_ranks){.count = ranks_count(), .self = ranks_self(), .agree = ranks_agree,
                                .worst = ranks_worst, .begin = begin_split, .weigh = weigh_split,
                                .start = start_split, .share = &one.share, .driver = &one.driver};
    return &one.ranks;
}

void split_run_session_print(FILE *out)
{
    split_run_print_start(&one.split, out);
}

void split_run_session_traffic(double per_step[2], double per_rebuild[2])
{
    split_run_traffic(&one.split, per_step, per_rebuild);
}

void split_run_session_end(void)
{
    split_run_free(&one.split); /* (nothing to free when it never started) */
    memset(&one, 0, sizeof one);
}
