/* The step loop: velocity Verlet, with the neighbour list rebuilt only when a particle
 * has moved more than half the skin.
 *
 * Determinism: each contact's force is computed once (in parallel, each contact on its
 * own) and stored on the contact; each particle then sums its contacts in the fixed
 * order of the contact list. Nothing depends on how contacts were split among threads,
 * so 1 and N threads give bit-identical results. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill.h"
#include "friction.h"
#include "timestep.h"

#define CHUNK 256
/* Below s->parallel_min items a loop runs on one thread: opening a parallel region
 * costs more than the work (and spinning threads starve other processes). The
 * environment variable DEMPACT_PARALLEL_MIN overrides the default, so that tests can
 * run small systems on several threads. */
#define PARALLEL_MIN_DEFAULT 4096

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
 * a 1 mm sphere of that material if there are none. */
static size_t typical_particle(const sim *s, int material, double *radius, double *mass)
{
    double r = 0.0, m = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < s->p.n_local; i++)
        if (s->p.type[i] == material) { r += s->p.radius[i]; m += s->p.mass[i]; n++; }
    if (n > 0) { *radius = r / n; *mass = m / n; return n; }
    *radius = 1e-3;
    *mass = s->cfg.materials[material].density * 4.0 / 3.0 * M_PI * 1e-9;
    return 0;
}

/* The binary collision a calibration is made exact for: typical particles of the two
 * materials (a particle against a wall if one material has no particles) at the
 * expected impact speed. It matters only for laws whose restitution depends on speed
 * and size (calibrate.h). */
static law_reference calibration_reference(const sim *s, const law_binding *b)
{
    double ra, ma, rb, mb;
    size_t na = typical_particle(s, b->material_a, &ra, &ma);
    size_t nb = typical_particle(s, b->material_b, &rb, &mb);
    law_reference ref = {.r_eff = ra * rb / (ra + rb), .m_eff = ma * mb / (ma + mb),
                         .v0 = timestep_impact_speed(s)};
    if (s->walls.n > 0 && (na == 0) != (nb == 0)) { /* a particle against a wall */
        ref.r_eff = na ? ra : rb;
        ref.m_eff = na ? ma : mb;
    }
    return ref;
}

