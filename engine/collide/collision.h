/* A collision of two identical spheres, run through the engine itself (the same
 * neighbour search, contact list, law code and integrator as a case), and what it
 * measures: the restitution, contact duration, peak force and largest overlap; with
 * friction (any tangential law of models/friction_registry.c, Mindlin by default; any
 * rolling law) and a tangential speed (an oblique impact), also the rebound's velocities
 * and spins and the peak normal and tangential forces.
 *
 * Frame: x is the line of centres at first touch (sphere 0 on the -x side), y the
 * direction of sphere 0's tangential velocity. Sphere 0 moves at (+V0/2, +VT/2, 0),
 * sphere 1 at (-V0/2, -VT/2, 0); they start a gap g apart along x and +-VT/2 * g / V0
 * apart along y, so that their centres lie on the x axis exactly when they touch. The gap
 * is 0.01 R, or what the spheres close in COLLISION_APPROACH_STEPS steps if that is less
 * (a slow impact or a small step): the approach costs at most that many steps, and no
 * force acts before the touch, so the impact is at V0 whatever the gap.
 *
 * The work is bounded: refused before the first step (naming the input to change) are a
 * step that would resolve the contact by more than COLLISION_MAX_CONTACT_STEPS steps (the
 * law's contact-time estimate t_c / dt), a step that moves a sphere more than half its
 * radius (the rule of a run), and a speed at which the spheres close by less than
 * COLLISION_MIN_APPROACH R over the contact (an overlap their positions cannot resolve).
 * After the approach the run gives up after 50 contact times or COLLISION_MAX_STEPS
 * steps, whichever is less (a contact that sticks).
 *
 * With adhesion (spec.adhesion) the contact lasts from touching until the overlap falls
 * to the law's reach (models/adhesion_law.h; 0 for a law without one): the contact time
 * is measured to that break, and the rebound read after it. A contact that still holds
 * when the run gives up is stuck: the run returns 0 with stuck set, restitution_out 0
 * and the other results as they stand then (contact_time the time in contact so far).
 * Without adhesion a contact that never separates is a failure. A run fails with the
 * reason when its spheres overlap by more than half their radius (the watchdog's limit),
 * when the step cannot integrate its dashpot (c dt / m* > 1, as
 * engine/checks/dashpot_check.h measures it), or when its results are not finite
 * numbers. */
#ifndef DEMPACT_COLLISION_H
#define DEMPACT_COLLISION_H

#include <stdbool.h>
#include <stddef.h>
#include "models/law.h"
#include "engine/config.h"

#define COLLISION_APPROACH_STEPS 100000.0
#define COLLISION_MAX_CONTACT_STEPS 200000.0
#define COLLISION_MAX_STEPS 2000000.0 /* after the approach */
/* The spheres must close by at least this fraction of their radius over the contact
 * time (V0 t_c): a contact's overlap then spans about a million roundings of a position. */
#define COLLISION_MIN_APPROACH 1e-9

/* The inputs of a collision, for messages: each entrance names them its own way
 * (`dempact collide --velocity`, dempact.collide(velocity=)). */
typedef enum collision_input {
    COLLISION_LAW, COLLISION_RESTITUTION, COLLISION_VELOCITY, COLLISION_RADIUS,
    COLLISION_DENSITY, COLLISION_YOUNG, COLLISION_POISSON, COLLISION_PARAMS,
    COLLISION_COHESION_REMOVAL, COLLISION_DT, COLLISION_CALIBRATE, COLLISION_FRICTION,
    COLLISION_TANGENTIAL_RESTITUTION, COLLISION_ANGLE, COLLISION_TANGENTIAL_VELOCITY,
    COLLISION_SPIN1, COLLISION_SPIN2, COLLISION_FRICTION_MODEL, COLLISION_FRICTION_PARAMS,
    COLLISION_ROLLING, COLLISION_ROLLING_MODEL, COLLISION_ROLLING_PARAMS, COLLISION_ADHESION,
    COLLISION_ADHESION_PARAMS, COLLISION_N_INPUTS
} collision_input;

/* The neutral name of an input ("velocity", "tangential_velocity", "params", ...), the
 * name of dempact.collide()'s argument. */
const char *collision_input_name(collision_input k);

typedef struct collision_spec {
    const dem_law *law;
    double params[LAW_MAX_PARAMS]; /* in the order of law->params */
    bool cohesion_removal;
    bool calibrate;    /* solve the law's damping coefficient for its restitution */
    double radius, density, young, poisson;
    double velocity;   /* relative normal approach speed V0 [m/s] */
    double tangential_velocity; /* relative tangential speed VT at impact [m/s] */
    double spin[2][3]; /* initial angular velocities of spheres 0 and 1 [rad/s] */
    contact_friction friction; /* all zero: frictionless; tangential NULL: Mindlin;
                                  rolling NULL: no rolling resistance */
    contact_adhesion adhesion; /* law NULL: none */
    double dt;         /* 0: contact time / steps_per_contact; < 0: the step `run` would
                          choose for these spheres (engine/checks/timestep.h) */
    double steps_per_contact; /* 0: 4000 */
    double skin;       /* neighbour skin [m]; 0: 0.2 R */
    sim_tuning tuning; /* zero: the defaults (engine/config.h) */
    const char *const *names; /* the inputs' names in messages (NULL: collision_input_name) */
    /* Called every COLLISION_POLL_STEPS steps (NULL: never); a non-zero return stops the
     * run, which returns COLLISION_STOPPED (a Python caller's pending KeyboardInterrupt). */
    int (*poll)(void *ctx);
    void *poll_ctx;
} collision_spec;

#define COLLISION_POLL_STEPS 1024
#define COLLISION_STOPPED (-3) /* (apart from engine/fail.h's values) */

typedef struct collision_result {
    double restitution_out; /* normal (x) separation speed / V0; 0 when stuck */
    bool stuck;             /* with adhesion: the contact still held at the run's limit */
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

/* Fills spec with the defaults: R = 0.01 m, steel (7800 kg/m^3, 2e11 Pa, 0.3), 1 m/s,
 * the law's parameter defaults (law NULL: none yet), cohesion removal on. */
void collision_defaults(collision_spec *spec, const dem_law *law);

/* Runs the collision. Returns 0, -1 with a message (FAIL_NO_MEMORY, engine/fail.h, for a
 * failed allocation), or COLLISION_STOPPED (spec->poll asked to stop; err says so). */
int collision_run(const collision_spec *spec, collision_result *out, char *err, size_t err_len);

#endif
