/* Walls shaped like equipment, moving walls and wall loads (engine/walls/walls.c,
 * engine/walls/wall_shapes.c, engine/walls/wall_mesh.c, io/readers/stl.c, the walls of io/case/case.c):
 * distances against independent geometry (brute-force searches over the surfaces, the
 * distance to a box), one contact per sphere on shared STL edges, a sphere settling on a
 * tilted STL plane at the Hertz overlap, a drum carrying a particle round, a piston
 * launching a sphere at twice its speed, the load on a floor equal to the bed's weight,
 * the torque balance of a bed in a box, and bit-identical wall loads for 1 and 2
 * threads. */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/population/rng.h"
#include "engine/sim.h"
#include "engine/checks/timestep.h"
#include "engine/walls/walls.h"
#include "io/case/case.h"
#include "io/case/case_errors.h"
#include "io/readers/stl.h"

#define G 9.81

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double norm3(const double a[3])
{
    return sqrt(dot3(a, a));
}

/* ---- cylinders and cones against a brute-force search over the surface ------------- */

/* The point of the frustum's surface at axial s and angle phi. */
static void frustum_point(const wall_spec *w, const double e1[3], const double e2[3], double s,
                          double phi, double out[3])
{
    double r = w->radii[0] + (w->radii[1] - w->radii[0]) * s / w->length;
    for (int a = 0; a < 3; a++)
        out[a] = w->point[a] + s * w->axis[a] + r * (cos(phi) * e1[a] + sin(phi) * e2[a]);
}

/* Unsigned distance from c to the frustum's surface: a 200 x 360 grid over (s, phi),
 * then five rounds of a 21 x 21 grid around the best point, each 10 times finer. */
static double brute_frustum_distance(const wall_spec *w, const double c[3])
{
    double e1[3], e2[3], tmp[3] = {1, 0, 0};
    if (fabs(w->axis[0]) > 0.9) tmp[0] = 0, tmp[1] = 1;
    e1[0] = w->axis[1] * tmp[2] - w->axis[2] * tmp[1];
    e1[1] = w->axis[2] * tmp[0] - w->axis[0] * tmp[2];
    e1[2] = w->axis[0] * tmp[1] - w->axis[1] * tmp[0];
    double l = norm3(e1);
    for (int a = 0; a < 3; a++) e1[a] /= l;
    e2[0] = w->axis[1] * e1[2] - w->axis[2] * e1[1];
    e2[1] = w->axis[2] * e1[0] - w->axis[0] * e1[2];
    e2[2] = w->axis[0] * e1[1] - w->axis[1] * e1[0];
    double best = HUGE_VAL, bs = 0, bp = 0, hs = w->length / 199.0, hp = 2 * M_PI / 360.0;
    for (int i = 0; i < 200; i++)
        for (int k = 0; k < 360; k++) {
            double q[3], s = i * hs, phi = k * hp;
            frustum_point(w, e1, e2, s, phi, q);
            double d[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]}, dist = norm3(d);
            if (dist < best) best = dist, bs = s, bp = phi;
        }
    for (int round = 0; round < 5; round++) {
        double s0 = bs, p0 = bp;
        for (int i = -10; i <= 10; i++)
            for (int k = -10; k <= 10; k++) {
                double s = fmin(w->length, fmax(0.0, s0 + i * hs / 5.0)), phi = p0 + k * hp / 5.0;
                double q[3];
                frustum_point(w, e1, e2, s, phi, q);
                double d[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]}, dist = norm3(d);
                if (dist < best) best = dist, bs = s, bp = phi;
            }
        hs /= 10.0;
        hp /= 10.0;
    }
    return best;
}

/* Random points around the frustum: |distance| matches the brute force, the touching
 * point c + d n lies on the surface, and d < 0 only on the wrong side. (Where the foot
 * of the perpendicular falls on the surface the distance is signed; past the open ends
 * it is the unsigned distance to the rim.) */
static void check_frustum_against_brute_force(const wall_spec *w, uint64_t seed, int n_points)
{
    rng r = {seed};
    double size = w->length + fmax(w->radii[0], w->radii[1]);
    double worst = 0.0;
    for (int k = 0; k < n_points; k++) {
        double c[3], n[3];
        for (int a = 0; a < 3; a++) c[a] = w->point[a] + rng_range(&r, -1.0, 1.0) * size;
        double d = wall_distance(w, c, n);
        double brute = brute_frustum_distance(w, c);
        worst = fmax(worst, fabs(fabs(d) - brute));
        assert_true(fabs(fabs(d) - brute) < 1e-9 * size);
        assert_true(fabs(norm3(n) - 1.0) < 1e-12);
        double q[3], rel[3];
        for (int a = 0; a < 3; a++) q[a] = c[a] + d * n[a];
        for (int a = 0; a < 3; a++) rel[a] = q[a] - w->point[a];
        double s = dot3(rel, w->axis), perp[3];
        for (int a = 0; a < 3; a++) perp[a] = rel[a] - s * w->axis[a];
        double r_wall = w->radii[0] + (w->radii[1] - w->radii[0]) * s / w->length;
        assert_true(s > -1e-12 * size && s < w->length * (1 + 1e-12));
        assert_true(fabs(norm3(perp) - r_wall) < 1e-12 * size);
        if (d < 0.0) { /* the centre is on the wrong side of the surface (its meridian
                          line extended past the ends) */
            for (int a = 0; a < 3; a++) rel[a] = c[a] - w->point[a];
            double sc = dot3(rel, w->axis);
            for (int a = 0; a < 3; a++) perp[a] = rel[a] - sc * w->axis[a];
            double rc = w->radii[0] + (w->radii[1] - w->radii[0]) * sc / w->length;
            if (w->side == WALL_SIDE_INNER) assert_true(norm3(perp) > rc);
            else assert_true(norm3(perp) < rc);
        }
    }
    print_message("%d points: largest difference from the brute-force distance %.2e m\n",
                  n_points, worst);
}

static void cylinder_distances(void **state)
{
    wall_spec cyl = {.kind = WALL_CYLINDER, .point = {0, 0, 0}, .axis = {0, 0, 1},
                     .radii = {1, 1}, .length = 2, .side = WALL_SIDE_INNER};
    double n[3];
    double inside[3] = {0.3, 0.4, 1.0}; /* r = 0.5 */
    assert_true(fabs(wall_distance(&cyl, inside, n) - 0.5) < 1e-15);
    assert_true(fabs(n[0] - 0.6) < 1e-15 && fabs(n[1] - 0.8) < 1e-15 && n[2] == 0.0);
    double outside[3] = {1.5, 0, 1}; /* escaped through the drum: pushed back in */
    assert_true(fabs(wall_distance(&cyl, outside, n) + 0.5) < 1e-15 && n[0] == 1.0);
    double beyond[3] = {0.5, 0, 2.3}; /* past the open end: the rim (1, 0, 2) */
    double rim = sqrt(0.25 + 0.09);
    assert_true(fabs(wall_distance(&cyl, beyond, n) - rim) < 1e-15);
    assert_true(fabs(n[0] - 0.5 / rim) < 1e-15 && fabs(n[2] + 0.3 / rim) < 1e-15);
    wall_spec pillar = cyl;
    pillar.side = WALL_SIDE_OUTER;
    double out[3] = {2, 0, 1};
    assert_true(fabs(wall_distance(&pillar, out, n) - 1.0) < 1e-15 && n[0] == -1.0);
    assert_true(fabs(wall_distance(&pillar, inside, n) + 0.5) < 1e-15);
    /* a tilted drum with its end away from the origin */
    wall_spec tilted = {.kind = WALL_CYLINDER, .point = {0.2, -0.1, 0.3},
                        .axis = {1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)},
                        .radii = {0.4, 0.4}, .length = 1.2, .side = WALL_SIDE_INNER};
    check_frustum_against_brute_force(&tilted, 11, 60);
    tilted.side = WALL_SIDE_OUTER;
    check_frustum_against_brute_force(&tilted, 12, 30);
}