static int setup_laws(sim *s, char *err, size_t err_len)
{
    int n = s->cfg.n_materials;
    s->n_materials = n;
    s->laws = calloc((size_t)n * n, sizeof *s->laws);
    if (!s->laws) { snprintf(err, err_len, "out of memory"); return -1; }
    for (int k = 0; k < n * n; k++) s->laws[k].binding = -1;
    for (int k = 0; k < s->cfg.n_bindings; k++) {
        const law_binding *b = &s->cfg.bindings[k];
        law_instance li = {.law = b->law, .binding = k};
        law_pair_props pp;
        effective_moduli(&s->cfg.materials[b->material_a], &s->cfg.materials[b->material_b], &pp);
        li.coeffs.young_eff = pp.young_eff;
        li.coeffs.cohesion_removal = b->cohesion_removal;
        char msg[256] = "";
        const char *where = b->calibrate ? "calibrate" : "params.restitution";
        if (law_check_calibration(b->law, b->params, b->calibrate, msg, sizeof msg) != 0)
            goto fail;
        where = "params";
        if (b->law->setup(b->params, &pp, &li.coeffs, msg, sizeof msg) != 0) goto fail;
        if (b->calibrate) {
            where = "calibrate";
            li.calibrated = true;
            li.reference = calibration_reference(s, b);
            if (law_calibrate(b->law, &li.coeffs, &li.reference,
                              law_target_restitution(b->law, b->params), msg, sizeof msg) != 0)
                goto fail;
        }
        friction_setup(&b->friction, pp.young_eff, pp.shear_eff,
                       law_target_restitution(b->law, b->params), &li.friction);
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

/* Every pair of material types that can meet must have a law. */
static int check_laws_cover(const sim *s, char *err, size_t err_len)
{
    int n = s->n_materials;
    char *used = calloc((size_t)n, 1), *walls = calloc((size_t)n, 1);
    int rc = 0;
    if (!used || !walls) { free(used); free(walls); snprintf(err, err_len, "out of memory"); return -1; }
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

/* ---- ghosts for periodic axes ---------------------------------------------------- */

static void wrap_periodic(sim *s)
{
    double *pos[3] = {s->p.x, s->p.y, s->p.z};
    for (int a = 0; a < 3; a++) {
        if (!s->cfg.periodic[a]) continue;
        double lo = s->cfg.domain_min[a], hi = s->cfg.domain_max[a], len = hi - lo;
        for (size_t i = 0; i < s->p.n_local; i++) {
            /* compare-and-shift: particles move less than a box length between rebuilds */
            if (pos[a][i] >= hi) pos[a][i] -= len;
            else if (pos[a][i] < lo) pos[a][i] += len;
        }
    }
}

static int add_ghost(particle_store *p, size_t owner, const double shift[3])
{
    if (p->n_total == p->capacity && particles_reserve(p, 2 * p->capacity + 16) != 0) return -1;
    size_t g = p->n_total++;
    p->id[g] = p->id[owner];
    p->type[g] = p->type[owner];
    p->radius[g] = p->radius[owner];
    p->mass[g] = p->mass[owner];
    p->inv_mass[g] = p->inv_mass[owner];
    p->inv_inertia[g] = p->inv_inertia[owner];
    p->ghost_owner[g] = owner;
    for (int a = 0; a < 3; a++) p->ghost_shift[3 * g + a] = shift[a];
    return 0;
}

/* Creates a ghost for every image of a particle within `cutoff` of a periodic face. */
static int make_ghosts(sim *s)
{
    particle_store *p = &s->p;
    p->n_total = p->n_local;
    for (size_t i = 0; i < p->n_local; i++) {
        int choices[3][3], n_choice[3];
        /* read through p each time: add_ghost may move the arrays */
        const double pos[3] = {p->x[i], p->y[i], p->z[i]};
        for (int a = 0; a < 3; a++) {
            n_choice[a] = 0;
            choices[a][n_choice[a]++] = 0;
            if (!s->cfg.periodic[a]) continue;
            if (pos[a] < s->cfg.domain_min[a] + s->cutoff) choices[a][n_choice[a]++] = 1;
            if (pos[a] > s->cfg.domain_max[a] - s->cutoff) choices[a][n_choice[a]++] = -1;
        }
        for (int ax = 0; ax < n_choice[0]; ax++)
            for (int ay = 0; ay < n_choice[1]; ay++)
                for (int az = 0; az < n_choice[2]; az++) {
                    int img[3] = {choices[0][ax], choices[1][ay], choices[2][az]};
                    if (!img[0] && !img[1] && !img[2]) continue;
                    double shift[3];
                    for (int a = 0; a < 3; a++)
                        shift[a] = img[a] * (s->cfg.domain_max[a] - s->cfg.domain_min[a]);
                    if (add_ghost(p, i, shift) != 0) return -1;
                }
    }
    return 0;
}

static void update_ghosts(const sim *s, particle_store *p)
{
    #pragma omp parallel for schedule(static) if (p->n_total - p->n_local > s->parallel_min)
    for (size_t g = p->n_local; g < p->n_total; g++) {
        size_t o = p->ghost_owner[g];
        p->x[g] = p->x[o] + p->ghost_shift[3 * g];
        p->y[g] = p->y[o] + p->ghost_shift[3 * g + 1];
        p->z[g] = p->z[o] + p->ghost_shift[3 * g + 2];
        p->vx[g] = p->vx[o]; p->vy[g] = p->vy[o]; p->vz[g] = p->vz[o];
        p->wx[g] = p->wx[o]; p->wy[g] = p->wy[o]; p->wz[g] = p->wz[o];
    }
}

/* ---- neighbour rebuild ------------------------------------------------------------ */

/* Visits the candidates of local particle i in a fixed order: calls emit(k) for each
 * (counting when out is NULL). */
static size_t particle_candidates(const sim *s, uint32_t i, uint32_t *out_j)
{
    const particle_store *p = &s->p;
    size_t cells[NEIGHBOUR_CELLS_MAX], nc = neighbour_cells_around(&s->grid, i, cells), count = 0;
    for (size_t c = 0; c < nc; c++)
        for (size_t k = s->grid.cell_start[cells[c]]; k < s->grid.cell_start[cells[c] + 1]; k++) {
            uint32_t q = s->grid.items[k];
            size_t owner = p->ghost_owner[q];
            /* each physical pair once: from its lower-indexed particle */
            if (owner <= i) continue;
            double dx = p->x[q] - p->x[i], dy = p->y[q] - p->y[i], dz = p->z[q] - p->z[i];
            double reach = p->radius[i] + p->radius[q] + s->skin;
            if (dx * dx + dy * dy + dz * dz >= reach * reach) continue;
            if (out_j) out_j[count] = q;
            count++;
        }
    return count;
}

static size_t wall_candidates(const sim *s, uint32_t i, uint32_t *out_w)
{
    const particle_store *p = &s->p;
    double c[3] = {p->x[i], p->y[i], p->z[i]}, n[3];
    size_t count = 0;
    for (size_t w = 0; w < s->walls.n; w++) {
        if (wall_distance(&s->walls.walls[w], c, n) >= p->radius[i] + s->skin) continue;
        if (out_w) out_w[count] = (uint32_t)w;
        count++;
    }
    return count;
}

typedef size_t (*candidate_fn)(const sim *, uint32_t, uint32_t *);

/* Fills list with the candidates of every local particle (two passes: count, then
 * fill), keeping the previous history. */
static int build_list(sim *s, contact_list *list, contact_list *old, candidate_fn find,
                      int is_wall)
{
    size_t n = s->p.n_local;
    size_t *first = realloc(list->first_of_i, (n + 1) * sizeof *first);
    if (!first) return -1;
    list->first_of_i = first;
    first[0] = 0;
    #pragma omp parallel for schedule(dynamic, 256) if (n > s->parallel_min)
    for (size_t i = 0; i < n; i++) first[i + 1] = find(s, (uint32_t)i, NULL);
    for (size_t i = 0; i < n; i++) first[i + 1] += first[i];
    if (contact_list_reserve(list, first[n] + first[n] / 8) != 0) return -1;
    list->n = first[n];
    list->n_first = n;
    #pragma omp parallel for schedule(dynamic, 256) if (n > s->parallel_min)
    for (size_t i = 0; i < n; i++) {
        find(s, (uint32_t)i, list->j + first[i]);
        for (size_t k = first[i]; k < first[i + 1]; k++) {
            list->i[k] = (uint32_t)i;
            list->owner_j[k] = is_wall ? list->j[k] : (uint32_t)s->p.ghost_owner[list->j[k]];
            list->overlap[k] = 0.0;
            for (int a = 0; a < 3; a++) list->force[a][k] = 0.0;
            for (int a = 0; a < 6; a++) list->torque[a][k] = 0.0;
        }
    }
    contact_list_adopt_history(list, old, n > s->parallel_min);
    return 0;
}

/* Refills `spare` with the current candidates, carrying the history over from
 * `current`, then swaps the two: lists are recycled, not reallocated. */
static int refresh_list(sim *s, contact_list *current, contact_list *spare, candidate_fn find,
                        int is_wall)
{
    if (build_list(s, spare, current, find, is_wall) != 0) return -1;
    contact_list old = *current;
    *current = *spare;
    *spare = old;
    return 0;
}

static int rebuild(sim *s)
{
    wrap_periodic(s);
    if (make_ghosts(s) != 0) return -1;
    update_ghosts(s, &s->p);
    if (neighbour_grid_build(&s->grid, &s->p, s->cutoff) != 0) return -1;

    if (refresh_list(s, &s->pairs, &s->spare, particle_candidates, 0) != 0 ||
        contact_list_index_second(&s->pairs, s->p.n_local) != 0 ||
        refresh_list(s, &s->wall_pairs, &s->wall_spare, wall_candidates, 1) != 0)
        return -1;

    for (size_t i = 0; i < s->p.n_local; i++) {
        s->x_at_rebuild[3 * i] = s->p.x[i];
        s->x_at_rebuild[3 * i + 1] = s->p.y[i];
        s->x_at_rebuild[3 * i + 2] = s->p.z[i];
    }
    s->n_rebuilds++;
    return 0;
}

static int needs_rebuild(const sim *s)
{
    const particle_store *p = &s->p;
    double limit = 0.25 * s->skin * s->skin, worst = 0.0;
    #pragma omp parallel for reduction(max : worst) schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        double dx = p->x[i] - s->x_at_rebuild[3 * i], dy = p->y[i] - s->x_at_rebuild[3 * i + 1],
               dz = p->z[i] - s->x_at_rebuild[3 * i + 2];
        double d2 = dx * dx + dy * dy + dz * dz;
        worst = fmax(worst, d2);
    }
    return !(worst <= limit);
}

/* ---- forces ----------------------------------------------------------------------- */

typedef struct chunk_scratch {
    size_t n;
    uint32_t slot[CHUNK];  /* contact index */
    int law[CHUNK];        /* index into s->laws */
    double d[CHUNK], rate[CHUNK], v0[CHUNK], r_eff[CHUNK], m_eff[CHUNK];
    double nx[CHUNK], ny[CHUNK], nz[CHUNK];
    /* for friction: lever arms (centre to contact point), velocity of j's contact point
     * relative to i's, w_i - w_j, and the reduced rolling inertia */
    double arm_i[CHUNK], arm_j[CHUNK], v_rel[3][CHUNK], w_rel[3][CHUNK], inertia_r[CHUNK];
} chunk_scratch;

typedef struct batch_scratch {
    double d[CHUNK], rate[CHUNK], v0[CHUNK], r_eff[CHUNK], m_eff[CHUNK], f[CHUNK];
    double h[LAW_MAX_HISTORY][CHUNK];
    uint32_t from[CHUNK];
} batch_scratch;

/* For friction: the contact point lies on the line of centres, arm = R - d/2 from each
 * centre; walls are at rest. Fills the kinematics of contact m of the chunk. */
static void contact_point_motion(const sim *s, chunk_scratch *cs, size_t m, uint32_t i,
                                 uint32_t j, int is_wall)
{
    const particle_store *p = &s->p;
    double n[3] = {cs->nx[m], cs->ny[m], cs->nz[m]}, half = 0.5 * cs->d[m];
    double arm_i = p->radius[i] - half;
    double wi[3] = {p->wx[i], p->wy[i], p->wz[i]};
    /* v_i + w_i x (arm_i n) */
    double ci[3] = {p->vx[i] + arm_i * (wi[1] * n[2] - wi[2] * n[1]),
                    p->vy[i] + arm_i * (wi[2] * n[0] - wi[0] * n[2]),
                    p->vz[i] + arm_i * (wi[0] * n[1] - wi[1] * n[0])};
    double cj[3] = {0.0, 0.0, 0.0}, wj[3] = {0.0, 0.0, 0.0}, arm_j = 0.0;
    double inertia_i = 1.0 / p->inv_inertia[i] + p->mass[i] * arm_i * arm_i;
    double inertia_r = inertia_i;
    if (!is_wall) {
        arm_j = p->radius[j] - half;
        wj[0] = p->wx[j]; wj[1] = p->wy[j]; wj[2] = p->wz[j];
        /* v_j + w_j x (-arm_j n) */
        cj[0] = p->vx[j] - arm_j * (wj[1] * n[2] - wj[2] * n[1]);
        cj[1] = p->vy[j] - arm_j * (wj[2] * n[0] - wj[0] * n[2]);
        cj[2] = p->vz[j] - arm_j * (wj[0] * n[1] - wj[1] * n[0]);
        double inertia_j = 1.0 / p->inv_inertia[j] + p->mass[j] * arm_j * arm_j;
        inertia_r = inertia_i * inertia_j / (inertia_i + inertia_j);
    }
    cs->arm_i[m] = arm_i;
    cs->arm_j[m] = arm_j;
    cs->inertia_r[m] = inertia_r;
    for (int a = 0; a < 3; a++) {
        cs->v_rel[a][m] = cj[a] - ci[a];
        cs->w_rel[a][m] = wi[a] - wj[a];
    }
}

/* Geometry of the touching pairs in list[start, end); separated pairs lose their
 * history here. */
static void pair_geometry(const sim *s, contact_list *c, size_t start, size_t end,
                          int is_wall, chunk_scratch *cs)
{
    const particle_store *p = &s->p;
    cs->n = 0;
    for (size_t k = start; k < end; k++) {
        uint32_t i = c->i[k], j = c->j[k];
        double nx, ny, nz, d, rate, r_eff, m_eff;
        int law;
        if (!is_wall) {
            double dx = p->x[j] - p->x[i], dy = p->y[j] - p->y[i], dz = p->z[j] - p->z[i];
            double dist = sqrt(dx * dx + dy * dy + dz * dz);
            d = p->radius[i] + p->radius[j] - dist;
            c->overlap[k] = d;
            if (d <= 0.0) goto apart;
            nx = dx / dist; ny = dy / dist; nz = dz / dist;
            rate = -((p->vx[j] - p->vx[i]) * nx + (p->vy[j] - p->vy[i]) * ny +
                     (p->vz[j] - p->vz[i]) * nz);
            r_eff = p->radius[i] * p->radius[j] / (p->radius[i] + p->radius[j]);
            m_eff = p->mass[i] * p->mass[j] / (p->mass[i] + p->mass[j]);
            law = p->type[i] * s->n_materials + p->type[j];
        } else {
            const wall_spec *w = &s->walls.walls[j];
            double centre[3] = {p->x[i], p->y[i], p->z[i]}, n[3];
            d = p->radius[i] - wall_distance(w, centre, n);
            c->overlap[k] = d;
            if (d <= 0.0) goto apart;
            nx = n[0]; ny = n[1]; nz = n[2];
            rate = p->vx[i] * nx + p->vy[i] * ny + p->vz[i] * nz; /* walls are at rest */
            r_eff = p->radius[i];
            m_eff = p->mass[i];
            law = p->type[i] * s->n_materials + w->material;
        }
        if (!c->touching[k]) { /* first touch: the history starts now */
            contact_clear_history(c, k);
            c->touching[k] = 1;
            c->impact_velocity[k] = rate;
        }
        size_t m = cs->n++;
        cs->slot[m] = (uint32_t)k;
        cs->law[m] = law;
        cs->d[m] = d; cs->rate[m] = rate; cs->v0[m] = c->impact_velocity[k];
        cs->r_eff[m] = r_eff; cs->m_eff[m] = m_eff;
        cs->nx[m] = nx; cs->ny[m] = ny; cs->nz[m] = nz;
        cs->arm_i[m] = cs->arm_j[m] = 0.0;
        if (s->laws[law].friction.active) contact_point_motion(s, cs, m, i, j, is_wall);
        continue;
    apart:
        if (c->touching[k]) contact_clear_history(c, k);
        c->force[0][k] = c->force[1][k] = c->force[2][k] = 0.0;
        for (int a = 0; a < 6; a++) c->torque[a][k] = 0.0;
    }
}

/* Tangential force and rolling torque on i of contact k (slot m of the chunk), from
 * its normal force; updates the contact's springs. */
static void apply_friction(const sim *s, contact_list *c, const chunk_scratch *cs, size_t m,
                           size_t k, double f_normal, double f_t[3], double m_r[3])
{
    contact_kinematics kin = {.n = {cs->nx[m], cs->ny[m], cs->nz[m]}, .d = cs->d[m],
                              .r_eff = cs->r_eff[m], .m_eff = cs->m_eff[m],
                              .inertia_r = cs->inertia_r[m], .f_normal = f_normal,
                              .dt = s->dt};
    double xi[3], theta[3];
    for (int a = 0; a < 3; a++) {
        kin.v_rel[a] = cs->v_rel[a][m];
        kin.w_rel[a] = cs->w_rel[a][m];
        xi[a] = c->tangential[a][k];
        theta[a] = c->rolling[a][k];
    }
    friction_force(&s->laws[cs->law[m]].friction, &kin, xi, theta, f_t, m_r);
    for (int a = 0; a < 3; a++) {
        c->tangential[a][k] = xi[a];
        c->rolling[a][k] = theta[a];
    }
}

/* Calls each law once for its contacts in the chunk and stores the force on i. */
static void chunk_forces(const sim *s, contact_list *c, const chunk_scratch *cs,
                         batch_scratch *bs)
{
    size_t done = 0;
    int n_laws = s->n_materials * s->n_materials;
    for (int L = 0; L < n_laws && done < cs->n; L++) {
        const law_instance *li = &s->laws[L];
        int nh = li->law ? li->law->n_history : 0;
        size_t n = 0;
        for (size_t m = 0; m < cs->n; m++) {
            if (cs->law[m] != L) continue;
            uint32_t k = cs->slot[m];
            bs->from[n] = (uint32_t)m;
            bs->d[n] = cs->d[m]; bs->rate[n] = cs->rate[m]; bs->v0[n] = cs->v0[m];
            bs->r_eff[n] = cs->r_eff[m]; bs->m_eff[n] = cs->m_eff[m];
            for (int h = 0; h < nh; h++) bs->h[h][n] = c->history[h][k];
            n++;
        }
        if (n == 0) continue;
        done += n;
        law_batch batch = {.n = n, .overlap = bs->d, .overlap_rate = bs->rate,
                           .impact_velocity = bs->v0, .r_eff = bs->r_eff, .m_eff = bs->m_eff,
                           .force = bs->f};
        for (int h = 0; h < LAW_MAX_HISTORY; h++) batch.history[h] = bs->h[h];
        li->law->force(&li->coeffs, &batch);
        for (size_t q = 0; q < n; q++) {
            size_t m = bs->from[q];
            uint32_t k = cs->slot[m];
            double f = bs->f[q];
            if (li->coeffs.cohesion_removal && f < 0.0) f = 0.0;
            double n[3] = {cs->nx[m], cs->ny[m], cs->nz[m]};
            double f_t[3] = {0.0, 0.0, 0.0}, m_r[3] = {0.0, 0.0, 0.0};
            if (li->friction.active) apply_friction(s, c, cs, m, k, fmax(f, 0.0), f_t, m_r);
            for (int a = 0; a < 3; a++) c->force[a][k] = -f * n[a] + f_t[a];
            /* torque of the tangential force about each centre, plus the rolling torque */
            double nxf[3] = {n[1] * f_t[2] - n[2] * f_t[1], n[2] * f_t[0] - n[0] * f_t[2],
                             n[0] * f_t[1] - n[1] * f_t[0]};
            for (int a = 0; a < 3; a++) {
                c->torque[a][k] = cs->arm_i[m] * nxf[a] + m_r[a];
                c->torque[3 + a][k] = cs->arm_j[m] * nxf[a] - m_r[a];
            }
            for (int h = 0; h < nh; h++) c->history[h][k] = bs->h[h][q];
        }
    }
}

static void contact_forces(sim *s, contact_list *c, int is_wall)
{
    size_t n_chunks = (c->n + CHUNK - 1) / CHUNK;
    #pragma omp parallel if (c->n > s->parallel_min)
    {
        chunk_scratch cs;
        batch_scratch bs;
        #pragma omp for schedule(dynamic, 8)
        for (size_t ch = 0; ch < n_chunks; ch++) {
            size_t start = ch * CHUNK, end = start + CHUNK < c->n ? start + CHUNK : c->n;
            pair_geometry(s, c, start, end, is_wall, &cs);
            chunk_forces(s, c, &cs, &bs);
        }
    }
}

/* Sums each particle's contact forces in the fixed order of the lists. */
static void sum_forces(sim *s)
{
    particle_store *p = &s->p;
    const contact_list *c = &s->pairs, *w = &s->wall_pairs;
    const double *g = s->cfg.gravity;
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        double f[3] = {p->mass[i] * g[0], p->mass[i] * g[1], p->mass[i] * g[2]};
        double t[3] = {0.0, 0.0, 0.0};
        for (size_t k = c->first_of_i[i]; k < c->first_of_i[i + 1]; k++)
            for (int a = 0; a < 3; a++) {
                f[a] += c->force[a][k];
                t[a] += c->torque[a][k];
            }
        for (size_t q = c->first_of_j[i]; q < c->first_of_j[i + 1]; q++)
            for (int a = 0; a < 3; a++) {
                f[a] -= c->force[a][c->second_of[q]];
                t[a] += c->torque[3 + a][c->second_of[q]];
            }
        for (size_t k = w->first_of_i[i]; k < w->first_of_i[i + 1]; k++)
            for (int a = 0; a < 3; a++) {
                f[a] += w->force[a][k];
                t[a] += w->torque[a][k];
            }
        p->fx[i] = f[0]; p->fy[i] = f[1]; p->fz[i] = f[2];
        p->tx[i] = t[0]; p->ty[i] = t[1]; p->tz[i] = t[2];
    }
}

static void contact_stats(sim *s)
{
    size_t touching = 0;
    double worst = 0.0;
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++) {
        const contact_list *c = lists[L];
        #pragma omp parallel for reduction(+ : touching) reduction(max : worst) schedule(static) \
            if (c->n > s->parallel_min)
        for (size_t k = 0; k < c->n; k++) {
            if (c->overlap[k] <= 0.0) continue;
            touching++;
            if (c->overlap[k] > worst) worst = c->overlap[k];
        }
    }
    s->n_contacts = touching;
    s->max_overlap = worst;
}

