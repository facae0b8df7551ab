/* The particles: the sources that place them at the start (a lattice, random positions
 * or a CSV file), and the inlets and outlets that add and remove them during a run. */
#include "case_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/readers/overlap_check.h"
#include "io/readers/particle_csv.h"
#include "engine/checks/watchdog.h"

/* ------------------------------------------------------------------------------------
 * Particle sources.
 * ---------------------------------------------------------------------------------- */

/* The key of `path` if it is a direct child of `parent` ("a.b" in "a"), else NULL. */
static const char *child_key(const char *path, const char *parent)
{
    size_t n = strlen(parent);
    if (strncmp(path, parent, n) != 0 || path[n] != '.') return NULL;
    const char *k = path + n + 1;
    return strpbrk(k, ".[") ? NULL : k;
}

static int read_radius_range(case_reader *c, const char *path, particle_source *s)
{
    static const char *const keys[] = {"min", "max"};
    name_list valid = {0};
    case_names_add(&valid, "min");
    case_names_add(&valid, "max");
    for (size_t k = 0; k < c->loc.n_entries; k++) {
        const char *name = child_key(c->loc.entries[k].path, path);
        if (name && strcmp(name, "min") != 0 && strcmp(name, "max") != 0) {
            case_fail_at(c, c->loc.entries[k].path, "unknown key '%s' in %s%s", name, path,
                         case_did_you_mean(&valid, name, TYPO_DISTANCE).s);
            case_names_free(&valid);
            return -1;
        }
    }
    case_names_free(&valid);
    double r[2];
    for (int k = 0; k < 2; k++) {
        key_path p = case_key("%s.%s", path, keys[k]);
        const yaml_located *e = yaml_locator_find(&c->loc, p.s);
        if (!e) return case_fail_at(c, path, "%s: missing required key '%s'", path, keys[k]);
        if (e->kind != YNODE_SCALAR)
            return case_fail_at(c, p.s, "%s: expected a number, got a %s", p.s,
                                e->kind == YNODE_MAPPING ? "mapping" : "list");
        if (case_read_positive(c, p.s, e->scalar, &r[k]) != 0) return -1;
    }
    if (r[0] > r[1])
        return case_fail_at(c, path, "%s: min = %g must be <= max = %g", path, r[0], r[1]);
    s->radius_min = r[0];
    s->radius_max = r[1];
    return 0;
}

static int read_radius(case_reader *c, const char *at, particle_source *s)
{
    key_path path = case_key("%s.radius", at);
    const yaml_located *e = yaml_locator_find(&c->loc, path.s);
    if (!e)
        return case_fail_at(c, at, "%s: missing required key 'radius' (a number, or {min: .., "
                              "max: ..} for a uniform distribution)", at);
    if (e->kind == YNODE_MAPPING) return read_radius_range(c, path.s, s);
    if (e->kind != YNODE_SCALAR)
        return case_fail_at(c, path.s, "%s: expected a number or {min: .., max: ..}, got a list",
                            path.s);
    if (case_read_positive(c, path.s, e->scalar, &s->radius_min) != 0) return -1;
    s->radius_max = s->radius_min;
    return 0;
}

static int read_region(case_reader *c, const char *at, const raw_region *r,
                       particle_source *s)
{
    static const char axis[] = "xyz";
    const sim_config *cfg = c->cfg;
    key_path path = case_key("%s.region", at), min = case_key("%s.min", path.s),
             max = case_key("%s.max", path.s);
    if (!r) return case_fail_at(c, at, "%s: missing required key 'region' ({min: [..], max: [..]})",
                                at);
    if (case_read_vector(c, min.s, r->min, 3, s->region_min) != 0 ||
        case_read_vector(c, max.s, r->max, 3, s->region_max) != 0)
        return -1;
    for (int a = 0; a < 3; a++) {
        if (!(s->region_min[a] < s->region_max[a]))
            return case_fail_at(c, path.s, "%s: min %c = %g must be < max %c = %g", path.s, axis[a],
                                s->region_min[a], axis[a], s->region_max[a]);
        if (s->region_min[a] < cfg->domain_min[a] || s->region_max[a] > cfg->domain_max[a])
            return case_fail_at(c, path.s,
                                "%s: %c from %g to %g lies outside the domain (%g to %g)", path.s,
                                axis[a], s->region_min[a], s->region_max[a], cfg->domain_min[a],
                                cfg->domain_max[a]);
    }
    return 0;
}

