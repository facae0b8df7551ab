/* The watchdog's messages (watchdog_format): what went wrong, where, with the particle's
 * state and its strongest contact. */
#include "watchdog.h"
#include "watchdog_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct text {
    char *s;
    size_t len, used;
} text;

static void say(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(text *t, const char *fmt, ...)
{
    if (t->used + 1 >= t->len) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->s + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (w > 0) t->used = t->used + (size_t)w < t->len ? t->used + (size_t)w : t->len - 1;
}

static void say_contact(text *t, const sim *s, const watchdog_contact *c)
{
    const material *m = s->cfg.materials;
    if (c->wall >= 0)
        say(t, "wall %s", s->walls.walls[c->wall].name);
    else
        say(t, "particle %lld", (long long)c->other_id);
    say(t, ", law %s (%s on %s), overlap %.4g m = %.3g of the %s radius",
        c->law, m[c->material_a].name, m[c->material_b].name, c->overlap, c->fraction,
        c->wall >= 0 ? "particle's" : "smaller");
    if (c->force_recorded) say(t, ", force %.4g N", c->force);
}

/* "; its strongest contact: with " and the contact (watchdog_strongest_contact): its
 * deepest where the step did not record the pairs' forces. */
static void say_strongest(text *t, const sim *s, const watchdog_contact *c, const char *lead)
{
    say(t, "%s %s contact: with ", lead, watchdog_pair_forces_recorded(s) ? "strongest" : "deepest");
    say_contact(t, s, c);
}

static void say_state(text *t, const watchdog_report *r)
{
    say(t, "; particle %lld at (%.6g, %.6g, %.6g) m, velocity (%.4g, %.4g, %.4g) m/s, "
           "force (%.4g, %.4g, %.4g) N",
        (long long)r->particle_id, r->position[0], r->position[1], r->position[2],
        r->velocity[0], r->velocity[1], r->velocity[2], r->force[0], r->force[1], r->force[2]);
}

void watchdog_format(const watchdog_report *r, const sim *s, char *out, size_t len)
{
    text t = {out, len, 0};
    if (!out || len == 0) return;
    out[0] = '\0';
    static const char axis[] = "xyz";
    if (r->step < 0)
        say(&t, "particles: as created, before the first step: ");
    else
        say(&t, "watchdog: step %lld (t = %.6g s): ", (long long)r->step, r->time);
    switch (r->problem) {
    case WATCHDOG_OK: say(&t, "no problem"); return;
    case WATCHDOG_NO_PARTICLES: say(&t, "no particles left"); break;
    case WATCHDOG_NOT_FINITE:
        say(&t, "the %s of particle %lld is not finite", r->quantity, (long long)r->particle_id);
        if (r->contact.found) {
            say_strongest(&t, s, &r->contact, "; its");
        }
        say_state(&t, r);
        break;
    case WATCHDOG_OVERLAP:
        say(&t, "particle %lld overlaps ", (long long)r->particle_id);
        say_contact(&t, s, &r->contact);
        say(&t, " (limit %.3g, watchdog.max_overlap_fraction)", r->limit);
        say_state(&t, r);
        break;
    case WATCHDOG_LEFT_DOMAIN:
        say(&t, "particle %lld left the domain: %c = %.6g m is %s the domain's %s face at %g m "
                "(which has no wall to hold it)",
            (long long)r->particle_id, axis[r->axis], r->position[r->axis],
            r->side < 0 ? "below" : "above", r->side < 0 ? "min" : "max", r->limit);
        if (r->contact.found) {
            say_strongest(&t, s, &r->contact, "; its");
        }
        say_state(&t, r);
        break;
    case WATCHDOG_TOO_FAST: {
        double v = hypot(hypot(r->velocity[0], r->velocity[1]), r->velocity[2]);
        say(&t, "particle %lld moves %.4g m per step (%.4g m/s, time.step %.4g s), more than %g "
                "of its radius (%.4g m): the step cannot integrate it",
            (long long)r->particle_id, v * s->dt, v, s->dt, WATCHDOG_STEP_FRACTION, r->limit);
        if (r->contact.found) {
            say_strongest(&t, s, &r->contact, "; its");
        }
        say_state(&t, r);
        break;
    }
    case WATCHDOG_RUNAWAY:
        if (r->particle < 0) {
            if (s->fault == SIM_FAULT_PAIRS)
                say(&t, "the neighbour list would hold more than %zu candidate pairs (particles "
                        "crowded into few cells); stopped before building it", CONTACT_MAX_PAIRS);
            else
                say(&t, "the particles spread too wide for the neighbour grid");
            break;
        }
        say(&t, "particle %lld is far outside the domain: %c = %.6g m is more than %g m (%g "
                "domain length%s) %s the domain's %s face at %g m; stopped before the neighbour "
                "grid is sized for it",
            (long long)r->particle_id, axis[r->axis], r->position[r->axis], r->limit,
            SIM_RUNAWAY_MARGIN, SIM_RUNAWAY_MARGIN == 1.0 ? "" : "s",
            r->side < 0 ? "below" : "above", r->side < 0 ? "min" : "max",
            r->side < 0 ? s->cfg.domain_min[r->axis] : s->cfg.domain_max[r->axis]);
        say_state(&t, r);
        break;
    case WATCHDOG_ENERGY_RISE:
        say(&t, "kinetic + gravitational energy is %.6g J, above the %.6g J the system started "
                "with (tolerance %.3g): a closed dissipative system is gaining energy",
            r->energy, r->energy_budget, watchdog_settings_of(s).energy_tolerance);
        say(&t, "; the fastest particle is %lld", (long long)r->particle_id);
        if (r->contact.found) {
            say_strongest(&t, s, &r->contact, ", its");
        }
        say_state(&t, r);
        break;
    }
    if (r->step >= 0 && s->dt_limit > 0.0 && s->dt > s->dt_limit)
        say(&t, "; note: time.step = %.4g s is %.3g times the stable limit %.4g s "
                "(check_step: false)", s->dt, s->dt / s->dt_limit, s->dt_limit);
}
