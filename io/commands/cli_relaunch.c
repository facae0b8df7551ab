/* `dempact` under an MPI launcher: the MPI build runs the command (cli.h, cli_relaunch_mpi). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_relaunch_mpi(char **argv)
{
#ifdef DEMPACT_MPI_PROGRAM
    /* the program beside this one: /proc/self/exe names this program's file, whatever
     * path or symbolic link started it */
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n < 0) {
        fprintf(stderr, "dempact: started by an MPI launcher, but /proc/self/exe does not say "
                        "where this program is (%s), so %s beside it cannot run\n",
                strerror(errno), DEMPACT_MPI_PROGRAM);
        return -1;
    }
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    if (dir + strlen(DEMPACT_MPI_PROGRAM) >= sizeof path) {
        fprintf(stderr, "dempact: started by an MPI launcher, but the path of %s beside %s is "
                        "longer than %d bytes\n", DEMPACT_MPI_PROGRAM, path, PATH_MAX - 1);
        return -1;
    }
    strcpy(path + dir, DEMPACT_MPI_PROGRAM);
    /* the same process (the launcher's rank), arguments and environment */
    execv(path, argv);
    fprintf(stderr, "dempact: started by an MPI launcher, but the MPI build %s did not start "
                    "(%s): reinstall it beside dempact, or run without mpirun\n",
            path, strerror(errno));
    return -1;
#else
    (void)argv;
    return 0;
#endif
}
