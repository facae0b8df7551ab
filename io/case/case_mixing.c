/* Mixing rules: a pair of materials A, B that can touch and has no contacts entry of its
 * own gets one mixed from the entries [A, A] and [B, B], as LAMMPS' pair granular mixes
 * the coefficients of types i, j from those of i-i and j-j (PairGranular::init_one and
 * GranSubMod::mix_coeffs); docs/case-file.md#mixing-pairs-without-an-entry says the same
 * for users.
 *
 *  - E* and G* come from the two materials, as for every pair (engine/step/pair_table.c),
 *    never from the entries.
 *  - The normal law, the friction model, the rolling model and the adhesion model must
 *    be the same in both entries, and so must cohesion_removal and calibrate; a friction,
 *    rolling or adhesion mapping must be in both entries or in neither. LAMMPS refuses
 *    different sub-models too ("functional forms are different"; its dmt and jkr are
 *    normal models, so hertz against dmt is refused there as well): no rule averages two
 *    force laws. An entry without adhesion is often a wall material's, whose contacts
 *    with itself never happen and whose adhesion against a sticky powder is unknown:
 *    the pair asks for an entry of its own rather than a guess either way.
 *  - A value both entries give alike is the pair's, bit for bit (any key, a choice too).
 *  - Values that differ mix by their key's rule:
 *      geometric mean sqrt(a) sqrt(b): the Coulomb coefficients (friction.coefficient,
 *        friction.static, rolling.coefficient) and the measures of dissipation (the
 *        restitutions, normal and tangential, and the dashpots xi, eta, damping). This is
 *        LAMMPS' mix_geom, its rule for every coefficient but the moduli (LIGGGHTS has
 *        no rule: every pair's coefficients are given). It lies between the two, and a
 *        frictionless material (mu 0) stays frictionless against any other.
 *        The adhesion's strength (adhesion.work, adhesion.energy_density) mixes so too, 0
 *        included: a work of adhesion is twice a surface energy, w_AA = 2 gamma_A, and the
 *        unlike pair's is w_AB = 2 sqrt(gamma_A gamma_B) = sqrt(w_AA w_BB) (Berthelot's
 *        rule for the dispersion part, Girifalco and Good 1957, the usual estimate; LAMMPS
 *        mixes the cohesion of its dmt and jkr models by mix_geom as well).
 *      harmonic mean 2 a b / (a + b): a given spring stiffness (params.stiffness,
 *        friction.stiffness). The contact of two like bodies is two equal springs in
 *        series, k_AA = k_A / 2, so the unlike one is k_AB = 1 / (1/k_A + 1/k_B) =
 *        2 k_AA k_BB / (k_AA + k_BB): the rule E* itself follows from the materials
 *        (1/E*_AB = (1/E*_AA + 1/E*_BB) / 2, whatever the Poisson ratios). LAMMPS mixes
 *        a given hooke stiffness geometrically instead; against a nearly rigid body
 *        (k_BB huge) a soft A deforms alone, and the pair's spring is 2 k_AA, which the
 *        harmonic mean gives and the geometric one (sqrt(k_AA k_BB), huge) does not.
 *    Every other key has no rule (an exponent, v_floor, fit, stiffness_formula, Kostek's
 *    compliances and area): different values leave the pair to an entry of its own.
 *  - A mean mixes two positive values only: 0 (or linear's damping -1) stands for the
 *    law's own choice (Hertz's stiffness, e_t from the normal law, v_floor from the case,
 *    linear's damping from its restitution), which no mean mixes with a given value.
 *    friction.static's 0 is its entry's coefficient, and mixes as that.
 * The mixed values pass the checks a read entry passes (the keys' ranges, the tangential
 * law's check against mu), and the pair's law is set up and calibrated as any entry's. */
#include "case_mixing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_internal.h"
#include "engine/step/friction.h"

typedef enum mix_rule {
    MIX_NONE,        /* equal values only */
    MIX_GEOMETRIC,   /* sqrt(a) sqrt(b), a, b > 0 */
    MIX_HARMONIC,    /* 2 / (1/a + 1/b), a, b > 0 */
    MIX_COEFFICIENT, /* sqrt(a) sqrt(b), a, b >= 0: a Coulomb coefficient */
    MIX_STATIC       /* as MIX_COEFFICIENT, 0 standing for the entry's coefficient */
} mix_rule;

