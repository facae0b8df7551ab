/* Reading a restart file: its layout, the snapshots it keeps, its time series and
 * case, each number checked where it enters (restart.h). The restart snapshot's own
 * arrays are io/output/restart_state.c's. */
#define _POSIX_C_SOURCE 200809L

#include "restart_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "h5_read.h"

int restart_refuse(const restart_file *f, char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return -1;
    int n = snprintf(err, err_len, "'%s': ", f->path);
    if (n < 0 || (size_t)n >= err_len) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

int restart_fail_memory(const restart_file *f, char *err, size_t err_len, const char *fmt, ...)
{
    if (f->no_memory) *f->no_memory = 1;
    if (!err || err_len == 0) return -1;
    int n = snprintf(err, err_len, "'%s': ", f->path);
    if (n < 0 || (size_t)n >= err_len) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---------------------------------------------------------------- snapshots */

static void snap_name(char *buf, size_t len, int k) { snprintf(buf, len, "/snapshots/%06d", k); }

/* The file an external link of a format-3 index names: SOMETHING.d/NNNNNN.h5 with
 * NNNNNN = k and object "/", nothing else (a hostile link must not make dempact read,
 * copy or hard-link another file). Returns the path beside the index, malloc'd, or NULL
 * with a message. */
static char *link_target(const restart_file *f, int k, char *err, size_t err_len)
{
    char name[64];
    snap_name(name, sizeof name, k);
    H5L_info_t li;
    if (H5Lget_info(f->file, name, &li, H5P_DEFAULT) < 0 || li.type != H5L_TYPE_EXTERNAL ||
        li.u.val_size > 4096) {
        restart_refuse(f, err, err_len, "%s is not an external link to a snapshot file (layout 3)", name);
        return NULL;
    }
    char *buf = malloc(li.u.val_size + 1), *path = NULL;
    const char *file = NULL, *obj = NULL;
    if (!buf) {
        restart_fail_memory(f, err, err_len, "out of memory");
        return NULL;
    }
    if (H5Lget_val(f->file, name, buf, li.u.val_size, H5P_DEFAULT) < 0 ||
        H5Lunpack_elink_val(buf, li.u.val_size, NULL, &file, &obj) < 0 || !file || !obj) {
        restart_refuse(f, err, err_len, "%s: unreadable external link", name);
        goto done;
    }
    char want[16];
    snprintf(want, sizeof want, "/%06d.h5", k);
    const char *slash = strchr(file, '/');
    size_t len = strlen(file);
    if (!slash || slash == file || strchr(slash + 1, '/') || slash - file < 3 || strncmp(slash - 2, ".d", 2) ||
        strcmp(slash, want) || !strcmp(file, "..") || strncmp(file, "../", 3) == 0 || strcmp(obj, "/") ||
        len > 1024) {
        restart_refuse(f, err, err_len, "%s links to '%s:%s'; a snapshot link names NAME.d%s:/", name, file,
                       obj, want);
        goto done;
    }
    path = snapshot_printf("%s/%s", f->folder, file);
    struct stat st;
    if (!path) restart_fail_memory(f, err, err_len, "out of memory");
    if (path && (stat(path, &st) != 0 || !S_ISREG(st.st_mode))) {
        restart_refuse(f, err, err_len, "snapshot %d's file '%s' is missing or not a regular file", k, path);
        free(path);
        path = NULL;
    }
done:
    free(buf);
    return path;
}

hid_t restart_open_snapshot(const restart_file *f, int k, hid_t *file, char *err, size_t err_len)
{
    char name[64];
    snap_name(name, sizeof name, k);
    *file = -1;
    if (f->format == 2) {
        hid_t g = H5Gopen2(f->file, name, H5P_DEFAULT);
        if (g < 0) restart_refuse(f, err, err_len, "%s is not a readable group", name);
        return g;
    }
    char *path = link_target(f, k, err, err_len);
    if (!path) return -1;
    *file = H5Fis_hdf5(path) > 0 ? sh5_open_read(path) : -1;
    hid_t g = *file >= 0 ? H5Gopen2(*file, "/", H5P_DEFAULT) : -1;
    if (g < 0) {
        restart_refuse(f, err, err_len, "snapshot %d's file '%s' is not a readable HDF5 file", k, path);
        if (*file >= 0) H5Fclose(*file);
        *file = -1;
    }
    free(path);
    return g;
}

void restart_close_snapshot(hid_t g, hid_t file)
{
    if (g >= 0) H5Gclose(g);
    if (file >= 0) H5Fclose(file);
}

/* Snapshots 0, 1, 2, ... without a gap. */
static int count_snapshots(const restart_file *f)
{
    if (H5Lexists(f->file, "/snapshots", H5P_DEFAULT) <= 0) return 0;
    int count = 0;
    for (; count < 1000000; count++) {
        char name[64];
        snap_name(name, sizeof name, count);
        if (H5Lexists(f->file, name, H5P_DEFAULT) <= 0) break;
    }
    return count;
}

/* The meta of snapshot k, with its attributes checked. */
static int snapshot_meta_checked(const restart_file *f, int k, snapshot_meta *m, char *err, size_t err_len)
{
    hid_t file;
    hid_t g = restart_open_snapshot(f, k, &file, err, err_len);
    if (g < 0) return -1;
    char why[512];
    int rc = snapshot_meta_read(g, f->format, m, why, sizeof why);
    restart_close_snapshot(g, file);
    if (rc == FAIL_NO_MEMORY) return restart_fail_memory(f, err, err_len, "snapshot %d: %s", k, why);
    if (rc < 0) return restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
    if (!isfinite(m->time) || m->time < 0.0)
        return restart_refuse(f, err, err_len, "snapshot %d: attribute time is %g; it must be a finite "
                              "time >= 0 s", k, m->time);
    if (m->step < 0 || m->step > RESTART_MAX_STEP)
        return restart_refuse(f, err, err_len, "snapshot %d: attribute step is %lld; it must be in 0 .. "
                              "2^53", k, (long long)m->step);
    double expect = (double)m->step * f->dt;
    if (fabs(m->time - expect) > 1e-9 * fmax(fabs(expect), f->dt))
        return restart_refuse(f, err, err_len, "snapshot %d: attribute time is %.17g s, but step %lld x dt "
                              "%.17g s is %.17g s", k, m->time, (long long)m->step, f->dt, expect);
    if (m->n_particles > RESTART_MAX_ROWS || m->n_contacts > RESTART_MAX_ROWS)
        return restart_refuse(f, err, err_len, "snapshot %d: %lld particles and %lld contacts; at most 2^31 "
                              "of each", k, (long long)m->n_particles, (long long)m->n_contacts);
    return 0;
}

/* ------------------------------------------------------------------ time series */

static int read_column(const restart_file *f, hid_t g, const char *name, hid_t type, int rank,
                       const hsize_t *rest, int64_t rows, void *buf, char *err, size_t err_len)
{
    char why[256];
    int64_t got = snapshot_dataset_rows(g, name, rank, rest, why, sizeof why);
    if (got < 0) return restart_refuse(f, err, err_len, "/timeseries: %s", why);
    if (got != rows)
        return restart_refuse(f, err, err_len, "/timeseries/%s has %lld rows, /timeseries/time %lld", name,
                              (long long)got, (long long)rows);
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    int ok = d >= 0 && (rows == 0 || H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    if (d >= 0) H5Dclose(d);
    return ok ? 0 : restart_refuse(f, err, err_len, "/timeseries/%s is unreadable", name);
}

/* The samples up to step `upto` into s (n_walls set), each checked. */
static int read_series(const restart_file *f, int64_t upto, size_t n_walls, snapshot_series *s, char *err,
                       size_t err_len)
{
    hid_t g = H5Lexists(f->file, "/timeseries", H5P_DEFAULT) > 0 ? H5Gopen2(f->file, "/timeseries", H5P_DEFAULT) : -1;
    if (g < 0) return restart_refuse(f, err, err_len, "group /timeseries is missing");
    char why[256];
    int rc = -1;
    double *col = NULL, *walls[SNAPSHOT_WALL_SERIES] = {NULL, NULL, NULL};
    sim_observables *rows = NULL;
    int64_t t = snapshot_dataset_rows(g, "time", 1, NULL, why, sizeof why);
    if (t < 0) {
        restart_refuse(f, err, err_len, "/timeseries: %s", why);
        goto done;
    }
    size_t n = (size_t)t;
    col = malloc((n ? n : 1) * 8);
    rows = calloc(n ? n : 1, sizeof *rows);
    if (!col || !rows) {
        restart_fail_memory(f, err, err_len, "out of memory for %lld time-series samples", (long long)t);
        goto done;
    }
    for (size_t c = 0; c < snapshot_n_ts_columns; c++) {
        const snapshot_ts_column *tc = &snapshot_ts_columns[c];
        if (tc->optional && H5Lexists(g, tc->name, H5P_DEFAULT) <= 0) { /* older files */
            double nan = NAN;
            for (size_t r = 0; r < n; r++) memcpy((char *)&rows[r] + tc->offset, &nan, 8);
            continue;
        }
        if (read_column(f, g, tc->name, tc->is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, 1, NULL, t, col, err,
                        err_len) < 0)
            goto done;
        for (size_t r = 0; r < n; r++) memcpy((char *)&rows[r] + tc->offset, (char *)col + 8 * r, 8);
    }
    for (int k = 0; k < SNAPSHOT_WALL_SERIES && n_walls > 0; k++) {
        walls[k] = malloc(3 * n_walls * (n ? n : 1) * sizeof(double));
        if (!walls[k]) {
            restart_fail_memory(f, err, err_len, "out of memory for the time series");
            goto done;
        }
        if (H5Lexists(g, snapshot_wall_series[k].name, H5P_DEFAULT) <= 0) { /* older files */
            for (size_t i = 0; i < 3 * n_walls * n; i++) walls[k][i] = NAN;
            continue;
        }
        hsize_t rest[2] = {n_walls, 3};
        if (read_column(f, g, snapshot_wall_series[k].name, H5T_NATIVE_DOUBLE, 3, rest, t, walls[k], err,
                        err_len) < 0)
            goto done;
    }
    /* the kept rows: steps in order, times on them, values finite (NaN: not computed) */
    size_t keep = 0;
    for (size_t r = 0; r < n; r++) {
        const sim_observables *o = &rows[r];
        if (o->step < 0 || o->step > RESTART_MAX_STEP || (r > 0 && o->step < rows[r - 1].step)) {
            restart_refuse(f, err, err_len, "/timeseries/step[%zu] is %lld; steps are in 0 .. 2^53 and do not "
                           "decrease", r, (long long)o->step);
            goto done;
        }
        if (o->step > upto) break;
        double expect = (double)o->step * f->dt;
        if (!isfinite(o->time) || fabs(o->time - expect) > 1e-9 * fmax(fabs(expect), f->dt)) {
            restart_refuse(f, err, err_len, "/timeseries/time[%zu] is %.17g s, but step %lld x dt is %.17g s", r,
                           o->time, (long long)o->step, expect);
            goto done;
        }
        for (size_t c = 0; c < snapshot_n_ts_columns; c++) {
            const snapshot_ts_column *tc = &snapshot_ts_columns[c];
            const char *at = (const char *)o + tc->offset;
            int64_t iv;
            double dv;
            memcpy(&iv, at, 8);
            memcpy(&dv, at, 8);
            if (tc->is_int ? iv < 0 : isinf(dv)) {
                restart_refuse(f, err, err_len, "/timeseries/%s[%zu] is %s; it must be %s", tc->name, r,
                               tc->is_int ? "negative" : "infinite", tc->is_int ? ">= 0" : "finite (or NaN)");
                goto done;
            }
        }
        for (int k = 0; k < SNAPSHOT_WALL_SERIES && n_walls > 0; k++)
            for (size_t i = 0; i < 3 * n_walls; i++)
                if (isinf(walls[k][3 * n_walls * r + i])) {
                    restart_refuse(f, err, err_len, "/timeseries/%s[%zu] is infinite", snapshot_wall_series[k].name, r);
                    goto done;
                }
        keep = r + 1;
    }
    s->n_walls = n_walls;
    for (size_t r = 0; r < keep; r++) {
        sim_observables o = rows[r];
        o.n_walls = n_walls;
        o.wall_force = n_walls ? walls[0] + 3 * n_walls * r : NULL;
        o.wall_torque = n_walls ? walls[1] + 3 * n_walls * r : NULL;
        o.wall_displacement = n_walls ? walls[2] + 3 * n_walls * r : NULL;
        if (snapshot_series_add(s, &o) < 0) {
            restart_fail_memory(f, err, err_len, "out of memory for the time series");
            goto done;
        }
    }
    rc = 0;
done:
    free(col);
    free(rows);
    free(walls[0]);
    free(walls[1]);
    free(walls[2]);
    H5Gclose(g);
    return rc;
}

/* ------------------------------------------------------------------ the file */

/* Lists the steps of the file's snapshots into buf (for the error message). */
static void list_steps(const snapshot_meta *m, int count, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < count && used + 32 < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%lld", k ? ", " : "", (long long)m[k].step);
    if (used + 32 >= len) snprintf(buf + used, len - used, ", ...");
}

static int read_root(restart_file *f, const sim *s, char *err, size_t err_len)
{
    if (H5Aexists(f->file, "dempact_version") <= 0)
        return restart_refuse(f, err, err_len, "not written by dempact (no attribute /@dempact_version)");
    int32_t format = -1;
    if (h5_read_attr(f->file, ".", "format", H5T_NATIVE_INT32, &format) < 0)
        return restart_refuse(f, err, err_len, "attribute /@format is missing or unreadable (written by a "
                              "dempact older than layout 2?)");
    if (format != 2 && format != 3)
        return restart_refuse(f, err, err_len, "attribute /@format is %d; this dempact reads layouts 2 and %d",
                              format, SNAPSHOT_FORMAT);
    f->format = format;
    if (h5_read_attr(f->file, ".", "dt", H5T_NATIVE_DOUBLE, &f->dt) < 0)
        return restart_refuse(f, err, err_len, "attribute /@dt (the timestep) is missing or unreadable");
    if (!isfinite(f->dt) || !(f->dt > 0.0))
        return restart_refuse(f, err, err_len, "attribute /@dt is %g s; the timestep must be finite and > 0", f->dt);
    if (s->cfg.dt_check && f->dt > s->dt_limit)
        return restart_refuse(f, err, err_len, "attribute /@dt is %.17g s, above the case's stable limit %.4g s",
                              f->dt, s->dt_limit);
    if (f->dt < 1e-6 * s->dt)
        return restart_refuse(f, err, err_len, "attribute /@dt is %.17g s, below a millionth of the case's step "
                              "%.4g s", f->dt, s->dt);
    /* the wall names: one per wall of the case */
    hsize_t n_names = 0;
    if (H5Aexists(f->file, "wall_names") > 0) {
        hid_t a = H5Aopen(f->file, "wall_names", H5P_DEFAULT), sp = a >= 0 ? H5Aget_space(a) : -1;
        int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
        if (rank == 1) H5Sget_simple_extent_dims(sp, &n_names, NULL);
        if (sp >= 0) H5Sclose(sp);
        if (a >= 0) H5Aclose(a);
        if (rank != 1) return restart_refuse(f, err, err_len, "attribute /@wall_names is not a list");
    }
    if (n_names != s->walls.n)
        return restart_refuse(f, err, err_len, "attribute /@wall_names names %llu walls; the case has %zu",
                              (unsigned long long)n_names, s->walls.n);
    return 0;
}

void restart_point_free(restart_point *rp) { snapshot_carry_free(&rp->carry); }

/* Root attribute `name` of the dempact output h5_path into buf: 1 read, 0 absent (or
 * unreadable), -1 not a dempact output. */
static int root_attribute(const char *h5_path, const char *name, hid_t type, void *buf)
{
    h5_quiet q;
    h5_quiet_begin(&q);
    struct stat st;
    hid_t file = stat(h5_path, &st) == 0 && S_ISREG(st.st_mode) && H5Fis_hdf5(h5_path) > 0
                     ? sh5_open_read(h5_path) : -1;
    int answer = file >= 0 && H5Aexists(file, "dempact_version") > 0 ? 0 : -1;
    if (answer == 0 && H5Aexists(file, name) > 0 && h5_read_attr(file, ".", name, type, buf) == 0) answer = 1;
    if (file >= 0) H5Fclose(file);
    h5_quiet_end(&q);
    return answer;
}

int restart_sums_by_id(const char *h5_path)
{
    uint8_t by_id = 0;
    int answer = root_attribute(h5_path, "sums_by_id", H5T_NATIVE_UINT8, &by_id);
    return answer < 0 ? -1 : answer == 1 && by_id != 0;
}

int restart_has_initial_energy(const char *h5_path)
{
    double e = NAN;
    int answer = root_attribute(h5_path, "initial_energy", H5T_NATIVE_DOUBLE, &e);
    return answer < 0 ? -1 : answer == 1 && isfinite(e);
}

int restart_from_file(const char *h5_path, int64_t from_step, const char *case_text, sim *s,
                      restart_point *rp, char *err, size_t err_len)
{
    return restart_from_file_shared(h5_path, from_step, case_text, NULL, s, rp, err, err_len);
}

int restart_from_file_shared(const char *h5_path, int64_t from_step, const char *case_text,
                             const restart_share *share, sim *s, restart_point *rp, char *err,
                             size_t err_len)
{
    memset(rp, 0, sizeof *rp);
    int no_memory = 0;
    restart_file f = {.path = h5_path, .file = -1, .no_memory = &no_memory};
    h5_quiet q;
    h5_quiet_begin(&q);
    int rc = -1, checked = -1;
    char *stored = NULL;
    snapshot_meta *meta = NULL;
    restart_state *rs = NULL;
    hid_t g = -1, snap_file = -1;
    double initial_energy = NAN;
    struct stat st;
    /* on ranks everything up to the restore is each rank's own: a refusal is agreed
     * (`checked`) before the restore's collectives */
    if (stat(h5_path, &st) != 0 || !S_ISREG(st.st_mode)) {
        restart_refuse(&f, err, err_len, "cannot open: %s", stat(h5_path, &st) != 0 ? "no such file"
                                                                                   : "not a regular file");
        goto checked;
    }
    f.folder = fs_dirname(h5_path);
    if (!f.folder || H5Fis_hdf5(h5_path) <= 0 || (f.file = sh5_open_read(h5_path)) < 0) {
        restart_refuse(&f, err, err_len, "cannot open: not an HDF5 file, or a damaged one");
        goto checked;
    }
    if (read_root(&f, s, err, err_len) < 0) goto checked;
    /* the energy the run started from (older files: the case's start, sim_start) */
    if (H5Aexists(f.file, "initial_energy") > 0 &&
        (h5_read_attr(f.file, ".", "initial_energy", H5T_NATIVE_DOUBLE, &initial_energy) < 0 ||
         !isfinite(initial_energy))) {
        restart_refuse(&f, err, err_len, "attribute /@initial_energy is unreadable or not finite");
        goto checked;
    }
    /* a run driven from outside (the Python package set velocities or walls): its
     * energy may rise from the restart point on as it did before it, so the watchdog's
     * energy check (a closed system never gains energy) stays off, and the output says so
     * too (carry.driven) */
    uint8_t driven = 0;
    if (H5Aexists(f.file, "driven") > 0 &&
        (h5_read_attr(f.file, ".", "driven", H5T_NATIVE_UINT8, &driven) < 0 || driven > 1)) {
        restart_refuse(&f, err, err_len, "attribute /@driven is unreadable or neither 0 nor 1");
        goto checked;
    }
    if (share && isnan(initial_energy)) {
        restart_refuse(&f, err, err_len, "attribute /@initial_energy is missing"); /* (the caller checks) */
        goto checked;
    }
    /* the case */
    int text_memory = 0;
    stored = h5_read_case_text(f.file, f.format == 2, &text_memory);
    if (!stored) {
        if (text_memory) restart_fail_memory(&f, err, err_len, "out of memory");
        else restart_refuse(&f, err, err_len, "/case_text, the case it was run with, is missing or "
                            "unreadable (one %sstring; a damaged file?)", f.format == 2 ? "" : "fixed-length ");
        goto checked;
    }
    char why[1024];
    int cmp = restart_compare_cases(stored, case_text ? case_text : "", why, sizeof why);
    if (cmp != 0) {
        restart_refuse(&f, err, err_len, "this case is not the one the file was written with: %s (a restart "
                       "may change only name, time.end, time.output_interval and "
                       "time.timeseries_interval)", why);
        goto checked;
    }
    /* the snapshots: each one's time and step, in order */
    int count = count_snapshots(&f);
    rp->count = count;
    if (count == 0) {
        restart_refuse(&f, err, err_len, "holds no snapshot to restart from");
        goto checked;
    }
    meta = calloc((size_t)count, sizeof *meta);
    if (!meta) {
        restart_fail_memory(&f, err, err_len, "out of memory");
        goto checked;
    }
    rp->index = -1;
    for (int k = 0; k < count; k++) {
        if (snapshot_meta_checked(&f, k, &meta[k], err, err_len) < 0) goto checked;
        if (k > 0 && meta[k].step <= meta[k - 1].step) {
            restart_refuse(&f, err, err_len, "snapshot %d: attribute step is %lld, not after snapshot %d's %lld",
                           k, (long long)meta[k].step, k - 1, (long long)meta[k - 1].step);
            goto checked;
        }
        if (meta[k].step == from_step) rp->index = k;
    }
    if (from_step < 0) rp->index = count - 1;
    if (rp->index < 0) {
        char steps[512];
        list_steps(meta, count, steps, sizeof steps);
        restart_refuse(&f, err, err_len, "--from-step %lld: no snapshot at that step; its snapshots are at "
                       "steps %s", (long long)from_step, steps);
        goto checked;
    }
    rp->step = meta[rp->index].step;
    rp->time = meta[rp->index].time;
    rp->dt = f.dt;
    rp->case_dt = s->dt;
    /* the time series up to the restart point */
    if (read_series(&f, rp->step, s->walls.n, &rp->carry.series, err, err_len) < 0) goto checked;
    /* the snapshot itself */
    g = restart_open_snapshot(&f, rp->index, &snap_file, err, err_len);
    if (g < 0) goto checked;
    checked = restart_check_state(&f, g, rp, s, share == NULL, &rs, err, err_len);
checked:
    /* (on ranks the failure of the lowest failing rank, on every rank) */
    if (checked != 0) checked = no_memory ? FAIL_NO_MEMORY : FAIL_REFUSED;
    if (share) checked = share->agree(checked, err, err_len, share->ctx);
    no_memory = checked == FAIL_NO_MEMORY;
    if (checked == 0) rc = restart_restore_state(rs, s, share, err, err_len);
    if (rc == 0) {
        if (!isnan(initial_energy)) s->initial_energy = initial_energy;
        if (driven) s->cfg.watchdog.energy_tolerance = -1.0; /* off (watchdog_energy_applies) */
        rp->carry.driven = driven;
        rp->carry.path = strdup(h5_path);
        rp->carry.format = f.format;
        rp->carry.keep = rp->index + 1;
        if (!rp->carry.path) rc = restart_fail_memory(&f, err, err_len, "out of memory");
    }
    restart_state_free(rs);
    if (g >= 0) restart_close_snapshot(g, snap_file);
    free(meta);
    free(stored);
    free(f.folder);
    if (f.file >= 0) H5Fclose(f.file);
    h5_quiet_end(&q);
    return rc == 0 ? 0 : no_memory ? FAIL_NO_MEMORY : FAIL_REFUSED;
}
