/* The normal-force law interface: a plug-in of the form every law takes (plugin.h).
 *
 * A law is one const struct (see models/registry.c) that names itself, lists its
 * parameters, declares its capabilities and fills in two functions: `setup`, called once
 * per pair of material types, and `force`, called by the engine once per batch of
 * contacts so that its loop can vectorise. Most laws are an elastic part composed with a
 * damping part (models/normal_parts.h), whose names they give in `elastic` and `damping`.
 * The engine never names a law; it only sees this struct.
 *
 * Sign conventions (docs/physics.md): overlap d > 0 in contact, overlap rate
 * d' > 0 while the particles approach, v0 the impact velocity stored at first touch.
 * The returned force is the normal force magnitude F (repulsive > 0); the engine
 * applies -F n to particle i and +F n to j, and clamps F < 0 to 0 when the pair's
 * cohesion-removal switch is on. */
#ifndef DEMPACT_LAW_H
#define DEMPACT_LAW_H

#include <stddef.h>

#include "plugin.h"

/* Capacities of a normal law (the registry check holds every law to them,
 * law_registry_check; tests/test_registry.c):
 *  - LAW_MAX_PARAMS: its parameters (law_binding.params holds that many);
 *  - LAW_MAX_HISTORY: its per-contact state (n_state; the contact lists carry that many
 *    arrays, engine/neighbours/contacts.h);
 *  - LAW_MAX_COEFFS: the constants its setup computes per pair of materials
 *    (law_coeffs.c). A composed law keeps its elastic part's in c[0, NORMAL_DAMPING_C0)
 *    and its damping part's in c[NORMAL_DAMPING_C0, LAW_MAX_COEFFS) (models/normal_parts.h);
 *    each law file asserts statically that its slots fit. */
#define LAW_MAX_PARAMS 16
#define LAW_MAX_HISTORY 4
#define LAW_MAX_COEFFS 16

/* The flags a normal law may declare. */
#define LAW_NORMAL_CAPS                                                                 \
    (LAW_CAP_CONTACT_TIME | LAW_CAP_CALIBRATES | LAW_CAP_LINEAR_IN_RATE | LAW_CAP_ENERGY | \
     LAW_CAP_CONSERVATIVE | LAW_CAP_PLASTIC | LAW_CAP_IMPACT_VELOCITY)

/* Properties of a pair of material types, handed to every kind's setup. */
typedef struct law_pair_props {
    double young_eff; /* E*: 1/E* = (1-nu_i^2)/E_i + (1-nu_j^2)/E_j */
    double shear_eff; /* G*: 1/G* = (2-nu_i)/G_i + (2-nu_j)/G_j */
    double density_a, density_b;
    double law_restitution; /* friction laws: the normal law's restitution e (NAN if it
                               has none); NAN for a normal law's own setup */
} law_pair_props;

/* What setup computes once per pair of material types. `c` holds the law's own
 * precomputed constants; the engine treats them as opaque. */
typedef struct law_coeffs {
    double c[LAW_MAX_COEFFS];
    double young_eff;
    int cohesion_removal;
} law_coeffs;

/* One batch of contacts that share a law and a pair of material types. Arrays are
 * indexed 0..n-1; each history slot is its own array so that loops over i vectorise. */
typedef struct law_batch {
    size_t n;
    const double *overlap;      /* d  [m] */
    const double *overlap_rate; /* d' [m/s] */
    const double *impact_velocity; /* v0 [m/s], as stored at first touch */
    const double *r_eff;        /* R* [m] */
    const double *m_eff;        /* m* [kg] */
    double *history[LAW_MAX_HISTORY]; /* slot k: n values; in: state at the step
                                         start (0 for a new contact); out: updated */
    double *force;              /* out: normal force magnitude F [N] */
} law_batch;

/* What `calibrate` may solve for (models/calibrate.h), declared by the law (with
 * LAW_CAP_CALIBRATES): the coefficient that scales its damping, stored in
 * law_coeffs.c[coeff] by setup and read by force, and the parameters that steer it, by
 * their index in the law's params (-1: the law has none). */
