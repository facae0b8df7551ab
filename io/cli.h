/* The `dempact` command line: one function per subcommand. Exit statuses:
 * 0 success, 1 a run failed while running (I/O error, ...), 2 bad input or usage,
 * 3 out of memory while running, 4 stopped by the numerical watchdog, 128 + N stopped
 * by signal N (run: SIGINT, SIGTERM). */
#ifndef DEMPACT_CLI_H
#define DEMPACT_CLI_H

#include <signal.h>
#include <stdio.h>

#define EXIT_BAD_INPUT 2
#define EXIT_RUN_FAILED 1
#define EXIT_WATCHDOG 4 /* the numerical watchdog stopped the run (engine/watchdog.h) */

int cli_run(int argc, char **argv);
int cli_laws(int argc, char **argv);
int cli_collide(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_check(int argc, char **argv);

/* What run and check do before the first step: reads the case, builds the simulation
 * and checks the state it starts from. Returns 0, or EXIT_BAD_INPUT with the error
 * (FILE:LINE: ...) in msg (msg_len bytes; the caller prints it), or EXIT_NO_MEMORY. Free
 * *s and *cfg afterwards in all cases. stop (may be NULL): the caller's signal flag,
 * polled by the long loops of reading and filling (cfg->stop); when it was set the
 * return is 128 + its value (the signal's number).
 * by_id: sum by id whatever the case says (parallel.reproducible: a run on several
 * ranks, or the restart of one that summed so).
 * split (NULL but in a run split over ranks from its start): every rank places the
 * whole case (sim_place) and checks it; if all succeeded, `begin` hands the ghosts to
 * the ranks (each then keeps its own particles at sim_start's first rebuild) and, once
 * the start is checked over the ranks, `weigh` splits afresh by the contacts. The
 * failures before `begin` are agreed over the ranks here; later ones are the same on
 * every rank, or agreed by the caller (ranks_agree). A split with no `begin` stops after
 * the placing, agreed: a restart on ranks, whose start is the file's
 * (restart_from_file_shared). */
struct sim_config;
struct sim;
typedef struct cli_split {
    int (*begin)(struct sim *s, void *ctx, char *err, size_t err_len);
    int (*weigh)(struct sim *s, void *ctx, char *err, size_t err_len);
    void *ctx;
} cli_split;
int cli_check_case(const char *case_path, struct sim_config *cfg, struct sim *s,
                   volatile sig_atomic_t *stop, int by_id, const cli_split *split, char *msg,
                   size_t msg_len);
/* Per contact law of the case: the restitution it asks for and the one a head-on binary
 * collision of its typical particles gets at the case's step (engine/pair_restitution.h). */
void cli_print_restitutions(FILE *out, const struct sim_config *cfg, const struct sim *s);

/* The engine ran out of memory during a step (SIM_FAULT_NO_MEMORY): says where on stderr
 * and returns the exit status, 3. */
int cli_no_memory(const struct sim *s);
#define EXIT_NO_MEMORY 3
/* The exit status for a step's error message that cannot start the run: EXIT_NO_MEMORY
 * when it says "out of memory" (every layer reports a failed allocation in those
 * words), EXIT_BAD_INPUT otherwise. */
int cli_refusal_status(const char *err);

/* Writes arg to out as one shell word: as it is when it holds only characters no shell
 * reads specially, else in single quotes (a message's "continue with:" command must run
 * as printed, whatever the paths hold). */
void cli_print_shell_word(FILE *out, const char *arg);

/* Parses "KEY=VALUE" law parameters and "on"/"off" switches (shared helpers). */
int cli_parse_double(const char *text, double *out);
int cli_parse_switch(const char *text, int *out);
int cli_wants_help(int argc, char **argv);

#endif
