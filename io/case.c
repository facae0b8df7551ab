/* The case-file reader. libcyaml checks the document's shape (keys, nesting, list
 * lengths, required keys) and loads every scalar as text; this file then parses and
 * checks the values, resolves names and fills the sim_config. A libyaml pass
 * (yaml_locator) runs first: it catches syntax errors and gives every error its line. */
#include "case.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "case_internal.h"
#include "models/calibrate.h"
#include "particle_csv.h"
#include "stl.h"
#include "yaml_locator.h"

#define MAX_CASE_BYTES (16u << 20)

/* ------------------------------------------------------------------------------------
 * Walls must hold the particles: a wall faces gravity along every closed axis it acts
 * on, and every source starts on the inner side of every plane wall.
 * ---------------------------------------------------------------------------------- */

static double plane_distance(const wall_spec *w, const double x[3])
{
    return (x[0] - w->point[0]) * w->normal[0] + (x[1] - w->point[1]) * w->normal[1] +
           (x[2] - w->point[2]) * w->normal[2];
}

static int check_gravity_walls(case_reader *c)
{
    static const char axis[] = "xyz";
    const sim_config *cfg = c->cfg;
    for (int a = 0; a < 3; a++) {
        double g = cfg->gravity[a];
        if (g == 0.0 || cfg->periodic[a]) continue;
        /* a plane or rectangle facing gravity holds; a cylinder, cone or STL surface may
         * (a drum, a hopper); an outlet takes what falls out on purpose */
        bool held = cfg->n_outlets > 0;
        for (int k = 0; k < cfg->n_walls && !held; k++) {
            const wall_spec *w = &cfg->walls[k];
            held = (w->kind != WALL_PLANE && w->kind != WALL_RECTANGLE) || w->normal[a] * g < 0.0;
        }
        if (!held)
            return fail_at(c, "gravity", "gravity: pulls along %c%c, but no wall faces it "
                           "(a wall whose normal has a %c%c component): the particles would "
                           "fall out of the domain; add one (walls: - {type: plane, normal: "
                           "...}) or make the axis periodic", g < 0 ? '-' : '+', axis[a],
                           g < 0 ? '+' : '-', axis[a]);
    }
    return 0;
}

static int check_source_sides(case_reader *c, int i)
{
    const sim_config *cfg = c->cfg;
    const particle_source *s = &cfg->sources[i];
    for (int k = 0; k < cfg->n_walls; k++) {
        const wall_spec *w = &cfg->walls[k];
        if (w->kind != WALL_PLANE) continue;
        if (s->kind == SOURCE_LIST) {
            for (long q = 0; q < s->n_list; q++) {
                const double *x = s->list_position + 3 * q;
                if (plane_distance(w, x) >= 0.0) continue;
                key_path f = key("particles[%d].file", i);
                return fail_at(c, f.s, "%s: particle %ld at (%g, %g, %g) lies behind wall "
                               "%s (walls[%d]): particles start on the side its normal "
                               "points to", f.s, q + 1, x[0], x[1], x[2], w->name, k);
            }
            continue;
        }
        double size = 0.0;
        for (int a = 0; a < 3; a++) size = fmax(size, s->region_max[a] - s->region_min[a]);
        for (int corner = 0; corner < 8; corner++) {
            double x[3];
            for (int a = 0; a < 3; a++)
                x[a] = corner >> a & 1 ? s->region_max[a] : s->region_min[a];
            if (plane_distance(w, x) >= -1e-12 * size) continue;
            key_path r = key("particles[%d].region", i);
            return fail_at(c, r.s, "%s: its corner (%g, %g, %g) lies behind wall %s "
                           "(walls[%d]): a region must lie on the side the wall's normal "
                           "points to", r.s, x[0], x[1], x[2], w->name, k);
        }
    }
    return 0;
}

