/* The README's example, whole: each rank writes two 4 KiB extents, then once more through a
 * persistent plan, and reads everything back; every byte is checked. Exits non-zero on any
 * wrong byte or error, on every rank. Usage: checkpoint <file> */
#include <mcio.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    char buf[8192], back[8192];
    for (int i = 0; i < (int)sizeof buf; i++)
        buf[i] = (char)(rank * 31 + i * 7);
    mcio_file fh;
    int rc = mcio_file_open(MPI_COMM_WORLD, argc > 1 ? argv[1] : "checkpoint.dat",
                            MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    int64_t offsets[] = {rank * 4096, (nprocs + rank) * 4096};
    int64_t lengths[] = {4096, 4096};
    if (rc == MCIO_SUCCESS)
        rc = mcio_write_at_all(fh, 2, offsets, lengths, buf);
    mcio_plan plan;
    if (rc == MCIO_SUCCESS && (rc = mcio_plan_create(fh, 2, offsets, lengths, &plan)) == MCIO_SUCCESS) {
        for (int step = 0; step < 3 && rc == MCIO_SUCCESS; step++)
            rc = mcio_plan_write(plan, buf);
        mcio_plan_free(&plan);
    }
    memset(back, 0, sizeof back);
    if (rc == MCIO_SUCCESS)
        rc = mcio_read_at_all(fh, 2, offsets, lengths, back);
    if (rc != MCIO_SUCCESS)
        fprintf(stderr, "%s\n", mcio_error_message()), bad = 1;
    else if (memcmp(buf, back, sizeof buf) != 0)
        fprintf(stderr, "rank %d: wrong bytes read back\n", rank), bad = 1;
    if (fh != MCIO_FILE_NULL)
        mcio_file_close(&fh);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checkpoint: %d ranks, %s\n", nprocs, all ? "FAILED" : "all bytes verified");
    MPI_Finalize();
    return all;
}
