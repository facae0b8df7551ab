/* The pair table (pair_table.h): each pair of materials' law, calibrated for the
 * binary collision of its typical particles. */
#include "pair_table.h"
#include "integrate.h"
#include "engine/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checks/timestep.h"
#include "fused_pass.h"

static law_instance *law_for(const sim *s, int a, int b)
{
    return &s->laws[a * s->n_materials + b];
}

static void effective_moduli(const material *a, const material *b, law_pair_props *pp)
{
    double ga = a->young / (2.0 * (1.0 + a->poisson)), gb = b->young / (2.0 * (1.0 + b->poisson));
    pp->young_eff = 1.0 / ((1.0 - a->poisson * a->poisson) / a->young +
                           (1.0 - b->poisson * b->poisson) / b->young);
    pp->shear_eff = 1.0 / ((2.0 - a->poisson) / ga + (2.0 - b->poisson) / gb);
    pp->density_a = a->density;
    pp->density_b = b->density;
}

/* Mean radius and mass of the particles of one material type, and how many there are;
 * a 1 mm sphere of that material if there are none. *all_fixed: every one of them is
 * fixed (particles_fixed: they weigh as if infinitely massive). */
static size_t typical_particle(const sim *s, int material, double *radius, double *mass,
                               bool *all_fixed)
{
    double r = 0.0, m = 0.0;
    size_t n = 0, n_fixed = 0;
    for (size_t i = 0; i < s->p.n_local; i++)
        if (s->p.type[i] == material) {
            r += s->p.radius[i]; m += s->p.mass[i]; n++;
            n_fixed += (size_t)particles_fixed(&s->p, i);
        }
    *all_fixed = n > 0 && n_fixed == n;
    if (n > 0) { *radius = r / n; *mass = m / n; return n; }
    *radius = 1e-3;
    *mass = s->cfg.materials[material].density * 4.0 / 3.0 * M_PI * 1e-9;
    return 0;
}

/* The binary collision a calibration is made exact for: typical particles of the two
 * materials (a particle against a wall if one material has no particles) at the
 * expected impact speed. It matters only for laws whose restitution depends on speed
 * and size (calibrate.h). */
static law_reference calibration_reference(const sim *s, const law_binding *b, bool *against_wall)
{
    double ra, ma, rb, mb;
    bool fa, fb;
    size_t na = typical_particle(s, b->material_a, &ra, &ma, &fa);
    size_t nb = typical_particle(s, b->material_b, &rb, &mb, &fb);
    law_reference ref = {.r_eff = ra * rb / (ra + rb), .m_eff = ma * mb / (ma + mb),
                         .v0 = timestep_impact_speed(s)};
    if (fa != fb) /* a material all fixed meets a moving one: the moving one's mass */
        ref.m_eff = fa ? mb : ma;
    *against_wall = s->walls.n > 0 && (na == 0) != (nb == 0);
    if (*against_wall) {
        ref.r_eff = na ? ra : rb;
        ref.m_eff = na ? ma : mb;
    }
    return ref;
}

static const law_instance *binding_law(const sim *s, int binding)
{
    const law_binding *b = &s->cfg.bindings[binding];
    return law_for(s, b->material_a, b->material_b);
}

law_reference sim_binding_reference(const sim *s, int binding)
{
    return binding_law(s, binding)->reference;
}

int sim_binding_against_wall(const sim *s, int binding)
{
    return binding_law(s, binding)->against_wall;
}

int pair_table_setup(sim *s, char *err, size_t err_len)
{
    int n = s->cfg.n_materials;
    s->n_materials = n;
    s->laws = calloc((size_t)n * n, sizeof *s->laws);
    if (!s->laws) { snprintf(err, err_len, "out of memory"); return FAIL_NO_MEMORY; }
    for (int k = 0; k < n * n; k++) s->laws[k].binding = -1;
    for (int k = 0; k < s->cfg.n_bindings; k++) {
        const law_binding *b = &s->cfg.bindings[k];
        law_instance li = {.law = b->law, .binding = k, .v_floor = NAN};
        /* v_floor 0: the default derived from the case (models/law_params.h) */
        double params[LAW_MAX_PARAMS];
        memcpy(params, b->params, sizeof params);
        int floor = law_param_index(b->law, "v_floor");
        if (floor >= 0) {
            if (params[floor] == 0.0) params[floor] = timestep_velocity_floor(s);
            li.v_floor = params[floor];
        }
        law_pair_props pp = {.law_restitution = NAN};
        effective_moduli(&s->cfg.materials[b->material_a], &s->cfg.materials[b->material_b], &pp);
        li.coeffs.young_eff = pp.young_eff;
        li.coeffs.cohesion_removal = b->cohesion_removal;
        char msg[256] = "";
        law_error why = {.param = -1};
        /* calibrate: true, or by default where the law's mapping is a published fit */
        bool calibrate = b->calibrate || law_calibrates_by_default(b->law, params);
        const char *where = b->calibrate ? "calibrate" : "params.restitution";
        if (law_check_calibration(b->law, b->params, calibrate, msg, sizeof msg) != 0)
            goto fail;
        where = "params";
        if (b->law->setup(params, &pp, &li.coeffs, &why) != 0) {
            snprintf(msg, sizeof msg, "%s", why.msg);
            goto fail;
        }
        li.reference = calibration_reference(s, b, &li.against_wall);
        if (calibrate) {
            where = b->calibrate ? "calibrate" : "params.fit";
            li.calibrated = true;
            if (law_calibrate(b->law, &li.coeffs, &li.reference,
                              law_target_restitution(b->law, params), msg, sizeof msg) != 0)
                goto fail;
            li.continuous = li.coeffs.c[b->law->calibration->coeff];
        }
        int refused = friction_setup(&b->friction, pp.young_eff, pp.shear_eff,
                                     law_target_restitution(b->law, b->params), &li.friction,
                                     &why);
        if (refused) { /* the reader checks it first (friction_check): not reached by a case */
            const contact_friction *f = &b->friction;
            const law_plugin *lp = refused == -1 ? &friction_tangential_law(f)->plugin
                                                 : &f->rolling->plugin;
            const char *key = why.param >= 0 ? lp->params[why.param].name : "model";
            snprintf(err, err_len, "contacts[%d].%s.%s: %s %s", k,
                     refused == -1 ? "friction" : "rolling", key, lp->name, why.msg);
            return -1;
        }
        if (b->adhesion.law) { /* models/adhesion_law.h: on the law's constants as set */
            li.adhesion.law = b->adhesion.law;
            if (b->adhesion.law->setup(b->adhesion.params, &pp, b->law, &li.coeffs,
                                       &li.adhesion, &why) != 0) {
                const law_plugin *ap = &b->adhesion.law->plugin;
                snprintf(err, err_len, "contacts[%d].adhesion.%s: %s for materials %s and %s: %s",
                         k, why.param >= 0 ? ap->params[why.param].name : "model", ap->name,
                         s->cfg.materials[b->material_a].name,
                         s->cfg.materials[b->material_b].name, why.msg);
                return -1;
            }
        }
        /* the fused passes have no adhesion: its contacts run the generic ones */
        li.fused = li.adhesion.law ? 0 : fused_pass_find(&li);
        *law_for(s, b->material_a, b->material_b) = li;
        *law_for(s, b->material_b, b->material_a) = li;
        continue;
    fail:
        snprintf(err, err_len, "contacts[%d].%s: law %s for materials %s and %s: %s", k, where,
                 b->law->name, s->cfg.materials[b->material_a].name,
                 s->cfg.materials[b->material_b].name, msg);
        return -1;
    }
    return 0;
}

