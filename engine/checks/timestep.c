#include "timestep.h"
#include "engine/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/collide/pair_restitution.h"
#include "engine/sim.h"
#include "watchdog.h"

/* Smallest radius of each material among the particles and what the inlets will
 * insert (HUGE_VAL if absent). */
static double *smallest_radius_per_material(const sim *s)
{
    double *r = malloc((size_t)s->n_materials * sizeof *r);
    if (!r) return NULL;
    for (int m = 0; m < s->n_materials; m++) r[m] = HUGE_VAL;
    for (size_t i = 0; i < s->p.n_local; i++)
        r[s->p.type[i]] = fmin(r[s->p.type[i]], s->p.radius[i]);
    for (int k = 0; k < s->cfg.n_inlets; k++) {
        const inlet_spec *in = &s->cfg.inlets[k];
        r[in->material] = fmin(r[in->material], in->radius_min);
    }
    return r;
}

double timestep_rayleigh(const sim *s)
{
    double *r = smallest_radius_per_material(s), t = HUGE_VAL;
    if (!r) return NAN;
    for (int m = 0; m < s->n_materials; m++) {
        if (r[m] == HUGE_VAL) continue;
        const material *mat = &s->cfg.materials[m];
        double shear = mat->young / (2.0 * (1.0 + mat->poisson));
        t = fmin(t, M_PI * r[m] * sqrt(mat->density / shear) / (0.1631 * mat->poisson + 0.8766));
    }
    free(r);
    return t;
}

static double sphere_mass(const material *m, double r)
{
    return m->density * 4.0 / 3.0 * M_PI * r * r * r;
}

int timestep_each_smallest_pair(const sim *s, timestep_pair_visit visit, void *ctx)
{
    double *r = smallest_radius_per_material(s);
    if (!r) return -1;
    int n = s->n_materials;
    char *is_wall = calloc((size_t)n, 1);
    if (!is_wall) { free(r); return -1; }
    for (size_t w = 0; w < s->walls.n; w++) is_wall[s->walls.walls[w].material] = 1;
    for (int a = 0; a < n; a++) {
        if (r[a] == HUGE_VAL) continue;
        double ma = sphere_mass(&s->cfg.materials[a], r[a]);
        for (int b = 0; b < n; b++) {
            const law_instance *li = &s->laws[a * n + b];
            if (!li->law) continue;
            if (r[b] != HUGE_VAL) visit(li, r[a], ma, r[b], sphere_mass(&s->cfg.materials[b], r[b]), ctx);
            if (is_wall[b]) visit(li, r[a], ma, 0.0, 0.0, ctx);
        }
    }
    free(is_wall);
    free(r);
    return 0;
}

typedef struct shortest_contact {
    double v, t;
} shortest_contact;

static void contact_time_of(const law_instance *li, double ra, double ma, double rb, double mb, void *ctx)
{
    shortest_contact *c = ctx;
    double t = rb > 0.0 ? li->law->contact_time(&li->coeffs, ra * rb / (ra + rb), ma * mb / (ma + mb), c->v)
                        : li->law->contact_time(&li->coeffs, ra, ma, c->v); /* against a wall */
    c->t = fmin(c->t, t);
}

double timestep_contact_time(const sim *s, double v)
{
    shortest_contact c = {.v = v, .t = HUGE_VAL};
    return timestep_each_smallest_pair(s, contact_time_of, &c) == 0 ? c.t : NAN;
}

