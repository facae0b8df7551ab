/* Snapshot output: HDF5 file + XDMF 3 sidecar. See snapshot.h for the layout. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define TMP_GROUP "/incomplete_snapshot"
#define SNAP_GROUP "/snapshots"
/* 0, 1, 2, ...: the Polyvertex connectivity the .xmf gives each grid (a hyperslab of
 * its first N entries). XDMF 3 readers (ParaView's Xdmf3Reader) make no cells from a
 * Polyvertex topology without connectivity, and a grid without cells shows nothing
 * but glyphs. One shared array keeps the snapshots themselves as specified. */
#define VERTEX_INDEX "/vertex_index"
#define VERTEX_INDEX_TMP "/vertex_index_new"

struct snapshot_file {
    hid_t file;
    char *h5_path, *xmf_path, *xmf_tmp_path;
    char *h5_name; /* NAME.h5, as the .xmf refers to it */
    int count, cap;
    double *times;  /* per snapshot */
    int64_t *sizes; /* particles per snapshot */
    double *scratch; /* 3 N doubles for gathering vectors */
    size_t scratch_cap;
    int64_t vertex_len; /* length of /vertex_index (0: not written yet) */
    int64_t max_n;      /* largest particle count of the snapshots written */
};

/* ---------------------------------------------------------------- small helpers */

static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* HDF5's automatic error printing is switched off for the duration of each public
 * call and restored afterwards, so the rest of the program keeps its own setting. */
typedef struct h5_quiet {
    H5E_auto2_t func;
    void *data;
} h5_quiet;

static void quiet_begin(h5_quiet *q)
{
    q->func = NULL;
    q->data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void quiet_end(const h5_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

/* The innermost (most specific) message on HDF5's error stack, captured right where
 * a call fails (any later HDF5 call clears the stack), for our own messages. */
static char h5_last_error[256];

static herr_t detail_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)data;
    if (n == 0 && e && e->desc && e->desc[0])
        snprintf(h5_last_error, sizeof h5_last_error, "%s: %s",
                 e->func_name ? e->func_name : "HDF5", e->desc);
    return 0;
}

static void capture_h5_error(void)
{
    snprintf(h5_last_error, sizeof h5_last_error, "HDF5 error");
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, detail_walk, NULL);
}

/* Checks an HDF5 result inside a function with a `done:` cleanup label. */
#define TRY_H5(call)                                                              \
    do {                                                                           \
        if ((call) < 0) {                                                          \
            capture_h5_error();                                                    \
            goto done;                                                             \
        }                                                                          \
    } while (0)

/* mkdir -p. On failure writes a message naming `dir` and returns -1. */
static int make_dirs(const char *dir, char *err, size_t err_len)
{
    size_t len = strlen(dir);
    char *buf = malloc(len + 1);
    if (!buf) {
        set_err(err, err_len, "cannot create output folder '%s': out of memory", dir);
        return -1;
    }
    memcpy(buf, dir, len + 1);
    int rc = 0;
    for (size_t i = 1; i <= len && rc == 0; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        if (buf[i - 1] == '/') /* repeated or trailing slash */
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        struct stat st;
        if (stat(buf, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                if (strcmp(buf, dir) == 0)
                    set_err(err, err_len, "cannot create output folder '%s': it exists and is not a folder", dir);
                else
                    set_err(err, err_len, "cannot create output folder '%s': '%s' exists and is not a folder", dir, buf);
                rc = -1;
            }
        } else if (mkdir(buf, 0777) != 0) {
            int e = errno;
            if (!(e == EEXIST && stat(buf, &st) == 0 && S_ISDIR(st.st_mode))) {
                if (strcmp(buf, dir) == 0)
                    set_err(err, err_len, "cannot create output folder '%s': %s", dir, strerror(e));
                else
                    set_err(err, err_len, "cannot create output folder '%s': cannot create '%s': %s", dir,
                            buf, strerror(e));
                rc = -1;
            }
        }
        buf[i] = saved;
    }
    free(buf);
    return rc;
}

