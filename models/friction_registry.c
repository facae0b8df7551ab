/* Every tangential and rolling law the build knows. A new law is one file plus one line
 * here. The first tangential law is the default of friction.model. */
#include "friction_law.h"

#include <string.h>

extern const tangential_law tangential_mindlin, tangential_linear,
    tangential_mindlin_deresiewicz, tangential_viscous;
extern const rolling_law rolling_constant, rolling_spring, rolling_viscous;

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
    for (int k = 0; k < n_params; k++)
        if (strcmp(params[k].name, name) == 0) return k;
    return -1;
}

void friction_param_defaults(const law_param *params, int n_params, double *values)
{
    for (int k = 0; k < n_params; k++) values[k] = params[k].default_value;
}
