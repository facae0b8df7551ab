/* The restart snapshot's arrays: read with their shapes checked, every value checked
 * against the case (finite, in range, consistent), then restored into the engine. The
 * limits are docs/output.md's "What a restart checks". */
#define _POSIX_C_SOURCE 200809L

#include "restart_internal.h"
#include "h5_read.h"
#include "population_h5.h"
#include "engine/ghosts.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads dataset `name` of g, which must be (rows) or (rows, cols) and store that many
 * values, into a new buffer of elem bytes per value. */
static void *read_array(const restart_file *f, int k, hid_t g, const char *name, hid_t mem_type,
                        size_t elem, size_t rows, size_t cols, char *err, size_t err_len)
{
    char why[256];
    hsize_t rest = cols;
    int64_t got = snapshot_dataset_rows(g, name, cols ? 2 : 1, &rest, why, sizeof why);
    if (got < 0) {
        restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
        return NULL;
    }
    if ((size_t)got != rows) {
        restart_refuse(f, err, err_len, "snapshot %d: dataset %s has %lld rows, its count says %zu", k, name,
                       (long long)got, rows);
        return NULL;
    }
    void *buf = malloc((rows ? rows : 1) * (cols ? cols : 1) * elem);
    hid_t d = buf ? H5Dopen2(g, name, H5P_DEFAULT) : -1;
    int ok = d >= 0 && (rows == 0 || H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    if (d >= 0) H5Dclose(d);
    if (!ok) {
        if (buf) restart_refuse(f, err, err_len, "snapshot %d: cannot read dataset %s", k, name);
        else restart_fail_memory(f, err, err_len, "snapshot %d: out of memory reading %s", k, name);
        free(buf);
        return NULL;
    }
    return buf;
}

typedef struct snap_arrays {
    int64_t *id, *contact_id, *contact_slot;
    int32_t *type;
    uint8_t *contact_wall, *contact_ended;
    double *radius, *mass, *position, *position_at_rebuild, *velocity, *angular_velocity;
    double *force, *torque;
    double *history[SIM_MAX_HISTORY_FIELDS];
    double *work, *wall_work, *wall_work_sum;
    uint8_t *inlets, *outlets;
    size_t inlets_bytes, outlets_bytes;
} snap_arrays;

static void free_arrays(snap_arrays *a)
{
    free(a->id); free(a->contact_id); free(a->contact_slot); free(a->type); free(a->contact_wall);
    free(a->contact_ended);
    free(a->radius); free(a->mass); free(a->position); free(a->position_at_rebuild); free(a->velocity);
    free(a->angular_velocity); free(a->force); free(a->torque);
    free(a->work); free(a->wall_work); free(a->wall_work_sum); free(a->inlets); free(a->outlets);
    for (int h = 0; h < SIM_MAX_HISTORY_FIELDS; h++) free(a->history[h]);
}

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The checks. Each returns 0, or -1 with the message. */
typedef struct checker {
    const restart_file *f;
    int k;            /* the snapshot */
    const sim *s;
    double reach;     /* the domain's diagonal: nothing moves that far in one step */
    char *err;
    size_t err_len;
    size_t first;     /* the snapshot's row of the arrays' row 0 (they hold a chunk) */
} checker;

static int bad(const checker *c, const char *what, size_t row, double value, const char *limit)
{
    return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s[%zu] is %.17g; %s", c->k, what,
                          c->first + row, value, limit);
}

