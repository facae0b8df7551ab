/* Snapshot output (io/snapshot.c): write snapshots of hand-made particle stores, read
 * them back with the HDF5 C API and compare every value exactly; check the XDMF
 * sidecar, that ghosts are not written, that a second process can read the file while
 * it is open, and the error messages. Then the contact network of a real simulation,
 * the time series, and the journal: a writer killed in the middle of a commit leaves a
 * file that recovery completes. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/particles.h"
#include "engine/sim.h"
#include "io/case.h"
#include "io/snapshot.h"
#include "io/snapshot_journal.h"

static char self_path[PATH_MAX]; /* this executable, for the reader child process */
static char out_dir[PATH_MAX];   /* where the tests write */

/* ------------------------------------------------------------------ fixtures */

/* A store with n_local particles plus n_ghost ghost entries carrying sentinel values
 * (id -1, position 1e300, ...) that must never reach the file. `k` varies the values
 * between snapshots. */
static void make_store(particle_store *p, size_t n_local, size_t n_ghost, int k)
{
    assert_int_equal(particles_init(p, n_local + n_ghost), 0);
    assert_int_equal(particles_reserve_ghosts(p, n_ghost), 0);
    for (size_t i = 0; i < n_local; i++) {
        double pos[3] = {0.1 * (double)i + 1.0 / 3.0 + k, -0.7 * (double)i + 1e-9 * k,
                         1.0 / (double)(i + 7) - k};
        double vel[3] = {1.0 / 7.0 * (double)i, -2.5 + k, 3.0e-3 * (double)(i * i)};
        assert_int_equal(particles_add(p, (int32_t)((i + (size_t)k) % 3),
                                       1e-3 * (1.0 + 0.1 * (double)(i % 5)) + 1e-6 * k, 2500.0,
                                       pos, vel),
                         (long)i);
        /* ids that are not simply the index, so we know they come from p->id */
        p->id[i] = 1000 * (int64_t)k + 7 * (int64_t)i + 3;
        p->wx[i] = 0.5 + (double)i / 3.0;
        p->wy[i] = -(double)k / 9.0;
        p->wz[i] = 1e12 * (double)i;
        p->fx[i] = 9.81e-3 * (double)i - 1.0 / 11.0;
        p->fy[i] = (double)k * 1e-20;
        p->fz[i] = -(double)(i + 1) / 13.0;
        p->tx[i] = 1e-7 * (double)i;
        p->ty[i] = -3.0 / (double)(i + 2);
        p->tz[i] = (double)k;
    }
    for (size_t g = n_local; g < n_local + n_ghost; g++) {
        p->id[g] = -1;
        p->type[g] = -1;
        p->radius[g] = p->mass[g] = -1.0;
        p->x[g] = p->y[g] = p->z[g] = 1e300;
        p->vx[g] = p->vy[g] = p->vz[g] = 1e300;
        p->wx[g] = p->wy[g] = p->wz[g] = 1e300;
        p->fx[g] = p->fy[g] = p->fz[g] = 1e300;
        p->tx[g] = p->ty[g] = p->tz[g] = 1e300;
        size_t k = g - n_local;
        p->ghost_owner[k] = k;
        p->ghost_shift[3 * k] = p->ghost_shift[3 * k + 1] = p->ghost_shift[3 * k + 2] = 1.0;
    }
    p->n_total = n_local + n_ghost;
}

/* Writes a snapshot of a store without contacts. */
static int write_store(snapshot_file *f, const particle_store *p, double time, int64_t step,
                       char *err, size_t err_len)
{
    snapshot_state st = {.p = p, .time = time, .step = step};
    return snapshot_write(f, &st, err, err_len);
}

static char *read_text(const char *path)
{
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    assert_int_equal(fseek(in, 0, SEEK_END), 0);
    long len = ftell(in);
    assert_true(len >= 0);
    rewind(in);
    char *s = malloc((size_t)len + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)len, in), (size_t)len);
    s[len] = '\0';
    fclose(in);
    return s;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void join(char *out, size_t len, const char *a, const char *b)
{
    int n = snprintf(out, len, "%s/%s", a, b);
    assert_true(n > 0 && (size_t)n < len);
}

/* Open HDF5 objects (files, groups, datasets, attributes, named types) in this
 * process: the writer must leave none open but its file. (Dataspace, datatype and
 * property-list ids cannot be counted through the public API.) */
static ssize_t open_objects(void) { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); }

/* ---------------------------------------------------------- HDF5 read-back */

static char *read_string_attr(hid_t loc, const char *name)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t ft = H5Aget_type(a);
    assert_true(ft >= 0);
    assert_int_equal(H5Tget_class(ft), H5T_STRING);
    assert_true(H5Tis_variable_str(ft) > 0);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5T_CSET_UTF8);
    char *v = NULL;
    assert_true(H5Aread(a, mt, &v) >= 0);
    assert_non_null(v);
    char *copy = strdup(v);
    H5free_memory(v);
    H5Tclose(mt);
    H5Tclose(ft);
    H5Aclose(a);
    return copy;
}

static void read_attr(hid_t loc, const char *name, hid_t mem_type, void *value)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t s = H5Aget_space(a);
    assert_int_equal(H5Sget_simple_extent_type(s), H5S_SCALAR);
    H5Sclose(s);
    assert_true(H5Aread(a, mem_type, value) >= 0);
    H5Aclose(a);
}

