/*
 * The deadline of the drop-in layer's test programs (run_pmpi.sh runs each several times):
 * armed before main (MCIO_TEST_DEADLINE seconds, default 120 per run, so that a hang in a later
 * run still reports before ctest's 300 s). When it passes, each rank prints
 * "<program>: deadline passed: rank r/n (pid p), in:" and its call stack (the MPI or mcio call
 * it waits in), and exits with status 124. The rank comes from the launcher's environment (Open
 * MPI's OMPI_COMM_WORLD_RANK, MPICH's PMI_RANK), as MPI may not be initialized yet.
 *
 * The C programs include it through pmpi_test.h; the Fortran ones link pmpi_deadline.c; the
 * Python ones load it as a module (pmpi_deadline.py, libmcio_test_deadline.so) after
 * registering faulthandler for SIGUSR1, which this handler then raises so that the Python
 * stack is printed too (the C stack alone shows the interpreter); the tools that tests run
 * (mcio-bench) have it preloaded (tests/CMakeLists.txt).
 */
#ifndef MCIO_PMPI_DEADLINE_H
#define MCIO_PMPI_DEADLINE_H

#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test_deadline.h"

static char pmpi_deadline_msg[256];
extern char *program_invocation_short_name; /* glibc's, declared here: the includer may have set
                                             * feature macros without _GNU_SOURCE */

/* SIGALRM: say where this rank is (write, backtrace_symbols_fd, sigaction and raise do not
 * allocate), and the Python stack when SIGUSR1 has a handler; give the other ranks 3 s to say
 * it too, then exit 124. */
static void pmpi_deadline(int sig)
{
    (void)sig;
    ssize_t n = write(2, pmpi_deadline_msg, strlen(pmpi_deadline_msg));
    (void)n;
    void *frames[40];
    backtrace_symbols_fd(frames, backtrace(frames, 40), 2);
    struct sigaction usr1;
    if (sigaction(SIGUSR1, NULL, &usr1) == 0 && usr1.sa_handler != SIG_DFL &&
        usr1.sa_handler != SIG_IGN)
        raise(SIGUSR1);
    sleep(3);
    _exit(124);
}

__attribute__((constructor)) static void pmpi_arm_deadline(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK"), *n = getenv("OMPI_COMM_WORLD_SIZE");
    if (!r)
        r = getenv("PMI_RANK"), n = getenv("PMI_SIZE");
    snprintf(pmpi_deadline_msg, sizeof pmpi_deadline_msg,
             "%s: deadline passed: rank %s/%s (pid %d), in:\n", program_invocation_short_name,
             r ? r : "?", n ? n : "?", (int)getpid());
    void *warm[1];
    backtrace(warm, 1); /* loads the unwinder now, not in the handler */
    test_deadline_arm(120, pmpi_deadline);
}

#endif
