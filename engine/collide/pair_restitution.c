#include "pair_restitution.h"
#include "engine/fail.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/calibrate.h"
#include "engine/checks/timestep.h"

int pair_restitution_measure(const sim *s, int binding, pair_restitution *out, char *err,
                             size_t err_len)
{
    return pair_restitution_with(s, binding, NAN, out, err, err_len);
}

/* What a reference collision leaves out: nothing, its rolling resistance, or its
 * friction and rolling resistance (to find which part blew it up). */
enum { KEEP_ALL, WITHOUT_ROLLING, WITHOUT_FRICTION };

static int collide_at(const sim *s, int binding, double coefficient, double phase, int strip,
                      double dt, int may_coarsen, pair_restitution *out, char *err,
                      size_t err_len);

/* One collision at the case's step (or a coarser one, collide_at), first touch `phase` of
 * a step into it. */
static int collide_once(const sim *s, int binding, double coefficient, double phase, int strip,
                        pair_restitution *out, char *err, size_t err_len)
{
    return collide_at(s, binding, coefficient, phase, strip, s->dt, 1, out, err, err_len);
}

/* The part of contacts[binding] that blew its reference collision up, named by its key
 * (the file's line goes with it: case_locate_error): the rolling resistance or the
 * friction if the collision without it stays finite, else the contact entry. */
static void name_blow_up(const sim *s, int binding, double coefficient, double phase,
                         double dt, char *err, size_t err_len)
{
    const law_binding *b = &s->cfg.bindings[binding];
    const contact_friction *f = &b->friction;
    const char *mats[2] = {s->cfg.materials[b->material_a].name,
                           s->cfg.materials[b->material_b].name};
    pair_restitution scratch;
    char why[256];
    char what[256];
    if (f->rolling && f->mu_rolling > 0.0 &&
        collide_once(s, binding, coefficient, phase, WITHOUT_ROLLING, &scratch, why,
                     sizeof why) == 0)
        snprintf(what, sizeof what, "contacts[%d].rolling (model %s, coefficient %g): without "
                 "its rolling resistance", binding, f->rolling->name, f->mu_rolling);
    else if (f->mu > 0.0 && collide_once(s, binding, coefficient, phase, WITHOUT_FRICTION,
                                         &scratch, why, sizeof why) == 0)
        snprintf(what, sizeof what, "contacts[%d].friction (model %s, coefficient %g): without "
                 "its friction", binding, friction_tangential_law(f)->name, f->mu);
    else
        snprintf(what, sizeof what, "contacts[%d] (law %s): even without friction",
                 binding, b->law->name);
    snprintf(err, err_len, "%s the reference collision of %s on %s stays finite, with it "
             "it blew up at the step %g s", what, mats[0], mats[1], dt);
}

/* One collision at the step dt, first touch `phase` of a step into it. Where dt resolves
 * the contact by more than PAIR_RESTITUTION_MAX_STEPS steps (and may_coarsen), the
 * collision runs at t_c / PAIR_RESTITUTION_MAX_STEPS instead (pair_restitution.h). */