/* Reads a dataset of shape (n) (cols == 0) or (n, cols) and checks its shape and
 * stored type class/size. Returns a malloc'd buffer (NULL when n == 0). */
static void *read_dataset(hid_t g, const char *name, hid_t mem_type, size_t n, size_t cols,
                          H5T_class_t cls, size_t type_size)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t t = H5Dget_type(d);
    assert_int_equal(H5Tget_class(t), cls);
    assert_int_equal(H5Tget_size(t), type_size);
    H5Tclose(t);
    hid_t s = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int rank = H5Sget_simple_extent_dims(s, dims, NULL);
    assert_int_equal(rank, cols ? 2 : 1);
    assert_int_equal(dims[0], n);
    if (cols)
        assert_int_equal(dims[1], cols);
    H5Sclose(s);
    void *buf = NULL;
    if (n > 0) {
        buf = malloc(n * (cols ? cols : 1) * H5Tget_size(mem_type));
        assert_non_null(buf);
        assert_true(H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    }
    H5Dclose(d);
    return buf;
}

static void check_vector(hid_t g, const char *name, size_t n, const double *a, const double *b,
                         const double *c)
{
    double *v = read_dataset(g, name, H5T_NATIVE_DOUBLE, n, 3, H5T_FLOAT, 8);
    for (size_t i = 0; i < n; i++) {
        assert_true(v[3 * i + 0] == a[i]);
        assert_true(v[3 * i + 1] == b[i]);
        assert_true(v[3 * i + 2] == c[i]);
    }
    free(v);
}

static void check_scalar_doubles(hid_t g, const char *name, size_t n, const double *a)
{
    double *v = read_dataset(g, name, H5T_NATIVE_DOUBLE, n, 0, H5T_FLOAT, 8);
    for (size_t i = 0; i < n; i++)
        assert_true(v[i] == a[i]);
    free(v);
}

/* Checks snapshot `index` in an open file against store p. */
static void check_snapshot(hid_t file, int index, const particle_store *p, double time,
                           int64_t step)
{
    char name[64];
    snprintf(name, sizeof name, "/snapshots/%06d", index);
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    assert_true(g >= 0);

    double t = -1.0;
    int64_t st = -1, n_particles = -1;
    read_attr(g, "time", H5T_NATIVE_DOUBLE, &t);
    read_attr(g, "step", H5T_NATIVE_INT64, &st);
    read_attr(g, "n_particles", H5T_NATIVE_INT64, &n_particles);
    assert_true(t == time);
    assert_int_equal(st, step);
    size_t n = p->n_local;
    assert_int_equal(n_particles, (int64_t)n);

    H5G_info_t info;
    assert_true(H5Gget_info(g, &info) >= 0);
    assert_int_equal(info.nlinks, 12); /* the twelve per-particle datasets, no contacts */

    int64_t *id = read_dataset(g, "id", H5T_NATIVE_INT64, n, 0, H5T_INTEGER, 8);
    int32_t *type = read_dataset(g, "type", H5T_NATIVE_INT32, n, 0, H5T_INTEGER, 4);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(id[i], p->id[i]);
        assert_true(id[i] >= 0); /* no ghost sentinel */
        assert_int_equal(type[i], p->type[i]);
    }
    free(id);
    free(type);
    check_scalar_doubles(g, "radius", n, p->radius);
    check_scalar_doubles(g, "mass", n, p->mass);
    check_vector(g, "position", n, p->x, p->y, p->z);
    check_vector(g, "velocity", n, p->vx, p->vy, p->vz);
    check_vector(g, "angular_velocity", n, p->wx, p->wy, p->wz);
    check_vector(g, "force", n, p->fx, p->fy, p->fz);
    check_vector(g, "torque", n, p->tx, p->ty, p->tz);
    int32_t *nc = read_dataset(g, "n_contacts", H5T_NATIVE_INT32, n, 0, H5T_INTEGER, 4);
    double *ek = read_dataset(g, "kinetic_energy", H5T_NATIVE_DOUBLE, n, 0, H5T_FLOAT, 8);
    double *er = read_dataset(g, "rotational_energy", H5T_NATIVE_DOUBLE, n, 0, H5T_FLOAT, 8);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(nc[i], 0);
        double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        double w2 = p->wx[i] * p->wx[i] + p->wy[i] * p->wy[i] + p->wz[i] * p->wz[i];
        assert_true(ek[i] == 0.5 * p->mass[i] * v2);
        assert_true(er[i] == 0.5 * w2 / p->inv_inertia[i]);
    }
    free(nc);
    free(ek);
    free(er);
    H5Gclose(g);
}

/* ------------------------------------------------------------ reader child */

/* `test_snapshot --count-snapshots FILE`: run in a separate process while the writer
 * still has FILE open; prints the number of complete snapshots. Exits 1 if the file
 * cannot be opened (a lock, or an inconsistent file on disk). */
static int reader_main(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 1;
    int rc = 1;
    H5G_info_t info;
    if (H5Gget_info_by_name(f, "/snapshots", &info, H5P_DEFAULT) >= 0) {
        printf("%llu\n", (unsigned long long)info.nlinks);
        rc = 0;
    }
    H5Fclose(f);
    return rc;
}

