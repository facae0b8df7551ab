/* `dempact bench --write-data FILE` (io/commands/cli_bench_data.h). */
#include "cli_bench_data.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "io/readers/lammps_data.h"

int bench_data_path_usable(const char *path, int overwrite)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "dempact bench: --write-data %s: is a folder, not a file\n", path);
            return EXIT_BAD_INPUT;
        }
        if (!overwrite) {
            fprintf(stderr, "dempact bench: --write-data %s: the file exists; --overwrite "
                            "replaces it\n", path);
            return EXIT_BAD_INPUT;
        }
        return 0;
    }
    if (errno != ENOENT) {
        fprintf(stderr, "dempact bench: --write-data %s: %s\n", path, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    size_t len = strlen(path);
    char *dir = malloc(len + 2);
    if (!dir) { fprintf(stderr, "dempact bench: out of memory\n"); return EXIT_NO_MEMORY; }
    memcpy(dir, path, len + 1);
    char *slash = strrchr(dir, '/');
    if (!slash) strcpy(dir, ".");
    else slash[slash == dir] = '\0'; /* "/x" keeps "/" */
    int rc = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "dempact bench: --write-data %s: no folder %s to write it in\n", path, dir);
        rc = EXIT_BAD_INPUT;
    } else if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "dempact bench: --write-data %s: cannot write in %s: %s\n", path, dir,
                strerror(errno));
        rc = EXIT_BAD_INPUT;
    }
    free(dir);
    return rc;
}

/* Writes d as FILE without replacing a file that appeared since bench_data_path_usable: into a
 * file of its own beside it, then a hard link to FILE, which fails if FILE exists (a
 * rename where the file system has no hard links). Returns 0, EXIT_BAD_INPUT or
 * EXIT_RUN_FAILED. */
static int write_new_data(const char *path, const lammps_data *d, const char *title)
{
    size_t plen = strlen(path) + 32;
    char *part = malloc(plen);
    if (!part) { fprintf(stderr, "dempact bench: out of memory\n"); return EXIT_NO_MEMORY; }
    snprintf(part, plen, "%s.part%ld", path, (long)getpid());
    char err[1024];
    if (lammps_data_write(part, d, title, err, sizeof err) != 0) {
        fprintf(stderr, "dempact bench: %s\n", err);
        free(part);
        return EXIT_RUN_FAILED;
    }
    int rc = 0;
    struct stat st;
    if (link(part, path) == 0) {
        unlink(part);
    } else if (errno == EEXIST || lstat(path, &st) == 0) {
        fprintf(stderr, "dempact bench: --write-data %s: the file appeared while the bed was "
                        "built; not replaced (--overwrite replaces it)\n", path);
        unlink(part);
        rc = EXIT_BAD_INPUT;
    } else if (rename(part, path) != 0) {
        fprintf(stderr, "dempact bench: %s: write failed: %s\n", path, strerror(errno));
        unlink(part);
        rc = EXIT_RUN_FAILED;
    }
    free(part);
    return rc;
}

/* SIGINT and SIGTERM wait while the data file is written, then act as they would have:
 * FILE is whole or absent, never half written. */
static volatile sig_atomic_t held_signal = 0;

static void hold_signal(int sig) { held_signal = sig; }

int bench_write_bed(const char *path, const bed *b, const char *title, int overwrite)
{
    lammps_data d;
    if (lammps_data_alloc(&d, b->n) != 0) { fprintf(stderr, "dempact bench: out of memory\n"); return EXIT_NO_MEMORY; }
    d.n_types = 1;
    memcpy(d.lo, b->lo, sizeof d.lo);
    memcpy(d.hi, b->hi, sizeof d.hi);
    for (size_t i = 0; i < b->n; i++) {
        d.id[i] = (int64_t)i + 1;
        d.type[i] = 1;
        d.diameter[i] = 2.0 * b->radius[i];
        d.density[i] = b->density;
    }
    memcpy(d.x, b->x, 3 * b->n * sizeof *d.x);
    memcpy(d.v, b->v, 3 * b->n * sizeof *d.v);
    d.has_velocities = 1;
    struct sigaction hold, old_int, old_term;
    memset(&hold, 0, sizeof hold);
    hold.sa_handler = hold_signal;
    hold.sa_flags = SA_RESTART;
    sigemptyset(&hold.sa_mask);
    sigaction(SIGINT, &hold, &old_int);
    sigaction(SIGTERM, &hold, &old_term);
    int rc = 0;
    if (overwrite) { /* lammps_data_write: a temporary file renamed over FILE */
        char err[1024];
        if (lammps_data_write(path, &d, title, err, sizeof err) != 0) {
            fprintf(stderr, "dempact bench: %s\n", err);
            rc = EXIT_RUN_FAILED;
        }
    } else {
        rc = write_new_data(path, &d, title);
    }
    lammps_data_free(&d);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (held_signal) raise(held_signal);
    return rc;
}

int bench_bed_from_data(const lammps_data *d, bed *b, const char *path)
{
    for (size_t i = 1; i < d->n; i++)
        if (d->density[i] != d->density[0]) {
            fprintf(stderr, "dempact bench: %s: atom %lld has density %.17g, atom %lld %.17g: the "
                            "bench takes one density\n", path, (long long)d->id[0], d->density[0],
                    (long long)d->id[i], d->density[i]);
            return -1;
        }
    if (bed_alloc(b, d->n) != 0) { fprintf(stderr, "dempact bench: out of memory\n"); return -1; }
    memcpy(b->x, d->x, 3 * d->n * sizeof *b->x);
    memcpy(b->v, d->v, 3 * d->n * sizeof *b->v);
    for (size_t i = 0; i < d->n; i++) b->radius[i] = 0.5 * d->diameter[i];
    b->density = d->density[0];
    memcpy(b->lo, d->lo, sizeof b->lo);
    memcpy(b->hi, d->hi, sizeof b->hi);
    return 0;
}