/* Refuses a key that the source's kind does not take. */
static int refuse(const case_reader *c, const char *at, const char *name, bool given,
                  const char *kind)
{
    if (!given) return 0;
    key_path path = case_key("%s.%s", at, name);
    return case_fail_at(c, path.s, "%s: a %s source does not take '%s'", path.s, kind, name);
}

static int read_generated_source(case_reader *c, const char *at, const raw_source *r,
                                 particle_source *s)
{
    bool lattice = s->kind == SOURCE_LATTICE;
    const char *kind = lattice ? "lattice" : "random";
    key_path count = case_key("%s.count", at), seed = case_key("%s.seed", at);
    key_path gap = case_key("%s.gap", at);
    if (refuse(c, at, "file", r->file, kind) != 0 ||
        (!lattice && refuse(c, at, "gap", r->gap, kind) != 0))
        return -1;
    if (read_region(c, at, r->region, s) != 0 || read_radius(c, at, s) != 0) return -1;
    if (!lattice && !r->count)
        return case_fail_at(c, at, "%s: a random source needs 'count' (how many particles)", at);
    for (int a = 0; !lattice && a < 3; a++) { /* else its centres would be drawn outside */
        double span = s->region_max[a] - s->region_min[a];
        if (2.0 * s->radius_max > span) {
            key_path radius = case_key("%s.radius", at);
            return case_fail_at(c, radius.s, "%s: a sphere of diameter %g m does not fit in the "
                                "region (%c spans %g m)", radius.s, 2.0 * s->radius_max, "xyz"[a],
                                span);
        }
    }
    if (r->count && case_read_count(c, count.s, r->count, &s->count) != 0) return -1;
    if (s->count < 0 || (!lattice && s->count == 0))
        return case_fail_at(c, count.s, "%s = %s must be %s", count.s, r->count,
                            lattice ? ">= 0 (0: fill the region)" : "> 0");
    s->seed = 1;
    if (r->seed && case_read_seed(c, seed.s, r->seed, &s->seed) != 0) return -1;
    if (r->gap && case_read_non_negative(c, gap.s, r->gap, &s->gap) != 0) return -1;
    return 0;
}

/* A file a case names (CSV, STL) must be a regular file: a device, FIFO or folder
 * (/dev/zero, /dev/stdin) would be read without end or not at all. A missing file is
 * left to the reader, which says it cannot open it. */
int case_check_regular_file(const case_reader *c, const char *key_at, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
    return case_fail_at(c, key_at, "%s: %s is not a regular file", key_at, path);
}

/* The CSV's path: as given when absolute, else relative to the case file's folder. */
char *case_csv_path(const char *case_path, const char *file)
{
    const char *slash = strrchr(case_path, '/');
    size_t dir = file[0] == '/' || !slash ? 0 : (size_t)(slash - case_path) + 1;
    size_t n = strlen(file);
    char *p = malloc(dir + n + 1);
    if (p) {
        memcpy(p, case_path, dir);
        memcpy(p + dir, file, n + 1);
    }
    return p;
}

static int check_list_inside_domain(const case_reader *c, const char *file_key,
                                    const char *file, const particle_source *s)
{
    const sim_config *cfg = c->cfg;
    for (long i = 0; i < s->n_list; i++) {
        const double *x = s->list_position + 3 * i;
        for (int a = 0; a < 3; a++)
            if (x[a] < cfg->domain_min[a] || x[a] > cfg->domain_max[a])
                return case_fail_at(c, file_key, "%s: particle %ld of %s at (%g, %g, %g) lies "
                                            "outside the domain", file_key, i + 1, file, x[0],
                               x[1], x[2]);
    }
    return 0;
}

/* Every radius fits in the domain (a sphere wider than the whole box is a unit mistake:
 * millimetres read as metres). */
