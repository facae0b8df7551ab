/* The restitution a case's contact law actually gives at the case's own step: the
 * binary collision its calibration is made for (typical particles of the two materials,
 * or a typical particle against a plane of the wall material, at the expected impact
 * speed: sim_binding_reference), head on, run through the engine (the same law code and
 * integrator) at the step the case runs with, averaged over where in the step the first
 * touch falls (4 places; they differ by up to about 1 % at e = 0.1 and t_c / 50, less
 * for larger e or smaller steps). `dempact check` and `dempact run` print it next to the
 * restitution the case asks for. The collision is the normal law's (with its friction and
 * rolling resistance) without the entry's adhesion: the restitution a law is asked for
 * and calibrated to is its own, the adhesion's loss comes on top of it (and a slow
 * adhesive reference collision would stick, with no restitution to solve for).
 *
 * A step that resolves the reference contact by more than PAIR_RESTITUTION_MAX_STEPS steps
 * (a case whose step a stiff lubrication film or a tiny particle sets) is not run: the
 * collision runs at t_c / PAIR_RESTITUTION_MAX_STEPS instead, where the restitution is
 * already that of the continuous law to within about 1e-5 (the spread over the four
 * touches scales with dt / t_c: 1 % at t_c / 50), which the step of the case only
 * refines. At the case's own step the collision could take billions of steps: hours
 * before `check` answers or `run` starts. */
#ifndef DEMPACT_PAIR_RESTITUTION_H
#define DEMPACT_PAIR_RESTITUTION_H

#include <stddef.h>
#include "engine/sim.h"

enum { PAIR_RESTITUTION_MAX_STEPS = 50000 };

typedef struct pair_restitution {
    double asked;     /* the law's restitution parameter (NAN: it has none) */
    double actual;    /* separation speed / impact speed in the engine's collision */
    double v0;        /* the impact speed [m/s] */
    double dt;        /* the step it was measured at [s]: the case's, or t_c / MAX_STEPS */
    double r_eff, m_eff;
    int against_wall; /* 1: a particle against a plane */
} pair_restitution;

/* For cfg.bindings[binding] of s. Returns 0, or -1 with a message. */
int pair_restitution_measure(const sim *s, int binding, pair_restitution *out, char *err,
                             size_t err_len);

/* The same with the law's damping coefficient (law->calibration) replaced by
 * `coefficient` (NAN: the one s has). */
int pair_restitution_with(const sim *s, int binding, double coefficient, pair_restitution *out,
                          char *err, size_t err_len);

/* A calibrated law solved again against the engine itself: its damping coefficient set so
 * that pair_restitution gives the asked e at s->dt (the continuous calibration of
 * models/calibrate.h misses by up to 0.6 % at t_c / 50: the integrator's own error).
 * Skipped where the step resolves a contact by more than 500 steps (the miss is below
 * 1e-5 there), and at a step above the stable limit (check_step: false). For every calibrated binding of s; returns 0 or -1 with a message. */
int pair_restitution_calibrate(sim *s, char *err, size_t err_len);

#endif
