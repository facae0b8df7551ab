/* The file-system steps of the output: folders, atomic replacement by rename, hard
 * links, the writer's lock. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void snapshot_set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

int snapshot_no_memory;

void snapshot_set_no_memory(char *err, size_t err_len, const char *fmt, ...)
{
    snapshot_no_memory = 1;
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

char *snapshot_printf(const char *fmt, ...)
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

int fs_make_dirs(const char *dir, char *err, size_t err_len)
{
    size_t len = strlen(dir);
    char *buf = strdup(dir);
    if (!buf) {
        snapshot_set_no_memory(err, err_len, "cannot create output folder '%s': out of memory", dir);
        return -1;
    }
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
                    snapshot_set_err(err, err_len, "cannot create output folder '%s': it exists and is "
                                                   "not a folder", dir);
                else
                    snapshot_set_err(err, err_len, "cannot create output folder '%s': '%s' exists and is "
                                                   "not a folder", dir, buf);
                rc = -1;
            }
        } else if (mkdir(buf, 0777) != 0) {
            int e = errno;
            if (!(e == EEXIST && stat(buf, &st) == 0 && S_ISDIR(st.st_mode))) {
                if (strcmp(buf, dir) == 0)
                    snapshot_set_err(err, err_len, "cannot create output folder '%s': %s", dir, strerror(e));
                else
                    snapshot_set_err(err, err_len, "cannot create output folder '%s': cannot create '%s': %s",
                                     dir, buf, strerror(e));
                rc = -1;
            }
        }
        buf[i] = saved;
    }
    free(buf);
    return rc;
}

int fs_sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return errno;
    int rc = fsync(fd) == 0 || errno == EINVAL ? 0 : errno; /* EINVAL: cannot be synced */
    close(fd);
    return rc;
}

void fs_sync_dir(const char *dir)
{
    int fd = open(dir && dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

int fs_publish(const char *tmp, const char *path, char *err, size_t err_len)
{
    int e = fs_sync_file(tmp);
    if (e) {
        snapshot_set_err(err, err_len, "cannot write '%s': %s", tmp, strerror(e));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snapshot_set_err(err, err_len, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int copy_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY), out = -1, e = 0;
    if (in < 0) return errno;
    out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (out < 0) {
        e = errno;
        close(in);
        return e;
    }
    char buf[1 << 16];
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) { e = errno; break; }
        if (r == 0) break;
        for (ssize_t done = 0; done < r && !e;) {
            ssize_t w = write(out, buf + done, (size_t)(r - done));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) e = errno;
            else done += w;
        }
        if (e) break;
    }
    if (!e && fsync(out) != 0 && errno != EINVAL) e = errno;
    if (close(out) != 0 && !e) e = errno;
    close(in);
    if (e) unlink(dst);
    return e;
}

int fs_link_or_copy(const char *src, const char *dst)
{
    if (link(src, dst) == 0) return 0;
    /* another file system, or none with hard links: a copy */
    if (errno == EXDEV || errno == EPERM || errno == EMLINK || errno == ENOTSUP || errno == EOPNOTSUPP)
        return copy_file(src, dst);
    return errno;
}

int fs_lock_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK) return -2;
        errno = e;
        return -1;
    }
    return fd;
}

char *fs_dirname(const char *path)
{
    char *copy = strdup(path);
    if (!copy) return NULL;
    char *d = strdup(dirname(copy));
    free(copy);
    return d;
}

int fs_same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}
