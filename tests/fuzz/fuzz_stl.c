/* libFuzzer harness for the STL reader (io/readers/stl.c), ASCII and binary. Promises: a refused
 * file leaves a message starting with its path and no triangles; a read one has at least
 * one triangle, every coordinate finite. Run with tests/fuzz/run_fuzz.sh stl SECONDS;
 * ctest replays regressions/stl and seeds/stl (fuzz_stl_regressions). */
#include <math.h>
#include <stdint.h>

#include "fuzz_file.h"
#include "io/readers/stl.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup("wall.stl");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup("wall.stl");
    fuzz_write(data, size);
    double *tri = NULL;
    long n = -1;
    char err[1024];
    if (stl_read(fuzz_path, &tri, &n, err, sizeof err) != 0) {
        fuzz_require_named(err);
        fuzz_require(tri == NULL && n == 0, "a refused file left triangles", err);
        return 0;
    }
    fuzz_require(n >= 1 && tri != NULL, "a read file without triangles", NULL);
    for (long k = 0; k < 9 * n; k++)
        fuzz_require(isfinite(tri[k]), "a coordinate that is not finite", NULL);
    free(tri);
    return 0;
}
