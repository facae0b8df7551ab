/* Tangential friction and rolling resistance of one contact, whatever normal law
 * produced its normal force: the normal force only caps them (Coulomb).
 *
 * The laws themselves are plug-ins (models/friction_law.h, registered in
 * models/friction_registry.c); this unit sets a pair type's friction up from the case
 * and calls its laws, a batch at a time or contact by contact.
 *
 * Springs and dashpots read different velocities. A spring grows by the relative
 * displacement of the contact points during the step, which the engine takes from the
 * mid-step velocities v(n+1/2) (the ones that moved the centres: x(n+1) = x(n) +
 * v(n+1/2) dt) with the lever arms at mid-step: the midpoint rule, second order in dt.
 * Growing it by the end-of-step velocity (the one the dashpots need) is a backward-Euler
 * increment, first order: an oblique alumina impact resolved by 20 steps then misses
 * its rebound spin by 15 %. A contact that starts during the step grows only by the part
 * of the step it has existed (the overlap over the approach of that step), or the
 * spring would start one increment ahead, again a first-order error. The dashpots take
 * the predicted end-of-step velocity, as the normal laws do (engine/step/integrate.c). */
#ifndef DEMPACT_FRICTION_H
#define DEMPACT_FRICTION_H

#include <stddef.h>
#include <stdint.h>

#include "engine/config.h"

/* Fills fc from the pair's friction settings, its moduli and the normal law's
 * restitution (NAN if the law has none), through its laws' setups. Returns 0, or -1 (the
 * tangential law) or -2 (the rolling law) with the law's refusal in err. */
int friction_setup(const contact_friction *spec, double young_eff, double shear_eff,
                   double law_restitution, friction_coeffs *fc, law_error *err);

/* Runs the setup of spec's tangential law (rolling = 0) or rolling law (rolling = 1,
 * none: 0) with the moduli unknown (NAN), to check its keys against each other and the
 * coefficient before anything is built (the case reader names the key at fault from
 * err->param). Returns 0, or -1 with err. */
int friction_check(const contact_friction *spec, int rolling, law_error *err);

/* The tangential law a contact_friction names (its default when it names none). */
const tangential_law *friction_tangential_law(const contact_friction *spec);

/* Sets the key `name` of spec's tangential law (its default law when it names none)
 * to value. Returns 0, or -1 if that law has no such key. */
int friction_set_tangential_param(contact_friction *spec, const char *name, double value);

/* Updates the springs xi and theta, the Coulomb margin *margin (friction_batch.margin:
 * in, the last step's, 0 for a new contact; out, this step's; NULL keeps none, and a
 * contact starting to slide then gets no closing bump) and the tangential law's state
 * `slip` (in: state at the step start, zeros for a new contact; out: new state; only
 * laws with n_state > 0 read or write it, and the others take NULL) and returns the tangential force on i
 * (f_t, in the tangent plane) and the rolling torque on i (m_r). power[0] and power[1]
 * receive the power the contact takes from the particles' relative motion through them
 * [W]: f_t . v_t and -m_r . w_r. A batch law runs as a batch of one, so both forms give
 * the same bits. */
void friction_force(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                    double *margin, double theta[3], double slip[FRICTION_SLIP_HISTORY],
                    double f_t[3], double m_r[3], double power[2]);

/* 1 if the pair type has a rolling torque (a rolling law with mu_r > 0). Without one,
 * friction_force_batch leaves m_r and power[1] alone (friction_force sets them to 0). */
static inline int friction_has_rolling_torque(const friction_coeffs *fc)
{
    return fc->rolling != NULL;
}

/* 1 if the engine must give the contacts of this pair type the step's relative turn and
 * their reduced rolling inertia (contact_kinematics.turn, inertia_r). */
static inline int friction_uses_turn(const friction_coeffs *fc)
{
    return fc->rolling && law_has(&fc->rolling->plugin, LAW_CAP_USES_TURN);
}

/* 1 if the pair type's tangential law keeps per-contact state beyond its spring. */
static inline int friction_keeps_state(const friction_coeffs *fc)
{
    return fc->tangential && fc->tangential->n_state > 0;
}

/* 1 if friction_force_batch can take the contacts of this pair type: both its laws
 * have a batch form. */
int friction_batchable(const friction_coeffs *fc);

void friction_force_batch(const friction_coeffs *fc, const friction_batch *b);

/* Energy [J] held by the tangential and rolling springs (energy[0], energy[1]) of a
 * contact with overlap d and effective radius r_eff (slip: the tangential law's state). */
void friction_spring_energy(const friction_coeffs *fc, double d, double r_eff,
                            const double xi[3], const double theta[3],
                            const double slip[FRICTION_SLIP_HISTORY], double energy[2]);

#endif
