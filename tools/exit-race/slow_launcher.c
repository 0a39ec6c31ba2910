/*
 * Preloaded into the ranks of an Open MPI job (tools/exit-race/exit-race.sh): before rank 0
 * calls PMIx_Finalize (inside MPI_Finalize, after its fence), it stops the launcher, which is
 * the PMIx server of the ranks of its node, for SLOW_LAUNCHER_SECS seconds, as a host too
 * loaded to run the launcher would. PMIx 4's PMIx_Finalize waits at most 2 s for the server's
 * answer (fin_timeout in its src/client/pmix_client.c), then the rank exits all the same.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int PMIx_Finalize(const void *info, size_t ninfo);

int PMIx_Finalize(const void *info, size_t ninfo)
{
    int (*real)(const void *, size_t);
    *(void **)&real = dlsym(RTLD_NEXT, "PMIx_Finalize");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK"), *secs = getenv("SLOW_LAUNCHER_SECS");
    if (rank && atoi(rank) == 0 && secs && atoi(secs) > 0) {
        pid_t launcher = getppid();
        if (fork() == 0) { /* resumes the launcher; holds none of the rank's output pipes */
            close(0), close(1), close(2);
            sleep((unsigned)atoi(secs));
            kill(launcher, SIGCONT);
            _exit(0);
        }
        kill(launcher, SIGSTOP);
    }
    return real(info, ninfo);
}
