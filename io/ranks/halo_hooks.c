/* The engine's hooks over the ranks (halo.h: halo_hooks, sim_ghost_hooks): a rebuild's
 * ghosts, their updates, the collective questions (any, largest, the exact sums, the
 * rows every rank gathers, a shared text), the new particles each rank keeps, and a
 * rebalance. */
#include "halo.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "engine/split.h"

static int make_ghosts(sim *s, void *ctx)
{
    halo *h = ctx;
    particle_store *p = &s->p;
    p->n_total = p->n_local;
    p->n_remote = 0;
    if (h->next) { /* a rebalance waiting for this rebuild */
        h->d = h->next;
        h->next = NULL;
        h->switched++;
    }
    contact_list *carriers[2] = {&s->carry, &s->wall_carry};
    h->bytes_migrate = 0;
    int kept = h->split ? halo_migrate(h, s, carriers, 2) : halo_keep_own(h, s);
    h->split = 1;
    if (kept != 0 || halo_exchange(h, s, p) != 0) return -1;
    h->bytes_rebuilds += (double)(h->bytes_migrate + h->bytes_exchange);
    h->n_rebuilds++;
    return 0;
}

static int update_ghosts(sim *s, void *ctx)
{
    halo *h = ctx;
    if (halo_update(h, s, &s->p) != 0) return -1;
    h->bytes_updates += (double)h->bytes_update;
    h->n_updates++;
    ghosts_update(s, &s->p);
    return 0;
}

static int any_rank(int due, void *ctx)
{
    (void)ctx;
    int any = 0;
    MPI_Allreduce(&due, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static int gather_rows(const double *mine, size_t n, int width, size_t extra, int failed,
                       double **all, size_t *n_all, void *ctx)
{
    halo *h = ctx;
    *all = NULL;
    *n_all = 0;
    if (!halo_all_ok(!failed)) return -1;
    int *counts = malloc(2 * (size_t)h->n_ranks * sizeof *counts), *displs = counts ? counts + h->n_ranks : NULL;
    int values = (int)(n * (size_t)width);
    if (!halo_all_ok(counts != NULL)) {
        free(counts);
        return -1;
    }
    MPI_Allgather(&values, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (int r = 0; r < h->n_ranks; r++) {
        displs[r] = (int)total;
        total += (size_t)counts[r];
    }
    *all = malloc((total + extra * (size_t)width + 1) * sizeof **all);
    if (!halo_all_ok(*all != NULL)) {
        free(*all);
        *all = NULL;
        free(counts);
        return -1;
    }
    MPI_Allgatherv(mine, values, MPI_DOUBLE, *all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    *n_all = total / (size_t)width;
    free(counts);
    return 0;
}

/* New particles (every rank placed the same): this rank keeps those in its part. */
static int keep_own_new(sim *s, size_t first, void *ctx)
{
    halo *h = ctx;
    particle_store *p = &s->p;
    size_t n = p->n_local;
    uint8_t *drop = calloc(n + 1, 1);
    int64_t *new_index = malloc(population_removal_room(s) * sizeof *new_index);
    if (!drop || !new_index) {
        free(drop);
        free(new_index);
        return -1;
    }
    for (size_t i = first; i < n; i++) {
        double x[3] = {p->x[i], p->y[i], p->z[i]};
        drop[i] = halo_owner(h, x) != h->self;
    }
    /* only new particles go, and they come last: no older one is renumbered; the
     * touching pairs wait by id for the rebuild that follows (sim.c) */
    population_remove(s, drop, n, new_index, POPULATION_LISTS_CARRIED);
    free(drop);
    free(new_index);
    return 0;
}

static double largest_over_ranks(double x, void *ctx)
{
    (void)ctx;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return x;
}

/* Exact sums add up over the ranks digit by digit (integers: any order, the same
 * bits), each normalised first so that no digit can overflow. A few at a time through
 * a buffer on the stack: nothing to allocate, nothing that can fail on one rank. */
enum { SUMS_AT_ONCE = 64 }; /* 36 kB */
static void sum_over_ranks(exact_sum *sums, int n, void *ctx)
{
    (void)ctx;
    int64_t digits[SUMS_AT_ONCE * EXACT_SUM_LIMBS];
    int bad[SUMS_AT_ONCE];
    for (int first = 0; first < n; first += SUMS_AT_ONCE) {
        int m = n - first < SUMS_AT_ONCE ? n - first : SUMS_AT_ONCE;
        exact_sum *part = &sums[first];
        for (int q = 0; q < m; q++) {
            exact_sum_normalise(&part[q]);
            memcpy(&digits[(size_t)q * EXACT_SUM_LIMBS], part[q].digit, sizeof part[q].digit);
            bad[q] = part[q].bad;
        }
        MPI_Allreduce(MPI_IN_PLACE, digits, m * EXACT_SUM_LIMBS, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, bad, m, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        for (int q = 0; q < m; q++) {
            memcpy(part[q].digit, &digits[(size_t)q * EXACT_SUM_LIMBS], sizeof part[q].digit);
            part[q].bad = bad[q];
        }
    }
}

void halo_share_text(char *text, size_t len, int have)
{
    int self, n_ranks, from;
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    int mine = have ? self : n_ranks;
    MPI_Allreduce(&mine, &from, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (from < n_ranks && len > 0) MPI_Bcast(text, (int)len, MPI_CHAR, from, MPI_COMM_WORLD);
}

static void share_text(char *text, size_t len, int have, void *ctx)
{
    (void)ctx;
    halo_share_text(text, len, have);
}

void halo_hooks(halo *h, sim_ghost_hooks *hooks)
{
    hooks->reduce = sum_over_ranks;
    hooks->make = make_ghosts;
    hooks->update = update_ghosts;
    hooks->any = any_rank;
    hooks->largest = largest_over_ranks;
    hooks->gather = gather_rows;
    hooks->keep_own = keep_own_new;
    hooks->share = share_text;
    hooks->ctx = h;
}

int halo_rebalance(halo *h, sim *s, decomposition *fresh, char *err, size_t err_len)
{
    int rc = decompose_again(s, fresh, err, err_len);
    if (rc != 0) return rc; /* (FAIL_NO_MEMORY passed on) */
    h->next = fresh;
    return 0;
}