static void compute_forces(sim *s)
{
    contact_forces(s, &s->pairs, 0);
    contact_forces(s, &s->wall_pairs, 1);
    sum_forces(s);
    contact_stats(s);
}

/* ---- integration ------------------------------------------------------------------- */

static void half_kick(const sim *s, particle_store *p, double dt)
{
    double h = 0.5 * dt;
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        double a = h * p->inv_mass[i], b = h * p->inv_inertia[i];
        p->vx[i] += a * p->fx[i]; p->vy[i] += a * p->fy[i]; p->vz[i] += a * p->fz[i];
        p->wx[i] += b * p->tx[i]; p->wy[i] += b * p->ty[i]; p->wz[i] += b * p->tz[i];
    }
}

static void drift(const sim *s, particle_store *p, double dt)
{
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        p->x[i] += dt * p->vx[i]; p->y[i] += dt * p->vy[i]; p->z[i] += dt * p->vz[i];
    }
}

/* Velocity-dependent forces (dashpots) need v(n+1) at the new positions, which velocity
 * Verlet knows only after those forces. Using the half-step velocity v(n+1/2) lags the
 * dashpot by dt/2 and makes restitution, contact time and peak force first order in dt
 * (a 10% error in e at e = 0.1 with 50 steps per contact). So the forces are computed
 * with the prediction v(n+1/2) + dt/2 a(n), which is second order, and the kick is then
 * corrected by dt/2 (a(n+1) - a(n)): the positions are exactly those of velocity Verlet,
 * and so is the final velocity up to rounding. */
