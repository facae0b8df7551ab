/* Reading what the index and the .xmf files need of a snapshot, and checking that the
 * numbers they would pass on (counts, shapes) are those of the datasets: a snapshot
 * carried from a hostile file must not make ParaView read past an array. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t snapshot_dataset_rows(hid_t loc, const char *name, int rank, const hsize_t *rest,
                              char *why, size_t why_len)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) {
        snapshot_set_err(why, why_len, "dataset %s is missing", name);
        return -1;
    }
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) {
        snapshot_set_err(why, why_len, "%s is not a readable dataset", name);
        return -1;
    }
    hid_t s = H5Dget_space(d), t = H5Dget_type(d);
    hsize_t dims[8] = {0};
    int r = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
    int64_t rows = -1;
    if (r != rank || r < 1 || r > 8 || H5Sget_simple_extent_dims(s, dims, NULL) != r) {
        snapshot_set_err(why, why_len, "dataset %s has rank %d, expected %d", name, r, rank);
        goto done;
    }
    double values = 1.0;
    for (int k = 1; k < rank; k++) {
        if (rest && dims[k] != rest[k - 1]) {
            snapshot_set_err(why, why_len, "dataset %s has %llu columns along axis %d, expected %llu",
                             name, (unsigned long long)dims[k], k, (unsigned long long)rest[k - 1]);
            goto done;
        }
        values *= (double)dims[k];
    }
    values *= (double)dims[0];
    size_t size = t >= 0 ? H5Tget_size(t) : 0;
    hsize_t stored = H5Dget_storage_size(d);
    if (size == 0 || values * (double)size > (double)stored || dims[0] > (hsize_t)INT64_MAX / 64) {
        snapshot_set_err(why, why_len, "dataset %s claims %llu rows but stores %llu bytes", name,
                         (unsigned long long)dims[0], (unsigned long long)stored);
        goto done;
    }
    rows = (int64_t)dims[0];
done:
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
    return rows;
}

static int read_scalar_attr(hid_t loc, const char *name, hid_t type, void *v)
{
    if (H5Aexists(loc, name) <= 0) return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t s = H5Aget_space(a);
    int ok = s >= 0 && H5Sget_simple_extent_npoints(s) == 1 && H5Aread(a, type, v) >= 0;
    if (s >= 0) H5Sclose(s);
    H5Aclose(a);
    return ok ? 0 : -1;
}

/* A dataset the .xmf files or a restart read: its columns (0: 1-D) and its stored number
 * type (the .xmf declares it: another would be read as garbage). */
typedef struct expected {
    const char *name;
    int cols;
    H5T_class_t cls;
    size_t size;
} expected;

#define F64 H5T_FLOAT, 8
#define I64 H5T_INTEGER, 8
#define I32 H5T_INTEGER, 4
#define U8 H5T_INTEGER, 1

static int check_type(hid_t loc, const expected *e, const char *where, char *why, size_t why_len)
{
    hid_t d = H5Dopen2(loc, e->name, H5P_DEFAULT), t = d >= 0 ? H5Dget_type(d) : -1;
    int ok = t >= 0 && H5Tget_class(t) == e->cls && H5Tget_size(t) == e->size &&
             (e->cls != H5T_INTEGER || H5Tget_sign(t) == (e->size == 1 ? H5T_SGN_NONE : H5T_SGN_2));
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Dclose(d);
    if (!ok)
        snapshot_set_err(why, why_len, "%sdataset %s is not stored as %s%zu", where, e->name,
                         e->cls == H5T_FLOAT ? "float" : e->size == 1 ? "uint" : "int", 8 * e->size);
    return ok ? 0 : -1;
}

