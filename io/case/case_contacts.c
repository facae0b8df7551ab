/* The contacts: per pair of materials, a law (models/) with its parameters, and the
 * friction, rolling resistance and adhesion it applies. */
#include "case_internal.h"
#include "engine/step/friction.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------
 * Contacts: a law and its parameters per pair of materials.
 * ---------------------------------------------------------------------------------- */

static void law_names(name_list *out)
{
    for (int k = 0; k < law_count(); k++)
        if (law_at(k)) case_names_add(out, law_at(k)->name);
}

static void param_names(const dem_law *law, name_list *out)
{
    for (int k = 0; k < law->n_params; k++) case_names_add(out, law->params[k].name);
}

int case_report_unknown_param(const case_reader *c, const char *mapping_path,
                              const char *name, const dem_law *law)
{
    key_path where = case_key("%s.%s", mapping_path, name);
    if (law->n_params == 0)
        return case_fail_at(c, where.s, "%s: law '%s' takes no parameters", where.s, law->name);
    name_list known = {0};
    param_names(law, &known);
    case_fail_at(c, where.s, "%s: law '%s' has no parameter '%s'%s; its parameters are: %s",
                 where.s, law->name, name, case_did_you_mean(&known, name, TYPO_DISTANCE).s,
                 case_join(&known).s);
    case_names_free(&known);
    return -1;
}

static int read_law(case_reader *c, const char *at, const char *name, const dem_law **out)
{
    key_path where = case_key("%s.law", at);
    if ((*out = law_find(name ? name : ""))) return 0;
    name_list known = {0};
    law_names(&known);
    if (!name || !*name) {
        case_fail_at(c, where.s, "%s: expected a law name (or the law's two parts, elastic "
                     "and damping); the laws are: %s", where.s,
                     case_join(&known).s);
        case_names_free(&known);
        return -1;
    }
    size_t n = name ? strlen(name) : 0;
    int tolerance = n / 2 > TYPO_DISTANCE ? (int)(n / 2) : TYPO_DISTANCE;
    case_fail_at(c, where.s, "%s: unknown law %s%s; the laws are: %s", where.s, case_show(name).s,
                 case_did_you_mean(&known, name ? name : "", tolerance).s, case_join(&known).s);
    case_names_free(&known);
    return -1;
}

/* A law named by its two parts (law: {elastic, damping} as two keys beside law, the
 * composition models/normal_parts.h gives): the registered law that combines them. */
static int read_law_parts(case_reader *c, const char *at, const raw_contact *r,
                          const dem_law **out)
{
    key_path where = case_key("%s.%s", at, r->elastic ? "damping" : "elastic");
    if (r->law)
        return case_fail_at(c, where.s, "%s: give the law by its name (law: %s) or by its two "
                            "parts (elastic, damping), not both", at, r->law);
    if (!r->elastic || !r->damping)
        return case_fail_at(c, where.s, "%s: a law given by its parts needs both elastic and "
                            "damping (dempact laws --parts lists them)", at);
    if ((*out = law_find_parts(r->elastic, r->damping))) return 0;
    name_list known = {0};
    key_path *pairs = calloc((size_t)law_count(), sizeof *pairs); /* NULL: a shorter message */
    for (int k = 0; pairs && k < law_count(); k++)
        if (law_at(k)->elastic) {
            pairs[k] = case_key("%s+%s", law_at(k)->elastic, law_at(k)->damping);
            case_names_add(&known, pairs[k].s);
        }
    key_path asked = case_key("%s+%s", r->elastic, r->damping);
    case_fail_at(c, where.s, "%s: no law combines elastic %s with damping %s%s; the "
                 "combinations are: %s", at, case_show(r->elastic).s, case_show(r->damping).s,
                 case_did_you_mean(&known, asked.s, TYPO_DISTANCE).s, case_join(&known).s);
    case_names_free(&known);
    free(pairs);
    return -1;
}

static const char *given_param(const case_reader *c, const raw_contact *r, const char *name)
{
    int u = case_param_name_index(c->schema, name);
    return r->params && u >= 0 ? r->params[u] : NULL;
}

