/* libcyaml's errors in the case's words: its log (a problem and a backtrace) turned
 * into the key path at fault, and a message naming the key, what was expected there
 * and what the file has. */
#include "case_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------
 * libcyaml's errors. It logs "Load: <problem>" and then a backtrace, innermost first:
 *   Load: Unexpected key: radiuss
 *   Load: Backtrace:
 *     in mapping (line: 12, column: 13)
 *     in sequence entry '1' (line: 10, column: 5)
 *     in mapping field 'particles' (line: 10, column: 3)
 * Entries count from 1. The lines there are those of the last event read, not of the
 * key at fault, so the backtrace only gives the path; the locator gives the line.
 * ---------------------------------------------------------------------------------- */

void case_capture_cyaml_log(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
    cyaml_log_buffer *b = ctx;
    if (level < CYAML_LOG_ERROR || b->len + 1 >= sizeof b->text) return;
    int w = vsnprintf(b->text + b->len, sizeof b->text - b->len, fmt, args);
    if (w > 0) b->len += (size_t)w < sizeof b->text - b->len ? (size_t)w
                                                             : sizeof b->text - 1 - b->len;
}

typedef enum frame_kind { FRAME_FIELD, FRAME_ENTRY, FRAME_MAPPING } frame_kind;

typedef struct trace_frame {
    frame_kind kind;
    char key[64];
    unsigned entry; /* 1-based */
} trace_frame;

typedef struct cyaml_report {
    char problem[256];
    trace_frame frames[48]; /* outermost first */
    int n_frames;
} cyaml_report;

static bool parse_frame(const char *line, trace_frame *f)
{
    static const char field[] = "in mapping field '", entry[] = "in sequence entry '",
                      mapping[] = "in mapping (";
    while (*line == ' ') line++;
    if (strncmp(line, field, sizeof field - 1) == 0) {
        const char *k = line + sizeof field - 1, *q = strchr(k, '\'');
        if (!q) return false;
        size_t n = (size_t)(q - k) < sizeof f->key - 1 ? (size_t)(q - k) : sizeof f->key - 1;
        *f = (trace_frame){.kind = FRAME_FIELD};
        memcpy(f->key, k, n);
        return true;
    }
    if (strncmp(line, entry, sizeof entry - 1) == 0) {
        *f = (trace_frame){.kind = FRAME_ENTRY};
        f->entry = (unsigned)strtoul(line + sizeof entry - 1, NULL, 10);
        return true;
    }
    if (strncmp(line, mapping, sizeof mapping - 1) == 0) {
        *f = (trace_frame){.kind = FRAME_MAPPING};
        return true;
    }
    return false;
}

static void parse_cyaml_log(const cyaml_log_buffer *b, cyaml_report *r)
{
    memset(r, 0, sizeof *r);
    trace_frame inner_first[48];
    int n = 0;
    for (const char *line = b->text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char one[320];
        int shown_len = (int)(len < sizeof one ? len : sizeof one - 1);
        snprintf(one, sizeof one, "%.*s", shown_len, line);
        if (strncmp(one, "Load: ", 6) == 0) {
            if (!r->problem[0] && strcmp(one + 6, "Backtrace:") != 0)
                snprintf(r->problem, sizeof r->problem, "%s", one + 6);
        } else if (n < 48 && parse_frame(one, &inner_first[n])) {
            n++;
        }
        line = nl ? nl + 1 : NULL;
    }
    for (int k = 0; k < n; k++) r->frames[k] = inner_first[n - 1 - k];
    r->n_frames = n;
}

static void drop_innermost(cyaml_report *r, frame_kind a, frame_kind b)
{
    if (r->n_frames > 0 &&
        (r->frames[r->n_frames - 1].kind == a || r->frames[r->n_frames - 1].kind == b))
        r->n_frames--;
}