static void predict_velocities(const sim *s, particle_store *p, double dt)
{
    double h = 0.5 * dt;
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        double a = h * p->inv_mass[i], b = h * p->inv_inertia[i];
        p->vx[i] += a * p->fx[i]; p->vy[i] += a * p->fy[i]; p->vz[i] += a * p->fz[i];
        p->wx[i] += b * p->tx[i]; p->wy[i] += b * p->ty[i]; p->wz[i] += b * p->tz[i];
        p->fx0[i] = p->fx[i]; p->fy0[i] = p->fy[i]; p->fz0[i] = p->fz[i];
        p->tx0[i] = p->tx[i]; p->ty0[i] = p->ty[i]; p->tz0[i] = p->tz[i];
    }
}

static void correct_velocities(const sim *s, particle_store *p, double dt)
{
    double h = 0.5 * dt;
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        double a = h * p->inv_mass[i], b = h * p->inv_inertia[i];
        p->vx[i] += a * (p->fx[i] - p->fx0[i]);
        p->vy[i] += a * (p->fy[i] - p->fy0[i]);
        p->vz[i] += a * (p->fz[i] - p->fz0[i]);
        p->wx[i] += b * (p->tx[i] - p->tx0[i]);
        p->wy[i] += b * (p->ty[i] - p->ty0[i]);
        p->wz[i] += b * (p->tz[i] - p->tz0[i]);
    }
}

