/* libFuzzer harness for the case-file reader (io/case/case.c, io/case/yaml_locator.c,
 * io/readers/particle_csv.c, io/case/case_errors.c) and for what `dempact check` does after it:
 * building the simulation (fill, laws, calibration, timestep). Each input is written to
 * a case file in a private temporary folder that also holds two small particle CSVs
 * (p.csv, v.csv), so that `file:` sources reach the CSV reader.
 *
 * Besides crashes, sanitizer reports and leaks, it aborts when the reader breaks its
 * promises: a refused file must leave a message that starts with the file's path and
 * an all-zero config; a loaded one must hold what the rest of the engine relies on.
 *
 * Build and run (tests/fuzz/run_fuzz.sh case SECONDS does both):
 *   CC=clang cmake -S . -B build-fuzz -DDEMPACT_FUZZ=ON -DDEMPACT_SANITIZE=ON \
 *       -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link
 *   cmake --build build-fuzz --target fuzz_case
 *   mkdir -p /tmp/corpus && nice -n 10 build-fuzz/tests/fuzz/fuzz_case /tmp/corpus \
 *       tests/fuzz/seeds/case -dict=tests/fuzz/case.dict -max_len=4096 -timeout=10 \
 *       -max_total_time=1200
 * A crashing input goes into tests/fuzz/regressions/case/; ctest replays every file
 * there and in seeds/case through this same function (fuzz_case_replay, built by the
 * normal compiler with replay_main.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "io/case/case.h"
#include "io/case/case_errors.h"

static char dir[64];
static char case_path[128];

static void remove_dir(void)
{
    static const char *const files[] = {"case.yaml", "p.csv", "v.csv"};
    char path[160];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        unlink(path);
    }
    rmdir(dir);
}

static void write_file(const char *name, const void *data, size_t n)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "fuzz_case: cannot write %s\n", path);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/dempact-fuzz-XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz_case: mkdtemp");
        abort();
    }
    atexit(remove_dir);
    snprintf(case_path, sizeof case_path, "%s/case.yaml", dir);
    static const char p_csv[] = "x,y,z,radius\n0.01,0.01,0.01,0.002\n0.02,0.02,0.02,0.003\n";
    static const char v_csv[] = "vz,x,radius,vy,y,vx,z\n-1,0.1,0.01,0.5,0.2,0.25,0.3\n";
    write_file("p.csv", p_csv, sizeof p_csv - 1);
    write_file("v.csv", v_csv, sizeof v_csv - 1);
    return 0;
}

static void require(int ok, const char *what, const char *detail)
{
    if (ok) return;
    fprintf(stderr, "fuzz_case: broken promise: %s\n%s\n", what, detail ? detail : "");
    abort();
}

/* Particles a source would make, estimated without making them (to keep each input
 * fast: building thousands of particles or a huge fill grid is not what is fuzzed). */
static double source_size(const particle_source *s)
{
    if (s->kind == SOURCE_LIST) return (double)s->n_list;
    double cells = 1.0, lattice = 1.0;
    for (int a = 0; a < 3; a++) {
        double len = s->region_max[a] - s->region_min[a];
        cells *= len / (2.0 * s->radius_max) + 3.0;
        double room = len - 2.0 * s->radius_max;
        lattice *= room < 0 ? 0.0 : floor(room / (2.0 * s->radius_max * (1.0 + s->gap))) + 1.0;
    }
    if (cells > 1e5) return HUGE_VAL;
    if (s->kind == SOURCE_RANDOM) return (double)s->count;
    return s->count > 0 && s->count < lattice ? (double)s->count : lattice;
}

static void build_simulation(const sim_config *cfg)
{
    double total = 0.0;
    for (int k = 0; k < cfg->n_sources; k++) total += source_size(&cfg->sources[k]);
    if (!(total <= 300.0)) return;
    sim s;
    char err[2048];
    int rc = sim_create(&s, cfg, err, sizeof err);
    if (rc == 0) {
        require(s.dt > 0.0 && isfinite(s.dt), "sim_create gave a step that is not > 0", NULL);
        watchdog_report r;
        if (watchdog_check_start(&s, &r) != WATCHDOG_OK) {
            char msg[1024];
            watchdog_format(&r, &s, msg, sizeof msg);
            require(msg[0] != '\0', "an empty watchdog message", NULL);
        }
    } else {
        char located[sizeof err + 512];
        case_locate_error(cfg, err, located, sizeof located);
        require(err[0] != '\0', "sim_create failed without a message", NULL);
        require(strncmp(located, case_path, strlen(case_path)) == 0,
                "a sim_create error does not start with the file's path", located);
    }
    sim_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) LLVMFuzzerInitialize(NULL, NULL);
    write_file("case.yaml", data, size);
    sim_config cfg;
    char err[4096];
    if (case_load(case_path, &cfg, err, sizeof err) != 0) {
        require(err[0] != '\0', "a refused file without a message", NULL);
        require(strncmp(err, case_path, strlen(case_path)) == 0 ||
                    strstr(err, "/p.csv:") || strstr(err, "/v.csv:"),
                "the message does not start with the file's path", err);
        require(!cfg.materials && !cfg.bindings && !cfg.sources && !cfg.walls &&
                    !cfg.case_text && !cfg.case_path,
                "a refused file left allocations in the config", err);
        return 0;
    }
    require(cfg.n_materials >= 1 && cfg.n_bindings >= 1 &&
                (cfg.n_sources >= 1 || cfg.n_inlets >= 1),
            "a loaded case without materials, contacts, or particles or inlets", NULL);
    require(cfg.end_time > 0.0 && cfg.dt >= 0.0 && cfg.name[0] != '\0',
            "a loaded case with end <= 0, step < 0 or no name", NULL);
    for (int a = 0; a < 3; a++)
        require(cfg.domain_min[a] < cfg.domain_max[a], "a loaded case with an empty domain",
                NULL);
    for (int k = 0; k < cfg.n_bindings; k++)
        require(cfg.bindings[k].law != NULL, "a contact without a law", NULL);
    for (int k = 0; k < cfg.n_sources; k++)
        require(cfg.sources[k].radius_min > 0.0 &&
                    cfg.sources[k].radius_min <= cfg.sources[k].radius_max,
                "a source with radius <= 0 or min > max", NULL);
    char located[512];
    case_locate_error(&cfg, "materials[0].density: a message about a key", located,
                      sizeof located);
    build_simulation(&cfg);
    sim_config_free(&cfg);
    return 0;
}
