/* libFuzzer harness for the LAMMPS data reader (io/readers/lammps_data.c) and the packing check
 * `dempact bench --load` runs after it. Promises: a refused file leaves a message
 * starting with its path; a read one has atoms with IDs >= 1, types within the header's,
 * diameters and densities > 0 and no wider than the box, every number finite and every
 * position in the box (within its 1e-9 slack); the packing check ends with 0 or a
 * message naming the file. Run with tests/fuzz/run_fuzz.sh lammps SECONDS; ctest replays
 * regressions/lammps and seeds/lammps (fuzz_lammps_regressions). */
#include <math.h>
#include <stdint.h>

#include "fuzz_file.h"
#include "io/readers/lammps_data.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup("bed.data");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup("bed.data");
    fuzz_write(data, size);
    lammps_data d;
    char err[1024];
    if (lammps_data_read(fuzz_path, &d, err, sizeof err) != 0) {
        fuzz_require_named(err);
        return 0;
    }
    fuzz_require(d.n >= 1 && d.n_types >= 1, "a read file without atoms or types", NULL);
    for (int a = 0; a < 3; a++)
        fuzz_require(d.lo[a] < d.hi[a] && isfinite(d.hi[a] - d.lo[a]), "a box side that is empty "
                     "or not finite", NULL);
    for (size_t i = 0; i < d.n; i++) {
        fuzz_require(d.id[i] >= 1 && d.type[i] >= 1 && d.type[i] <= d.n_types,
                     "an atom ID < 1 or a type out of range", NULL);
        fuzz_require(d.diameter[i] > 0.0 && isfinite(d.diameter[i]) && d.density[i] > 0.0 &&
                         isfinite(d.density[i]),
                     "a diameter or density that is not a positive number", NULL);
        for (int a = 0; a < 3; a++) {
            double slack = 1e-9 * (d.hi[a] - d.lo[a]);
            fuzz_require(d.x[3 * i + a] >= d.lo[a] - slack && d.x[3 * i + a] <= d.hi[a] + slack,
                         "an atom outside the box", NULL);
            fuzz_require(isfinite(d.v[3 * i + a]) && isfinite(d.omega[3 * i + a]),
                         "a velocity that is not finite", NULL);
        }
    }
    if (lammps_data_check_packing(&d, 0.5, NULL, fuzz_path, err, sizeof err) != 0)
        fuzz_require_named(err);
    lammps_data_free(&d);
    return 0;
}
