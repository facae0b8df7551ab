/* The engine's tuning (sim_tuning, engine/config.h) from the environment variables
 * DEMPACT_PARALLEL_MIN, DEMPACT_BLOCK, DEMPACT_SEARCH_ROOM and DEMPACT_REORDER_MIN
 * (unset: the default), for every entrance: session_open (dempact's run and check, the
 * Python package), bench and collide, and the unit tests (tests/CMakeLists.txt runs some again with DEMPACT_REORDER_MIN=1, so that
 * their small cases take the sorted paths). The engine itself reads no environment. */
#ifndef DEMPACT_TUNING_ENV_H
#define DEMPACT_TUNING_ENV_H

#include "engine/config.h"

/* Sets in *t what the environment asks for; leaves the rest as it is. */
void tuning_from_env(sim_tuning *t);

#endif
