/* The case-file reader. A libyaml pass (yaml_locator) reads the document's tree, with
 * the line of every node, and catches syntax errors; the tree is checked against the
 * schema (keys, nesting, list lengths, required keys); libcyaml then loads every scalar
 * as text, and the reader parses and checks the values, resolves names and fills the
 * sim_config.
 *
 * This file loads a case: it reads the file, runs the passes and then the sections in
 * their order. The sections are read by case_settings.c, case_contacts.c, case_walls.c
 * and case_particles.c and checked against each other by case_checks.c; case_schema.c
 * holds the schema, case_shape.c words what the schema check finds, and case_reader.c
 * and case_names.c hold what they all use (case_internal.h declares what is shared). */
#include "case.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_internal.h"
#include "io/readers/text_encoding.h"

#define MAX_CASE_BYTES (16u << 20)

/* ------------------------------------------------------------------------------------
 * Loading.
 * ---------------------------------------------------------------------------------- */

static int read_case_file(case_reader *c)
{
    FILE *f = fopen(c->path, "rb");
    if (!f) {
        snprintf(c->err, c->err_len, "%s: cannot open: %s", c->path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 14;
    c->text = malloc(cap + 1);
    while (c->text) {
        c->len += fread(c->text + c->len, 1, cap - c->len, f);
        if (c->len < cap || cap >= MAX_CASE_BYTES) break;
        char *bigger = realloc(c->text, 2 * cap + 1);
        if (!bigger) free(c->text);
        c->text = bigger;
        cap *= 2;
    }
    const char *problem = !c->text             ? "out of memory"
                          : ferror(f)          ? strerror(errno)
                          : c->len >= MAX_CASE_BYTES ? "larger than 16 MiB: not a case file"
                                                     : NULL;
    fclose(f);
    if (problem) {
        snprintf(c->err, c->err_len, "%s: cannot read: %s", c->path, problem);
        if (!c->text) *c->failure = FAIL_NO_MEMORY;
        return -1;
    }
    c->text[c->len] = '\0';
    /* libyaml would read UTF-16 and UTF-32 too, but the case text is kept with the output
     * as UTF-8 (and compared by a restart): refuse them by name; a UTF-8 mark libyaml
     * skips itself */
    const char *encoding = text_encoding_problem(c->text, c->len);
    if (encoding) {
        snprintf(c->err, c->err_len, "%s: %s", c->path, encoding);
        return -1;
    }
    return 0;
}

static int locate(case_reader *c)
{
    char problem[512];
    int line = 1;
    int rc = yaml_locator_parse(&c->loc, c->text, c->len, &line, problem, sizeof problem);
    if (rc != 0) {
        if (rc == FAIL_NO_MEMORY) *c->failure = FAIL_NO_MEMORY;
        return case_fail_line(c, line, "%s", problem);
    }
    const yaml_located *root = yaml_locator_find(&c->loc, "");
    if (!root)
        return case_fail_line(c, 1, "the file is empty: a case needs at least domain, time, "
                               "materials, contacts and particles");
    if (root->kind != YNODE_MAPPING)
        return case_fail_line(c, root->line, "a case file is a mapping of keys (domain:, time:, "
                                        "materials:, ...), not %s",
                         root->kind == YNODE_SEQUENCE ? "a list" : "a single value");
    return 0;
}

static int load_raw(case_reader *c)
{
    if (!(c->schema = case_schema_build())) return case_fail_memory(c, NULL, "out of memory");
    if (case_check_shape(c) != 0) return -1;
    /* no log: the check has said all there is to say about the file */
    cyaml_config_t config = {
        .mem_fn = cyaml_mem,
        .log_level = CYAML_LOG_ERROR,
        .flags = CYAML_CFG_NO_ALIAS,
    };
    cyaml_err_t e = cyaml_load_data((const uint8_t *)c->text, c->len, &config, &c->schema->top,
                                    (cyaml_data_t **)&c->raw, NULL);
    if (e != CYAML_OK) return case_report_load_failure(c, e);
    if (!c->raw) return case_fail_line(c, 1, "the file holds no case");
    return 0;
}

static void free_raw(case_reader *c)
{
    if (c->raw) {
        cyaml_config_t config = {.mem_fn = cyaml_mem, .log_level = CYAML_LOG_ERROR};
        cyaml_free(&config, &c->schema->top, c->raw, 0);
    }
    case_schema_free(c->schema);
    yaml_locator_free(&c->loc);
}

static int keep_source_text(case_reader *c)
{
    size_t n = strlen(c->path);
    if (!(c->cfg->case_path = malloc(n + 1))) return case_fail_memory(c, NULL, "out of memory");
    memcpy(c->cfg->case_path, c->path, n + 1);
    c->cfg->case_text = c->text; /* NUL-terminated by read_case_file */
    c->text = NULL;
    return 0;
}

int case_load(const char *path, sim_config *cfg, char *err, size_t err_len)
{
    return case_load_stoppable(path, cfg, NULL, err, err_len);
}

int case_load_stoppable(const char *path, sim_config *cfg, volatile sig_atomic_t *stop,
                        char *err, size_t err_len)
{
    char scratch[1];
    if (!err || err_len == 0) {
        err = scratch;
        err_len = sizeof scratch;
    }
    err[0] = '\0';
    if (!cfg || !path) {
        snprintf(err, err_len, "%s: cannot open: no case file or no config given",
                 path ? path : "(no path)");
        return -1;
    }
    memset(cfg, 0, sizeof *cfg);
    cfg->stop = stop;
    int failure = 0;
    case_reader c = {.path = path, .cfg = cfg, .err = err, .err_len = err_len, .failure = &failure};
    int rc = read_case_file(&c);
    if (rc == 0) rc = locate(&c);
    if (rc == 0) rc = load_raw(&c);
    if (rc == 0) rc = case_read_header(&c);
    if (rc == 0) rc = case_read_domain(&c);
    if (rc == 0) rc = case_read_time(&c);
    if (rc == 0) rc = case_read_watchdog(&c);
    if (rc == 0) rc = case_read_parallel(&c);
    if (rc == 0) rc = case_read_materials(&c);
    if (rc == 0) rc = case_read_contacts(&c);
    if (rc == 0) rc = case_read_walls(&c);
    if (rc == 0) rc = case_check_walls_reach(&c);
    if (rc == 0) rc = case_read_sources(&c);
    if (rc == 0) rc = case_read_population(&c);
    if (rc == 0) rc = case_check_walls_hold(&c);
    if (rc == 0) rc = case_check_contact_pairs(&c);
    if (rc == 0) rc = case_check_speeds(&c);
    if (rc == 0) rc = keep_source_text(&c);
    free_raw(&c);
    free(c.text);
    if (rc != 0) sim_config_free(cfg);
    return rc == 0 ? 0 : failure == FAIL_NO_MEMORY ? FAIL_NO_MEMORY : FAIL_REFUSED;
}
