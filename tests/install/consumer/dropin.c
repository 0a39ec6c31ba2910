/* An MPI-IO program that knows nothing of mcio: each rank writes its block collectively and
 * reads its neighbour's back; every byte is checked. Usage: dropin <file> */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    enum { N = 10000 };
    static int buf[N], back[N];
    for (int i = 0; i < N; i++)
        buf[i] = rank * N + i;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof buf, buf, N, MPI_INT, MPI_STATUS_IGNORE);
    int next = (rank + 1) % nprocs;
    MPI_File_read_at_all(fh, (MPI_Offset)next * sizeof buf, back, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    for (int i = 0; i < N; i++)
        bad += back[i] != next * N + i;
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("dropin: %d ranks, %d wrong values\n", nprocs, all);
    MPI_Finalize();
    return all != 0;
}
