/* Reading a snapshot back into the engine. See restart.h. */
#define _POSIX_C_SOURCE 200809L

#include "restart.h"

#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "h5_read.h"
#include "snapshot_journal.h"

static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ case comparison */

/* Keys a restart may change (dotted paths from the document's root). */
static const char *const free_keys[] = {"name", "time.end", "time.output_interval",
                                        "time.timeseries_interval"};

static int is_free(const char *path)
{
    for (size_t k = 0; k < sizeof free_keys / sizeof free_keys[0]; k++)
        if (!strcmp(path, free_keys[k])) return 1;
    return 0;
}

static int parse_number(const char *s, double *v)
{
    char *end;
    if (!*s) return 0;
    *v = strtod(s, &end);
    return *end == '\0' && isfinite(*v);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Short text of a node for messages. */
static const char *show(const yaml_node_t *n)
{
    if (!n) return "(missing)";
    if (n->type == YAML_SCALAR_NODE) return (const char *)n->data.scalar.value;
    return n->type == YAML_SEQUENCE_NODE ? "(a list)" : "(a mapping)";
}

typedef struct cmp_ctx {
    yaml_document_t *a, *b;
    char *why;
    size_t why_len;
} cmp_ctx;

static int differ(cmp_ctx *c, const char *path, const yaml_node_t *x, const yaml_node_t *y)
{
    set_err(c->why, c->why_len, "%s is %s in the file's case and %s in this one",
            path[0] ? path : "the document", show(x), show(y));
    return 1;
}

static const yaml_node_t *lookup(yaml_document_t *d, const yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(d, p->key));
        if (k && !strcmp(k, key)) return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

static int compare_nodes(cmp_ctx *c, const char *path, const yaml_node_t *x, const yaml_node_t *y);

/* Every non-free key of `from` must be in `to` with an equal value. */
static int compare_keys(cmp_ctx *c, const char *path, yaml_document_t *df, const yaml_node_t *from,
                        yaml_document_t *dt, const yaml_node_t *to, int from_is_a)
{
    for (yaml_node_pair_t *p = from->data.mapping.pairs.start; p < from->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(df, p->key));
        if (!k) continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", k);
        if (is_free(sub)) continue;
        const yaml_node_t *v = yaml_document_get_node(df, p->value), *w = lookup(dt, to, k);
        if (!w) return from_is_a ? differ(c, sub, v, NULL) : differ(c, sub, NULL, v);
        if (from_is_a) {
            int r = compare_nodes(c, sub, v, w);
            if (r) return r;
        }
    }
    return 0;
}

static int compare_nodes(cmp_ctx *c, const char *path, const yaml_node_t *x, const yaml_node_t *y)
{
    if (!x || !y || x->type != y->type) return differ(c, path, x, y);
    if (x->type == YAML_SCALAR_NODE) {
        const char *s = scalar(x), *t = scalar(y);
        double u, v;
        if (parse_number(s, &u) && parse_number(t, &v)) return u == v ? 0 : differ(c, path, x, y);
        return strcmp(s, t) ? differ(c, path, x, y) : 0;
    }
    if (x->type == YAML_SEQUENCE_NODE) {
        ptrdiff_t n = x->data.sequence.items.top - x->data.sequence.items.start;
        ptrdiff_t m = y->data.sequence.items.top - y->data.sequence.items.start;
        if (n != m) {
            set_err(c->why, c->why_len, "%s has %td entries in the file's case and %td in this one",
                    path, n, m);
            return 1;
        }
        for (ptrdiff_t k = 0; k < n; k++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%td]", path, k);
            int r = compare_nodes(c, sub, yaml_document_get_node(c->a, x->data.sequence.items.start[k]),
                                  yaml_document_get_node(c->b, y->data.sequence.items.start[k]));
            if (r) return r;
        }
        return 0;
    }
    int r = compare_keys(c, path, c->a, x, c->b, y, 1);
    return r ? r : compare_keys(c, path, c->b, y, c->a, x, 0);
}

