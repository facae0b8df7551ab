/* A run's output: the snapshot files, NAME.h5 and the .xmf files (snapshot.h), and the
 * order of the steps that keeps them readable whenever the run dies. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot.h"
#include "snapshot_internal.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct snapshot_file {
    char *dir;                 /* DIR, "." for none */
    char *h5_path;             /* DIR/NAME.h5 */
    char *snapdir, *snapdir_rel; /* DIR/NAME.d and NAME.d */
    char *index_tmp;           /* DIR/NAME.d/.index.h5.tmp */
    char *xmf[3], *xmf_tmp[3]; /* particles, contacts, walls */
    int lock_fd;
    snapshot_run_info info;
    int has_walls;
    double centre[3];
    snapshot_meta *meta;       /* per snapshot file written */
    int count, cap;            /* snapshot files written */
    int indexed;               /* ... and named by NAME.h5 */
    size_t indexed_rows;       /* samples NAME.h5 holds */
    snapshot_series series;
    int failed;
    uint64_t bytes_since;      /* snapshot bytes written since NAME.h5 was last rewritten */
    double catalogued_at, catalogue_seconds;
    uint64_t last_size;
};

/* Test hook (tests/test_snapshot.c, tests/e2e/kill_restart.sh): DEMPACT_TEST_KILL_AT=
 * STAGE:K kills the process with SIGKILL at a stage of snapshot file K: "written" (the
 * file complete under its temporary name), "renamed" (in place, nothing names it yet),
 * "listed" (the .xmf files name it, NAME.h5 not yet). */
