/* Tangential law `mindlin_deresiewicz`: microslip.
 *
 * The no-slip spring of `mindlin` becomes the partial-slip law of Mindlin & Deresiewicz,
 * in the incremental form of Thornton and of Thornton & Yin, as reviewed by Thornton,
 * Cummins & Cleary. xi holds the elastic tangential force T [N] itself (not a
 * displacement), and per contact the branch, the turning-point forces T*, T** and the
 * last normal force (the law's state). With a = sqrt(R* d), k0 = 8 G* a, a step dd along
 * the force:
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
 * -T*). xi is turned into the tangent plane every step, as the spring is. The dashpot is
 * mindlin's (eta_t from k0), and the Coulomb cap is the same with one coefficient mu (no
 * `static`): |xi + eta_t v_t| > mu N slides, the force is scaled to mu N, xi holds it
 * and the loading history is forgotten (loading branch, theta 0). */
#include "friction_law.h"
#include "friction_kernels.h"

#include <math.h>

/* fc->t */
enum { MICROSLIP_BETA };
_Static_assert(MICROSLIP_BETA < FRICTION_MAX_COEFFS, "the constants fit friction_coeffs.t");

/* the state: branch, T*, T**, the last step's normal force */
enum { MD_BRANCH, MD_T_STAR, MD_T_2STAR, MD_LAST_N };
/* branches */
enum { MD_LOADING = 0, MD_UNLOADING = 1, MD_RELOADING = 2 };

static const law_param microslip_params[] = {
    {"restitution", 0.0, "-", "tangential restitution e_t of the dashpot; 0: the normal law's e",
     NULL, 1e-6, 1.0}};

static const char *const microslip_state[] = {"branch", "t_star", "t_2star", "last_normal_force"};

static int microslip_setup(const double *params, const friction_pair *pair, friction_coeffs *fc,
                           law_error *err)
{
    fc->t[MICROSLIP_BETA] =
        friction_damping_factor(friction_restitution(params[0], pair->law_restitution));
    return 0;
}

/* theta = (1 - x)^(1/3), clamped to [0, 1] */
static double md_theta(double x)
{
    if (x >= 1.0) return 0.0;
    if (x <= 0.0) return 1.0;
    return cbrt(1.0 - x);
}

static double microslip(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                        double slip[FRICTION_SLIP_HISTORY], double f_t[3])
{
    double v_t[3], dd[3];
    tangent_part(k->v_rel, k->n, v_t);
    tangent_part(k->disp, k->n, dd);
    turn_into_plane(xi, k->n);
    double mu = fc->mu, N = k->f_normal;
    double dN = N - slip[MD_LAST_N];
    slip[MD_LAST_N] = N;
    int branch = (int)slip[MD_BRANCH];
    double t_star = slip[MD_T_STAR], t_2star = slip[MD_T_2STAR];
    double k0 = 8.0 * fc->shear_eff * sqrt(k->r_eff * k->d);
    double eta_t = 2.0 * sqrt(5.0 / 6.0) * fc->t[MICROSLIP_BETA] * sqrt(k0 * k->m_eff);
    double q = mu * N;
    if (!(q > 0.0)) { /* no normal force: no friction, and the contact forgets */
        for (int a = 0; a < 3; a++) xi[a] = f_t[a] = 0.0;
        slip[MD_BRANCH] = slip[MD_T_STAR] = slip[MD_T_2STAR] = 0.0;
        return 0.0;
    }
    /* T: magnitude of the force, the scalar the 1D law acts on, along e */
    double T = sqrt(friction_dot(xi, xi)), e[3] = {0.0, 0.0, 0.0};
    if (T > 0.0) {
        for (int a = 0; a < 3; a++) e[a] = xi[a] / T;
    } else {
        double l = sqrt(friction_dot(dd, dd));
        if (l > 0.0)
            for (int a = 0; a < 3; a++) e[a] = dd[a] / l;
    }
    double dpar = friction_dot(dd, e);
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
        double scale = q / capped_length(f2, f_t[0], f_t[1], f_t[2]);
        for (int a = 0; a < 3; a++) xi[a] = f_t[a] *= scale;
        branch = MD_LOADING;
    }
    slip[MD_BRANCH] = branch;
    slip[MD_T_STAR] = t_star;
    slip[MD_T_2STAR] = t_2star;
    return friction_dot(f_t, v_t);
}

