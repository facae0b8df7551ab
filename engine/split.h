/* What a split of a simulation over processes may call (io/ranks/, the MPI ranks), beside
 * sim.h: the engine's public interface for a decomposition. A split plugs into the step
 * through sim_ghost_hooks (sim.h), removes particles through the one removal path
 * (population_remove, population.h), merges the exact sums (exact_sum.h), and makes
 * the periodic images of its particles as one process does, with the functions below.
 * Nothing else of the engine's folders is for it. */
#ifndef DEMPACT_SPLIT_H
#define DEMPACT_SPLIT_H

#include <stddef.h>

#include "engine/exact_sum.h"
#include "engine/sim.h"

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
/* Puts each ghost at its owner's position plus its shift, with its owner's velocities
 * (the remote ones, particle_store.n_remote, excepted: their owners are elsewhere). */
void ghosts_update(const sim *s, particle_store *p);
/* Puts remote entry g (another rank's particle or image, its particle's motion just
 * received into g) at that position plus its shift, as ghosts_update puts an image:
 * across the z faces of a sheared box (Lees-Edwards) also moved on since the rebuild
 * and sliding at U. */
void ghosts_place_remote(const sim *s, particle_store *p, size_t g);

#endif
