/* The step loop: velocity Verlet, with the neighbour list rebuilt only when a particle
 * has moved more than half the skin.
 *
 * Determinism, without locks or atomics: each contact's force is computed once. The
 * particles are split into blocks of CONTACT_BLOCK (a fixed size, not one per thread);
 * the blocks run in parallel, and a block adds each pair's force and torque to both
 * particles when both are its own, and otherwise to i, leaving the j side on the pair
 * for a later pass (engine/contacts.h, cross pairs). So every particle's forces are
 * summed in an order fixed by the list and the blocks, never by the threads: 1 and N
 * threads give bit-identical results. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill.h"
#include "friction.h"
#include "ghosts.h"
#include "observables.h"
#include "pair_restitution.h"
#include "pair_table.h"
#include "reorder.h"
#include "runaway.h"
#include "timestep.h"

#define CHUNK 256
/* Below s->parallel_min items a loop runs on one thread: opening a parallel region
 * costs more than the work (and spinning threads starve other processes). The
 * environment variable DEMPACT_PARALLEL_MIN overrides the default, so that tests can
 * run small systems on several threads. */
#define PARALLEL_MIN_DEFAULT 4096

static int force_loop_reserve_work(sim *s);

/* ---- neighbour rebuild ------------------------------------------------------------ */

/* The candidates of local particle i, in a fixed order: writes the first `room` of them
 * to out_j and returns how many there are. Reads the grid's packed copies
 * (neighbour_grid_pack). */
static size_t particle_candidates(const sim *s, uint32_t i, uint32_t *out_j, size_t room)
{
    const neighbour_grid *g = &s->grid;
    const neighbour_item *restrict item = g->packed;
    const uint32_t *restrict owner = g->owner;
    const double xi = s->p.x[i], yi = s->p.y[i], zi = s->p.z[i], ri = s->p.radius[i];
    size_t begin[NEIGHBOUR_ROWS_MAX], end[NEIGHBOUR_ROWS_MAX], count = 0;
    const uint32_t *restrict items = g->items;
    const double skin = s->skin;
    size_t rows = neighbour_rows_around(g, i, begin, end);
    /* Without a branch on the outcome (about half the cells' particles are passed over as
     * lower-indexed, most of the rest as too far, in no pattern): every item is written
     * at the next slot, and the count moves on only for a candidate. */
    for (size_t r = 0; r < rows; r++)
        for (size_t k = begin[r]; k < end[r]; k++) {
            double dx = item[k].x - xi, dy = item[k].y - yi, dz = item[k].z - zi;
            double reach = ri + item[k].r + skin;
            /* each physical pair once: from its lower-indexed particle */
            int keep = (owner[k] > i) & !(dx * dx + dy * dy + dz * dz >= reach * reach);
            if (count < room) out_j[count] = items[k];
            count += (size_t)keep;
        }
    return count;
}

/* Every wall within radius + skin of particle i, where the walls are now (moving walls
 * force rebuilds often enough for this to hold until the next one: walls.c). An STL
 * wall gets one entry per contact the particle may have with it (walls_slots); the
 * entries' history keys tell them apart (walls_pair_key in build_list). */
static size_t wall_candidates(const sim *s, uint32_t i, uint32_t *out_w, size_t room)
{
    const particle_store *p = &s->p;
    double c[3] = {p->x[i], p->y[i], p->z[i]};
    size_t count = 0;
    for (size_t w = 0; w < s->walls.n; w++) {
        size_t slots = walls_slots(&s->walls, w, c, p->radius[i] + s->skin);
        for (size_t q = 0; q < slots; q++) {
            if (count < room) out_w[count] = (uint32_t)w;
            count++;
        }
    }
    return count;
}

typedef size_t (*candidate_fn)(const sim *, uint32_t, uint32_t *, size_t);

/* A rebuild that cannot be done for a reason other than memory (sim.fault says which). */
#define REBUILD_REFUSED (-2)

/* Particles per segment of a list build: each segment's candidates are found once, into
 * a buffer of its own, and copied into the list once the counts are known. */
#define BUILD_SEGMENT 4096

/* The candidates of particles [lo, hi) into a new buffer (NULL: out of memory), each
 * particle's count into first[i + 1]; `per`: candidates per particle to expect. */
static uint32_t *find_segment(const sim *s, candidate_fn find, size_t lo, size_t hi, double per,
                              uint32_t *first)
{
    size_t used = 0, room = (size_t)(per * (double)(hi - lo)) + 64;
    uint32_t *buf = malloc(room * sizeof *buf);
    for (size_t i = lo; i < hi && buf; i++) {
        size_t got = find(s, (uint32_t)i, buf + used, room - used);
        if (got > room - used) { /* did not fit: grow, and find them again */
            room = 2 * (used + got);
            uint32_t *more = realloc(buf, room * sizeof *buf);
            if (!more) {
                free(buf);
                return NULL;
            }
            buf = more;
            find(s, (uint32_t)i, buf + used, room - used);
        }
        first[i + 1] = (uint32_t)got;
        used += got;
    }
    return buf;
}

/* Fills list with the candidates of every local particle, taking their history from
 * `old` (the carrier of the list's touching pairs); `from`: how the particles were
 * renumbered since old was made (sort_particles), or NULL. The neighbour search runs
 * once per particle (it used to run twice: count, then fill). */
static int build_list(sim *s, contact_list *list, contact_list *old, candidate_fn find,
                      int is_wall, const size_t *from)
{
    size_t n = s->p.n_local, n_seg = (n + BUILD_SEGMENT - 1) / BUILD_SEGMENT;
    /* the last list's density, with room to spare (a buffer that fills up grows) */
    double per = s->search_room >= 0.0 ? s->search_room
                 : list->n_first ? 1.25 * (double)list->n / (double)list->n_first + 1.0 : 8.0;
    uint32_t *first = realloc(list->first_of_i, (n + 1) * sizeof *first);
    if (!first) return -1;
    list->first_of_i = first;
    first[0] = 0;
    uint32_t **found = calloc(n_seg ? n_seg : 1, sizeof *found);
    if (!found) return -1;
    int failed = 0;
    #pragma omp parallel for schedule(dynamic, 1) reduction(| : failed) if (n > s->parallel_min)
    for (size_t g = 0; g < n_seg; g++) {
        size_t lo = g * BUILD_SEGMENT, hi = lo + BUILD_SEGMENT < n ? lo + BUILD_SEGMENT : n;
        found[g] = find_segment(s, find, lo, hi, per, first);
        failed |= found[g] == NULL;
    }
    size_t total = 0;
    int too_many = 0;
    for (size_t i = 0; i < n && !failed && !too_many; i++) {
        total += first[i + 1];
        too_many = total > CONTACT_MAX_PAIRS; /* beyond 32-bit list indices */
        first[i + 1] = (uint32_t)total;
    }
    if (failed || too_many || contact_list_reserve(list, total + total / 8) != 0) {
        for (size_t g = 0; g < n_seg; g++) free(found[g]);
        free(found);
        return too_many && !failed ? REBUILD_REFUSED : -1;
    }
    list->n = total;
    list->n_first = n;
    #pragma omp parallel for schedule(dynamic, 1) if (n > s->parallel_min)
    for (size_t g = 0; g < n_seg; g++) {
        size_t lo = g * BUILD_SEGMENT, hi = lo + BUILD_SEGMENT < n ? lo + BUILD_SEGMENT : n;
        memcpy(list->j + first[lo], found[g], (first[hi] - first[lo]) * sizeof *list->j);
        free(found[g]);
        for (size_t i = lo; i < hi; i++)
            for (size_t k = first[i]; k < first[i + 1]; k++) {
                list->i[k] = (uint32_t)i;
                list->owner_j[k] = is_wall ? walls_pair_key(list->j, first[i], k, s->walls.n)
                                           : (uint32_t)particles_owner(&s->p, list->j[k]);
                if (is_wall) list->overlap[k] = 0.0;
                for (int a = 0; a < 3; a++) list->force[a][k] = 0.0;
                for (int a = 0; a < 3 && list->torque[0]; a++) list->torque[a][k] = 0.0;
            }
    }
    free(found);
    contact_list_adopt_history(list, old, n > s->parallel_min, from);
    return 0;
}

/* Rebuilds `list` in place with the current candidates: the history of its touching
 * pairs waits in `carry` meanwhile. The list's arrays are reused (no churn), and no
 * second whole list is kept for the history: a carrier takes about a quarter of that. */
static int refresh_list(sim *s, contact_list *list, contact_list *carry, candidate_fn find,
                        int is_wall, const size_t *from)
{
    if (contact_list_keep_touching(carry, list) != 0) return -1;
    return build_list(s, list, carry, find, is_wall, from);
}

/* Sorts the local particles back into curve order if they have drifted out of it
 * (engine/reorder.h); before the ghosts are made. *from: the renumbering (particle i
 * was from[i]), or NULL if the order stays. Returns 0 or -1. */
static int sort_particles(sim *s, size_t **from)
{
    s->p.n_total = s->p.n_local; /* the ghosts are made again after this */
    int due = reorder_plan(&s->p, s->reorder_min, s->cfg.domain_min, s->cutoff,
                          s->p.n_local > s->parallel_min, from);
    if (due <= 0) return due;
    if (particles_permute(&s->p, *from) != 0) return -1;
    s->n_reorders++;
    return 0;
}

/* Returns 0, -1 (out of memory) or REBUILD_REFUSED (s->fault says why). */
static int list_rebuild(sim *s)
{
    ghosts_wrap(s);
    long far = runaway_find(s, &s->fault_axis);
    if (far >= 0) {
        s->fault = SIM_FAULT_RUNAWAY;
        s->fault_particle = far;
        return REBUILD_REFUSED;
    }
    size_t *from = NULL;
    int rc = -1;
    if (s->reorder && sort_particles(s, &from) != 0) goto done;
    if (ghosts_make(s) != 0) goto done;
    ghosts_update(s, &s->p);
    int grid = neighbour_grid_build(&s->grid, &s->p, s->cutoff);
    if (grid == NEIGHBOUR_BAD_SPREAD) {
        s->fault = SIM_FAULT_GRID;
        rc = REBUILD_REFUSED;
        goto done;
    }
    if (grid != 0 || neighbour_grid_pack(&s->grid, &s->p) != 0)
        goto done;
    int failed = refresh_list(s, &s->pairs, &s->carry, particle_candidates, 0, from);
    neighbour_grid_unpack(&s->grid);
    if (failed == REBUILD_REFUSED) {
        s->fault = SIM_FAULT_PAIRS;
        rc = REBUILD_REFUSED;
        goto done;
    }
    if (failed ||
        contact_list_index_cross(&s->pairs, s->p.n_local, s->block) != 0 ||
        refresh_list(s, &s->wall_pairs, &s->wall_carry, wall_candidates, 1, from) != 0 ||
        force_loop_reserve_work(s) != 0)
        goto done;

    double *xr = realloc(s->x_at_rebuild, 3 * (s->p.n_local + 1) * sizeof *xr);
    if (!xr) goto done;
    s->x_at_rebuild = xr;
    for (size_t i = 0; i < s->p.n_local; i++) {
        s->x_at_rebuild[3 * i] = s->p.x[i];
        s->x_at_rebuild[3 * i + 1] = s->p.y[i];
        s->x_at_rebuild[3 * i + 2] = s->p.z[i];
    }
    s->rebuild_wall_time = s->walls.time;
    s->n_rebuilds++;
    rc = 0;
done:
    free(from);
    return rc;
}

