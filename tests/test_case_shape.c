/* The case reader's shape check (io/case/yaml_schema_check.c, worded by io/case/case_shape.c),
 * driven by the schema itself: a generator walks a libcyaml schema and writes a YAML
 * document holding every key it knows, recording the line it writes each node on; then,
 * for every node the schema describes, it writes the document again with one fault at
 * that node (an unknown sibling key, a misspelt key, a missing required key, a node of
 * the wrong kind, an alias, one entry too many or too few, a malformed or out-of-range
 * scalar) and checks that the message names the line the generator wrote the fault on,
 * the key path and the problem. libcyaml itself is the second judge: every document the
 * check refuses for a reason libcyaml also enforces must be refused by libcyaml, and the
 * fault-free documents must load. Two schemas are walked: the case file's own
 * (case_schema_build, every law's parameters included), so the test follows every key
 * added to it, and a small one with every scalar kind libcyaml has. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "io/case/case_internal.h"
#include "io/case/yaml_schema_check.h"

/* ------------------------------------------------------------------------------------
 * A schema with every kind of value, over a struct libcyaml can load it into.
 * ---------------------------------------------------------------------------------- */

typedef struct kinds_inner {
    int8_t small;
    char *label;
} kinds_inner;

typedef struct kinds {
    int8_t i8;
    int64_t i64;
    uint8_t u8;
    uint64_t u64;
    float f32;
    double f64;
    bool yes;
    int colour, shape;
    char *word, *maybe;
    unsigned options;
    uint8_t bits;
    kinds_inner inner;
    kinds_inner *items;
    unsigned items_count;
    int16_t pair[2];
} kinds;

static const cyaml_strval_t colours[] = {{"red", 0}, {"green", 1}, {"blue", 2}};
static const cyaml_strval_t shapes[] = {{"round", 0}, {"square", 1}};
static const cyaml_strval_t option_names[] = {{"fast", 1}, {"safe", 2}};
static const cyaml_bitdef_t bit_names[] = {{.name = "low", .offset = 0, .bits = 3},
                                           {.name = "high", .offset = 3, .bits = 5}};

static const cyaml_schema_field_t inner_fields[] = {
    CYAML_FIELD_INT("small", CYAML_FLAG_DEFAULT, kinds_inner, small),
    CYAML_FIELD_STRING_PTR("label", CYAML_FLAG_OPTIONAL, kinds_inner, label, 0, CYAML_UNLIMITED),
    CYAML_FIELD_END};
static const cyaml_schema_value_t inner_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, kinds_inner, inner_fields)};
static const cyaml_schema_value_t pair_entry = {CYAML_VALUE_INT(CYAML_FLAG_DEFAULT, int16_t)};

static const cyaml_schema_field_t kinds_fields[] = {
    CYAML_FIELD_INT("i8", CYAML_FLAG_DEFAULT, kinds, i8),
    CYAML_FIELD_INT("i64", CYAML_FLAG_OPTIONAL, kinds, i64),
    CYAML_FIELD_UINT("u8", CYAML_FLAG_DEFAULT, kinds, u8),
    CYAML_FIELD_UINT("u64", CYAML_FLAG_OPTIONAL, kinds, u64),
    CYAML_FIELD_FLOAT("f32", CYAML_FLAG_DEFAULT, kinds, f32),
    CYAML_FIELD_FLOAT("f64", CYAML_FLAG_OPTIONAL, kinds, f64),
    CYAML_FIELD_BOOL("yes", CYAML_FLAG_DEFAULT, kinds, yes),
    CYAML_FIELD_ENUM("colour", CYAML_FLAG_DEFAULT, kinds, colour, colours, 3),
    CYAML_FIELD_ENUM("shape", CYAML_FLAG_STRICT, kinds, shape, shapes, 2),
    CYAML_FIELD_STRING_PTR("word", CYAML_FLAG_DEFAULT, kinds, word, 2, 5),
    CYAML_FIELD_STRING_PTR("maybe", CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER_NULL_STR, kinds,
                           maybe, 0, CYAML_UNLIMITED),
    CYAML_FIELD_FLAGS("options", CYAML_FLAG_STRICT, kinds, options, option_names, 2),
    CYAML_FIELD_BITFIELD("bits", CYAML_FLAG_DEFAULT, kinds, bits, bit_names, 2),
    CYAML_FIELD_MAPPING("inner", CYAML_FLAG_DEFAULT, kinds, inner, inner_fields),
    CYAML_FIELD_SEQUENCE("items", CYAML_FLAG_POINTER, kinds, items, &inner_entry, 1, 2),
    CYAML_FIELD_SEQUENCE_FIXED("pair", CYAML_FLAG_DEFAULT, kinds, pair, &pair_entry, 2),
    CYAML_FIELD_IGNORE("anything", CYAML_FLAG_OPTIONAL),
    CYAML_FIELD_END};
