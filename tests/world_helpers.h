/* Shared set-up of the unit tests' small worlds: one material, one law binding, particles
 * from a list, a few walls. Each test keeps its own world struct (the arrays these point
 * into) and its own physics; this only wires them into a sim_config. */
#ifndef DEMPACT_TESTS_WORLD_HELPERS_H
#define DEMPACT_TESTS_WORLD_HELPERS_H

#include "engine/sim.h"

/* One sphere and a floor: the world of the tests on a single contact with a wall. */
typedef struct floor_world {
    material mat;
    law_binding bind;
    wall_spec floor;
    particle_source src;
    double pos[3], vel[3], rad[1];
    sim_config cfg;
} floor_world;

/* n particles listed by position, velocity (NULL: at rest) and radius. */
static inline particle_source list_source(double *position, double *velocity, double *radius,
                                          size_t n)
{
    return (particle_source){.kind = SOURCE_LIST, .n_list = n, .list_position = position,
                             .list_velocity = velocity, .list_radius = radius};
}

/* One material and its binding, one source (NULL: none) and n_walls walls into c. */
static inline void wire_world(sim_config *c, material *mat, law_binding *bind,
                              particle_source *src, wall_spec *walls, int n_walls)
{
    c->materials = mat; c->n_materials = 1;
    c->bindings = bind; c->n_bindings = 1;
    c->sources = src; c->n_sources = src ? 1 : 0;
    c->walls = walls; c->n_walls = n_walls;
    c->dt_check = true;
}

#endif
