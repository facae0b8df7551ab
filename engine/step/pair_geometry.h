/* The geometry of a chunk of contacts: overlaps, normals, rates, R* and m*, and for
 * friction the contact points' motion during the step; pairs that stop touching lose
 * their history. Static functions of the force loop, included by force_loop.c alone, so
 * that they compile in its translation unit as they were written for (inlined there). */
#ifndef DEMPACT_PAIR_GEOMETRY_H
#define DEMPACT_PAIR_GEOMETRY_H

#include "force_scratch.h"
#include "engine/neighbours/lees_edwards.h"

#include <math.h>
#include <string.h>

/* For friction: the contact point lies on the line of centres, arm = R - d/2 from each
 * centre; a wall's point there moves with the wall (walls_point_velocity) and turns
 * with the wall's angular velocity. Fills the kinematics of contact m of the chunk: the
 * predicted end-of-step velocities for the dashpots, and for the springs the relative
 * displacement of the contact points during the step (friction.h): the mid-step
 * velocities v(n+1/2) (particles.h vh, wh: what drifted the centres) with the arms at
 * mid-step, R - d(n+1/2)/2 = arm + dt rate / 4, times s->spring_span. A ghost's
 * mid-step velocities are its owner's (owner_j). `rolling` (the pair type has a rolling
 * torque) and `turn` (its rolling law reads the step's turn and the rolling inertia,
 * friction_uses_turn): the relative spin, and the relative rotation and inertia, are
 * needed (else left unset). */
typedef struct point_motion {
    double arm_i, arm_j, v_rel[3], disp[3], w_rel[3], inertia_r, turn[3];
} point_motion;

static inline __attribute__((always_inline)) void
contact_motion(const sim *s, const double n[3], double d, double rate, uint32_t i, uint32_t j,
               uint32_t owner_j, int is_wall, int rolling, int turn, point_motion *pm)
{
    const particle_store *p = &s->p;
    const double half = 0.5 * d;
    const double span = s->spring_span, later = 0.25 * s->dt * rate;
    double arm_i = p->radius[i] - half, arm_j = 0.0, mid_i = arm_i + later;
    double wi[3] = {p->wx[i], p->wy[i], p->wz[i]}, wi_h[3] = {p->whx[i], p->why[i], p->whz[i]};
    double wj[3] = {0.0, 0.0, 0.0}, wj_h[3] = {0.0, 0.0, 0.0};
    /* the relative velocity of j's contact point past i's, predicted (v) and mid-step (h) */
    double v[3], h[3];
    /* the reduced rolling inertia: only the rolling laws' dashpots need it */
    double inertia_i = turn ? 1.0 / p->inv_inertia[i] + p->mass[i] * arm_i * arm_i : 0.0;
    double inertia_r = inertia_i;
    if (!is_wall) {
        /* (v_j - w_j x arm_j n) - (v_i + w_i x arm_i n) = v_j - v_i - (arm_i w_i + arm_j w_j) x n */
        arm_j = p->radius[j] - half;
        double mid_j = arm_j + later;
        wj[0] = p->wx[j]; wj[1] = p->wy[j]; wj[2] = p->wz[j];
        wj_h[0] = p->whx[owner_j]; wj_h[1] = p->why[owner_j]; wj_h[2] = p->whz[owner_j];
        double sw[3], sh[3];
        for (int a = 0; a < 3; a++) {
            sw[a] = arm_i * wi[a] + arm_j * wj[a];
            sh[a] = mid_i * wi_h[a] + mid_j * wj_h[a];
        }
        v[0] = p->vx[j] - p->vx[i] - (sw[1] * n[2] - sw[2] * n[1]);
        v[1] = p->vy[j] - p->vy[i] - (sw[2] * n[0] - sw[0] * n[2]);
        v[2] = p->vz[j] - p->vz[i] - (sw[0] * n[1] - sw[1] * n[0]);
        h[0] = p->vhx[owner_j] - p->vhx[i] - (sh[1] * n[2] - sh[2] * n[1]);
        h[1] = p->vhy[owner_j] - p->vhy[i] - (sh[2] * n[0] - sh[0] * n[2]);
        h[2] = p->vhz[owner_j] - p->vhz[i] - (sh[0] * n[1] - sh[1] * n[0]);
        /* an image across a Lees-Edwards face moves at its particle's velocity -+ U
         * (the velocities v above are the image's own) */
        if (__builtin_expect(j >= p->n_local && s->cfg.lees_edwards.on, 0))
            h[0] += lees_edwards_side(p, j) * lees_edwards_speed(s);
        if (turn) {
            double inertia_j = 1.0 / p->inv_inertia[j] + p->mass[j] * arm_j * arm_j;
            inertia_r = inertia_i * inertia_j / (inertia_i + inertia_j);
        }
    } else {
        /* v_i + w_i x (arm_i n), against the wall's point there: at rest, or moving with
         * the wall at its given velocity through the step */
        double cj[3] = {0.0, 0.0, 0.0};
        if (s->walls.state[j].moves) {
            double x[3] = {p->x[i] + arm_i * n[0], p->y[i] + arm_i * n[1], p->z[i] + arm_i * n[2]};
            walls_point_velocity(&s->walls, j, x, cj);
            const double *omega = walls_omega(&s->walls, j);
            for (int a = 0; a < 3; a++) wj[a] = wj_h[a] = omega[a];
        }
        v[0] = cj[0] - (p->vx[i] + arm_i * (wi[1] * n[2] - wi[2] * n[1]));
        v[1] = cj[1] - (p->vy[i] + arm_i * (wi[2] * n[0] - wi[0] * n[2]));
        v[2] = cj[2] - (p->vz[i] + arm_i * (wi[0] * n[1] - wi[1] * n[0]));
        h[0] = cj[0] - (p->vhx[i] + mid_i * (wi_h[1] * n[2] - wi_h[2] * n[1]));
        h[1] = cj[1] - (p->vhy[i] + mid_i * (wi_h[2] * n[0] - wi_h[0] * n[2]));
        h[2] = cj[2] - (p->vhz[i] + mid_i * (wi_h[0] * n[1] - wi_h[1] * n[0]));
    }
    pm->arm_i = arm_i;
    pm->arm_j = arm_j;
    for (int a = 0; a < 3; a++) {
        pm->v_rel[a] = v[a];
        pm->disp[a] = h[a] * span;
    }
    if (rolling)
        for (int a = 0; a < 3; a++) pm->w_rel[a] = wi[a] - wj[a];
    if (turn) { /* only the laws with uses_turn read them */
        pm->inertia_r = inertia_r;
        for (int a = 0; a < 3; a++) pm->turn[a] = (wi_h[a] - wj_h[a]) * span;
    }
}

