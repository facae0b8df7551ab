#include "watchdog.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "exact_sum.h"
#include "list_build.h"

#define MAX_BLOCKS 512
#define MIN_BLOCK 2048

watchdog_settings watchdog_settings_of(const sim *s)
{
    watchdog_settings w = s->cfg.watchdog;
    if (!(w.max_overlap_fraction > 0.0)) w.max_overlap_fraction = WATCHDOG_DEFAULT_OVERLAP;
    if (w.interval < 1) w.interval = 1;
    if (w.energy_tolerance == 0.0) w.energy_tolerance = WATCHDOG_DEFAULT_ENERGY_TOLERANCE;
    return w;
}

bool watchdog_energy_applies(const sim *s)
{
    if (watchdog_settings_of(s).energy_tolerance < 0.0) return false;
    if (s->cfg.n_inlets > 0 || s->cfg.n_outlets > 0) return false; /* not closed */
    for (size_t w = 0; w < s->walls.n; w++) {
        const wall_spec *ws = &s->walls.walls[w];
        if (ws->velocity[0] != 0.0 || ws->velocity[1] != 0.0 || ws->velocity[2] != 0.0 ||
            ws->angular_velocity != 0.0 || ws->n_motion > 0)
            return false; /* a moving wall does work */
    }
    for (int a = 0; a < 3; a++)
        if (s->cfg.periodic[a] && s->cfg.gravity[a] != 0.0) return false;
    return true;
}

/* The point of zero potential energy: the face of the domain gravity points to. */
static void potential_origin(const sim *s, double origin[3])
{
    for (int a = 0; a < 3; a++)
        origin[a] = s->cfg.gravity[a] < 0.0 ? s->cfg.domain_min[a] : s->cfg.domain_max[a];
}

/* What one pass over the particles finds. */
typedef struct particle_scan {
    double energy;   /* only with a full scan */
    bool not_finite; /* a position or velocity (full: angular velocity, force, torque too) */
    bool outside;    /* a centre outside the domain along a non-periodic axis */
    bool fast;       /* a particle whose kinetic energy alone exceeds the budget */
    bool too_fast;   /* maybe a particle that moves more than STEP_FRACTION r per step */
} particle_scan;

/* The flags are bit tricks on the doubles' representations, so that the loop is
 * integer adds, ands and ors that vectorise: a double is not finite iff its exponent
 * bits are all ones, i.e. iff (bits & EXP) + 2^52 sets bit 63; a difference a - b
 * (b < a) has its sign bit set iff a < b. */
#define EXP_MASK 0x7ff0000000000000ull
#define EXP_ONE 0x0010000000000000ull
#define SIGN 0x8000000000000000ull

static inline uint64_t bits_of(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

#define NOT_FINITE(v) ((bits_of(v) & EXP_MASK) + EXP_ONE)
#define BELOW(a, b) bits_of((a) - (b)) /* sign bit: a < b */

/* The flags of particles [start, end): [0] a non-finite position or velocity (with
 * `all`, also angular velocity, force or torque), [1] a centre outside [lo, hi], [2] a
 * speed^2 above v2_max, [3] a speed^2 above v2_step (the exact test, against each
 * particle's own radius, follows only then). Values are summed before the finiteness
 * test (NaN and infinity survive a sum; a false alarm from an overflowing sum only costs
 * the exact search). */
static void flag_block(const particle_store *p, size_t start, size_t end, const double lo[3],
                       const double hi[3], double v2_max, double v2_step, bool all,
                       uint64_t flags[4])
{
    const double *restrict x = p->x, *restrict y = p->y, *restrict z = p->z;
    const double *restrict vx = p->vx, *restrict vy = p->vy, *restrict vz = p->vz;
    const double lx = lo[0], ly = lo[1], lz = lo[2], hx = hi[0], hy = hi[1], hz = hi[2];
    uint64_t bad = 0, out = 0, fast = 0, too_fast = 0;
    for (size_t i = start; i < end; i++) {
        double v2 = vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i];
        bad |= NOT_FINITE(x[i] + y[i] + z[i] + v2);
        out |= BELOW(x[i], lx) | BELOW(hx, x[i]) | BELOW(y[i], ly) | BELOW(hy, y[i]) |
               BELOW(z[i], lz) | BELOW(hz, z[i]);
        fast |= BELOW(v2_max, v2);
        too_fast |= BELOW(v2_step, v2);
    }
    if (all) {
        const double *restrict wx = p->wx, *restrict wy = p->wy, *restrict wz = p->wz;
        const double *restrict fx = p->fx, *restrict fy = p->fy, *restrict fz = p->fz;
        const double *restrict tx = p->tx, *restrict ty = p->ty, *restrict tz = p->tz;
        for (size_t i = start; i < end; i++)
            bad |= NOT_FINITE(wx[i] + wy[i] + wz[i] + fx[i] + fy[i] + fz[i] + tx[i] + ty[i] +
                              tz[i]);
    }
    flags[0] = bad & SIGN;
    flags[1] = out & SIGN;
    flags[2] = fast & SIGN;
    flags[3] = too_fast & SIGN;
}

