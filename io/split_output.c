/* The output of a split run (split_output.h).
 *
 * Each rank sends its own particles' columns (those the writer reads) and its rows of
 * the contact table (the pairs whose first particle it owns: every touching pair once,
 * its points and endpoints from that particle's side, periodic images included); rank 0
 * puts them in one store and one table and lets the writer order them by id. Rank 0
 * holds the whole snapshot once more while it writes (about 200 bytes per particle and
 * 250 per contact). */
#include "split_output.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "run_driver.h"

/* Rows of `row` bytes from every rank into rank 0's `all` (counts and displacements in
 * rows, rank 0's only). */
static void gather_rows(const void *mine, size_t n, size_t row, void *all, const int *counts,
                        const int *displs)
{
    MPI_Datatype t;
    MPI_Type_contiguous((int)row, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Gatherv(mine, (int)n, t, all, counts, displs, t, 0, MPI_COMM_WORLD);
    MPI_Type_free(&t);
}

/* The ranks' row counts (rank 0: counts, displacements and the total), agreed. */
static size_t count_rows(size_t n, int self, int *counts, int *displs)
{
    int mine = (int)n;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t total = 0;
    if (self == 0) {
        int n_ranks;
        MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
        for (int r = 0; r < n_ranks; r++) {
            displs[r] = (int)total;
            total += (size_t)counts[r];
        }
    }
    return total;
}

/* 0 on every rank if every rank's ok is nonzero. */
static int all_ok(int ok)
{
    int every = 0;
    MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return every ? 0 : -1;
}

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

/* Rank 0's copy of n particles: the columns `like` has (every rank's store has the
 * same ones), each its own allocation. Returns 0 or -1. */
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

int split_output_write(snapshot_file *out, const sim *s, char *err, size_t err_len)
{
    int self, n_ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    snapshot_state mine = run_driver_state(s);
    size_t n = s->p.n_local;
    /* this rank's rows: its particles' contact counts and its table */
    contact_table own = {0}, all = {0};
    int32_t *counts = malloc((n ? n : 1) * sizeof *counts), *all_counts = NULL;
    int *rows = malloc(2 * (size_t)n_ranks * sizeof *rows), *displs = rows ? rows + n_ranks : NULL;
    int ok = counts && rows && contact_table_build(&own, &mine) == 0;
    if (counts) snapshot_contact_counts(&mine, counts);
    if (all_ok(ok) != 0) {
        snprintf(err, err_len, "out of memory gathering a snapshot");
        free(counts);
        free(rows);
        contact_table_free(&own);
        return -1;
    }
    /* rank 0's room for everything */
    particle_store g = {0};
    double *x_at_rebuild = NULL;
    size_t total = count_rows(n, self, rows, displs);
    ok = 1;
    if (self == 0) {
        ok = alloc_store(&g, &s->p, total) == 0 &&
             (x_at_rebuild = malloc(3 * (total ? total : 1) * sizeof *x_at_rebuild)) &&
             (all_counts = malloc((total ? total : 1) * sizeof *all_counts));
    }
    int rc = all_ok(ok);
    if (rc == 0) {
        void **from[N_PARTICLE_COLUMNS], **to[N_PARTICLE_COLUMNS];
        size_t row[N_PARTICLE_COLUMNS];
        particle_columns((particle_store *)&s->p, from, row);
        particle_columns(&g, to, row);
        for (int c = 0; c < N_PARTICLE_COLUMNS; c++)
            if (*from[c]) gather_rows(*from[c], n, row[c], *to[c], rows, displs);
        gather_rows(s->x_at_rebuild, n, 3 * sizeof(double), x_at_rebuild, rows, displs);
        gather_rows(counts, n, sizeof *counts, all_counts, rows, displs);
        /* the contact table */
        size_t contacts = count_rows(own.m, self, rows, displs);
        ok = self != 0 || contact_table_alloc(&all, contacts) == 0;
        rc = all_ok(ok);
        if (rc == 0) {
            void *t_from[CONTACT_TABLE_COLUMNS], *t_to[CONTACT_TABLE_COLUMNS];
            size_t t_row[CONTACT_TABLE_COLUMNS];
            int tm = contact_table_columns(&own, t_from, t_row);
            contact_table_columns(&all, t_to, t_row);
            for (int c = 0; c < tm; c++) gather_rows(t_from[c], own.m, t_row[c], t_to[c], rows, displs);
        }
    }
    if (rc != 0) snprintf(err, err_len, "out of memory gathering a snapshot");
    if (rc == 0) {
        if (self == 0) {
            snapshot_state st = mine;
            st.p = &g;
            st.pairs = st.wall_pairs = NULL;
            st.position_at_rebuild = x_at_rebuild;
            st.contacts = &all;
            st.n_contacts = all_counts;
            st.in_id_order = 1;
            rc = snapshot_write(out, &st, err, err_len);
        }
        /* rank 0's outcome, and its message, for every rank */
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rc != 0) {
            char msg[1024] = "";
            if (self == 0) snprintf(msg, sizeof msg, "%s", err);
            MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, MPI_COMM_WORLD);
            snprintf(err, err_len, "%s", msg);
        }
    }
    free_store(&g);
    free(x_at_rebuild);
    free(all_counts);
    free(counts);
    free(rows);
    contact_table_free(&own);
    contact_table_free(&all);
    return rc;
}
