/* Snapshot output: HDF5 file + XDMF 3 sidecar. See snapshot.h for the layout and
 * snapshot_journal.h for what makes it crash-safe. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot.h"
#include "h5_read.h"
#include "snapshot_internal.h"
#include "snapshot_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define SNAP_GROUP "/snapshots"
#define TS_GROUP "/timeseries"
/* 0, 1, 2, ...: the connectivity the .xmf gives each grid (a hyperslab of its first
 * entries). ParaView's XDMF 3 reader makes no cells from a topology without
 * connectivity. One shared, growing array keeps the snapshots themselves plain. */
#define VERTEX_INDEX "/vertex_index"
/* 0.0, 0.0, ...: the point array "radius" of the contacts block in the .xmf (a prefix of
 * it), so that a Glyph scaled by radius over both blocks draws nothing at the ends of
 * the force-chain segments. As long as /vertex_index. */
#define ZEROS "/zeros"
#define TS_CHUNK 512
#define VERTEX_CHUNK 4096

/* The time-series columns: dataset name, member of sim_observables, integer or not,
 * unit, meaning. */
typedef struct ts_column {
    const char *name;
    size_t offset;
    int is_int;
    const char *unit, *meaning;
} ts_column;

static const ts_column ts_columns[] = {
    {"time", offsetof(sim_observables, time), 0, "s", "simulated time"},
    {"step", offsetof(sim_observables, step), 1, "", "step number"},
    {"kinetic_energy", offsetof(sim_observables, kinetic_energy), 0, "J",
     "translational kinetic energy, sum 1/2 m v^2"},
    {"rotational_energy", offsetof(sim_observables, rotational_energy), 0, "J",
     "rotational kinetic energy, sum 1/2 I w^2"},
    {"gravitational_energy", offsetof(sim_observables, gravitational_energy), 0, "J",
     "potential energy in gravity, sum -m g.x (zero at the origin)"},
    {"elastic_energy", offsetof(sim_observables, elastic_energy), 0, "J",
     "elastic energy stored in the contacts"},
    {"dissipated_damping", offsetof(sim_observables, dissipated_damping), 0, "J",
     "energy dissipated by the normal dashpots since t = 0"},
    {"dissipated_friction", offsetof(sim_observables, dissipated_friction), 0, "J",
     "energy dissipated by tangential friction since t = 0"},
    {"dissipated_rolling", offsetof(sim_observables, dissipated_rolling), 0, "J",
     "energy dissipated by rolling resistance since t = 0"},
    {"dissipated_plasticity", offsetof(sim_observables, dissipated_plasticity), 0, "J",
     "energy dissipated by plastic deformation since t = 0"},
    {"energy_residual", offsetof(sim_observables, energy_residual), 0, "J",
     "energy balance residual (time integration): kinetic + gravitational + elastic + "
     "dissipated - the same at t = 0 - work of moving walls; NaN with inlets or outlets"},
    {"n_contacts", offsetof(sim_observables, n_contacts), 1, "",
     "touching particle-particle pairs"},
    {"n_wall_contacts", offsetof(sim_observables, n_wall_contacts), 1, "",
     "touching particle-wall pairs"},
    {"max_overlap", offsetof(sim_observables, max_overlap), 0, "m",
     "largest overlap of any contact"},
    {"inserted_mass", offsetof(sim_observables, inserted_mass), 0, "kg",
     "mass the inlets put in since t = 0"},
    {"discharged_mass", offsetof(sim_observables, discharged_mass), 0, "kg",
     "mass the outlets took out since t = 0"},
};
#define N_TS_COLUMNS (sizeof ts_columns / sizeof ts_columns[0])

/* The per-wall time series, (T, W, 3) each, in the order of sim_observables' buffers. */
static const struct { const char *name, *unit, *meaning; } wall_series[] = {
    {"wall_force", "N", "force the particles exert on each wall (order of wall_names)"},
    {"wall_torque", "N m", "torque the particles exert on each wall about its reference "
                           "point: a rotating wall's rotation point, else the wall's point, "
                           "carried with the wall's translation"},
};
#define N_WALL_SERIES 2

struct snapshot_file {
    hid_t file;
    char *h5_path, *xmf_path, *xmf_tmp_path;
    char *h5_name; /* NAME.h5, as the .xmf refers to it */
    int count, cap;
    snapshot_meta *meta;
    double *scratch; /* 3 N doubles for gathering vectors */
    size_t scratch_cap;
    int64_t vertex_len; /* length of /vertex_index */
    size_t n_walls;
    int64_t ts_rows;    /* samples in the file */
    sim_observables *samples; /* buffered samples */
    double *sample_walls[N_WALL_SERIES]; /* 3 n_walls per buffered sample, per series */
    size_t n_samples, cap_samples;
    int failed;         /* a write failed: refuse further writes */
    int xmf_pending;    /* snapshots committed since the .xmf was last rewritten */
    double xmf_time;    /* when it was (monotonic clock, s) */
    uint64_t last_size;
};

/* ---------------------------------------------------------------- small helpers */

static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return;
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
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char *snapshot_xmf_path_for(const char *h5_path)
{
    size_t n = strlen(h5_path);
    if (n >= 3 && !strcmp(h5_path + n - 3, ".h5")) n -= 3;
    return str_printf("%.*s.xmf", (int)n, h5_path);
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
static char h5_last_error[512];

static herr_t detail_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)data;
    if (n == 0 && e && e->desc && e->desc[0]) snprintf(h5_last_error, sizeof h5_last_error, "%s", e->desc);
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

/* Why a write to f failed: the system error behind it if there is one (a full disk
 * says "No space left on device"), else HDF5's message. */
static const char *failure_reason(const snapshot_file *f)
{
    int e = f && f->file >= 0 ? journal_last_errno(f->file) : 0;
    return e ? strerror(e) : h5_last_error;
}

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
        if (buf[i] != '/' && buf[i] != '\0') continue;
        if (buf[i - 1] == '/') continue; /* repeated or trailing slash */
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
    if (id < 0) return 0;
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

