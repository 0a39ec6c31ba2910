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

/* Reads the first n ints of this rank's view back collectively (read_at_all at 0), compares them
 * with buf, and dumps them to <prefix>.<rank>, which run_pmpi.sh compares with the native run's.
 * Returns the failures. */
static inline int pmpi_test_read_back_dump(MPI_File fh, const int *buf, int *back, int n,
                                           const char *prefix)
{
    int rank, nprocs, failures = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    memset(back, 0, (size_t)n * sizeof *back);
    CHECK(MPI_File_read_at_all(fh, 0, back, n, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "read_at_all");
    CHECK(memcmp(buf, back, (size_t)n * sizeof *buf) == 0, "read back differs from what was written");
    char dname[600];
    snprintf(dname, sizeof dname, "%s.%d", prefix, rank);
    FILE *d = fopen(dname, "wb");
    if (d)
        fwrite(back, sizeof *back, (size_t)n, d), fclose(d);
    return failures;
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
