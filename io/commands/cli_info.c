/* dempact info FILE.h5: what a run's output holds (layouts 2 and 3), or what one
 * snapshot file of it (NAME.d/NNNNNN.h5) holds. Reads only: a run may be writing it. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "io/output/h5_read.h"
#include "io/output/snapshot_internal.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: dempact info FILE.h5 [--case]\n\n"
                 "Prints what a dempact output holds: the program and case that wrote it, the\n"
                 "timestep, the walls, every snapshot (index, step, time, particles, contacts)\n"
                 "and the time series. --case prints the case file's text instead. FILE.h5 may\n"
                 "also be one snapshot file (NAME.d/NNNNNN.h5). The files open as they are, even\n"
                 "while a run writes them or after it was killed.\n\n"
                 "exit status: 0 done, 2 not a readable dempact file.\n");
}

static char *read_string_attr(hid_t loc, const char *name)
{
    if (H5Aexists(loc, name) <= 0) return NULL;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT), s = a >= 0 ? H5Aget_space(a) : -1;
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char *v = NULL, *copy = NULL;
    if (s >= 0 && H5Sget_simple_extent_npoints(s) == 1 && H5Aread(a, t, &v) >= 0 && v) {
        copy = strdup(v);
        H5free_memory(v);
    }
    H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    if (a >= 0) H5Aclose(a);
    return copy;
}

static void print_walls(hid_t file)
{
    if (H5Aexists(file, "wall_names") <= 0) {
        printf("walls:       none\n");
        return;
    }
    hid_t a = H5Aopen(file, "wall_names", H5P_DEFAULT), s = H5Aget_space(a);
    hsize_t n = 0;
    if (H5Sget_simple_extent_ndims(s) == 1) H5Sget_simple_extent_dims(s, &n, NULL);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char **names = n < 100000 ? calloc(n ? n : 1, sizeof *names) : NULL;
    printf("walls:       %llu:", (unsigned long long)n);
    if (names && H5Aread(a, t, names) >= 0) {
        for (hsize_t k = 0; k < n; k++)
            printf(" %llu %s%s", (unsigned long long)k, names[k] && names[k][0] ? names[k] : "(unnamed)",
                   k + 1 < n ? "," : "");
        H5Dvlen_reclaim(t, s, H5P_DEFAULT, names);
    }
    printf("\n");
    free(names);
    H5Tclose(t);
    H5Sclose(s);
    H5Aclose(a);
}

/* The snapshot group of index k: /snapshots/NNNNNN (layout 2), or the root of the file
 * its external link names beside the index, once that is a regular file (layout 3). */
static hid_t open_snapshot(hid_t file, const char *folder, int k, hid_t *ext)
{
    char name[64];
    snprintf(name, sizeof name, "/snapshots/%06d", k);
    *ext = -1;
    H5L_info_t li;
    if (H5Lget_info(file, name, &li, H5P_DEFAULT) < 0) return -1;
    if (li.type == H5L_TYPE_HARD) return H5Gopen2(file, name, H5P_DEFAULT);
    if (li.type != H5L_TYPE_EXTERNAL || li.u.val_size > 4096) return -1;
    char buf[4097];
    const char *target = NULL, *obj = NULL;
    if (H5Lget_val(file, name, buf, li.u.val_size, H5P_DEFAULT) < 0 ||
        H5Lunpack_elink_val(buf, li.u.val_size, NULL, &target, &obj) < 0 || !target)
        return -1;
    char *path = snapshot_printf("%s/%s", folder, target);
    struct stat st;
    if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && H5Fis_hdf5(path) > 0) *ext = sh5_open_read(path);
    free(path);
    hid_t g = *ext >= 0 ? H5Gopen2(*ext, "/", H5P_DEFAULT) : -1;
    if (g < 0 && *ext >= 0) {
        H5Fclose(*ext);
        *ext = -1;
    }
    return g;
}

/* One line of the snapshot table. */
static void print_snapshot(int k, hid_t g)
{
    double t = 0.0;
    int64_t step = 0, n = 0, m = -1;
    h5_read_attr(g, ".", "time", H5T_NATIVE_DOUBLE, &t);
    h5_read_attr(g, ".", "step", H5T_NATIVE_INT64, &step);
    h5_read_attr(g, ".", "n_particles", H5T_NATIVE_INT64, &n);
    if (H5Lexists(g, "contacts", H5P_DEFAULT) > 0) h5_read_attr(g, "contacts", "n_contacts", H5T_NATIVE_INT64, &m);
    char contacts[32] = "-";
    if (m >= 0) snprintf(contacts, sizeof contacts, "%lld", (long long)m);
    printf("  %6d %12lld %14.8g %10lld %10s\n", k, (long long)step, t, (long long)n, contacts);
}