static int check_list_radii(const case_reader *c, const char *file_key, const char *file,
                            const particle_source *s)
{
    const sim_config *cfg = c->cfg;
    double widest = 0.0;
    for (int a = 0; a < 3; a++) widest = fmax(widest, cfg->domain_max[a] - cfg->domain_min[a]);
    for (long i = 0; i < s->n_list; i++)
        if (s->list_radius[i] > widest)
            return case_fail_at(c, file_key, "%s: particle %ld of %s has radius %g m, larger than "
                                "the domain's widest side (%g m)", file_key, i + 1, file,
                                s->list_radius[i], widest);
    return 0;
}

/* No two of the file's particles overlap by more than the watchdog allows at the start
 * (watchdog.max_overlap_fraction of the smaller radius): checked here, on a hash of
 * cells, so that a file of coincident particles is refused before the engine builds a
 * neighbour list in which every one of them is a candidate of every other. */
static int check_list_overlaps(const case_reader *c, const char *file_key, const char *file,
                               const particle_source *s)
{
    double limit = c->cfg->watchdog.max_overlap_fraction > 0.0
                       ? c->cfg->watchdog.max_overlap_fraction
                       : WATCHDOG_DEFAULT_OVERLAP;
    overlap_found o;
    int rc = overlap_check(s->list_position, s->list_radius, (size_t)s->n_list, limit,
                           c->cfg->stop, &o);
    if (rc == 0) return 0;
    if (rc == -1) return case_fail_memory(c, file_key, "%s: out of memory", file_key);
    if (rc == -2) return case_fail_at(c, file_key, "%s: stopped by a signal", file_key);
    const double *a = s->list_position + 3 * o.first, *b = s->list_position + 3 * o.second;
    return case_fail_at(c, file_key, "%s: particle %zu of %s at (%g, %g, %g) overlaps particle "
                        "%zu at (%g, %g, %g) by %.4g m = %.3g of the smaller radius (limit %g, "
                        "watchdog.max_overlap_fraction)", file_key, o.second + 1, file, b[0],
                        b[1], b[2], o.first + 1, a[0], a[1], a[2], o.overlap, o.fraction, limit);
}

static int read_file_source(case_reader *c, const char *at, const raw_source *r,
                            particle_source *s)
{
    static const char *const refused[] = {"count", "seed", "gap"};
    const char *given[] = {r->count, r->seed, r->gap};
    key_path file_key = case_key("%s.file", at), radius = case_key("%s.radius", at);
    for (int k = 0; k < 3; k++)
        if (refuse(c, at, refused[k], given[k], "file") != 0) return -1;
    if (refuse(c, at, "region", r->region, "file") != 0 ||
        refuse(c, at, "radius", yaml_locator_find(&c->loc, radius.s), "file") != 0)
        return -1;
    if (!r->file)
        return case_fail_at(c, at, "%s: a file source needs 'file' (a CSV with columns x, y, z, "
                              "radius and optionally vx, vy, vz)", at);
    char *path = case_csv_path(c->path, r->file);
    if (!path) return case_fail_memory(c, file_key.s, "out of memory");
    if (case_check_regular_file(c, file_key.s, path) != 0) {
        free(path);
        return -1;
    }
    char csv_err[512];
    int rc = particle_csv_read_stoppable(path, s, c->cfg->stop, csv_err, sizeof csv_err);
    if (rc == PARTICLE_CSV_UNREADABLE)
        case_fail_at(c, file_key.s, "%s: %s", file_key.s, csv_err);
    else if (rc == FAIL_NO_MEMORY)
        case_fail_memory(c, file_key.s, "%s: %s", file_key.s, csv_err);
    else if (rc != 0)
        snprintf(c->err, c->err_len, "%s\n  (read for %s at %s:%d)", csv_err, file_key.s,
                 c->path, yaml_locator_line(&c->loc, file_key.s));
    else if (s->list_velocity && r->velocity[0]) {
        key_path v = case_key("%s.velocity", at);
        rc = case_fail_at(c, v.s, "%s: %s already gives velocities (vx, vy, vz); give them in "
                             "one place only", v.s, path);
    } else {
        rc = check_list_inside_domain(c, file_key.s, path, s);
        if (rc == 0) rc = check_list_radii(c, file_key.s, path, s);
        if (rc == 0) rc = check_list_overlaps(c, file_key.s, path, s);
    }
    free(path);
    if (rc != 0) return -1;
    s->count = s->n_list;
    s->radius_min = s->radius_max = s->list_radius[0];
    for (long i = 1; i < s->n_list; i++) {
        if (s->list_radius[i] < s->radius_min) s->radius_min = s->list_radius[i];
        if (s->list_radius[i] > s->radius_max) s->radius_max = s->list_radius[i];
    }
    return 0;
}