static int check_walls_hold(case_reader *c)
{
    if (check_gravity_walls(c) != 0) return -1;
    for (int i = 0; i < c->cfg->n_sources; i++)
        if (check_source_sides(c, i) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------
 * Every pair of materials that can touch needs a contact entry.
 * ---------------------------------------------------------------------------------- */

static bool has_binding(const sim_config *cfg, int a, int b)
{
    for (int k = 0; k < cfg->n_bindings; k++) {
        const law_binding *l = &cfg->bindings[k];
        if ((l->material_a == a && l->material_b == b) ||
            (l->material_a == b && l->material_b == a))
            return true;
    }
    return false;
}

static int check_contact_pairs(case_reader *c)
{
    const sim_config *cfg = c->cfg;
    int n = cfg->n_materials;
    bool *in_particles = calloc((size_t)n, sizeof(bool));
    bool *in_walls = calloc((size_t)n, sizeof(bool));
    if (!in_particles || !in_walls) {
        free(in_particles);
        free(in_walls);
        return fail_line(c, 1, "out of memory");
    }
    for (int k = 0; k < cfg->n_sources; k++) in_particles[cfg->sources[k].material] = true;
    for (int k = 0; k < cfg->n_walls; k++) in_walls[cfg->walls[k].material] = true;
    char missing[1024] = "";
    size_t used = 0;
    int n_missing = 0;
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++) {
            bool touch = (in_particles[a] && in_particles[b]) ||
                         (in_particles[a] && in_walls[b]) || (in_walls[a] && in_particles[b]);
            if (!touch || has_binding(cfg, a, b)) continue;
            bool wall = !(in_particles[a] && in_particles[b]);
            if (used < sizeof missing) {
                int w = snprintf(missing + used, sizeof missing - used, "%s[%s, %s] (%s)",
                                 n_missing ? ", " : "", cfg->materials[a].name,
                                 cfg->materials[b].name,
                                 wall ? "particles on a wall" : "particles on particles");
                if (w > 0) used += (size_t)w;
            }
            n_missing++;
        }
    free(in_particles);
    free(in_walls);
    if (n_missing == 0) return 0;
    return fail_at(c, "contacts",
                   "contacts: no entry for %s; every pair of materials that can touch needs "
                   "one ('- materials: [a, b]' with a law)", missing);
}

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
        return -1;
    }
    c->text[c->len] = '\0';
    return 0;
}

static int locate(case_reader *c)
{
    char problem[512];
    int line = 1;
    if (yaml_locator_parse(&c->loc, c->text, c->len, &line, problem, sizeof problem) != 0)
        return fail_line(c, line, "%s", problem);
    const yaml_located *root = yaml_locator_find(&c->loc, "");
    if (!root)
        return fail_line(c, 1, "the file is empty: a case needs at least domain, time, "
                               "materials, contacts and particles");
    if (root->kind != YNODE_MAPPING)
        return fail_line(c, root->line, "a case file is a mapping of keys (domain:, time:, "
                                        "materials:, ...), not %s",
                         root->kind == YNODE_SEQUENCE ? "a list" : "a single value");
    return 0;
}

static int load_raw(case_reader *c)
{
    if (!(c->schema = schema_build())) return fail_line(c, 1, "out of memory");
    cyaml_log_buffer log = {.len = 0};
    cyaml_config_t config = {
        .log_fn = capture_cyaml_log,
        .log_ctx = &log,
        .mem_fn = cyaml_mem,
        .log_level = CYAML_LOG_ERROR,
        .flags = CYAML_CFG_NO_ALIAS,
    };
    cyaml_err_t e = cyaml_load_data((const uint8_t *)c->text, c->len, &config, &c->schema->top,
                                    (cyaml_data_t **)&c->raw, NULL);
    if (e != CYAML_OK) return report_cyaml_error(c, e, &log);
    if (!c->raw) return fail_line(c, 1, "the file holds no case");
    return 0;
}

static void free_raw(case_reader *c)
{
    if (c->raw) {
        cyaml_config_t config = {.mem_fn = cyaml_mem, .log_level = CYAML_LOG_ERROR};
        cyaml_free(&config, &c->schema->top, c->raw, 0);
    }
    schema_free(c->schema);
    yaml_locator_free(&c->loc);
}

static int keep_source_text(case_reader *c)
{
    size_t n = strlen(c->path);
    if (!(c->cfg->case_path = malloc(n + 1))) return fail_line(c, 1, "out of memory");
    memcpy(c->cfg->case_path, c->path, n + 1);
    c->cfg->case_text = c->text; /* NUL-terminated by read_case_file */
    c->text = NULL;
    return 0;
}

int case_load(const char *path, sim_config *cfg, char *err, size_t err_len)
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
    case_reader c = {.path = path, .cfg = cfg, .err = err, .err_len = err_len};
    int rc = read_case_file(&c);
    if (rc == 0) rc = locate(&c);
    if (rc == 0) rc = load_raw(&c);
    if (rc == 0) rc = read_header(&c);
    if (rc == 0) rc = read_domain(&c);
    if (rc == 0) rc = read_time(&c);
    if (rc == 0) rc = read_watchdog(&c);
    if (rc == 0) rc = read_materials(&c);
    if (rc == 0) rc = read_contacts(&c);
    if (rc == 0) rc = read_walls(&c);
    if (rc == 0) rc = read_sources(&c);
    if (rc == 0) rc = read_population(&c);
    if (rc == 0) rc = check_walls_hold(&c);
    if (rc == 0) rc = check_contact_pairs(&c);
    if (rc == 0) rc = keep_source_text(&c);
    free_raw(&c);
    free(c.text);
    if (rc != 0) sim_config_free(cfg);
    return rc;
}