/* -------------------------------------------------------------- HDF5 helpers */
/* Each returns 0, or -1 with h5_last_error set, and closes what it opened. */

static int close_checked(herr_t (*close_fn)(hid_t), hid_t id)
{
    if (id < 0)
        return 0;
    if (close_fn(id) < 0) {
        capture_h5_error();
        return -1;
    }
    return 0;
}

static hid_t vlen_string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) {
        capture_h5_error();
        return -1;
    }
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        capture_h5_error();
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* A scalar attribute; value points to a const char * for string types. */
static int write_attr(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                      const void *value)
{
    hid_t s = -1, a = -1;
    int rc = -1;
    TRY_H5(s = H5Screate(H5S_SCALAR));
    TRY_H5(a = H5Acreate2(loc, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT));
    TRY_H5(H5Awrite(a, mem_type, value));
    rc = 0;
done:
    if (close_checked(H5Aclose, a) < 0)
        rc = -1;
    if (s >= 0)
        H5Sclose(s);
    return rc;
}

static int write_string_attr(hid_t loc, const char *name, const char *value)
{
    const char *v = value ? value : "";
    hid_t t = vlen_string_type();
    if (t < 0)
        return -1;
    int rc = write_attr(loc, name, t, t, &v);
    H5Tclose(t);
    return rc;
}

/* A contiguous dataset of the given rank and dims (buf may be NULL when it has no
 * elements). Object times are not recorded, so the same run gives the same bytes. */
static int write_dataset(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                         int rank, const hsize_t *dims, const void *buf)
{
    hid_t s = -1, dcpl = -1, d = -1;
    int rc = -1;
    hsize_t count = 1;
    for (int k = 0; k < rank; k++)
        count *= dims[k];
    TRY_H5(s = rank > 0 ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR));
    TRY_H5(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    TRY_H5(H5Pset_obj_track_times(dcpl, 0));
    TRY_H5(d = H5Dcreate2(loc, name, file_type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (count > 0)
        TRY_H5(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    rc = 0;
done:
    if (close_checked(H5Dclose, d) < 0)
        rc = -1;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (s >= 0)
        H5Sclose(s);
    return rc;
}

static int write_column(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                        size_t n, size_t cols, const void *buf)
{
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)cols};
    return write_dataset(loc, name, file_type, mem_type, cols ? 2 : 1, dims, buf);
}

static int write_string_dataset(hid_t loc, const char *name, const char *value)
{
    hid_t t = vlen_string_type();
    if (t < 0)
        return -1;
    int rc = write_dataset(loc, name, t, t, 0, NULL, &value);
    H5Tclose(t);
    return rc;
}

static hid_t create_group(hid_t loc, const char *name)
{
    hid_t gcpl = -1, g = -1;
    TRY_H5(gcpl = H5Pcreate(H5P_GROUP_CREATE));
    TRY_H5(H5Pset_obj_track_times(gcpl, 0));
    TRY_H5(g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT));
done:
    if (gcpl >= 0)
        H5Pclose(gcpl);
    return g;
}

/* -------------------------------------------------------------------- XDMF */

static void xml_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(*s, out);
        }
    }
}

typedef struct xdmf_field {
    const char *name;
    const char *attribute_type;
    const char *number_type;
    int precision;
    int vector;
} xdmf_field;

static const xdmf_field xdmf_fields[] = {
    {"id", "Scalar", "Int", 8, 0},
    {"type", "Scalar", "Int", 4, 0},
    {"radius", "Scalar", "Float", 8, 0},
    {"mass", "Scalar", "Float", 8, 0},
    {"velocity", "Vector", "Float", 8, 1},
    {"angular_velocity", "Vector", "Float", 8, 1},
    {"force", "Vector", "Float", 8, 1},
};

