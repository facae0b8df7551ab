/* Global values of a simulation at one instant, for the time series in the output file
 * (io/output/snapshot.h, /timeseries). Computed from the state alone, in a fixed order, so
 * they are bit-identical for any number of threads and across a restart.
 *
 * Energies are in J. The elastic energy stored in the contacts and the energy
 * dissipated by each mechanism come from the engine's energy balance (sim.work, the work
 * done on the contacts, minus sim_stored_energy, what they hold now). */
#ifndef DEMPACT_OBSERVABLES_H
#define DEMPACT_OBSERVABLES_H

#include <stddef.h>
#include <stdint.h>

struct sim;

typedef struct sim_observables {
    double time;                /* s */
    int64_t step;
    double kinetic_energy;      /* sum 1/2 m v^2 (translational) */
    double rotational_energy;   /* sum 1/2 I w^2 */
    double gravitational_energy; /* sum -m g.x (zero at the origin) */
    double elastic_energy;      /* stored in the contacts: normal laws and springs */
    double dissipated_damping;  /* by the normal dashpots since t = 0 */
    double dissipated_friction; /* by tangential sliding and its dashpot */
    double dissipated_rolling;  /* by rolling resistance */
    double dissipated_plasticity; /* by plastic laws (kostek) */
    double energy_residual;     /* the balance's residual, what the time integration made
                                   or lost: kinetic + gravitational + stored + dissipated
                                   - the start's (sim.initial_energy) - the walls' and the
                                   external loads' work on the particles; NAN for an open system (inlets or
                                   outlets: what enters and leaves is not booked) */
    int64_t n_contacts;         /* touching particle-particle pairs */
    int64_t n_wall_contacts;    /* touching particle-wall pairs */
    double max_overlap;         /* largest overlap of any contact, m (0 if none) */
    double inserted_mass;       /* kg put in by the inlets since t = 0 */
    double discharged_mass;     /* kg taken out by the outlets since t = 0 */
    /* Lees-Edwards (0 without): the sheared box's work on the particles since t = 0,
     * the x offset of the images above the top face, the box height, and the box's
     * stress from the last force evaluation's pair forces and the velocities now
     * (lees_edwards_box_stress, compression positive): shear -sigma_xz, normal sigma_zz,
     * mean (sigma_xx + sigma_yy + sigma_zz) / 3 */
    double shear_work;          /* J */
    double lees_edwards_offset; /* m */
    double box_height;          /* m */
    double shear_stress, normal_stress, mean_stress; /* Pa */
    size_t n_walls;
    double *wall_force;         /* 3 per wall, N: the force the particles exert on it
                                   (caller's buffer of 3 n_walls doubles, may be NULL
                                   when there are no walls) */
    double *wall_torque;        /* 3 per wall, N m: the torque the particles exert on it
                                   about its reference point (walls.ref_point); caller's
                                   buffer like wall_force, may be NULL */
    double *wall_displacement;  /* 3 per wall, m: how far its translation has taken it
                                   from where the case places it (a servo wall's travel
                                   along its normal); caller's buffer like wall_force,
                                   may be NULL */
} sim_observables;

/* Fills o from s (o->wall_force, o->wall_torque and o->wall_displacement, where not NULL, must point to
 * 3 * s->walls.n doubles). Uses the
 * contact lists as left by the last force computation. */
void sim_observe(const struct sim *s, sim_observables *o);

#endif