/* Energy the tangential force T = |xi| gives back when it is unloaded to zero now, on
 * a fresh unloading branch at the last step's normal force N:
 *   U = 1/(8 G* a) int_0^T t / theta(t) dt,  theta^3 = 1 - (T - t)/(2 mu N)
 *     = (T I1 - I2) / (8 G* a),  u = 1 - T/(2 mu N), q = 2 mu N,
 *   I1 = 3q/2 (1 - u^(2/3)),  I2 = q^2 [3/2 (1 - u^(2/3)) - 3/5 (1 - u^(5/3))]
 * (exact on the virgin curve at constant N; T^2 / (2 k0) for small T). */
static double microslip_energy(const friction_coeffs *fc, double d, double r_eff,
                               const double xi[3], const double slip[FRICTION_SLIP_HISTORY])
{
    double k0 = 8.0 * fc->shear_eff * sqrt(r_eff * d), T = sqrt(friction_dot(xi, xi));
    double q = 2.0 * fc->mu * slip[MD_LAST_N];
    if (!(k0 > 0.0) || T == 0.0) return 0.0;
    if (!(q > 0.0) || T < 1e-6 * q) return 0.5 * T * T / k0; /* the series' first term */
    double u = 1.0 - T / q;
    if (u < 0.0) u = 0.0;
    double u23 = cbrt(u * u), u53 = u * u23;
    double i1 = 1.5 * q * (1.0 - u23);
    double i2 = q * q * (1.5 * (1.0 - u23) - 0.6 * (1.0 - u53));
    return (T * i1 - i2) / k0;
}

/* The no-slip spring k0 (the stiffest the law gets) and the dashpot, for the step. */
static void microslip_stiffness(const friction_coeffs *fc, double d, double r_eff,
                                double m_eff, double *k, double *c)
{
    *k = 8.0 * fc->shear_eff * sqrt(r_eff * d);
    *c = 2.0 * sqrt(5.0 / 6.0) * fc->t[MICROSLIP_BETA] * sqrt(*k * m_eff);
}

const tangential_law tangential_mindlin_deresiewicz = {
    .name = "mindlin_deresiewicz",
    .summary = "Mindlin-Deresiewicz partial slip (Thornton's incremental form): dT = k0 theta dd "
               "+ s mu dN (1 - theta), k0 = 8 G* sqrt(R* d), capped at mu F_n",
    .source = "Mindlin R.D., Deresiewicz H. (1953), Elastic spheres in contact under varying "
              "oblique forces, J. Appl. Mech. 20, 327-344\n"
              "Thornton C. (1991), Interparticle sliding in the presence of adhesion, "
              "Geotechnique 41(2), 183-195\n"
              "Thornton C., Yin K.K. (1991), Impact of elastic spheres with and without "
              "adhesion, Powder Technol. 65, 153-166\n"
              "Thornton C., Cummins S.J., Cleary P.W. (2011), An investigation of the "
              "comparative behaviour of alternative contact force models during elastic "
              "collisions, Powder Technol. 210(3), 189-197",
    .params = microslip_params,
    .n_params = 1,
    .n_state = 4,
    .state_names = microslip_state,
    .caps = LAW_CAP_STEP_SPRING | LAW_CAP_ENERGY,
    .setup = microslip_setup,
    .one = microslip,
    .spring_energy = microslip_energy,
    .stiffness = microslip_stiffness,
    .damping_key = "restitution",
};