static void xdmf_data_item(FILE *out, const snapshot_file *f, int k, const char *field,
                           const char *number_type, int precision, int vector)
{
    long long n = (long long)f->sizes[k];
    fputs("          <DataItem Dimensions=\"", out);
    if (vector)
        fprintf(out, "%lld 3", n);
    else
        fprintf(out, "%lld", n);
    fprintf(out, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", number_type, precision);
    xml_escaped(out, f->h5_name);
    fprintf(out, ":" SNAP_GROUP "/%06d/%s</DataItem>\n", k, field);
}

static int write_xmf(const snapshot_file *f, char *err, size_t err_len)
{
    FILE *out = fopen(f->xmf_tmp_path, "w");
    if (!out) {
        set_err(err, err_len, "cannot write '%s': %s", f->xmf_tmp_path, strerror(errno));
        return -1;
    }
    setvbuf(out, NULL, _IOFBF, 1 << 20); /* the file grows by ~2 kB per snapshot */
    fputs("<?xml version=\"1.0\" ?>\n"
          "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
          "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
          "  <Domain>\n"
          "    <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
          out);
    for (int k = 0; k < f->count; k++) {
        long long n = (long long)f->sizes[k];
        fprintf(out, "      <Grid Name=\"snapshot_%06d\" GridType=\"Uniform\">\n", k);
        fprintf(out, "        <Time Value=\"%.17g\" />\n", f->times[k]);
        fprintf(out, "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%lld\" "
                     "NodesPerElement=\"1\">\n", n);
        fprintf(out, "          <DataItem ItemType=\"HyperSlab\" Type=\"HyperSlab\" "
                     "Dimensions=\"%lld\">\n", n);
        fprintf(out, "            <DataItem Dimensions=\"3 1\" NumberType=\"Int\" "
                     "Format=\"XML\">0 1 %lld</DataItem>\n", n);
        fprintf(out, "            <DataItem Dimensions=\"%lld\" NumberType=\"Int\" Precision=\"8\" "
                     "Format=\"HDF\">", (long long)f->vertex_len);
        xml_escaped(out, f->h5_name);
        fputs(":" VERTEX_INDEX "</DataItem>\n"
              "          </DataItem>\n"
              "        </Topology>\n", out);
        fputs("        <Geometry GeometryType=\"XYZ\">\n", out);
        xdmf_data_item(out, f, k, "position", "Float", 8, 1);
        fputs("        </Geometry>\n", out);
        for (size_t a = 0; a < sizeof xdmf_fields / sizeof xdmf_fields[0]; a++) {
            const xdmf_field *x = &xdmf_fields[a];
            fprintf(out, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n",
                    x->name, x->attribute_type);
            xdmf_data_item(out, f, k, x->name, x->number_type, x->precision, x->vector);
            fputs("        </Attribute>\n", out);
        }
        fputs("      </Grid>\n", out);
    }
    fputs("    </Grid>\n"
          "  </Domain>\n"
          "</Xdmf>\n",
          out);
    int failed = ferror(out);
    int e = errno;
    if (fclose(out) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        set_err(err, err_len, "cannot write '%s': %s", f->xmf_tmp_path, strerror(e));
        remove(f->xmf_tmp_path);
        return -1;
    }
    if (rename(f->xmf_tmp_path, f->xmf_path) != 0) {
        set_err(err, err_len, "cannot rename '%s' to '%s': %s", f->xmf_tmp_path, f->xmf_path,
                strerror(errno));
        remove(f->xmf_tmp_path);
        return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- public API */

static void free_file(snapshot_file *f)
{
    if (!f)
        return;
    free(f->h5_path);
    free(f->xmf_path);
    free(f->xmf_tmp_path);
    free(f->h5_name);
    free(f->times);
    free(f->sizes);
    free(f->scratch);
    free(f);
}

static int write_header(hid_t file, const snapshot_run_info *info)
{
    double dt = info ? info->dt : 0.0;
    if (write_string_attr(file, "dempact_version", info ? info->version : NULL) < 0 ||
        write_string_attr(file, "build", info ? info->build : NULL) < 0 ||
        write_string_attr(file, "case_name", info ? info->case_name : NULL) < 0 ||
        write_attr(file, "dt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &dt) < 0)
        return -1;
    if (info && info->case_text && write_string_dataset(file, "case_text", info->case_text) < 0)
        return -1;
    hid_t g = create_group(file, SNAP_GROUP);
    if (g < 0)
        return -1;
    return close_checked(H5Gclose, g);
}

/* Creates the HDF5 file with the header written and flushed; -1 with h5_last_error. */
static hid_t create_h5(const char *path, const snapshot_run_info *info)
{
    hid_t fapl = -1, file = -1;
    TRY_H5(fapl = H5Pcreate(H5P_FILE_ACCESS));
    /* The 1.8 object format: readable by every HDF5 >= 1.8 (h5py, ParaView, VisIt). */
    TRY_H5(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18));
    /* No file lock, so that readers can open the file while the run is going on. */
    TRY_H5(H5Pset_file_locking(fapl, 0, 1));
    TRY_H5(file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    if (write_header(file, info) < 0)
        goto done;
    TRY_H5(H5Fflush(file, H5F_SCOPE_LOCAL));
    H5Pclose(fapl);
    return file;
done:
    if (file >= 0)
        H5Fclose(file);
    if (fapl >= 0)
        H5Pclose(fapl);
    return -1;
}

snapshot_file *snapshot_create(const char *dir, const char *name,
                               const snapshot_run_info *info, char *err, size_t err_len)
{
    if (!name || !name[0]) {
        set_err(err, err_len, "snapshot output: empty run name");
        return NULL;
    }
    if (strchr(name, '/') || strchr(name, ':')) {
        set_err(err, err_len, "snapshot output: run name '%s' must not contain '/' or ':'", name);
        return NULL;
    }
    int has_dir = dir && dir[0];
    if (has_dir && make_dirs(dir, err, err_len) < 0)
        return NULL;

    snapshot_file *f = calloc(1, sizeof *f);
    if (!f) {
        set_err(err, err_len, "snapshot output: out of memory");
        return NULL;
    }
    f->file = -1;
    const char *sep = has_dir && dir[strlen(dir) - 1] != '/' ? "/" : "";
    const char *d = has_dir ? dir : "";
    f->h5_name = str_printf("%s.h5", name);
    f->h5_path = str_printf("%s%s%s.h5", d, sep, name);
    f->xmf_path = str_printf("%s%s%s.xmf", d, sep, name);
    f->xmf_tmp_path = str_printf("%s%s%s.xmf.tmp", d, sep, name);
    if (!f->h5_name || !f->h5_path || !f->xmf_path || !f->xmf_tmp_path) {
        set_err(err, err_len, "snapshot output: out of memory");
        free_file(f);
        return NULL;
    }

    /* Probe with plain open() first: its errno gives a clearer message than HDF5's
     * stack for the usual failures (permissions, a folder in the way, ...). */
    int fd = open(f->h5_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        set_err(err, err_len, "cannot create '%s': %s", f->h5_path, strerror(errno));
        free_file(f);
        return NULL;
    }
    close(fd);

    h5_quiet q;
    quiet_begin(&q);
    f->file = create_h5(f->h5_path, info);
    quiet_end(&q);
    if (f->file < 0) {
        set_err(err, err_len, "cannot create HDF5 file '%s': %s", f->h5_path, h5_last_error);
        remove(f->h5_path);
        free_file(f);
        return NULL;
    }
    if (write_xmf(f, err, err_len) < 0) {
        quiet_begin(&q);
        H5Fclose(f->file);
        quiet_end(&q);
        remove(f->h5_path);
        free_file(f);
        return NULL;
    }
    return f;
}

static int ensure_capacity(snapshot_file *f, size_t n)
{
    if (f->count >= f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        double *t = realloc(f->times, (size_t)cap * sizeof *t);
        if (!t)
            return -1;
        f->times = t;
        int64_t *s = realloc(f->sizes, (size_t)cap * sizeof *s);
        if (!s)
            return -1;
        f->sizes = s;
        f->cap = cap;
    }
    if (3 * n > f->scratch_cap) {
        double *b = realloc(f->scratch, 3 * n * sizeof *b);
        if (!b)
            return -1;
        f->scratch = b;
        f->scratch_cap = 3 * n;
    }
    return 0;
}

/* Makes /vertex_index at least n long: writes a longer one under a temporary name
 * and swaps it in (grids already in the .xmf use a prefix of it, which stays the same).
 * Grows by half at least, so that a slowly growing particle count does not rewrite it
 * at every snapshot. */
static int ensure_vertex_index(snapshot_file *f, size_t n)
{
    int64_t need = (int64_t)n > f->max_n ? (int64_t)n : f->max_n; /* see the error path */
    if (need <= f->vertex_len)
        return 0;
    int64_t len = f->vertex_len + f->vertex_len / 2;
    if (len < need)
        len = need;
    int64_t *v = malloc((size_t)len * sizeof *v);
    if (!v) {
        snprintf(h5_last_error, sizeof h5_last_error, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < len; i++)
        v[i] = i;
    if (H5Lexists(f->file, VERTEX_INDEX_TMP, H5P_DEFAULT) > 0)
        H5Ldelete(f->file, VERTEX_INDEX_TMP, H5P_DEFAULT);
    int rc = write_column(f->file, VERTEX_INDEX_TMP, H5T_STD_I64LE, H5T_NATIVE_INT64,
                          (size_t)len, 0, v);
    free(v);
    if (rc < 0)
        return -1;
    if ((f->vertex_len > 0 && H5Ldelete(f->file, VERTEX_INDEX, H5P_DEFAULT) < 0) ||
        H5Lmove(f->file, VERTEX_INDEX_TMP, f->file, VERTEX_INDEX, H5P_DEFAULT, H5P_DEFAULT) < 0) {
        capture_h5_error();
        /* the old index may be gone: start again from nothing next time */
        if (H5Lexists(f->file, VERTEX_INDEX, H5P_DEFAULT) <= 0)
            f->vertex_len = 0;
        H5Ldelete(f->file, VERTEX_INDEX_TMP, H5P_DEFAULT);
        return -1;
    }
    f->vertex_len = len;
    return 0;
}

static const double *gather3(double *buf, size_t n, const double *a, const double *b,
                             const double *c)
{
    for (size_t i = 0; i < n; i++) {
        buf[3 * i + 0] = a[i];
        buf[3 * i + 1] = b[i];
        buf[3 * i + 2] = c[i];
    }
    return buf;
}

/* Fills the (open, empty) temporary group g with snapshot data. */
static int fill_group(snapshot_file *f, hid_t g, const particle_store *p, double time,
                      int64_t step)
{
    size_t n = p->n_local;
    int64_t n64 = (int64_t)n;
    double *buf = f->scratch;
    if (write_attr(g, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time) < 0 ||
        write_attr(g, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, &step) < 0 ||
        write_attr(g, "n_particles", H5T_STD_I64LE, H5T_NATIVE_INT64, &n64) < 0)
        return -1;
    if (write_column(g, "id", H5T_STD_I64LE, H5T_NATIVE_INT64, n, 0, p->id) < 0 ||
        write_column(g, "type", H5T_STD_I32LE, H5T_NATIVE_INT32, n, 0, p->type) < 0 ||
        write_column(g, "radius", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 0, p->radius) < 0 ||
        write_column(g, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 0, p->mass) < 0)
        return -1;
    if (write_column(g, "position", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 3,
                     gather3(buf, n, p->x, p->y, p->z)) < 0 ||
        write_column(g, "velocity", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 3,
                     gather3(buf, n, p->vx, p->vy, p->vz)) < 0 ||
        write_column(g, "angular_velocity", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 3,
                     gather3(buf, n, p->wx, p->wy, p->wz)) < 0 ||
        write_column(g, "force", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 3,
                     gather3(buf, n, p->fx, p->fy, p->fz)) < 0)
        return -1;
    return 0;
}

/* Writes the snapshot under TMP_GROUP and moves it to final_name. On failure the
 * temporary group is removed and h5_last_error says why. */
static int write_group(snapshot_file *f, const particle_store *p, double time, int64_t step,
                       const char *final_name)
{
    /* a leftover from an earlier failed write */
    if (H5Lexists(f->file, TMP_GROUP, H5P_DEFAULT) > 0)
        H5Ldelete(f->file, TMP_GROUP, H5P_DEFAULT);
    hid_t g = create_group(f->file, TMP_GROUP);
    if (g < 0)
        return -1;
    int rc = fill_group(f, g, p, time, step);
    if (close_checked(H5Gclose, g) < 0)
        rc = -1;
    if (rc == 0 && H5Lmove(f->file, TMP_GROUP, f->file, final_name, H5P_DEFAULT, H5P_DEFAULT) < 0) {
        capture_h5_error();
        rc = -1;
    }
    if (rc < 0)
        H5Ldelete(f->file, TMP_GROUP, H5P_DEFAULT);
    return rc;
}

int snapshot_write(snapshot_file *f, const particle_store *p, double time, int64_t step,
                   char *err, size_t err_len)
{
    if (!f || !p) {
        set_err(err, err_len, "snapshot_write: no file or no particles");
        return -1;
    }
    if (!isfinite(time)) {
        set_err(err, err_len, "cannot write snapshot %d to '%s': time is not finite", f->count,
                f->h5_path);
        return -1;
    }
    size_t n = p->n_local;
    if (n > p->n_total ||
        (n > 0 && (!p->id || !p->type || !p->radius || !p->mass || !p->x || !p->y || !p->z ||
                   !p->vx || !p->vy || !p->vz || !p->wx || !p->wy || !p->wz || !p->fx ||
                   !p->fy || !p->fz))) {
        set_err(err, err_len, "cannot write snapshot %d to '%s': inconsistent particle store",
                f->count, f->h5_path);
        return -1;
    }
    if (ensure_capacity(f, n) < 0) {
        set_err(err, err_len, "cannot write snapshot %d to '%s': out of memory", f->count,
                f->h5_path);
        return -1;
    }

    char final_name[64];
    snprintf(final_name, sizeof final_name, SNAP_GROUP "/%06d", f->count);
    h5_quiet q;
    quiet_begin(&q);
    if (ensure_vertex_index(f, n) < 0 || write_group(f, p, time, step, final_name) < 0) {
        quiet_end(&q);
        set_err(err, err_len, "cannot write snapshot %d to '%s': %s", f->count, f->h5_path,
                h5_last_error);
        return -1;
    }
    /* The snapshot is complete and in place: count it even if the flush fails. */
    f->times[f->count] = time;
    f->sizes[f->count] = (int64_t)n;
    f->count++;
    if ((int64_t)n > f->max_n)
        f->max_n = (int64_t)n;
    herr_t flushed = H5Fflush(f->file, H5F_SCOPE_LOCAL);
    if (flushed < 0)
        capture_h5_error();
    quiet_end(&q);
    if (flushed < 0) {
        set_err(err, err_len, "cannot flush '%s': %s", f->h5_path, h5_last_error);
        return -1;
    }
    return write_xmf(f, err, err_len);
}

int snapshot_count(const snapshot_file *f) { return f ? f->count : 0; }
const char *snapshot_h5_path(const snapshot_file *f) { return f ? f->h5_path : NULL; }
const char *snapshot_xmf_path(const snapshot_file *f) { return f ? f->xmf_path : NULL; }

int snapshot_close(snapshot_file *f)
{
    if (!f)
        return 0;
    int rc = 0;
    if (f->file >= 0) {
        h5_quiet q;
        quiet_begin(&q);
        if (H5Fclose(f->file) < 0)
            rc = -1;
        quiet_end(&q);
    }
    free_file(f);
    return rc;
}
