/* Every normal-force law the build knows. A new law is one file plus one line here
 * (docs/architecture.md, "Adding a normal law"). */
#include "law.h"
#include "law_params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const dem_law law_linear;
extern const dem_law law_hertz, law_hertz_critical_ratio, law_hertz_tti, law_hertz_kk,
    law_hertz_lh;
extern const dem_law law_hunt_crossley, law_lankarani_nikravesh, law_flores,
    law_gharib_hurmuzlu, law_hu_guo, law_safaeifar_farshidianfar,
    law_sheikhi_azqandi_safaeifar, law_hertzian_exact;
extern const dem_law law_zhang;
extern const dem_law law_kostek;

static const dem_law *const registry[] = {
    &law_linear,
    &law_hertz,
    &law_hertz_critical_ratio,
    &law_hertz_tti,
    &law_hertz_kk,
    &law_hertz_lh,
    &law_hunt_crossley,
    &law_lankarani_nikravesh,
    &law_flores,
    &law_gharib_hurmuzlu,
    &law_hu_guo,
    &law_safaeifar_farshidianfar,
    &law_sheikhi_azqandi_safaeifar,
    &law_hertzian_exact,
    &law_zhang,
    &law_kostek,
};

const char *const law_fit_names[] = {"calibrated", "published", NULL};

int law_count(void) { return (int)(sizeof registry / sizeof registry[0]); }

const dem_law *law_at(int index)
{
    return index >= 0 && index < law_count() ? registry[index] : NULL;
}

const dem_law *law_find(const char *name)
{
    for (int k = 0; k < law_count(); k++)
        if (strcmp(registry[k]->name, name) == 0) return registry[k];
    return NULL;
}

int law_param_index(const dem_law *law, const char *name)
{
    return law_plugin_param(&law->plugin, name);
}

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

const dem_law *law_find_parts(const char *elastic, const char *damping)
{
    for (int k = 0; k < law_count(); k++)
        if (same(registry[k]->elastic, elastic) && same(registry[k]->damping, damping))
            return registry[k];
    return NULL;
}

const char *law_part_at(int damping, int index)
{
    int seen = 0;
    for (int k = 0; k < law_count(); k++) {
        const char *part = damping ? registry[k]->damping : registry[k]->elastic;
        if (!part) continue;
        int earlier = 0;
        for (int j = 0; j < k && !earlier; j++)
            earlier = same(damping ? registry[j]->damping : registry[j]->elastic, part);
        if (!earlier && seen++ == index) return part;
    }
    return NULL;
}

/* A calibration's parameter index: -1, or one of the law's (want_restitution: in [0, 1]). */
static int bad_index(const dem_law *law, int k, int may_be_absent)
{
    return k < (may_be_absent ? -1 : 0) || k >= law->n_params;
}

static int check_law(const dem_law *law, char *err, size_t err_len)
{
    if (law_plugin_check(&law->plugin, LAW_MAX_PARAMS, LAW_MAX_HISTORY, 0, LAW_NORMAL_CAPS, err,
                         err_len) != 0)
        return -1;
    const char *why = NULL;
    const law_calibration *cal = law->calibration;
    if (!law->setup || !law->force)
        why = "needs setup and force";
    else if (law_has(&law->plugin, LAW_CAP_CONTACT_TIME) != (law->contact_time != NULL))
        why = "declares LAW_CAP_CONTACT_TIME exactly when it has contact_time";
    else if (law_has(&law->plugin, LAW_CAP_ENERGY) != (law->elastic_energy != NULL))
        why = "declares LAW_CAP_ENERGY exactly when it has elastic_energy";
    else if (law_has(&law->plugin, LAW_CAP_CALIBRATES) != (cal != NULL))
        why = "declares LAW_CAP_CALIBRATES exactly when it has a calibration";
    else if (law_has(&law->plugin, LAW_CAP_PLASTIC) &&
             law_has(&law->plugin, LAW_CAP_CONSERVATIVE | LAW_CAP_LINEAR_IN_RATE))
        why = "is plastic (rate independent), so neither conservative nor linear in d'";
    else if (!law->contact_time)
        why = "needs contact_time: the step is chosen from it";
    else if ((law->elastic == NULL) != (law->damping == NULL))
        why = "names both of its parts, or neither (a law of one piece)";
    else if (cal && (!cal->coefficient || cal->coeff < 0 || cal->coeff >= LAW_MAX_COEFFS ||
                     bad_index(law, cal->target, 0) || bad_index(law, cal->solved_param, 1) ||
                     bad_index(law, cal->fit, 1) || bad_index(law, cal->given_damping, 1)))
        why = "has a calibration whose coefficient or parameter indices are out of range";
    else if (cal && !(law->params[cal->target].min_value >= 0.0 &&
                      law->params[cal->target].max_value == 1.0))
        why = "has a calibration target that is not a restitution in [0, 1]";
    else if (cal && cal->fit >= 0 && law->params[cal->fit].choices != law_fit_names)
        why = "has a calibration whose fit is not the shared `fit` parameter (law_params.h)";
    if (why) {
        snprintf(err, err_len, "law %s %s", law->name, why);
        return -1;
    }
    for (int k = 0; k < law_count(); k++) {
        const dem_law *o = registry[k];
        if (o == law) break;
        if (same(o->name, law->name) || (law->elastic && same(o->elastic, law->elastic) &&
                                         same(o->damping, law->damping))) {
            snprintf(err, err_len, "law %s: law %s has its name or its two parts", law->name,
                     o->name);
            return -1;
        }
    }
    return 0;
}