static void cone_distances(void **state)
{
    /* radius 0.5 at z = 0 to 1.5 at z = 2: the half angle a has tan a = 1/2 */
    wall_spec cone = {.kind = WALL_CONE, .point = {0, 0, 0}, .axis = {0, 0, 1},
                      .radii = {0.5, 1.5}, .length = 2, .side = WALL_SIDE_INNER};
    double n[3], ca = 2 / sqrt(5.0), sa = 1 / sqrt(5.0);
    for (int k = 0; k <= 4; k++) {
        double h = 0.25 + 0.375 * k, r = 0.5 + 0.5 * h;
        double on_axis[3] = {0, 0, h}; /* r cos a from the surface, normal (cos a e, -sin a) */
        assert_true(fabs(wall_distance(&cone, on_axis, n) - r * ca) < 1e-14);
        assert_true(fabs(n[2] + sa) < 1e-14 && fabs(hypot(n[0], n[1]) - ca) < 1e-14);
        double on_surface[3] = {r * cos(k), r * sin(k), h};
        assert_true(fabs(wall_distance(&cone, on_surface, n)) < 1e-14);
        double in[3] = {on_surface[0] - 0.1 * ca * cos(k), on_surface[1] - 0.1 * ca * sin(k),
                        h + 0.1 * sa}; /* 0.1 inside along the surface normal */
        assert_true(fabs(wall_distance(&cone, in, n) - 0.1) < 1e-14);
    }
    /* a full cone (apex) pointing down, as a hopper's bottom */
    wall_spec hopper = {.kind = WALL_CONE, .point = {0.1, 0.2, -0.3}, .axis = {0, 0.6, 0.8},
                        .radii = {0.0, 0.8}, .length = 1.0, .side = WALL_SIDE_INNER};
    check_frustum_against_brute_force(&hopper, 21, 60);
    hopper.radii[0] = 0.3;
    hopper.side = WALL_SIDE_OUTER;
    check_frustum_against_brute_force(&hopper, 22, 30);
}

/* ---- STL: the unit cube ------------------------------------------------------------- */

static const double cube[12][9] = {
    {0, 0, 0, 1, 1, 0, 1, 0, 0}, {0, 0, 0, 0, 1, 0, 1, 1, 0},  /* z = 0 */
    {0, 0, 1, 1, 0, 1, 1, 1, 1}, {0, 0, 1, 1, 1, 1, 0, 1, 1},  /* z = 1 */
    {0, 0, 0, 1, 0, 0, 1, 0, 1}, {0, 0, 0, 1, 0, 1, 0, 0, 1},  /* y = 0 */
    {0, 1, 0, 0, 1, 1, 1, 1, 1}, {0, 1, 0, 1, 1, 1, 1, 1, 0},  /* y = 1 */
    {0, 0, 0, 0, 0, 1, 0, 1, 1}, {0, 0, 0, 0, 1, 1, 0, 1, 0},  /* x = 0 */
    {1, 0, 0, 1, 1, 0, 1, 1, 1}, {1, 0, 0, 1, 1, 1, 1, 0, 1},  /* x = 1 */
};

static char tmp_dir[64];

static const char *tmp_file(const char *name)
{
    static char path[4][128];
    static int k;
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/dempact_walls_XXXXXX");
        assert_non_null(mkdtemp(tmp_dir));
    }
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", tmp_dir, name);
    return path[k];
}

static void write_ascii_stl(const char *path, const double (*t)[9], int n, const char *typo)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "solid cube\n");
    for (int k = 0; k < n; k++) {
        fprintf(f, "  facet normal 0 0 0\n    outer loop\n");
        for (int v = 0; v < 3; v++)
            fprintf(f, "      %s %.17g %.17g %.17g\n", k == 1 && v == 2 && typo ? typo : "vertex",
                    t[k][3 * v], t[k][3 * v + 1], t[k][3 * v + 2]);
        fprintf(f, "    endloop\n  endfacet\n");
    }
    fprintf(f, "endsolid cube\n");
    fclose(f);
}

static void put_le32(unsigned char *b, uint32_t u)
{
    for (int k = 0; k < 4; k++) b[k] = (unsigned char)(u >> (8 * k));
}

/* A binary STL (the header starts with "solid", as some exporters write); `missing`
 * bytes are cut off the end. */
static void write_binary_stl(const char *path, const double (*t)[9], int n, int missing)
{
    size_t len = 84 + 50 * (size_t)n;
    unsigned char *b = calloc(len, 1);
    memcpy(b, "solid cube, binary", 18);
    put_le32(b + 80, (uint32_t)n);
    for (int k = 0; k < n; k++)
        for (int q = 0; q < 9; q++) {
            float x = (float)t[k][q];
            uint32_t u;
            memcpy(&u, &x, 4);
            put_le32(b + 84 + 50 * k + 12 + 4 * q, u);
        }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(b, 1, len - (size_t)missing, f);
    fclose(f);
    free(b);
}

/* A wall set of one STL wall over the given triangles (at rest). */
static void mesh_walls(wall_set *ws, wall_spec *w, double *tri, long n)
{
    *w = (wall_spec){.kind = WALL_STL, .mesh = tri, .n_triangles = n};
    char err[256];
    if (walls_init(ws, w, 1, err, sizeof err) != 0) fail_msg("%s", err);
}

static int contacts_at(const wall_set *ws, double x, double y, double z, double reach,
                       wall_contact *out)
{
    double c[3] = {x, y, z};
    return walls_mesh_contacts(ws, 0, c, reach, out, WALL_MAX_SLOTS);
}