/* worst_d2: the largest squared displacement of a particle since the last rebuild (from
 * integrate_advance_positions). A rebuild is due when a sphere has moved half the skin, or a
 * moving wall will have moved far enough during this step. */
static int list_needs_rebuild(const sim *s, double worst_d2)
{
    /* moving walls: the step from s->time to s->time + dt (walls.c) */
    if (walls_need_rebuild(&s->walls, (double)s->step * s->dt, (double)(s->step + 1) * s->dt,
                           s->skin))
        return 1;
    return !(worst_d2 <= 0.25 * s->skin * s->skin);
}

/* ---- forces ----------------------------------------------------------------------- */

typedef struct chunk_scratch {
    size_t n;
    int one_law;           /* the law of every contact in the chunk, or -1: several */
    double worst;          /* the largest overlap (0 if none touches) */
    uint32_t slot[CHUNK];  /* contact index */
    int law[CHUNK];        /* index into s->laws */
    double d[CHUNK], rate[CHUNK], v0[CHUNK], r_eff[CHUNK], m_eff[CHUNK];
    double nx[CHUNK], ny[CHUNK], nz[CHUNK];
    /* for friction: lever arms (centre to contact point), velocity of j's contact point
     * relative to i's, w_i - w_j, and the reduced rolling inertia */
    double arm_i[CHUNK], arm_j[CHUNK], v_rel[3][CHUNK], w_rel[3][CHUNK], inertia_r[CHUNK];
    /* the springs' increments: the contact points' relative displacement and the
     * relative rotation during the step (contact_point_motion) */
    double disp[3][CHUNK], turn[3][CHUNK];
    /* particle pairs, by candidate: separation (j's centre minus i's), distance,
     * overlap, touching (a touching pair's candidate is its slot minus the chunk's
     * start); the pairs touching for the first time */
    double sep[3][CHUNK], dist[CHUNK], overlap[CHUNK];
    uint8_t touches[CHUNK];
    uint32_t first_touch[CHUNK];
    uint8_t fresh[CHUNK];  /* by chunk slot: the pair touched for the first time */
} chunk_scratch;

typedef struct batch_scratch {
    double d[CHUNK], rate[CHUNK], v0[CHUNK], r_eff[CHUNK], m_eff[CHUNK], f[CHUNK];
    double h[LAW_MAX_HISTORY][CHUNK];
    uint32_t from[CHUNK];
    /* friction: the normal force that caps it, the springs, the results, and (for a
     * chunk of several laws) the gathered normals and relative velocities */
    double f_normal[CHUNK], f_t[3][CHUNK], m_r[3][CHUNK], power[2][CHUNK];
    double normal[3][CHUNK], v_rel[3][CHUNK], w_rel[3][CHUNK], disp[3][CHUNK];
    uint32_t slot[CHUNK];
    /* each contact's force on i and torques on i and j, by chunk slot (deliver_forces) */
    double force[3][CHUNK], torque_i[3][CHUNK], torque_j[3][CHUNK];
} batch_scratch;

/* For friction: the contact point lies on the line of centres, arm = R - d/2 from each
 * centre; a wall's point there moves with the wall (walls_point_velocity) and turns
 * with the wall's angular velocity. Fills the kinematics of contact m of the chunk: the
 * predicted end-of-step velocities for the dashpots, and for the springs the relative
 * displacement of the contact points during the step (friction.h): the mid-step
 * velocities v(n+1/2) (particles.h vh, wh: what drifted the centres) with the arms at
 * mid-step, R - d(n+1/2)/2 = arm + dt rate / 4, times s->spring_span. A ghost's
 * mid-step velocities are its owner's (owner_j). */
static inline __attribute__((always_inline)) void
contact_point_motion(const sim *s, chunk_scratch *cs, size_t m, uint32_t i, uint32_t j,
                     uint32_t owner_j, int is_wall, int rolling_spring)
{
    const particle_store *p = &s->p;
    double n[3] = {cs->nx[m], cs->ny[m], cs->nz[m]}, half = 0.5 * cs->d[m];
    const double span = s->spring_span, later = 0.25 * s->dt * cs->rate[m];
    double arm_i = p->radius[i] - half, arm_j = 0.0, mid_i = arm_i + later;
    double wi[3] = {p->wx[i], p->wy[i], p->wz[i]}, wi_h[3] = {p->whx[i], p->why[i], p->whz[i]};
    double wj[3] = {0.0, 0.0, 0.0}, wj_h[3] = {0.0, 0.0, 0.0};
    /* the relative velocity of j's contact point past i's, predicted (v) and mid-step (h) */
    double v[3], h[3];
    /* the reduced rolling inertia: only the rolling spring's dashpot needs it */
    double inertia_i = rolling_spring ? 1.0 / p->inv_inertia[i] + p->mass[i] * arm_i * arm_i : 0.0;
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
        if (rolling_spring) {
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
    cs->arm_i[m] = arm_i;
    cs->arm_j[m] = arm_j;
    cs->inertia_r[m] = inertia_r;
    for (int a = 0; a < 3; a++) {
        cs->v_rel[a][m] = v[a];
        cs->w_rel[a][m] = wi[a] - wj[a];
        cs->disp[a][m] = h[a] * span;
    }
    if (rolling_spring) /* only the rolling spring reads it */
        for (int a = 0; a < 3; a++) cs->turn[a][m] = (wi_h[a] - wj_h[a]) * span;
}

/* A contact that started during the step has existed only for the part of it that
 * brought the overlap from 0 to d: its springs grow by that part of the step's
 * relative motion (the overlap over the step's approach along n). */
static void first_touch_span(const sim *s, chunk_scratch *cs, size_t m)
{
    const int rolling_spring = s->laws[cs->law[m]].friction.rolling_model == ROLLING_SPRING;
    double approach = -(cs->disp[0][m] * cs->nx[m] + cs->disp[1][m] * cs->ny[m] +
                        cs->disp[2][m] * cs->nz[m]);
    if (!(approach > cs->d[m])) return;
    double part = cs->d[m] / approach;
    for (int a = 0; a < 3; a++) cs->disp[a][m] *= part;
    for (int a = 0; a < 3 && rolling_spring; a++) cs->turn[a][m] *= part;
}

/* A pair apart holds zero force and torque (what the sums read): set when the list was
 * built, and here the step a touching pair k separates, so pairs that stay apart (most
 * candidates) need no stores. */
static void pair_separates(contact_list *c, size_t k)
{
    contact_clear_history(c, k);
    c->force[0][k] = c->force[1][k] = c->force[2][k] = 0.0;
    for (int a = 0; a < 3 && c->torque[0]; a++) c->torque[a][k] = 0.0;
    if (!c->is_wall && c->cross_slot[k] != CONTACT_SAME_BLOCK)
        for (int a = 0; a < 3 && c->cross_torque[0]; a++)
            c->cross_torque[a][c->cross_slot[k]] = 0.0;
}

/* Geometry of the touching wall pairs in list[start, end); separated pairs lose their
 * history here. */
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
    cs->n = 0;
    cs->one_law = -1;
    memset(cs->fresh, 0, end - start);
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
        if (d <= 0.0) goto apart;
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
        law = p->type[i] * s->n_materials + w->material;
        int fresh = !c->touching[k];
        if (fresh) { /* first touch: the history starts now */
            contact_clear_history(c, k);
            c->touching[k] = 1;
            if (c->impact_velocity) c->impact_velocity[k] = rate;
        }
        size_t m = cs->n++;
        cs->fresh[m] = (uint8_t)fresh;
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
                contact_point_motion(s, cs, m, i, j, j, 1, fc->rolling_model == ROLLING_SPRING);
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

/* Geometry of the touching particle pairs in list[start, end) (at most CHUNK); separated
 * pairs lose their history here. Three passes, so that the first and the last run
 * without a branch (about 30% of the candidates are apart, in no pattern, and
 * mispredicting them cost more than the arithmetic): every candidate's separation; the
 * touching ones picked out, in list order (and the pairs that start or stop touching
 * handled); the touching ones' normals, rates and effective radius and mass. Each pair
 * sees the same operations as in contact_overlap: the same bits. */
static void particle_pair_geometry(const sim *s, contact_list *c, size_t start, size_t end,
                                   chunk_scratch *cs)
{
    const particle_store *p = &s->p;
    /* restrict locals: the stores below (scratch) cannot move the particles, so the
     * compiler keeps these pointers in registers */
    const double *restrict x = p->x, *restrict y = p->y, *restrict z = p->z;
    const double *restrict vx = p->vx, *restrict vy = p->vy, *restrict vz = p->vz;
    const double *restrict radius = p->radius, *restrict mass = p->mass;
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
            if (t) {
                contact_clear_history(c, start + q);
                c->touching[start + q] = 1;
                cs->first_touch[n_first++] = (uint32_t)n;
            } else {
                pair_separates(c, start + q);
            }
        }
        n += (size_t)t;
    }
    cs->n = n;
    memset(cs->fresh, 0, n);
    for (size_t f = 0; f < n_first; f++) cs->fresh[cs->first_touch[f]] = 1;

    /* 3. the touching ones' geometry */
    double *restrict nx = cs->nx, *restrict ny = cs->ny, *restrict nz = cs->nz,
                     *restrict d_out = cs->d, *restrict rate = cs->rate,
                     *restrict r_eff = cs->r_eff, *restrict m_eff = cs->m_eff;
    int *restrict law = cs->law;
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
    }
    cs->worst = worst;
    /* each pair's law (by the two materials): with one material, the only law */
    if (n_materials == 1) {
        for (size_t m = 0; m < n; m++) law[m] = 0;
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

    if (c->impact_velocity) { /* else no law reads it */
        for (size_t f = 0; f < n_first; f++) {
            size_t m = cs->first_touch[f];
            c->impact_velocity[slot[m]] = rate[m];
        }
        for (size_t m = 0; m < n; m++) cs->v0[m] = c->impact_velocity[slot[m]];
    }
    if (!c->has_friction) return; /* no pair has friction, and the arms go unread */
    for (size_t m = 0; m < n; m++) {
        const friction_coeffs *fc = &s->laws[law[m]].friction;
        if (fc->active)
            contact_point_motion(s, cs, m, c->i[slot[m]], c->j[slot[m]], c->owner_j[slot[m]],
                                 0, fc->rolling_model == ROLLING_SPRING);
        else
            cs->arm_i[m] = cs->arm_j[m] = 0.0; /* torques 0 x arm */
    }
    for (size_t f = 0; f < n_first; f++)
        if (s->laws[law[cs->first_touch[f]]].friction.active) first_touch_span(s, cs, cs->first_touch[f]);
}

