/* What every plug-in shares (plugin.h): errors, parameter lookup and the form's checks. */
#include "plugin.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int law_fail(law_error *e, int param, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    e->param = param;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int law_plugin_param(const law_plugin *p, const char *name)
{
    for (int k = 0; k < p->n_params; k++)
        if (strcmp(p->params[k].name, name) == 0) return k;
    return -1;
}

void law_plugin_defaults(const law_plugin *p, double *values)
{
    for (int k = 0; k < p->n_params; k++) values[k] = p->params[k].default_value;
}

int law_plugin_check(const law_plugin *p, int max_params, int max_state, int finite_max,
                     unsigned allowed, char *err, size_t err_len)
{
    const char *name = p->name ? p->name : "(unnamed)";
    if (!p->name || !*p->name || !p->summary || !p->source) {
        snprintf(err, err_len, "%s: a plug-in needs a name, a summary and a source", name);
        return -1;
    }
    if (p->n_params < 0 || p->n_params > max_params || (p->n_params > 0 && !p->params)) {
        snprintf(err, err_len, "%s: %d parameters, its kind holds at most %d", name,
                 p->n_params, max_params);
        return -1;
    }
    if (p->n_state < 0 || p->n_state > max_state || (p->n_state > 0 && !p->state_names)) {
        snprintf(err, err_len, "%s: %d state values (each named), its kind holds at most %d",
                 name, p->n_state, max_state);
        return -1;
    }
    if (p->caps & ~allowed) {
        snprintf(err, err_len, "%s: flags 0x%x that its kind does not have", name,
                 p->caps & ~allowed);
        return -1;
    }
    for (int k = 0; k < p->n_params; k++) {
        const law_param *q = &p->params[k];
        if (!q->name || !q->unit || !q->help || law_plugin_param(p, q->name) != k) {
            snprintf(err, err_len, "%s: parameter %d needs a name of its own, a unit and help",
                     name, k);
            return -1;
        }
        if (!(q->min_value <= q->max_value) || (finite_max && !isfinite(q->max_value))) {
            snprintf(err, err_len, "%s: parameter %s has the range [%g, %g]", name, q->name,
                     q->min_value, q->max_value);
            return -1;
        }
        /* a default of 0 below a range that starts above 0 means "not given" */
        double d = q->default_value;
        if (!isnan(d) && !(d >= q->min_value && d <= q->max_value) && d != 0.0) {
            snprintf(err, err_len, "%s: parameter %s defaults to %g, outside [%g, %g]", name,
                     q->name, d, q->min_value, q->max_value);
            return -1;
        }
    }
    for (int k = 0; k < p->n_state; k++)
        if (!p->state_names[k]) {
            snprintf(err, err_len, "%s: state value %d has no name", name, k);
            return -1;
        }
    return 0;
}