/* Kinetic + potential energy of particles [start, end), summed in four fixed lanes. */
static double energy_block(const particle_store *p, size_t start, size_t end, const double g[3],
                           const double origin[3])
{
    const double *restrict x = p->x, *restrict y = p->y, *restrict z = p->z;
    const double *restrict vx = p->vx, *restrict vy = p->vy, *restrict vz = p->vz;
    const double *restrict wx = p->wx, *restrict wy = p->wy, *restrict wz = p->wz;
    const double *restrict m = p->mass, *restrict ii = p->inv_inertia;
    double lane[4] = {0.0, 0.0, 0.0, 0.0};
    size_t i = start;
    for (; i + 4 <= end; i += 4)
        for (int l = 0; l < 4; l++) {
            size_t q = i + l;
            lane[l] += 0.5 * m[q] * (vx[q] * vx[q] + vy[q] * vy[q] + vz[q] * vz[q]) +
                       0.5 * (wx[q] * wx[q] + wy[q] * wy[q] + wz[q] * wz[q]) / ii[q] -
                       m[q] * (g[0] * (x[q] - origin[0]) + g[1] * (y[q] - origin[1]) +
                               g[2] * (z[q] - origin[2]));
        }
    for (; i < end; i++)
        lane[0] += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]) +
                   0.5 * (wx[i] * wx[i] + wy[i] * wy[i] + wz[i] * wz[i]) / ii[i] -
                   m[i] * (g[0] * (x[i] - origin[0]) + g[1] * (y[i] - origin[1]) +
                           g[2] * (z[i] - origin[2]));
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

/* One pass over fixed blocks of particles (in parallel for large systems; the blocks
 * and the order of their sums do not depend on the number of threads). `full` adds the
 * angular velocities, forces and torques, and the energy sum when budget is finite. */
static void scan_particles(const sim *s, double budget, double mass_floor, double radius_floor,
                           bool full, particle_scan *out)
{
    const particle_store *p = &s->p;
    size_t n = p->n_local;
    size_t block = (n + MAX_BLOCKS - 1) / MAX_BLOCKS;
    if (block < MIN_BLOCK) block = MIN_BLOCK;
    size_t n_blocks = (n + block - 1) / block;
    double energy[MAX_BLOCKS];
    uint64_t flags[MAX_BLOCKS][4];
    double origin[3], lo[3], hi[3];
    potential_origin(s, origin);
    for (int a = 0; a < 3; a++) {
        lo[a] = s->cfg.periodic[a] ? -HUGE_VAL : s->cfg.domain_min[a];
        hi[a] = s->cfg.periodic[a] ? HUGE_VAL : s->cfg.domain_max[a];
    }
    watchdog_settings w = watchdog_settings_of(s);
    /* m v^2 / 2 > E_max for some particle if v^2 > 2 E_max / (the smallest mass) */
    double v2_max = isfinite(budget) && mass_floor > 0.0
                        ? 2.0 * budget * (1.0 + w.energy_tolerance) / mass_floor
                        : HUGE_VAL;
    /* |v| dt > STEP_FRACTION r for some particle only if v^2 > (STEP_FRACTION r_min / dt)^2 */
    double step_reach = WATCHDOG_STEP_FRACTION * radius_floor / s->dt;
    double v2_step = s->dt > 0.0 && step_reach < 1e150 ? step_reach * step_reach : HUGE_VAL;
    bool with_energy = full && isfinite(budget);
    #pragma omp parallel for schedule(static) if (n > s->parallel_min && n_blocks > 1)
    for (size_t b = 0; b < n_blocks; b++) {
        size_t start = b * block, end = start + block < n ? start + block : n;
        flag_block(p, start, end, lo, hi, v2_max, v2_step, full, flags[b]);
        energy[b] = with_energy ? energy_block(p, start, end, s->cfg.gravity, origin) : 0.0;
    }
    *out = (particle_scan){.energy = 0.0};
    for (size_t b = 0; b < n_blocks; b++) {
        out->energy += energy[b];
        out->not_finite |= flags[b][0] != 0;
        out->outside |= flags[b][1] != 0;
        out->fast |= flags[b][2] != 0;
        out->too_fast |= flags[b][3] != 0;
    }
}

double watchdog_energy(const sim *s)
{
    particle_scan scan;
    scan_particles(s, 0.0, 0.0, 0.0, true, &scan);
    return scan.energy;
}

/* ---- contacts ---------------------------------------------------------------------- */

static const law_instance *law_of(const sim *s, int a, int b)
{
    return &s->laws[a * s->n_materials + b];
}

/* Fills c with contact k of list L (0: particle pairs, 1: walls) seen from particle i. */
static void describe_contact(const sim *s, int L, size_t k, size_t i, watchdog_contact *c)
{
    const particle_store *p = &s->p;
    const contact_list *list = L ? &s->wall_pairs : &s->pairs;
    *c = (watchdog_contact){.found = true, .other_id = -1, .wall = -1};
    c->material_a = p->type[i];
    double r = p->radius[i];
    if (L) {
        c->wall = (int)list->j[k];
        c->material_b = s->walls.walls[c->wall].material;
    } else {
        size_t other = list->i[k] == i ? list->owner_j[k] : list->i[k];
        c->other_id = p->id[other];
        c->material_b = p->type[other];
        r = fmin(r, p->radius[other]);
    }
    const law_instance *li = law_of(s, c->material_a, c->material_b);
    c->law = li->law ? li->law->name : "(none)";
    c->overlap = contact_overlap(list, p, k);
    c->fraction = c->overlap / r;
    c->force = sqrt(list->force[0][k] * list->force[0][k] + list->force[1][k] * list->force[1][k] +
                    list->force[2][k] * list->force[2][k]);
}

/* Is contact k a worse culprit than the best so far? Non-finite forces first, then the
 * largest force. */
static bool worse(double force, double best)
{
    if (!isfinite(force)) return isfinite(best);
    return isfinite(best) && force > best;
}

