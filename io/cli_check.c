/* dempact check: everything `run` does before its first step (read the case, build the
 * simulation: particles, laws, calibration, timestep, and look at the state it starts
 * from), then a summary on stdout. Nothing is written. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ranks.h"
#include "tuning_env.h"
#include "case.h"
#include "case_errors.h"
#include "case_mixing.h"
#include "engine/pair_restitution.h"
#include "output_schedule.h"
#include "engine/sim.h"
#include "engine/timestep.h"
#include "engine/watchdog.h"
#ifdef DEMPACT_MPI
#include <mpi.h>
#include "decompose.h"
#endif

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

/* A signal's flag set while reading or building: the loops gave up on it. */
static int stopped_by(volatile sig_atomic_t *stop, const char *case_path, char *msg, size_t len)
{
    if (!stop || !*stop) return 0;
    int sig = *stop;
    snprintf(msg, len, "%s: stopped by %s before the first step; nothing was written", case_path,
             sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
    return 128 + sig;
}

/* A failed building or check: its message pointed at the case's line (bad input), or
 * out of memory. */
static int refused(const sim_config *cfg, const char *err, char *msg, size_t len)
{
    int status = cli_refusal_status(err);
    if (status == EXIT_NO_MEMORY)
        snprintf(msg, len, "%s: %s", cfg->case_path ? cfg->case_path : cfg->name, err);
    else
        case_locate_error(cfg, err, msg, len);
    return status;
}

/* The case read and placed (sim_place), its starting speeds and its schedule checked. */
static int check_placed(const char *case_path, sim_config *cfg, sim *s, volatile sig_atomic_t *stop,
                        int by_id, char *msg, size_t msg_len)
{
    char err[4096];
    memset(s, 0, sizeof *s);
    int status;
    if (case_load_stoppable(case_path, cfg, stop, err, sizeof err) != 0) {
        if ((status = stopped_by(stop, case_path, msg, msg_len)) != 0) return status;
        snprintf(msg, msg_len, "%s", err);
        return cli_refusal_status(err);
    }
    tuning_from_env(&cfg->tuning);
    if (by_id) cfg->reproducible = true;
    if (sim_place(s, cfg, err, sizeof err) != 0) {
        if ((status = stopped_by(stop, case_path, msg, msg_len)) != 0) return status;
        return refused(cfg, err, msg, msg_len);
    }
    if ((status = stopped_by(stop, case_path, msg, msg_len)) != 0) return status;
    run_schedule plan;
    if (timestep_check_speeds(s, err, sizeof err) != 0 ||
        timestep_schedule(s, &plan, err, sizeof err) != 0)
        return refused(cfg, err, msg, msg_len);
    return 0;
}

/* The first list and forces (sim_start), and the state they start from; split over
 * ranks, then the split by their contacts. */
static int check_started(const sim_config *cfg, sim *s, const cli_split *split, char *msg,
                         size_t msg_len)
{
    char err[4096] = "";
    if (sim_start(s, err, sizeof err) != 0) return refused(cfg, err, msg, msg_len);
    watchdog_report r;
    int problem = watchdog_check_start(s, &r) != WATCHDOG_OK;
    int anywhere = sim_failed_anywhere(s, problem);
    if (problem) {
        watchdog_format(&r, s, err, sizeof err);
        return refused(cfg, err, msg, msg_len);
    }
    if (anywhere) return 0; /* another rank's problem, which it reports (ranks_agree) */
    if (split && split->weigh(s, split->ctx, err, sizeof err) != 0)
        return refused(cfg, err, msg, msg_len);
    return 0;
}

int cli_check_case(const char *case_path, sim_config *cfg, sim *s, volatile sig_atomic_t *stop,
                   int by_id, const cli_split *split, char *msg, size_t msg_len)
{
    int status = check_placed(case_path, cfg, s, stop, by_id, msg, msg_len);
    if (split) {
        /* from here on the ranks call collectives: all go on, or none */
        if ((status = ranks_agree(status, msg, msg_len)) != 0) return status;
        if (!split->begin) return stopped_by(stop, case_path, msg, msg_len);
        char err[4096] = "";
        if (split->begin(s, split->ctx, err, sizeof err) != 0) {
            snprintf(msg, msg_len, "%s: %s", case_path, err);
            return cli_refusal_status(err);
        }
    }
    if (status == 0) status = check_started(cfg, s, split, msg, msg_len);
    /* (on ranks, a signal one saw alone is agreed by the caller, after the collectives) */
    if (status == 0) status = stopped_by(stop, case_path, msg, msg_len);
    return status;
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
        fprintf(out, " at the step %.6g s (head on%s, R* %.6g m, m* %.6g kg, %.6g m/s)", s->dt,
                pr.against_wall ? " against a plane" : "", pr.r_eff, pr.m_eff, pr.v0);
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
        printf("  contact    %s on %s: %s%s\n", cfg->materials[b->material_a].name,
               cfg->materials[b->material_b].name, b->law->name,
               b->calibrate ? " (calibrated)" : "");
    }
    case_mixing_print(stdout, cfg);
    double end = cfg->end_time;
    run_schedule plan; /* sim_create checked it */
    char err[512];
    timestep_schedule(s, &plan, err, sizeof err);
    char source[512];
    timestep_limit_source(s, source, sizeof source);
    printf("  time       end %g s, step %.4g s (stable limit %.4g s, set by %s%s), %lld steps\n",
           end, s->dt, s->dt_limit, source,
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

#ifdef DEMPACT_MPI
/* On several ranks: how the particles would be split over them, into *d, and whether the
 * split can run: 0, or EXIT_BAD_INPUT with the reason on stderr (every rank finds the
 * same). Decided before anything is printed, so that a case is called good only when it
 * runs on these ranks. */
static int check_split(const sim_config *cfg, const sim *s, decomposition *d)
{
    char err[1024];
    if (decompose(s, d, err, sizeof err) != 0 || decompose_check(s, d, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", cfg->case_path ? cfg->case_path : cfg->name, err);
        return EXIT_BAD_INPUT;
    }
    return 0;
}
#endif

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
    /* on several ranks each builds the same case; rank 0 speaks for all */
    if (ranks_silence_others() != 0) return EXIT_BAD_INPUT;
    sim_config cfg = {0};
    sim s;
    char msg[4608] = "";
    int status = ranks_agree(cli_check_case(argv[1], &cfg, &s, NULL, ranks_count() > 1, NULL, msg, sizeof msg),
                             msg, sizeof msg);
    if (status != 0) fprintf(stderr, "%s\n", msg);
#ifdef DEMPACT_MPI
    decomposition d = {0};
    if (status == 0 && ranks_count() > 1) status = check_split(&cfg, &s, &d);
    if (status == 0) summary(&cfg, &s);
    if (status == 0 && ranks_count() > 1) decompose_print(stdout, &d);
    if (ranks_count() > 1) decompose_free(&d);
#else
    if (status == 0) summary(&cfg, &s);
#endif
    sim_free(&s);
    sim_config_free(&cfg);
    return status;
}
