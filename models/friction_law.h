/* The tangential-law and rolling-law interfaces: friction and rolling resistance as
 * plug-ins, as the normal laws are (models/law.h).
 *
 * A contact's friction is a Coulomb coefficient mu (friction.coefficient) and a
 * tangential law (friction.model); its rolling resistance a coefficient mu_r
 * (rolling.coefficient) and a rolling law (rolling.model). Each law is one const struct
 * (models/friction_registry.c) of the plug-in form every law takes (models/plugin.h):
 * it names itself, cites its source, lists the keys it takes beside coefficient and
 * model (as law_param: name, unit, range, default; scoped to the law, so two laws may
 * each take a key of the same name with its own unit), declares its capabilities, and
 * fills in `setup`, called once per pair of material types, and its force or torque,
 * called by the engine for a batch of contacts (or one contact at a time for a law with
 * state the batch form does not carry). The engine never names a friction law.
 *
 * Sign conventions: n is the unit normal from i to j; velocities and displacements are
 * those of j's contact point relative to i's; forces and torques are those on i (j gets
 * minus). Power is what the contact takes from the particles' relative motion [W]. */
#ifndef DEMPACT_FRICTION_LAW_H
#define DEMPACT_FRICTION_LAW_H

#include <stddef.h>
#include <stdint.h>

#include "law.h"

/* Capacities (the registry check holds every law to them, friction_registry_check;
 * tests/test_registry.c):
 *  - FRICTION_MAX_PARAMS: the keys a law takes beside coefficient and model
 *    (contact_friction holds that many values per law; the shipped laws take 3 at most);
 *  - FRICTION_MAX_COEFFS: the constants its setup computes per pair of materials
 *    (friction_coeffs.t or .r; each law file asserts statically that its own fit);
 *  - FRICTION_SLIP_HISTORY: the per-contact state a tangential law may keep beyond its
 *    spring (n_state; the contact lists carry that many arrays, contacts.h:
 *    CONTACT_SLIP_HISTORY). A rolling law keeps only its spring theta (n_state 0). */
#define FRICTION_MAX_PARAMS 4
#define FRICTION_MAX_COEFFS 4
#define FRICTION_SLIP_HISTORY 4

/* The flags a tangential and a rolling law may declare (plugin.h). */
#define TANGENTIAL_LAW_CAPS (LAW_CAP_STEP_SPRING | LAW_CAP_ENERGY | LAW_CAP_LINEAR_IN_RATE)
#define ROLLING_LAW_CAPS                                                                \
    (LAW_CAP_STEP_SPRING | LAW_CAP_ENERGY | LAW_CAP_LINEAR_IN_RATE | LAW_CAP_USES_TURN)

/* The largest values a case may give (the keys' max_value; the reader checks the two
 * coefficients). None is a bound on physics: each lies far beyond any material and
 * keeps every product the force loop forms finite, so that a stiff or rough contact is
 * refused by the step it needs (engine/checks/timestep.c) rather than overflowing.
 *  - a Coulomb coefficient (friction.coefficient, static): a million is no slip under
 *    any load; mu F_n and Mindlin-Deresiewicz's mu dN stay finite for any finite force.
 *  - the rolling coefficient: mu_r R* is the lever arm of the resisting torque, the
 *    offset of the normal force's resultant from the centre line; beyond R* (mu_r > 1)
 *    it would act outside the sphere. A constant torque that large also reverses the
 *    rolling of a contact at rest within a step by more than the normal force's own
 *    kick (models/rolling_constant.c).
 *  - a tangential stiffness [N/m]: 1e15 is 250 times the stiffest real contact (8 G* a
 *    for diamond, G ~ 5e11 Pa, at a 1 m contact radius: 4e12 N/m); the trial force
 *    k_t |xi| then stays finite, |xi| being at most mu_s F_n / k_t plus one step's
 *    relative displacement.
 *  - a tangential damping rate gamma_t [1/s]: 1e15 (the step it needs, below 1e-15 s,
 *    is a femtosecond).
 *  - a rolling damping ratio zeta_r [-]: a thousand times critical; the step it needs
 *    resolves the rolling spring's period by thousands of steps. */