static int check_particles(const checker *c, const snap_arrays *a, size_t n, int64_t next_id)
{
    const sim *s = c->s;
    double dt = c->f->dt;
    for (size_t r = 0; r < n; r++) {
        if (a->id[r] < 0 || (next_id >= 0 && a->id[r] >= next_id))
            return bad(c, "id", r, (double)a->id[r], "ids are >= 0 and below engine@next_id");
        if (a->type[r] < 0 || a->type[r] >= s->n_materials)
            return bad(c, "type", r, a->type[r], "a material index of the case");
        if (!isfinite(a->radius[r]) || !(a->radius[r] > 0.0))
            return bad(c, "radius", r, a->radius[r], "a radius is finite and > 0 m");
        if (!isfinite(a->mass[r]) || !(a->mass[r] > 0.0))
            return bad(c, "mass", r, a->mass[r], "a mass is finite and > 0 kg");
        for (int ax = 0; ax < 3; ax++) {
            double lo = s->cfg.domain_min[ax], hi = s->cfg.domain_max[ax], len = hi - lo;
            double x = a->position[3 * r + ax], x0 = a->position_at_rebuild[3 * r + ax];
            if (!isfinite(x) || x < lo - len || x > hi + len) {
                char limit[160];
                snprintf(limit, sizeof limit, "a centre is within the domain grown by its size on each side "
                         "(%g .. %g m along %c)", lo - len, hi + len, "xyz"[ax]);
                return bad(c, "position", r, x, limit);
            }
            /* +inf: the engine's mark of a list to rebuild at the next step */
            if (isnan(x0) || (isfinite(x0) ? x0 < lo - len || x0 > hi + len : x0 < 0.0)) {
                char limit[160];
                snprintf(limit, sizeof limit, "within %g .. %g m along %c (or +inf)", lo - len, hi + len,
                         "xyz"[ax]);
                return bad(c, "position_at_rebuild", r, x0, limit);
            }
        }
        const double *v = a->velocity + 3 * r, *w = a->angular_velocity + 3 * r;
        const double *fo = a->force + 3 * r, *t = a->torque + 3 * r;
        double speed = norm3(v), spin = norm3(w), acc = norm3(fo) / a->mass[r];
        /* I = 2/5 m r^2: the surface's acceleration from the torque */
        double spin_acc = norm3(t) / (0.4 * a->mass[r] * a->radius[r]);
        if (!isfinite(speed) || speed * dt > c->reach)
            return bad(c, "|velocity|", r, speed, "a particle does not cross the domain in one step");
        if (!isfinite(spin) || spin * a->radius[r] * dt > c->reach)
            return bad(c, "|angular_velocity|", r, spin, "a surface does not move across the domain in one step");
        if (!isfinite(acc) || acc * dt * dt > c->reach)
            return bad(c, "|force| / mass", r, acc, "a force does not move a particle across the domain in one step");
        if (!isfinite(spin_acc) || spin_acc * dt * dt > c->reach)
            return bad(c, "|torque| / (I / radius)", r, spin_acc,
                       "a torque does not move a surface across the domain in one step");
    }
    return 0;
}

static int find_sorted(const int64_t *sorted, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && sorted[lo] == id;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* ids: every particle id of the snapshot, sorted. */
static int check_contacts(const checker *c, const snap_arrays *a, const int64_t *ids, size_t n, size_t m)
{
    int rc = 0;
    for (size_t r = 0; r < m && rc == 0; r++) {
        int64_t i = a->contact_id[2 * r], j = a->contact_id[2 * r + 1];
        uint8_t wall = a->contact_wall[r];
        if (wall > 1) rc = bad(c, "contacts/wall", r, wall, "it is 0 or 1");
        else if (a->contact_ended[r] > 2)
            rc = bad(c, "contacts/ended", r, a->contact_ended[r], "it is 0, 1 or 2");
        else if (!find_sorted(ids, n, i)) rc = bad(c, "contacts/id", r, (double)i, "not a particle of the snapshot");
        else if (!wall && !find_sorted(ids, n, j))
            rc = bad(c, "contacts/id (second)", r, (double)j, "not a particle of the snapshot");
        else if (wall && (j < 0 || (size_t)j >= c->s->walls.n))
            rc = bad(c, "contacts/id (wall)", r, (double)j, "not a wall of the case");
        else if (a->contact_slot[r] < 0 || a->contact_slot[r] > RESTART_MAX_ROWS)
            rc = bad(c, "contacts/slot", r, (double)a->contact_slot[r], "it is in 0 .. 2^31");
        for (int h = 0; h < sim_n_pair_history && rc == 0; h++) {
            const pair_history_field *hf = &sim_pair_history[h];
            for (int comp = 0; comp < hf->count && rc == 0; comp++) {
                double v = a->history[h][r * (size_t)hf->count + (size_t)comp];
                char what[96];
                snprintf(what, sizeof what, "contacts/%s[:, %d]", hf->name, comp);
                if (!isfinite(v)) rc = bad(c, what, r, v, "history is finite");
                /* the microslip branch: 0 loading, 1 unloading, 2 reloading */
                else if (!strcmp(hf->name, "tangential_slip") && comp == 0 && v != 0.0 && v != 1.0 && v != 2.0)
                    rc = bad(c, what, r, v, "the branch is 0, 1 or 2");
            }
        }
    }
    return rc;
}

/* The inlets' and outlets' states (population_h5.h): each field in its range. */
static int check_population(const checker *c, const snap_arrays *a, double time, int64_t next_id)
{
    const sim *s = c->s;
    double dt = c->f->dt;
    for (int q = 0; q < s->cfg.n_inlets; q++) {
        inlet_state st;
        memcpy(&st, a->inlets + (size_t)q * sizeof st, sizeof st);
        const inlet_spec *in = &s->cfg.inlets[q];
        double interval = in->interval > 0.0 ? in->interval : 100.0 * dt;
        char what[64];
        snprintf(what, sizeof what, "engine/inlets: inlet %d", q);
        if (memcmp(&st.rate, &s->inlets[q].rate, sizeof st.rate))
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: rate is %.17g particles/s; the "
                                  "case gives %.17g", c->k, what, st.rate, s->inlets[q].rate);
        double most = st.rate * (interval + 2.0 * dt) + 2.0;
        if (!isfinite(st.due) || st.due < 0.0 || st.due > most)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: particles owed is %g; at most "
                                  "rate x (interval + 2 dt) + 2 = %g", c->k, what, st.due, most);
        double latest = fmax(in->start, time) + interval + dt;
        if (!isfinite(st.next_time) || st.next_time < in->start || st.next_time > latest)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: next insertion at %g s; it is "
                                  "in %g .. %g s", c->k, what, st.next_time, in->start, latest);
        if (st.inserted < 0 || st.failed < 0 || (double)st.inserted > (double)next_id)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: %ld inserted, %ld failed; "
                                  "counts are >= 0 and inserted <= engine@next_id", c->k, what, st.inserted,
                                  st.failed);
        if (!isfinite(st.mass_inserted) || st.mass_inserted < 0.0)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: mass inserted is %g kg; it is "
                                  "finite and >= 0", c->k, what, st.mass_inserted);
    }
    for (int q = 0; q < s->cfg.n_outlets; q++) {
        outlet_state st;
        memcpy(&st, a->outlets + (size_t)q * sizeof st, sizeof st);
        if (st.removed < 0 || (double)st.removed > (double)next_id || !isfinite(st.mass_removed) ||
            st.mass_removed < 0.0)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: engine/outlets: outlet %d: %ld removed, "
                                  "%g kg; counts are in 0 .. engine@next_id, masses finite and >= 0", c->k,
                                  q, st.removed, st.mass_removed);
    }
    return 0;
}

