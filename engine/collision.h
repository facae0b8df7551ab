/* A collision of two identical spheres, run through the engine itself (the same
 * neighbour search, contact list, law code and integrator as a case), and what it
 * measures: the restitution, contact duration, peak force and largest overlap; with
 * friction and a tangential speed (an oblique impact), also the rebound's velocities
 * and spins and the peak normal and tangential forces.
 *
 * Frame: x is the line of centres at first touch (sphere 0 on the -x side), y the
 * direction of sphere 0's tangential velocity. Sphere 0 moves at (+V0/2, +VT/2, 0),
 * sphere 1 at (-V0/2, -VT/2, 0); they start 0.01 R apart along x and +-VT/2 * t_approach
 * apart along y, so that their centres lie on the x axis exactly when they touch. */
#ifndef DEMPACT_COLLISION_H
#define DEMPACT_COLLISION_H

#include <stdbool.h>
#include <stddef.h>
#include "../models/law.h"
#include "config.h"

typedef struct collision_spec {
    const dem_law *law;
    double params[LAW_MAX_PARAMS]; /* in the order of law->params */
    bool cohesion_removal;
    bool calibrate;    /* solve the law's damping coefficient for its restitution */
    double radius, density, young, poisson;
    double velocity;   /* relative normal approach speed V0 [m/s] */
    double tangential_velocity; /* relative tangential speed VT at impact [m/s] */
    double spin[2][3]; /* initial angular velocities of spheres 0 and 1 [rad/s] */
    contact_friction friction; /* all zero: frictionless */
    double dt;         /* 0: contact time / steps_per_contact; < 0: the step `run` would
                          choose for these spheres (engine/timestep.h) */
    double steps_per_contact; /* 0: 4000 */
    double skin;       /* neighbour skin [m]; 0: 0.2 R */
    sim_tuning tuning; /* zero: the defaults (engine/config.h) */
} collision_spec;

typedef struct collision_result {
    double restitution_out; /* normal (x) separation speed / V0 */
    double contact_time;    /* s, start and end interpolated within a step */
    double peak_force;      /* N, largest |F| on sphere 0 */
    double peak_normal_force;     /* N, largest |F . n|, n the current line of centres */
    double peak_tangential_force; /* N, largest |F - (F . n) n| */
    double velocity_out[2][3];    /* spheres 0 and 1 after separation [m/s] */
    double spin_out[2][3];        /* their angular velocities [rad/s] */
    double position_out[2][3];    /* their centres then [m] */
    double position_in[2][3];     /* their centres at the start [m] */
    double sliding_fraction;      /* with friction: the fraction of the steps in contact
                                     at which |F_t| reached mu |F_n| (the contact slid) */
    double max_overlap;     /* m */
    double dt;              /* the step used */
    long steps;
    long rebuilds_in_contact; /* neighbour rebuilds while the spheres touched */
    double calibrated_value;  /* with calibrate: the solved coefficient (named by
                                 law->calibration->coefficient); NAN otherwise */
} collision_result;

/* Fills spec with the defaults: R = 0.01 m, steel (7800 kg/m^3, 2e11 Pa, 0.3), the law's
 * parameter defaults, cohesion removal on. */
void collision_defaults(collision_spec *spec, const dem_law *law);

int collision_run(const collision_spec *spec, collision_result *out, char *err, size_t err_len);

#endif