static int read_choice(const case_reader *c, const char *path, const law_param *p,
                       const char *text, double *out)
{
    name_list choices = {0};
    for (int k = 0; p->choices[k]; k++) {
        if (strcmp(p->choices[k], text) == 0) {
            case_names_free(&choices);
            *out = k;
            return 0;
        }
        case_names_add(&choices, p->choices[k]);
    }
    case_fail_at(c, path, "%s = %s: expected one of: %s%s", path, text, case_join(&choices).s,
                 case_did_you_mean(&choices, text, TYPO_DISTANCE).s);
    case_names_free(&choices);
    return -1;
}

/* A law parameter's value at `path`: one of its choices by name, or a number in its range. */
static int read_value(const case_reader *c, const char *path, const law_param *p,
                      const char *text, double *out)
{
    if (p->choices) return read_choice(c, path, p, text, out);
    if (case_read_number(c, path, text, out) != 0) return -1;
    if (*out >= p->min_value && *out <= p->max_value) return 0;
    return case_fail_at(c, path, "%s = %s is out of range [%g, %g]", path, text, p->min_value,
                        p->max_value);
}

static int read_param(const case_reader *c, const char *at, const law_param *p,
                      const char *text, double *out)
{
    key_path where = case_key("%s.params.%s", at, p->name);
    return read_value(c, where.s, p, text, out);
}

static int read_params(case_reader *c, const char *at, const raw_contact *r, law_binding *b)
{
    const dem_law *law = b->law;
    key_path params = case_key("%s.params", at);
    for (int u = 0; r->params && u < c->schema->n_param_names; u++)
        if (r->params[u] && law_param_index(law, c->schema->param_names[u]) < 0)
            return case_report_unknown_param(c, params.s, c->schema->param_names[u], law);
    if (law->n_params > LAW_MAX_PARAMS)
        return case_fail_at(c, at, "%s: law '%s' has more than %d parameters", at, law->name,
                            LAW_MAX_PARAMS);
    for (int k = 0; k < law->n_params; k++) {
        const law_param *p = &law->params[k];
        const char *text = given_param(c, r, p->name);
        if (text) {
            if (read_param(c, at, p, text, &b->params[k]) != 0) return -1;
        } else if (law_param_required(law, k, b->calibrate)) {
            return case_fail_at(c, at, "%s: law '%s' needs parameter '%s' (%s [%s]); add it under "
                                  "params:", at, law->name, p->name, p->help ? p->help : "",
                           p->unit ? p->unit : "-");
        } else {
            b->params[k] = p->default_value;
        }
    }
    return 0;
}

static const char *tangential_name(int k) { return tangential_law_at(k)->name; }
static const char *rolling_name(int k) { return rolling_law_at(k)->name; }

/* A friction or rolling law's name at `path`: its index among the n laws of its registry
 * (name_at(k) the k-th's name) in *out, or a message listing them. */
static int read_model(const case_reader *c, const char *path, const char *text,
                      const char *(*name_at)(int), int n, int *out)
{
    name_list known = {0};
    for (int k = 0; k < n; k++) {
        if (text && strcmp(name_at(k), text) == 0) {
            case_names_free(&known);
            *out = k;
            return 0;
        }
        case_names_add(&known, name_at(k));
    }
    case_fail_at(c, path, "%s = %s: expected one of: %s%s", path, case_show(text).s,
                 case_join(&known).s,
                 text ? case_did_you_mean(&known, text, TYPO_DISTANCE).s : "");
    case_names_free(&known);
    return -1;
}

int case_report_unknown_key(const case_reader *c, const char *path, const char *name,
                            const char *model, const law_param *params, int n_params)
{
    name_list known = {0};
    for (int q = 0; q < n_params; q++) case_names_add(&known, params[q].name);
    case_fail_at(c, path, "%s: model %s takes no key '%s'%s; %s%s", path, model, name,
                 case_did_you_mean(&known, name, TYPO_DISTANCE).s,
                 n_params ? "its own keys are: " : "it has no keys of its own",
                 case_join(&known).s);
    case_names_free(&known);
    return -1;
}

