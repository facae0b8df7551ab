/* Snapshot output (io/snapshot.c): write snapshots of hand-made particle stores, read
 * them back with the HDF5 C API and compare every value exactly; check the XDMF
 * sidecar, that ghosts are not written, that a second process can read the file while
 * it is open, and the error messages. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
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
#include "io/snapshot.h"

static char self_path[PATH_MAX]; /* this executable, for the reader child process */
static char out_dir[PATH_MAX];   /* where the tests write */

/* ------------------------------------------------------------------ fixtures */

/* A store with n_local particles plus n_ghost ghost entries carrying sentinel values
 * (id -1, position 1e300, ...) that must never reach the file. `k` varies the values
 * between snapshots. */
static void make_store(particle_store *p, size_t n_local, size_t n_ghost, int k)
{
    assert_int_equal(particles_init(p, n_local + n_ghost), 0);
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
    }
    for (size_t g = n_local; g < n_local + n_ghost; g++) {
        p->id[g] = -1;
        p->type[g] = -1;
        p->radius[g] = p->mass[g] = -1.0;
        p->x[g] = p->y[g] = p->z[g] = 1e300;
        p->vx[g] = p->vy[g] = p->vz[g] = 1e300;
        p->wx[g] = p->wy[g] = p->wz[g] = 1e300;
        p->fx[g] = p->fy[g] = p->fz[g] = 1e300;
        p->ghost_owner[g] = g - n_local;
        p->ghost_shift[3 * g] = p->ghost_shift[3 * g + 1] = p->ghost_shift[3 * g + 2] = 1.0;
    }
    p->n_total = n_local + n_ghost;
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
    assert_int_equal(info.nlinks, 8); /* exactly the eight datasets */

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
        assert_int_equal(snapshot_write(f, &p[k], times[k], steps[k], err, sizeof err), 0);
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
    assert_int_equal(H5Lexists(file, "/incomplete_snapshot", H5P_DEFAULT), 0);
    assert_true(H5Gget_info(file, &ginfo) >= 0);
    assert_int_equal(ginfo.nlinks, 3); /* /case_text, /snapshots and /vertex_index */
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
    assert_int_equal(grids, 1 + NS); /* the collection and one per snapshot */
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
                 "            <DataItem Dimensions=\"%llu\" NumberType=\"Int\" Precision=\"8\" "
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
                           "\"force\" AttributeType=\"Vector\""};
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
    assert_int_equal(snapshot_write(f, &p, 2.5, 7, err, sizeof err), 0);
    particles_free(&p);
    /* a non-finite time is refused and adds nothing */
    make_store(&p, 2, 0, 1);
    assert_int_equal(snapshot_write(f, &p, NAN, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, snapshot_h5_path(f)));
    assert_int_equal(snapshot_count(f), 1);
    assert_int_equal(snapshot_write(f, &p, 3.0, 8, err, sizeof err), 0);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
