/* Every value of a restart snapshot checked against the case (restart_internal.h):
 * finite, in range, consistent. The limits are docs/output.md's "What a restart
 * checks". */
#define _POSIX_C_SOURCE 200809L

#include "restart_internal.h"
#include "population_h5.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static int bad(const checker *c, const char *what, size_t row, double value, const char *limit)
{
    return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s[%zu] is %.17g; %s", c->k, what,
                          c->first + row, value, limit);
}

int restart_check_particles(const checker *c, const snap_arrays *a, size_t n, int64_t next_id)
{
    const sim *s = c->s;
    double dt = c->f->dt;
    for (size_t r = 0; r < n; r++) {
        if (a->id[r] < 0 || (next_id >= 0 && a->id[r] >= next_id))
            return bad(c, "id", r, (double)a->id[r], "ids are >= 0 and below engine@next_id");
        if (a->type[r] < 0 || a->type[r] >= s->n_materials)
            return bad(c, "type", r, a->type[r], "a material index of the case");
        if (!isfinite(a->radius[r]) || !(a->radius[r] > 0.0))
            return bad(c, "radius", r, a->radius[r], "a radius is finite and > 0 m");
        if (!isfinite(a->mass[r]) || !(a->mass[r] > 0.0))
            return bad(c, "mass", r, a->mass[r], "a mass is finite and > 0 kg");
        for (int ax = 0; ax < 3; ax++) {
            double lo = s->cfg.domain_min[ax], hi = s->cfg.domain_max[ax], len = hi - lo;
            double x = a->position[3 * r + ax], x0 = a->position_at_rebuild[3 * r + ax];
            if (!isfinite(x) || x < lo - len || x > hi + len) {
                char limit[160];
                snprintf(limit, sizeof limit, "a centre is within the domain grown by its size on each side "
                         "(%g .. %g m along %c)", lo - len, hi + len, "xyz"[ax]);
                return bad(c, "position", r, x, limit);
            }
            /* +inf: the engine's mark of a list to rebuild at the next step */
            if (isnan(x0) || (isfinite(x0) ? x0 < lo - len || x0 > hi + len : x0 < 0.0)) {
                char limit[160];
                snprintf(limit, sizeof limit, "within %g .. %g m along %c (or +inf)", lo - len, hi + len,
                         "xyz"[ax]);
                return bad(c, "position_at_rebuild", r, x0, limit);
            }
        }
        const double *v = a->velocity + 3 * r, *w = a->angular_velocity + 3 * r;
        const double *fo = a->force + 3 * r, *t = a->torque + 3 * r;
        double speed = norm3(v), spin = norm3(w), acc = norm3(fo) / a->mass[r];
        /* I = 2/5 m r^2: the surface's acceleration from the torque */
        double spin_acc = norm3(t) / (0.4 * a->mass[r] * a->radius[r]);
        if (!isfinite(speed) || speed * dt > c->reach)
            return bad(c, "|velocity|", r, speed, "a particle does not cross the domain in one step");
        if (!isfinite(spin) || spin * a->radius[r] * dt > c->reach)
            return bad(c, "|angular_velocity|", r, spin, "a surface does not move across the domain in one step");
        if (!isfinite(acc) || acc * dt * dt > c->reach)
            return bad(c, "|force| / mass", r, acc, "a force does not move a particle across the domain in one step");
        if (!isfinite(spin_acc) || spin_acc * dt * dt > c->reach)
            return bad(c, "|torque| / (I / radius)", r, spin_acc,
                       "a torque does not move a surface across the domain in one step");
    }
    return 0;
}

int restart_find_sorted(const int64_t *sorted, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && sorted[lo] == id;
}

