/* The engine's tuning (sim_tuning, engine/config.h) from the environment, as the program
 * reads it (io/cli_engine.c): tests/CMakeLists.txt runs some unit tests again with
 * DEMPACT_REORDER_MIN=1, so that their small cases take the sorted paths. */
#ifndef DEMPACT_TESTS_TUNING_ENV_H
#define DEMPACT_TESTS_TUNING_ENV_H

#include <stdlib.h>
#include "engine/config.h"

static inline sim_tuning tuning_from_env(void)
{
    sim_tuning t = {0};
    const char *v;
    if ((v = getenv("DEMPACT_PARALLEL_MIN"))) {
        t.set_parallel_min = true;
        t.parallel_min = strtoul(v, NULL, 10);
    }
    if ((v = getenv("DEMPACT_BLOCK")) && strtoul(v, NULL, 10) > 0) t.block = strtoul(v, NULL, 10);
    if ((v = getenv("DEMPACT_SEARCH_ROOM"))) {
        t.set_search_room = true;
        t.search_room = strtod(v, NULL);
    }
    if ((v = getenv("DEMPACT_REORDER_MIN"))) {
        t.set_reorder_min = true;
        t.reorder_min = strtoul(v, NULL, 10);
    }
    return t;
}

#endif