double timestep_wall_speed(const sim_config *cfg, const wall_spec *w)
{
    double v = sqrt(w->velocity[0] * w->velocity[0] + w->velocity[1] * w->velocity[1] +
                    w->velocity[2] * w->velocity[2]);
    for (int g = 0; g < w->n_motion; g++) { /* a motion schedule: its fastest segment */
        const double *u = w->motion_velocity[g];
        v = fmax(v, sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
    }
    for (int g = 0; g < w->n_servo; g++) v = fmax(v, w->servo_speed[g]); /* its speed limits */
    double reach = 0.0;
    for (int corner = 0; corner < 8; corner++) {
        double r2 = 0.0;
        for (int a = 0; a < 3; a++) {
            double c = (corner >> a & 1) ? cfg->domain_max[a] : cfg->domain_min[a];
            r2 += (c - w->rotation_point[a]) * (c - w->rotation_point[a]);
        }
        reach = fmax(reach, sqrt(r2));
    }
    return v + fabs(w->angular_velocity) * reach;
}

/* The fastest wall's timestep_wall_speed. */
static double wall_speed_bound(const sim *s)
{
    double fastest = 0.0;
    for (int k = 0; k < s->cfg.n_walls; k++)
        fastest = fmax(fastest, timestep_wall_speed(&s->cfg, &s->cfg.walls[k]));
    return fastest;
}

/* The largest impact speed to expect: the given estimate, or the fastest initial (or
 * inlet) speed plus the fastest wall's (wall_speed_bound) plus the Lees-Edwards images'
 * (shear rate x height) plus a free fall across the whole domain, and at least 0.1 m/s. */
double timestep_impact_speed(const sim *s)
{
    if (s->cfg.impact_speed_estimate > 0.0) return s->cfg.impact_speed_estimate;
    double v2 = 0.0, g2 = 0.0, h = 0.0;
    for (size_t i = 0; i < s->p.n_local; i++)
        v2 = fmax(v2, s->p.vx[i] * s->p.vx[i] + s->p.vy[i] * s->p.vy[i] + s->p.vz[i] * s->p.vz[i]);
    for (int k = 0; k < s->cfg.n_inlets; k++) {
        const double *u = s->cfg.inlets[k].velocity;
        v2 = fmax(v2, u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    }
    for (int a = 0; a < 3; a++) {
        g2 += s->cfg.gravity[a] * s->cfg.gravity[a];
        h = fmax(h, s->cfg.domain_max[a] - s->cfg.domain_min[a]);
    }
    double images = s->cfg.lees_edwards.on
                        ? fabs(s->cfg.lees_edwards.shear_rate) *
                              (s->cfg.domain_max[2] - s->cfg.domain_min[2])
                        : 0.0;
    return fmax(sqrt(v2) + wall_speed_bound(s) + images + sqrt(2.0 * sqrt(g2) * h), 0.1);
}

double timestep_velocity_floor(const sim *s)
{
    const double *g = s->cfg.gravity;
    double g_abs = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]), r = HUGE_VAL;
    /* the smallest radius of any material: of the particles and what the inlets insert */
    for (size_t i = 0; i < s->p.n_local; i++) r = fmin(r, s->p.radius[i]);
    for (int k = 0; k < s->cfg.n_inlets; k++) r = fmin(r, s->cfg.inlets[k].radius_min);
    if (!(g_abs > 0.0) || !(r < HUGE_VAL)) return 1e-3;
    return sqrt(2.0 * g_abs * 2.0 * r);
}

/* b is a whole number of a's (a, b > 0), to 1e-9 of b / a. */
static int whole_multiple(double b, double a)
{
    double r = b / a, n = nearbyint(r);
    return n >= 1.0 && fabs(r - n) <= 1e-9 * r;
}

double timestep_output_grid(const sim_config *cfg)
{
    double out = cfg->output_interval, ts = cfg->timeseries_interval;
    if (out > 0.0 && !(ts > 0.0)) return out / 10.0; /* the default time series */
    if (out > 0.0 && ts > 0.0) return whole_multiple(out, ts) ? ts : out;
    return ts > 0.0 ? ts : 0.0;
}

int timestep_estimate(const sim *s, timestep_estimates *e)
{
    double v = timestep_impact_speed(s);
    e->rayleigh = timestep_rayleigh(s);
    e->contact = timestep_contact_time(s, v);
    e->springs = timestep_springs(s, v, &e->spring);
    return isnan(e->rayleigh) || isnan(e->contact) || isnan(e->springs) ? -1 : 0;
}