/* apply_friction for the Mindlin-Deresiewicz model, which also keeps the pair's slip
 * state. Out of line: inlined, it cost the other models 4 % more instructions in
 * force_loop_run (callgrind, bench of 20000 spheres); out of line, 1 %. */
__attribute__((noinline))
static void apply_microslip(const friction_coeffs *fc, contact_list *c, contact_kinematics *kin,
                            size_t k, double f_t[3], double m_r[3], double power[2])
{
    double xi[3], theta[3] = {0.0, 0.0, 0.0}, slip[CONTACT_SLIP_HISTORY];
    for (int a = 0; a < 3; a++) {
        xi[a] = c->tangential[a][k];
        if (c->rolling[0]) theta[a] = c->rolling[a][k];
    }
    for (int h = 0; h < CONTACT_SLIP_HISTORY; h++) slip[h] = c->slip[h][k];
    friction_force(fc, kin, xi, theta, slip, f_t, m_r, power);
    for (int a = 0; a < 3; a++) {
        c->tangential[a][k] = xi[a];
        if (c->rolling[0]) c->rolling[a][k] = theta[a];
    }
    for (int h = 0; h < CONTACT_SLIP_HISTORY; h++) c->slip[h][k] = slip[h];
}

/* Tangential force and rolling torque on i of contact k (slot m of the chunk), from
 * its normal force, for the models friction_force_batch cannot take (the
 * Mindlin-Deresiewicz model and the rolling spring); updates the contact's springs. */
static void apply_friction(const sim *s, contact_list *c, const chunk_scratch *cs, size_t m,
                           size_t k, double f_normal, double f_t[3], double m_r[3],
                           double power[2])
{
    contact_kinematics kin = {.n = {cs->nx[m], cs->ny[m], cs->nz[m]}, .d = cs->d[m],
                              .r_eff = cs->r_eff[m], .m_eff = cs->m_eff[m],
                              .inertia_r = cs->inertia_r[m], .f_normal = f_normal};
    double xi[3], theta[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < 3; a++) {
        kin.v_rel[a] = cs->v_rel[a][m];
        kin.w_rel[a] = cs->w_rel[a][m];
        kin.disp[a] = cs->disp[a][m];
        kin.turn[a] = cs->turn[a][m];
    }
    const friction_coeffs *fc = &s->laws[cs->law[m]].friction;
    if (fc->tangential_model == TANGENTIAL_MINDLIN_DERESIEWICZ) {
        apply_microslip(fc, c, &kin, k, f_t, m_r, power);
        return;
    }
    for (int a = 0; a < 3; a++) {
        xi[a] = c->tangential[a][k];
        if (c->rolling[0]) theta[a] = c->rolling[a][k];
    }
    friction_force(fc, &kin, xi, theta, NULL, f_t, m_r, power);
    for (int a = 0; a < 3; a++) {
        c->tangential[a][k] = xi[a];
        if (c->rolling[0]) c->rolling[a][k] = theta[a];
    }
}

/* Friction of the n contacts of one law in bs (chunk slots bs->from[], normal forces
 * bs->f_normal[]) into bs->f_t, m_r and power; updates the contacts' springs in the
 * list. `whole`: the batch is the whole chunk in order (bs->from[q] == q), so the
 * chunk's own arrays serve and nothing is gathered. */
static void batch_friction(const sim *s, contact_list *c, const chunk_scratch *cs,
                           batch_scratch *bs, const friction_coeffs *fc, size_t n, int whole)
{
    if (!friction_batchable(fc)) {
        for (size_t q = 0; q < n; q++) {
            double f_t[3], m_r[3], power[2];
            apply_friction(s, c, cs, bs->from[q], cs->slot[bs->from[q]], bs->f_normal[q],
                           f_t, m_r, power);
            for (int a = 0; a < 3; a++) {
                bs->f_t[a][q] = f_t[a];
                bs->m_r[a][q] = m_r[a];
            }
            bs->power[0][q] = power[0];
            bs->power[1][q] = power[1];
        }
        return;
    }
    friction_batch b = {.n = n, .f_normal = bs->f_normal, .slot = cs->slot};
    for (int a = 0; a < 3; a++) {
        b.xi[a] = c->tangential[a];
        b.f_t[a] = bs->f_t[a];
        b.m_r[a] = bs->m_r[a];
    }
    b.power[0] = bs->power[0];
    b.power[1] = bs->power[1];
    if (whole) {
        b.normal[0] = cs->nx; b.normal[1] = cs->ny; b.normal[2] = cs->nz;
        b.d = cs->d; b.r_eff = cs->r_eff; b.m_eff = cs->m_eff;
        for (int a = 0; a < 3; a++) {
            b.v_rel[a] = cs->v_rel[a];
            b.w_rel[a] = cs->w_rel[a];
            b.disp[a] = cs->disp[a];
        }
    } else { /* the law's d, r_eff, m_eff are gathered already (chunk_forces) */
        const double *chunk_normal[3] = {cs->nx, cs->ny, cs->nz};
        for (int a = 0; a < 3; a++)
            for (size_t q = 0; q < n; q++) {
                size_t m = bs->from[q];
                bs->normal[a][q] = chunk_normal[a][m];
                bs->v_rel[a][q] = cs->v_rel[a][m];
                bs->w_rel[a][q] = cs->w_rel[a][m];
                bs->disp[a][q] = cs->disp[a][m];
            }
        for (int a = 0; a < 3; a++) {
            b.normal[a] = bs->normal[a];
            b.v_rel[a] = bs->v_rel[a];
            b.w_rel[a] = bs->w_rel[a];
            b.disp[a] = bs->disp[a];
        }
        b.d = bs->d; b.r_eff = bs->r_eff; b.m_eff = bs->m_eff;
        for (size_t q = 0; q < n; q++) bs->slot[q] = cs->slot[bs->from[q]];
        b.slot = bs->slot;
    }
    friction_force_batch(fc, &b);
}

/* Where a chunk of particle pairs puts its forces: the force and torque sums of the
 * particles (local particles only). NULL for a wall list, whose forces and torques stay
 * on its pairs until integrate_add_stored_forces. */
typedef struct force_sums {
    double *f[3], *t[3];
} force_sums;

/* What a law's batch gives contact q (chunk slot m = bs->from[q]): the force on i and,
 * with `torques` (the list has friction), the torques on i and j about their centres;
 * writes back the law's history slots and adds the work done during this step to
 * work[]. `friction` (the law has it) and `rolling` (it has a rolling torque: bs->m_r
 * and power[1] are set) are constants at each call, as are the other flags below, so
 * each case compiles to its own loop. */
typedef struct result_context {
    int nh, work_kind; /* work_kind -1: a conservative law, no work booked */
    double dt, *work;
} result_context;

static inline __attribute__((always_inline)) void
contact_result(contact_list *c, const chunk_scratch *cs, const batch_scratch *bs,
               const result_context *rc, size_t q, size_t m, const int friction,
               const int rolling, const int torques, double f_i[3], double t_i[3],
               double t_j[3])
{
    double f = bs->f[q];
    double nrm[3] = {cs->nx[m], cs->ny[m], cs->nz[m]};
    double f_t[3] = {0.0, 0.0, 0.0}, m_r[3] = {0.0, 0.0, 0.0};
    if (rc->work_kind >= 0) rc->work[rc->work_kind] += f * cs->rate[m] * rc->dt;
    if (friction) {
        for (int a = 0; a < 3; a++) f_t[a] = bs->f_t[a][q];
        rc->work[SIM_WORK_TANGENTIAL] += bs->power[0][q] * rc->dt;
    }
    if (rolling) {
        for (int a = 0; a < 3; a++) m_r[a] = bs->m_r[a][q];
        rc->work[SIM_WORK_ROLLING] += bs->power[1][q] * rc->dt;
    }
    for (int a = 0; a < 3; a++) f_i[a] = -f * nrm[a] + f_t[a];
    for (int h = 0; h < rc->nh; h++) c->history[h][cs->slot[m]] = bs->h[h][q];
    if (!torques) return;
    /* torque of the tangential force about each centre, plus the rolling torque */
    double nxf[3] = {nrm[1] * f_t[2] - nrm[2] * f_t[1], nrm[2] * f_t[0] - nrm[0] * f_t[2],
                     nrm[0] * f_t[1] - nrm[1] * f_t[0]};
    for (int a = 0; a < 3; a++) {
        t_i[a] = cs->arm_i[m] * nxf[a] + m_r[a];
        t_j[a] = cs->arm_j[m] * nxf[a] - m_r[a];
    }
}

/* contact_result for each of a law's n contacts, into bs->force, torque_i and torque_j
 * by chunk slot (deliver_forces puts them where they go). */
static inline __attribute__((always_inline)) void
contact_results(contact_list *c, const chunk_scratch *cs, batch_scratch *bs,
                const result_context *rc, size_t n, const int friction, const int rolling,
                const int torques)
{
    for (size_t q = 0; q < n; q++) {
        size_t m = bs->from[q];
        double f_i[3], t_i[3], t_j[3];
        contact_result(c, cs, bs, rc, q, m, friction, rolling, torques, f_i, t_i, t_j);
        for (int a = 0; a < 3; a++) bs->force[a][m] = f_i[a];
        if (!torques) continue;
        for (int a = 0; a < 3; a++) {
            bs->torque_i[a][m] = t_i[a];
            bs->torque_j[a][m] = t_j[a];
        }
    }
}

/* deliver_forces for a chunk of particle pairs: keeps each pair's force on the pair and
 * adds it, and the torques, to i and, within the block, to j; a cross pair's torque on
 * j stays on the pair.
 * `torques` is a constant at each call, so each case compiles to its own loop. */
