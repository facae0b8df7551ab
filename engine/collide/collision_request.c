#include "collision_request.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/step/friction.h"
#include "models/adhesion_law.h"
#include "models/friction_law.h"

void collision_request_defaults(collision_request *rq)
{
    collision_spec d; /* collide's defaults, said once (collision_defaults) */
    collision_defaults(&d, NULL);
    memset(rq, 0, sizeof *rq);
    rq->restitution = NAN;
    rq->velocity = d.velocity;
    rq->radius = d.radius;
    rq->density = d.density;
    rq->young = d.young;
    rq->poisson = d.poisson;
    rq->cohesion_removal = d.cohesion_removal;
    rq->tangential_restitution = NAN;
    rq->angle = NAN;
    rq->tangential_velocity = NAN;
}

static const char *name_of(const collision_request *rq, collision_input k)
{
    return rq->names ? rq->names[k] : collision_input_name(k);
}

/* value must be finite and in (0, COLLISION_MAX_SPEED] (a speed) or > 0 (anything else). */
static int positive(const collision_request *rq, collision_input k, double value,
                    const char *unit, char *err, size_t err_len)
{
    if (isfinite(value) && value > 0.0) return 0;
    snprintf(err, err_len, "%s: %g is not a positive finite number [%s]", name_of(rq, k),
             value, unit);
    return -1;
}

static int speed_at_most(const collision_request *rq, collision_input k, double speed,
                         const char *what, char *err, size_t err_len)
{
    if (speed <= COLLISION_MAX_SPEED) return 0;
    snprintf(err, err_len, "%s: %s %g m/s is above the limit of %g m/s (as every speed of a "
             "case: a soft-sphere contact is no model of a faster impact)", name_of(rq, k),
             what, speed, COLLISION_MAX_SPEED);
    return -1;
}

/* The key of a "KEY=VALUE" parameter, into key (empty if there is no '='). */
static void param_key(const char *kv, char *key, size_t key_len)
{
    const char *eq = strchr(kv, '=');
    size_t n = eq ? (size_t)(eq - kv) : 0;
    if (n >= key_len) n = key_len - 1;
    memcpy(key, kv, n);
    key[n] = '\0';
}

