/*
 * Under the layer MPI_File_open is the MPI library's open alone: the engine's own open is begun
 * there without a collective and ends at the file's first collective data call, where the ranks
 * meet anyway (mcio_file_open_begin / _end, issue 51). What that must keep working:
 *   1. files opened and closed with no collective call in between, again and again on one
 *      communicator, and MPI_File_sync before any: nothing hangs and no descriptor is left
 *      open (the process's descriptors are counted before and after);
 *   2. a communicator the program frees right after the open: its file's first call is served;
 *   3. mcio_enable false in the info of one rank's open only: that rank declines each call in
 *      the engine's agreement, so every rank falls back to the MPI library together;
 *   4. one file per rank on MPI_COMM_SELF, written and read collectively, its leading hole
 *      read as zeros (MCIO_STATS unset first: the files' statistics would share one file).
 * Parts 1-3 write one shared file, each rank's block after a hole; every byte read is checked
 * against its writer's, and run_pmpi.sh compares that file (holes included) and the read dumps
 * with the native run's.
 * Usage: pmpi_lazy <file> <dump prefix> <calls file>
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

enum { BLOCK = 32 * 1024, CYCLES = 40 };
static int rank, nprocs, failures;

static unsigned char byte_of(int part, int r, int i)
{
    return (unsigned char)(part * 41 + r * 13 + i / 256);
}

/* The process's open descriptors. */
static int descriptors(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Part `part`'s block of rank r, written on fh collectively at `at`, read back collectively and
 * checked byte by byte; the read appended to the dump <prefix>.<rank>. */
static void write_read(MPI_File fh, int part, int r, MPI_Offset at, const char *prefix)
{
    unsigned char *buf = malloc(BLOCK), *back = malloc(BLOCK);
    for (int i = 0; i < BLOCK; i++)
        buf[i] = byte_of(part, r, i);
    CHECK(MPI_File_write_at_all(fh, at, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "part %d: write_at_all", part);
    memset(back, 0, BLOCK);
    CHECK(MPI_File_read_at_all(fh, at, back, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "part %d: read_at_all", part);
    CHECK(memcmp(buf, back, BLOCK) == 0, "part %d: read back differs from what was written", part);
    char name[600];
    snprintf(name, sizeof name, "%s.%d", prefix, rank);
    FILE *d = fopen(name, part == 1 ? "wb" : "ab"); /* the parts' reads, one after the other */
    if (d)
        fwrite(back, 1, BLOCK, d), fclose(d);
    free(buf);
    free(back);
}

/* Where part p (1-3) puts rank r's block in the shared file: after a hole of one block. */
static MPI_Offset shared_at(int p, int r)
{
    return (((MPI_Offset)(p - 1) * nprocs + r) * 2 + 1) * BLOCK;
}

static MPI_File open_file(MPI_Comm comm, const char *path, MPI_Info info)
{
    MPI_File fh = MPI_FILE_NULL;
    CHECK(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) == MPI_SUCCESS,
          "open %s", path);
    return fh;
}

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, &rank, &nprocs);
    char path[600];
    int served = 0;

    /* 1. Opens and closes with no collective call, a sync before any; then a served file. */
    snprintf(path, sizeof path, "%s.idle", argv[1]);
    MPI_File fh = open_file(MPI_COMM_WORLD, path, MPI_INFO_NULL);
    MPI_File_close(&fh); /* the first open of the process: its descriptors settle */
    int before = descriptors();
    for (int k = 0; k < CYCLES; k++) {
        fh = open_file(MPI_COMM_WORLD, path, MPI_INFO_NULL);
        if (k % 4 == 0)
            CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync before any collective call");
        MPI_File_close(&fh);
    }
    CHECK(descriptors() == before, "%d descriptors after %d opens and closes, %d before",
          descriptors(), CYCLES, before);
    fh = open_file(MPI_COMM_WORLD, argv[1], MPI_INFO_NULL);
    write_read(fh, 1, rank, shared_at(1, rank), argv[2]);
    served += 2;
    MPI_File_close(&fh);

    /* 2. The communicator freed right after the open. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_File f2 = open_file(dup, argv[1], MPI_INFO_NULL);
    MPI_Comm_free(&dup);
    write_read(f2, 2, rank, shared_at(2, rank), argv[2]);
    served += 2;
    MPI_File_close(&f2);

    /* 3. mcio_enable false at rank 0's open only: every call goes to the MPI library. */
    MPI_Info info;
    MPI_Info_create(&info);
    if (rank == 0)
        MPI_Info_set(info, "mcio_enable", "false");
    MPI_File f3 = open_file(MPI_COMM_WORLD, argv[1], info);
    MPI_Info_free(&info);
    write_read(f3, 3, rank, shared_at(3, rank), argv[2]);
    MPI_File_close(&f3);

    /* 4. One file per rank on MPI_COMM_SELF. */
    unsetenv("MCIO_STATS");
    snprintf(path, sizeof path, "%s.self.%d", argv[1], rank);
    MPI_File f4 = open_file(MPI_COMM_SELF, path, MPI_INFO_NULL);
    write_read(f4, 4, rank, BLOCK, argv[2]);
    unsigned char hole[BLOCK];
    MPI_Status st;
    int got = -1;
    memset(hole, 0xee, BLOCK);
    CHECK(MPI_File_read_at_all(f4, 0, hole, BLOCK, MPI_BYTE, &st) == MPI_SUCCESS, "read the hole");
    MPI_Get_count(&st, MPI_BYTE, &got);
    CHECK(got == BLOCK, "read %d bytes of the hole, not %d", got, BLOCK);
    for (int i = 0; i < BLOCK; i++)
        if (hole[i] != 0) {
            CHECK(hole[i] == 0, "byte %d of the hole before rank %d's block is %d", i, rank, hole[i]);
            break;
        }
    MPI_File_close(&f4);

    char calls[16];
    snprintf(calls, sizeof calls, "%d", served);
    return pmpi_test_finish("pmpi_lazy", failures, argv[3], calls);
}
