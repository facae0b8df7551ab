/* One snapshot as its own HDF5 file: the particles at the root, the contact network
 * (contacts/), the engine's restart data (engine/), the walls as triangles (walls/) and
 * the .xmf's connectivity (vertex_index). Every dataset carries string attributes
 * `unit` and `meaning` (snapshot_docs.c; docs/output.md says the same, and
 * tests/e2e/layout.py checks that both agree). */
#define _POSIX_C_SOURCE 200809L

#include "population_h5.h"
#include "snapshot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A dataset of n rows of `cols` values (cols == 0: 1-D), documented by its table. */
static int column(hid_t loc, const char *group, const char *name, hid_t file_type, hid_t mem_type,
                  size_t n, size_t cols, const void *buf)
{
    const field_doc *doc = snapshot_field_doc(group, name);
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)cols};
    return sh5_dataset(loc, name, file_type, mem_type, cols ? 2 : 1, dims, buf, doc ? doc->unit : "",
                       doc ? doc->meaning : "");
}

/* A dataset of rows, of which this process writes those of part (one process: all). */
static int part_column(hid_t loc, const char *group, const char *name, hid_t file_type, hid_t mem_type,
                       const sh5_part *part, size_t cols, const void *buf)
{
    const field_doc *doc = snapshot_field_doc(group, name);
    return sh5_rows(loc, name, file_type, mem_type, (hsize_t)cols, part, buf, doc ? doc->unit : "",
                    doc ? doc->meaning : "");
}

/* part with every row count doubled (the contacts' endpoints: two rows per contact) */
static sh5_part twice(const sh5_part *p)
{
    return (sh5_part){2 * p->total, {2 * p->first[0], 2 * p->first[1]}, {2 * p->count[0], 2 * p->count[1]}};
}

/* Row r of what is written is row order[r] of the data (order NULL: row r). */
static size_t row_of(const size_t *order, size_t r) { return order ? order[r] : r; }

static const double *gather3(double *buf, size_t n, const double *a, const double *b, const double *c,
                             const size_t *order)
{
    if (!a) { /* a column the store does not hold (the torques, particles.h): zeros */
        for (size_t r = 0; r < 3 * n; r++) buf[r] = 0.0;
        return buf;
    }
    for (size_t r = 0; r < n; r++) {
        size_t i = row_of(order, r);
        buf[3 * r + 0] = a[i];
        buf[3 * r + 1] = b[i];
        buf[3 * r + 2] = c[i];
    }
    return buf;
}

/* n rows of `row` bytes of data, in the order `order` gives, in scratch (order NULL:
 * data as it is). */
static const void *in_order(const void *data, size_t row, size_t n, const size_t *order, void *scratch)
{
    if (!order) return data;
    for (size_t r = 0; r < n; r++) memcpy((char *)scratch + r * row, (const char *)data + order[r] * row, row);
    return scratch;
}

/* Sorting keys: a row's key, then its place (so equal keys keep their order). */
typedef struct row_key {
    int64_t key[4];
    size_t row;
} row_key;

static int by_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    for (int q = 0; q < 4; q++)
        if (x->key[q] != y->key[q]) return (x->key[q] > y->key[q]) - (x->key[q] < y->key[q]);
    return (x->row > y->row) - (x->row < y->row);
}

/* The order of rows by keys (4 per row), or NULL with *oom set. */
static size_t *order_by(row_key *keys, size_t n, int *oom)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order || !keys) {
        free(order);
        *oom = 1;
        return NULL;
    }
    qsort(keys, n, sizeof *keys, by_key);
    for (size_t r = 0; r < n; r++) order[r] = keys[r].row;
    return order;
}

static size_t *particles_by_id(const particle_store *p, int *oom)
{
    size_t n = p->n_local;
    row_key *keys = malloc((n ? n : 1) * sizeof *keys);
    for (size_t i = 0; keys && i < n; i++) keys[i] = (row_key){{p->id[i], 0, 0, 0}, i};
    size_t *order = order_by(keys, n, oom);
    free(keys);
    return order;
}

/* Particle-particle contacts first, each kind by its first particle's id, then by its
 * place among that particle's entries (then by the other end). */
