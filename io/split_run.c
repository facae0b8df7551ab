/* A simulation split over the ranks (split_run.h). */
#include "split_run.h"

#include <string.h>

#include <mpi.h>

#include "split_output.h"

int split_run_start(sim *s, split_run *r, FILE *out, char *err, size_t err_len)
{
    memset(r, 0, sizeof *r);
    if (decompose(s, &r->d, err, err_len) != 0) return -1;
    if (decompose_check(s, &r->d, err, err_len) != 0 || halo_init(&r->h, &r->d) != 0) {
        if (!err[0]) snprintf(err, err_len, "out of memory");
        decompose_free(&r->d);
        return -1;
    }
    if (out) decompose_print(out, &r->d);
    halo_hooks(&r->h, &r->hooks);
    if (sim_split(s, &r->hooks, err, err_len) != 0) {
        split_run_free(r);
        return -1;
    }
    return 0;
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
    decompose_free(&r->d);
}

static void sum_over_ranks(double *v, int n, void *ctx)
{
    (void)ctx;
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void share_message(char *msg, size_t len, int have, void *ctx)
{
    (void)ctx;
    int self, n_ranks, from;
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    int mine = have ? self : n_ranks;
    MPI_Allreduce(&mine, &from, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (from < n_ranks && len > 0) MPI_Bcast(msg, (int)len, MPI_CHAR, from, MPI_COMM_WORLD);
}

static int write_split_snapshot(void *ctx, snapshot_file *out, const sim *s, char *err, size_t err_len)
{
    (void)ctx;
    return split_output_write(out, s, err, err_len);
}

void split_run_driver(run_ranks *out)
{
    *out = (run_ranks){.sum = sum_over_ranks, .share = share_message,
                       .write_snapshot = write_split_snapshot};
}
