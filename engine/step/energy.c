/* The energy books of sim.h: the contacts' work by the trapezoidal rule, the energy
 * the touching contacts store, the particles' kinetic energy; and each contact's
 * law with its R* and m* as the force loop has them. */
#include "engine/exact_sum.h"
#include "engine/sim.h"

/* The work so far by the trapezoidal rule: each step added P(t_n) dt, which runs ahead
 * of the trapezoid by half of the last step's P dt (P vanishes at first touch). */
void sim_contact_work(const sim *s, double work[SIM_WORK_KINDS])
{
    for (int q = 0; q < SIM_WORK_KINDS; q++) work[q] = s->work[q] - 0.5 * s->work_step[q];
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

/* The energy the adhesion of contact k (law instance li, overlap d) holds
 * (models/adhesion_law.h: <= 0 for a pull), or 0 for a law that does not say. */
static double adhesion_energy(const sim *s, const contact_list *c, size_t k,
                              const law_instance *li, double d, double r_eff)
{
    const adhesion_law *a = li->adhesion.law;
    if (!law_has(&a->plugin, LAW_CAP_ENERGY)) return 0.0;
    const double *radius = s->p.radius;
    double r_j = c->is_wall ? 0.0 : radius[c->j[k]];
    return a->energy(&li->adhesion, d, r_eff, radius[c->i[k]], r_j);
}

double sim_adhesion_energy(const sim *s)
{
    int any = 0;
    for (int k = 0; k < s->n_materials * s->n_materials; k++) any |= s->laws[k].adhesion.law != NULL;
    if (!any) return 0.0;
    double e = 0.0;
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++) {
        const contact_list *c = lists[L];
        for (size_t k = 0; k < c->n; k++) {
            if (!contact_holds_force(c->touching[k]) || c->i[k] >= s->p.n_local) continue;
            double r_eff;
            const law_instance *li = sim_contact_law(s, c, k, &r_eff, NULL);
            if (li->adhesion.law) e += adhesion_energy(s, c, k, li, contact_overlap(c, &s->p, k), r_eff);
        }
    }
    return e;
}

double sim_contact_normal_energy(const sim *s, const contact_list *c, size_t k, double d, int *kind)
{
    double r_eff;
    const law_instance *li = sim_contact_law(s, c, k, &r_eff, NULL);
    const law_plugin *lp = &li->law->plugin;
    /* where the contact's work is booked (pair_delivery.h, work_kind_of) */
    *kind = law_has(lp, LAW_CAP_PLASTIC) ? SIM_WORK_PLASTIC
            : law_has(lp, LAW_CAP_CONSERVATIVE) && !li->adhesion.law ? SIM_STORED_CONSERVATIVE
                                                                      : SIM_WORK_NORMAL;
    /* a contact past touching is one that its adhesion holds (adhesion_law.h) */
    if (d <= 0.0 && !li->adhesion.law) return 0.0;
    double h[LAW_MAX_HISTORY] = {0};
    for (int q = 0; q < LAW_MAX_HISTORY && c->history[q]; q++) h[q] = c->history[q][k];
    double e = law_has(lp, LAW_CAP_ENERGY) && d > 0.0 ? li->law->elastic_energy(&li->coeffs, d, r_eff, h)
                                                      : 0.0;
    if (li->adhesion.law) e += adhesion_energy(s, c, k, li, d, r_eff);
    return e;
}

void sim_stored_energy(const sim *s, double stored[SIM_STORED_KINDS])
{
    /* summed exactly with sim_config.reproducible: the contacts' order does not count */
    tally sums[SIM_STORED_KINDS];
    for (int q = 0; q < SIM_STORED_KINDS; q++) tally_open(&sums[q], s->cfg.reproducible);
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    const particle_store *p = &s->p;
    for (int L = 0; L < 2; L++) {
        const contact_list *c = lists[L];
        for (size_t k = 0; k < c->n; k++) {
            if (!contact_holds_force(c->touching[k])) continue;
            if (c->i[k] >= p->n_local) continue; /* another rank's pair: it books it */
            double d = contact_overlap(c, p, k);
            double r_eff;
            const law_instance *li = sim_contact_law(s, c, k, &r_eff, NULL);
            /* a contact past touching is one that its adhesion holds (adhesion_law.h) */
            if (d <= 0.0 && !li->adhesion.law) continue;
            int kind;
            double e = sim_contact_normal_energy(s, c, k, d, &kind);
            tally_add(&sums[kind], e);
            double springs[2], xi[3] = {0}, theta[3] = {0};
            double slip[CONTACT_SLIP_HISTORY] = {0};
            for (int a = 0; a < 3 && c->tangential[0]; a++) xi[a] = c->tangential[a][k];
            for (int a = 0; a < 3 && c->rolling[0]; a++) theta[a] = c->rolling[a][k];
            for (int q = 0; q < CONTACT_SLIP_HISTORY && c->slip[0]; q++) slip[q] = c->slip[q][k];
            double d_plus = d > 0.0 ? d : 0.0;
            friction_spring_energy(&li->friction, d_plus, r_eff, xi, theta, slip, springs);
            tally_add(&sums[SIM_WORK_TANGENTIAL], springs[0]);
            tally_add(&sums[SIM_WORK_ROLLING], springs[1]);
        }
    }
    for (int q = 0; q < SIM_STORED_KINDS; q++) {
        sim_reduce_tally(s, &sums[q]);
        stored[q] = tally_total(&sums[q]);
    }
}

double sim_kinetic_energy(const sim *s)
{
    const particle_store *p = &s->p;
    tally e;
    tally_open(&e, s->cfg.reproducible);
    for (size_t i = 0; i < p->n_local; i++) {
        double v2 = p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i] + p->vz[i] * p->vz[i];
        double w2 = p->wx[i] * p->wx[i] + p->wy[i] * p->wy[i] + p->wz[i] * p->wz[i];
        tally_add(&e, 0.5 * p->mass[i] * v2 + 0.5 * w2 / p->inv_inertia[i]);
    }
    sim_reduce_tally(s, &e);
    return tally_total(&e);
}
