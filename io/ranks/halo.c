/* The ranks' own particles (halo.h): who owns what, the records the ranks exchange,
 * and the particles that move to another rank's part with their pairs. The ghosts are
 * halo_ghosts.c's, the engine's hooks halo_hooks.c's. */
#include "halo.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <zoltan.h>

#include "halo_internal.h"
#include "engine/split.h"

int halo_all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

int halo_init(halo *h, const decomposition *d)
{
    memset(h, 0, sizeof *h);
    h->d = d;
    MPI_Comm_rank(MPI_COMM_WORLD, &h->self);
    MPI_Comm_size(MPI_COMM_WORLD, &h->n_ranks);
    size_t n = (size_t)h->n_ranks + 1;
    h->send_first = calloc(n, sizeof *h->send_first);
    h->send_count = calloc(n, sizeof *h->send_count);
    h->recv_first = calloc(n, sizeof *h->recv_first);
    h->recv_count = calloc(n, sizeof *h->recv_count);
    int ok = h->send_first && h->send_count && h->recv_first && h->recv_count;
    if (halo_all_ok(ok)) return 0;
    halo_free(h);
    return -1;
}

void halo_free(halo *h)
{
    free(h->send_first);
    free(h->send_count);
    free(h->recv_first);
    free(h->recv_count);
    free(h->send_index);
    free(h->send_buf);
    free(h->recv_buf);
    memset(h, 0, sizeof *h);
}

int halo_owner(const halo *h, const double x[3])
{
    double point[3] = {x[0], x[1], x[2]};
    int proc = -1, part = -1;
    Zoltan_LB_Point_PP_Assign(h->d->zoltan, point, &proc, &part);
    return part;
}

int halo_grow(void **buf, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity) return 0;
    size_t room = need + need / 2 + 16;
    void *q = realloc(*buf, room * size);
    if (!q) return -1;
    *buf = q;
    *capacity = room;
    return 0;
}

int halo_exchange_records(halo *h, const int *count, int width, size_t *received,
                            size_t *bytes)
{
    const int n = h->n_ranks;
    MPI_Alltoall(count, 1, MPI_INT, h->recv_count, 1, MPI_INT, MPI_COMM_WORLD);
    int *send_first = malloc(((size_t)n + 1) * sizeof *send_first);
    size_t total_in = 0, total_out = 0;
    for (int r = 0; r < n; r++) {
        h->recv_first[r] = (int)total_in;
        if (send_first) send_first[r] = (int)total_out;
        total_in += (size_t)h->recv_count[r];
        total_out += (size_t)count[r];
        if (r != h->self) *bytes += (size_t)count[r] * (size_t)width * sizeof(double);
    }
    h->recv_first[n] = (int)total_in;
    int ok = send_first &&
             halo_grow((void **)&h->recv_buf, &h->recv_buf_capacity, total_in * (size_t)width,
                  sizeof(double)) == 0;
    if (!halo_all_ok(ok)) {
        free(send_first);
        return -1;
    }
    MPI_Datatype record;
    MPI_Type_contiguous(width, MPI_DOUBLE, &record);
    MPI_Type_commit(&record);
    MPI_Alltoallv(h->send_buf, count, send_first, record, h->recv_buf, h->recv_count,
                  h->recv_first, record, MPI_COMM_WORLD);
    MPI_Type_free(&record);
    free(send_first);
    *received = total_in;
    return 0;
}

int halo_keep_own(halo *h, sim *s)
{
    particle_store *p = &s->p;
    uint8_t *away = malloc(p->n_local + 1);
    int64_t *new_index = malloc(population_removal_room(s) * sizeof *new_index);
    int ok = away && new_index && p->n_total == p->n_local;
    if (ok) {
        for (size_t i = 0; i < p->n_local; i++) {
            const double x[3] = {p->x[i], p->y[i], p->z[i]};
            away[i] = halo_owner(h, x) != h->self;
        }
        population_remove(s, away, p->n_local, new_index, POPULATION_LISTS_CARRIED);
        particles_shrink(p); /* the others' share of the arrays goes back */
    }
    free(away);
    free(new_index);
    return halo_all_ok(ok) ? 0 : -1;
}

/* A particle leaving for another rank, by id (halo_migrate). */
typedef struct leaver {
    int64_t id;
    int rank;
} leaver;

static int by_leaver_id(const void *a, const void *b)
{
    int64_t x = ((const leaver *)a)->id, y = ((const leaver *)b)->id;
    return x < y ? -1 : x > y;
}

/* The rank particle `id` leaves for, or -1 if it stays. */
static int leaves_for(const leaver *table, size_t n, int64_t id)
{
    const leaver key = {.id = id}, *hit = bsearch(&key, table, n, sizeof *table, by_leaver_id);
    return hit ? hit->rank : -1;
}

/* Sends the carried pairs of each leaving particle (its ends by id) to the rank it
 * leaves for, and appends those that arrive to the carrier: there the pairs find their
 * history at the rebuild, like the pairs that stayed (contact_list_adopt_by_id). */
