/*
 * Shared by the drop-in layer's test programs (each is run natively and under the layer by
 * run_pmpi.sh as <program> <file> <dump prefix> <calls file>): a check that counts failures and
 * says where, and the common ending. A program that includes this keeps `rank`, `nprocs` and
 * `failures` in scope where CHECK is used.
 *
 * No hang goes unexplained (as tests/mpi/mcio_test.h does for the multi-rank tests): including
 * this header arms a deadline before main (MCIO_TEST_DEADLINE seconds, default 120 per run,
 * so that a hang in a later run of run_pmpi.sh still reports before ctest's 300 s). When it
 * passes, each rank prints "<program>: deadline passed: rank r/n (pid p), in:" and its call
 * stack (the MPI or mcio call it waits in), and exits with status 124. The rank comes from the launcher's environment
 * (Open MPI's OMPI_COMM_WORLD_RANK, MPICH's PMI_RANK), as MPI is not initialized yet.
 */
#ifndef MCIO_PMPI_TEST_H
#define MCIO_PMPI_TEST_H

#include <execinfo.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test_deadline.h"

#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            failures++;                                                                       \
            fprintf(stderr, "FAIL %s:%d rank %d/%d: %s: ", __FILE__, __LINE__, rank, nprocs,  \
                    #cond);                                                                   \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)

static char pmpi_deadline_msg[256];
extern char *program_invocation_short_name; /* glibc's, declared here: the includer may have set
                                             * feature macros without _GNU_SOURCE */

/* SIGALRM: say where this rank is (write and backtrace_symbols_fd do not allocate), give the
 * other ranks 3 s to say it too, then exit 124. */
static void pmpi_deadline(int sig)
{
    (void)sig;
    ssize_t n = write(2, pmpi_deadline_msg, strlen(pmpi_deadline_msg));
    (void)n;
    void *frames[40];
    backtrace_symbols_fd(frames, backtrace(frames, 40), 2);
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

/* MPI_Init, this rank and the size of MPI_COMM_WORLD; aborts unless the program was given its
 * three arguments (<file> <dump prefix> <calls file>). */
static inline void pmpi_test_start(int *argc, char ***argv, int *rank, int *nprocs)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nprocs);
    if (*argc < 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
}

/*
 * Sum the failures over the ranks; rank 0 writes `calls` (the collective calls the program made,
 * or "-" for "at least one", as run_pmpi.sh expects) to calls_path and prints a summary.
 * Finalizes MPI and returns the exit status: 0 when no rank failed, so none can hang the others.
 */
static inline int pmpi_test_finish(const char *name, int failures, const char *calls_path,
                                   const char *calls)
{
    int rank, nprocs, all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(calls_path, "w");
        if (f)
            fprintf(f, "%s\n", calls), fclose(f);
        printf("%s: %d ranks, %s collective calls, %d failures\n", name, nprocs, calls, all);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}

#endif