void sim_step(sim *s)
{
    half_kick(s, &s->p, s->dt);
    drift(s, &s->p, s->dt);
    predict_velocities(s, &s->p, s->dt);
    if (needs_rebuild(s)) {
        if (rebuild(s) != 0) {
            fprintf(stderr, "dempact: out of memory in the neighbour rebuild\n");
            exit(3);
        }
    } else {
        update_ghosts(s, &s->p);
    }
    compute_forces(s);
    correct_velocities(s, &s->p, s->dt); /* ghosts follow at the next ghost update */
    s->step++;
    s->time = s->step * s->dt;
}

double sim_kinetic_energy(const sim *s)
{
    const particle_store *p = &s->p;
    double e = 0.0;
    for (size_t i = 0; i < p->n_local; i++) {
        double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        double w2 = p->wx[i] * p->wx[i] + p->wy[i] * p->wy[i] + p->wz[i] * p->wz[i];
        e += 0.5 * p->mass[i] * v2 + 0.5 * w2 / p->inv_inertia[i];
    }
    return e;
}

/* ---- creation ----------------------------------------------------------------------- */

static double largest_radius(const particle_store *p)
{
    double r = 0.0;
    for (size_t i = 0; i < p->n_local; i++) r = fmax(r, p->radius[i]);
    return r;
}

