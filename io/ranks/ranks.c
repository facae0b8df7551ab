/* The processes a command runs on (ranks.h). */
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef DEMPACT_MPI
#include <mpi.h>

#include "decompose.h"
#include "split_run.h"
#endif

static int self = 0, count = 1, started = 0;

int ranks_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

int ranks_start(int *argc, char ***argv)
{
    if (!ranks_launched()) return 0;
#ifdef DEMPACT_MPI
    /* the OpenMP threads of a rank never call MPI: funneled through the main thread */
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "dempact: MPI did not start\n");
        return -1;
    }
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Comm_size(MPI_COMM_WORLD, &count);
    return 0;
#else
    (void)argc;
    (void)argv;
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    if (n && atoi(n) > 1) {
        fprintf(stderr, "dempact: started on %s ranks, but this build has no MPI (configure "
                        "with DEMPACT_MPI=ON, which needs libopenmpi-dev and "
                        "libtrilinos-zoltan-dev)\n", n);
        return -1;
    }
    return 0;
#endif
}

void ranks_end(void)
{
#ifdef DEMPACT_MPI
    if (started) MPI_Finalize();
#endif
    started = 0;
}

int ranks_self(void) { return self; }
int ranks_count(void) { return count; }

int ranks_silence_others(void)
{
    if (self == 0) return 0;
    return freopen("/dev/null", "w", stdout) && freopen("/dev/null", "w", stderr) ? 0 : -1;
}

int ranks_worst(int status)
{
#ifdef DEMPACT_MPI
    if (count > 1) MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
    return status;
}

int ranks_agree(int status, char *msg, size_t len)
{
#ifdef DEMPACT_MPI
    if (count > 1) {
        int mine = status != 0 ? self : count, from;
        MPI_Allreduce(&mine, &from, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (from == count) return 0;
        MPI_Bcast(&status, 1, MPI_INT, from, MPI_COMM_WORLD);
        if (len > 0) MPI_Bcast(msg, (int)len, MPI_CHAR, from, MPI_COMM_WORLD);
    }
#else
    (void)msg;
    (void)len;
#endif
    return status;
}

#ifdef DEMPACT_MPI
const session_ranks *ranks_session(const char *case_path, FILE *log)
{
    return count > 1 ? split_run_session(case_path, log) : NULL;
}

void ranks_print_split(FILE *out)
{
    if (count > 1) split_run_session_print(out);
}

void ranks_session_end(void)
{
    if (count > 1) split_run_session_end();
}

int ranks_split_whole(sim *s, FILE *log, char *err, size_t err_len)
{
    if (count <= 1) return 0;
    int rc = split_run_session(s->cfg.case_path ? s->cfg.case_path : s->cfg.name, log)->start(s, err, err_len);
    if (rc == 0 && log) split_run_session_print(log);
    return rc;
}

void ranks_split_traffic(double per_step[2], double per_rebuild[2])
{
    per_step[0] = per_step[1] = per_rebuild[0] = per_rebuild[1] = 0.0;
    if (count > 1) split_run_session_traffic(per_step, per_rebuild);
}

void ranks_sum(double *v, int n)
{
    if (count > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

double ranks_largest(double x)
{
    if (count > 1) MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return x;
}

void ranks_barrier(void)
{
    if (count > 1) MPI_Barrier(MPI_COMM_WORLD);
}

static decomposition plan;

int ranks_plan_split(const sim *s, dem_error *e)
{
    if (count <= 1) return 0;
    char err[1024];
    if (decompose(s, &plan, err, sizeof err) != 0 || decompose_check(s, &plan, err, sizeof err) != 0)
        return dem_fail(e, STATUS_BAD_INPUT, "%s: %s", s->cfg.case_path ? s->cfg.case_path : s->cfg.name, err);
    return 0;
}

void ranks_print_plan(FILE *out)
{
    if (count <= 1) return;
    if (out) decompose_print(out, &plan);
    decompose_free(&plan);
}
#else
/* one process: no split */
const session_ranks *ranks_session(const char *case_path, FILE *log)
{
    (void)case_path;
    (void)log;
    return NULL;
}

void ranks_print_split(FILE *out) { (void)out; }
void ranks_session_end(void) {}
int ranks_plan_split(const sim *s, dem_error *e)
{
    (void)s;
    (void)e;
    return 0;
}
void ranks_print_plan(FILE *out) { (void)out; }

int ranks_split_whole(sim *s, FILE *log, char *err, size_t err_len)
{
    (void)s;
    (void)log;
    (void)err;
    (void)err_len;
    return 0;
}

void ranks_split_traffic(double per_step[2], double per_rebuild[2])
{
    per_step[0] = per_step[1] = per_rebuild[0] = per_rebuild[1] = 0.0;
}

void ranks_sum(double *v, int n)
{
    (void)v;
    (void)n;
}

double ranks_largest(double x) { return x; }
void ranks_barrier(void) {}
#endif
