/* Every tangential and rolling law the build knows. A new law is one file plus one line
 * here (docs/architecture.md, "Adding a tangential or rolling law"). The first tangential
 * law is the default of friction.model. */
#include "friction_law.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const tangential_law tangential_mindlin, tangential_linear,
    tangential_mindlin_deresiewicz, tangential_viscous;
extern const rolling_law rolling_constant, rolling_spring, rolling_viscous,
    rolling_liggghts_cdt;

static const tangential_law *const tangential_registry[] = {
    &tangential_mindlin,
    &tangential_linear,
    &tangential_mindlin_deresiewicz,
    &tangential_viscous,
};

static const rolling_law *const rolling_registry[] = {
    &rolling_constant,
    &rolling_spring,
    &rolling_viscous,
    &rolling_liggghts_cdt,
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

int tangential_law_count(void) { return COUNT(tangential_registry); }

const tangential_law *tangential_law_at(int index)
{
    return index >= 0 && index < COUNT(tangential_registry) ? tangential_registry[index] : NULL;
}

const tangential_law *tangential_law_find(const char *name)
{
    for (int k = 0; k < COUNT(tangential_registry); k++)
        if (strcmp(tangential_registry[k]->name, name) == 0) return tangential_registry[k];
    return NULL;
}

int rolling_law_count(void) { return COUNT(rolling_registry); }

const rolling_law *rolling_law_at(int index)
{
    return index >= 0 && index < COUNT(rolling_registry) ? rolling_registry[index] : NULL;
}

const rolling_law *rolling_law_find(const char *name)
{
    for (int k = 0; k < COUNT(rolling_registry); k++)
        if (strcmp(rolling_registry[k]->name, name) == 0) return rolling_registry[k];
    return NULL;
}

int friction_param_index(const law_param *params, int n_params, const char *name)
{
    const law_plugin p = {.params = params, .n_params = n_params};
    return law_plugin_param(&p, name);
}

void friction_param_defaults(const law_param *params, int n_params, double *values)
{
    for (int k = 0; k < n_params; k++) values[k] = params[k].default_value;
}

/* A step key names one of the law's parameters, or its coefficient. */
static int bad_key(const law_plugin *p, const char *key)
{
    return key && strcmp(key, "coefficient") != 0 && law_plugin_param(p, key) < 0;
}

/* What the two kinds share beyond the plug-in form: setup, a force, flags that match the
 * functions, step keys that exist. */
static const char *check_friction_law(const law_plugin *p, int has_setup, int has_force,
                                      int has_energy, int has_stiffness, const char *k_key,
                                      const char *c_key)
{
    if (!has_setup || !has_force) return "needs setup and a batch or one-contact force";
    if (law_has(p, LAW_CAP_ENERGY) != has_energy)
        return "declares LAW_CAP_ENERGY exactly when it has spring_energy";
    if (law_has(p, LAW_CAP_STEP_SPRING) != has_stiffness)
        return "declares LAW_CAP_STEP_SPRING exactly when it has stiffness";
    if (bad_key(p, k_key) || bad_key(p, c_key))
        return "has a stiffness_key or damping_key that is not one of its keys";
    return NULL;
}

int friction_registry_check(char *err, size_t err_len)
{
    for (int k = 0; k < COUNT(tangential_registry); k++) {
        const tangential_law *t = tangential_registry[k];
        if (law_plugin_check(&t->plugin, FRICTION_MAX_PARAMS, FRICTION_SLIP_HISTORY, 1,
                             TANGENTIAL_LAW_CAPS, err, err_len) != 0)
            return -1;
        const char *why = check_friction_law(&t->plugin, t->setup != NULL,
                                             t->batch != NULL || t->one != NULL,
                                             t->spring_energy != NULL, t->stiffness != NULL,
                                             t->stiffness_key, t->damping_key);
        if (!why && t->n_state > 0 && t->batch) why = "keeps state, so works contact by contact";
        if (!why && tangential_law_find(t->name) != t) why = "has the name of another";
        if (why) {
            snprintf(err, err_len, "tangential law %s %s", t->name, why);
            return -1;
        }
    }
    for (int k = 0; k < COUNT(rolling_registry); k++) {
        const rolling_law *r = rolling_registry[k];
        if (law_plugin_check(&r->plugin, FRICTION_MAX_PARAMS, 0, 1, ROLLING_LAW_CAPS, err,
                             err_len) != 0)
            return -1;
        const char *why = check_friction_law(&r->plugin, r->setup != NULL,
                                             r->batch != NULL || r->one != NULL,
                                             r->spring_energy != NULL, r->stiffness != NULL,
                                             r->stiffness_key, r->damping_key);
        if (!why && r->batch && law_has(&r->plugin, LAW_CAP_USES_TURN))
            why = "reads the turn, which a batch does not carry: works contact by contact";
        if (!why && rolling_law_find(r->name) != r) why = "has the name of another";
        if (why) {
            snprintf(err, err_len, "rolling law %s %s", r->name, why);
            return -1;
        }
    }
    return 0;
}
