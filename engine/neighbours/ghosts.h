/* Periodic axes: wrapping the local particles back into the box, and the ghost images
 * of the particles within a cutoff of a periodic face (made at a rebuild, moved with
 * their owners at every other step). Engine-internal (list_build.c, sim.c, restore.c);
 * what the ranks of an MPI run call of it is in engine/split.h. */
#ifndef DEMPACT_GHOSTS_H
#define DEMPACT_GHOSTS_H

#include "engine/sim.h"
#include "engine/split.h" /* the images, ghosts_add, ghosts_update */

/* Moves every local particle that left the box along a periodic axis back in. */
void ghosts_wrap(sim *s);
/* The same for one point x: where a rebuild would put a particle at x. */
void ghosts_wrap_point(const sim *s, double x[3]);
/* Replaces the ghosts with one for every image within s->cutoff of a periodic face.
 * Returns 0 or -1 (out of memory). */
int ghosts_make(sim *s);

#endif
