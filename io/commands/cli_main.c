#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io/ranks/ranks.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"run", cli_run, "run a case file and write snapshots"},
    {"collide", cli_collide, "head-on collision of two spheres through the engine: restitution, contact time, peak force"},
    {"laws", cli_laws, "list every normal-force law with its parameters and defaults"},
    {"info", cli_info, "what an output file holds: case, snapshots, times, particle counts"},
    {"bench", cli_bench, "time the engine on a settled bed of spheres (built, or read from a LAMMPS data file)"},
    {"check", cli_check, "check a case file and the simulation it builds, without running it"},
};

static void usage(FILE *out)
{
    fprintf(out, "dempact %s: a soft-sphere discrete element engine\n\n"
                 "usage: dempact COMMAND [OPTIONS]   (dempact COMMAND --help for each)\n\n",
            DEMPACT_VERSION);
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        fprintf(out, "  %-9s %s\n", commands[k].name, commands[k].summary);
    fprintf(out, "\nexit status: 0 success, 1 a run failed while running, 2 bad input or usage\n"
                 "(nothing written), 3 out of memory, 4 stopped by the numerical\n"
                 "watchdog, 128 + N stopped by signal N (130: SIGINT, 143: SIGTERM)\n");
}

/* The commands that run on several ranks (mpirun -np N): the others run on one. */
static int runs_on_ranks(const char *name)
{
    return !strcmp(name, "check") || !strcmp(name, "run") || !strcmp(name, "bench");
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) { usage(stderr); return EXIT_BAD_INPUT; }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) { printf("dempact %s\n", DEMPACT_VERSION); return 0; }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        if (strcmp(argv[1], commands[k].name)) continue;
        if (ranks_count() > 1 && !runs_on_ranks(argv[1])) {
            if (ranks_self() == 0)
                fprintf(stderr, "dempact %s runs on one rank: start it without mpirun (or "
                                "with -np 1)\n", argv[1]);
            return EXIT_BAD_INPUT;
        }
        return commands[k].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "dempact: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return EXIT_BAD_INPUT;
}

/* Every block of 128 KiB or more is mapped on its own and given back to the system when
 * freed. glibc otherwise raises that threshold to the size of each large block freed (up
 * to 32 MB), so that the arrays a rebuild frees and allocates again (the neighbour grid,
 * the list's scratch) land in the heap, which keeps what is freed: 22 bytes per particle
 * more at the peak of a million-sphere bench (docs/performance.md, "Memory"). No step
 * allocates such a block, only rebuilds do, so the mappings cost nothing per step. */
static void release_large_blocks(void)
{
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int main(int argc, char **argv)
{
    release_large_blocks();
#ifndef DEMPACT_MPI
    /* under mpirun, the MPI build beside this program runs the command in its place */
    if (ranks_launched() && cli_relaunch_mpi(argv) != 0) return EXIT_BAD_INPUT;
#endif
    if (ranks_start(&argc, &argv) != 0) return EXIT_BAD_INPUT;
    int status = dispatch(argc, argv);
    ranks_end();
    return status;
}

int cli_parse_double(const char *text, double *out)
{
    char *end;
    if (!text || !*text) return -1;
    double v = strtod(text, &end);
    if (*end != '\0') return -1;
    *out = v;
    return 0;
}

int cli_parse_switch(const char *text, int *out)
{
    if (!strcmp(text, "on") || !strcmp(text, "true") || !strcmp(text, "yes")) { *out = 1; return 0; }
    if (!strcmp(text, "off") || !strcmp(text, "false") || !strcmp(text, "no")) { *out = 0; return 0; }
    return -1;
}

int cli_wants_help(int argc, char **argv)
{
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) return 1;
    return 0;
}

void cli_print_shell_word(FILE *out, const char *arg)
{
    const char *plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=+-,@%";
    if (arg[0] && strspn(arg, plain) == strlen(arg)) {
        fputs(arg, out);
        return;
    }
    fputc('\'', out);
    for (const char *c = arg; *c; c++) {
        if (*c == '\'') fputs("'\\''", out);
        else fputc(*c, out);
    }
    fputc('\'', out);
}
