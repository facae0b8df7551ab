#include "collision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "timestep.h"

void collision_defaults(collision_spec *spec, const dem_law *law)
{
    memset(spec, 0, sizeof *spec);
    spec->law = law;
    for (int k = 0; k < law->n_params; k++) spec->params[k] = law->params[k].default_value;
    spec->cohesion_removal = true;
    spec->radius = 0.01;
    spec->density = 7800.0;
    spec->young = 2e11;
    spec->poisson = 0.3;
    spec->velocity = 1.0;
}

/* Overlap of the two spheres from their current positions. */
static double overlap_now(const sim *s)
{
    const particle_store *p = &s->p;
    double dx = p->x[1] - p->x[0], dy = p->y[1] - p->y[0], dz = p->z[1] - p->z[0];
    return p->radius[0] + p->radius[1] - sqrt(dx * dx + dy * dy + dz * dz);
}

/* Time at which the overlap crossed zero between two steps (linear interpolation). */
static double crossing(double t0, double d0, double t1, double d1)
{
    return t0 + (t1 - t0) * (0.0 - d0) / (d1 - d0);
}

int collision_run(const collision_spec *spec, collision_result *out, char *err, size_t err_len)
{
    for (int k = 0; k < spec->law->n_params; k++)
        if (isnan(spec->params[k]) && law_param_required(spec->law, k, spec->calibrate)) {
            snprintf(err, err_len, "law %s needs parameter '%s' (%s)", spec->law->name,
                     spec->law->params[k].name, spec->law->params[k].help);
            return -1;
        }
    double R = spec->radius, v0 = spec->velocity;
    material mat = {.density = spec->density, .young = spec->young, .poisson = spec->poisson};
    snprintf(mat.name, sizeof mat.name, "sphere");
    law_binding bind = {.material_a = 0, .material_b = 0, .law = spec->law,
                        .cohesion_removal = spec->cohesion_removal,
                        .calibrate = spec->calibrate};
    memcpy(bind.params, spec->params, sizeof bind.params);
    /* start one skin apart, so the first touch happens a few steps in */
    bind.friction = spec->friction;
    double vt = spec->tangential_velocity;
    /* start 0.01 R apart along x, and offset along y so that the centres line up on the
     * x axis at first touch: x stays the normal at impact, VT its tangential speed */
    double gap = 0.01 * R, y0 = 0.5 * vt * gap / v0;
    double pos[6] = {-R - gap / 2, -y0, 0, R + gap / 2, y0, 0};
    double vel[6] = {v0 / 2, vt / 2, 0, -v0 / 2, -vt / 2, 0};
    double spin[6];
    for (int a = 0; a < 3; a++) { spin[a] = spec->spin[0][a]; spin[3 + a] = spec->spin[1][a]; }
    double rad[2] = {R, R};
    particle_source src = {.kind = SOURCE_LIST, .material = 0, .n_list = 2,
                           .list_position = pos, .list_velocity = vel,
                           .list_angular_velocity = spin, .list_radius = rad};
    sim_config cfg = {.materials = &mat, .n_materials = 1, .bindings = &bind, .n_bindings = 1,
                      .sources = &src, .n_sources = 1, .dt_check = true,
                      .impact_speed_estimate = v0,
                      .skin = spec->skin > 0 ? spec->skin : 0.2 * R, .tuning = spec->tuning};
    snprintf(cfg.name, sizeof cfg.name, "collide");
    for (int a = 0; a < 3; a++) { cfg.domain_min[a] = -20 * R; cfg.domain_max[a] = 20 * R; }

    sim s;
    if (sim_create(&s, &cfg, err, err_len) != 0) { sim_free(&s); return -1; }
    double t_c = timestep_contact_time(&s, v0);
    if (isnan(t_c)) {
        snprintf(err, err_len, "out of memory");
        sim_free(&s);
        return -1;
    }
    double per = spec->steps_per_contact > 0 ? spec->steps_per_contact : 4000.0;
    double dt = spec->dt > 0 ? spec->dt : spec->dt < 0 ? s.dt : t_c / per;
    if (sim_set_timestep(&s, dt, err, err_len) != 0) { sim_free(&s); return -1; }

    memset(out, 0, sizeof *out);
    out->dt = dt;
    out->calibrated_value = s.laws[0].calibrated
                                ? s.laws[0].coeffs.c[spec->law->calibration->coeff] : NAN;
    double t_start = NAN, t_prev = 0.0, d_prev = overlap_now(&s);
    int separated_steps = 0;
    long contact_steps = 0, sliding_steps = 0;
    /* the approach takes gap / v0; the contact about t_c; allow a slow, sticky one 50 t_c */
    long max_steps = (long)((gap / v0 + 50.0 * t_c) / dt) + 100;
    for (long n = 0; n < max_steps; n++) {
        int64_t rebuilds = s.n_rebuilds;
        sim_step(&s);
        if (s.fault == SIM_FAULT_NO_MEMORY) {
            snprintf(err, err_len, "out of memory at step %ld of the collision", n);
            sim_free(&s);
            return -1;
        }
        double d = overlap_now(&s);
        if (d > 0.0) {
            out->rebuilds_in_contact += s.n_rebuilds - rebuilds;
            if (isnan(t_start)) t_start = crossing(t_prev, d_prev, s.time, d);
            out->max_overlap = fmax(out->max_overlap, d);
            double f[3] = {s.p.fx[0], s.p.fy[0], s.p.fz[0]};
            double n[3] = {s.p.x[1] - s.p.x[0], s.p.y[1] - s.p.y[0], s.p.z[1] - s.p.z[0]};
            double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), fn = 0.0, ft2 = 0.0;
            for (int a = 0; a < 3; a++) fn += f[a] * n[a] / len;
            for (int a = 0; a < 3; a++) ft2 += pow(f[a] - fn * n[a] / len, 2);
            out->peak_force = fmax(out->peak_force, sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]));
            out->peak_normal_force = fmax(out->peak_normal_force, fabs(fn));
            out->peak_tangential_force = fmax(out->peak_tangential_force, sqrt(ft2));
            contact_steps++;
            if (spec->friction.mu > 0 && sqrt(ft2) >= (1 - 1e-9) * spec->friction.mu * fabs(fn))
                sliding_steps++;
        } else if (!isnan(t_start)) {
            if (separated_steps == 0) out->contact_time = crossing(t_prev, d_prev, s.time, d) - t_start;
            if (++separated_steps == 3) { /* no force acts any more: speeds are final */
                out->restitution_out = (s.p.vx[1] - s.p.vx[0]) / v0;
                const double *vs[3] = {s.p.vx, s.p.vy, s.p.vz}, *ws[3] = {s.p.wx, s.p.wy, s.p.wz};
                const double *xs[3] = {s.p.x, s.p.y, s.p.z};
                for (int i = 0; i < 2; i++)
                    for (int a = 0; a < 3; a++) {
                        out->velocity_out[i][a] = vs[a][i];
                        out->spin_out[i][a] = ws[a][i];
                        out->position_out[i][a] = xs[a][i];
                        out->position_in[i][a] = pos[3 * i + a];
                    }
                out->steps = n + 1;
                out->sliding_fraction = contact_steps ? (double)sliding_steps / contact_steps : 0;
                sim_free(&s);
                return 0;
            }
        }
        t_prev = s.time;
        d_prev = d;
    }
    snprintf(err, err_len, "the spheres %s within %ld steps (%g s)",
             isnan(t_start) ? "never touched" : "did not separate", max_steps, max_steps * dt);
    sim_free(&s);
    return -1;
}