static const cyaml_schema_value_t kinds_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, kinds, kinds_fields)};

/* ------------------------------------------------------------------------------------
 * Faults and the generator.
 * ---------------------------------------------------------------------------------- */

typedef enum fault_kind {
    NO_FAULT,
    EXTRA_KEY,   /* at a mapping: an unknown key before its own */
    MISSPELT,    /* at a mapping: one key ("name") written with a letter more */
    LEFT_OUT,    /* at a mapping: a required key ("name") left out */
    AS_MAPPING,  /* at a node: a mapping instead */
    AS_LIST,     /* at a node: a list instead */
    AS_SCALAR,   /* at a node: a scalar instead */
    AS_ALIAS,    /* at a node: an alias */
    AS_TEXT,     /* at a scalar: this text */
    ONE_MORE,    /* at a list: one entry more than it takes */
    ONE_LESS     /* at a list: one entry fewer than it needs */
} fault_kind;

typedef struct fault {
    fault_kind kind;
    const char *at;   /* the path of the node (or mapping) at fault */
    const char *name; /* MISSPELT, LEFT_OUT: the key */
    const char *text; /* AS_TEXT */
} fault;

#define EXTRA "zz_extra_key"

/* The nodes of the fault-free document, as the generator wrote them. */
typedef struct node {
    char path[PATH_LEN];
    const cyaml_schema_value_t *v;
    const cyaml_schema_field_t *fields; /* a mapping's fields */
    int line;
} node;

typedef struct gen {
    char *text;
    size_t len, cap;
    int lines;       /* written so far */
    const fault *f;  /* NULL: the fault-free document, recording its nodes */
    int fault_line;  /* the line the fault's message must name */
    node *nodes;
    int n_nodes, cap_nodes;
} gen;

static void add_text(gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (g->len + (size_t)n + 1 > g->cap) {
        g->cap = 2 * (g->len + (size_t)n + 1);
        g->text = realloc(g->text, g->cap);
        assert_non_null(g->text);
    }
    va_start(ap, fmt);
    vsnprintf(g->text + g->len, g->cap - g->len, fmt, ap);
    va_end(ap);
    g->len += (size_t)n;
}

/* Writes one line whose text starts at column `indent` (after `lead`, e.g. "- ");
 * returns its number. */
static int put(gen *g, int indent, const char *lead, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    int spaces = indent - (int)strlen(lead);
    add_text(g, "%*s%s%s\n", spaces > 0 ? spaces : 0, "", lead, text);
    return ++g->lines;
}

/* Ends the last line written with " text" ("key: []" for a list left empty). */
static void end_last_line(gen *g, const char *text)
{
    assert_true(g->len > 0 && g->text[g->len - 1] == '\n');
    g->len--;
    add_text(g, " %s\n", text);
}

static void record(gen *g, const char *path, const cyaml_schema_value_t *v, int line)
{
    if (g->f) return;
    if (g->n_nodes == g->cap_nodes) {
        g->cap_nodes = g->cap_nodes ? 2 * g->cap_nodes : 256;
        g->nodes = realloc(g->nodes, (size_t)g->cap_nodes * sizeof *g->nodes);
        assert_non_null(g->nodes);
    }
    node *n = &g->nodes[g->n_nodes++];
    snprintf(n->path, sizeof n->path, "%s", path);
    n->v = v;
    n->fields = NULL;
    n->line = line;
}

static bool fault_at(const gen *g, fault_kind kind, const char *path)
{
    return g->f && g->f->kind == kind && strcmp(g->f->at, path) == 0;
}

