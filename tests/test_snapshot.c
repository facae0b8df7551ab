/* Snapshot output (io/output/snapshot*.c): write snapshots of hand-made particle stores, read
 * them back with the HDF5 C API through NAME.h5's links and compare every value
 * exactly; the .xmf files; that ghosts are not written; that another process reads the
 * output while it is being written; the contact network and the walls of a real
 * simulation (their triangles against closed-form areas and positions); the time
 * series and a continued output; a writer killed between any two of its steps leaves
 * every named snapshot readable as it is, and the .xmf files naming it; the lock; and that nothing in the way of an
 * output is replaced unless it is an output of the same case or --overwrite says so. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <ftw.h>
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

#include "engine/population/particles.h"
#include "engine/sim.h"
#include "io/case/case.h"
#include "io/output/snapshot.h"
#include "io/output/snapshot_internal.h"
#include "remove_tree.h"

static char self_path[PATH_MAX]; /* this executable, for the reader child process */
static char out_dir[PATH_MAX];   /* where the tests write */

/* ------------------------------------------------------------------ fixtures */

/* A store with n_local particles plus n_ghost ghost entries carrying sentinel values
 * (id -1, position 1e300, ...) that must never reach the file. `k` varies the values
 * between snapshots; k = 1 is a store of a run where nothing exerts a torque, which holds
 * no torques (particles.h): its snapshot's torques are zeros. */