/* The contact of particle i with a non-finite force, else with the largest force. */
static void strongest_contact(const sim *s, size_t i, watchdog_contact *out)
{
    *out = (watchdog_contact){.found = false};
    double best = -1.0;
    int best_list = -1;
    size_t best_k = 0;
    for (int L = 0; L < 2; L++) {
        const contact_list *c = L ? &s->wall_pairs : &s->pairs;
        if (!c->first_of_i || i >= c->n_first) continue;
        for (size_t k = c->first_of_i[i]; k < c->first_of_i[i + 1]; k++) {
            double d = contact_overlap(c, &s->p, k);
            if (!(d > 0.0) && isfinite(d)) continue;
            double f = fabs(c->force[0][k]) + fabs(c->force[1][k]) + fabs(c->force[2][k]);
            if (best_list < 0 || worse(f, best)) { best = f; best_list = L; best_k = k; }
        }
        if (L == 0) /* where i is the second particle: a scan (only when reporting) */
            for (size_t k = 0; k < c->n; k++) {
                if (c->owner_j[k] != i) continue;
                double d = contact_overlap(c, &s->p, k);
                if (!(d > 0.0) && isfinite(d)) continue;
                double f = fabs(c->force[0][k]) + fabs(c->force[1][k]) + fabs(c->force[2][k]);
                if (best_list < 0 || worse(f, best)) { best = f; best_list = L; best_k = k; }
            }
    }
    if (best_list >= 0) describe_contact(s, best_list, best_k, i, out);
}

/* Of several particles with a problem, or contacts too deep, a run that sums by id
 * (cfg.reproducible, and every run on ranks) names the one with the smallest id (the pair
 * with the smallest pair of ids): what no numbering and no split changes, so that every
 * rank names what one process names. Otherwise the first in the store's order. */
static bool by_id(const sim *s) { return s->cfg.reproducible != 0; }

/* Is particle i a better choice than best (-1: none yet)? */
static bool sooner(const sim *s, size_t i, long best)
{
    return best < 0 || (by_id(s) && s->p.id[i] < s->p.id[best]);
}

/* A contact's ids in the order by_id compares them: a pair's smaller id first. */
static void contact_key(const sim *s, int L, size_t k, int64_t key[2])
{
    const contact_list *c = L ? &s->wall_pairs : &s->pairs;
    int64_t a = s->p.id[c->i[k]], b = L ? (int64_t)c->j[k] : s->p.id[c->j[k]];
    key[0] = L || a < b ? a : b;
    key[1] = L || a < b ? b : a;
}

/* The deep contact with the smallest key (pairs before walls), as first_deep_contact. */
static int deep_contact_by_id(const sim *s, double fraction, size_t *k_out)
{
    const particle_store *p = &s->p;
    for (int L = 0; L < 2; L++) {
        const contact_list *c = L ? &s->wall_pairs : &s->pairs;
        size_t best = c->n;
        int64_t best_key[2] = {0, 0}, key[2];
        for (size_t k = 0; k < c->n; k++) {
            double d = contact_overlap(c, p, k);
            if (!(d > 0.0)) continue;
            double r = p->radius[c->i[k]];
            if (!L) r = fmin(r, p->radius[c->owner_j[k]]);
            if (!(d > fraction * r)) continue;
            contact_key(s, L, k, key);
            if (best == c->n || key[0] < best_key[0] || (key[0] == best_key[0] && key[1] < best_key[1])) {
                best = k;
                best_key[0] = key[0];
                best_key[1] = key[1];
            }
        }
        if (best < c->n) {
            *k_out = best;
            return L;
        }
    }
    return -1;
}

/* The first contact (lowest index, pairs before walls) overlapping more than `fraction`
 * of its smaller radius; returns its list (0, 1) or -1. */
static int first_deep_contact(const sim *s, double fraction, size_t *k_out)
{
    const particle_store *p = &s->p;
    if (by_id(s)) return deep_contact_by_id(s, fraction, k_out);
    for (int L = 0; L < 2; L++) {
        const contact_list *c = L ? &s->wall_pairs : &s->pairs;
        size_t first = c->n;
        #pragma omp parallel for reduction(min : first) schedule(static) if (c->n > s->parallel_min)
        for (size_t k = 0; k < c->n; k++) {
            double d = contact_overlap(c, p, k);
            if (!(d > 0.0)) continue;
            double r = p->radius[c->i[k]];
            if (!L) r = fmin(r, p->radius[c->owner_j[k]]);
            if (d > fraction * r && k < first) first = k;
        }
        if (first < c->n) {
            *k_out = first;
            return L;
        }
    }
    return -1;
}

/* ---- the check --------------------------------------------------------------------- */

static void fill_particle(const sim *s, size_t i, watchdog_report *r)
{
    const particle_store *p = &s->p;
    r->particle = (long)i;
    r->particle_id = p->id[i];
    r->position[0] = p->x[i]; r->position[1] = p->y[i]; r->position[2] = p->z[i];
    r->velocity[0] = p->vx[i]; r->velocity[1] = p->vy[i]; r->velocity[2] = p->vz[i];
    r->force[0] = p->fx[i]; r->force[1] = p->fy[i]; r->force[2] = p->fz[i];
}

static bool all_finite(double a, double b, double c)
{
    return isfinite(a) && isfinite(b) && isfinite(c);
}

