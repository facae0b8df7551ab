/* Velocity Verlet over the particles: the first half (kick, drift, the predicted velocity
 * for the dashpots, the force sums started), and the second half (the forces the force
 * loop left on the pairs added, the kick corrected), in blocks that stay in cache; the
 * force sums at the start of a run. Engine-internal (sim.c, restore.c). */
#ifndef DEMPACT_INTEGRATE_H
#define DEMPACT_INTEGRATE_H

#include "engine/sim.h"

/* Without friction no contact exerts a torque (the torques come from the tangential
 * and rolling springs only): every torque stays 0 from the first force sums on, and
 * every spin stays what it was. The steps then leave spins and torques alone, which
 * spares a frictionless run 9 of the 25 arrays the particle passes stream through, and
 * the particles hold no spins' history (particles_keep_spin_history: only where this
 * is false or an external torque is set). */
static inline int sim_spin_free(const sim *s)
{
    return !s->pairs.has_friction && !s->wall_pairs.has_friction;
}

/* The force sums at the start (after creation or a restart): weight, no torque. */
void integrate_start_sums(sim *s);
/* The first half of the step; returns the largest squared displacement since the last
 * rebuild. */
double integrate_advance_positions(const sim *s, particle_store *p, double dt);
/* The second half: adds the cross pairs' and walls' forces; with `correct` (within a
 * step) corrects the velocities. */
void integrate_add_stored_forces(sim *s, const int correct);

#endif