static int collide_at(const sim *s, int binding, double coefficient, double phase, int strip,
                      double dt, int may_coarsen, pair_restitution *out, char *err,
                      size_t err_len)
{
    const law_binding *b = &s->cfg.bindings[binding];
    law_reference ref = sim_binding_reference(s, binding);
    memset(out, 0, sizeof *out);
    out->asked = law_target_restitution(b->law, b->params);
    if (!(out->asked > 0.0)) out->asked = NAN; /* 0: an unused calibration target */
    out->v0 = ref.v0;
    out->r_eff = ref.r_eff;
    out->m_eff = ref.m_eff;
    out->against_wall = sim_binding_against_wall(s, binding);

    /* one material pair: material 0 and 1 (or 0 alone) with the case's properties and
     * the binding as the case has it, no gravity */
    material mats[2] = {s->cfg.materials[b->material_a], s->cfg.materials[b->material_b]};
    int same = b->material_a == b->material_b;
    law_binding bind = *b;
    if (strip >= WITHOUT_ROLLING) bind.friction.mu_rolling = 0.0;
    if (strip >= WITHOUT_FRICTION) bind.friction.mu = 0.0;
    bind.adhesion.law = NULL; /* the law's own restitution (pair_restitution.h) */
    bind.material_a = 0;
    bind.material_b = same ? 0 : 1;
    /* the spheres of the reference: R* and m* split into two equal spheres, or one sphere
     * against a plane (R* = R, m* = m) */
    double r = out->against_wall ? ref.r_eff : 2.0 * ref.r_eff;
    double mass = out->against_wall ? ref.m_eff : 2.0 * ref.m_eff;
    double v0 = ref.v0;
    out->dt = dt;
    int wall_material = same ? 0 : 1;
    /* the density that gives the reference mass to a sphere of radius r */
    double rho = mass / (4.0 / 3.0 * M_PI * r * r * r);
    mats[0].density = rho;
    if (!same) mats[1].density = rho;
    /* first touch `phase` of a step after the first step's start (plus whole steps) */
    double gap = (phase + 2.0) * v0 * dt;
    double pos[6], vel[6] = {0}, rad[2] = {r, r};
    particle_source src = {.kind = SOURCE_LIST, .material = 0, .list_position = pos,
                           .list_velocity = vel, .list_radius = rad};
    particle_source src2 = src;
    wall_spec plane = {.kind = WALL_PLANE, .material = wall_material, .normal = {0, 0, 1}};
    snprintf(plane.name, sizeof plane.name, "plane");
    sim_config cfg = {.materials = mats, .n_materials = same ? 1 : 2, .bindings = &bind,
                      .n_bindings = 1, .sources = &src, .n_sources = 1, .dt = dt,
                      .dt_check = false, .impact_speed_estimate = v0,
                      .calibration_fixed = true};
    snprintf(cfg.name, sizeof cfg.name, "pair_restitution");
    for (int a = 0; a < 3; a++) { cfg.domain_min[a] = -20.0 * r; cfg.domain_max[a] = 20.0 * r; }
    if (out->against_wall) {
        pos[0] = pos[1] = 0.0;
        pos[2] = r + gap;
        vel[2] = -v0;
        src.n_list = 1;
        cfg.walls = &plane;
        cfg.n_walls = 1;
        cfg.domain_min[2] = 0.0;
    } else {
        double p[6] = {-r - 0.5 * gap, 0, 0, r + 0.5 * gap, 0, 0};
        memcpy(pos, p, sizeof p);
        vel[0] = 0.5 * v0;
        vel[3] = -0.5 * v0;
        if (same) {
            src.n_list = 2;
        } else { /* one sphere of each material */
            src.n_list = 1;
            src2.material = 1;
            src2.list_position = pos + 3;
            src2.list_velocity = vel + 3;
            src2.list_radius = rad + 1;
            src2.n_list = 1;
        }
    }
    particle_source sources[2] = {src, src2};
    /* every pair of the two materials gets the law (only 0 with 1 ever touches) */
    law_binding binds[3] = {bind, bind, bind};
    binds[1].material_a = binds[1].material_b = 0;
    binds[2].material_a = binds[2].material_b = 1;
    cfg.bindings = binds;
    cfg.n_bindings = same ? 1 : 3;
    cfg.sources = sources;
    cfg.n_sources = !out->against_wall && !same ? 2 : 1;
    sim t;
    int rc = sim_create(&t, &cfg, err, err_len);
    if (rc != 0) {
        sim_free(&t);
        return fail_value(rc);
    }
    /* the coefficient: the case's (solved at the step or not), or the trial one */
    const law_calibration *cal = b->law->calibration;
    const law_instance *mine = NULL;
    for (int k = 0; k < s->n_materials * s->n_materials; k++)
        if (s->laws[k].binding == binding) mine = &s->laws[k];
    for (int k = 0; cal && mine && k < t.n_materials * t.n_materials; k++)
        if (t.laws[k].law == b->law)
            t.laws[k].coeffs.c[cal->coeff] = isnan(coefficient) ? mine->coeffs.c[cal->coeff]
                                                                 : coefficient;
    double t_c = timestep_contact_time(&t, v0);
    if (isnan(t_c)) {
        snprintf(err, err_len, "out of memory");
        sim_free(&t);
        return FAIL_NO_MEMORY;
    }
    if (may_coarsen && t_c > PAIR_RESTITUTION_MAX_STEPS * dt) {
        sim_free(&t);
        return collide_at(s, binding, coefficient, phase, strip, t_c / PAIR_RESTITUTION_MAX_STEPS,
                          0, out, err, err_len);
    }
    long max_steps = (long)((gap / v0 + 200.0 * t_c) / dt) + 1000;
    int touched = 0, apart = 0;
    for (long n = 0; n < max_steps && apart < 3; n++) {
        sim_step(&t);
        if (!isfinite(t.p.x[0]) || !isfinite(t.p.vx[0]) || !isfinite(t.p.z[0])) {
            sim_free(&t);
            if (strip == KEEP_ALL) name_blow_up(s, binding, coefficient, phase, dt, err, err_len);
            else snprintf(err, err_len, "the collision blew up");
            return -1;
        }
        if (t.n_contacts > 0) touched = 1, apart = 0;
        else if (touched) apart++;
    }
    if (apart < 3) {
        snprintf(err, err_len, "the reference collision did not end within %ld steps", max_steps);
        sim_free(&t);
        return -1;
    }
    /* the normal separation speed over the impact speed */
    out->actual = out->against_wall ? t.p.vz[0] / v0
                                    : (t.p.x[1] > t.p.x[0] ? t.p.vx[1] - t.p.vx[0]
                                                           : t.p.vx[0] - t.p.vx[1]) / v0;
    sim_free(&t);
    return 0;
}

