/* The contacts the watchdog names (watchdog_internal.h): a particle's strongest, the
 * deepest, and which of several offenders a report names. */
#include "watchdog.h"

#include <math.h>

#include "watchdog_internal.h"

static const law_instance *law_of(const sim *s, int a, int b)
{
    return &s->laws[a * s->n_materials + b];
}

/* Fills c with contact k of list L (0: particle pairs, 1: walls) seen from particle i. */
void watchdog_describe_contact(const sim *s, int L, size_t k, size_t i, watchdog_contact *c)
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
    c->force_recorded = L || watchdog_pair_forces_recorded(s);
    c->force = !c->force_recorded ? NAN
                                  : sqrt(list->force[0][k] * list->force[0][k] +
                                         list->force[1][k] * list->force[1][k] +
                                         list->force[2][k] * list->force[2][k]);
}

bool watchdog_pair_forces_recorded(const sim *s)
{
    return s->pairs.force[0] && sim_pair_forces_recorded(s);
}

/* How strong contact k of list c is, as watchdog_strongest_contact ranks them: its
 * force's size (the sum of the components' sizes), or its overlap where the step did
 * not record the pairs' forces (`by_overlap`: every contact, walls too, ranked alike). */
static double strength(const contact_list *c, size_t k, double d, bool by_overlap)
{
    if (by_overlap) return d;
    return fabs(c->force[0][k]) + fabs(c->force[1][k]) + fabs(c->force[2][k]);
}

/* Is contact k a worse culprit than the best so far? Non-finite forces first, then the
 * largest force. */
static bool worse(double force, double best)
{
    if (!isfinite(force)) return isfinite(best);
    return isfinite(best) && force > best;
}

/* The contact of particle i with a non-finite force, else with the largest force; where
 * the step did not record the pairs' forces, with a non-finite overlap, else the largest. */
void watchdog_strongest_contact(const sim *s, size_t i, watchdog_contact *out)
{
    *out = (watchdog_contact){.found = false};
    const bool by_overlap = !watchdog_pair_forces_recorded(s);
    double best = -1.0;
    int best_list = -1;
    size_t best_k = 0;
    for (int L = 0; L < 2; L++) {
        const contact_list *c = L ? &s->wall_pairs : &s->pairs;
        if (!c->first_of_i || i >= c->n_first) continue;
        for (size_t k = c->first_of_i[i]; k < c->first_of_i[i + 1]; k++) {
            double d = contact_overlap(c, &s->p, k);
            if (!(d > 0.0) && isfinite(d)) continue;
            double f = strength(c, k, d, by_overlap);
            if (best_list < 0 || worse(f, best)) { best = f; best_list = L; best_k = k; }
        }
        if (L == 0) /* where i is the second particle: a scan (only when reporting) */
            for (size_t k = 0; k < c->n; k++) {
                if (c->owner_j[k] != i) continue;
                double d = contact_overlap(c, &s->p, k);
                if (!(d > 0.0) && isfinite(d)) continue;
                double f = strength(c, k, d, by_overlap);
                if (best_list < 0 || worse(f, best)) { best = f; best_list = L; best_k = k; }
            }
    }
    if (best_list >= 0) watchdog_describe_contact(s, best_list, best_k, i, out);
}

/* Of several particles with a problem, or contacts too deep, a run that sums by id
 * (cfg.reproducible, and every run on ranks) names the one with the smallest id (the pair
 * with the smallest pair of ids): what no numbering and no split changes, so that every
 * rank names what one process names. Otherwise the first in the store's order. */
bool watchdog_by_id(const sim *s) { return s->cfg.reproducible != 0; }

/* Is particle i a better choice than best (-1: none yet)? */
bool watchdog_sooner(const sim *s, size_t i, long best)
{
    return best < 0 || (watchdog_by_id(s) && s->p.id[i] < s->p.id[best]);
}

/* A contact's ids in the order by_id compares them: a pair's smaller id first. */
static void contact_key(const sim *s, int L, size_t k, int64_t key[2])
{
    const contact_list *c = L ? &s->wall_pairs : &s->pairs;
    int64_t a = s->p.id[c->i[k]], b = L ? (int64_t)c->j[k] : s->p.id[c->j[k]];
    key[0] = L || a < b ? a : b;
    key[1] = L || a < b ? b : a;
}

/* The deep contact with the smallest key (pairs before walls), as watchdog_first_deep_contact. */
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
int watchdog_first_deep_contact(const sim *s, double fraction, size_t *k_out)
{
    const particle_store *p = &s->p;
    if (watchdog_by_id(s)) return deep_contact_by_id(s, fraction, k_out);
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