static size_t *contacts_by_id(const contact_table *t, int *oom)
{
    row_key *keys = malloc((t->m ? t->m : 1) * sizeof *keys);
    for (size_t r = 0; keys && r < t->m; r++)
        keys[r] = (row_key){{t->wall[r], t->id[2 * r], t->slot[r], t->id[2 * r + 1]}, r};
    size_t *order = order_by(keys, t->m, oom);
    free(keys);
    return order;
}

void snapshot_contact_counts(const snapshot_state *st, int32_t *n_contacts)
{
    size_t n = st->p->n_local;
    memset(n_contacts, 0, n * sizeof *n_contacts);
    const contact_list *lists[2] = {st->pairs, st->walls ? st->wall_pairs : NULL};
    for (int L = 0; L < 2; L++) {
        const contact_list *c = lists[L];
        if (!c) continue;
        for (size_t k = 0; k < c->n; k++) {
            if (!contact_holds_force(c->touching[k])) continue;
            if (c->i[k] < n) n_contacts[c->i[k]]++;
            if (L == 0 && c->owner_j[k] < n) n_contacts[c->owner_j[k]]++;
        }
    }
}

/* Per-particle contact counts and energies, in store order. */
static void particle_extras(const snapshot_state *st, int32_t *n_contacts, double *ek, double *er)
{
    const particle_store *p = st->p;
    size_t n = p->n_local;
    if (st->n_contacts) memcpy(n_contacts, st->n_contacts, n * sizeof *n_contacts);
    else snapshot_contact_counts(st, n_contacts);
    for (size_t i = 0; i < n; i++) {
        double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        double w2 = p->wx[i] * p->wx[i] + p->wy[i] * p->wy[i] + p->wz[i] * p->wz[i];
        ek[i] = 0.5 * p->mass[i] * v2;
        er[i] = p->inv_inertia ? particles_spin_energy(w2, p->inv_inertia[i]) : 0.0;
    }
}

/* ok on every process writing (share NULL: this one's), and sh5_error set if not */
static int all_agree(const snapshot_share *share, int ok)
{
    int every = share ? share->all_ok(ok, share->ctx) : ok;
    if (!every) {
        snprintf(sh5_error, sizeof sh5_error, ok ? "another rank is out of memory" : "out of memory");
        snapshot_no_memory = 1;
    }
    return every;
}

static int write_particles(hid_t g, const snapshot_state *st, const size_t *order, const sh5_part *rows,
                           const snapshot_share *share)
{
    const particle_store *p = st->p;
    size_t n = p->n_local;
    int64_t n64 = (int64_t)rows->total;
    if (sh5_attr(g, "time", SH5_F64, 0, &st->time) < 0 || sh5_attr(g, "step", SH5_I64, 0, &st->step) < 0 ||
        sh5_attr(g, "n_particles", SH5_I64, 0, &n64) < 0)
        return -1;
    /* buf: 3 N doubles (a vector column; the energies and counts); out: 3 N more, the
     * rows in order, when there is an order */
    double *buf = malloc(3 * (n ? n : 1) * sizeof *buf);
    double *out = order ? malloc(3 * (n ? n : 1) * sizeof *out) : NULL;
    int rc = -1;
    if (!all_agree(share, buf && (!order || out))) goto done;
#define COL(name, type, cols, data) \
    if (part_column(g, "", name, type, rows, cols, data) < 0) goto done
#define COL1(name, type, data) \
    if (part_column(g, "", name, type, rows, 0, in_order(data, sizeof *(data), n, order, out)) < 0) goto done
#define COL3(name, a, b, c) \
    if (part_column(g, "", name, SH5_F64, rows, 3, gather3(buf, n, a, b, c, order)) < 0) goto done
    COL1("id", SH5_I64, p->id);
    COL1("type", SH5_I32, p->type);
    COL1("radius", SH5_F64, p->radius);
    COL1("mass", SH5_F64, p->mass);
    COL3("position", p->x, p->y, p->z);
    COL3("velocity", p->vx, p->vy, p->vz);
    COL3("angular_velocity", p->wx, p->wy, p->wz);
    COL3("force", p->fx, p->fy, p->fz);
    COL3("torque", p->tx, p->ty, p->tz);
    if (st->position_at_rebuild)
        COL("position_at_rebuild", SH5_F64, 3,
            in_order(st->position_at_rebuild, 3 * sizeof(double), n, order, out));
    /* the buffer holds 3 N doubles: N for each energy, N for the counts */
    double *ek = buf, *er = buf + n;
    int32_t *counts = (int32_t *)(void *)(buf + 2 * n);
    particle_extras(st, counts, ek, er);
    COL1("n_contacts", SH5_I32, counts);
    COL1("kinetic_energy", SH5_F64, ek);
    COL1("rotational_energy", SH5_F64, er);
#undef COL3
#undef COL1
#undef COL
    rc = 0;
done:
    free(buf);
    free(out);
    return rc;
}

