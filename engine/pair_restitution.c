#include "pair_restitution.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../models/calibrate.h"
#include "timestep.h"

int pair_restitution_measure(const sim *s, int binding, pair_restitution *out, char *err,
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
    bind.material_a = 0;
    bind.material_b = same ? 0 : 1;
    /* the spheres of the reference: R* and m* split into two equal spheres, or one sphere
     * against a plane (R* = R, m* = m) */
    double r = out->against_wall ? ref.r_eff : 2.0 * ref.r_eff;
    double mass = out->against_wall ? ref.m_eff : 2.0 * ref.m_eff;
    double v0 = ref.v0, dt = s->dt;
    int wall_material = same ? 0 : 1;
    /* the density that gives the reference mass to a sphere of radius r */
    double rho = mass / (4.0 / 3.0 * M_PI * r * r * r);
    mats[0].density = rho;
    if (!same) mats[1].density = rho;
    /* first touch half a step in: one phase of the step, as any collision has */
    double gap = 0.5 * v0 * dt + 1e-3 * r;
    double pos[6], vel[6] = {0}, rad[2] = {r, r};
    particle_source src = {.kind = SOURCE_LIST, .material = 0, .list_position = pos,
                           .list_velocity = vel, .list_radius = rad};
    particle_source src2 = src;
    wall_spec plane = {.kind = WALL_PLANE, .material = wall_material, .normal = {0, 0, 1}};
    snprintf(plane.name, sizeof plane.name, "plane");
    sim_config cfg = {.materials = mats, .n_materials = same ? 1 : 2, .bindings = &bind,
                      .n_bindings = 1, .sources = &src, .n_sources = 1, .dt = dt,
                      .dt_check = false, .impact_speed_estimate = v0};
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
    /* a lone particle of material 0 still needs a law with itself (never used) */
    law_binding binds[2] = {bind, bind};
    binds[1].material_b = 0;
    cfg.bindings = binds;
    cfg.n_bindings = out->against_wall && !same ? 2 : 1;
    cfg.sources = sources;
    cfg.n_sources = !out->against_wall && !same ? 2 : 1;
    sim t;
    if (sim_create(&t, &cfg, err, err_len) != 0) {
        sim_free(&t);
        return -1;
    }
    double t_c = timestep_contact_time(&t, v0);
    long max_steps = (long)((gap / v0 + 200.0 * t_c) / dt) + 1000;
    int touched = 0, apart = 0;
    for (long n = 0; n < max_steps && apart < 3; n++) {
        sim_step(&t);
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