static bool is_scalar(const cyaml_schema_value_t *v)
{
    return v->type != CYAML_MAPPING && v->type != CYAML_BITFIELD && v->type != CYAML_SEQUENCE &&
           v->type != CYAML_SEQUENCE_FIXED && v->type != CYAML_FLAGS && v->type != CYAML_IGNORE;
}

/* A scalar the schema takes. */
static const char *good_scalar(const cyaml_schema_value_t *v)
{
    static char word[64];
    switch (v->type) {
    case CYAML_INT:
    case CYAML_UINT: return "1";
    case CYAML_FLOAT: return "1.5";
    case CYAML_BOOL: return "true";
    case CYAML_ENUM: return v->enumeration.strings[0].str;
    case CYAML_STRING: {
        uint32_t n = v->string.min > 1 ? v->string.min : 1;
        if (n > v->string.max) n = v->string.max;
        memset(word, 'v', n);
        word[n] = '\0';
        return word;
    }
    default: return "1";
    }
}

/* The text a replacing fault writes in place of the node, or NULL. */
static const char *replacement(const gen *g, const char *path, char *buf, size_t len)
{
    if (!g->f || strcmp(g->f->at, path) != 0) return NULL;
    switch (g->f->kind) {
    case AS_MAPPING: return "{" EXTRA ": 1}";
    case AS_LIST: return "[v]";
    case AS_SCALAR: return "v";
    case AS_ALIAS: return "*no_such_anchor";
    case AS_TEXT: {
        /* double-quoted: a scalar whatever the text */
        size_t used = 0;
        buf[used++] = '"';
        for (const char *t = g->f->text; *t && used + 3 < len; t++) {
            if (*t == '"' || *t == '\\') buf[used++] = '\\';
            buf[used++] = *t;
        }
        buf[used++] = '"';
        buf[used] = '\0';
        return buf;
    }
    default: return NULL;
    }
}

static void write_mapping(gen *g, const cyaml_schema_value_t *v, const char *path, int indent,
                          const char *lead, int own_line);

/* How many entries a list of schema v gets. */
static uint32_t entries_for(const gen *g, const cyaml_schema_value_t *v, const char *path)
{
    uint32_t n = v->type == CYAML_FLAGS ? 1 : v->sequence.min > 0 ? v->sequence.min : 1;
    if (v->type != CYAML_FLAGS && n > v->sequence.max) n = v->sequence.max;
    if (fault_at(g, ONE_MORE, path)) n = v->sequence.max + 1;
    if (fault_at(g, ONE_LESS, path)) n = v->sequence.min - 1;
    return n;
}

/* A list entry: "- ..." with its text at column indent + 2. */
static void write_entry(gen *g, const cyaml_schema_value_t *v, const cyaml_schema_value_t *list,
                        const char *path, int indent)
{
    char buf[256];
    const char *instead = replacement(g, path, buf, sizeof buf);
    if (instead) {
        g->fault_line = put(g, indent + 2, "- ", "%s", instead);
        return;
    }
    if (list->type == CYAML_FLAGS) {
        /* a flag name is a scalar of its own */
        static const cyaml_schema_value_t flag = {
            CYAML_VALUE_STRING(CYAML_FLAG_DEFAULT, char, 0, CYAML_UNLIMITED)};
        record(g, path, &flag, put(g, indent + 2, "- ", "%s", list->enumeration.strings[0].str));
        return;
    }
    if (v->type == CYAML_MAPPING) {
        write_mapping(g, v, path, indent + 2, "- ", 0);
        return;
    }
    assert_true(is_scalar(v)); /* lists of lists are not written */
    record(g, path, v, put(g, indent + 2, "- ", "%s", good_scalar(v)));
}

static void write_list(gen *g, const cyaml_schema_value_t *v, const char *path, int indent,
                       int own_line)
{
    uint32_t n = entries_for(g, v, path);
    if (fault_at(g, ONE_MORE, path) || fault_at(g, ONE_LESS, path)) g->fault_line = own_line;
    if (n == 0) end_last_line(g, "[]");
    for (uint32_t k = 0; k < n; k++) {
        char item[PATH_LEN];
        snprintf(item, sizeof item, "%s[%u]", path, k);
        write_entry(g, v->type == CYAML_FLAGS ? v : v->sequence.entry, v, item, indent);
    }
}

