#include "timestep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

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
    if (!r) return 0.0;
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

double timestep_contact_time(const sim *s, double v)
{
    double *r = smallest_radius_per_material(s), t = HUGE_VAL;
    if (!r) return 0.0;
    int n = s->n_materials;
    char *is_wall = calloc((size_t)n, 1);
    if (!is_wall) { free(r); return 0.0; }
    for (size_t w = 0; w < s->walls.n; w++) is_wall[s->walls.walls[w].material] = 1;
    for (int a = 0; a < n; a++) {
        if (r[a] == HUGE_VAL) continue;
        double ma = sphere_mass(&s->cfg.materials[a], r[a]);
        for (int b = 0; b < n; b++) {
            const law_instance *li = &s->laws[a * n + b];
            if (!li->law) continue;
            if (r[b] != HUGE_VAL) { /* sphere-sphere */
                double mb = sphere_mass(&s->cfg.materials[b], r[b]);
                t = fmin(t, li->law->contact_time(&li->coeffs, r[a] * r[b] / (r[a] + r[b]),
                                                  ma * mb / (ma + mb), v));
            }
            if (is_wall[b]) t = fmin(t, li->law->contact_time(&li->coeffs, r[a], ma, v));
        }
    }
    free(is_wall);
    free(r);
    return t;
}

/* A bound on the speed of any material point of a moving wall inside the domain:
 * |v| (a motion schedule: its fastest segment) + |w| times the farthest corner of the
 * domain from the rotation point (a drum's rim, a piston; a wall spinning about its own
 * axis moves its material too). */
static double wall_speed_bound(const sim *s)
{
    double fastest = 0.0;
    for (int k = 0; k < s->cfg.n_walls; k++) {
        const wall_spec *w = &s->cfg.walls[k];
        double v = sqrt(w->velocity[0] * w->velocity[0] + w->velocity[1] * w->velocity[1] +
                        w->velocity[2] * w->velocity[2]);
        for (int g = 0; g < w->n_motion; g++) { /* a motion schedule: its fastest segment */
            const double *u = w->motion_velocity[g];
            v = fmax(v, sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
        }
        double reach = 0.0;
        for (int corner = 0; corner < 8; corner++) {
            double r2 = 0.0;
            for (int a = 0; a < 3; a++) {
                double c = (corner >> a & 1) ? s->cfg.domain_max[a] : s->cfg.domain_min[a];
                r2 += (c - w->rotation_point[a]) * (c - w->rotation_point[a]);
            }
            reach = fmax(reach, sqrt(r2));
        }
        fastest = fmax(fastest, v + fabs(w->angular_velocity) * reach);
    }
    return fastest;
}

/* The largest impact speed to expect: the given estimate, or the fastest initial (or
 * inlet) speed plus the fastest wall's (wall_speed_bound) plus a free fall across the
 * whole domain, and at least 0.1 m/s. */
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
    return fmax(sqrt(v2) + wall_speed_bound(s) + sqrt(2.0 * sqrt(g2) * h), 0.1);
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

int choose_timestep(sim *s, char *err, size_t err_len)
{
    double t_r = timestep_rayleigh(s);
    double t_c = timestep_contact_time(s, timestep_impact_speed(s));
    s->dt_limit = fmin(t_r, t_c / 5.0);
    if (!(s->dt_limit > 0.0) || !isfinite(s->dt_limit)) {
        snprintf(err, err_len, "time.step: cannot estimate a stable timestep (Rayleigh time %g s, "
                 "contact time %g s)", t_r, t_c);
        return -1;
    }
    if (s->cfg.dt <= 0.0) {
        double dt = fmin(0.2 * t_r, t_c / 50.0), grid = timestep_output_grid(&s->cfg);
        if (grid > 0.0 && isfinite(grid) && grid / dt < 0x1p62) {
            /* the largest step that divides the output grid: snapshots and samples land
             * on it exactly, and the step stays at most the estimate */
            double n = ceil(grid / dt);
            while (grid / n > dt) n += 1.0;
            dt = grid / n;
        }
        s->dt = dt;
        return 0;
    }
    s->dt = s->cfg.dt;
    if (s->cfg.dt_check && s->dt > s->dt_limit) {
        snprintf(err, err_len,
                 "time.step = %g s is above the stable limit %g s (min of the Rayleigh time "
                 "%g s and a fifth of the contact time %g s); use a smaller step or 'auto'",
                 s->dt, s->dt_limit, t_r, t_c);
        return -1;
    }
    return 0;
}

int sim_set_timestep(sim *s, double dt, char *err, size_t err_len)
{
    if (!(dt > 0.0) || !isfinite(dt)) {
        snprintf(err, err_len, "timestep %g s: must be a positive number", dt);
        return -1;
    }
    if (s->cfg.dt_check && dt > s->dt_limit) {
        snprintf(err, err_len, "timestep %g s is above the stable limit %g s", dt, s->dt_limit);
        return -1;
    }
    s->dt = dt;
    return 0;
}