static inline __attribute__((always_inline)) void
add_to_particles(contact_list *c, const chunk_scratch *cs, const batch_scratch *bs,
                 const force_sums *sums, const int torques, const result_context *rc,
                 const int fused, const int friction, const int rolling)
{
    const size_t n = cs->n;
    const uint32_t *restrict slot = cs->slot;
    const uint32_t *restrict first = c->i, *restrict owner = c->owner_j;
    const uint32_t *restrict cross = c->cross_slot;
    double *restrict fx = sums->f[0], *restrict fy = sums->f[1], *restrict fz = sums->f[2];
    double *restrict tx = sums->t[0], *restrict ty = sums->t[1], *restrict tz = sums->t[2];
    double *restrict ctx = c->cross_torque[0], *restrict cty = c->cross_torque[1],
                     *restrict ctz = c->cross_torque[2];
    double *restrict cfx = c->force[0], *restrict cfy = c->force[1], *restrict cfz = c->force[2];
    if (n == 0) return;
    /* A particle's pairs are consecutive in the list: its side is summed in registers
     * and added once. Its partners have higher indices (particle_candidates), so none
     * of them is the particle whose sums are held. */
    uint32_t held = first[slot[0]];
    double f_i[3] = {0.0, 0.0, 0.0}, t_i[3] = {0.0, 0.0, 0.0};
    for (size_t m = 0; m < n; m++) {
        uint32_t k = slot[m], i = first[k], o = owner[k], q = cross[k];
        if (i != held) {
            fx[held] += f_i[0]; fy[held] += f_i[1]; fz[held] += f_i[2];
            f_i[0] = f_i[1] = f_i[2] = 0.0;
            if (torques) {
                tx[held] += t_i[0]; ty[held] += t_i[1]; tz[held] += t_i[2];
                t_i[0] = t_i[1] = t_i[2] = 0.0;
            }
            held = i;
        }
        double f[3], ti[3], tj[3];
        if (fused) { /* the chunk is one law's batch, in order: contact q is slot m */
            contact_result(c, cs, bs, rc, m, m, friction, rolling, torques, f, ti, tj);
        } else {
            for (int a = 0; a < 3; a++) {
                f[a] = bs->force[a][m];
                if (torques) {
                    ti[a] = bs->torque_i[a][m];
                    tj[a] = bs->torque_j[a][m];
                }
            }
        }
        cfx[k] = f[0]; cfy[k] = f[1]; cfz[k] = f[2];
        f_i[0] += f[0]; f_i[1] += f[1]; f_i[2] += f[2];
        if (q == CONTACT_SAME_BLOCK) { fx[o] -= f[0]; fy[o] -= f[1]; fz[o] -= f[2]; }
        if (!torques) continue;
        t_i[0] += ti[0]; t_i[1] += ti[1]; t_i[2] += ti[2];
        if (q == CONTACT_SAME_BLOCK) {
            tx[o] += tj[0]; ty[o] += tj[1]; tz[o] += tj[2];
        } else {
            ctx[q] = tj[0]; cty[q] = tj[1]; ctz[q] = tj[2];
        }
    }
    fx[held] += f_i[0]; fy[held] += f_i[1]; fz[held] += f_i[2];
    if (torques) { tx[held] += t_i[0]; ty[held] += t_i[1]; tz[held] += t_i[2]; }
}

/* Puts the forces of a chunk's contacts (bs->force, torque_i, torque_j), in list
 * order, where they go: the force on i on the pair (output, wall loads, a cross pair's
 * j side); with `sums`, force and torque added to the particles (add_to_particles);
 * without (a wall list), the torque on i kept on the pair. */
static void deliver_forces(contact_list *c, const chunk_scratch *cs, const batch_scratch *bs,
                           const force_sums *sums)
{
    const int torques = c->has_friction;
    if (sums) {
        if (torques) add_to_particles(c, cs, bs, sums, 1, NULL, 0, 0, 0);
        else add_to_particles(c, cs, bs, sums, 0, NULL, 0, 0, 0);
        return;
    }
    const uint32_t *slot = cs->slot;
    for (int a = 0; a < 3; a++)
        for (size_t m = 0; m < cs->n; m++) {
            c->force[a][slot[m]] = bs->force[a][m];
            if (torques) c->torque[a][slot[m]] = bs->torque_i[a][m];
        }
}

/* contact_results and deliver_forces in one pass, for a chunk of particle pairs that is
 * one law's batch in chunk order (no staging of forces and torques by chunk slot). The
 * same operations in the same order: the same bits. */
static void deliver_one_law(contact_list *c, const chunk_scratch *cs, const batch_scratch *bs,
                            const force_sums *sums, const result_context *rc,
                            const int friction, const int rolling)
{
    if (!c->has_friction) add_to_particles(c, cs, bs, sums, 0, rc, 1, 0, 0);
    else if (!friction) add_to_particles(c, cs, bs, sums, 1, rc, 1, 0, 0);
    else if (!rolling) add_to_particles(c, cs, bs, sums, 1, rc, 1, 1, 0);
    else add_to_particles(c, cs, bs, sums, 1, rc, 1, 1, 1);
}

/* The ends of a contact, for the integrator. Velocity Verlet applies the force at step
 * n+1 as the impulse F dt around t(n+1) (half before, half after). A contact that began
 * a time tau < dt before t(n+1), or ends a time tau < dt after it, is in contact for only
 * part of that step and the next: its impulse there is F dt / 2 + the integral of F over
 * tau, not F dt. With a force that jumps at first touch (a dashpot eta d': linear,
 * hertz_lh) the difference is first order in dt and depends on where in the step the
 * touch falls: e = 0.1 came out 0.093 to 0.108 at t_c / 50; with one that rises as
 * d^(1/4) (hertz_tti, the Mindlin dashpot) it is of order dt^(5/4). So at the first
 * touch, and at the step before a separation due within dt, the force is replaced by
 * F / 2 + (1 / dt) int F dt over the part in contact (4-point Gauss-Legendre in time,
 * with the law itself and a copy of the contact's history, cohesion removal applied):
 * the impulse is then right to second order wherever the ends fall. Before the first
 * touch the pair flew freely, so the overlap is taken back along d + d' s; the
 * separation is found on d + d' s + a s^2 / 2, a = -F / m* the contact's own pull (a
 * dashpot that holds the pair together delays it). */
static double end_integral(const law_instance *li, const law_batch *batch, size_t q, int nh,
                           double d, double rate, double acc, double from, double span)
{
    static const double node[4] = {0.0694318442029737, 0.3300094782075719,
                                   0.6699905217924281, 0.9305681557970263};
    static const double weight[4] = {0.1739274225851886, 0.3260725774147321,
                                     0.3260725774147321, 0.1739274225851886};
    double x[4], r[4], v0[4], re[4], me[4], h[LAW_MAX_HISTORY][4], g[4];
    law_batch sub = {.n = 4, .overlap = x, .overlap_rate = r, .impact_velocity = v0,
                     .r_eff = re, .m_eff = me, .force = g};
    for (int k = 0; k < 4; k++) {
        double t = from + node[k] * span;
        x[k] = fmax(0.0, d + rate * t + 0.5 * acc * t * t);
        r[k] = rate + acc * t;
        v0[k] = batch->impact_velocity ? batch->impact_velocity[q] : 0.0;
        re[k] = batch->r_eff[q];
        me[k] = batch->m_eff[q];
        for (int a = 0; a < nh; a++) h[a][k] = batch->history[a][q];
    }
    for (int a = 0; a < LAW_MAX_HISTORY; a++) sub.history[a] = h[a];
    li->law->force(&li->coeffs, &sub);
    double integral = 0.0;
    for (int k = 0; k < 4; k++)
        integral += weight[k] * (li->coeffs.cohesion_removal && g[k] < 0.0 ? 0.0 : g[k]);
    return integral * span;
}

static void contact_ends(const sim *s, const contact_list *c, const law_instance *li,
                         const chunk_scratch *cs, batch_scratch *bs, const law_batch *batch,
                         size_t n, int nh)
{
    const double dt = s->dt;
    for (size_t q = 0; q < n; q++) {
        double d = batch->overlap[q], rate = batch->overlap_rate[q], f = bs->f[q];
        if (f == 0.0) continue;
        size_t m = bs->from[q];
        if (cs->fresh[m] && rate * dt > d) { /* touched tau = d / d' ago, in free flight */
            double span = d / rate;
            bs->f[q] = 0.5 * f + end_integral(li, batch, q, nh, d, rate, 0.0, -span, span) / dt;
            continue;
        }
        if (!(rate < 0.0) || !(-rate * dt >= 0.5 * d)) continue; /* no separation near */
        double m_eff = batch->m_eff[q], acc = -f / m_eff;
        double disc = rate * rate - 2.0 * acc * d; /* first root of d + d' s + acc s^2/2 */
        if (!(disc >= 0.0)) continue;
        double span = 2.0 * d / (-rate + sqrt(disc));
        if (!(span <= dt)) continue;
        double f_end = 0.5 * f + end_integral(li, batch, q, nh, d, rate, acc, 0.0, span) / dt;
        /* The step after this one sees the pair still touching if the overlap the
         * integrator makes from this force and the last one stays positive; it then
         * gives its own force from t + dt/2 on, and this step must count only up to
         * there. Count past t + dt/2 only as far as the pair then separates: where
         * the whole integral would keep the pair together and the half would not, the
         * force that brings its overlap to 0 at the next step, no more. */
        uint32_t k = cs->slot[m];
        double f_last = -(c->force[0][k] * cs->nx[m] + c->force[1][k] * cs->ny[m] +
                          c->force[2][k] * cs->nz[m]);
        double free_d = d + dt * rate, h2 = dt * dt / m_eff;
        if (span > 0.5 * dt && free_d + h2 * (0.5 * f_last - f_end) > 0.0) {
            double f_half =
                0.5 * f + end_integral(li, batch, q, nh, d, rate, acc, 0.0, 0.5 * dt) / dt;
            double f_closing = free_d / h2 + 0.5 * f_last; /* overlap 0 at the next step */
            double lo = fmin(f_half, f_end), hi = fmax(f_half, f_end);
            f_end = free_d + h2 * (0.5 * f_last - f_half) > 0.0 ? f_half
                                                                : fmin(hi, fmax(lo, f_closing));
        }
        bs->f[q] = f_end;
    }
}

/* Calls each law once for its contacts in the chunk and stores the force on i in the
 * list; a chunk of particle pairs also adds force and torque to both particles (to
 * `sums`; a cross pair's j side is kept on the pair, c->cross_torque). Adds the work
 * done on the chunk's contacts during this step to work[] (SIM_WORK_*). */
