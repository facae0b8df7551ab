/* The restart snapshot's arrays: read with their shapes checked, every value checked
 * against the case (finite, in range, consistent), then restored into the engine. The
 * limits are docs/output.md's "What a restart checks". */
#define _POSIX_C_SOURCE 200809L

#include "restart_internal.h"
#include "h5_read.h"
#include "population_h5.h"

#include <math.h>
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
        restart_refuse(f, err, err_len, "snapshot %d: %s %s", k, buf ? "cannot read dataset" : "out of memory "
                       "reading", name);
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
} checker;

static int bad(const checker *c, const char *what, size_t row, double value, const char *limit)
{
    return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s[%zu] is %.17g; %s", c->k, what, row,
                          value, limit);
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

static int find_id(const int64_t *sorted, size_t n, int64_t id)
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

static int check_contacts(const checker *c, const snap_arrays *a, size_t n, size_t m)
{
    int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) return restart_refuse(c->f, c->err, c->err_len, "out of memory");
    memcpy(ids, a->id, n * sizeof *ids);
    qsort(ids, n, sizeof *ids, cmp_i64);
    int rc = 0;
    for (size_t r = 0; r < m && rc == 0; r++) {
        int64_t i = a->contact_id[2 * r], j = a->contact_id[2 * r + 1];
        uint8_t wall = a->contact_wall[r];
        if (wall > 1) rc = bad(c, "contacts/wall", r, wall, "it is 0 or 1");
        else if (a->contact_ended[r] > 2)
            rc = bad(c, "contacts/ended", r, a->contact_ended[r], "it is 0, 1 or 2");
        else if (!find_id(ids, n, i)) rc = bad(c, "contacts/id", r, (double)i, "not a particle of the snapshot");
        else if (!wall && !find_id(ids, n, j))
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
    free(ids);
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

int restart_load_state(const restart_file *f, hid_t g, const restart_point *rp, sim *s, char *err,
                       size_t err_len)
{
    int k = rp->index;
    snapshot_meta m;
    char why[512];
    if (snapshot_meta_read(g, f->format, &m, why, sizeof why) < 0)
        return restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
    if (m.n_particles == 0)
        return restart_refuse(f, err, err_len, "snapshot %d has no particles to restart from", k);
    if (H5Lexists(g, "contacts", H5P_DEFAULT) <= 0 || H5Lexists(g, "engine", H5P_DEFAULT) <= 0)
        return restart_refuse(f, err, err_len, "snapshot %d has no %s group (not written by this version of "
                              "dempact?)", k, H5Lexists(g, "contacts", H5P_DEFAULT) <= 0 ? "contacts" : "engine");
    size_t n = (size_t)m.n_particles, mc = (size_t)m.n_contacts;
    snap_arrays a = {0};
    int rc = -1;
#define READ(field, path, type, elem, rows, cols) \
    if (!(a.field = read_array(f, k, g, path, type, elem, rows, cols, err, err_len))) goto done
    READ(id, "id", H5T_NATIVE_INT64, 8, n, 0);
    READ(type, "type", H5T_NATIVE_INT32, 4, n, 0);
    READ(radius, "radius", H5T_NATIVE_DOUBLE, 8, n, 0);
    READ(mass, "mass", H5T_NATIVE_DOUBLE, 8, n, 0);
    READ(position, "position", H5T_NATIVE_DOUBLE, 8, n, 3);
    READ(position_at_rebuild, "position_at_rebuild", H5T_NATIVE_DOUBLE, 8, n, 3);
    READ(velocity, "velocity", H5T_NATIVE_DOUBLE, 8, n, 3);
    READ(angular_velocity, "angular_velocity", H5T_NATIVE_DOUBLE, 8, n, 3);
    READ(force, "force", H5T_NATIVE_DOUBLE, 8, n, 3);
    READ(torque, "torque", H5T_NATIVE_DOUBLE, 8, n, 3);
    READ(contact_id, "contacts/id", H5T_NATIVE_INT64, 8, mc, 2);
    READ(contact_wall, "contacts/wall", H5T_NATIVE_UINT8, 1, mc, 0);
    READ(contact_slot, "contacts/slot", H5T_NATIVE_INT64, 8, mc, 0);
    /* contacts/ended: absent in older files, where every pair is in contact (0) */
    if (H5Lexists(g, "contacts/ended", H5P_DEFAULT) > 0) {
        READ(contact_ended, "contacts/ended", H5T_NATIVE_UINT8, 1, mc, 0);
    } else if (!(a.contact_ended = calloc(mc + 1, 1))) {
        restart_refuse(f, err, err_len, "out of memory");
        goto done;
    }
    for (int h = 0; h < sim_n_pair_history; h++) {
        const pair_history_field *hf = &sim_pair_history[h];
        char path[128];
        snprintf(path, sizeof path, "contacts/%s", hf->name);
        if (hf->zero_if_absent && H5Lexists(g, path, H5P_DEFAULT) <= 0) {
            /* written before this state existed: no contact had any */
            if (!(a.history[h] = calloc(mc * (size_t)hf->count + 1, sizeof(double)))) {
                restart_refuse(f, err, err_len, "out of memory");
                goto done;
            }
            continue;
        }
        READ(history[h], path, H5T_NATIVE_DOUBLE, 8, mc, hf->count > 1 ? (size_t)hf->count : 0);
    }
    int64_t next_id = -1;
    double rebuild_wall_time = NAN;
    if (h5_read_attr(g, "engine", "next_id", H5T_NATIVE_INT64, &next_id) < 0 ||
        h5_read_attr(g, "engine", "rebuild_wall_time", H5T_NATIVE_DOUBLE, &rebuild_wall_time) < 0) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@next_id or engine@rebuild_wall_time is "
                       "missing or unreadable", k);
        goto done;
    }
    /* the list to be rebuilt at the next step: engine@list_stale, or in files written
     * before it, a non-finite position_at_rebuild (checked above to be +inf) */
    uint8_t list_stale = 0;
    if (H5Aexists_by_name(g, "engine", "list_stale", H5P_DEFAULT) > 0 &&
        (h5_read_attr(g, "engine", "list_stale", H5T_NATIVE_UINT8, &list_stale) < 0 ||
         list_stale > 1)) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@list_stale is unreadable or not 0 "
                       "or 1", k);
        goto done;
    }
    for (size_t q = 0; q < 3 * n && !list_stale; q++) list_stale = !isfinite(a.position_at_rebuild[q]);
    if (next_id < 0 || next_id > RESTART_MAX_ROWS * 2) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@next_id is %lld; it is in 0 .. 2^32", k,
                       (long long)next_id);
        goto done;
    }
    if (!isnan(rebuild_wall_time) && (!isfinite(rebuild_wall_time) || rebuild_wall_time < 0.0 ||
                                      rebuild_wall_time > rp->time)) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@rebuild_wall_time is %.17g s; it is in "
                       "0 .. the snapshot's time %.17g s (or NaN)", k, rebuild_wall_time, rp->time);
        goto done;
    }
    a.inlets_bytes = (size_t)s->cfg.n_inlets * sizeof *s->inlets;
    a.outlets_bytes = (size_t)s->cfg.n_outlets * sizeof *s->outlets;
    READ(work, "engine/work", H5T_NATIVE_DOUBLE, 8, SIM_WORK_KINDS, 0);
    if (s->walls.n > 0) READ(wall_work, "engine/wall_work", H5T_NATIVE_DOUBLE, 8, s->walls.n, 0);
    if (s->walls.n > 0 && H5Lexists(g, "engine/wall_work_sum", H5P_DEFAULT) > 0) /* older files: none */
        READ(wall_work_sum, "engine/wall_work_sum", H5T_NATIVE_DOUBLE, 8, s->walls.n, 0);
