/* Parameter descriptors shared by several laws, so that every law spells a common
 * parameter the same way in `dempact laws` and in case files. */
#ifndef DEMPACT_LAW_PARAMS_H
#define DEMPACT_LAW_PARAMS_H

#include <math.h>
#include "law.h"

#define PARAM_RESTITUTION(def)                                                      \
    {"restitution", (def), "-", "normal coefficient of restitution e", NULL, 1e-6, 1.0}

#define PARAM_VELOCITY_FLOOR                                                        \
    {"v_floor", 1e-3, "m/s",                                                        \
     "floor on the stored impact velocity v0 for contacts born at rest (uses max(v0, v_floor))", \
     NULL, 1e-12, HUGE_VAL}
/* The same for a dashpot that scales with d'/v0: at the default a contact born at rest
 * gets a dashpot too stiff for the explicit step (docs/physics.md, "v_floor"). */
#define PARAM_DASHPOT_VELOCITY_FLOOR                                                \
    {"v_floor", 1e-3, "m/s",                                                        \
     "floor on the stored impact velocity v0 for contacts born at rest (uses max(v0, v_floor)); " \
     "in a loaded packing use 0.1 to 0.3, or the d'/v0 dashpot is too stiff for the step", \
     NULL, 1e-12, HUGE_VAL}

#endif
