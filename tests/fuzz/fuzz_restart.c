/* libFuzzer harness for the restart reader (io/output/restart*.c) and the output it carries a
 * restart into (io/output/snapshot*.c). An input is either one HDF5 file (an output of the
 * single-file layout 2), or a bundle of the files of a layout-3 output:
 *     "DMPK", n (1 byte, 1..8), then n times: size (4 bytes, little-endian), bytes
 * written as restart_case.h5 (the first) and restart_case.d/000000.h5, 000001.h5, ...
 * The input is restored, with restart_from_file(), into a simulation built from
 * tests/fuzz/restart_case.yaml (the path comes from the build: RESTART_CASE); a
 * restored simulation then takes a few steps and meets the watchdog, and its output is
 * started in another folder from the carried snapshots (hard links, the .xmf files).
 * Seeds (seeds/restart) are outputs `dempact run` wrote for that case, in both layouts;
 * the mutations mostly break HDF5's own structures (HDF5 refuses them) and sometimes
 * reach the values the reader must check.
 *
 *   cmake --build build-fuzz --target fuzz_restart   (configured as in fuzz_case.c)
 *   tests/fuzz/run_fuzz.sh restart 600 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "io/case/case.h"
#include "io/output/restart.h"
#include "io/output/snapshot.h"
#include "../remove_tree.h"

#ifndef RESTART_CASE
#define RESTART_CASE "tests/fuzz/restart_case.yaml"
#endif

static char dir[64], h5_path[128], snapdir[128], out_dir[128];
static sim_config cfg;

static void clear(const char *path) { remove_tree(path); }

static void cleanup(void)
{
    clear(dir);
    sim_config_free(&cfg);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char err[2048];
    if (case_load(RESTART_CASE, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_restart: %s\n", err);
        abort();
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/dempact-fuzzr-XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(dir)) abort();
    snprintf(h5_path, sizeof h5_path, "%s/restart_case.h5", dir);
    snprintf(snapdir, sizeof snapdir, "%s/restart_case.d", dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    atexit(cleanup);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* HDF5's own error stacks are not findings */
    return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
}

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* Writes the input's files; a bundle that does not parse is written whole as run.h5. */
static void write_input(const uint8_t *data, size_t size)
{
    clear(snapdir);
    clear(out_dir);
    if (mkdir(snapdir, 0777) != 0) abort();
    if (size >= 5 && !memcmp(data, "DMPK", 4) && data[4] >= 1 && data[4] <= 8) {
        size_t at = 5, n = data[4], k;
        for (k = 0; k < n && at + 4 <= size; k++) {
            size_t len = le32(data + at);
            at += 4;
            if (len > size - at) break;
            char path[160];
            if (k == 0) snprintf(path, sizeof path, "%s", h5_path);
            else snprintf(path, sizeof path, "%s/%06zu.h5", snapdir, k - 1);
            write_file(path, data + at, len);
            at += len;
        }
        if (k == n) return;
    }
    write_file(h5_path, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) LLVMFuzzerInitialize(NULL, NULL);
    write_input(data, size);
    sim s;
    char err[2048];
    if (sim_create(&s, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_restart: %s\n", err);
        abort();
    }
    restart_point rp;
    if (restart_from_file(h5_path, -1, cfg.case_text, &s, &rp, err, sizeof err) == 0) {
        for (int k = 0; k < 5; k++) sim_step(&s);
        watchdog_report r;
        watchdog_state st;
        watchdog_start(&st, &s, NULL);
        watchdog_check(&s, &st, true, &r);
        /* the output a restart starts: the carried snapshots, NAME.h5, the .xmf files */
        snapshot_run_info info = {.case_name = cfg.name, .case_text = cfg.case_text, .dt = s.dt,
                                  .walls = &s.walls};
        snapshot_file *out = snapshot_create(out_dir, "out", &info, &rp.carry, err, sizeof err);
        if (out) {
            snapshot_state ss = {.p = &s.p, .pairs = &s.pairs, .wall_pairs = &s.wall_pairs,
                                 .walls = &s.walls, .position_at_rebuild = s.x_at_rebuild,
                                 .engine = &s, .time = s.time, .step = s.step};
            snapshot_write(out, &ss, err, sizeof err);
            snapshot_close(out);
        }
    } else if (!err[0]) {
        fprintf(stderr, "fuzz_restart: a refused file without a message\n");
        abort();
    }
    restart_point_free(&rp);
    sim_free(&s);
    return 0;
}
