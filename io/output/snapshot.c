/* A run's output: the snapshot files, NAME.h5 and the .xmf files (snapshot.h), and the
 * order of the steps that keeps them readable whenever the run dies. Its start (the
 * folder, the snapshots a restart carries) is snapshot_start.c's. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot.h"
#include "snapshot_internal.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


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

void snapshot_file_free(snapshot_file *f)
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

snapshot_file *snapshot_file_new(const char *dir, const char *name, const snapshot_run_info *info)
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
        snapshot_file_free(f);
        return NULL;
    }
    return f;
}

char *snapshot_file_path(const snapshot_file *f, int k, const char *suffix)
{
    return snapshot_printf("%s/%06d.h5%s", f->snapdir, k, suffix);
}

int snapshot_add_meta(snapshot_file *f, const snapshot_meta *m)
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
int snapshot_catalogue(snapshot_file *f, char *err, size_t err_len)
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


/* ------------------------------------------------------------------ snapshots */

/* After a failed write: NAME.h5 names the snapshot files written before it if it can
 * (a full disk may still take the small rewrite); from now on nothing more is written.
 * Files it could not name stay (the .xmf files may name them already): they are whole,
 * and the next run into the folder deletes them. */
static void settle_after_failure(snapshot_file *f)
{
    f->failed = 1;
    if (f->indexed == f->count || snapshot_catalogue(f, NULL, 0) == 0) return;
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
                  !p->fy || !p->fz || !p->tx != !p->ty || !p->tx != !p->tz))
        return -1; /* (no torques at all: written as zeros, particles.h) */
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
    char *tmp = root ? snapshot_file_path(f, f->count, ".tmp") : NULL;
    char *final = root ? snapshot_file_path(f, f->count, "") : NULL;
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
    if (ok && snapshot_add_meta(f, &m) < 0) {
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
    if (catalogue_due(f) && snapshot_catalogue(f, why, sizeof why) < 0) {
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
    if (snapshot_catalogue(f, err, err_len) < 0) {
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
    if (snapshot_catalogue(f, err, err_len) < 0) {
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
    snapshot_file_free(f);
    return rc;
}

void snapshot_carry_free(snapshot_carry *c)
{
    free(c->path);
    snapshot_series_free(&c->series);
    memset(c, 0, sizeof *c);
}