static void find_not_finite(const sim *s, watchdog_report *r)
{
    const particle_store *p = &s->p;
    long best = -1;
    for (size_t i = 0; i < p->n_local; i++) {
        const char *q = !all_finite(p->x[i], p->y[i], p->z[i])      ? "position"
                        : !all_finite(p->vx[i], p->vy[i], p->vz[i]) ? "velocity"
                        : !all_finite(p->wx[i], p->wy[i], p->wz[i]) ? "angular velocity"
                        : !all_finite(p->fx[i], p->fy[i], p->fz[i]) ? "force"
                        : !all_finite(p->tx[i], p->ty[i], p->tz[i]) ? "torque"
                                                                    : NULL;
        if (!q || !sooner(s, i, best)) continue;
        best = (long)i;
        r->quantity = q;
        if (!by_id(s)) break;
    }
    if (best < 0) return;
    r->problem = WATCHDOG_NOT_FINITE;
    fill_particle(s, (size_t)best, r);
    strongest_contact(s, (size_t)best, &r->contact);
}

static void find_outside(const sim *s, watchdog_report *r)
{
    const particle_store *p = &s->p;
    const double *pos[3] = {p->x, p->y, p->z};
    long best = -1;
    for (size_t i = 0; i < p->n_local && (best < 0 || by_id(s)); i++)
        for (int a = 0; a < 3; a++) {
            if (s->cfg.periodic[a]) continue;
            int side = pos[a][i] < s->cfg.domain_min[a] ? -1 : pos[a][i] > s->cfg.domain_max[a] ? 1 : 0;
            if (!side || !sooner(s, i, best)) continue;
            best = (long)i;
            r->axis = a;
            r->side = side;
            r->limit = side < 0 ? s->cfg.domain_min[a] : s->cfg.domain_max[a];
            break;
        }
    if (best < 0) return;
    r->problem = WATCHDOG_LEFT_DOMAIN;
    fill_particle(s, (size_t)best, r);
    strongest_contact(s, (size_t)best, &r->contact);
}

/* The first particle that moves more than STEP_FRACTION of its radius in one step. */
static void find_too_fast(const sim *s, watchdog_report *r)
{
    const particle_store *p = &s->p;
    long best = -1;
    for (size_t i = 0; i < p->n_local && (best < 0 || by_id(s)); i++) {
        double reach = WATCHDOG_STEP_FRACTION * p->radius[i];
        double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        if (!(sqrt(v2) * s->dt > reach) || !sooner(s, i, best)) continue;
        best = (long)i;
        r->limit = reach;
    }
    if (best < 0) return;
    r->problem = WATCHDOG_TOO_FAST;
    fill_particle(s, (size_t)best, r);
    strongest_contact(s, (size_t)best, &r->contact);
}

/* The step the engine refused (sim.fault). */
static void report_fault(const sim *s, watchdog_report *r)
{
    r->problem = WATCHDOG_RUNAWAY;
    if (s->fault != SIM_FAULT_RUNAWAY || s->fault_particle < 0 ||
        (size_t)s->fault_particle >= s->p.n_local)
        return;
    size_t i = (size_t)s->fault_particle;
    int a = s->fault_axis;
    fill_particle(s, i, r);
    r->axis = a;
    r->side = r->position[a] < s->cfg.domain_min[a] ? -1 : 1;
    r->limit = SIM_RUNAWAY_MARGIN * (s->cfg.domain_max[a] - s->cfg.domain_min[a]);
}

/* The particle with the largest kinetic energy: the likeliest culprit of a rise. */
static void find_fastest(const sim *s, watchdog_report *r)
{
    const particle_store *p = &s->p;
    double best = -1.0;
    size_t best_i = 0;
    for (size_t i = 0; i < p->n_local; i++) {
        double e = p->mass[i] * (p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i]);
        if (e > best) { best = e; best_i = i; }
    }
    fill_particle(s, best_i, r);
    strongest_contact(s, best_i, &r->contact);
}

/* Lower bounds of every radius and mass now and to come (inlets included). */
static double radius_floor(const sim *s)
{
    double r = HUGE_VAL;
    for (size_t i = 0; i < s->p.n_local; i++) r = fmin(r, s->p.radius[i]);
    for (int k = 0; k < s->cfg.n_inlets; k++) r = fmin(r, s->cfg.inlets[k].radius_min);
    return r;
}

static double mass_floor(const sim *s)
{
    double m = HUGE_VAL;
    for (size_t i = 0; i < s->p.n_local; i++) m = fmin(m, s->p.mass[i]);
    for (int k = 0; k < s->cfg.n_inlets; k++) {
        const inlet_spec *in = &s->cfg.inlets[k];
        double r = in->radius_min;
        m = fmin(m, s->cfg.materials[in->material].density * 4.0 / 3.0 * M_PI * r * r * r);
    }
    return m;
}

