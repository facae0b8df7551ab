#include "yaml_schema_check.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* What a flag name or a bit's value is when the node there has the wrong kind. */
static const cyaml_schema_value_t flag_name = {
    CYAML_VALUE_STRING(CYAML_FLAG_DEFAULT, char, 0, CYAML_UNLIMITED)};
static const cyaml_schema_value_t bit_value = {CYAML_VALUE_UINT(CYAML_FLAG_DEFAULT, uint64_t)};

typedef struct checker {
    const yaml_locator *loc;
    yaml_schema_problem *p;
} checker;

static const yaml_located *entry(const checker *k, size_t e)
{
    return &k->loc->entries[e];
}

/* Records a problem at entry e. */
static int fault(checker *k, yaml_schema_fault f, size_t e, const cyaml_schema_value_t *v,
                 const char *field)
{
    *k->p = (yaml_schema_problem){.fault = f, .at = entry(k, e), .schema = v, .field = field};
    if (f == YAML_SCHEMA_TOO_FEW || f == YAML_SCHEMA_TOO_MANY)
        k->p->count = entry(k, e)->n_children;
    return -1;
}

static int range_fault(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field,
                       int64_t min, uint64_t max)
{
    fault(k, YAML_SCHEMA_OUT_OF_RANGE, e, v, field);
    k->p->min = min;
    k->p->max = max;
    return -1;
}

static bool ascii_case_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y) return false;
    }
    return *a == *b;
}

/* Names (keys, enumeration and flag strings, bit names) as libcyaml compares them. */
static bool same_name(const cyaml_schema_value_t *v, const char *a, const char *b)
{
    return v->flags & CYAML_FLAG_CASE_INSENSITIVE ? ascii_case_equal(a, b) : strcmp(a, b) == 0;
}

static bool is_null(const cyaml_schema_value_t *v, const char *text)
{
    if ((v->flags & CYAML_FLAG_POINTER_NULL) == CYAML_FLAG_POINTER_NULL && text[0] == '\0')
        return true;
    if ((v->flags & CYAML_FLAG_POINTER_NULL_STR) != CYAML_FLAG_POINTER_NULL_STR) return false;
    return strcmp(text, "~") == 0 || strcmp(text, "null") == 0 || strcmp(text, "Null") == 0 ||
           strcmp(text, "NULL") == 0;
}

/* ------------------------------------------------------------------------------------
 * Scalars. libcyaml reads numbers with strtoll/strtoull/strtod (base 0: 0x.. and 0..
 * are hexadecimal and octal) and takes what a prefix gives; here the whole text must
 * be the number.
 * ---------------------------------------------------------------------------------- */

static bool whole(const char *text, const char *end)
{
    return end != text && *end == '\0';
}

static bool size_ok(const cyaml_schema_value_t *v)
{
    return v->data_size >= 1 && v->data_size <= 8;
}

static uint64_t uint_max(unsigned size)
{
    return ~(uint64_t)0 >> ((8 - size) * 8);
}

/* A signed whole number in the range of v's data size. */
static int check_int(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    const char *text = entry(k, e)->scalar;
    int64_t max = (int64_t)(uint_max(v->data_size) / 2), min = -max - 1;
    char *end;
    errno = 0;
    long long x = strtoll(text, &end, 0);
    if (!whole(text, end)) return fault(k, YAML_SCHEMA_NOT_A_NUMBER, e, v, field);
    if (errno == ERANGE || x < min || x > max)
        return range_fault(k, e, v, field, min, (uint64_t)max);
    return 0;
}

/* An unsigned whole number up to max; strtoull would read "-1" as 2^64 - 1. */
static int check_uint(checker *k, size_t e, const cyaml_schema_value_t *v,
                      const char *field, uint64_t max)
{
    const char *text = entry(k, e)->scalar;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(text, &end, 0);
    if (!whole(text, end)) return fault(k, YAML_SCHEMA_NOT_A_NUMBER, e, v, field);
    if (errno == ERANGE || x > max || (x != 0 && strchr(text, '-')))
        return range_fault(k, e, v, field, 0, max);
    return 0;
}

/* A finite number that does not overflow the float or double (underflow reads as 0). */
static int check_float(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    const char *text = entry(k, e)->scalar;
    char *end;
    errno = 0;
    double x = v->data_size == sizeof(float) ? strtof(text, &end) : strtod(text, &end);
    bool overflow = errno == ERANGE && isinf(x);
    if (!whole(text, end) || (!isfinite(x) && !overflow))
        return fault(k, YAML_SCHEMA_NOT_A_NUMBER, e, v, field);
    if (overflow) return range_fault(k, e, v, field, 0, 0);
    return 0;
}

