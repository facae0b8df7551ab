#include "collision.h"
#include "engine/fail.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/calibrate.h"
#include "engine/checks/dashpot_check.h"
#include "engine/sim.h"
#include "engine/checks/timestep.h"

void collision_defaults(collision_spec *spec, const dem_law *law)
{
    memset(spec, 0, sizeof *spec);
    spec->law = law;
    for (int k = 0; law && k < law->n_params; k++) spec->params[k] = law->params[k].default_value;
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

const char *collision_input_name(collision_input k)
{
    static const char *const names[COLLISION_N_INPUTS] = {
        [COLLISION_LAW] = "law", [COLLISION_RESTITUTION] = "restitution",
        [COLLISION_VELOCITY] = "velocity", [COLLISION_RADIUS] = "radius",
        [COLLISION_DENSITY] = "density", [COLLISION_YOUNG] = "young",
        [COLLISION_POISSON] = "poisson", [COLLISION_PARAMS] = "params",
        [COLLISION_COHESION_REMOVAL] = "cohesion_removal", [COLLISION_DT] = "dt",
        [COLLISION_CALIBRATE] = "calibrate", [COLLISION_FRICTION] = "friction",
        [COLLISION_TANGENTIAL_RESTITUTION] = "tangential_restitution",
        [COLLISION_ANGLE] = "angle", [COLLISION_TANGENTIAL_VELOCITY] = "tangential_velocity",
        [COLLISION_SPIN1] = "spin1", [COLLISION_SPIN2] = "spin2",
        [COLLISION_FRICTION_MODEL] = "friction_model",
        [COLLISION_FRICTION_PARAMS] = "friction_params", [COLLISION_ROLLING] = "rolling",
        [COLLISION_ROLLING_MODEL] = "rolling_model",
        [COLLISION_ROLLING_PARAMS] = "rolling_params", [COLLISION_ADHESION] = "adhesion",
        [COLLISION_ADHESION_PARAMS] = "adhesion_params"};
    return k >= 0 && k < COLLISION_N_INPUTS ? names[k] : "?";
}

static const char *input_name(const collision_spec *spec, collision_input k)
{
    return spec->names ? spec->names[k] : collision_input_name(k);
}

/* What the simulation of a collision points into (sim_create keeps pointers to the
 * materials, bindings and sources): it lives as long as the simulation. */
typedef struct collision_setup {
    material mat;
    law_binding bind;
    double pos[6], vel[6], spin[6], rad[2];
    particle_source src;
    sim_config cfg;
} collision_setup;

/* The engine refused the spheres' setup u (sim_create, its message in err naming the
 * case's entry, contacts[0]): where the refusal is the adhesion law's (its setup against
 * the normal law and the moduli, engine/step/pair_table.c) -- the same setup without
 * the adhesion succeeds and the law's setup refuses on its constants -- the law's reason,
 * said with the entrance's name of the input. */
static void adhesion_refusal(const collision_spec *spec, collision_setup *u, char *err,
                             size_t err_len)
{
    const adhesion_law *law = spec->adhesion.law;
    if (!law) return;
    sim t;
    char scratch[256];
    u->bind.adhesion.law = NULL;
    int rc = sim_create(&t, &u->cfg, scratch, sizeof scratch);
    u->bind.adhesion = spec->adhesion;
    if (rc == 0) {
        const law_instance *li = &t.laws[0];
        const law_pair_props pp = {.young_eff = li->coeffs.young_eff, .shear_eff = NAN,
                                   .density_a = spec->density, .density_b = spec->density,
                                   .law_restitution = NAN};
        adhesion_coeffs ac = {.law = law};
        law_error why = {.param = -1};
        if (law->setup(spec->adhesion.params, &pp, spec->law, &li->coeffs, &ac, &why) != 0) {
            if (why.param >= 0 && why.param < law->n_params)
                snprintf(err, err_len, "%s: %s = %g: %s",
                         input_name(spec, COLLISION_ADHESION_PARAMS),
                         law->params[why.param].name, spec->adhesion.params[why.param],
                         why.msg);
            else
                snprintf(err, err_len, "%s %s: %s", input_name(spec, COLLISION_ADHESION),
                         law->name, why.msg);
        }
    }
    sim_free(&t);
}

/* The two spheres `gap` apart along x, offset along y so that their centres line up on
 * the x axis at first touch: x stays the normal at impact, VT its tangential speed. */
static int place(sim *s, collision_setup *u, const collision_spec *spec, double gap,
                 char *err, size_t err_len)
{
    double R = spec->radius, v0 = spec->velocity, vt = spec->tangential_velocity;
    memset(u, 0, sizeof *u);
    u->mat = (material){.density = spec->density, .young = spec->young,
                        .poisson = spec->poisson};
    snprintf(u->mat.name, sizeof u->mat.name, "sphere");
    u->bind = (law_binding){.material_a = 0, .material_b = 0, .law = spec->law,
                            .cohesion_removal = spec->cohesion_removal,
                            .calibrate = spec->calibrate};
    memcpy(u->bind.params, spec->params, sizeof u->bind.params);
    u->bind.friction = spec->friction;
    u->bind.adhesion = spec->adhesion;
    double y0 = 0.5 * vt * gap / v0;
    double pos[6] = {-R - gap / 2, -y0, 0, R + gap / 2, y0, 0};
    double vel[6] = {v0 / 2, vt / 2, 0, -v0 / 2, -vt / 2, 0};
    memcpy(u->pos, pos, sizeof pos);
    memcpy(u->vel, vel, sizeof vel);
    for (int a = 0; a < 3; a++) {
        u->spin[a] = spec->spin[0][a];
        u->spin[3 + a] = spec->spin[1][a];
    }
    u->rad[0] = u->rad[1] = R;
    u->src = (particle_source){.kind = SOURCE_LIST, .material = 0, .n_list = 2,
                               .list_position = u->pos, .list_velocity = u->vel,
                               .list_angular_velocity = u->spin, .list_radius = u->rad};
    u->cfg = (sim_config){.materials = &u->mat, .n_materials = 1, .bindings = &u->bind,
                          .n_bindings = 1, .sources = &u->src, .n_sources = 1,
                          .dt_check = true, .impact_speed_estimate = v0,
                          .skin = spec->skin > 0 ? spec->skin : 0.2 * R,
                          .tuning = spec->tuning};
    snprintf(u->cfg.name, sizeof u->cfg.name, "collide");
    for (int a = 0; a < 3; a++) { u->cfg.domain_min[a] = -20 * R; u->cfg.domain_max[a] = 20 * R; }
    int rc = sim_create(s, &u->cfg, err, err_len);
    if (rc != 0) {
        sim_free(s);
        adhesion_refusal(spec, u, err, err_len);
        return fail_value(rc);
    }
    return 0;
}

/* The caller's poll as the calibration calls it (models/calibrate.h), remembering that it
 * asked to stop: the calibration's failure is then the caller's stop, not a refusal. */
typedef struct poll_memory {
    const collision_spec *spec;
    int fired;
} poll_memory;

static int poll_remembered(void *ctx)
{
    poll_memory *m = ctx;
    if (!m->fired && m->spec->poll(m->spec->poll_ctx)) m->fired = 1;
    return m->fired;
}

/* sim_create (place) and sim_set_timestep calibrate the law: under the caller's poll. */
static int place_polled(sim *s, collision_setup *u, const collision_spec *spec, double gap,
                        poll_memory *m, char *err, size_t err_len)
{
    if (spec->poll) law_calibrate_set_poll(poll_remembered, m);
    int rc = place(s, u, spec, gap, err, err_len);
    law_calibrate_set_poll(NULL, NULL);
    return rc;
}

static int stopped(char *err, size_t err_len)
{
    snprintf(err, err_len, "interrupted");
    return COLLISION_STOPPED;
}

/* Every number the run reports must be finite: what is not is no result. */
static int results_finite(const collision_result *r)
{
    double sum = r->restitution_out + r->contact_time + r->peak_force + r->peak_normal_force +
                 r->peak_tangential_force + r->max_overlap + r->sliding_fraction;
    for (int i = 0; i < 2; i++)
        for (int a = 0; a < 3; a++)
            sum += r->velocity_out[i][a] + r->spin_out[i][a] + r->position_out[i][a];
    return isfinite(sum);
}

/* The spheres' state after `steps` steps into out, the simulation freed: 0, or -1 when
 * some result is not a finite number. */
static int finish(sim *s, const double *pos, long steps, long contact_steps,
                  long sliding_steps, collision_result *out, char *err, size_t err_len)
{
    const double *vs[3] = {s->p.vx, s->p.vy, s->p.vz}, *ws[3] = {s->p.wx, s->p.wy, s->p.wz};
    const double *xs[3] = {s->p.x, s->p.y, s->p.z};
    for (int i = 0; i < 2; i++)
        for (int a = 0; a < 3; a++) {
            out->velocity_out[i][a] = vs[a][i];
            out->spin_out[i][a] = ws[a][i];
            out->position_out[i][a] = xs[a][i];
            out->position_in[i][a] = pos[3 * i + a];
        }
    out->steps = steps;
    out->sliding_fraction = contact_steps ? (double)sliding_steps / contact_steps : 0;
    sim_free(s);
    if (!results_finite(out)) {
        snprintf(err, err_len, "the collision's results are not finite numbers "
                 "(restitution %g, peak force %g N): the inputs are beyond what "
                 "the engine resolves", out->restitution_out, out->peak_force);
        return -1;
    }
    return 0;
}

int collision_run(const collision_spec *spec, collision_result *out, char *err, size_t err_len)
{
    for (int k = 0; k < spec->law->n_params; k++)
        if (isnan(spec->params[k]) && law_param_required(spec->law, k, spec->calibrate)) {
            snprintf(err, err_len, "law %s needs parameter '%s' (%s)", spec->law->name,
                     spec->law->params[k].name, spec->law->params[k].help);
            return -1;
        }
    if (spec->poll && spec->poll(spec->poll_ctx)) return stopped(err, err_len);
    double R = spec->radius, v0 = spec->velocity;
    const char *dt_name = input_name(spec, COLLISION_DT);
    collision_setup setup;
    const double *pos = setup.pos;
    /* first 0.01 R apart: the step follows from the contact time, the gap from the step */
    double gap = 0.01 * R;
    sim s;
    poll_memory polled = {.spec = spec};
    int placed = place_polled(&s, &setup, spec, gap, &polled, err, err_len);
    if (placed != 0) return polled.fired ? stopped(err, err_len) : fail_value(placed);
    if (spec->poll && spec->poll(spec->poll_ctx)) {
        sim_free(&s);
        return stopped(err, err_len);
    }
    double mass = s.p.n_local > 0 ? s.p.mass[0] : NAN;
    if (!(mass > 0.0) || !isfinite(mass) || !isfinite(1.0 / mass)) {
        snprintf(err, err_len, "the spheres' mass %g kg (%s %g m, %s %g kg/m^3) is not a "
                 "positive number a double holds", mass, input_name(spec, COLLISION_RADIUS), R,
                 input_name(spec, COLLISION_DENSITY), spec->density);
        sim_free(&s);
        return -1;
    }
    double t_c = timestep_contact_time(&s, v0);
    if (isnan(t_c)) { /* only a failed allocation: fmin passes a law's NaN over */
        snprintf(err, err_len, "out of memory");
        sim_free(&s);
        return FAIL_NO_MEMORY;
    }
    if (!(t_c > 0.0) || !isfinite(t_c)) {
        snprintf(err, err_len, "law %s: the contact time of these spheres at %s %g m/s is %g s, "
                 "not a positive finite time (check %s, %s, %s and the law's parameters)",
                 spec->law->name, input_name(spec, COLLISION_VELOCITY), v0, t_c,
                 input_name(spec, COLLISION_RADIUS), input_name(spec, COLLISION_DENSITY),
                 input_name(spec, COLLISION_YOUNG));
        sim_free(&s);
        return -1;
    }
    const char *v_name = input_name(spec, COLLISION_VELOCITY);
    if (v0 * t_c < COLLISION_MIN_APPROACH * R) {
        snprintf(err, err_len, "%s: at %g m/s the spheres close by about %g m over the contact "
                 "(about %g s), less than their positions resolve (%g of the radius, %g m): "
                 "give a larger %s", v_name, v0, v0 * t_c, t_c, COLLISION_MIN_APPROACH,
                 COLLISION_MIN_APPROACH * R, v_name);
        sim_free(&s);
        return -1;
    }
    /* the default step never exceeds the stable limit: a long contact (a soft spring, a
     * slow impact) is resolved by more steps, and the bound below says how many */
    double per = spec->steps_per_contact > 0 ? spec->steps_per_contact : 4000.0;
    double dt = spec->dt > 0 ? spec->dt : spec->dt < 0 ? s.dt : fmin(t_c / per, s.dt_limit);
    if (!(dt > 0.0) || !isfinite(dt)) {
        snprintf(err, err_len, "%s: a step of %g s is not a positive number", dt_name, dt);
        sim_free(&s);
        return -1;
    }
    double resolution = t_c / dt; /* steps per contact */
    if (t_c / COLLISION_MAX_CONTACT_STEPS > s.dt_limit) { /* no stable step resolves it */
        snprintf(err, err_len, "the contact lasts about %g s at %s %g m/s: even the stable "
                 "limit of the step, %g s, resolves it by more than %.0f steps (give a larger "
                 "%s, or stiffer spheres)", t_c, input_name(spec, COLLISION_VELOCITY), v0,
                 s.dt_limit, COLLISION_MAX_CONTACT_STEPS, input_name(spec, COLLISION_VELOCITY));
        sim_free(&s);
        return -1;
    }
    if (resolution > COLLISION_MAX_CONTACT_STEPS) {
        snprintf(err, err_len, "%s: a step of %g s would resolve the contact (about %g s at %s "
                 "%g m/s) by about %.3g steps, more than the limit of %.0f: give a larger %s "
                 "(at least %.3g s), or a larger %s", dt_name, dt, t_c,
                 input_name(spec, COLLISION_VELOCITY), v0, resolution,
                 COLLISION_MAX_CONTACT_STEPS, dt_name, t_c / COLLISION_MAX_CONTACT_STEPS,
                 input_name(spec, COLLISION_VELOCITY));
        sim_free(&s);
        return -1;
    }
    double speed = 0.5 * sqrt(v0 * v0 + spec->tangential_velocity * spec->tangential_velocity);
    if (speed * dt > 0.5 * R) {
        snprintf(err, err_len, "%s: a step of %g s moves each sphere %g m, more than half its "
                 "radius (the limit of a run's step; the contact lasts about %g s): give a "
                 "smaller %s", dt_name, dt, speed * dt, t_c, dt_name);
        sim_free(&s);
        return -1;
    }
    /* the approach: at most COLLISION_APPROACH_STEPS steps */
    if (COLLISION_APPROACH_STEPS * v0 * dt < gap) {
        gap = COLLISION_APPROACH_STEPS * v0 * dt;
        sim_free(&s);
        if (place_polled(&s, &setup, spec, gap, &polled, err, err_len) != 0)
            return polled.fired ? stopped(err, err_len) : -1;
    }
    if (spec->poll) law_calibrate_set_poll(poll_remembered, &polled);
    int set = sim_set_timestep(&s, dt, err, err_len);
    law_calibrate_set_poll(NULL, NULL);
    if (set != 0 && polled.fired) {
        sim_free(&s);
        return stopped(err, err_len);
    }
    if (set != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, err_len, "%s: %s", dt_name, why);
        sim_free(&s);
        return -1;
    }

    memset(out, 0, sizeof *out);
    out->dt = dt;
    out->calibrated_value = s.laws[0].calibrated
                                ? s.laws[0].coeffs.c[spec->law->calibration->coeff] : NAN;
    double t_start = NAN, t_prev = 0.0, d_prev = overlap_now(&s), d_limit = 0.5 * R;
    /* the overlap at which the contact lets go: 0 without adhesion (R* as the engine's
     * pair geometry forms it for two spheres of radius R and mass m) */
    double inv_both = 1.0 / ((R + R) * (mass + mass));
    double reach = law_reach(&s.laws[0], R * R * (mass + mass) * inv_both);
    int separated_steps = 0;
    long contact_steps = 0, sliding_steps = 0;
    /* the approach takes gap / v0; the contact about t_c; allow a slow, sticky one 50 t_c,
     * at most COLLISION_MAX_STEPS steps */
    long max_steps = (long)(gap / v0 / dt + fmin(50.0 * t_c / dt, COLLISION_MAX_STEPS)) + 100;
    for (long n = 0; n < max_steps; n++) {
        if (spec->poll && n % COLLISION_POLL_STEPS == COLLISION_POLL_STEPS - 1 &&
            spec->poll(spec->poll_ctx)) {
            sim_free(&s);
            return stopped(err, err_len);
        }
        int64_t rebuilds = s.n_rebuilds;
        sim_step(&s);
        if (s.fault == SIM_FAULT_NO_MEMORY) {
            snprintf(err, err_len, "out of memory at step %ld of the collision", n);
            sim_free(&s);
            return FAIL_NO_MEMORY;
        }
        double d = overlap_now(&s);
        if (!(d <= d_limit)) { /* past the watchdog's limit, or not a number */
            snprintf(err, err_len, "the spheres overlapped by %g m at step %ld, more than half "
                     "their radius: a soft-sphere contact is no model of this impact (give a "
                     "smaller %s, or stiffer spheres)", d, n + 1,
                     input_name(spec, COLLISION_VELOCITY));
            sim_free(&s);
            return -1;
        }
        if (d > 0.0 || (!isnan(t_start) && d > reach)) { /* touching, or held past it */
            dashpot_check dash;
            dashpot_check_run(&s, &dash);
            if (dash.worst > 1.0) { /* velocity Verlet no longer integrates the dashpot */
                snprintf(err, err_len, "law %s: at step %ld the dashpot is too stiff for the "
                         "step (c dt / m* = %.3g > 1: the integration is unstable and the "
                         "rebound meaningless): give a smaller %s, or less damping",
                         spec->law->name, n + 1, dash.worst, dt_name);
                sim_free(&s);
                return -1;
            }
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
            if (separated_steps == 0)
                out->contact_time = crossing(t_prev, d_prev - reach, s.time, d - reach) - t_start;
            if (++separated_steps == 3) { /* no force acts any more: speeds are final */
                out->restitution_out = (s.p.vx[1] - s.p.vx[0]) / v0;
                return finish(&s, pos, n + 1, contact_steps, sliding_steps, out, err, err_len);
            }
        }
        t_prev = s.time;
        d_prev = d;
    }
    if (spec->adhesion.law && !isnan(t_start) && separated_steps == 0) { /* stuck */
        out->stuck = true;
        out->restitution_out = 0.0;
        out->contact_time = s.time - t_start;
        return finish(&s, pos, max_steps, contact_steps, sliding_steps, out, err, err_len);
    }
    snprintf(err, err_len, "the spheres %s within %ld steps (%g s: the approach, then 50 "
             "contact times of about %g s or %.0f steps, whichever is less)",
             isnan(t_start) ? "never touched" : "did not separate", max_steps, max_steps * dt,
             t_c, COLLISION_MAX_STEPS);
    sim_free(&s);
    return -1;
}