/* "key: value" at column indent (after lead); returns its line, or 0 when left out. */
static int write_field(gen *g, const char *key, const cyaml_schema_value_t *v,
                       const char *mapping, int indent, const char *lead)
{
    char path[PATH_LEN], buf[256], spelt[128];
    snprintf(path, sizeof path, "%s%s%s", mapping, mapping[0] ? "." : "", key);
    bool at_this_key = g->f && strcmp(g->f->at, mapping) == 0 && g->f->name &&
                       strcmp(g->f->name, key) == 0;
    if (at_this_key && g->f->kind == LEFT_OUT) return 0;
    snprintf(spelt, sizeof spelt, "%s%s", key, at_this_key && g->f->kind == MISSPELT ? "q" : "");
    const char *instead = replacement(g, path, buf, sizeof buf);
    int line;
    if (instead) {
        line = g->fault_line = put(g, indent, lead, "%s: %s", spelt, instead);
    } else if (is_scalar(v) || v->type == CYAML_IGNORE) {
        line = put(g, indent, lead, "%s: %s", spelt, good_scalar(v));
        record(g, path, v, line);
    } else if (v->type == CYAML_MAPPING || v->type == CYAML_BITFIELD) {
        line = put(g, indent, lead, "%s:", spelt);
        write_mapping(g, v, path, indent + 2, "", line); /* records it */
    } else {
        line = put(g, indent, lead, "%s:", spelt);
        record(g, path, v, line);
        write_list(g, v, path, indent + 2, line);
    }
    if (at_this_key && g->f->kind == MISSPELT) g->fault_line = line;
    return line;
}

/* The keys of a mapping (or a bitfield's bits) at column indent; the first line starts
 * with lead ("- " for a list entry). own_line: the line of the key holding it (0 for the
 * root and list entries: then the mapping's first line). */
static void write_mapping(gen *g, const cyaml_schema_value_t *v, const char *path, int indent,
                          const char *lead, int own_line)
{
    int first = 0;
    if (fault_at(g, EXTRA_KEY, path)) first = g->fault_line = put(g, indent, lead, EXTRA ": 1");
    if (v->type == CYAML_BITFIELD) {
        for (uint32_t b = 0; b < v->bitfield.count; b++) {
            static const cyaml_schema_value_t bit = {CYAML_VALUE_UINT(CYAML_FLAG_DEFAULT, uint8_t)};
            int line = write_field(g, v->bitfield.bitdefs[b].name, &bit, path, indent,
                                   first ? "" : lead);
            if (!first) first = line;
        }
    } else {
        for (const cyaml_schema_field_t *f = v->mapping.fields; f->key; f++) {
            int line = write_field(g, f->key, &f->value, path, indent, first ? "" : lead);
            if (!first) first = line;
        }
    }
    if (!first) {
        if (own_line) end_last_line(g, "{}");
        else first = put(g, indent, lead, "{}");
    }
    int line = own_line ? own_line : first;
    if (g->f && g->f->kind == LEFT_OUT && strcmp(g->f->at, path) == 0) g->fault_line = line;
    if (!g->f) {
        record(g, path, v, line);
        g->nodes[g->n_nodes - 1].fields = v->type == CYAML_MAPPING ? v->mapping.fields : NULL;
    }
}

static void generate(gen *g, const cyaml_schema_value_t *top, const fault *f)
{
    g->len = 0;
    g->lines = 0;
    g->f = f;
    g->fault_line = 0;
    if (!g->text) {
        g->cap = 4096;
        g->text = malloc(g->cap);
        assert_non_null(g->text);
    }
    g->text[0] = '\0';
    write_mapping(g, top, "", 0, "", 0);
}

static void gen_free(gen *g)
{
    free(g->text);
    free(g->nodes);
}

/* ------------------------------------------------------------------------------------
 * The judges: the shape check through the case reader's wording, and libcyaml.
 * ---------------------------------------------------------------------------------- */

typedef struct judge {
    const cyaml_schema_value_t *top;
    case_schema *schema; /* the case schema, or one holding only top */
    int checked;         /* documents refused as expected */
    int by_libcyaml;     /* of those, also refused by libcyaml */
} judge;

