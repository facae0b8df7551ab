/* Explicit particles from a CSV file.
 *
 *   x,y,z,radius,vx,vy,vz,wx,wy,wz   <- header: x, y, z, radius required; vx, vy, vz
 *   0.01,0.02,0.05,0.002,0,0,-1,0,50,0  (velocity) and wx, wy, wz (angular velocity, rad/s)
 *                                       optional, each all three or none; any order,
 *                                       nothing else
 *   ...
 *
 * Fields may be padded with spaces; blank lines and lines starting with '#' are skipped;
 * CRLF line ends and a UTF-8 byte-order mark are accepted; UTF-16 and UTF-32 files are
 * refused by name. Every radius must be > 0 and every number finite. */
#ifndef DEMPACT_PARTICLE_CSV_H
#define DEMPACT_PARTICLE_CSV_H

#include <signal.h>
#include <stddef.h>
#include "engine/config.h"

/* Fills src->n_list, list_position, list_radius, list_velocity (NULL without velocity
 * columns) and list_angular_velocity (NULL without wx, wy, wz) and sets
 * src->kind = SOURCE_LIST; other fields are left alone.
 * Returns 0; PARTICLE_CSV_UNREADABLE when the file cannot be opened or read (err: "PATH:
 * cannot open: <reason>"); FAIL_NO_MEMORY (engine/fail.h) when an allocation failed; -1
 * for bad content (err: "PATH:LINE: <what>"). On failure src's list fields are NULL. */
#define PARTICLE_CSV_UNREADABLE (-3)
int particle_csv_read(const char *path, particle_source *src, char *err, size_t err_len);

/* The same, giving up (-1, "PATH:LINE: stopped by a signal") when *stop becomes non-zero
 * (stop may be NULL). */
int particle_csv_read_stoppable(const char *path, particle_source *src,
                                const volatile sig_atomic_t *stop, char *err, size_t err_len);

#endif
