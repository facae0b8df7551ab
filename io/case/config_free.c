#include <stdlib.h>
#include <string.h>

#include "engine/config.h"

/* Frees what a sim_config owns and leaves it zeroed, so a second call is harmless. */
void sim_config_free(sim_config *cfg)
{
    if (!cfg) return;
    for (int k = 0; cfg->sources && k < cfg->n_sources; k++) {
        free(cfg->sources[k].list_position);
        free(cfg->sources[k].list_velocity);
        free(cfg->sources[k].list_angular_velocity);
        free(cfg->sources[k].list_radius);
    }
    free(cfg->materials);
    free(cfg->bindings);
    for (int k = 0; cfg->walls && k < cfg->n_walls; k++) free(cfg->walls[k].mesh);
    free(cfg->walls);
    free(cfg->sources);
    free(cfg->inlets);
    free(cfg->outlets);
    free(cfg->case_path);
    free(cfg->case_text);
    memset(cfg, 0, sizeof *cfg);
}
