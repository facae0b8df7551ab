/* Overlaps among spheres read from a file (a particle CSV, a LAMMPS data file), found
 * through a hash of cells as wide as the largest diameter: each sphere is compared with
 * the earlier ones in the 27 cells around it only, so that a file of 30,000 identical
 * lines is refused at its second line instead of after building all 4.5e8 pairs.
 * (Spheres of very different sizes share cells: then the work grows towards n^2 / 2, as
 * in the engine's neighbour search.) */
#ifndef DEMPACT_OVERLAP_CHECK_H
#define DEMPACT_OVERLAP_CHECK_H

#include <signal.h>
#include <stddef.h>

typedef struct overlap_found {
    size_t first, second;  /* indices, first < second: the first pair found in file order */
    double overlap;        /* m */
    double fraction;       /* overlap / the smaller radius */
} overlap_found;

/* Looks for two spheres (centres x, 3 per sphere; radii r) overlapping by more than
 * `fraction` of the smaller radius. Returns 1 with *out filled, 0 when there are none,
 * -1 out of memory, -2 when *stop became non-zero (stop may be NULL). */
int overlap_check(const double *x, const double *r, size_t n, double fraction,
                  const volatile sig_atomic_t *stop, overlap_found *out);

#endif
