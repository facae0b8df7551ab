/* The `dempact` command line: one function per subcommand. Exit statuses:
 * 0 success, 1 a run failed while running (I/O error, ...), 2 bad input or usage. */
#ifndef DEMPACT_CLI_H
#define DEMPACT_CLI_H

#define EXIT_BAD_INPUT 2
#define EXIT_RUN_FAILED 1

int cli_run(int argc, char **argv);
int cli_laws(int argc, char **argv);
int cli_collide(int argc, char **argv);

/* Parses "KEY=VALUE" law parameters and "on"/"off" switches (shared helpers). */
int cli_parse_double(const char *text, double *out);
int cli_parse_switch(const char *text, int *out);
int cli_wants_help(int argc, char **argv);

#endif