static int migrate_pairs(halo *h, contact_list *c, const leaver *table, size_t n_leaving)
{
    const size_t width = contact_carried_width(c);
    int *count = calloc((size_t)h->n_ranks + 1, sizeof *count),
        *fill = calloc((size_t)h->n_ranks + 1, sizeof *fill);
    int ok = count && fill;
    size_t sending = 0;
    for (int pass = 0; pass < 2 && ok; pass++) { /* count, then pack by rank */
        if (pass == 1) {
            ok = halo_grow((void **)&h->send_buf, &h->send_buf_capacity, sending * width,
                      sizeof(double)) == 0;
            for (int r = 0, first = 0; r < h->n_ranks && ok; r++) {
                fill[r] = first;
                first += count[r];
            }
        }
        for (size_t m = 0; m < c->n && ok; m++) {
            int to[2] = {leaves_for(table, n_leaving, c->key_i[m]),
                         c->is_wall ? -1 : leaves_for(table, n_leaving, c->key_j[m])};
            if (to[1] == to[0]) to[1] = -1;
            for (int e = 0; e < 2; e++) {
                if (to[e] < 0) continue;
                if (pass == 0) {
                    count[to[e]]++;
                    sending++;
                } else {
                    contact_carried_pack(c, m, &h->send_buf[(size_t)fill[to[e]]++ * width]);
                }
            }
        }
    }
    size_t arriving = 0;
    if (!halo_all_ok(ok) || halo_exchange_records(h, count, (int)width, &arriving, &h->bytes_migrate) != 0) {
        free(count);
        free(fill);
        return -1;
    }
    ok = contact_carried_reserve(c, arriving) == 0;
    for (size_t q = 0; q < arriving && ok; q++) contact_carried_append(c, &h->recv_buf[q * width]);
    free(count);
    free(fill);
    return halo_all_ok(ok) ? 0 : -1;
}

int halo_migrate(halo *h, sim *s, contact_list *const *carriers, int n_carriers)
{
    particle_store *p = &s->p;
    const size_t n = p->n_local;
    void *array[PARTICLE_ARRAYS];
    size_t size[PARTICLE_ARRAYS];
    const int width = (int)particles_arrays(p, array, size); /* one double per array */
    int *dest = malloc((n + 1) * sizeof *dest), *fill = calloc((size_t)h->n_ranks, sizeof *fill);
    uint8_t *away = malloc(n + 1);
    int64_t *new_index = malloc(population_removal_room(s) * sizeof *new_index);
    int ok = dest && fill && away && new_index && p->n_total == p->n_local;
    size_t leaving = 0;
    if (ok) {
        memset(h->send_count, 0, (size_t)h->n_ranks * sizeof *h->send_count);
        for (size_t i = 0; i < n; i++) {
            const double x[3] = {p->x[i], p->y[i], p->z[i]};
            dest[i] = halo_owner(h, x);
            away[i] = dest[i] != h->self;
            if (away[i]) {
                h->send_count[dest[i]]++;
                leaving++;
            }
        }
        ok = halo_grow((void **)&h->send_buf, &h->send_buf_capacity, leaving * (size_t)width,
                  sizeof(double)) == 0;
    }
    if (ok) { /* each leaving particle's arrays, one double each, grouped by rank */
        for (int r = 0, first = 0; r < h->n_ranks; r++) {
            fill[r] = first;
            first += h->send_count[r];
        }
        for (size_t i = 0; i < n; i++) {
            if (!away[i]) continue;
            double *rec = &h->send_buf[(size_t)fill[dest[i]]++ * (size_t)width];
            for (int k = 0; k < width; k++)
                memcpy(&rec[k], (const char *)array[k] + i * size[k], size[k]);
        }
    }
    size_t arriving = 0;
    h->bytes_migrate = 0;
    if (!halo_all_ok(ok) || halo_exchange_records(h, h->send_count, width, &arriving, &h->bytes_migrate) != 0) {
        free(dest); free(fill); free(away); free(new_index);
        return -1;
    }
    /* the leavers by id, for their pairs (below) */
    leaver *table = malloc((leaving + 1) * sizeof *table);
    size_t n_table = 0;
    for (size_t i = 0; i < n && table; i++)
        if (away[i]) table[n_table++] = (leaver){.id = p->id[i], .rank = dest[i]};
    if (table) qsort(table, n_table, sizeof *table, by_leaver_id);
    population_remove(s, away, n, new_index, POPULATION_LISTS_CARRIED);
    ok = particles_reserve(p, p->n_local + arriving) == 0;
    if (ok) {
        particles_arrays(p, array, size); /* reserve may have moved them */
        for (size_t q = 0; q < arriving; q++) {
            const double *rec = &h->recv_buf[q * (size_t)width];
            size_t i = p->n_local + q;
            for (int k = 0; k < width; k++) memcpy((char *)array[k] + i * size[k], &rec[k], size[k]);
        }
        p->n_local += arriving;
        p->n_total = p->n_local;
    }
    free(dest); free(fill); free(away); free(new_index);
    ok = ok && table;
    /* the leavers' pairs go with them (after the particles: the exchange reuses the
     * receive buffer) */
    for (int k = 0; k < n_carriers && halo_all_ok(ok); k++)
        ok = migrate_pairs(h, carriers[k], table, n_table) == 0;
    free(table);
    return halo_all_ok(ok) ? 0 : -1;
}
