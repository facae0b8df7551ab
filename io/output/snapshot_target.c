/* Never lose a file: before a run touches its output folder, whatever is there under
 * the output's names must be a dempact output of the same case (which the run may
 * replace), the file the run restarts from, or the user must have said --overwrite.
 * Only reads. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5_read.h"
#include "restart.h"

#define HOW "write elsewhere (--output DIR), or give --overwrite to replace it"

/* dir must be named (an empty name is a slip, not the current folder: that is "."), and
 * the deepest existing folder on the way to it must be writable. */
static int check_folder(const char *dir, char *err, size_t err_len)
{
    if (!dir || !dir[0]) {
        snapshot_set_err(err, err_len, "the output folder's name is empty: name a folder ('.' for the "
                         "current one)");
        return -1;
    }
    const char *d = dir;
    struct stat st;
    if (stat(d, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snapshot_set_err(err, err_len, "cannot write to the output folder '%s': it is not a folder", d);
            return -1;
        }
        if (access(d, W_OK | X_OK) != 0) {
            snapshot_set_err(err, err_len, "cannot write to the output folder '%s': %s", d, strerror(errno));
            return -1;
        }
        return 0;
    }
    /* to be created: walk up to what exists */
    char *up = strdup(d);
    while (up && stat(up, &st) != 0) {
        char *parent = fs_dirname(up);
        if (!parent || !strcmp(parent, up)) {
            free(parent);
            break;
        }
        free(up);
        up = parent;
    }
    if (!up) return 0;
    int rc = 0;
    if (stat(up, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snapshot_set_err(err, err_len, "cannot create output folder '%s': '%s' exists and is not a folder",
                         d, up);
        rc = -1;
    } else if (access(up, W_OK | X_OK) != 0) {
        snapshot_set_err(err, err_len, "cannot create output folder '%s': %s", d, strerror(errno));
        rc = -1;
    }
    free(up);
    return rc;
}

/* What NAME.h5 is: 0 absent, 1 a dempact output of this case, or -1 with why (not
 * dempact's, another case, not a regular file). */
static int classify_index(const char *path, const char *case_text, char *why, size_t why_len)
{
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (!S_ISREG(st.st_mode)) {
        snapshot_set_err(why, why_len, "'%s' exists and is not a regular file", path);
        return -1;
    }
    h5_quiet q;
    h5_quiet_begin(&q);
    int rc = -1;
    char *text = NULL;
    hid_t f = H5Fis_hdf5(path) > 0 ? sh5_open_read(path) : -1;
    int32_t format = 0;
    if (f >= 0) h5_read_attr(f, ".", "format", H5T_NATIVE_INT32, &format);
    int no_memory = 0;
    if (f < 0 || H5Aexists(f, "dempact_version") <= 0 || !(text = h5_read_case_text(f, format == 2, &no_memory))) {
        if (no_memory) snapshot_set_no_memory(why, why_len, "out of memory");
        else snapshot_set_err(why, why_len, "'%s' exists and is not a dempact output (it is kept)", path);
        goto done;
    }
    char diff[512];
    if (restart_compare_cases(text, case_text ? case_text : "", diff, sizeof diff) != 0) {
        snapshot_set_err(why, why_len, "'%s' holds the output of another case (%s; it is kept)", path, diff);
        goto done;
    }
    rc = 1;
done:
    free(text);
    if (f >= 0) H5Fclose(f);
    h5_quiet_end(&q);
    return rc;
}

static int exists(const char *path, struct stat *st) { return lstat(path, st) == 0; }

static int folder_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

static int check_output(const char *dir, const char *name, const snapshot_run_info *info,
                        const char *restart_path, char *err, size_t err_len)
{
    if (!name || !name[0] || strchr(name, '/') || strchr(name, ':')) {
        snapshot_set_err(err, err_len, "run name '%s' must be non-empty and contain neither '/' nor ':'",
                         name ? name : "");
        return -1;
    }
    if (check_folder(dir, err, err_len) < 0) return -1;
    const char *d = dir && dir[0] ? dir : ".";
    char *h5 = snapshot_printf("%s/%s.h5", d, name), *snapdir = snapshot_printf("%s/%s.d", d, name);
    char *xmf[3] = {snapshot_printf("%s/%s.xmf", d, name), snapshot_printf("%s/%s_contacts.xmf", d, name),
                    snapshot_printf("%s/%s_walls.xmf", d, name)};
    int rc = -1;
    if (!h5 || !snapdir || !xmf[0] || !xmf[1] || !xmf[2]) {
        snapshot_set_no_memory(err, err_len, "out of memory");
        goto done;
    }
    struct stat st;
    char why[1024] = "";
    int ours; /* NAME.h5 is an output this run may replace */
    if (restart_path && fs_same_file(restart_path, h5)) ours = 1;
    else ours = classify_index(h5, info ? info->case_text : NULL, why, sizeof why);
    if (ours < 0 && exists(h5, &st) && S_ISDIR(st.st_mode)) {
        snapshot_set_err(err, err_len, "%s: remove it or write elsewhere (--output DIR)", why);
        goto done;
    }
    int overwrite = info && info->overwrite;
    if (ours < 0 && !overwrite) {
        snapshot_set_err(err, err_len, "%s: " HOW, why);
        goto done;
    }
    if (ours == 0 && !overwrite) {
        /* no NAME.h5: the other names must be free too (an empty NAME.d is) */
        for (int k = 0; k < 3; k++)
            if (exists(xmf[k], &st)) {
                snapshot_set_err(err, err_len, "'%s' exists and is not part of a dempact output of this "
                                                "case (there is no %s beside it; it is kept): " HOW,
                                 xmf[k], h5);
                goto done;
            }
        if (exists(snapdir, &st) && !(S_ISDIR(st.st_mode) && folder_is_empty(snapdir))) {
            snapshot_set_err(err, err_len, "'%s' exists and is not part of a dempact output of this case "
                                            "(there is no %s beside it; it is kept): " HOW, snapdir, h5);
            goto done;
        }
    }
    /* what even --overwrite does not replace: folders where files go, and the reverse */
    for (int k = 0; k < 3; k++)
        if (exists(xmf[k], &st) && S_ISDIR(st.st_mode)) {
            snapshot_set_err(err, err_len, "'%s' is a folder: remove it or write elsewhere (--output DIR)",
                             xmf[k]);
            goto done;
        }
    if (exists(snapdir, &st) && !S_ISDIR(st.st_mode) && !overwrite) {
        snapshot_set_err(err, err_len, "'%s' exists and is not a folder (it is kept): " HOW, snapdir);
        goto done;
    }
    if (exists(snapdir, &st) && S_ISDIR(st.st_mode) && access(snapdir, W_OK | X_OK) != 0) {
        snapshot_set_err(err, err_len, "cannot write to '%s': %s", snapdir, strerror(errno));
        goto done;
    }
    rc = 0;
done:
    free(h5);
    free(snapdir);
    for (int k = 0; k < 3; k++) free(xmf[k]);
    return rc;
}

int snapshot_check_output(const char *dir, const char *name, const snapshot_run_info *info,
                          const char *restart_path, char *err, size_t err_len)
{
    snapshot_no_memory = 0;
    int rc = check_output(dir, name, info, restart_path, err, err_len);
    return rc == 0 ? 0 : snapshot_no_memory ? FAIL_NO_MEMORY : -1;
}
