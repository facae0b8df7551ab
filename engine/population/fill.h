/* Particle sources: a lattice, a random non-overlapping fill, an explicit list. */
#ifndef DEMPACT_FILL_H
#define DEMPACT_FILL_H

#include <signal.h>
#include <stddef.h>
#include "engine/config.h"
#include "particles.h"

/* Adds the particles of `src` to p (which may already hold particles from earlier
 * sources; the random fill avoids them). Refuses more particles than the engine indexes
 * or the machine's memory holds, before allocating them. The lattice and random fills
 * give up when *stop becomes non-zero (stop may be NULL). Returns 0 or -1 with a message
 * in err. */
int fill_source(particle_store *p, const particle_source *src, const material *mat,
                int source_index, const volatile sig_atomic_t *stop, char *err,
                size_t err_len);

#endif
