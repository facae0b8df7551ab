/* `dempact bench --write-data FILE`: the bed as a LAMMPS data file, for LAMMPS and
 * LIGGGHTS to run the same thing. An existing FILE is replaced only with --overwrite,
 * and FILE is whole or absent whatever happens while it is written. */
#ifndef DEMPACT_CLI_BENCH_DATA_H
#define DEMPACT_CLI_BENCH_DATA_H

#include "engine/population/bed.h"
#include "io/readers/lammps_data.h"

/* --write-data FILE, checked before the bed is built: an existing FILE only with
 * --overwrite (a symbolic link counts as existing), never a folder, and its folder
 * must be there. Returns 0 or EXIT_BAD_INPUT with the message on stderr. */
int bench_data_path_usable(const char *path, int overwrite);

/* Writes bed b to FILE (title: the data file's first line), holding SIGINT and SIGTERM
 * until it is written. Returns 0, or an exit status with the message on stderr. */
int bench_write_bed(const char *path, const bed *b, const char *title, int overwrite);

/* --load FILE: a data file read (d, from path) as a bed: one density (another is refused
 * naming its atoms), radius = diameter / 2. Returns 0, or -1 with the message on stderr. */
int bench_bed_from_data(const lammps_data *d, bed *b, const char *path);

#endif