/* The number of rows of a 1-D time-series column and its first and last values. */
static int64_t series_span(hid_t file, double *first, double *last)
{
    char why[256];
    if (H5Lexists(file, "/timeseries", H5P_DEFAULT) <= 0) return 0;
    hid_t g = H5Gopen2(file, "/timeseries", H5P_DEFAULT);
    int64_t rows = g >= 0 ? snapshot_dataset_rows(g, "time", 1, NULL, why, sizeof why) : -1;
    if (rows > 0) {
        hid_t d = H5Dopen2(g, "time", H5P_DEFAULT), fs = H5Dget_space(d), ms = -1;
        hsize_t one = 1, at[2] = {0, (hsize_t)rows - 1};
        ms = H5Screate_simple(1, &one, NULL);
        for (int e = 0; e < 2; e++) {
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at[e], NULL, &one, NULL);
            H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, e ? last : first);
        }
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(d);
    }
    if (g >= 0) H5Gclose(g);
    return rows;
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
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || H5Fis_hdf5(path) <= 0) {
        fprintf(stderr, "dempact info: '%s' is not %s\n", path,
                stat(path, &st) != 0 ? "there" : "an HDF5 file");
        return EXIT_BAD_INPUT;
    }
    hid_t file = sh5_open_read(path);
    if (file < 0) {
        fprintf(stderr, "dempact info: cannot open '%s' as an HDF5 file\n", path);
        return EXIT_BAD_INPUT;
    }
    int32_t format = 1;
    h5_read_attr(file, ".", "format", H5T_NATIVE_INT32, &format);
    char *text = h5_read_case_text(file, format <= 2, NULL);
    char *version = read_string_attr(file, "dempact_version");
    int status = 0;
    if (show_case) {
        if (text) fputs(text, stdout);
        else fprintf(stderr, "dempact info: '%s' holds no case text\n", path);
        status = text ? 0 : EXIT_BAD_INPUT;
        goto done;
    }
    if (!version) {
        int64_t step;
        if (h5_read_attr(file, ".", "step", H5T_NATIVE_INT64, &step) == 0 && H5Lexists(file, "position", H5P_DEFAULT) > 0) {
            printf("file:        %s (one snapshot file of a dempact output: its NAME.h5 is two folders up)\n", path);
            printf("  %6s %12s %14s %10s %10s\n", "", "step", "time [s]", "particles", "contacts");
            print_snapshot(0, file);
        } else {
            fprintf(stderr, "dempact info: '%s' was not written by dempact (no dempact_version)\n", path);
            status = EXIT_BAD_INPUT;
        }
        goto done;
    }
    char *build = read_string_attr(file, "build"), *name = read_string_attr(file, "case_name");
    double dt = 0.0;
    h5_read_attr(file, ".", "dt", H5T_NATIVE_DOUBLE, &dt);
    int lines = 0;
    for (const char *c = text; c && *c; c++) lines += *c == '\n';
    printf("file:        %s\n", path);
    printf("written by:  dempact %s (%s build), layout format %d%s\n", version, build ? build : "?", format,
           format >= 3 ? " (snapshots in their own files)" : "");
    printf("case:        %s (%d lines of case text: dempact info --case %s)\n", name ? name : "?", lines, path);
    printf("timestep:    %.17g s\n", dt);
    free(build);
    free(name);
    print_walls(file);
    int count = 0;
    while (count < 1000000) {
        char g[64];
        snprintf(g, sizeof g, "/snapshots/%06d", count);
        if (H5Lexists(file, "/snapshots", H5P_DEFAULT) <= 0 || H5Lexists(file, g, H5P_DEFAULT) <= 0) break;
        count++;
    }
    printf("snapshots:   %d\n", count);
    if (count > 0) printf("  %6s %12s %14s %10s %10s\n", "index", "step", "time [s]", "particles", "contacts");
    char *folder = fs_dirname(path);
    int missing = 0;
    for (int k = 0; k < count && folder; k++) {
        hid_t ext, g = open_snapshot(file, folder, k, &ext);
        if (g < 0) {
            printf("  %6d  (its file is missing or unreadable)\n", k);
            missing++;
            continue;
        }
        print_snapshot(k, g);
        H5Gclose(g);
        if (ext >= 0) H5Fclose(ext);
    }
    free(folder);
    double first = 0.0, last = 0.0;
    int64_t rows = series_span(file, &first, &last);
    if (rows > 0)
        printf("time series: %lld samples, t = %.8g .. %.8g s (/timeseries)\n", (long long)rows, first, last);
    else
        printf("time series: none\n");
    if (missing) {
        fprintf(stderr, "dempact info: %d snapshot file%s of '%s' missing or unreadable\n", missing,
                missing == 1 ? " is" : "s are", path);
        status = EXIT_BAD_INPUT;
    }
done:
    free(text);
    free(version);
    H5Fclose(file);
    return status;
}