static int check_sums(const checker *c, const char *what, const double *v, size_t n)
{
    for (size_t r = 0; v && r < n; r++)
        if (!isfinite(v[r])) return bad(c, what, r, v[r], "work is finite");
    return 0;
}

/* ------------------------------------------------------------ the arrays, by chunks */

/* Rows read at a time: a restart holds a chunk of each dataset, and the rows it keeps
 * (all of them in one process; its share on each rank). */
#define RESTART_CHUNK ((size_t)65536)

enum { COL_I64, COL_I32, COL_U8, COL_F64 };

/* A per-row dataset of the snapshot and the array of snap_arrays it goes to. */
typedef struct column {
    char name[96];
    size_t offset;   /* of its pointer in snap_arrays */
    int kind;
    size_t cols;     /* values per row (1: a dataset of rank 1) */
    int absent;      /* not in the file (older files): zeros */
} column;

static size_t kind_size(int kind) { return kind == COL_I64 || kind == COL_F64 ? 8 : kind == COL_I32 ? 4 : 1; }

static hid_t kind_type(int kind)
{
    return kind == COL_I64 ? H5T_NATIVE_INT64 : kind == COL_I32 ? H5T_NATIVE_INT32
         : kind == COL_U8 ? H5T_NATIVE_UINT8 : H5T_NATIVE_DOUBLE;
}

static size_t row_bytes(const column *c) { return c->cols * kind_size(c->kind); }

static void **column_array(snap_arrays *a, const column *c) { return (void **)(void *)((char *)a + c->offset); }

#define PARTICLE_COLUMNS 10
static const column particle_columns[PARTICLE_COLUMNS] = {
    {"id", offsetof(snap_arrays, id), COL_I64, 1, 0},
    {"type", offsetof(snap_arrays, type), COL_I32, 1, 0},
    {"radius", offsetof(snap_arrays, radius), COL_F64, 1, 0},
    {"mass", offsetof(snap_arrays, mass), COL_F64, 1, 0},
    {"position", offsetof(snap_arrays, position), COL_F64, 3, 0},
    {"position_at_rebuild", offsetof(snap_arrays, position_at_rebuild), COL_F64, 3, 0},
    {"velocity", offsetof(snap_arrays, velocity), COL_F64, 3, 0},
    {"angular_velocity", offsetof(snap_arrays, angular_velocity), COL_F64, 3, 0},
    {"force", offsetof(snap_arrays, force), COL_F64, 3, 0},
    {"torque", offsetof(snap_arrays, torque), COL_F64, 3, 0},
};