static int check_numbers(const collision_request *rq, char *err, size_t err_len)
{
    if (positive(rq, COLLISION_VELOCITY, rq->velocity, "m/s", err, err_len) ||
        speed_at_most(rq, COLLISION_VELOCITY, rq->velocity, "an approach speed", err, err_len) ||
        positive(rq, COLLISION_RADIUS, rq->radius, "m", err, err_len) ||
        positive(rq, COLLISION_DENSITY, rq->density, "kg/m^3", err, err_len) ||
        positive(rq, COLLISION_YOUNG, rq->young, "Pa", err, err_len))
        return -1;
    if (!(rq->poisson > -1.0 && rq->poisson < 0.5)) {
        snprintf(err, err_len, "%s: %g is not in (-1, 0.5)", name_of(rq, COLLISION_POISSON),
                 rq->poisson);
        return -1;
    }
    if (!rq->dt_auto && !(isfinite(rq->dt) && rq->dt >= 0.0)) {
        snprintf(err, err_len, "%s: %g is not a step [s] (a positive finite number, 0 for the "
                 "default, or auto)", name_of(rq, COLLISION_DT), rq->dt);
        return -1;
    }
    if (!(isfinite(rq->friction) && rq->friction >= 0.0)) {
        snprintf(err, err_len, "%s: %g is not a Coulomb coefficient (a finite number >= 0)",
                 name_of(rq, COLLISION_FRICTION), rq->friction);
        return -1;
    }
    if (rq->given[COLLISION_TANGENTIAL_RESTITUTION]) {
        double et = rq->tangential_restitution;
        if (!(et > 0.0 && et <= 1.0)) {
            snprintf(err, err_len, "%s: %g is not a restitution in (0, 1]",
                     name_of(rq, COLLISION_TANGENTIAL_RESTITUTION), et);
            return -1;
        }
        if (!(rq->friction > 0.0)) {
            snprintf(err, err_len, "%s needs %s > 0", name_of(rq, COLLISION_TANGENTIAL_RESTITUTION),
                     name_of(rq, COLLISION_FRICTION));
            return -1;
        }
    }
    if (rq->given[COLLISION_ANGLE] && rq->given[COLLISION_TANGENTIAL_VELOCITY]) {
        snprintf(err, err_len, "give %s or %s, not both", name_of(rq, COLLISION_ANGLE),
                 name_of(rq, COLLISION_TANGENTIAL_VELOCITY));
        return -1;
    }
    if (rq->given[COLLISION_ANGLE]) {
        if (!(rq->angle >= 0.0 && rq->angle < 90.0)) {
            snprintf(err, err_len, "%s: %g is not in degrees from the line of centres in [0, 90)",
                     name_of(rq, COLLISION_ANGLE), rq->angle);
            return -1;
        }
        if (speed_at_most(rq, COLLISION_ANGLE, rq->velocity * tan(rq->angle * M_PI / 180.0),
                          "the tangential speed V0 tan(angle)", err, err_len))
            return -1;
    }
    if (rq->given[COLLISION_TANGENTIAL_VELOCITY]) {
        if (!isfinite(rq->tangential_velocity)) {
            snprintf(err, err_len, "%s: %g is not a finite speed [m/s]",
                     name_of(rq, COLLISION_TANGENTIAL_VELOCITY), rq->tangential_velocity);
            return -1;
        }
        if (speed_at_most(rq, COLLISION_TANGENTIAL_VELOCITY, fabs(rq->tangential_velocity),
                          "a tangential speed", err, err_len))
            return -1;
    }
    for (int i = 0; i < 2; i++) {
        collision_input k = i == 0 ? COLLISION_SPIN1 : COLLISION_SPIN2;
        const double *w = rq->spin[i];
        if (!(isfinite(w[0]) && isfinite(w[1]) && isfinite(w[2]))) {
            snprintf(err, err_len, "%s: (%g, %g, %g) is not three finite numbers [rad/s]",
                     name_of(rq, k), w[0], w[1], w[2]);
            return -1;
        }
        /* the surface's speed |w| R */
        if (speed_at_most(rq, k, sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * rq->radius,
                          "the surface speed |w| R", err, err_len))
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------
 * The tangential and rolling laws by name with their keys, as a case's friction and
 * rolling mappings take them (io/case/case_contacts.c): the registries' names and keys.
 * ---------------------------------------------------------------------------------- */

static const char *tangential_name(int k) { return tangential_law_at(k)->name; }
static const char *rolling_name(int k) { return rolling_law_at(k)->name; }

/* "a, b, c": the names of a registry's n laws. */
static void law_names(char *out, size_t len, const char *(*name_at)(int), int n)
{
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < n && used < len; k++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", k ? ", " : "", name_at(k));
}

/* "its keys are: a, b" or "it takes no keys", for the n keys params[]. */
static void key_names(char *out, size_t len, const law_param *params, int n)
{
    size_t used = (size_t)snprintf(out, len, n ? "its keys are: " : "it takes no keys");
    for (int k = 0; k < n && used < len; k++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", k ? ", " : "", params[k].name);
}

/* One "KEY=VALUE" of `option` for the law `model` (its keys params[n]) into values[]:
 * 0, or -1 with a message. given[k] marks the keys set (a second time is refused). */
static int set_key(const collision_request *rq, collision_input option, const char *model,
                   const law_param *params, int n, double *values, bool *given,
                   const char *kv, char *err, size_t err_len)
{
    char key[64], keys[256], msg[256];
    param_key(kv, key, sizeof key);
    int k = *key ? friction_param_index(params, n, key) : -1;
    if (!*key) {
        snprintf(err, err_len, "%s takes KEY=VALUE: '%s'", name_of(rq, option), kv);
        return -1;
    }
    if (k < 0) {
        key_names(keys, sizeof keys, params, n);
        snprintf(err, err_len, "%s: model %s takes no key '%s'; %s (see dempact laws %s)",
                 name_of(rq, option), model, key, keys,
                 option == COLLISION_ADHESION_PARAMS ? "--adhesion" : "--friction");
        return -1;
    }
    if (given[k]) {
        snprintf(err, err_len, "%s: '%s' is given twice", name_of(rq, option), key);
        return -1;
    }
    /* the value read as --param reads a normal law's (law_param_set reads only the name
     * and the parameters of the law it is given) */
    const dem_law as_law = {.name = model, .params = params, .n_params = n};
    if (law_param_set(&as_law, values, kv, msg, sizeof msg) < 0) {
        snprintf(err, err_len, "%s: %s", name_of(rq, option), msg);
        return -1;
    }
    given[k] = true;
    return 0;
}

/* Every key the law requires (a NAN default) given: 0, or -1 naming the first missing. */
static int required_keys(const collision_request *rq, collision_input model_option,
                         collision_input keys_option, const char *model,
                         const law_param *params, int n, const double *values, char *err,
                         size_t err_len)
{
    for (int k = 0; k < n; k++)
        if (isnan(values[k])) {
            snprintf(err, err_len, "%s %s needs %s %s=VALUE (%s [%s])",
                     name_of(rq, model_option), model, name_of(rq, keys_option),
                     params[k].name, params[k].help, params[k].unit);
            return -1;
        }
    return 0;
}

/* friction (mu), the tangential law (Mindlin unless named) and its keys into *f. */
static int build_friction(const collision_request *rq, contact_friction *f, char *err,
                          size_t err_len)
{
    const bool named = rq->friction_model != NULL;
    f->mu = rq->friction;
    if ((named || rq->n_friction_params > 0) && !(rq->friction > 0.0)) {
        snprintf(err, err_len, "%s needs %s > 0",
                 name_of(rq, named ? COLLISION_FRICTION_MODEL : COLLISION_FRICTION_PARAMS),
                 name_of(rq, COLLISION_FRICTION));
        return -1;
    }
    if (!named && rq->n_friction_params == 0) { /* Mindlin, as a case without model */
        if (rq->given[COLLISION_TANGENTIAL_RESTITUTION])
            friction_set_tangential_param(f, "restitution", rq->tangential_restitution);
        return 0;
    }
    const tangential_law *law =
        named ? tangential_law_find(rq->friction_model) : tangential_law_at(0);
    if (!law) {
        char known[256];
        law_names(known, sizeof known, tangential_name, tangential_law_count());
        snprintf(err, err_len, "%s: unknown tangential law '%s'; the tangential laws are: %s",
                 name_of(rq, COLLISION_FRICTION_MODEL), rq->friction_model, known);
        return -1;
    }
    f->tangential = law;
    friction_param_defaults(law->params, law->n_params, f->tangential_params);
    bool given[FRICTION_MAX_PARAMS] = {false};
    for (int q = 0; q < rq->n_friction_params; q++)
        if (set_key(rq, COLLISION_FRICTION_PARAMS, law->name, law->params, law->n_params,
                    f->tangential_params, given, rq->friction_params[q], err, err_len))
            return -1;
    if (rq->given[COLLISION_TANGENTIAL_RESTITUTION]) {
        int k = friction_param_index(law->params, law->n_params, "restitution");
        char keys[256];
        key_names(keys, sizeof keys, law->params, law->n_params);
        if (k < 0) {
            snprintf(err, err_len, "%s: model %s has no tangential restitution; %s",
                     name_of(rq, COLLISION_TANGENTIAL_RESTITUTION), law->name, keys);
            return -1;
        }
        if (given[k]) {
            snprintf(err, err_len, "%s and %s restitution=: give the tangential restitution once",
                     name_of(rq, COLLISION_TANGENTIAL_RESTITUTION),
                     name_of(rq, COLLISION_FRICTION_PARAMS));
            return -1;
        }
        f->tangential_params[k] = rq->tangential_restitution;
    }
    if (required_keys(rq, COLLISION_FRICTION_MODEL, COLLISION_FRICTION_PARAMS, law->name,
                      law->params, law->n_params, f->tangential_params, err, err_len))
        return -1;
    law_error why = {.param = -1};
    if (friction_check(f, 0, &why) == 0) return 0;
    if (why.param < 0)
        snprintf(err, err_len, "%s: %s", name_of(rq, COLLISION_FRICTION_PARAMS), why.msg);
    else
        snprintf(err, err_len, "%s: %s = %g %s", name_of(rq, COLLISION_FRICTION_PARAMS),
                 law->params[why.param].name, f->tangential_params[why.param], why.msg);
    return -1;
}

/* The rolling law (none unless named), its coefficient and keys into *f. */
static int build_rolling(const collision_request *rq, contact_friction *f, char *err,
                         size_t err_len)
{
    const char *model = name_of(rq, COLLISION_ROLLING_MODEL);
    char known[256];
    law_names(known, sizeof known, rolling_name, rolling_law_count());
    if (!rq->rolling_model) {
        if (rq->given[COLLISION_ROLLING] || rq->n_rolling_params > 0) {
            snprintf(err, err_len, "%s needs %s NAME (one of: %s)",
                     name_of(rq, rq->given[COLLISION_ROLLING] ? COLLISION_ROLLING
                                                              : COLLISION_ROLLING_PARAMS),
                     model, known);
            return -1;
        }
        return 0;
    }
    const rolling_law *law = rolling_law_find(rq->rolling_model);
    if (!law) {
        snprintf(err, err_len, "%s: unknown rolling law '%s'; the rolling laws are: %s", model,
                 rq->rolling_model, known);
        return -1;
    }
    if (!rq->given[COLLISION_ROLLING]) {
        snprintf(err, err_len, "%s needs %s MU_R (the rolling resistance coefficient, in [0, %g])",
                 model, name_of(rq, COLLISION_ROLLING), ROLLING_MAX_COEFFICIENT);
        return -1;
    }
    if (!(rq->rolling >= 0.0 && rq->rolling <= ROLLING_MAX_COEFFICIENT)) {
        snprintf(err, err_len, "%s: %g is not a rolling resistance coefficient in [0, %g] (mu_r "
                 "R* is the lever arm of the resisting torque, which cannot lie outside the "
                 "sphere)", name_of(rq, COLLISION_ROLLING), rq->rolling, ROLLING_MAX_COEFFICIENT);
        return -1;
    }
    f->rolling = law;
    f->mu_rolling = rq->rolling;
    friction_param_defaults(law->params, law->n_params, f->rolling_params);
    bool given[FRICTION_MAX_PARAMS] = {false};
    for (int q = 0; q < rq->n_rolling_params; q++)
        if (set_key(rq, COLLISION_ROLLING_PARAMS, law->name, law->params, law->n_params,
                    f->rolling_params, given, rq->rolling_params[q], err, err_len))
            return -1;
    return required_keys(rq, COLLISION_ROLLING_MODEL, COLLISION_ROLLING_PARAMS, law->name,
                         law->params, law->n_params, f->rolling_params, err, err_len);
}

static const char *adhesion_name(int k) { return adhesion_law_at(k)->name; }

int collision_request_adhesion(const collision_request *rq, contact_adhesion *a, char *err,
                               size_t err_len)
{
    const char *model = name_of(rq, COLLISION_ADHESION);
    char known[256];
    law_names(known, sizeof known, adhesion_name, adhesion_law_count());
    if (!rq->adhesion) {
        if (rq->n_adhesion_params == 0) return 0;
        snprintf(err, err_len, "%s needs %s NAME (one of: %s)",
                 name_of(rq, COLLISION_ADHESION_PARAMS), model, known);
        return -1;
    }
    const adhesion_law *law = adhesion_law_find(rq->adhesion);
    if (!law) {
        snprintf(err, err_len, "%s: unknown adhesion law '%s'; the adhesion laws are: %s",
                 model, rq->adhesion, known);
        return -1;
    }
    friction_param_defaults(law->params, law->n_params, a->params);
    bool given[ADHESION_MAX_PARAMS] = {false};
    for (int q = 0; q < rq->n_adhesion_params; q++)
        if (set_key(rq, COLLISION_ADHESION_PARAMS, law->name, law->params, law->n_params,
                    a->params, given, rq->adhesion_params[q], err, err_len))
            return -1;
    if (required_keys(rq, COLLISION_ADHESION, COLLISION_ADHESION_PARAMS, law->name,
                      law->params, law->n_params, a->params, err, err_len))
        return -1;
    law_error why;
    /* beside the normal law where the request names one known (the entrance refuses
     * an unknown one) */
    const dem_law *normal = rq->law ? law_find(rq->law) : NULL;
    if (adhesion_check_params(law, a->params, normal, &why) != 0) {
        if (why.param < 0 || why.param >= law->n_params)
            snprintf(err, err_len, "%s %s: %s", model, law->name, why.msg);
        else
            snprintf(err, err_len, "%s: %s = %g: %s", name_of(rq, COLLISION_ADHESION_PARAMS),
                     law->params[why.param].name, a->params[why.param], why.msg);
        return -1;
    }
    a->law = law;
    return 0;
}

int collision_request_build(const collision_request *rq, collision_spec *sp, double *e_in,
                            char *err, size_t err_len)
{
    const dem_law *law = rq->law ? law_find(rq->law) : NULL;
    if (!law) {
        snprintf(err, err_len, "%s: unknown law '%s' (see dempact laws)",
                 name_of(rq, COLLISION_LAW), rq->law ? rq->law : "");
        return -1;
    }
    if (check_numbers(rq, err, err_len)) return -1;
    if (rq->calibrate && !law->calibration) {
        snprintf(err, err_len, "%s: law %s has no damping coefficient to calibrate",
                 name_of(rq, COLLISION_CALIBRATE), law->name);
        return -1;
    }
    collision_defaults(sp, law);
    sp->names = rq->names;
    int e_index = law_param_index(law, "restitution");
    for (int k = 0; k < rq->n_params; k++) {
        char key[64], msg[256];
        param_key(rq->params[k], key, sizeof key);
        for (int j = 0; j < k && *key; j++) {
            char other[64];
            param_key(rq->params[j], other, sizeof other);
            if (!strcmp(key, other)) {
                snprintf(err, err_len, "%s: '%s' is given twice", name_of(rq, COLLISION_PARAMS),
                         key);
                return -1;
            }
        }
        int q = law_param_set(law, sp->params, rq->params[k], msg, sizeof msg);
        if (q < 0) {
            snprintf(err, err_len, "%s: %s", name_of(rq, COLLISION_PARAMS), msg);
            return -1;
        }
        if (q == e_index && rq->given[COLLISION_RESTITUTION]) {
            snprintf(err, err_len, "%s %g and %s %s: give the restitution once",
                     name_of(rq, COLLISION_RESTITUTION), rq->restitution,
                     name_of(rq, COLLISION_PARAMS), rq->params[k]);
            return -1;
        }
    }
    if (rq->given[COLLISION_RESTITUTION]) {
        if (e_index < 0) {
            snprintf(err, err_len, "%s: law %s has no restitution parameter; set its own "
                     "parameters with %s (see dempact laws %s)",
                     name_of(rq, COLLISION_RESTITUTION), law->name,
                     name_of(rq, COLLISION_PARAMS), law->name);
            return -1;
        }
        /* the law's own range, as for its parameter given by name; a target is > 0 */
        const law_param *lp = &law->params[e_index];
        double lo = fmax(lp->min_value, 0.0);
        if (!(rq->restitution > 0.0 && rq->restitution >= lo && rq->restitution <= lp->max_value)) {
            snprintf(err, err_len, "%s: %g is not in %s%g, %g]", name_of(rq, COLLISION_RESTITUTION),
                     rq->restitution, lo > 0.0 ? "[" : "(", lo, lp->max_value);
            return -1;
        }
        sp->params[e_index] = rq->restitution;
    }
    *e_in = e_index >= 0 && sp->params[e_index] > 0 ? sp->params[e_index] : NAN; /* 0: unused */

    sp->velocity = rq->velocity;
    sp->radius = rq->radius;
    sp->density = rq->density;
    sp->young = rq->young;
    sp->poisson = rq->poisson;
    sp->dt = rq->dt_auto ? -1.0 : rq->dt;
    sp->cohesion_removal = rq->cohesion_removal;
    sp->calibrate = rq->calibrate;
    sp->tangential_velocity = rq->given[COLLISION_ANGLE]
                                  ? rq->velocity * tan(rq->angle * M_PI / 180.0)
                              : rq->given[COLLISION_TANGENTIAL_VELOCITY] ? rq->tangential_velocity
                                                                          : 0.0;
    memcpy(sp->spin, rq->spin, sizeof sp->spin);
    if (build_friction(rq, &sp->friction, err, err_len) ||
        build_rolling(rq, &sp->friction, err, err_len) ||
        collision_request_adhesion(rq, &sp->adhesion, err, err_len))
        return -1;
    return 0;
}
