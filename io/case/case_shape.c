/* The case file's shape in the case's words: the first problem the schema check finds
 * (yaml_schema_check.h, against case_schema.c) as a message naming the line, the key
 * path as written, what belongs there and what the file has. */
#include "case_internal.h"

#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "yaml_schema_check.h"

/* "the file" for the root, else the path. */
static const char *where(const yaml_located *e)
{
    return e->path[0] ? e->path : "the file";
}

static void names_of(const cyaml_schema_value_t *v, name_list *out)
{
    if (!v) return;
    if (v->type == CYAML_MAPPING)
        for (const cyaml_schema_field_t *f = v->mapping.fields; f && f->key; f++)
            case_names_add(out, f->key);
    else if (v->type == CYAML_BITFIELD)
        for (uint32_t b = 0; b < v->bitfield.count; b++)
            case_names_add(out, v->bitfield.bitdefs[b].name);
    else if (v->type == CYAML_ENUM || v->type == CYAML_FLAGS)
        for (uint32_t s = 0; s < v->enumeration.count; s++)
            case_names_add(out, v->enumeration.strings[s].str);
}

/* What a value of schema v should look like, in words. */
static void describe_expected(const cyaml_schema_value_t *v, char *buf, size_t len)
{
    name_list names = {0};
    names_of(v, &names);
    switch (v ? v->type : CYAML_IGNORE) {
    case CYAML_SEQUENCE_FIXED:
        snprintf(buf, len, "a list of %" PRIu32 " %s", v->sequence.min,
                 case_schema_entry_words(v->sequence.entry));
        break;
    case CYAML_SEQUENCE: snprintf(buf, len, "a list of entries ('- ...')"); break;
    case CYAML_FLAGS: snprintf(buf, len, "a list of names from: %s", case_join(&names).s); break;
    case CYAML_MAPPING:
    case CYAML_BITFIELD: snprintf(buf, len, "a mapping with keys %s", case_join(&names).s); break;
    case CYAML_IGNORE: snprintf(buf, len, "something else"); break;
    default: snprintf(buf, len, "a single value"); break;
    }
    case_names_free(&names);
}

static void describe_found(const yaml_located *e, char *buf, size_t len)
{
    switch (e->kind) {
    case YNODE_SCALAR: snprintf(buf, len, "%s", case_show(e->scalar).s); break;
    case YNODE_SEQUENCE: snprintf(buf, len, "a list"); break;
    case YNODE_MAPPING: snprintf(buf, len, "a mapping"); break;
    default: snprintf(buf, len, "an alias"); break;
    }
}

/* The law named by the `law:` key beside a contact's params mapping, or NULL. */
static const dem_law *law_beside(const case_reader *c, const yaml_located *params)
{
    if (!params->key) return NULL;
    size_t n = strlen(params->path) - strlen(params->key);
    key_path law_key = case_key("%.*slaw", (int)n, params->path);
    const yaml_located *law = yaml_locator_find(&c->loc, law_key.s);
    return law && law->scalar ? law_find(law->scalar) : NULL;
}

/* The adhesion law named by the `model:` key of an adhesion mapping, or NULL. */
static const adhesion_law *adhesion_model(const case_reader *c, const yaml_located *mapping)
{
    key_path model_key = case_key("%s.model", mapping->path);
    const yaml_located *model = yaml_locator_find(&c->loc, model_key.s);
    return model && model->scalar ? adhesion_law_find(model->scalar) : NULL;
}

static int unknown_key(const case_reader *c, const yaml_schema_problem *p)
{
    shown key = case_show_key(p->at->key);
    const char *name = key.s, *in = p->parent->path;
    /* under a contact's params, name the law and its own parameters */
    if (p->schema->type == CYAML_MAPPING && p->schema->mapping.fields == c->schema->param_fields) {
        const dem_law *law = law_beside(c, p->parent);
        if (law) return case_report_unknown_param(c, in, name, law);
    }
    /* under an adhesion mapping, name its model and the model's own keys */
    if (p->schema->type == CYAML_MAPPING &&
        p->schema->mapping.fields == c->schema->adhesion.fields) {
        const adhesion_law *law = adhesion_model(c, p->parent);
        key_path at = case_key("%s.%s", in, name);
        if (law)
            return case_report_unknown_key(c, at.s, name, law->name, law->params, law->n_params);
    }
    name_list keys = {0};
    names_of(p->schema, &keys);
    hint h = case_did_you_mean(&keys, p->at->key, TYPO_DISTANCE);
    if (in[0])
        case_fail_line(c, p->at->line, "unknown key '%s' in %s%s", name, in, h.s);
    else
        case_fail_line(c, p->at->line, "unknown top-level key '%s'%s", name, h.s);
    if (!h.s[0] && keys.n > 0) {
        size_t used = strlen(c->err);
        snprintf(c->err + used, c->err_len - used, "; the keys there are: %s", case_join(&keys).s);
    }
    case_names_free(&keys);
    return -1;
}