int law_registry_check(char *err, size_t err_len)
{
    for (int k = 0; k < law_count(); k++)
        if (check_law(registry[k], err, err_len) != 0) return -1;
    return 0;
}

int law_param_set(const dem_law *law, double *params, const char *arg, char *err,
                  size_t err_len)
{
    char key[64];
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof key) {
        snprintf(err, err_len, "--param takes KEY=VALUE: '%s'", arg);
        return -1;
    }
    memcpy(key, arg, (size_t)(eq - arg));
    key[eq - arg] = '\0';
    int q = law_param_index(law, key);
    if (q < 0) {
        snprintf(err, err_len, "law %s has no parameter '%s' (see dempact laws %s)", law->name,
                 key, law->name);
        return -1;
    }
    const law_param *lp = &law->params[q];
    const char *text = eq + 1;
    double value = NAN;
    if (lp->choices) {
        for (int c = 0; lp->choices[c]; c++)
            if (!strcmp(lp->choices[c], text)) value = c;
        if (isnan(value)) {
            size_t used = (size_t)snprintf(err, err_len, "%s: %s is one of", arg, key);
            for (int c = 0; lp->choices[c] && used < err_len; c++)
                used += (size_t)snprintf(err + used, err_len - used, " %s", lp->choices[c]);
            return -1;
        }
    } else {
        char *end;
        value = *text ? strtod(text, &end) : NAN;
        if (!*text || *end != '\0' || !isfinite(value) || value < lp->min_value ||
            value > lp->max_value) {
            snprintf(err, err_len, "%s: %s must be a number in [%g, %g]", arg, key,
                     lp->min_value, lp->max_value);
            return -1;
        }
    }
    params[q] = value;
    return q;
}

double hertz_stiffness(double young_eff, double r_eff)
{
    return 4.0 / 3.0 * young_eff * sqrt(r_eff);
}

/* Largest overlap of an undamped Hertz impact: the kinetic energy m v0^2 / 2 is stored
 * as 2/5 K d^(5/2). */
double hertz_max_overlap(double k_hz, double m_eff, double v0)
{
    return pow(5.0 * m_eff * v0 * v0 / (4.0 * k_hz), 0.4);
}

/* Duration of an undamped Hertz impact: t = 2 x 1.4716 d_max / v0 (docs/physics.md). */
double hertz_contact_time(double young_eff, double r_eff, double m_eff, double v0)
{
    double d_max = hertz_max_overlap(hertz_stiffness(young_eff, r_eff), m_eff, v0);
    return 2.0 * 1.4716 * d_max / v0;
}

/* The first integral of m* d'' = -K d^n gives
 * t = 2 int_0^dmax dd / sqrt(v0^2 - 2K d^(n+1)/((n+1) m*))
 *   = 2 (dmax/v0) sqrt(pi) Gamma(1 + 1/(n+1)) / Gamma(1/2 + 1/(n+1)),
 * dmax = ((n+1) m* v0^2 / (2K))^(1/(n+1)). */
double power_law_contact_time(double k, double n, double m_eff, double v0)
{
    double p = n + 1.0;
    double d_max = pow(p * m_eff * v0 * v0 / (2.0 * k), 1.0 / p);
    return 2.0 * d_max / v0 * sqrt(M_PI) * tgamma(1.0 + 1.0 / p) / tgamma(0.5 + 1.0 / p);
}
