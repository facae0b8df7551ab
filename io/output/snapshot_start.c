/* An output's start (snapshot_create): the folder made and locked, the snapshots a
 * restart carries put in place, an output this one replaces emptied, NAME.h5 written
 * first, and whatever a run that died left behind removed. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot.h"
#include "snapshot_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        char *final = snapshot_file_path(f, k, "");
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
                tmp[k] = snapshot_file_path(f, k, ".tmp");
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
            tmp[k] = snapshot_file_path(f, k, ".tmp");
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
        if (snapshot_add_meta(f, &m) < 0) goto oom;
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

static snapshot_file *create(const char *dir, const char *name, const snapshot_run_info *info,
                             const snapshot_carry *carry, char *err, size_t err_len);

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
    snapshot_file *f = snapshot_file_new(dir, name, info);
    if (!f) {
        snapshot_set_no_memory(err, err_len, "out of memory");
        return NULL;
    }
    if (carry && carry->driven) f->info.driven = 1;
    struct stat st;
    int made_dir = stat(f->dir, &st) != 0, made_snapdir = 0, n_tmp = 0;
    char **tmp = NULL;
    if (made_dir && fs_make_dirs(f->dir, err, err_len) < 0) {
        snapshot_file_free(f);
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
        char *final = snapshot_file_path(f, k, "");
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
            o.wall_displacement = carry->series.n_walls ? carry->series.wall[2] + 3 * carry->series.n_walls * r : NULL;
            if (snapshot_series_add(&f->series, &o) < 0) {
                snapshot_set_no_memory(err, err_len, "out of memory");
                goto fail;
            }
        }
    }
    if (snapshot_catalogue(f, err, err_len) < 0) goto fail;
    remove_stale(f);
    for (int k = 0; k < n_tmp; k++) free(tmp[k]);
    free(tmp);
    return f;
fail:
    undo_start(f, tmp, n_tmp, made_snapdir, made_dir);
    for (int k = 0; k < n_tmp; k++) free(tmp[k]);
    free(tmp);
    snapshot_file_free(f);
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
