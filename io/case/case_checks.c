/* The checks across the sections, once all are read: the walls hold the particles
 * (against gravity, and every source on the inner side of every plane), and every
 * pair of materials that can touch has a contact entry, or one mixed from its
 * materials' own entries (case_mixing.c). */
#include "case_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------------------
 * Walls must hold the particles: a wall faces gravity along every closed axis it acts
 * on, and every source starts on the inner side of every plane wall.
 * ---------------------------------------------------------------------------------- */

static double plane_distance(const wall_spec *w, const double x[3])
{
    return (x[0] - w->point[0]) * w->normal[0] + (x[1] - w->point[1]) * w->normal[1] +
           (x[2] - w->point[2]) * w->normal[2];
}

static int check_gravity_walls(case_reader *c)
{
    static const char axis[] = "xyz";
    const sim_config *cfg = c->cfg;
    for (int a = 0; a < 3; a++) {
        double g = cfg->gravity[a];
        if (g == 0.0 || cfg->periodic[a]) continue;
        /* a plane or rectangle facing gravity holds; a cylinder, cone or STL surface may
         * (a drum, a hopper); an outlet takes what falls out on purpose */
        bool held = cfg->n_outlets > 0;
        for (int k = 0; k < cfg->n_walls && !held; k++) {
            const wall_spec *w = &cfg->walls[k];
            held = (w->kind != WALL_PLANE && w->kind != WALL_RECTANGLE) || w->normal[a] * g < 0.0;
        }
        if (!held)
            return case_fail_at(c, "gravity", "gravity: pulls along %c%c, but no wall faces it "
                                "(a wall whose normal has a %c%c component): the particles would "
                                "fall out of the domain; add one (walls: - {type: plane, normal: "
                                "...}) or make the axis periodic", g < 0 ? '-' : '+', axis[a],
                                g < 0 ? '+' : '-', axis[a]);
    }
    return 0;
}

static int check_source_sides(case_reader *c, int i)
{
    const sim_config *cfg = c->cfg;
    const particle_source *s = &cfg->sources[i];
    for (int k = 0; k < cfg->n_walls; k++) {
        const wall_spec *w = &cfg->walls[k];
        if (w->kind != WALL_PLANE) continue;
        if (s->kind == SOURCE_LIST) {
            for (long q = 0; q < s->n_list; q++) {
                const double *x = s->list_position + 3 * q;
                if (plane_distance(w, x) >= 0.0) continue;
                key_path f = case_key("particles[%d].file", i);
                return case_fail_at(c, f.s, "%s: particle %ld at (%g, %g, %g) lies behind wall "
                                    "%s (walls[%d]): particles start on the side its normal "
                                    "points to", f.s, q + 1, x[0], x[1], x[2], w->name, k);
            }
            continue;
        }
        double size = 0.0;
        for (int a = 0; a < 3; a++) size = fmax(size, s->region_max[a] - s->region_min[a]);
        for (int corner = 0; corner < 8; corner++) {
            double x[3];
            for (int a = 0; a < 3; a++)
                x[a] = corner >> a & 1 ? s->region_max[a] : s->region_min[a];
            if (plane_distance(w, x) >= -1e-12 * size) continue;
            key_path r = case_key("particles[%d].region", i);
            return case_fail_at(c, r.s, "%s: its corner (%g, %g, %g) lies behind wall %s "
                                "(walls[%d]): a region must lie on the side the wall's normal "
                                "points to", r.s, x[0], x[1], x[2], w->name, k);
        }
    }
    return 0;
}

