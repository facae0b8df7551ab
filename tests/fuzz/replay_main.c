/* Replays inputs through a libFuzzer harness without libFuzzer: every regular file
 * named on the command line, or found directly in a folder named there, is fed once to
 * LLVMFuzzerTestOneInput. Exits 0 when every input went through (a crash, a sanitizer
 * report or a broken promise ends the process instead). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return -1; }
    size_t cap = 4096, n = 0;
    uint8_t *data = malloc(cap);
    for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(data, cap *= 2);
            if (!bigger) free(data);
            data = bigger;
        }
    }
    fclose(f);
    if (!data) { fprintf(stderr, "%s: out of memory\n", path); return -1; }
    /* an exact-size copy, so that reading past the input is caught by the sanitizers */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) { free(data); return -1; }
    memcpy(exact, data, n);
    free(data);
    printf("%s (%zu bytes)\n", path, n);
    fflush(stdout);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files directly in `folder`, in name order (so that runs are repeatable). */
static int replay_folder(const char *folder, int *count)
{
    DIR *d = opendir(folder);
    if (!d) { perror(folder); return -1; }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char **more = realloc(names, (n + 1) * sizeof *names);
        if (!more) break;
        names = more;
        size_t len = strlen(folder) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) break;
        snprintf(names[n++], len, "%s/%s", folder, e->d_name);
    }
    closedir(d);
    if (n > 1) qsort(names, n, sizeof *names, compare_names);
    int rc = 0;
    for (size_t k = 0; k < n; k++) {
        struct stat st;
        if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(names[k]) != 0) rc = -1;
            else (*count)++;
        }
        free(names[k]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    int count = 0, rc = 0;
    for (int k = 1; k < argc; k++) {
        struct stat st;
        if (stat(argv[k], &st) != 0) { perror(argv[k]); rc = 1; continue; }
        if (S_ISDIR(st.st_mode)) {
            if (replay_folder(argv[k], &count) != 0) rc = 1;
        } else if (replay_file(argv[k]) != 0) {
            rc = 1;
        } else {
            count++;
        }
    }
    printf("%d inputs replayed without a crash\n", count);
    return rc || count == 0;
}
