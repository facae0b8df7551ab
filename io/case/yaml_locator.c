#include "yaml_locator.h"
#include "engine/fail.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 64

typedef struct frame {
    size_t entry;     /* the collection's own entry */
    bool is_mapping;
    bool expect_key;
    size_t base_len;  /* length of this collection's path in the path buffer */
    size_t pending;   /* mapping: entry of the key whose value comes next */
    long next_index;  /* sequence: index of the next item */
} frame;

typedef struct walker {
    yaml_locator *loc;
    frame frames[MAX_DEPTH];
    int depth;
    char *path;
    size_t path_cap;
    int documents;
    int err_line;
    int no_memory;     /* an allocation failed */
    char *err;
    size_t err_len;
} walker;

static uint64_t path_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static size_t *slot_for(const yaml_locator *loc, const char *path)
{
    size_t mask = loc->n_slots - 1;
    for (size_t i = path_hash(path) & mask;; i = (i + 1) & mask) {
        size_t *slot = &loc->slots[i];
        if (*slot == 0 || strcmp(loc->entries[*slot - 1].path, path) == 0) return slot;
    }
}

static int grow_slots(yaml_locator *loc)
{
    size_t n = loc->n_slots ? 2 * loc->n_slots : 64;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots) return -1;
    free(loc->slots);
    loc->slots = slots;
    loc->n_slots = n;
    for (size_t k = 0; k < loc->n_entries; k++) *slot_for(loc, loc->entries[k].path) = k + 1;
    return 0;
}

const yaml_located *yaml_locator_find(const yaml_locator *loc, const char *path)
{
    if (!loc || loc->n_slots == 0 || !path) return NULL;
    size_t slot = *slot_for(loc, path);
    return slot ? &loc->entries[slot - 1] : NULL;
}

int yaml_locator_line(const yaml_locator *loc, const char *path)
{
    if (!path) return 1;
    size_t len = strlen(path);
    char *p = malloc(len + 1);
    if (!p) return 1;
    memcpy(p, path, len + 1);
    int line = 1;
    for (;;) {
        const yaml_located *e = yaml_locator_find(loc, p);
        if (e) {
            line = e->line;
            break;
        }
        if (len == 0) break;
        while (len > 0 && p[len - 1] != '.' && p[len - 1] != '[') len--;
        if (len > 0) len--; /* drop the separator too */
        p[len] = '\0';
    }
    free(p);
    return line;
}

int yaml_locator_sequence_length(const yaml_locator *loc, const char *path)
{
    const yaml_located *e = yaml_locator_find(loc, path);
    return e && e->kind == YNODE_SEQUENCE ? (int)e->n_children : 0;
}

void yaml_locator_free(yaml_locator *loc)
{
    if (!loc) return;
    for (size_t k = 0; k < loc->n_entries; k++) {
        free(loc->entries[k].path);
        free(loc->entries[k].scalar);
    }
    free(loc->entries);
    free(loc->slots);
    memset(loc, 0, sizeof *loc);
}

static int fail(walker *w, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    w->err_line = line;
    vsnprintf(w->err, w->err_len, fmt, ap);
    va_end(ap);
    return -1;
}

static int out_of_memory(walker *w, const yaml_mark_t *mark)
{
    w->no_memory = 1;
    return fail(w, (int)mark->line + 1, "out of memory");
}

/* Makes the path buffer hold base (its first base_len bytes) followed by suffix. */
static int set_path(walker *w, size_t base_len, const char *suffix)
{
    size_t need = base_len + strlen(suffix) + 1;
    if (need > w->path_cap) {
        size_t cap = need * 2;
        char *p = realloc(w->path, cap);
        if (!p) return -1;
        w->path = p;
        w->path_cap = cap;
    }
    strcpy(w->path + base_len, suffix);
    return 0;
}

static ynode_kind kind_of(const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SEQUENCE_START_EVENT: return YNODE_SEQUENCE;
    case YAML_MAPPING_START_EVENT: return YNODE_MAPPING;
    case YAML_ALIAS_EVENT: return YNODE_ALIAS;
    default: return YNODE_SCALAR;
    }
}

static char *copy_text(const char *text, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, text, n);
        s[n] = '\0';
    }
    return s;
}

static char *scalar_text(const yaml_event_t *ev)
{
    return copy_text((const char *)ev->data.scalar.value, ev->data.scalar.length);
}

/* Sets an entry's value from the node event `ev`. */
static int set_value(yaml_located *e, const yaml_event_t *ev)
{
    e->kind = kind_of(ev);
    free(e->scalar);
    e->scalar = NULL;
    if (e->kind == YNODE_SCALAR && !(e->scalar = scalar_text(ev))) return -1;
    return 0;
}

/* Records the path now in the path buffer at `mark`, as a child of the innermost open
 * collection; returns its entry index, or -1. */
static long add_entry(walker *w, const yaml_mark_t *mark)
{
    yaml_locator *loc = w->loc;
    if (loc->n_entries == loc->cap_entries) {
        size_t cap = loc->cap_entries ? 2 * loc->cap_entries : 64;
        yaml_located *e = realloc(loc->entries, cap * sizeof *e);
        if (!e) return -1;
        loc->entries = e;
        loc->cap_entries = cap;
    }
    if (2 * (loc->n_entries + 1) > loc->n_slots && grow_slots(loc) != 0) return -1;
    yaml_located *e = &loc->entries[loc->n_entries];
    *e = (yaml_located){.line = (int)mark->line + 1, .column = (int)mark->column + 1,
                        .end = loc->n_entries + 1};
    if (!(e->path = copy_text(w->path, strlen(w->path)))) return -1;
    size_t *slot = slot_for(loc, e->path);
    if (*slot == 0) *slot = loc->n_entries + 1;
    if (w->depth > 0) loc->entries[w->frames[w->depth - 1].entry].n_children++;
    return (long)loc->n_entries++;
}

