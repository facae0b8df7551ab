/* The case's settings: its name, domain, gravity, time, neighbour skin, watchdog and
 * parallel sums, and its materials, which the contacts, walls and particles name. */
#include "case_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------
 * The top-level scalars: name, domain, gravity, time, neighbour.
 * ---------------------------------------------------------------------------------- */

static void default_name(const char *path, char *out)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".yaml") == 0) n -= 5;
    else if (n > 4 && strcmp(base + n - 4, ".yml") == 0) n -= 4;
    if (n >= NAME_LEN) n = NAME_LEN - 1;
    memcpy(out, base, n);
    out[n] = '\0';
}

int case_read_header(case_reader *c)
{
    const raw_case *raw = c->raw;
    sim_config *cfg = c->cfg;
    if (raw->name) {
        if (case_read_name(c, "name", raw->name, cfg->name) != 0) return -1;
        /* it names the output files DIR/NAME.h5 and .xmf (XDMF splits at a colon) */
        if (strpbrk(cfg->name, "/:\\") || strcmp(cfg->name, ".") == 0 ||
            strcmp(cfg->name, "..") == 0)
            return case_fail_at(c, "name", "name: %s names the output files, so it may not hold "
                                "'/', ':' or '\\' nor be '.' or '..'", case_show(raw->name).s);
        return 0;
    }
    default_name(c->path, cfg->name);
    return 0;
}

/* domain.lees_edwards: the shear needs periodic x (the flow) and z (the gradient), and
 * the images' speed, shear_rate x height, stays within the case's speeds. */
static int case_read_lees_edwards(case_reader *c)
{
    const raw_lees_edwards *le = c->raw->domain.lees_edwards;
    sim_config *cfg = c->cfg;
    lees_edwards_spec *out = &cfg->lees_edwards;
    out->on = true;
    if (!cfg->periodic[0] || !cfg->periodic[2])
        return case_fail_at(c, "domain.lees_edwards",
                            "domain.lees_edwards shears along x with the gradient along z: both "
                            "must be periodic (domain.periodic: [true, ..., true])");
    if (case_read_number(c, "domain.lees_edwards.shear_rate", le->shear_rate, &out->shear_rate) != 0)
        return -1;
    double height = cfg->domain_max[2] - cfg->domain_min[2];
    if (!(fabs(out->shear_rate) * height <= CASE_MAX_SPEED))
        return case_fail_at(c, "domain.lees_edwards.shear_rate",
                            "domain.lees_edwards.shear_rate = %g 1/s slides the images at %g m/s "
                            "(rate x box height); at most %g m/s", out->shear_rate,
                            fabs(out->shear_rate) * height, CASE_MAX_SPEED);
    if (le->initial_profile &&
        case_read_bool(c, "domain.lees_edwards.initial_profile", le->initial_profile,
                       &out->initial_profile) != 0)
        return -1;
    if (!le->pressure) {
        if (le->pressure_time || le->max_strain_rate)
            return case_fail_at(c, "domain.lees_edwards",
                                "domain.lees_edwards: pressure_time and max_strain_rate set the "
                                "barostat, which needs a pressure");
        return 0;
    }
    if (case_read_positive(c, "domain.lees_edwards.pressure", le->pressure, &out->pressure) != 0)
        return -1;
    if (!le->pressure_time)
        return case_fail_at(c, "domain.lees_edwards",
                            "domain.lees_edwards.pressure needs pressure_time (s), the barostat's "
                            "relaxation time");
    if (case_read_positive(c, "domain.lees_edwards.pressure_time", le->pressure_time,
                           &out->pressure_time) != 0)
        return -1;
    out->max_strain_rate = fabs(out->shear_rate) > 0.0 ? fabs(out->shear_rate) : 1.0 / out->pressure_time;
    if (le->max_strain_rate &&
        case_read_positive(c, "domain.lees_edwards.max_strain_rate", le->max_strain_rate,
                           &out->max_strain_rate) != 0)
        return -1;
    return 0;
}

