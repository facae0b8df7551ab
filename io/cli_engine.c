/* Between the program and the engine: the tuning the environment asks for, and the
 * report of a step that ran out of memory (cli.h). The engine itself reads no
 * environment and never exits. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#include "engine/sim.h"

void cli_tuning_from_env(sim_tuning *t)
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
     * tests take the path where they grow (engine/list_build.c) */
    const char *room = getenv("DEMPACT_SEARCH_ROOM");
    if (room) {
        t->set_search_room = true;
        t->search_room = strtod(room, NULL);
    }
    const char *reorder_min = getenv("DEMPACT_REORDER_MIN"); /* engine/reorder.h */
    if (reorder_min) {
        t->set_reorder_min = true;
        t->reorder_min = strtoul(reorder_min, NULL, 10);
    }
}

int cli_no_memory(const sim *s)
{
    switch (s->fault_memory) {
    case SIM_MEMORY_POPULATION:
        fprintf(stderr, "dempact: out of memory while inserting or removing particles\n");
        break;
    case SIM_MEMORY_REBUILD:
        fprintf(stderr, "dempact: out of memory in the neighbour rebuild (%zu particles, "
                "%zu candidate pairs before it)\n", s->p.n_local, s->pairs.n);
        break;
    case SIM_MEMORY_WALL_LOADS:
        fprintf(stderr, "dempact: out of memory summing the wall loads\n");
        break;
    default:
        fprintf(stderr, "dempact: out of memory while dropping a particle\n");
        break;
    }
    return EXIT_NO_MEMORY;
}
