/* Prints every key the case reader accepts, one per line, as the reader's own libcyaml
 * schema says (io/case/case_schema.c, built with every registered law's parameters):
 *
 *   PATH<TAB>KIND<TAB>required|optional
 *
 * PATH is dotted, a list's entries written "[]" (walls[].rotation.axis_point); KIND is
 * mapping, list (of mappings), value (one scalar), values (a fixed-length list of
 * scalars) or any (read outside the schema, e.g. radius: a number or {min, max}).
 * tests/doc/check_case_keys.py compares this with docs/case-file.md. */
#include <stdio.h>
#include <string.h>

#include "io/case/case_internal.h"

static void walk(const cyaml_schema_field_t *fields, const char *prefix)
{
    for (const cyaml_schema_field_t *f = fields; f && f->key; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", prefix, f->key);
        const char *need = f->value.flags & CYAML_FLAG_OPTIONAL ? "optional" : "required";
        const cyaml_schema_value_t *v = &f->value;
        char below[520];
        switch (v->type) {
        case CYAML_MAPPING:
            printf("%s\tmapping\t%s\n", path, need);
            snprintf(below, sizeof below, "%s.", path);
            walk(v->mapping.fields, below);
            break;
        case CYAML_SEQUENCE:
        case CYAML_SEQUENCE_FIXED:
            if (v->sequence.entry && v->sequence.entry->type == CYAML_MAPPING) {
                printf("%s\tlist\t%s\n", path, need);
                snprintf(below, sizeof below, "%s[].", path);
                walk(v->sequence.entry->mapping.fields, below);
            } else {
                printf("%s\tvalues\t%s\n", path, need);
            }
            break;
        case CYAML_IGNORE: printf("%s\tany\t%s\n", path, need); break;
        default: printf("%s\tvalue\t%s\n", path, need); break;
        }
    }
}

int main(void)
{
    case_schema *s = case_schema_build();
    if (!s) {
        fprintf(stderr, "case_keys: cannot build the case schema\n");
        return 1;
    }
    walk(s->top.mapping.fields, "");
    case_schema_free(s);
    return 0;
}
