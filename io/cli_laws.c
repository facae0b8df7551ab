/* dempact laws: every normal-force law the build knows, with its formula, the papers it
 * comes from, its parameters and their defaults and ranges (docs/laws.md holds the same,
 * checked against this output by tests/doc/check_laws.py). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
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

int cli_laws(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: dempact laws [NAME]\n\n"
               "Lists every normal-force law (or the one named) with its formula, the papers\n"
               "it comes from (full citations), its parameters, units, defaults and accepted\n"
               "ranges. Every law also takes the switch cohesion_removal (default on: a\n"
               "negative normal force is set to 0) and, where it has a damping coefficient,\n"
               "calibrate (default off: solve that coefficient so that a binary collision\n"
               "restitutes exactly `restitution`). docs/laws.md has the same with formulas.\n");
        return 0;
    }
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
        for (int q = 0; q < law->n_params; q++) {
            const law_param *p = &law->params[q];
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
        if (law->calibration)
            printf("  calibrate: true solves %s for the restitution\n", law->calibration->coefficient);
        else
            printf("  calibrate: not available (no damping coefficient)\n");
        printf("  history per contact:");
        const char *sep = " ";
        if (law->uses_impact_velocity) { printf(" impact velocity"); sep = ", "; }
        for (int h = 0; h < law->n_history; h++, sep = ", ") printf("%s%s", sep, law->history_names[h]);
        if (!law->uses_impact_velocity && law->n_history == 0) printf(" none");
        printf("\n\n");
    }
    return 0;
}
