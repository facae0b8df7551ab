/* What every dataset of a snapshot means: its unit and meaning, which snapshot_data.c
 * writes as the dataset's attributes. docs/output.md says the same, and
 * tests/e2e/layout.py checks that both agree. */
#include "snapshot_internal.h"

#include <string.h>

static const field_doc particle_docs[] = {
    {"id", "", "the particle's identifier"},
    {"type", "", "material index, in case-file order"},
    {"radius", "m", "radius"},
    {"mass", "kg", "mass"},
    {"position", "m", "centre"},
    {"velocity", "m/s", "velocity"},
    {"angular_velocity", "rad/s", "angular velocity"},
    {"force", "N", "total force (contacts, gravity and external loads)"},
    {"torque", "N m", "total torque about the centre"},
    {"n_contacts", "", "how many particles and walls it touches"},
    {"kinetic_energy", "J", "1/2 m v^2"},
    {"rotational_energy", "J", "1/2 I w^2"},
    {"position_at_rebuild", "m", "restart data: the centres when the engine last rebuilt its neighbour list"},
    {"vertex_index", "", "0, 1, 2, ...: the cell connectivity the .xmf files take from it"},
    {NULL, NULL, NULL}};

static const field_doc contact_docs[] = {
    {"id", "", "particle id of i, and particle id of j or the wall index"},
    {"wall", "", "1 for a particle-wall contact, 0 for a pair of particles"},
    {"slot", "", "restart data: the contact's place among its first particle's entries in the engine's contact list"},
    {"ended", "", "restart data: 0 in contact; 1 its force this step carried its impulse to a separation within the step; 2 ended: still overlapping, but holding no force"},
    {"point", "m", "contact point"},
    {"normal", "", "unit normal from i towards j (or towards the wall)"},
    {"overlap", "m", "overlap r_i + r_j - distance"},
    {"normal_force", "N", "normal force magnitude, > 0 when pushing apart"},
    {"normal_force_vector", "N", "normal part of the force on i"},
    {"tangential_force", "N", "tangential part of the force on i"},
    {"impact_velocity", "m/s", "history: the approach speed at first touch"},
    {"law_history", "", "history: the normal law's state slots"},
    {"tangential_spring", "m (N)", "history: the tangential spring's stretch"},
    {"coulomb_margin", "N", "history: mu_s F_n less the tangential force, last step"},
    {"tangential_slip", "-, N, N, N", "history of model: mindlin_deresiewicz"},
    {"rolling_spring", "rad", "history: the rolling spring's relative rotation"},
    {"endpoints", "m", "the two ends of each contact's line in ParaView"},
    {NULL, NULL, NULL}};

static const field_doc engine_docs[] = {
    {"work", "J", "work done on the contacts since t = 0, by kind"},
    {"wall_work", "J", "work each moving wall has done on the particles since t = 0"},
    {"wall_work_sum", "J", "restart data: the running sums behind wall_work"},
    {"wall_servo", "m, s, m/s, m, s", "restart data, servo walls only: per wall the displacement along the normal at the controller's last decision, its time, the speed then chosen, and the displacement and time of the last neighbour rebuild"},
    {"inlets", "", "restart data: the inlets' states (generator, rate, particles owed, next insertion, counts, mass)"},
    {"outlets", "", "restart data: the outlets' counts and masses"},
    {NULL, NULL, NULL}};

static const field_doc wall_docs[] = {
    {"vertices", "m", "corners of the walls' triangles, where the walls are at this time"},
    {"triangles", "", "the three rows of vertices of each triangle"},
    {"wall", "", "the wall each triangle belongs to"},
    {NULL, NULL, NULL}};

const field_doc *snapshot_field_doc(const char *group, const char *name)
{
    const field_doc *t = !strcmp(group, "") ? particle_docs
                         : !strcmp(group, "contacts") ? contact_docs
                         : !strcmp(group, "engine") ? engine_docs
                         : !strcmp(group, "walls") ? wall_docs : NULL;
    for (; t && t->name; t++)
        if (!strcmp(t->name, name)) return t;
    return NULL;
}
