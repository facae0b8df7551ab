/* A head-on collision of two identical spheres, run through the engine itself (the same
 * neighbour search, contact list, law code and integrator as a case), and what it
 * measures: the restitution, contact duration, peak force and largest overlap. */
#ifndef DEMPACT_COLLISION_H
#define DEMPACT_COLLISION_H

#include <stdbool.h>
#include <stddef.h>
#include "../models/law.h"

typedef struct collision_spec {
    const dem_law *law;
    double params[LAW_MAX_PARAMS]; /* in the order of law->params */
    bool cohesion_removal;
    bool calibrate;    /* solve the law's damping coefficient for its restitution */
    double radius, density, young, poisson;
    double velocity;   /* relative approach speed V0 [m/s] */
    double dt;         /* 0: contact time / steps_per_contact */
    double steps_per_contact; /* 0: 4000 */
    double skin;       /* neighbour skin [m]; 0: 0.2 R */
} collision_spec;

typedef struct collision_result {
    double restitution_out; /* separation speed / V0 */
    double contact_time;    /* s, start and end interpolated within a step */
    double peak_force;      /* N */
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