static void make_store(particle_store *p, size_t n_local, size_t n_ghost, int k)
{
    assert_int_equal(particles_init(p, n_local + n_ghost), 0);
    if (k != 1) assert_int_equal(particles_keep_spin_history(p), 0); /* the torques with it */
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
        if (p->tx) {
            p->tx[i] = 1e-7 * (double)i;
            p->ty[i] = -3.0 / (double)(i + 2);
            p->tz[i] = (double)k;
        }
    }
    for (size_t g = n_local; g < n_local + n_ghost; g++) {
        p->id[g] = -1;
        p->type[g] = -1;
        p->radius[g] = p->mass[g] = -1.0;
        p->x[g] = p->y[g] = p->z[g] = 1e300;
        p->vx[g] = p->vy[g] = p->vz[g] = 1e300;
        p->wx[g] = p->wy[g] = p->wz[g] = 1e300;
        p->fx[g] = p->fy[g] = p->fz[g] = 1e300;
        if (p->tx) p->tx[g] = p->ty[g] = p->tz[g] = 1e300;
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

/* (a NULL: a column the store does not hold, which the file has as zeros) */
static void check_vector(hid_t g, const char *name, size_t n, const double *a, const double *b,
                         const double *c)
{
    double *v = read_dataset(g, name, H5T_NATIVE_DOUBLE, n, 3, H5T_FLOAT, 8);
    for (size_t i = 0; i < n; i++) {
        assert_true(v[3 * i + 0] == (a ? a[i] : 0.0));
        assert_true(v[3 * i + 1] == (b ? b[i] : 0.0));
        assert_true(v[3 * i + 2] == (c ? c[i] : 0.0));
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

/* Every dataset below g carries string attributes unit and meaning, the meaning
 * non-empty. */
static herr_t documented_visit(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    (void)data;
    if (info->type != H5O_TYPE_DATASET) return 0;
    hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
    assert_true(d >= 0);
    if (H5Aexists(d, "unit") <= 0 || H5Aexists(d, "meaning") <= 0) fail_msg("%s has no unit or meaning", name);
    char *meaning = read_string_attr(d, "meaning"), *unit = read_string_attr(d, "unit");
    if (!meaning[0]) fail_msg("%s: empty meaning", name);
    free(meaning);
    free(unit);
    H5Dclose(d);
    return 0;
}

static void check_documented(hid_t g)
{
    assert_true(H5Ovisit(g, H5_INDEX_NAME, H5_ITER_INC, documented_visit, NULL) >= 0);
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
    /* the twelve per-particle datasets, vertex_index, an empty contacts group and,
     * when there are walls, their triangles */
    assert_int_equal(info.nlinks, 14 + (H5Lexists(g, "walls", H5P_DEFAULT) > 0));
    check_documented(g);
    int64_t m = -1;
    hid_t c = H5Gopen2(g, "contacts", H5P_DEFAULT);
    assert_true(c >= 0);
    read_attr(c, "n_contacts", H5T_NATIVE_INT64, &m);
    assert_int_equal(m, 0);
    H5Gclose(c);
    /* the .xmf's connectivity: 0, 1, 2, ... at least N long */
    hid_t vd = H5Dopen2(g, "vertex_index", H5P_DEFAULT);
    hid_t vs = H5Dget_space(vd);
    hsize_t len = 0;
    H5Sget_simple_extent_dims(vs, &len, NULL);
    H5Sclose(vs);
    H5Dclose(vd);
    assert_true(len >= p->n_local && len >= 1);
    int64_t *vertex = read_dataset(g, "vertex_index", H5T_NATIVE_INT64, len, 0, H5T_INTEGER, 8);
    for (hsize_t i = 0; i < len; i++) assert_int_equal(vertex[i], (int64_t)i);
    free(vertex);

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

/* `test_snapshot --count-snapshots FILE`: run in a separate process, with HDF5's own
 * file locking, while the writer is still going; opens NAME.h5, reads the positions of
 * every snapshot it names through its link and prints how many there are. Exits 1 if
 * anything cannot be read. */
static int reader_main(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 1;
    int rc = 1;
    H5G_info_t info;
    if (H5Gget_info_by_name(f, "/snapshots", &info, H5P_DEFAULT) >= 0) {
        rc = 0;
        for (hsize_t k = 0; k < info.nlinks && rc == 0; k++) {
            char name[64];
            snprintf(name, sizeof name, "/snapshots/%06llu/position", (unsigned long long)k);
            hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
            hid_t s = d >= 0 ? H5Dget_space(d) : -1;
            hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
            double *buf = n >= 0 ? malloc((size_t)(n ? n : 1) * sizeof *buf) : NULL;
            if (!buf || (n > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)) rc = 1;
            free(buf);
            if (s >= 0) H5Sclose(s);
            if (d >= 0) H5Dclose(d);
            else rc = 1;
        }
        if (rc == 0) printf("%llu\n", (unsigned long long)info.nlinks);
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

/* How many times needle occurs in text. */
static int occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *q = text; (q = strstr(q, needle)) != NULL; q++) n++;
    return n;
}

/* The names in a folder, sorted, one per line with size and a checksum of the
 * content (FNV-1a), malloc'd: two listings compare equal when nothing changed. */
static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *listing(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return strdup("(none)\n");
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    size_t cap = 64 + 600 * (size_t)n, used = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    for (int k = 0; k < n; k++) {
        char path[PATH_MAX];
        join(path, sizeof path, dir, names[k]);
        struct stat st;
        lstat(path, &st);
        uint64_t h = 0xcbf29ce484222325ULL;
        if (S_ISREG(st.st_mode)) {
            FILE *in = fopen(path, "rb");
            int c;
            while (in && (c = fgetc(in)) != EOF) h = (h ^ (uint64_t)c) * 0x100000001b3ULL;
            if (in) fclose(in);
        } else if (S_ISDIR(st.st_mode)) {
            char *sub = listing(path);
            for (const char *c = sub; *c; c++) h = (h ^ (uint64_t)(unsigned char)*c) * 0x100000001b3ULL;
            free(sub);
        }
        used += (size_t)snprintf(out + used, cap - used, "%s %o %lld %016llx\n", names[k], st.st_mode,
                                 (long long)st.st_size, (unsigned long long)h);
        free(names[k]);
    }
    return out;
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
    snapshot_file *f = snapshot_create(dir, "run", &info, NULL, err, sizeof err);
    if (!f) fail_msg("%s", err);
    assert_string_equal(err, "");
    assert_int_equal(snapshot_count(f), 0);

    char h5_path[PATH_MAX], xmf_path[PATH_MAX], contacts_xmf[PATH_MAX], walls_xmf[PATH_MAX], snapdir[PATH_MAX];
    join(h5_path, sizeof h5_path, dir, "run.h5");
    join(xmf_path, sizeof xmf_path, dir, "run.xmf");
    join(contacts_xmf, sizeof contacts_xmf, dir, "run_contacts.xmf");
    join(walls_xmf, sizeof walls_xmf, dir, "run_walls.xmf");
    join(snapdir, sizeof snapdir, dir, "run.d");
    assert_string_equal(snapshot_h5_path(f), h5_path);
    assert_string_equal(snapshot_xmf_path(f), xmf_path);
    assert_true(file_exists(h5_path)); /* an output of no snapshot yet, and of this case */
    assert_false(file_exists(xmf_path)); /* no .xmf without a time step */
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
        /* another process reads every snapshot while the output is being written */
        assert_int_equal(count_in_child(h5_path), k + 1);
        /* the writer holds no HDF5 object between snapshots */
        assert_int_equal(open_objects(), 0);
    }
    assert_int_equal(snapshot_close(f), 0);
    assert_int_equal(open_objects(), 0);
    /* no temporary file is left */
    DIR *d = opendir(snapdir);
    assert_non_null(d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            assert_int_equal(strlen(e->d_name), 9);
            assert_int_equal(strspn(e->d_name, "0123456789"), 6);
            assert_string_equal(e->d_name + 6, ".h5");
            assert_true(atoi(e->d_name) < NS);
            files++;
        } else {
            assert_true(!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."));
        }
    closedir(d);
    assert_int_equal(files, NS);

    /* ---- read back, from another folder: the links resolve from NAME.h5's folder */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir("/"), 0);
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
    int32_t format = 0;
    read_attr(file, "dt", H5T_NATIVE_DOUBLE, &dt);
    read_attr(file, "format", H5T_NATIVE_INT32, &format);
    assert_true(dt == 1.0e-6 / 3.0);
    assert_int_equal(format, 3);
    {
        /* a fixed-length UTF-8 string (reading it never goes through the global heap) */
        hid_t cd = H5Dopen2(file, "/case_text", H5P_DEFAULT);
        assert_true(cd >= 0);
        hid_t ft = H5Dget_type(cd);
        assert_int_equal(H5Tget_class(ft), H5T_STRING);
        assert_true(H5Tis_variable_str(ft) == 0);
        assert_int_equal(H5Tget_cset(ft), H5T_CSET_UTF8);
        size_t size = H5Tget_size(ft);
        char *text = calloc(size + 1, 1);
        assert_true(H5Dread(cd, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, text) >= 0);
        assert_string_equal(text, case_text);
        free(text);
        H5Tclose(ft);
        H5Dclose(cd);
    }
    H5G_info_t ginfo;
    assert_true(H5Gget_info_by_name(file, "/snapshots", &ginfo, H5P_DEFAULT) >= 0);
    assert_int_equal(ginfo.nlinks, NS);
    assert_true(H5Gget_info(file, &ginfo) >= 0);
    assert_int_equal(ginfo.nlinks, 3); /* case_text, snapshots, timeseries */
    for (int k = 0; k < NS; k++) {
        char name[64], target[64];
        snprintf(name, sizeof name, "/snapshots/%06d", k);
        H5L_info_t li;
        assert_true(H5Lget_info(file, name, &li, H5P_DEFAULT) >= 0);
        assert_int_equal(li.type, H5L_TYPE_EXTERNAL);
        char buf[256];
        const char *fname = NULL, *obj = NULL;
        assert_true(H5Lget_val(file, name, buf, sizeof buf, H5P_DEFAULT) >= 0);
        assert_true(H5Lunpack_elink_val(buf, li.u.val_size, NULL, &fname, &obj) >= 0);
        snprintf(target, sizeof target, "run.d/%06d.h5", k);
        assert_string_equal(fname, target); /* relative: the output can be moved */
        assert_string_equal(obj, "/");
        check_snapshot(file, k, &p[k], times[k], steps[k]);
    }
    assert_true(H5Fclose(file) >= 0);
    assert_int_equal(chdir(cwd), 0);

    /* ---- the .xmf files: particles and contacts (no walls: no walls file) */
    assert_false(file_exists(walls_xmf));
    char *xmf = read_text(xmf_path), *cx = read_text(contacts_xmf);
    assert_non_null(strstr(xmf, "<Xdmf Version=\"3.0\""));
    assert_non_null(strstr(xmf, "CollectionType=\"Temporal\""));
    assert_int_equal(occurrences(xmf, "<Grid "), 1 + NS); /* the collection, one per snapshot */
    assert_int_equal(occurrences(xmf, "<Grid Name=\"particles\" GridType=\"Uniform\">"), NS);
    assert_int_equal(occurrences(xmf, "CollectionType=\"Spatial\""), 0);
    assert_int_equal(occurrences(cx, "<Grid Name=\"contacts\" GridType=\"Uniform\">"), NS);
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
        snprintf(want, sizeof want, "NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">run.d/%06d.h5:/position"
                 "</DataItem>", k);
        assert_non_null(strstr(xmf, want));
        snprintf(want, sizeof want, "Format=\"HDF\">run.d/%06d.h5:/vertex_index</DataItem>", k);
        assert_non_null(strstr(xmf, want));
        snprintf(want, sizeof want, "<DataItem Dimensions=\"%zu\" NumberType=\"Float\" Precision=\"8\" "
                 "Format=\"HDF\">run.d/%06d.h5:/radius</DataItem>", n_local[k], k);
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
        assert_int_equal(occurrences(xmf, want), NS);
    }
    /* no snapshot has contacts: each one's contacts grid is a zero-length line written
     * inline, never an empty grid; and no radius on the contacts */
    assert_int_equal(occurrences(cx, "NumberOfElements=\"0\""), 0);
    assert_int_equal(occurrences(cx, "<Topology TopologyType=\"Polyline\" NumberOfElements=\"1\""), NS);
    assert_int_equal(occurrences(cx, "Name=\"radius\""), 0);
    assert_non_null(strstr(xmf, "</Xdmf>\n"));
    assert_non_null(strstr(cx, "</Xdmf>\n"));
    free(xmf);
    free(cx);
    for (int k = 0; k < NS; k++)
        particles_free(&p[k]);
}

static void test_empty_store_and_no_case_text(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    join(dir, sizeof dir, out_dir, "empty/");
    snapshot_run_info info = {.case_name = NULL, .case_text = NULL, .dt = 0.0,
                              .domain_min = {0, 0, 0}, .domain_max = {2, 4, 6}};
    char err[512] = "";
    snapshot_file *f = snapshot_create(dir, "e", &info, NULL, err, sizeof err);
    if (!f) fail_msg("%s", err);
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
    char h5_path[PATH_MAX], xmf_path[PATH_MAX];
    snprintf(h5_path, sizeof h5_path, "%s", snapshot_h5_path(f));
    snprintf(xmf_path, sizeof xmf_path, "%s", snapshot_xmf_path(f));
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
    /* the snapshot without particles: one stand-in point at the domain's centre, radius 0 */
    char *xmf = read_text(xmf_path);
    assert_int_equal(occurrences(xmf, "NumberOfElements=\"0\""), 0);
    assert_non_null(strstr(xmf, "<Topology TopologyType=\"Polyvertex\" NumberOfElements=\"1\""));
    assert_non_null(strstr(xmf, "Format=\"XML\">1 2 3</DataItem>"));
    assert_non_null(strstr(xmf, "<Topology TopologyType=\"Polyvertex\" NumberOfElements=\"2\""));
    free(xmf);
}

static void test_create_errors(void **state)
{
    (void)state;
    H5open();
    char err[512] = "";
    snapshot_run_info info = {.case_name = "x"};

    /* a folder under a regular file */
    assert_null(snapshot_create("/dev/null/x", "run", &info, NULL, err, sizeof err));
    assert_non_null(strstr(err, "/dev/null"));

    /* a folder in the way of the .h5 file: not replaced, even with overwrite */
    char dir[PATH_MAX], blocker[PATH_MAX];
    join(dir, sizeof dir, out_dir, "blocked");
    join(blocker, sizeof blocker, dir, "run.h5");
    assert_true(mkdir(dir, 0777) == 0 || errno == EEXIST);
    assert_true(mkdir(blocker, 0777) == 0 || errno == EEXIST);
    err[0] = '\0';
    assert_null(snapshot_create(dir, "run", &info, NULL, err, sizeof err));
    assert_non_null(strstr(err, blocker));
    info.overwrite = 1;
    assert_null(snapshot_create(dir, "run", &info, NULL, err, sizeof err));
    info.overwrite = 0;

    /* bad names */
    err[0] = '\0';
    assert_null(snapshot_create(out_dir, "a/b", &info, NULL, err, sizeof err));
    assert_non_null(strstr(err, "a/b"));
    err[0] = '\0';
    assert_null(snapshot_create(out_dir, "", &info, NULL, err, sizeof err));
    assert_true(err[0] != '\0');

    /* NULL-safe, and a NULL err buffer is allowed */
    assert_int_equal(snapshot_close(NULL), 0);
    assert_null(snapshot_create("/dev/null/x", "run", &info, NULL, NULL, 0));

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
        for (size_t q = 0; q < s->pairs.n; q++) pairs += s->pairs.touching[q] != 0;
        for (size_t q = 0; q < s->wall_pairs.n; q++) walls += s->wall_pairs.touching[q] != 0;
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
    memcpy(info.domain_min, cfg.domain_min, sizeof info.domain_min);
    memcpy(info.domain_max, cfg.domain_max, sizeof info.domain_max);
    snapshot_file *f = snapshot_create(dir, "c", &info, NULL, err, sizeof err);
    if (!f) fail_msg("%s", err);
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
    check_documented(g);
    int64_t m = -1;
    read_attr(c, "n_contacts", H5T_NATIVE_INT64, &m);
    size_t n_pairs = 0, n_walls = 0;
    for (size_t q = 0; q < s.pairs.n; q++) n_pairs += s.pairs.touching[q] != 0; /* ended ones too */
    for (size_t q = 0; q < s.wall_pairs.n; q++) n_walls += s.wall_pairs.touching[q] != 0;
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
    /* the walls: two planes clipped to the 0.02 x 0.02 x 0.03 box and a rectangle */
    hid_t w = H5Gopen2(g, "walls", H5P_DEFAULT);
    assert_true(w >= 0);
    hid_t ts = H5Dopen2(w, "triangles", H5P_DEFAULT), tsp = H5Dget_space(ts);
    hsize_t tdims[2];
    H5Sget_simple_extent_dims(tsp, tdims, NULL);
    H5Sclose(tsp);
    H5Dclose(ts);
    assert_int_equal(tdims[0], 6);
    int32_t *owner = read_dataset(w, "wall", H5T_NATIVE_INT32, 6, 0, H5T_INTEGER, 4);
    int per_wall[3] = {0, 0, 0};
    for (int t = 0; t < 6; t++) per_wall[owner[t]]++;
    assert_true(per_wall[0] == 2 && per_wall[1] == 2 && per_wall[2] == 2);
    free(owner);
    H5Gclose(w);
    H5Gclose(g);
    /* the wall names */
    hid_t a = H5Aopen(file, "wall_names", H5P_DEFAULT);
    assert_true(a >= 0);
    H5Aclose(a);
    assert_true(H5Fclose(file) >= 0);

    /* the contacts' .xmf: the lines and their forces as cell data, no radius; the walls' */
    char xmf_path[PATH_MAX];
    join(xmf_path, sizeof xmf_path, dir, "c_contacts.xmf");
    char *xmf = read_text(xmf_path);
    char want[256];
    snprintf(want, sizeof want, "<Topology TopologyType=\"Polyline\" NumberOfElements=\"%zu\" "
                                "NodesPerElement=\"2\">", M);
    assert_non_null(strstr(xmf, want));
    assert_non_null(strstr(xmf, "c.d/000000.h5:/contacts/endpoints</DataItem>"));
    assert_non_null(strstr(xmf, "<Attribute Name=\"normal_force\" AttributeType=\"Scalar\" Center=\"Cell\">"));
    assert_null(strstr(xmf, "\"radius\""));
    free(xmf);
    join(xmf_path, sizeof xmf_path, dir, "c_walls.xmf");
    xmf = read_text(xmf_path);
    assert_non_null(strstr(xmf, "<Topology TopologyType=\"Triangle\" NumberOfElements=\"6\">"));
    assert_non_null(strstr(xmf, "c.d/000000.h5:/walls/vertices</DataItem>"));
    assert_non_null(strstr(xmf, "<Attribute Name=\"wall\" AttributeType=\"Scalar\" Center=\"Cell\">"));
    free(xmf);
    sim_free(&s);
    sim_config_free(&cfg);
    assert_int_equal(open_objects(), 0);
}

/* ------------------------------------------------------------------ the walls */

static double triangle_area(const double *v, const int64_t *k)
{
    const double *a = v + 3 * k[0], *b = v + 3 * k[1], *c = v + 3 * k[2];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double x = u[1] * w[2] - u[2] * w[1], y = u[2] * w[0] - u[0] * w[2], z = u[0] * w[1] - u[1] * w[0];
    return 0.5 * sqrt(x * x + y * y + z * z);
}

/* Area and vertex extremes of one wall's triangles. */
static double wall_area(const wall_triangles *t, int32_t wall)
{
    double area = 0.0;
    for (size_t q = 0; q < t->n_triangles; q++)
        if (t->wall[q] == wall) area += triangle_area(t->vertices, t->corners + 3 * q);
    return area;
}

/* Each wall kind as triangles, against closed forms: a plane's patch in the box (an
 * axis-aligned face, the regular hexagon where x + y + z = 1.5 cuts the unit cube,
 * area 3 sqrt(3) / 4; a square of the box's diagonal when it misses the box), a
 * rectangle's area 4 a b, a cylinder's and a cone's vertices on their radii, an STL
 * wall's triangles; a moving rectangle translated by v t and a rotating one turned by
 * w t. */
static void test_wall_triangles(void **state)
{
    (void)state;
    double stl[18] = {0.2, 0.2, 0.2, 0.8, 0.2, 0.2, 0.2, 0.8, 0.2,
                      0.2, 0.2, 0.9, 0.8, 0.2, 0.9, 0.2, 0.8, 0.9};
    wall_spec w[8] = {
        {.kind = WALL_PLANE, .point = {0, 0, 0}, .normal = {0, 0, 1}},
        {.kind = WALL_PLANE, .point = {0.5, 0.5, 0.5}, .normal = {1, 1, 1}},
        {.kind = WALL_PLANE, .point = {0, 0, 5}, .normal = {0, 0, 1}},
        {.kind = WALL_RECTANGLE, .point = {0.5, 0.5, 0.5}, .normal = {0, 0, 1}, .axis_u = {1, 0, 0},
         .half_size = {0.2, 0.1}, .velocity = {0.1, 0, 0}},
        {.kind = WALL_CYLINDER, .point = {0.5, 0.5, 0}, .axis = {0, 0, 1}, .radii = {0.3, 0.3}, .length = 1},
        {.kind = WALL_CONE, .point = {0.5, 0.5, 0}, .axis = {0, 0, 1}, .radii = {0.4, 0.1}, .length = 0.5},
        {.kind = WALL_STL, .mesh = stl, .n_triangles = 2},
        {.kind = WALL_RECTANGLE, .point = {0.5, 0.5, 0.5}, .normal = {0, 0, 1}, .axis_u = {1, 0, 0},
         .half_size = {0.2, 0.1}, .rotation_point = {0.5, 0.5, 0.5}, .rotation_axis = {0, 0, 1},
         .angular_velocity = 2.0},
    };
    double nn = sqrt(3.0);
    for (int a = 0; a < 3; a++) w[1].normal[a] /= nn;
    wall_set ws;
    char err[256];
    if (walls_init(&ws, w, 8, err, sizeof err) != 0) fail_msg("%s", err);
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, t = 0.25;
    wall_triangles tr;
    assert_int_equal(wall_triangles_build(&tr, &ws, t, lo, hi), 0);
    assert_true(fabs(wall_area(&tr, 0) - 1.0) < 1e-12);               /* the floor: a face */
    assert_true(fabs(wall_area(&tr, 1) - 3.0 * sqrt(3.0) / 4.0) < 1e-12); /* hexagon, side sqrt(2)/2 */
    assert_true(fabs(wall_area(&tr, 2) - 3.0) < 1e-12);               /* misses: diagonal^2 */
    assert_true(fabs(wall_area(&tr, 3) - 4 * 0.2 * 0.1) < 1e-12);
    assert_true(fabs(wall_area(&tr, 7) - 4 * 0.2 * 0.1) < 1e-12);
    /* an open tube: 2 x WALL_RING_SEGMENTS triangles, area 2 pi r L less the chords' loss */
    double seg = 2.0 * M_PI / WALL_RING_SEGMENTS;
    assert_true(fabs(wall_area(&tr, 4) - WALL_RING_SEGMENTS * 2 * 0.3 * sin(seg / 2) * 1.0) < 1e-12);
    int n_cyl = 0, n_cone = 0;
    for (size_t q = 0; q < tr.n_triangles; q++) {
        const int64_t *k = tr.corners + 3 * q;
        for (int c = 0; c < 3; c++) {
            const double *v = tr.vertices + 3 * k[c];
            double r = hypot(v[0] - 0.5, v[1] - 0.5);
            if (tr.wall[q] == 4) assert_true(fabs(r - 0.3) < 1e-12 && (fabs(v[2]) < 1e-15 || fabs(v[2] - 1) < 1e-15));
            if (tr.wall[q] == 5) /* radius 0.4 at z = 0, 0.1 at z = 0.5 */
                assert_true((fabs(v[2]) < 1e-15 && fabs(r - 0.4) < 1e-12) ||
                            (fabs(v[2] - 0.5) < 1e-15 && fabs(r - 0.1) < 1e-12));
            if (tr.wall[q] == 3) /* moved by v t = 0.025 along x */
                assert_true(fabs(fabs(v[0] - 0.525) - 0.2) < 1e-12 && fabs(fabs(v[1] - 0.5) - 0.1) < 1e-12);
            if (tr.wall[q] == 7) { /* turned by w t = 0.5 rad about z through the centre */
                double u = (v[0] - 0.5) * cos(0.5) + (v[1] - 0.5) * sin(0.5);
                double s = -(v[0] - 0.5) * sin(0.5) + (v[1] - 0.5) * cos(0.5);
                assert_true(fabs(fabs(u) - 0.2) < 1e-12 && fabs(fabs(s) - 0.1) < 1e-12);
            }
            if (tr.wall[q] == 1) assert_true(fabs(v[0] + v[1] + v[2] - 1.5) < 1e-12);
        }
        n_cyl += tr.wall[q] == 4;
        n_cone += tr.wall[q] == 5;
    }
    assert_int_equal(n_cyl, 2 * WALL_RING_SEGMENTS);
    assert_int_equal(n_cone, 2 * WALL_RING_SEGMENTS);
    /* the STL wall: its two triangles as they are */
    int seen = 0;
    for (size_t q = 0; q < tr.n_triangles; q++) {
        if (tr.wall[q] != 6) continue;
        for (int c = 0; c < 3; c++)
            for (int a = 0; a < 3; a++) assert_true(tr.vertices[3 * tr.corners[3 * q + c] + a] == stl[9 * seen + 3 * c + a]);
        seen++;
    }
    assert_int_equal(seen, 2);
    /* the engine's walls are where they were: the triangles came from a copy */
    assert_true(ws.time == 0.0 && ws.state[3].shift[0] == 0.0);
    wall_triangles_free(&tr);
    walls_free(&ws);
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

static void inode_of(const char *path, ino_t *ino)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    *ino = st.st_ino;
}

static void test_timeseries_and_continuing(void **state)
{
    (void)state;
    wall_spec walls[2] = {{.name = "floor", .kind = WALL_PLANE, .normal = {0, 0, 1}},
                          {.name = "lid", .kind = WALL_PLANE, .point = {0, 0, 1}, .normal = {0, 0, -1}}};
    wall_set ws;
    char err[512] = "";
    if (walls_init(&ws, walls, 2, err, sizeof err) != 0) fail_msg("%s", err);
    snapshot_run_info info = {.case_name = "ts", .case_text = "a: 1\n", .dt = 0.5, .walls = &ws,
                              .domain_max = {1, 1, 1}};
    char dir[PATH_MAX];
    join(dir, sizeof dir, out_dir, "ts");
    snapshot_file *f = snapshot_create(dir, "ts", &info, NULL, err, sizeof err);
    if (!f) fail_msg("%s", err);
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
        if (step % 4 == 0) {
            snapshot_state st = {.p = &p, .walls = &ws, .time = 0.5 * (double)step, .step = step};
            assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
        }
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
    /* the walls at each snapshot: the floor's square and the lid's, 2 triangles each */
    hid_t d = H5Dopen2(file, "/snapshots/000002/walls/wall", H5P_DEFAULT);
    assert_true(d >= 0);
    H5Dclose(d);
    assert_true(H5Fclose(file) >= 0);

    /* continue in place from snapshot 1 (step 4): snapshot 2 and samples 5..9 go */
    snapshot_carry carry = {.path = strdup(h5_path), .format = 3, .keep = 2, .series = {.n_walls = 2}};
    for (int64_t step = 0; step <= 4; step++) {
        double wf[6] = {(double)step, 1, 2, 3, 4, -(double)step}, wt[6] = {-1, (double)step, 7, 8, 9, 10.0 * (double)step};
        sim_observables o = {.time = 0.5 * (double)step, .step = step, .n_walls = 2, .wall_force = wf, .wall_torque = wt};
        assert_int_equal(snapshot_series_add(&carry.series, &o), 0);
    }
    char kept[PATH_MAX], dropped[PATH_MAX];
    join(kept, sizeof kept, dir, "ts.d/000001.h5");
    join(dropped, sizeof dropped, dir, "ts.d/000002.h5");
    ino_t before, after;
    inode_of(kept, &before);
    info.case_text = "a: 2\n";
    f = snapshot_create(dir, "ts", &info, &carry, err, sizeof err);
    if (!f) fail_msg("%s", err);
    assert_int_equal(snapshot_count(f), 2);
    assert_int_equal(snapshot_last_step(f), 4);
    assert_false(file_exists(dropped));
    inode_of(kept, &after);
    assert_true(before == after); /* in place: the kept files are not rewritten */
    snapshot_state st = {.p = &p, .time = 3.0, .step = 6};
    assert_int_equal(snapshot_write(f, &st, err, sizeof err), 0);
    assert_int_equal(snapshot_count(f), 3);
    assert_int_equal(snapshot_close(f), 0);
    file = H5Fopen(h5_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    t = read_all(file, "/timeseries/time", &n);
    assert_int_equal(n, 5); /* steps 0..4 */
    free(t);
    check_snapshot(file, 2, &p, 3.0, 6);
    assert_int_equal(H5Lexists(file, "/snapshots/000003", H5P_DEFAULT), 0);
    assert_true(H5Fclose(file) >= 0);

    /* a new output that starts with snapshots 0..1 of this one: hard links */
    f = snapshot_create(dir, "copy", &info, &carry, err, sizeof err);
    if (!f) fail_msg("%s", err);
    assert_int_equal(snapshot_count(f), 2);
    char copy_path[PATH_MAX], copied[PATH_MAX];
    snprintf(copy_path, sizeof copy_path, "%s", snapshot_h5_path(f));
    assert_int_equal(snapshot_close(f), 0);
    join(copied, sizeof copied, dir, "copy.d/000001.h5");
    inode_of(copied, &after);
    assert_true(before == after);
    file = H5Fopen(copy_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    wf = read_all(file, "/timeseries/wall_force", &n);
    wt = read_all(file, "/timeseries/wall_torque", &n);
    assert_int_equal(n, 5);
    assert_true(wf[6 * 4] == 4.0 && wt[6 * 4 + 5] == 40.0);
    free(wf); free(wt);
    check_snapshot(file, 1, &p, 2.0, 4);
    assert_true(H5Fclose(file) >= 0);
    snapshot_carry_free(&carry);
    particles_free(&p);
    walls_free(&ws);
    assert_int_equal(open_objects(), 0);
}

/* ----------------------------------------------------- killed between two steps */

/* Writes three snapshots; the test hook kills the process (SIGKILL) at `stage` of
 * snapshot 1 (NULL: never). */
static void writer_child(const char *dir, const char *stage)
{
    if (stage) {
        char v[64];
        snprintf(v, sizeof v, "%s:1", stage);
        setenv("DEMPACT_TEST_KILL_AT", v, 1);
    }
    snapshot_run_info info = {.case_name = "j", .case_text = "j: 1\n", .dt = 1.0};
    char err[512];
    snapshot_file *f = snapshot_create(dir, "j", &info, NULL, err, sizeof err);
    if (!f) _exit(2);
    for (int k = 0; k < 3; k++) {
        particle_store p;
        make_store(&p, 5 + (size_t)k, 0, k);
        if (write_store(f, &p, k, k, err, sizeof err) != 0) _exit(3);
        particles_free(&p);
    }
    snapshot_close(f);
    _exit(0);
}

/* The .xmf files name only snapshot files that are there: every snapshot NAME.h5 names,
 * and at most the one being added. */
static void check_xmf_names(const char *dir, const char *xmf_name, int indexed)
{
    char path[PATH_MAX];
    join(path, sizeof path, dir, xmf_name);
    if (!file_exists(path)) return;
    char *x = read_text(path);
    for (int k = 0; k < 10; k++) {
        char want[64], file[PATH_MAX];
        snprintf(want, sizeof want, "j.d/%06d.h5:", k);
        if (!strstr(x, want)) continue;
        snprintf(want, sizeof want, "j.d/%06d.h5", k);
        join(file, sizeof file, dir, want);
        assert_true(file_exists(file));
    }
    int steps = occurrences(x, "<Time Value=");
    assert_true(steps == indexed || steps == indexed + 1);
    free(x);
}

static void test_killed_between_steps(void **state)
{
    (void)state;
    /* stage, snapshots NAME.h5 names afterwards */
    const struct { const char *stage; int named; } cases[] = {{"written", 1}, {"renamed", 1}, {"listed", 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char dir[PATH_MAX], h5[PATH_MAX], name[64];
        snprintf(name, sizeof name, "killed_%s", cases[c].stage);
        join(dir, sizeof dir, out_dir, name);
        join(h5, sizeof h5, dir, "j.h5");
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) writer_child(dir, cases[c].stage);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        /* NAME.h5 opens as it is, and every snapshot it names reads back whole */
        assert_int_equal(count_in_child(h5), cases[c].named);
        hid_t file = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
        assert_true(file >= 0);
        for (int k = 0; k < cases[c].named; k++) {
            particle_store p;
            make_store(&p, 5 + (size_t)k, 0, k);
            check_snapshot(file, k, &p, k, k);
            particles_free(&p);
        }
        assert_true(H5Fclose(file) >= 0);
        check_xmf_names(dir, "j.xmf", cases[c].named);
        check_xmf_names(dir, "j_contacts.xmf", cases[c].named);
        /* the next run over it starts clean: no temporary file stays */
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) writer_child(dir, NULL);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(count_in_child(h5), 3);
        char snapdir[PATH_MAX];
        join(snapdir, sizeof snapdir, dir, "j.d");
        DIR *d = opendir(snapdir);
        struct dirent *e;
        while ((e = readdir(d))) assert_null(strstr(e->d_name, ".tmp"));
        closedir(d);
    }
    assert_int_equal(open_objects(), 0);
}

/* ----------------------------------------------------------------- the lock */

static void test_second_writer_is_refused(void **state)
{
    (void)state;
    snapshot_run_info info = {.case_name = "l", .case_text = "l: 1\n", .dt = 1.0};
    char dir[PATH_MAX], err[512] = "";
    join(dir, sizeof dir, out_dir, "locked");
    snapshot_file *f = snapshot_create(dir, "l", &info, NULL, err, sizeof err);
    if (!f) fail_msg("%s", err);
    char *before = listing(dir);
    assert_null(snapshot_create(dir, "l", &info, NULL, err, sizeof err));
    assert_non_null(strstr(err, "another dempact run is writing it"));
    char *after = listing(dir);
    assert_string_equal(before, after); /* the refused writer changed nothing */
    free(before);
    free(after);
    assert_int_equal(snapshot_close(f), 0);
    f = snapshot_create(dir, "l", &info, NULL, err, sizeof err); /* free again */
    if (!f) fail_msg("%s", err);
    assert_int_equal(snapshot_close(f), 0);
}

/* ---------------------------------------------------- never replace another file */

static void write_text(const char *path, const char *text)
{
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
}

static void test_what_is_in_the_way(void **state)
{
    (void)state;
    char dir[PATH_MAX], h5[PATH_MAX], xmf[PATH_MAX], err[1024] = "";
    join(dir, sizeof dir, out_dir, "in_the_way");
    join(h5, sizeof h5, dir, "w.h5");
    join(xmf, sizeof xmf, dir, "w.xmf");
    assert_true(mkdir(dir, 0777) == 0 || errno == EEXIST);
    snapshot_run_info info = {.case_name = "w", .case_text = "name: w\nx: 1\ntime: {end: 1}\n", .dt = 1.0};

    /* a plain text file named like the output */
    write_text(h5, "my notes\n");
    char *before = listing(dir);
    assert_null(snapshot_create(dir, "w", &info, NULL, err, sizeof err));
    assert_non_null(strstr(err, h5));
    assert_non_null(strstr(err, "is not a dempact output"));
    assert_non_null(strstr(err, "--overwrite"));
    char *after = listing(dir);
    assert_string_equal(before, after);
    free(after);
    /* ... replaced with overwrite */
    info.overwrite = 1;
    snapshot_file *f = snapshot_create(dir, "w", &info, NULL, err, sizeof err);
    if (!f) fail_msg("%s", err);
    particle_store p;
    make_store(&p, 3, 0, 0);
    assert_int_equal(write_store(f, &p, 0.0, 0, err, sizeof err), 0);
    assert_int_equal(snapshot_close(f), 0);
    info.overwrite = 0;

    /* another case's output is kept; the same case's (a free key changed) replaced */
    snapshot_run_info other = info;
    other.case_text = "name: w\nx: 2\ntime: {end: 1}\n";
    free(before);
    before = listing(dir);
    assert_null(snapshot_create(dir, "w", &other, NULL, err, sizeof err));
    assert_non_null(strstr(err, "holds the output of another case"));
    assert_non_null(strstr(err, "x is 1 in the file's case and 2 in this one"));
    after = listing(dir);
    assert_string_equal(before, after);
    free(after);
    snapshot_run_info same = info;
    same.case_text = "name: w2\nx: 1.0\ntime: {end: 3}\n";
    f = snapshot_create(dir, "w", &same, NULL, err, sizeof err);
    if (!f) fail_msg("%s", err);
    assert_int_equal(snapshot_count(f), 0);
    assert_int_equal(snapshot_close(f), 0);
    assert_false(file_exists(xmf)); /* the old output's .xmf went with it */
    char old_snapshot[PATH_MAX];
    join(old_snapshot, sizeof old_snapshot, dir, "w.d/000000.h5");
    assert_false(file_exists(old_snapshot));

    /* an .xmf without its NAME.h5 is someone else's */
    assert_int_equal(unlink(h5), 0);
    write_text(xmf, "<Xdmf/>\n");
    free(before);
    before = listing(dir);
    assert_null(snapshot_create(dir, "w", &info, NULL, err, sizeof err));
    assert_non_null(strstr(err, xmf));
    after = listing(dir);
    assert_string_equal(before, after);
    free(after);
    free(before);
    particles_free(&p);
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
        remove_tree(out_dir); /* every run starts from nothing */
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
    char absolute[PATH_MAX]; /* one test changes folder */
    if (!realpath(out_dir, absolute)) return 1;
    snprintf(out_dir, sizeof out_dir, "%s", absolute);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_snapshots),
        cmocka_unit_test(test_empty_store_and_no_case_text),
        cmocka_unit_test(test_create_errors),
        cmocka_unit_test(test_contacts),
        cmocka_unit_test(test_wall_triangles),
        cmocka_unit_test(test_timeseries_and_continuing),
        cmocka_unit_test(test_killed_between_steps),
        cmocka_unit_test(test_second_writer_is_refused),
        cmocka_unit_test(test_what_is_in_the_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