int restart_cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* ids: every particle id of the snapshot, sorted. */
int restart_check_contacts(const checker *c, const snap_arrays *a, const int64_t *ids, size_t n, size_t m)
{
    int rc = 0;
    for (size_t r = 0; r < m && rc == 0; r++) {
        int64_t i = a->contact_id[2 * r], j = a->contact_id[2 * r + 1];
        uint8_t wall = a->contact_wall[r];
        if (wall > 1) rc = bad(c, "contacts/wall", r, wall, "it is 0 or 1");
        else if (a->contact_ended[r] > 2)
            rc = bad(c, "contacts/ended", r, a->contact_ended[r], "it is 0, 1 or 2");
        else if (!restart_find_sorted(ids, n, i)) rc = bad(c, "contacts/id", r, (double)i, "not a particle of the snapshot");
        else if (!wall && !restart_find_sorted(ids, n, j))
            rc = bad(c, "contacts/id (second)", r, (double)j, "not a particle of the snapshot");
        else if (wall && (j < 0 || (size_t)j >= c->s->walls.n))
            rc = bad(c, "contacts/id (wall)", r, (double)j, "not a wall of the case");
        else if (a->contact_slot[r] < 0 || a->contact_slot[r] > RESTART_MAX_ROWS)
            rc = bad(c, "contacts/slot", r, (double)a->contact_slot[r], "it is in 0 .. 2^31");
        for (int h = 0; h < sim_n_pair_history && rc == 0; h++) {
            const pair_history_field *hf = &sim_pair_history[h];
            for (int comp = 0; comp < hf->count && rc == 0; comp++) {
                double v = a->history[h][r * (size_t)hf->count + (size_t)comp];
                char what[96];
                snprintf(what, sizeof what, "contacts/%s[:, %d]", hf->name, comp);
                if (!isfinite(v)) rc = bad(c, what, r, v, "history is finite");
                /* the microslip branch: 0 loading, 1 unloading, 2 reloading */
                else if (!strcmp(hf->name, "tangential_slip") && comp == 0 && v != 0.0 && v != 1.0 && v != 2.0)
                    rc = bad(c, what, r, v, "the branch is 0, 1 or 2");
            }
        }
    }
    return rc;
}

/* The inlets' and outlets' states (population_h5.h): each field in its range. */
int restart_check_population(const checker *c, const snap_arrays *a, double time, int64_t next_id)
{
    const sim *s = c->s;
    double dt = c->f->dt;
    for (int q = 0; q < s->cfg.n_inlets; q++) {
        inlet_state st;
        memcpy(&st, a->inlets + (size_t)q * sizeof st, sizeof st);
        const inlet_spec *in = &s->cfg.inlets[q];
        double interval = in->interval > 0.0 ? in->interval : 100.0 * dt;
        char what[64];
        snprintf(what, sizeof what, "engine/inlets: inlet %d", q);
        if (memcmp(&st.rate, &s->inlets[q].rate, sizeof st.rate))
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: rate is %.17g particles/s; the "
                                  "case gives %.17g", c->k, what, st.rate, s->inlets[q].rate);
        double most = st.rate * (interval + 2.0 * dt) + 2.0;
        if (!isfinite(st.due) || st.due < 0.0 || st.due > most)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: particles owed is %g; at most "
                                  "rate x (interval + 2 dt) + 2 = %g", c->k, what, st.due, most);
        double latest = fmax(in->start, time) + interval + dt;
        if (!isfinite(st.next_time) || st.next_time < in->start || st.next_time > latest)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: next insertion at %g s; it is "
                                  "in %g .. %g s", c->k, what, st.next_time, in->start, latest);
        if (st.inserted < 0 || st.failed < 0 || (double)st.inserted > (double)next_id)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: %ld inserted, %ld failed; "
                                  "counts are >= 0 and inserted <= engine@next_id", c->k, what, st.inserted,
                                  st.failed);
        if (!isfinite(st.mass_inserted) || st.mass_inserted < 0.0)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: %s: mass inserted is %g kg; it is "
                                  "finite and >= 0", c->k, what, st.mass_inserted);
    }
    for (int q = 0; q < s->cfg.n_outlets; q++) {
        outlet_state st;
        memcpy(&st, a->outlets + (size_t)q * sizeof st, sizeof st);
        if (st.removed < 0 || (double)st.removed > (double)next_id || !isfinite(st.mass_removed) ||
            st.mass_removed < 0.0)
            return restart_refuse(c->f, c->err, c->err_len, "snapshot %d: engine/outlets: outlet %d: %ld removed, "
                                  "%g kg; counts are in 0 .. engine@next_id, masses finite and >= 0", c->k,
                                  q, st.removed, st.mass_removed);
    }
    return 0;
}

int restart_check_sums(const checker *c, const char *what, const double *v, size_t n)
{
    for (size_t r = 0; v && r < n; r++)
        if (!isfinite(v[r])) return bad(c, what, r, v[r], "work is finite");
    return 0;
}

int restart_check_servo(const checker *c, const double *v, size_t n)
{
    for (size_t r = 0; v && r < n; r++)
        if (!isfinite(v[r])) return bad(c, "engine/wall_servo (flattened)", r, v[r], "the servo state is finite");
    return 0;
}
