/* libFuzzer harness for the HDF5 restart reader (io/restart.c): each input is written
 * as an .h5 file and restored, with restart_from_file(), into a simulation built from
 * tests/fuzz/restart_case.yaml (the path comes from the build: RESTART_CASE). A restored
 * simulation then takes a few steps and meets the watchdog. Seeds (seeds/restart) are
 * files `dempact run` wrote for that case; the mutations mostly break HDF5's own
 * structures (HDF5 refuses them) and sometimes reach the values the reader must check.
 *
 *   cmake --build build-fuzz --target fuzz_restart   (configured as in fuzz_case.c)
 *   nice -n 10 build-fuzz/tests/fuzz/fuzz_restart CORPUS tests/fuzz/seeds/restart \
 *       -max_len=200000 -timeout=20 -max_total_time=600 */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/sim.h"
#include "engine/watchdog.h"
#include "io/case.h"
#include "io/restart.h"

#ifndef RESTART_CASE
#define RESTART_CASE "tests/fuzz/restart_case.yaml"
#endif

static char dir[64], h5_path[128];
static sim_config cfg;

static void cleanup(void)
{
    char path[160];
    unlink(h5_path);
    snprintf(path, sizeof path, "%s.journal", h5_path);
    unlink(path);
    rmdir(dir);
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
    snprintf(h5_path, sizeof h5_path, "%s/run.h5", dir);
    atexit(cleanup);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* HDF5's own error stacks are not findings */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) LLVMFuzzerInitialize(NULL, NULL);
    FILE *f = fopen(h5_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
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
    } else if (!err[0]) {
        fprintf(stderr, "fuzz_restart: a refused file without a message\n");
        abort();
    }
    sim_free(&s);
    return 0;
}