/* A fixed source's particles never move (particle_source.fixed): they start at rest,
 * so a velocity given to them is refused rather than dropped. */
static int check_fixed_at_rest(case_reader *c, const char *at, const particle_source *s)
{
    for (int a = 0; a < 3; a++)
        if (s->velocity[a] != 0.0) {
            key_path v = case_key("%s.velocity", at);
            return case_fail_at(c, v.s, "%s: the particles of a fixed source (fixed: true) "
                                        "are at rest: give 0 0 0 or leave velocity out", v.s);
        }
    for (long k = 0; k < s->n_list; k++)
        for (int a = 0; a < 3; a++) {
            double v = s->list_velocity ? s->list_velocity[3 * k + a] : 0.0,
                   w = s->list_angular_velocity ? s->list_angular_velocity[3 * k + a] : 0.0;
            if (v != 0.0 || w != 0.0) {
                key_path f = case_key("%s.file", at);
                return case_fail_at(c, f.s, "%s: particle %ld of the file moves (velocity "
                                            "or angular velocity not 0); the particles of a "
                                            "fixed source (fixed: true) are at rest", f.s, k + 1);
            }
        }
    return 0;
}

static int read_source(case_reader *c, int i, particle_source *s)
{
    const raw_source *r = &c->raw->particles[i];
    key_path at = case_key("particles[%d]", i);
    key_path kind = case_key("%s.source", at.s), mat = case_key("%s.material", at.s),
             velocity = case_key("%s.velocity", at.s);
    if (strcmp(r->source, "lattice") == 0) {
        s->kind = SOURCE_LATTICE;
    } else if (strcmp(r->source, "random") == 0) {
        s->kind = SOURCE_RANDOM;
    } else if (strcmp(r->source, "file") == 0) {
        s->kind = SOURCE_LIST;
    } else {
        name_list kinds = {0};
        case_names_add(&kinds, "lattice");
        case_names_add(&kinds, "random");
        case_names_add(&kinds, "file");
        case_fail_at(c, kind.s, "%s: expected lattice, random or file, got %s%s", kind.s,
                     case_show(r->source).s, case_did_you_mean(&kinds, r->source, TYPO_DISTANCE).s);
        case_names_free(&kinds);
        return -1;
    }
    if (case_resolve_material(c, mat.s, r->material, &s->material) != 0) return -1;
    if (r->velocity[0] && case_read_vector(c, velocity.s, r->velocity, 3, s->velocity) != 0)
        return -1;
    if (r->fixed && case_read_bool(c, case_key("%s.fixed", at.s).s, r->fixed, &s->fixed) != 0)
        return -1;
    int rc = s->kind == SOURCE_LIST ? read_file_source(c, at.s, r, s)
                                    : read_generated_source(c, at.s, r, s);
    if (rc != 0 || !s->fixed) return rc;
    return check_fixed_at_rest(c, at.s, s);
}

