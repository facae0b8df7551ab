/* The neighbour lists: the candidate pairs of every local particle (particle pairs from
 * the grid, wall pairs from the walls), rebuilt from scratch when a particle has moved
 * half the skin or a moving wall requires it, with the touching pairs' history carried
 * over and the particles sorted along the curve when they have drifted out of it.
 * Engine-internal (sim.c, restore.c). */
#ifndef DEMPACT_LIST_BUILD_H
#define DEMPACT_LIST_BUILD_H

#include "engine/sim.h"

/* A rebuild that cannot be done for a reason other than memory (sim.fault says which). */
#define REBUILD_REFUSED (-2)

/* Wraps the periodic axes, makes the ghosts and the grid, and rebuilds both lists.
 * Returns 0, -1 (out of memory) or REBUILD_REFUSED (s->fault says why). */
int list_rebuild(sim *s);
/* By id (sim_config.reproducible): the touching pairs kept by the ids of their ends
 * (s->carry, s->wall_carry), as list_rebuild starts; and list_rebuild after it, for a
 * caller that kept them before it renumbered the particles (a change of population).
 * Return as list_rebuild. */
int list_keep_touching(sim *s);
int list_rebuild_carried(sim *s);
/* Indexes the cross pairs of s->pairs (contact_list_index_cross), all of them ordered by
 * id when the case asks for reproducible sums. Returns 0 or -1 (out of memory). */
int list_index_cross(sim *s);
/* Whether the lists must be rebuilt before this step's forces; worst_d2: the largest
 * squared displacement of a particle since the last rebuild. */
int list_needs_rebuild(const sim *s, double worst_d2);

#endif
