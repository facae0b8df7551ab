/* LAMMPS data files of spheres (LAMMPS atom_style sphere, LIGGGHTS atom_style granular),
 * so that a bed made by any code can be timed by `dempact bench` and a bed made by
 * dempact can be run by LAMMPS and LIGGGHTS.
 *
 * What is read and written (LAMMPS's read_data format):
 *
 *   TITLE LINE (always skipped)
 *
 *   N atoms
 *   T atom types
 *   XLO XHI xlo xhi
 *   YLO YHI ylo yhi
 *   ZLO ZHI zlo zhi
 *
 *   Atoms # sphere
 *
 *   ID TYPE DIAMETER DENSITY X Y Z [IX IY IZ]
 *   ...
 *
 *   Velocities
 *
 *   ID VX VY VZ WX WY WZ
 *   ...
 *
 * The box lies within +-LAMMPS_MAX_COORDINATE m; no diameter exceeds its widest side;
 * the header's atom count must fit in the file's size (an atom line takes 14 bytes at
 * least); a line holding a NUL byte and a UTF-16 or UTF-32 file are refused by name.
 * '#' starts a comment anywhere. Header counts of other things (bonds, angles, ellipsoids,
 * ...) are accepted when 0; a tilted box (xy xz yz) is refused. A `Masses` or `Pair Coeffs`
 * section is skipped (a sphere's mass follows from diameter and density); any other
 * section is refused. Image flags are read and ignored (positions are taken as given and
 * must lie in the box). Every error names the file and the line. */
#ifndef DEMPACT_LAMMPS_DATA_H
#define DEMPACT_LAMMPS_DATA_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lammps_data {
    size_t n;          /* atoms, in the order of the Atoms section */
    int n_types;
    double lo[3], hi[3];
    int64_t *id;       /* n */
    int32_t *type;     /* n, 1..n_types */
    double *diameter;  /* n [m] */
    double *density;   /* n [kg/m^3] */
    double *x;         /* 3n [m] */
    double *v;         /* 3n [m/s], zero when the file has no Velocities section */
    double *omega;     /* 3n [rad/s], likewise */
    int has_velocities;
} lammps_data;

/* Allocates room for n atoms (all fields zeroed). Returns 0 or -1. */
int lammps_data_alloc(lammps_data *d, size_t n);
void lammps_data_free(lammps_data *d);

#define LAMMPS_MAX_COORDINATE 1e9 /* m */

/* Reads `path`. Returns 0, or -1 with "PATH:LINE: what is wrong" in err. */
int lammps_data_read(const char *path, lammps_data *d, char *err, size_t err_len);

/* Whether d is a packing a DEM engine can start from: no two atoms overlap by more than
 * `fraction` of the smaller radius (coincident atoms, a file written twice over itself)
 * and the atoms' volume does not exceed the box's (a solid fraction above 1). Polls *stop
 * (may be NULL). Returns 0, or -1 with "PATH: what is wrong" (the atoms' IDs) in err. */
int lammps_data_check_packing(const lammps_data *d, double fraction,
                              const volatile sig_atomic_t *stop, const char *path, char *err,
                              size_t err_len);

/* Writes d to `path` (through a temporary file renamed when complete), with `title` as
 * the first line and the Velocities section when d->has_velocities. Numbers are
 * written with 17 significant digits, so a read gives back the same doubles. Returns 0,
 * or -1 with a message. */
int lammps_data_write(const char *path, const lammps_data *d, const char *title, char *err,
                      size_t err_len);

#endif