int case_read_domain(case_reader *c)
{
    const raw_domain *d = &c->raw->domain;
    sim_config *cfg = c->cfg;
    static const char axis[] = "xyz";
    if (case_read_vector(c, "domain.min", d->min, 3, cfg->domain_min) != 0 ||
        case_read_vector(c, "domain.max", d->max, 3, cfg->domain_max) != 0)
        return -1;
    for (int a = 0; a < 3; a++) {
        if (!(cfg->domain_min[a] < cfg->domain_max[a]))
            return case_fail_at(c, "domain.max", "domain: min %c = %g must be < max %c = %g",
                                axis[a], cfg->domain_min[a], axis[a], cfg->domain_max[a]);
        /* beyond, a double no longer resolves a tenth of a micrometre (and the engine's
         * margins around the domain stay finite) */
        for (int side = 0; side < 2; side++) {
            double v = side ? cfg->domain_max[a] : cfg->domain_min[a];
            if (fabs(v) <= CASE_MAX_COORDINATE) continue;
            key_path k = case_key("domain.%s[%d]", side ? "max" : "min", a);
            return case_fail_at(c, k.s, "%s = %g m is out of range [-%g, %g] m", k.s, v,
                                CASE_MAX_COORDINATE, CASE_MAX_COORDINATE);
        }
    }
    for (int a = 0; d->periodic[0] && a < 3; a++) {
        key_path p = case_key("domain.periodic[%d]", a);
        if (case_read_bool(c, p.s, d->periodic[a], &cfg->periodic[a]) != 0) return -1;
    }
    if (d->lees_edwards && case_read_lees_edwards(c) != 0) return -1;
    if (c->raw->gravity[0] && case_read_vector(c, "gravity", c->raw->gravity, 3, cfg->gravity) != 0)
        return -1;
    return 0;
}

int case_read_time(case_reader *c)
{
    const raw_time *t = &c->raw->time;
    sim_config *cfg = c->cfg;
    if (case_read_positive(c, "time.end", t->end, &cfg->end_time) != 0) return -1;
    cfg->dt = 0.0;
    if (t->step && strcmp(t->step, "auto") != 0) {
        if (!case_parse_number(t->step, &cfg->dt))
            return case_fail_at(c, "time.step", "time.step: expected a number or 'auto', got %s",
                                case_show(t->step).s);
        if (cfg->dt <= 0.0)
            return case_fail_at(c, "time.step", "time.step = %s must be > 0 (or 'auto')", t->step);
    }
    cfg->dt_check = true;
    if (t->check_step && case_read_bool(c, "time.check_step", t->check_step, &cfg->dt_check) != 0)
        return -1;
    if (t->output_interval && case_read_non_negative(c, "time.output_interval", t->output_interval,
                                                     &cfg->output_interval) != 0)
        return -1;
    if (t->timeseries_interval &&
        case_read_non_negative(c, "time.timeseries_interval", t->timeseries_interval,
                               &cfg->timeseries_interval) != 0)
        return -1;
    const raw_neighbour *nb = c->raw->neighbour;
    if (nb && nb->skin && case_read_non_negative(c, "neighbour.skin", nb->skin, &cfg->skin) != 0)
        return -1;
    double widest = 0.0; /* a skin wider than the domain pairs every particle with every other */
    for (int a = 0; a < 3; a++) widest = fmax(widest, cfg->domain_max[a] - cfg->domain_min[a]);
    if (cfg->skin > widest)
        return case_fail_at(c, "neighbour.skin", "neighbour.skin = %g m is wider than the domain's "
                            "widest side (%g m)", cfg->skin, widest);
    return 0;
}

/* watchdog: {on_error: stop|drop_particle, max_overlap_fraction, interval,
 * energy_tolerance} (engine/checks/watchdog.h); absent keys keep the defaults (zero). */
int case_read_watchdog(case_reader *c)
{
    const raw_watchdog *r = c->raw->watchdog;
    watchdog_settings *w = &c->cfg->watchdog;
    if (!r) return 0;
    if (r->on_error) {
        if (strcmp(r->on_error, "stop") == 0) {
            w->on_error = WATCHDOG_ACTION_STOP;
        } else if (strcmp(r->on_error, "drop_particle") == 0) {
            w->on_error = WATCHDOG_ACTION_DROP_PARTICLE;
        } else {
            name_list known = {0};
            case_names_add(&known, "stop");
            case_names_add(&known, "drop_particle");
            case_fail_at(c, "watchdog.on_error",
                         "watchdog.on_error: expected stop or drop_particle, "
                         "got %s%s", case_show(r->on_error).s,
                         case_did_you_mean(&known, r->on_error, TYPO_DISTANCE).s);
            case_names_free(&known);
            return -1;
        }
    }
    const char *f = "watchdog.max_overlap_fraction";
    if (r->max_overlap_fraction) {
        if (case_read_positive(c, f, r->max_overlap_fraction, &w->max_overlap_fraction) != 0)
            return -1;
        if (w->max_overlap_fraction > 1.0)
            return case_fail_at(c, f, "%s = %s is out of range (0, 1]", f, r->max_overlap_fraction);
    }
    if (r->interval) {
        long n = 0;
        if (case_read_count(c, "watchdog.interval", r->interval, &n) != 0) return -1;
        if (n < 1 || n > 1000000)
            return case_fail_at(c, "watchdog.interval", "watchdog.interval = %s must be from 1 to "
                                "1000000 (steps between checks)", r->interval);
        w->interval = (int)n;
    }
    if (r->energy_tolerance) {
        const char *e = "watchdog.energy_tolerance";
        if (strcmp(r->energy_tolerance, "off") == 0) {
            w->energy_tolerance = -1.0;
        } else {
            if (case_read_positive(c, e, r->energy_tolerance, &w->energy_tolerance) != 0) return -1;
            if (w->energy_tolerance > 1e3)
                return case_fail_at(c, e, "%s = %s must be <= 1000 (or off)", e,
                                    r->energy_tolerance);
        }
    }
    return 0;
}

