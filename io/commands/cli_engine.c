/* Between the program and the engine: the report of a step that ran out of memory
 * (cli.h). The engine itself never exits. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#include "engine/sim.h"

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
    case SIM_MEMORY_FORCES:
        fprintf(stderr, "dempact: out of memory recording the contact forces (%zu candidate "
                "pairs)\n", s->pairs.n);
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