/* `full`: also angular velocities, forces, torques and the energy sum. */
static watchdog_problem check(const sim *s, const watchdog_state *st, bool full,
                              watchdog_report *r)
{
    watchdog_settings w = watchdog_settings_of(s);
    double budget = st->energy_budget;
    *r = (watchdog_report){.problem = WATCHDOG_OK, .step = s->step, .time = s->time,
                           .particle = -1, .particle_id = -1, .energy = NAN,
                           .energy_budget = budget};
    if (s->fault) {
        report_fault(s, r);
        return r->problem;
    }
    if (s->p.n_local == 0) return WATCHDOG_OK; /* an inlet may fill it later */
    particle_scan scan;
    scan_particles(s, budget, st->mass_floor, st->radius_floor, full, &scan);
    if (scan.not_finite) {
        find_not_finite(s, r);
        if (r->problem) return r->problem;
    }
    /* a contact can be deeper than the limit only if the step's deepest one is deeper
     * than the limit for the smallest particle (sim.max_overlap: the engine's) */
    size_t k;
    int L;
    if (!(s->max_overlap <= w.max_overlap_fraction * st->radius_floor) &&
        (L = first_deep_contact(s, w.max_overlap_fraction, &k)) >= 0) {
        const contact_list *c = L ? &s->wall_pairs : &s->pairs;
        size_t i = c->i[k];
        /* of two particles, the faster one is named (and dropped), the one with the
         * smaller id when both are as fast. Fast by the mid-step velocity that drifted
         * them into the overlap: a particle of another rank holds its owner's (the
         * end-of-step velocity of a ghost is not its owner's yet), so every split and
         * one process compare the same two numbers. */
        if (!L) {
            size_t j = c->owner_j[k];
            const particle_store *p = &s->p;
            double vi = p->vhx[i] * p->vhx[i] + p->vhy[i] * p->vhy[i] + p->vhz[i] * p->vhz[i];
            double vj = p->vhx[j] * p->vhx[j] + p->vhy[j] * p->vhy[j] + p->vhz[j] * p->vhz[j];
            if (vj > vi || (vj == vi && p->id[j] < p->id[i])) i = j;
        }
        r->problem = WATCHDOG_OVERLAP;
        r->limit = w.max_overlap_fraction;
        fill_particle(s, i, r);
        describe_contact(s, L, k, i, &r->contact);
        return r->problem;
    }
    if (scan.outside) {
        find_outside(s, r);
        if (r->problem) return r->problem;
    }
    if (scan.too_fast) {
        find_too_fast(s, r);
        if (r->problem) return r->problem;
    }
    if (!isfinite(budget)) return r->problem;
    /* the sum on full checks (split over ranks: the sum over all, which the guard took);
     * in between, one particle whose kinetic energy alone is above the budget is proof
     * enough, and so is the energy of a rank's particles */
    if (full || scan.fast)
        r->energy = !full ? watchdog_energy(s) : s->ghost_hooks ? st->energy_everywhere : scan.energy;
    if (r->energy > budget * (1.0 + w.energy_tolerance)) {
        r->problem = WATCHDOG_ENERGY_RISE;
        r->limit = budget * (1.0 + w.energy_tolerance);
        find_fastest(s, r);
    }
    return r->problem;
}

watchdog_problem watchdog_check(const sim *s, const watchdog_state *st, bool full,
                                watchdog_report *r)
{
    return check(s, st, full, r);
}

static bool first_here(const sim *s, watchdog_problem p, const watchdog_report *r);

watchdog_problem watchdog_check_start(const sim *s, watchdog_report *r)
{
    watchdog_state st = {.energy_budget = NAN, .radius_floor = radius_floor(s),
                         .mass_floor = mass_floor(s)};
    check(s, &st, true, r);
    r->step = -1; /* marks "before the first step" for watchdog_format */
    /* split over ranks: the problem one process would find first is reported, by the
     * rank that holds it */
    if (s->ghost_hooks && !first_here(s, r->problem, r)) r->problem = WATCHDOG_OK;
    return r->problem;
}

/* The sum of the ranks' x (x in one process; collective in a split run). */
static double over_ranks(const sim *s, double x)
{
    if (!s->ghost_hooks) return x;
    exact_sum e;
    exact_sum_clear(&e);
    exact_sum_add(&e, x);
    sim_reduce_exact(s, &e, 1);
    return exact_sum_value(&e);
}

double watchdog_energy_budget(const sim *s)
{
    if (!watchdog_energy_applies(s)) return NAN;
    double stored = 0.0;
    for (int L = 0; L < 2; L++) {
        const contact_list *c = L ? &s->wall_pairs : &s->pairs;
        for (size_t k = 0; k < c->n; k++) {
            if (c->i[k] >= s->p.n_local) continue; /* another rank's pair (split runs) */
            double d = contact_overlap(c, &s->p, k);
            if (!(d > 0.0)) continue;
            double f = sqrt(c->force[0][k] * c->force[0][k] + c->force[1][k] * c->force[1][k] +
                            c->force[2][k] * c->force[2][k]);
            if (isfinite(f)) stored += f * d;
        }
    }
    return over_ranks(s, watchdog_energy(s) + stored);
}