/* Where in the step the first touch falls moves the restitution a little (the ends of a
 * contact are integrated to second order, not exactly): the mean over four places. */
#define PHASES 4

int pair_restitution_with(const sim *s, int binding, double coefficient, pair_restitution *out,
                          char *err, size_t err_len)
{
    if (!(s->dt <= s->dt_limit)) { /* check_step: false let an unstable step through */
        snprintf(err, err_len, "the step %g s is above the stable limit %g s", s->dt,
                 s->dt_limit);
        return -1;
    }
    double sum = 0.0;
    for (int k = 0; k < PHASES; k++) {
        int rc = collide_once(s, binding, coefficient, (k + 0.5) / PHASES, KEEP_ALL, out, err, err_len);
        if (rc != 0) return fail_value(rc);
        sum += out->actual;
    }
    out->actual = sum / PHASES;
    return 0;
}

int pair_restitution_calibrate(sim *s, char *err, size_t err_len)
{
    /* the reference collisions themselves; or a step above the stable limit (check_step:
     * false), at which no collision means anything: the continuous calibration stands */
    if (s->cfg.calibration_fixed || !(s->dt <= s->dt_limit)) return 0;
    for (int bi = 0; bi < s->cfg.n_bindings; bi++) {
        law_instance *li = NULL;
        for (int k = 0; k < s->n_materials * s->n_materials && !li; k++)
            if (s->laws[k].binding == bi && s->laws[k].calibrated) li = &s->laws[k];
        if (!li) continue;
        const law_binding *b = &s->cfg.bindings[bi];
        const law_calibration *cal = b->law->calibration;
        for (int k = 0; k < s->n_materials * s->n_materials; k++) /* start afresh */
            if (s->laws[k].binding == bi) s->laws[k].coeffs.c[cal->coeff] = li->continuous;
        double target = law_target_restitution(b->law, b->params);
        double t_c = b->law->contact_time(&li->coeffs, li->reference.r_eff, li->reference.m_eff,
                                          li->reference.v0);
        if (!(t_c < 500.0 * s->dt) || !(target > 0.0 && target < 1.0)) continue;
        /* secant on ln(coefficient) from the continuous calibration's value; where a
         * contact's end falls right at a step boundary the restitution can jump with the
         * coefficient and no root exist: the closest value found is kept */
        pair_restitution pr;
        double u0 = log(li->continuous), f0, u1, f1;
        int rc = pair_restitution_with(s, bi, exp(u0), &pr, err, err_len);
        if (rc != 0) return fail_value(rc);
        f0 = pr.actual - target;
        double best_u = u0, best_f = f0;
        /* restitution falls as damping grows (alpha: rises), e ~ exp(-c k) */
        double slope = cal->raises_restitution ? 1.0 : -1.0;
        u1 = u0 - f0 / (slope * fmax(target, 0.05));
        for (int it = 0; it < 12 && fabs(best_f) > 1e-6 * target; it++) {
            if (!isfinite(u1)) break;
            if ((rc = pair_restitution_with(s, bi, exp(u1), &pr, err, err_len)) != 0) return fail_value(rc);
            f1 = pr.actual - target;
            if (fabs(f1) < fabs(best_f)) { best_u = u1; best_f = f1; }
            if (f1 == f0) break;
            double u2 = u1 - f1 * (u1 - u0) / (f1 - f0);
            u0 = u1; f0 = f1; u1 = u2;
        }
        u0 = best_u;
        for (int k = 0; k < s->n_materials * s->n_materials; k++)
            if (s->laws[k].binding == bi) s->laws[k].coeffs.c[cal->coeff] = exp(u0);
    }
    return 0;
}
