/* Tangential friction and rolling resistance of one contact, whatever normal law
 * produced its normal force: the normal force only caps them (Coulomb).
 *
 * Tangential (Cundall-Strack spring with a Coulomb slider): the spring xi is the
 * displacement of j's contact point relative to i's, accumulated since first touch,
 * turned into the current tangent plane every step (its length kept), so that a pair
 * that rolls around each other keeps its stored force. The trial force on i is
 * F = k_t xi + eta_t v_t (v_t: tangential velocity of j's contact point relative to i's);
 *
 * Springs and dashpots read different velocities. A spring grows by the relative
 * displacement of the contact points during the step, which the engine takes from the
 * mid-step velocities v(n+1/2) (the ones that moved the centres: x(n+1) = x(n) +
 * v(n+1/2) dt) with the lever arms at mid-step: the midpoint rule, second order in dt.
 * Growing it by the end-of-step velocity (the one the dashpots need) is a backward-Euler
 * increment, first order: an oblique alumina impact resolved by 20 steps then misses
 * its rebound spin by 15 %. A contact that starts during the step grows only by the part
 * of the step it has existed (the overlap over the approach of that step), or the
 * spring would start one increment ahead, again a first-order error. The dashpots take
 * the predicted end-of-step velocity, as the normal laws do (engine/integrate.c).
 * if |F| exceeds mu_s F_n the contact slides, F = mu_d F_n F/|F|, and xi is reset to
 * F / k_t: the spring holds the whole sliding force (not the dashpot's share), so the
 * contact slides, passing exactly mu_d F_n, for as long as its surfaces slip.
 *   Mindlin (no slip):  k_t = 8 G* sqrt(R* d),
 *                       eta_t = 2 sqrt(5/6) beta sqrt(k_t m*)
 *   linear:             k_t given, eta_t = 2 beta sqrt(k_t m*)
 * with beta = -ln e_t / sqrt(ln^2 e_t + pi^2) from the tangential restitution e_t (by
 * default the normal law's restitution, so the tangential dashpot follows the normal one).
 *
 * Mindlin-Deresiewicz (microslip, model mindlin_deresiewicz): the no-slip spring above
 * becomes the partial-slip law of Mindlin & Deresiewicz (J. Appl. Mech. 20, 1953), in
 * the incremental form of Thornton (Geotechnique 41, 1991) and Thornton & Yin (Powder
 * Technol. 65, 1991), as reviewed by Thornton, Cummins & Cleary (Powder Technol. 210,
 * 2011). xi holds the elastic tangential force T [N] itself (not a displacement), and
 * per contact the branch, the turning-point forces T*, T** and the last normal force
 * (slip[], contacts.h). With a = sqrt(R* d), k0 = 8 G* a, a step dd along the force:
 *   dT = k0 theta dd + s mu dN (1 - theta),   dN = N - N(last step)
 *   loading (virgin), s = +1:          theta^3 = 1 - (T + mu dN) / (mu N)
 *   unloading from T*, s = -1:         theta^3 = 1 - (T* - T + 2 mu dN) / (2 mu N)
 *   reloading from T**, s = +1:        theta^3 = 1 - (T - T** + 2 mu dN) / (2 mu N)
 * theta clamped to [0, 1]. A reversal of dd starts unloading (T* = T) or reloading
 * (T** = T); reloading past T* is loading again (Masing's closure). As N changes,
 * T* += mu dN and T** -= mu dN. The dN terms are applied only while N falls (dN < 0):
 * a rising normal force adds a sticking annulus and must not grow T by itself (with them
 * the first step, dN = N, would put T at mu N at once). At constant N this is exactly
 * Mindlin & Deresiewicz (tests/test_friction.c): virgin loading
 * T = mu N [1 - (1 - delta/delta_s)^(3/2)], delta_s = 3 mu N / (2 k0), slope k0 at 0,
 * and a cycle between +-T* dissipates 6 mu^2 N^2 / (5 k0) [6 - 5t - (6 - t)(1 - t)^(2/3)],
 * t = T* / (mu N) (Johnson, Contact Mechanics, 1985, eqs. 7.59-7.65).
 * In 3D the law acts on T = |xi| along e = xi/|xi| (dd's direction when T = 0): the part
 * of dd along e is dd above, the part across e turns the force at the stiffness k0; when
 * T would pass through zero the frame turns with it (unloading becomes reloading from
 * -T*). xi is turned into the tangent plane every step, as the spring above. The
 * dashpot is the Mindlin model's (eta_t from k0), and the Coulomb cap is the same with
 * one coefficient mu (no `static`): |xi + eta_t v_t| > mu N slides, the force is scaled
 * to mu N, xi holds it and the loading history is forgotten (loading branch, theta 0).
 * Its stored energy (friction_spring_energy) is what T gives back when unloaded to zero
 * now on a fresh unloading branch at the last N: (T I1 - I2) / k0 with q = 2 mu N,
 * u = 1 - T/q, I1 = 3q/2 (1 - u^(2/3)), I2 = q^2 [3/2 (1 - u^(2/3)) - 3/5 (1 - u^(5/3))]
 * (exact on the virgin curve at constant N; T^2 / (2 k0) for small T).
 *
 * Rolling resistance, torque on i (on j: minus), from the relative rolling velocity
 * w_r = (w_i - w_j) without its twist part along n:
 *   constant:  M = -mu_r R* F_n w_r / |w_r|   (Ai et al. 2011, model A)
 *   spring:    elastic-plastic spring-dashpot (Ai et al. model C): a rolling spring
 *              theta (turned like xi) with k_r = 2.25 mu_r^2 R*^2 k_n, k_n = 2 E* sqrt(R* d)
 *              (Hertz's normal stiffness), M_k = -k_r theta capped at mu_r R* F_n (theta
 *              reset to match), plus a dashpot -eta_r w_r, eta_r = 2 zeta_r sqrt(I_r k_r),
 *              which is switched off while the spring is at its cap. */
