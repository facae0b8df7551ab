/* Lees-Edwards boundaries (lees_edwards.h). */
#include "lees_edwards.h"

#include <math.h>
#include <stdlib.h>

#include "engine/exact_sum.h"

void lees_edwards_advance(sim *s)
{
    if (s->cfg.lees_edwards.on) s->le.offset += lees_edwards_speed(s) * s->dt;
}

void lees_edwards_rebase(sim *s)
{
    if (!s->cfg.lees_edwards.on) return;
    double length = s->cfg.domain_max[0] - s->cfg.domain_min[0];
    double o = fmod(s->le.offset, length); /* exact: the remainder of two doubles */
    if (o < 0.0) o += length;
    s->le.offset = s->le.offset_at_rebuild = o;
    s->le.height_at_rebuild = s->cfg.domain_max[2] - s->cfg.domain_min[2];
    s->le.top_at_rebuild = s->cfg.domain_max[2];
}

/* The tallies t[0 .. n-1] summed over the ranks of a split run (exact ones; nothing in
 * one process), in one collective. */
enum { LEES_EDWARDS_TALLIES = SIM_STORED_KINDS };
static void reduce_tallies(const sim *s, tally *t, int n)
{
    if (!s->ghost_hooks || !t[0].exact) return;
    exact_sum sums[LEES_EDWARDS_TALLIES];
    for (int q = 0; q < n; q++) sums[q] = t[q].sum;
    sim_reduce_exact(s, sums, n);
    for (int q = 0; q < n; q++) t[q].sum = sums[q];
}

/* x brought into [lo, hi) by whole box lengths (a shifted x may be more than one away) */
static double into_box(double x, double lo, double hi)
{
    double length = hi - lo;
    double k = floor((x - lo) / length);
    x -= k * length;
    return x >= hi ? x - length : x < lo ? x + length : x;
}

void lees_edwards_wrap(sim *s)
{
    if (!s->cfg.lees_edwards.on) return;
    particle_store *p = &s->p;
    const double lo = s->cfg.domain_min[2], hi = s->cfg.domain_max[2];
    const double x_lo = s->cfg.domain_min[0], x_hi = s->cfg.domain_max[0];
    const double height = hi - lo, u = lees_edwards_speed(s), offset = s->le.offset;
    tally work; /* summed over the ranks: the same books on every one */
    tally_open(&work, s->cfg.reproducible);
    for (size_t i = 0; i < p->n_local; i++) {
        int side = p->z[i] >= hi ? 1 : p->z[i] < lo ? -1 : 0; /* through the top: 1 */
        if (!side) continue;
        /* the kinetic energy the jump in velocity changes (with the velocity the step
         * predicted; its correction, dt/2 of the change in acceleration, moves both
         * velocities alike) */
        double v = p->vx[i], v_new = v - side * u;
        tally_add(&work, 0.5 * p->mass[i] * (v_new * v_new - v * v));
        p->z[i] -= side * height;
        p->x[i] = into_box(p->x[i] - side * offset, x_lo, x_hi);
        p->vx[i] = v_new;
        p->vhx[i] -= side * u; /* the mid-step velocity the springs read */
    }
    reduce_tallies(s, &work, 1);
    s->le.work_sum += tally_total(&work);
}

/* Asked of the particles rather than of the images: a split run's rank may hold an own
 * particle's image on another rank only. A particle has an image above the top face
 * when it lay within the cutoff of the bottom at the rebuild, one below the bottom when
 * within the cutoff of the top (ghosts_images' test, with the faces of then); all its
 * images on one side drift alike. The largest of squares: any order, the same bits. */
double lees_edwards_image_drift2(const sim *s)
{
    const particle_store *p = &s->p;
    const double drift = s->le.offset - s->le.offset_at_rebuild;
    const double grown = s->cfg.domain_max[2] - s->cfg.domain_min[2] - s->le.height_at_rebuild;
    const double near_bottom = s->cfg.domain_min[2] + s->cutoff, near_top = s->le.top_at_rebuild - s->cutoff;
    const double *x0 = s->x_at_rebuild;
    double worst = 0.0;
    #pragma omp parallel for schedule(static) reduction(max : worst) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        const double z0 = x0[3 * i + 2];
        const int up = z0 < near_bottom, down = z0 > near_top;
        if (!up && !down) continue;
        for (int side = -1; side <= 1; side += 2) {
            if (side == 1 ? !up : !down) continue;
            double dx = p->x[i] - x0[3 * i] + side * drift, dy = p->y[i] - x0[3 * i + 1],
                   dz = p->z[i] - z0 + side * grown;
            double d2 = dx * dx + dy * dy + dz * dz;
            worst = d2 > worst ? d2 : worst;
        }
    }
    return worst;
}