/* An attribute, scalar or 1-D of n values (n > 0); value points to const char * for
 * string types. */
static int write_attr_n(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                        hsize_t n, const void *value)
{
    hid_t s = -1, a = -1;
    int rc = -1;
    TRY_H5(s = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL));
    TRY_H5(a = H5Acreate2(loc, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT));
    TRY_H5(H5Awrite(a, mem_type, value));
    rc = 0;
done:
    if (close_checked(H5Aclose, a) < 0) rc = -1;
    if (s >= 0) H5Sclose(s);
    return rc;
}

static int write_attr(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                      const void *value)
{
    return write_attr_n(loc, name, file_type, mem_type, 0, value);
}

static int write_string_attr(hid_t loc, const char *name, const char *value)
{
    const char *v = value ? value : "";
    hid_t t = vlen_string_type();
    if (t < 0) return -1;
    int rc = write_attr(loc, name, t, t, &v);
    H5Tclose(t);
    return rc;
}

static int read_attr(hid_t loc, const char *obj, const char *name, hid_t mem_type, void *value)
{
    hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) {
        capture_h5_error();
        return -1;
    }
    int rc = 0;
    if (H5Aread(a, mem_type, value) < 0) {
        capture_h5_error();
        rc = -1;
    }
    H5Aclose(a);
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
    for (int k = 0; k < rank; k++) count *= dims[k];
    TRY_H5(s = rank > 0 ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR));
    TRY_H5(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    TRY_H5(H5Pset_obj_track_times(dcpl, 0));
    TRY_H5(d = H5Dcreate2(loc, name, file_type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (count > 0) TRY_H5(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    rc = 0;
done:
    if (close_checked(H5Dclose, d) < 0) rc = -1;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (s >= 0) H5Sclose(s);
    return rc;
}

/* n rows of `cols` values (cols == 0: a 1-D dataset). */
static int write_column(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                        size_t n, size_t cols, const void *buf)
{
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)cols};
    return write_dataset(loc, name, file_type, mem_type, cols ? 2 : 1, dims, buf);
}

static int write_string_dataset(hid_t loc, const char *name, const char *value)
{
    hid_t t = vlen_string_type();
    if (t < 0) return -1;
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
    if (gcpl >= 0) H5Pclose(gcpl);
    return g;
}

/* An empty chunked dataset that grows along its first axis: dims (0, rest...). */
static int create_extendible(hid_t loc, const char *name, hid_t type, int rank,
                             const hsize_t *rest, hsize_t chunk_rows, const char *unit,
                             const char *meaning)
{
    hsize_t dims[3] = {0, 1, 1}, maxdims[3] = {H5S_UNLIMITED, 1, 1}, chunk[3] = {chunk_rows, 1, 1};
    for (int k = 1; k < rank; k++) dims[k] = maxdims[k] = chunk[k] = rest[k - 1];
    hid_t s = -1, dcpl = -1, d = -1;
    int rc = -1;
    TRY_H5(s = H5Screate_simple(rank, dims, maxdims));
    TRY_H5(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    TRY_H5(H5Pset_obj_track_times(dcpl, 0));
    TRY_H5(H5Pset_chunk(dcpl, rank, chunk));
    TRY_H5(d = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if ((unit && write_string_attr(d, "unit", unit) < 0) ||
        (meaning && write_string_attr(d, "meaning", meaning) < 0))
        goto done;
    rc = 0;
done:
    if (close_checked(H5Dclose, d) < 0) rc = -1;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (s >= 0) H5Sclose(s);
    return rc;
}

/* Writes rows [at, at + n) of an extendible dataset, growing it to at + n rows. */
static int write_rows(hid_t loc, const char *name, hid_t mem_type, hsize_t at, hsize_t n,
                      const void *buf)
{
    hid_t d = -1, fs = -1, ms = -1;
    int rc = -1;
    hsize_t dims[3], start[3] = {0, 0, 0}, count[3];
    TRY_H5(d = H5Dopen2(loc, name, H5P_DEFAULT));
    TRY_H5(fs = H5Dget_space(d));
    int rank = H5Sget_simple_extent_ndims(fs);
    if (rank < 1 || rank > 3) goto done;
    H5Sget_simple_extent_dims(fs, dims, NULL);
    H5Sclose(fs);
    fs = -1;
    dims[0] = at + n;
    TRY_H5(H5Dset_extent(d, dims));
    if (n > 0) {
        TRY_H5(fs = H5Dget_space(d));
        start[0] = at;
        count[0] = n;
        for (int k = 1; k < rank; k++) count[k] = dims[k];
        TRY_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        TRY_H5(ms = H5Screate_simple(rank, count, NULL));
        TRY_H5(H5Dwrite(d, mem_type, ms, fs, H5P_DEFAULT, buf));
    }
    rc = 0;
done:
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    if (close_checked(H5Dclose, d) < 0) rc = -1;
    return rc;
}

/* The first dimension of a dataset, or -1. */
static int64_t dataset_rows(hid_t loc, const char *name)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) {
        capture_h5_error();
        return -1;
    }
    hid_t s = H5Dget_space(d);
    hsize_t dims[3] = {0, 0, 0};
    int64_t n = -1;
    if (s >= 0 && H5Sget_simple_extent_ndims(s) >= 1 && H5Sget_simple_extent_dims(s, dims, NULL) >= 1)
        n = (int64_t)dims[0];
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
    return n;
}

static int set_rows(hid_t loc, const char *name, hsize_t rows)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT), s = -1;
    int rc = -1;
    hsize_t dims[3];
    if (d < 0) {
        capture_h5_error();
        return -1;
    }
    TRY_H5(s = H5Dget_space(d));
    H5Sget_simple_extent_dims(s, dims, NULL);
    dims[0] = rows;
    TRY_H5(H5Dset_extent(d, dims));
    rc = 0;
done:
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
    return rc;
}

/* ------------------------------------------------------------ file and header */

