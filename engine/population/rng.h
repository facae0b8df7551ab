/* A small, fast, seedable generator (splitmix64) so that fills are reproducible on
 * every platform. */
#ifndef DEMPACT_RNG_H
#define DEMPACT_RNG_H

#include <stdint.h>

typedef struct rng { uint64_t state; } rng;

static inline uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double rng_uniform(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

static inline double rng_range(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * rng_uniform(r);
}

#endif