int choose_timestep(sim *s, char *err, size_t err_len)
{
    timestep_estimates e;
    if (timestep_estimate(s, &e) != 0) {
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    const double t_r = e.rayleigh, t_c = e.contact, t_s = e.springs;
    const timestep_spring spring = e.spring;
    double normal = fmin(t_r, t_c / 5.0);
    s->dt_limit = fmin(normal, t_s);
    if (!(s->dt_limit > 0.0) || !isfinite(s->dt_limit)) {
        if (t_s < normal) { /* a spring or dashpot beyond any step */
            timestep_spring_describe(s, &spring, err, err_len);
            return -1;
        }
        snprintf(err, err_len, "time.step: cannot estimate a stable timestep (Rayleigh time %g s, "
                 "contact time %g s)", t_r, t_c);
        return -1;
    }
    if (s->cfg.dt <= 0.0) {
        double dt = fmin(fmin(0.2 * t_r, t_c / 50.0), TIMESTEP_SPRING_SHARE * t_s),
               grid = timestep_output_grid(&s->cfg);
        if (grid > 0.0 && isfinite(grid) && grid / dt < 0x1p62) {
            /* the largest step that divides the output grid: snapshots and samples land
             * on it exactly, and the step stays at most the estimate */
            double n = ceil(grid / dt);
            while (grid / n > dt) n += 1.0;
            dt = grid / n;
        }
        s->dt = dt;
    } else {
        s->dt = s->cfg.dt;
        if (s->cfg.dt_check && s->dt > s->dt_limit && t_s < normal) {
            char what[1024];
            timestep_spring_describe(s, &spring, what, sizeof what);
            snprintf(err, err_len, "%s; time.step = %g s is above it: lower time.step (or use "
                     "'auto'), or the %s", what, s->dt,
                     spring.rolling == TIMESTEP_NECK ? "adhesion"
                     : spring.by_damping || spring.rolling == TIMESTEP_ADHESION ? "damping"
                                                                                 : "stiffness");
            return -1;
        }
        if (s->cfg.dt_check && s->dt > s->dt_limit) {
            snprintf(err, err_len,
                     "time.step = %g s is above the stable limit %g s (min of the Rayleigh time "
                     "%g s and a fifth of the contact time %g s); use a smaller step or 'auto'",
                     s->dt, s->dt_limit, t_r, t_c);
            return -1;
        }
    }
    return 0;
}

/* "time.step = 1e-05 s" or "time.step (auto) = 1e-05 s", for messages. */
static const char *step_words(const sim *s)
{
    return s->cfg.dt > 0.0 ? "time.step" : "time.step (auto)";
}

static double smallest_radius(const sim *s)
{
    double r = HUGE_VAL;
    for (size_t i = 0; i < s->p.n_local; i++) r = fmin(r, s->p.radius[i]);
    for (int k = 0; k < s->cfg.n_inlets; k++) r = fmin(r, s->cfg.inlets[k].radius_min);
    return r;
}

int timestep_check_wall_speed(const sim *s, int k, const wall_spec *w, char *err,
                              size_t err_len)
{
    const double f = WATCHDOG_STEP_FRACTION, dt = s->dt, r_min = smallest_radius(s);
    double v = timestep_wall_speed(&s->cfg, w);
    if (r_min == HUGE_VAL || !(v * dt > f * r_min)) return 0;
    snprintf(err, err_len, "walls[%d]: its motion reaches %.4g m/s in the domain, %.4g m per "
             "step (%s = %.4g s), more than %g of the smallest radius %g m; slow the wall "
             "or lower the step", k, v, v * dt, step_words(s), dt, f, r_min);
    return -1;
}

int timestep_check_particle_speed(const sim *s, size_t i, const double v[3], const char *who,
                                  const char *verb, char *err, size_t err_len)
{
    const double f = WATCHDOG_STEP_FRACTION, dt = s->dt;
    const particle_store *p = &s->p;
    double speed = hypot(hypot(v[0], v[1]), v[2]);
    if (!(speed * dt > f * p->radius[i])) return 0;
    snprintf(err, err_len, "%s: particle %lld at (%g, %g, %g) m %s %.4g m/s: it "
             "would move %.4g m per step (%s = %.4g s), more than %g of its radius %g m; "
             "lower its velocity or the step", who, (long long)p->id[i], p->x[i], p->y[i],
             p->z[i], verb, speed, speed * dt, step_words(s), dt, f, p->radius[i]);
    return -1;
}

int timestep_check_speeds(const sim *s, char *err, size_t err_len)
{
    const double f = WATCHDOG_STEP_FRACTION, dt = s->dt;
    const particle_store *p = &s->p;
    /* a file's particles by their row (their source's key names the file) */
    for (int k = 0; k < s->cfg.n_sources; k++) {
        const particle_source *src = &s->cfg.sources[k];
        if (src->kind != SOURCE_LIST || !src->list_velocity) continue;
        for (long i = 0; i < src->n_list; i++) {
            const double *v = src->list_velocity + 3 * i, *x = src->list_position + 3 * i;
            double speed = hypot(hypot(v[0], v[1]), v[2]), r = src->list_radius[i];
            if (!(speed * dt > f * r)) continue;
            snprintf(err, err_len, "particles[%d].file: particle %ld of the file, at (%g, %g, %g) "
                     "m, starts at %.4g m/s: it would move %.4g m per step (%s = %.4g s), more "
                     "than %g of its radius %g m; lower its velocity or the step", k, i + 1, x[0],
                     x[1], x[2], speed, speed * dt, step_words(s), dt, f, r);
            return -1;
        }
    }
    for (size_t i = 0; i < p->n_local; i++) {
        const double v[3] = {p->vx[i], p->vy[i], p->vz[i]};
        if (timestep_check_particle_speed(s, i, v, "particles", "starts at", err, err_len) != 0)
            return -1;
    }
    for (int k = 0; k < s->cfg.n_inlets; k++) {
        const inlet_spec *in = &s->cfg.inlets[k];
        double v = hypot(hypot(in->velocity[0], in->velocity[1]), in->velocity[2]);
        if (!(v * dt > f * in->radius_min)) continue;
        snprintf(err, err_len, "inlets[%d].velocity: %.4g m/s would move its particles %.4g m "
                 "per step (%s = %.4g s), more than %g of the radius %g m", k, v, v * dt,
                 step_words(s), dt, f, in->radius_min);
        return -1;
    }
    double r_min = smallest_radius(s);
    if (r_min == HUGE_VAL) return 0;
    for (int k = 0; k < s->cfg.n_walls; k++)
        if (timestep_check_wall_speed(s, k, &s->cfg.walls[k], err, err_len) != 0) return -1;
    double g = hypot(hypot(s->cfg.gravity[0], s->cfg.gravity[1]), s->cfg.gravity[2]);
    double h = 0.0;
    for (int a = 0; a < 3; a++) h = fmax(h, s->cfg.domain_max[a] - s->cfg.domain_min[a]);
    double v = sqrt(2.0 * g * h);
    if (v * dt > f * r_min) {
        snprintf(err, err_len, "gravity: |g| = %.4g m/s^2 accelerates a particle falling across "
                 "the domain (%g m) to %.4g m/s, %.4g m per step (%s = %.4g s), more than %g of "
                 "the smallest radius %g m; lower gravity or the step", g, h, v, v * dt,
                 step_words(s), dt, f, r_min);
        return -1;
    }
    return 0;
}

/* x / y rounded to a whole number of steps, as a double (no conversion can overflow). */
static double round_ratio(double x, double y)
{
    return round(x / y);
}

int timestep_end_step(const sim *s, double end_time, int64_t *end_step, char *err, size_t err_len)
{
    double dt = s->dt;
    double steps = ceil(end_time / dt - 1e-9);
    if (!(end_time >= dt)) {
        snprintf(err, err_len, "time.end = %g s is shorter than one step (%s = %.4g s): the run "
                 "would take no step", end_time, step_words(s), dt);
        return -1;
    }
    if (!(steps <= TIMESTEP_MAX_STEPS)) {
        snprintf(err, err_len, "time.end = %g s takes %.4g steps of %s = %.4g s, more than the "
                 "%.0f (2^53) a run can count exactly; shorten the run or lengthen the step",
                 end_time, steps, step_words(s), dt, TIMESTEP_MAX_STEPS);
        return -1;
    }
    *end_step = (int64_t)steps;
    return 0;
}

int timestep_schedule(const sim *s, run_schedule *out, char *err, size_t err_len)
{
    const sim_config *cfg = &s->cfg;
    double dt = s->dt;
    *out = (run_schedule){0};
    int64_t end_step;
    if (timestep_end_step(s, cfg->end_time, &end_step, err, err_len) != 0) return -1;
    double steps = (double)end_step;
    if (cfg->output_interval > 0.0 && cfg->output_interval < dt) {
        snprintf(err, err_len, "time.output_interval = %g s is shorter than one step (%s = %.4g "
                 "s): a snapshot every step at most", cfg->output_interval, step_words(s), dt);
        return -1;
    }
    if (cfg->timeseries_interval > 0.0 && cfg->timeseries_interval < dt) {
        snprintf(err, err_len, "time.timeseries_interval = %g s is shorter than one step (%s = "
                 "%.4g s): a sample every step at most", cfg->timeseries_interval, step_words(s),
                 dt);
        return -1;
    }
    /* capped at 2^53 (>= steps: an interval longer than the run keeps its meaning, e.g.
     * for the default time-series interval, a tenth of the snapshots') */
    double every = cfg->output_interval > 0.0
                       ? fmin(round_ratio(cfg->output_interval, dt), TIMESTEP_MAX_STEPS)
                       : steps;
    if (every < 1.0) every = 1.0;
    double sample = cfg->timeseries_interval > 0.0
                        ? fmin(round_ratio(cfg->timeseries_interval, dt), TIMESTEP_MAX_STEPS)
                    : cfg->output_interval > 0.0 ? floor(every / 10.0)
                                                 : floor(steps / 100.0);
    if (sample < 1.0) sample = 1.0;
    double snapshots = 1.0 + ceil(steps / every);
    double particles = (double)sim_particles_everywhere(s);
    for (int k = 0; k < cfg->n_inlets; k++) {
        const inlet_spec *in = &cfg->inlets[k];
        double until = in->stop > 0.0 ? fmin(in->stop, cfg->end_time) : cfg->end_time;
        if (until > in->start && s->inlets) particles += s->inlets[k].rate * (until - in->start);
    }
    double bytes = snapshots * particles * TIMESTEP_SNAPSHOT_BYTES_PER_PARTICLE;
    if (!(snapshots <= TIMESTEP_MAX_SNAPSHOTS) || !(bytes <= TIMESTEP_MAX_OUTPUT_BYTES)) {
        snprintf(err, err_len, "time.output_interval = %g s writes %.4g snapshots of up to %.4g "
                 "particles, at least %.3g GB: more than the limit of %.0f snapshots and %.0f "
                 "GB; lengthen the interval", cfg->output_interval, snapshots, particles,
                 bytes / 1e9, TIMESTEP_MAX_SNAPSHOTS, TIMESTEP_MAX_OUTPUT_BYTES / 1e9);
        return -1;
    }
    *out = (run_schedule){.steps = (int64_t)steps, .every = (int64_t)every,
                          .sample_every = (int64_t)sample, .snapshots = (int64_t)snapshots,
                          .particles = particles, .bytes = bytes};
    return 0;
}

int sim_set_timestep(sim *s, double dt, char *err, size_t err_len)
{
    if (!(dt > 0.0) || !isfinite(dt)) {
        snprintf(err, err_len, "timestep %g s: must be a positive number", dt);
        return -1;
    }
    if (s->cfg.dt_check && dt > s->dt_limit) {
        char source[512];
        timestep_limit_source(s, source, sizeof source);
        snprintf(err, err_len, "timestep %g s is above the stable limit %g s (set by %s)", dt,
                 s->dt_limit, source);
        return -1;
    }
    s->dt = dt;
    /* calibrated laws are solved for the step they run at */
    return pair_restitution_calibrate(s, err, err_len);
}
