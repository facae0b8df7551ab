#include "friction.h"

#include <math.h>

#include "contacts.h"

_Static_assert(FRICTION_SLIP_HISTORY == CONTACT_SLIP_HISTORY,
               "the contact list holds the Mindlin-Deresiewicz state");

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Turning a spring vector v into the tangent plane of n, keeping its length (the contact
 * frame has rotated since the last step), in two halves: plane_part takes v's normal
 * part away and returns v's new squared length now2, with the old one in *len2 (now2 =
 * 0: no rescaling to do); the rescaling by sqrt(len2 / now2) is the other half, and
 * turn_into_plane does both.
 * The length lost is vn^2 / 2 |v|^2 relative; below 1e-16 (a contact that barely turned
 * this step, as most in a dense packing) the rescaling would change v by less than its
 * own rounding: skip the division and square root, the slowest part of a frictional
 * contact. tangential_batch runs the halves in separate loops, so that the division
 * and root vectorise. */
static inline __attribute__((always_inline)) double plane_part(double v[3], const double n[3],
                                                               double *len2)
{
    *len2 = dot(v, v);
    if (*len2 == 0.0) return 0.0;
    double vn = dot(v, n);
    for (int a = 0; a < 3; a++) v[a] -= vn * n[a];
    if (vn * vn <= 1e-16 * *len2) return 0.0;
    return dot(v, v);
}