/* Runs the reader in a fresh process and returns the count it printed (-1 on error). */
static long count_in_child(const char *path)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(self_path, self_path, "--count-snapshots", path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[64] = {0};
    size_t got = 0;
    ssize_t r;
    while (got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return strtol(buf, NULL, 10);
}

/* -------------------------------------------------------------------- tests */

static const char *case_text =
    "name: snap_case\n"
    "# a comment with \"quotes\" & <angle brackets> and UTF-8: \xc3\xa9\n"
    "time: {dt: 1.0e-6, end: 1.0e-3}\n";

static void test_three_snapshots(void **state)
{
    (void)state;
    assert_true(H5open() >= 0);
    assert_int_equal(open_objects(), 0);

    char dir[PATH_MAX];
    join(dir, sizeof dir, out_dir, "nested/deeper"); /* created by snapshot_create */
    snapshot_run_info info = {.case_name = "snap_case",
                              .case_text = case_text,
                              .version = "0.1.0",
                              .build = "Debug",
                              .dt = 1.0e-6 / 3.0};
    char err[512] = "";
    snapshot_file *f = snapshot_create(dir, "run", &info, err, sizeof err);
    assert_non_null(f);
    assert_string_equal(err, "");
    assert_int_equal(snapshot_count(f), 0);

    char h5_path[PATH_MAX], xmf_path[PATH_MAX], tmp_path[PATH_MAX];
    join(h5_path, sizeof h5_path, dir, "run.h5");
    join(xmf_path, sizeof xmf_path, dir, "run.xmf");
    join(tmp_path, sizeof tmp_path, dir, "run.xmf.tmp");
    assert_string_equal(snapshot_h5_path(f), h5_path);
    assert_string_equal(snapshot_xmf_path(f), xmf_path);
    assert_true(file_exists(h5_path));
    assert_true(file_exists(xmf_path)); /* an empty collection from the start */
    assert_int_equal(count_in_child(h5_path), 0);

    enum { NS = 3 };
    const size_t n_local[NS] = {5, 8, 3};
    const size_t n_ghost[NS] = {2, 0, 4};
    const double times[NS] = {0.0, 0.1 + 0.2, 1.0 / 3.0};
    const int64_t steps[NS] = {0, 300000, 333333};
    particle_store p[NS];
    for (int k = 0; k < NS; k++) {
        make_store(&p[k], n_local[k], n_ghost[k], k);
        assert_int_equal(write_store(f, &p[k], times[k], steps[k], err, sizeof err), 0);
        assert_int_equal(snapshot_count(f), k + 1);
        assert_false(file_exists(tmp_path));
        /* another process sees every complete snapshot while the file is still open */
        assert_int_equal(count_in_child(h5_path), k + 1);
        /* the writer holds the file and nothing else */
        assert_int_equal(open_objects(), 1);
    }
    assert_int_equal(snapshot_close(f), 0);
    assert_int_equal(open_objects(), 0);

    /* ---- read back */
    hid_t file = H5Fopen(h5_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    char *s = read_string_attr(file, "dempact_version");
    assert_string_equal(s, "0.1.0");
    free(s);
    s = read_string_attr(file, "build");
    assert_string_equal(s, "Debug");
    free(s);
    s = read_string_attr(file, "case_name");
    assert_string_equal(s, "snap_case");
    free(s);
    double dt = 0.0;
    read_attr(file, "dt", H5T_NATIVE_DOUBLE, &dt);
    assert_true(dt == 1.0e-6 / 3.0);

    {
        hid_t d = H5Dopen2(file, "/case_text", H5P_DEFAULT);
        assert_true(d >= 0);
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5T_CSET_UTF8);
        char *text = NULL;
        assert_true(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) >= 0);
        assert_string_equal(text, case_text);
        H5free_memory(text);
        H5Tclose(mt);
        H5Dclose(d);
    }

    H5G_info_t ginfo;
    assert_true(H5Gget_info_by_name(file, "/snapshots", &ginfo, H5P_DEFAULT) >= 0);
    assert_int_equal(ginfo.nlinks, NS);
    assert_true(H5Gget_info(file, &ginfo) >= 0);
    assert_int_equal(ginfo.nlinks, 5); /* case_text, snapshots, timeseries, vertex_index, zeros */
    /* the XDMF connectivity: 0, 1, 2, ... at least as long as the largest snapshot */
    hid_t vd = H5Dopen2(file, "/vertex_index", H5P_DEFAULT);
    assert_true(vd >= 0);
    hid_t vs = H5Dget_space(vd);
    hsize_t vertex_len = 0;
    assert_int_equal(H5Sget_simple_extent_dims(vs, &vertex_len, NULL), 1);
    H5Sclose(vs);
    H5Dclose(vd);
    assert_true(vertex_len >= 8);
    int64_t *vertex = read_dataset(file, "/vertex_index", H5T_NATIVE_INT64, vertex_len, 0,
                                   H5T_INTEGER, 8);
    for (hsize_t i = 0; i < vertex_len; i++)
        assert_int_equal(vertex[i], (int64_t)i);
    free(vertex);
    for (int k = 0; k < NS; k++)
        check_snapshot(file, k, &p[k], times[k], steps[k]);
    assert_true(H5Fclose(file) >= 0);

    /* ---- the XDMF sidecar */
    char *xmf = read_text(xmf_path);
    assert_non_null(strstr(xmf, "<Xdmf Version=\"3.0\""));
    assert_non_null(strstr(xmf, "CollectionType=\"Temporal\""));
    int grids = 0;
    for (const char *q = xmf; (q = strstr(q, "<Grid ")) != NULL; q++)
        grids++;
    assert_int_equal(grids, 1 + 2 * NS); /* the collection, per snapshot one + particles */
    int n_times = 0;
    for (const char *q = xmf; (q = strstr(q, "<Time Value=\"")) != NULL; n_times++) {
        q += strlen("<Time Value=\"");
        assert_true(n_times < NS);
        char *end = NULL;
        double t = strtod(q, &end);
        assert_true(end != q && *end == '"');
        assert_true(t == times[n_times]); /* %.17g round-trips exactly */
    }
    assert_int_equal(n_times, NS);
    for (int k = 0; k < NS; k++) {
        char want[256];
        snprintf(want, sizeof want,
                 "<Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%zu\"", n_local[k]);
        assert_non_null(strstr(xmf, want));
        snprintf(want, sizeof want,
                 "<DataItem Dimensions=\"3 1\" NumberType=\"Int\" Format=\"XML\">0 1 %zu</DataItem>\n"
                 "              <DataItem Dimensions=\"%llu\" NumberType=\"Int\" Precision=\"8\" "
                 "Format=\"HDF\">run.h5:/vertex_index</DataItem>",
                 n_local[k], (unsigned long long)vertex_len);
        assert_non_null(strstr(xmf, want));
        snprintf(want, sizeof want,
                 "<DataItem Dimensions=\"%zu 3\" NumberType=\"Float\" Precision=\"8\" "
                 "Format=\"HDF\">run.h5:/snapshots/%06d/position</DataItem>",
                 n_local[k], k);
        assert_non_null(strstr(xmf, want));
        snprintf(want, sizeof want,
                 "<DataItem Dimensions=\"%zu\" NumberType=\"Float\" Precision=\"8\" "
                 "Format=\"HDF\">run.h5:/snapshots/%06d/radius</DataItem>",
                 n_local[k], k);
        assert_non_null(strstr(xmf, want));
    }
    const char *attrs[] = {"\"id\" AttributeType=\"Scalar\"", "\"type\" AttributeType=\"Scalar\"",
                           "\"radius\" AttributeType=\"Scalar\"", "\"mass\" AttributeType=\"Scalar\"",
                           "\"velocity\" AttributeType=\"Vector\"",
                           "\"angular_velocity\" AttributeType=\"Vector\"",
                           "\"force\" AttributeType=\"Vector\"",
                           "\"torque\" AttributeType=\"Vector\"",
                           "\"n_contacts\" AttributeType=\"Scalar\"",
                           "\"kinetic_energy\" AttributeType=\"Scalar\""};
    for (size_t a = 0; a < sizeof attrs / sizeof attrs[0]; a++) {
        char want[128];
        snprintf(want, sizeof want, "<Attribute Name=%s", attrs[a]);
        int count = 0;
        for (const char *q = xmf; (q = strstr(q, want)) != NULL; q++)
            count++;
        assert_int_equal(count, NS);
    }
    assert_non_null(strstr(xmf, "</Xdmf>\n"));
    free(xmf);

    for (int k = 0; k < NS; k++)
        particles_free(&p[k]);
}

