/* The ranks' own particles and ghosts (halo.h). */
#include "halo.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <zoltan.h>

#include "engine/exact_sum.h"
#include "engine/ghosts.h"
#include "engine/population.h"

/* What an entry carries at each update: position (its particle's, unshifted), velocity,
 * spin, mid-step velocity and mid-step spin. */
enum { MOTION_DOUBLES = 15 };
/* ... and once, when it is made: id and type (their bits), radius, mass, 1 / mass,
 * 1 / inertia and its shift. */
enum { ENTRY_DOUBLES = 9 + MOTION_DOUBLES };

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

static int grow(void **buf, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity) return 0;
    size_t room = need + need / 2 + 16;
    void *q = realloc(*buf, room * size);
    if (!q) return -1;
    *buf = q;
    *capacity = room;
    return 0;
}

/* Sends count[r] records of `width` doubles from h->send_buf, grouped by rank, to each
 * rank r, and receives each rank's into h->recv_buf, grouped by rank (their counts in
 * h->recv_count, their first records in h->recv_first; the total is returned in
 * *received). Adds the bytes sent to other ranks to *bytes. Returns 0 or -1. */
static int exchange_records(halo *h, const int *count, int width, size_t *received,
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
             grow((void **)&h->recv_buf, &h->recv_buf_capacity, total_in * (size_t)width,
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
            ok = grow((void **)&h->send_buf, &h->send_buf_capacity, sending * width,
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
    if (!halo_all_ok(ok) || exchange_records(h, count, (int)width, &arriving, &h->bytes_migrate) != 0) {
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
        ok = grow((void **)&h->send_buf, &h->send_buf_capacity, leaving * (size_t)width,
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
    if (!halo_all_ok(ok) || exchange_records(h, h->send_count, width, &arriving, &h->bytes_migrate) != 0) {
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

/* An entry for another rank: own particle i with the shift of its image. */
typedef struct outgoing {
    int rank;
    uint32_t i;
    double shift[3];
} outgoing;

typedef struct entry_lists {
    outgoing *out;
    size_t n_out, out_capacity;
    outgoing *images; /* this rank's own images (rank: self) */
    size_t n_images, images_capacity;
    int *seen;        /* per rank: the last entry that chose it */
    int *parts, *procs;
} entry_lists;

static int add_outgoing(outgoing **list, size_t *n, size_t *capacity, int rank, size_t i,
                        const double shift[3])
{
    if (grow((void **)list, capacity, *n + 1, sizeof **list) != 0) return -1;
    outgoing *o = &(*list)[(*n)++];
    o->rank = rank;
    o->i = (uint32_t)i;
    for (int a = 0; a < 3; a++) o->shift[a] = shift[a];
    return 0;
}

/* The ranks that need the entry of own particle i shifted by `shift` (at pe): those
 * whose part, or a periodic copy of it, lies within the cutoff of pe. A copy shifted by
 * +L along an axis can be near only if pe lies within the cutoff of the upper face or
 * beyond it (and -L the lower). Records it for each once; `serial` numbers the entry. */
static int route_entry(halo *h, const sim *s, entry_lists *e, size_t i, const double pe[3],
                       const double shift[3], int serial)
{
    const double *lo = s->cfg.domain_min, *hi = s->cfg.domain_max, cut = s->cutoff;
    double copy[3][3];
    int n_copy[3];
    for (int a = 0; a < 3; a++) {
        n_copy[a] = 0;
        copy[a][n_copy[a]++] = 0.0;
        if (!s->cfg.periodic[a]) continue;
        if (pe[a] >= hi[a] - cut) copy[a][n_copy[a]++] = hi[a] - lo[a];
        if (pe[a] <= lo[a] + cut) copy[a][n_copy[a]++] = -(hi[a] - lo[a]);
    }
    const int is_image = shift[0] != 0.0 || shift[1] != 0.0 || shift[2] != 0.0;
    for (int ux = 0; ux < n_copy[0]; ux++)
        for (int uy = 0; uy < n_copy[1]; uy++)
            for (int uz = 0; uz < n_copy[2]; uz++) {
                const double c[3] = {pe[0] - copy[0][ux], pe[1] - copy[1][uy], pe[2] - copy[2][uz]};
                int n_procs = 0, n_parts = 0;
                if (Zoltan_LB_Box_PP_Assign(h->d->zoltan, c[0] - cut, c[1] - cut, c[2] - cut,
                                            c[0] + cut, c[1] + cut, c[2] + cut, e->procs,
                                            &n_procs, e->parts, &n_parts) != ZOLTAN_OK)
                    return -1;
                for (int q = 0; q < n_parts; q++) {
                    int r = e->parts[q];
                    if (r < 0 || r >= h->n_ranks || e->seen[r] == serial) continue;
                    e->seen[r] = serial;
                    if (r != h->self) {
                        if (add_outgoing(&e->out, &e->n_out, &e->out_capacity, r, i, shift) != 0)
                            return -1;
                    } else if (is_image) {
                        if (add_outgoing(&e->images, &e->n_images, &e->images_capacity, r, i,
                                         shift) != 0)
                            return -1;
                    }
                }
            }
    return 0;
}

/* Every own particle's entries (itself and its images) routed to the ranks that need
 * them. */
static int route_entries(halo *h, const sim *s, const particle_store *p, entry_lists *e)
{
    int serial = 0;
    for (int r = 0; r < h->n_ranks; r++) e->seen[r] = -1;
    for (size_t i = 0; i < p->n_local; i++) {
        const double pos[3] = {p->x[i], p->y[i], p->z[i]}, none[3] = {0.0, 0.0, 0.0};
        double shift[GHOSTS_MAX_IMAGES][3];
        size_t n_images = ghosts_images(s, pos, shift);
        if (route_entry(h, s, e, i, pos, none, serial++) != 0) return -1;
        for (size_t q = 0; q < n_images; q++) {
            double pe[3];
            for (int a = 0; a < 3; a++) pe[a] = pos[a] + shift[q][a];
            if (route_entry(h, s, e, i, pe, shift[q], serial++) != 0) return -1;
        }
    }
    return 0;
}

/* An entry's motion: its particle's position, velocity, spin and mid-step ones. */
static void pack_motion(const particle_store *p, size_t i, double *rec)
{
    const double v[MOTION_DOUBLES] = {p->x[i],   p->y[i],   p->z[i],   p->vx[i],  p->vy[i],
                                      p->vz[i],  p->wx[i],  p->wy[i],  p->wz[i],  p->vhx[i],
                                      p->vhy[i], p->vhz[i], p->whx[i], p->why[i], p->whz[i]};
    memcpy(rec, v, sizeof v);
}

/* Remote entry g takes its particle's motion, at its position plus its shift. */
static void unpack_motion(particle_store *p, size_t g, const double *rec)
{
    const double *shift = &p->ghost_shift[3 * (g - p->n_local)];
    p->x[g] = rec[0] + shift[0]; p->y[g] = rec[1] + shift[1]; p->z[g] = rec[2] + shift[2];
    p->vx[g] = rec[3]; p->vy[g] = rec[4]; p->vz[g] = rec[5];
    p->wx[g] = rec[6]; p->wy[g] = rec[7]; p->wz[g] = rec[8];
    p->vhx[g] = rec[9]; p->vhy[g] = rec[10]; p->vhz[g] = rec[11];
    p->whx[g] = rec[12]; p->why[g] = rec[13]; p->whz[g] = rec[14];
    /* the force loop sums the pairs it lists under g here, and they go nowhere */
    p->fx[g] = p->fy[g] = p->fz[g] = 0.0;
    p->tx[g] = p->ty[g] = p->tz[g] = 0.0;
}

/* The outgoing entries grouped by rank into send_index and send_buf (whole entries). */
static int pack_entries(halo *h, const particle_store *p, const entry_lists *e)
{
    const size_t n = e->n_out;
    if (grow((void **)&h->send_index, &h->send_capacity, n + 1, sizeof *h->send_index) != 0 ||
        grow((void **)&h->send_buf, &h->send_buf_capacity, n * ENTRY_DOUBLES, sizeof(double)) != 0)
        return -1;
    memset(h->send_count, 0, (size_t)h->n_ranks * sizeof *h->send_count);
    for (size_t q = 0; q < n; q++) h->send_count[e->out[q].rank]++;
    int first = 0;
    for (int r = 0; r < h->n_ranks; r++) {
        h->send_first[r] = first;
        first += h->send_count[r];
    }
    h->send_first[h->n_ranks] = first;
    int *fill = malloc(((size_t)h->n_ranks + 1) * sizeof *fill);
    if (!fill) return -1;
    memcpy(fill, h->send_first, (size_t)h->n_ranks * sizeof *fill);
    for (size_t q = 0; q < n; q++) { /* in route order within each rank */
        const outgoing *o = &e->out[q];
        size_t slot = (size_t)fill[o->rank]++, i = o->i;
        double *rec = &h->send_buf[slot * ENTRY_DOUBLES];
        int64_t type = p->type[i];
        h->send_index[slot] = o->i;
        memcpy(&rec[0], &p->id[i], sizeof(double));
        memcpy(&rec[1], &type, sizeof(double));
        rec[2] = p->radius[i]; rec[3] = p->mass[i];
        rec[4] = p->inv_mass[i]; rec[5] = p->inv_inertia[i];
        for (int a = 0; a < 3; a++) rec[6 + a] = o->shift[a];
        pack_motion(p, i, &rec[9]);
    }
    free(fill);
    return 0;
}

/* The received entries appended as remote ghosts, then this rank's own images. */
static int unpack_entries(halo *h, const sim *s, particle_store *p, const entry_lists *e,
                          size_t received)
{
    size_t ghosts = received + e->n_images;
    if (particles_reserve(p, p->n_local + ghosts) != 0 ||
        particles_reserve_ghosts(p, ghosts) != 0)
        return -1;
    for (size_t q = 0; q < received; q++) {
        const double *rec = &h->recv_buf[q * ENTRY_DOUBLES];
        size_t g = p->n_total++, k = g - p->n_local;
        int64_t type;
        memcpy(&p->id[g], &rec[0], sizeof(double));
        memcpy(&type, &rec[1], sizeof(double));
        p->type[g] = (int32_t)type;
        p->radius[g] = rec[2]; p->mass[g] = rec[3];
        p->inv_mass[g] = rec[4]; p->inv_inertia[g] = rec[5];
        p->ghost_owner[k] = g;
        for (int a = 0; a < 3; a++) p->ghost_shift[3 * k + a] = rec[6 + a];
        unpack_motion(p, g, &rec[9]);
    }
    p->n_remote = received;
    for (size_t q = 0; q < e->n_images; q++)
        if (ghosts_add(p, e->images[q].i, e->images[q].shift) != 0) return -1;
    ghosts_update(s, p);
    return 0;
}

int halo_exchange(halo *h, const sim *s, particle_store *p)
{
    p->n_total = p->n_local;
    p->n_remote = 0;
    entry_lists e = {0};
    e.seen = malloc((size_t)h->n_ranks * sizeof *e.seen);
    e.parts = malloc((size_t)h->n_ranks * sizeof *e.parts);
    e.procs = malloc((size_t)h->n_ranks * sizeof *e.procs);
    int ok = e.seen && e.parts && e.procs && route_entries(h, s, p, &e) == 0 &&
             pack_entries(h, p, &e) == 0;
    size_t received = 0;
    h->bytes_exchange = 0;
    if ((ok = halo_all_ok(ok)) != 0) {
        ok = exchange_records(h, h->send_count, ENTRY_DOUBLES, &received, &h->bytes_exchange) == 0 &&
             unpack_entries(h, s, p, &e, received) == 0;
        ok = halo_all_ok(ok);
    }
    free(e.out);
    free(e.images);
    free(e.seen);
    free(e.parts);
    free(e.procs);
    return ok ? 0 : -1;
}

int halo_update(halo *h, particle_store *p)
{
    const size_t n = (size_t)h->send_first[h->n_ranks];
    int ok = grow((void **)&h->send_buf, &h->send_buf_capacity, n * MOTION_DOUBLES,
                  sizeof(double)) == 0;
    if (ok)
        for (size_t q = 0; q < n; q++)
            pack_motion(p, h->send_index[q], &h->send_buf[q * MOTION_DOUBLES]);
    size_t received = 0;
    h->bytes_update = 0;
    if (!halo_all_ok(ok) ||
        exchange_records(h, h->send_count, MOTION_DOUBLES, &received, &h->bytes_update) != 0)
        return -1;
    if (received != p->n_remote) return -1; /* the entries the last exchange made */
    for (size_t q = 0; q < received; q++)
        unpack_motion(p, p->n_local + q, &h->recv_buf[q * MOTION_DOUBLES]);
    return 0;
}

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
    if (halo_update(h, &s->p) != 0) return -1;
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
    if (decompose_again(s, fresh, err, err_len) != 0) return -1;
    h->next = fresh;
    return 0;
}
