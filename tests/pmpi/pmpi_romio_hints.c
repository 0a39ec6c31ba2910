/*
 * ROMIO's hints file (ROMIO_HINTS, read by ROMIO itself) under the drop-in layer: the run sets
 * ROMIO_HINTS to a file saying romio_cb_read enable, romio_cb_write disable and
 * cb_buffer_size 131072; the program's info says romio_cb_read disable. ROMIO applies the info's
 * romio_cb_read and the file's other two (measured with MPICH 4.0.2), and so must mcio:
 * MPI_File_get_info under the layer reports those values (it used to report mcio's own defaults
 * over them, having never read the file). Natively, the values are checked where the MPI
 * library reports the keys (ROMIO does; OMPIO does not read the file). The data written with
 * them is read back and compared, and the files must match native (run_pmpi.sh).
 * Usage: pmpi_romio_hints <file> <dump prefix> <calls file>
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

static int rank, nprocs, failures;

static void expect_hint(MPI_Info info, const char *key, const char *want, int must)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag || !must, "MPI_File_get_info has no %s (expected %s)", key, want);
    CHECK(!flag || strcmp(v, want) == 0, "MPI_File_get_info: %s = %s, expected %s", key, v, want);
}

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, &rank, &nprocs);
    const char *e = getenv("PMPI_EXPECT_LAYER");
    int layer = e && strcmp(e, "1") == 0;
    CHECK(getenv("ROMIO_HINTS") != NULL, "ROMIO_HINTS is not set");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_read", "disable");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) == MPI_SUCCESS,
          "open");
    MPI_Info_free(&info);
    MPI_Info used;
    MPI_File_get_info(fh, &used);
    /* ROMIO reports its keys: then the values must be those above, natively too. */
    char v[MPI_MAX_INFO_VAL + 1];
    int romio = 0;
    MPI_Info_get(used, "romio_cb_write", MPI_MAX_INFO_VAL, v, &romio);
    expect_hint(used, "romio_cb_read", "disable", layer);
    expect_hint(used, "romio_cb_write", "disable", layer);
    expect_hint(used, "cb_buffer_size", "131072", layer || romio);
    MPI_Info_free(&used);

    /* Interleaved blocks of 1000 ints, two per rank, written and read back collectively. */
    enum { B = 1000 };
    int *buf = malloc(2 * B * sizeof *buf), *back = malloc(2 * B * sizeof *back);
    for (int i = 0; i < 2 * B; i++)
        buf[i] = rank * 1000003 + i;
    MPI_Datatype ft;
    MPI_Type_vector(2, B, B * nprocs, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)rank * B * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL);
    CHECK(MPI_File_write_all(fh, buf, 2 * B, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_all");
    failures += pmpi_test_read_back_dump(fh, buf, back, 2 * B, argv[2]);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    free(buf), free(back);
    return pmpi_test_finish("pmpi_romio_hints", failures, argv[3], "2");
}
