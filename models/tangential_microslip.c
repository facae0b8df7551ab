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
#include "tangential_microslip.h"

#include <math.h>

_Static_assert(MICROSLIP_BETA < FRICTION_MAX_COEFFS, "the constants fit friction_coeffs.t");

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
    .one = microslip_force,
    .spring_energy = microslip_energy,
    .stiffness = microslip_stiffness,
    .damping_key = "restitution",
};
