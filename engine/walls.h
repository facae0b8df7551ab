/* Walls: infinite one-sided planes and bounded rectangles. A wall touches a sphere at
 * the wall point closest to the sphere's centre. */
#ifndef DEMPACT_WALLS_H
#define DEMPACT_WALLS_H

#include <stddef.h>
#include "config.h"

typedef struct wall_set {
    wall_spec *walls;
    size_t n;
} wall_set;

/* Signed distance from the centre c to wall w and the unit direction n from the centre
 * towards the touching point (the contact normal, pointing from particle to wall). */
double wall_distance(const wall_spec *w, const double c[3], double n[3]);

#endif
