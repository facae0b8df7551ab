/* dempact check: everything `run` does before its first step (read the case, build the
 * simulation: particles, laws, calibration, timestep, and look at the state it starts
 * from), then a summary on stdout. Nothing is written. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "io/ranks/ranks.h"
#include "io/session/session.h"
#include "io/case/case_mixing.h"
#include "engine/collide/pair_restitution.h"
#include "io/output/output_schedule.h"
#include "engine/sim.h"
#include "engine/checks/timestep.h"
#include "engine/checks/watchdog.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dempact check CASE.yaml\n\n"
            "Reads and checks the case the way `dempact run` does before its first step: the\n"
            "file (every key, type and range), the particles it creates, the contact laws\n"
            "(and their calibration), the timestep, and the state it starts from (no\n"
            "overlap beyond the watchdog's limit, nothing outside the domain). Prints a\n"
            "summary, with the step's stable limit and what sets it (the Rayleigh time, the\n"
            "contact time, or a contact entry's tangential or rolling spring or dashpot);\n"
            "writes nothing.\n\n"
            "exit status: 0 the case is good, 2 it is not (the message names file, line\n"
            "and key), 3 out of memory.\n");
}

void cli_print_restitutions(FILE *out, const sim_config *cfg, const sim *s)
{
    for (int k = 0; k < cfg->n_bindings; k++) {
        const law_binding *b = &cfg->bindings[k];
        pair_restitution pr;
        char err[512];
        fprintf(out, "  restitution %s on %s: ", cfg->materials[b->material_a].name,
                cfg->materials[b->material_b].name);
        if (pair_restitution_measure(s, k, &pr, err, sizeof err) != 0) {
            fprintf(out, "not measured (%s)\n", err);
            continue;
        }
        if (isnan(pr.asked)) fprintf(out, "gets %.4f", pr.actual);
        else fprintf(out, "asks %.4g, gets %.4f", pr.asked, pr.actual);
        fprintf(out, " at the step %.6g s (head on%s, R* %.6g m, m* %.6g kg, %.6g m/s)", pr.dt,
                pr.against_wall ? " against a plane" : "", pr.r_eff, pr.m_eff, pr.v0);
        if (pr.dt > s->dt)
            fprintf(out, ", t_c / %d: the case's step %.6g s is finer still",
                    PAIR_RESTITUTION_MAX_STEPS, s->dt);
        if (b->adhesion.law) /* pair_restitution.h: the law's own, the adhesion's on top */
            fprintf(out, "; the law's own, without its adhesion (%s)", b->adhesion.law->name);
        for (int q = 0; q < s->n_materials * s->n_materials; q++)
            if (s->laws[q].binding == k && !isnan(s->laws[q].v_floor)) {
                fprintf(out, "; v_floor %.4g m/s", s->laws[q].v_floor);
                break;
            }
        fputc('\n', out);
    }
}

