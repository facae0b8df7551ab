/* Adhesion in the pair loop's generic passes (models/adhesion_law.h): the normal law and
 * the friction see the overlap clipped at 0, the adhesion the overlap itself, and its
 * force is added to the law's after cohesion removal and friction. Static functions of
 * the force loop, included by force_loop.c alone. */
#ifndef DEMPACT_PAIR_ADHESION_H
#define DEMPACT_PAIR_ADHESION_H

#include "force_scratch.h"

/* d+ = max(d, 0), a NaN kept (the watchdog finds it) */
static inline double overlap_in_contact(double d) { return d <= 0.0 ? 0.0 : d; }

/* Adds the adhesion of law instance li to each of its n contacts' force in bs (chunk
 * slots bs->from, gathered: bs->rate, bs->r_eff), and leaves in *ab the batch it was
 * computed from (the overlaps themselves and the radii), for contact_ends. */
static void add_adhesion(const sim *s, const contact_list *c, const chunk_scratch *cs,
                         batch_scratch *bs, const law_instance *li, size_t n,
                         adhesion_batch *ab)
{
    const double *radius = s->p.radius;
    for (size_t q = 0; q < n; q++) {
        size_t m = bs->from[q];
        uint32_t k = cs->slot[m];
        bs->adh_d[q] = cs->d[m];
        bs->r_i[q] = radius[c->i[k]];
        bs->r_j[q] = c->is_wall ? 0.0 : radius[c->j[k]];
    }
    *ab = (adhesion_batch){.n = n, .overlap = bs->adh_d, .overlap_rate = bs->rate,
                           .r_eff = bs->r_eff, .r_i = bs->r_i, .r_j = bs->r_j,
                           .force = bs->f_adh};
    li->adhesion.law->force(&li->adhesion, ab);
    for (size_t q = 0; q < n; q++) bs->f[q] += bs->f_adh[q];
}

#endif
