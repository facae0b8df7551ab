/* What the file-reader harnesses (fuzz_csv.c, fuzz_lammps.c, fuzz_stl.c) share: each
 * input is written to one file in a private temporary folder and the reader is run on
 * its path; a broken promise aborts, so that libFuzzer (or the replay) reports it. */
#ifndef DEMPACT_FUZZ_FILE_H
#define DEMPACT_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[64];
static char fuzz_path[128];

static void fuzz_remove_dir(void)
{
    unlink(fuzz_path);
    rmdir(fuzz_dir);
}

/* Makes the folder once; the file is named `name` in it. */
static void fuzz_setup(const char *name)
{
    if (fuzz_dir[0]) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/dempact-fuzz-XXXXXX",
             tmp && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(fuzz_dir)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(fuzz_remove_dir);
    snprintf(fuzz_path, sizeof fuzz_path, "%s/%s", fuzz_dir, name);
}

static void fuzz_write(const void *data, size_t n)
{
    FILE *f = fopen(fuzz_path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
        fprintf(stderr, "fuzz: cannot write %s\n", fuzz_path);
        abort();
    }
}

static void fuzz_require(int ok, const char *what, const char *detail)
{
    if (ok) return;
    fprintf(stderr, "fuzz: broken promise: %s\n%s\n", what, detail ? detail : "");
    abort();
}

/* A refusal's message starts with the file's path. */
static void fuzz_require_named(const char *err)
{
    fuzz_require(err[0] != '\0', "a refused file without a message", NULL);
    fuzz_require(strncmp(err, fuzz_path, strlen(fuzz_path)) == 0,
                 "the message does not start with the file's path", err);
}

#endif