/* parallel: {reproducible: bool, method: rcb|rib|hsfc, rebalance: >= 1}
 * (sim_config.reproducible, .partition, .rebalance; defaults false, rcb and
 * PARALLEL_REBALANCE). */
int case_read_parallel(case_reader *c)
{
    const raw_parallel *r = c->raw->parallel;
    if (!r) return 0;
    if (r->reproducible &&
        case_read_bool(c, "parallel.reproducible", r->reproducible, &c->cfg->reproducible) != 0)
        return -1;
    if (r->rebalance) {
        double v;
        if (case_read_number(c, "parallel.rebalance", r->rebalance, &v) != 0) return -1;
        if (!(v >= 1.0) || !isfinite(v)) {
            case_fail_at(c, "parallel.rebalance", "parallel.rebalance: the slowest rank's force "
                         "loop time over the mean above which the ranks split afresh, a number "
                         ">= 1, got %s", r->rebalance);
            return -1;
        }
        c->cfg->rebalance = v;
    }
    if (!r->method) return 0;
    static const char *const names[] = {"rcb", "rib", "hsfc"};
    for (int k = 0; k < 3; k++)
        if (strcmp(r->method, names[k]) == 0) {
            c->cfg->partition = (partition_method)k;
            return 0;
        }
    name_list known = {0};
    for (int k = 0; k < 3; k++) case_names_add(&known, names[k]);
    case_fail_at(c, "parallel.method", "parallel.method: expected rcb, rib or hsfc, got %s%s",
                 case_show(r->method).s, case_did_you_mean(&known, r->method, TYPO_DISTANCE).s);
    case_names_free(&known);
    return -1;
}

/* ------------------------------------------------------------------------------------
 * Materials.
 * ---------------------------------------------------------------------------------- */

static int find_material(const sim_config *cfg, const char *name)
{
    for (int k = 0; name && k < cfg->n_materials; k++)
        if (strcmp(cfg->materials[k].name, name) == 0) return k;
    return -1;
}

int case_resolve_material(const case_reader *c, const char *path, const char *name,
                          int *out)
{
    const sim_config *cfg = c->cfg;
    *out = find_material(cfg, name);
    if (*out >= 0) return 0;
    if (!name || !*name) return case_fail_at(c, path, "%s: expected a material name", path);
    name_list known = {0};
    for (int k = 0; k < cfg->n_materials; k++) case_names_add(&known, cfg->materials[k].name);
    hint h = case_did_you_mean(&known, name ? name : "", TYPO_DISTANCE);
    case_fail_at(c, path, "%s: unknown material %s%s; the materials are: %s", path,
                 case_show(name).s,
                 h.s, case_join(&known).s);
    case_names_free(&known);
    return -1;
}

static int read_material(case_reader *c, int i, material *m)
{
    const raw_material *r = &c->raw->materials[i];
    key_path at = case_key("materials[%d]", i);
    key_path name = case_key("%s.name", at.s), density = case_key("%s.density", at.s),
             young = case_key("%s.young", at.s), poisson = case_key("%s.poisson", at.s);
    if (case_read_name(c, name.s, r->name, m->name) != 0) return -1;
    int first = find_material(c->cfg, m->name);
    if (first >= 0 && first < i) {
        key_path other = case_key("materials[%d]", first);
        return case_fail_at(c, name.s, "%s: material '%s' is already defined (line %d)", name.s,
                            m->name, yaml_locator_line(&c->loc, other.s));
    }
    if (case_read_positive(c, density.s, r->density, &m->density) != 0 ||
        case_read_positive(c, young.s, r->young, &m->young) != 0 ||
        case_read_number(c, poisson.s, r->poisson, &m->poisson) != 0)
        return -1;
    if (!(m->poisson > -1.0 && m->poisson < 0.5))
        return case_fail_at(c, poisson.s, "%s = %s is out of range (-1, 0.5)", poisson.s,
                            r->poisson);
    return 0;
}

int case_read_materials(case_reader *c)
{
    sim_config *cfg = c->cfg;
    int n = (int)c->raw->materials_count;
    if (!(cfg->materials = calloc((size_t)n, sizeof *cfg->materials)))
        return case_fail_memory(c, NULL, "out of memory");
    for (int i = 0; i < n; i++) {
        cfg->n_materials = i; /* names seen so far, for the duplicate check */
        if (read_material(c, i, &cfg->materials[i]) != 0) return -1;
    }
    cfg->n_materials = n;
    return 0;
}