#define FRICTION_MAX_COEFFICIENT 1e6
#define ROLLING_MAX_COEFFICIENT 1.0
#define FRICTION_MAX_STIFFNESS 1e15
#define FRICTION_MAX_DAMPING_RATE 1e15
#define ROLLING_MAX_DAMPING 1e3

struct tangential_law;
struct rolling_law;

/* What a pair of material types' friction is set up from: law_pair_props (E*, G*, the
 * normal law's restitution e). */
typedef law_pair_props friction_pair;

/* A pair of material types' friction, ready for the force loop. */
typedef struct friction_coeffs {
    int active;            /* 0: frictionless and no rolling resistance */
    const struct tangential_law *tangential; /* NULL: no tangential force (mu = 0) */
    const struct rolling_law *rolling;       /* NULL: no rolling torque (none, or mu_r = 0) */
    double mu;             /* Coulomb (dynamic) coefficient */
    double mu_r;           /* rolling resistance coefficient */
    double young_eff, shear_eff;
    double t[FRICTION_MAX_COEFFS]; /* the tangential law's constants (its setup's) */
    double r[FRICTION_MAX_COEFFS]; /* the rolling law's */
} friction_coeffs;

/* What the force loop knows about one touching contact. */
typedef struct contact_kinematics {
    double n[3];        /* unit normal from i to j */
    double d;           /* overlap [m] */
    double r_eff, m_eff;
    double inertia_r;   /* reduced rolling inertia [kg m^2] (laws with uses_turn only) */
    double v_rel[3];    /* velocity of j's contact point relative to i's [m/s] (dashpots) */
    double w_rel[3];    /* w_i - w_j [rad/s] (dashpots, rolling torques) */
    double disp[3];     /* displacement of j's contact point relative to i's during the
                           step, while in contact [m] (the tangential spring's increment) */
    double turn[3];     /* rotation of i relative to j during the step, while in contact
                           [rad] (the rolling spring's increment; uses_turn laws only) */
    double f_normal;    /* normal force magnitude, >= 0 [N] */
    double dt;          /* the step [s] */
} contact_kinematics;

/* The contacts of one pair type as arrays of n (one array per component), for the laws
 * with a batch function. One loop over plain arrays, with no per-contact call or lookup,
 * is what makes a frictional contact cheap. */
typedef struct friction_batch {
    size_t n;
    const double *normal[3];   /* unit normal from i to j */
    const double *d, *r_eff, *m_eff;
    const double *f_normal;    /* normal force magnitude, >= 0 [N] */
    const double *v_rel[3];    /* velocity of j's contact point relative to i's [m/s] */
    const double *w_rel[3];    /* w_i - w_j [rad/s] */
    const double *disp[3];     /* the springs' increment (contact_kinematics.disp) [m] */
    double *xi[3];             /* in: tangential springs; out: turned and updated */
    double *margin;            /* in: each contact's Coulomb margin mu_s F_n - |F_t| at
                                  the last step (0: it slid, or is new); out: this
                                  step's (the spring laws' closing bump,
                                  models/tangential_spring.h) [N] */
    const uint32_t *slot;      /* contact q's spring is xi[a][slot[q]] and its margin
                                  margin[slot[q]] (the contact list's own arrays, read
                                  and written in place) */
    double *f_t[3], *m_r[3];   /* out: tangential force and rolling torque on i */
    double *power[2];          /* out: f_t . v_t and -m_r . w_r [W] */
    double dt;                 /* the step [s] */
} friction_batch;

