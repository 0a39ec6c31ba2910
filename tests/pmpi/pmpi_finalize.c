/*
 * MPI_Finalize with a file the program never closed, under the drop-in layer (issue 23: a run
 * under the layer was once reported "exiting improperly" after its last line). Two files, both
 * written and read collectively through a strided view with pipelined, one-sided hints (so the
 * plan holds a window, the I/O thread runs, and the engine's communicator and backend are
 * live); the first is closed, the second is left open when MPI_Finalize runs, with a
 * nonblocking read completed and its datatypes never freed. Every rank must reach the end and
 * exit 0, natively and under the layer (run_pmpi.sh; in CI under AddressSanitizer too, which
 * reports any use of freed state at finalize), and the files must match native.
 * Usage: pmpi_finalize <file> <dump prefix> <calls file>
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

static int rank, nprocs, failures;

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, &rank, &nprocs);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mcio_pipeline_depth", "2");
    MPI_Info_set(info, "mcio_transport", "rma");
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "mcio_io_backend", "posix");
    enum { B = 10, N = 100 };
    int buf[B * N], back[B * N];
    for (int i = 0; i < B * N; i++)
        buf[i] = rank * 100003 + i;
    MPI_Datatype ft;
    MPI_Type_vector(N, B, B * nprocs, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh[2];
    for (int k = 0; k < 2; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s%s", argv[1], k ? ".open" : "");
        CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh[k]) == MPI_SUCCESS,
              "open %s", path);
        MPI_File_set_view(fh[k], (MPI_Offset)rank * B * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
        CHECK(MPI_File_write_all(fh[k], buf, B * N, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_all");
        MPI_Request rq;
        memset(back, 0, sizeof back);
        CHECK(MPI_File_iread_at_all(fh[k], 0, back, B * N, MPI_INT, &rq) == MPI_SUCCESS, "iread_at_all");
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        CHECK(memcmp(buf, back, sizeof buf) == 0, "file %d: read back differs from what was written", k);
    }
    MPI_File_close(&fh[0]); /* fh[1] stays open through MPI_Finalize */
    MPI_Info_free(&info);
    char dname[600];
    snprintf(dname, sizeof dname, "%s.%d", argv[2], rank);
    FILE *d = fopen(dname, "wb");
    if (d)
        fwrite(back, sizeof back[0], B * N, d), fclose(d);
    return pmpi_test_finish("pmpi_finalize", failures, argv[3], "-");
}
