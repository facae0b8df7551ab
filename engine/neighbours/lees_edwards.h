/* Lees-Edwards boundaries (Lees & Edwards, J. Phys. C 5, 1921, 1972): a periodic box in
 * simple shear without walls (cfg.lees_edwards). The flow runs along x, the gradient
 * along z. The images beyond the top z face slide along +x at the speed
 * U = shear_rate x height relative to the particles they copy, those below the bottom
 * face along -x: a particle at (x, z) has an image at (x + offset, z + height) moving
 * at v + U e_x, and one at (x - offset, z - height) moving at v - U e_x, the offset
 * growing by U dt each step. A particle that crosses a z face comes back through the
 * other shifted the same way, in position and velocity.
 *
 * Work: the images' slip does work on the contacts across the z faces, and a crossing
 * changes a particle's kinetic energy; both are booked as the shear's work (sim.le),
 * so that the energy balance closes. The force through the faces' plane gives the
 * stresses the time series reports.
 *
 * Engine-internal: ghosts.c makes, moves and wraps through it, list_build.c asks it
 * when the list is due, sim.c advances the offset and books the plane's force. */
#ifndef DEMPACT_LEES_EDWARDS_H
#define DEMPACT_LEES_EDWARDS_H

#include <stddef.h>

#include "engine/sim.h"

/* U: the speed of the images above the top face past their particles (0 without). */
static inline double lees_edwards_speed(const sim *s)
{
    return s->cfg.lees_edwards.on
               ? s->cfg.lees_edwards.shear_rate * (s->cfg.domain_max[2] - s->cfg.domain_min[2])
               : 0.0;
}

/* +1 for an image above the top face (of a particle near the bottom), -1 for one below
 * the bottom face, 0 for a particle or an image across x or y alone. */
static inline int lees_edwards_side(const particle_store *p, size_t q)
{
    if (q < p->n_local) return 0;
    double dz = p->ghost_shift[3 * (q - p->n_local) + 2];
    return (dz > 0.0) - (dz < 0.0);
}

/* Takes the state sim_lees_edwards_state wrote: as at the last rebuild (`at_rebuild`:
 * the offset and height the rebuild placed the images with), or whole. */
void lees_edwards_restore(sim *s, const double state[SIM_LEES_EDWARDS_STATE], int at_rebuild);
/* cfg.lees_edwards.initial_profile: adds shear_rate (z - z_centre) to the x velocity of
 * every particle placed (at t = 0, before the first list). */
void lees_edwards_start_profile(sim *s);
/* The barostat (cfg.lees_edwards.pressure > 0): the box height H follows the normal
 * stress of the last force evaluation at the rate
 *     (1/H) dH/dt = (sigma_zz - pressure) / (pressure x pressure_time),
 * clipped to +- max_strain_rate and to a height of two cutoffs at least, applied every
 * lees_edwards_barostat_every steps for that many. The particles' z follow affinely
 * (their x and velocities stay); the energy the contacts' overlaps gain or lose by it
 * is the box's work (and the contacts'). Returns how far it moved a particle at most
 * (m; 0 without a barostat or between its steps), or -1 (out of memory bringing the
 * ghosts up to date). Collective when split (its books are every rank's). */
double lees_edwards_barostat(sim *s);
/* The barostat's period in steps: pressure_time / (1000 dt), within 1 .. 20. */
int64_t lees_edwards_barostat_every(const sim *s);
/* Moves the offset on by one step (the images' place at the step's end). */
void lees_edwards_advance(sim *s);
/* At a rebuild, before the particles are wrapped: the offset less whole box lengths,
 * in [0, Lx), is where the rebuild puts the images. */
void lees_edwards_rebase(sim *s);
/* Brings every local particle that crossed a z face back through the other, shifted
 * along x by -+ offset and in velocity by -+ U, booking the change of its kinetic
 * energy as the shear's work (summed over the ranks: collective when split). The x and
 * y wraps follow (ghosts_wrap). */
void lees_edwards_wrap(sim *s);
/* The largest squared displacement of an image across a z face since the last rebuild:
 * its particle's, plus the offset's growth since. */
double lees_edwards_image_drift2(const sim *s);
/* Lists the pairs whose partner is an image across a z face (at each rebuild). Returns
 * 0 or -1 (out of memory). */
int lees_edwards_index_pairs(sim *s);
/* The force through the z faces' plane and the shear's power, from the pairs' recorded
 * forces (a run with Lees-Edwards always records them): after every force evaluation.
 * `in_step`: a step's (its power dt is booked), not the start's. Collective when split
 * (the sums are every rank's), as is lees_edwards_box_stress. */
void lees_edwards_plane(sim *s, int in_step);
/* The box's stress now, compression positive (xx, yy, zz, xy, xz, yz) [Pa]: the
 * contacts' virial (the recorded force on i times the branch from j to i) plus the
 * momentum flux of the velocities less the imposed flow, over the volume. */
void lees_edwards_box_stress(const sim *s, double stress[6]);
/* The shear's work since t = 0 by the trapezoidal rule [J]. */
double lees_edwards_work(const sim *s);

#endif
