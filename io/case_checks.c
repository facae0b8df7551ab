/* The checks across the sections, once all are read: the walls hold the particles
 * (against gravity, and every source on the inner side of every plane), and every
 * pair of materials that can touch has a contact entry. */
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
    if (check_gravity_walls(c) != 0) return -1;
    for (int i = 0; i < c->cfg->n_sources; i++)
        if (check_source_sides(c, i) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------
 * Every pair of materials that can touch needs a contact entry.
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
        return case_fail_line(c, 1, "out of memory");
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
                        "one ('- materials: [a, b]' with a law)", missing);
}