int case_check_walls_hold(case_reader *c)
{
    /* the barostat moves the particles along z with the box, which no wall follows */
    if (c->cfg->lees_edwards.pressure > 0.0 && c->cfg->n_walls > 0)
        return case_fail_at(c, "domain.lees_edwards.pressure",
                            "domain.lees_edwards.pressure: the barostat moves the particles along "
                            "z with the box height, which walls do not follow; a pressure-"
                            "controlled box takes no walls (walls[0] is %s)", c->cfg->walls[0].name);
    if (check_gravity_walls(c) != 0) return -1;
    for (int i = 0; i < c->cfg->n_sources; i++)
        if (check_source_sides(c, i) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------
 * Walls lie near the domain: a wall 1e15 m away cannot touch a particle and betrays a
 * unit mistake; its sizes feed the timestep (a wall's speed bound) and the contact search.
 * ---------------------------------------------------------------------------------- */

typedef struct reach {
    double lo[3], hi[3]; /* the domain enlarged by CASE_WALL_REACH lengths on every side */
    double size;         /* CASE_WALL_REACH domain diagonals */
} reach;

static reach reach_of(const sim_config *cfg)
{
    reach r;
    double d2 = 0.0;
    for (int a = 0; a < 3; a++) {
        double len = cfg->domain_max[a] - cfg->domain_min[a];
        r.lo[a] = cfg->domain_min[a] - CASE_WALL_REACH * len;
        r.hi[a] = cfg->domain_max[a] + CASE_WALL_REACH * len;
        d2 += len * len;
    }
    r.size = CASE_WALL_REACH * sqrt(d2);
    return r;
}

static bool within(const reach *r, const double x[3])
{
    for (int a = 0; a < 3; a++)
        if (!(x[a] >= r->lo[a] && x[a] <= r->hi[a])) return false;
    return true;
}

static int refuse_point(case_reader *c, const char *key, const char *what, const double x[3],
                        const reach *r)
{
    return case_fail_at(c, key, "%s: %s (%g, %g, %g) lies farther than %g domain lengths from the "
                        "domain (x from %g to %g, y from %g to %g, z from %g to %g m): a wall "
                        "there cannot touch a particle; check the units", key, what, x[0], x[1],
                        x[2], CASE_WALL_REACH, r->lo[0], r->hi[0], r->lo[1], r->hi[1], r->lo[2],
                        r->hi[2]);
}

static int refuse_size(case_reader *c, const char *key, double v, const reach *r)
{
    return case_fail_at(c, key, "%s = %g m is more than %g domain diagonals (%g m); check the "
                        "units", key, v, CASE_WALL_REACH, r->size);
}

static int check_wall_reach(case_reader *c, int k, const reach *r)
{
    const wall_spec *w = &c->cfg->walls[k];
    key_path point = case_key("walls[%d].point", k);
    double centre[3];
    for (int a = 0; a < 3; a++)
        centre[a] = 0.5 * (c->cfg->domain_min[a] + c->cfg->domain_max[a]);
    switch (w->kind) {
    case WALL_PLANE: {
        if (!within(r, w->point)) return refuse_point(c, point.s, "the point", w->point, r);
        double d = fabs(plane_distance(w, centre));
        if (!(d <= r->size))
            return case_fail_at(c, point.s, "%s: the plane lies %g m from the domain's centre, more "
                                "than %g domain diagonals (%g m): it cannot touch a particle; "
                                "check the units", point.s, d, CASE_WALL_REACH, r->size);
        break;
    }
    case WALL_RECTANGLE:
        if (!within(r, w->point)) return refuse_point(c, point.s, "the centre", w->point, r);
        for (int q = 0; q < 2; q++)
            if (!(w->half_size[q] <= r->size))
                return refuse_size(c, case_key("walls[%d].half_size[%d]", k, q).s,
                                   w->half_size[q], r);
        break;
    case WALL_CYLINDER:
    case WALL_CONE: {
        if (!within(r, w->point)) return refuse_point(c, point.s, "the first end's centre",
                                                      w->point, r);
        if (!(w->length <= r->size))
            return refuse_size(c, case_key("walls[%d].length", k).s, w->length, r);
        for (int q = 0; q < 2; q++)
            if (!(w->radii[q] <= r->size))
                return refuse_size(c, case_key(w->kind == WALL_CONE ? "walls[%d].radii[%d]"
                                                                    : "walls[%d].radius", k, q).s,
                                   w->radii[q], r);
        break;
    }
    case WALL_STL: {
        key_path file = case_key("walls[%d].file", k);
        for (long t = 0; t < w->n_triangles; t++)
            for (int v = 0; v < 3; v++) {
                const double *x = w->mesh + 9 * t + 3 * v;
                if (within(r, x)) continue;
                char what[96];
                snprintf(what, sizeof what, "vertex %d of triangle %ld (scaled and translated)",
                         v + 1, t + 1);
                return refuse_point(c, file.s, what, x, r);
            }
        break;
    }
    }
    bool turns = w->angular_velocity != 0.0;
    if (turns && !within(r, w->rotation_point))
        return refuse_point(c, case_key("walls[%d].rotation.axis_point", k).s, "the axis point",
                            w->rotation_point, r);
    return 0;
}

int case_check_walls_reach(case_reader *c)
{
    reach r = reach_of(c->cfg);
    for (int k = 0; k < c->cfg->n_walls; k++)
        if (check_wall_reach(c, k, &r) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------
 * Every pair of materials that can touch needs a contact entry, or one mixed from the
 * entries of its two materials with themselves.
 * ---------------------------------------------------------------------------------- */

static bool has_binding(const sim_config *cfg, int a, int b)
{
    for (int k = 0; k < cfg->n_bindings; k++) {
        const law_binding *l = &cfg->bindings[k];
        if ((l->material_a == a && l->material_b == b) ||
            (l->material_a == b && l->material_b == a))
            return true;
    }
    return false;
}

int case_check_contact_pairs(case_reader *c)
{
    const sim_config *cfg = c->cfg;
    int n = cfg->n_materials;
    bool *in_particles = calloc((size_t)n, sizeof(bool));
    bool *in_walls = calloc((size_t)n, sizeof(bool));
    if (!in_particles || !in_walls) {
        free(in_particles);
        free(in_walls);
        return case_fail_memory(c, NULL, "out of memory");
    }
    for (int k = 0; k < cfg->n_sources; k++) in_particles[cfg->sources[k].material] = true;
    for (int k = 0; k < cfg->n_walls; k++) in_walls[cfg->walls[k].material] = true;
    char missing[1024] = "";
    size_t used = 0;
    int n_missing = 0;
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++) {
            bool touch = (in_particles[a] && in_particles[b]) ||
                         (in_particles[a] && in_walls[b]) || (in_walls[a] && in_particles[b]);
            if (!touch || has_binding(cfg, a, b)) continue;
            bool wall = !(in_particles[a] && in_particles[b]);
            int mixed = a != b ? case_mix_pair(c, a, b, wall ? "particles on a wall"
                                                             : "particles on particles")
                               : 0;
            if (mixed < 0) {
                free(in_particles);
                free(in_walls);
                return -1;
            }
            if (mixed) continue;
            if (used < sizeof missing) {
                int w = snprintf(missing + used, sizeof missing - used, "%s[%s, %s] (%s)",
                                 n_missing ? ", " : "", cfg->materials[a].name,
                                 cfg->materials[b].name,
                                 wall ? "particles on a wall" : "particles on particles");
                if (w > 0) used += (size_t)w;
            }
            n_missing++;
        }
    free(in_particles);
    free(in_walls);
    if (n_missing == 0) return 0;
    return case_fail_at(c, "contacts",
                        "contacts: no entry for %s; every pair of materials that can touch needs "
                        "one ('- materials: [a, b]' with a law), or, for two materials a and b, "
                        "entries [a, a] and [b, b] to mix it from", missing);
}
