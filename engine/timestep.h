/* Choosing and checking the timestep.
 *
 * Two estimates bound a stable and accurate explicit step:
 *  - the Rayleigh time T_R = pi r sqrt(rho / G) / (0.1631 nu + 0.8766) of the smallest
 *    sphere of each material (a surface wave crossing the particle);
 *  - the duration t_c of a binary contact at the largest expected impact speed, as each
 *    bound law estimates it (Hertz: 2 x 1.4716 d_max / v0), for the smallest pair of
 *    every pair of materials that can touch.
 * The stable limit is min(T_R, t_c / 5): at t_c / 5 one contact is resolved by about
 * ten steps and velocity Verlet stays stable for a particle with a dozen contacts.
 * A step chosen automatically is min(0.2 T_R, t_c / 50). A given step above the limit
 * is refused unless the case turns the check off. */
#ifndef DEMPACT_TIMESTEP_H
#define DEMPACT_TIMESTEP_H

#include <stddef.h>

struct sim;

double timestep_rayleigh(const struct sim *s);
double timestep_contact_time(const struct sim *s, double impact_speed);
double timestep_impact_speed(const struct sim *s);
int choose_timestep(struct sim *s, char *err, size_t err_len);
/* The default v_floor of the laws that have one (models/law_params.h): sqrt(2 |g| d),
 * d the diameter of the smallest particle (or of what the inlets insert), under gravity;
 * 1 mm/s without. */
double timestep_velocity_floor(const struct sim *s);

#endif
