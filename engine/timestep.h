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
 * A step chosen automatically is at most min(0.2 T_R, t_c / 50): the largest step no
 * larger that divides the output grid (timestep_output_grid) a whole number of times,
 * so that snapshots and time-series samples fall exactly on their times (k x interval
 * = a whole number of steps). A given step is kept as it is (snapshots then go to the
 * step nearest each grid time); a given step above the limit is refused unless the
 * case turns the check off. */
#ifndef DEMPACT_TIMESTEP_H
#define DEMPACT_TIMESTEP_H

#include <stddef.h>

struct sim;
struct sim_config;

double timestep_rayleigh(const struct sim *s);
double timestep_contact_time(const struct sim *s, double impact_speed);
double timestep_impact_speed(const struct sim *s);
int choose_timestep(struct sim *s, char *err, size_t err_len);

/* The interval an automatic step divides: the time-series interval when the output
 * interval is a whole number of them (by default it is a tenth of the output
 * interval), else the output interval; the time-series interval when there is no
 * output interval (snapshots first and last only); 0 when neither is set (the step is
 * not adjusted). */
double timestep_output_grid(const struct sim_config *cfg);

#endif