/* ---- messages ---------------------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len, used;
} text;

static void say(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(text *t, const char *fmt, ...)
{
    if (t->used + 1 >= t->len) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->s + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (w > 0) t->used = t->used + (size_t)w < t->len ? t->used + (size_t)w : t->len - 1;
}

static void say_contact(text *t, const sim *s, const watchdog_contact *c)
{
    const material *m = s->cfg.materials;
    if (c->wall >= 0)
        say(t, "wall %s", s->walls.walls[c->wall].name);
    else
        say(t, "particle %lld", (long long)c->other_id);
    say(t, ", law %s (%s on %s), overlap %.4g m = %.3g of the %s radius, force %.4g N",
        c->law, m[c->material_a].name, m[c->material_b].name, c->overlap, c->fraction,
        c->wall >= 0 ? "particle's" : "smaller", c->force);
}

static void say_state(text *t, const watchdog_report *r)
{
    say(t, "; particle %lld at (%.6g, %.6g, %.6g) m, velocity (%.4g, %.4g, %.4g) m/s, "
           "force (%.4g, %.4g, %.4g) N",
        (long long)r->particle_id, r->position[0], r->position[1], r->position[2],
        r->velocity[0], r->velocity[1], r->velocity[2], r->force[0], r->force[1], r->force[2]);
}

void watchdog_format(const watchdog_report *r, const sim *s, char *out, size_t len)
{
    text t = {out, len, 0};
    if (!out || len == 0) return;
    out[0] = '\0';
    static const char axis[] = "xyz";
    if (r->step < 0)
        say(&t, "particles: as created, before the first step: ");
    else
        say(&t, "watchdog: step %lld (t = %.6g s): ", (long long)r->step, r->time);
    switch (r->problem) {
    case WATCHDOG_OK: say(&t, "no problem"); return;
    case WATCHDOG_NO_PARTICLES: say(&t, "no particles left"); break;
    case WATCHDOG_NOT_FINITE:
        say(&t, "the %s of particle %lld is not finite", r->quantity, (long long)r->particle_id);
        if (r->contact.found) {
            say(&t, "; its strongest contact: with ");
            say_contact(&t, s, &r->contact);
        }
        say_state(&t, r);
        break;
    case WATCHDOG_OVERLAP:
        say(&t, "particle %lld overlaps ", (long long)r->particle_id);
        say_contact(&t, s, &r->contact);
        say(&t, " (limit %.3g, watchdog.max_overlap_fraction)", r->limit);
        say_state(&t, r);
        break;
    case WATCHDOG_LEFT_DOMAIN:
        say(&t, "particle %lld left the domain: %c = %.6g m is %s the domain's %s face at %g m "
                "(which has no wall to hold it)",
            (long long)r->particle_id, axis[r->axis], r->position[r->axis],
            r->side < 0 ? "below" : "above", r->side < 0 ? "min" : "max", r->limit);
        if (r->contact.found) {
            say(&t, "; its strongest contact: with ");
            say_contact(&t, s, &r->contact);
        }
        say_state(&t, r);
        break;
    case WATCHDOG_TOO_FAST: {
        double v = hypot(hypot(r->velocity[0], r->velocity[1]), r->velocity[2]);
        say(&t, "particle %lld moves %.4g m per step (%.4g m/s, time.step %.4g s), more than %g "
                "of its radius (%.4g m): the step cannot integrate it",
            (long long)r->particle_id, v * s->dt, v, s->dt, WATCHDOG_STEP_FRACTION, r->limit);
        if (r->contact.found) {
            say(&t, "; its strongest contact: with ");
            say_contact(&t, s, &r->contact);
        }
        say_state(&t, r);
        break;
    }
    case WATCHDOG_RUNAWAY:
        if (r->particle < 0) {
            if (s->fault == SIM_FAULT_PAIRS)
                say(&t, "the neighbour list would hold more than %zu candidate pairs (particles "
                        "crowded into few cells); stopped before building it", CONTACT_MAX_PAIRS);
            else
                say(&t, "the particles spread too wide for the neighbour grid");
            break;
        }
        say(&t, "particle %lld is far outside the domain: %c = %.6g m is more than %g m (%g "
                "domain length%s) %s the domain's %s face at %g m; stopped before the neighbour "
                "grid is sized for it",
            (long long)r->particle_id, axis[r->axis], r->position[r->axis], r->limit,
            SIM_RUNAWAY_MARGIN, SIM_RUNAWAY_MARGIN == 1.0 ? "" : "s",
            r->side < 0 ? "below" : "above", r->side < 0 ? "min" : "max",
            r->side < 0 ? s->cfg.domain_min[r->axis] : s->cfg.domain_max[r->axis]);
        say_state(&t, r);
        break;
    case WATCHDOG_ENERGY_RISE:
        say(&t, "kinetic + gravitational energy is %.6g J, above the %.6g J the system started "
                "with (tolerance %.3g): a closed dissipative system is gaining energy",
            r->energy, r->energy_budget, watchdog_settings_of(s).energy_tolerance);
        say(&t, "; the fastest particle is %lld", (long long)r->particle_id);
        if (r->contact.found) {
            say(&t, ", its strongest contact: with ");
            say_contact(&t, s, &r->contact);
        }
        say_state(&t, r);
        break;
    }
    if (r->step >= 0 && s->dt_limit > 0.0 && s->dt > s->dt_limit)
        say(&t, "; note: time.step = %.4g s is %.3g times the stable limit %.4g s "
                "(check_step: false)", s->dt, s->dt / s->dt_limit, s->dt_limit);
}

/* ---- the step loop's guard ----------------------------------------------------------- */

void watchdog_start(watchdog_state *st, const sim *s, FILE *log)
{
    *st = (watchdog_state){.energy_budget = watchdog_energy_budget(s),
                           .radius_floor = radius_floor(s), .mass_floor = mass_floor(s),
                           .log = log};
}

/* The energy particle i carries: kinetic plus potential (what leaves with it). */
static double particle_energy(const sim *s, size_t i)
{
    const particle_store *q = &s->p;
    double e = 0.5 * q->mass[i] * (q->vx[i] * q->vx[i] + q->vy[i] * q->vy[i] + q->vz[i] * q->vz[i]);
    double origin[3];
    potential_origin(s, origin);
    e -= q->mass[i] * (s->cfg.gravity[0] * (q->x[i] - origin[0]) + s->cfg.gravity[1] * (q->y[i] - origin[1]) +
                       s->cfg.gravity[2] * (q->z[i] - origin[2]));
    return e;
}

static void log_drop(const watchdog_state *st, const char *msg, int64_t id)
{
    if (st->log)
        fprintf(st->log, "%s\n  -> dropped particle %lld (watchdog.on_error: drop_particle)\n", msg,
                (long long)id);
}

/* ---- dropping on ranks --------------------------------------------------------------- */

/* A problem's place in check()'s order (the first found wins), and whether a drop
 * settles it. */