#define CONTACT_COLUMNS_MAX (4 + SIM_MAX_HISTORY_FIELDS)
/* The contacts' datasets, those older files lack marked absent. Returns how many. */
static int contact_columns(hid_t g, column *c)
{
    int n = 0;
    c[n++] = (column){"contacts/id", offsetof(snap_arrays, contact_id), COL_I64, 2, 0};
    c[n++] = (column){"contacts/wall", offsetof(snap_arrays, contact_wall), COL_U8, 1, 0};
    c[n++] = (column){"contacts/slot", offsetof(snap_arrays, contact_slot), COL_I64, 1, 0};
    /* contacts/ended: absent in older files, where every pair is in contact (0) */
    c[n++] = (column){"contacts/ended", offsetof(snap_arrays, contact_ended), COL_U8, 1,
                      H5Lexists(g, "contacts/ended", H5P_DEFAULT) <= 0};
    for (int h = 0; h < sim_n_pair_history; h++) {
        const pair_history_field *hf = &sim_pair_history[h];
        column *q = &c[n++];
        *q = (column){.offset = offsetof(snap_arrays, history) + (size_t)h * sizeof(double *),
                      .kind = COL_F64, .cols = (size_t)hf->count};
        snprintf(q->name, sizeof q->name, "contacts/%s", hf->name);
        /* written before this state existed: no contact had any */
        q->absent = hf->zero_if_absent && H5Lexists(g, q->name, H5P_DEFAULT) <= 0;
    }
    return n;
}

/* Checks that each dataset is (rows) or (rows, cols) and stores that many values. */
static int check_shapes(const restart_file *f, int k, hid_t g, const column *c, int n, size_t rows,
                        char *err, size_t err_len)
{
    for (int q = 0; q < n; q++) {
        if (c[q].absent) continue;
        char why[256];
        hsize_t rest = c[q].cols;
        int64_t got = snapshot_dataset_rows(g, c[q].name, c[q].cols > 1 ? 2 : 1, &rest, why, sizeof why);
        if (got < 0) return restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
        if ((size_t)got != rows)
            return restart_refuse(f, err, err_len, "snapshot %d: dataset %s has %lld rows, its count says %zu", k,
                                  c[q].name, (long long)got, rows);
    }
    return 0;
}

/* Room for `rows` rows of each column in a (whose arrays are NULL or hold fewer). */
static int reserve_columns(snap_arrays *a, const column *c, int n, size_t rows)
{
    for (int q = 0; q < n; q++) {
        void **arr = column_array(a, &c[q]);
        void *more = realloc(*arr, (rows ? rows : 1) * row_bytes(&c[q]));
        if (!more) return -1;
        *arr = more;
    }
    return 0;
}

/* Rows first .. first + count - 1 of each column into a's rows 0 .. count - 1. */
static int read_chunk(const restart_file *f, int k, hid_t g, const column *c, int n, snap_arrays *a,
                      size_t first, size_t count, char *err, size_t err_len)
{
    for (int q = 0; q < n && count > 0; q++) {
        void *buf = *column_array(a, &c[q]);
        if (c[q].absent) {
            memset(buf, 0, count * row_bytes(&c[q]));
            continue;
        }
        int rank = c[q].cols > 1 ? 2 : 1;
        hsize_t start[2] = {first, 0}, size[2] = {count, c[q].cols};
        hid_t d = H5Dopen2(g, c[q].name, H5P_DEFAULT), fs = d >= 0 ? H5Dget_space(d) : -1;
        hid_t ms = H5Screate_simple(rank, size, NULL);
        int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, size, NULL) >= 0 &&
                 H5Dread(d, kind_type(c[q].kind), ms, fs, H5P_DEFAULT, buf) >= 0;
        if (ms >= 0) H5Sclose(ms);
        if (fs >= 0) H5Sclose(fs);
        if (d >= 0) H5Dclose(d);
        if (!ok) return restart_refuse(f, err, err_len, "snapshot %d: cannot read dataset %s", k, c[q].name);
    }
    return 0;
}

/* Row r of `from` to row q of `to`, in every column. */
static void copy_row(snap_arrays *to, size_t q, snap_arrays *from, size_t r, const column *c, int n)
{
    for (int k = 0; k < n; k++) {
        size_t b = row_bytes(&c[k]);
        memcpy((char *)*column_array(to, &c[k]) + q * b, (char *)*column_array(from, &c[k]) + r * b, b);
    }
}

/* The arrays shifted to start at row `first` (to read a chunk into its place). */
static snap_arrays shifted(snap_arrays *a, const column *c, int n, size_t first)
{
    snap_arrays v = *a;
    for (int k = 0; k < n; k++) {
        void **arr = column_array(&v, &c[k]);
        *arr = (char *)*arr + first * row_bytes(&c[k]);
    }
    return v;
}

/* ------------------------------------------------------------ the snapshot, checked */

/* A snapshot checked whole (restart_check_state), chunk by chunk, open for the rows to
 * be kept (restart_restore_state). */
/* A failure agreed over the ranks (restart_share): the message and the failure value
 * of the lowest failing rank, on every rank. Returns whether any rank failed. */
