/*
 * A call one rank cannot serve falls back to the MPI library on every rank, with no collective
 * of the layer's own: the declining rank says so in the engine's agreement of the call
 * (mcio_file_fail_next), where the other ranks may already have moved their bytes (a call whose
 * last choice was independent access moves them first). Here rank 0 (then rank 1, then the
 * last rank) turns mcio off for its file with MPI_File_set_info (mcio_enable false) while the
 * others leave it on: the next call is declined on every rank and served by the MPI library,
 * the later ones go to it directly. Hints given on every rank after open (cb_buffer_size) make
 * the engine take them and run the call again. Three files:
 *   1. MCIO_STATS on (the engine plans each call before it moves data): step 0 served, step 1
 *      declined, step 2 the library's;
 *   2. MCIO_STATS off (unset before the open: independent calls then move their bytes first):
 *      steps 0-1 served, step 2 with new hints on every rank, step 3 declined, step 4 the
 *      library's;
 *   3. file 2 read back twice, then declined on the last rank, then read by the library.
 * Every byte read is checked against what its writer wrote; run_pmpi.sh compares the files and
 * the read dumps with the native run's (holes between the blocks included).
 * Usage: pmpi_decline <file> <dump prefix> <calls file>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

enum { BLOCK = 64 * 1024 };
static int rank, nprocs, failures;

static unsigned char byte_of(int step, int r, int i)
{
    return (unsigned char)(step * 31 + r * 7 + i / 512);
}

/* Step s's block of rank r: after a hole of one block per step and rank. */
static MPI_Offset where(int step, int r)
{
    return ((MPI_Offset)step * nprocs + r) * 2 * BLOCK + BLOCK;
}

static void set_mcio(MPI_File fh, int off_here)
{
    MPI_Info info; /* empty on the other ranks (MPI_INFO_NULL is not an info to Open MPI) */
    MPI_Info_create(&info);
    if (off_here)
        MPI_Info_set(info, "mcio_enable", "false");
    CHECK(MPI_File_set_info(fh, info) == MPI_SUCCESS, "set_info");
    MPI_Info_free(&info);
}

static void write_step(MPI_File fh, int step, unsigned char *buf)
{
    for (int i = 0; i < BLOCK; i++)
        buf[i] = byte_of(step, rank, i);
    CHECK(MPI_File_write_at_all(fh, where(step, rank), buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS, "write step %d", step);
}

/* Reads step s's block of the next rank (another rank's data) and checks it. */
static void read_step(MPI_File fh, int step, unsigned char *buf, FILE *dump)
{
    int from = (rank + 1) % nprocs, bad = 0;
    memset(buf, 0xee, BLOCK);
    CHECK(MPI_File_read_at_all(fh, where(step, from), buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS, "read step %d", step);
    for (int i = 0; i < BLOCK; i++)
        bad += buf[i] != byte_of(step, from, i);
    CHECK(bad == 0, "step %d: %d bytes of rank %d's block read wrong", step, bad, from);
    if (dump)
        fwrite(buf, 1, BLOCK, dump);
}

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, &rank, &nprocs);
    unsigned char *buf = malloc(BLOCK);
    char path2[4096];
    snprintf(path2, sizeof path2, "%s.2", argv[1]);
    char name[4200];
    snprintf(name, sizeof name, "%s.%d", argv[2], rank);
    FILE *dump = fopen(name, "w");
    MPI_File fh;
    int served = 0; /* the calls the engine serves with MCIO_STATS on */
    /* 1. MCIO_STATS on: one call served, one declined by rank 0, one left to the library. */
    CHECK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS, "open %s", argv[1]);
    write_step(fh, 0, buf), served++;
    set_mcio(fh, rank == 0);
    write_step(fh, 1, buf);
    write_step(fh, 2, buf);
    for (int s = 0; s < 3; s++)
        read_step(fh, s, buf, dump);
    MPI_File_close(&fh);
    /* 2. MCIO_STATS off (rank 0 reads it at open): calls may move their bytes first. */
    unsetenv("MCIO_STATS");
    CHECK(MPI_File_open(MPI_COMM_WORLD, path2, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS, "open %s", path2);
    write_step(fh, 0, buf);
    write_step(fh, 1, buf);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "2097152");
    CHECK(MPI_File_set_info(fh, info) == MPI_SUCCESS, "set_info cb_buffer_size");
    MPI_Info_free(&info);
    write_step(fh, 2, buf);
    set_mcio(fh, rank == 1 % nprocs);
    write_step(fh, 3, buf);
    write_step(fh, 4, buf);
    MPI_File_close(&fh);
    /* 3. File 2 read twice through the engine, then declined by the last rank. */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path2, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS,
          "open %s to read", path2);
    for (int s = 0; s < 5; s++)
        read_step(fh, s, buf, dump);
    set_mcio(fh, rank == nprocs - 1);
    for (int s = 4; s >= 0; s--)
        read_step(fh, s, buf, dump);
    MPI_File_close(&fh);
    /* The file run_pmpi.sh compares is file 1; file 2's bytes, holes included, go to the dump. */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path2, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS,
          "open %s", path2);
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    CHECK(size == where(4, nprocs - 1) + BLOCK, "file 2 has %lld bytes", (long long)size);
    unsigned char *whole = calloc((size_t)size, 1);
    CHECK(MPI_File_read_at(fh, 0, whole, (int)size, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "read file 2 whole");
    for (int s = 0; s < 5; s++)
        for (int r = 0; r < nprocs; r++) {
            int bad = 0;
            for (int i = 0; i < BLOCK; i++)
                bad += whole[where(s, r) + i] != byte_of(s, r, i) || whole[where(s, r) - BLOCK + i];
            CHECK(bad == 0, "file 2, step %d, rank %d: %d bytes wrong in the block or its hole", s, r,
                  bad);
        }
    free(whole);
    MPI_File_close(&fh);
    fclose(dump);
    if (rank == 0)
        MPI_File_delete(path2, MPI_INFO_NULL);
    free(buf);
    char calls[16];
    snprintf(calls, sizeof calls, "%d", served);
    return pmpi_test_finish("pmpi_decline", failures, argv[3], calls);
}