typedef struct tangential_law {
    LAW_PLUGIN_HEAD; /* params: keys beside coefficient and model; a default of 0 where
                        the range starts above 0 means "not given" (the help says what
                        the law then takes). n_state: per-contact values beyond the
                        spring xi (0..FRICTION_SLIP_HISTORY); a law with state has no batch */
    /* Checks the parameters against each other and the Coulomb coefficient fc->mu (set
     * before the call) and fills fc->t. Returns 0, or -1 with the parameter at fault and
     * why ("is below the (dynamic) coefficient 0.5"). The case reader calls it once per
     * contact entry with the moduli unknown (NAN), so that a refusal names the key's
     * line; the engine calls it again per pair of materials. */
    int (*setup)(const double *params, const friction_pair *pair, friction_coeffs *fc,
                 law_error *err);
    /* The tangential force (b->f_t, b->power[0]) of a batch, updating the springs in
     * place: a loop over the law's per-contact inline function; NULL for a law that
     * works contact by contact. */
    void (*batch)(const friction_coeffs *fc, const friction_batch *b);
    /* One contact (laws without a batch): updates xi and the state (in: state at the
     * step start, zeros for a new contact; NULL for a law with n_state 0), sets f_t,
     * returns the power f_t . v_t. */
    double (*one)(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                  double state[FRICTION_SLIP_HISTORY], double f_t[3]);
    /* LAW_CAP_ENERGY: energy [J] its spring holds (what it gives back unloaded now). */
    double (*spring_energy)(const friction_coeffs *fc, double d, double r_eff,
                            const double xi[3], const double state[FRICTION_SLIP_HISTORY]);
    /* LAW_CAP_STEP_SPRING, for the timestep (engine/checks/timestep.c) and `dempact check`: the
     * stiffest spring k [N/m] and dashpot c [N s/m] the contact puts against the
     * tangential motion of its contact point at overlap d (a law whose stiffness falls as
     * it slips gives its no-slip one), 0 where it has none. stiffness_key and damping_key
     * name the keys (one of params, or "coefficient") that set them, NULL where the law's
     * own form does (mindlin's 8 G* a): a refusal names them. */
    void (*stiffness)(const friction_coeffs *fc, double d, double r_eff, double m_eff,
                      double *k, double *c);
    const char *stiffness_key, *damping_key;
} tangential_law;

typedef struct rolling_law {
    LAW_PLUGIN_HEAD; /* params: keys beside model and coefficient; n_state 0;
                        LAW_CAP_USES_TURN: reads contact_kinematics.turn and inertia_r (and
                        keeps the rolling spring theta); the engine computes them only then */
    /* As the tangential law's: checks and fills fc->r. */
    int (*setup)(const double *params, const friction_pair *pair, friction_coeffs *fc,
                 law_error *err);
    /* The rolling torque (b->m_r, b->power[1]) of a batch; NULL: contact by contact. */
    void (*batch)(const friction_coeffs *fc, const friction_batch *b);
    /* One contact: updates theta, sets m_r, returns the power -m_r . w_r. */
    double (*one)(const friction_coeffs *fc, const contact_kinematics *k, double theta[3],
                  double m_r[3]);
    /* LAW_CAP_ENERGY: energy [J] its spring holds. */
    double (*spring_energy)(const friction_coeffs *fc, double d, double r_eff,
                            const double theta[3]);
    /* LAW_CAP_STEP_SPRING: as the tangential law's, the rolling spring k [N m/rad] and
     * dashpot c [N m s/rad] at overlap d, the dashpot for the reduced rolling inertia
     * inertia_r (as the engine gives contact_kinematics.inertia_r); without the flag
     * neither (a torque that is not a spring or dashpot: `constant`). The keys that set
     * them, NULL where none does. */
    void (*stiffness)(const friction_coeffs *fc, double d, double r_eff, double inertia_r,
                      double *k, double *c);
    const char *stiffness_key, *damping_key;
} rolling_law;

/* The registries (models/friction_registry.c). The first tangential law is the one a
 * case gets without friction.model. */
int tangential_law_count(void);
const tangential_law *tangential_law_at(int index);
const tangential_law *tangential_law_find(const char *name);
int rolling_law_count(void);
const rolling_law *rolling_law_at(int index);
const rolling_law *rolling_law_find(const char *name);

/* Checks every registered tangential and rolling law against the plug-in form
 * (plugin.h) and the capacities above: flags that match the functions, finite ranges,
 * keys that name their parameters, names used once per kind. Returns 0, or -1 with the
 * first problem in err. */
int friction_registry_check(char *err, size_t err_len);

/* Index of a key in a friction law's params, or -1. */
int friction_param_index(const law_param *params, int n_params, const char *name);

/* Every key's default into values[] (n_params of them). */
void friction_param_defaults(const law_param *params, int n_params, double *values);

#endif