int lees_edwards_index_pairs(sim *s)
{
    s->le.n_pairs = 0;
    if (!s->cfg.lees_edwards.on) return 0;
    const contact_list *c = &s->pairs;
    size_t n = 0;
    for (size_t k = 0; k < c->n; k++) n += lees_edwards_side(&s->p, c->j[k]) != 0;
    if (n > s->le.pairs_capacity) {
        uint32_t *more = realloc(s->le.pairs, n * sizeof *more);
        if (!more) return -1;
        s->le.pairs = more;
        s->le.pairs_capacity = n;
    }
    for (size_t k = 0; k < c->n; k++)
        if (lees_edwards_side(&s->p, c->j[k]) != 0) s->le.pairs[s->le.n_pairs++] = (uint32_t)k;
    return 0;
}

/* Twelve sums (the contacts' six stresses, then the flow's): plain ones in the order
 * of their terms (kept in registers), or exact ones. */
typedef struct stress_sums {
    int exact;
    double plain[12];
    exact_sum sum[12];
} stress_sums;

static inline void stress_sums_add(stress_sums *t, int first, const double v[6])
{
    if (t->exact)
        for (int a = 0; a < 6; a++) exact_sum_add(&t->sum[first + a], v[a]);
    else
        for (int a = 0; a < 6; a++) t->plain[first + a] += v[a];
}

/* In list order and particle order: the same sums for any number of threads (and,
 * exact, of ranks: each rank adds the pairs whose first particle it owns). */
void lees_edwards_box_stress(const sim *s, double stress[6])
{
    const contact_list *c = &s->pairs;
    const particle_store *p = &s->p;
    stress_sums t = {.exact = s->cfg.reproducible}; /* (every sum 0) */
    for (size_t q = 0; q < c->n && c->force[0]; q++) {
        size_t i = c->i[q], j = c->j[q];
        if (i >= p->n_local) continue; /* (another rank's pair) */
        double f[3] = {c->force[0][q], c->force[1][q], c->force[2][q]};
        if (f[0] == 0.0 && f[1] == 0.0 && f[2] == 0.0) continue; /* apart */
        double r[3] = {p->x[i] - p->x[j], p->y[i] - p->y[j], p->z[i] - p->z[j]};
        const double w[6] = {f[0] * r[0], f[1] * r[1], f[2] * r[2], f[0] * r[1], f[0] * r[2], f[1] * r[2]};
        stress_sums_add(&t, 0, w);
    }
    const double rate = s->cfg.lees_edwards.shear_rate,
                 centre = 0.5 * (s->cfg.domain_min[2] + s->cfg.domain_max[2]);
    for (size_t i = 0; i < p->n_local; i++) {
        double v[3] = {p->vx[i] - rate * (p->z[i] - centre), p->vy[i], p->vz[i]}, m = p->mass[i];
        const double k[6] = {m * v[0] * v[0], m * v[1] * v[1], m * v[2] * v[2],
                             m * v[0] * v[1], m * v[0] * v[2], m * v[1] * v[2]};
        stress_sums_add(&t, 6, k);
    }
    if (t.exact) sim_reduce_exact(s, t.sum, 12);
    double volume = 1.0;
    for (int a = 0; a < 3; a++) volume *= s->cfg.domain_max[a] - s->cfg.domain_min[a];
    for (int a = 0; a < 6; a++)
        stress[a] = t.exact ? (exact_sum_value(&t.sum[a]) + exact_sum_value(&t.sum[6 + a])) / volume
                            : (t.plain[a] + t.plain[6 + a]) / volume;
}

/* The force the particles above the plane exert through it on those below: a pair
 * whose partner is an image above the top face (side 1) pushes its particle, below,
 * with its recorded force; one whose partner is below the bottom face (side -1) pushes
 * its particle, above, so the particle pushes back on the one below. In list order:
 * the same sum for any number of threads (and, exact, of ranks: each rank adds the pairs
 * whose first particle it owns). */
void lees_edwards_plane(sim *s, int in_step)
{
    if (!s->cfg.lees_edwards.on) return;
    /* the stress, a pass over every pair, only for the barostat's next action */
    const int64_t next = in_step ? s->step + 1 : s->step;
    if (s->cfg.lees_edwards.pressure > 0.0 && next % lees_edwards_barostat_every(s) == 0)
        lees_edwards_box_stress(s, s->le.stress);
    const contact_list *c = &s->pairs;
    tally f[3];
    for (int a = 0; a < 3; a++) tally_open(&f[a], s->cfg.reproducible);
    for (size_t q = 0; q < s->le.n_pairs && c->force[0]; q++) {
        size_t k = s->le.pairs[q];
        if (c->i[k] >= s->p.n_local) continue; /* (another rank's pair) */
        int side = lees_edwards_side(&s->p, c->j[k]);
        for (int a = 0; a < 3; a++) tally_add(&f[a], side * c->force[a][k]);
    }
    reduce_tallies(s, f, 3);
    for (int a = 0; a < 3; a++) s->le.plane_force[a] = tally_total(&f[a]);
    /* the images above slip past the particles below at U: the power they put in */
    s->le.power = lees_edwards_speed(s) * s->le.plane_force[0];
    /* each step adds P(t_n) dt (the start half of P(0) dt): the trapezoid, less the
     * half of the last step's that lees_edwards_work takes off */
    s->le.work_sum += (in_step ? 1.0 : 0.5) * s->le.power * s->dt;
}

