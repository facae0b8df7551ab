/* The run a coarse-graining reads: its domain (the `domain` mapping of the case text the
 * run stored in /case_text) and its snapshots (docs/output.md, "Snapshots"), each dataset
 * checked for its shape and finite values before it is used. */
#define _POSIX_C_SOURCE 200809L
#include "coarse_grain.h"

#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/output/h5_read.h"

static int fail(char *err, size_t len, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return status;
}

/* ---- the domain, from the case text ---- */

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

/* A sequence of three scalars: numbers (kind 0) or booleans (kind 1). */
static int triple(yaml_document_t *doc, yaml_node_t *seq, int kind, double v[3])
{
    if (!seq || seq->type != YAML_SEQUENCE_NODE) return -1;
    if (seq->data.sequence.items.top - seq->data.sequence.items.start != 3) return -1;
    for (int a = 0; a < 3; a++) {
        yaml_node_t *x = yaml_document_get_node(doc, seq->data.sequence.items.start[a]);
        if (!x || x->type != YAML_SCALAR_NODE) return -1;
        const char *t = (const char *)x->data.scalar.value;
        if (kind == 1) {
            if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "TRUE")) v[a] = 1;
            else if (!strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "FALSE")) v[a] = 0;
            else return -1;
        } else {
            char *end;
            v[a] = strtod(t, &end);
            if (end == t || *end || !isfinite(v[a])) return -1;
        }
    }
    return 0;
}

static int domain_from_text(const char *path, const char *text, cg_domain *d, char *err, size_t len)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) return fail(err, len, CG_EXIT_NO_MEMORY, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
    int ok = yaml_parser_load(&parser, &doc);
    yaml_parser_delete(&parser);
    if (!ok) return fail(err, len, CG_EXIT_BAD_INPUT, "%s: /case_text is not YAML", path);
    yaml_node_t *dom = map_get(&doc, yaml_document_get_root_node(&doc), "domain");
    double per[3] = {0, 0, 0};
    yaml_node_t *pn = map_get(&doc, dom, "periodic");
    int rc = 0;
    if (!dom || triple(&doc, map_get(&doc, dom, "min"), 0, d->lo) ||
        triple(&doc, map_get(&doc, dom, "max"), 0, d->hi) || (pn && triple(&doc, pn, 1, per)))
        rc = fail(err, len, CG_EXIT_BAD_INPUT,
                  "%s: /case_text has no domain {min: [x, y, z], max: [x, y, z], periodic: [...]}", path);
    yaml_node_t *le = map_get(&doc, dom, "lees_edwards");
    if (rc == 0 && le) {
        /* a sheared cell: its shear rate, for the streaming profile (docs/coarse-graining.md) */
        yaml_node_t *rate = map_get(&doc, le, "shear_rate");
        char *end = NULL;
        const char *t = rate && rate->type == YAML_SCALAR_NODE ? (const char *)rate->data.scalar.value : "";
        d->lees_edwards = 1;
        d->shear_rate = strtod(t, &end);
        if (end == t || *end || !isfinite(d->shear_rate))
            rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: /case_text: domain.lees_edwards has no finite shear_rate", path);
    }
    for (int a = 0; a < 3 && rc == 0; a++) {
        d->periodic[a] = per[a] != 0;
        if (!(d->hi[a] > d->lo[a]))
            rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: /case_text: domain.max[%d] = %g is not above min %g",
                      path, a, d->hi[a], d->lo[a]);
    }
    yaml_document_delete(&doc);
    return rc;
}

/* ---- the file and its snapshots ---- */