static int agreed(const restart_file *f, const restart_share *share, int failed, char *err, size_t err_len)
{
    int no_memory = f->no_memory && *f->no_memory;
    int value = !failed ? 0 : no_memory ? FAIL_NO_MEMORY : FAIL_REFUSED;
    value = share->agree(value, err, err_len, share->ctx);
    if (value == FAIL_NO_MEMORY && f->no_memory) *f->no_memory = 1;
    return value != 0;
}

struct restart_state {
    const restart_file *f;
    hid_t g;
    int k;
    double time, dt;
    int64_t step;
    size_t n, mc;
    const column *pc;
    column cc[CONTACT_COLUMNS_MAX];
    int n_cc;
    snap_arrays kept;       /* in one process every row, read in place; the engine's
                               arrays (work, inlets, outlets) either way */
    snap_arrays chunk;      /* on ranks: one chunk of the snapshot */
    int64_t *ids;           /* every particle id, sorted (the contacts' check) */
    int64_t next_id;
    double rebuild_wall_time;
    uint8_t list_stale;
};

void restart_state_free(restart_state *rs)
{
    if (!rs) return;
    free_arrays(&rs->kept);
    free_arrays(&rs->chunk);
    free(rs->ids);
    free(rs);
}

/* Every particle row, chunk by chunk: checked, its id kept (sorted after), and in one
 * process (keep) the row itself. */
static int check_particle_rows(restart_state *rs, const checker *c0, int keep, char *err, size_t err_len)
{
    checker c = *c0;
    for (size_t first = 0; first < rs->n; first += RESTART_CHUNK) {
        size_t count = rs->n - first < RESTART_CHUNK ? rs->n - first : RESTART_CHUNK;
        snap_arrays at = keep ? shifted(&rs->kept, rs->pc, PARTICLE_COLUMNS, first) : rs->chunk;
        if (read_chunk(rs->f, rs->k, rs->g, rs->pc, PARTICLE_COLUMNS, &at, first, count, err, err_len) < 0)
            return -1;
        c.first = first;
        if (check_particles(&c, &at, count, rs->next_id) < 0) return -1;
        memcpy(rs->ids + first, at.id, count * sizeof *rs->ids);
        /* files written before engine@list_stale mark a list to rebuild with +inf */
        for (size_t q = 0; q < 3 * count && !rs->list_stale; q++)
            rs->list_stale = !isfinite(at.position_at_rebuild[q]);
    }
    qsort(rs->ids, rs->n, sizeof *rs->ids, cmp_i64);
    return 0;
}

static int check_contact_rows(restart_state *rs, const checker *c0, int keep, char *err, size_t err_len)
{
    checker c = *c0;
    for (size_t first = 0; first < rs->mc; first += RESTART_CHUNK) {
        size_t count = rs->mc - first < RESTART_CHUNK ? rs->mc - first : RESTART_CHUNK;
        snap_arrays at = keep ? shifted(&rs->kept, rs->cc, rs->n_cc, first) : rs->chunk;
        if (read_chunk(rs->f, rs->k, rs->g, rs->cc, rs->n_cc, &at, first, count, err, err_len) < 0) return -1;
        c.first = first;
        if (check_contacts(&c, &at, rs->ids, rs->n, count) < 0) return -1;
    }
    return 0;
}

