/* The adhesion-law interface: attraction between the surfaces in contact, a plug-in
 * kind beside the normal, tangential and rolling laws (models/plugin.h), combinable with
 * every normal law.
 *
 * A contact's normal force with adhesion is
 *     F = F_law(d+) + F_adh(d),    d+ = max(d, 0)
 * F_law: the pair's normal law (elastic part and dashpot, with cohesion removal applied
 * to it alone: the switch clips the dashpot's pull, never the adhesion); F_adh: what the
 * adhesion law adds, negative when it pulls. A theory that changes the elastic part
 * (JKR: its force-overlap curve in place of Hertz's) adds its own curve minus the
 * Hertzian force the law already holds, and refuses (setup) a normal law whose elastic
 * part is not Hertz's. The friction's Coulomb cap takes the law's part alone,
 * max(F_law, 0): the contact area's load, which the adhesion does not change.
 *
 * Contact starts at touching (d > 0) and, for a law with a reach (reach < 0: JKR, liquid
 * bridges), lasts while d > reach(R*), past touching into tension: the pair's history
 * (contacts.h) carries that it is in contact. Without a reach (reach 0: DMT, sjkr) the
 * contact ends at touching, as without adhesion.
 *
 * Sign conventions as models/law.h: overlap d > 0 in contact (< 0: a gap), d' > 0 while
 * the surfaces approach; the force is along the normal, repulsive > 0. */
#ifndef DEMPACT_ADHESION_LAW_H
#define DEMPACT_ADHESION_LAW_H

#include <stddef.h>

#include "law.h"

/* Capacities (adhesion_registry_check holds every law to them):
 *  - ADHESION_MAX_PARAMS: the keys a law takes beside `model` (capillary's five: the
 *    bridge's volume, contact angle and surface tension, the liquid's viscosity and the
 *    roughness that cuts its lubrication gap off);
 *  - ADHESION_MAX_COEFFS: the constants its setup computes per pair of materials. */
#define ADHESION_MAX_PARAMS 5
#define ADHESION_MAX_COEFFS 8

/* The flags an adhesion law may declare (plugin.h): LAW_CAP_ENERGY, its `energy`;
 * LAW_CAP_STEP_SPRING, its `dashpot` (a force that resists the normal motion, which the
 * step must integrate stably: engine/checks/timestep_springs.c). */
#define ADHESION_LAW_CAPS (LAW_CAP_ENERGY | LAW_CAP_STEP_SPRING)

struct adhesion_law;

/* A pair of material types' adhesion, ready for the force loop. */
typedef struct adhesion_coeffs {
    const struct adhesion_law *law; /* NULL: no adhesion */
    double a[ADHESION_MAX_COEFFS];  /* the law's constants (its setup's) */
} adhesion_coeffs;

/* A batch of contacts of one pair of material types, as arrays of n. */
typedef struct adhesion_batch {
    size_t n;
    const double *overlap;      /* d [m]; < 0 past touching (laws with a reach) */
    const double *overlap_rate; /* d' [m/s] */
    const double *r_eff;        /* R* [m] */
    const double *r_i, *r_j;    /* the radii [m]; r_j 0: a wall (a flat surface) */
    double *force;              /* out: F_adh [N] (< 0: a pull) */
} adhesion_batch;

typedef struct adhesion_law {
    LAW_PLUGIN_HEAD; /* params: keys beside `model`; n_state 0 */
    /* Checks the parameters and fills ac->a (ac->law is set by the caller) for a pair of
     * materials (E*, G*) and its normal law `normal` with its constants (so that a law
     * that changes the elastic part can refuse one whose elastic part is not Hertz's).
     * The readers call it with the moduli unknown (NAN) and `normal` NULL or not yet set
     * up (normal_coeffs NULL: adhesion_check_params), so that a refusal names the key's
     * line; the engine again per pair of materials. Returns
     * 0, or -1 with the parameter at fault and why. */
    int (*setup)(const double *params, const law_pair_props *pair, const dem_law *normal,
                 const law_coeffs *normal_coeffs, adhesion_coeffs *ac, law_error *err);
    /* F_adh of a batch: a loop over the law's per-contact inline function. */
    void (*force)(const adhesion_coeffs *ac, const adhesion_batch *b);
    /* The overlap at which a contact in progress lets go, for R* (<= 0; 0: at
     * touching). The neighbour list reaches that far past touching. */
    double (*reach)(const adhesion_coeffs *ac, double r_eff);
    /* The largest pull [N] it exerts on a quasi-static contact of R* (its pull-off
     * force: JKR 3/2 pi w R*, DMT 2 pi w R*): `dempact laws`, the docs and the checks.
     * NAN for a law whose pull grows with the overlap (sjkr, sjkr2): its largest pull
     * depends on the load the contact was pressed with, not on the law alone. */
    double (*pull_off)(const adhesion_coeffs *ac, double r_eff);
    /* LAW_CAP_ENERGY: the energy [J] the adhesion of a contact at overlap d holds (the
     * work its force would do were the contact opened to its reach; <= 0 for a pull),
     * for the energy books. */
    double (*energy)(const adhesion_coeffs *ac, double d, double r_eff, double r_i,
                     double r_j);
    /* LAW_CAP_STEP_SPRING: the stiffest dashpot c [N s/m] it puts against the normal
     * motion of a contact of R* (a liquid bridge's lubrication at its smallest gap), for
     * the step's stability limit; damping_key names the key that sets it (a refusal
     * names it). */
    double (*dashpot)(const adhesion_coeffs *ac, double r_eff);
    const char *damping_key;
} adhesion_law;

/* The registry (models/adhesion_registry.c). */
int adhesion_law_count(void);
const adhesion_law *adhesion_law_at(int index);
const adhesion_law *adhesion_law_find(const char *name);

/* A law's parameters checked before any pair of materials is known, as the case reader,
 * `dempact collide` and `dempact bench` check them: its setup with the moduli unknown
 * (NAN), beside the normal law it goes with where that is known (NULL where it is not:
 * a mixing rule's), so that a law that replaces Hertz's curve refuses another normal law
 * before anything is built (the bench's bed settles first). Returns 0, or -1 with the
 * parameter at fault (or -1: the normal law) and why in *why. */
int adhesion_check_params(const adhesion_law *law, const double *params, const dem_law *normal,
                          law_error *why);

/* Checks every registered adhesion law against the plug-in form (plugin.h) and the
 * capacities above. Returns 0, or -1 with the first problem in err. */
int adhesion_registry_check(char *err, size_t err_len);

#endif