static void chunk_forces(const sim *s, contact_list *c, const chunk_scratch *cs,
                         batch_scratch *bs, double work[SIM_WORK_KINDS], const force_sums *sums)
{
    size_t done = 0;
    int n_laws = s->n_materials * s->n_materials;
    for (int L = 0; L < n_laws && done < cs->n; L++) {
        if (cs->one_law >= 0 && L != cs->one_law) continue;
        const law_instance *li = &s->laws[L];
        int nh = li->law ? li->law->n_history : 0;
        size_t n = 0;
        law_batch batch = {.force = bs->f};
        if (cs->one_law >= 0) { /* the whole chunk: the law reads the chunk's arrays */
            n = cs->n;
            for (size_t m = 0; m < n; m++) {
                bs->from[m] = (uint32_t)m;
                for (int h = 0; h < nh; h++) bs->h[h][m] = c->history[h][cs->slot[m]];
            }
            batch.overlap = cs->d; batch.overlap_rate = cs->rate; batch.impact_velocity = cs->v0;
            batch.r_eff = cs->r_eff; batch.m_eff = cs->m_eff;
        } else { /* gather this law's contacts */
            for (size_t m = 0; m < cs->n; m++) {
                if (cs->law[m] != L) continue;
                uint32_t k = cs->slot[m];
                bs->from[n] = (uint32_t)m;
                bs->d[n] = cs->d[m]; bs->rate[n] = cs->rate[m];
                if (c->impact_velocity) bs->v0[n] = cs->v0[m];
                bs->r_eff[n] = cs->r_eff[m]; bs->m_eff[n] = cs->m_eff[m];
                for (int h = 0; h < nh; h++) bs->h[h][n] = c->history[h][k];
                n++;
            }
            batch.overlap = bs->d; batch.overlap_rate = bs->rate; batch.impact_velocity = bs->v0;
            batch.r_eff = bs->r_eff; batch.m_eff = bs->m_eff;
        }
        if (n == 0) continue;
        done += n;
        batch.n = n;
        for (int h = 0; h < LAW_MAX_HISTORY; h++) batch.history[h] = bs->h[h];
        li->law->force(&li->coeffs, &batch);
        if (li->coeffs.cohesion_removal)
            for (size_t q = 0; q < n; q++) bs->f[q] = bs->f[q] < 0.0 ? 0.0 : bs->f[q];
        const int friction = li->friction.active;
        if (friction) {
            for (size_t q = 0; q < n; q++) bs->f_normal[q] = bs->f[q] > 0.0 ? bs->f[q] : 0.0;
            batch_friction(s, c, cs, bs, &li->friction, n, cs->one_law >= 0);
        }
        /* after friction, whose Coulomb cap takes the force at the instant */
        if (s->spring_span > 0.0) contact_ends(s, c, li, cs, bs, &batch, n, nh);
        result_context rc = {.nh = nh, .dt = s->dt, .work = work,
                             .work_kind = li->law->conservative ? -1
                                          : li->law->plastic  ? SIM_WORK_PLASTIC
                                                              : SIM_WORK_NORMAL};
        const int rolling = friction && friction_has_rolling_torque(&li->friction);
        if (sums && cs->one_law >= 0) {
            deliver_one_law(c, cs, bs, sums, &rc, friction, rolling);
            return;
        }
        if (!friction) contact_results(c, cs, bs, &rc, n, 0, 0, c->has_friction);
        else if (!rolling) contact_results(c, cs, bs, &rc, n, 1, 0, 1);
        else contact_results(c, cs, bs, &rc, n, 1, 1, 1);
    }
    deliver_forces(c, cs, bs, sums);
}

/* The forces of every touching contact in list c; also counts the touching contacts
 * (into s->n_contacts) and finds the largest overlap (s->max_overlap).
 *
 * The list runs in units, in parallel: a wall list in chunks of CHUNK entries, whose
 * forces stay on the pairs; a particle-pair list in blocks of c->block particles (its
 * pairs grouped by i, CHUNK at a time), each adding its pairs' forces to the particles
 * it owns (chunk_forces). A unit's work is summed in list order, the units' in unit
 * order: the same bits for any number of threads. */
static void force_loop_run(sim *s, contact_list *c, int is_wall)
{
    size_t n_units = is_wall ? (c->n + CHUNK - 1) / CHUNK
                             : (c->n_first + c->block - 1) / c->block;
    particle_store *p = &s->p;
    force_sums sums = {{p->fx, p->fy, p->fz}, {p->tx, p->ty, p->tz}};
    double *chunk_work = s->chunk_work;
    size_t touching = 0;
    double worst = s->max_overlap;
    /* a wall pair costs a distance to a curved surface as well: walls go parallel sooner */
    #pragma omp parallel if (c->n > (is_wall ? s->parallel_min / 8 : s->parallel_min))
    {
        chunk_scratch cs;
        batch_scratch bs;
        #pragma omp for schedule(dynamic, 1) reduction(+ : touching) reduction(max : worst)
        for (size_t u = 0; u < n_units; u++) {
            size_t first, last;
            if (is_wall) {
                first = u * CHUNK;
                last = first + CHUNK < c->n ? first + CHUNK : c->n;
            } else {
                size_t end = (u + 1) * c->block < c->n_first ? (u + 1) * c->block : c->n_first;
                first = c->first_of_i[u * c->block];
                last = c->first_of_i[end];
            }
            double *work = &chunk_work[SIM_WORK_KINDS * u];
            for (int q = 0; q < SIM_WORK_KINDS; q++) work[q] = 0.0;
            for (size_t start = first; start < last; start += CHUNK) {
                size_t end = start + CHUNK < last ? start + CHUNK : last;
                if (is_wall) wall_pair_geometry(s, c, start, end, &cs);
                else particle_pair_geometry(s, c, start, end, &cs);
                chunk_forces(s, c, &cs, &bs, work, is_wall ? NULL : &sums);
                touching += cs.n;
                worst = cs.worst > worst ? cs.worst : worst;
            }
        }
    }
    s->n_contacts += touching;
    s->max_overlap = worst;
    for (size_t u = 0; u < n_units; u++)
        for (int q = 0; q < SIM_WORK_KINDS; q++) {
            s->work[q] += chunk_work[SIM_WORK_KINDS * u + q];
            s->work_step[q] += chunk_work[SIM_WORK_KINDS * u + q];
        }
}

/* The work so far by the trapezoidal rule: each step added P(t_n) dt, which runs ahead
 * of the trapezoid by half of the last step's P dt (P vanishes at first touch). */
void sim_contact_work(const sim *s, double work[SIM_WORK_KINDS])
{
    for (int q = 0; q < SIM_WORK_KINDS; q++) work[q] = s->work[q] - 0.5 * s->work_step[q];
}

/* Room for the per-unit work sums of either list (force_loop_run). */
static int force_loop_reserve_work(sim *s)
{
    size_t blocks = (s->pairs.n_first + s->block - 1) / s->block;
    size_t chunks = (s->wall_pairs.n + CHUNK - 1) / CHUNK;
    size_t need = SIM_WORK_KINDS * ((blocks > chunks ? blocks : chunks) + 1);
    if (need <= s->chunk_work_capacity) return 0;
    double *w = realloc(s->chunk_work, need * sizeof *w);
    if (!w) return -1;
    s->chunk_work = w;
    s->chunk_work_capacity = need;
    return 0;
}

const law_instance *sim_contact_law(const sim *s, const contact_list *c, size_t k,
                                    double *r_eff, double *m_eff)
{
    const particle_store *p = &s->p;
    uint32_t i = c->i[k], j = c->j[k];
    if (c->is_wall) {
        *r_eff = p->radius[i];
        if (m_eff) *m_eff = p->mass[i];
        return &s->laws[p->type[i] * s->n_materials + s->walls.walls[j].material];
    }
    /* as the force loop computes them (particle_pair_geometry): the same bits */
    double sum_r = p->radius[i] + p->radius[j], sum_m = p->mass[i] + p->mass[j];
    double inv_both = 1.0 / (sum_r * sum_m);
    *r_eff = p->radius[i] * p->radius[j] * sum_m * inv_both;
    if (m_eff) *m_eff = p->mass[i] * p->mass[j] * sum_r * inv_both;
    return &s->laws[p->type[i] * s->n_materials + p->type[j]];
}

void sim_stored_energy(const sim *s, double stored[SIM_STORED_KINDS])
{
    for (int q = 0; q < SIM_STORED_KINDS; q++) stored[q] = 0.0;
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    const particle_store *p = &s->p;
    for (int L = 0; L < 2; L++) {
        const contact_list *c = lists[L];
        for (size_t k = 0; k < c->n; k++) {
            if (!c->touching[k]) continue;
            double d = contact_overlap(c, p, k);
            if (d <= 0.0) continue;
            double r_eff;
            const law_instance *li = sim_contact_law(s, c, k, &r_eff, NULL);
            double h[LAW_MAX_HISTORY] = {0}, springs[2], xi[3] = {0}, theta[3] = {0};
            double slip[CONTACT_SLIP_HISTORY] = {0};
            for (int q = 0; q < LAW_MAX_HISTORY && c->history[q]; q++) h[q] = c->history[q][k];
            for (int a = 0; a < 3 && c->tangential[0]; a++) xi[a] = c->tangential[a][k];
            for (int a = 0; a < 3 && c->rolling[0]; a++) theta[a] = c->rolling[a][k];
            for (int q = 0; q < CONTACT_SLIP_HISTORY && c->slip[0]; q++) slip[q] = c->slip[q][k];
            double e = li->law->elastic_energy
                           ? li->law->elastic_energy(&li->coeffs, d, r_eff, h) : 0.0;
            stored[li->law->conservative ? SIM_STORED_CONSERVATIVE
                   : li->law->plastic    ? SIM_WORK_PLASTIC
                                         : SIM_WORK_NORMAL] += e;
            friction_spring_energy(&li->friction, d, r_eff, xi, theta, slip, springs);
            stored[SIM_WORK_TANGENTIAL] += springs[0];
            stored[SIM_WORK_ROLLING] += springs[1];
        }
    }
}

/* Without friction no contact exerts a torque (the torques come from the tangential
 * and rolling springs only): every torque stays 0 from the first force sums on, and
 * every spin stays what it was. The steps then leave spins and torques alone, which
 * spares a frictionless run 9 of the 25 arrays the particle passes stream through. */
static int sim_spin_free(const sim *s)
{
    return !s->pairs.has_friction && !s->wall_pairs.has_friction;
}

/* Each local particle's force starts as its weight, its torque as zero; the pair
 * list's blocks then add to them (force_loop_run). Within a step integrate_advance_positions does
 * this in its own pass over the particles; this is for the forces at the start (after
 * creation or a restart), where no spring moves and the mid-step velocities are the
 * velocities themselves. */
static void integrate_start_sums(sim *s)
{
    particle_store *p = &s->p;
    const double *g = s->cfg.gravity;
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        p->fx[i] = p->mass[i] * g[0]; p->fy[i] = p->mass[i] * g[1]; p->fz[i] = p->mass[i] * g[2];
        p->tx[i] = p->ty[i] = p->tz[i] = 0.0;
        p->vhx[i] = p->vx[i]; p->vhy[i] = p->vy[i]; p->vhz[i] = p->vz[i];
        p->whx[i] = p->wx[i]; p->why[i] = p->wy[i]; p->whz[i] = p->wz[i];
    }
}

/* The particle passes run in blocks of this many particles: a block's arrays stay in L1
 * between the block's loops, and the loops without a reduction or an inner loop are
 * simple enough to vectorise. */
#define PARTICLE_BLOCK 512

/* The velocity correction (integrate_advance_positions) of particles [lo, hi) for one kind of
 * motion: v += h inv_m (f - f0), for the velocities (forces, 1/mass) or the spins
 * (torques, 1/inertia). Each array is its own (GCC does not read restrict on locals,
 * hence ivdep). */