/* The keys of a friction, rolling or adhesion mapping at `path` beside its fixed ones, for the
 * law `name` that takes params[n_params]: each one given must be the law's, in its
 * range, and each the law requires must be given. values[] gets them, defaults for the
 * rest. */
static int read_law_keys(const case_reader *c, const char *path, const key_slots *slots,
                         char *const *given, const char *name, const law_param *params,
                         int n_params, double *values)
{
    friction_param_defaults(params, n_params, values);
    for (int u = 0; u < slots->n; u++) {
        if (!given[u]) continue;
        key_path where = case_key("%s.%s", path, slots->names[u]);
        int k = friction_param_index(params, n_params, slots->names[u]);
        if (k >= 0) {
            if (read_value(c, where.s, &params[k], given[u], &values[k]) != 0) return -1;
            continue;
        }
        return case_report_unknown_key(c, where.s, slots->names[u], name, params, n_params);
    }
    for (int k = 0; k < n_params; k++)
        if (isnan(values[k]))
            return case_fail_at(c, path, "%s: model %s needs %s (%s [%s])", path, name,
                                params[k].name, params[k].help, params[k].unit);
    return 0;
}

/* The law's own check of its keys against each other and the coefficient: its setup
 * (engine/step/friction.h, friction_check), refusing at the key it names. */
static int check_law_keys(const case_reader *c, const char *path, const contact_friction *f,
                          int rolling, const law_param *params, const double *values)
{
    law_error why = {.param = -1};
    if (friction_check(f, rolling, &why) == 0) return 0;
    if (why.param < 0) return case_fail_at(c, path, "%s: %s", path, why.msg);
    key_path where = case_key("%s.%s", path, params[why.param].name);
    return case_fail_at(c, where.s, "%s = %g %s", where.s, values[why.param], why.msg);
}

/* A coefficient at `path` in [0, max] (friction_law.h says why each max). */
static int read_coefficient(const case_reader *c, const char *path, const char *text,
                            double max, const char *why, double *out)
{
    if (case_read_non_negative(c, path, text, out) != 0) return -1;
    if (*out <= max) return 0;
    return case_fail_at(c, path, "%s = %s is out of range [0, %g]: %s", path, text, max, why);
}

/* friction: {coefficient, model (a tangential law, default the registry's first), and
 * the law's own keys} */
static int read_friction(case_reader *c, const char *at, const raw_friction *r,
                         contact_friction *f)
{
    key_path path = case_key("%s.friction", at);
    key_path p = case_key("%s.coefficient", path.s);
    if (read_coefficient(c, p.s, r->coefficient, FRICTION_MAX_COEFFICIENT,
                         "a larger one is no slip all the same", &f->mu) != 0)
        return -1;
    int model = 0; /* without model: the registry's first */
    p = case_key("%s.model", path.s);
    if (r->model &&
        read_model(c, p.s, r->model, tangential_name, tangential_law_count(), &model) != 0)
        return -1;
    const tangential_law *law = f->tangential = tangential_law_at(model);
    if (read_law_keys(c, path.s, &c->schema->friction, r->keys, law->name, law->params,
                      law->n_params, f->tangential_params) != 0)
        return -1;
    return check_law_keys(c, path.s, f, 0, law->params, f->tangential_params);
}

/* rolling: {model (a rolling law), coefficient, and the law's own keys} */
static int read_rolling(case_reader *c, const char *at, const raw_rolling *r,
                        contact_friction *f)
{
    key_path path = case_key("%s.rolling", at);
    int model = 0;
    key_path p = case_key("%s.model", path.s);
    if (read_model(c, p.s, r->model, rolling_name, rolling_law_count(), &model) != 0) return -1;
    const rolling_law *law = f->rolling = rolling_law_at(model);
    p = case_key("%s.coefficient", path.s);
    if (read_coefficient(c, p.s, r->coefficient, ROLLING_MAX_COEFFICIENT,
                         "mu_r R* is the lever arm of the resisting torque, which cannot lie "
                         "outside the sphere (typical values 0.001 to 0.3)", &f->mu_rolling) != 0)
        return -1;
    if (read_law_keys(c, path.s, &c->schema->rolling, r->keys, law->name, law->params,
                      law->n_params, f->rolling_params) != 0)
        return -1;
    return check_law_keys(c, path.s, f, 1, law->params, f->rolling_params);
}