/* The shape check's message for the document, or "" when it passes. */
static void check_shape(const judge *j, const gen *g, char *err, size_t len)
{
    case_reader c = {.path = "gen.yaml", .schema = j->schema, .err = err, .err_len = len};
    char problem[256];
    int line;
    if (yaml_locator_parse(&c.loc, g->text, g->len, &line, problem, sizeof problem) != 0)
        fail_msg("the generated YAML does not parse (line %d: %s):\n%s", line, problem, g->text);
    err[0] = '\0';
    int rc = case_check_shape(&c);
    yaml_locator_free(&c.loc);
    if ((rc != 0) != (err[0] != '\0')) fail_msg("rc %d with message '%s'", rc, err);
}

static bool libcyaml_loads(const judge *j, const gen *g)
{
    cyaml_config_t config = {.mem_fn = cyaml_mem, .log_level = CYAML_LOG_ERROR,
                             .flags = CYAML_CFG_NO_ALIAS};
    void *data = NULL;
    cyaml_err_t e = cyaml_load_data((const uint8_t *)g->text, g->len, &config, j->top, &data, NULL);
    if (e == CYAML_OK) cyaml_free(&config, j->top, data, 0);
    return e == CYAML_OK;
}

static void expect_pass(judge *j, gen *g, const fault *f)
{
    char err[2048];
    generate(g, j->top, f);
    check_shape(j, g, err, sizeof err);
    if (err[0]) fail_msg("refused: %s\n%s", err, g->text);
    if (!libcyaml_loads(j, g)) fail_msg("libcyaml refuses what the check passed:\n%s", g->text);
}

/* The fault's message starts with gen.yaml:LINE: (the line the generator wrote the fault
 * on) and holds each fragment; `strict_peer`: libcyaml refuses it too. */
static void expect_refusal(judge *j, gen *g, const fault *f, bool strict_peer, const char *frag1,
                           const char *frag2)
{
    char err[2048], start[64];
    generate(g, j->top, f);
    if (g->fault_line == 0) fail_msg("the fault at '%s' was not written:\n%s", f->at, g->text);
    check_shape(j, g, err, sizeof err);
    if (!err[0]) fail_msg("passed, with a fault at '%s':\n%s", f->at, g->text);
    snprintf(start, sizeof start, "gen.yaml:%d: ", g->fault_line);
    if (strncmp(err, start, strlen(start)) != 0)
        fail_msg("expected the message to start with '%s':\n%s\n%s", start, err, g->text);
    if (frag1 && !strstr(err, frag1))
        fail_msg("expected '%s' in the message:\n%s\n%s", frag1, err, g->text);
    if (frag2 && !strstr(err, frag2))
        fail_msg("expected '%s' in the message:\n%s\n%s", frag2, err, g->text);
    if (strict_peer) {
        if (libcyaml_loads(j, g))
            fail_msg("libcyaml loads what the check refused (%s):\n%s", err, g->text);
        j->by_libcyaml++;
    }
    j->checked++;
}

/* ------------------------------------------------------------------------------------
 * Every fault at every node of a schema.
 * ---------------------------------------------------------------------------------- */

static const char *frag(const char *fmt, ...)
{
    static char buf[4][PATH_LEN + 128];
    static int turn;
    char *b = buf[turn++ % 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof buf[0], fmt, ap);
    va_end(ap);
    return b;
}

/* Faults in a mapping's keys: an unknown one, each key misspelt, each required one left
 * out. */
static void key_faults(judge *j, gen *g, const node *n)
{
    const char *at = n->path;
    fault extra = {.kind = EXTRA_KEY, .at = at};
    expect_refusal(j, g, &extra, true,
                   at[0] ? frag("unknown key '" EXTRA "' in %s", at)
                         : "unknown top-level key '" EXTRA "'",
                   NULL);
    const cyaml_schema_field_t *f = n->fields;
    for (; f && f->key; f++) {
        fault misspelt = {.kind = MISSPELT, .at = at, .name = f->key};
        expect_refusal(j, g, &misspelt, true, frag("'%sq'", f->key),
                       frag("did you mean '%s'?", f->key));
        if (f->value.flags & CYAML_FLAG_OPTIONAL) continue;
        fault left_out = {.kind = LEFT_OUT, .at = at, .name = f->key};
        expect_refusal(j, g, &left_out, true,
                       at[0] ? frag("%s: missing required key '%s'", at, f->key)
                             : frag("missing required top-level key '%s'", f->key),
                       NULL);
    }
}