static int list_length(const case_reader *c, const yaml_schema_problem *p)
{
    const cyaml_schema_value_t *v = p->schema;
    const char *at = p->at->path;
    if (v->type == CYAML_SEQUENCE_FIXED) {
        char expected[512];
        describe_expected(v, expected, sizeof expected);
        return case_fail_line(c, p->at->line, "%s: expected %s, got %zu", at, expected, p->count);
    }
    bool few = p->fault == YAML_SCHEMA_TOO_FEW;
    uint32_t n = few ? v->sequence.min : v->sequence.max;
    return case_fail_line(c, p->at->line, "%s: %s %" PRIu32 " entr%s, got %zu", at,
                          few ? "needs at least" : "takes at most", n, n == 1 ? "y" : "ies",
                          p->count);
}

static int bad_scalar(const case_reader *c, const yaml_schema_problem *p)
{
    const char *at = p->at->path, *text = p->at->scalar;
    const cyaml_schema_value_t *v = p->schema;
    int line = p->at->line;
    bool whole = v->type != CYAML_FLOAT;
    switch (p->fault) {
    case YAML_SCHEMA_NOT_A_NUMBER:
        return case_fail_line(c, line, "%s: expected a %s number, got %s", at,
                              whole ? "whole" : "finite", case_show(text).s);
    case YAML_SCHEMA_OUT_OF_RANGE:
        if (!whole)
            return case_fail_line(c, line, "%s = %s is out of range (beyond %g)", at, text,
                                  v->data_size == sizeof(float) ? FLT_MAX : DBL_MAX);
        return case_fail_line(c, line, "%s = %s is out of range [%" PRId64 ", %" PRIu64 "]", at,
                              text, p->min, p->max);
    case YAML_SCHEMA_NOT_A_BOOL:
        return case_fail_line(c, line, "%s: expected true or false, got %s", at,
                              case_show(text).s);
    case YAML_SCHEMA_NOT_A_CHOICE: {
        name_list choices = {0};
        names_of(v, &choices);
        case_fail_line(c, line, "%s = %s: expected one of: %s%s", at, case_show(text).s,
                       case_join(&choices).s, case_did_you_mean(&choices, text, TYPO_DISTANCE).s);
        case_names_free(&choices);
        return -1;
    }
    case YAML_SCHEMA_TOO_SHORT:
        if (v->string.min == 1) return case_fail_line(c, line, "%s: must not be empty", at);
        return case_fail_line(c, line, "%s: %s is shorter than %" PRIu32 " characters", at,
                              case_show(text).s, v->string.min);
    default:
        return case_fail_line(c, line, "%s: %s is longer than %" PRIu32 " characters", at,
                              case_show(text).s, v->string.max);
    }
}

int case_check_shape(const case_reader *c)
{
    yaml_schema_problem p;
    if (yaml_schema_check(&c->loc, &c->schema->top, &p) == 0) return 0;
    char expected[512], found[128];
    switch (p.fault) {
    case YAML_SCHEMA_UNKNOWN_KEY: return unknown_key(c, &p);
    case YAML_SCHEMA_MISSING_KEY:
        if (p.at->path[0])
            return case_fail_line(c, p.at->line, "%s: missing required key '%s'", p.at->path,
                                  p.name);
        return case_fail_line(c, p.at->line, "missing required top-level key '%s'", p.name);
    case YAML_SCHEMA_REPEATED_KEY:
        return case_fail_line(c, p.at->line, "%s: key '%s' repeats '%s' (keys are compared "
                              "ignoring case)", where(p.parent), p.at->key, p.name);
    case YAML_SCHEMA_WRONG_KIND:
        describe_expected(p.schema, expected, sizeof expected);
        describe_found(p.at, found, sizeof found);
        return case_fail_line(c, p.at->line, "%s: expected %s, got %s", where(p.at), expected,
                              found);
    case YAML_SCHEMA_TOO_FEW:
    case YAML_SCHEMA_TOO_MANY: return list_length(c, &p);
    case YAML_SCHEMA_ALIAS:
        return case_fail_line(c, p.at->line,
                              "%s: YAML aliases ('*name') are not supported in case files",
                              where(p.at));
    case YAML_SCHEMA_BAD_SCHEMA:
        return case_fail_line(c, p.at->line, "%s: the reader cannot check this key (a fault in "
                              "its schema, not in the file)", where(p.at));
    default: return bad_scalar(c, &p);
    }
}

/* libcyaml refused a document the check passed: its error code is all there is to say. */
int case_report_load_failure(const case_reader *c, cyaml_err_t e)
{
    snprintf(c->err, c->err_len, "%s: line unknown: cannot load the case (%s)", c->path,
             cyaml_strerror(e));
    return -1;
}