static void free_file(snapshot_file *f)
{
    if (!f) return;
    free(f->h5_path);
    free(f->xmf_path);
    free(f->xmf_tmp_path);
    free(f->h5_name);
    free(f->meta);
    free(f->scratch);
    free(f->samples);
    for (int k = 0; k < N_WALL_SERIES; k++) free(f->sample_walls[k]);
    free(f);
}

static int write_case_text(hid_t file, const char *text)
{
    if (H5Lexists(file, "case_text", H5P_DEFAULT) > 0 && H5Ldelete(file, "case_text", H5P_DEFAULT) < 0) {
        capture_h5_error();
        return -1;
    }
    return text ? write_string_dataset(file, "case_text", text) : 0;
}

static int write_header(snapshot_file *f, const snapshot_run_info *info)
{
    hid_t file = f->file;
    double dt = info ? info->dt : 0.0;
    int32_t format = SNAPSHOT_FORMAT;
    if (write_string_attr(file, "dempact_version", info ? info->version : NULL) < 0 ||
        write_string_attr(file, "build", info ? info->build : NULL) < 0 ||
        write_string_attr(file, "case_name", info ? info->case_name : NULL) < 0 ||
        write_attr(file, "dt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &dt) < 0 ||
        write_attr(file, "format", H5T_STD_I32LE, H5T_NATIVE_INT32, &format) < 0)
        return -1;
    if (f->n_walls > 0) {
        const char **names = malloc(f->n_walls * sizeof *names);
        if (!names) {
            snprintf(h5_last_error, sizeof h5_last_error, "out of memory");
            return -1;
        }
        for (size_t w = 0; w < f->n_walls; w++) names[w] = info->walls->walls[w].name;
        hid_t t = vlen_string_type();
        int rc = t < 0 ? -1 : write_attr_n(file, "wall_names", t, t, f->n_walls, names);
        if (t >= 0) H5Tclose(t);
        free(names);
        if (rc < 0) return -1;
    }
    if (info && write_case_text(file, info->case_text) < 0) return -1;
    hid_t g = create_group(file, SNAP_GROUP);
    if (g < 0 || close_checked(H5Gclose, g) < 0) return -1;
    g = create_group(file, TS_GROUP);
    if (g < 0) return -1;
    for (size_t c = 0; c < N_TS_COLUMNS; c++) {
        const ts_column *col = &ts_columns[c];
        if (create_extendible(g, col->name, col->is_int ? H5T_STD_I64LE : H5T_IEEE_F64LE, 1, NULL,
                              TS_CHUNK, col->unit, col->meaning) < 0) {
            H5Gclose(g);
            return -1;
        }
    }
    for (int k = 0; k < N_WALL_SERIES && f->n_walls > 0; k++) {
        hsize_t rest[2] = {f->n_walls, 3};
        hsize_t rows = 4096 / (3 * f->n_walls) + 1;
        if (create_extendible(g, wall_series[k].name, H5T_IEEE_F64LE, 3, rest, rows,
                              wall_series[k].unit, wall_series[k].meaning) < 0) {
            H5Gclose(g);
            return -1;
        }
    }
    if (close_checked(H5Gclose, g) < 0) return -1;
    return create_extendible(file, VERTEX_INDEX, H5T_STD_I64LE, 1, NULL, VERTEX_CHUNK, NULL,
                             "0, 1, 2, ...: cell connectivity for the .xmf") < 0 ||
                   create_extendible(file, ZEROS, H5T_IEEE_F64LE, 1, NULL, VERTEX_CHUNK, NULL,
                                     "zeros: radius of the contact block's points in the .xmf") < 0
               ? -1
               : 0;
}

/* A file access property list for the journaled driver, the 1.8 object format
 * (readable by every HDF5 >= 1.8: h5py, ParaView, VisIt) and no file locking (readers
 * may open the file while the run goes on). */
static hid_t writer_fapl(void)
{
    hid_t fapl = journal_fapl();
    if (fapl < 0) {
        capture_h5_error();
        return -1;
    }
    /* H5F_CLOSE_STRONG: closing the file closes whatever a failed write left open */
    if (H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
        H5Pset_file_locking(fapl, 0, 1) < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
        capture_h5_error();
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

static int flush_and_commit(snapshot_file *f, char *err, size_t err_len)
{
    if (H5Fflush(f->file, H5F_SCOPE_LOCAL) < 0) {
        capture_h5_error();
        set_err(err, err_len, "cannot write '%s': %s", f->h5_path, failure_reason(f));
        return -1;
    }
    return journal_commit(f->file, err, err_len);
}

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int rewrite_xmf(snapshot_file *f, char *err, size_t err_len)
{
    int rc = snapshot_xdmf_write(f->xmf_path, f->xmf_tmp_path, f->h5_name, f->meta, f->count,
                                 f->vertex_len, err, err_len);
    if (rc == 0) {
        f->xmf_pending = 0;
        f->xmf_time = monotonic_seconds();
    }
    return rc;
}

/* After a commit: the whole .xmf is rewritten (about 6 kB per snapshot), at most every
 * 2 s once it holds more than 200 snapshots, so that long runs do not spend their time
 * rewriting it; snapshot_flush and snapshot_close catch up. */
static int update_xmf(snapshot_file *f, char *err, size_t err_len)
{
    f->xmf_pending++;
    if (f->count > 200 && monotonic_seconds() - f->xmf_time < 2.0) return 0;
    return rewrite_xmf(f, err, err_len);
}

static snapshot_file *new_file(const char *h5_path, const snapshot_run_info *info)
{
    snapshot_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->file = -1;
    f->h5_path = strdup(h5_path);
    f->xmf_path = snapshot_xmf_path_for(h5_path);
    f->xmf_tmp_path = f->xmf_path ? str_printf("%s.tmp", f->xmf_path) : NULL;
    char *copy = strdup(h5_path);
    f->h5_name = copy ? strdup(basename(copy)) : NULL;
    free(copy);
    f->n_walls = info && info->walls ? info->walls->n : 0;
    if (!f->h5_path || !f->xmf_path || !f->xmf_tmp_path || !f->h5_name) {
        free_file(f);
        return NULL;
    }
    return f;
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
    if (has_dir && make_dirs(dir, err, err_len) < 0) return NULL;
    const char *sep = has_dir && dir[strlen(dir) - 1] != '/' ? "/" : "";
    char *h5_path = str_printf("%s%s%s.h5", has_dir ? dir : "", sep, name);
    char *new_path = h5_path ? str_printf("%s.new", h5_path) : NULL;
    snapshot_file *f = new_path ? new_file(h5_path, info) : NULL;
    if (!f) {
        set_err(err, err_len, "snapshot output: out of memory");
        free(h5_path);
        free(new_path);
        return NULL;
    }
    free(h5_path);

    if (journal_in_use(f->h5_path) || journal_in_use(new_path)) {
        set_err(err, err_len, "cannot create '%s': it is being written by another process (a "
                              "dempact run still going on?)", f->h5_path);
        free(new_path);
        free_file(f);
        return NULL;
    }
    /* Probe with plain open() first: its errno gives a clearer message than HDF5's
     * stack for the usual failures (permissions, a read-only file system, ...). */
    int fd = open(new_path, O_WRONLY | O_CREAT, 0666);
    if (fd < 0) {
        set_err(err, err_len, "cannot create '%s': %s", new_path, strerror(errno));
        goto fail;
    }
    close(fd);

    h5_quiet q;
    quiet_begin(&q);
    hid_t fapl = writer_fapl();
    if (fapl >= 0) {
        f->file = H5Fcreate(new_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (f->file < 0) capture_h5_error();
        H5Pclose(fapl);
    }
    int ok = f->file >= 0 && write_header(f, info) == 0;
    if (!ok) set_err(err, err_len, "cannot create '%s': %s", f->h5_path, failure_reason(f));
    if (ok && flush_and_commit(f, err, err_len) != 0) {
        set_err(err, err_len, "cannot create '%s': %s", f->h5_path, failure_reason(f));
        ok = 0;
    }
    quiet_end(&q);
    if (!ok) goto fail;
    /* Only now replace an earlier run's files (and drop its journal, if a crash left
     * one: it belongs to the file being replaced). The empty .xmf first: if it cannot
     * be written, nothing was replaced. */
    if (rewrite_xmf(f, err, err_len) < 0) goto fail;
    char *old_journal = journal_path_for(f->h5_path);
    if (old_journal) unlink(old_journal);
    free(old_journal);
    if (rename(new_path, f->h5_path) != 0) {
        set_err(err, err_len, "cannot rename '%s' to '%s': %s", new_path, f->h5_path, strerror(errno));
        goto fail;
    }
    journal_rename(f->file, f->h5_path);
    io_sync_parent(f->h5_path);
    free(new_path);
    return f;
fail:
    if (f->file >= 0) {
        quiet_begin(&q);
        journal_abandon(f->file);
        H5Fclose(f->file);
        quiet_end(&q);
        f->file = -1;
    }
    remove(new_path);
    free(new_path);
    free_file(f);
    return NULL;
}

/* ------------------------------------------------------------------ snapshots */

static int ensure_capacity(snapshot_file *f, size_t n)
{
    if (f->count >= f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        snapshot_meta *m = realloc(f->meta, (size_t)cap * sizeof *m);
        if (!m) return -1;
        f->meta = m;
        f->cap = cap;
    }
    if (3 * n > f->scratch_cap) {
        double *b = realloc(f->scratch, 3 * n * sizeof *b);
        if (!b) return -1;
        f->scratch = b;
        f->scratch_cap = 3 * n;
    }
    return 0;
}

/* Makes /vertex_index at least n long (it only grows: grids already in the .xmf use a
 * prefix of it). Grows by half at least. */
static int ensure_vertex_index(snapshot_file *f, int64_t n)
{
    if (n <= f->vertex_len) return 0;
    int64_t len = f->vertex_len + f->vertex_len / 2;
    if (len < n) len = n;
    int64_t add = len - f->vertex_len;
    int64_t *v = malloc((size_t)add * sizeof *v);
    if (!v) {
        snprintf(h5_last_error, sizeof h5_last_error, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < add; i++) v[i] = f->vertex_len + i;
    int rc = write_rows(f->file, VERTEX_INDEX, H5T_NATIVE_INT64, (hsize_t)f->vertex_len,
                        (hsize_t)add, v);
    double *z = (double *)(void *)v; /* same size */
    for (int64_t i = 0; i < add; i++) z[i] = 0.0;
    if (rc == 0)
        rc = write_rows(f->file, ZEROS, H5T_NATIVE_DOUBLE, (hsize_t)f->vertex_len, (hsize_t)add, z);
    free(v);
    if (rc == 0) f->vertex_len = len;
    return rc;
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

#define F64 H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE
#define I64 H5T_STD_I64LE, H5T_NATIVE_INT64
#define I32 H5T_STD_I32LE, H5T_NATIVE_INT32
#define U8 H5T_STD_U8LE, H5T_NATIVE_UINT8

/* Per-particle contact counts and energies (N each: two doubles and an int32). */
static int particle_extras(const snapshot_state *st, int32_t *n_contacts, double *ek, double *er)
{
    const particle_store *p = st->p;
    size_t n = p->n_local;
    if (n == 0) return 0; /* no particles (yet): nothing to count, and no buffers */
    memset(n_contacts, 0, n * sizeof *n_contacts);
    const contact_list *lists[2] = {st->pairs, st->walls ? st->wall_pairs : NULL};
    for (int L = 0; L < 2; L++) {
        const contact_list *c = lists[L];
        if (!c) continue;
        for (size_t k = 0; k < c->n; k++) {
            if (!c->touching[k]) continue;
            if (c->i[k] < n) n_contacts[c->i[k]]++;
            if (L == 0 && c->owner_j[k] < n) n_contacts[c->owner_j[k]]++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        double w2 = p->wx[i] * p->wx[i] + p->wy[i] * p->wy[i] + p->wz[i] * p->wz[i];
        ek[i] = 0.5 * p->mass[i] * v2;
        er[i] = p->inv_inertia ? 0.5 * w2 / p->inv_inertia[i] : 0.0;
    }
    return 0;
}

static int write_particles(snapshot_file *f, hid_t g, const snapshot_state *st)
{
    const particle_store *p = st->p;
    size_t n = p->n_local;
    int64_t n64 = (int64_t)n;
    double *buf = f->scratch;
    if (write_attr(g, "time", F64, &st->time) < 0 || write_attr(g, "step", I64, &st->step) < 0 ||
        write_attr(g, "n_particles", I64, &n64) < 0)
        return -1;
    if (write_column(g, "id", I64, n, 0, p->id) < 0 || write_column(g, "type", I32, n, 0, p->type) < 0 ||
        write_column(g, "radius", F64, n, 0, p->radius) < 0 ||
        write_column(g, "mass", F64, n, 0, p->mass) < 0 ||
        write_column(g, "position", F64, n, 3, gather3(buf, n, p->x, p->y, p->z)) < 0 ||
        write_column(g, "velocity", F64, n, 3, gather3(buf, n, p->vx, p->vy, p->vz)) < 0 ||
        write_column(g, "angular_velocity", F64, n, 3, gather3(buf, n, p->wx, p->wy, p->wz)) < 0 ||
        write_column(g, "force", F64, n, 3, gather3(buf, n, p->fx, p->fy, p->fz)) < 0 ||
        write_column(g, "torque", F64, n, 3, gather3(buf, n, p->tx, p->ty, p->tz)) < 0)
        return -1;
    if (st->position_at_rebuild &&
        write_column(g, "position_at_rebuild", F64, n, 3, st->position_at_rebuild) < 0)
        return -1;
    /* the scratch holds 3 N doubles: N for each energy, N for the counts */
    double *ek = buf, *er = buf + n;
    int32_t *counts = (int32_t *)(void *)(buf + 2 * n);
    particle_extras(st, counts, ek, er);
    if (write_column(g, "n_contacts", I32, n, 0, counts) < 0 ||
        write_column(g, "kinetic_energy", F64, n, 0, ek) < 0 ||
        write_column(g, "rotational_energy", F64, n, 0, er) < 0)
        return -1;
    return 0;
}

static int write_contacts(hid_t g, const contact_table *t)
{
    hid_t c = create_group(g, "contacts");
    if (c < 0) return -1;
    int64_t m64 = (int64_t)t->m;
    size_t m = t->m;
    int rc = -1;
    if (write_attr(c, "n_contacts", I64, &m64) < 0 || write_column(c, "id", I64, m, 2, t->id) < 0 ||
        write_column(c, "wall", U8, m, 0, t->wall) < 0 ||
        write_column(c, "slot", I64, m, 0, t->slot) < 0 ||
        write_column(c, "point", F64, m, 3, t->point) < 0 ||
        write_column(c, "normal", F64, m, 3, t->normal) < 0 ||
        write_column(c, "overlap", F64, m, 0, t->overlap) < 0 ||
        write_column(c, "normal_force", F64, m, 0, t->normal_force) < 0 ||
        write_column(c, "normal_force_vector", F64, m, 3, t->normal_force_vector) < 0 ||
        write_column(c, "tangential_force", F64, m, 3, t->tangential_force) < 0 ||
        write_column(c, "endpoints", F64, 2 * m, 3, t->endpoints) < 0)
        goto done;
    for (int h = 0; h < sim_n_pair_history; h++) {
        const pair_history_field *hf = &sim_pair_history[h];
        if (write_column(c, hf->name, F64, m, hf->count > 1 ? (size_t)hf->count : 0, t->history[h]) < 0)
            goto done;
    }
    rc = 0;
done:
    if (close_checked(H5Gclose, c) < 0) rc = -1;
    return rc;
}

/* The engine's state besides particles and contacts, for a restart. */
static int write_engine(hid_t g, const sim *s)
{
    hid_t e = create_group(g, "engine");
    if (e < 0) return -1;
    int rc = -1;
    int64_t next_id = s->p.next_id;
    if (write_attr(e, "next_id", I64, &next_id) < 0 ||
        write_attr(e, "rebuild_wall_time", F64, &s->rebuild_wall_time) < 0 ||
        write_column(e, "work", F64, SIM_WORK_KINDS, 0, s->work) < 0 ||
        (s->walls.n > 0 && s->walls.work &&
         (write_column(e, "wall_work", F64, s->walls.n, 0, s->walls.work) < 0 ||
          write_column(e, "wall_work_sum", F64, s->walls.n, 0, s->walls.work_sum) < 0)) ||
        write_column(e, "inlets", U8, (size_t)s->cfg.n_inlets * sizeof *s->inlets, 0, s->inlets) < 0 ||
        write_column(e, "outlets", U8, (size_t)s->cfg.n_outlets * sizeof *s->outlets, 0, s->outlets) < 0)
        goto done;
    rc = 0;
done:
    if (close_checked(H5Gclose, e) < 0) rc = -1;
    return rc;
}

/* Writes the buffered samples to /timeseries (not committed). */
static int write_samples(snapshot_file *f)
{
    size_t n = f->n_samples;
    if (n == 0) return 0;
    hid_t g = H5Gopen2(f->file, TS_GROUP, H5P_DEFAULT);
    if (g < 0) {
        capture_h5_error();
        return -1;
    }
    int rc = -1;
    void *col = malloc(n * 8);
    if (!col) {
        snprintf(h5_last_error, sizeof h5_last_error, "out of memory");
        goto done;
    }
    for (size_t c = 0; c < N_TS_COLUMNS; c++) {
        for (size_t r = 0; r < n; r++)
            memcpy((char *)col + 8 * r, (const char *)&f->samples[r] + ts_columns[c].offset, 8);
        if (write_rows(g, ts_columns[c].name, ts_columns[c].is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE,
                       (hsize_t)f->ts_rows, n, col) < 0)
            goto done;
    }
    for (int k = 0; k < N_WALL_SERIES && f->n_walls > 0; k++)
        if (write_rows(g, wall_series[k].name, H5T_NATIVE_DOUBLE, (hsize_t)f->ts_rows, n,
                       f->sample_walls[k]) < 0)
            goto done;
    rc = 0;
done:
    free(col);
    if (close_checked(H5Gclose, g) < 0) rc = -1;
    return rc;
}

/* After a failed write nothing more reaches the disk: the file keeps its last commit. */
static void mark_failed(snapshot_file *f)
{
    f->failed = 1;
    if (f->file >= 0) journal_abandon(f->file);
}

static void samples_written(snapshot_file *f)
{
    f->ts_rows += (int64_t)f->n_samples;
    f->n_samples = 0;
}

int snapshot_add_sample(snapshot_file *f, const sim_observables *o, char *err, size_t err_len)
{
    if (f->n_samples == f->cap_samples) {
        size_t cap = f->cap_samples ? 2 * f->cap_samples : 64;
        sim_observables *s = realloc(f->samples, cap * sizeof *s);
        if (s) f->samples = s;
        int walls_ok = 1;
        for (int k = 0; k < N_WALL_SERIES && f->n_walls; k++) {
            double *w = realloc(f->sample_walls[k], 3 * f->n_walls * cap * sizeof *w);
            if (w) f->sample_walls[k] = w;
            else walls_ok = 0;
        }
        if (!s || !walls_ok) {
            set_err(err, err_len, "out of memory for the time series");
            return -1;
        }
        f->cap_samples = cap;
    }
    f->samples[f->n_samples] = *o;
    f->samples[f->n_samples].wall_force = f->samples[f->n_samples].wall_torque = NULL;
    const double *load[N_WALL_SERIES] = {o->wall_force, o->wall_torque};
    for (int k = 0; k < N_WALL_SERIES && f->n_walls; k++) {
        double *dst = f->sample_walls[k] + 3 * f->n_walls * f->n_samples;
        if (load[k] && o->n_walls == f->n_walls) memcpy(dst, load[k], 3 * f->n_walls * sizeof *dst);
        else for (size_t i = 0; i < 3 * f->n_walls; i++) dst[i] = NAN;
    }
    f->n_samples++;
    return 0;
}

static int check_state(const snapshot_state *st)
{
    const particle_store *p = st ? st->p : NULL;
    if (!p || !isfinite(st->time)) return -1;
    size_t n = p->n_local;
    if (n > p->n_total) return -1;
    if (n > 0 && (!p->id || !p->type || !p->radius || !p->mass || !p->x || !p->y || !p->z ||
                  !p->vx || !p->vy || !p->vz || !p->wx || !p->wy || !p->wz || !p->fx ||
                  !p->fy || !p->fz || !p->tx || !p->ty || !p->tz))
        return -1;
    if (st->wall_pairs && !st->walls) return -1;
    return 0;
}

int snapshot_write(snapshot_file *f, const snapshot_state *st, char *err, size_t err_len)
{
    if (!f || !st) {
        set_err(err, err_len, "snapshot_write: no file or no state");
        return -1;
    }
    if (f->failed) {
        set_err(err, err_len, "cannot write snapshot %d to '%s': an earlier write failed", f->count,
                f->h5_path);
        return -1;
    }
    if (check_state(st) < 0) {
        set_err(err, err_len, "cannot write snapshot %d to '%s': %s", f->count, f->h5_path,
                st && st->p && !isfinite(st->time) ? "time is not finite" : "inconsistent state");
        return -1;
    }
    size_t n = st->p->n_local;
    contact_table t;
    int has_contacts = st->pairs != NULL || st->wall_pairs != NULL;
    if (ensure_capacity(f, n) < 0 || contact_table_build(&t, st) < 0) {
        set_err(err, err_len, "cannot write snapshot %d to '%s': out of memory", f->count, f->h5_path);
        return -1;
    }
    char name[64];
    snprintf(name, sizeof name, SNAP_GROUP "/%06d", f->count);
    h5_quiet q;
    quiet_begin(&q);
    hsize_t size_before = 0;
    H5Fget_filesize(f->file, &size_before);
    int64_t need = (int64_t)n > 2 * (int64_t)t.m ? (int64_t)n : 2 * (int64_t)t.m;
    int ok = ensure_vertex_index(f, need) == 0;
    hid_t g = ok ? create_group(f->file, name) : -1;
    ok = ok && g >= 0 && write_particles(f, g, st) == 0 && (!has_contacts || write_contacts(g, &t) == 0) &&
         (!st->engine || write_engine(g, st->engine) == 0);
    if (g >= 0 && close_checked(H5Gclose, g) < 0) ok = 0;
    ok = ok && write_samples(f) == 0;
    if (!ok) set_err(err, err_len, "cannot write snapshot %d to '%s': %s", f->count, f->h5_path,
                     failure_reason(f));
    else if (flush_and_commit(f, err, err_len) != 0) ok = 0;
    hsize_t size_after = size_before;
    H5Fget_filesize(f->file, &size_after);
    quiet_end(&q);
    if (!ok) {
        mark_failed(f);
        contact_table_free(&t);
        return -1;
    }
    f->last_size = size_after > size_before ? size_after - size_before : 0;
    samples_written(f);
    f->meta[f->count] = (snapshot_meta){.time = st->time, .step = st->step, .n_particles = (int64_t)n,
                                        .n_contacts = (int64_t)t.m, .has_contacts = has_contacts};
    f->count++;
    contact_table_free(&t);
    return update_xmf(f, err, err_len);
}

int snapshot_flush(snapshot_file *f, char *err, size_t err_len)
{
    if (!f || f->failed) {
        set_err(err, err_len, "cannot write to '%s': an earlier write failed", f ? f->h5_path : "?");
        return -1;
    }
    if (f->n_samples == 0) return f->xmf_pending ? rewrite_xmf(f, err, err_len) : 0;
    h5_quiet q;
    quiet_begin(&q);
    int ok = write_samples(f) == 0;
    if (!ok) set_err(err, err_len, "cannot write the time series to '%s': %s", f->h5_path, failure_reason(f));
    else if (flush_and_commit(f, err, err_len) != 0) ok = 0;
    quiet_end(&q);
    if (!ok) {
        mark_failed(f);
        return -1;
    }
    samples_written(f);
    return f->xmf_pending ? rewrite_xmf(f, err, err_len) : 0;
}

/* -------------------------------------------------------- continuing a file */

/* Reads what the .xmf needs of snapshot k of file (already open). */
static int read_meta(hid_t file, int k, snapshot_meta *m)
{
    char name[64];
    snprintf(name, sizeof name, SNAP_GROUP "/%06d", k);
    memset(m, 0, sizeof *m);
    if (read_attr(file, name, "time", H5T_NATIVE_DOUBLE, &m->time) < 0 ||
        read_attr(file, name, "step", H5T_NATIVE_INT64, &m->step) < 0 ||
        read_attr(file, name, "n_particles", H5T_NATIVE_INT64, &m->n_particles) < 0)
        return -1;
    char contacts[80];
    snprintf(contacts, sizeof contacts, "%s/contacts", name);
    if (H5Lexists(file, contacts, H5P_DEFAULT) > 0) {
        m->has_contacts = 1;
        if (read_attr(file, contacts, "n_contacts", H5T_NATIVE_INT64, &m->n_contacts) < 0) return -1;
    }
    return 0;
}

static int snapshot_exists(hid_t file, int k)
{
    char name[64];
    snprintf(name, sizeof name, SNAP_GROUP "/%06d", k);
    return H5Lexists(file, name, H5P_DEFAULT) > 0;
}

/* Rows of the time series with step <= keep_step (they are in increasing step order). */
static int64_t rows_up_to(hid_t file, int64_t keep_step)
{
    int64_t rows = dataset_rows(file, TS_GROUP "/step");
    if (rows <= 0) return rows;
    int64_t *steps = malloc((size_t)rows * sizeof *steps);
    if (!steps) return -1;
    hid_t d = H5Dopen2(file, TS_GROUP "/step", H5P_DEFAULT);
    int64_t keep = -1;
    if (d >= 0 && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps) >= 0) {
        keep = 0;
        while (keep < rows && steps[keep] <= keep_step) keep++;
    } else {
        capture_h5_error();
    }
    if (d >= 0) H5Dclose(d);
    free(steps);
    return keep;
}

snapshot_file *snapshot_reopen(const char *h5_path, int keep_index, int64_t keep_step,
                               const snapshot_run_info *info, char *err, size_t err_len)
{
    if (journal_recover(h5_path, err, err_len) < 0) return NULL;
    snapshot_file *f = new_file(h5_path, info);
    if (!f) {
        set_err(err, err_len, "out of memory");
        return NULL;
    }
    h5_quiet q;
    quiet_begin(&q);
    hid_t fapl = writer_fapl();
    if (fapl >= 0) {
        f->file = H5Fopen(h5_path, H5F_ACC_RDWR, fapl);
        if (f->file < 0) capture_h5_error();
        H5Pclose(fapl);
    }
    if (f->file < 0) {
        set_err(err, err_len, "cannot open '%s' for writing: %s", h5_path, h5_last_error);
        goto fail;
    }
    int64_t vlen = dataset_rows(f->file, VERTEX_INDEX), zlen = dataset_rows(f->file, ZEROS), trows;
    if (vlen < 0 || zlen != vlen || H5Lexists(f->file, TS_GROUP, H5P_DEFAULT) <= 0) {
        set_err(err, err_len, "'%s' was not written by this version of dempact (no %s)", h5_path,
                vlen < 0 ? VERTEX_INDEX : zlen != vlen ? ZEROS : TS_GROUP);
        goto fail;
    }
    f->vertex_len = vlen;
    for (int k = 0; snapshot_exists(f->file, k); k++) {
        char name[64];
        snprintf(name, sizeof name, SNAP_GROUP "/%06d", k);
        if (k > keep_index) {
            if (H5Ldelete(f->file, name, H5P_DEFAULT) < 0) goto h5_fail;
            continue;
        }
        if (ensure_capacity(f, 0) < 0 || read_meta(f->file, k, &f->meta[k]) < 0) goto h5_fail;
        f->count = k + 1;
    }
    if (f->count != keep_index + 1) {
        set_err(err, err_len, "'%s' has no snapshot %d", h5_path, keep_index);
        goto fail;
    }
    trows = rows_up_to(f->file, keep_step);
    if (trows < 0) goto h5_fail;
    for (size_t c = 0; c < N_TS_COLUMNS; c++) {
        char path[128];
        snprintf(path, sizeof path, TS_GROUP "/%s", ts_columns[c].name);
        if (set_rows(f->file, path, (hsize_t)trows) < 0) goto h5_fail;
    }
    for (int k = 0; k < N_WALL_SERIES && f->n_walls > 0; k++) {
        char path[128];
        snprintf(path, sizeof path, TS_GROUP "/%s", wall_series[k].name);
        if (set_rows(f->file, path, (hsize_t)trows) < 0) goto h5_fail;
    }
    f->ts_rows = trows;
    if (info && info->case_text && write_case_text(f->file, info->case_text) < 0) goto h5_fail;
    if (flush_and_commit(f, err, err_len) != 0) goto fail;
    quiet_end(&q);
    if (rewrite_xmf(f, err, err_len) < 0) {
        snapshot_close(f);
        return NULL;
    }
    return f;
h5_fail:
    set_err(err, err_len, "cannot continue '%s': %s", h5_path, failure_reason(f));
fail:
    if (f->file >= 0) {
        journal_abandon(f->file);
        H5Fclose(f->file);
    }
    quiet_end(&q);
    free_file(f);
    return NULL;
}

int snapshot_import(snapshot_file *f, const char *src_path, int keep_index, int64_t keep_step,
                    char *err, size_t err_len)
{
    if (f->count != 0) {
        set_err(err, err_len, "snapshot_import: '%s' already has snapshots", f->h5_path);
        return -1;
    }
    if (journal_recover(src_path, err, err_len) < 0) return -1;
    h5_quiet q;
    quiet_begin(&q);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), src = -1;
    int ok = 0;
    double *col = NULL;
    if (fapl >= 0 && H5Pset_file_locking(fapl, 0, 1) >= 0)
        src = H5Fopen(src_path, H5F_ACC_RDONLY, fapl);
    if (fapl >= 0) H5Pclose(fapl);
    if (src < 0) {
        capture_h5_error();
        set_err(err, err_len, "cannot open '%s': %s", src_path, h5_last_error);
        goto done;
    }
    int64_t need = 0;
    for (int k = 0; k <= keep_index; k++) {
        char name[64];
        snprintf(name, sizeof name, SNAP_GROUP "/%06d", k);
        if (ensure_capacity(f, 0) < 0 || H5Ocopy(src, name, f->file, name, H5P_DEFAULT, H5P_DEFAULT) < 0 ||
            read_meta(f->file, k, &f->meta[k]) < 0) {
            capture_h5_error();
            set_err(err, err_len, "cannot copy snapshot %d of '%s' into '%s': %s", k, src_path,
                    f->h5_path, failure_reason(f));
            goto done;
        }
        f->count = k + 1;
        if (f->meta[k].n_particles > need) need = f->meta[k].n_particles;
        if (2 * f->meta[k].n_contacts > need) need = 2 * f->meta[k].n_contacts;
    }
    int64_t rows = rows_up_to(src, keep_step);
    if (rows < 0 || ensure_vertex_index(f, need) < 0) {
        set_err(err, err_len, "cannot read the time series of '%s': %s", src_path, h5_last_error);
        goto done;
    }
    /* the samples, through the buffer */
    col = malloc((size_t)(rows ? rows : 1) * 3 * (f->n_walls ? f->n_walls : 1) * sizeof *col);
    if (!col) goto oom;
    for (int64_t r = 0; r < rows; r++) {
        sim_observables o = {0};
        if (snapshot_add_sample(f, &o, err, err_len) < 0) goto done;
    }
    for (size_t c = 0; c < N_TS_COLUMNS && rows > 0; c++) {
        char path[128];
        snprintf(path, sizeof path, TS_GROUP "/%s", ts_columns[c].name);
        hid_t d = H5Dopen2(src, path, H5P_DEFAULT), fs = d >= 0 ? H5Dget_space(d) : -1, ms = -1;
        hsize_t start = 0, count = (hsize_t)rows;
        herr_t r = -1;
        if (fs >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
            (ms = H5Screate_simple(1, &count, NULL)) >= 0)
            r = H5Dread(d, ts_columns[c].is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, ms, fs,
                        H5P_DEFAULT, col);
        if (r < 0) capture_h5_error();
        if (ms >= 0) H5Sclose(ms);
        if (fs >= 0) H5Sclose(fs);
        if (d >= 0) H5Dclose(d);
        if (r < 0) {
            set_err(err, err_len, "cannot read %s of '%s': %s", path, src_path, h5_last_error);
            goto done;
        }
        for (int64_t k = 0; k < rows; k++)
            memcpy((char *)&f->samples[k] + ts_columns[c].offset, (char *)col + 8 * k, 8);
    }
    for (int k = 0; k < N_WALL_SERIES && f->n_walls > 0 && rows > 0; k++) {
        char path[128];
        snprintf(path, sizeof path, TS_GROUP "/%s", wall_series[k].name);
        if (H5Lexists(src, path, H5P_DEFAULT) <= 0) { /* written before this series existed */
            for (size_t i = 0; i < (size_t)rows * 3 * f->n_walls; i++) f->sample_walls[k][i] = NAN;
            continue;
        }
        hid_t d = H5Dopen2(src, path, H5P_DEFAULT), fs = d >= 0 ? H5Dget_space(d) : -1, ms = -1;
        hsize_t start[3] = {0, 0, 0}, count[3] = {(hsize_t)rows, f->n_walls, 3};
        herr_t r = -1;
        if (fs >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
            (ms = H5Screate_simple(3, count, NULL)) >= 0)
            r = H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, f->sample_walls[k]);
        if (r < 0) capture_h5_error();
        if (ms >= 0) H5Sclose(ms);
        if (fs >= 0) H5Sclose(fs);
        if (d >= 0) H5Dclose(d);
        if (r < 0) {
            set_err(err, err_len, "cannot read %s of '%s': %s", path, src_path, h5_last_error);
            goto done;
        }
    }
    if (write_samples(f) < 0) {
        set_err(err, err_len, "cannot write the time series to '%s': %s", f->h5_path, failure_reason(f));
        goto done;
    }
    samples_written(f);
    ok = flush_and_commit(f, err, err_len) == 0;
    goto done;
oom:
    set_err(err, err_len, "out of memory");
done:
    free(col);
    if (src >= 0) H5Fclose(src);
    quiet_end(&q);
    if (!ok) {
        mark_failed(f);
        return -1;
    }
    return rewrite_xmf(f, err, err_len);
}

int snapshot_count(const snapshot_file *f) { return f ? f->count : 0; }
const char *snapshot_h5_path(const snapshot_file *f) { return f ? f->h5_path : NULL; }
const char *snapshot_xmf_path(const snapshot_file *f) { return f ? f->xmf_path : NULL; }
uint64_t snapshot_last_size(const snapshot_file *f) { return f ? f->last_size : 0; }
int64_t snapshot_last_step(const snapshot_file *f)
{
    return f && f->count > 0 ? f->meta[f->count - 1].step : -1;
}

int snapshot_close(snapshot_file *f)
{
    if (!f) return 0;
    int rc = 0;
    if (f->xmf_pending && rewrite_xmf(f, NULL, 0) != 0) rc = -1;
    if (f->file >= 0) {
        h5_quiet q;
        quiet_begin(&q);
        if (H5Fclose(f->file) < 0) rc = -1;
        quiet_end(&q);
    }
    free_file(f);
    return rc;
}
