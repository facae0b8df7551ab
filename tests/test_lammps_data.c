/* LAMMPS data files (io/readers/lammps_data.c) and the bed helpers (engine/population/bed.c): a written
 * file reads back bit for bit; files LAMMPS and LIGGGHTS write (comments, image flags,
 * Masses, atoms in any order) are read; every malformed file is refused with its
 * file and line; the Morton sort keeps every sphere. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/population/bed.h"
#include "engine/population/rng.h"
#include "io/readers/lammps_data.h"

static char dir[256];

static const char *path_of(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static const char *write_text(const char *name, const char *text)
{
    const char *p = path_of(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/dempact_lammps_data_XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- round trip ------------------------------------------------------------------- */

static void test_round_trip(void **state)
{
    lammps_data d, back;
    size_t n = 257;
    assert_int_equal(lammps_data_alloc(&d, n), 0);
    rng g = {42};
    d.n_types = 3;
    double lo[3] = {-0.1, 1.0 / 3.0, 0.0}, hi[3] = {0.25, 2.0 / 3.0, 1e-2};
    memcpy(d.lo, lo, sizeof lo);
    memcpy(d.hi, hi, sizeof hi);
    for (size_t i = 0; i < n; i++) {
        d.id[i] = (int64_t)(3 * (n - i) + 1); /* not in order, not contiguous */
        d.type[i] = (int32_t)(1 + i % 3);
        d.diameter[i] = 1e-3 * (1.0 + rng_uniform(&g));
        d.density[i] = 2500.0 + 1.0 / 3.0 * (double)i;
        for (int a = 0; a < 3; a++) {
            d.x[3 * i + a] = rng_range(&g, lo[a], hi[a]);
            d.v[3 * i + a] = rng_range(&g, -1.0, 1.0) * pow(10.0, -(double)(i % 20));
            d.omega[3 * i + a] = rng_range(&g, -1e3, 1e3);
        }
    }
    d.x[0] = lo[0]; /* on the faces */
    d.x[4] = hi[1];
    d.v[5] = -0.0;
    d.v[6] = 4.9e-324; /* the smallest denormal */
    d.has_velocities = 1;
    char err[512];
    assert_int_equal(lammps_data_write(path_of("round.data"), &d, "a title\nwith a newline", err, sizeof err), 0);
    assert_int_equal(lammps_data_read(path_of("round.data"), &back, err, sizeof err), 0);
    assert_int_equal(back.n, n);
    assert_int_equal(back.n_types, 3);
    assert_int_equal(back.has_velocities, 1);
    assert_memory_equal(back.lo, d.lo, sizeof d.lo);
    assert_memory_equal(back.hi, d.hi, sizeof d.hi);
    assert_memory_equal(back.id, d.id, n * sizeof *d.id);
    assert_memory_equal(back.type, d.type, n * sizeof *d.type);
    assert_memory_equal(back.diameter, d.diameter, n * sizeof *d.diameter);
    assert_memory_equal(back.density, d.density, n * sizeof *d.density);
    assert_memory_equal(back.x, d.x, 3 * n * sizeof *d.x);
    for (size_t k = 0; k < 3 * n; k++) { /* -0.0 reads back as -0.0: compare bits */
        assert_memory_equal(&back.v[k], &d.v[k], sizeof(double));
        assert_memory_equal(&back.omega[k], &d.omega[k], sizeof(double));
    }
    lammps_data_free(&back);

    /* without velocities: none written, zeros read */
    d.has_velocities = 0;
    assert_int_equal(lammps_data_write(path_of("round2.data"), &d, NULL, err, sizeof err), 0);
    assert_int_equal(lammps_data_read(path_of("round2.data"), &back, err, sizeof err), 0);
    assert_int_equal(back.has_velocities, 0);
    for (size_t k = 0; k < 3 * n; k++) assert_true(back.v[k] == 0.0 && back.omega[k] == 0.0);
    lammps_data_free(&back);
    lammps_data_free(&d);
    /* the temporary file is gone */
    assert_int_equal(access(path_of("round2.data.tmp"), F_OK), -1);
}

