/* Periodic axes: wrapping the local particles back into the box, and the ghost images
 * of the particles within a cutoff of a periodic face (made at a rebuild, moved with
 * their owners at every other step). Engine-internal (list_build.c, sim.c, restore.c). */
#ifndef DEMPACT_GHOSTS_H
#define DEMPACT_GHOSTS_H

#include "sim.h"

/* Moves every local particle that left the box along a periodic axis back in. */
void ghosts_wrap(sim *s);
/* Replaces the ghosts with one for every image within s->cutoff of a periodic face.
 * Returns 0 or -1 (out of memory). */
int ghosts_make(sim *s);
/* Puts each ghost at its owner's position plus its shift, with its owner's velocities. */
void ghosts_update(const sim *s, particle_store *p);

#endif