static void test_empty_store_and_no_case_text(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    join(dir, sizeof dir, out_dir, "empty/");
    snapshot_run_info info = {.case_name = NULL, .case_text = NULL, .dt = 0.0};
    char err[512] = "";
    snapshot_file *f = snapshot_create(dir, "e", &info, err, sizeof err);
    assert_non_null(f);
    particle_store p;
    make_store(&p, 0, 3, 0); /* ghosts only */
    assert_int_equal(write_store(f, &p, 2.5, 7, err, sizeof err), 0);
    particles_free(&p);
    /* a non-finite time is refused and adds nothing */
    make_store(&p, 2, 0, 1);
    assert_int_equal(write_store(f, &p, NAN, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, snapshot_h5_path(f)));
    assert_int_equal(snapshot_count(f), 1);
    assert_int_equal(write_store(f, &p, 3.0, 8, err, sizeof err), 0);
    assert_int_equal(snapshot_count(f), 2);
    char h5_path[PATH_MAX];
    snprintf(h5_path, sizeof h5_path, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);

    hid_t file = H5Fopen(h5_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    assert_int_equal(H5Lexists(file, "/case_text", H5P_DEFAULT), 0);
    char *s = read_string_attr(file, "case_name");
    assert_string_equal(s, "");
    free(s);
    particle_store none;
    make_store(&none, 0, 0, 0);
    check_snapshot(file, 0, &none, 2.5, 7);
    check_snapshot(file, 1, &p, 3.0, 8);
    particles_free(&none);
    particles_free(&p);
    assert_true(H5Fclose(file) >= 0);
    assert_int_equal(open_objects(), 0);
}

static void test_create_errors(void **state)
{
    (void)state;
    H5open();
    char err[512] = "";
    snapshot_run_info info = {.case_name = "x"};

    /* a folder under a regular file */
    assert_null(snapshot_create("/dev/null/x", "run", &info, err, sizeof err));
    assert_non_null(strstr(err, "/dev/null/x"));

    /* a folder in the way of the .h5 file */
    char dir[PATH_MAX], blocker[PATH_MAX];
    join(dir, sizeof dir, out_dir, "blocked");
    join(blocker, sizeof blocker, dir, "run.h5");
    assert_true(mkdir(dir, 0777) == 0 || errno == EEXIST);
    assert_true(mkdir(blocker, 0777) == 0 || errno == EEXIST);
    err[0] = '\0';
    assert_null(snapshot_create(dir, "run", &info, err, sizeof err));
    assert_non_null(strstr(err, blocker));

    /* bad names */
    err[0] = '\0';
    assert_null(snapshot_create(out_dir, "a/b", &info, err, sizeof err));
    assert_non_null(strstr(err, "a/b"));
    err[0] = '\0';
    assert_null(snapshot_create(out_dir, "", &info, err, sizeof err));
    assert_true(err[0] != '\0');

    /* NULL-safe, and a NULL err buffer is allowed */
    assert_int_equal(snapshot_close(NULL), 0);
    assert_null(snapshot_create("/dev/null/x", "run", &info, NULL, 0));

    assert_int_equal(open_objects(), 0);
}

/* ------------------------------------------------ a real simulation's contacts */

/* A simulation of the small pour case stepped until particles touch each other and a
 * wall. */
static void make_touching_sim(sim *s, sim_config *cfg)
{
    const char *src = getenv("DEMPACT_SOURCE_DIR");
    char path[PATH_MAX], err[2048];
    snprintf(path, sizeof path, "%s/tests/data/e2e/memcheck_pour.yaml", src ? src : ".");
    if (case_load(path, cfg, err, sizeof err) != 0) fail_msg("%s", err);
    if (sim_create(s, cfg, err, sizeof err) != 0) fail_msg("%s", err);
    for (int k = 0; k < 200000; k++) {
        sim_step(s);
        size_t pairs = 0, walls = 0;
        for (size_t q = 0; q < s->pairs.n; q++) pairs += s->pairs.touching[q];
        for (size_t q = 0; q < s->wall_pairs.n; q++) walls += s->wall_pairs.touching[q];
        if (pairs >= 3 && walls >= 3) return;
    }
    fail_msg("no contacts after 200000 steps");
}

static void test_contacts(void **state)
{
    (void)state;
    sim s;
    sim_config cfg;
    make_touching_sim(&s, &cfg);
    char dir[PATH_MAX], err[512] = "";
    join(dir, sizeof dir, out_dir, "contacts");
    snapshot_run_info info = {.case_name = cfg.name, .case_text = cfg.case_text, .dt = s.dt,
                              .walls = &s.walls};
    snapshot_file *f = snapshot_create(dir, "c", &info, err, sizeof err);
    assert_non_null(f);
    snapshot_state st = {.p = &s.p, .pairs = &s.pairs, .wall_pairs = &s.wall_pairs,
                         .walls = &s.walls, .position_at_rebuild = s.x_at_rebuild,
                         .time = s.time, .step = s.step};
    assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
    char h5_path[PATH_MAX];
    snprintf(h5_path, sizeof h5_path, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);

    hid_t file = H5Fopen(h5_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t g = H5Gopen2(file, "/snapshots/000000", H5P_DEFAULT);
    hid_t c = H5Gopen2(g, "contacts", H5P_DEFAULT);
    assert_true(g >= 0 && c >= 0);
    int64_t m = -1;
    read_attr(c, "n_contacts", H5T_NATIVE_INT64, &m);
    size_t n_pairs = 0, n_walls = 0;
    for (size_t q = 0; q < s.pairs.n; q++) n_pairs += s.pairs.touching[q];
    for (size_t q = 0; q < s.wall_pairs.n; q++) n_walls += s.wall_pairs.touching[q];
    assert_int_equal(m, (int64_t)(n_pairs + n_walls));
    size_t M = (size_t)m, n = s.p.n_local;
    int64_t *id = read_dataset(c, "id", H5T_NATIVE_INT64, M, 2, H5T_INTEGER, 8);
    uint8_t *wall = read_dataset(c, "wall", H5T_NATIVE_UINT8, M, 0, H5T_INTEGER, 1);
    double *point = read_dataset(c, "point", H5T_NATIVE_DOUBLE, M, 3, H5T_FLOAT, 8);
    double *normal = read_dataset(c, "normal", H5T_NATIVE_DOUBLE, M, 3, H5T_FLOAT, 8);
    double *overlap = read_dataset(c, "overlap", H5T_NATIVE_DOUBLE, M, 0, H5T_FLOAT, 8);
    double *fn = read_dataset(c, "normal_force", H5T_NATIVE_DOUBLE, M, 0, H5T_FLOAT, 8);
    double *fnv = read_dataset(c, "normal_force_vector", H5T_NATIVE_DOUBLE, M, 3, H5T_FLOAT, 8);
    double *ft = read_dataset(c, "tangential_force", H5T_NATIVE_DOUBLE, M, 3, H5T_FLOAT, 8);
    double *ends = read_dataset(c, "endpoints", H5T_NATIVE_DOUBLE, 2 * M, 3, H5T_FLOAT, 8);
    double *v0 = read_dataset(c, "impact_velocity", H5T_NATIVE_DOUBLE, M, 0, H5T_FLOAT, 8);
    double *hist = read_dataset(c, "law_history", H5T_NATIVE_DOUBLE, M, LAW_MAX_HISTORY, H5T_FLOAT, 8);
    double *xi = read_dataset(c, "tangential_spring", H5T_NATIVE_DOUBLE, M, 3, H5T_FLOAT, 8);
    int32_t *counts = read_dataset(g, "n_contacts", H5T_NATIVE_INT32, n, 0, H5T_INTEGER, 4);
    double *xr = read_dataset(g, "position_at_rebuild", H5T_NATIVE_DOUBLE, n, 3, H5T_FLOAT, 8);
    for (size_t i = 0; i < 3 * n; i++) assert_true(xr[i] == s.x_at_rebuild[i]);

    /* rows follow the lists: touching pairs, then touching wall pairs */
    size_t r = 0;
    int64_t total_count = 0;
    for (size_t i = 0; i < n; i++) total_count += counts[i];
    assert_int_equal(total_count, (int64_t)(2 * n_pairs + n_walls));
    for (int L = 0; L < 2; L++) {
        const contact_list *cl = L == 0 ? &s.pairs : &s.wall_pairs;
        for (size_t k = 0; k < cl->n; k++) {
            if (!cl->touching[k]) continue;
            uint32_t i = cl->i[k];
            assert_int_equal(id[2 * r], s.p.id[i]);
            assert_int_equal(wall[r], L);
            assert_int_equal(id[2 * r + 1], L ? (int64_t)cl->j[k] : s.p.id[cl->owner_j[k]]);
            double expect = cl->overlap ? cl->overlap[k] : 0.0; /* a wall pair's is stored */
            if (!L) { /* a particle pair's: from the positions */
                uint32_t j = cl->j[k];
                double dx = s.p.x[j] - s.p.x[i], dy = s.p.y[j] - s.p.y[i], dz = s.p.z[j] - s.p.z[i];
                expect = s.p.radius[i] + s.p.radius[j] - sqrt(dx * dx + dy * dy + dz * dz);
            }
            assert_true(overlap[r] == expect && overlap[r] > 0.0);
            double *nr = normal + 3 * r, len = sqrt(nr[0] * nr[0] + nr[1] * nr[1] + nr[2] * nr[2]);
            assert_true(fabs(len - 1.0) < 1e-12);
            double dot = 0.0, fmag = 0.0;
            for (int a = 0; a < 3; a++) {
                /* normal + tangential parts make the force on i */
                assert_true(fabs(fnv[3 * r + a] + ft[3 * r + a] - cl->force[a][k]) <=
                            1e-12 * fabs(fn[r]) + 1e-300);
                dot += ft[3 * r + a] * nr[a];
                fmag += cl->force[a][k] * cl->force[a][k];
            }
            assert_true(fabs(dot) <= 1e-9 * sqrt(fmag) + 1e-300); /* tangential is tangential */
            assert_true(fn[r] >= 0.0);
            double xi_c[3] = {s.p.x[i], s.p.y[i], s.p.z[i]};
            for (int a = 0; a < 3; a++) {
                assert_true(ends[6 * r + a] == xi_c[a]);
                assert_true(fabs(point[3 * r + a] - (xi_c[a] + (s.p.radius[i] - 0.5 * overlap[r]) * nr[a])) < 1e-15);
                if (!L) assert_true(ends[6 * r + 3 + a] == (a == 0 ? s.p.x : a == 1 ? s.p.y : s.p.z)[cl->j[k]]);
                /* a run without friction holds no springs: the file has zeros */
                assert_true(xi[3 * r + a] == (cl->tangential[a] ? cl->tangential[a][k] : 0.0));
            }
            assert_true(v0[r] == cl->impact_velocity[k]);
            for (int h = 0; h < LAW_MAX_HISTORY; h++)
                assert_true(hist[r * LAW_MAX_HISTORY + h] == (cl->history[h] ? cl->history[h][k] : 0.0));
            r++;
        }
    }
    assert_int_equal(r, M);
    free(id); free(wall); free(point); free(normal); free(overlap); free(fn); free(fnv); free(ft);
    free(ends); free(v0); free(hist); free(xi); free(counts); free(xr);
    H5Gclose(c);
    H5Gclose(g);
    /* the wall names */
    hid_t a = H5Aopen(file, "wall_names", H5P_DEFAULT);
    assert_true(a >= 0);
    H5Aclose(a);
    assert_true(H5Fclose(file) >= 0);

    /* the .xmf has the contact block, its radius 0 and its forces as cell data */
    char xmf_path[PATH_MAX];
    join(xmf_path, sizeof xmf_path, dir, "c.xmf");
    char *xmf = read_text(xmf_path);
    char want[256];
    snprintf(want, sizeof want, "<Topology TopologyType=\"Polyline\" NumberOfElements=\"%zu\" "
                                "NodesPerElement=\"2\">", M);
    assert_non_null(strstr(xmf, want));
    assert_non_null(strstr(xmf, "c.h5:/snapshots/000000/contacts/endpoints</DataItem>"));
    assert_non_null(strstr(xmf, "<Attribute Name=\"normal_force\" AttributeType=\"Scalar\" Center=\"Cell\">"));
    snprintf(want, sizeof want, "<DataItem Dimensions=\"%zu\" NumberType=\"Float\" Precision=\"8\" "
                                "Format=\"HDF\">c.h5:/zeros</DataItem>", 2 * M);
    assert_non_null(strstr(xmf, want));
    free(xmf);
    sim_free(&s);
    sim_config_free(&cfg);
    assert_int_equal(open_objects(), 0);
}

/* ------------------------------------------------------------ the time series */

static double *read_all(hid_t file, const char *path, hsize_t *n)
{
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t sp = H5Dget_space(d);
    hsize_t dims[3] = {0, 0, 0};
    int rank = H5Sget_simple_extent_dims(sp, dims, NULL);
    hsize_t count = 1;
    for (int k = 0; k < rank; k++) count *= dims[k];
    H5Sclose(sp);
    double *v = malloc((count ? count : 1) * sizeof *v);
    if (count) assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d);
    *n = dims[0];
    return v;
}

static void test_timeseries_and_continuing(void **state)
{
    (void)state;
    wall_spec walls[2] = {{.name = "floor"}, {.name = "lid"}};
    wall_set ws = {.walls = walls, .n = 2};
    snapshot_run_info info = {.case_name = "ts", .case_text = "a: 1\n", .dt = 0.5, .walls = &ws};
    char dir[PATH_MAX], err[512] = "";
    join(dir, sizeof dir, out_dir, "ts");
    snapshot_file *f = snapshot_create(dir, "ts", &info, err, sizeof err);
    assert_non_null(f);
    particle_store p;
    make_store(&p, 4, 0, 0);
    /* samples at steps 0..9, snapshots at steps 0, 4, 8; a flush at the end */
    for (int64_t step = 0; step < 10; step++) {
        double wf[6] = {(double)step, 1, 2, 3, 4, -(double)step};
        double wt[6] = {-1, (double)step, 7, 8, 9, 10.0 * (double)step};
        sim_observables o = {.time = 0.5 * (double)step, .step = step, .kinetic_energy = 1.0 / (double)(step + 1),
                             .rotational_energy = 2.0, .gravitational_energy = -1.0, .elastic_energy = NAN,
                             .dissipated_damping = NAN, .dissipated_friction = NAN,
                             .dissipated_rolling = NAN, .dissipated_plasticity = NAN,
                             .n_contacts = step * 3, .n_wall_contacts = 1, .max_overlap = 1e-6 * (double)step,
                             .n_walls = 2, .wall_force = wf, .wall_torque = wt};
        assert_int_equal(snapshot_add_sample(f, &o, err, sizeof err), 0);
        if (step % 4 == 0) assert_int_equal(write_store(f, &p, 0.5 * (double)step, step, err, sizeof err), 0);
    }
    assert_int_equal(snapshot_flush(f, err, sizeof err), 0);
    char h5_path[PATH_MAX];
    snprintf(h5_path, sizeof h5_path, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);

    hid_t file = H5Fopen(h5_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t n;
    double *t = read_all(file, "/timeseries/time", &n), *ke = read_all(file, "/timeseries/kinetic_energy", &n);
    double *el = read_all(file, "/timeseries/elastic_energy", &n), *nc = read_all(file, "/timeseries/n_contacts", &n);
    double *wf = read_all(file, "/timeseries/wall_force", &n);
    double *wt = read_all(file, "/timeseries/wall_torque", &n);
    assert_int_equal(n, 10);
    for (int k = 0; k < 10; k++) {
        assert_true(t[k] == 0.5 * k);
        assert_true(ke[k] == 1.0 / (k + 1));
        assert_true(isnan(el[k]));
        assert_true(nc[k] == 3.0 * k);
        assert_true(wf[6 * k] == k && wf[6 * k + 5] == -k && wf[6 * k + 3] == 3.0);
        assert_true(wt[6 * k + 1] == k && wt[6 * k + 5] == 10.0 * k && wt[6 * k + 3] == 8.0);
    }
    free(t); free(ke); free(el); free(nc); free(wf); free(wt);
    assert_true(H5Fclose(file) >= 0);

    /* continue in place from snapshot 1 (step 4): snapshot 2 and samples 5..9 go */
    info.case_text = "a: 2\n";
    f = snapshot_reopen(h5_path, 1, 4, &info, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(snapshot_count(f), 2);
    assert_int_equal(snapshot_last_step(f), 4);
    assert_int_equal(write_store(f, &p, 3.0, 6, err, sizeof err), 0);
    assert_int_equal(snapshot_count(f), 3);
    assert_int_equal(snapshot_close(f), 0);
    file = H5Fopen(h5_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    t = read_all(file, "/timeseries/time", &n);
    assert_int_equal(n, 5); /* steps 0..4 */
    free(t);
    check_snapshot(file, 2, &p, 3.0, 6);
    assert_int_equal(H5Lexists(file, "/snapshots/000003", H5P_DEFAULT), 0);
    assert_true(H5Fclose(file) >= 0);

    /* a new file that starts with snapshots 0..1 of this one */
    f = snapshot_create(dir, "copy", &info, err, sizeof err);
    assert_non_null(f);
    assert_int_equal(snapshot_import(f, h5_path, 1, 4, err, sizeof err), 0);
    assert_int_equal(snapshot_count(f), 2);
    char copy_path[PATH_MAX];
    snprintf(copy_path, sizeof copy_path, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);
    file = H5Fopen(copy_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    wf = read_all(file, "/timeseries/wall_force", &n);
    wt = read_all(file, "/timeseries/wall_torque", &n);
    assert_int_equal(n, 5);
    assert_true(wf[6 * 4] == 4.0 && wt[6 * 4 + 5] == 40.0);
    free(wf); free(wt);
    check_snapshot(file, 1, &p, 2.0, 4);
    assert_true(H5Fclose(file) >= 0);
    particles_free(&p);
    assert_int_equal(open_objects(), 0);
}

/* ------------------------------------------------------------------ the journal */

/* Writes three snapshots; with crash_commit > 0 the process dies (SIGKILL) in the
 * middle of that commit. */
static void writer_child(const char *dir, int crash_commit)
{
    if (crash_commit > 0) {
        char v[16];
        snprintf(v, sizeof v, "%d", crash_commit);
        setenv("DEMPACT_TEST_CRASH_COMMIT", v, 1);
    }
    snapshot_run_info info = {.case_name = "j", .case_text = "j: 1\n", .dt = 1.0};
    char err[512];
    snapshot_file *f = snapshot_create(dir, "j", &info, err, sizeof err);
    if (!f) _exit(2);
    for (int k = 0; k < 3; k++) {
        particle_store p;
        particles_init(&p, 16);
        make_store(&p, 5 + (size_t)k, 0, k);
        if (write_store(f, &p, k, k, err, sizeof err) != 0) _exit(3);
        particles_free(&p);
    }
    snapshot_close(f);
    _exit(0);
}

static void test_crash_in_commit(void **state)
{
    (void)state;
    char dir[PATH_MAX], h5[PATH_MAX], journal[PATH_MAX], xmf[PATH_MAX], err[512];
    join(dir, sizeof dir, out_dir, "journal");
    join(h5, sizeof h5, dir, "j.h5");
    join(journal, sizeof journal, dir, "j.h5.journal");
    join(xmf, sizeof xmf, dir, "j.xmf");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) writer_child(dir, 3); /* commits with pages: snapshots 0, 1, 2 */
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_true(file_exists(journal)); /* the commit was half applied */
    /* the .xmf still names the two committed snapshots only */
    char *x = read_text(xmf);
    assert_non_null(strstr(x, "snapshot_000001"));
    assert_null(strstr(x, "snapshot_000002"));
    free(x);
    /* recovery completes the commit: three whole snapshots */
    assert_int_equal(journal_recover(h5, err, sizeof err), 1);
    assert_false(file_exists(journal));
    assert_int_equal(journal_recover(h5, err, sizeof err), 0); /* nothing left to do */
    hid_t file = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    for (int k = 0; k < 3; k++) {
        particle_store p;
        make_store(&p, 5 + (size_t)k, 0, k);
        check_snapshot(file, k, &p, k, k);
        particles_free(&p);
    }
    assert_true(H5Fclose(file) >= 0);

    /* an incomplete journal (a crash while it was written) is dropped, the file kept */
    FILE *j = fopen(journal, "wb");
    assert_non_null(j);
    fputs("DMPJRNL1 cut short", j);
    fclose(j);
    assert_int_equal(journal_recover(h5, err, sizeof err), 0);
    assert_false(file_exists(journal));
    assert_int_equal(count_in_child(h5), 3);

    /* a complete journal of another file is refused, and left alone */
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) writer_child(dir, 2);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    char moved[PATH_MAX];
    join(moved, sizeof moved, dir, "j2.h5");
    assert_int_equal(rename(h5, moved), 0);
    /* the crashed file is now j2.h5; give j.h5 another inode */
    FILE *other = fopen(h5, "wb");
    assert_non_null(other);
    fclose(other);
    assert_int_equal(journal_recover(h5, err, sizeof err), -1);
    assert_non_null(strstr(err, "belongs to another file"));
    assert_true(file_exists(journal));
    assert_int_equal(open_objects(), 0);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--count-snapshots") == 0)
        return reader_main(argv[2]);
    if (!realpath(argv[0], self_path)) {
        fprintf(stderr, "cannot resolve %s\n", argv[0]);
        return 1;
    }
    const char *bin = getenv("DEMPACT_BINARY_DIR");
    if (bin && bin[0]) {
        snprintf(out_dir, sizeof out_dir, "%s/test_output/snapshot", bin);
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s/test_output", bin);
        mkdir(parent, 0777);
        mkdir(out_dir, 0777);
    } else {
        snprintf(out_dir, sizeof out_dir, "/tmp/dempact_test_snapshot_XXXXXX");
        if (!mkdtemp(out_dir)) {
            perror("mkdtemp");
            return 1;
        }
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_snapshots),
        cmocka_unit_test(test_empty_store_and_no_case_text),
        cmocka_unit_test(test_create_errors),
        cmocka_unit_test(test_contacts),
        cmocka_unit_test(test_timeseries_and_continuing),
        cmocka_unit_test(test_crash_in_commit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