/* What LAMMPS's write_data and hand-made files look like. */
static void test_reads_lammps_style(void **state)
{
    const char *p = write_text("lammps.data",
        "LAMMPS data file via write_data, version 29 Sep 2021, timestep = 0\n"
        "\n"
        "3 atoms\n"
        "1 atom types\n"
        "0 bonds   # a comment\n"
        "0 bond types\n"
        "\n"
        "0 0.01 xlo xhi\n"
        "0 0.01 ylo yhi\n"
        "0 0.02 zlo zhi\n"
        "\n"
        "Masses\n"
        "\n"
        "1 1.0\n"
        "\n"
        "Atoms # sphere\n"
        "\n"
        "3 1 0.002 2500 0.001 0.002 0.003 0 0 0\n"
        "1 1 0.002 2500 0.004 0.005 0.006 1 -1 0\n"
        "2 1 0.002 2500 0.007 0.008 0.009 # trailing comment\n"
        "\n"
        "Velocities\n"
        "\n"
        "1 1 2 3 4 5 6\n"
        "2 0 0 0 0 0 0\n"
        "3 -1 -2 -3 0 0 0\n");
    lammps_data d;
    char err[512] = "";
    assert_int_equal(lammps_data_read(p, &d, err, sizeof err), 0);
    assert_int_equal(d.n, 3);
    assert_int_equal(d.id[0], 3);
    assert_true(d.x[3] == 0.004 && d.x[8] == 0.009);
    /* velocities go by ID, not by line */
    assert_true(d.v[3] == 1.0 && d.omega[5] == 6.0);
    assert_true(d.v[0] == -1.0 && d.v[2] == -3.0);
    lammps_data_free(&d);
}

/* ---- malformed files: refused with file and line ---------------------------------------- */

#define HEADER "title\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\n"

static void expect_refusal(const char *name, const char *text, int line, const char *phrase)
{
    const char *p = write_text(name, text);
    lammps_data d;
    char err[512] = "", want[600];
    int rc = lammps_data_read(p, &d, err, sizeof err);
    if (rc == 0) fail_msg("%s was accepted", name);
    if (line > 0) snprintf(want, sizeof want, "%s:%d: ", p, line);
    else snprintf(want, sizeof want, "%s: ", p);
    if (strncmp(err, want, strlen(want)) != 0) fail_msg("%s: message '%s' does not start with '%s'", name, err, want);
    if (!strstr(err, phrase)) fail_msg("%s: message '%s' lacks '%s'", name, err, phrase);
    /* nothing allocated is handed back */
    assert_null(d.x);
}

