/* libFuzzer harness for the particle CSV reader (io/readers/particle_csv.c) and the overlap check
 * the case reader runs on what it read (io/readers/overlap_check.c). Promises: a refused file
 * leaves a message starting with its path and no arrays; a read one holds at least one
 * particle, every number finite, every radius > 0, velocity and spin arrays exactly
 * when their columns are there; the overlap check ends and names a pair that does
 * overlap beyond the limit. Run with tests/fuzz/run_fuzz.sh csv SECONDS; ctest replays
 * regressions/csv and seeds/csv through this same function (fuzz_csv_regressions). */
#include <math.h>
#include <stdint.h>

#include "fuzz_file.h"
#include "io/readers/overlap_check.h"
#include "io/readers/particle_csv.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup("p.csv");
    return 0;
}

static int all_finite(const double *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!isfinite(v[k])) return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup("p.csv");
    fuzz_write(data, size);
    particle_source src = {0};
    char err[1024];
    if (particle_csv_read(fuzz_path, &src, err, sizeof err) != 0) {
        fuzz_require_named(err);
        fuzz_require(!src.list_position && !src.list_radius && !src.list_velocity &&
                         !src.list_angular_velocity && src.n_list == 0,
                     "a refused file left arrays", err);
        return 0;
    }
    size_t n = (size_t)src.n_list;
    fuzz_require(src.n_list >= 1 && src.list_position && src.list_radius,
                 "a read file without particles", NULL);
    fuzz_require(all_finite(src.list_position, 3 * n) && all_finite(src.list_radius, n),
                 "a position or radius that is not finite", NULL);
    for (size_t i = 0; i < n; i++)
        fuzz_require(src.list_radius[i] > 0.0, "a radius <= 0", NULL);
    fuzz_require(!src.list_velocity || all_finite(src.list_velocity, 3 * n),
                 "a velocity that is not finite", NULL);
    fuzz_require(!src.list_angular_velocity || all_finite(src.list_angular_velocity, 3 * n),
                 "an angular velocity that is not finite", NULL);
    overlap_found o;
    int rc = overlap_check(src.list_position, src.list_radius, n, 0.5, NULL, &o);
    fuzz_require(rc == 0 || rc == 1, "the overlap check failed", NULL);
    if (rc == 1) {
        fuzz_require(o.first < o.second && o.second < n, "an overlap of particles not in the file",
                     NULL);
        const double *a = src.list_position + 3 * o.first, *b = src.list_position + 3 * o.second;
        double d = src.list_radius[o.first] + src.list_radius[o.second] -
                   sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                        (a[2] - b[2]) * (a[2] - b[2]));
        fuzz_require(d > 0.5 * fmin(src.list_radius[o.first], src.list_radius[o.second]),
                     "an overlap named that is within the limit", NULL);
    }
    free(src.list_position);
    free(src.list_radius);
    free(src.list_velocity);
    free(src.list_angular_velocity);
    return 0;
}
