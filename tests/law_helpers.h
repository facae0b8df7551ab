/* Helpers shared by the law tests. */
#ifndef DEMPACT_TEST_LAW_HELPERS_H
#define DEMPACT_TEST_LAW_HELPERS_H

#include <math.h>
#include <string.h>

#include "models/law.h"

/* A law's parameters at their defaults, the required ones (no default) given plain
 * values: restitution 0.5, xi 0.3, anything else 100. */
static inline void law_test_params(const dem_law *law, double p[LAW_MAX_PARAMS])
{
    for (int k = 0; k < law->n_params; k++) {
        p[k] = law->params[k].default_value;
        if (isnan(p[k])) p[k] = !strcmp(law->params[k].name, "restitution") ? 0.5
                               : !strcmp(law->params[k].name, "xi")        ? 0.3
                                                                             : 100.0;
    }
}

#endif
