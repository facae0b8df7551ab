/* dempact laws: every normal-force law the build knows, with its formula, the papers it
 * comes from, its parameters and their defaults and ranges; with --friction, the
 * tangential and rolling laws and their keys; with --adhesion, the adhesion laws and
 * theirs (docs/laws.md holds the same, checked against this output by
 * tests/doc/check_laws.py). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "models/adhesion_law.h"
#include "models/friction_law.h"
#include "models/law.h"

/* The law's sources, one citation per line: "  source: A\n          B\n". */
static void print_sources(const char *source)
{
    const char *line = source;
    printf("  source: ");
    for (;;) {
        const char *end = strchr(line, '\n');
        if (!end) {
            printf("%s\n", line);
            return;
        }
        printf("%.*s\n          ", (int)(end - line), line);
        line = end + 1;
    }
}

static void print_default(const law_param *p)
{
    if (isnan(p->default_value)) printf("required");
    else if (p->choices) printf("%s", p->choices[(int)p->default_value]);
    else printf("%g", p->default_value);
}

static void print_params(const law_param *params, int n)
{
    for (int q = 0; q < n; q++) {
        const law_param *p = &params[q];
        printf("  %-18s default ", p->name);
        print_default(p);
        if (p->choices) {
            printf("; one of");
            for (int c = 0; p->choices[c]; c++) printf(" %s", p->choices[c]);
        } else {
            printf(" [%s]; range [%g, %g]", p->unit, p->min_value, p->max_value);
        }
        printf("\n      %s\n", p->help);
    }
}

/* What a law is composed of (models/normal_parts.h). */
static void print_parts(const dem_law *law)
{
    if (law->elastic)
        printf("  parts: elastic %s + damping %s (law: {elastic: %s, damping: %s})\n",
               law->elastic, law->damping, law->elastic, law->damping);
    else
        printf("  parts: none (one piece)\n");
}

/* dempact laws --parts: the elastic and damping parts and the laws that combine them */
static int print_law_parts(void)
{
    for (int kind = 0; kind < 2; kind++) {
        printf("%s parts:\n", kind ? "damping" : "elastic");
        for (int k = 0; law_part_at(kind, k); k++) {
            const char *part = law_part_at(kind, k);
            printf("  %-26s in", part);
            const char *sep = " ";
            for (int L = 0; L < law_count(); L++) {
                const dem_law *law = law_at(L);
                const char *mine = kind ? law->damping : law->elastic;
                if (mine && strcmp(mine, part) == 0) {
                    printf("%s%s", sep, law->name);
                    sep = ", ";
                }
            }
            printf("\n");
        }
        printf("\n");
    }
    printf("laws of one piece:");
    const char *sep = " ";
    for (int L = 0; L < law_count(); L++)
        if (!law_at(L)->elastic) {
            printf("%s%s", sep, law_at(L)->name);
            sep = ", ";
        }
    printf("\n");
    return 0;
}

/* dempact laws --friction: the tangential and rolling laws (models/friction_registry.c) */
static int print_friction_laws(void)
{
    for (int k = 0; k < tangential_law_count(); k++) {
        const tangential_law *law = tangential_law_at(k);
        printf("friction.model %s%s\n  %s\n", law->name, k == 0 ? " (the default)" : "",
               law->summary);
        print_sources(law->source);
        printf("  coefficient        required [-]; the Coulomb coefficient mu\n");
        print_params(law->params, law->n_params);
        printf("  history per contact: %s", law->spring_energy ? "spring xi" : "none");
        for (int h = 0; h < law->n_state; h++) printf(", %s", law->state_names[h]);
        printf("\n\n");
    }
    for (int k = 0; k < rolling_law_count(); k++) {
        const rolling_law *law = rolling_law_at(k);
        printf("rolling.model %s\n  %s\n", law->name, law->summary);
        print_sources(law->source);
        printf("  coefficient        required [-]; the rolling resistance coefficient mu_r\n");
        print_params(law->params, law->n_params);
        printf("  history per contact: %s\n\n", law->spring_energy ? "spring theta" : "none");
    }
    return 0;
}

/* dempact laws --adhesion: the adhesion laws (models/adhesion_registry.c) */
static int print_adhesion_laws(void)
{
    for (int k = 0; k < adhesion_law_count(); k++) {
        const adhesion_law *law = adhesion_law_at(k);
        printf("adhesion.model %s\n  %s\n", law->name, law->summary);
        print_sources(law->source);
        print_params(law->params, law->n_params);
        printf("\n");
    }
    return 0;
}

int cli_laws(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: dempact laws [NAME]\n"
               "       dempact laws --parts\n"
               "       dempact laws --friction\n"
               "       dempact laws --adhesion\n\n"
               "Lists every normal-force law (or the one named) with its formula, the papers\n"
               "it comes from (full citations), its parameters, units, defaults and accepted\n"
               "ranges. Every law also takes the switch cohesion_removal (default on: a\n"
               "negative normal force is set to 0) and, where it has a damping coefficient,\n"
               "calibrate (default off: solve that coefficient so that a binary collision\n"
               "restitutes exactly `restitution`). docs/laws.md has the same with formulas.\n"
               "Each law composed of an elastic part and a damping part says which (`parts:`);\n"
               "a case may name the law, or its two parts (law: {elastic: E, damping: D}).\n"
               "--parts lists the elastic and damping parts and the laws that combine them.\n"
               "--friction lists the tangential laws (friction.model) and the rolling laws\n"
               "(rolling.model) the same way, with the keys each takes.\n"
               "--adhesion lists the adhesion laws (adhesion.model): the pull between the\n"
               "surfaces in contact, added to the normal law's force, with the keys each takes.\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--friction") == 0) return print_friction_laws();
    if (argc > 1 && strcmp(argv[1], "--adhesion") == 0) return print_adhesion_laws();
    if (argc > 1 && strcmp(argv[1], "--parts") == 0) return print_law_parts();
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only && !law_find(only)) {
        fprintf(stderr, "dempact laws: unknown law '%s'\n", only);
        return EXIT_BAD_INPUT;
    }
    for (int k = 0; k < law_count(); k++) {
        const dem_law *law = law_at(k);
        if (only && strcmp(only, law->name)) continue;
        printf("%s\n  %s\n", law->name, law->summary);
        print_sources(law->source);
        if (law->n_params == 0) printf("  parameters: none\n");
        print_params(law->params, law->n_params);
        if (law->calibration)
            printf("  calibrate: true solves %s for the restitution\n", law->calibration->coefficient);
        else
            printf("  calibrate: not available (no damping coefficient)\n");
        const int v0 = law_has(&law->plugin, LAW_CAP_IMPACT_VELOCITY);
        printf("  history per contact:");
        const char *sep = " ";
        if (v0) { printf(" impact velocity"); sep = ", "; }
        for (int h = 0; h < law->n_state; h++, sep = ", ") printf("%s%s", sep, law->state_names[h]);
        if (!v0 && law->n_state == 0) printf(" none");
        printf("\n");
        print_parts(law);
        printf("\n");
    }
    return 0;
}