static int load_doc(const char *text, yaml_document_t *doc)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return -1;
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    int ok = yaml_parser_load(&p, doc);
    yaml_parser_delete(&p);
    if (!ok) return -1;
    if (!yaml_document_get_root_node(doc)) {
        yaml_document_delete(doc);
        return -1;
    }
    return 0;
}

int restart_compare_cases(const char *stored, const char *given, char *why, size_t why_len)
{
    yaml_document_t a, b;
    if (load_doc(stored, &a) != 0) {
        set_err(why, why_len, "the file's case text is not a YAML document");
        return -1;
    }
    if (load_doc(given, &b) != 0) {
        yaml_document_delete(&a);
        set_err(why, why_len, "the case is not a YAML document");
        return -1;
    }
    cmp_ctx c = {&a, &b, why, why_len};
    int r = compare_nodes(&c, "", yaml_document_get_root_node(&a), yaml_document_get_root_node(&b));
    yaml_document_delete(&a);
    yaml_document_delete(&b);
    return r;
}

/* ------------------------------------------------------------ reading the file */

static char h5_msg[256];

static herr_t first_error(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)data;
    if (n == 0 && e && e->desc) snprintf(h5_msg, sizeof h5_msg, "%s", e->desc);
    return 0;
}

static const char *h5_error(void)
{
    snprintf(h5_msg, sizeof h5_msg, "HDF5 error");
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, NULL);
    return h5_msg;
}

/* Reads dataset `name` of loc, which must be (rows) or (rows, cols), into a new buffer
 * of elem bytes per value. */
static void *read_array(hid_t loc, const char *name, hid_t mem_type, size_t elem, size_t rows,
                        size_t cols, char *err, size_t err_len)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) {
        set_err(err, err_len, "the snapshot has no dataset %s (not written by this version of "
                              "dempact?)", name);
        return NULL;
    }
    hid_t s = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int rank = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
    if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(s, dims, NULL);
    if (s >= 0) H5Sclose(s);
    void *buf = NULL;
    if (rank != (cols ? 2 : 1) || dims[0] != rows || (cols && dims[1] != cols)) {
        set_err(err, err_len, "dataset %s has the wrong shape (expected %zu x %zu)", name, rows,
                cols ? cols : 1);
    } else if (!(buf = malloc((rows ? rows : 1) * (cols ? cols : 1) * elem))) {
        set_err(err, err_len, "out of memory reading %s", name);
    } else if (rows > 0 && H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        set_err(err, err_len, "cannot read %s: %s", name, h5_error());
        free(buf);
        buf = NULL;
    }
    H5Dclose(d);
    return buf;
}

typedef struct snap_arrays {
    int64_t *id, *contact_id, *contact_slot;
    int32_t *type;
    uint8_t *contact_wall;
    double *radius, *mass, *position, *position_at_rebuild, *velocity, *angular_velocity;
    double *force, *torque;
    double *history[SIM_MAX_HISTORY_FIELDS];
    double *work, *wall_work, *wall_work_sum;
    uint8_t *inlets, *outlets;
    size_t inlets_bytes, outlets_bytes;
} snap_arrays;

static void free_arrays(snap_arrays *a)
{
    free(a->id); free(a->contact_id); free(a->contact_slot); free(a->type);
    free(a->work); free(a->wall_work); free(a->wall_work_sum); free(a->inlets); free(a->outlets); free(a->contact_wall); free(a->radius);
    free(a->mass); free(a->position); free(a->position_at_rebuild); free(a->velocity);
    free(a->angular_velocity); free(a->force); free(a->torque);
    for (int h = 0; h < SIM_MAX_HISTORY_FIELDS; h++) free(a->history[h]);
}

