/* The external loads (external_loads.h). */
#include "external_loads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/exact_sum.h"
#include "engine/population/field_alloc.h"
#include "engine/checks/watchdog.h"

typedef struct id_index {
    int64_t id;
    size_t index;
} id_index;

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
    return (x > y) - (x < y);
}

/* The local particles' indices in the order of their ids (malloc'ed), or NULL. */
static size_t *id_order(const particle_store *p)
{
    size_t n = p->n_local;
    id_index *pairs = malloc((n ? n : 1) * sizeof *pairs);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (pairs && order) {
        for (size_t i = 0; i < n; i++) pairs[i] = (id_index){p->id[i], i};
        qsort(pairs, n, sizeof *pairs, by_id);
        for (size_t k = 0; k < n; k++) order[k] = pairs[k].index;
    } else {
        free(order);
        order = NULL;
    }
    free(pairs);
    return order;
}

/* Row k's load (`what`: "force" or "torque") on local particle i: finite, and what it
 * alone does to the particle in one step within the rule of a case's starting speeds
 * (a force: |F| dt^2 / m, the distance its velocity change moves the particle per step,
 * at most WATCHDOG_STEP_FRACTION of the radius; a torque: |T| dt^2 / I, the angle its
 * spin change turns the particle per step, at most that fraction of a radian, its
 * surface moving that fraction of the radius). */
static int check_row(const sim *s, const char *what, const double *row, size_t k, size_t i,
                     char *err, size_t err_len)
{
    const particle_store *p = &s->p;
    const double frac = WATCHDOG_STEP_FRACTION, dt = s->dt;
    long long id = (long long)p->id[i];
    if (!isfinite(row[0]) || !isfinite(row[1]) || !isfinite(row[2])) {
        snprintf(err, err_len, "%s: row %zu (particle %lld): (%g, %g, %g) is not finite", what, k,
                 id, row[0], row[1], row[2]);
        return -1;
    }
    double size = hypot(hypot(row[0], row[1]), row[2]);
    int torque = what[0] == 't';
    double per_mass = torque ? p->inv_inertia[i] : p->inv_mass[i];
    double kick = size * dt * per_mass;        /* m/s, or rad/s */
    double reach = torque ? frac : frac * p->radius[i]; /* m, or rad, per step */
    if (!(kick * dt > reach)) return 0;
    if (torque)
        snprintf(err, err_len, "torque: row %zu (particle %lld): %.4g N m would change its spin "
                 "by %.4g rad/s in one step (dt = %.4g s), turning it %.4g rad per step, more "
                 "than %g rad (its surface would move more than %g of its radius %g m); lower "
                 "the torque or the step", k, id, size, kick, dt, kick * dt, frac, frac,
                 p->radius[i]);
    else
        snprintf(err, err_len, "force: row %zu (particle %lld): %.4g N would change its velocity "
                 "by %.4g m/s in one step (dt = %.4g s), moving it %.4g m per step, more than %g "
                 "of its radius %g m; lower the force or the step", k, id, size, kick, dt,
                 kick * dt, frac, p->radius[i]);
    return -1;
}

/* The particles' force (k < 3) and torque (k >= 3) sums, by component. */
static double *sum_of(particle_store *p, int k)
{
    double *sums[6] = {p->fx, p->fy, p->fz, p->tx, p->ty, p->tz};
    return sums[k];
}

/* Takes loads [lo, hi) out of the force sums and frees their arrays. */
static void drop_loads(particle_store *p, int lo, int hi)
{
    for (int k = lo; k < hi; k++) {
        if (!p->external[k]) continue;
        double *sum = sum_of(p, k);
        for (size_t i = 0; i < p->n_local; i++) sum[i] -= p->external[k][i];
        field_free(p->external[k]);
        p->external[k] = NULL;
    }
}

int sim_set_external_loads(sim *s, const double *force, const double *torque, size_t n,
                           char *err, size_t err_len)
{
    particle_store *p = &s->p;
    if (s->ghost_hooks) {
        snprintf(err, err_len, "force: external loads are for one process, not a run split over ranks");
        return -1;
    }
    if (n != p->n_local) {
        snprintf(err, err_len, "force: %zu rows for %zu particles (one row per particle, in the "
                 "order of their ids)", n, p->n_local);
        return -1;
    }
    size_t *order = id_order(p);
    if (!order) goto oom;
    for (size_t k = 0; k < n; k++)
        if (check_row(s, "force", force + 3 * k, k, order[k], err, err_len) != 0 ||
            (torque && check_row(s, "torque", torque + 3 * k, k, order[k], err, err_len) != 0)) {
            free(order);
            return -1;
        }
    /* a torque turns the spins: their history first (particles.h) */
    if (torque && particles_keep_spin_history(p) != 0) {
        free(order);
        goto oom;
    }
    /* room for what is not held yet, all of it or nothing */
    int fresh[6] = {0};
    for (int k = 0; k < (torque ? 6 : 3); k++) {
        if (p->external[k]) continue;
        double *a = field_realloc(NULL, (p->capacity ? p->capacity : 1) * sizeof *a);
        if (!a) {
            for (int q = 0; q < k; q++)
                if (fresh[q]) { field_free(p->external[q]); p->external[q] = NULL; }
            free(order);
            goto oom;
        }
        for (size_t i = 0; i < p->n_local; i++) a[i] = 0.0;
        p->external[k] = a;
        fresh[k] = 1;
    }
    /* the sums of the last evaluation (the next half kick's force) change by the
     * difference: the loads act from now on */
    for (int k = 0; k < (torque ? 6 : 3); k++) {
        double *sum = sum_of(p, k), *load = p->external[k];
        const double *rows = k < 3 ? force : torque;
        for (size_t r = 0; r < n; r++) {
            size_t i = order[r];
            double v = rows[3 * r + k % 3];
            sum[i] += v - load[i];
            load[i] = v;
        }
    }
    if (!torque) drop_loads(p, 3, 6);
    free(order);
    return 0;
oom:
    snprintf(err, err_len, "force: out of memory");
    return -1;
}

void sim_clear_external_loads(sim *s)
{
    drop_loads(&s->p, 0, 6);
}

double sim_external_work(const sim *s)
{
    return s->external_work;
}

void external_loads_add(particle_store *p, size_t lo, size_t hi)
{
    for (int k = 0; k < 6; k++) {
        const double *load = p->external[k];
        if (!load) continue;
        double *sum = sum_of(p, k);
        for (size_t i = lo; i < hi; i++) sum[i] += load[i];
    }
}

void external_loads_book(sim *s)
{
    const particle_store *p = &s->p;
    const double *const *e = (const double *const *)p->external;
    tally work;
    tally_open(&work, s->cfg.reproducible);
    for (size_t i = 0; i < p->n_local; i++) {
        /* the load times the step's displacement dt v(n+1/2) (and turn dt w(n+1/2)) */
        double w = e[0][i] * p->vhx[i] + e[1][i] * p->vhy[i] + e[2][i] * p->vhz[i];
        if (e[3]) w += e[3][i] * p->whx[i] + e[4][i] * p->why[i] + e[5][i] * p->whz[i];
        tally_add(&work, w);
    }
    s->external_work += s->dt * tally_total(&work);
}
