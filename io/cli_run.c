/* dempact run: reads a case, checks everything, then steps and writes snapshots. */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "case.h"
#include "case_errors.h"
#include "engine/sim.h"
#include "snapshot.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dempact run CASE.yaml [--output DIR] [--threads N] [--quiet]\n\n"
            "Runs the case and writes DIR/NAME.h5 (snapshots) and DIR/NAME.xmf (open it in\n"
            "ParaView), NAME being the case's name. Progress (step, simulated time,\n"
            "particle-steps per second, time left) goes to stderr.\n\n"
            "defaults: DIR = output, N = all cores (OMP_NUM_THREADS if set).\n"
            "exit status: 0 done, 1 failed while running, 2 bad case file or options.\n");
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void format_duration(double seconds, char *out, size_t len)
{
    long s = (long)(seconds + 0.5);
    snprintf(out, len, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
}

typedef struct progress {
    double started, last_report;
    int64_t first_step, total_steps;
    int on_terminal;
} progress;

static void report_progress(progress *pr, const sim *s, int final)
{
    double now = wall_seconds();
    double interval = pr->on_terminal ? 0.5 : 5.0;
    if (!final && now - pr->last_report < interval) return;
    pr->last_report = now;
    double elapsed = now - pr->started;
    int64_t done = s->step - pr->first_step;
    double rate = elapsed > 0 ? done * (double)s->p.n_local / elapsed : 0.0;
    double left = done > 0 ? elapsed * (pr->total_steps - s->step) / done : 0.0;
    char eta[32];
    format_duration(final ? elapsed : left, eta, sizeof eta);
    fprintf(stderr, "%sstep %lld/%lld  t = %.6g s  %zu contacts  %.3g particle-steps/s  %s %s%s",
            pr->on_terminal ? "\r" : "", (long long)s->step, (long long)pr->total_steps,
            s->time, s->n_contacts, rate, final ? "elapsed" : "left", eta,
            pr->on_terminal && !final ? "   " : "\n");
    fflush(stderr);
}

/* What calibrate: true solved, so that a run's log says which damping it used. */
static void print_calibrations(const sim *s)
{
    for (int k = 0; k < s->cfg.n_bindings; k++) {
        const law_binding *b = &s->cfg.bindings[k];
        if (!b->calibrate) continue;
        const law_instance *li = &s->laws[b->material_a * s->n_materials + b->material_b];
        fprintf(stderr, "contacts[%d] (%s, %s): %s calibrated to e = %g: %s = %.10g (reference "
                        "collision R* = %.4g m, m* = %.4g kg, v0 = %.4g m/s)\n",
                k, s->cfg.materials[b->material_a].name, s->cfg.materials[b->material_b].name,
                b->law->name, law_target_restitution(b->law, b->params),
                b->law->calibration->coefficient, li->coeffs.c[b->law->calibration->coeff],
                li->reference.r_eff, li->reference.m_eff, li->reference.v0);
    }
}

int cli_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) { usage(stdout); return 0; }
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"threads", required_argument, 0, 't'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {0, 0, 0, 0}};
    const char *out_dir = "output";
    int threads = 0, quiet = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        double v;
        switch (c) {
        case 'o': out_dir = optarg; break;
        case 'q': quiet = 1; break;
        case 't':
            if (cli_parse_double(optarg, &v) || v < 1 || v != floor(v) || v > 1024) {
                fprintf(stderr, "dempact run: --threads takes a whole number >= 1, not '%s'\n", optarg);
                return EXIT_BAD_INPUT;
            }
            threads = (int)v;
            break;
        default:
            fprintf(stderr, "dempact run: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind != argc - 1) { usage(stderr); return EXIT_BAD_INPUT; }
    if (threads > 0) omp_set_num_threads(threads);

    const char *case_path = argv[optind];
    sim_config cfg = {0};
    char err[4096];
    if (case_load(case_path, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        sim_config_free(&cfg);
        return EXIT_BAD_INPUT;
    }
    sim s;
    if (sim_create(&s, &cfg, err, sizeof err) != 0) {
        char located[sizeof err + 512];
        case_locate_error(&cfg, err, located, sizeof located);
        fprintf(stderr, "%s\n", located);
        sim_free(&s);
        sim_config_free(&cfg);
        return EXIT_BAD_INPUT;
    }
    int64_t total_steps = (int64_t)ceil(cfg.end_time / s.dt - 1e-9);
    int64_t every = cfg.output_interval > 0 ? (int64_t)llround(cfg.output_interval / s.dt) : total_steps;
    if (every < 1) every = 1;
    if (!quiet)
        fprintf(stderr, "%s: %zu particles, %d walls, dt = %.4g s (stable limit %.4g s), %lld steps, "
                        "%d threads\n", cfg.name, s.p.n_local, cfg.n_walls, s.dt, s.dt_limit,
                (long long)total_steps, omp_get_max_threads());
    if (!quiet) print_calibrations(&s);

    snapshot_run_info info = {.case_name = cfg.name, .case_text = cfg.case_text,
                              .version = DEMPACT_VERSION, .build = DEMPACT_BUILD_TYPE, .dt = s.dt};
    snapshot_file *out = snapshot_create(out_dir, cfg.name, &info, err, sizeof err);
    int status = 0;
    if (!out) {
        fprintf(stderr, "dempact run: %s\n", err);
        status = EXIT_RUN_FAILED;
        goto done;
    }
    if (snapshot_write(out, &s.p, s.time, s.step, err, sizeof err) != 0) goto write_failed;
    progress pr = {.started = wall_seconds(), .first_step = s.step, .total_steps = total_steps,
                   .on_terminal = isatty(STDERR_FILENO)};
    while (s.step < total_steps) {
        sim_step(&s);
        if ((s.step % every == 0 || s.step == total_steps) &&
            snapshot_write(out, &s.p, s.time, s.step, err, sizeof err) != 0)
            goto write_failed;
        if (!quiet) report_progress(&pr, &s, s.step == total_steps);
    }
    if (!quiet)
        fprintf(stderr, "wrote %d snapshots to %s and %s\n", snapshot_count(out),
                snapshot_h5_path(out), snapshot_xmf_path(out));
    goto done;
write_failed:
    fprintf(stderr, "dempact run: %s\n", err);
    status = EXIT_RUN_FAILED;
done:
    if (snapshot_close(out) != 0 && status == 0) status = EXIT_RUN_FAILED;
    sim_free(&s);
    sim_config_free(&cfg);
    return status;
}
