/* The restitution a case's contact law actually gives at the case's own step: the
 * binary collision its calibration is made for (typical particles of the two materials,
 * or a typical particle against a plane of the wall material, at the expected impact
 * speed: sim_binding_reference), head on, run through the engine (the same law code and
 * integrator) at the step the case runs with. `dempact check` and `dempact run` print it
 * next to the restitution the case asks for. */
#ifndef DEMPACT_PAIR_RESTITUTION_H
#define DEMPACT_PAIR_RESTITUTION_H

#include <stddef.h>
#include "sim.h"

typedef struct pair_restitution {
    double asked;     /* the law's restitution parameter (NAN: it has none) */
    double actual;    /* separation speed / impact speed in the engine's collision */
    double v0;        /* the impact speed [m/s] */
    double r_eff, m_eff;
    int against_wall; /* 1: a particle against a plane */
} pair_restitution;

/* For cfg.bindings[binding] of s. Returns 0, or -1 with a message. */
int pair_restitution_measure(const sim *s, int binding, pair_restitution *out, char *err,
                             size_t err_len);

#endif
