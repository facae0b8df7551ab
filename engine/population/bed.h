/* Settled beds of monodisperse spheres for benchmarks (`dempact bench`): a box with a
 * floor at z = lo[2] and periodic x and y sides.
 *
 * How a bed of N spheres is made, deterministically (the same spec gives the same bed
 * bit for bit, on any number of threads):
 *  1. N is split into mx x my identical square tiles of n_t spheres (bed_tiling: the
 *     largest n_t from BED_TILE_MIN to BED_TILE_MAX that divides N with my <= 2 mx; one
 *     tile up to BED_TILE_MAX), each tile as wide as a bed of n_t spheres `depth`
 *     diameters deep needs. N must split so: removing spheres from a settled tile sets
 *     its frictionless surface flowing (a 3 x 3 bed less 8 top spheres was still
 *     speeding up 10,000 steps later), so counts that do not split are refused with the
 *     nearest ones that do (10^4 to 10^7 all split).
 *  2. One tile, periodic in x and y, is filled with a jittered simple cubic lattice
 *     (spacing 1.25 d, jitter up to half the gap on each axis, so nothing overlaps;
 *     the partial top layer takes random sites), about 27 % solid.
 *  3. It falls and settles under gravity through the engine itself, with the bed's own
 *     material and contact law; once the top layer could have landed, a global viscous
 *     drag (velocities scaled by exp(-c dt) every step, c = 2 sqrt(g / d)) takes the
 *     energy the packing keeps releasing as it compacts. It is settled when the fastest
 *     sphere is slower than 1e-3 sqrt(g d) and no sphere feels a net force above 1 % of
 *     its weight; it fails after BED_MAX_SETTLE_STEPS. A frictionless packing creeps for
 *     a long time (about 1 s of simulated time for 2 mm spheres, 40,000-70,000 steps at
 *     0.2 Rayleigh times) and its last local collapses come later the wider it is (tiles
 *     of 1000, 1563, 1891 and 4000 spheres took 68,000, 176,000, 326,000 and 329,000
 *     steps): hence small tiles.
 *  4. The tile is copied mx x my times side by side: across a seam each sphere meets
 *     exactly the neighbours it met across the tile's periodic side, so the copy is as
 *     settled as the tile.
 *  5. The spheres are sorted along a Morton (Z-order) curve of cells one diameter wide,
 *     so that neighbours are close in memory.
 * Frictionless spheres settle to a random packing of about 59-60 % with 5.5-6 contacts
 * per sphere (fewer at the free surface). */
#ifndef DEMPACT_BED_H
#define DEMPACT_BED_H

#include <stddef.h>
#include <stdint.h>
#include "engine/config.h"

#define BED_TILE_MAX 1600
#define BED_TILE_MIN 250
#define BED_MAX_SETTLE_STEPS 1000000

typedef struct bed_spec {
    long n;              /* spheres */
    double radius;       /* m */
    material mat;        /* the spheres' and the floor's material */
    law_binding law;     /* the contact law (material 0 with itself) */
    double gravity;      /* m/s^2, along -z */
    double dt;           /* s */
    double skin;         /* neighbour skin [m] */
    double depth;        /* wanted depth, in diameters (0: 16) */
    uint64_t seed;
    int verbose;         /* settling progress on stderr */
} bed_spec;

typedef struct bed {
    size_t n;
    double *x, *v;       /* 3n: position [m], velocity [m/s] */
    double *radius;      /* n [m] */
    double density;      /* kg/m^3, of every sphere */
    double lo[3], hi[3]; /* the box: x, y periodic, floor at lo[2], hi[2] above the top */
    /* how it was made (bed_build only) */
    int tiles[2];           /* along x and y */
    size_t tile_particles;
    long settle_steps;
    double settle_seconds;  /* wall-clock time of the settling */
    double settle_speed;    /* largest speed when settling stopped [m/s] */
} bed;

/* What a simulation of a bed needs, kept together so that the config's pointers stay
 * valid: fill it with bed_setup_fill and pass &setup->cfg to sim_create. */
typedef struct bed_setup {
    material mat;
    law_binding law;
    particle_source source;
    wall_spec floor;
    sim_config cfg;
} bed_setup;

/* Builds a settled bed. Returns 0, or -1 with a message in err. */
int bed_build(const bed_spec *spec, bed *out, char *err, size_t err_len);

/* How bed_build splits n spheres: mx x my tiles of n_t. Returns 0, or -1 if it cannot. */
int bed_tiling(long n, long *mx, long *my, long *n_t);

/* Allocates a bed of n spheres (zeroed). Returns 0 or -1. */
int bed_alloc(bed *b, size_t n);
/* Frees the spheres' arrays (x, v, radius: NULL after) but keeps n, the box and how the
 * bed was made. Shaped as sim_config.sources_copied, so that a simulation of the bed can
 * free it once it has its own copy. */
void bed_release_particles(void *bed_ptr);
void bed_free(bed *b);

/* Moves every sphere into [lo, hi) along x and y (periodic images). */
void bed_wrap(bed *b);

/* Sorts the spheres along a Morton curve of cells `cell` wide. Returns 0 or -1. */
int bed_sort(bed *b, double cell);

/* A simulation of the bed: material `mat` (its density replaced by the bed's), `law`
 * between spheres and with the floor, periodic x and y, gravity g along -z, step dt (0:
 * chosen by the engine) and skin (0: the engine's default). The bed's arrays must stay
 * alive until sim_create has copied them. */
void bed_setup_fill(bed_setup *setup, const bed *b, const material *mat, const law_binding *law,
                    double gravity, double dt, double skin);

#endif
