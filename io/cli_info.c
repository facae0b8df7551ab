/* dempact info FILE.h5: what a run's output file holds. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "h5_read.h"
#include "snapshot_journal.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: dempact info FILE.h5 [--case]\n\n"
                 "Prints what a dempact output file holds: the program and case that wrote it,\n"
                 "the timestep, the walls, every snapshot (index, step, time, particles,\n"
                 "contacts) and the time series. --case prints the case file's text instead.\n"
                 "A commit left half done by a crash is completed first (from FILE.h5.journal).\n\n"
                 "exit status: 0 done, 2 not a readable dempact file.\n");
}

static char *read_string_attr(hid_t loc, const char *name)
{
    if (H5Aexists(loc, name) <= 0) return NULL;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char *v = NULL, *copy = NULL;
    if (a >= 0 && H5Aread(a, t, &v) >= 0 && v) {
        copy = strdup(v);
        H5free_memory(v);
    }
    H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return copy;
}

/* Reads the whole 1-D dataset `path` as doubles or int64 (n values), malloc'd. */
static void *read_column(hid_t file, const char *path, hid_t type, int64_t *n)
{
    *n = 0;
    if (H5Lexists(file, "/timeseries", H5P_DEFAULT) <= 0 || H5Lexists(file, path, H5P_DEFAULT) <= 0)
        return NULL;
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT), s = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t dims[1] = {0};
    void *buf = NULL;
    if (s >= 0 && H5Sget_simple_extent_ndims(s) == 1 && H5Sget_simple_extent_dims(s, dims, NULL) == 1 &&
        (buf = malloc(dims[0] ? dims[0] * 8 : 8)) &&
        (dims[0] == 0 || H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0))
        *n = (int64_t)dims[0];
    if (s >= 0) H5Sclose(s);
    if (d >= 0) H5Dclose(d);
    return buf;
}

static void print_walls(hid_t file)
{
    if (H5Aexists(file, "wall_names") <= 0) {
        printf("walls:       none\n");
        return;
    }
    hid_t a = H5Aopen(file, "wall_names", H5P_DEFAULT), s = H5Aget_space(a);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(s, &n, NULL);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char **names = calloc(n ? n : 1, sizeof *names);
    printf("walls:       %llu:", (unsigned long long)n);
    if (names && H5Aread(a, t, names) >= 0) {
        for (hsize_t k = 0; k < n; k++) printf(" %llu %s%s", (unsigned long long)k,
                                               names[k] && names[k][0] ? names[k] : "(unnamed)",
                                               k + 1 < n ? "," : "");
        H5Dvlen_reclaim(t, s, H5P_DEFAULT, names);
    }
    printf("\n");
    free(names);
    H5Tclose(t);
    H5Sclose(s);
    H5Aclose(a);
}

int cli_info(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) { usage(stdout); return 0; }
    const char *path = NULL;
    int show_case = 0;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--case")) show_case = 1;
        else if (argv[k][0] == '-' || path) { usage(stderr); return EXIT_BAD_INPUT; }
        else path = argv[k];
    }
    if (!path) { usage(stderr); return EXIT_BAD_INPUT; }
    char err[1024];
    int rec = journal_recover(path, err, sizeof err);
    if (rec < 0) {
        fprintf(stderr, "dempact info: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (rec > 0)
        fprintf(stderr, "dempact info: completed the commit a crash interrupted, from %s.journal\n", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_file_locking(fapl, 0, 1);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (file < 0) {
        fprintf(stderr, "dempact info: cannot open '%s' as an HDF5 file\n", path);
        return EXIT_BAD_INPUT;
    }
    char *text = h5_read_case_text(file);
    if (show_case) {
        int ok = text != NULL;
        if (ok) fputs(text, stdout);
        else fprintf(stderr, "dempact info: '%s' holds no case text\n", path);
        free(text);
        H5Fclose(file);
        return ok ? 0 : EXIT_BAD_INPUT;
    }
    char *version = read_string_attr(file, "dempact_version"), *build = read_string_attr(file, "build"),
         *name = read_string_attr(file, "case_name");
    if (!version) {
        fprintf(stderr, "dempact info: '%s' was not written by dempact (no dempact_version)\n", path);
        free(text); free(build); free(name);
        H5Fclose(file);
        return EXIT_BAD_INPUT;
    }
    int32_t format = 1;
    double dt = 0.0;
    h5_read_attr(file, ".", "format", H5T_NATIVE_INT32, &format);
    h5_read_attr(file, ".", "dt", H5T_NATIVE_DOUBLE, &dt);
    int lines = 0;
    for (const char *c = text; c && *c; c++) lines += *c == '\n';
    printf("file:        %s\n", path);
    printf("written by:  dempact %s (%s build), layout format %d\n", version, build ? build : "?", format);
    printf("case:        %s (%d lines of case text: dempact info --case %s)\n", name ? name : "?",
           lines, path);
    printf("timestep:    %.17g s\n", dt);
    print_walls(file);
    int count = 0;
    while (1) {
        char g[64];
        snprintf(g, sizeof g, "/snapshots/%06d", count);
        if (H5Lexists(file, "/snapshots", H5P_DEFAULT) <= 0 || H5Lexists(file, g, H5P_DEFAULT) <= 0) break;
        count++;
    }
    printf("snapshots:   %d\n", count);
    if (count > 0) printf("  %6s %12s %14s %10s %10s\n", "index", "step", "time [s]", "particles", "contacts");
    for (int k = 0; k < count; k++) {
        char g[64], c[80];
        snprintf(g, sizeof g, "/snapshots/%06d", k);
        snprintf(c, sizeof c, "%s/contacts", g);
        double t = 0.0;
        int64_t step = 0, n = 0, m = -1;
        h5_read_attr(file, g, "time", H5T_NATIVE_DOUBLE, &t);
        h5_read_attr(file, g, "step", H5T_NATIVE_INT64, &step);
        h5_read_attr(file, g, "n_particles", H5T_NATIVE_INT64, &n);
        if (H5Lexists(file, c, H5P_DEFAULT) > 0) h5_read_attr(file, c, "n_contacts", H5T_NATIVE_INT64, &m);
        char contacts[32] = "-";
        if (m >= 0) snprintf(contacts, sizeof contacts, "%lld", (long long)m);
        printf("  %6d %12lld %14.8g %10lld %10s\n", k, (long long)step, t, (long long)n, contacts);
    }
    int64_t rows = 0;
    double *times = read_column(file, "/timeseries/time", H5T_NATIVE_DOUBLE, &rows);
    if (rows > 0)
        printf("time series: %lld samples, t = %.8g .. %.8g s (/timeseries)\n", (long long)rows, times[0],
               times[rows - 1]);
    else
        printf("time series: none\n");
    free(times);
    free(text); free(version); free(build); free(name);
    H5Fclose(file);
    return 0;
}
