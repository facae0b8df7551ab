/* Rolling law `liggghts_cdt`: LIGGGHTS's `rolling_friction cdt` as LIGGGHTS 3.8 computes
 * it, for a case ported from LIGGGHTS or a side-by-side run. The torque has the size
 * mu_r R* F_n and points against the whole relative rotation w = w_i - w_j; its part
 * along the normal (the twist) is then dropped:
 *   M = -mu_r R* F_n (w - (w.n) n) / |w|
 * so its size is mu_r R* F_n |w_t| / |w|: `constant`'s (which points against w_t alone
 * and keeps the full mu_r R* F_n) times the tangential fraction of the relative rotation,
 * pi/4 on average for rotations in random directions. A contact that twists as it rolls
 * resists rolling less, and one that only twists not at all. One difference remains:
 * LIGGGHTS takes F_n as the elastic part of the normal force (k_n delta), dempact the
 * contact's normal force (with its dashpot, at least 0); they differ while the contact
 * loads or unloads, not in a contact at rest. Like `constant`, it has no spring. */
#include "friction_law.h"
#include "rolling_liggghts_cdt.h"

static int liggghts_cdt_setup(const double *params, const friction_pair *pair,
                              friction_coeffs *fc, law_error *err)
{
    (void)params, (void)pair, (void)fc, (void)err;
    return 0;
}

const rolling_law rolling_liggghts_cdt = {
    .name = "liggghts_cdt",
    .summary = "M = -mu_r R* F_n (w - (w.n) n) / |w|, w = w_i - w_j: LIGGGHTS's cdt as it is "
               "computed (constant's torque times |w_t| / |w|)",
    .source = "LIGGGHTS 3.8.0 (CFDEMproject/LIGGGHTS-PUBLIC), src/rolling_model_cdt.h; the "
              "model: Ai J., Chen J.-F., Rotter J.M., Ooi J.Y. (2011), Assessment of rolling "
              "resistance models in discrete element simulations, Powder Technol. 206(3), "
              "269-282",
    .setup = liggghts_cdt_setup,
    .one = rolling_liggghts_cdt_torque,
};
