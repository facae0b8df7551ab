/* Every normal-force law the build knows. A new law is one file plus one line here. */
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
    for (int k = 0; k < law->n_params; k++)
        if (strcmp(law->params[k].name, name) == 0) return k;
    return -1;
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