int sim_create(sim *s, const sim_config *cfg, char *err, size_t err_len)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    const char *pmin = getenv("DEMPACT_PARALLEL_MIN");
    s->parallel_min = pmin ? strtoul(pmin, NULL, 10) : PARALLEL_MIN_DEFAULT;
    if (particles_init(&s->p, 1024) != 0) goto oom;
    for (int k = 0; k < cfg->n_sources; k++) {
        const particle_source *src = &cfg->sources[k];
        if (fill_source(&s->p, src, &cfg->materials[src->material], k, err, err_len) != 0)
            return -1;
    }
    if (s->p.n_local == 0) { snprintf(err, err_len, "particles: the case creates no particles"); return -1; }
    if (s->p.n_local > UINT32_MAX / 2) { snprintf(err, err_len, "particles: too many particles"); return -1; }
    s->walls.walls = cfg->walls;
    s->walls.n = (size_t)cfg->n_walls;
    if (setup_laws(s, err, err_len) != 0 || check_laws_cover(s, err, err_len) != 0) return -1;

    double r_max = largest_radius(&s->p);
    s->skin = cfg->skin > 0.0 ? cfg->skin : 0.1 * 2.0 * r_max;
    s->cutoff = 2.0 * r_max + s->skin;
    for (int a = 0; a < 3; a++) {
        double len = cfg->domain_max[a] - cfg->domain_min[a];
        if (cfg->periodic[a] && len <= 2.0 * s->cutoff) {
            snprintf(err, err_len,
                     "domain.periodic: axis %c is %g m long; it must be longer than twice the "
                     "largest diameter plus the skin (%g m)",
                     "xyz"[a], len, 2.0 * s->cutoff);
            return -1;
        }
    }
    if (choose_timestep(s, err, err_len) != 0) return -1;

    s->x_at_rebuild = malloc(3 * s->p.n_local * sizeof *s->x_at_rebuild);
    if (!s->x_at_rebuild || rebuild(s) != 0) goto oom;
    compute_forces(s);
    return 0;
