/* Periodic axes: wrapping the local particles back into the box, and the ghost images
 * of the particles within a cutoff of a periodic face (made at a rebuild, moved with
 * their owners at every other step). Engine-internal (list_build.c, sim.c, restore.c),
 * and the ghosts of an MPI run's ranks (io/ranks/halo.c) follow the same images. */
#ifndef DEMPACT_GHOSTS_H
#define DEMPACT_GHOSTS_H

#include "engine/sim.h"

/* Moves every local particle that left the box along a periodic axis back in. */
void ghosts_wrap(sim *s);
/* The same for one point x: where a rebuild would put a particle at x. */
void ghosts_wrap_point(const sim *s, double x[3]);
/* At most this many images of one particle: one per combination of periodic axes. */
enum { GHOSTS_MAX_IMAGES = 7 };

/* The images of a particle at pos: for each periodic axis along which it lies within
 * s->cutoff of a face, it has one shifted by the box length to beyond the other face;
 * along two or three such axes, every combination. Writes their shifts, in a fixed
 * order, and returns how many there are. */
size_t ghosts_images(const sim *s, const double pos[3], double shift[GHOSTS_MAX_IMAGES][3]);
/* Appends a ghost of local particle `owner` at its position plus shift (made after the
 * local particles and any remote ones). Returns 0 or -1 (out of memory). */
int ghosts_add(particle_store *p, size_t owner, const double shift[3]);
/* Replaces the ghosts with one for every image within s->cutoff of a periodic face.
 * Returns 0 or -1 (out of memory). */
int ghosts_make(sim *s);
/* Puts each ghost at its owner's position plus its shift, with its owner's velocities
 * (the remote ones, particle_store.n_remote, excepted: their owners are elsewhere). */
void ghosts_update(const sim *s, particle_store *p);

#endif