static key_path path_of(const cyaml_report *r)
{
    key_path p = {""};
    for (int k = 0; k < r->n_frames; k++) {
        const trace_frame *f = &r->frames[k];
        size_t used = strlen(p.s);
        if (f->kind == FRAME_FIELD)
            snprintf(p.s + used, sizeof p.s - used, "%s%s", used ? "." : "", f->key);
        else if (f->kind == FRAME_ENTRY)
            snprintf(p.s + used, sizeof p.s - used, "[%u]", f->entry ? f->entry - 1 : 0);
    }
    return p;
}

/* The schema of the value at the report's path, or NULL. */
static const cyaml_schema_value_t *schema_at(const case_schema *s, const cyaml_report *r)
{
    const cyaml_schema_value_t *v = &s->top;
    for (int k = 0; v && k < r->n_frames; k++) {
        const trace_frame *f = &r->frames[k];
        if (f->kind == FRAME_FIELD) {
            const cyaml_schema_field_t *field =
                v->type == CYAML_MAPPING ? v->mapping.fields : NULL;
            while (field && field->key && strcmp(field->key, f->key) != 0) field++;
            v = field && field->key ? &field->value : NULL;
        } else if (f->kind == FRAME_ENTRY) {
            bool seq = v->type == CYAML_SEQUENCE || v->type == CYAML_SEQUENCE_FIXED;
            v = seq ? v->sequence.entry : NULL;
        }
    }
    return v;
}

static const char *last_key(const cyaml_report *r)
{
    for (int k = r->n_frames - 1; k >= 0; k--)
        if (r->frames[k].kind == FRAME_FIELD) return r->frames[k].key;
    return "";
}

static void mapping_keys(const cyaml_schema_value_t *v, name_list *out)
{
    if (!v || v->type != CYAML_MAPPING) return;
    for (const cyaml_schema_field_t *f = v->mapping.fields; f && f->key; f++)
        case_names_add(out, f->key);
}

/* What a value of schema v (the value of `key`) should look like, in words. */
static void describe_expected(const cyaml_schema_value_t *v, const char *key, char *buf,
                              size_t len)
{
    if (!v) {
        snprintf(buf, len, "something else");
        return;
    }
    switch (v->type) {
    case CYAML_SEQUENCE_FIXED: {
        const char *what = strcmp(key, "periodic") == 0    ? "true/false values"
                           : strcmp(key, "materials") == 0 ? "material names"
                                                           : "numbers";
        snprintf(buf, len, "a list of %u %s", v->sequence.min, what);
        break;
    }
    case CYAML_SEQUENCE: snprintf(buf, len, "a list of entries ('- ...')"); break;
    case CYAML_MAPPING: {
        name_list keys = {0};
        mapping_keys(v, &keys);
        snprintf(buf, len, "a mapping with keys %s", case_join(&keys).s);
        case_names_free(&keys);
        break;
    }
    default: snprintf(buf, len, "a single value"); break;
    }
}

static void describe_found(const yaml_located *e, char *buf, size_t len)
{
    if (!e) {
        snprintf(buf, len, "something else");
        return;
    }
    switch (e->kind) {
    case YNODE_SCALAR: snprintf(buf, len, "%s", case_show(e->scalar).s); break;
    case YNODE_SEQUENCE: snprintf(buf, len, "a list"); break;
    case YNODE_MAPPING: snprintf(buf, len, "a mapping"); break;
    default: snprintf(buf, len, "an alias"); break;
    }
}