/* A node of the wrong kind, an alias; for lists, one entry too many or too few. */
static void node_faults(judge *j, gen *g, const node *n)
{
    const cyaml_schema_value_t *v = n->v;
    const char *at = n->path;
    fault alias = {.kind = AS_ALIAS, .at = at};
    expect_refusal(j, g, &alias, true, frag("%s: YAML aliases", at), NULL);
    if (v->type == CYAML_IGNORE) return;
    bool mapping = v->type == CYAML_MAPPING || v->type == CYAML_BITFIELD;
    bool list =
        v->type == CYAML_SEQUENCE || v->type == CYAML_SEQUENCE_FIXED || v->type == CYAML_FLAGS;
    if (!mapping) {
        fault f = {.kind = AS_MAPPING, .at = at};
        expect_refusal(j, g, &f, true, frag("%s: expected ", at), "got a mapping");
    }
    if (!list) {
        fault f = {.kind = AS_LIST, .at = at};
        expect_refusal(j, g, &f, true, frag("%s: expected ", at), "got a list");
    }
    if (mapping || list) {
        fault f = {.kind = AS_SCALAR, .at = at};
        expect_refusal(j, g, &f, true, frag("%s: expected ", at), "got 'v'");
    }
    if (v->type == CYAML_SEQUENCE || v->type == CYAML_SEQUENCE_FIXED) {
        if (v->sequence.max != CYAML_UNLIMITED) {
            fault f = {.kind = ONE_MORE, .at = at};
            expect_refusal(j, g, &f, true, frag("%s: ", at), frag("got %u", v->sequence.max + 1));
        }
        if (v->sequence.min > 0) {
            fault f = {.kind = ONE_LESS, .at = at};
            expect_refusal(j, g, &f, true, frag("%s: ", at), frag("got %u", v->sequence.min - 1));
        }
    }
}

static bool written(const node *nodes, int n_nodes, const char *path)
{
    for (int k = 0; k < n_nodes; k++)
        if (strcmp(nodes[k].path, path) == 0) return true;
    return false;
}

/* Runs every fault at every node of top; returns the number of nodes. */
static int every_fault(judge *j)
{
    gen g = {0};
    expect_pass(j, &g, NULL); /* and records the nodes */
    int n_nodes = g.n_nodes;
    node *nodes = g.nodes;
    g.nodes = NULL;
    /* the locator puts every node on the line the generator wrote it on */
    yaml_locator loc;
    char problem[256];
    int bad_line;
    assert_int_equal(
        yaml_locator_parse(&loc, g.text, g.len, &bad_line, problem, sizeof problem), 0);
    for (int k = 0; k < n_nodes; k++) {
        const yaml_located *e = yaml_locator_find(&loc, nodes[k].path);
        if (!e || e->line != nodes[k].line)
            fail_msg("'%s' written on line %d, located on line %d", nodes[k].path, nodes[k].line,
                     e ? e->line : 0);
    }
    yaml_locator_free(&loc);
    /* the generator wrote every key of every mapping it wrote */
    for (int k = 0; k < n_nodes; k++)
        for (const cyaml_schema_field_t *f = nodes[k].fields; f && f->key; f++) {
            char path[PATH_LEN];
            snprintf(path, sizeof path, "%s%s%s", nodes[k].path, nodes[k].path[0] ? "." : "",
                     f->key);
            if (!written(nodes, n_nodes, path)) fail_msg("%s was not written", path);
        }
    for (int k = 0; k < n_nodes; k++) {
        const node *n = &nodes[k];
        if (n->fields || n->v->type == CYAML_BITFIELD) {
            if (n->v->type == CYAML_BITFIELD) {
                fault extra = {.kind = EXTRA_KEY, .at = n->path};
                expect_refusal(j, &g, &extra, true, frag("unknown key '" EXTRA "' in %s", n->path),
                               NULL);
            } else {
                key_faults(j, &g, n);
            }
        }
        if (n->path[0]) node_faults(j, &g, n);
    }
    free(nodes);
    gen_free(&g);
    return n_nodes;
}