static int load_snapshot(hid_t file, const restart_point *rp, sim *s, char *err, size_t err_len)
{
    char name[64];
    snprintf(name, sizeof name, "/snapshots/%06d", rp->index);
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    if (g < 0) {
        set_err(err, err_len, "cannot open %s: %s", name, h5_error());
        return -1;
    }
    int64_t n64 = -1, m64 = -1;
    snap_arrays a = {0};
    int rc = -1;
    char sub[1024] = "";
    if (h5_read_attr(g, ".", "n_particles", H5T_NATIVE_INT64, &n64) < 0 || n64 <= 0) {
        set_err(err, err_len, "%s has no particles", name);
        goto done;
    }
    if (H5Lexists(g, "contacts", H5P_DEFAULT) <= 0 ||
        h5_read_attr(g, "contacts", "n_contacts", H5T_NATIVE_INT64, &m64) < 0 || m64 < 0) {
        set_err(err, err_len, "%s has no contacts group (not written by this version of dempact?)",
                name);
        goto done;
    }
    size_t n = (size_t)n64, m = (size_t)m64;
#define READ(field, path, type, elem, rows, cols)                                       \
    if (!(a.field = read_array(g, path, type, elem, rows, cols, sub, sizeof sub))) goto bad
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
    READ(contact_id, "contacts/id", H5T_NATIVE_INT64, 8, m, 2);
    READ(contact_wall, "contacts/wall", H5T_NATIVE_UINT8, 1, m, 0);
    READ(contact_slot, "contacts/slot", H5T_NATIVE_INT64, 8, m, 0);
    for (int h = 0; h < sim_n_pair_history; h++) {
        const pair_history_field *hf = &sim_pair_history[h];
        char path[128];
        snprintf(path, sizeof path, "contacts/%s", hf->name);
        if (hf->zero_if_absent && H5Lexists(g, path, H5P_DEFAULT) <= 0) {
            /* written before this state existed: no contact had any */
            if (!(a.history[h] = calloc(m * (size_t)hf->count + 1, sizeof(double)))) {
                snprintf(sub, sizeof sub, "out of memory");
                goto bad;
            }
            continue;
        }
        READ(history[h], path, H5T_NATIVE_DOUBLE, 8, m, hf->count > 1 ? (size_t)hf->count : 0);
    }
    /* the engine's accumulators, inlets and outlets */
    int64_t next_id = -1;
    double rebuild_wall_time = NAN;
    if (H5Lexists(g, "engine", H5P_DEFAULT) <= 0 ||
        h5_read_attr(g, "engine", "next_id", H5T_NATIVE_INT64, &next_id) < 0 ||
        h5_read_attr(g, "engine", "rebuild_wall_time", H5T_NATIVE_DOUBLE, &rebuild_wall_time) < 0) {
        snprintf(sub, sizeof sub, "no engine group (not written by this version of dempact?)");
        goto bad;
    }
    a.inlets_bytes = (size_t)s->cfg.n_inlets * sizeof *s->inlets;
    a.outlets_bytes = (size_t)s->cfg.n_outlets * sizeof *s->outlets;
    READ(work, "engine/work", H5T_NATIVE_DOUBLE, 8, SIM_WORK_KINDS, 0);
    if (s->walls.n > 0) READ(wall_work, "engine/wall_work", H5T_NATIVE_DOUBLE, 8, s->walls.n, 0);
    if (s->walls.n > 0 && H5Lexists(g, "engine/wall_work_sum", H5P_DEFAULT) > 0) /* since session 7 */
        READ(wall_work_sum, "engine/wall_work_sum", H5T_NATIVE_DOUBLE, 8, s->walls.n, 0);
    READ(inlets, "engine/inlets", H5T_NATIVE_UINT8, 1, a.inlets_bytes, 0);
    READ(outlets, "engine/outlets", H5T_NATIVE_UINT8, 1, a.outlets_bytes, 0);
#undef READ
    sim_restart_state st = {.time = rp->time, .dt = rp->dt, .step = rp->step, .n = n, .id = a.id,
                            .type = a.type, .radius = a.radius, .mass = a.mass,
                            .position = a.position, .position_at_rebuild = a.position_at_rebuild,
                            .velocity = a.velocity, .angular_velocity = a.angular_velocity,
                            .force = a.force, .torque = a.torque, .n_contacts = m,
                            .contact_id = a.contact_id, .contact_wall = a.contact_wall,
                            .contact_slot = a.contact_slot, .next_id = next_id, .work = a.work,
                            .wall_work = a.wall_work, .wall_work_sum = a.wall_work_sum,
                            .inlets = a.inlets, .outlets = a.outlets,
                            .inlets_bytes = a.inlets_bytes, .outlets_bytes = a.outlets_bytes,
                            .rebuild_wall_time = rebuild_wall_time};
    for (int h = 0; h < sim_n_pair_history; h++) st.history[h] = a.history[h];
    if (sim_restore(s, &st, sub, sizeof sub) != 0) goto bad;
    rc = 0;
    goto done;
bad:
    set_err(err, err_len, "cannot restart from %s: %s", name, sub);
done:
    free_arrays(&a);
    H5Gclose(g);
    return rc;
}