static int write_contacts(hid_t g, const contact_table *t, const size_t *order, const sh5_part *rows,
                          const snapshot_share *share)
{
    hid_t c = sh5_group(g, "contacts");
    if (c < 0) return -1;
    int64_t m64 = (int64_t)rows->total;
    size_t m = t->m;
    sh5_part ends = twice(rows);
    int rc = -1;
    /* the widest row: the endpoints' 6 doubles, or a history field's */
    size_t widest = 6;
    for (int h = 0; h < sim_n_pair_history; h++)
        if ((size_t)sim_pair_history[h].count > widest) widest = (size_t)sim_pair_history[h].count;
    double *out = order ? malloc(widest * (m ? m : 1) * sizeof *out) : NULL;
    if (!all_agree(share, !order || out)) goto done;
#define COL(name, type, part, cols, data) \
    if (part_column(c, "contacts", name, type, part, cols, \
                    in_order(data, (cols ? cols : 1) * sizeof *(data), m, order, out)) < 0) goto done
    uint8_t recorded = !t->unrecorded;
    if (sh5_attr(c, "n_contacts", SH5_I64, 0, &m64) < 0 ||
        sh5_attr(c, "forces_recorded", SH5_U8, 0, &recorded) < 0)
        goto done;
    COL("id", SH5_I64, rows, 2, t->id);
    COL("wall", SH5_U8, rows, 0, t->wall);
    COL("slot", SH5_I64, rows, 0, t->slot);
    COL("ended", SH5_U8, rows, 0, t->ended);
    COL("point", SH5_F64, rows, 3, t->point);
    COL("normal", SH5_F64, rows, 3, t->normal);
    COL("overlap", SH5_F64, rows, 0, t->overlap);
    COL("normal_force", SH5_F64, rows, 0, t->normal_force);
    COL("normal_force_vector", SH5_F64, rows, 3, t->normal_force_vector);
    COL("tangential_force", SH5_F64, rows, 3, t->tangential_force);
    /* two rows per contact, in the contact's place */
    if (part_column(c, "contacts", "endpoints", SH5_F64, &ends, 3,
                    in_order(t->endpoints, 6 * sizeof *t->endpoints, m, order, out)) < 0)
        goto done;
    for (int h = 0; h < sim_n_pair_history; h++) {
        const pair_history_field *hf = &sim_pair_history[h];
        size_t cols = hf->count > 1 ? (size_t)hf->count : 0;
        COL(hf->name, SH5_F64, rows, cols, t->history[h]);
    }
#undef COL
    rc = 0;
done:
    free(out);
    if (sh5_close(H5Gclose, c) < 0) rc = -1;
    return rc;
}