/* contact_motion of contact m of the chunk, into the chunk's arrays. */
static inline __attribute__((always_inline)) void
contact_point_motion(const sim *s, chunk_scratch *cs, size_t m, uint32_t i, uint32_t j,
                     uint32_t owner_j, int is_wall, int rolling, int turn)
{
    const double n[3] = {cs->nx[m], cs->ny[m], cs->nz[m]};
    point_motion pm;
    contact_motion(s, n, cs->d[m], cs->rate[m], i, j, owner_j, is_wall, rolling, turn, &pm);
    cs->arm_i[m] = pm.arm_i;
    cs->arm_j[m] = pm.arm_j;
    for (int a = 0; a < 3; a++) {
        cs->v_rel[a][m] = pm.v_rel[a];
        cs->disp[a][m] = pm.disp[a];
    }
    if (rolling)
        for (int a = 0; a < 3; a++) cs->w_rel[a][m] = pm.w_rel[a];
    if (turn) {
        cs->inertia_r[m] = pm.inertia_r;
        for (int a = 0; a < 3; a++) cs->turn[a][m] = pm.turn[a];
    }
}

/* contact_point_motion for the touching particle pairs of a chunk, in loops whose
 * flags are constants when the chunk has one law. */
static void particle_point_motion(const sim *s, const contact_list *c, chunk_scratch *cs)
{
    const uint32_t *slot = cs->slot;
    /* The partners' mid-step velocities and spins are read nowhere else in the step, so
     * each is likely a cache miss the loop would wait for: ask for them all first, and
     * they arrive together (about 4% of a frictional bench, and 5% more for the spins).
     * Their centres, masses and velocities, read by the geometry pass before, gain
     * nothing from it. */
    const particle_store *p = &s->p;
    const double *mid[6] = {p->vhx, p->vhy, p->vhz, p->whx, p->why, p->whz};
    for (size_t m = 0; m < cs->n; m++)
        for (int a = 0; a < 6; a++) __builtin_prefetch(&mid[a][c->owner_j[slot[m]]]);
    const double *spin[3] = {p->wx, p->wy, p->wz};
    for (size_t m = 0; m < cs->n; m++)
        for (int a = 0; a < 3; a++) __builtin_prefetch(&spin[a][c->j[slot[m]]]);
    if (cs->one_law >= 0) {
        const friction_coeffs *fc = &s->laws[cs->one_law].friction;
        if (!fc->active) {
            for (size_t m = 0; m < cs->n; m++) cs->arm_i[m] = cs->arm_j[m] = 0.0;
        } else if (!friction_has_rolling_torque(fc)) {
            for (size_t m = 0; m < cs->n; m++)
                contact_point_motion(s, cs, m, c->i[slot[m]], c->j[slot[m]], c->owner_j[slot[m]],
                                     0, 0, 0);
        } else {
            const int turn = friction_uses_turn(fc);
            for (size_t m = 0; m < cs->n; m++)
                contact_point_motion(s, cs, m, c->i[slot[m]], c->j[slot[m]], c->owner_j[slot[m]],
                                     0, 1, turn);
        }
        return;
    }
    for (size_t m = 0; m < cs->n; m++) {
        const friction_coeffs *fc = &s->laws[cs->law[m]].friction;
        if (fc->active)
            contact_point_motion(s, cs, m, c->i[slot[m]], c->j[slot[m]], c->owner_j[slot[m]],
                                 0, friction_has_rolling_torque(fc), friction_uses_turn(fc));
        else
            cs->arm_i[m] = cs->arm_j[m] = 0.0; /* torques 0 x arm */
    }
}