static void stl_cube_ascii_and_binary(void **state)
{
    const char *ascii = tmp_file("cube_ascii.stl"), *binary = tmp_file("cube_binary.stl");
    write_ascii_stl(ascii, cube, 12, NULL);
    write_binary_stl(binary, cube, 12, 0);
    double *ta, *tb;
    long na, nb;
    char err[512];
    if (stl_read(ascii, &ta, &na, err, sizeof err) != 0) fail_msg("%s", err);
    if (stl_read(binary, &tb, &nb, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(na, 12);
    assert_int_equal(nb, 12);
    assert_memory_equal(ta, cube, sizeof cube);
    assert_memory_equal(tb, cube, sizeof cube);
    free(tb);

    wall_set ws;
    wall_spec w;
    mesh_walls(&ws, &w, ta, na);
    wall_contact c[WALL_MAX_SLOTS];
    /* over a face, and over the diagonal two of its triangles share */
    assert_int_equal(contacts_at(&ws, 0.5, 0.3, 1.2, 0.5, c), 1);
    assert_true(fabs(c[0].distance - 0.2) < 1e-15 && c[0].n[2] == -1.0);
    assert_int_equal(contacts_at(&ws, 0.5, 0.5, 1.2, 0.5, c), 1);
    assert_true(fabs(c[0].distance - 0.2) < 1e-15 && c[0].n[2] == -1.0);
    /* past an edge: the edge (x = 1, z = 1), shared by four triangles */
    assert_int_equal(contacts_at(&ws, 1.3, 0.5, 1.4, 0.6, c), 1);
    assert_true(fabs(c[0].distance - 0.5) < 1e-15);
    assert_true(fabs(c[0].n[0] + 0.6) < 1e-15 && fabs(c[0].n[2] + 0.8) < 1e-15);
    /* past a corner: the vertex (1, 1, 1), shared by five triangles */
    assert_int_equal(contacts_at(&ws, 1.2, 1.3, 1.6, 0.8, c), 1);
    assert_true(fabs(c[0].distance - sqrt(0.49)) < 1e-15);
    /* inside, in a corner: one contact per face within reach, the closest first */
    assert_int_equal(contacts_at(&ws, 0.1, 0.2, 0.3, 0.35, c), 3);
    assert_true(fabs(c[0].distance - 0.1) < 1e-15 && c[0].n[0] == -1.0);
    assert_true(fabs(c[1].distance - 0.2) < 1e-15 && c[1].n[1] == -1.0);
    assert_true(fabs(c[2].distance - 0.3) < 1e-15 && c[2].n[2] == -1.0);
    assert_int_equal(contacts_at(&ws, 0.1, 0.2, 0.3, 0.25, c), 2);
    /* outside a convex body a sphere touches exactly one feature: random points within
     * 0.45 of the cube, against the distance to a box */
    rng r = {5};
    int n_tested = 0;
    double worst = 0.0;
    while (n_tested < 2000) {
        double p[3], d2 = 0.0;
        for (int a = 0; a < 3; a++) {
            p[a] = rng_range(&r, -0.3, 1.3);
            double out = fmax(0.0, fmax(-p[a], p[a] - 1.0));
            d2 += out * out;
        }
        double d = sqrt(d2);
        if (d == 0.0 || d > 0.3) continue;
        int n = contacts_at(&ws, p[0], p[1], p[2], d + 0.15, c);
        assert_int_equal(n, 1);
        worst = fmax(worst, fabs(c[0].distance - d));
        n_tested++;
    }
    assert_true(worst < 1e-15);
    print_message("2000 points outside the cube: one contact each, distance within %.1e m\n",
                  worst);
    walls_free(&ws);
    free(ta);
}

static void stl_reader_refuses_bad_files(void **state)
{
    double *t;
    long n;
    char err[512];
    const char *cut = tmp_file("cut.stl");
    write_binary_stl(cut, cube, 12, 7); /* 7 bytes short */
    assert_int_equal(stl_read(cut, &t, &n, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, cut));
    assert_non_null(strstr(err, "header says 12 triangles"));
    assert_non_null(strstr(err, "677 bytes"));
    const char *typo = tmp_file("typo.stl");
    write_ascii_stl(typo, cube, 12, "vertx"); /* facet 2, third vertex: line 13 */
    assert_int_equal(stl_read(typo, &t, &n, err, sizeof err), -1);
    print_message("%s\n", err);
    char expected[256];
    snprintf(expected, sizeof expected, "%s:13: expected 'vertex' or 'endloop', got 'vertx'",
             typo);
    assert_string_equal(err, expected);
    const char *short_file = tmp_file("short.stl");
    FILE *f = fopen(short_file, "w");
    fputs("solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 nan\n", f);
    fclose(f);
    assert_int_equal(stl_read(short_file, &t, &n, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, ":5: the number 'nan' (vertex z) is not finite"));
    assert_int_equal(stl_read(tmp_file("absent.stl"), &t, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "absent.stl: cannot open"));
}

/* ---- one contact per feature -------------------------------------------------------- */

static void one_contact_per_shared_edge(void **state)
{
    wall_set ws;
    wall_spec w;
    wall_contact c[WALL_MAX_SLOTS];
    /* a flat square split along its diagonal */
    double square[2][9] = {{0, 0, 0, 1, 0, 0, 1, 1, 0}, {0, 0, 0, 1, 1, 0, 0, 1, 0}};
    mesh_walls(&ws, &w, &square[0][0], 2);
    for (int k = 0; k <= 10; k++) { /* on the diagonal, and across it */
        double x = 0.3 + 0.02 * k, y = 0.5;
        assert_int_equal(contacts_at(&ws, x, y, 0.05, 0.1, c), 1);
        assert_true(fabs(c[0].distance - 0.05) < 1e-15 && c[0].n[2] == -1.0);
    }
    walls_free(&ws);
    /* a fan of four triangles around the vertex (0.5, 0.5, 0) */
    double fan[4][9] = {{0.5, 0.5, 0, 0, 0, 0, 1, 0, 0}, {0.5, 0.5, 0, 1, 0, 0, 1, 1, 0},
                        {0.5, 0.5, 0, 1, 1, 0, 0, 1, 0}, {0.5, 0.5, 0, 0, 1, 0, 0, 0, 0}};
    mesh_walls(&ws, &w, &fan[0][0], 4);
    assert_int_equal(contacts_at(&ws, 0.5, 0.5, 0.05, 0.1, c), 1);
    assert_int_equal(contacts_at(&ws, 0.51, 0.5, 0.05, 0.1, c), 1);
    walls_free(&ws);
    /* a convex ridge (a roof, 45 degree slopes): one contact on the ridge line */
    double roof[4][9] = {{0, 0, 0, 0.5, 0, 0.5, 0.5, 1, 0.5}, {0, 0, 0, 0.5, 1, 0.5, 0, 1, 0},
                         {0.5, 0, 0.5, 1, 0, 0, 1, 1, 0}, {0.5, 0, 0.5, 1, 1, 0, 0.5, 1, 0.5}};
    mesh_walls(&ws, &w, &roof[0][0], 4);
    assert_int_equal(contacts_at(&ws, 0.5, 0.5, 0.6, 0.2, c), 1);
    assert_true(fabs(c[0].distance - 0.1) < 1e-15);
    assert_int_equal(contacts_at(&ws, 0.52, 0.5, 0.6, 0.2, c), 1);
    assert_true(fabs(c[0].distance - sqrt(0.0004 + 0.01)) < 1e-15);
    walls_free(&ws);
    /* a concave valley: one contact per face */
    double valley[4][9] = {{0, 0, 0.5, 0.5, 0, 0, 0.5, 1, 0}, {0, 0, 0.5, 0.5, 1, 0, 0, 1, 0.5},
                           {0.5, 0, 0, 1, 0, 0.5, 1, 1, 0.5}, {0.5, 0, 0, 1, 1, 0.5, 0.5, 1, 0}};
    mesh_walls(&ws, &w, &valley[0][0], 4);
    assert_int_equal(contacts_at(&ws, 0.5, 0.5, 0.2, 0.3, c), 2);
    assert_true(fabs(c[0].distance - 0.2 / sqrt(2.0)) < 1e-15);
    assert_true(fabs(c[1].distance - 0.2 / sqrt(2.0)) < 1e-15);
    assert_true(fabs(c[0].n[0] + c[1].n[0]) < 1e-15); /* one each side */
    walls_free(&ws);
}

/* ---- engine runs ------------------------------------------------------------------- */

typedef struct world {
    material mats[2];
    law_binding binds[3];
    wall_spec walls[8];
    particle_source src;
    double *pos, *vel, *rad;
    sim_config cfg;
} world;

/* n particles at pos (3 n), all of material 0, bound by law to each other and to walls
 * of material 0. */
static void world_init(world *w, long n, const double *pos, const double *rad,
                       const char *law, double restitution)
{
    memset(w, 0, sizeof *w);
    w->pos = malloc(3 * n * sizeof(double));
    w->vel = calloc(3 * n, sizeof(double));
    w->rad = malloc(n * sizeof(double));
    memcpy(w->pos, pos, 3 * n * sizeof(double));
    memcpy(w->rad, rad, n * sizeof(double));
    w->mats[0] = (material){"steel", 7800, 2e11, 0.3};
    w->binds[0] = (law_binding){.law = law_find(law), .cohesion_removal = true};
    if (restitution > 0) w->binds[0].params[law_param_index(w->binds[0].law, "restitution")] = restitution;
    w->src = (particle_source){.kind = SOURCE_LIST, .n_list = n, .list_position = w->pos,
                               .list_velocity = w->vel, .list_radius = w->rad};
    sim_config *c = &w->cfg;
    c->materials = w->mats; c->n_materials = 1;
    c->bindings = w->binds; c->n_bindings = 1;
    c->sources = &w->src; c->n_sources = 1;
    c->walls = w->walls;
    c->dt_check = true;
    for (int a = 0; a < 3; a++) { c->domain_min[a] = -1.0; c->domain_max[a] = 1.0; }
}

static void world_free(world *w)
{
    free(w->pos);
    free(w->vel);
    free(w->rad);
}

static void make(sim *s, world *w)
{
    char err[512];
    if (sim_create(s, &w->cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

static int touching_wall_contacts(const sim *s)
{
    int n = 0;
    for (size_t k = 0; k < s->wall_pairs.n; k++) n += s->wall_pairs.overlap[k] > 0.0;
    return n;
}

/* A steel sphere on a steel square tilted by 30 degrees, made of two triangles whose
 * shared diagonal runs under the sphere, gravity along the square's normal: it settles
 * at m g = 4/3 E* sqrt(R) d^(3/2), on one contact. */
static void sphere_on_tilted_stl_settles_to_hertz(void **state)
{
    double R = 0.01, E = 2e11, nu = 0.3, tilt = M_PI / 6;
    double nrm[3] = {sin(tilt), 0, cos(tilt)}, u[3] = {cos(tilt), 0, -sin(tilt)},
           v[3] = {0, 1, 0};
    double corner[4][3], h = 0.1;
    for (int k = 0; k < 4; k++) {
        double su = k == 1 || k == 2 ? h : -h, sv = k >= 2 ? h : -h;
        for (int a = 0; a < 3; a++) corner[k][a] = su * u[a] + sv * v[a];
    }
    double tri[18];
    int order[6] = {0, 1, 2, 0, 2, 3}; /* the diagonal 0-2 passes through the origin */
    for (int q = 0; q < 6; q++)
        for (int a = 0; a < 3; a++) tri[3 * q + a] = corner[order[q]][a];
    double pos[3], rad[1] = {R};
    for (int a = 0; a < 3; a++) pos[a] = R * nrm[a];
    world w;
    world_init(&w, 1, pos, rad, "hertz_tti", 0.3);
    w.walls[0] = (wall_spec){.kind = WALL_STL, .mesh = tri, .n_triangles = 2};
    w.cfg.n_walls = 1;
    for (int a = 0; a < 3; a++) w.cfg.gravity[a] = -G * nrm[a];
    sim s;
    make(&s, &w);
    double m = s.p.mass[0], e_eff = E / (2 * (1 - nu * nu));
    double d_static = pow(m * G / (4.0 / 3.0 * e_eff * sqrt(R)), 2.0 / 3.0);
    while (s.time < 0.02) sim_step(&s);
    double x[3] = {s.p.x[0], s.p.y[0], s.p.z[0]};
    double d = R - dot3(x, nrm);
    print_message("static overlap %.6e, Hertz %.6e; %d wall contact(s); drift along the "
                  "plane %.1e m\n", d, d_static, touching_wall_contacts(&s),
                  hypot(dot3(x, u), dot3(x, v)));
    assert_int_equal(touching_wall_contacts(&s), 1);
    assert_true(fabs(d - d_static) / d_static < 1e-3);
    /* the square carries the weight */
    assert_true(fabs(dot3(s.walls.force, nrm) + m * G) / (m * G) < 1e-3);
    sim_free(&s);
    world_free(&w);
}

/* A steel plane moving at V = 0.5 m/s (and sliding in its own plane) hits a steel
 * sphere at rest 10 mm away (5 skins) and, being infinitely heavy, launches it at 2 V
 * with Hertz's elastic law (within 5e-5); the plane's work equals the sphere's kinetic
 * energy (within 1e-4). The contact is found only if the moving wall forces neighbour
 * rebuilds (one per skin / 4 it travels). */
static void moving_piston_launches_sphere(void **state)
{
    double R = 0.01, V = 0.5;
    double pos[3] = {0, 0, 0}, rad[1] = {R};
    world w;
    world_init(&w, 1, pos, rad, "hertz", 0.0);
    w.walls[0] = (wall_spec){.kind = WALL_PLANE, .point = {0, 0, -R - 0.01},
                             .normal = {0, 0, 1}, .velocity = {0.3, -0.2, V}};
    w.cfg.n_walls = 1;
    w.cfg.impact_speed_estimate = 2 * V;
    sim s;
    make(&s, &w);
    assert_true(s.walls.max_surface_speed == V); /* sliding in its plane does not count */
    int64_t rebuilds0 = s.n_rebuilds;
    while (s.time < 0.06) sim_step(&s);
    double m = s.p.mass[0], ke = 0.5 * m * s.p.vz[0] * s.p.vz[0];
    print_message("launched at %.6f m/s (2 V = %.6f), plane's work %.6e J, kinetic energy "
                  "%.6e J, %lld rebuilds\n", s.p.vz[0], 2 * V, s.walls.work[0], ke,
                  (long long)(s.n_rebuilds - rebuilds0));
    assert_true(fabs(s.p.vz[0] - 2 * V) / (2 * V) < 5e-5);
    assert_true(fabs(s.p.vx[0]) < 1e-12 && fabs(s.p.vy[0]) < 1e-12); /* frictionless */
    assert_true(fabs(s.walls.work[0] - ke) / ke < 1e-4);
    assert_true(s.n_rebuilds - rebuilds0 > 40);
    sim_free(&s);
    world_free(&w);
}

/* A glass sphere at the bottom of a drum (radius 5 cm, axis along y) that turns at 40
 * rad/s, fast enough to press it on the wall at 7 g, moving with the drum's wall but
 * not spinning: friction (0.8) spins it up and a rolling spring (0.3) stops it rolling
 * relative to the wall, so that it is carried over the top and turns with the drum:
 * its angular velocity tends to the drum's and its centre circles at the drum's rate.
 * Were the wall's velocity left out of the contact, friction would stop the sphere
 * and it would fall. */
static void drum_carries_particle_round(void **state)
{
    double R = 0.005, Rc = 0.05, omega = 40.0;
    double pos[3] = {0, 0, -(Rc - R)}, rad[1] = {R};
    world w;
    world_init(&w, 1, pos, rad, "hertz_tti", 0.5);
    w.vel[0] = -omega * (Rc - R); /* w x r, r = -(Rc - R) z */
    w.mats[0] = (material){"glass", 2500, 1e8, 0.25};
    w.binds[0].friction = (contact_friction){.mu = 0.8, .rolling = rolling_law_find("spring"),
                                             .mu_rolling = 0.3, .rolling_params = {0.3}};
    w.walls[0] = (wall_spec){.kind = WALL_CYLINDER, .point = {0, -0.02, 0},
                             .axis = {0, 1, 0}, .radii = {Rc, Rc}, .length = 0.04,
                             .side = WALL_SIDE_INNER, .rotation_point = {0, 0, 0},
                             .rotation_axis = {0, 1, 0}, .angular_velocity = omega};
    w.cfg.n_walls = 1;
    w.cfg.gravity[2] = -G;
    w.cfg.impact_speed_estimate = omega * Rc;
    sim s;
    make(&s, &w);
    assert_true(s.walls.max_surface_speed == 0.0); /* spinning on its axis: no rebuilds */
    double highest = -1.0, t_end = 1.5;
    while (s.time < t_end) {
        sim_step(&s);
        highest = fmax(highest, s.p.z[0]);
    }
    double wy = s.p.wy[0];
    /* the centre's rate about the drum axis: (x vz - z vx) / r^2 about +y is z vx - x vz */
    double x = s.p.x[0], z = s.p.z[0], r2 = x * x + z * z;
    double rate = (z * s.p.vx[0] - x * s.p.vz[0]) / r2;
    print_message("after %.1f s: spin %.4f rad/s, orbit %.4f rad/s (drum %.1f), highest "
                  "point %.4f m; drum torque about y %.3e N m\n", t_end, wy, rate, omega,
                  highest, s.walls.torque[1]);
    assert_true(highest > Rc - 2 * R);      /* carried over the top */
    assert_true(fabs(wy - omega) / omega < 0.01);
    assert_true(fabs(rate - omega) / omega < 0.01);
    sim_free(&s);
    world_free(&w);
}

/* The step is bounded by the fastest impact to expect; a spinning drum throws particles
 * at its rim speed, even with no gravity and particles at rest: the estimate must be
 * |w| times the farthest domain corner from the rotation point (plus a translation). */
static void moving_walls_raise_the_impact_speed(void **state)
{
    double pos[3] = {0, 0, 0}, rad[1] = {0.005};
    world w;
    world_init(&w, 1, pos, rad, "hertz_tti", 0.5);
    w.walls[0] = (wall_spec){.kind = WALL_CYLINDER, .point = {0, -0.02, 0},
                             .axis = {0, 1, 0}, .radii = {0.05, 0.05}, .length = 0.04,
                             .side = WALL_SIDE_INNER, .rotation_point = {0.1, 0, 0},
                             .rotation_axis = {0, 1, 0}, .angular_velocity = -3.0};
    w.walls[1] = (wall_spec){.kind = WALL_PLANE, .point = {0, 0, -0.9}, .normal = {0, 0, 1},
                             .velocity = {0, 0.3, 0.4}};
    w.cfg.n_walls = 2;
    for (int a = 0; a < 3; a++) { w.cfg.domain_min[a] = -0.06; w.cfg.domain_max[a] = 0.06; }
    w.cfg.domain_min[2] = -1.0;
    sim s;
    w.walls[0].point[0] = 0.0; /* inside the domain */
    make(&s, &w);
    /* farthest corner from (0.1, 0, 0): (-0.06, +-0.06, -1) */
    double reach = sqrt(0.16 * 0.16 + 0.06 * 0.06 + 1.0), drum = 3.0 * reach, piston = 0.5;
    double v = timestep_impact_speed(&s);
    print_message("impact speed estimate %.9f m/s (drum rim bound %.9f, piston %.1f)\n", v,
                  drum, piston);
    assert_true(fabs(v - fmax(drum, piston)) < 1e-12);
    sim_free(&s);
    world_free(&w);
}

/* A bed settled in a box (floor and four frictionless side walls): the floor carries
 * the bed's weight (the side walls push sideways only), and the torques of all walls
 * about the origin balance the torque of gravity. When the last bead stops is chaotic:
 * the test waits 1.2 s, twice as long as the bed has been seen to need (its kinetic
 * energy falls below 1e-10 J by 0.6 s or by 1.0 s, as small changes to the laws move
 * the trajectory). */
static void build_bed(world *w, long n, uint64_t seed)
{
    rng r = {seed};
    double *pos = malloc(3 * n * sizeof *pos), *rad = malloc(n * sizeof *rad);
    long placed = 0;
    while (placed < n) { /* random, not overlapping */
        double x[3], ri = rng_range(&r, 0.002, 0.003);
        x[0] = rng_range(&r, ri, 0.03 - ri);
        x[1] = rng_range(&r, ri, 0.03 - ri);
        x[2] = rng_range(&r, ri, 0.08);
        int ok = 1;
        for (long q = 0; q < placed && ok; q++) {
            double d[3] = {x[0] - pos[3 * q], x[1] - pos[3 * q + 1], x[2] - pos[3 * q + 2]};
            ok = norm3(d) > ri + rad[q];
        }
        if (!ok) continue;
        memcpy(pos + 3 * placed, x, sizeof x);
        rad[placed++] = ri;
    }
    world_init(w, n, pos, rad, "hertz_tti", 0.2);
    free(pos);
    free(rad);
    w->mats[0] = (material){"glass", 2500, 1e7, 0.25};
    w->mats[1] = (material){"steel", 7800, 2e11, 0.3};
    w->cfg.n_materials = 2;
    w->binds[0].friction = (contact_friction){.mu = 0.5};
    w->binds[1] = (law_binding){.material_a = 0, .material_b = 1, .law = law_find("hertz_tti"),
                                .cohesion_removal = true};
    w->binds[1].params[0] = 0.2;
    w->cfg.n_bindings = 2;
    w->walls[0] = (wall_spec){.kind = WALL_PLANE, .material = 1, .point = {0.01, 0.01, 0},
                              .normal = {0, 0, 1}};
    for (int k = 0; k < 4; k++) {
        int a = k / 2;
        double sign = k % 2 ? -1.0 : 1.0;
        w->walls[1 + k] = (wall_spec){.kind = WALL_PLANE, .material = 1};
        w->walls[1 + k].point[a] = k % 2 ? 0.03 : 0.0;
        w->walls[1 + k].normal[a] = sign;
    }
    w->cfg.n_walls = 5;
    w->cfg.gravity[2] = -G;
    for (int a = 0; a < 3; a++) { w->cfg.domain_min[a] = 0.0; w->cfg.domain_max[a] = 0.1; }
}

static void floor_carries_weight_of_settled_bed(void **state)
{
    world w;
    build_bed(&w, 120, 3);
    sim s;
    make(&s, &w);
    while (s.time < 1.2) sim_step(&s);
    double weight = 0.0, gravity_torque[3] = {0, 0, 0}, wall_torque[3] = {0, 0, 0};
    for (size_t i = 0; i < s.p.n_local; i++) {
        weight += s.p.mass[i] * G;
        double x[3] = {s.p.x[i], s.p.y[i], s.p.z[i]}, f[3] = {0, 0, -s.p.mass[i] * G};
        gravity_torque[0] += x[1] * f[2] - x[2] * f[1];
        gravity_torque[1] += x[2] * f[0] - x[0] * f[2];
        gravity_torque[2] += x[0] * f[1] - x[1] * f[0];
    }
    for (size_t k = 0; k < s.walls.n; k++) { /* T about the origin = T about O + O x F */
        const double *o = s.walls.ref_point + 3 * k, *f = s.walls.force + 3 * k;
        wall_torque[0] += s.walls.torque[3 * k] + o[1] * f[2] - o[2] * f[1];
        wall_torque[1] += s.walls.torque[3 * k + 1] + o[2] * f[0] - o[0] * f[2];
        wall_torque[2] += s.walls.torque[3 * k + 2] + o[0] * f[1] - o[1] * f[0];
    }
    double fz = -s.walls.force[2], side_z = 0.0; /* the floor is pushed down */
    for (int k = 1; k < 5; k++) side_z += fabs(s.walls.force[3 * k + 2]);
    double scale = weight * 0.03;
    print_message("floor %.9f N, weight %.9f N (%.2e); torque of walls + gravity about the "
                  "origin (%.2e, %.2e, %.2e) x weight x box\n", fz, weight,
                  (fz - weight) / weight, (wall_torque[0] - gravity_torque[0]) / scale,
                  (wall_torque[1] - gravity_torque[1]) / scale,
                  (wall_torque[2] - gravity_torque[2]) / scale);
    assert_true(fabs(fz - weight) / weight < 1e-3);
    assert_true(side_z == 0.0);
    for (int a = 0; a < 3; a++) assert_true(fabs(wall_torque[a] - gravity_torque[a]) < 1e-3 * scale);
    sim_free(&s);
    world_free(&w);
}

/* Particles tumbling in a turning drum closed by two planes, over a fixed STL baffle:
 * positions and every step's wall loads are bit-identical with 1 and 2 threads, with
 * loops split among threads however small and the load sum split in blocks of 16. */
static void run_drum(int threads, double *loads, size_t n_loads, double *pos, size_t n_pos)
{
    omp_set_num_threads(threads);
    long n = 80;
    rng r = {9};
    double *p0 = malloc(3 * n * sizeof *p0), *rad = malloc(n * sizeof *rad);
    for (long i = 0; i < n; i++) { /* a lattice in the drum's lower half */
        rad[i] = rng_range(&r, 0.0015, 0.002);
        p0[3 * i] = -0.018 + 0.0045 * (i % 9);
        p0[3 * i + 1] = -0.006 + 0.0045 * ((i / 9) % 3);
        p0[3 * i + 2] = -0.028 + 0.0045 * (i / 27);
    }
    world w;
    world_init(&w, n, p0, rad, "hertz_tti", 0.5);
    for (long i = 0; i < n; i++) w.vel[3 * i + 2] = -0.4; /* thrown down on the baffle */
    w.mats[0] = (material){"glass", 2500, 1e7, 0.25};
    w.binds[0].friction = (contact_friction){.mu = 0.5, .rolling = rolling_law_find("constant"),
                                             .mu_rolling = 0.05};
    w.walls[0] = (wall_spec){.kind = WALL_CYLINDER, .point = {0, -0.01, 0}, .axis = {0, 1, 0},
                             .radii = {0.04, 0.04}, .length = 0.02, .side = WALL_SIDE_INNER,
                             .rotation_axis = {0, 1, 0}, .angular_velocity = 3.0};
    w.walls[1] = (wall_spec){.kind = WALL_PLANE, .point = {0, -0.01, 0}, .normal = {0, 1, 0}};
    w.walls[2] = (wall_spec){.kind = WALL_PLANE, .point = {0, 0.01, 0}, .normal = {0, -1, 0},
                             .velocity = {0.01, 0, 0}};
    double baffle[2][9] = {{-0.01, -0.01, -0.037, 0.01, -0.01, -0.037, 0.01, 0.01, -0.034},
                           {-0.01, -0.01, -0.037, 0.01, 0.01, -0.034, -0.01, 0.01, -0.034}};
    w.walls[3] = (wall_spec){.kind = WALL_STL, .mesh = &baffle[0][0], .n_triangles = 2,
                             .rotation_point = {0, 0, 0}, .rotation_axis = {0, 1, 0},
                             .angular_velocity = 0.5};
    w.cfg.n_walls = 4;
    w.cfg.gravity[2] = -G;
    w.cfg.impact_speed_estimate = 1.0;
    sim s;
    make(&s, &w);
    s.parallel_min = 0;
    s.walls.load_block = 16;
    size_t per = 6 * s.walls.n, steps = n_loads / per;
    for (size_t k = 0; k < steps; k++) {
        sim_step(&s);
        memcpy(loads + per * k, s.walls.force, 3 * s.walls.n * sizeof(double));
        memcpy(loads + per * k + 3 * s.walls.n, s.walls.torque, 3 * s.walls.n * sizeof(double));
    }
    assert_true(n_pos == 3 * (size_t)n);
    memcpy(pos, s.p.x, n * sizeof(double));
    memcpy(pos + n, s.p.y, n * sizeof(double));
    memcpy(pos + 2 * n, s.p.z, n * sizeof(double));
    print_message("%d thread(s): %zu wall-list entries, %zu touching, %lld rebuilds; vertical "
                  "load on drum, ends, baffle: %.3e, %.3e, %.3e, %.3e N\n", threads,
                  s.wall_pairs.n, (size_t)touching_wall_contacts(&s), (long long)s.n_rebuilds,
                  s.walls.force[2], s.walls.force[5], s.walls.force[8], s.walls.force[11]);
    sim_free(&s);
    world_free(&w);
    free(p0);
    free(rad);
}

static void wall_loads_identical_for_1_and_2_threads(void **state)
{
    size_t n_loads = 24 * 4000, n_pos = 3 * 80;
    double *l1 = malloc(n_loads * sizeof *l1), *l2 = malloc(n_loads * sizeof *l2);
    double *p1 = malloc(n_pos * sizeof *p1), *p2 = malloc(n_pos * sizeof *p2);
    run_drum(1, l1, n_loads, p1, n_pos);
    run_drum(2, l2, n_loads, p2, n_pos);
    assert_memory_equal(l1, l2, n_loads * sizeof *l1);
    assert_memory_equal(p1, p2, n_pos * sizeof *p1);
    double largest = 0.0;
    for (size_t k = 0; k < n_loads; k++) largest = fmax(largest, fabs(l1[k]));
    assert_true(largest > 0.0);
    free(l1); free(l2); free(p1); free(p2);
}

/* ---- motion of the geometry -------------------------------------------------------- */

/* A square paddle in the plane x = 0 (y in [0, 1], z in [-1, 1]) turning about z at
 * 2 rad/s and sliding along z at 0.1 m/s: where it is at t, its velocity, and when it
 * asks for rebuilds. */
static void turning_paddle_geometry(void **state)
{
    double paddle[2][9] = {{0, 0, -1, 0, 1, -1, 0, 1, 1}, {0, 0, -1, 0, 1, 1, 0, 0, 1}};
    wall_spec w = {.kind = WALL_STL, .mesh = &paddle[0][0], .n_triangles = 2,
                   .velocity = {0, 0, 0.1}, .rotation_point = {0, 0, 0},
                   .rotation_axis = {0, 0, 1}, .angular_velocity = 2.0};
    wall_set ws;
    char err[256];
    if (walls_init(&ws, &w, 1, err, sizeof err) != 0) fail_msg("%s", err);
    /* surface speed: 0.1 + 2 x (reach 1) */
    assert_true(fabs(ws.max_surface_speed - 2.1) < 1e-15);
    double t = 0.3, angle = 2.0 * t;
    walls_move(&ws, t);
    /* the paddle now spans direction (-sin, cos, 0) from the axis; a point 0.2 off its
     * face at 0.5 from the axis */
    double along[3] = {-sin(angle), cos(angle), 0}, off[3] = {cos(angle), sin(angle), 0};
    double c[3];
    for (int a = 0; a < 3; a++) c[a] = 0.5 * along[a] + 0.2 * off[a];
    c[2] = 0.03 + 0.5;
    wall_contact out[WALL_MAX_SLOTS];
    assert_int_equal(walls_mesh_contacts(&ws, 0, c, 0.3, out, WALL_MAX_SLOTS), 1);
    assert_true(fabs(out[0].distance - 0.2) < 1e-14);
    for (int a = 0; a < 3; a++) assert_true(fabs(out[0].n[a] + off[a]) < 1e-14);
    /* past the paddle's end (z = 1 + 0.03 now): the edge */
    c[2] = 1.03 + 0.1;
    assert_int_equal(walls_mesh_contacts(&ws, 0, c, 0.3, out, WALL_MAX_SLOTS), 1);
    assert_true(fabs(out[0].distance - hypot(0.2, 0.1)) < 1e-14);
    /* the velocity of the paddle's point at 0.5 from the axis: v + w x r */
    double x[3], v[3];
    for (int a = 0; a < 3; a++) x[a] = 0.5 * along[a];
    x[2] = 0.03;
    walls_point_velocity(&ws, 0, x, v);
    assert_true(fabs(v[0] - 2.0 * 0.5 * -cos(angle)) < 1e-14 &&
                fabs(v[1] - 2.0 * 0.5 * -sin(angle)) < 1e-14 && fabs(v[2] - 0.1) < 1e-15);
    /* rebuilds: every crossing of a multiple of skin / (4 V), and every step when the
     * surface moves more than skin / 4 per step */
    double skin = 0.01, period = skin / (4 * 2.1);
    assert_false(walls_need_rebuild(&ws, 0.1 * period, 0.9 * period, skin));
    assert_true(walls_need_rebuild(&ws, 0.9 * period, 1.1 * period, skin));
    assert_true(walls_need_rebuild(&ws, 0.0, 1.01 * period, skin)); /* a step too long */
    assert_false(walls_need_rebuild(&ws, 3.01 * period, 3.9 * period, skin));
    walls_free(&ws);
}

/* ---- case files ---------------------------------------------------------------------- */

static const char *case_head =
    "domain: {min: [-0.1, -0.1, -0.1], max: [0.1, 0.1, 0.1]}\n"
    "time: {end: 0.01}\n"
    "materials:\n"
    "  - {name: glass, density: 2500, young: 1.0e7, poisson: 0.25}\n"
    "  - {name: steel, density: 7800, young: 2.0e11, poisson: 0.3}\n"
    "contacts:\n"
    "  - {materials: [glass, glass], law: hertz}\n"
    "  - {materials: [glass, steel], law: hertz}\n"
    "particles:\n"
    "  - {source: lattice, material: glass, radius: 0.004,\n"
    "     region: {min: [-0.02, -0.02, -0.02], max: [0.02, 0.02, 0.02]}}\n"
    "walls:\n";

static const char *write_case(const char *name, const char *walls)
{
    const char *path = tmp_file(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(case_head, f);
    fputs(walls, f);
    fclose(f);
    return path;
}

static void case_file_walls(void **state)
{
    write_binary_stl(tmp_file("box.stl"), cube, 12, 0);
    const char *path = write_case(
        "walls.yaml",
        "  - name: drum\n"
        "    type: cylinder\n"
        "    material: steel\n"
        "    point: [0, -0.05, 0]\n"
        "    axis: [0, 2, 0]\n"
        "    radius: 0.08\n"
        "    length: 0.1\n"
        "    rotation: {axis_point: [0, 0, 0], axis: [0, 1, 0], angular_velocity: 3.5}\n"
        "  - {name: pillar, type: cylinder, material: steel, point: [0.09, 0, -0.1],\n"
        "     axis: [0, 0, 1], radius: 0.005, length: 0.2, side: outer}\n"
        "  - {name: hopper, type: cone, material: steel, point: [0, 0, -0.09],\n"
        "     axis: [0, 0, 1], radii: [0.01, 0.09], length: 0.09}\n"
        "  - {name: box, type: stl, material: steel, file: box.stl, scale: 0.01,\n"
        "     translation: [0.05, 0.05, 0.05], velocity: [0, 0, -0.2]}\n"
        "  - {name: lid, type: plane, material: steel, point: [0, 0, 0.09], normal: [0, 0, -1],\n"
        "     velocity: [0, 0, -0.01]}\n");
    sim_config cfg;
    char err[512];
    if (case_load(path, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(cfg.n_walls, 5);
    const wall_spec *d = &cfg.walls[0], *p = &cfg.walls[1], *h = &cfg.walls[2], *b = &cfg.walls[3];
    assert_int_equal(d->kind, WALL_CYLINDER);
    assert_true(d->axis[1] == 1.0 && d->radii[0] == 0.08 && d->radii[1] == 0.08);
    assert_true(d->length == 0.1 && d->side == WALL_SIDE_INNER);
    assert_true(d->angular_velocity == 3.5 && d->rotation_axis[1] == 1.0);
    assert_int_equal(p->side, WALL_SIDE_OUTER);
    assert_int_equal(h->kind, WALL_CONE);
    assert_true(h->radii[0] == 0.01 && h->radii[1] == 0.09);
    assert_int_equal(b->kind, WALL_STL);
    assert_int_equal(b->n_triangles, 12);
    assert_true(fabs(b->mesh[3] - 0.06) < 1e-15 && b->mesh[5] == 0.05); /* scaled, translated */
    assert_true(b->point[0] == 0.05 && b->velocity[2] == -0.2);
    assert_true(cfg.walls[4].velocity[2] == -0.01);
    sim s;
    if (sim_create(&s, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    for (int k = 0; k < 5; k++) sim_step(&s);
    sim_free(&s);
    sim_config_free(&cfg);
}

static void expect_refusal(const char *name, const char *walls, const char *expect1,
                           const char *expect2)
{
    sim_config cfg;
    char err[1024];
    const char *path = write_case(name, walls);
    int rc = case_load(path, &cfg, err, sizeof err);
    if (rc == 0) { /* found while building the simulation */
        sim s;
        char msg[1024];
        rc = sim_create(&s, &cfg, msg, sizeof msg);
        if (rc != 0) case_locate_error(&cfg, msg, err, sizeof err);
        sim_free(&s);
        sim_config_free(&cfg);
    }
    print_message("%s\n", err);
    assert_int_equal(rc, -1);
    if (!strstr(err, expect1) || !strstr(err, expect2))
        fail_msg("expected '%s' and '%s' in: %s", expect1, expect2, err);
}

static void case_file_wall_errors(void **state)
{
    /* the walls start at line 13 */
    expect_refusal("r0.yaml", "  - {type: cylinder, material: steel, point: [0, 0, 0],\n"
                              "     axis: [0, 0, 1], radius: 0, length: 0.1}\n",
                   "r0.yaml:14: walls[0].radius = 0 must be > 0", "");
    expect_refusal("ax.yaml", "  - {type: cone, material: steel, point: [0, 0, 0],\n"
                              "     axis: [0, 0, 0], radii: [0.1, 0.2], length: 0.1}\n",
                   "ax.yaml:14: walls[0].axis = [0, 0, 0] must be a non-zero direction", "");
    expect_refusal("side.yaml", "  - {type: cylinder, material: steel, point: [0, 0, -0.1],\n"
                                "     axis: [0, 0, 1], radius: 0.09, length: 0.2, side: iner}\n",
                   "side.yaml:14: walls[0].side: expected inner", "did you mean 'inner'?");
    expect_refusal("key.yaml", "  - {type: plane, material: steel, point: [0, 0, 0],\n"
                               "     normal: [0, 0, 1], radius: 0.1}\n",
                   "walls[0].radius: a plane wall does not take 'radius'", "point, normal");
    expect_refusal("need.yaml", "  - {type: cone, material: steel, point: [0, 0, 0],\n"
                                "     axis: [0, 0, 1], length: 0.1}\n",
                   "walls[0]: a cone wall needs 'radii'", "");
    expect_refusal("type.yaml", "  - {type: cylindre, material: steel}\n",
                   "walls[0].type: expected plane, rectangle, cylinder, cone or stl, got "
                   "'cylindre'", "did you mean 'cylinder'?");
    expect_refusal("turn.yaml", "  - {type: plane, material: steel, point: [0, 0, -0.1],\n"
                                "     normal: [0, 0, 1], rotation: {axis_point: [0, 0, 0],\n"
                                "     axis: [1, 0, 0], angular_velocity: 1}}\n",
                   "walls[0].rotation.axis: an infinite plane can only turn about its normal",
                   "");
    expect_refusal("rot.yaml", "  - {type: plane, material: steel, point: [0, 0, -0.1],\n"
                               "     normal: [0, 0, 1], rotation: {axis: [0, 0, 1],\n"
                               "     angular_velocity: 1}}\n",
                   "walls[0].rotation", "axis_point");
    write_binary_stl(tmp_file("cut_case.stl"), cube, 12, 1);
    expect_refusal("cut.yaml", "  - {type: stl, material: steel, file: cut_case.stl}\n",
                   "cut.yaml:13: walls[0].file", "cut_case.stl: binary STL: its header says 12");
    expect_refusal("nofile.yaml", "  - {type: stl, material: steel, file: nowhere.stl}\n",
                   "walls[0].file", "nowhere.stl: cannot open");
    /* the lattice fills [-0.02, 0.02]^3: a drum of radius 0.01 leaves particles out */
    expect_refusal("outside.yaml", "  - {name: drum, type: cylinder, material: steel,\n"
                                   "     point: [0, -0.05, 0], axis: [0, 1, 0], radius: 0.01,\n"
                                   "     length: 0.1}\n",
                   "outside.yaml:13: walls[0]: particle", "starts outside cylinder 'drum'");
    expect_refusal("pillar.yaml", "  - {name: pillar, type: cylinder, material: steel,\n"
                                  "     point: [0, 0, -0.05], axis: [0, 0, 1], radius: 0.01,\n"
                                  "     length: 0.1, side: outer}\n",
                   "walls[0]: particle", "starts inside cylinder 'pillar'");
}

static int remove_tmp(void **state)
{
    if (tmp_dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
        if (system(cmd) != 0) return -1;
    }
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cylinder_distances),
        cmocka_unit_test(cone_distances),
        cmocka_unit_test(stl_cube_ascii_and_binary),
        cmocka_unit_test(stl_reader_refuses_bad_files),
        cmocka_unit_test(one_contact_per_shared_edge),
        cmocka_unit_test(turning_paddle_geometry),
        cmocka_unit_test(case_file_walls),
        cmocka_unit_test(case_file_wall_errors),
        cmocka_unit_test(sphere_on_tilted_stl_settles_to_hertz),
        cmocka_unit_test(moving_piston_launches_sphere),
        cmocka_unit_test(drum_carries_particle_round),
        cmocka_unit_test(moving_walls_raise_the_impact_speed),
        cmocka_unit_test(floor_carries_weight_of_settled_bed),
        cmocka_unit_test(wall_loads_identical_for_1_and_2_threads),
    };
    return cmocka_run_group_tests(tests, NULL, remove_tmp);
}
