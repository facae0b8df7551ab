#include "friction.h"

#include <math.h>

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Turns a spring vector into the tangent plane of n, keeping its length: the contact
 * frame has rotated since the last step. */
static void turn_into_plane(double v[3], const double n[3])
{
    double len2 = dot(v, v);
    if (len2 == 0.0) return;
    double vn = dot(v, n);
    for (int a = 0; a < 3; a++) v[a] -= vn * n[a];
    double now2 = dot(v, v);
    if (now2 > 0.0) {
        double scale = sqrt(len2 / now2);
        for (int a = 0; a < 3; a++) v[a] *= scale;
    }
}

static double damping_factor(double e)
{
    if (!(e > 0.0) || e >= 1.0) return 0.0;
    double l = log(e);
    return -l / sqrt(l * l + M_PI * M_PI);
}

void friction_setup(const contact_friction *spec, double young_eff, double shear_eff,
                    double law_restitution, friction_coeffs *fc)
{
    fc->tangential_model = spec->tangential_model;
    fc->mu = spec->mu;
    fc->mu_static = spec->mu_static > 0.0 ? spec->mu_static : spec->mu;
    fc->k_t = spec->tangential_stiffness;
    double e_t = spec->tangential_restitution > 0.0 ? spec->tangential_restitution
                 : law_restitution > 0.0 ? law_restitution : 1.0; /* NAN > 0 is false */
    fc->beta_t = damping_factor(e_t);
    fc->young_eff = young_eff;
    fc->shear_eff = shear_eff;
    fc->rolling_model = spec->rolling_model;
    fc->mu_r = spec->mu_rolling;
    fc->zeta_r = spec->rolling_damping;
    fc->active = fc->mu > 0.0 || (fc->rolling_model != ROLLING_NONE && fc->mu_r > 0.0);
}

static double tangential_stiffness(const friction_coeffs *fc, double d, double r_eff)
{
    return fc->tangential_model == TANGENTIAL_LINEAR ? fc->k_t
                                                     : 8.0 * fc->shear_eff * sqrt(r_eff * d);
}

static double rolling_stiffness(const friction_coeffs *fc, double d, double r_eff)
{
    double k_n = 2.0 * fc->young_eff * sqrt(r_eff * d);
    return 2.25 * fc->mu_r * fc->mu_r * r_eff * r_eff * k_n;
}

/* Returns the power f_t . v_t. */
static double tangential(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                         double f_t[3])
{
    double v_t[3], vn = dot(k->v_rel, k->n);
    for (int a = 0; a < 3; a++) v_t[a] = k->v_rel[a] - vn * k->n[a];
    turn_into_plane(xi, k->n);
    for (int a = 0; a < 3; a++) xi[a] += v_t[a] * k->dt;

    double k_t = tangential_stiffness(fc, k->d, k->r_eff);
    double eta_t = (fc->tangential_model == TANGENTIAL_LINEAR ? 2.0 : 2.0 * sqrt(5.0 / 6.0)) *
                   fc->beta_t * sqrt(k_t * k->m_eff);
    double f2 = 0.0;
    for (int a = 0; a < 3; a++) {
        f_t[a] = k_t * xi[a] + eta_t * v_t[a];
        f2 += f_t[a] * f_t[a];
    }
    double limit = fc->mu_static * k->f_normal;
    if (f2 > limit * limit) {
        /* sliding: the dynamic coefficient caps the force and the spring is reset to hold
         * all of it, xi = F / k_t. Resetting it to (F - eta_t v_t) / k_t stores the
         * dashpot's share as elastic displacement: when eta_t v_t > mu F_n the spring
         * points against the force, and as k_t and eta_t grow with the overlap the next
         * trial force falls below mu F_n while the surfaces still slip. A contact sliding
         * throughout then passed 4 % less than mu times the normal impulse (Chung & Ooi
         * test 6, e = 0.5) and released the stored energy as a recoil when it stuck. */
        double scale = fc->mu * k->f_normal / sqrt(f2);
        for (int a = 0; a < 3; a++) {
            f_t[a] *= scale;
            xi[a] = k_t > 0.0 ? f_t[a] / k_t : 0.0;
        }
    }
    return dot(f_t, v_t);
}

/* Returns the power -m_r . w_r. */
static double rolling(const friction_coeffs *fc, const contact_kinematics *k, double theta[3],
                      double m_r[3])
{
    double w_r[3], wn = dot(k->w_rel, k->n);
    for (int a = 0; a < 3; a++) w_r[a] = k->w_rel[a] - wn * k->n[a];
    double limit = fc->mu_r * k->r_eff * k->f_normal;
    if (fc->rolling_model == ROLLING_CONSTANT) {
        double w = sqrt(dot(w_r, w_r));
        for (int a = 0; a < 3; a++) m_r[a] = w > 0.0 ? -limit * w_r[a] / w : 0.0;
        return -dot(m_r, w_r);
    }
    /* elastic-plastic spring-dashpot */
    turn_into_plane(theta, k->n);
    for (int a = 0; a < 3; a++) theta[a] += w_r[a] * k->dt;
    double k_r = rolling_stiffness(fc, k->d, k->r_eff);
    double m2 = 0.0;
    for (int a = 0; a < 3; a++) {
        m_r[a] = -k_r * theta[a];
        m2 += m_r[a] * m_r[a];
    }
    if (m2 > limit * limit) { /* fully mobilised: the spring slips, no damping */
        double scale = limit / sqrt(m2);
        for (int a = 0; a < 3; a++) {
            m_r[a] *= scale;
            theta[a] = k_r > 0.0 ? -m_r[a] / k_r : 0.0;
        }
        return -dot(m_r, w_r);
    }
    double eta_r = 2.0 * fc->zeta_r * sqrt(k->inertia_r * k_r);
    for (int a = 0; a < 3; a++) m_r[a] -= eta_r * w_r[a];
    return -dot(m_r, w_r);
}

void friction_force(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                    double theta[3], double f_t[3], double m_r[3], double power[2])
{
    for (int a = 0; a < 3; a++) f_t[a] = m_r[a] = 0.0;
    power[0] = power[1] = 0.0;
    if (fc->mu > 0.0) power[0] = tangential(fc, k, xi, f_t);
    if (fc->rolling_model != ROLLING_NONE && fc->mu_r > 0.0)
        power[1] = rolling(fc, k, theta, m_r);
}

void friction_spring_energy(const friction_coeffs *fc, double d, double r_eff,
                            const double xi[3], const double theta[3], double energy[2])
{
    energy[0] = fc->mu > 0.0 ? 0.5 * tangential_stiffness(fc, d, r_eff) * dot(xi, xi) : 0.0;
    energy[1] = fc->rolling_model == ROLLING_SPRING && fc->mu_r > 0.0
                    ? 0.5 * rolling_stiffness(fc, d, r_eff) * dot(theta, theta)
                    : 0.0;
}