/* Every listed dataset of loc has `rows` rows of its columns and its number type. */
static int check_rows(hid_t loc, const char *where, const expected *list, int64_t rows, char *why,
                      size_t why_len)
{
    for (const expected *e = list; e->name; e++) {
        char sub[256];
        hsize_t rest = (hsize_t)e->cols;
        int64_t got = snapshot_dataset_rows(loc, e->name, e->cols ? 2 : 1, &rest, sub, sizeof sub);
        if (got < 0) {
            snapshot_set_err(why, why_len, "%s%s", where, sub);
            return -1;
        }
        if (got != rows) {
            snapshot_set_err(why, why_len, "%sdataset %s has %lld rows, the counts say %lld", where,
                             e->name, (long long)got, (long long)rows);
            return -1;
        }
        if (check_type(loc, e, where, why, why_len) < 0) return -1;
    }
    return 0;
}

int snapshot_meta_read(hid_t g, int format, snapshot_meta *m, char *why, size_t why_len)
{
    memset(m, 0, sizeof *m);
    if (read_scalar_attr(g, "time", H5T_NATIVE_DOUBLE, &m->time) < 0 ||
        read_scalar_attr(g, "step", H5T_NATIVE_INT64, &m->step) < 0 ||
        read_scalar_attr(g, "n_particles", H5T_NATIVE_INT64, &m->n_particles) < 0) {
        snapshot_set_err(why, why_len, "attribute time, step or n_particles is missing or unreadable");
        return -1;
    }
    if (m->n_particles < 0) {
        snapshot_set_err(why, why_len, "attribute n_particles is %lld, below 0", (long long)m->n_particles);
        return -1;
    }
    static const expected particles[] = {
        {"id", 0, I64}, {"type", 0, I32}, {"radius", 0, F64}, {"mass", 0, F64}, {"position", 3, F64},
        {"velocity", 3, F64}, {"angular_velocity", 3, F64}, {"force", 3, F64}, {"torque", 3, F64},
        {"n_contacts", 0, I32}, {"kinetic_energy", 0, F64}, {"rotational_energy", 0, F64}, {NULL, 0, F64}};
    if (check_rows(g, "", particles, m->n_particles, why, why_len) < 0) return -1;
    if (H5Lexists(g, "position_at_rebuild", H5P_DEFAULT) > 0) {
        static const expected rebuild[] = {{"position_at_rebuild", 3, F64}, {NULL, 0, F64}};
        if (check_rows(g, "", rebuild, m->n_particles, why, why_len) < 0) return -1;
    }
    int has_contacts = H5Lexists(g, "contacts", H5P_DEFAULT) > 0;
    if (!has_contacts && format >= 3) {
        snapshot_set_err(why, why_len, "group contacts is missing");
        return -1;
    }
    if (has_contacts) {
        hid_t c = H5Gopen2(g, "contacts", H5P_DEFAULT);
        if (c < 0 || read_scalar_attr(c, "n_contacts", H5T_NATIVE_INT64, &m->n_contacts) < 0 ||
            m->n_contacts < 0) {
            if (c >= 0) H5Gclose(c);
            snapshot_set_err(why, why_len, "contacts: attribute n_contacts is missing, unreadable or "
                                           "below 0");
            return -1;
        }
        static const expected contacts[] = {
            {"id", 2, I64}, {"wall", 0, U8}, {"slot", 0, I64}, {"point", 3, F64}, {"normal", 3, F64},
            {"overlap", 0, F64}, {"normal_force", 0, F64}, {"normal_force_vector", 3, F64},
            {"tangential_force", 3, F64}, {NULL, 0, F64}};
        static const expected ends[] = {{"endpoints", 3, F64}, {NULL, 0, F64}};
        int rc = check_rows(c, "contacts: ", contacts, m->n_contacts, why, why_len);
        if (rc == 0) rc = check_rows(c, "contacts: ", ends, 2 * m->n_contacts, why, why_len);
        H5Gclose(c);
        if (rc < 0) return -1;
    }
    if (format < 3) return 0;
    char sub[256];
    m->vertex_len = snapshot_dataset_rows(g, "vertex_index", 1, NULL, sub, sizeof sub);
    if (m->vertex_len < 0) {
        snapshot_set_err(why, why_len, "%s", sub);
        return -1;
    }
    if (m->vertex_len < m->n_particles || m->vertex_len < 2 * m->n_contacts) {
        snapshot_set_err(why, why_len, "dataset vertex_index has %lld rows, fewer than the %lld "
                                       "particles or twice the %lld contacts", (long long)m->vertex_len,
                         (long long)m->n_particles, (long long)m->n_contacts);
        return -1;
    }
    static const expected vertex = {"vertex_index", 0, I64};
    if (check_type(g, &vertex, "", why, why_len) < 0) return -1;
    /* 0, 1, 2, ...: the cells of the .xmf are made of it */
    int64_t *v = malloc((size_t)(m->vertex_len ? m->vertex_len : 1) * sizeof *v);
    hid_t vd = v ? H5Dopen2(g, "vertex_index", H5P_DEFAULT) : -1;
    int vread = vd >= 0 && (m->vertex_len == 0 || H5Dread(vd, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    if (vd >= 0) H5Dclose(vd);
    int64_t bad_at = -1;
    for (int64_t i = 0; vread && i < m->vertex_len && bad_at < 0; i++)
        if (v[i] != i) bad_at = i;
    int no_memory = !v;
    free(v);
    if (!vread) {
        if (no_memory) snapshot_set_no_memory(why, why_len, "out of memory");
        else snapshot_set_err(why, why_len, "dataset vertex_index is unreadable");
        return no_memory ? FAIL_NO_MEMORY : -1;
    }
    if (bad_at >= 0) {
        snapshot_set_err(why, why_len, "dataset vertex_index[%lld] is not %lld (it is 0, 1, 2, ...)",
                         (long long)bad_at, (long long)bad_at);
        return -1;
    }
    if (H5Lexists(g, "walls", H5P_DEFAULT) <= 0) return 0;
    hid_t w = H5Gopen2(g, "walls", H5P_DEFAULT);
    hsize_t three = 3;
    int rc = -1;
    int64_t *corners = NULL;
    if (w < 0) {
        snapshot_set_err(why, why_len, "walls is not a readable group");
        return -1;
    }
    m->n_wall_vertices = snapshot_dataset_rows(w, "vertices", 2, &three, sub, sizeof sub);
    m->n_wall_triangles = m->n_wall_vertices < 0 ? -1 : snapshot_dataset_rows(w, "triangles", 2, &three, sub, sizeof sub);
    if (m->n_wall_triangles < 0) {
        snapshot_set_err(why, why_len, "walls: %s", sub);
        goto done;
    }
    static const expected corner_rows[] = {{"triangles", 3, I64}, {"wall", 0, I32}, {NULL, 0, F64}};
    static const expected vertex_rows[] = {{"vertices", 3, F64}, {NULL, 0, F64}};
    if (check_rows(w, "walls: ", corner_rows, m->n_wall_triangles, why, why_len) < 0 ||
        check_rows(w, "walls: ", vertex_rows, m->n_wall_vertices, why, why_len) < 0)
        goto done;
    /* the corners name vertices that exist */
    size_t nc = 3 * (size_t)m->n_wall_triangles;
    corners = malloc((nc ? nc : 1) * sizeof *corners);
    hid_t d = H5Dopen2(w, "triangles", H5P_DEFAULT);
    int read = corners && d >= 0 && (nc == 0 || H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, corners) >= 0);
    if (d >= 0) H5Dclose(d);
    if (!read) {
        if (corners) {
            snapshot_set_err(why, why_len, "walls: dataset triangles is unreadable");
        } else {
            snapshot_set_no_memory(why, why_len, "out of memory");
            rc = FAIL_NO_MEMORY;
        }
        goto done;
    }
    for (size_t k = 0; k < nc; k++)
        if (corners[k] < 0 || corners[k] >= m->n_wall_vertices) {
            snapshot_set_err(why, why_len, "walls: triangle %zu names vertex %lld of %lld", k / 3,
                             (long long)corners[k], (long long)m->n_wall_vertices);
            goto done;
        }
    rc = 0;
done:
    free(corners);
    H5Gclose(w);
    return rc;
}
