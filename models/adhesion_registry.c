/* Every adhesion law the build knows. A new law is one file plus one line here; a case
 * names one in a contact entry's `adhesion: {model: NAME, ...}`. */
#include "adhesion_law.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const adhesion_law adhesion_jkr, adhesion_dmt, adhesion_sjkr, adhesion_sjkr2,
    adhesion_capillary;

static const adhesion_law *const registry[] = {
    &adhesion_jkr,
    &adhesion_dmt,
    &adhesion_sjkr,
    &adhesion_sjkr2,
    &adhesion_capillary,
};

#define COUNT ((int)(sizeof registry / sizeof registry[0]))

int adhesion_law_count(void) { return COUNT; }

const adhesion_law *adhesion_law_at(int index)
{
    return index >= 0 && index < COUNT ? registry[index] : NULL;
}

const adhesion_law *adhesion_law_find(const char *name)
{
    for (int k = 0; k < COUNT; k++)
        if (strcmp(registry[k]->name, name) == 0) return registry[k];
    return NULL;
}

/* The plug-in form (plugin.h) with the kind's capacities, keys with a finite largest
 * value (adhesion_parts.h says why each), no per-contact state; then the functions every
 * adhesion law has, LAW_CAP_ENERGY exactly with `energy`, and a name of its own. */
int adhesion_registry_check(char *err, size_t err_len)
{
    for (int k = 0; k < COUNT; k++) {
        const adhesion_law *a = registry[k];
        if (law_plugin_check(&a->plugin, ADHESION_MAX_PARAMS, 0, 1, ADHESION_LAW_CAPS, err,
                             err_len) != 0)
            return -1;
        const char *why = NULL;
        if (!a->setup || !a->force || !a->reach || !a->pull_off)
            why = "needs setup, force, reach and pull_off";
        else if (law_has(&a->plugin, LAW_CAP_ENERGY) != (a->energy != NULL))
            why = "declares LAW_CAP_ENERGY exactly when it has energy";
        else if (law_has(&a->plugin, LAW_CAP_STEP_SPRING) != (a->dashpot != NULL))
            why = "declares LAW_CAP_STEP_SPRING exactly when it has a dashpot";
        else if (a->dashpot && law_plugin_param(&a->plugin, a->damping_key ? a->damping_key : "") < 0)
            why = "has a damping_key that is not one of its keys";
        else if (adhesion_law_find(a->name) != a)
            why = "has the name of another";
        if (why) {
            snprintf(err, err_len, "adhesion law %s %s", a->name, why);
            return -1;
        }
    }
    return 0;
}

int adhesion_check_params(const adhesion_law *law, const double *params, const dem_law *normal,
                          law_error *why)
{
    const law_pair_props unknown = {.young_eff = NAN, .shear_eff = NAN, .density_a = NAN,
                                    .density_b = NAN, .law_restitution = NAN};
    adhesion_coeffs ac = {.law = law};
    *why = (law_error){.param = -1};
    return law->setup(params, &unknown, normal, NULL, &ac, why) == 0 ? 0 : -1;
}