/* The engine's state besides particles and contacts, for a restart. */
static int write_engine(hid_t g, const sim *s)
{
    hid_t e = sh5_group(g, "engine");
    if (e < 0) return -1;
    int rc = -1;
    int64_t next_id = s->p.next_id;
    uint8_t stale = (uint8_t)(s->list_stale != 0);
#define COL(name, type, rows, data) \
    if (column(e, "engine", name, type, rows, 0, data) < 0) goto done
    if (sh5_attr(e, "next_id", SH5_I64, 0, &next_id) < 0 ||
        sh5_attr(e, "rebuild_wall_time", SH5_F64, 0, &s->rebuild_wall_time) < 0 ||
        sh5_attr(e, "list_stale", SH5_U8, 0, &stale) < 0)
        goto done;
    double shear[SIM_LEES_EDWARDS_STATE]; /* a sheared box's restart state */
    if (s->cfg.lees_edwards.on) sim_lees_edwards_state(s, shear);
    if (s->cfg.lees_edwards.on && sh5_attr(e, "lees_edwards", SH5_F64, SIM_LEES_EDWARDS_STATE, shear) < 0) goto done;
    COL("work", SH5_F64, SIM_WORK_KINDS, s->work);
    if (s->walls.n > 0 && s->walls.work) {
        COL("wall_work", SH5_F64, s->walls.n, s->walls.work);
        COL("wall_work_sum", SH5_F64, s->walls.n, s->walls.work_sum);
    }
    if (snapshot_write_servo(e, &s->walls) < 0) goto done;
#undef COL
    const field_doc *in = snapshot_field_doc("engine", "inlets"),
                    *out = snapshot_field_doc("engine", "outlets");
    if (population_h5_write_inlets(e, "inlets", s->inlets, (size_t)s->cfg.n_inlets,
                                   in ? in->meaning : "") < 0 ||
        population_h5_write_outlets(e, "outlets", s->outlets, (size_t)s->cfg.n_outlets,
                                    out ? out->meaning : "") < 0)
        goto done;
    rc = 0;
done:
    if (sh5_close(H5Gclose, e) < 0) rc = -1;
    return rc;
}

static int write_walls(hid_t g, const wall_triangles *w)
{
    hid_t c = sh5_group(g, "walls");
    if (c < 0) return -1;
    int rc = -1;
    if (column(c, "walls", "vertices", SH5_F64, w->n_vertices, 3, w->vertices) < 0 ||
        column(c, "walls", "triangles", SH5_I64, w->n_triangles, 3, w->corners) < 0 ||
        column(c, "walls", "wall", SH5_I32, w->n_triangles, 0, w->wall) < 0)
        goto done;
    rc = 0;
done:
    if (sh5_close(H5Gclose, c) < 0) rc = -1;
    return rc;
}

/* 0, 1, 2, ... of length len (at least 1); written together, each process writes an
 * equal share. */
static int write_vertex_index(hid_t g, int64_t len, const snapshot_share *share)
{
    if (len < 1) len = 1;
    int64_t self = share ? share->self : 0, np = share ? share->n_processes : 1;
    int64_t first = len * self / np, count = len * (self + 1) / np - first;
    int64_t *v = malloc((size_t)(count ? count : 1) * sizeof *v);
    if (!all_agree(share, v != NULL)) {
        free(v);
        return -1;
    }
    for (int64_t i = 0; i < count; i++) v[i] = first + i;
    sh5_part part = {(hsize_t)len, {(hsize_t)first, 0}, {(hsize_t)count, 0}};
    int rc = part_column(g, "", "vertex_index", SH5_I64, &part, 0, v);
    free(v);
    return rc;
}