int restart_check_state(const restart_file *f, hid_t g, const restart_point *rp, sim *s, int keep,
                        restart_state **out, char *err, size_t err_len)
{
    *out = NULL;
    int k = rp->index;
    snapshot_meta m;
    char why[512];
    if (snapshot_meta_read(g, f->format, &m, why, sizeof why) < 0)
        return restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
    if (H5Lexists(g, "contacts", H5P_DEFAULT) <= 0 || H5Lexists(g, "engine", H5P_DEFAULT) <= 0)
        return restart_refuse(f, err, err_len, "snapshot %d has no %s group (not written by this version of "
                              "dempact?)", k, H5Lexists(g, "contacts", H5P_DEFAULT) <= 0 ? "contacts" : "engine");
    restart_state *rs = calloc(1, sizeof *rs);
    if (!rs) return restart_fail_memory(f, err, err_len, "out of memory");
    *rs = (restart_state){.f = f, .g = g, .k = k, .time = rp->time, .dt = rp->dt, .step = rp->step,
                          .n = (size_t)m.n_particles, .mc = (size_t)m.n_contacts, .next_id = -1,
                          .rebuild_wall_time = NAN};
    rs->pc = particle_columns;
    rs->n_cc = contact_columns(g, rs->cc);
    int rc = -1;
    if (check_shapes(f, k, g, rs->pc, PARTICLE_COLUMNS, rs->n, err, err_len) < 0 ||
        check_shapes(f, k, g, rs->cc, rs->n_cc, rs->mc, err, err_len) < 0)
        goto done;
    snap_arrays *a = &rs->kept;
    size_t chunk = RESTART_CHUNK;
    if (!(rs->ids = malloc((rs->n + 1) * sizeof *rs->ids)) ||
        (keep ? reserve_columns(a, rs->pc, PARTICLE_COLUMNS, rs->n) != 0 ||
                    reserve_columns(a, rs->cc, rs->n_cc, rs->mc) != 0
              : reserve_columns(&rs->chunk, rs->pc, PARTICLE_COLUMNS, chunk) != 0 ||
                    reserve_columns(&rs->chunk, rs->cc, rs->n_cc, chunk) != 0)) {
        restart_fail_memory(f, err, err_len, "out of memory");
        goto done;
    }
    if (h5_read_attr(g, "engine", "next_id", H5T_NATIVE_INT64, &rs->next_id) < 0 ||
        h5_read_attr(g, "engine", "rebuild_wall_time", H5T_NATIVE_DOUBLE, &rs->rebuild_wall_time) < 0) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@next_id or engine@rebuild_wall_time is "
                       "missing or unreadable", k);
        goto done;
    }
    /* the list to be rebuilt at the next step: engine@list_stale, or in files written
     * before it, a non-finite position_at_rebuild (check_particle_rows) */
    if (H5Aexists_by_name(g, "engine", "list_stale", H5P_DEFAULT) > 0 &&
        (h5_read_attr(g, "engine", "list_stale", H5T_NATIVE_UINT8, &rs->list_stale) < 0 ||
         rs->list_stale > 1)) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@list_stale is unreadable or not 0 "
                       "or 1", k);
        goto done;
    }
    if (rs->next_id < 0 || rs->next_id > RESTART_MAX_ROWS * 2) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@next_id is %lld; it is in 0 .. 2^32", k,
                       (long long)rs->next_id);
        goto done;
    }
    double rwt = rs->rebuild_wall_time;
    if (!isnan(rwt) && (!isfinite(rwt) || rwt < 0.0 || rwt > rp->time)) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@rebuild_wall_time is %.17g s; it is in "
                       "0 .. the snapshot's time %.17g s (or NaN)", k, rwt, rp->time);
        goto done;
    }
    a->inlets_bytes = (size_t)s->cfg.n_inlets * sizeof *s->inlets;
    a->outlets_bytes = (size_t)s->cfg.n_outlets * sizeof *s->outlets;
#define READ(field, path, n_rows) \
    if (!(a->field = read_array(f, k, g, path, H5T_NATIVE_DOUBLE, 8, n_rows, 0, err, err_len))) goto done
    READ(work, "engine/work", SIM_WORK_KINDS);
    if (s->walls.n > 0) READ(wall_work, "engine/wall_work", s->walls.n);
    if (s->walls.n > 0 && H5Lexists(g, "engine/wall_work_sum", H5P_DEFAULT) > 0) /* older files: none */
        READ(wall_work_sum, "engine/wall_work_sum", s->walls.n);
#undef READ
    if (!(a->inlets = malloc(a->inlets_bytes + 1)) || !(a->outlets = malloc(a->outlets_bytes + 1))) {
        restart_fail_memory(f, err, err_len, "out of memory");
        goto done;
    }
    if (population_h5_read_inlets(g, "engine/inlets", (inlet_state *)(void *)a->inlets,
                                  (size_t)s->cfg.n_inlets, why, sizeof why) < 0 ||
        population_h5_read_outlets(g, "engine/outlets", (outlet_state *)(void *)a->outlets,
                                   (size_t)s->cfg.n_outlets, why, sizeof why) < 0) {
        restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
        goto done;
    }
    double reach = 0.0;
    for (int ax = 0; ax < 3; ax++)
        reach += (s->cfg.domain_max[ax] - s->cfg.domain_min[ax]) * (s->cfg.domain_max[ax] - s->cfg.domain_min[ax]);
    checker c = {f, k, s, sqrt(reach), err, err_len, 0};
    if (check_particle_rows(rs, &c, keep, err, err_len) < 0 || check_contact_rows(rs, &c, keep, err, err_len) < 0 ||
        check_population(&c, a, rp->time, rs->next_id) < 0 ||
        check_sums(&c, "engine/work", a->work, SIM_WORK_KINDS) < 0 ||
        check_sums(&c, "engine/wall_work", a->wall_work, s->walls.n) < 0 ||
        check_sums(&c, "engine/wall_work_sum", a->wall_work_sum, s->walls.n) < 0)
        goto done;
    rc = 0;
done:
    if (rc == 0) *out = rs;
    else restart_state_free(rs);
    return rc;
}

