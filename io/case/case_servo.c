/* A wall's `servo` mapping: a plane or rectangle that moves along its normal to hold a
 * target normal force or stress (engine/walls/wall_servo.c; docs/case-file.md, "Servo
 * walls").
 *
 *   servo: {gain: G, max_speed: V, area: A, stress: p}          a constant target, or
 *   servo: {gain: G, max_speed: V, area: A,
 *           targets: [{time: t, stress: p (or force: F), max_speed: V'}, ...]}
 *
 * A stress is a force over `area` (a rectangle's own area when not given); the target
 * is linear in time between entries, constant before the first and after the last, and
 * two entries at the same time make a step. */
#include "case_internal.h"

#include <stdio.h>

/* The target force [N] of an entry that gives `force` or `stress` (one of them). */
static int read_target(const case_reader *c, const char *at, const char *force,
                       const char *stress, double area, const char *area_why, double *out)
{
    if (force && stress)
        return case_fail_at(c, at, "%s: give force or stress, not both", at);
    if (!force && !stress)
        return case_fail_at(c, at, "%s: needs a target: force (N) or stress (Pa)", at);
    if (force) {
        key_path k = case_key("%s.force", at);
        return case_read_non_negative(c, k.s, force, out);
    }
    key_path k = case_key("%s.stress", at);
    double p;
    if (case_read_non_negative(c, k.s, stress, &p) != 0) return -1;
    if (!(area > 0.0))
        return case_fail_at(c, k.s, "%s: a stress needs the area it acts on: give %s", k.s,
                            area_why);
    *out = p * area;
    return 0;
}

int case_read_servo(case_reader *c, const char *at, const raw_wall *r, wall_spec *w)
{
    const raw_wall_servo *sv = r->servo;
    key_path servo = case_key("%s.servo", at);
    if (w->kind != WALL_PLANE && w->kind != WALL_RECTANGLE)
        return case_fail_at(c, servo.s, "%s: only a plane or a rectangle can be a servo wall "
                            "(it moves along its normal), not a %s", servo.s, r->type);
    const char *other = r->velocity[0] ? "velocity" : r->motion ? "motion"
                        : r->rotation  ? "rotation" : NULL;
    if (other) {
        key_path k = case_key("%s.%s", at, other);
        return case_fail_at(c, k.s, "%s: a servo wall moves itself; give it no %s", k.s, other);
    }
    key_path gain = case_key("%s.gain", servo.s), speed = case_key("%s.max_speed", servo.s),
             area_key = case_key("%s.area", servo.s);
    double max_speed, area = 0.0;
    if (case_read_positive(c, gain.s, sv->gain, &w->servo_gain) != 0 ||
        case_read_positive(c, speed.s, sv->max_speed, &max_speed) != 0)
        return -1;
    if (sv->area) {
        if (case_read_positive(c, area_key.s, sv->area, &area) != 0) return -1;
    } else if (w->kind == WALL_RECTANGLE) {
        area = 4.0 * w->half_size[0] * w->half_size[1];
    }
    char area_why[160];
    snprintf(area_why, sizeof area_why, "%s (m^2)", area_key.s);
    if (!sv->targets && !sv->force && !sv->stress)
        return case_fail_at(c, servo.s, "%s: needs a target: force (N), stress (Pa) or targets "
                            "(a schedule)", servo.s);
    if (!sv->targets) { /* one constant target */
        w->n_servo = 1;
        w->servo_time[0] = 0.0;
        w->servo_speed[0] = max_speed;
        return read_target(c, servo.s, sv->force, sv->stress, area, area_why, &w->servo_force[0]);
    }
    key_path targets = case_key("%s.targets", servo.s);
    if (sv->force || sv->stress)
        return case_fail_at(c, targets.s, "%s: give targets or a constant %s, not both",
                            targets.s, sv->force ? "force" : "stress");
    if (sv->targets_count == 0 || sv->targets_count > WALL_MAX_SERVO)
        return case_fail_at(c, targets.s, "%s: %u entries; give 1 to %d {time, force or stress}",
                            targets.s, sv->targets_count, WALL_MAX_SERVO);
    for (unsigned q = 0; q < sv->targets_count; q++) {
        const raw_servo_target *e = &sv->targets[q];
        key_path item = case_key("%s[%u]", targets.s, q), time = case_key("%s.time", item.s),
                 v = case_key("%s.max_speed", item.s);
        if (case_read_non_negative(c, time.s, e->time, &w->servo_time[q]) != 0 ||
            read_target(c, item.s, e->force, e->stress, area, area_why, &w->servo_force[q]) != 0)
            return -1;
        if (q > 0 && w->servo_time[q] < w->servo_time[q - 1])
            return case_fail_at(c, time.s, "%s = %g s is before the entry above (%g s): the "
                                "entries go forward in time", time.s, w->servo_time[q],
                                w->servo_time[q - 1]);
        w->servo_speed[q] = max_speed;
        if (e->max_speed && case_read_positive(c, v.s, e->max_speed, &w->servo_speed[q]) != 0)
            return -1;
    }
    w->n_servo = (int)sv->targets_count;
    return 0;
}