/* The rule of a law's key, by its name (the normal laws' params, the friction and
 * rolling laws' keys). A name not listed has no rule. */
static mix_rule key_rule(const char *name)
{
    static const struct {
        const char *name;
        mix_rule rule;
    } rules[] = {
        {"restitution", MIX_GEOMETRIC}, {"xi", MIX_GEOMETRIC},     {"eta", MIX_GEOMETRIC},
        {"damping", MIX_GEOMETRIC},     {"stiffness", MIX_HARMONIC}, {"static", MIX_STATIC},
        {"work", MIX_COEFFICIENT},      {"energy_density", MIX_COEFFICIENT},
    };
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++)
        if (strcmp(rules[k].name, name) == 0) return rules[k].rule;
    return MIX_NONE;
}

static const char *rule_words(mix_rule rule)
{
    return rule == MIX_HARMONIC ? "harmonic mean" : "geometric mean";
}

/* What one key mixed to and how. */
typedef struct mixed {
    double value;
    bool same;   /* both entries gave it alike: kept */
    double a, b; /* else the two values the rule mixed */
    bool coefficient; /* static: a 0 was made its entry's coefficient */
} mixed;

static bool alike(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Mixes a and b (mu_a, mu_b: the entries' Coulomb coefficients, for MIX_STATIC) into
 * *m, or returns -1 with why. */
static int mix_values(mix_rule rule, double a, double b, double mu_a, double mu_b, mixed *m,
                      char *why, size_t why_len)
{
    *m = (mixed){.value = a, .same = alike(a, b), .a = a, .b = b};
    if (m->same) return 0;
    if (rule == MIX_NONE) {
        snprintf(why, why_len, "differs (%g and %g), and no rule mixes it", a, b);
        return -1;
    }
    if (rule == MIX_STATIC) {
        m->a = a > 0.0 ? a : mu_a;
        m->b = b > 0.0 ? b : mu_b;
        m->coefficient = !(a > 0.0 && b > 0.0);
    }
    bool zero_ok = rule == MIX_COEFFICIENT || rule == MIX_STATIC;
    if (isnan(a) || isnan(b)) {
        snprintf(why, why_len, "is left to calibration in one entry and %g in the other",
                 isnan(a) ? b : a);
        return -1;
    }
    if (!(zero_ok ? a >= 0.0 && b >= 0.0 : a > 0.0 && b > 0.0)) {
        snprintf(why, why_len, "is %g and %g: a %s mixes given values (> 0) only, not 0 or "
                 "less, which stands for the law's own choice", a, b, rule_words(rule));
        return -1;
    }
    m->value = rule == MIX_HARMONIC ? 2.0 / (1.0 / m->a + 1.0 / m->b) : sqrt(m->a) * sqrt(m->b);
    return 0;
}

/* The line of contacts[i] in the case file (0 if unknown). */
static int entry_line(const yaml_locator *loc, int i)
{
    if (!loc) return 0;
    key_path p = case_key("contacts[%d]", i);
    return yaml_locator_line(loc, p.s);
}

/* ------------------------------------------------------------------------------------
 * Mixing two entries.
 * ---------------------------------------------------------------------------------- */

/* What a mix is doing: the entries x ([A, A]) and y ([B, B]), the pair it fills, and,
 * for `dempact check`, where it prints each value (NULL: nowhere). */
typedef struct mixer {
    const law_binding *x, *y;
    const char *xs, *ys; /* their names in messages: "contacts[0]" */
    law_binding *out;
    FILE *print;
    char *why;
    size_t why_len;
} mixer;

static void print_value(const mixer *mx, const char *key, const law_param *p, const mixed *m,
                        mix_rule rule, bool first)
{
    if (!mx->print) return;
    fprintf(mx->print, "%s%s ", first ? "" : ", ", key);
    if (isnan(m->value)) fprintf(mx->print, "solved by calibration");
    else if (p && p->choices && m->value >= 0 && m->value == floor(m->value))
        fprintf(mx->print, "%s", p->choices[(int)m->value]);
    else fprintf(mx->print, "%.9g", m->value);
    if (m->same) fprintf(mx->print, " (same in both)");
    else fprintf(mx->print, " (%s of %g and %g%s)", rule_words(rule), m->a, m->b,
                 m->coefficient ? ", 0 standing for the entry's coefficient" : "");
}

/* The keys of a law (params[n]) from x's values xv and y's values yv into out[], under
 * the mapping `section` ("params", "friction", "rolling") for messages. */
static int mix_keys(const mixer *mx, const char *section, const law_param *params, int n,
                    const double *xv, const double *yv, double mu_x, double mu_y, double *out,
                    bool first)
{
    for (int k = 0; k < n; k++) {
        const law_param *p = &params[k];
        mix_rule rule = p->choices ? MIX_NONE : key_rule(p->name);
        mixed m;
        char why[256];
        if (mix_values(rule, xv[k], yv[k], mu_x, mu_y, &m, why, sizeof why) != 0) {
            snprintf(mx->why, mx->why_len, "%s.%s %s", section, p->name, why);
            return -1;
        }
        if (!m.same && !(m.value >= p->min_value && m.value <= p->max_value)) {
            snprintf(mx->why, mx->why_len, "%s.%s mixes to %g, out of its range [%g, %g]",
                     section, p->name, m.value, p->min_value, p->max_value);
            return -1;
        }
        out[k] = m.value;
        print_value(mx, p->name, p, &m, rule, first && k == 0);
    }
    return 0;
}

/* A Coulomb coefficient (mu or mu_r) of the mapping `section`. */
static int mix_coefficient(const mixer *mx, const char *section, double a, double b,
                           double *out)
{
    mixed m;
    char why[256];
    if (mix_values(MIX_COEFFICIENT, a, b, 0, 0, &m, why, sizeof why) != 0) {
        snprintf(mx->why, mx->why_len, "%s.coefficient %s", section, why);
        return -1;
    }
    *out = m.value;
    print_value(mx, "coefficient", NULL, &m, MIX_COEFFICIENT, true);
    return 0;
}

static int mix_normal(const mixer *mx)
{
    const law_binding *x = mx->x, *y = mx->y;
    if (x->law != y->law) {
        snprintf(mx->why, mx->why_len, "their laws differ (%s and %s), and no rule mixes two "
                 "laws", x->law->name, y->law->name);
        return -1;
    }
    const char *flag = x->cohesion_removal != y->cohesion_removal ? "cohesion_removal"
                       : x->calibrate != y->calibrate             ? "calibrate"
                                                                  : NULL;
    if (flag) {
        bool in_x = flag[1] == 'o' ? x->cohesion_removal : x->calibrate;
        snprintf(mx->why, mx->why_len, "%s is true in %s and false in %s", flag,
                 in_x ? mx->xs : mx->ys, in_x ? mx->ys : mx->xs);
        return -1;
    }
    law_binding *o = mx->out;
    o->law = x->law;
    o->cohesion_removal = x->cohesion_removal;
    o->calibrate = x->calibrate;
    if (mx->print) fprintf(mx->print, "               law %s%s", x->law->name,
                           x->law->n_params ? ": " : "");
    if (mix_keys(mx, "params", x->law->params, x->law->n_params, x->params, y->params, 0, 0,
                 o->params, true) != 0)
        return -1;
    if (mx->print) fputc('\n', mx->print);
    return 0;
}

/* Whether friction (rolling: rolling resistance) is in both entries, in neither (0), or
 * in one only (-1, with why). */
static int both_or_neither(const mixer *mx, const char *section, bool in_x, bool in_y)
{
    if (in_x == in_y) return in_x;
    snprintf(mx->why, mx->why_len, "%s has %s and %s none, and no rule says whether the pair "
             "has it", in_x ? mx->xs : mx->ys, section, in_x ? mx->ys : mx->xs);
    return -1;
}

static int mix_friction(const mixer *mx)
{
    const contact_friction *x = &mx->x->friction, *y = &mx->y->friction;
    contact_friction *o = &mx->out->friction;
    int has = both_or_neither(mx, "friction", x->tangential != NULL, y->tangential != NULL);
    if (has <= 0) return has;
    if (x->tangential != y->tangential) {
        snprintf(mx->why, mx->why_len, "their friction models differ (%s and %s), and no rule "
                 "mixes two models", x->tangential->name, y->tangential->name);
        return -1;
    }
    const tangential_law *law = o->tangential = x->tangential;
    if (mx->print) fprintf(mx->print, "               friction %s: ", law->name);
    if (mix_coefficient(mx, "friction", x->mu, y->mu, &o->mu) != 0 ||
        mix_keys(mx, "friction", law->params, law->n_params, x->tangential_params,
                 y->tangential_params, x->mu, y->mu, o->tangential_params, false) != 0)
        return -1;
    if (mx->print) fputc('\n', mx->print);
    law_error why = {.param = -1};
    if (friction_check(o, 0, &why) == 0) return 0;
    if (why.param < 0)
        snprintf(mx->why, mx->why_len, "friction %s: %s", law->name, why.msg);
    else
        snprintf(mx->why, mx->why_len, "friction.%s mixes to %g, which %s",
                 law->params[why.param].name, o->tangential_params[why.param], why.msg);
    return -1;
}

static int mix_rolling(const mixer *mx)
{
    const contact_friction *x = &mx->x->friction, *y = &mx->y->friction;
    contact_friction *o = &mx->out->friction;
    int has = both_or_neither(mx, "rolling resistance", x->rolling != NULL, y->rolling != NULL);
    if (has <= 0) return has;
    if (x->rolling != y->rolling) {
        snprintf(mx->why, mx->why_len, "their rolling models differ (%s and %s), and no rule "
                 "mixes two models", x->rolling->name, y->rolling->name);
        return -1;
    }
    const rolling_law *law = o->rolling = x->rolling;
    if (mx->print) fprintf(mx->print, "               rolling %s: ", law->name);
    if (mix_coefficient(mx, "rolling", x->mu_rolling, y->mu_rolling, &o->mu_rolling) != 0 ||
        mix_keys(mx, "rolling", law->params, law->n_params, x->rolling_params,
                 y->rolling_params, 0, 0, o->rolling_params, false) != 0)
        return -1;
    if (mx->print) fputc('\n', mx->print);
    return 0;
}

static int mix_adhesion(const mixer *mx)
{
    const contact_adhesion *x = &mx->x->adhesion, *y = &mx->y->adhesion;
    contact_adhesion *o = &mx->out->adhesion;
    int has = both_or_neither(mx, "adhesion", x->law != NULL, y->law != NULL);
    if (has <= 0) return has;
    if (x->law != y->law) {
        snprintf(mx->why, mx->why_len, "their adhesion models differ (%s and %s), and no rule "
                 "mixes two models", x->law->name, y->law->name);
        return -1;
    }
    const adhesion_law *law = o->law = x->law;
    if (mx->print) fprintf(mx->print, "               adhesion %s: ", law->name);
    if (mix_keys(mx, "adhesion", law->params, law->n_params, x->params, y->params, 0, 0,
                 o->params, true) != 0)
        return -1;
    if (mx->print) fputc('\n', mx->print);
    law_error why;
    if (adhesion_check_params(law, o->params, NULL, &why) == 0) return 0;
    if (why.param < 0 || why.param >= law->n_params)
        snprintf(mx->why, mx->why_len, "adhesion %s: %s", law->name, why.msg);
    else
        snprintf(mx->why, mx->why_len, "adhesion.%s mixes to %g: %s",
                 law->params[why.param].name, o->params[why.param], why.msg);
    return -1;
}

/* The pair mixed from x and y into *out (its materials and origin left to the caller):
 * 0, or -1 with why. */
static int mix_entries(const sim_config *cfg, int ix, int iy, law_binding *out, FILE *print,
                       char *why, size_t why_len)
{
    key_path xs = case_key("contacts[%d]", ix), ys = case_key("contacts[%d]", iy);
    mixer mx = {.x = &cfg->bindings[ix], .y = &cfg->bindings[iy], .xs = xs.s, .ys = ys.s,
                .out = out, .print = print, .why = why, .why_len = why_len};
    if (mix_normal(&mx) != 0 || mix_friction(&mx) != 0 || mix_rolling(&mx) != 0 ||
        mix_adhesion(&mx) != 0)
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------
 * The reader's hook (case_checks.c) and check's report.
 * ---------------------------------------------------------------------------------- */

/* The entry of material m with itself among the case's own entries, or -1. */
static int own_entry(const sim_config *cfg, int m)
{
    for (int k = 0; k < cfg->n_bindings; k++) {
        const law_binding *b = &cfg->bindings[k];
        if (!b->mixed && b->material_a == m && b->material_b == m) return k;
    }
    return -1;
}

int case_mix_pair(case_reader *c, int a, int b, const char *touch)
{
    sim_config *cfg = c->cfg;
    int ia = own_entry(cfg, a), ib = own_entry(cfg, b);
    if (ia < 0 || ib < 0) return 0;
    law_binding m = {.material_a = a, .material_b = b, .mixed = true, .mixed_from = {ia, ib}};
    char why[512];
    const char *na = cfg->materials[a].name, *nb = cfg->materials[b].name;
    if (mix_entries(cfg, ia, ib, &m, NULL, why, sizeof why) != 0)
        return case_fail_at(c, "contacts", "contacts: no entry for [%s, %s] (%s), and "
                            "contacts[%d] ([%s, %s], line %d) and contacts[%d] ([%s, %s], line "
                            "%d) do not mix: %s; give the pair an entry of its own ('- "
                            "materials: [%s, %s]' with a law)", na, nb, touch, ia, na, na,
                            entry_line(&c->loc, ia), ib, nb, nb, entry_line(&c->loc, ib), why,
                            na, nb);
    law_binding *grown = realloc(cfg->bindings, (size_t)(cfg->n_bindings + 1) * sizeof *grown);
    if (!grown) return case_fail_line(c, 1, "out of memory");
    cfg->bindings = grown;
    cfg->bindings[cfg->n_bindings++] = m;
    return 1;
}

void case_mixing_print(FILE *out, const sim_config *cfg)
{
    yaml_locator loc = {0};
    bool tried = false, located = false;
    for (int k = 0; k < cfg->n_bindings; k++) {
        const law_binding *b = &cfg->bindings[k];
        if (!b->mixed) continue;
        if (!tried && cfg->case_text) {
            tried = true;
            int err_line;
            char err[64];
            located = yaml_locator_parse(&loc, cfg->case_text, strlen(cfg->case_text),
                                         &err_line, err, sizeof err) == 0;
        }
        const yaml_locator *at = located ? &loc : NULL;
        const char *na = cfg->materials[b->material_a].name;
        const char *nb = cfg->materials[b->material_b].name;
        int ia = b->mixed_from[0], ib = b->mixed_from[1];
        fprintf(out, "  mixed      %s on %s from contacts[%d] (%s on %s, line %d) and "
                "contacts[%d] (%s on %s, line %d):\n", na, nb, ia, na, na, entry_line(at, ia),
                ib, nb, nb, entry_line(at, ib));
        law_binding again = {0};
        char why[512];
        /* the same mix as the reader's, printed as it goes */
        mix_entries(cfg, ia, ib, &again, out, why, sizeof why);
    }
    yaml_locator_free(&loc);
}

void case_mixing_note(const sim_config *cfg, const char *message, char *out, size_t len)
{
    int k, used = 0;
    out[0] = '\0';
    const char *at = strstr(message, "contacts["); /* the first entry the message names */
    if (!at || sscanf(at, "contacts[%d]%n", &k, &used) != 1 || used == 0 || k < 0 ||
        k >= cfg->n_bindings || !cfg->bindings[k].mixed)
        return;
    const law_binding *b = &cfg->bindings[k];
    const char *na = cfg->materials[b->material_a].name;
    const char *nb = cfg->materials[b->material_b].name;
    snprintf(out, len, " (contacts[%d] is the pair [%s, %s], mixed from contacts[%d] and "
             "contacts[%d]: change those, or give the pair an entry of its own)", k, na, nb,
             b->mixed_from[0], b->mixed_from[1]);
}