int case_read_sources(case_reader *c)
{
    sim_config *cfg = c->cfg;
    int n = (int)c->raw->particles_count;
    if (!(cfg->sources = calloc((size_t)n + 1, sizeof *cfg->sources)))
        return case_fail_memory(c, NULL, "out of memory");
    cfg->n_sources = n;
    for (int i = 0; i < n; i++)
        if (read_source(c, i, &cfg->sources[i]) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------
 * Inlets and outlets (engine/population/population.h).
 * ---------------------------------------------------------------------------------- */

static int read_inlet(case_reader *c, int i, inlet_spec *in)
{
    const raw_inlet *r = &c->raw->inlets[i];
    key_path at = case_key("inlets[%d]", i);
    if (r->name && case_read_name(c, case_key("%s.name", at.s).s, r->name,
                                  in->name) != 0) return -1;
    if (!r->name) snprintf(in->name, sizeof in->name, "inlet%d", i);
    if (case_resolve_material(c, case_key("%s.material", at.s).s, r->material, &in->material) != 0)
        return -1;
    particle_source box = {0};
    if (read_region(c, at.s, r->region, &box) != 0 || read_radius(c, at.s, &box) != 0)
        return -1;
    for (int a = 0; a < 3; a++) {
        in->region_min[a] = box.region_min[a];
        in->region_max[a] = box.region_max[a];
        if (2.0 * box.radius_max > box.region_max[a] - box.region_min[a])
            return case_fail_at(c, case_key("%s.region", at.s).s,
                                "%s.region: %c spans %g m, less than "
                                "the largest diameter %g m", at.s, "xyz"[a],
                                box.region_max[a] - box.region_min[a], 2.0 * box.radius_max);
    }
    in->radius_min = box.radius_min;
    in->radius_max = box.radius_max;
    if ((r->rate != NULL) == (r->mass_rate != NULL))
        return case_fail_at(c, at.s, "%s: give exactly one of rate (particles/s) and mass_rate "
                            "(kg/s)", at.s);
    if (r->rate && case_read_positive(c, case_key("%s.rate", at.s).s, r->rate, &in->rate) != 0)
        return -1;
    if (r->mass_rate &&
        case_read_positive(c, case_key("%s.mass_rate", at.s).s, r->mass_rate, &in->mass_rate) != 0)
        return -1;
    if (r->velocity[0] &&
        case_read_vector(c, case_key("%s.velocity", at.s).s, r->velocity, 3, in->velocity) != 0)
        return -1;
    if (r->start && case_read_non_negative(c, case_key("%s.start", at.s).s, r->start,
                                           &in->start) != 0)
        return -1;
    if (r->stop && case_read_positive(c, case_key("%s.stop", at.s).s, r->stop, &in->stop) != 0)
        return -1;
    if (r->stop && in->stop <= in->start)
        return case_fail_at(c, case_key("%s.stop", at.s).s, "%s.stop = %g must be after start = %g",
                            at.s, in->stop, in->start);
    if (r->interval &&
        case_read_positive(c, case_key("%s.interval", at.s).s, r->interval, &in->interval) != 0)
        return -1;
    in->seed = 1 + (uint64_t)i;
    if (r->seed && case_read_seed(c, case_key("%s.seed", at.s).s, r->seed,
                                  &in->seed) != 0) return -1;
    return 0;
}

static int read_outlet(case_reader *c, int i, outlet_spec *o)
{
    const raw_outlet *r = &c->raw->outlets[i];
    key_path at = case_key("outlets[%d]", i);
    if (r->name && case_read_name(c, case_key("%s.name", at.s).s, r->name, o->name) != 0) return -1;
    if (!r->name) snprintf(o->name, sizeof o->name, "outlet%d", i);
    particle_source box = {0};
    if (read_region(c, at.s, r->region, &box) != 0) return -1;
    for (int a = 0; a < 3; a++) {
        o->region_min[a] = box.region_min[a];
        o->region_max[a] = box.region_max[a];
    }
    return 0;
}

int case_read_population(case_reader *c)
{
    sim_config *cfg = c->cfg;
    int n_in = (int)c->raw->inlets_count, n_out = (int)c->raw->outlets_count;
    if (c->raw->particles_count == 0 && n_in == 0)
        return case_fail_line(c, 1, "the case has no particles: add particles: (a source) or "
                               "inlets:");
    cfg->inlets = calloc((size_t)n_in + 1, sizeof *cfg->inlets);
    cfg->outlets = calloc((size_t)n_out + 1, sizeof *cfg->outlets);
    if (!cfg->inlets || !cfg->outlets) return case_fail_memory(c, NULL, "out of memory");
    for (int i = 0; i < n_in; i++) {
        cfg->n_inlets = i + 1;
        if (read_inlet(c, i, &cfg->inlets[i]) != 0) return -1;
    }
    for (int i = 0; i < n_out; i++) {
        cfg->n_outlets = i + 1;
        if (read_outlet(c, i, &cfg->outlets[i]) != 0) return -1;
    }
    return 0;
}