/* Opens a collection whose node is entry k (when ev starts one). */
static int push_frame(walker *w, const yaml_event_t *ev, size_t k)
{
    if (ev->type != YAML_SEQUENCE_START_EVENT && ev->type != YAML_MAPPING_START_EVENT)
        return 0;
    if (w->depth == MAX_DEPTH)
        return fail(w, (int)ev->start_mark.line + 1, "nesting deeper than %d levels",
                    MAX_DEPTH);
    w->frames[w->depth++] = (frame){
        .entry = k,
        .is_mapping = ev->type == YAML_MAPPING_START_EVENT,
        .expect_key = true,
        .base_len = strlen(w->path),
    };
    return 0;
}

static int add_node(walker *w, const yaml_event_t *ev)
{
    long k = add_entry(w, &ev->start_mark);
    if (k < 0 || set_value(&w->loc->entries[k], ev) != 0)
        return out_of_memory(w, &ev->start_mark);
    return push_frame(w, ev, (size_t)k);
}

static int on_key(walker *w, frame *f, const yaml_event_t *ev)
{
    int line = (int)ev->start_mark.line + 1;
    if (ev->type != YAML_SCALAR_EVENT)
        return fail(w, line, "mapping keys must be plain names, not %s",
                    ev->type == YAML_ALIAS_EVENT ? "aliases" : "lists or mappings");
    char *key = scalar_text(ev);
    if (!key || set_path(w, f->base_len, f->base_len ? "." : "") != 0 ||
        set_path(w, strlen(w->path), key) != 0) {
        free(key);
        return out_of_memory(w, &ev->start_mark);
    }
    const yaml_located *first = yaml_locator_find(w->loc, w->path);
    if (first) {
        fail(w, line, "duplicate key '%s' (first given on line %d)", key, first->line);
        free(key);
        return -1;
    }
    free(key);
    long k = add_entry(w, &ev->start_mark);
    if (k < 0) return out_of_memory(w, &ev->start_mark);
    yaml_located *e = &w->loc->entries[k];
    e->key = e->path + f->base_len + (f->base_len ? 1 : 0);
    f->pending = (size_t)k;
    f->expect_key = false;
    return 0;
}

static int on_node(walker *w, const yaml_event_t *ev)
{
    if (w->depth == 0) {
        if (set_path(w, 0, "") != 0) return out_of_memory(w, &ev->start_mark);
        return add_node(w, ev);
    }
    frame *f = &w->frames[w->depth - 1];
    if (f->is_mapping && f->expect_key) return on_key(w, f, ev);
    if (f->is_mapping) {
        yaml_located *e = &w->loc->entries[f->pending];
        f->expect_key = true;
        if (set_value(e, ev) != 0 || set_path(w, 0, e->path) != 0)
            return out_of_memory(w, &ev->start_mark);
        return push_frame(w, ev, f->pending);
    }
    char item[32];
    snprintf(item, sizeof item, "[%ld]", f->next_index++);
    if (set_path(w, f->base_len, item) != 0) return out_of_memory(w, &ev->start_mark);
    return add_node(w, ev);
}

static int on_event(walker *w, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++w->documents > 1)
            return fail(w, (int)ev->start_mark.line + 1,
                        "a second YAML document ('---'); a case file holds one");
        return 0;
    case YAML_SCALAR_EVENT:
    case YAML_ALIAS_EVENT:
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: return on_node(w, ev);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (w->depth > 0) {
            w->depth--;
            w->loc->entries[w->frames[w->depth].entry].end = w->loc->n_entries;
        }
        return 0;
    default: return 0;
    }
}

static int line_at_offset(const char *text, size_t len, size_t offset)
{
    int line = 1;
    for (size_t k = 0; k < offset && k < len; k++)
        if (text[k] == '\n') line++;
    return line;
}

static void syntax_error(walker *w, const yaml_parser_t *p, const char *text, size_t len)
{
    const char *problem = p->problem ? p->problem : "unreadable YAML";
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        w->no_memory = 1;
        fail(w, 1, "out of memory while parsing YAML");
        break;
    case YAML_READER_ERROR:
        fail(w, line_at_offset(text, len, p->problem_offset),
             "not a text file or not valid UTF-8 (%s)", problem);
        break;
    default:
        /* libyaml's context_mark can point a line before the construct: leave it out */
        if (p->context)
            fail(w, (int)p->problem_mark.line + 1, "YAML syntax error: %s (%s)", problem,
                 p->context);
        else
            fail(w, (int)p->problem_mark.line + 1, "YAML syntax error: %s", problem);
        break;
    }
}

int yaml_locator_parse(yaml_locator *loc, const char *text, size_t len, int *err_line,
                       char *err, size_t err_len)
{
    memset(loc, 0, sizeof *loc);
    walker w = {.loc = loc, .err = err, .err_len = err_len};
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        *err_line = 1;
        snprintf(err, err_len, "cannot initialise the YAML parser");
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = 0;
    for (bool done = false; !done && rc == 0;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            syntax_error(&w, &parser, text, len);
            rc = -1;
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        rc = on_event(&w, &ev);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    free(w.path);
    if (rc != 0) *err_line = w.err_line;
    return rc == 0 ? 0 : w.no_memory ? FAIL_NO_MEMORY : -1;
}
