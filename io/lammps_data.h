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
 * '#' starts a comment anywhere. Header counts of other things (bonds, angles, ellipsoids,
 * ...) are accepted when 0; a tilted box (xy xz yz) is refused. A `Masses` or `Pair Coeffs`
 * section is skipped (a sphere's mass follows from diameter and density); any other
 * section is refused. Image flags are read and ignored (positions are taken as given and
 * must lie in the box). Every error names the file and the line. */
#ifndef DEMPACT_LAMMPS_DATA_H
#define DEMPACT_LAMMPS_DATA_H

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

/* Reads `path`. Returns 0, or -1 with "PATH:LINE: what is wrong" in err. */
int lammps_data_read(const char *path, lammps_data *d, char *err, size_t err_len);

/* Writes d to `path` (through a temporary file renamed when complete), with `title` as
 * the first line and the Velocities section when d->has_velocities. Numbers are
 * written with 17 significant digits, so a read gives back the same doubles. Returns 0,
 * or -1 with a message. */
int lammps_data_write(const char *path, const lammps_data *d, const char *title, char *err,
                      size_t err_len);

#endif
