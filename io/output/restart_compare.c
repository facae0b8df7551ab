/* Comparing two case texts as YAML documents, ignoring the keys a restart may change
 * (restart.h): a restart must use the case its file was written with, and a run may
 * replace only an output of the same case. */
#define _POSIX_C_SOURCE 200809L

#include "restart.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* Keys a restart may change (dotted paths from the document's root). */
static const char *const free_keys[] = {"name", "time.end", "time.output_interval",
                                        "time.timeseries_interval"};

static int is_free(const char *path)
{
    for (size_t k = 0; k < sizeof free_keys / sizeof free_keys[0]; k++)
        if (!strcmp(path, free_keys[k])) return 1;
    return 0;
}

static int parse_number(const char *s, double *v)
{
    char *end;
    if (!*s) return 0;
    *v = strtod(s, &end);
    return *end == '\0' && isfinite(*v);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Short text of a node for messages. */
static const char *show(const yaml_node_t *n)
{
    if (!n) return "(missing)";
    if (n->type == YAML_SCALAR_NODE) return (const char *)n->data.scalar.value;
    return n->type == YAML_SEQUENCE_NODE ? "(a list)" : "(a mapping)";
}

typedef struct cmp_ctx {
    yaml_document_t *a, *b;
    char *why;
    size_t why_len;
} cmp_ctx;

static int differ(cmp_ctx *c, const char *path, const yaml_node_t *x, const yaml_node_t *y)
{
    set_err(c->why, c->why_len, "%s is %s in the file's case and %s in this one",
            path[0] ? path : "the document", show(x), show(y));
    return 1;
}

static const yaml_node_t *lookup(yaml_document_t *d, const yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(d, p->key));
        if (k && !strcmp(k, key)) return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

static int compare_nodes(cmp_ctx *c, const char *path, const yaml_node_t *x, const yaml_node_t *y);

/* Every non-free key of `from` must be in `to` with an equal value. */
static int compare_keys(cmp_ctx *c, const char *path, yaml_document_t *df, const yaml_node_t *from,
                        yaml_document_t *dt, const yaml_node_t *to, int from_is_a)
{
    for (yaml_node_pair_t *p = from->data.mapping.pairs.start; p < from->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(df, p->key));
        if (!k) continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", k);
        if (is_free(sub)) continue;
        const yaml_node_t *v = yaml_document_get_node(df, p->value), *w = lookup(dt, to, k);
        if (!w) return from_is_a ? differ(c, sub, v, NULL) : differ(c, sub, NULL, v);
        if (from_is_a) {
            int r = compare_nodes(c, sub, v, w);
            if (r) return r;
        }
    }
    return 0;
}

static int compare_nodes(cmp_ctx *c, const char *path, const yaml_node_t *x, const yaml_node_t *y)
{
    if (!x || !y || x->type != y->type) return differ(c, path, x, y);
    if (x->type == YAML_SCALAR_NODE) {
        const char *s = scalar(x), *t = scalar(y);
        double u, v;
        if (parse_number(s, &u) && parse_number(t, &v)) return u == v ? 0 : differ(c, path, x, y);
        return strcmp(s, t) ? differ(c, path, x, y) : 0;
    }
    if (x->type == YAML_SEQUENCE_NODE) {
        ptrdiff_t n = x->data.sequence.items.top - x->data.sequence.items.start;
        ptrdiff_t m = y->data.sequence.items.top - y->data.sequence.items.start;
        if (n != m) {
            set_err(c->why, c->why_len, "%s has %td entries in the file's case and %td in this one",
                    path, n, m);
            return 1;
        }
        for (ptrdiff_t k = 0; k < n; k++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%td]", path, k);
            int r = compare_nodes(c, sub, yaml_document_get_node(c->a, x->data.sequence.items.start[k]),
                                  yaml_document_get_node(c->b, y->data.sequence.items.start[k]));
            if (r) return r;
        }
        return 0;
    }
    int r = compare_keys(c, path, c->a, x, c->b, y, 1);
    return r ? r : compare_keys(c, path, c->b, y, c->a, x, 0);
}

static int load_doc(const char *text, yaml_document_t *doc)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return -1;
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    int ok = yaml_parser_load(&p, doc);
    yaml_parser_delete(&p);
    if (!ok) return -1;
    if (!yaml_document_get_root_node(doc)) {
        yaml_document_delete(doc);
        return -1;
    }
    return 0;
}

int restart_compare_cases(const char *stored, const char *given, char *why, size_t why_len)
{
    yaml_document_t a, b;
    if (load_doc(stored, &a) != 0) {
        set_err(why, why_len, "the file's case text is not a YAML document");
        return -1;
    }
    if (load_doc(given, &b) != 0) {
        yaml_document_delete(&a);
        set_err(why, why_len, "the case is not a YAML document");
        return -1;
    }
    cmp_ctx c = {&a, &b, why, why_len};
    int r = compare_nodes(&c, "", yaml_document_get_root_node(&a), yaml_document_get_root_node(&b));
    yaml_document_delete(&a);
    yaml_document_delete(&b);
    return r;
}