static const char *adhesion_name(int k) { return adhesion_law_at(k)->name; }

/* adhesion: {model (an adhesion law), and the law's own keys}. Without the mapping the
 * pair has none (law NULL): no adhesion unless the case names it. */
static int read_adhesion(case_reader *c, const char *at, const raw_adhesion *r,
                         const dem_law *normal, contact_adhesion *a)
{
    key_path path = case_key("%s.adhesion", at);
    key_path p = case_key("%s.model", path.s);
    int model = 0;
    if (read_model(c, p.s, r->model, adhesion_name, adhesion_law_count(), &model) != 0)
        return -1;
    const adhesion_law *law = adhesion_law_at(model);
    if (law->n_params > ADHESION_MAX_PARAMS) /* adhesion_registry_check holds laws to it */
        return case_fail_at(c, p.s, "%s: model %s takes more than %d keys", p.s, law->name,
                            ADHESION_MAX_PARAMS);
    if (read_law_keys(c, path.s, &c->schema->adhesion, r->keys, law->name, law->params,
                      law->n_params, a->params) != 0)
        return -1;
    law_error why;
    if (adhesion_check_params(law, a->params, normal, &why) != 0) {
        if (why.param < 0 || why.param >= law->n_params)
            return case_fail_at(c, p.s, "%s: %s", p.s, why.msg);
        key_path where = case_key("%s.%s", path.s, law->params[why.param].name);
        return case_fail_at(c, where.s, "%s = %g: %s", where.s, a->params[why.param], why.msg);
    }
    a->law = law;
    return 0;
}

static int read_contact(case_reader *c, int i, law_binding *b)
{
    const raw_contact *r = &c->raw->contacts[i];
    key_path at = case_key("contacts[%d]", i);
    key_path mats = case_key("%s.materials", at.s);
    for (int k = 0; k < 2; k++) {
        key_path item = case_key("%s[%d]", mats.s, k);
        if (case_resolve_material(c, item.s, r->materials[k], k ? &b->material_b : &b->material_a))
            return -1;
    }
    for (int j = 0; j < i; j++) {
        const law_binding *o = &c->cfg->bindings[j];
        if ((o->material_a == b->material_a && o->material_b == b->material_b) ||
            (o->material_a == b->material_b && o->material_b == b->material_a)) {
            key_path other = case_key("contacts[%d]", j);
            return case_fail_at(c, mats.s, "%s: the pair [%s, %s] already has a contact entry "
                                      "(contacts[%d], line %d)", mats.s, r->materials[0],
                           r->materials[1], j, yaml_locator_line(&c->loc, other.s));
        }
    }
    if (r->elastic || r->damping ? read_law_parts(c, at.s, r, &b->law) != 0
                                 : read_law(c, at.s, r->law, &b->law) != 0)
        return -1;
    b->cohesion_removal = true;
    key_path cr = case_key("%s.cohesion_removal", at.s);
    if (r->cohesion_removal && case_read_bool(c, cr.s, r->cohesion_removal, &b->cohesion_removal))
        return -1;
    key_path cal = case_key("%s.calibrate", at.s);
    if (r->calibrate && case_read_bool(c, cal.s, r->calibrate, &b->calibrate)) return -1;
    if (r->friction && read_friction(c, at.s, r->friction, &b->friction) != 0) return -1;
    if (r->rolling && read_rolling(c, at.s, r->rolling, &b->friction) != 0) return -1;
    if (r->adhesion && read_adhesion(c, at.s, r->adhesion, b->law, &b->adhesion) != 0) return -1;
    return read_params(c, at.s, r, b);
}

int case_read_contacts(case_reader *c)
{
    sim_config *cfg = c->cfg;
    int n = (int)c->raw->contacts_count;
    if (!(cfg->bindings = calloc((size_t)n, sizeof *cfg->bindings)))
        return case_fail_memory(c, NULL, "out of memory");
    for (int i = 0; i < n; i++) {
        cfg->n_bindings = i + 1;
        if (read_contact(c, i, &cfg->bindings[i]) != 0) return -1;
    }
    return 0;
}
