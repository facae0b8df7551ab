/* What a user asks of a collision (engine/collide/collision.h), checked once for every entrance:
 * `dempact collide` (io/commands/cli_collide.c) and dempact.collide() (python/dempact/_core.c)
 * fill a collision_request from their options and arguments, and
 * collision_request_build() refuses what either would refuse, naming the input the way
 * the entrance names it (the `names` table: "--velocity" or "velocity"), or fills the
 * collision_spec to run. The entrances only parse (text to numbers, Python objects to
 * numbers and flags); every rule on the values is here. */
#ifndef DEMPACT_COLLISION_REQUEST_H
#define DEMPACT_COLLISION_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "collision.h"

/* Every speed of a collision (the approach, the tangential speed, a surface's speed from
 * its spin) is at most this, as every speed of a case file (docs/guarantees.md). */
#define COLLISION_MAX_SPEED 1e4 /* m/s */

typedef struct collision_request {
    const char *law;
    double restitution;                 /* used when given[COLLISION_RESTITUTION] */
    double velocity, radius, density, young, poisson;
    const char *const *params;          /* "KEY=VALUE", n_params of them */
    int n_params;
    bool cohesion_removal, calibrate;
    double dt;                          /* 0: the default; dt_auto: the step of `run` */
    bool dt_auto;
    double friction, tangential_restitution, angle, tangential_velocity;
    double spin[2][3];
    /* The tangential law by name (NULL: Mindlin) and its keys as "KEY=VALUE", as a case's
     * friction.model and its keys; the rolling law (NULL: none) with its coefficient
     * `rolling` and keys, as a case's rolling mapping. */
    const char *friction_model;
    const char *const *friction_params;
    int n_friction_params;
    double rolling;
    const char *rolling_model;
    const char *const *rolling_params;
    int n_rolling_params;
    /* The adhesion law by name (NULL: none) and its keys as "KEY=VALUE", as a case's
     * adhesion mapping (models/adhesion_law.h). */
    const char *adhesion;
    const char *const *adhesion_params;
    int n_adhesion_params;
    bool given[COLLISION_N_INPUTS];     /* which of the optional inputs were given */
    const char *const *names;           /* the entrance's names (NULL: collision_input_name) */
} collision_request;

/* The defaults of `dempact collide`: R = 0.01 m, steel, V0 = 1 m/s, head on, no spin,
 * frictionless (Mindlin when a friction coefficient is given), no rolling resistance,
 * cohesion removal on, the default step; nothing given. */
void collision_request_defaults(collision_request *rq);

/* Checks rq and fills *sp (and *e_in: the restitution the law is asked for, NAN if it
 * has none). Returns 0, or -1 with a one-line message naming the input, its value and
 * the limit. */
int collision_request_build(const collision_request *rq, collision_spec *sp, double *e_in,
                            char *err, size_t err_len);

/* The adhesion law of rq (none unless named: a->law NULL) and its keys into *a, checked by
 * the law's setup as the case reader checks a case's (the moduli not known yet: the
 * engine's setup per pair of materials checks the law against them and the normal law).
 * Reads rq's adhesion, adhesion_params and names alone, so that another entrance with an
 * adhesion law (`dempact bench --adhesion`) reads it by the same rules. Returns 0, or -1
 * with a one-line message. */
int collision_request_adhesion(const collision_request *rq, contact_adhesion *a, char *err,
                               size_t err_len);

#endif
