/* The engine's tuning from the environment (tuning_env.h). */
#include "tuning_env.h"

#include <stdlib.h>

void tuning_from_env(sim_tuning *t)
{
    /* DEMPACT_PARALLEL_MIN=0: every loop splits, so that tests run small systems on
     * several threads */
    const char *pmin = getenv("DEMPACT_PARALLEL_MIN");
    if (pmin) {
        t->set_parallel_min = true;
        t->parallel_min = strtoul(pmin, NULL, 10);
    }
    /* DEMPACT_BLOCK: smaller blocks, so that tests of small systems have cross pairs */
    const char *block = getenv("DEMPACT_BLOCK");
    if (block && strtoul(block, NULL, 10) > 0) t->block = strtoul(block, NULL, 10);
    /* DEMPACT_SEARCH_ROOM=0: the neighbour search's buffers start nearly empty, so that
     * tests take the path where they grow (engine/neighbours/list_build.c) */
    const char *room = getenv("DEMPACT_SEARCH_ROOM");
    if (room) {
        t->set_search_room = true;
        t->search_room = strtod(room, NULL);
    }
    const char *reorder_min = getenv("DEMPACT_REORDER_MIN"); /* engine/neighbours/reorder.h */
    if (reorder_min) {
        t->set_reorder_min = true;
        t->reorder_min = strtoul(reorder_min, NULL, 10);
    }
}