/* The contact lists hold only the per-pair arrays some law needs: history slots for
 * the law with the most, the impact velocity only when some law reads it, springs and
 * torques only when some pair has friction or rolling resistance; the particles the
 * spins' history only when some pair exerts a torque. Returns 0 or -1 (out of memory). */
int pair_table_configure_lists(sim *s)
{
    int n_history = 0, friction = 0, rolling = 0, slip = 0, impact = 0;
    for (int k = 0; k < s->n_materials * s->n_materials; k++) {
        const law_instance *li = &s->laws[k];
        if (!li->law) continue;
        if (li->law->n_state > n_history) n_history = li->law->n_state;
        impact |= law_has(&li->law->plugin, LAW_CAP_IMPACT_VELOCITY);
        friction |= li->friction.active;
        rolling |= friction_has_rolling_torque(&li->friction);
        slip |= friction_keeps_state(&li->friction);
    }
    contact_list_configure(&s->pairs, 0, impact, n_history, friction, rolling, slip);
    contact_list_configure(&s->wall_pairs, 1, impact, n_history, friction, rolling, slip);
    contact_list_configure_carrier(&s->carry, 0, impact, n_history, friction, rolling, slip);
    contact_list_configure_carrier(&s->wall_carry, 1, impact, n_history, friction, rolling, slip);
    return sim_spin_free(s) ? 0 : particles_keep_spin_history(&s->p);
}

/* Every pair of material types that can meet must have a law. */
int pair_table_check_reach(sim *s, char *err, size_t err_len)
{
    s->has_reach = 0;
    for (int k = 0; k < s->n_materials * s->n_materials; k++) {
        const law_instance *li = &s->laws[k];
        if (!li->law || !li->adhesion.law) continue;
        /* the largest spheres' contacts reach farthest: with each other (R* = r/2) and
         * with a wall (R* = r) */
        double r = s->largest_radius;
        double reach = fmin(law_reach(li, 0.5 * r), law_reach(li, r));
        if (!(reach < 0.0)) continue;
        s->has_reach = 1;
        if (-reach < s->skin) continue;
        snprintf(err, err_len,
                 "contacts[%d].adhesion: %s holds a contact of the largest spheres (radius "
                 "%g m) until %g m past touching; the neighbour list's skin (%g m) must "
                 "exceed that: raise neighbour.skin",
                 li->binding, li->adhesion.law->name, r, -reach, s->skin);
        return -1;
    }
    return 0;
}

int pair_table_check_cover(const sim *s, char *err, size_t err_len)
{
    int n = s->n_materials;
    char *used = calloc((size_t)n, 1), *walls = calloc((size_t)n, 1);
    int rc = 0;
    if (!used || !walls) { free(used); free(walls); snprintf(err, err_len, "out of memory"); return FAIL_NO_MEMORY; }
    for (size_t i = 0; i < s->p.n_local; i++) used[s->p.type[i]] = 1;
    for (size_t w = 0; w < s->walls.n; w++) walls[s->walls.walls[w].material] = 1;
    for (int a = 0; a < n && rc == 0; a++)
        for (int b = 0; b < n && rc == 0; b++) {
            if (!used[a] || !(used[b] || walls[b])) continue;
            if (law_for(s, a, b)->law == NULL) {
                snprintf(err, err_len, "contacts: no contact law for materials %s and %s",
                         s->cfg.materials[a].name, s->cfg.materials[b].name);
                rc = -1;
            }
        }
    free(used);
    free(walls);
    return rc;
}
