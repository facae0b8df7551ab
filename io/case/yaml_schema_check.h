/* Checks a located YAML document (yaml_locator.h) against a libcyaml schema before
 * libcyaml loads it, and says what is wrong in terms of the document's own nodes: the
 * first problem in document order, with the node at fault (its path, line and column),
 * the schema it should match and what was found. It refuses what libcyaml would refuse
 * for the same schema (unknown keys, missing required keys, a node of the wrong kind,
 * too few or too many sequence entries, string lengths, bit and flag names) and, for
 * the typed scalars, also what libcyaml would read loosely: numbers with trailing text,
 * out of their type's range or not finite, booleans that are neither true nor false,
 * enumeration values not in the list. Aliases ('*name') are refused wherever they are,
 * as libcyaml does under CYAML_CFG_NO_ALIAS (the loader must be run with it). Keys and
 * names are compared as libcyaml does by default (exactly, or ignoring ASCII case under
 * CYAML_FLAG_CASE_INSENSITIVE); CYAML_FLAG_POINTER_NULL(_STR) values are taken as null;
 * CYAML_FLAG_BLOCK and _FLOW only style what libcyaml writes, so both styles are taken.
 * Wording is left to the caller. */
#ifndef DEMPACT_YAML_SCHEMA_CHECK_H
#define DEMPACT_YAML_SCHEMA_CHECK_H

#include <cyaml/cyaml.h>
#include <stdint.h>

#include "yaml_locator.h"

typedef enum yaml_schema_fault {
    YAML_SCHEMA_OK,
    YAML_SCHEMA_UNKNOWN_KEY,  /* at: the key's entry; schema: its mapping's (or bitfield's) */
    YAML_SCHEMA_MISSING_KEY,  /* at: the mapping; name: the first missing key (schema order) */
    YAML_SCHEMA_REPEATED_KEY, /* at: a key naming a field already given (in another case);
                                 name: the field */
    YAML_SCHEMA_WRONG_KIND,   /* at: the node; schema: what belongs there */
    YAML_SCHEMA_TOO_FEW,      /* at: the sequence; count: its entries */
    YAML_SCHEMA_TOO_MANY,     /* at: the sequence; count: its entries */
    YAML_SCHEMA_ALIAS,        /* at: the alias ('*name') */
    YAML_SCHEMA_NOT_A_NUMBER, /* at: an int, uint, float or bit value that does not parse
                                 (or is not finite) */
    YAML_SCHEMA_OUT_OF_RANGE, /* at: such a value outside [min, max], or a float that
                                 overflows (min = max = 0) */
    YAML_SCHEMA_NOT_A_BOOL,   /* at: a bool scalar */
    YAML_SCHEMA_NOT_A_CHOICE, /* at: an enum or flag scalar; schema: the enum or flags */
    YAML_SCHEMA_TOO_SHORT,    /* at: a string scalar; schema: its limits */
    YAML_SCHEMA_TOO_LONG,
    YAML_SCHEMA_BAD_SCHEMA    /* schema: one libcyaml cannot load with (an unknown type, a
                                 data size it does not take, min > max) */
} yaml_schema_fault;

typedef struct yaml_schema_problem {
    yaml_schema_fault fault;
    const yaml_located *at;             /* the node at fault */
    const yaml_located *parent;         /* for UNKNOWN_KEY and REPEATED_KEY: the mapping */
    const cyaml_schema_value_t *schema; /* see yaml_schema_fault */
    const char *field;                  /* the key of the nearest mapping field at or above
                                           `at` ("" at the top) */
    const char *name;                   /* the missing or repeated key */
    size_t count;                       /* entries found */
    int64_t min;                        /* the range a number must lie in */
    uint64_t max;
} yaml_schema_problem;

/* Checks the document in loc against `top` (the schema of the root node). Returns 0, or
 * -1 with the first problem in *p. The walk is linear in the number of nodes. */
int yaml_schema_check(const yaml_locator *loc, const cyaml_schema_value_t *top,
                      yaml_schema_problem *p);

#endif
