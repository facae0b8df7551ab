#include "friction.h"

#include <math.h>

#include "engine/neighbours/contacts.h"

_Static_assert(FRICTION_SLIP_HISTORY == CONTACT_SLIP_HISTORY,
               "the contact list holds the tangential law's state");

const tangential_law *friction_tangential_law(const contact_friction *spec)
{
    return spec->tangential ? spec->tangential : tangential_law_at(0);
}

int friction_set_tangential_param(contact_friction *spec, const char *name, double value)
{
    const tangential_law *law = friction_tangential_law(spec);
    int k = friction_param_index(law->params, law->n_params, name);
    if (k < 0) return -1;
    if (!spec->tangential) { /* all zero until now: fill in the law's defaults */
        spec->tangential = law;
        friction_param_defaults(law->params, law->n_params, spec->tangential_params);
    }
    spec->tangential_params[k] = value;
    return 0;
}

int friction_check(const contact_friction *spec, int rolling, law_error *err)
{
    friction_coeffs fc = {.mu = spec->mu, .mu_r = spec->mu_rolling, .young_eff = NAN,
                          .shear_eff = NAN};
    const friction_pair pair = {.young_eff = NAN, .shear_eff = NAN, .density_a = NAN,
                                .density_b = NAN, .law_restitution = NAN};
    if (!rolling) {
        const tangential_law *t = friction_tangential_law(spec);
        return t->setup(spec->tangential_params, &pair, &fc, err);
    }
    return spec->rolling ? spec->rolling->setup(spec->rolling_params, &pair, &fc, err) : 0;
}

int friction_setup(const contact_friction *spec, double young_eff, double shear_eff,
                   double law_restitution, friction_coeffs *fc, law_error *err)
{
    *fc = (friction_coeffs){.mu = spec->mu, .mu_r = spec->mu_rolling,
                            .young_eff = young_eff, .shear_eff = shear_eff};
    const friction_pair pair = {.young_eff = young_eff, .shear_eff = shear_eff,
                                .law_restitution = law_restitution};
    if (fc->mu > 0.0) {
        fc->tangential = friction_tangential_law(spec);
        if (fc->tangential->setup(spec->tangential_params, &pair, fc, err) != 0) return -1;
    }
    if (spec->rolling && fc->mu_r > 0.0) {
        fc->rolling = spec->rolling;
        if (fc->rolling->setup(spec->rolling_params, &pair, fc, err) != 0) return -2;
    }
    fc->active = fc->tangential || fc->rolling;
    return 0;
}

int friction_batchable(const friction_coeffs *fc)
{
    return (!fc->tangential || fc->tangential->batch) && (!fc->rolling || fc->rolling->batch);
}

void friction_force_batch(const friction_coeffs *fc, const friction_batch *b)
{
    if (fc->tangential) {
        fc->tangential->batch(fc, b);
    } else {
        for (int a = 0; a < 3; a++)
            for (size_t q = 0; q < b->n; q++) b->f_t[a][q] = 0.0;
        for (size_t q = 0; q < b->n; q++) b->power[0][q] = 0.0;
    }
    if (fc->rolling) fc->rolling->batch(fc, b);
}

void friction_force(const friction_coeffs *fc, const contact_kinematics *k, double xi[3],
                    double *margin, double theta[3], double slip[FRICTION_SLIP_HISTORY],
                    double f_t[3], double m_r[3], double power[2])
{
    for (int a = 0; a < 3; a++) f_t[a] = m_r[a] = 0.0;
    power[0] = power[1] = 0.0;
    double none = 0.0;
    if (!margin) margin = &none;
    /* the batch laws, as a batch of one */
    static const uint32_t first = 0;
    const friction_batch one = {
        .n = 1, .normal = {&k->n[0], &k->n[1], &k->n[2]}, .d = &k->d,
        .r_eff = &k->r_eff, .m_eff = &k->m_eff, .f_normal = &k->f_normal,
        .v_rel = {&k->v_rel[0], &k->v_rel[1], &k->v_rel[2]},
        .w_rel = {&k->w_rel[0], &k->w_rel[1], &k->w_rel[2]},
        .disp = {&k->disp[0], &k->disp[1], &k->disp[2]},
        .xi = {&xi[0], &xi[1], &xi[2]}, .margin = margin, .slot = &first, .f_t = {&f_t[0], &f_t[1], &f_t[2]},
        .m_r = {&m_r[0], &m_r[1], &m_r[2]}, .power = {&power[0], &power[1]},
        .dt = k->dt};
    const tangential_law *t = fc->tangential;
    if (t) {
        if (t->batch) t->batch(fc, &one);
        else power[0] = t->one(fc, k, xi, slip, f_t);
    }
    const rolling_law *r = fc->rolling;
    if (r) {
        if (r->batch) r->batch(fc, &one);
        else power[1] = r->one(fc, k, theta, m_r);
    }
}

void friction_spring_energy(const friction_coeffs *fc, double d, double r_eff,
                            const double xi[3], const double theta[3],
                            const double slip[FRICTION_SLIP_HISTORY], double energy[2])
{
    const tangential_law *t = fc->tangential;
    const rolling_law *r = fc->rolling;
    energy[0] = t && law_has(&t->plugin, LAW_CAP_ENERGY) ? t->spring_energy(fc, d, r_eff, xi, slip)
                                                          : 0.0;
    energy[1] = r && law_has(&r->plugin, LAW_CAP_ENERGY) ? r->spring_energy(fc, d, r_eff, theta)
                                                          : 0.0;
}