static void test_refusals(void **state)
{
    expect_refusal("empty.data", "", 0, "empty file");
    expect_refusal("no_atoms.data", "t\n\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\nAtoms\n\n", 8, "no 'N atoms' line");
    expect_refusal("no_box.data", "t\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n\nAtoms\n\n", 8, "zlo zhi");
    expect_refusal("bad_box.data", "t\n\n2 atoms\n1 atom types\n1 0 xlo xhi\n", 5, "need xlo < xhi");
    expect_refusal("tilted.data", "t\n\n2 atoms\n1 atom types\n0 0 0 xy xz yz\n", 5, "tilted");
    expect_refusal("bonds.data", "t\n\n2 atoms\n3 bonds\n", 4, "spheres only");
    expect_refusal("header_typo.data", "t\n\n2 atomz\n", 3, "unknown header line");
    expect_refusal("header_number.data", "t\n\n2.5 atoms\n", 3, "not a whole number");
    expect_refusal("fields.data", HEADER "Atoms # sphere\n\n1 1 0.002 2500 0.5 0.5\n", 11, "has 6 fields");
    expect_refusal("style.data", HEADER "Atoms # atomic\n\n1 1 0.5 0.5 0.5\n", 9, "atom style 'atomic'");
    expect_refusal("number.data", HEADER "Atoms\n\n1 1 0.002 2500 0.5 0.5 0.5\n2 1 0.00x2 2500 0.5 0.5 0.5\n", 12, "diameter: '0.00x2'");
    expect_refusal("nan.data", HEADER "Atoms\n\n1 1 0.002 nan 0.5 0.5 0.5\n", 11, "not a finite number");
    expect_refusal("overflow.data", HEADER "Atoms\n\n1 1 0.002 1e999 0.5 0.5 0.5\n", 11, "density: '1e999'");
    expect_refusal("type.data", HEADER "Atoms\n\n1 2 0.002 2500 0.5 0.5 0.5\n", 11, "atom type 2 is not in 1..1");
    expect_refusal("diameter.data", HEADER "Atoms\n\n1 1 -0.002 2500 0.5 0.5 0.5\n", 11, "must be > 0");
    expect_refusal("outside.data", HEADER "Atoms\n\n1 1 0.002 2500 0.5 1.5 0.5\n", 11, "y = 1.5 is outside the box");
    expect_refusal("duplicate.data", HEADER "Atoms\n\n7 1 0.002 2500 0.5 0.5 0.5\n\n7 1 0.002 2500 0.5 0.5 0.5\n", 13, "atom ID 7 appears twice in the Atoms section (first on line 11)");
    expect_refusal("short.data", HEADER "Atoms\n\n1 1 0.002 2500 0.5 0.5 0.5\n", 11, "ends inside the Atoms section (1 of 2 atoms)");
    expect_refusal("long.data", HEADER "Atoms\n\n1 1 0.002 2500 0.5 0.5 0.5\n2 1 0.002 2500 0.5 0.5 0.5\n3 1 0.002 2500 0.5 0.5 0.5\n", 13, "more lines than the header's count");
    expect_refusal("section.data", HEADER "Bonds\n\n1 1 1 2\n", 9, "section 'Bonds' is not supported");
    expect_refusal("velocity_id.data", HEADER "Atoms\n\n1 1 0.002 2500 0.5 0.5 0.5\n2 1 0.002 2500 0.5 0.5 0.5\n\nVelocities\n\n1 0 0 0 0 0 0\n9 0 0 0 0 0 0\n", 17, "velocity of atom 9");
    expect_refusal("velocity_fields.data", HEADER "Atoms\n\n1 1 0.002 2500 0.5 0.5 0.5\n2 1 0.002 2500 0.5 0.5 0.5\n\nVelocities\n\n1 0 0 0\n", 16, "has 4 fields");
    expect_refusal("no_atoms_section.data", HEADER "Masses\n\n1 1.0\n", 11, "no Atoms section");

    /* hostile files: counts the file cannot hold, boxes and sizes out of range, encodings */
    expect_refusal("count.data", "t\n\n100000 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n"
                   "0 1 zlo zhi\n\nAtoms\n\n1 1 0.002 2500 0.5 0.5 0.5\n", 9,
                   "the header says 100000 atoms, but a file of 100 bytes holds at most 7");
    expect_refusal("far_box.data", "t\n\n2 atoms\n1 atom types\n0 1e300 xlo xhi\n", 5,
                   "reaches beyond +-1e+09 m");
    expect_refusal("wide.data", HEADER "Atoms\n\n1 1 2 2500 0.5 0.5 0.5\n", 11,
                   "diameter 2 is larger than the box's widest side 1");
    expect_refusal("utf16.data", "\xff\xfet\n", 0, "the file is UTF-16 (little-endian");

    lammps_data d;
    char err[512];
    assert_int_equal(lammps_data_read(path_of("missing.data"), &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "missing.data: cannot open"));
}

/* The packing `dempact bench --load` starts from: two spheres of diameter 0.2 m with
 * centres 0.05 m apart overlap by 0.15 m = 1.5 radii (refused, both named), 0.16 m apart
 * by 0.04 m = 0.4 radii (accepted); two spheres of diameter 0.8 m in a 1 x 1 x 0.5 m box
 * fill 2 (pi / 6) 0.8^3 / 0.5 = 1.0723 of it (refused) though they overlap by only 0.23
 * radii. */
