/* The force at a contact's first and last step: the force of the batch's contacts that
 * start or end within the step replaced by the one whose impulse is right over the part
 * in contact. Static functions of the force loop, included by force_loop.c alone, so
 * that they compile in its translation unit as they were written for (inlined there). */
#ifndef DEMPACT_CONTACT_ENDS_H
#define DEMPACT_CONTACT_ENDS_H

#include "force_scratch.h"

#include <math.h>

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
static double end_integral(const law_instance *li, const law_batch *batch,
                           const adhesion_batch *ab, size_t q, int nh, double d, double rate,
                           double acc, double from, double span)
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
    if (ab) { /* the adhesion (models/adhesion_law.h), at the overlap itself, unclipped */
        double xa[4], ri[4], rj[4], ga[4];
        adhesion_batch at = {.n = 4, .overlap = xa, .overlap_rate = r, .r_eff = re, .r_i = ri,
                             .r_j = rj, .force = ga};
        for (int k = 0; k < 4; k++) {
            double t = from + node[k] * span;
            xa[k] = d + rate * t + 0.5 * acc * t * t;
            ri[k] = ab->r_i[q];
            rj[k] = ab->r_j[q];
        }
        li->adhesion.law->force(&li->adhesion, &at);
        for (int k = 0; k < 4; k++)
            g[k] = (li->coeffs.cohesion_removal && g[k] < 0.0 ? 0.0 : g[k]) + ga[k];
        double integral = 0.0;
        for (int k = 0; k < 4; k++) integral += weight[k] * g[k];
        return integral * span;
    }
    double integral = 0.0;
    for (int k = 0; k < 4; k++)
        integral += weight[k] * (li->coeffs.cohesion_removal && g[k] < 0.0 ? 0.0 : g[k]);
    return integral * span;
}

/* The force at the first touch of contact q of the batch, whose force is f: if it
 * touched a time d / d' < dt ago, in free flight, the one whose impulse is right. */
static double first_touch_force(const law_instance *li, const law_batch *batch,
                                const adhesion_batch *ab, size_t q, int nh, double dt, double f)
{
    double d = batch->overlap[q], rate = batch->overlap_rate[q];
    if (f == 0.0 || !(rate * dt > d)) return f;
    double span = d / rate;
    return 0.5 * f + end_integral(li, batch, ab, q, nh, d, rate, 0.0, -span, span) / dt;
}

static void first_touch_end(const law_instance *li, batch_scratch *bs, const law_batch *batch,
                            const adhesion_batch *ab, size_t q, int nh, double dt)
{
    bs->f[q] = first_touch_force(li, batch, ab, q, nh, dt, bs->f[q]);
}

/* The force of contact q of the batch (force f), opening at more than half its overlap
 * per step, if it separates within the step: this step's force then carries the whole
 * integral up to the separation, and *ends is set, for the caller to mark the pair
 * ending (CONTACT_ENDING), so that if the integrator still finds it overlapping at the
 * next step (its trajectory is not exactly the one the integral followed) it adds no
 * second impulse for the same part of the contact. */
static double separation_force(const law_instance *li, const law_batch *batch,
                               const adhesion_batch *ab, size_t q, int nh, double dt, double f,
                               int *ends)
{
    double rate = batch->overlap_rate[q];
    /* the overlap, and how far it is from where the contact lets go: at touching, or at
     * its adhesion's reach past touching (the law sees the overlap clipped at 0) */
    double d = ab ? ab->overlap[q] : batch->overlap[q];
    double gap = ab ? d - law_reach(li, batch->r_eff[q]) : d;
    *ends = 0;
    if (f == 0.0) return f;
    double acc = -f / batch->m_eff[q];
    double disc = rate * rate - 2.0 * acc * gap; /* first root of gap + d' s + acc s^2/2 */
    if (!(disc >= 0.0)) return f;
    double span = 2.0 * gap / (-rate + sqrt(disc));
    if (!(span <= dt)) return f;
    *ends = 1;
    return 0.5 * f + end_integral(li, batch, ab, q, nh, d, rate, acc, 0.0, span) / dt;
}

static void separation_end(contact_list *c, const law_instance *li, const chunk_scratch *cs,
                           batch_scratch *bs, const law_batch *batch, const adhesion_batch *ab,
                           size_t q, size_t m, int nh, double dt)
{
    int ends;
    bs->f[q] = separation_force(li, batch, ab, q, nh, dt, bs->f[q], &ends);
    if (ends) c->touching[cs->slot[m]] = CONTACT_ENDING;
}

/* The ends of law L's contacts in the chunk (the batch): only the chunk's first touches
 * and possible separations (cs->first_touch, cs->ending) are looked at. A first touch
 * closes (d' > 0) and a separation opens (d' < 0): no contact is both. */
__attribute__((unused)) /* the fused passes include this file without it */
static void contact_ends(const sim *s, contact_list *c, const law_instance *li, int L,
                         const chunk_scratch *cs, batch_scratch *bs, const law_batch *batch,
                         const adhesion_batch *ab, int nh)
{
    const double dt = s->dt;
    const int whole = cs->one_law >= 0 && !ab; /* the batch is the chunk: q == m */
    for (size_t e = 0; e < cs->n_first; e++) {
        size_t m = cs->first_touch[e];
        if (whole || cs->law[m] == L)
            first_touch_end(li, bs, batch, ab, whole ? m : bs->batch_of[m], nh, dt);
    }
    for (size_t e = 0; e < cs->n_ending; e++) {
        size_t m = cs->ending[e];
        if (whole || cs->law[m] == L)
            separation_end(c, li, cs, bs, batch, ab, whole ? m : bs->batch_of[m], m, nh, dt);
    }
}

#endif