static void test_case_schema_every_fault(void **state)
{
    case_schema *s = case_schema_build();
    assert_non_null(s);
    judge j = {.top = &s->top, .schema = s};
    int n_nodes = every_fault(&j);
    /* the case schema is all text: every fault is one libcyaml refuses too */
    assert_int_equal(j.by_libcyaml, j.checked);
    /* every law's parameters were written (under contacts[0].params) */
    assert_true(s->n_param_names > 10);
    print_message("%d nodes of the case schema, %d faulty documents refused, each also by "
                  "libcyaml\n", n_nodes, j.checked);
    case_schema_free(s);
}

/* The scalar kinds: malformed and out-of-range text (some of which libcyaml reads
 * loosely: 12abc as 12, -1 as 255, 1e999 as infinity, maybe as true), and text every
 * kind takes. */
static void test_every_kind(void **state)
{
    case_schema s = {.top = kinds_schema};
    judge j = {.top = &s.top, .schema = &s};
    every_fault(&j);
    gen g = {0};
    static const struct {
        const char *at, *text;
        bool strict_peer; /* libcyaml refuses it too */
        const char *says;
    } bad[] = {
        {"i8", "abc", true, "i8: expected a whole number, got 'abc'"},
        {"i8", "12abc", false, "i8: expected a whole number, got '12abc'"},
        {"i8", "", true, "i8: expected a whole number, got an empty value"},
        {"i8", "128", true, "i8 = 128 is out of range [-128, 127]"},
        {"i8", "-129", true, "i8 = -129 is out of range [-128, 127]"},
        {"i64", "9223372036854775808", true,
         "i64 = 9223372036854775808 is out of range [-9223372036854775808, 9223372036854775807]"},
        {"u8", "256", true, "u8 = 256 is out of range [0, 255]"},
        {"u8", "-1", true, "u8 = -1 is out of range [0, 255]"},
        {"u64", "-1", false, "u64 = -1 is out of range [0, 18446744073709551615]"},
        {"u64", "18446744073709551616", true, "u64 = 18446744073709551616 is out of range"},
        {"u64", "1.5", false, "u64: expected a whole number, got '1.5'"},
        {"f32", "1e39", false, "f32 = 1e39 is out of range (beyond 3.40282e+38)"},
        {"f64", "1e999", false, "f64 = 1e999 is out of range (beyond 1.79769e+308)"},
        {"f64", "nan", false, "f64: expected a finite number, got 'nan'"},
        {"f64", "-inf", false, "f64: expected a finite number, got '-inf'"},
        {"f64", "1.5.2", false, "f64: expected a finite number, got '1.5.2'"},
        {"f32", "x", true, "f32: expected a finite number, got 'x'"},
        {"yes", "maybe", false, "yes: expected true or false, got 'maybe'"},
        {"colour", "gren", true, "colour = 'gren': expected one of: red, green, blue (did you "
                                 "mean 'green'?)"},
        {"shape", "1", true, "shape = '1': expected one of: round, square"},
        {"word", "a", true, "word: 'a' is shorter than 2 characters"},
        {"word", "abcdef", true, "word: 'abcdef' is longer than 5 characters"},
        {"options[0]", "slow", true, "options[0] = 'slow': expected one of: fast, safe"},
        {"bits.low", "8", true, "bits.low = 8 is out of range [0, 7]"},
        {"bits.high", "x", true, "bits.high: expected a whole number, got 'x'"},
        {"inner.small", "300", true, "inner.small = 300 is out of range [-128, 127]"},
        {"items[0].small", "1x", false, "items[0].small: expected a whole number, got '1x'"},
        {"pair[1]", "40000", true, "pair[1] = 40000 is out of range [-32768, 32767]"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        fault f = {.kind = AS_TEXT, .at = bad[k].at, .text = bad[k].text};
        expect_refusal(&j, &g, &f, bad[k].strict_peer, bad[k].says, NULL);
    }
    static const struct {
        const char *at, *text;
    } good[] = {
        {"i8", "-128"},   {"i8", "0x7f"},    {"i8", "+5"},        {"i64", "-9223372036854775808"},
        {"u8", "255"},    {"u64", "0x10"},   {"f32", "-2.5e-3"},  {"f64", ".5"},
        {"f64", "1e-400"}, /* underflows to 0, as libcyaml reads it */
        {"yes", "off"},   {"yes", "YES"},    {"yes", "Disable"},  {"yes", "0"},
        {"colour", "blue"}, {"colour", "2"}, /* not STRICT: libcyaml takes a number */
        {"shape", "square"}, {"word", "ab"}, {"word", "abcde"},   {"maybe", "~"},
        {"maybe", "null"}, {"options[0]", "safe"}, {"bits.high", "31"}, {"pair[0]", "-32768"},
    };
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        fault f = {.kind = AS_TEXT, .at = good[k].at, .text = good[k].text};
        expect_pass(&j, &g, &f);
    }
    print_message("%d faulty documents refused, %d of them also by libcyaml\n", j.checked,
                  j.by_libcyaml);
    gen_free(&g);
}