static inline __attribute__((always_inline)) void
correct_kick(double *vx, double *vy, double *vz, const double *fx, const double *fy,
             const double *fz, const double *fx0, const double *fy0, const double *fz0,
             const double *inv_m, double h, size_t lo, size_t hi)
{
    #pragma GCC ivdep
    for (size_t i = lo; i < hi; i++) {
        double a = h * inv_m[i];
        vx[i] += a * (fx[i] - fx0[i]);
        vy[i] += a * (fy[i] - fy0[i]);
        vz[i] += a * (fz[i] - fz0[i]);
    }
}

static inline __attribute__((always_inline)) void
correct_block(particle_store *p, double h, size_t lo, size_t hi, const int torques)
{
    correct_kick(p->vx, p->vy, p->vz, p->fx, p->fy, p->fz, p->fx0, p->fy0, p->fz0, p->inv_mass,
                 h, lo, hi);
    if (torques)
        correct_kick(p->wx, p->wy, p->wz, p->tx, p->ty, p->tz, p->tx0, p->ty0, p->tz0,
                     p->inv_inertia, h, lo, hi);
}

/* Adds to each particle what the force loop left on the pairs: the j side of its cross
 * pairs, then its wall contacts, in list order. Within a step (`correct`), the
 * particle's force is then final, and the same pass, block by block, corrects its
 * predicted velocity (integrate_advance_positions): v += dt/2 (a(n+1) - a(n)).
 * Without friction nothing exerts a torque (sim_spin_free): torques and spins are
 * left as they are. */
static void integrate_add_stored_forces(sim *s, const int correct)
{
    const int torques = !sim_spin_free(s);
    particle_store *p = &s->p;
    const contact_list *c = &s->pairs, *w = &s->wall_pairs;
    const double h = 0.5 * s->dt;
    const size_t n_blocks = (p->n_local + PARTICLE_BLOCK - 1) / PARTICLE_BLOCK;
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t b = 0; b < n_blocks; b++) {
        size_t lo = b * PARTICLE_BLOCK,
               hi = lo + PARTICLE_BLOCK < p->n_local ? lo + PARTICLE_BLOCK : p->n_local;
        for (size_t i = lo; i < hi; i++) {
            size_t cross_lo = c->cross_first[i], cross_hi = c->cross_first[i + 1],
                   wall_lo = w->first_of_i[i], wall_hi = w->first_of_i[i + 1];
            if (cross_lo == cross_hi && wall_lo == wall_hi) continue;
            double f[3] = {p->fx[i], p->fy[i], p->fz[i]}, t[3] = {0.0, 0.0, 0.0};
            if (torques) { t[0] = p->tx[i]; t[1] = p->ty[i]; t[2] = p->tz[i]; }
            for (size_t q = cross_lo; q < cross_hi; q++) {
                uint32_t k = c->cross_pair[q];
                for (int a = 0; a < 3; a++) f[a] -= c->force[a][k];
                for (int a = 0; a < 3 && torques; a++) t[a] += c->cross_torque[a][q];
            }
            for (size_t k = wall_lo; k < wall_hi; k++) {
                for (int a = 0; a < 3; a++) f[a] += w->force[a][k];
                for (int a = 0; a < 3 && torques; a++) t[a] += w->torque[a][k];
            }
            p->fx[i] = f[0]; p->fy[i] = f[1]; p->fz[i] = f[2];
            if (torques) { p->tx[i] = t[0]; p->ty[i] = t[1]; p->tz[i] = t[2]; }
        }
        /* the block's forces are final: its velocities are corrected while in cache
         * (ghosts follow at the next ghost update) */
        if (correct) correct_block(p, h, lo, hi, torques);
    }
}

/* The load on each wall (s->walls.force, .torque): minus the force of each of its
 * contacts, and the torque about the wall's reference point O,
 *   (x_i - O) x (-F) - T,
 * with T the contact's torque on particle i about its centre (what the particle gains
 * about O the wall loses: the tangential force acts at the contact point, and the
 * rolling torque is a couple). Each block of WALL_LOAD_BLOCK list entries is summed in
 * list order (blocks in parallel), then the blocks in order: the same bits for any
 * number of threads. A moving wall's work on the particles grows by -(F.v + T.w) dt
 * (v: the velocity of O, w: the wall's angular velocity), summed like the contacts' work
 * (sim_contact_work). */
#define WALL_LOAD_BLOCK 2048
static void wall_loads_sum(sim *s)
{
    wall_set *ws = &s->walls;
    const contact_list *c = &s->wall_pairs;
    const particle_store *p = &s->p;
    size_t block = ws->load_block ? ws->load_block : WALL_LOAD_BLOCK;
    size_t nw = ws->n, n_blocks = (c->n + block - 1) / block;
    if (nw == 0) return;
    size_t need = 6 * nw * (n_blocks + 1);
    if (need > ws->partial_cap) {
        double *q = realloc(ws->partial, need * sizeof *q);
        if (!q) {
            fprintf(stderr, "dempact: out of memory summing the wall loads\n");
            exit(3);
        }
        ws->partial = q;
        ws->partial_cap = need;
    }
    #pragma omp parallel for schedule(static) if (c->n > s->parallel_min)
    for (size_t b = 0; b < n_blocks; b++) {
        double *part = ws->partial + 6 * nw * b;
        for (size_t q = 0; q < 6 * nw; q++) part[q] = 0.0;
        size_t end = (b + 1) * block < c->n ? (b + 1) * block : c->n;
        for (size_t k = b * block; k < end; k++) {
            if (!(c->overlap[k] > 0.0)) continue;
            uint32_t i = c->i[k], w = c->j[k];
            const double *o = ws->ref_point + 3 * w;
            double r[3] = {p->x[i] - o[0], p->y[i] - o[1], p->z[i] - o[2]};
            double f[3] = {c->force[0][k], c->force[1][k], c->force[2][k]};
            double rxf[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2],
                             r[0] * f[1] - r[1] * f[0]};
            for (int a = 0; a < 3; a++) {
                part[6 * w + a] -= f[a];
                part[6 * w + 3 + a] -= rxf[a] + (c->torque[0] ? c->torque[a][k] : 0.0);
            }
        }
    }
    for (size_t w = 0; w < nw; w++)
        for (int a = 0; a < 3; a++) ws->force[3 * w + a] = ws->torque[3 * w + a] = 0.0;
    for (size_t b = 0; b < n_blocks; b++)
        for (size_t w = 0; w < nw; w++)
            for (int a = 0; a < 3; a++) {
                ws->force[3 * w + a] += ws->partial[6 * nw * b + 6 * w + a];
                ws->torque[3 * w + a] += ws->partial[6 * nw * b + 6 * w + 3 + a];
            }
    for (size_t w = 0; w < nw; w++) {
        if (!ws->state[w].moves) continue;
        const double *v = ws->state[w].velocity, *omega = walls_omega(ws, w);
        double power = 0.0;
        for (int a = 0; a < 3; a++)
            power -= ws->force[3 * w + a] * v[a] + ws->torque[3 * w + a] * omega[a];
        ws->work_sum[w] += power * s->dt;
        ws->work[w] = ws->work_sum[w] - 0.5 * power * s->dt; /* trapezoidal, as the contacts' */
    }
}

/* The forces on every particle and wall. Within a step (`in_step`) integrate_advance_positions
 * has started the particles' sums, and the velocities are corrected as the sums end. */
static void compute_forces(sim *s, const int in_step)
{
    s->spring_span = in_step ? s->dt : 0.0; /* the forces at the start move no spring */
    for (int q = 0; q < SIM_WORK_KINDS; q++) s->work_step[q] = 0.0;
    s->n_contacts = 0;
    s->max_overlap = 0.0;
    if (!in_step) integrate_start_sums(s);
    force_loop_run(s, &s->pairs, 0);
    force_loop_run(s, &s->wall_pairs, 1);
    integrate_add_stored_forces(s, in_step);
    wall_loads_sum(s);
}

/* ---- integration ------------------------------------------------------------------- */

/* integrate_advance_positions for particles [lo, hi): the kick, drift and prediction in loops that
 * vectorise, then the largest squared displacement since the last rebuild in one of its
 * own (a max that skips NaN is no vector reduction). */
static inline __attribute__((always_inline)) double
advance_block(const sim *s, particle_store *p, double dt, size_t lo, size_t hi,
              const int spins)
{
    const double h = 0.5 * dt, g0 = s->cfg.gravity[0], g1 = s->cfg.gravity[1],
                 g2 = s->cfg.gravity[2];
    const double *inv_mass = p->inv_mass, *mass = p->mass;
    double *x = p->x, *y = p->y, *z = p->z, *vx = p->vx, *vy = p->vy, *vz = p->vz;
    double *fx = p->fx, *fy = p->fy, *fz = p->fz, *fx0 = p->fx0, *fy0 = p->fy0, *fz0 = p->fz0;
    double *vhx = p->vhx, *vhy = p->vhy, *vhz = p->vhz;
    #pragma GCC ivdep
    for (size_t i = lo; i < hi; i++) {
        double a = h * inv_mass[i];
        double f0 = fx[i], f1 = fy[i], f2 = fz[i];
        double v0 = vx[i] + a * f0, v1 = vy[i] + a * f1, v2 = vz[i] + a * f2;
        x[i] = x[i] + dt * v0; y[i] = y[i] + dt * v1; z[i] = z[i] + dt * v2;
        vx[i] = v0 + a * f0; vy[i] = v1 + a * f1; vz[i] = v2 + a * f2;
        vhx[i] = v0; vhy[i] = v1; vhz[i] = v2;
        fx0[i] = f0; fy0[i] = f1; fz0[i] = f2;
        fx[i] = mass[i] * g0; fy[i] = mass[i] * g1; fz[i] = mass[i] * g2;
    }
    if (spins) {
        const double *inv_inertia = p->inv_inertia;
        double *wx = p->wx, *wy = p->wy, *wz = p->wz, *tx = p->tx, *ty = p->ty, *tz = p->tz;
        double *tx0 = p->tx0, *ty0 = p->ty0, *tz0 = p->tz0;
        double *whx = p->whx, *why = p->why, *whz = p->whz;
        #pragma GCC ivdep
        for (size_t i = lo; i < hi; i++) {
            double b = h * inv_inertia[i];
            double t0 = tx[i], t1 = ty[i], t2 = tz[i];
            double w0 = wx[i] + b * t0, w1 = wy[i] + b * t1, w2 = wz[i] + b * t2;
            wx[i] = w0 + b * t0; wy[i] = w1 + b * t1; wz[i] = w2 + b * t2;
            whx[i] = w0; why[i] = w1; whz[i] = w2;
            tx0[i] = t0; ty0[i] = t1; tz0[i] = t2;
            tx[i] = 0.0; ty[i] = 0.0; tz[i] = 0.0;
        }
    }
    const double *x0 = s->x_at_rebuild;
    double worst = 0.0;
    for (size_t i = lo; i < hi; i++) {
        double dx = x[i] - x0[3 * i], dy = y[i] - x0[3 * i + 1], dz = z[i] - x0[3 * i + 2];
        double d2 = dx * dx + dy * dy + dz * dz;
        worst = d2 > worst ? d2 : worst; /* a NaN is skipped (the watchdog reports it) */
    }
    return worst;
}

