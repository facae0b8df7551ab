/* Tangential friction and rolling resistance of one contact, whatever normal law
 * produced its normal force: the normal force only caps them (Coulomb).
 *
 * Tangential (Cundall-Strack spring with a Coulomb slider): the spring xi is the
 * displacement of j's contact point relative to i's, accumulated since first touch,
 * turned into the current tangent plane every step (its length kept), so that a pair
 * that rolls around each other keeps its stored force. The trial force on i is
 * F = k_t xi + eta_t v_t (v_t: tangential velocity of j's contact point relative to i's);
 * if |F| exceeds mu_s F_n the contact slides, F = mu_d F_n F/|F|, and xi is reset to
 * F / k_t: the spring holds the whole sliding force (not the dashpot's share), so the
 * contact slides, passing exactly mu_d F_n, for as long as its surfaces slip.
 *   Mindlin (no slip):  k_t = 8 G* sqrt(R* d),
 *                       eta_t = 2 sqrt(5/6) beta sqrt(k_t m*)
 *   linear:             k_t given, eta_t = 2 beta sqrt(k_t m*)
 * with beta = -ln e_t / sqrt(ln^2 e_t + pi^2) from the tangential restitution e_t (by
 * default the normal law's restitution, so the tangential dashpot follows the normal one).
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

#include "config.h"

/* A pair of material types' friction, ready for the force loop. */
typedef struct friction_coeffs {
    int active;            /* 0: frictionless and no rolling resistance */
    int tangential_model;  /* TANGENTIAL_MINDLIN or TANGENTIAL_LINEAR */
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
    double v_rel[3];    /* velocity of j's contact point relative to i's [m/s] */
    double w_rel[3];    /* w_i - w_j [rad/s] */
    double f_normal;    /* normal force magnitude, >= 0 [N] */
    double dt;
} contact_kinematics;

/* Fills fc from the pair's friction settings, its moduli and the normal law's
 * restitution (NAN if the law has none). */
void friction_setup(const contact_friction *spec, double young_eff, double shear_eff,
                    double law_restitution, friction_coeffs *fc);

/* Updates the springs xi and theta (in: state at the step start; out: new state) and
 * returns the tangential force on i (f_t, in the tangent plane) and the rolling torque
 * on i (m_r). power[0] and power[1] receive the power the contact takes from the
 * particles' relative motion through them [W]: f_t . v_t and -m_r . w_r. */
void friction_force(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                    double theta[3], double f_t[3], double m_r[3], double power[2]);

/* Energy [J] held by the tangential and rolling springs (energy[0], energy[1]) of a
 * contact with overlap d and effective radius r_eff. */
void friction_spring_energy(const friction_coeffs *fc, double d, double r_eff,
                            const double xi[3], const double theta[3], double energy[2]);

#endif