/* A contact that started during the step has existed only for the part of it that
 * brought the overlap from 0 to d: its springs grow by that part of the step's
 * relative motion (the overlap over the step's approach along n). */
static inline void touch_span(const double n[3], double d, double disp[3], double turn[3],
                              int uses_turn)
{
    double approach = -(disp[0] * n[0] + disp[1] * n[1] + disp[2] * n[2]);
    if (!(approach > d)) return;
    double part = d / approach;
    for (int a = 0; a < 3; a++) disp[a] *= part;
    for (int a = 0; a < 3 && uses_turn; a++) turn[a] *= part;
}

/* touch_span of contact m of the chunk. */
static void first_touch_span(const sim *s, chunk_scratch *cs, size_t m)
{
    const int uses_turn = friction_uses_turn(&s->laws[cs->law[m]].friction);
    const double n[3] = {cs->nx[m], cs->ny[m], cs->nz[m]};
    double disp[3] = {cs->disp[0][m], cs->disp[1][m], cs->disp[2][m]};
    double turn[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < 3 && uses_turn; a++) turn[a] = cs->turn[a][m];
    touch_span(n, cs->d[m], disp, turn, uses_turn);
    for (int a = 0; a < 3; a++) cs->disp[a][m] = disp[a];
    for (int a = 0; a < 3 && uses_turn; a++) cs->turn[a][m] = turn[a];
}

/* A pair apart holds zero force and torque (what the sums read): set when the list was
 * built (a cross pair's when it was indexed, contact_list_index_cross), and here the
 * step a touching pair k separates, so pairs that stay apart (most candidates) need no
 * stores. Its recorded force too, where the list records them. */
static void pair_separates(contact_list *c, size_t k)
{
    contact_clear_history(c, k);
    if (c->force[0]) c->force[0][k] = c->force[1][k] = c->force[2][k] = 0.0;
    for (int a = 0; a < 3 && c->torque[0]; a++) c->torque[a][k] = 0.0;
    if (!c->is_wall && c->cross_slot[k] != CONTACT_SAME_BLOCK) {
        uint32_t q = c->cross_slot[k];
        for (int a = 0; a < 3; a++) c->cross_force[a][q] = 0.0;
        for (int a = 0; a < 3 && c->cross_torque[0]; a++) c->cross_torque[a][q] = 0.0;
    }
}

/* A touching pair of law `law` at overlap d <= 0, which the geometry finds apart: still
 * in contact where the law's adhesion reaches past touching (models/adhesion_law.h).
 * Looked at only where a touching pair opens, in runs with such a law (sim.has_reach). */
static int holds_past_touching(const sim *s, int law, double d, double r_eff)
{
    const law_instance *li = &s->laws[law];
    return li->adhesion.law && d > law_reach(li, r_eff);
}

/* An ending or ended pair k (contact_list.touching) that still overlaps: while it opens
 * it holds no force and stays ended (returns 1: not touching this step); closing again,
 * it is apart, for its caller to start it afresh as a first touch (returns 0). */