/* One pass over the particles (block by block) for the first half of the step: the half kick
 * v(n+1/2) = v(n) + dt/2 a(n), the drift x(n+1) = x(n) + dt v(n+1/2), and the velocity
 * prediction v(n+1/2) + dt/2 a(n) for the forces (below); a(n) is kept for the
 * correction. Returns the largest squared displacement since the last rebuild.
 *
 * Velocity-dependent forces (dashpots) need v(n+1) at the new positions, which velocity
 * Verlet knows only after those forces. Using the half-step velocity v(n+1/2) lags the
 * dashpot by dt/2 and makes restitution, contact time and peak force first order in dt
 * (a 10% error in e at e = 0.1 with 50 steps per contact). So the forces are computed
 * with the prediction v(n+1/2) + dt/2 a(n), which is second order, and the kick is then
 * corrected by dt/2 (a(n+1) - a(n)): the positions are exactly those of velocity Verlet,
 * and so is the final velocity up to rounding (integrate_add_stored_forces).
 *
 * The same pass starts the step's force sums (as integrate_start_sums: the weight, no
 * torque): nothing reads a particle's force between here and the force loop, and a
 * rebuild's reordering carries the started sums with their particles. */
static double integrate_advance_positions(const sim *s, particle_store *p, double dt)
{
    const int spins = !sim_spin_free(s);
    double worst = 0.0;
    const size_t n_blocks = (p->n_local + PARTICLE_BLOCK - 1) / PARTICLE_BLOCK;
    #pragma omp parallel for reduction(max : worst) schedule(static) if (p->n_local > s->parallel_min)
    for (size_t b = 0; b < n_blocks; b++) {
        size_t lo = b * PARTICLE_BLOCK,
               hi = lo + PARTICLE_BLOCK < p->n_local ? lo + PARTICLE_BLOCK : p->n_local;
        double w = advance_block(s, p, dt, lo, hi, spins);
        worst = w > worst ? w : worst;
    }
    return worst;
}

/* Inlets and outlets: removes the particles that entered an outlet, inserts what the
 * inlets owe, and rebuilds the neighbour list if anything changed (contact histories
 * follow their particles through the renumbering). Returns 0 or -1 (out of memory). */
static int change_population(sim *s)
{
    population_accrue(s);
    size_t leaving = 0;
    if (s->cfg.n_outlets > 0) {
        uint8_t *flags = realloc(s->leaving, s->p.n_local + 1);
        if (!flags) return -1;
        s->leaving = flags;
        leaving = population_mark_outgoing(s, flags);
    }
    int inserting = population_changes_due(s);
    if (leaving == 0 && !inserting) return 0;
    s->p.n_total = s->p.n_local; /* ghosts are remade by the rebuild */
    if (leaving > 0) {
        int64_t *new_index = malloc((s->p.n_local + 1) * sizeof *new_index);
        if (!new_index) return -1;
        particles_remove(&s->p, s->leaving, new_index);
        contact_list_remap(&s->pairs, new_index, s->p.n_local, 0);
        contact_list_remap(&s->wall_pairs, new_index, s->p.n_local, 1);
        free(new_index);
    }
    if (inserting && population_insert(s) < 0) return -1;
    return list_rebuild(s);
}

void sim_step(sim *s)
{
    if (s->fault) return; /* the watchdog reports it; nothing moves any more */
    if (s->cfg.n_inlets > 0 || s->cfg.n_outlets > 0) {
        int rc = change_population(s);
        if (rc == REBUILD_REFUSED) return;
        if (rc != 0) {
            fprintf(stderr, "dempact: out of memory while inserting or removing particles\n");
            exit(3);
        }
    }
    double moved = integrate_advance_positions(s, &s->p, s->dt);
    walls_move(&s->walls, (double)(s->step + 1) * s->dt); /* to where they are at the step's end */
    if (list_needs_rebuild(s, moved)) {
        int rc = list_rebuild(s);
        if (rc == REBUILD_REFUSED) { /* the positions are the step's end's, the forces not */
            s->step++;
            s->time = s->step * s->dt;
            return;
        }
        if (rc != 0) {
            fprintf(stderr, "dempact: out of memory in the neighbour rebuild (%zu particles, "
                    "%zu candidate pairs before it)\n", s->p.n_local, s->pairs.n);
            exit(3);
        }
    } else {
        ghosts_update(s, &s->p);
    }
    compute_forces(s, 1); /* and corrects the velocities */
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
    /* DEMPACT_BLOCK: smaller blocks, so that tests of small systems have cross pairs */
    const char *block = getenv("DEMPACT_BLOCK");
    s->block = block && strtoul(block, NULL, 10) > 0 ? strtoul(block, NULL, 10) : CONTACT_BLOCK;
    /* DEMPACT_SEARCH_ROOM=0: the neighbour search's buffers start nearly empty, so that
     * tests take the path where they grow (build_list) */
    const char *room = getenv("DEMPACT_SEARCH_ROOM");
    s->search_room = room ? strtod(room, NULL) : -1.0;
    const char *reorder_min = getenv("DEMPACT_REORDER_MIN"); /* engine/reorder.h */
    s->reorder = 1;
    s->reorder_min = reorder_min ? strtoul(reorder_min, NULL, 10) : REORDER_MIN;
    if (particles_init(&s->p, 1024) != 0) goto oom;
    for (int k = 0; k < cfg->n_sources; k++) {
        const particle_source *src = &cfg->sources[k];
        if (fill_source(&s->p, src, &cfg->materials[src->material], k, cfg->stop, err,
                        err_len) != 0)
            return -1;
    }
    if (cfg->sources_copied) cfg->sources_copied(cfg->sources_copied_ctx);
    if (s->p.n_local == 0 && cfg->n_inlets == 0) {
        snprintf(err, err_len, "particles: the case creates no particles (and has no inlet)");
        return -1;
    }
    if (s->p.n_local > UINT32_MAX / 2) { snprintf(err, err_len, "particles: too many particles"); return -1; }
    if (walls_init(&s->walls, cfg->walls, (size_t)cfg->n_walls, err, err_len) != 0 ||
        walls_check_particles(&s->walls, &s->p, err, err_len) != 0)
        return -1;
    if (pair_table_setup(s, err, err_len) != 0 || pair_table_check_cover(s, err, err_len) != 0) return -1;
    pair_table_configure_lists(s);

    double r_max = largest_radius(&s->p);
    for (int k = 0; k < cfg->n_inlets; k++) r_max = fmax(r_max, cfg->inlets[k].radius_max);
    s->largest_radius = r_max;
    if (population_init(s, err, err_len) != 0) return -1;
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
    if (choose_timestep(s, err, err_len) != 0 || population_check(s, err, err_len) != 0)
        return -1;
    if (pair_restitution_calibrate(s, err, err_len) != 0) return -1;

    int built = list_rebuild(s);
    if (built == REBUILD_REFUSED) { /* the case reader keeps particles in the domain */
        if (s->fault == SIM_FAULT_RUNAWAY)
            snprintf(err, err_len, "particles: particle %lld lies more than %g domain lengths "
                     "outside the domain along %c", (long long)s->p.id[s->fault_particle],
                     SIM_RUNAWAY_MARGIN, "xyz"[s->fault_axis]);
        else if (s->fault == SIM_FAULT_PAIRS)
            snprintf(err, err_len, "particles: the neighbour list would hold more than %zu "
                     "candidate pairs (particles crowded into few cells)", CONTACT_MAX_PAIRS);
        else
            snprintf(err, err_len, "particles: their spread is too wide for a neighbour grid");
        return -1;
    }
    if (built != 0) goto oom;
    compute_forces(s, 0);
    sim_observables start = {0};
    s->initial_energy = 0.0;
    sim_observe(s, &start);
    s->initial_energy = start.kinetic_energy + start.rotational_energy +
                        start.gravitational_energy + start.elastic_energy;
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
    contact_list_free(&s->carry);
    contact_list_free(&s->wall_pairs);
    contact_list_free(&s->wall_carry);
    free(s->laws);
    walls_free(&s->walls);
    free(s->x_at_rebuild);
    free(s->leaving);
    free(s->chunk_work);
    population_free(s);
    memset(s, 0, sizeof *s);
}

/* ---- restart support ---- */
/* (io/restart.c reads a snapshot into a sim_restart_state; see sim.h.) */
#include <stddef.h>

const pair_history_field sim_pair_history[] = {
    {"impact_velocity", offsetof(contact_list, impact_velocity), 1, 0},
    {"law_history", offsetof(contact_list, history), LAW_MAX_HISTORY, 0},
    {"tangential_spring", offsetof(contact_list, tangential), 3, 0},
    {"rolling_spring", offsetof(contact_list, rolling), 3, 0},
    {"tangential_slip", offsetof(contact_list, slip), CONTACT_SLIP_HISTORY, 1}, /* microslip */
};
const int sim_n_pair_history = (int)(sizeof sim_pair_history / sizeof sim_pair_history[0]);

/* NULL when the list does not hold it (contact_list_configure). */
double *sim_pair_history_array(const contact_list *c, const pair_history_field *f, int comp)
{
    double *const *arrays = (double *const *)(const void *)((const char *)c + f->offset);
    return arrays[comp];
}

/* Particle ids to rows, sorted (ids may be sparse: no table as long as the largest id). */
typedef struct id_row {
    int64_t id;
    size_t row;
} id_row;

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const id_row *)a)->id, y = ((const id_row *)b)->id;
    return (x > y) - (x < y);
}

/* A sorted index of ids[0..n-1]; NULL if out of memory. *dup: an id present twice, or -1. */
static id_row *id_index(const int64_t *ids, size_t n, int64_t *dup)
{
    id_row *x = malloc((n ? n : 1) * sizeof *x);
    if (!x) return NULL;
    for (size_t r = 0; r < n; r++) x[r] = (id_row){ids[r], r};
    qsort(x, n, sizeof *x, by_id);
    *dup = -1;
    for (size_t r = 1; r < n && *dup < 0; r++)
        if (x[r].id == x[r - 1].id) *dup = x[r].id;
    return x;
}

static size_t id_find(const id_row *x, size_t n, int64_t id)
{
    id_row key = {id, 0};
    const id_row *hit = bsearch(&key, x, n, sizeof *x, by_id);
    return hit ? hit->row : SIZE_MAX;
}

/* The snapshot's particles, in its order: the case's particles matched by id, and those
 * an inlet inserted made again the way the inlet did (particles_add). */
