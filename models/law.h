/* The normal-force law interface.
 *
 * A law is one const struct (see models/registry.c) that names itself, lists its
 * parameters and fills in two functions: `setup`, called once per pair of material
 * types, and `force`, called by the engine once per batch of contacts so that its loop
 * can vectorise. The engine never names a law; it only sees this struct.
 *
 * Sign conventions (docs/physics.md): overlap d > 0 in contact, overlap rate
 * d' > 0 while the particles approach, v0 the impact velocity stored at first touch.
 * The returned force is the normal force magnitude F (repulsive > 0); the engine
 * applies -F n to particle i and +F n to j, and clamps F < 0 to 0 when the pair's
 * cohesion-removal switch is on. */
#ifndef DEMPACT_LAW_H
#define DEMPACT_LAW_H

#include <stddef.h>

#define LAW_MAX_PARAMS 16
#define LAW_MAX_HISTORY 4
#define LAW_MAX_COEFFS 16

/* A parameter as the user sees it in `dempact laws` and in case files. A parameter
 * with `choices` takes one of the listed names; its value is the index in `choices`. */
typedef struct law_param {
    const char *name;
    double default_value;      /* NAN: required (no default) */
    const char *unit;
    const char *help;
    const char *const *choices; /* NULL-terminated, or NULL for a number */
    double min_value, max_value; /* accepted closed range (checked by the reader) */
} law_param;

/* Properties of a pair of material types, handed to setup. */
typedef struct law_pair_props {
    double young_eff; /* E*: 1/E* = (1-nu_i^2)/E_i + (1-nu_j^2)/E_j */
    double shear_eff; /* G*: 1/G* = (2-nu_i)/G_i + (2-nu_j)/G_j */
    double density_a, density_b;
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

/* What `calibrate` may solve for (models/calibrate.h): the coefficient that scales the
 * law's damping term, stored in law_coeffs.c[coeff] by setup and read by force. */
typedef struct law_calibration {
    const char *coefficient; /* its name as papers write it: "chi", "eta", "xi", "alpha" */
    int coeff;               /* index in law_coeffs.c */
    const char *solved_param; /* a parameter that calibration replaces (so it is not
                                 required when calibrating), or NULL */
    int raises_restitution;   /* 1 if a larger value means less damping (alpha), 0 if more */
} law_calibration;

typedef struct dem_law {
    const char *name;        /* as users type it, e.g. "hertz_tti" */
    const char *summary;     /* one line: the formula */
    const char *source;      /* full citations of the papers it comes from, one per line
                                (authors (year), title, journal volume(issue), pages, doi) */
    const law_param *params;
    int n_params;
    int n_history;           /* per-contact state beyond v0, 0..LAW_MAX_HISTORY */
    const char *const *history_names;

    /* Computes the constants for one pair of material types from the parameter values
     * (in the order of `params`). Returns 0, or -1 with a message in err. */
    int (*setup)(const double *params, const law_pair_props *pair, law_coeffs *out,
                 char *err, size_t err_len);

    /* Normal force magnitude for every contact in the batch. Must not depend on the
     * order of contacts within the batch (results are bit-identical for any split). */
    void (*force)(const law_coeffs *coeffs, const law_batch *batch);

    /* Estimated duration [s] of a binary contact at impact speed v0 for this pair,
     * used to choose and check the timestep. */
    double (*contact_time)(const law_coeffs *coeffs, double r_eff, double m_eff, double v0);

    /* The damping coefficient restitution calibration solves for; NULL for a law
     * without one (elastic or rate-independent laws). */
    const law_calibration *calibration;

    /* Energy [J] the contact would give back if unloaded now, from its overlap d, R*
     * and its history slots (the law's own; LAW_MAX_HISTORY values). The engine's
     * energy balance subtracts it from the work done on the contact to get what was
     * dissipated. */
    double (*elastic_energy)(const law_coeffs *coeffs, double d, double r_eff,
                             const double *history);
    /* 1 if the law dissipates by plastic deformation (kostek), 0 by a dashpot. */
    int plastic;
    /* 1 if the law dissipates nothing (no dashpot, no plasticity: hertz). The engine
     * books no work for it: what its contacts hold is stored energy, and whatever the
     * time integration adds or loses shows in the energy balance's residual instead of
     * being reported as a dashpot's dissipation. */
    int conservative;
    /* 1 if `force` reads batch.impact_velocity (v0, stored per contact at first touch);
     * a run whose laws all have 0 keeps no v0 per pair (8 bytes per candidate pair). */
    int uses_impact_velocity;
} dem_law;

/* The registry: every law the build knows (models/registry.c). */
const dem_law *law_find(const char *name);
int law_count(void);
const dem_law *law_at(int index);

/* Index of a parameter by name, or -1. */
int law_param_index(const dem_law *law, const char *name);

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