typedef struct law_calibration {
    const char *coefficient; /* its name as papers write it: "chi", "eta", "xi", "alpha" */
    int coeff;               /* index in law_coeffs.c */
    int target;              /* the restitution a calibration makes a collision restitute */
    int solved_param;        /* a parameter that calibration replaces (so it is not
                                required when calibrating; a restitution given without
                                calibrate is refused), or -1 */
    int fit;                 /* the `fit` parameter (law_params.h: calibrated by default), or -1 */
    int given_damping;       /* a damping that, given (>= 0), turns the default calibration
                                off, or -1 */
    int raises_restitution;  /* 1 if a larger value means less damping (alpha), 0 if more */
} law_calibration;

typedef struct dem_law {
    LAW_PLUGIN_HEAD; /* n_state: history slots beyond v0, 0..LAW_MAX_HISTORY */

    /* The parts it composes (models/normal_parts.h: an elastic part and a damping part,
     * by name as `dempact laws` lists them and a case names them), or NULL for a law
     * that is one piece (kostek). */
    const char *elastic, *damping;

    /* Computes the constants for one pair of material types from the parameter values
     * (in the order of `params`). Returns 0, or -1 with the reason in err. */
    int (*setup)(const double *params, const law_pair_props *pair, law_coeffs *out,
                 law_error *err);

    /* Normal force magnitude for every contact in the batch: a loop over the law's
     * per-contact inline function. Must not depend on the order of contacts within the
     * batch (results are bit-identical for any split). */
    void (*force)(const law_coeffs *coeffs, const law_batch *batch);

    /* The form its force composes (models/normal_parts.h: NORMAL_FORM_*), for which the
     * engine has fused passes; NORMAL_FORM_NONE (0): its own force function only. */
    int form;

    /* LAW_CAP_CONTACT_TIME: estimated duration [s] of a binary contact at impact speed
     * v0 for this pair, used to choose and check the timestep. */
    double (*contact_time)(const law_coeffs *coeffs, double r_eff, double m_eff, double v0);

    /* LAW_CAP_CALIBRATES: the damping coefficient restitution calibration solves for. */
    const law_calibration *calibration;

    /* LAW_CAP_ENERGY: energy [J] the contact would give back if unloaded now, from its
     * overlap d, R* and its history slots (LAW_MAX_HISTORY values). The engine's energy
     * balance subtracts it from the work done on the contact to get what was
     * dissipated. LAW_CAP_PLASTIC: it dissipates by plastic deformation (kostek), not by
     * a dashpot; LAW_CAP_CONSERVATIVE: it dissipates nothing (hertz) and the engine
     * books no work for it: what its contacts hold is stored energy, and whatever the
     * time integration adds or loses shows in the energy balance's residual.
     * LAW_CAP_IMPACT_VELOCITY: `force` reads batch.impact_velocity; a run whose laws
     * all lack it keeps no v0 per pair (8 bytes per candidate pair). */
    double (*elastic_energy)(const law_coeffs *coeffs, double d, double r_eff,
                             const double *history);
} dem_law;

/* The registry: every law the build knows (models/registry.c). */
const dem_law *law_find(const char *name);
int law_count(void);
const dem_law *law_at(int index);

/* Index of a parameter by name, or -1. */
int law_param_index(const dem_law *law, const char *name);

/* The law that composes the elastic part `elastic` with the damping part `damping`
 * (dem_law.elastic, .damping), or NULL. */
const dem_law *law_find_parts(const char *elastic, const char *damping);

/* The parts the registered laws compose, each once, in registry order: the k-th
 * elastic (damping = 0) or damping (damping = 1) part's name, or NULL past the last. */
const char *law_part_at(int damping, int k);

/* Checks every registered law against the plug-in form (plugin.h) and the capacities
 * above: flags that match the functions, a calibration whose indices name its
 * parameters, names and part combinations used once. Returns 0, or -1 with the first
 * problem in err. */
int law_registry_check(char *err, size_t err_len);

/* Sets the parameter named by "KEY=VALUE" in params[] (law->n_params of them): a finite
 * number within the parameter's range, or one of its choices by name. Returns the
 * parameter's index, or -1 with the reason in err (for the command lines' --param). */
int law_param_set(const dem_law *law, double *params, const char *arg, char *err,
                  size_t err_len);

/* Hertz helpers shared by several laws. */
double hertz_stiffness(double young_eff, double r_eff); /* K_hz = 4/3 E* sqrt(R*) */
double hertz_contact_time(double young_eff, double r_eff, double m_eff, double v0);
double hertz_max_overlap(double k_hz, double m_eff, double v0);
/* Duration of an undamped impact under F = K d^n. */
double power_law_contact_time(double k, double n, double m_eff, double v0);

#endif