/* Lists the steps of the file's snapshots into buf (for the error message). */
static void list_steps(hid_t file, int count, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < count && used + 32 < len; k++) {
        char name[64];
        int64_t step;
        snprintf(name, sizeof name, "/snapshots/%06d", k);
        if (h5_read_attr(file, name, "step", H5T_NATIVE_INT64, &step) < 0) continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%lld", k ? ", " : "", (long long)step);
    }
    if (used + 32 >= len) snprintf(buf + used, len - used, ", ...");
}

int restart_from_file(const char *h5_path, int64_t from_step, const char *case_text, sim *s,
                      restart_point *rp, char *err, size_t err_len)
{
    memset(rp, 0, sizeof *rp);
    if (journal_recover(h5_path, err, err_len) < 0) return -1;
    H5E_auto2_t func;
    void *data;
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int rc = -1;
    char *stored = NULL;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file = -1;
    if (fapl >= 0 && H5Pset_file_locking(fapl, 0, 1) >= 0) file = H5Fopen(h5_path, H5F_ACC_RDONLY, fapl);
    if (fapl >= 0) H5Pclose(fapl);
    if (file < 0) {
        set_err(err, err_len, "cannot open '%s': %s", h5_path, h5_error());
        goto done;
    }
    /* the snapshots */
    int count = 0;
    for (;;) {
        char name[64];
        snprintf(name, sizeof name, "/snapshots/%06d", count);
        if (H5Lexists(file, "/snapshots", H5P_DEFAULT) <= 0 || H5Lexists(file, name, H5P_DEFAULT) <= 0) break;
        count++;
    }
    rp->count = count;
    if (count == 0) {
        set_err(err, err_len, "'%s' holds no snapshot to restart from", h5_path);
        goto done;
    }
    rp->index = -1;
    for (int k = count - 1; k >= 0; k--) {
        char name[64];
        int64_t step;
        snprintf(name, sizeof name, "/snapshots/%06d", k);
        if (h5_read_attr(file, name, "step", H5T_NATIVE_INT64, &step) < 0) continue;
        if (from_step < 0 || step == from_step) {
            rp->index = k;
            rp->step = step;
            h5_read_attr(file, name, "time", H5T_NATIVE_DOUBLE, &rp->time);
            break;
        }
    }
    if (rp->index < 0) {
        char steps[512];
        list_steps(file, count, steps, sizeof steps);
        set_err(err, err_len, "--from-step %lld: '%s' has no snapshot at that step; its snapshots are "
                              "at steps %s", (long long)from_step, h5_path, steps);
        goto done;
    }
    if (h5_read_attr(file, "/", "dt", H5T_NATIVE_DOUBLE, &rp->dt) < 0 || !(rp->dt > 0.0)) {
        set_err(err, err_len, "'%s' has no timestep (root attribute dt)", h5_path);
        goto done;
    }
    /* the case */
    stored = h5_read_case_text(file);
    if (!stored) {
        set_err(err, err_len, "'%s' does not hold the case it was run with (/case_text)", h5_path);
        goto done;
    }
    char why[1024];
    int cmp = restart_compare_cases(stored, case_text ? case_text : "", why, sizeof why);
    if (cmp != 0) {
        set_err(err, err_len, "this case is not the one '%s' was written with: %s (a restart may "
                              "change only name, time.end, time.output_interval and "
                              "time.timeseries_interval)", h5_path, why);
        goto done;
    }
    rp->case_dt = s->dt;
    rc = load_snapshot(file, rp, s, err, err_len);
done:
    free(stored);
    if (file >= 0) H5Fclose(file);
    H5Eset_auto2(H5E_DEFAULT, func, data);
    return rc;
}
