/* Every speed a case sets, checked once it is all read: a particle's, an inlet's, a
 * wall's (its translation and its rim's speed when it rotates) and a free fall across
 * the domain under the case's gravity stay at most CASE_MAX_SPEED. Above it a
 * soft-sphere contact means nothing (the impact would melt or shatter real grains), the
 * contact-time estimate behind the automatic step collapses, and a particle that far
 * from reason would cross the domain, and overflow the neighbour grid's arithmetic,
 * within a few steps. The per-step limit (a particle moves at most half its radius per
 * step) is checked later, against the step, by timestep_check_speeds. */
#include "case_internal.h"

#include <math.h>

#include "engine/checks/timestep.h"

static double speed_of(const double v[3])
{
    return hypot(hypot(v[0], v[1]), v[2]);
}

static int too_fast(double v)
{
    return !(v <= CASE_MAX_SPEED);
}

static int refuse_speed(case_reader *c, const char *key, const char *what, double v)
{
    return case_fail_at(c, key, "%s: %s %g m/s, above the %g m/s a soft-sphere contact can "
                        "represent (a unit mistake?)", key, what, v, CASE_MAX_SPEED);
}

static int check_source(case_reader *c, int i)
{
    const particle_source *s = &c->cfg->sources[i];
    key_path key = case_key("particles[%d].velocity", i);
    if (too_fast(speed_of(s->velocity)))
        return refuse_speed(c, key.s, "a starting speed of", speed_of(s->velocity));
    if (s->kind != SOURCE_LIST || !s->list_velocity) return 0;
    key_path file = case_key("particles[%d].file", i);
    const char *name = c->raw->particles[i].file ? c->raw->particles[i].file : "the file";
    for (long q = 0; q < s->n_list; q++) {
        double v = speed_of(s->list_velocity + 3 * q);
        if (too_fast(v))
            return case_fail_at(c, file.s, "%s: particle %ld of %s starts at %g m/s, above the "
                                "%g m/s a soft-sphere contact can represent (a unit mistake?)",
                                file.s, q + 1, name, v, CASE_MAX_SPEED);
    }
    return 0;
}

int case_check_speeds(case_reader *c)
{
    const sim_config *cfg = c->cfg;
    for (int i = 0; i < cfg->n_sources; i++)
        if (check_source(c, i) != 0) return -1;
    for (int k = 0; k < cfg->n_inlets; k++) {
        double v = speed_of(cfg->inlets[k].velocity);
        if (too_fast(v)) {
            key_path key = case_key("inlets[%d].velocity", k);
            return refuse_speed(c, key.s, "a speed of", v);
        }
    }
    for (int k = 0; k < cfg->n_walls; k++) {
        double v = timestep_wall_speed(cfg, &cfg->walls[k]);
        if (too_fast(v)) {
            key_path key = case_key("walls[%d]", k);
            return refuse_speed(c, key.s, "its motion reaches, inside the domain,", v);
        }
    }
    double h = 0.0, g = speed_of(cfg->gravity);
    for (int a = 0; a < 3; a++) h = fmax(h, cfg->domain_max[a] - cfg->domain_min[a]);
    double fall = sqrt(2.0 * g * h);
    if (too_fast(fall))
        return case_fail_at(c, "gravity", "gravity: |g| = %g m/s^2 accelerates a particle falling "
                            "across the domain (%g m) to %g m/s, above the %g m/s a soft-sphere "
                            "contact can represent (a unit mistake?)", g, h, fall, CASE_MAX_SPEED);
    return 0;
}