static inline __attribute__((always_inline)) void turn_into_plane(double v[3],
                                                                  const double n[3])
{
    double len2, now2 = plane_part(v, n, &len2);
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

/* The Cundall-Strack spring and Coulomb slider (friction.h) of a batch of contacts:
 * per contact, turn xi into the tangent plane keeping its length, add the tangential
 * part of the step's displacement, take F = k_t xi + eta_t v_t and cap it at mu F_n. */
static void tangential_batch(const friction_coeffs *fc, const friction_batch *b)
{
    const double *restrict n0 = b->normal[0], *restrict n1 = b->normal[1],
                 *restrict n2 = b->normal[2];
    const double *restrict u0 = b->v_rel[0], *restrict u1 = b->v_rel[1],
                 *restrict u2 = b->v_rel[2];
    const double *restrict p0 = b->disp[0], *restrict p1 = b->disp[1],
                 *restrict p2 = b->disp[2];
    const double *restrict d = b->d, *restrict r_eff = b->r_eff, *restrict m_eff = b->m_eff;
    const double *restrict f_normal = b->f_normal;
    double *restrict x0 = b->xi[0], *restrict x1 = b->xi[1], *restrict x2 = b->xi[2];
    const uint32_t *restrict slot = b->slot;
    double *restrict f0 = b->f_t[0], *restrict f1 = b->f_t[1], *restrict f2 = b->f_t[2];
    double *restrict power = b->power[0];
    const int linear = fc->tangential_model == TANGENTIAL_LINEAR;
    const double k_linear = fc->k_t, g8 = 8.0 * fc->shear_eff;
    const double eta_factor = (linear ? 2.0 : 2.0 * sqrt(5.0 / 6.0)) * fc->beta_t;
    const double mu = fc->mu, mu_static = fc->mu_static;
    /* The stiffness and dashpot of each contact first, TANGENTIAL_BLOCK at a time, in a
     * loop of their own: it vectorises, and the main loop no longer waits on two square
     * roots per contact. */
    enum { TANGENTIAL_BLOCK = 64 };
    double stiffness[TANGENTIAL_BLOCK], damping[TANGENTIAL_BLOCK];
    double turned[3][TANGENTIAL_BLOCK], len2[TANGENTIAL_BLOCK], now2[TANGENTIAL_BLOCK];
    double restore[TANGENTIAL_BLOCK];
    for (size_t lo = 0; lo < b->n; lo += TANGENTIAL_BLOCK) {
        const size_t hi = lo + TANGENTIAL_BLOCK < b->n ? lo + TANGENTIAL_BLOCK : b->n;
        for (size_t q = lo; q < hi; q++) {
            double k_t = linear ? k_linear : g8 * sqrt(r_eff[q] * d[q]);
            stiffness[q - lo] = k_t;
            damping[q - lo] = eta_factor * sqrt(k_t * m_eff[q]);
        }
        /* turn_into_plane's halves (plane_part, then the rescaling in a loop that
         * vectorises); now2 = 0 marks a spring left as plane_part left it */
        for (size_t q = lo; q < hi; q++) {
            uint32_t k = slot[q];
            double v[3] = {x0[k], x1[k], x2[k]}, normal[3] = {n0[q], n1[q], n2[q]};
            now2[q - lo] = plane_part(v, normal, &len2[q - lo]);
            turned[0][q - lo] = v[0]; turned[1][q - lo] = v[1]; turned[2][q - lo] = v[2];
        }
        for (size_t e = 0; e < hi - lo; e++) {
            double w2 = now2[e] > 0.0 ? now2[e] : 1.0;
            restore[e] = sqrt(len2[e] / w2);
        }
        for (size_t q = lo; q < hi; q++) {
            double vn = u0[q] * n0[q] + u1[q] * n1[q] + u2[q] * n2[q];
            double t0 = u0[q] - vn * n0[q], t1 = u1[q] - vn * n1[q], t2 = u2[q] - vn * n2[q];
            double pn = p0[q] * n0[q] + p1[q] * n1[q] + p2[q] * n2[q];
            uint32_t k = slot[q];
            double s0 = turned[0][q - lo], s1 = turned[1][q - lo], s2 = turned[2][q - lo];
            if (now2[q - lo] > 0.0) {
                double f = restore[q - lo];
                s0 *= f;
                s1 *= f;
                s2 *= f;
            }
            s0 += p0[q] - pn * n0[q];
            s1 += p1[q] - pn * n1[q];
            s2 += p2[q] - pn * n2[q];
            double k_t = stiffness[q - lo], eta_t = damping[q - lo];
            double g0 = k_t * s0 + eta_t * t0, g1 = k_t * s1 + eta_t * t1,
                   g2 = k_t * s2 + eta_t * t2;
            double g_2 = g0 * g0 + g1 * g1 + g2 * g2;
            double limit = mu_static * f_normal[q];
            if (g_2 > limit * limit) {
                /* sliding: the dynamic coefficient caps the force and the spring is reset
                 * to hold all of it, xi = F / k_t. Resetting it to (F - eta_t v_t) / k_t
                 * stores the dashpot's share as elastic displacement: when eta_t v_t >
                 * mu F_n the spring points against the force, and as k_t and eta_t grow
                 * with the overlap the next trial force falls below mu F_n while the
                 * surfaces still slip. A contact sliding throughout then passed 4 % less
                 * than mu times the normal impulse (Chung & Ooi test 6, e = 0.5) and
                 * released the stored energy as a recoil when it stuck. */
                double scale = mu * f_normal[q] / sqrt(g_2);
                g0 *= scale;
                g1 *= scale;
                g2 *= scale;
                double compliance = k_t > 0.0 ? 1.0 / k_t : 0.0; /* one division, not three */
                s0 = g0 * compliance;
                s1 = g1 * compliance;
                s2 = g2 * compliance;
            }
            x0[k] = s0;
            x1[k] = s1;
            x2[k] = s2;
            f0[q] = g0;
            f1[q] = g1;
            f2[q] = g2;
            power[q] = g0 * t0 + g1 * t1 + g2 * t2;
        }
    }
}

/* The constant rolling torque of a batch: M = -mu_r R* F_n w_r / |w_r|.
 * no-trapping-math: nothing here reads the floating-point exception flags, and it lets
 * GCC evaluate both sides of a select (the same results, bit for bit). */
__attribute__((optimize("no-trapping-math")))
static void rolling_constant_batch(const friction_coeffs *fc, const friction_batch *b)
{
    const double *restrict n0 = b->normal[0], *restrict n1 = b->normal[1],
                 *restrict n2 = b->normal[2];
    const double *restrict w0 = b->w_rel[0], *restrict w1 = b->w_rel[1],
                 *restrict w2 = b->w_rel[2];
    const double *restrict r_eff = b->r_eff, *restrict f_normal = b->f_normal;
    double *restrict m0 = b->m_r[0], *restrict m1 = b->m_r[1], *restrict m2 = b->m_r[2];
    double *restrict power = b->power[1];
    const double mu_r = fc->mu_r;
    #pragma GCC ivdep /* GCC does not read restrict on locals: each array is its own */
    for (size_t q = 0; q < b->n; q++) {
        double wn = w0[q] * n0[q] + w1[q] * n1[q] + w2[q] * n2[q];
        double r0 = w0[q] - wn * n0[q], r1 = w1[q] - wn * n1[q], r2 = w2[q] - wn * n2[q];
        double limit = mu_r * r_eff[q] * f_normal[q];
        double w = sqrt(r0 * r0 + r1 * r1 + r2 * r2);
        /* every lane divides (by 1 where w is 0, the result then not taken), so that the
         * loop has selects instead of branches and vectorises; one division per contact */
        int turning = w > 0.0;
        double by = turning ? w : 1.0;
        double per = -limit / by;
        double q0 = per * r0, q1 = per * r1, q2 = per * r2;
        double a0 = turning ? q0 : 0.0, a1 = turning ? q1 : 0.0, a2 = turning ? q2 : 0.0;
        m0[q] = a0;
        m1[q] = a1;
        m2[q] = a2;
        power[q] = -(a0 * r0 + a1 * r1 + a2 * r2);
    }
}

int friction_has_rolling_torque(const friction_coeffs *fc)
{
    return fc->rolling_model != ROLLING_NONE && fc->mu_r > 0.0;
}

int friction_batchable(const friction_coeffs *fc)
{
    return fc->tangential_model != TANGENTIAL_MINDLIN_DERESIEWICZ &&
           fc->rolling_model != ROLLING_SPRING;
}

void friction_force_batch(const friction_coeffs *fc, const friction_batch *b)
{
    if (fc->mu > 0.0) {
        tangential_batch(fc, b);
    } else {
        for (int a = 0; a < 3; a++)
            for (size_t q = 0; q < b->n; q++) b->f_t[a][q] = 0.0;
        for (size_t q = 0; q < b->n; q++) b->power[0][q] = 0.0;
    }
    if (friction_has_rolling_torque(fc)) rolling_constant_batch(fc, b);
}

/* Mindlin-Deresiewicz branches (slip[0]) */
enum { MD_LOADING = 0, MD_UNLOADING = 1, MD_RELOADING = 2 };

/* theta = (1 - x)^(1/3), clamped to [0, 1] */
static double md_theta(double x)
{
    if (x >= 1.0) return 0.0;
    if (x <= 0.0) return 1.0;
    return cbrt(1.0 - x);
}

/* Returns the power f_t . v_t. xi holds the elastic tangential force [N]. */
static double microslip(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                        double slip[FRICTION_SLIP_HISTORY], double f_t[3])
{
    double v_t[3], dd[3], vn = dot(k->v_rel, k->n), pn = dot(k->disp, k->n);
    for (int a = 0; a < 3; a++) {
        v_t[a] = k->v_rel[a] - vn * k->n[a];
        dd[a] = k->disp[a] - pn * k->n[a];
    }
    turn_into_plane(xi, k->n);
    double mu = fc->mu, N = k->f_normal;
    double dN = N - slip[3];
    slip[3] = N;
    int branch = (int)slip[0];
    double t_star = slip[1], t_2star = slip[2];
    double k0 = 8.0 * fc->shear_eff * sqrt(k->r_eff * k->d);
    double eta_t = 2.0 * sqrt(5.0 / 6.0) * fc->beta_t * sqrt(k0 * k->m_eff);
    double q = mu * N;
    if (!(q > 0.0)) { /* no normal force: no friction, and the contact forgets */
        for (int a = 0; a < 3; a++) xi[a] = f_t[a] = 0.0;
        slip[0] = slip[1] = slip[2] = 0.0;
        return 0.0;
    }
    /* T: magnitude of the force, the scalar the 1D law acts on, along e */
    double T = sqrt(dot(xi, xi)), e[3] = {0.0, 0.0, 0.0};
    if (T > 0.0) {
        for (int a = 0; a < 3; a++) e[a] = xi[a] / T;
    } else {
        double l = sqrt(dot(dd, dd));
        if (l > 0.0)
            for (int a = 0; a < 3; a++) e[a] = dd[a] / l;
    }
    double dpar = dot(dd, e);
    /* a falling normal force: Thornton's corrections (a rising one adds sticking area);
     * the turning points only mean something once the contact has turned */
    double dn_term = dN < 0.0 ? mu * dN : 0.0;
    if (branch != MD_LOADING) {
        t_star += dn_term;
        t_2star -= dn_term;
    }
    /* turning points */
    if (branch == MD_LOADING && dpar < 0.0 && T > 0.0) {
        branch = MD_UNLOADING;
        t_star = T;
    } else if (branch == MD_RELOADING && dpar < 0.0) {
        branch = MD_UNLOADING;
        t_star = T;
    } else if (branch == MD_UNLOADING && dpar > 0.0) {
        branch = MD_RELOADING;
        t_2star = T;
    }
    double theta, sign;
    if (branch == MD_LOADING) {
        theta = md_theta((T + dn_term) / q);
        sign = 1.0;
    } else if (branch == MD_UNLOADING) {
        theta = md_theta((t_star - T + 2.0 * dn_term) / (2.0 * q));
        sign = -1.0;
    } else {
        theta = md_theta((T - t_2star + 2.0 * dn_term) / (2.0 * q));
        sign = 1.0;
    }
    double t_new = T + k0 * theta * dpar + sign * dn_term * (1.0 - theta);
    /* the part of the step across the force turns it, at the no-slip stiffness (with
     * k0 theta a fully slipping contact, theta = 0, could never change direction) */
    for (int a = 0; a < 3; a++) xi[a] = t_new * e[a] + k0 * (dd[a] - dpar * e[a]);
    if (t_new < 0.0) {
        /* the force passed through zero: the frame turns with it (T >= 0 again) */
        if (branch == MD_UNLOADING) {
            branch = MD_RELOADING;
            t_2star = -t_star;
        } else {
            for (int a = 0; a < 3; a++) xi[a] -= t_new * e[a];
        }
    } else if (branch == MD_RELOADING && t_new >= t_star) {
        branch = MD_LOADING; /* back on the virgin curve */
    }
    double f2 = 0.0;
    for (int a = 0; a < 3; a++) {
        f_t[a] = xi[a] + eta_t * v_t[a];
        f2 += f_t[a] * f_t[a];
    }
    if (f2 > q * q) { /* gross sliding: the spring holds the whole force, memory is lost */
        double scale = q / sqrt(f2);
        for (int a = 0; a < 3; a++) xi[a] = f_t[a] *= scale;
        branch = MD_LOADING;
    }
    slip[0] = branch;
    slip[1] = t_star;
    slip[2] = t_2star;
    return dot(f_t, v_t);
}

/* The rolling spring (elastic-plastic spring-dashpot). Returns the power -m_r . w_r. */
static double rolling_spring(const friction_coeffs *fc, const contact_kinematics *k, double theta[3],
                      double m_r[3])
{
    double w_r[3], wn = dot(k->w_rel, k->n), tn = dot(k->turn, k->n);
    for (int a = 0; a < 3; a++) w_r[a] = k->w_rel[a] - wn * k->n[a];
    double limit = fc->mu_r * k->r_eff * k->f_normal;
    turn_into_plane(theta, k->n);
    for (int a = 0; a < 3; a++) theta[a] += k->turn[a] - tn * k->n[a];
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
                    double theta[3], double slip[FRICTION_SLIP_HISTORY], double f_t[3],
                    double m_r[3], double power[2])
{
    for (int a = 0; a < 3; a++) f_t[a] = m_r[a] = 0.0;
    power[0] = power[1] = 0.0;
    /* the batch models, as a batch of one */
    static const uint32_t first = 0;
    const friction_batch one = {
        .n = 1, .normal = {&k->n[0], &k->n[1], &k->n[2]}, .d = &k->d,
        .r_eff = &k->r_eff, .m_eff = &k->m_eff, .f_normal = &k->f_normal,
        .v_rel = {&k->v_rel[0], &k->v_rel[1], &k->v_rel[2]},
        .w_rel = {&k->w_rel[0], &k->w_rel[1], &k->w_rel[2]},
        .disp = {&k->disp[0], &k->disp[1], &k->disp[2]},
        .xi = {&xi[0], &xi[1], &xi[2]}, .slot = &first, .f_t = {&f_t[0], &f_t[1], &f_t[2]},
        .m_r = {&m_r[0], &m_r[1], &m_r[2]}, .power = {&power[0], &power[1]}};
    if (fc->mu > 0.0) {
        if (fc->tangential_model == TANGENTIAL_MINDLIN_DERESIEWICZ)
            power[0] = microslip(fc, k, xi, slip, f_t);
        else
            tangential_batch(fc, &one);
    }
    if (fc->rolling_model != ROLLING_NONE && fc->mu_r > 0.0) {
        if (fc->rolling_model == ROLLING_CONSTANT)
            rolling_constant_batch(fc, &one);
        else
            power[1] = rolling_spring(fc, k, theta, m_r);
    }
}

/* Energy the tangential force T = |xi| gives back when it is unloaded to zero now, on
 * a fresh unloading branch at the last step's normal force N:
 *   U = 1/(8 G* a) int_0^T t / theta(t) dt,  theta^3 = 1 - (T - t)/(2 mu N)
 *     = (T I1 - I2) / (8 G* a),  u = 1 - T/(2 mu N), q = 2 mu N,
 *   I1 = 3q/2 (1 - u^(2/3)),  I2 = q^2 [3/2 (1 - u^(2/3)) - 3/5 (1 - u^(5/3))]. */
static double microslip_energy(const friction_coeffs *fc, double d, double r_eff,
                               const double xi[3], const double slip[FRICTION_SLIP_HISTORY])
{
    double k0 = 8.0 * fc->shear_eff * sqrt(r_eff * d), T = sqrt(dot(xi, xi));
    double q = 2.0 * fc->mu * slip[3];
    if (!(k0 > 0.0) || T == 0.0) return 0.0;
    if (!(q > 0.0) || T < 1e-6 * q) return 0.5 * T * T / k0; /* the series' first term */
    double u = 1.0 - T / q;
    if (u < 0.0) u = 0.0;
    double u23 = cbrt(u * u), u53 = u * u23;
    double i1 = 1.5 * q * (1.0 - u23);
    double i2 = q * q * (1.5 * (1.0 - u23) - 0.6 * (1.0 - u53));
    return (T * i1 - i2) / k0;
}

void friction_spring_energy(const friction_coeffs *fc, double d, double r_eff,
                            const double xi[3], const double theta[3],
                            const double slip[FRICTION_SLIP_HISTORY], double energy[2])
{
    if (fc->tangential_model == TANGENTIAL_MINDLIN_DERESIEWICZ)
        energy[0] = fc->mu > 0.0 ? microslip_energy(fc, d, r_eff, xi, slip) : 0.0;
    else
        energy[0] = fc->mu > 0.0 ? 0.5 * tangential_stiffness(fc, d, r_eff) * dot(xi, xi) : 0.0;
    energy[1] = fc->rolling_model == ROLLING_SPRING && fc->mu_r > 0.0
                    ? 0.5 * rolling_stiffness(fc, d, r_eff) * dot(theta, theta)
                    : 0.0;
}