/* The restart state of the rows a holds (n particles, mc contacts). */
static sim_restart_state state_of(const restart_state *rs, const snap_arrays *a, size_t n, size_t mc)
{
    sim_restart_state st = {.time = rs->time, .dt = rs->dt, .step = rs->step, .n = n, .id = a->id,
                            .type = a->type, .radius = a->radius, .mass = a->mass,
                            .position = a->position, .position_at_rebuild = a->position_at_rebuild,
                            .velocity = a->velocity, .angular_velocity = a->angular_velocity,
                            .force = a->force, .torque = a->torque, .n_contacts = mc,
                            .contact_id = a->contact_id, .contact_wall = a->contact_wall,
                            .contact_slot = a->contact_slot, .contact_ended = a->contact_ended,
                            .next_id = rs->next_id, .work = rs->kept.work,
                            .wall_work = rs->kept.wall_work, .wall_work_sum = rs->kept.wall_work_sum,
                            .inlets = rs->kept.inlets, .outlets = rs->kept.outlets,
                            .inlets_bytes = rs->kept.inlets_bytes, .outlets_bytes = rs->kept.outlets_bytes,
                            .rebuild_wall_time = rs->rebuild_wall_time, .list_stale = rs->list_stale};
    for (int h = 0; h < sim_n_pair_history; h++) st.history[h] = a->history[h];
    return st;
}

/* Where the replayed rebuild puts row r of a (restart_share): its position then, or
 * now if the list was stale, wrapped as a rebuild wraps it. */
static void replayed_at(const restart_state *rs, const sim *s, const snap_arrays *a, size_t r, double x[3])
{
    const double *from = rs->list_stale ? a->position : a->position_at_rebuild;
    for (int ax = 0; ax < 3; ax++) x[ax] = from[3 * r + ax];
    ghosts_wrap_point(s, x);
}

/* Appends the rows of the chunk (count rows) that `keep` marks to `to` (*n rows, room
 * for *cap), with their rows in the snapshot (first + q) to *rows. */
static int keep_rows(snap_arrays *to, size_t *n, size_t *cap, int64_t **rows, snap_arrays *chunk,
                     const column *c, int n_c, const uint8_t *keep, size_t first, size_t count)
{
    size_t add = 0;
    for (size_t q = 0; q < count; q++) add += keep[q];
    if (*n + add > *cap) {
        size_t room = *n + add + *n / 2 + 16;
        int64_t *more = realloc(*rows, room * sizeof *more);
        if (more) *rows = more;
        if (!more || reserve_columns(to, c, n_c, room) != 0) return -1;
        *cap = room;
    }
    for (size_t q = 0; q < count; q++)
        if (keep[q]) {
            copy_row(to, *n, chunk, q, c, n_c);
            (*rows)[(*n)++] = (int64_t)(first + q);
        }
    return 0;
}

/* On ranks: the split (restart_share.split) from each rank's block of rows, then the
 * rows of the particles this rank owns and of their contacts, restored. */