static int report_unknown_key(const case_reader *c, const cyaml_report *r, const char *name)
{
    key_path at = path_of(r);
    /* An unknown name under params: name the law and its own parameters. */
    size_t n = strlen(at.s);
    if (n > 7 && strcmp(at.s + n - 7, ".params") == 0) {
        key_path law_key = case_key("%.*s.law", (int)(n - 7), at.s);
        const yaml_located *e = yaml_locator_find(&c->loc, law_key.s);
        const dem_law *law = e && e->scalar ? law_find(e->scalar) : NULL;
        if (law) return case_report_unknown_param(c, at.s, name, law);
    }
    name_list keys = {0};
    mapping_keys(schema_at(c->schema, r), &keys);
    hint h = case_did_you_mean(&keys, name, TYPO_DISTANCE);
    key_path where = at.s[0] ? case_key("%s.%s", at.s, name) : case_key("%s", name);
    if (at.s[0])
        case_fail_at(c, where.s, "unknown key '%s' in %s%s", name, at.s, h.s);
    else
        case_fail_at(c, where.s, "unknown top-level key '%s'%s", name, h.s);
    if (!h.s[0] && keys.n > 0) {
        size_t used = strlen(c->err);
        snprintf(c->err + used, c->err_len - used, "; the keys there are: %s", case_join(&keys).s);
    }
    case_names_free(&keys);
    return -1;
}

static int report_wrong_kind(const case_reader *c, const cyaml_report *r)
{
    key_path at = path_of(r);
    char expected[512], found[128];
    describe_expected(schema_at(c->schema, r), last_key(r), expected, sizeof expected);
    describe_found(yaml_locator_find(&c->loc, at.s), found, sizeof found);
    return case_fail_at(c, at.s, "%s: expected %s, got %s", at.s[0] ? at.s : "the file", expected,
                        found);
}

static int report_list_length(const case_reader *c, const cyaml_report *r)
{
    key_path at = path_of(r);
    const cyaml_schema_value_t *v = schema_at(c->schema, r);
    int found = yaml_locator_sequence_length(&c->loc, at.s);
    if (v && v->type == CYAML_SEQUENCE_FIXED) {
        char expected[512];
        describe_expected(v, last_key(r), expected, sizeof expected);
        return case_fail_at(c, at.s, "%s: expected %s, got %d", at.s, expected, found);
    }
    unsigned min = v ? v->sequence.min : 1;
    return case_fail_at(c, at.s, "%s: needs at least %u entr%s, got %d", at.s, min,
                        min == 1 ? "y" : "ies", found);
}

int case_report_cyaml_error(const case_reader *c, cyaml_err_t e, const cyaml_log_buffer *b)
{
    cyaml_report r;
    parse_cyaml_log(b, &r);
    switch (e) {
    case CYAML_ERR_INVALID_KEY: {
        const char *p = strstr(r.problem, "Unexpected key: ");
        drop_innermost(&r, FRAME_MAPPING, FRAME_MAPPING);
        return report_unknown_key(c, &r, p ? p + 16 : "?");
    }
    case CYAML_ERR_MAPPING_FIELD_MISSING: {
        /* The innermost frame is the mapping itself, sometimes shown with a stale field. */
        const char *p = strstr(r.problem, "field: ");
        drop_innermost(&r, FRAME_FIELD, FRAME_MAPPING);
        key_path at = path_of(&r);
        if (at.s[0])
            return case_fail_at(c, at.s, "%s: missing required key '%s'", at.s, p ? p + 7 : "?");
        return case_fail_at(c, at.s, "missing required top-level key '%s'", p ? p + 7 : "?");
    }
    case CYAML_ERR_SEQUENCE_ENTRIES_MIN:
    case CYAML_ERR_SEQUENCE_ENTRIES_MAX:
        drop_innermost(&r, FRAME_ENTRY, FRAME_ENTRY);
        return report_list_length(c, &r);
    case CYAML_ERR_INVALID_VALUE:
        if (strncmp(r.problem, "Expecting ", 10) == 0) return report_wrong_kind(c, &r);
        break;
    case CYAML_ERR_ALIAS: {
        key_path at = path_of(&r);
        return case_fail_at(c, at.s, "%s: YAML aliases ('*name') are not supported in case files",
                            at.s[0] ? at.s : "the file");
    }
    default: break;
    }
    key_path at = path_of(&r);
    return case_fail_at(c, at.s, "%s%s%s (%s)", at.s, at.s[0] ? ": " : "",
                        r.problem[0] ? r.problem : "cannot load", cyaml_strerror(e));
}
