/* Loads on the particles from outside the engine: a force and a torque per particle,
 * which a caller between steps (a fluid solver coupling by forces; the Python package's
 * Simulation.set_external_loads) sets, and which act in every step until it changes or
 * clears them.
 *
 * Addressing. The caller hands one row per local particle in the order of the
 * particles' ids (row k: the particle with the k-th smallest id), the order in which
 * the Python package presents positions and velocities. The engine keeps the loads by
 * its own index in the particle store (particle_store.external), where they move with
 * their particles through the neighbour rebuilds' reordering (particles_permute) and
 * every removal (outlets, the watchdog's drop: particles_remove); a particle an inlet
 * inserts carries none (particles_add) until the caller sets the loads again. Without a
 * call nothing is allocated and no step reads them: such a run keeps its memory and its
 * bits.
 *
 * Timing. Loads set at time t act from t on: the force sums of the last evaluation
 * (which velocity Verlet's next half kick uses) change by the difference at once, and
 * each following force evaluation adds them. Over a step the load is therefore one
 * constant F (and T), as gravity is.
 *
 * Energy books. Each step books the work dt (F . v(n+1/2) + T . w(n+1/2)): F times the
 * displacement dt v(n+1/2) the integrator made, as gravity's potential energy counts
 * -m g . dx, so the energy balance's residual with external loads is of gravity's kind
 * and size (observables.h: energy_residual subtracts sim.external_work). With
 * sim_config.reproducible the step's work is summed exactly.
 *
 * One process only: a run split over ranks refuses them. The caller marks its run as
 * driven from outside (io/session/dempact_api.h, dempact_driven): the loads put energy in, so
 * the watchdog's check that a closed system never gains energy does not apply. */
#ifndef DEMPACT_EXTERNAL_LOADS_H
#define DEMPACT_EXTERNAL_LOADS_H

#include <stddef.h>

#include "engine/sim.h"

/* Sets the loads: force (n rows of 3 doubles, N) and torque (n rows of 3, N m, or NULL:
 * none), row k for the local particle with the k-th smallest id. Every row is checked
 * before anything changes: n must be the number of particles, every component finite,
 * and a load alone may change a particle's velocity in one step by at most what moves
 * it WATCHDOG_STEP_FRACTION of its radius per step (|F| dt^2 / m, and |T| dt^2 / I for
 * the spin's turn, at most that fraction: the rule of a case's starting speeds). The
 * message starts with "force" or "torque" and names the row and the particle. Returns
 * 0, or -1 with a message and nothing changed (also out of memory, split runs). */
int sim_set_external_loads(sim *s, const double *force, const double *torque, size_t n,
                           char *err, size_t err_len);
/* Removes the loads from now on (the force sums lose them at once); the work they did
 * stays in the books. */
void sim_clear_external_loads(sim *s);
/* Work the external loads have done on the particles since t = 0 [J]. */
double sim_external_work(const sim *s);

/* ---- engine-internal (integrate.c) ---- */

/* Whether a load is set, and a torque among them: spins then turn in a run whose
 * contacts exert no torque (sim_spin_free). */
static inline int external_loads_set(const sim *s) { return s->p.external[0] != NULL; }
static inline int external_loads_turn(const sim *s) { return s->p.external[3] != NULL; }
/* Adds the loads to the force (and torque) sums of local particles [lo, hi). */
void external_loads_add(particle_store *p, size_t lo, size_t hi);
/* Books the step's work (sim.external_work): after the force evaluation of a step. */
void external_loads_book(sim *s);

#endif
