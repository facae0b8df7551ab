/* The pair table: the contact law bound to each pair of material types (sim.laws,
 * n_materials^2, symmetric), with the pair's effective moduli, friction coefficients and
 * calibration against its typical binary collision; the check that every pair of
 * materials that can meet has a law; and which per-pair arrays the contact lists hold
 * for the laws in the table. Engine-internal (sim_create). */
#ifndef DEMPACT_PAIR_TABLE_H
#define DEMPACT_PAIR_TABLE_H

#include <stddef.h>
#include "engine/sim.h"

/* Fills s->laws from the case's bindings (setup, calibration, friction). Returns 0, or
 * -1 with a message naming the binding in err. */
int pair_table_setup(sim *s, char *err, size_t err_len);
/* 0, or -1 with a message if two materials that can meet (a particle's with a particle's
 * or a wall's) have no law. */
int pair_table_check_cover(const sim *s, char *err, size_t err_len);
/* Sets s->has_reach (some law's adhesion holds contacts past touching) and checks
 * that the neighbour list's skin exceeds the farthest such reach (of the largest
 * spheres): 0, or -1 with a message naming the binding and the key to raise. */
int pair_table_check_reach(sim *s, char *err, size_t err_len);
/* Sizes the contact lists' per-pair arrays for the laws in the table, and gives the
 * particles the spins' history where a pair exerts a torque. Returns 0 or -1 (out of
 * memory). */
int pair_table_configure_lists(sim *s);

#endif