int cg_run_open(cg_run *run, const char *path, char *err, size_t len)
{
    memset(run, 0, sizeof *run);
    run->path = path;
    FILE *probe = fopen(path, "rb");
    if (!probe) return fail(err, len, CG_EXIT_BAD_INPUT, "%s: cannot open: no such file or not readable", path);
    fclose(probe);
    if (H5Fis_hdf5(path) <= 0)
        return fail(err, len, CG_EXIT_BAD_INPUT, "%s: not an HDF5 file", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return fail(err, len, CG_EXIT_BAD_INPUT, "%s: cannot open as HDF5", path);
    int no_memory = 0;
    char *text = h5_read_case_text(f, 1, &no_memory);
    int rc = 0;
    if (!text)
        rc = no_memory ? fail(err, len, CG_EXIT_NO_MEMORY, "out of memory")
                       : fail(err, len, CG_EXIT_BAD_INPUT, "%s: no /case_text: not a dempact output file", path);
    else
        rc = domain_from_text(path, text, &run->domain, err, len);
    free(text);
    if (rc == 0 && H5Lexists(f, "snapshots", H5P_DEFAULT) <= 0)
        rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: no /snapshots group", path);
    for (int k = 0; rc == 0; k++) {
        char name[32];
        snprintf(name, sizeof name, "snapshots/%06d", k);
        if (H5Lexists(f, name, H5P_DEFAULT) <= 0) break;
        if (k % 64 == 0) {
            double *t = realloc(run->times, (size_t)(k + 64) * sizeof *t);
            if (t) run->times = t;
            char(*nm)[16] = realloc(run->names, (size_t)(k + 64) * sizeof *nm);
            if (nm) run->names = nm;
            if (!t || !nm) {
                rc = fail(err, len, CG_EXIT_NO_MEMORY, "out of memory");
                break;
            }
        }
        if (h5_read_attr(f, name, "time", H5T_NATIVE_DOUBLE, &run->times[k]) < 0 || !isfinite(run->times[k])) {
            rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: /%s: no finite attribute time", path, name);
            break;
        }
        snprintf(run->names[k], sizeof run->names[k], "%06d", k);
        run->count = k + 1;
    }
    H5Fclose(f);
    if (rc) cg_run_close(run);
    return rc;
}

void cg_run_close(cg_run *run)
{
    free(run->times);
    free(run->names);
    run->times = NULL;
    run->names = NULL;
}

/* Reads dataset `name` of g, which must have `rows` rows of `cols` values (cols 0: a
 * vector), into a new array of `type` (elem bytes each). */
static int read_set(hid_t g, const char *file, const char *snap, const char *name, int64_t rows, int cols,
                    hid_t type, size_t elem, void **out, char *err, size_t len)
{
    *out = NULL;
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
        return fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: no dataset %s", file, snap, name);
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) return fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: cannot open %s", file, snap, name);
    hid_t sp = H5Dget_space(d);
    hsize_t dims[3] = {0, 0, 0};
    int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
    if (sp >= 0) H5Sclose(sp);
    int shape_ok = (cols == 0 && rank == 1 && dims[0] == (hsize_t)rows) ||
                   (cols > 0 && rank == 2 && dims[0] == (hsize_t)rows && dims[1] == (hsize_t)cols) ||
                   (rows == 0 && rank >= 1 && dims[0] == 0);
    if (!shape_ok) {
        H5Dclose(d);
        return fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: %s is not (%lld%s) as docs/output.md says",
                    file, snap, name, (long long)rows, cols == 3 ? ", 3" : cols == 2 ? ", 2" : "");
    }
    size_t count = (size_t)rows * (size_t)(cols ? cols : 1);
    void *buf = malloc(count ? count * elem : 1);
    if (!buf) {
        H5Dclose(d);
        return fail(err, len, CG_EXIT_NO_MEMORY, "out of memory reading %s (%lld rows)", name, (long long)rows);
    }
    if (count && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        H5Dclose(d);
        return fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: cannot read %s", file, snap, name);
    }
    H5Dclose(d);
    if (type == H5T_NATIVE_DOUBLE)
        for (size_t q = 0; q < count; q++)
            if (!isfinite(((double *)buf)[q])) {
                free(buf);
                return fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: %s row %zu is not finite", file, snap,
                            name, q / (size_t)(cols ? cols : 1));
            }
    *out = buf;
    return 0;
}

/* The shear rate of a Lees-Edwards snapshot: its lees_edwards/shear_rate (a scalar
 * dataset or an attribute of the group), else the case's. */