#undef READ
    if (!(a.inlets = malloc(a.inlets_bytes + 1)) || !(a.outlets = malloc(a.outlets_bytes + 1))) {
        restart_refuse(f, err, err_len, "out of memory");
        goto done;
    }
    if (population_h5_read_inlets(g, "engine/inlets", (inlet_state *)(void *)a.inlets,
                                  (size_t)s->cfg.n_inlets, why, sizeof why) < 0 ||
        population_h5_read_outlets(g, "engine/outlets", (outlet_state *)(void *)a.outlets,
                                   (size_t)s->cfg.n_outlets, why, sizeof why) < 0) {
        restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
        goto done;
    }
    double reach = 0.0;
    for (int ax = 0; ax < 3; ax++)
        reach += (s->cfg.domain_max[ax] - s->cfg.domain_min[ax]) * (s->cfg.domain_max[ax] - s->cfg.domain_min[ax]);
    checker c = {f, k, s, sqrt(reach), err, err_len};
    if (check_particles(&c, &a, n, next_id) < 0 || check_contacts(&c, &a, n, mc) < 0 ||
        check_population(&c, &a, rp->time, next_id) < 0 || check_sums(&c, "engine/work", a.work, SIM_WORK_KINDS) < 0 ||
        check_sums(&c, "engine/wall_work", a.wall_work, s->walls.n) < 0 ||
        check_sums(&c, "engine/wall_work_sum", a.wall_work_sum, s->walls.n) < 0)
        goto done;
    sim_restart_state st = {.time = rp->time, .dt = rp->dt, .step = rp->step, .n = n, .id = a.id,
                            .type = a.type, .radius = a.radius, .mass = a.mass,
                            .position = a.position, .position_at_rebuild = a.position_at_rebuild,
                            .velocity = a.velocity, .angular_velocity = a.angular_velocity,
                            .force = a.force, .torque = a.torque, .n_contacts = mc,
                            .contact_id = a.contact_id, .contact_wall = a.contact_wall,
                            .contact_slot = a.contact_slot, .contact_ended = a.contact_ended, .next_id = next_id, .work = a.work,
                            .wall_work = a.wall_work, .wall_work_sum = a.wall_work_sum,
                            .inlets = a.inlets, .outlets = a.outlets,
                            .inlets_bytes = a.inlets_bytes, .outlets_bytes = a.outlets_bytes,
                            .rebuild_wall_time = rebuild_wall_time, .list_stale = list_stale};
    for (int h = 0; h < sim_n_pair_history; h++) st.history[h] = a.history[h];
    char sub[1024];
    if (sim_restore(s, &st, sub, sizeof sub) != 0) {
        restart_refuse(f, err, err_len, "cannot restart from snapshot %d: %s", k, sub);
        goto done;
    }
    rc = 0;
done:
    free_arrays(&a);
    return rc;
}
