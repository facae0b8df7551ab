/* See h5_read.h. */
#define _POSIX_C_SOURCE 200809L
#include "h5_read.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Longest case text read (bytes), and how long a child may take to read one (ms). */
#define TEXT_MAX (1u << 24)
#define CHILD_MS 10000

static int holds(hid_t space, size_t n)
{
    int ok = space >= 0 && H5Sget_simple_extent_npoints(space) == (hssize_t)n;
    if (space >= 0) H5Sclose(space);
    return ok;
}

int h5_read_attr_n(hid_t loc, const char *obj, const char *name, hid_t type, size_t n, void *v)
{
    if (H5Aexists_by_name(loc, obj, name, H5P_DEFAULT) <= 0) return -1;
    hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) return -1;
    int rc = holds(H5Aget_space(a), n) && H5Aread(a, type, v) >= 0 ? 0 : -1;
    H5Aclose(a);
    return rc;
}

int h5_read_attr(hid_t loc, const char *obj, const char *name, hid_t type, void *v)
{
    return h5_read_attr_n(loc, obj, name, type, 1, v);
}

static void write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(1);
        p += w;
        n -= (size_t)w;
    }
}

static long ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000L + (t.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* A variable-length string lives in HDF5's global heap, and HDF5 1.10.8 crashes or
 * loops on some damaged ones (tests/fuzz/findings): it is read in a child process,
 * which hands the text over a pipe, so that a damaged file is refused, not fatal. */
static char *read_variable_in_child(hid_t d)
{
    int fds[2];
    if (pipe(fds) != 0) return NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        close(fds[0]);
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        H5Tset_cset(t, H5T_CSET_UTF8);
        char *v = NULL;
        if (H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0 || !v) _exit(1);
        uint64_t n = strlen(v);
        if (n > TEXT_MAX) _exit(1);
        write_all(fds[1], &n, sizeof n);
        write_all(fds[1], v, (size_t)n);
        _exit(0);
    }
    close(fds[1]);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t n = 0;
    size_t got = 0, want = sizeof n;
    char *text = NULL;
    int ok = 1;
    while (ok && got < want) {
        long left = CHILD_MS - ms_since(&t0);
        struct pollfd pf = {fds[0], POLLIN, 0};
        if (left <= 0 || poll(&pf, 1, (int)left) <= 0) {
            ok = 0;
            break;
        }
        char *dst = text ? text + (got - sizeof n) : (char *)&n + got;
        ssize_t r = read(fds[0], dst, (text ? want : sizeof n) - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            ok = 0;
            break;
        }
        got += (size_t)r;
        if (!text && got == sizeof n) { /* the length came: now the text */
            if (n > TEXT_MAX || !(text = calloc((size_t)n + 1, 1))) ok = 0;
            want = sizeof n + (size_t)n;
        }
    }
    close(fds[0]);
    int status = 0;
    if (!ok) kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *h5_read_case_text(hid_t file, int allow_variable, int *no_memory)
{
    if (no_memory) *no_memory = 0;
    if (H5Lexists(file, "case_text", H5P_DEFAULT) <= 0) return NULL;
    hid_t d = H5Dopen2(file, "case_text", H5P_DEFAULT);
    if (d < 0) return NULL;
    hid_t ft = H5Dget_type(d);
    int is_string = ft >= 0 && H5Tget_class(ft) == H5T_STRING;
    int variable = is_string && H5Tis_variable_str(ft) > 0;
    size_t size = is_string && !variable ? H5Tget_size(ft) : 0;
    char *copy = NULL;
    if (is_string && holds(H5Dget_space(d), 1) && (variable ? allow_variable : size > 0 && size < (1u << 24))) {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_cset(t, H5T_CSET_UTF8);
        if (variable) {
            copy = read_variable_in_child(d);
        } else if (!(copy = calloc(size + 1, 1))) {
            if (no_memory) *no_memory = 1;
        } else {
            H5Tset_size(t, size);
            H5Tset_strpad(t, H5T_STR_NULLPAD);
            if (H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, copy) < 0) {
                free(copy);
                copy = NULL;
            }
        }
        H5Tclose(t);
    }
    if (ft >= 0) H5Tclose(ft);
    H5Dclose(d);
    return copy;
}
