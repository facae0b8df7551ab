/* The one form every contact-law plug-in takes: the normal laws (models/law.h), the
 * tangential and rolling laws (models/friction_law.h), and the adhesion laws
 * (models/adhesion_law.h).
 *
 * A plug-in is one const struct of its kind that starts with the same descriptor
 * (LAW_PLUGIN_HEAD: name, summary, citations, typed parameters, the per-contact state it
 * keeps, its capability flags), then its kind's functions:
 *   setup    once per pair of material types: checks the parameters, fills the kind's
 *            constants, returns 0 or -1 with a law_error (the parameter at fault, why);
 *   force    a batch function the engine calls per run of contacts, a thin loop over a
 *            `static inline` per-contact function in the law's header, which a fused
 *            kernel can call as well;
 * and the optional functions its flags declare (contact time, energy, step stiffness).
 * A registry per kind (models/registry.c, models/friction_registry.c) lists them, and
 * checks every one against this form and the capacities below (law_registry_check,
 * friction_registry_check; tests/test_registry.c). docs/architecture.md has the recipe. */
#ifndef DEMPACT_PLUGIN_H
#define DEMPACT_PLUGIN_H

#include <stddef.h>

/* A parameter as the user sees it in `dempact laws` and in case files. A parameter
 * with `choices` takes one of the listed names; its value is the index in `choices`.
 * Parameters are scoped per plug-in: two plug-ins may each take a key of the same name
 * with its own unit and range (the case reader checks a key against the chosen law's
 * parameters only). */
typedef struct law_param {
    const char *name;
    double default_value;      /* NAN: required (no default) */
    const char *unit;
    const char *help;
    const char *const *choices; /* NULL-terminated, or NULL for a number */
    double min_value, max_value; /* accepted closed range (checked by the reader) */
} law_param;

/* Capability flags (law_plugin.caps): what a plug-in declares it has, read by the
 * engine instead of guessing from its parameters' names or its functions. The
 * registry check holds each flag to the function it promises. */
enum {
    LAW_CAP_CONTACT_TIME = 1u << 0,  /* normal: contact_time, the step's collision bound */
    LAW_CAP_STEP_SPRING = 1u << 1,   /* tangential, rolling: `stiffness` gives its spring and
                                        dashpot for the step's stability limit */
    LAW_CAP_CALIBRATES = 1u << 2,    /* normal: a law_calibration (the damping coefficient
                                        calibrate solves and the parameter it targets) */
    LAW_CAP_LINEAR_IN_RATE = 1u << 3, /* the force is affine in the overlap rate d' (or the
                                        relative velocity) at fixed state: F(d') = F(0) + c d',
                                        so c = F(1) - F(0) is its dashpot (engine/checks/dashpot_check.c) */
    LAW_CAP_ENERGY = 1u << 4,        /* elastic_energy / spring_energy: what the contact gives
                                        back unloaded now, for the energy books */
    LAW_CAP_CONSERVATIVE = 1u << 5,  /* dissipates nothing: no work is booked for it */
    LAW_CAP_PLASTIC = 1u << 6,       /* dissipates by plastic deformation (rate independent) */
    LAW_CAP_IMPACT_VELOCITY = 1u << 7, /* reads the impact velocity v0 stored at first touch */
    LAW_CAP_USES_TURN = 1u << 8,     /* rolling: reads the step's relative turn and the reduced
                                        rolling inertia (and keeps the rolling spring theta) */
};

/* The descriptor every plug-in starts with. */
#define LAW_PLUGIN_FIELDS                                                               \
    const char *name;    /* as users type it, e.g. "hertz_tti", "mindlin" */          \
    const char *summary; /* one line: the formula */                                 \
    const char *source;  /* full citations, one per line (authors (year), title,      \
                            journal volume(issue), pages, doi) */                     \
    const law_param *params; /* the keys it takes (beside a friction law's            \
                                coefficient and model) */                             \
    int n_params;                                                                     \
    int n_state;         /* per-contact values it keeps across steps, snapshots and   \
                            restarts (its kind's capacity bounds it) */               \
    const char *const *state_names; /* their names (n_state of them), or NULL */      \
    unsigned caps;       /* LAW_CAP_* */

typedef struct law_plugin {
    LAW_PLUGIN_FIELDS
} law_plugin;

/* The head of a plug-in struct: the descriptor as one member (`plugin`, for code that
 * handles any kind) and its fields by name (law->name). Both name the same storage. */
#define LAW_PLUGIN_HEAD                                                                 \
    union {                                                                           \
        law_plugin plugin;                                                            \
        struct {                                                                      \
            LAW_PLUGIN_FIELDS                                                         \
        };                                                                            \
    }

static inline int law_has(const law_plugin *p, unsigned cap) { return (p->caps & cap) != 0; }

/* Why a setup refused: the parameter at fault (its index in params, -1 for none in
 * particular) and the reason. A normal law's reason is a whole sentence ("restitution =
 * 2: give a value in (0, 1]"); a friction law's follows the key's path and value in
 * the reader's message ("contacts[0].friction.static = 0.3 is below ..."). */
typedef struct law_error {
    int param;
    char msg[256];
} law_error;

/* Sets *e and returns -1 (setups end with `return law_fail(err, k, "...", ...)`). */
int law_fail(law_error *e, int param, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Index of a parameter by name in a plug-in's params, or -1. */
int law_plugin_param(const law_plugin *p, const char *name);

/* Every parameter's default into values[] (p->n_params of them). */
void law_plugin_defaults(const law_plugin *p, double *values);

/* The checks every plug-in of any kind passes (the registries add their kind's): a
 * name, summary and source; at most max_params parameters, each named once, with a
 * unit and help, a range min <= max with finite max when finite_max, and a default in
 * range (or NAN: required); 0 <= n_state <= max_state with a name for each; no flag
 * outside `allowed`. Returns 0, or -1 with the first problem in err. */
int law_plugin_check(const law_plugin *p, int max_params, int max_state, int finite_max,
                     unsigned allowed, char *err, size_t err_len);

#endif
