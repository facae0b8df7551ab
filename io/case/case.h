/* The case-file reader: a YAML file (see cases/ for examples) loaded with a libcyaml
 * schema, checked, and turned into a sim_config.
 *
 *   name: pour                 optional; default: the file name without .yaml
 *   domain: {min: [x,y,z], max: [x,y,z], periodic: [false,false,false]}
 *   gravity: [0, 0, -9.81]     optional
 *   time: {end: 0.5, step: auto, check_step: true, output_interval: 0.05}
 *   neighbour: {skin: 0.0002}  optional
 *   materials: [{name, density, young, poisson}, ...]
 *   contacts: [{materials: [a, b], law, cohesion_removal, params: {name: value}}, ...]
 *   walls: [{name, type: plane|rectangle, material, point, normal, axis, half_size}, ...]
 *   particles: [{source: lattice|random|file, material, region: {min, max}, count,
 *                radius: r | {min, max}, velocity, seed, gap, file}, ...]
 *
 * Every error message starts with "FILE:LINE: " (FILE as given) and names the key, e.g.
 *   cases/pour.yaml:14: materials[0].poisson = 0.7 is out of range (-1, 0.5)
 * except a file that cannot be read: "FILE: cannot open: <reason>". */
#ifndef DEMPACT_CASE_H
#define DEMPACT_CASE_H

#include <stddef.h>
#include "engine/config.h"

/* Limits the reader holds every case to (docs/guarantees.md lists them all):
 * domain coordinates within +-CASE_MAX_COORDINATE m; every wall (its points, ends and
 * STL vertices) within CASE_WALL_REACH domain lengths of the domain along each axis, its
 * sizes (radii, half sizes, lengths) at most CASE_WALL_REACH domain diagonals; every
 * speed (a particle's, an inlet's, a wall's fastest point in the domain, a free fall
 * across the domain) at most CASE_MAX_SPEED m/s, ten times a rifle bullet's. */
#define CASE_MAX_COORDINATE 1e9
#define CASE_WALL_REACH 10.0
#define CASE_MAX_SPEED 1e4

/* Reads the case file at `path` into *cfg (which is overwritten: it must not hold
 * allocations). Returns 0, or -1 with a message (one or more lines) in err and *cfg
 * zeroed. On success free *cfg with sim_config_free. */
int case_load(const char *path, sim_config *cfg, char *err, size_t err_len);

/* The same, with cfg->stop = stop: the reader's long loops (a particle file's rows and
 * overlap check, an STL file's facets) give up when *stop becomes non-zero, with a
 * message saying so. */
int case_load_stoppable(const char *path, sim_config *cfg, volatile sig_atomic_t *stop,
                        char *err, size_t err_len);

#endif