static int ended_pair(contact_list *c, size_t k, int opening)
{
    if (!opening) {
        c->touching[k] = CONTACT_APART;
        return 0;
    }
    pair_separates(c, k);
    c->touching[k] = CONTACT_ENDED;
    return 1;
}

/* Geometry of the touching wall pairs in list[start, end); separated pairs lose their
 * history here. */
__attribute__((unused)) /* the fused passes include this file without it */
static void wall_pair_geometry(const sim *s, contact_list *c, size_t start, size_t end,
                               chunk_scratch *cs)
{
    const particle_store *p = &s->p;
    const uint32_t *restrict list_i = c->i, *restrict list_j = c->j;
    double *restrict overlap = c->overlap;
    /* an STL wall's contacts with one particle, shared by its consecutive entries */
    uint32_t mesh_i = UINT32_MAX, mesh_w = UINT32_MAX;
    int mesh_n = 0;
    wall_contact mesh_c[WALL_MAX_SLOTS];
    double worst = 0.0;
    cs->n = cs->n_first = cs->n_ending = 0;
    cs->one_law = -1;
    for (size_t k = start; k < end; k++) {
        uint32_t i = list_i[k], j = list_j[k];
        double nx, ny, nz, d, rate, r_eff, m_eff;
        int law;
        const wall_spec *w = &s->walls.walls[j];
        double centre[3] = {p->x[i], p->y[i], p->z[i]}, n[3], dist;
        if (w->kind == WALL_STL) { /* entry slot takes the slot-th closest contact */
            if (mesh_i != i || mesh_w != j) {
                mesh_n = walls_mesh_contacts(&s->walls, j, centre, p->radius[i], mesh_c,
                                             WALL_MAX_SLOTS);
                mesh_i = i;
                mesh_w = j;
            }
            size_t slot = c->owner_j[k] / s->walls.n;
            if ((int)slot >= mesh_n) {
                overlap[k] = -p->radius[i];
                goto apart;
            }
            dist = mesh_c[slot].distance;
            for (int a = 0; a < 3; a++) n[a] = mesh_c[slot].n[a];
        } else {
            dist = walls_distance(&s->walls, j, centre, n);
        }
        d = p->radius[i] - dist;
        overlap[k] = d;
        law = p->type[i] * s->n_materials + w->material;
        if (d <= 0.0 && !(c->touching[k] == CONTACT_TOUCHING && s->has_reach &&
                          holds_past_touching(s, law, d, p->radius[i])))
            goto apart;
        nx = n[0]; ny = n[1]; nz = n[2];
        rate = p->vx[i] * nx + p->vy[i] * ny + p->vz[i] * nz;
        if (s->walls.state[j].moves) { /* minus the wall's velocity at the contact point */
            double arm = p->radius[i] - 0.5 * d, vw[3];
            double x[3] = {centre[0] + arm * nx, centre[1] + arm * ny, centre[2] + arm * nz};
            walls_point_velocity(&s->walls, j, x, vw);
            rate -= vw[0] * nx + vw[1] * ny + vw[2] * nz;
        }
        r_eff = p->radius[i];
        m_eff = p->mass[i];
        if ((c->touching[k] & CONTACT_ENDED) && ended_pair(c, k, rate < 0.0)) continue;
        int fresh = !c->touching[k];
        if (fresh) { /* first touch: the history starts now */
            contact_clear_history(c, k);
            c->touching[k] = 1;
            if (c->impact_velocity) c->impact_velocity[k] = rate;
        }
        size_t m = cs->n++;
        if (fresh) cs->first_touch[cs->n_first++] = (uint32_t)m;
        if (rate < 0.0 && -rate * s->dt >= 0.5 * d) cs->ending[cs->n_ending++] = (uint32_t)m;
        if (m == 0) cs->one_law = law;
        else if (cs->one_law != law) cs->one_law = -1;
        cs->slot[m] = (uint32_t)k;
        cs->law[m] = law;
        cs->d[m] = d; cs->rate[m] = rate;
        if (c->impact_velocity) cs->v0[m] = c->impact_velocity[k]; /* else no law reads it */
        cs->r_eff[m] = r_eff; cs->m_eff[m] = m_eff;
        cs->nx[m] = nx; cs->ny[m] = ny; cs->nz[m] = nz;
        worst = d > worst ? d : worst;
        if (c->has_friction) { /* else no pair has friction, and the arms go unread */
            const friction_coeffs *fc = &s->laws[law].friction;
            if (fc->active) {
                contact_point_motion(s, cs, m, i, j, j, 1, friction_has_rolling_torque(fc),
                                     friction_uses_turn(fc));
                if (fresh) first_touch_span(s, cs, m);
            } else {
                cs->arm_i[m] = cs->arm_j[m] = 0.0; /* torques 0 x arm */
            }
        }
        continue;
    apart:
        if (c->touching[k]) pair_separates(c, k);
    }
    cs->worst = worst;
}

