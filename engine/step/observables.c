#include "observables.h"

#include <math.h>
#include <string.h>

#include "engine/exact_sum.h"
#include "engine/sim.h"
#include "engine/neighbours/lees_edwards.h"

void sim_observe(const sim *s, sim_observables *o)
{
    const particle_store *p = &s->p;
    const double *g = s->cfg.gravity;
    /* summed exactly with sim_config.reproducible: the particles' order does not count */
    tally kinetic, rotational, gravitational;
    tally_open(&kinetic, s->cfg.reproducible);
    tally_open(&rotational, s->cfg.reproducible);
    tally_open(&gravitational, s->cfg.reproducible);
    for (size_t i = 0; i < p->n_local; i++) {
        double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        double w2 = p->wx[i] * p->wx[i] + p->wy[i] * p->wy[i] + p->wz[i] * p->wz[i];
        tally_add(&kinetic, 0.5 * p->mass[i] * v2);
        tally_add(&rotational, 0.5 * w2 / p->inv_inertia[i]);
        tally_add(&gravitational, -(p->mass[i] * (g[0] * p->x[i] + g[1] * p->y[i] + g[2] * p->z[i])));
    }
    sim_reduce_tally(s, &kinetic);
    sim_reduce_tally(s, &rotational);
    sim_reduce_tally(s, &gravitational);
    double ek = tally_total(&kinetic), er = tally_total(&rotational),
           eg = tally_total(&gravitational);
    o->time = s->time;
    o->step = s->step;
    o->kinetic_energy = ek;
    o->rotational_energy = er;
    o->gravitational_energy = eg;
    /* the engine's energy balance: work done on the contacts minus what they hold */
    double work[SIM_WORK_KINDS], stored[SIM_STORED_KINDS];
    sim_contact_work(s, work);
    sim_stored_energy(s, stored);
    o->elastic_energy = stored[SIM_WORK_NORMAL] + stored[SIM_WORK_PLASTIC] +
                        stored[SIM_WORK_TANGENTIAL] + stored[SIM_WORK_ROLLING] +
                        stored[SIM_STORED_CONSERVATIVE];
    o->dissipated_damping = work[SIM_WORK_NORMAL] - stored[SIM_WORK_NORMAL];
    o->dissipated_plasticity = work[SIM_WORK_PLASTIC] - stored[SIM_WORK_PLASTIC];
    o->dissipated_friction = work[SIM_WORK_TANGENTIAL] - stored[SIM_WORK_TANGENTIAL];
    o->dissipated_rolling = work[SIM_WORK_ROLLING] - stored[SIM_WORK_ROLLING];
    /* E(t) + dissipated + stored - E(0) - the moving walls' and the external loads'
     * work on the particles */
    double wall_work = 0.0;
    for (size_t w = 0; w < s->walls.n && s->walls.work; w++) wall_work += s->walls.work[w];
    o->shear_work = lees_edwards_work(s);
    const int le = s->cfg.lees_edwards.on;
    double stress[6] = {0.0};
    if (le) lees_edwards_box_stress(s, stress);
    o->lees_edwards_offset = le ? s->le.offset : 0.0;
    o->box_height = le ? s->cfg.domain_max[2] - s->cfg.domain_min[2] : 0.0;
    o->shear_stress = le ? -stress[4] : 0.0;
    o->normal_stress = le ? stress[2] : 0.0;
    o->mean_stress = le ? (stress[0] + stress[1] + stress[2]) / 3.0 : 0.0;
    o->energy_residual = s->cfg.n_inlets > 0 || s->cfg.n_outlets > 0
                             ? NAN
                             : ek + er + eg + o->elastic_energy + o->dissipated_damping +
                                   o->dissipated_plasticity + o->dissipated_friction +
                                   o->dissipated_rolling - s->initial_energy - wall_work -
                                   s->external_work - o->shear_work;

    /* a rank counts the pairs whose first particle it owns (in one process: all) */
    double worst = 0.0;
    int64_t n = 0, n_wall = 0;
    const contact_list *c = &s->pairs;
    for (size_t k = 0; k < c->n; k++) {
        double d = contact_overlap(c, &s->p, k);
        /* a contact its adhesion holds past touching (d <= 0) counts */
        if (!contact_in_touch(d, c->touching[k]) || c->i[k] >= p->n_local) continue;
        n++;
        if (d > worst) worst = d;
    }
    const contact_list *w = &s->wall_pairs;
    for (size_t k = 0; k < w->n; k++) {
        if (!contact_in_touch(w->overlap[k], w->touching[k])) continue;
        n_wall++;
        if (w->overlap[k] > worst) worst = w->overlap[k];
    }
    if (s->ghost_hooks) { /* counts are exact sums of whole numbers */
        exact_sum counts[2];
        exact_sum_clear(&counts[0]);
        exact_sum_clear(&counts[1]);
        exact_sum_add(&counts[0], (double)n);
        exact_sum_add(&counts[1], (double)n_wall);
        sim_reduce_exact(s, counts, 2);
        n = (int64_t)exact_sum_value(&counts[0]);
        n_wall = (int64_t)exact_sum_value(&counts[1]);
        worst = sim_reduce_largest(s, worst);
    }
    o->n_contacts = n;
    /* the load on each wall, as the force computation summed it from the wall contacts'
     * stored forces (walls.force: minus the force on the particles) */
    o->n_walls = s->walls.n;
    if (o->wall_force)
        for (size_t k = 0; k < 3 * s->walls.n; k++)
            o->wall_force[k] = s->walls.force ? s->walls.force[k] : NAN;
    if (o->wall_torque)
        for (size_t k = 0; k < 3 * s->walls.n; k++)
            o->wall_torque[k] = s->walls.torque ? s->walls.torque[k] : NAN;
    if (o->wall_displacement)
        for (size_t k = 0; k < s->walls.n; k++)
            for (int a = 0; a < 3; a++) o->wall_displacement[3 * k + a] = s->walls.state[k].shift[a];
    o->n_wall_contacts = n_wall;
    o->max_overlap = worst;
    o->inserted_mass = o->discharged_mass = 0.0;
    for (int k = 0; k < s->cfg.n_inlets; k++) o->inserted_mass += s->inlets[k].mass_inserted;
    for (int k = 0; k < s->cfg.n_outlets; k++) o->discharged_mass += s->outlets[k].mass_removed;
}
