/* The force loop's fused passes: for a chunk of particle pairs that share one law, one
 * loop over the touching pairs that computes each pair's geometry, contact-point motion,
 * normal force, tangential spring and Coulomb cap, rolling torque and the force at its
 * first and last step, books its work and adds its forces to both particles, instead of
 * a pass for each over the chunk's scratch arrays (force_loop.c's generic passes). One
 * is compiled for each combination of a normal law's form (models/normal_parts.h:
 * NORMAL_FORMS) with no friction, Mindlin's spring, or Mindlin's spring and the
 * constant rolling torque, from the same inline per-contact functions the laws' batches
 * loop over: the same operations in the same order, so the same bits as the generic
 * passes. Any other combination, wall pairs, chunks of several laws, the forces at the
 * start (no spring moves) and lists summed by id run the generic passes.
 * Engine-internal (force_loop.c, pair_table.c). */
#ifndef DEMPACT_FUSED_PASS_H
#define DEMPACT_FUSED_PASS_H

#include <stddef.h>

#include "engine/sim.h"
#include "force_scratch.h"
#include "pair_delivery.h"

/* 1 + the fused pass of law instance li (its law, friction and rolling set up), or 0:
 * none (law_instance.fused). */
int fused_pass_find(const law_instance *li);

/* Whether the fused pass `fused` (law_instance.fused, not 0) runs for a list with
 * friction or without (has_friction, contact_list.has_friction: a frictionless law's
 * pass keeps no torques), with sim_config.passes `passes` (PASSES_AUTO: where it measured
 * faster than the generic passes). */
int fused_pass_serves(int fused, int has_friction, force_passes passes);

/* The forces of the touching pairs particle_pair_select picked out of the chunk that
 * starts at list entry `start`, all of law li, by its fused pass (li->fused): adds the
 * pairs' work to work[] and their forces to sums; sets cs->worst. */
void fused_pass_run(const sim *s, contact_list *c, chunk_scratch *cs, size_t start,
                    const law_instance *li, double work[SIM_WORK_KINDS],
                    const force_sums *sums);

#endif