static int lees_edwards_rate(hid_t g, const cg_run *run, cg_snapshot *s, char *err, size_t len)
{
    s->shear_rate = run->domain.shear_rate;
    /* engine@lees_edwards (docs/output.md): its 1st value is the images' offset, its 8th
     * the box height H */
    double state[15];
    if (H5Lexists(g, "engine", H5P_DEFAULT) > 0 &&
        h5_read_attr_n(g, "engine", "lees_edwards", H5T_NATIVE_DOUBLE, 15, state) == 0) {
        if (!(state[7] > 0) || !isfinite(state[7]))
            return fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: engine@lees_edwards gives a box height %g "
                        "(> 0 needed)", run->path, s->name, state[7]);
        if (!isfinite(state[0]))
            return fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: engine@lees_edwards gives an offset %g "
                        "(finite needed)", run->path, s->name, state[0]);
        s->box_height = state[7];
        s->offset = state[0];
    }
    if (H5Lexists(g, "lees_edwards", H5P_DEFAULT) <= 0) return 0;
    double v = NAN;
    if (H5Lexists(g, "lees_edwards/shear_rate", H5P_DEFAULT) > 0) {
        hid_t d = H5Dopen2(g, "lees_edwards/shear_rate", H5P_DEFAULT);
        hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
        if (sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1) H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
        if (sp >= 0) H5Sclose(sp);
        if (d >= 0) H5Dclose(d);
    } else if (h5_read_attr(g, "lees_edwards", "shear_rate", H5T_NATIVE_DOUBLE, &v) < 0) {
        return 0;
    }
    if (!isfinite(v))
        return fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: lees_edwards/shear_rate is not one finite number",
                    run->path, s->name);
    s->shear_rate = v;
    return 0;
}

typedef struct id_row {
    int64_t id, row;
} id_row;

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const id_row *)a)->id, y = ((const id_row *)b)->id;
    return (x > y) - (x < y);
}

static int64_t row_of(const id_row *map, int64_t n, int64_t id)
{
    id_row key = {id, 0};
    const id_row *hit = bsearch(&key, map, (size_t)n, sizeof *map, by_id);
    return hit ? hit->row : -1;
}

/* Each contact's rows: i a particle of the snapshot, j one too or a wall. */
static int contact_rows(cg_snapshot *s, const char *p, char *err, size_t len)
{
    id_row *map = malloc((size_t)(s->n + 1) * sizeof *map);
    s->row_i = malloc((size_t)(s->m + 1) * sizeof *s->row_i);
    s->row_j = malloc((size_t)(s->m + 1) * sizeof *s->row_j);
    if (!map || !s->row_i || !s->row_j) {
        free(map);
        return fail(err, len, CG_EXIT_NO_MEMORY, "out of memory");
    }
    for (int64_t i = 0; i < s->n; i++) map[i] = (id_row){s->id[i], i};
    qsort(map, (size_t)s->n, sizeof *map, by_id);
    int rc = 0;
    for (int64_t c = 0; c < s->m && !rc; c++) {
        s->row_i[c] = row_of(map, s->n, s->cid[2 * c]);
        s->row_j[c] = s->wall[c] ? -1 : row_of(map, s->n, s->cid[2 * c + 1]);
        if (s->row_i[c] < 0 || (!s->wall[c] && s->row_j[c] < 0))
            rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: contacts/id row %lld names a particle id "
                      "the snapshot does not hold", p, s->name, (long long)c);
        if (s->wall[c] > 1 || s->ended[c] > 2)
            rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: contacts row %lld: wall %d, ended %d "
                      "(0 or 1; 0, 1 or 2)", p, s->name, (long long)c, s->wall[c], s->ended[c]);
    }
    free(map);
    return rc;
}