oom:
    snprintf(err, err_len, "out of memory");
    return -1;
}

void sim_free(sim *s)
{
    particles_free(&s->p);
    neighbour_grid_free(&s->grid);
    contact_list_free(&s->pairs);
    contact_list_free(&s->spare);
    contact_list_free(&s->wall_pairs);
    contact_list_free(&s->wall_spare);
    free(s->laws);
    free(s->x_at_rebuild);
    memset(s, 0, sizeof *s);
}

/* ---- restart support ---- */
/* (io/restart.c reads a snapshot into a sim_restart_state; see sim.h.) */
#include <stddef.h>

const pair_history_field sim_pair_history[] = {
    {"impact_velocity", offsetof(contact_list, impact_velocity), 1},
    {"law_history", offsetof(contact_list, history), LAW_MAX_HISTORY},
    {"tangential_spring", offsetof(contact_list, tangential), 3},
    {"rolling_spring", offsetof(contact_list, rolling), 3},
};
const int sim_n_pair_history = (int)(sizeof sim_pair_history / sizeof sim_pair_history[0]);

double *sim_pair_history_array(const contact_list *c, const pair_history_field *f, int comp)
{
    double *const *arrays = (double *const *)(const void *)((const char *)c + f->offset);
    return arrays[comp];
}

/* The pair of list c whose first particle is i and whose other end is j (the owner of
 * a ghost, or a wall index); c->n if there is none. */
static size_t find_pair(const contact_list *c, size_t i, uint32_t j, int is_wall)
{
    for (size_t k = c->first_of_i[i]; k < c->first_of_i[i + 1]; k++)
        if ((is_wall ? c->j[k] : c->owner_j[k]) == j) return k;
    return c->n;
}

