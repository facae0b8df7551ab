/* The watchdog's checks (watchdog.h): one pass over the particles, the contact lists
 * when the step's deepest overlap asks for it, the energy against its budget. */
#include "watchdog.h"

#include <math.h>
#include <string.h>

#include "engine/exact_sum.h"
#include "watchdog_internal.h"

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
    if (s->cfg.lees_edwards.on) return false; /* the shear does work */
    for (size_t w = 0; w < s->walls.n; w++) {
        const wall_spec *ws = &s->walls.walls[w];
        if (ws->velocity[0] != 0.0 || ws->velocity[1] != 0.0 || ws->velocity[2] != 0.0 ||
            ws->angular_velocity != 0.0 || ws->n_motion > 0 || ws->n_servo > 0)
            return false; /* a moving wall does work */
    }
    for (int a = 0; a < 3; a++)
        if (s->cfg.periodic[a] && s->cfg.gravity[a] != 0.0) return false;
    return true;
}

/* The point of zero potential energy: the face of the domain gravity points to. */
void watchdog_potential_origin(const sim *s, double origin[3])
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
        if (tx)
            for (size_t i = start; i < end; i++)
                bad |= NOT_FINITE(wx[i] + wy[i] + wz[i] + fx[i] + fy[i] + fz[i] + tx[i] +
                                  ty[i] + tz[i]);
        else /* no torque (particles.h) */
            for (size_t i = start; i < end; i++)
                bad |= NOT_FINITE(wx[i] + wy[i] + wz[i] + fx[i] + fy[i] + fz[i]);
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
    watchdog_potential_origin(s, origin);
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
    /* with adhesion, plus what its contacts hold (<= 0): the surface energy a contact
     * turns into motion as it snaps in is no rise */
    return scan.energy + sim_adhesion_energy(s);
}


static void fill_particle(const sim *s, size_t i, watchdog_report *r)
{
    const particle_store *p = &s->p;
    r->particle = (long)i;
    r->particle_id = p->id[i];
    r->position[0] = p->x[i]; r->position[1] = p->y[i]; r->position[2] = p->z[i];
    r->velocity[0] = p->vx[i]; r->velocity[1] = p->vy[i]; r->velocity[2] = p->vz[i];
    r->force[0] = p->fx[i]; r->force[1] = p->fy[i]; r->force[2] = p->fz[i];
}

static void find_not_finite(const sim *s, watchdog_report *r)
{
    const particle_store *p = &s->p;
    long best = -1;
    for (size_t i = 0; i < p->n_local; i++) {
        const char *q = !watchdog_all_finite(p->x[i], p->y[i], p->z[i])      ? "position"
                        : !watchdog_all_finite(p->vx[i], p->vy[i], p->vz[i]) ? "velocity"
                        : !watchdog_all_finite(p->wx[i], p->wy[i], p->wz[i]) ? "angular velocity"
                        : !watchdog_all_finite(p->fx[i], p->fy[i], p->fz[i]) ? "force"
                        : p->tx && !watchdog_all_finite(p->tx[i], p->ty[i], p->tz[i])
                            ? "torque"
                                                                    : NULL;
        if (!q || !watchdog_sooner(s, i, best)) continue;
        best = (long)i;
        r->quantity = q;
        if (!watchdog_by_id(s)) break;
    }
    if (best < 0) return;
    r->problem = WATCHDOG_NOT_FINITE;
    fill_particle(s, (size_t)best, r);
    watchdog_strongest_contact(s, (size_t)best, &r->contact);
}

static void find_outside(const sim *s, watchdog_report *r)
{
    const particle_store *p = &s->p;
    const double *pos[3] = {p->x, p->y, p->z};
    long best = -1;
    for (size_t i = 0; i < p->n_local && (best < 0 || watchdog_by_id(s)); i++)
        for (int a = 0; a < 3; a++) {
            if (s->cfg.periodic[a]) continue;
            int side = pos[a][i] < s->cfg.domain_min[a] ? -1 : pos[a][i] > s->cfg.domain_max[a] ? 1 : 0;
            if (!side || !watchdog_sooner(s, i, best)) continue;
            best = (long)i;
            r->axis = a;
            r->side = side;
            r->limit = side < 0 ? s->cfg.domain_min[a] : s->cfg.domain_max[a];
            break;
        }
    if (best < 0) return;
    r->problem = WATCHDOG_LEFT_DOMAIN;
    fill_particle(s, (size_t)best, r);
    watchdog_strongest_contact(s, (size_t)best, &r->contact);
}

/* The first particle that moves more than STEP_FRACTION of its radius in one step. */
static void find_too_fast(const sim *s, watchdog_report *r)
{
    const particle_store *p = &s->p;
    long best = -1;
    for (size_t i = 0; i < p->n_local && (best < 0 || watchdog_by_id(s)); i++) {
        double reach = WATCHDOG_STEP_FRACTION * p->radius[i];
        double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        if (!(sqrt(v2) * s->dt > reach) || !watchdog_sooner(s, i, best)) continue;
        best = (long)i;
        r->limit = reach;
    }
    if (best < 0) return;
    r->problem = WATCHDOG_TOO_FAST;
    fill_particle(s, (size_t)best, r);
    watchdog_strongest_contact(s, (size_t)best, &r->contact);
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
    watchdog_strongest_contact(s, best_i, &r->contact);
}

/* Lower bounds of every radius and mass now and to come (inlets included). */
double watchdog_radius_floor(const sim *s)
{
    double r = HUGE_VAL;
    for (size_t i = 0; i < s->p.n_local; i++) r = fmin(r, s->p.radius[i]);
    for (int k = 0; k < s->cfg.n_inlets; k++) r = fmin(r, s->cfg.inlets[k].radius_min);
    return r;
}

double watchdog_mass_floor(const sim *s)
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

watchdog_problem watchdog_check(const sim *s, const watchdog_state *st, bool full,
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
        (L = watchdog_first_deep_contact(s, w.max_overlap_fraction, &k)) >= 0) {
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
        watchdog_describe_contact(s, L, k, i, &r->contact);
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
        r->energy = !full              ? watchdog_energy(s)
                    : s->ghost_hooks ? st->energy_everywhere
                                     : scan.energy + sim_adhesion_energy(s);
    if (r->energy > budget * (1.0 + w.energy_tolerance)) {
        r->problem = WATCHDOG_ENERGY_RISE;
        r->limit = budget * (1.0 + w.energy_tolerance);
        find_fastest(s, r);
    }
    return r->problem;
}

watchdog_problem watchdog_check_start(const sim *s, watchdog_report *r)
{
    watchdog_state st = {.energy_budget = NAN, .radius_floor = watchdog_radius_floor(s),
                         .mass_floor = watchdog_mass_floor(s)};
    watchdog_check(s, &st, true, r);
    r->step = -1; /* marks "before the first step" for watchdog_format */
    /* split over ranks: the problem one process would find first is reported, by the
     * rank that holds it */
    if (s->ghost_hooks && !watchdog_first_here(s, r->problem, r)) r->problem = WATCHDOG_OK;
    return r->problem;
}

/* The sum of the ranks' x (x in one process; collective in a split run). */
double watchdog_over_ranks(const sim *s, double x)
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
    /* the contacts' stored energy from their forces: none without them (no check) */
    if (!s->pairs.force[0]) return NAN;
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
    return watchdog_over_ranks(s, watchdog_energy(s) + stored);
}