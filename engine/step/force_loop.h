/* The force loop: the forces of every touching contact of a contact list, in parallel
 * over fixed blocks of particles (particle pairs) or chunks of entries (wall pairs), each
 * law called once per chunk on its batch, with friction and the contact ends; forces
 * delivered to the particles (or kept on the pairs) in an order fixed by the list, and
 * the contacts' work summed in unit order. Engine-internal (sim.c, list_build.c). */
#ifndef DEMPACT_FORCE_LOOP_H
#define DEMPACT_FORCE_LOOP_H

#include "engine/sim.h"

/* The forces of every touching contact in list c (s->pairs, is_wall 0, or
 * s->wall_pairs, 1); adds to s->n_contacts, s->max_overlap, s->work and s->work_step. */
void force_loop_run(sim *s, contact_list *c, int is_wall);
/* Room for the per-unit work sums of the current lists. Returns 0 or -1 (out of memory). */
int force_loop_reserve_work(sim *s);

#endif
