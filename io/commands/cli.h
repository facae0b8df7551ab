/* The `dempact` command line: one function per subcommand. Exit statuses:
 * 0 success, 1 a run failed while running (I/O error, ...), 2 bad input or usage,
 * 3 out of memory while running, 4 stopped by the numerical watchdog, 128 + N stopped
 * by signal N (run: SIGINT, SIGTERM). */
#ifndef DEMPACT_CLI_H
#define DEMPACT_CLI_H

#include <stdio.h>

#include "io/session/status.h"

/* the exit statuses are the statuses of status.h */
#define EXIT_BAD_INPUT STATUS_BAD_INPUT
#define EXIT_RUN_FAILED STATUS_RUN_FAILED
#define EXIT_WATCHDOG STATUS_WATCHDOG /* the numerical watchdog stopped the run (engine/checks/watchdog.h) */
#define EXIT_NO_MEMORY STATUS_NO_MEMORY

int cli_run(int argc, char **argv);
int cli_laws(int argc, char **argv);
int cli_collide(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_check(int argc, char **argv);

/* A program built without MPI, started by an MPI launcher (ranks_launched, io/ranks/ranks.h),
 * replaces itself with the MPI build beside it (DEMPACT_MPI_PROGRAM, CMakeLists.txt) with
 * the same arguments, so that `mpirun -np N dempact ...` runs on N ranks while a plain
 * `dempact` maps no MPI library. Returns only where that does not happen: 0 when the build
 * made no MPI program (the command runs here, as a build without MPI does), -1 with a
 * message on stderr when it made one that cannot start. */
int cli_relaunch_mpi(char **argv);

struct sim_config;
struct sim;
/* Per contact law of the case: the restitution it asks for and the one a head-on binary
 * collision of its typical particles gets at the case's step (engine/collide/pair_restitution.h). */
void cli_print_restitutions(FILE *out, const struct sim_config *cfg, const struct sim *s);

/* The engine ran out of memory during a step (SIM_FAULT_NO_MEMORY): says where on stderr
 * and returns the exit status, 3. */
int cli_no_memory(const struct sim *s);

/* Writes arg to out as one shell word: as it is when it holds only characters no shell
 * reads specially, else in single quotes (a message's "continue with:" command must run
 * as printed, whatever the paths hold). */
void cli_print_shell_word(FILE *out, const char *arg);

/* Parses "KEY=VALUE" law parameters and "on"/"off" switches (shared helpers). */
int cli_parse_double(const char *text, double *out);
int cli_parse_switch(const char *text, int *out);
int cli_wants_help(int argc, char **argv);

#endif
