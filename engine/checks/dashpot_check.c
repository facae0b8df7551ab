#include "dashpot_check.h"

#include "engine/neighbours/contacts.h"

/* c dt / m* of touching contact k of list c, or -1 when its law has no dashpot to check
 * (no law, or one that does not declare its force linear in the overlap rate,
 * LAW_CAP_LINEAR_IN_RATE: a plastic law is rate independent). */
static double dashpot_ratio(const sim *s, const contact_list *c, size_t k, double d,
                            const law_instance **li_out, double *r_eff_out)
{
    double r_eff, m_eff;
    const law_instance *li = sim_contact_law(s, c, k, &r_eff, &m_eff);
    if (!li->law || !law_has(&li->law->plugin, LAW_CAP_LINEAR_IN_RATE)) return -1.0;
    /* the contact twice, at rest and approaching at 1 m/s, on copies of its history */
    double v0 = c->impact_velocity ? c->impact_velocity[k] : 0.0;
    double overlap[2] = {d, d}, rate[2] = {0.0, 1.0}, impact[2] = {v0, v0};
    double radii[2] = {r_eff, r_eff}, masses[2] = {m_eff, m_eff}, force[2];
    double history[LAW_MAX_HISTORY][2];
    law_batch b = {.n = 2, .overlap = overlap, .overlap_rate = rate, .impact_velocity = impact,
                   .r_eff = radii, .m_eff = masses, .force = force};
    for (int h = 0; h < LAW_MAX_HISTORY; h++) {
        double value = h < li->law->n_state && c->history[h] ? c->history[h][k] : 0.0;
        history[h][0] = history[h][1] = value;
        b.history[h] = history[h];
    }
    li->law->force(&li->coeffs, &b);
    *li_out = li;
    *r_eff_out = r_eff;
    return (force[1] - force[0]) * s->dt / m_eff;
}

void dashpot_check_run(const sim *s, dashpot_check *out)
{
    *out = (dashpot_check){0};
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++) {
        const contact_list *c = lists[L];
        for (size_t k = 0; k < c->n; k++) {
            if (!contact_holds_force(c->touching[k])) continue;
            double d = contact_overlap(c, &s->p, k);
            if (!(d > 0.0)) continue;
            const law_instance *li = NULL;
            double r_eff = 0.0, ratio = dashpot_ratio(s, c, k, d, &li, &r_eff);
            if (ratio > 1.0) out->unresolved++;
            if (ratio > out->worst) {
                out->worst = ratio;
                out->worst_law = li;
                out->worst_overlap = d / r_eff;
            }
        }
    }
}
