/* Where things are in a YAML file: one libyaml pass that records, for every mapping
 * value and sequence item, its path ("materials[0].young", "walls[1]", "domain.min[2]"),
 * its line and column, its key and, for scalars, its text. The entries form the
 * document's tree in document order (each node followed by its subtree), so a walk can
 * check the document against a schema (yaml_schema_check.h); the paths are hashed, so
 * the case reader can put a line number on any error that names a key.
 *
 * The pass also refuses what libcyaml would accept silently or handle badly: syntax
 * errors (with the line), a second document, duplicate keys and non-scalar keys. */
#ifndef DEMPACT_YAML_LOCATOR_H
#define DEMPACT_YAML_LOCATOR_H

#include <stddef.h>

typedef enum ynode_kind {
    YNODE_SCALAR,
    YNODE_SEQUENCE,
    YNODE_MAPPING,
    YNODE_ALIAS
} ynode_kind;

typedef struct yaml_located {
    char *path;      /* "" for the document's root */
    const char *key; /* a mapping value's key (the end of path), else NULL */
    int line;        /* 1-based: of the key for a mapping value, of the node itself otherwise */
    int column;      /* 1-based, as line */
    ynode_kind kind; /* of the value */
    char *scalar;    /* the text of a scalar value, else NULL */
    size_t end;      /* index one past the last entry of this node's subtree */
    size_t n_children; /* a collection's items or key-value pairs */
} yaml_located;

typedef struct yaml_locator {
    yaml_located *entries; /* in document order */
    size_t n_entries, cap_entries;
    size_t *slots;         /* hash table of entry index + 1 (0: empty) */
    size_t n_slots;
} yaml_locator;

/* Parses `len` bytes of YAML. Returns 0, or -1 (FAIL_NO_MEMORY, engine/fail.h, when an
 * allocation failed) with the 1-based line of the problem in *err_line and a message
 * (without file or line) in err. An empty document (only
 * comments or nothing) is not an error: it leaves no entries. The locator must be
 * freed with yaml_locator_free in both cases. */
int yaml_locator_parse(yaml_locator *loc, const char *text, size_t len, int *err_line,
                       char *err, size_t err_len);
void yaml_locator_free(yaml_locator *loc);

/* The entry at exactly this path, or NULL. */
const yaml_located *yaml_locator_find(const yaml_locator *loc, const char *path);

/* The line of `path`, or of its nearest recorded ancestor ("a.b[2].c" -> "a.b[2]" ->
 * "a.b" -> "a"), or 1 when nothing is known. */
int yaml_locator_line(const yaml_locator *loc, const char *path);

/* Number of items of the sequence at `path` (0 if it is not a recorded sequence). */
int yaml_locator_sequence_length(const yaml_locator *loc, const char *path);

/* The children of entry k, in document order: the first is k + 1 (when the node has
 * any), the one after child j is entries[j].end. */
#define YAML_LOCATOR_FOR_CHILDREN(loc, k, j) \
    for (size_t j = (k) + 1; j < (loc)->entries[k].end; j = (loc)->entries[j].end)

#endif