double lees_edwards_work(const sim *s)
{
    return s->cfg.lees_edwards.on ? s->le.work_sum - 0.5 * s->le.power * s->dt : 0.0;
}

double lees_edwards_barostat(sim *s)
{
    const lees_edwards_spec *le = &s->cfg.lees_edwards;
    if (!le->on || !(le->pressure > 0.0)) return 0.0;
    /* every `every` steps, for that many: its books cost a pass over the contacts */
    const int64_t every = lees_edwards_barostat_every(s);
    if (s->step % every != 0) return 0.0;
    double rate = (s->le.stress[2] - le->pressure) / (le->pressure * le->pressure_time);
    rate = rate > le->max_strain_rate ? le->max_strain_rate
           : rate < -le->max_strain_rate ? -le->max_strain_rate : rate;
    const double lo = s->cfg.domain_min[2], height = s->cfg.domain_max[2] - lo;
    double next = height * (1.0 + rate * (double)every * s->dt);
    /* a periodic axis stays longer than two cutoffs (sim_place) */
    double shortest = 2.0 * s->cutoff * (1.0 + 1e-6);
    if (next < shortest) next = shortest;
    if (next == height) return 0.0;
    const double ratio = next / height;
    particle_store *p = &s->p;
    if (sim_update_ghosts(s) != 0) return -1.0; /* the images where their particles are now */
    /* the energy the contacts' overlaps hold before and after: the change is the box's
     * work, and the contacts' (their dissipation, work less what they store, stays what
     * it was); the springs, which follow the contacts' motion, keep theirs */
    tally change[SIM_STORED_KINDS];
    for (int q = 0; q < SIM_STORED_KINDS; q++) tally_open(&change[q], s->cfg.reproducible);
    const contact_list *c = &s->pairs;
    for (size_t k = 0; k < c->n; k++) {
        size_t i = c->i[k], j = c->j[k];
        if (!contact_holds_force(c->touching[k]) || i >= p->n_local) continue;
        double r[3] = {p->x[i] - p->x[j], p->y[i] - p->y[j], (p->z[i] - p->z[j]) * ratio};
        double d_before = contact_overlap(c, p, k),
               d_after = p->radius[i] + p->radius[j] - sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        int kind;
        double e_before = sim_contact_normal_energy(s, c, k, d_before, &kind);
        tally_add(&change[kind], sim_contact_normal_energy(s, c, k, d_after, &kind) - e_before);
    }
    for (size_t i = 0; i < p->n_local; i++) p->z[i] = lo + (p->z[i] - lo) * ratio;
    s->cfg.domain_max[2] = lo + next;
    reduce_tallies(s, change, SIM_STORED_KINDS);
    for (int q = 0; q < SIM_STORED_KINDS; q++) {
        double e = tally_total(&change[q]);
        if (q < SIM_WORK_KINDS) s->work[q] += e; /* a conservative law books none */
        s->le.work_sum += e;
    }
    return fabs(next - height);
}

int64_t lees_edwards_barostat_every(const sim *s)
{
    double every = floor(s->cfg.lees_edwards.pressure_time / (1000.0 * s->dt));
    return every < 1.0 ? 1 : every > 20.0 ? 20 : (int64_t)every;
}

void lees_edwards_start_profile(sim *s)
{
    if (!s->cfg.lees_edwards.initial_profile) return;
    particle_store *p = &s->p;
    const double centre = 0.5 * (s->cfg.domain_min[2] + s->cfg.domain_max[2]);
    for (size_t i = 0; i < p->n_local; i++)
        p->vx[i] += s->cfg.lees_edwards.shear_rate * (p->z[i] - centre);
}

void sim_lees_edwards_state(const sim *s, double state[SIM_LEES_EDWARDS_STATE])
{
    const sim_lees_edwards *le = &s->le;
    const double v[SIM_LEES_EDWARDS_STATE] = {
        le->offset, le->offset_at_rebuild, le->work_sum, le->power,
        le->plane_force[0], le->plane_force[1], le->plane_force[2],
        s->cfg.domain_max[2] - s->cfg.domain_min[2], le->height_at_rebuild,
        le->stress[0], le->stress[1], le->stress[2], le->stress[3], le->stress[4], le->stress[5]};
    for (int q = 0; q < SIM_LEES_EDWARDS_STATE; q++) state[q] = v[q];
}

void lees_edwards_restore(sim *s, const double state[SIM_LEES_EDWARDS_STATE], int at_rebuild)
{
    sim_lees_edwards *le = &s->le;
    if (at_rebuild) {
        le->offset = state[1];
        s->cfg.domain_max[2] = s->cfg.domain_min[2] + state[8];
        return;
    }
    le->offset = state[0];
    le->work_sum = state[2];
    le->power = state[3];
    for (int a = 0; a < 3; a++) le->plane_force[a] = state[4 + a];
    s->cfg.domain_max[2] = s->cfg.domain_min[2] + state[7];
    for (int a = 0; a < 6; a++) le->stress[a] = state[9 + a];
}
