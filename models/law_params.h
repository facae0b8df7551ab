/* Parameter descriptors shared by several laws, so that every law spells a common
 * parameter the same way in `dempact laws` and in case files. */
#ifndef DEMPACT_LAW_PARAMS_H
#define DEMPACT_LAW_PARAMS_H

#include <math.h>
#include "law.h"

#define PARAM_RESTITUTION(def)                                                      \
    {"restitution", (def), "-", "normal coefficient of restitution e", NULL, 1e-6, 1.0}

/* v_floor: the impact velocity a contact born at rest is given (v0 = max(v0, v_floor)).
 * Its default, 0, means "from the case" (engine/checks/timestep.h, timestep_velocity_floor):
 * sqrt(2 |g| d) for the smallest particle's diameter d under gravity (the speed of a
 * fall through one diameter, the gentlest impact a settling bed makes), 1 mm/s without
 * gravity. A d'/v0 dashpot born at 1 mm/s in a loaded packing is stiffer than the step
 * can integrate (engine/checks/dashpot_check.h) and rings; at sqrt(2 |g| d) no shipped case
 * does. A law set up without a case takes LAW_VELOCITY_FLOOR for 0. */
#define LAW_VELOCITY_FLOOR 1e-3
#define PARAM_VELOCITY_FLOOR                                                        \
    {"v_floor", 0.0, "m/s",                                                         \
     "floor on the stored impact velocity v0 for contacts born at rest (uses max(v0, v_floor)); " \
     "0: from the case, sqrt(2 |g| d) of its smallest particle, 1 mm/s without gravity", \
     NULL, 0.0, HUGE_VAL}
#define PARAM_DASHPOT_VELOCITY_FLOOR PARAM_VELOCITY_FLOOR

/* fit: how a law whose e-to-damping mapping is a published fit (linear, hertz_tti,
 * zhang) turns its `restitution` into damping. calibrated (the default): the damping is
 * solved so that a binary collision restitutes exactly e under the pair's cohesion-removal
 * setting (models/calibrate.h), what a case asks for being what it gets; published: the
 * paper's mapping as it stands, for reproducing a paper (it ignores cohesion removal:
 * hertz_tti asked for e = 0.1 then restitutes 0.25). */
enum { LAW_FIT_CALIBRATED, LAW_FIT_PUBLISHED };
extern const char *const law_fit_names[];
#define PARAM_FIT                                                                   \
    {"fit", LAW_FIT_CALIBRATED, "-",                                                \
     "calibrated: damping solved so that a binary collision restitutes e (cohesion removal " \
     "included); published: the paper's e-to-damping mapping as it stands",         \
     law_fit_names, 0, 1}

#endif
