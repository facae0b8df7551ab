/* The processes a command runs on. `mpirun -np N dempact ...` starts N ranks (of the MPI
 * build, dempact-mpi, which dempact runs in its place: cli_relaunch_mpi, cli.h); a plain
 * `dempact ...` is one rank and never starts MPI, so it needs no launcher and no MPI
 * daemon. Program layer only (the libraries know nothing of MPI). */
#ifndef DEMPACT_RANKS_H
#define DEMPACT_RANKS_H

#include <stddef.h>
#include <stdio.h>

#include "io/session/session.h"

/* Whether an MPI launcher (OpenMPI's mpirun, a PMIx or PMI one) started this process: its
 * environment holds OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK. */
int ranks_launched(void);
/* Starts MPI when this build has it (DEMPACT_MPI) and an MPI launcher started the
 * process (ranks_launched).
 * Returns 0, or -1 with a message on stderr (a launcher without MPI in this build). */
int ranks_start(int *argc, char ***argv);
/* Ends MPI if ranks_start started it. */
void ranks_end(void);
/* This process's rank and the number of ranks (0 and 1 without MPI). */
int ranks_self(void);
int ranks_count(void);
/* For a command every rank runs alike: rank 0 speaks for all, the others' stdout and
 * stderr go to /dev/null. Returns 0 or -1. */
int ranks_silence_others(void);
/* The largest of the ranks' status (an exit status, a flag): collective, for a step
 * every rank must take or skip alike. */
int ranks_worst(int status);
/* Where the ranks may part (one ran out of memory where the others did not): the status
 * and message (len bytes) of the lowest rank whose status is not 0, on every rank; 0 and
 * msg unchanged when all are 0. Collective. */
int ranks_agree(int status, char *msg, size_t len);


/* A simulation split over the ranks, for session_open (session.h): NULL in one process
 * (and in a build without MPI). log: rank 0's, where the split's rebalances are told
 * (NULL: nowhere); case_path starts a restart's split messages. */
const session_ranks *ranks_session(const char *case_path, FILE *log);
/* The split the session made (each rank's particles, and the split by contacts to come). */
void ranks_print_split(FILE *out);
/* Frees the split (after session_close). */
void ranks_session_end(void);

/* A simulation every rank built whole (the bench's bed), split over the ranks with the
 * session's split (its decomposition on log, rank 0's, or NULL): 0, or a failure value
 * (engine/fail.h) with a message. 0 in one process. */
int ranks_split_whole(struct sim *s, FILE *log, char *err, size_t err_len);
/* The bytes a rank sends per step and per rebuild (the mean over the ranks and the
 * largest) of that split; zeros in one process. */
void ranks_split_traffic(double per_step[2], double per_rebuild[2]);

/* Collectives that are nothing in one process: v[0 .. n-1] summed over the ranks in
 * place, the largest x over them, a barrier. */
void ranks_sum(double *v, int n);
double ranks_largest(double x);
void ranks_barrier(void);

/* `dempact check` on several ranks: how the particles of s would be split over them, and
 * whether that split can run. 0 (also in one process), or STATUS_BAD_INPUT with the
 * reason in e (every rank finds the same). */
int ranks_plan_split(const struct sim *s, dem_error *e);
/* The split ranks_plan_split made, then freed (nothing in one process). */
void ranks_print_plan(FILE *out);

#endif