static int restore_particles(sim *s, const sim_restart_state *st, const id_row *fresh,
                             char *err, size_t err_len)
{
    const particle_store *p = &s->p;
    particle_store q, made;
    if (particles_init(&q, st->n) != 0) goto oom;
    if (particles_init(&made, 1) != 0) {
        particles_free(&q);
        goto oom;
    }
    int rc = -1;
    for (size_t r = 0; r < st->n; r++) {
        int64_t id = st->id[r];
        size_t i = id_find(fresh, p->n_local, id);
        const particle_store *from = p;
        if (i == SIZE_MAX) { /* not one of the case's: inserted during the run */
            int32_t t = st->type[r];
            if (id < 0 || t < 0 || t >= s->cfg.n_materials ||
                (st->next_id >= 0 && id >= st->next_id)) {
                snprintf(err, err_len, "particle id %lld (material %d) of the snapshot is not "
                                       "one the case creates", (long long)id, t);
                goto done;
            }
            double zero[3] = {0.0, 0.0, 0.0};
            made.n_local = made.n_total = 0;
            if (particles_add(&made, t, st->radius[r], s->cfg.materials[t].density, zero, zero) != 0)
                goto oom_done;
            from = &made;
            i = 0;
        }
        if (from->type[i] != st->type[r] || memcmp(&from->radius[i], &st->radius[r], sizeof(double)) ||
            memcmp(&from->mass[i], &st->mass[r], sizeof(double))) {
            snprintf(err, err_len, "particle id %lld: the case makes it material %d, radius %.17g m, "
                                   "mass %.17g kg; the snapshot has material %d, radius %.17g m, "
                                   "mass %.17g kg (the case's particles changed)",
                     (long long)id, from->type[i], from->radius[i], from->mass[i], st->type[r],
                     st->radius[r], st->mass[r]);
            goto done;
        }
        q.id[r] = id;
        q.type[r] = from->type[i];
        q.radius[r] = from->radius[i];
        q.mass[r] = from->mass[i];
        q.inv_mass[r] = from->inv_mass[i];
        q.inv_inertia[r] = from->inv_inertia[i];
        /* positions of the last rebuild first: the rebuild below replays it */
        q.x[r] = st->position_at_rebuild[3 * r];
        q.y[r] = st->position_at_rebuild[3 * r + 1];
        q.z[r] = st->position_at_rebuild[3 * r + 2];
        q.vx[r] = st->velocity[3 * r]; q.vy[r] = st->velocity[3 * r + 1]; q.vz[r] = st->velocity[3 * r + 2];
        q.wx[r] = st->angular_velocity[3 * r]; q.wy[r] = st->angular_velocity[3 * r + 1];
        q.wz[r] = st->angular_velocity[3 * r + 2];
        q.fx[r] = st->force[3 * r]; q.fy[r] = st->force[3 * r + 1]; q.fz[r] = st->force[3 * r + 2];
        q.tx[r] = st->torque[3 * r]; q.ty[r] = st->torque[3 * r + 1]; q.tz[r] = st->torque[3 * r + 2];
        if (sim_spin_free(s)) /* a snapshot of a run with friction, restarted without:
                                       no torque acts from here on (the steps leave it) */
            q.tx[r] = q.ty[r] = q.tz[r] = 0.0;
        q.fx0[r] = q.fy0[r] = q.fz0[r] = q.tx0[r] = q.ty0[r] = q.tz0[r] = 0.0;
    }
    q.n_local = q.n_total = st->n;
    q.next_id = st->next_id >= 0 ? st->next_id : p->next_id;
    double *xr = realloc(s->x_at_rebuild, 3 * (st->n + 1) * sizeof *xr);
    if (!xr) goto oom_done;
    s->x_at_rebuild = xr;
    particles_free(&s->p);
    s->p = q;
    rc = 0;
    goto done;
oom_done:
    snprintf(err, err_len, "out of memory");
done:
    if (rc != 0) particles_free(&q);
    particles_free(&made);
    return rc;
oom:
    snprintf(err, err_len, "out of memory");
    return -1;
}

/* by_place: the list is the run's own (replayed), find each pair at its saved place;
 * else (the run had invalidated its list, so the next step rebuilds it and only the set
 * of pairs matters) by its other end: the particle, or the how-manieth entry with the
 * same wall (an STL wall's touching entries are its first ones). */
static int restore_history(sim *s, const sim_restart_state *st, const id_row *rows,
                           int by_place, char *err, size_t err_len)
{
    contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n; k++) contact_clear_history(lists[L], k);
    for (size_t m = 0; m < st->n_contacts; m++) {
        int64_t a = st->contact_id[2 * m], b = st->contact_id[2 * m + 1], slot = st->contact_slot[m];
        int is_wall = st->contact_wall[m] != 0;
        contact_list *c = is_wall ? &s->wall_pairs : &s->pairs;
        size_t i = id_find(rows, st->n, a), k = c->n;
        /* the same place in the replayed list, holding the same other end */
        if (by_place && i < s->p.n_local && slot >= 0 &&
            (size_t)slot < c->first_of_i[i + 1] - c->first_of_i[i]) {
            k = c->first_of_i[i] + (size_t)slot;
            int same = is_wall ? (int64_t)c->j[k] == b : s->p.id[c->owner_j[k]] == b;
            if (!same) k = c->n;
        }
        if (!by_place && i < s->p.n_local) {
            size_t seen = 0; /* earlier saved contacts of i with the same wall */
            for (size_t q = m; is_wall && q-- > 0 && st->contact_id[2 * q] == a;)
                seen += st->contact_wall[q] && st->contact_id[2 * q + 1] == b;
            for (size_t q = c->first_of_i[i]; q < c->first_of_i[i + 1] && k == c->n; q++) {
                if (is_wall ? (int64_t)c->j[q] != b : s->p.id[c->owner_j[q]] != b) continue;
                if (is_wall && seen-- > 0) continue;
                k = q;
            }
        }
        if (k == c->n) {
            snprintf(err, err_len, "contact %zu of the snapshot (particle %lld with %s %lld) is not "
                                   "where the replayed neighbour list has it", m, (long long)a,
                     is_wall ? "wall" : "particle", (long long)b);
            return -1;
        }
        c->touching[k] = 1;
        for (int f = 0; f < sim_n_pair_history; f++) {
            const pair_history_field *hf = &sim_pair_history[f];
            for (int comp = 0; comp < hf->count; comp++) {
                double *dst = sim_pair_history_array(c, hf, comp);
                if (dst) dst[k] = st->history[f][m * hf->count + comp]; /* else unused */
            }
        }
    }
    return 0;
}

/* Inlets, outlets and the work accumulators. */
static int restore_engine(sim *s, const sim_restart_state *st, char *err, size_t err_len)
{
    if (st->work)
        for (int q = 0; q < SIM_WORK_KINDS; q++) s->work[q] = st->work[q];
    /* the walls' work and the running sums behind it (work is the trapezoidal value,
     * work_sum minus half the last step's power x dt); a file without the sums goes on
     * from the trapezoidal value, within half a step's power x dt */
    if (st->wall_work && s->walls.work)
        for (size_t w = 0; w < s->walls.n; w++) {
            s->walls.work[w] = st->wall_work[w];
            s->walls.work_sum[w] = st->wall_work_sum ? st->wall_work_sum[w] : st->wall_work[w];
        }
    size_t ni = (size_t)s->cfg.n_inlets * sizeof *s->inlets, no = (size_t)s->cfg.n_outlets * sizeof *s->outlets;
    if ((ni && (!st->inlets || st->inlets_bytes != ni)) || (no && (!st->outlets || st->outlets_bytes != no))) {
        snprintf(err, err_len, "the snapshot's inlet and outlet states do not fit the case's %d inlets "
                               "and %d outlets (written by another version of dempact?)",
                 s->cfg.n_inlets, s->cfg.n_outlets);
        return -1;
    }
    if (ni) memcpy(s->inlets, st->inlets, ni);
    if (no) memcpy(s->outlets, st->outlets, no);
    return 0;
}

int sim_restore(sim *s, const sim_restart_state *st, char *err, size_t err_len)
{
    if (st->n == 0 || st->n > UINT32_MAX / 2) {
        snprintf(err, err_len, "the snapshot has %zu particles", st->n);
        return -1;
    }
    if (!(st->dt > 0.0) || !isfinite(st->dt) || !isfinite(st->time) || st->step < 0) {
        snprintf(err, err_len, "the snapshot's time %g s, step %lld or timestep %g s is not valid",
                 st->time, (long long)st->step, st->dt);
        return -1;
    }
    int64_t dup = -1, fresh_dup = -1;
    id_row *rows = id_index(st->id, st->n, &dup), *fresh = id_index(s->p.id, s->p.n_local, &fresh_dup);
    int rc = -1;
    if (!rows || !fresh) {
        snprintf(err, err_len, "out of memory");
        goto done;
    }
    if (dup >= 0) {
        snprintf(err, err_len, "particle id %lld appears twice in the snapshot", (long long)dup);
        goto done;
    }
    int invalid = 0;
    for (size_t k = 0; k < 3 * st->n; k++) invalid |= !isfinite(st->position_at_rebuild[k]);
    rc = restore_particles(s, st, fresh, err, err_len);
    if (rc == 0) rc = restore_engine(s, st, err, err_len);
    if (rc == 0) {
        s->dt = st->dt;
        s->step = st->step;
        s->time = st->time;
        /* A run that changed its particles outside a rebuild (the watchdog dropping one)
         * marks its list stale with a non-finite position_at_rebuild: the next step
         * rebuilds it. Then build the list from the current positions (every touching
         * pair is in it), and keep the mark. */
        if (invalid)
            for (size_t r = 0; r < st->n; r++) {
                s->p.x[r] = st->position[3 * r];
                s->p.y[r] = st->position[3 * r + 1];
                s->p.z[r] = st->position[3 * r + 2];
            }
        walls_move(&s->walls, isnan(st->rebuild_wall_time) || invalid ? st->time : st->rebuild_wall_time);
        /* The snapshot's order is the one the run's last rebuild left (sorted or not):
         * keep it, so the list is built as that rebuild built it. */
        int reorder = s->reorder;
        s->reorder = 0;
        if (list_rebuild(s) != 0) {
            snprintf(err, err_len, "out of memory");
            rc = -1;
        }
        s->reorder = reorder;
        walls_move(&s->walls, st->time);
        if (invalid) memcpy(s->x_at_rebuild, st->position_at_rebuild, 3 * st->n * sizeof(double));
    }
    if (rc == 0) {
        particle_store *p = &s->p;
        for (size_t r = 0; r < st->n; r++) {
            p->x[r] = st->position[3 * r];
            p->y[r] = st->position[3 * r + 1];
            p->z[r] = st->position[3 * r + 2];
        }
        ghosts_update(s, p);
        rc = restore_history(s, st, rows, !invalid, err, err_len);
    }
done:
    free(rows);
    free(fresh);
    return rc;
}