int cg_snapshot_read(const cg_run *run, int k, cg_snapshot *s, char *err, size_t len)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", run->names[k]);
    s->time = run->times[k];
    hid_t f = H5Fopen(run->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return fail(err, len, CG_EXIT_BAD_INPUT, "%s: cannot open as HDF5", run->path);
    char gname[32];
    snprintf(gname, sizeof gname, "snapshots/%s", s->name);
    hid_t g = H5Gopen2(f, gname, H5P_DEFAULT);
    const char *p = run->path, *nm = s->name;
    int rc = 0;
    if (g < 0) rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: cannot open snapshot %s", p, nm);
    if (!rc && (h5_read_attr(g, ".", "n_particles", H5T_NATIVE_INT64, &s->n) < 0 || s->n < 0 || s->n > (1LL << 31)))
        rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: no attribute n_particles in 0 .. 2^31", p, nm);
    if (!rc) h5_read_attr(g, ".", "step", H5T_NATIVE_INT64, &s->step);
    if (!rc && run->domain.lees_edwards) rc = lees_edwards_rate(g, run, s, err, len);
    int64_t n = s->n;
    if (!rc) rc = read_set(g, p, nm, "id", n, 0, H5T_NATIVE_INT64, 8, (void **)&s->id, err, len);
    if (!rc) rc = read_set(g, p, nm, "radius", n, 0, H5T_NATIVE_DOUBLE, 8, (void **)&s->radius, err, len);
    if (!rc) rc = read_set(g, p, nm, "mass", n, 0, H5T_NATIVE_DOUBLE, 8, (void **)&s->mass, err, len);
    if (!rc) rc = read_set(g, p, nm, "position", n, 3, H5T_NATIVE_DOUBLE, 8, (void **)&s->pos, err, len);
    if (!rc) rc = read_set(g, p, nm, "velocity", n, 3, H5T_NATIVE_DOUBLE, 8, (void **)&s->vel, err, len);
    for (int64_t i = 0; !rc && i < n; i++)
        if (!(s->radius[i] > 0) || !(s->mass[i] > 0))
            rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: particle row %lld has radius %g, mass %g (> 0 needed)",
                      p, nm, (long long)i, s->radius[i], s->mass[i]);
    if (!rc && H5Lexists(g, "contacts", H5P_DEFAULT) > 0) {
        hid_t c = H5Gopen2(g, "contacts", H5P_DEFAULT);
        if (c < 0 || h5_read_attr(c, ".", "n_contacts", H5T_NATIVE_INT64, &s->m) < 0 || s->m < 0 ||
            s->m > (1LL << 31))
            rc = fail(err, len, CG_EXIT_BAD_INPUT, "%s: snapshot %s: contacts has no attribute n_contacts in 0 .. 2^31",
                      p, nm);
        int64_t m = s->m;
        double *fn = NULL, *ft = NULL;
        if (!rc) rc = read_set(c, p, nm, "id", m, 2, H5T_NATIVE_INT64, 8, (void **)&s->cid, err, len);
        if (!rc) rc = read_set(c, p, nm, "wall", m, 0, H5T_NATIVE_UINT8, 1, (void **)&s->wall, err, len);
        if (!rc) rc = read_set(c, p, nm, "endpoints", 2 * m, 3, H5T_NATIVE_DOUBLE, 8, (void **)&s->ends, err, len);
        if (!rc) rc = read_set(c, p, nm, "point", m, 3, H5T_NATIVE_DOUBLE, 8, (void **)&s->point, err, len);
        if (!rc) rc = read_set(c, p, nm, "normal", m, 3, H5T_NATIVE_DOUBLE, 8, (void **)&s->normal, err, len);
        if (!rc) rc = read_set(c, p, nm, "normal_force_vector", m, 3, H5T_NATIVE_DOUBLE, 8, (void **)&fn, err, len);
        if (!rc) rc = read_set(c, p, nm, "tangential_force", m, 3, H5T_NATIVE_DOUBLE, 8, (void **)&ft, err, len);
        if (!rc && run->domain.lees_edwards)
            rc = read_set(c, p, nm, "overlap", m, 0, H5T_NATIVE_DOUBLE, 8, (void **)&s->overlap, err, len);
        if (!rc && H5Lexists(c, "ended", H5P_DEFAULT) > 0)
            rc = read_set(c, p, nm, "ended", m, 0, H5T_NATIVE_UINT8, 1, (void **)&s->ended, err, len);
        else if (!rc && !(s->ended = calloc((size_t)m + 1, 1)))
            rc = fail(err, len, CG_EXIT_NO_MEMORY, "out of memory");
        if (!rc) {
            for (int64_t q = 0; q < 3 * m; q++) fn[q] += ft[q];
            s->force = fn;
            fn = NULL;
        }
        free(fn);
        free(ft);
        if (c >= 0) H5Gclose(c);
    } else if (!rc) {
        s->m = 0;
    }
    if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    if (!rc) rc = contact_rows(s, p, err, len);
    if (rc) cg_snapshot_free(s);
    return rc;
}

void cg_snapshot_free(cg_snapshot *s)
{
    free(s->id);
    free(s->radius);
    free(s->mass);
    free(s->pos);
    free(s->vel);
    free(s->cid);
    free(s->wall);
    free(s->ended);
    free(s->ends);
    free(s->point);
    free(s->normal);
    free(s->overlap);
    free(s->force);
    free(s->row_i);
    free(s->row_j);
    memset(s, 0, sizeof *s);
}
