/* Helpers shared by the collision tests (include after <cmocka.h>). */
#ifndef DEMPACT_TEST_COLLISION_HELPERS_H
#define DEMPACT_TEST_COLLISION_HELPERS_H

#include <math.h>
#include "engine/collide/collision.h"

/* Runs the collision and fails the test, with the engine's message, if it cannot. */
static inline collision_result collide(collision_spec *sp)
{
    collision_result r;
    char err[512] = "";
    int rc = collision_run(sp, &r, err, sizeof err);
    if (rc != 0) print_error("collision_run: %s\n", err);
    assert_int_equal(rc, 0);
    return r;
}

static inline void set_param(collision_spec *sp, const char *name, double value)
{
    int k = law_param_index(sp->law, name);
    assert_true(k >= 0);
    sp->params[k] = value;
}

static inline double rel(double a, double b) { return fabs(a - b) / fabs(b); }

#endif
