/*
 * Shared by the drop-in layer's test programs (each is run natively and under the layer by
 * run_pmpi.sh as <program> <file> <dump prefix> <calls file>): a check that counts failures and
 * says where, and the common ending. A program that includes this keeps `rank`, `nprocs` and
 * `failures` in scope where CHECK is used.
 *
 * No hang goes unexplained (as tests/mpi/mcio_test.h does for the multi-rank tests): including
 * this header arms the deadline of pmpi_deadline.h before main.
 */
#ifndef MCIO_PMPI_TEST_H
#define MCIO_PMPI_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_deadline.h"

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