static void summary(const sim_config *cfg, const sim *s)
{
    printf("%s: the case is good\n", cfg->case_path ? cfg->case_path : cfg->name);
    printf("  name       %s (output NAME.h5, NAME.d/, NAME.xmf, NAME_contacts.xmf, NAME_walls.xmf)\n",
           cfg->name);
    printf("  domain     [%g, %g] x [%g, %g] x [%g, %g] m, periodic %s %s %s\n",
           cfg->domain_min[0], cfg->domain_max[0], cfg->domain_min[1], cfg->domain_max[1],
           cfg->domain_min[2], cfg->domain_max[2], cfg->periodic[0] ? "x" : "-",
           cfg->periodic[1] ? "y" : "-", cfg->periodic[2] ? "z" : "-");
    printf("  particles  %zu:", s->p.n_local);
    for (int m = 0; m < cfg->n_materials; m++) {
        size_t n = 0;
        double r_min = HUGE_VAL, r_max = 0.0;
        for (size_t i = 0; i < s->p.n_local; i++)
            if (s->p.type[i] == m) {
                n++;
                r_min = fmin(r_min, s->p.radius[i]);
                r_max = fmax(r_max, s->p.radius[i]);
            }
        if (n) printf(" %zu %s (radius %g to %g m)", n, cfg->materials[m].name, r_min, r_max);
    }
    printf("\n  walls      %d\n", cfg->n_walls);
    if (cfg->reproducible)
        printf("  sums       in particle-id order, totals exact (parallel.reproducible)\n");
    for (int k = 0; k < cfg->n_bindings; k++) {
        const law_binding *b = &cfg->bindings[k];
        printf("  contact    %s on %s: %s%s", cfg->materials[b->material_a].name,
               cfg->materials[b->material_b].name, b->law->name,
               b->calibrate ? " (calibrated)" : "");
        const adhesion_law *adh = b->adhesion.law;
        if (adh) {
            printf(", adhesion %s", adh->name);
            for (int q = 0; q < adh->n_params; q++)
                printf("%s%s %g", q ? ", " : " (", adh->params[q].name, b->adhesion.params[q]);
            printf("%s", adh->n_params ? ")" : "");
        }
        printf("\n");
    }
    case_mixing_print(stdout, cfg);
    double end = cfg->end_time;
    run_schedule plan; /* sim_create checked it */
    char err[512];
    timestep_schedule(s, &plan, err, sizeof err);
    char source[512];
    timestep_limit_source(s, source, sizeof source);
    char mixed[512]; /* a mixed pair's entry named by where it comes from */
    case_mixing_note(cfg, source, mixed, sizeof mixed);
    printf("  time       end %g s, step %.4g s (stable limit %.4g s, set by %s%s%s), %lld steps\n",
           end, s->dt, s->dt_limit, source, mixed,
           s->dt > s->dt_limit ? "; EXCEEDED: check_step is off" : "", (long long)plan.steps);
    printf("  output     %lld snapshots (%.3g MB at least)\n", (long long)plan.snapshots,
           plan.bytes / 1e6);
    output_grid snaps, samples;
    output_grids(cfg, s->dt, plan.steps, &snaps, &samples);
    for (int k = 0; k < 2; k++) {
        const output_grid *g = k ? &samples : &snaps;
        if (output_grid_inexact(g))
            printf("  warning    %s = %g s is not a whole number of steps (%.6g): each %s "
                   "goes to the step nearest its time, at most dt/2 = %.3g s off\n",
                   !k ? "time.output_interval"
                   : cfg->timeseries_interval > 0 ? "time.timeseries_interval"
                                                  : "the time-series interval (output_interval / 10)",
                   g->interval, g->interval / s->dt, k ? "sample" : "snapshot", 0.5 * s->dt);
    }
    cli_print_restitutions(stdout, cfg, s);
    watchdog_settings w = watchdog_settings_of(s);
    char energy[64] = "off";
    if (watchdog_energy_applies(s))
        snprintf(energy, sizeof energy, "budget %.4g J, tolerance %g", watchdog_energy_budget(s),
                 w.energy_tolerance);
    printf("  watchdog   every %d step%s, overlap limit %g of a radius, energy %s, on error %s\n",
           w.interval, w.interval == 1 ? "" : "s", w.max_overlap_fraction, energy,
           w.on_error == WATCHDOG_ACTION_DROP_PARTICLE ? "drop the particle" : "stop");
}

int cli_check(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    /* on several ranks each builds the same case, summing by id as a run on them does;
     * rank 0 speaks for all */
    if (ranks_silence_others() != 0) return EXIT_BAD_INPUT;
    session ss;
    dem_error e;
    const session_request rq = {.case_path = argv[1], .sums_by_id = ranks_count() > 1};
    int status = ranks_agree(session_open(&ss, &rq, &e), e.msg, sizeof e.msg);
    /* and how the particles would be split over the ranks, decided before anything is
     * printed, so that a case is called good only when it runs on these ranks */
    if (status == 0) status = ranks_plan_split(&ss.s, &e);
    if (status != 0) fprintf(stderr, "%s\n", e.msg);
    if (status == 0) summary(&ss.cfg, &ss.s);
    ranks_print_plan(status == 0 ? stdout : NULL);
    session_close(&ss);
    return status;
}
