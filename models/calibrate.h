/* Restitution calibration: solve a law's damping coefficient (chi, eta, xi or alpha, named
 * by law->calibration) so that a head-on binary collision restitutes exactly the
 * requested e, under the pair's cohesion-removal setting.
 *
 * The collision is integrated here, outside the engine, with classical Runge-Kutta on
 * m* d'' = -F(d, d') from d = 0, d' = v0 until d returns to 0 (about 4000 steps per
 * contact; the end is found on the cubic through the last step). Laws whose restitution
 * is scale-free (every law but hertz_kk, hertz_lh and linear with a given damping) are
 * then exact at every impact speed and size; the others are exact at the reference
 * collision only. */
#ifndef DEMPACT_CALIBRATE_H
#define DEMPACT_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

#include "law.h"

/* The binary collision a calibration is exact for. */
typedef struct law_reference {
    double r_eff; /* R* [m] */
    double m_eff; /* m* [kg] */
    double v0;    /* impact velocity [m/s] */
} law_reference;

/* The restitution (separation speed / v0) the law with these constants produces in the
 * reference collision, with coeffs->cohesion_removal applied. 0 if the pair has not
 * separated after 200 contact times (an overdamped approach). Only for laws whose
 * history is set once at first touch (every law with a calibration). */
double law_restitution(const dem_law *law, const law_coeffs *coeffs, const law_reference *ref);

/* Sets coeffs->c[law->calibration->coeff] so that law_restitution() equals `target` in
 * (0, 1] to 1e-9, starting from the value setup put there. Results are cached per law,
 * constants, cohesion setting, reference and target, so a case with many material
 * pairs that share a law calibrates once. A solve gives up (as not converging) after 1e8
 * Runge-Kutta steps of its trial collisions (about 10 s); every solve that converges
 * takes fewer. Returns 0, or -1 with a message. */
int law_calibrate(const dem_law *law, law_coeffs *coeffs, const law_reference *ref,
                  double target, char *err, size_t err_len);

/* A caller's poll for the calibrations this thread runs (NULL: none): called before each
 * trial collision of the solve; a non-zero return makes law_calibrate fail with
 * "interrupted" (dempact.collide(calibrate=True): Python's pending Ctrl-C). */
void law_calibrate_set_poll(int (*poll)(void *ctx), void *ctx);

/* Whether parameter k must be given: it has no default, and calibration does not
 * solve for it. */
bool law_param_required(const dem_law *law, int k, bool calibrate);

/* Checks that a binding's parameters suit its calibrate switch: a law that calibrates
 * has a damping coefficient and a target restitution in (0, 1]; a law whose
 * restitution parameter exists only as a calibration target does not get one without
 * calibrate. Returns 0, or -1 with a message. */
int law_check_calibration(const dem_law *law, const double *params, bool calibrate,
                          char *err, size_t err_len);

/* The requested restitution: the parameter the law's calibration targets
 * (law_calibration.target), or NAN for a law without one. */
double law_target_restitution(const dem_law *law, const double *params);

/* Whether a binding calibrates without calibrate: true: its law's calibration declares
 * the `fit` parameter (models/law_params.h), at `calibrated`, damping to solve (e in
 * (0, 1)) and no given damping (law_calibration.given_damping). */
bool law_calibrates_by_default(const dem_law *law, const double *params);

#endif
