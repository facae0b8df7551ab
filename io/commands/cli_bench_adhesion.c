/* `dempact bench --adhesion`: see cli_bench_adhesion.h. */
#include "cli_bench_adhesion.h"

#include <math.h>

#include "engine/collide/collision_request.h"
#include "models/adhesion_law.h"

/* The bench's names of the two inputs, for the refusals collision_request_adhesion words. */
static const char *const names[COLLISION_N_INPUTS] = {
    [COLLISION_ADHESION] = "--adhesion", [COLLISION_ADHESION_PARAMS] = "--adhesion-param"};

int bench_adhesion_build(const bench_adhesion_request *rq, contact_adhesion *out, char *err,
                         size_t err_len)
{
    collision_request cr;
    collision_request_defaults(&cr);
    cr.law = rq->law;
    cr.adhesion = rq->model;
    cr.adhesion_params = rq->params;
    cr.n_adhesion_params = rq->n_params;
    cr.names = names;
    *out = (contact_adhesion){0};
    return collision_request_adhesion(&cr, out, err, err_len);
}

void bench_adhesion_print(FILE *out, const contact_adhesion *a, int json)
{
    const adhesion_law *law = a->law;
    if (json) {
        if (!law) { fprintf(out, ", \"adhesion\": null"); return; }
        fprintf(out, ", \"adhesion\": {\"model\": \"%s\"", law->name);
        for (int k = 0; k < law->n_params; k++)
            fprintf(out, ", \"%s\": %.17g", law->params[k].name, a->params[k]);
        fprintf(out, "}");
        return;
    }
    if (!law) return;
    fprintf(out, "adhesion                        %s (", law->name);
    for (int k = 0; k < law->n_params; k++)
        fprintf(out, "%s%s %.10g", k ? ", " : "", law->params[k].name, a->params[k]);
    fprintf(out, ") on the sphere and floor contacts\n");
}