/* The touching particle pairs of list[start, end) (at most CHUNK), picked out in list
 * order into cs->slot, with each one's law; separated pairs lose their history here.
 * Geometry in three passes, so that the first and the last run without a branch (about
 * 30% of the candidates are apart, in no pattern, and mispredicting them cost more than
 * the arithmetic): every candidate's separation and the touching ones picked out (and
 * the pairs that start or stop touching handled) here; the touching ones' normals,
 * rates and effective radius and mass in particle_pair_touching (or a fused pass:
 * fused_pass.c). Each pair sees the same operations as in contact_overlap: the same bits.
 * Inlined into the force loop on purpose (GCC stops doing it by itself as the loop's
 * variants multiply): out of line the loop and it run 1.5% more instructions
 * (callgrind, a frictional bed of 5,000 spheres). */
static inline __attribute__((always_inline)) void
particle_pair_select(const sim *s, contact_list *c, size_t start, size_t end, chunk_scratch *cs)
{
    const particle_store *p = &s->p;
    /* restrict locals: the stores below (scratch) cannot move the particles, so the
     * compiler keeps these pointers in registers */
    const double *restrict x = p->x, *restrict y = p->y, *restrict z = p->z;
    const double *restrict vx = p->vx, *restrict vy = p->vy, *restrict vz = p->vz;
    const double *restrict radius = p->radius;
    const int32_t *restrict type = p->type;
    const uint32_t *restrict list_i = c->i + start, *restrict list_j = c->j + start;
    const uint8_t *restrict was_touching = c->touching + start;
    double *restrict sep_x = cs->sep[0], *restrict sep_y = cs->sep[1],
                     *restrict sep_z = cs->sep[2], *restrict dist = cs->dist,
                     *restrict overlap = cs->overlap;
    uint8_t *restrict touches = cs->touches;
    const size_t n_candidates = end - start;
    const int n_materials = s->n_materials;

    /* 1. every candidate: separation, distance, overlap; touching unless the squared
     * distance reaches the radii's sum squared or the overlap is not positive (written
     * as negations so that a NaN touches, as in contact_overlap) */
    for (size_t q = 0; q < n_candidates; q++) {
        double sep[3], sum_r;
        double dist2 = contact_separation(x, y, z, radius, list_i[q], list_j[q], sep, &sum_r);
        double r = sqrt(dist2), d = sum_r - r;
        sep_x[q] = sep[0]; sep_y[q] = sep[1]; sep_z[q] = sep[2];
        dist[q] = r;
        overlap[q] = d;
        touches[q] = !(dist2 >= sum_r * sum_r) & !(d <= 0.0);
    }

    /* 2. the touching ones, in list order; the first touch starts a pair's history, a
     * pair that stops touching loses it */
    uint32_t *restrict slot = cs->slot;
    size_t n = 0, n_first = 0;
    for (size_t q = 0; q < n_candidates; q++) {
        int t = touches[q];
        slot[n] = (uint32_t)(start + q);
        if (t != was_touching[q]) {
            /* opening: the rate the pass below finds is negative, (v_j - v_i) . sep > 0 */
            uint32_t i = list_i[q], j = list_j[q];
            double dv_sep = (vx[j] - vx[i]) * sep_x[q] + (vy[j] - vy[i]) * sep_y[q] +
                            (vz[j] - vz[i]) * sep_z[q];
            if (t && (was_touching[q] & CONTACT_ENDED) && ended_pair(c, start + q, dv_sep > 0.0)) {
                t = 0;
            } else if (t) { /* a first touch, or an ended pair closing again */
                contact_clear_history(c, start + q);
                c->touching[start + q] = CONTACT_TOUCHING;
                cs->first_touch[n_first++] = (uint32_t)n;
            } else if (was_touching[q] == CONTACT_TOUCHING && s->has_reach &&
                       holds_past_touching(s, type[i] * n_materials + type[j], overlap[q],
                                           radius[i] * radius[j] / (radius[i] + radius[j]))) {
                t = 1; /* its adhesion holds it past touching */
            } else {
                pair_separates(c, start + q);
            }
        }
        n += (size_t)t;
    }
    cs->n = n;
    cs->n_first = n_first;

    /* each pair's law (by the two materials): with one material, the only law, which
     * particle_pair_touching writes down (a fused pass needs only one_law) */
    int *restrict law = cs->law;
    if (n_materials == 1) {
        cs->one_law = n > 0 ? 0 : -1;
    } else {
        for (size_t m = 0; m < n; m++) {
            uint32_t q = slot[m] - (uint32_t)start;
            law[m] = type[list_i[q]] * n_materials + type[list_j[q]];
        }
        cs->one_law = n > 0 ? law[0] : -1;
        for (size_t m = 1; m < n && cs->one_law >= 0; m++)
            if (law[m] != cs->one_law) cs->one_law = -1;
    }
}