/* ------------------------------------------------------------------------------------
 * Cases the generator does not write.
 * ---------------------------------------------------------------------------------- */

static void refuse_text(const case_schema *s, const char *text, const char *says)
{
    case_reader c = {.path = "t.yaml", .schema = (case_schema *)s};
    char err[1024], problem[256];
    c.err = err;
    c.err_len = sizeof err;
    int line;
    assert_int_equal(yaml_locator_parse(&c.loc, text, strlen(text), &line, problem,
                                        sizeof problem), 0);
    err[0] = '\0';
    int rc = case_check_shape(&c);
    yaml_locator_free(&c.loc);
    if (rc == 0 || !strstr(err, says)) fail_msg("expected '%s', got '%s'", says, err);
}

/* Under CYAML_FLAG_CASE_INSENSITIVE "Small" is the key small, and two spellings of it
 * are one key given twice. */
static void test_case_insensitive_keys(void **state)
{
    static const cyaml_schema_field_t fields[] = {
        CYAML_FIELD_INT("small", CYAML_FLAG_DEFAULT, kinds_inner, small), CYAML_FIELD_END};
    case_schema s = {.top = {CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER | CYAML_FLAG_CASE_INSENSITIVE,
                                                 kinds_inner, fields)}};
    case_reader c = {.path = "t.yaml", .schema = &s};
    char err[512], problem[128];
    c.err = err;
    c.err_len = sizeof err;
    int line;
    const char *ok = "Small: 3\n";
    assert_int_equal(yaml_locator_parse(&c.loc, ok, strlen(ok), &line, problem, sizeof problem), 0);
    assert_int_equal(case_check_shape(&c), 0);
    yaml_locator_free(&c.loc);
    refuse_text(&s, "small: 3\nSMALL: 4\n", "t.yaml:2: the file: key 'SMALL' repeats 'small'");
}

/* The values of a long list are walked once each: 100,000 numbers where 3 belong, and an
 * alias after 100,000 numbers under a key the schema skips (radius), are found and placed. */
static void test_long_lists(void **state)
{
    case_schema *s = case_schema_build();
    assert_non_null(s);
    const char *head = "domain: {min: [0, 0, 0], max: [1, 1, 1]}\ntime: {end: 1}\n";
    size_t cap = 1u << 20;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t used = (size_t)snprintf(text, cap, "%sgravity: [", head);
    for (int k = 0; k < 100000; k++)
        used += (size_t)snprintf(text + used, cap - used, "%s%d", k ? ", " : "", k);
    snprintf(text + used, cap - used, "]\n");
    refuse_text(s, text, "t.yaml:3: gravity: expected a list of 3 numbers, got 100000");

    used = (size_t)snprintf(text, cap,
                            "%smaterials: [{name: a, density: 1, young: 1, poisson: 0}]\n"
                            "contacts: [{materials: [a, a], law: linear}]\n"
                            "particles:\n  - source: file\n    material: a\n    radius: [",
                            head);
    for (int k = 0; k < 100000; k++) used += (size_t)snprintf(text + used, cap - used, "%d, ", k);
    snprintf(text + used, cap - used, "*r]\n");
    refuse_text(s, text, "t.yaml:8: particles[0].radius[100000]: YAML aliases");
    free(text);
    case_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_schema_every_fault),
        cmocka_unit_test(test_every_kind),
        cmocka_unit_test(test_case_insensitive_keys),
        cmocka_unit_test(test_long_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