static int problem_rank(watchdog_problem p)
{
    switch (p) {
    case WATCHDOG_NOT_FINITE: return 1;
    case WATCHDOG_OVERLAP: return 2;
    case WATCHDOG_LEFT_DOMAIN: return 3;
    case WATCHDOG_TOO_FAST: return 4;
    case WATCHDOG_ENERGY_RISE: return 5;
    default: return 0; /* the engine's own faults come first */
    }
}

static bool droppable(watchdog_problem p)
{
    return p == WATCHDOG_NOT_FINITE || p == WATCHDOG_OVERLAP || p == WATCHDOG_LEFT_DOMAIN ||
           p == WATCHDOG_TOO_FAST;
}

/* A rank's problem as the ranks compare them: (its place in check()'s order, contact
 * list, ids), what one process would find first being the smallest; then the particle
 * it names and whether a drop settles it. */
enum { ROW_RANK, ROW_LIST, ROW_KEY0, ROW_KEY1, ROW_PARTICLE, ROW_DROP, ROW_WIDTH };

static void problem_row(const sim *s, watchdog_problem p, const watchdog_report *r, double row[ROW_WIDTH])
{
    row[ROW_RANK] = problem_rank(p);
    row[ROW_LIST] = 0;
    row[ROW_KEY0] = (double)r->particle_id;
    row[ROW_KEY1] = -1;
    if (p == WATCHDOG_OVERLAP && r->contact.found) {
        int64_t a = r->particle_id, b = r->contact.wall >= 0 ? r->contact.wall : r->contact.other_id;
        row[ROW_LIST] = r->contact.wall >= 0;
        row[ROW_KEY0] = (double)(r->contact.wall >= 0 || a < b ? a : b);
        row[ROW_KEY1] = (double)(r->contact.wall >= 0 || a < b ? b : a);
    }
    row[ROW_PARTICLE] = (double)r->particle_id;
    row[ROW_DROP] = droppable(p);
}

static bool row_before(const double *a, const double *b)
{
    for (int q = 0; q < ROW_PARTICLE; q++)
        if (a[q] != b[q]) return a[q] < b[q];
    return false;
}

static bool same_row(const double *a, const double *b)
{
    return !row_before(a, b) && !row_before(b, a);
}

/* The ranks' problems compared (collective): the first one process would find, in
 * `winner`. Returns 1, 0 when no rank has one, or -1 (out of memory on some rank). */
static int first_everywhere(const sim *s, watchdog_problem p, const watchdog_report *r,
                            double winner[ROW_WIDTH])
{
    const sim_ghost_hooks *h = s->ghost_hooks;
    double mine[ROW_WIDTH], *all = NULL;
    size_t n_all = 0;
    problem_row(s, p, r, mine);
    if (h->gather(mine, p != WATCHDOG_OK, ROW_WIDTH, 0, 0, &all, &n_all, h->ctx) != 0) return -1;
    const double *first = NULL;
    for (size_t q = 0; q < n_all; q++)
        if (!first || row_before(&all[q * ROW_WIDTH], first)) first = &all[q * ROW_WIDTH];
    if (first) memcpy(winner, first, ROW_WIDTH * sizeof *winner);
    free(all);
    return first != NULL;
}

/* Whether this rank's problem p is the first of all ranks' (collective). Short of memory
 * for the comparison, each rank keeps its own: a true problem all the same. */
static bool first_here(const sim *s, watchdog_problem p, const watchdog_report *r)
{
    double mine[ROW_WIDTH], winner[ROW_WIDTH];
    int found = first_everywhere(s, p, r, winner);
    if (found < 0) return p != WATCHDOG_OK;
    problem_row(s, p, r, mine);
    return found && p != WATCHDOG_OK && same_row(winner, mine);
}

static long local_index_of(const sim *s, int64_t id)
{
    for (size_t i = 0; i < s->p.n_local; i++)
        if (s->p.id[i] == id) return (long)i;
    return -1;
}

static void forget_ghost(sim *s, int64_t id);

/* The guard on ranks with on_error: drop_particle, at a step every rank checks. The
 * ranks compare their problems; the first one process would find is everyone's: a drop
 * (the particle's rank drops it, every rank takes back what its contacts exerted on its
 * own particles) and the check again, or a stop (the rank that found it reports it). */
static watchdog_problem guard_on_ranks(sim *s, watchdog_state *st, bool full, watchdog_report *r)
{
    const sim_ghost_hooks *h = s->ghost_hooks;
    for (;;) {
        watchdog_problem p = check(s, st, full, r);
        double mine[ROW_WIDTH], winner[ROW_WIDTH];
        int found = first_everywhere(s, p, r, winner);
        if (found < 0) {
            s->fault = SIM_FAULT_NO_MEMORY;
            s->fault_memory = SIM_MEMORY_DROP;
            return WATCHDOG_OK;
        }
        if (!found) return WATCHDOG_OK;
        problem_row(s, p, r, mine);
        bool mine_first = p != WATCHDOG_OK && same_row(winner, mine);
        if (!winner[ROW_DROP]) return mine_first ? p : WATCHDOG_OK;
        int64_t id = (int64_t)winner[ROW_PARTICLE];
        long i = local_index_of(s, id);
        /* its rank reports it (it found the same problem: it holds the particle and,
         * for a contact, the pair) */
        char msg[1024] = "";
        if (i >= 0) watchdog_format(r, s, msg, sizeof msg);
        h->share(msg, sizeof msg, i >= 0, h->ctx);
        log_drop(st, msg, id);
        double e = i >= 0 ? particle_energy(s, (size_t)i) : -INFINITY;
        e = h->largest(isfinite(e) ? e : -INFINITY, h->ctx);
        if (isfinite(st->energy_budget) && isfinite(e)) st->energy_budget = fmax(0.0, st->energy_budget - e);
        if (i >= 0) watchdog_drop_particle(s, (size_t)i);
        else forget_ghost(s, id);
        st->dropped++;
        if (!h->any(s->p.n_local > 0, h->ctx) && s->cfg.n_inlets == 0) {
            r->problem = WATCHDOG_NO_PARTICLES;
            return r->problem;
        }
        if (full && isfinite(st->energy_budget)) st->energy_everywhere = over_ranks(s, watchdog_energy(s));
    }
}

