/* The output of a split run (split_output.h).
 *
 * The file lists the particles in id order, and each rank writes one block of it: rank
 * r the rows r B .. (r + 1) B - 1 (B: the particles divided by the ranks, rounded up).
 * A particle's row is its place among every rank's ids, read from a bitmap of the ids
 * the ranks reduce (next_id / 8 bytes); the particle goes to the rank whose block holds
 * that row, with its contact count and rebuild position, and each row of the contact
 * table (the pairs whose first particle a rank owns) goes where its first particle goes.
 * Every rank then holds its block, about 200 bytes per particle and 250 per contact of
 * a 1 / N share, while the ranks write it together (snapshot_write_shared). */
#include "split_output.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <mpi.h>

#include "halo.h"
#include "io/session/run_driver.h"
#include "io/output/snapshot_share.h"

/* snapshot_share's questions, asked of every rank */
static int every_ok(int ok, void *ctx)
{
    (void)ctx;
    return halo_all_ok(ok) != 0;
}

static void from_root(char *text, size_t len, void *ctx)
{
    (void)ctx;
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* ------------------------------------------------------------- rows in id order */

/* Every rank's ids as a bitmap: the place of an id among all of them in O(1). */
typedef struct id_places {
    uint64_t *bits;  /* bit id of word id / 64: some rank has that id */
    int64_t *before; /* ids in the words before each word */
    int64_t total;
} id_places;

static int64_t place_of(const id_places *ip, int64_t id)
{
    uint64_t below = ip->bits[id >> 6] & ((UINT64_C(1) << (id & 63)) - 1);
    return ip->before[id >> 6] + __builtin_popcountll(below);
}

/* Collective. Returns 0, or -1 (memory, on some rank). */
static int id_places_build(id_places *ip, const particle_store *p)
{
    memset(ip, 0, sizeof *ip);
    int64_t end = 0, all_end = 0;
    for (size_t i = 0; i < p->n_local; i++)
        if (p->id[i] + 1 > end) end = p->id[i] + 1;
    MPI_Allreduce(&end, &all_end, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    size_t words = (size_t)(all_end + 63) / 64 + 1;
    ip->bits = calloc(words, sizeof *ip->bits);
    ip->before = malloc(words * sizeof *ip->before);
    if (!every_ok(ip->bits && ip->before, NULL)) return -1;
    for (size_t i = 0; i < p->n_local; i++) ip->bits[p->id[i] >> 6] |= UINT64_C(1) << (p->id[i] & 63);
    MPI_Allreduce(MPI_IN_PLACE, ip->bits, (int)words, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD);
    int64_t sum = 0;
    for (size_t w = 0; w < words; w++) {
        ip->before[w] = sum;
        sum += __builtin_popcountll(ip->bits[w]);
    }
    ip->total = sum;
    return 0;
}

static void id_places_free(id_places *ip)
{
    free(ip->bits);
    free(ip->before);
}

/* ----------------------------------------------------------------- sending rows */

/* Where n rows go (dest[k]: a rank), and from where they come: counts and
 * displacements in rows, each rank's rows in their order here. */
typedef struct exchange {
    int *send_count, *send_at, *recv_count, *recv_at; /* n_ranks each */
    size_t *order;                                    /* n: the rows by destination */
    size_t n, received;
} exchange;

static void exchange_free(exchange *x)
{
    free(x->send_count);
    free(x->order);
    memset(x, 0, sizeof *x);
}

/* Collective. Returns 0, or -1 (memory, on some rank). */
static int exchange_plan(exchange *x, const int *dest, size_t n, int n_ranks)
{
    memset(x, 0, sizeof *x);
    x->n = n;
    x->send_count = calloc(4 * (size_t)n_ranks, sizeof *x->send_count);
    x->order = malloc((n ? n : 1) * sizeof *x->order);
    if (!every_ok(x->send_count && x->order, NULL)) {
        exchange_free(x);
        return -1;
    }
    x->send_at = x->send_count + n_ranks;
    x->recv_count = x->send_at + n_ranks;
    x->recv_at = x->recv_count + n_ranks;
    for (size_t k = 0; k < n; k++) x->send_count[dest[k]]++;
    int at = 0;
    for (int r = 0; r < n_ranks; r++) {
        x->send_at[r] = at;
        at += x->send_count[r];
    }
    /* a counting sort, stable: each rank's rows keep their order */
    int *next = x->recv_count; /* borrowed until the counts come */
    memcpy(next, x->send_at, (size_t)n_ranks * sizeof *next);
    for (size_t k = 0; k < n; k++) x->order[next[dest[k]]++] = k;
    MPI_Alltoall(x->send_count, 1, MPI_INT, x->recv_count, 1, MPI_INT, MPI_COMM_WORLD);
    x->received = 0;
    for (int r = 0; r < n_ranks; r++) {
        x->recv_at[r] = (int)x->received;
        x->received += (size_t)x->recv_count[r];
    }
    return 0;
}

/* Rows of `row` bytes from src (x->n of them) to dst (x->received), through scratch
 * (x->n rows). Collective. */
static void exchange_rows(const exchange *x, const void *src, size_t row, void *scratch, void *dst)
{
    for (size_t k = 0; k < x->n; k++)
        memcpy((char *)scratch + k * row, (const char *)src + x->order[k] * row, row);
    MPI_Datatype t;
    MPI_Type_contiguous((int)row, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Alltoallv(scratch, x->send_count, x->send_at, t, dst, x->recv_count, x->recv_at, t, MPI_COMM_WORLD);
    MPI_Type_free(&t);
}

/* ------------------------------------------------------------------ the blocks */

/* The store's columns the writer reads (snapshot.c's check_state, snapshot_data.c):
 * where each one's pointer is, and its bytes per particle. */
#define N_PARTICLE_COLUMNS 20

static void particle_columns(particle_store *p, void **member[], size_t row[])
{
    int n = 0;
#define COLUMN(a) (member[n] = (void **)&(a), row[n++] = sizeof *(a))
    COLUMN(p->id);
    COLUMN(p->type);
    COLUMN(p->radius);
    COLUMN(p->mass);
    COLUMN(p->inv_inertia);
    COLUMN(p->x); COLUMN(p->y); COLUMN(p->z);
    COLUMN(p->vx); COLUMN(p->vy); COLUMN(p->vz);
    COLUMN(p->wx); COLUMN(p->wy); COLUMN(p->wz);
    COLUMN(p->fx); COLUMN(p->fy); COLUMN(p->fz);
    COLUMN(p->tx); COLUMN(p->ty); COLUMN(p->tz);
#undef COLUMN
}

/* n particles: the columns `like` has (every rank's store has the same ones), each its
 * own allocation. Returns 0 or -1. */
static int alloc_store(particle_store *g, const particle_store *like, size_t n)
{
    memset(g, 0, sizeof *g);
    void **member[N_PARTICLE_COLUMNS], **has[N_PARTICLE_COLUMNS];
    size_t row[N_PARTICLE_COLUMNS];
    particle_columns(g, member, row);
    particle_columns((particle_store *)like, has, row);
    int ok = 1;
    for (int c = 0; c < N_PARTICLE_COLUMNS; c++)
        if (*has[c]) ok &= (*member[c] = malloc((n ? n : 1) * row[c])) != NULL;
    g->n_local = g->n_total = n;
    return ok ? 0 : -1;
}

static void free_store(particle_store *g)
{
    void **member[N_PARTICLE_COLUMNS];
    size_t row[N_PARTICLE_COLUMNS];
    particle_columns(g, member, row);
    for (int c = 0; c < N_PARTICLE_COLUMNS; c++) free(*member[c]);
    memset(g, 0, sizeof *g);
}

/* A rank's block of a snapshot: its particles with their contact counts and rebuild
 * positions, and their contact table rows. */
typedef struct block {
    particle_store p;
    double *x_at_rebuild;
    int32_t *n_contacts;
    contact_table contacts;
} block;

static void block_free(block *b)
{
    free_store(&b->p);
    free(b->x_at_rebuild);
    free(b->n_contacts);
    contact_table_free(&b->contacts);
}

/* The widest row of the table's columns and the store's, in bytes. */
static size_t widest_row(const contact_table *t)
{
    void *data[CONTACT_TABLE_COLUMNS];
    size_t row[CONTACT_TABLE_COLUMNS], widest = 3 * sizeof(double);
    int n = contact_table_columns(t, data, row);
    for (int c = 0; c < n; c++)
        if (row[c] > widest) widest = row[c];
    return widest;
}

/* Sends this rank's particles (and own, their table rows) to the ranks whose blocks
 * hold them; fills b with what comes. Collective. Returns 0, or -1 (memory). */
static int make_block(block *b, const sim *s, const contact_table *own,
                      const int32_t *counts, const id_places *ip, int n_ranks)
{
    memset(b, 0, sizeof *b);
    size_t n = s->p.n_local, m = own->m;
    int64_t per_rank = (ip->total + n_ranks - 1) / n_ranks;
    if (per_rank < 1) per_rank = 1;
    int *dest = malloc((n + m + 1) * sizeof *dest);
    size_t widest = widest_row(own);
    void *scratch = malloc((n > m ? n : m ? m : 1) * widest);
    exchange xp = {0}, xc = {0};
    int rc = -1;
    if (!every_ok(dest && scratch, NULL)) goto done;
    for (size_t i = 0; i < n; i++) dest[i] = (int)(place_of(ip, s->p.id[i]) / per_rank);
    for (size_t r = 0; r < m; r++) dest[n + r] = (int)(place_of(ip, own->id[2 * r]) / per_rank);
    if (exchange_plan(&xp, dest, n, n_ranks) != 0) goto done;
    if (exchange_plan(&xc, dest + n, m, n_ranks) != 0) goto done;
    int ok = alloc_store(&b->p, &s->p, xp.received) == 0 &&
             (b->x_at_rebuild = malloc(3 * (xp.received + 1) * sizeof *b->x_at_rebuild)) &&
             (b->n_contacts = malloc((xp.received + 1) * sizeof *b->n_contacts)) &&
             contact_table_alloc(&b->contacts, xc.received) == 0;
    if (!every_ok(ok, NULL)) goto done;
    void **from[N_PARTICLE_COLUMNS], **to[N_PARTICLE_COLUMNS];
    size_t row[N_PARTICLE_COLUMNS];
    particle_columns((particle_store *)&s->p, from, row);
    particle_columns(&b->p, to, row);
    for (int c = 0; c < N_PARTICLE_COLUMNS; c++)
        if (*from[c]) exchange_rows(&xp, *from[c], row[c], scratch, *to[c]);
    exchange_rows(&xp, s->x_at_rebuild, 3 * sizeof(double), scratch, b->x_at_rebuild);
    exchange_rows(&xp, counts, sizeof *counts, scratch, b->n_contacts);
    void *t_from[CONTACT_TABLE_COLUMNS], *t_to[CONTACT_TABLE_COLUMNS];
    size_t t_row[CONTACT_TABLE_COLUMNS];
    int tm = contact_table_columns(own, t_from, t_row);
    contact_table_columns(&b->contacts, t_to, t_row);
    for (int c = 0; c < tm; c++) exchange_rows(&xc, t_from[c], t_row[c], scratch, t_to[c]);
    rc = 0;
done:
    free(dest);
    free(scratch);
    exchange_free(&xp);
    exchange_free(&xc);
    return rc;
}

/* Where b's rows go in the file: its particles after the lower ranks', its pairs of
 * particles after theirs, its particle-wall contacts after every pair of particles and
 * the lower ranks' particle-wall contacts. Collective. */
static void place_block(snapshot_share *sh, const block *b)
{
    int64_t walls = 0;
    for (size_t r = 0; r < b->contacts.m; r++) walls += b->contacts.wall[r] != 0;
    int64_t mine[3] = {(int64_t)b->p.n_local, (int64_t)b->contacts.m - walls, walls}, before[3] = {0, 0, 0},
            total[3];
    MPI_Exscan(mine, before, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (sh->self == 0) memset(before, 0, sizeof before); /* MPI leaves rank 0's undefined */
    MPI_Allreduce(mine, total, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    sh->particles_before = before[0];
    sh->particles_total = total[0];
    for (int k = 0; k < 2; k++) {
        sh->contacts_before[k] = before[1 + k];
        sh->contacts_total[k] = total[1 + k];
    }
}

int split_output_write(snapshot_file *out, const sim *s, char *err, size_t err_len)
{
    int self, n_ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    snapshot_state mine = run_driver_state(s);
    size_t n = s->p.n_local;
    /* this rank's rows: its particles' contact counts and its table */
    contact_table own = {0};
    int32_t *counts = malloc((n ? n : 1) * sizeof *counts);
    int ok = counts && contact_table_build(&own, &mine) == 0;
    if (counts) snapshot_contact_counts(&mine, counts);
    id_places ip = {0};
    block b = {0};
    int rc = -1;
    if (!every_ok(ok, NULL) || id_places_build(&ip, &s->p) != 0 ||
        make_block(&b, s, &own, counts, &ip, n_ranks) != 0) {
        snprintf(err, err_len, "out of memory sharing a snapshot out");
        rc = FAIL_NO_MEMORY;
        goto done;
    }
    snapshot_share sh = {.fapl = H5Pcreate(H5P_FILE_ACCESS), .dxpl = H5Pcreate(H5P_DATASET_XFER),
                         .root = self == 0, .self = self, .n_processes = n_ranks,
                         .all_ok = every_ok, .from_root = from_root};
    memcpy(sh.domain_min, s->cfg.domain_min, sizeof sh.domain_min);
    memcpy(sh.domain_max, s->cfg.domain_max, sizeof sh.domain_max);
    place_block(&sh, &b);
    ok = sh.fapl >= 0 && sh.dxpl >= 0 && H5Pset_fapl_mpio(sh.fapl, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0 &&
         H5Pset_dxpl_mpio(sh.dxpl, H5FD_MPIO_COLLECTIVE) >= 0;
    if (every_ok(ok, NULL)) {
        snapshot_state st = mine;
        st.p = &b.p;
        st.pairs = st.wall_pairs = NULL;
        st.position_at_rebuild = b.x_at_rebuild;
        b.contacts.unrecorded = own.unrecorded; /* (every rank records alike) */
        st.contacts = &b.contacts;
        st.n_contacts = b.n_contacts;
        st.in_id_order = 1;
        rc = snapshot_write_shared(self == 0 ? out : NULL, &st, &sh, err, err_len);
    } else {
        snprintf(err, err_len, "cannot set up HDF5's MPI-IO driver");
    }
    if (sh.fapl >= 0) H5Pclose(sh.fapl);
    if (sh.dxpl >= 0) H5Pclose(sh.dxpl);
    /* rank 0's outcome (it also lists the file, alone; FAIL_NO_MEMORY for an allocation
     * that failed on any rank), and its message, for every rank */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != 0) {
        char msg[1024] = "";
        if (self == 0) snprintf(msg, sizeof msg, "%s", err);
        MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, MPI_COMM_WORLD);
        snprintf(err, err_len, "%s", msg);
    }
done:
    block_free(&b);
    id_places_free(&ip);
    free(counts);
    contact_table_free(&own);
    return rc;
}