static int check_bool(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    static const char *const words[] = {"true", "yes", "on",      "enable", "1",
                                        "false", "no", "off", "disable", "0"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        if (ascii_case_equal(entry(k, e)->scalar, words[w])) return 0;
    return fault(k, YAML_SCHEMA_NOT_A_BOOL, e, v, field);
}

/* One of v's strings (an enumeration value or a flag name), or, unless v is STRICT, a
 * number in range, as libcyaml falls back to. */
static int check_choice(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    const char *text = entry(k, e)->scalar;
    for (uint32_t s = 0; s < v->enumeration.count; s++)
        if (same_name(v, text, v->enumeration.strings[s].str)) return 0;
    if (!(v->flags & CYAML_FLAG_STRICT)) {
        char *end;
        errno = 0;
        long long x = strtoll(text, &end, 0);
        bool flags = v->type == CYAML_FLAGS;
        int64_t max = (int64_t)(uint_max(v->data_size) / 2), min = flags ? 0 : -max - 1;
        if (whole(text, end) && errno != ERANGE && x >= min &&
            (flags ? (uint64_t)x <= uint_max(v->data_size) : x <= max))
            return 0;
    }
    return fault(k, YAML_SCHEMA_NOT_A_CHOICE, e, v, field);
}

static int check_string(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    size_t n = strlen(entry(k, e)->scalar);
    if (v->string.min > v->string.max) return fault(k, YAML_SCHEMA_BAD_SCHEMA, e, v, field);
    if (n < v->string.min) return fault(k, YAML_SCHEMA_TOO_SHORT, e, v, field);
    if (n > v->string.max) return fault(k, YAML_SCHEMA_TOO_LONG, e, v, field);
    return 0;
}

static int check_scalar(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    switch (v->type) {
    case CYAML_STRING: return check_string(k, e, v, field);
    case CYAML_BOOL: return check_bool(k, e, v, field);
    case CYAML_ENUM:
        if (!size_ok(v)) break;
        return check_choice(k, e, v, field);
    case CYAML_INT:
        if (!size_ok(v)) break;
        return check_int(k, e, v, field);
    case CYAML_UINT:
        if (!size_ok(v)) break;
        return check_uint(k, e, v, field, uint_max(v->data_size));
    case CYAML_FLOAT:
        if (v->data_size != sizeof(float) && v->data_size != sizeof(double)) break;
        return check_float(k, e, v, field);
    default: break;
    }
    return fault(k, YAML_SCHEMA_BAD_SCHEMA, e, v, field);
}

/* ------------------------------------------------------------------------------------
 * Collections.
 * ---------------------------------------------------------------------------------- */

static int check_node(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field);

/* The first alias in entry e's subtree, for a value libcyaml skips (it still reads
 * every event of it). */
static int check_no_alias(checker *k, size_t e, const char *field)
{
    for (size_t j = e; j < entry(k, e)->end; j++)
        if (entry(k, j)->kind == YNODE_ALIAS) return fault(k, YAML_SCHEMA_ALIAS, j, NULL, field);
    return 0;
}

static const cyaml_schema_field_t *field_for(const cyaml_schema_value_t *v, const char *key)
{
    for (const cyaml_schema_field_t *f = v->mapping.fields; f && f->key; f++)
        if (same_name(v, f->key, key)) return f;
    return NULL;
}

/* Whether a key of mapping e before entry j names field f: under
 * CYAML_FLAG_CASE_INSENSITIVE two keys can (the locator refuses exact duplicates). */
static bool field_given_before(checker *k, size_t e, size_t j, const cyaml_schema_value_t *v,
                               const cyaml_schema_field_t *f)
{
    for (size_t i = e + 1; i < j; i = entry(k, i)->end)
        if (same_name(v, entry(k, i)->key, f->key)) return true;
    return false;
}

/* A key (entry j of mapping e) at fault. */
static int key_fault(checker *k, yaml_schema_fault f, size_t j, size_t e,
                     const cyaml_schema_value_t *v, const char *name)
{
    fault(k, f, j, v, entry(k, j)->key);
    k->p->parent = entry(k, e);
    k->p->name = name;
    return -1;
}

static bool field_given(checker *k, size_t e, const cyaml_schema_value_t *v,
                        const cyaml_schema_field_t *f)
{
    YAML_LOCATOR_FOR_CHILDREN(k->loc, e, j)
        if (same_name(v, entry(k, j)->key, f->key)) return true;
    return false;
}

/* Each key in document order (unknown keys refused before their values are read, as
 * libcyaml does), then the required keys in schema order. */
static int check_mapping(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    YAML_LOCATOR_FOR_CHILDREN(k->loc, e, j) {
        const cyaml_schema_field_t *f = field_for(v, entry(k, j)->key);
        if (!f) return key_fault(k, YAML_SCHEMA_UNKNOWN_KEY, j, e, v, entry(k, j)->key);
        if ((v->flags & CYAML_FLAG_CASE_INSENSITIVE) && f->value.type != CYAML_IGNORE &&
            field_given_before(k, e, j, v, f))
            return key_fault(k, YAML_SCHEMA_REPEATED_KEY, j, e, v, f->key);
        if (check_node(k, j, &f->value, f->key) != 0) return -1;
    }
    for (const cyaml_schema_field_t *f = v->mapping.fields; f && f->key; f++)
        if (!(f->value.flags & CYAML_FLAG_OPTIONAL) && !field_given(k, e, v, f)) {
            fault(k, YAML_SCHEMA_MISSING_KEY, e, v, field);
            k->p->name = f->key;
            return -1;
        }
    return 0;
}

/* Entries are counted as they come: the one past the maximum is refused before it is
 * read, too few only at the end. */
static int check_sequence(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    if (v->type == CYAML_SEQUENCE_FIXED && v->sequence.min != v->sequence.max)
        return fault(k, YAML_SCHEMA_BAD_SCHEMA, e, v, field);
    size_t n = 0;
    YAML_LOCATOR_FOR_CHILDREN(k->loc, e, j) {
        if (entry(k, j)->kind == YNODE_ALIAS)
            return fault(k, YAML_SCHEMA_ALIAS, j, v->sequence.entry, field);
        if (++n > v->sequence.max) return fault(k, YAML_SCHEMA_TOO_MANY, e, v, field);
        if (check_node(k, j, v->sequence.entry, field) != 0) return -1;
    }
    if (n < v->sequence.min) return fault(k, YAML_SCHEMA_TOO_FEW, e, v, field);
    return 0;
}

/* A sequence of flag names. */
static int check_flags(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    if (!size_ok(v)) return fault(k, YAML_SCHEMA_BAD_SCHEMA, e, v, field);
    YAML_LOCATOR_FOR_CHILDREN(k->loc, e, j) {
        if (entry(k, j)->kind == YNODE_ALIAS)
            return fault(k, YAML_SCHEMA_ALIAS, j, &flag_name, field);
        if (entry(k, j)->kind != YNODE_SCALAR)
            return fault(k, YAML_SCHEMA_WRONG_KIND, j, &flag_name, field);
        if (check_choice(k, j, v, field) != 0) return -1;
    }
    return 0;
}

/* A mapping of bit names to unsigned values that fit their bits. */
static int check_bitfield(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    const cyaml_bitdef_t *bits = v->bitfield.bitdefs;
    for (uint32_t b = 0; b < v->bitfield.count; b++)
        if (!size_ok(v) || bits[b].bits == 0 || bits[b].bits + bits[b].offset > v->data_size * 8)
            return fault(k, YAML_SCHEMA_BAD_SCHEMA, e, v, field);
    YAML_LOCATOR_FOR_CHILDREN(k->loc, e, j) {
        const char *name = entry(k, j)->key;
        uint32_t b = 0;
        while (b < v->bitfield.count && !same_name(v, name, bits[b].name)) b++;
        if (b == v->bitfield.count) return key_fault(k, YAML_SCHEMA_UNKNOWN_KEY, j, e, v, name);
        if (entry(k, j)->kind == YNODE_ALIAS)
            return fault(k, YAML_SCHEMA_ALIAS, j, &bit_value, name);
        if (entry(k, j)->kind != YNODE_SCALAR)
            return fault(k, YAML_SCHEMA_WRONG_KIND, j, &bit_value, name);
        if (check_uint(k, j, &bit_value, name, uint_max(8) >> (64 - bits[b].bits)) != 0)
            return -1;
    }
    return 0;
}

static ynode_kind kind_for(const cyaml_schema_value_t *v)
{
    switch (v->type) {
    case CYAML_MAPPING:
    case CYAML_BITFIELD: return YNODE_MAPPING;
    case CYAML_FLAGS:
    case CYAML_SEQUENCE:
    case CYAML_SEQUENCE_FIXED: return YNODE_SEQUENCE;
    default: return YNODE_SCALAR;
    }
}

/* Entry e against v; `field` is the key of the nearest mapping field above or at e. */
static int check_node(checker *k, size_t e, const cyaml_schema_value_t *v, const char *field)
{
    const yaml_located *n = entry(k, e);
    if (n->kind == YNODE_ALIAS) return fault(k, YAML_SCHEMA_ALIAS, e, v, field);
    if (v->type == CYAML_IGNORE) return check_no_alias(k, e, field);
    if (n->kind == YNODE_SCALAR && is_null(v, n->scalar)) return 0;
    if (v->type >= CYAML__TYPE_COUNT) return fault(k, YAML_SCHEMA_BAD_SCHEMA, e, v, field);
    if (n->kind != kind_for(v)) return fault(k, YAML_SCHEMA_WRONG_KIND, e, v, field);
    switch (v->type) {
    case CYAML_MAPPING: return check_mapping(k, e, v, field);
    case CYAML_SEQUENCE:
    case CYAML_SEQUENCE_FIXED: return check_sequence(k, e, v, field);
    case CYAML_FLAGS: return check_flags(k, e, v, field);
    case CYAML_BITFIELD: return check_bitfield(k, e, v, field);
    default: return check_scalar(k, e, v, field);
    }
}

int yaml_schema_check(const yaml_locator *loc, const cyaml_schema_value_t *top,
                      yaml_schema_problem *p)
{
    *p = (yaml_schema_problem){.fault = YAML_SCHEMA_OK};
    if (!loc || loc->n_entries == 0 || !top) return 0;
    checker k = {.loc = loc, .p = p};
    return check_node(&k, 0, top, "");
}