/* The geometry of the touching pairs particle_pair_select picked out of list[start, ...):
 * their normals, rates, effective radius and mass, impact velocities and, with
 * friction, the contact points' motion. */
static inline __attribute__((always_inline)) void
particle_pair_touching(const sim *s, contact_list *c, size_t start, chunk_scratch *cs)
{
    const particle_store *p = &s->p;
    const double *restrict vx = p->vx, *restrict vy = p->vy, *restrict vz = p->vz;
    const double *restrict radius = p->radius, *restrict mass = p->mass;
    const uint32_t *restrict list_i = c->i + start, *restrict list_j = c->j + start;
    const double *restrict sep_x = cs->sep[0], *restrict sep_y = cs->sep[1],
                           *restrict sep_z = cs->sep[2], *restrict dist = cs->dist,
                           *restrict overlap = cs->overlap;
    const uint32_t *restrict slot = cs->slot;
    const size_t n = cs->n, n_first = cs->n_first;
    int *restrict law = cs->law;
    if (s->n_materials == 1)
        for (size_t m = 0; m < n; m++) law[m] = 0;

    /* 3. the touching ones' geometry */
    double *restrict nx = cs->nx, *restrict ny = cs->ny, *restrict nz = cs->nz,
                     *restrict d_out = cs->d, *restrict rate = cs->rate,
                     *restrict r_eff = cs->r_eff, *restrict m_eff = cs->m_eff;
    uint32_t *restrict ending = cs->ending;
    const double dt = s->dt;
    size_t n_ending = 0;
    double worst = 0.0;
    for (size_t m = 0; m < n; m++) {
        uint32_t q = slot[m] - (uint32_t)start, i = list_i[q], j = list_j[q];
        double inv = 1.0 / dist[q], sum_r = radius[i] + radius[j];
        double ex = sep_x[q] * inv, ey = sep_y[q] * inv, ez = sep_z[q] * inv;
        nx[m] = ex; ny[m] = ey; nz[m] = ez;
        rate[m] = -((vx[j] - vx[i]) * ex + (vy[j] - vy[i]) * ey + (vz[j] - vz[i]) * ez);
        /* R* = r_i r_j / (r_i + r_j) and m* likewise, with one division for both */
        double sum_m = mass[i] + mass[j], inv_both = 1.0 / (sum_r * sum_m);
        r_eff[m] = radius[i] * radius[j] * sum_m * inv_both;
        m_eff[m] = mass[i] * mass[j] * sum_r * inv_both;
        double d = overlap[q];
        d_out[m] = d;
        worst = d > worst ? d : worst;
        ending[n_ending] = (uint32_t)m; /* kept if it may separate (no branch) */
        n_ending += (size_t)((rate[m] < 0.0) & (-rate[m] * dt >= 0.5 * d));
    }
    cs->worst = worst;
    cs->n_ending = n_ending;

    if (c->impact_velocity) { /* else no law reads it */
        for (size_t f = 0; f < n_first; f++) {
            size_t m = cs->first_touch[f];
            c->impact_velocity[slot[m]] = rate[m];
        }
        for (size_t m = 0; m < n; m++) cs->v0[m] = c->impact_velocity[slot[m]];
    }
    if (!c->has_friction) return; /* no pair has friction, and the arms go unread */
    particle_point_motion(s, c, cs);
    for (size_t f = 0; f < n_first; f++) {
        size_t m = cs->first_touch[f];
        if (s->laws[law[m]].friction.active) first_touch_span(s, cs, m);
    }
}

#endif