static int restore_share(restart_state *rs, sim *s, const restart_share *share, char *err, size_t err_len)
{
    const restart_file *f = rs->f;
    int k = rs->k, rc = -1;
    snap_arrays own = {0};
    int64_t *rows = NULL, *contact_rows = NULL, *own_ids = NULL;
    uint8_t *keep = malloc(RESTART_CHUNK);
    double *x = NULL;
    size_t n_own = 0, cap = 0, mc_own = 0, contact_cap = 0;
    /* this rank's block: rows n * r / N .. n * (r + 1) / N - 1 */
    size_t first = rs->n * (size_t)share->rank / (size_t)share->ranks;
    size_t count = rs->n * (size_t)(share->rank + 1) / (size_t)share->ranks - first;
    int failed = 0;
    for (size_t done = 0; !failed && done < count; done += RESTART_CHUNK) {
        size_t part = count - done < RESTART_CHUNK ? count - done : RESTART_CHUNK;
        double *more = realloc(x, 3 * (done + part) * sizeof *x);
        int64_t *ids = realloc(own_ids, (done + part + 1) * sizeof *ids);
        if (more) x = more;
        if (ids) own_ids = ids;
        if (!keep || !more || !ids) {
            failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
            break;
        }
        failed = read_chunk(f, k, rs->g, rs->pc, PARTICLE_COLUMNS, &rs->chunk, first + done, part, err, err_len) < 0;
        for (size_t q = 0; !failed && q < part; q++) {
            replayed_at(rs, s, &rs->chunk, q, &x[3 * (done + q)]);
            own_ids[done + q] = rs->chunk.id[q];
        }
    }
    if (!failed && !keep) failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    if (agreed(f, share, failed, err, err_len)) goto done;
    char sub[1024] = "";
    /* (the split's message is its own: it names the case and parallel, not the file) */
    int split = share->split(s, own_ids, x, count, share->ctx, err, err_len);
    if (split == FAIL_NO_MEMORY && f->no_memory) *f->no_memory = 1;
    failed = split != 0;
    if (agreed(f, share, failed, err, err_len)) goto done;
    free(x);
    x = NULL;
    free(own_ids);
    own_ids = NULL;
    /* the particles this rank owns, chunk by chunk */
    for (size_t at = 0; !failed && at < rs->n; at += RESTART_CHUNK) {
        size_t part = rs->n - at < RESTART_CHUNK ? rs->n - at : RESTART_CHUNK;
        failed = read_chunk(f, k, rs->g, rs->pc, PARTICLE_COLUMNS, &rs->chunk, at, part, err, err_len) < 0;
        for (size_t q = 0; !failed && q < part; q++) {
            double p[3];
            replayed_at(rs, s, &rs->chunk, q, p);
            keep[q] = share->owns(p, share->ctx);
        }
        if (!failed && keep_rows(&own, &n_own, &cap, &rows, &rs->chunk, rs->pc, PARTICLE_COLUMNS, keep, at, part) != 0)
            failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    }
    /* their contacts: those of a pair with one of them, or with a wall */
    if (!failed && !(own_ids = malloc((n_own + 1) * sizeof *own_ids)))
        failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    if (!failed) {
        memcpy(own_ids, own.id, n_own * sizeof *own_ids);
        qsort(own_ids, n_own, sizeof *own_ids, cmp_i64);
    }
    for (size_t at = 0; !failed && at < rs->mc; at += RESTART_CHUNK) {
        size_t part = rs->mc - at < RESTART_CHUNK ? rs->mc - at : RESTART_CHUNK;
        failed = read_chunk(f, k, rs->g, rs->cc, rs->n_cc, &rs->chunk, at, part, err, err_len) < 0;
        for (size_t q = 0; !failed && q < part; q++) {
            const int64_t *ab = &rs->chunk.contact_id[2 * q];
            keep[q] = find_sorted(own_ids, n_own, ab[0]) ||
                      (!rs->chunk.contact_wall[q] && find_sorted(own_ids, n_own, ab[1]));
        }
        if (!failed &&
            keep_rows(&own, &mc_own, &contact_cap, &contact_rows, &rs->chunk, rs->cc, rs->n_cc, keep, at, part) != 0)
            failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    }
    free_arrays(&rs->chunk); /* (nothing reads the file after this) */
    memset(&rs->chunk, 0, sizeof rs->chunk);
    if (agreed(f, share, failed, err, err_len)) goto done;
    /* every column exists, also with no row kept */
    if (reserve_columns(&own, rs->pc, PARTICLE_COLUMNS, n_own) != 0 ||
        reserve_columns(&own, rs->cc, rs->n_cc, mc_own) != 0 ||
        (!rows && !(rows = malloc(sizeof *rows))) || (!contact_rows && !(contact_rows = malloc(sizeof *rows))))
        failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    if (agreed(f, share, failed, err, err_len)) goto done;
    sim_restart_state st = state_of(rs, &own, n_own, mc_own);
    st.row = rows;
    st.contact_row = contact_rows;
    int restored = sim_restore_share(s, &st, share->hooks, sub, sizeof sub);
    if (restored != 0) {
        if (restored == FAIL_NO_MEMORY) restart_fail_memory(f, err, err_len, "cannot restart from snapshot %d: %s", k, sub);
        else restart_refuse(f, err, err_len, "cannot restart from snapshot %d: %s", k, sub);
        goto done;
    }
    rc = 0;
done:
    free_arrays(&own);
    free(rows);
    free(contact_rows);
    free(own_ids);
    free(keep);
    free(x);
    return rc;
}

int restart_restore_state(restart_state *rs, sim *s, const restart_share *share, char *err, size_t err_len)
{
    if (!share) {
        sim_restart_state st = state_of(rs, &rs->kept, rs->n, rs->mc);
        char sub[1024];
        int restored = sim_restore(s, &st, sub, sizeof sub);
        if (restored == FAIL_NO_MEMORY)
            return restart_fail_memory(rs->f, err, err_len, "cannot restart from snapshot %d: %s", rs->k, sub);
        if (restored != 0)
            return restart_refuse(rs->f, err, err_len, "cannot restart from snapshot %d: %s", rs->k, sub);
        return 0;
    }
    /* the file is the same on every rank, and so are the checks so far: an id twice is
     * named as sim_restore names it */
    for (size_t r = 1; r < rs->n; r++)
        if (rs->ids[r] == rs->ids[r - 1])
            return restart_refuse(rs->f, err, err_len, "cannot restart from snapshot %d: particle id %lld appears "
                                  "twice in the snapshot", rs->k, (long long)rs->ids[r]);
    return restore_share(rs, s, share, err, err_len);
}
