/* Velocity Verlet over the particles (integrate.h). */
#include "integrate.h"

#include "external_loads.h"

/* Each local particle's force starts as its weight, its torque as zero; the pair
 * list's blocks then add to them (force_loop_run). Within a step
 * integrate_advance_positions does this in its own pass over the particles; this is for
 * the forces at the start (after creation or a restart), where no spring moves and the
 * mid-step velocities are the velocities themselves. */
void integrate_start_sums(sim *s)
{
    particle_store *p = &s->p;
    const double *g = s->cfg.gravity;
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        p->fx[i] = p->mass[i] * g[0]; p->fy[i] = p->mass[i] * g[1]; p->fz[i] = p->mass[i] * g[2];
        p->vhx[i] = p->vx[i]; p->vhy[i] = p->vy[i]; p->vhz[i] = p->vz[i];
    }
    if (!p->whx) return; /* no torque, no spin turns (particles.h) */
    #pragma omp parallel for schedule(static) if (p->n_local > s->parallel_min)
    for (size_t i = 0; i < p->n_local; i++) {
        p->tx[i] = p->ty[i] = p->tz[i] = 0.0;
        p->whx[i] = p->wx[i]; p->why[i] = p->wy[i]; p->whz[i] = p->wz[i];
    }
}

/* The particle passes run in blocks of this many particles: a block's arrays stay in L1
 * between the block's loops, and the loops without a reduction or an inner loop are
 * simple enough to vectorise. */
#define PARTICLE_BLOCK 512

/* The velocity correction (integrate_advance_positions) of particles [lo, hi) for one
 * kind of motion: v += h inv_m (f - f0), for the velocities (forces, 1/mass) or the spins
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
 * Without friction no contact exerts a torque (sim_spin_free): torques and spins are
 * left as they are, unless an external torque turns them. The external loads
 * (external_loads.h), where set, end each block's sums, and the step's work they did is
 * booked. */
void integrate_add_stored_forces(sim *s, const int correct)
{
    const int torques = !sim_spin_free(s), external = external_loads_set(s),
              spins = torques || external_loads_turn(s);
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
            for (size_t q = cross_lo; q < cross_hi; q++) { /* in order: no scattered reads */
                for (int a = 0; a < 3; a++) f[a] -= c->cross_force[a][q];
                for (int a = 0; a < 3 && torques; a++) t[a] += c->cross_torque[a][q];
            }
            for (size_t k = wall_lo; k < wall_hi; k++) {
                for (int a = 0; a < 3; a++) f[a] += w->force[a][k];
                for (int a = 0; a < 3 && torques; a++) t[a] += w->torque[a][k];
            }
            p->fx[i] = f[0]; p->fy[i] = f[1]; p->fz[i] = f[2];
            if (torques) { p->tx[i] = t[0]; p->ty[i] = t[1]; p->tz[i] = t[2]; }
        }
        if (external) external_loads_add(p, lo, hi);
        /* the block's forces are final: its velocities are corrected while in cache
         * (ghosts follow at the next ghost update) */
        if (correct) correct_block(p, h, lo, hi, spins);
    }
    if (correct && external) external_loads_book(s);
}

/* integrate_advance_positions for particles [lo, hi): the kick, drift and prediction in
 * loops that vectorise, then the largest squared displacement since the last rebuild in
 * one of its own (a max that skips NaN is no vector reduction). */
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
double integrate_advance_positions(const sim *s, particle_store *p, double dt)
{
    const int spins = !sim_spin_free(s) || external_loads_turn(s);
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
