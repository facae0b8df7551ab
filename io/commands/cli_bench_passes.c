/* The share of a bench step spent in each pass (cli_bench_passes.h). */
#include "cli_bench_passes.h"

#include "io/ranks/ranks.h"

static const char *const pass_name[SIM_PASSES] = {
    [SIM_PASS_NEIGHBOURS] = "neighbours", [SIM_PASS_PAIRS] = "pairs",
    [SIM_PASS_INTEGRATION] = "integration", [SIM_PASS_BOOKS] = "books"};

bench_passes bench_passes_measure(const sim *s, const double before[SIM_PASSES], long steps,
                                  double per_step)
{
    bench_passes b;
    for (int q = 0; q < SIM_PASSES; q++) b.seconds[q] = s->pass_seconds[q] - before[q];
    ranks_sum(b.seconds, SIM_PASSES);
    for (int q = 0; q < SIM_PASSES; q++) {
        b.seconds[q] /= (double)ranks_count() * (double)(steps > 0 ? steps : 1);
        b.percent[q] = steps > 0 && per_step > 0 ? 100.0 * b.seconds[q] / per_step : 0.0;
    }
    return b;
}

void bench_passes_print(FILE *out, const bench_passes *b, long steps, int json)
{
    if (steps <= 0) {
        if (json) fprintf(out, " \"passes\": null,\n");
        return;
    }
    double total = 0.0;
    for (int q = 0; q < SIM_PASSES; q++) total += b->percent[q];
    if (json) {
        fprintf(out, " \"passes\": {");
        for (int q = 0; q < SIM_PASSES; q++)
            fprintf(out, "%s\"%s\": {\"seconds_per_step\": %.6g, \"percent\": %.4g}", q ? ", " : "",
                    pass_name[q], b->seconds[q], b->percent[q]);
        fprintf(out, ", \"percent_total\": %.4g},\n", total);
        return;
    }
    for (int q = 0; q < SIM_PASSES; q++)
        fprintf(out, "pass %-27s %.4g s per step, %.1f%%\n", pass_name[q], b->seconds[q],
                b->percent[q]);
    fprintf(out, "passes in all                   %.1f%% of the step\n", total);
}