static void test_packing(void **state)
{
    lammps_data d;
    char err[512];
    const char *p = write_text("pair.data", HEADER "Atoms\n\n4 1 0.2 2500 0.5 0.5 0.5\n"
                                             "9 1 0.2 2500 0.55 0.5 0.5\n");
    assert_int_equal(lammps_data_read(p, &d, err, sizeof err), 0);
    assert_int_equal(lammps_data_check_packing(&d, 0.5, NULL, p, err, sizeof err), -1);
    assert_non_null(strstr(err, "atom 9 at (0.55, 0.5, 0.5) overlaps atom 4 at (0.5, 0.5, 0.5) "
                            "by 0.15 m = 1.5 of the smaller radius"));
    d.x[3] = 0.66;
    assert_int_equal(lammps_data_check_packing(&d, 0.5, NULL, p, err, sizeof err), 0);
    lammps_data_free(&d);
    p = write_text("full.data", "t\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n"
                   "0 0.5 zlo zhi\n\nAtoms\n\n1 1 0.8 2500 0.25 0.25 0.25\n"
                   "2 1 0.8 2500 0.75 0.75 0.25\n");
    assert_int_equal(lammps_data_read(p, &d, err, sizeof err), 0);
    assert_int_equal(lammps_data_check_packing(&d, 0.5, NULL, p, err, sizeof err), -1);
    assert_non_null(strstr(err, "(solid fraction 1.07 > 1)"));
    lammps_data_free(&d);
}

static void test_write_error(void **state)
{
    lammps_data d;
    assert_int_equal(lammps_data_alloc(&d, 1), 0);
    char err[512] = "";
    assert_int_equal(lammps_data_write("/nonexistent_dir/x.data", &d, "t", err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent_dir/x.data"));
    lammps_data_free(&d);
}

/* ---- the bed helpers ------------------------------------------------------------------------ */

static void test_bed_sort_and_wrap(void **state)
{
    bed b;
    size_t n = 1000;
    assert_int_equal(bed_alloc(&b, n), 0);
    b.hi[0] = b.hi[1] = 0.01;
    b.hi[2] = 0.02;
    rng g = {7};
    double sum[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) b.x[3 * i + a] = rng_range(&g, -0.005, 0.015);
        b.x[3 * i + 2] = rng_range(&g, 0.0, 0.02);
        b.v[3 * i] = (double)i; /* a label that follows the sphere */
        b.radius[i] = 1e-4 * (1.0 + (double)i / n);
    }
    bed_wrap(&b);
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 2; a++) assert_true(b.x[3 * i + a] >= 0.0 && b.x[3 * i + a] < 0.01);
        for (int a = 0; a < 3; a++) sum[a] += b.x[3 * i + a];
    }
    double before_label = 0;
    for (size_t i = 0; i < n; i++) before_label += b.v[3 * i];
    assert_int_equal(bed_sort(&b, 0.002), 0);
    double after[3] = {0, 0, 0}, after_label = 0;
    int *seen = calloc(n, sizeof *seen);
    for (size_t i = 0; i < n; i++) {
        size_t label = (size_t)b.v[3 * i];
        assert_true(label < n && !seen[label]);
        seen[label] = 1;
        /* radius moved with its sphere */
        assert_true(b.radius[i] == 1e-4 * (1.0 + (double)label / n));
        for (int a = 0; a < 3; a++) after[a] += b.x[3 * i + a];
        after_label += b.v[3 * i];
    }
    free(seen);
    assert_true(after_label == before_label);
    for (int a = 0; a < 3; a++) assert_true(fabs(after[a] - sum[a]) < 1e-12);
    /* consecutive spheres are mostly neighbours: the mean step along the curve is a few cells */
    double step = 0;
    for (size_t i = 1; i < n; i++) {
        double d2 = 0;
        for (int a = 0; a < 3; a++) d2 += pow(b.x[3 * i + a] - b.x[3 * i - 3 + a], 2);
        step += sqrt(d2);
    }
    assert_true(step / (n - 1) < 0.004);
    bed_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_reads_lammps_style),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_packing),
        cmocka_unit_test(test_write_error),
        cmocka_unit_test(test_bed_sort_and_wrap),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