static int restore_particles(sim *s, const sim_restart_state *st, size_t *row_of_id,
                             int64_t max_id, char *err, size_t err_len)
{
    const particle_store *p = &s->p;
    particle_store q;
    if (particles_init(&q, st->n) != 0) goto oom;
    for (size_t r = 0; r < st->n; r++) {
        int64_t id = st->id[r];
        size_t i = id >= 0 && id <= max_id ? row_of_id[id] : SIZE_MAX;
        if (i == SIZE_MAX) {
            snprintf(err, err_len, "particle id %lld of the snapshot is not a particle the case "
                                   "creates (or appears twice)", (long long)id);
            particles_free(&q);
            return -1;
        }
        row_of_id[id] = SIZE_MAX; /* each id once */
        if (p->type[i] != st->type[r] || memcmp(&p->radius[i], &st->radius[r], sizeof(double)) ||
            memcmp(&p->mass[i], &st->mass[r], sizeof(double))) {
            snprintf(err, err_len, "particle id %lld: the case makes it material %d, radius %.17g m, "
                                   "mass %.17g kg; the snapshot has material %d, radius %.17g m, "
                                   "mass %.17g kg (the case's particles changed)",
                     (long long)id, p->type[i], p->radius[i], p->mass[i], st->type[r],
                     st->radius[r], st->mass[r]);
            particles_free(&q);
            return -1;
        }
        q.id[r] = id;
        q.type[r] = p->type[i];
        q.radius[r] = p->radius[i];
        q.mass[r] = p->mass[i];
        q.inv_mass[r] = p->inv_mass[i];
        q.inv_inertia[r] = p->inv_inertia[i];
        /* positions of the last rebuild first: the rebuild below replays it */
        q.x[r] = st->position_at_rebuild[3 * r];
        q.y[r] = st->position_at_rebuild[3 * r + 1];
        q.z[r] = st->position_at_rebuild[3 * r + 2];
        q.vx[r] = st->velocity[3 * r]; q.vy[r] = st->velocity[3 * r + 1]; q.vz[r] = st->velocity[3 * r + 2];
        q.wx[r] = st->angular_velocity[3 * r]; q.wy[r] = st->angular_velocity[3 * r + 1];
        q.wz[r] = st->angular_velocity[3 * r + 2];
        q.fx[r] = st->force[3 * r]; q.fy[r] = st->force[3 * r + 1]; q.fz[r] = st->force[3 * r + 2];
        q.tx[r] = st->torque[3 * r]; q.ty[r] = st->torque[3 * r + 1]; q.tz[r] = st->torque[3 * r + 2];
        q.fx0[r] = q.fy0[r] = q.fz0[r] = q.tx0[r] = q.ty0[r] = q.tz0[r] = 0.0;
        q.ghost_owner[r] = r;
        q.ghost_shift[3 * r] = q.ghost_shift[3 * r + 1] = q.ghost_shift[3 * r + 2] = 0.0;
    }
    q.n_local = q.n_total = st->n;
    double *xr = realloc(s->x_at_rebuild, 3 * (st->n ? st->n : 1) * sizeof *xr);
    if (!xr) {
        particles_free(&q);
        goto oom;
    }
    s->x_at_rebuild = xr;
    particles_free(&s->p);
    s->p = q;
    return 0;
oom:
    snprintf(err, err_len, "out of memory");
    return -1;
}

static int restore_history(sim *s, const sim_restart_state *st, const size_t *row_of_id,
                           int64_t max_id, char *err, size_t err_len)
{
    contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n; k++) contact_clear_history(lists[L], k);
    for (size_t m = 0; m < st->n_contacts; m++) {
        int64_t a = st->contact_id[2 * m], b = st->contact_id[2 * m + 1];
        int is_wall = st->contact_wall[m] != 0;
        size_t i = a >= 0 && a <= max_id ? row_of_id[a] : SIZE_MAX;
        size_t j = is_wall ? (b >= 0 && (size_t)b < s->walls.n ? (size_t)b : SIZE_MAX)
                           : (b >= 0 && b <= max_id ? row_of_id[b] : SIZE_MAX);
        contact_list *c = is_wall ? &s->wall_pairs : &s->pairs;
        size_t k = i == SIZE_MAX || j == SIZE_MAX || (!is_wall && j <= i)
                       ? c->n
                       : find_pair(c, i, (uint32_t)j, is_wall);
        if (k == c->n) {
            snprintf(err, err_len, "contact %zu of the snapshot (particle %lld with %s %lld) is not "
                                   "in the rebuilt neighbour list", m, (long long)a,
                     is_wall ? "wall" : "particle", (long long)b);
            return -1;
        }
        c->touching[k] = 1;
        for (int f = 0; f < sim_n_pair_history; f++) {
            const pair_history_field *hf = &sim_pair_history[f];
            for (int comp = 0; comp < hf->count; comp++)
                sim_pair_history_array(c, hf, comp)[k] = st->history[f][m * hf->count + comp];
        }
    }
    return 0;
}

int sim_restore(sim *s, const sim_restart_state *st, char *err, size_t err_len)
{
    if (st->n == 0 || st->n > UINT32_MAX / 2) {
        snprintf(err, err_len, "the snapshot has %zu particles", st->n);
        return -1;
    }
    /* where each id is now: the case's particles, then the snapshot's rows */
    int64_t max_id = -1;
    for (size_t i = 0; i < s->p.n_local; i++)
        if (s->p.id[i] > max_id) max_id = s->p.id[i];
    size_t *row_of_id = malloc((size_t)(max_id + 1) * sizeof *row_of_id);
    if (!row_of_id) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (int64_t k = 0; k <= max_id; k++) row_of_id[k] = SIZE_MAX;
    for (size_t i = 0; i < s->p.n_local; i++) row_of_id[s->p.id[i]] = i;
    int rc = restore_particles(s, st, row_of_id, max_id, err, err_len);
    if (rc == 0) {
        s->dt = st->dt;
        s->step = st->step;
        s->time = st->time;
        if (rebuild(s) != 0) {
            snprintf(err, err_len, "out of memory");
            rc = -1;
        }
    }
    if (rc == 0) {
        particle_store *p = &s->p;
        for (size_t r = 0; r < st->n; r++) {
            p->x[r] = st->position[3 * r];
            p->y[r] = st->position[3 * r + 1];
            p->z[r] = st->position[3 * r + 2];
            row_of_id[p->id[r]] = r;
        }
        update_ghosts(s, p);
        rc = restore_history(s, st, row_of_id, max_id, err, err_len);
    }
    free(row_of_id);
    return rc;
}