static void kill_point(const char *stage, int k)
{
    const char *at = getenv("DEMPACT_TEST_KILL_AT");
    size_t len = strlen(stage);
    if (at && !strncmp(at, stage, len) && at[len] == ':' && atoi(at + len + 1) == k) {
        fprintf(stderr, "dempact: test hook: killed at stage %s of snapshot %d\n", stage, k);
        raise(SIGKILL);
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void free_file(snapshot_file *f)
{
    if (!f) return;
    free(f->dir);
    free(f->h5_path);
    free(f->snapdir);
    free(f->snapdir_rel);
    free(f->index_tmp);
    for (int k = 0; k < 3; k++) {
        free(f->xmf[k]);
        free(f->xmf_tmp[k]);
    }
    free(f->meta);
    snapshot_series_free(&f->series);
    if (f->lock_fd >= 0) close(f->lock_fd);
    free(f);
}

static snapshot_file *new_file(const char *dir, const char *name, const snapshot_run_info *info)
{
    snapshot_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->lock_fd = -1;
    f->info = *info;
    f->has_walls = info->walls && info->walls->n > 0;
    f->series.n_walls = info->walls ? info->walls->n : 0;
    for (int a = 0; a < 3; a++) f->centre[a] = 0.5 * (info->domain_min[a] + info->domain_max[a]);
    const char *d = dir && dir[0] ? dir : ".";
    f->dir = strdup(d);
    f->h5_path = snapshot_printf("%s%s%s.h5", dir && dir[0] ? dir : "",
                                 dir && dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "", name);
    f->snapdir = snapshot_printf("%s/%s.d", d, name);
    f->snapdir_rel = snapshot_printf("%s.d", name);
    f->index_tmp = snapshot_printf("%s/%s.d/.index.h5.tmp", d, name);
    static const char *const suffix[3] = {"", "_contacts", "_walls"};
    int ok = f->dir && f->h5_path && f->snapdir && f->snapdir_rel && f->index_tmp;
    for (int k = 0; k < 3; k++) {
        f->xmf[k] = snapshot_printf("%s/%s%s.xmf", d, name, suffix[k]);
        f->xmf_tmp[k] = snapshot_printf("%s/%s.d/.%s%s.xmf.tmp", d, name, name, suffix[k]);
        ok = ok && f->xmf[k] && f->xmf_tmp[k];
    }
    if (!ok) {
        free_file(f);
        return NULL;
    }
    return f;
}

static char *snapshot_path(const snapshot_file *f, int k, const char *suffix)
{
    return snapshot_printf("%s/%06d.h5%s", f->snapdir, k, suffix);
}

static int add_meta(snapshot_file *f, const snapshot_meta *m)
{
    if (f->count == f->cap) {
        int cap = f->cap ? 2 * f->cap : 64;
        snapshot_meta *n = realloc(f->meta, (size_t)cap * sizeof *n);
        if (!n) return -1;
        f->meta = n;
        f->cap = cap;
    }
    f->meta[f->count++] = *m;
    return 0;
}

/* ------------------------------------------------------------------ catalogue */

/* Rewrites NAME.h5 and the .xmf files for every snapshot file written and every
 * sample: all written to temporary files first, then renamed into place (the .xmf
 * files, then NAME.h5), so that a failure leaves the previous ones. */
static int catalogue(snapshot_file *f, char *err, size_t err_len)
{
    double t0 = now_seconds();
    const char *tmp[3] = {f->xmf_tmp[0], f->xmf_tmp[1], f->xmf_tmp[2]};
    if (snapshot_index_write(f->index_tmp, &f->info, f->snapdir_rel, f->count, &f->series, err, err_len) < 0)
        return -1;
    if (f->count > 0 &&
        snapshot_xdmf_write(tmp, f->snapdir_rel, f->meta, f->count, f->has_walls, f->centre, err, err_len) < 0) {
        unlink(f->index_tmp);
        return -1;
    }
    /* the .xmf files first: they then never lag NAME.h5 (ParaView shows every snapshot
     * NAME.h5 names, and at most the one being added) */
    for (int k = 0; k < 3; k++) {
        if (f->count > 0 && (k < 2 || f->has_walls)) {
            if (fs_publish(tmp[k], f->xmf[k], err, err_len) < 0) {
                for (int q = k + 1; q < 3; q++) unlink(tmp[q]);
                unlink(f->index_tmp);
                return -1;
            }
        } else {
            unlink(f->xmf[k]); /* none yet, or left by an output this one replaces */
        }
    }
    if (f->count > 0) kill_point("listed", f->count - 1);
    if (fs_publish(f->index_tmp, f->h5_path, err, err_len) < 0) return -1;
    fs_sync_dir(f->dir);
    f->indexed = f->count;
    f->indexed_rows = f->series.n;
    f->bytes_since = 0;
    f->catalogued_at = now_seconds();
    f->catalogue_seconds = f->catalogued_at - t0;
    return 0;
}

/* NAME.h5 and the .xmf files are rewritten after a snapshot while they are small (1 MiB:
 * about 250 snapshots' .xmf or 8000 samples) or writing them costs no more than the
 * snapshots since the last rewrite did (all runs but those of many tiny snapshots:
 * every time); otherwise at most every 2 s, or every ten times the rewrite's own
 * duration if that is longer. snapshot_flush always rewrites them. */
static int catalogue_due(const snapshot_file *f)
{
    if (f->indexed == 0) return 1;
    uint64_t cost = (uint64_t)f->series.n * (snapshot_n_ts_columns + 6 * f->series.n_walls) * 8 +
                    snapshot_xdmf_size(f->count, f->has_walls) + 100u * (uint64_t)f->count + 8192 +
                    (f->info.case_text ? strlen(f->info.case_text) : 0);
    if (cost <= (1u << 20) || f->bytes_since >= cost) return 1;
    double wait = 10.0 * f->catalogue_seconds > 2.0 ? 10.0 * f->catalogue_seconds : 2.0;
    return now_seconds() - f->catalogued_at >= wait;
}

/* -------------------------------------------------------------------- creating */

/* The file NAME.h5's snapshot k links to, from a format-3 index at index_path, or NULL
 * (*no_memory set when memory ran out). */
static char *linked_file(hid_t index, const char *index_path, int k, int *no_memory)
{
    *no_memory = 0;
    char name[64];
    snprintf(name, sizeof name, "/snapshots/%06d", k);
    H5L_info_t li;
    if (H5Lget_info(index, name, &li, H5P_DEFAULT) < 0 || li.type != H5L_TYPE_EXTERNAL) return NULL;
    char *buf = malloc(li.u.val_size + 1);
    const char *file = NULL, *obj = NULL;
    char *path = NULL;
    if (buf && H5Lget_val(index, name, buf, li.u.val_size, H5P_DEFAULT) >= 0 &&
        H5Lunpack_elink_val(buf, li.u.val_size, NULL, &file, &obj) >= 0 && file) {
        char *folder = fs_dirname(index_path);
        path = folder ? snapshot_printf("%s/%s", folder, file) : NULL;
        free(folder);
        *no_memory = !path;
    }
    *no_memory |= !buf;
    free(buf);
    return path;
}

/* Reads the meta of the snapshot file at path. */
static int read_file_meta(const char *path, snapshot_meta *m, char *err, size_t err_len)
{
    h5_quiet q;
    h5_quiet_begin(&q);
    char why[512] = "";
    hid_t f = sh5_open_read(path);
    int rc = f >= 0 ? snapshot_meta_read(f, 3, m, why, sizeof why) : -1;
    if (f < 0) snprintf(why, sizeof why, "%s", sh5_error);
    if (f >= 0) H5Fclose(f);
    h5_quiet_end(&q);
    struct stat st;
    m->bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    if (rc < 0) snapshot_set_err(err, err_len, "'%s': %s", path, why);
    return rc;
}

/* Puts the carried snapshots 0..keep-1 into NAME.d as temporary files (tmp[k]; NULL
 * for one that is already in place) and reads their metas. */
static int carry_snapshots(snapshot_file *f, const snapshot_carry *c, char **tmp, char *err, size_t err_len)
{
    h5_quiet q;
    h5_quiet_begin(&q);
    hid_t src = sh5_open_read(c->path);
    int rc = -1;
    wall_set *walls = (wall_set *)f->info.walls;
    if (src < 0) {
        snapshot_set_err(err, err_len, "cannot open '%s': %s", c->path, sh5_error);
        goto done;
    }
    for (int k = 0; k < c->keep; k++) {
        char *final = snapshot_path(f, k, "");
        snapshot_meta m;
        if (!final) goto oom;
        if (c->format >= 3) {
            int no_memory = 0;
            char *from = linked_file(src, c->path, k, &no_memory);
            if (!from) {
                free(final);
                if (no_memory) goto oom;
                snapshot_set_err(err, err_len, "'%s': snapshot %d is not a link to a snapshot file", c->path, k);
                goto done;
            }
            if (!fs_same_file(from, final)) {
                tmp[k] = snapshot_path(f, k, ".tmp");
                unlink(tmp[k]);
                int e = tmp[k] ? fs_link_or_copy(from, tmp[k]) : ENOMEM;
                if (e) {
                    snapshot_set_err(err, err_len, "cannot copy '%s' to '%s': %s", from, tmp[k], strerror(e));
                    free(from);
                    free(final);
                    goto done;
                }
            }
            free(from);
            int r = read_file_meta(tmp[k] ? tmp[k] : final, &m, err, err_len);
            free(final);
            if (r < 0) goto done;
        } else {
            free(final);
            char name[64];
            snprintf(name, sizeof name, "/snapshots/%06d", k);
            hid_t g = H5Gopen2(src, name, H5P_DEFAULT);
            tmp[k] = snapshot_path(f, k, ".tmp");
            if (g < 0 || !tmp[k]) {
                if (g >= 0) H5Gclose(g);
                snapshot_set_err(err, err_len, "cannot open %s of '%s'", name, c->path);
                goto done;
            }
            int r = snapshot_data_convert(g, tmp[k], walls, f->info.domain_min, f->info.domain_max, &m, err,
                                          err_len);
            H5Gclose(g);
            if (r < 0) goto done;
        }
        if (add_meta(f, &m) < 0) goto oom;
    }
    rc = 0;
    goto done;
oom:
    snapshot_set_no_memory(err, err_len, "out of memory");
done:
    if (src >= 0) H5Fclose(src);
    h5_quiet_end(&q);
    return rc;
}

/* Deletes what NAME.d holds past the snapshots NAME.h5 names: later snapshot files of
 * an output this one replaces, temporary files of a run that died. */
static void remove_stale(const snapshot_file *f)
{
    DIR *d = opendir(f->snapdir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        int number = len >= 9 && strspn(n, "0123456789") == len - 3 && !strcmp(n + len - 3, ".h5");
        int stale = (number && atol(n) >= f->count) ||
                    (len > 4 && !strcmp(n + len - 4, ".tmp") && (n[0] == '.' || strspn(n, "0123456789") >= 6));
        if (!stale) continue;
        char *p = snapshot_printf("%s/%s", f->snapdir, n);
        if (p) unlink(p);
        free(p);
    }
    closedir(d);
    fs_sync_dir(f->snapdir);
}

/* Undoes a start that failed: removes what it made (NAME.d if it made it). */
static void undo_start(snapshot_file *f, char **tmp, int n_tmp, int made_snapdir, int made_dir)
{
    for (int k = 0; k < n_tmp; k++)
        if (tmp[k]) unlink(tmp[k]);
    unlink(f->index_tmp);
    for (int k = 0; k < 3; k++) unlink(f->xmf_tmp[k]);
    if (made_snapdir) {
        f->count = 0;
        remove_stale(f);
        rmdir(f->snapdir);
    }
    if (made_dir) rmdir(f->dir);
}

snapshot_file *snapshot_create(const char *dir, const char *name, const snapshot_run_info *info,
                               const snapshot_carry *carry, char *err, size_t err_len)
{
    snapshot_file *f = NULL;
    snapshot_open(dir, name, info, carry, &f, err, err_len);
    return f;
}

static snapshot_file *create(const char *dir, const char *name, const snapshot_run_info *info,
                             const snapshot_carry *carry, char *err, size_t err_len)
{
    static const snapshot_run_info none = {0};
    if (!info) info = &none;
    if (snapshot_check_output(dir, name, info, carry ? carry->path : NULL, err, err_len) < 0) return NULL;
    snapshot_file *f = new_file(dir, name, info);
    if (!f) {
        snapshot_set_no_memory(err, err_len, "out of memory");
        return NULL;
    }
    if (carry && carry->driven) f->info.driven = 1;
    struct stat st;
    int made_dir = stat(f->dir, &st) != 0, made_snapdir = 0, n_tmp = 0;
    char **tmp = NULL;
    if (made_dir && fs_make_dirs(f->dir, err, err_len) < 0) {
        free_file(f);
        return NULL;
    }
    if (lstat(f->snapdir, &st) == 0 && !S_ISDIR(st.st_mode)) unlink(f->snapdir); /* --overwrite */
    if (mkdir(f->snapdir, 0777) == 0) made_snapdir = 1;
    else if (errno != EEXIST) {
        snapshot_set_err(err, err_len, "cannot create '%s': %s", f->snapdir, strerror(errno));
        goto fail;
    }
    f->lock_fd = fs_lock_dir(f->snapdir);
    if (f->lock_fd < 0) {
        if (f->lock_fd == -2)
            snapshot_set_err(err, err_len, "cannot write '%s': another dempact run is writing it (it holds "
                                           "the lock on '%s')", f->h5_path, f->snapdir);
        else
            snapshot_set_err(err, err_len, "cannot lock '%s': %s", f->snapdir, strerror(errno));
        f->lock_fd = -1;
        made_snapdir = 0; /* the other run's */
        goto fail;
    }
    int in_place = carry && fs_same_file(carry->path, f->h5_path);
    int replacing = !in_place && lstat(f->h5_path, &st) == 0;
    if (carry && carry->keep > 0) {
        tmp = calloc((size_t)carry->keep, sizeof *tmp);
        if (!tmp) {
            snapshot_set_no_memory(err, err_len, "out of memory");
            goto fail;
        }
        n_tmp = carry->keep; /* (undo_start reads tmp[0 .. n_tmp - 1]) */
        if (carry_snapshots(f, carry, tmp, err, err_len) < 0) goto fail;
    }
    if (replacing) { /* an earlier output of this case (or, with --overwrite, whatever it was) */
        snapshot_series empty = {.n_walls = f->series.n_walls};
        int indexed = f->count;
        f->count = 0;
        int rc = snapshot_index_write(f->index_tmp, &f->info, f->snapdir_rel, 0, &empty, err, err_len);
        f->count = indexed;
        if (rc < 0 || fs_publish(f->index_tmp, f->h5_path, err, err_len) < 0) goto fail;
        for (int k = 0; k < 3; k++) unlink(f->xmf[k]);
    }
    for (int k = 0; k < n_tmp; k++) {
        if (!tmp[k]) continue;
        char *final = snapshot_path(f, k, "");
        int rc = final ? fs_publish(tmp[k], final, err, err_len) : -1;
        free(final);
        if (rc < 0) goto fail;
        free(tmp[k]);
        tmp[k] = NULL;
    }
    fs_sync_dir(f->snapdir);
    if (carry) {
        for (size_t r = 0; r < carry->series.n; r++) {
            sim_observables o = carry->series.rows[r];
            o.n_walls = carry->series.n_walls;
            o.wall_force = carry->series.n_walls ? carry->series.wall[0] + 3 * carry->series.n_walls * r : NULL;
            o.wall_torque = carry->series.n_walls ? carry->series.wall[1] + 3 * carry->series.n_walls * r : NULL;
            if (snapshot_series_add(&f->series, &o) < 0) {
                snapshot_set_no_memory(err, err_len, "out of memory");
                goto fail;
            }
        }
    }
    if (catalogue(f, err, err_len) < 0) goto fail;
    remove_stale(f);
    for (int k = 0; k < n_tmp; k++) free(tmp[k]);
    free(tmp);
    return f;
fail:
    undo_start(f, tmp, n_tmp, made_snapdir, made_dir);
    for (int k = 0; k < n_tmp; k++) free(tmp[k]);
    free(tmp);
    free_file(f);
    return NULL;
}

int snapshot_open(const char *dir, const char *name, const snapshot_run_info *info,
                  const snapshot_carry *carry, snapshot_file **out, char *err, size_t err_len)
{
    snapshot_no_memory = 0;
    *out = create(dir, name, info, carry, err, err_len);
    /* (snapshot_check_output, which create calls first, clears the mark too) */
    return *out ? 0 : snapshot_no_memory ? FAIL_NO_MEMORY : -1;
}

/* ------------------------------------------------------------------ snapshots */

/* After a failed write: NAME.h5 names the snapshot files written before it if it can
 * (a full disk may still take the small rewrite); from now on nothing more is written.
 * Files it could not name stay (the .xmf files may name them already): they are whole,
 * and the next run into the folder deletes them. */
static void settle_after_failure(snapshot_file *f)
{
    f->failed = 1;
    if (f->indexed == f->count || catalogue(f, NULL, 0) == 0) return;
    f->count = f->indexed;
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
    return snapshot_write_shared(f, st, NULL, err, err_len);
}

static int write_shared(snapshot_file *f, const snapshot_state *st, const snapshot_share *share, char *err,
                        size_t err_len);

int snapshot_write_shared(snapshot_file *f, const snapshot_state *st, const snapshot_share *share, char *err,
                          size_t err_len)
{
    snapshot_no_memory = 0;
    int rc = write_shared(f, st, share, err, err_len);
    return rc == 0 ? 0 : snapshot_no_memory ? FAIL_NO_MEMORY : -1;
}

/* Whether a snapshot can be written: on the root, to f (0, or -1 with a message). */
static int can_write(const snapshot_file *f, const snapshot_state *st, int root, char *err, size_t err_len)
{
    if ((root && !f) || !st) {
        snapshot_set_err(err, err_len, "snapshot_write: no output or no state");
        return -1;
    }
    int count = root ? f->count : 0;
    const char *name = root ? f->h5_path : "the output";
    if (root && f->failed) {
        snapshot_set_err(err, err_len, "cannot write snapshot %d of '%s': an earlier write failed", count, name);
        return -1;
    }
    if (check_state(st) < 0) {
        snapshot_set_err(err, err_len, "cannot write snapshot %d of '%s': %s", count, name,
                         st->p && !isfinite(st->time) ? "time is not finite" : "inconsistent state");
        return -1;
    }
    return 0;
}

static int write_shared(snapshot_file *f, const snapshot_state *st, const snapshot_share *share, char *err,
                        size_t err_len)
{
    int root = !share || share->root;
    int mine = can_write(f, st, root, err, err_len) == 0;
    int ok = share ? share->all_ok(mine, share->ctx) : mine;
    if (!ok) {
        if (mine) snapshot_set_err(err, err_len, "cannot write snapshot: another rank cannot write its part");
        return -1;
    }
    char *tmp = root ? snapshot_path(f, f->count, ".tmp") : NULL;
    char *final = root ? snapshot_path(f, f->count, "") : NULL;
    snapshot_meta m;
    char why[1024] = "";
    ok = !root || (tmp && final && f->count < 999999);
    if (!ok && root && f->count < 999999) snapshot_set_no_memory(why, sizeof why, "out of memory");
    else if (!ok) snprintf(why, sizeof why, "too many snapshots");
    if (share) {
        /* every process writes into the root's temporary file */
        char path[4096] = "";
        if (root && ok) ok = snprintf(path, sizeof path, "%s", tmp) < (int)sizeof path;
        if (!share->all_ok(ok, share->ctx)) {
            if (ok) snprintf(why, sizeof why, "the writing rank cannot name the file");
            ok = 0;
        } else {
            share->from_root(path, sizeof path, share->ctx);
            ok = snapshot_data_write(path, st, share, share->domain_min, share->domain_max, &m, why, sizeof why) == 0;
        }
        if (!root) {
            if (!ok) snapshot_set_err(err, err_len, "%s", why);
            return ok ? 0 : -1;
        }
    } else {
        ok = ok && snapshot_data_write(tmp, st, NULL, f->info.domain_min, f->info.domain_max, &m, why, sizeof why) == 0;
    }
    if (ok) kill_point("written", f->count);
    ok = ok && fs_publish(tmp, final, why, sizeof why) == 0;
    if (ok) fs_sync_dir(f->snapdir);
    if (ok) kill_point("renamed", f->count);
    if (ok && add_meta(f, &m) < 0) {
        snapshot_set_no_memory(why, sizeof why, "out of memory");
        unlink(final);
        ok = 0;
    }
    if (!ok) {
        snapshot_set_err(err, err_len, "cannot write snapshot %d to '%s': %s", f->count,
                         final ? final : f->snapdir, why);
        settle_after_failure(f);
        free(tmp);
        free(final);
        return -1;
    }
    f->last_size = m.bytes;
    f->bytes_since += m.bytes;
    if (catalogue_due(f) && catalogue(f, why, sizeof why) < 0) {
        /* NAME.h5 stays as it was */
        snapshot_set_err(err, err_len, "cannot write snapshot %d of '%s': %s", f->count - 1, f->h5_path, why);
        f->failed = 1;
        f->count = f->indexed;
        free(tmp);
        free(final);
        return -1;
    }
    free(tmp);
    free(final);
    return 0;
}

int snapshot_add_sample(snapshot_file *f, const sim_observables *o, char *err, size_t err_len)
{
    if (snapshot_series_add(&f->series, o) < 0) {
        snapshot_set_err(err, err_len, "out of memory for the time series");
        return FAIL_NO_MEMORY;
    }
    return 0;
}

int snapshot_flush(snapshot_file *f, char *err, size_t err_len)
{
    if (!f || f->failed) {
        snapshot_set_err(err, err_len, "cannot write to '%s': an earlier write failed", f ? f->h5_path : "?");
        return -1;
    }
    if (f->indexed == f->count && f->indexed_rows == f->series.n) return 0;
    snapshot_no_memory = 0;
    if (catalogue(f, err, err_len) < 0) {
        settle_after_failure(f);
        return snapshot_no_memory ? FAIL_NO_MEMORY : -1;
    }
    return 0;
}

int snapshot_mark_driven(snapshot_file *f, char *err, size_t err_len)
{
    if (!f || f->info.driven) return 0;
    f->info.driven = 1;
    if (f->failed) return 0; /* (no further write is made) */
    if (catalogue(f, err, err_len) < 0) {
        settle_after_failure(f);
        return -1;
    }
    return 0;
}

int snapshot_count(const snapshot_file *f) { return f ? f->indexed : 0; }
const char *snapshot_h5_path(const snapshot_file *f) { return f ? f->h5_path : NULL; }
const char *snapshot_xmf_path(const snapshot_file *f) { return f ? f->xmf[0] : NULL; }
uint64_t snapshot_last_size(const snapshot_file *f) { return f ? f->last_size : 0; }
int64_t snapshot_last_step(const snapshot_file *f)
{
    return f && f->indexed > 0 ? f->meta[f->indexed - 1].step : -1;
}

int snapshot_close(snapshot_file *f)
{
    if (!f) return 0;
    int rc = 0;
    if (!f->failed && snapshot_flush(f, NULL, 0) != 0) rc = -1;
    free_file(f);
    return rc;
}

void snapshot_carry_free(snapshot_carry *c)
{
    free(c->path);
    snapshot_series_free(&c->series);
    memset(c, 0, sizeof *c);
}
