/* MPI_Init, one line, MPI_Finalize: no I/O, no mcio. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("hello\n");
    MPI_Finalize();
    return 0;
}