watchdog_problem watchdog_guard(sim *s, watchdog_state *st, watchdog_report *r)
{
    watchdog_settings w = watchdog_settings_of(s);
    /* split over ranks, a full check's energy is everyone's: summed here, where every
     * rank comes at the same steps */
    bool due = s->step % w.interval == 0, full = (s->step / w.interval) % WATCHDOG_FULL_EVERY == 0;
    if (s->ghost_hooks && due && full && isfinite(st->energy_budget))
        st->energy_everywhere = over_ranks(s, watchdog_energy(s));
    if (!due && !s->fault) {
        r->problem = WATCHDOG_OK;
        return WATCHDOG_OK;
    }
    bool drop = w.on_error == WATCHDOG_ACTION_DROP_PARTICLE;
    if (s->ghost_hooks && drop && due) return guard_on_ranks(s, st, full, r);
    for (;;) {
        watchdog_problem p = check(s, st, full, r);
        /* on ranks, a step no other rank checks is no step to drop in: the engine's
         * fault that brought this rank here stops the run */
        if (p == WATCHDOG_OK || !drop || s->ghost_hooks || p == WATCHDOG_ENERGY_RISE ||
            p == WATCHDOG_NO_PARTICLES || p == WATCHDOG_RUNAWAY || r->particle < 0)
            return p;
        char msg[1024];
        watchdog_format(r, s, msg, sizeof msg);
        log_drop(st, msg, r->particle_id);
        size_t i = (size_t)r->particle;
        if (isfinite(st->energy_budget)) {
            /* what it carried leaves with it */
            double e = particle_energy(s, i);
            if (isfinite(e)) st->energy_budget = fmax(0.0, st->energy_budget - e);
        }
        watchdog_drop_particle(s, i);
        st->dropped++;
        if (s->p.n_local == 0 && s->cfg.n_inlets == 0) {
            r->problem = WATCHDOG_NO_PARTICLES;
            return r->problem;
        }
    }
}

/* ---- dropping a particle ------------------------------------------------------------- */

/* Takes back from this rank's particles what their contacts with particle `id` (it, its
 * periodic images, a ghost of it) exerted on them. */
static void release_partners(sim *s, int64_t id)
{
    particle_store *p = &s->p;
    contact_list *c = &s->pairs;
    double *f[3] = {p->fx, p->fy, p->fz};
    for (size_t k = 0; k < c->n; k++) {
        bool first = p->id[c->i[k]] == id, second = p->id[c->j[k]] == id;
        if (first == second || !(contact_overlap(c, p, k) > 0.0)) continue; /* not it, or it with itself */
        size_t other = first ? c->owner_j[k] : c->i[k];
        if (other < p->n_local)
            for (int a = 0; a < 3; a++) f[a][other] += first ? c->force[a][k] : -c->force[a][k]; /* it got -force */
    }
    /* a partner whose force stays non-finite keeps only its weight */
    for (size_t i = 0; i < p->n_local; i++)
        if (!all_finite(p->fx[i], p->fy[i], p->fz[i]))
            for (int a = 0; a < 3; a++) f[a][i] = p->mass[i] * s->cfg.gravity[a];
}

static void out_of_memory(sim *s)
{
    s->fault = SIM_FAULT_NO_MEMORY;
    s->fault_memory = SIM_MEMORY_DROP;
}

/* Removes what `remove` marks among the store's first n_marked entries
 * (population_remove: the lists follow, the next step rebuilds them). */
static void remove_marked(sim *s, const uint8_t *remove, size_t n_marked)
{
    int64_t *new_index = malloc(population_removal_room(s) * sizeof *new_index);
    if (!new_index) {
        out_of_memory(s);
        return;
    }
    population_remove(s, remove, n_marked, new_index, POPULATION_LISTS_FOLLOW);
    free(new_index);
}

/* On ranks, where another rank drops particle `id`: its contacts with this rank's
 * particles end as its drop ends them there (what it exerted taken back, the pairs
 * gone); its ghosts go at the next step's rebuild. */
static void forget_ghost(sim *s, int64_t id)
{
    particle_store *p = &s->p;
    release_partners(s, id);
    size_t entries = population_removal_room(s) - 1;
    uint8_t *ghost = calloc(entries + 1, 1);
    if (!ghost) {
        out_of_memory(s);
        return;
    }
    for (size_t g = p->n_local; g < entries; g++) ghost[g] = p->id[g] == id;
    remove_marked(s, ghost, entries);
    free(ghost);
}

void watchdog_drop_particle(sim *s, size_t d)
{
    particle_store *p = &s->p;
    if (d >= p->n_local) return;
    release_partners(s, p->id[d]);
    uint8_t *remove = calloc(p->n_local + 1, 1);
    if (!remove) {
        out_of_memory(s);
        return;
    }
    remove[d] = 1;
    remove_marked(s, remove, p->n_local);
    free(remove);
}