#ifndef DEMPACT_FRICTION_H
#define DEMPACT_FRICTION_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* A pair of material types' friction, ready for the force loop. */
typedef struct friction_coeffs {
    int active;            /* 0: frictionless and no rolling resistance */
    int tangential_model;  /* TANGENTIAL_MINDLIN, _LINEAR or _MINDLIN_DERESIEWICZ */
    double mu, mu_static;  /* Coulomb: dynamic and static coefficients */
    double k_t;            /* linear model's stiffness [N/m] */
    double beta_t;         /* damping factor -ln e_t / sqrt(ln^2 e_t + pi^2) */
    double shear_eff, young_eff; /* G*, E* of the pair */
    int rolling_model;     /* ROLLING_NONE, ROLLING_CONSTANT, ROLLING_SPRING */
    double mu_r;           /* rolling resistance coefficient */
    double zeta_r;         /* rolling dashpot's ratio of critical damping */
} friction_coeffs;

/* What the force loop knows about one touching contact. */
typedef struct contact_kinematics {
    double n[3];        /* unit normal from i to j */
    double d;           /* overlap [m] */
    double r_eff, m_eff;
    double inertia_r;   /* reduced rolling inertia [kg m^2] (spring model only) */
    double v_rel[3];    /* velocity of j's contact point relative to i's [m/s] (dashpots) */
    double w_rel[3];    /* w_i - w_j [rad/s] (dashpots, constant rolling torque) */
    double disp[3];     /* displacement of j's contact point relative to i's during the
                           step, while in contact [m] (the tangential spring's increment) */
    double turn[3];     /* rotation of i relative to j during the step, while in contact
                           [rad] (the rolling spring's increment) */
    double f_normal;    /* normal force magnitude, >= 0 [N] */
} contact_kinematics;

/* Fills fc from the pair's friction settings, its moduli and the normal law's
 * restitution (NAN if the law has none). */
void friction_setup(const contact_friction *spec, double young_eff, double shear_eff,
                    double law_restitution, friction_coeffs *fc);

/* Number of values in the Mindlin-Deresiewicz state `slip` (contacts.h:
 * CONTACT_SLIP_HISTORY): branch, T*, T**, the last step's normal force. */
#define FRICTION_SLIP_HISTORY 4

/* Updates the springs xi and theta and, for the Mindlin-Deresiewicz model, its state
 * slip (in: state at the step start, zeros for a new contact; out: new state; the
 * other models neither read nor write it, and take NULL) and returns the tangential force on i
 * (f_t, in the tangent plane) and the rolling torque on i (m_r). power[0] and power[1]
 * receive the power the contact takes from the particles' relative motion through them
 * [W]: f_t . v_t and -m_r . w_r. */
void friction_force(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                    double theta[3], double slip[FRICTION_SLIP_HISTORY], double f_t[3],
                    double m_r[3], double power[2]);

/* The force loop's form of friction_force: the contacts of one pair type as arrays of
 * n (one array per component), for the models that friction_batchable() accepts (the
 * Cundall-Strack springs and the constant rolling torque; the Mindlin-Deresiewicz
 * model and the rolling spring keep per-contact state and take friction_force). One
 * loop over plain arrays, with no per-contact call or lookup, is what makes a frictional
 * contact cheap; friction_force uses it too, with n = 1, so both give the same bits. */
typedef struct friction_batch {
    size_t n;
    const double *normal[3];   /* unit normal from i to j */
    const double *d, *r_eff, *m_eff;
    const double *f_normal;    /* normal force magnitude, >= 0 [N] */
    const double *v_rel[3];    /* velocity of j's contact point relative to i's [m/s] */
    const double *w_rel[3];    /* w_i - w_j [rad/s] */
    const double *disp[3];     /* the springs' increment (contact_kinematics.disp) [m] */
    double *xi[3];             /* in: tangential springs; out: turned and updated */
    const uint32_t *slot;      /* contact q's spring is xi[a][slot[q]] (the contact
                                  list's own arrays, read and written in place) */
    double *f_t[3], *m_r[3];   /* out: tangential force and rolling torque on i (m_r
                                  only with friction_has_rolling_torque) */
    double *power[2];          /* out: f_t . v_t and -m_r . w_r [W] (power[1] likewise) */
} friction_batch;

/* 1 if the pair type has a rolling torque (a rolling model with mu_r > 0). Without one,
 * friction_force_batch leaves m_r and power[1] alone (friction_force sets them to 0). */
int friction_has_rolling_torque(const friction_coeffs *fc);

/* 1 if friction_force_batch can take the contacts of this pair type. */
int friction_batchable(const friction_coeffs *fc);

void friction_force_batch(const friction_coeffs *fc, const friction_batch *b);

/* Energy [J] held by the tangential and rolling springs (energy[0], energy[1]) of a
 * contact with overlap d and effective radius r_eff (slip: the Mindlin-Deresiewicz
 * state, read by that model only). */
void friction_spring_energy(const friction_coeffs *fc, double d, double r_eff,
                            const double xi[3], const double theta[3],
                            const double slip[FRICTION_SLIP_HISTORY], double energy[2]);

#endif
