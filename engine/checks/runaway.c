#include "runaway.h"

#include "engine/sim.h"

bool runaway_within(const sim *s, int a, double x)
{
    double lo = s->cfg.domain_min[a], hi = s->cfg.domain_max[a];
    double margin = SIM_RUNAWAY_MARGIN * (hi - lo);
    return !(x < lo - margin) && !(x > hi + margin);
}

long runaway_find(const sim *s, int *axis)
{
    const particle_store *p = &s->p;
    const double *pos[3] = {p->x, p->y, p->z};
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        double margin = SIM_RUNAWAY_MARGIN * (s->cfg.domain_max[a] - s->cfg.domain_min[a]);
        lo[a] = s->cfg.domain_min[a] - margin;
        hi[a] = s->cfg.domain_max[a] + margin;
    }
    /* a branch-free count first (the common case: nobody is far), the index after */
    size_t far = 0;
    for (size_t i = 0; i < p->n_local; i++)
        far += (p->x[i] < lo[0]) | (p->x[i] > hi[0]) | (p->y[i] < lo[1]) | (p->y[i] > hi[1]) |
               (p->z[i] < lo[2]) | (p->z[i] > hi[2]);
    if (far == 0) return -1;
    for (size_t i = 0; i < p->n_local; i++)
        for (int a = 0; a < 3; a++)
            if (pos[a][i] < lo[a] || pos[a][i] > hi[a]) {
                *axis = a;
                return (long)i;
            }
    return -1;
}