static int64_t max3(int64_t a, int64_t b, int64_t c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The rows of the particles and of the contacts this process writes: all of them, or
 * (written together) its block; a shared table lists its pairs of particles first. */
static void parts_of(const snapshot_share *share, size_t n, const contact_table *t, sh5_part *particles,
                     sh5_part *contacts)
{
    if (!share) {
        *particles = (sh5_part){n, {0, 0}, {n, 0}};
        *contacts = (sh5_part){t->m, {0, 0}, {t->m, 0}};
        return;
    }
    size_t walls = 0;
    for (size_t r = 0; r < t->m; r++) walls += t->wall[r] != 0;
    const int64_t *before = share->contacts_before, *total = share->contacts_total;
    *particles = (sh5_part){(hsize_t)share->particles_total, {(hsize_t)share->particles_before, 0}, {n, 0}};
    *contacts = (sh5_part){(hsize_t)(total[0] + total[1]),
                           {(hsize_t)before[0], (hsize_t)(total[0] + before[1])},
                           {t->m - walls, walls}};
}

int snapshot_data_write(const char *path, const snapshot_state *st, const snapshot_share *share,
                        const double box_min[3], const double box_max[3], snapshot_meta *m, char *err,
                        size_t err_len)
{
    contact_table built = {0};
    const contact_table *t = st->contacts ? st->contacts : &built;
    wall_triangles w = {0};
    size_t *particle_order = NULL, *contact_order = NULL;
    int oom = !st->contacts && contact_table_build(&built, st) < 0;
    if (!oom && st->walls && wall_triangles_build(&w, st->walls, st->time, box_min, box_max) < 0) oom = 1;
    /* a shared block is written in id order: its rows' place in the file */
    if (!oom && (st->in_id_order || share)) {
        particle_order = particles_by_id(st->p, &oom);
        if (!oom) contact_order = contacts_by_id(t, &oom);
    }
    if (share) oom = !share->all_ok(!oom, share->ctx);
    if (oom) {
        free(particle_order);
        free(contact_order);
        contact_table_free(&built);
        wall_triangles_free(&w);
        snapshot_set_no_memory(err, err_len, "out of memory");
        return -1;
    }
    sh5_part particles, contacts;
    parts_of(share, st->p->n_local, t, &particles, &contacts);
    h5_quiet q;
    h5_quiet_begin(&q);
    sh5_share(share);
    int64_t len = max3((int64_t)particles.total, 2 * (int64_t)contacts.total, 1);
    hid_t f = sh5_create_file(path);
    int ok = f >= 0 && write_particles(f, st, particle_order, &particles, share) == 0 &&
             write_contacts(f, t, contact_order, &contacts, share) == 0 &&
             (!st->engine || write_engine(f, st->engine) == 0) &&
             (!st->walls || st->walls->n == 0 || write_walls(f, &w) == 0) &&
             write_vertex_index(f, len, share) == 0;
    /* written together, every rank's data goes to the disk (MPI_File_sync) before the
     * root renames the file into place: one process's fsync would cover only its own
     * writes on a file system shared by several machines */
    if (share && ok && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) {
        sh5_capture_error();
        ok = 0;
    }
    if (sh5_close(H5Fclose, f) < 0) ok = 0;
    sh5_share(NULL);
    if (share) ok = share->all_ok(ok, share->ctx);
    h5_quiet_end(&q);
    if (!ok) snapshot_set_err(err, err_len, "cannot write '%s': %s", path, sh5_error);
    else
        *m = (snapshot_meta){.time = st->time, .step = st->step, .n_particles = (int64_t)particles.total,
                             .n_contacts = (int64_t)contacts.total, .n_wall_vertices = (int64_t)w.n_vertices,
                             .n_wall_triangles = (int64_t)w.n_triangles, .vertex_len = len,
                             .bytes = file_size(path)};
    free(particle_order);
    free(contact_order);
    contact_table_free(&built);
    wall_triangles_free(&w);
    if (!ok && (!share || share->root)) unlink(path);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------- a format-2 snapshot */

typedef struct copy_ctx {
    hid_t dst;
    const char *group; /* "" (the snapshot's root), "contacts", "engine" */
    int failed;
} copy_ctx;

/* Copies one member of a format-2 snapshot group and documents it. */
/* An integer or a float, or a compound of them (engine/inlets: population_h5.h). */
static int numeric_type(hid_t t)
{
    H5T_class_t cls = H5Tget_class(t);
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) return 1;
    if (cls != H5T_COMPOUND) return 0;
    int n = H5Tget_nmembers(t), ok = n > 0;
    for (int k = 0; ok && k < n; k++) {
        H5T_class_t m = H5Tget_member_class(t, (unsigned)k);
        ok = m == H5T_INTEGER || m == H5T_FLOAT;
    }
    return ok;
}

static herr_t copy_member(hid_t src, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    copy_ctx *c = data;
    H5O_info_t oi;
    if (H5Oget_info_by_name(src, name, &oi, H5P_DEFAULT) < 0) goto bad;
    if (oi.type == H5O_TYPE_GROUP) {
        hid_t s = H5Gopen2(src, name, H5P_DEFAULT), d = sh5_group(c->dst, name);
        copy_ctx sub = {d, name, 0};
        int ok = s >= 0 && d >= 0;
        /* the group's attributes (n_contacts, next_id, rebuild_wall_time, list_stale) */
        for (hsize_t k = 0; ok && k < oi.num_attrs; k++) {
            char an[64];
            hid_t a = H5Aopen_by_idx(s, ".", H5_INDEX_NAME, H5_ITER_INC, k, H5P_DEFAULT, H5P_DEFAULT);
            hid_t ty = a >= 0 ? H5Aget_type(a) : -1, sp = a >= 0 ? H5Aget_space(a) : -1;
            double v[8];
            ok = a >= 0 && ty >= 0 && sp >= 0 && H5Aget_name(a, sizeof an, an) > 0 &&
                 H5Tget_size(ty) <= 8 && H5Sget_simple_extent_npoints(sp) == 1 &&
                 H5Aread(a, ty, v) >= 0;
            hid_t na = ok ? H5Acreate2(d, an, ty, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
            ok = ok && na >= 0 && H5Awrite(na, ty, v) >= 0;
            if (na >= 0) H5Aclose(na);
            if (sp >= 0) H5Sclose(sp);
            if (ty >= 0) H5Tclose(ty);
            if (a >= 0) H5Aclose(a);
        }
        ok = ok && H5Literate(s, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_member, &sub) >= 0 && !sub.failed;
        if (s >= 0) H5Gclose(s);
        if (d >= 0 && H5Gclose(d) < 0) ok = 0;
        if (!ok) goto bad;
        return 0;
    }
    /* numbers only: copying anything else (a variable-length type) would read HDF5's
     * global heap, which HDF5 does not survive damaged (io/output/h5_read.c) */
    hid_t sd = H5Dopen2(src, name, H5P_DEFAULT), st = sd >= 0 ? H5Dget_type(sd) : -1;
    int numeric = st >= 0 && numeric_type(st);
    if (st >= 0) H5Tclose(st);
    if (sd >= 0) H5Dclose(sd);
    if (!numeric) {
        snprintf(sh5_error, sizeof sh5_error, "dataset %s%s%s is not numeric", c->group, c->group[0] ? "/" : "",
                 name);
        c->failed = 1;
        return -1;
    }
    if (H5Ocopy(src, name, c->dst, name, H5P_DEFAULT, H5P_DEFAULT) < 0) goto bad;
    const field_doc *doc = snapshot_field_doc(c->group, name);
    hid_t d = H5Dopen2(c->dst, name, H5P_DEFAULT);
    int ok = d >= 0 && (H5Aexists(d, "unit") > 0 || sh5_string_attr(d, "unit", doc ? doc->unit : "") == 0) &&
             (H5Aexists(d, "meaning") > 0 || sh5_string_attr(d, "meaning", doc ? doc->meaning : "") == 0);
    if (d >= 0) H5Dclose(d);
    if (!ok) goto bad;
    return 0;
bad:
    sh5_capture_error();
    c->failed = 1;
    return -1;
}

int snapshot_data_convert(hid_t src, const char *path, const wall_set *ws, const double box_min[3],
                          const double box_max[3], snapshot_meta *m, char *err, size_t err_len)
{
    char why[512];
    if (snapshot_meta_read(src, 2, m, why, sizeof why) < 0) {
        snapshot_set_err(err, err_len, "%s", why);
        return -1;
    }
    wall_triangles w = {0};
    if (ws && wall_triangles_build(&w, ws, m->time, box_min, box_max) < 0) {
        snapshot_set_no_memory(err, err_len, "out of memory");
        return -1;
    }
    h5_quiet q;
    h5_quiet_begin(&q);
    hid_t f = sh5_create_file(path);
    copy_ctx c = {f, "", 0};
    int64_t n = m->n_particles;
    int ok = f >= 0 && sh5_attr(f, "time", SH5_F64, 0, &m->time) == 0 &&
             sh5_attr(f, "step", SH5_I64, 0, &m->step) == 0 && sh5_attr(f, "n_particles", SH5_I64, 0, &n) == 0 &&
             H5Literate(src, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_member, &c) >= 0 && !c.failed &&
             (!ws || ws->n == 0 || write_walls(f, &w) == 0);
    m->vertex_len = max3(m->n_particles, 2 * m->n_contacts, 1);
    ok = ok && write_vertex_index(f, m->vertex_len, NULL) == 0;
    if (sh5_close(H5Fclose, f) < 0) ok = 0;
    h5_quiet_end(&q);
    m->n_wall_vertices = (int64_t)w.n_vertices;
    m->n_wall_triangles = (int64_t)w.n_triangles;
    m->bytes = file_size(path);
    wall_triangles_free(&w);
    if (!ok) {
        snapshot_set_err(err, err_len, "cannot write '%s': %s", path, sh5_error);
        unlink(path);
        return -1;
    }
    return 0;
}
