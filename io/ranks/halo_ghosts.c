/* The ranks' ghosts (halo.h: halo_exchange, halo_update): each own particle's entries
 * (itself and its periodic images) routed to the ranks whose part, or a periodic copy of
 * it, lies within the cutoff, then moved with their particles at every update. */
#include "halo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <zoltan.h>

#include "halo_internal.h"
#include "engine/split.h"

/* What an entry carries at each update: position (its particle's, unshifted), velocity,
 * spin, mid-step velocity and mid-step spin. */
enum { MOTION_DOUBLES = 15 };
/* ... and once, when it is made: id and type (their bits), radius, mass, 1 / mass,
 * 1 / inertia and its shift. */
enum { ENTRY_DOUBLES = 9 + MOTION_DOUBLES };

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
    if (halo_grow((void **)list, capacity, *n + 1, sizeof **list) != 0) return -1;
    outgoing *o = &(*list)[(*n)++];
    o->rank = rank;
    o->i = (uint32_t)i;
    for (int a = 0; a < 3; a++) o->shift[a] = shift[a];
    return 0;
}

/* x brought into [lo, hi) by whole lengths (to rounding: the routing asks a box of the
 * cutoff around it) */
static double into_range(double x, double lo, double hi)
{
    const double length = hi - lo;
    x -= floor((x - lo) / length) * length;
    return x >= hi ? x - length : x < lo ? x + length : x;
}

/* The ranks that need the entry of own particle i shifted by `shift` (at pe): those
 * whose part, or a periodic copy of it, lies within the cutoff of pe. A copy shifted by
 * +L along an axis can be near only if pe lies within the cutoff of the upper face or
 * beyond it (and -L the lower). Under Lees-Edwards a copy across the z faces is shifted
 * along x by +- the offset too (as an image is, ghosts_images), and its x copies are
 * asked from where that puts it. Records it for each once; `serial` numbers the entry. */
static int route_entry(halo *h, const sim *s, entry_lists *e, size_t i, const double pe[3],
                       const double shift[3], int serial)
{
    const double *lo = s->cfg.domain_min, *hi = s->cfg.domain_max, cut = s->cutoff;
    const int sheared = s->cfg.lees_edwards.on;
    double copy[3][3];
    int n_copy[3];
    for (int a = 1; a < 3; a++) {
        n_copy[a] = 0;
        copy[a][n_copy[a]++] = 0.0;
        if (!s->cfg.periodic[a]) continue;
        if (pe[a] >= hi[a] - cut) copy[a][n_copy[a]++] = hi[a] - lo[a];
        if (pe[a] <= lo[a] + cut) copy[a][n_copy[a]++] = -(hi[a] - lo[a]);
    }
    const int is_image = shift[0] != 0.0 || shift[1] != 0.0 || shift[2] != 0.0;
    for (int uz = 0; uz < n_copy[2]; uz++) {
        /* x of the point the copy brings pe to, before its own x copies */
        const int across_z = sheared && copy[2][uz] != 0.0;
        const double x = across_z ? into_range(pe[0] - (copy[2][uz] > 0.0 ? 1 : -1) * s->le.offset_at_rebuild,
                                               lo[0], hi[0])
                                  : pe[0];
        n_copy[0] = 0;
        copy[0][n_copy[0]++] = 0.0;
        if (s->cfg.periodic[0]) {
            if (x >= hi[0] - cut) copy[0][n_copy[0]++] = hi[0] - lo[0];
            if (x <= lo[0] + cut) copy[0][n_copy[0]++] = -(hi[0] - lo[0]);
        }
        for (int ux = 0; ux < n_copy[0]; ux++)
            for (int uy = 0; uy < n_copy[1]; uy++) {
                const double c[3] = {x - copy[0][ux], pe[1] - copy[1][uy], pe[2] - copy[2][uz]};
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
    const int wh = p->whx != NULL; /* the spins' history, where held (particles.h) */
    const double v[MOTION_DOUBLES] = {p->x[i],   p->y[i],   p->z[i],   p->vx[i],  p->vy[i],
                                      p->vz[i],  p->wx[i],  p->wy[i],  p->wz[i],  p->vhx[i],
                                      p->vhy[i], p->vhz[i], wh ? p->whx[i] : 0.0,
                                      wh ? p->why[i] : 0.0, wh ? p->whz[i] : 0.0};
    memcpy(rec, v, sizeof v);
}

/* Remote entry g takes its particle's motion, put at its position plus its shift (and
 * moved on across the z faces of a sheared box: ghosts_place_remote). */
static void unpack_motion(const sim *s, particle_store *p, size_t g, const double *rec)
{
    p->x[g] = rec[0]; p->y[g] = rec[1]; p->z[g] = rec[2];
    p->vx[g] = rec[3]; p->vy[g] = rec[4]; p->vz[g] = rec[5];
    p->wx[g] = rec[6]; p->wy[g] = rec[7]; p->wz[g] = rec[8];
    p->vhx[g] = rec[9]; p->vhy[g] = rec[10]; p->vhz[g] = rec[11];
    if (p->whx) { p->whx[g] = rec[12]; p->why[g] = rec[13]; p->whz[g] = rec[14]; }
    ghosts_place_remote(s, p, g);
    /* the force loop sums the pairs it lists under g here, and they go nowhere */
    p->fx[g] = p->fy[g] = p->fz[g] = 0.0;
    if (p->tx) p->tx[g] = p->ty[g] = p->tz[g] = 0.0;
}

/* The outgoing entries grouped by rank into send_index and send_buf (whole entries). */
static int pack_entries(halo *h, const particle_store *p, const entry_lists *e)
{
    const size_t n = e->n_out;
    if (halo_grow((void **)&h->send_index, &h->send_capacity, n + 1, sizeof *h->send_index) != 0 ||
        halo_grow((void **)&h->send_buf, &h->send_buf_capacity, n * ENTRY_DOUBLES, sizeof(double)) != 0)
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
        unpack_motion(s, p, g, &rec[9]);
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
        ok = halo_exchange_records(h, h->send_count, ENTRY_DOUBLES, &received, &h->bytes_exchange) == 0 &&
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

int halo_update(halo *h, const sim *s, particle_store *p)
{
    const size_t n = (size_t)h->send_first[h->n_ranks];
    int ok = halo_grow((void **)&h->send_buf, &h->send_buf_capacity, n * MOTION_DOUBLES,
                  sizeof(double)) == 0;
    if (ok)
        for (size_t q = 0; q < n; q++)
            pack_motion(p, h->send_index[q], &h->send_buf[q * MOTION_DOUBLES]);
    size_t received = 0;
    h->bytes_update = 0;
    if (!halo_all_ok(ok) ||
        halo_exchange_records(h, h->send_count, MOTION_DOUBLES, &received, &h->bytes_update) != 0)
        return -1;
    if (received != p->n_remote) return -1; /* the entries the last exchange made */
    for (size_t q = 0; q < received; q++)
        unpack_motion(s, p, p->n_local + q, &h->recv_buf[q * MOTION_DOUBLES]);
    return 0;
}
