/*
 * Hints given after open reach the engine: a plain MPI-IO program changes its file's hints with
 * MPI_File_set_info and MPI_File_set_view's info, and under the layer each next collective call
 * shows the change in its MCIO_STATS line (strategy, buffer size, aggregators), which rank 0
 * reads back. A bad value, and a value given on one rank only, fail the next call on every
 * rank with MPI_ERR_INFO_VALUE (and write nothing), the hints in force staying as they were;
 * each failed write is repeated so the file matches the native run's. Every byte is read back.
 * Usage: pmpi_set_info <file> <dump prefix> <calls file>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

static int rank, nprocs, failures;

/* The last line of the MCIO_STATS file (rank 0), or "" */
static void last_stats(char *line, int cap)
{
    line[0] = '\0';
    const char *path = getenv("MCIO_STATS");
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return;
    char *buf = malloc(65536);
    while (buf && fgets(buf, 65536, f))
        snprintf(line, (size_t)cap, "%s", buf);
    free(buf);
    fclose(f);
}

/* The integer after "key": in line, or -1. */
static long stat_int(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, &rank, &nprocs);
    const char *expect = getenv("PMPI_EXPECT_LAYER");
    int layer = expect && *expect == '1';
    enum { BLOCK = 96 * 1024, STEPS = 6 };
    char *buf = malloc(BLOCK), *back = malloc(BLOCK);
    static char line[65536];
    int calls = 0;
    if (rank == 0)
        MPI_File_delete(argv[1], MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS, "open");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
/* Step s writes every rank's block s (bytes that say step and rank); returns the MPI code. */
#define WRITE_STEP(s)                                                                           \
    (memset(buf, 'a' + (s) * 8 + rank % 8, BLOCK),                                              \
     MPI_File_write_at_all(fh, ((MPI_Offset)(s) * nprocs + rank) * BLOCK, buf, BLOCK, MPI_BYTE,  \
                           MPI_STATUS_IGNORE))
/* A write the engine must serve, whose statistics line must contain want. */
#define SERVED(s, want)                                                                         \
    do {                                                                                        \
        CHECK(WRITE_STEP(s) == MPI_SUCCESS, "write of step %d", s);                             \
        calls++;                                                                                \
        if (layer && rank == 0) {                                                               \
            last_stats(line, sizeof line);                                                      \
            CHECK(strstr(line, want) != NULL, "step %d: '%s' not in the statistics: %s", s,     \
                  want, line);                                                                  \
        }                                                                                       \
    } while (0)
/* A write that must fail on every rank under the layer (MPI_ERR_INFO_VALUE), then repeated. */
#define REFUSED(s)                                                                              \
    do {                                                                                        \
        int rc_ = WRITE_STEP(s), cls_ = MPI_SUCCESS;                                            \
        MPI_Error_class(rc_, &cls_);                                                            \
        if (layer)                                                                              \
            CHECK(cls_ == MPI_ERR_INFO_VALUE, "step %d: class %d, expected MPI_ERR_INFO_VALUE", \
                  s, cls_);                                                                     \
    } while (0)

    /* 1. The defaults: the automatic strategy (romio's plan when memory allows). */
    SERVED(0, "\"strategy\":\"auto\"");
    /* 2. MPI_File_set_info: the memory-conscious strategy for the next call. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mcio_strategy", "memory");
    MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    SERVED(1, "\"strategy\":\"memory\"");
    /* 3. MPI_File_set_view's info: back to ROMIO's strategy, one aggregator, 16 KiB buffers. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mcio_strategy", "romio");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "romio_cb_write", "enable"); /* aggregate even where no access interleaves */
    MPI_Info_set(info, "cb_buffer_size", "16384");
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info);
    MPI_Info_free(&info);
    SERVED(2, "\"strategy\":\"romio\"");
    if (layer && rank == 0) {
        CHECK(stat_int(line, "aggregators") == 1, "aggregators: %s", line);
        long mb = stat_int(line, "max_buffer_bytes"), rounds = stat_int(line, "rounds");
        CHECK(mb > 0 && mb <= 16384, "max_buffer_bytes %ld, expected at most 16384", mb);
        CHECK(rounds >= (long)BLOCK * nprocs / 16384, "%ld rounds, expected at least %ld", rounds,
              (long)BLOCK * nprocs / 16384);
    }
    /* 4. A bad value: the next call fails everywhere, the hints in force stay. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mcio_strategy", "no-such-strategy");
    MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    REFUSED(3);
    SERVED(3, "\"aggregators\":1,");
    /* 5. A hint on rank 0 only: the ranks would plan differently, so the call fails everywhere. */
    if (nprocs > 1) {
        MPI_Info_create(&info);
        if (rank == 0)
            MPI_Info_set(info, "mcio_strategy", "memory");
        MPI_File_set_info(fh, info);
        MPI_Info_free(&info);
        REFUSED(4);
    }
    SERVED(4, "\"strategy\":\"romio\"");
    /* 6. Given again on every rank, it is taken. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mcio_strategy", "memory");
    MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    SERVED(5, "\"strategy\":\"memory\"");

    /* Every byte back, through the MPI library's independent reads, once every rank's writes
     * are visible (MPI-IO's sync-barrier-sync). */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    for (int s = 0; s < STEPS; s++) {
        MPI_Offset at = ((MPI_Offset)s * nprocs + (rank + 1) % nprocs) * BLOCK;
        CHECK(MPI_File_read_at(fh, at, back, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS, "read");
        int bad = 0;
        for (int i = 0; i < BLOCK; i++)
            bad += back[i] != (char)('a' + s * 8 + (rank + 1) % nprocs % 8);
        CHECK(bad == 0, "step %d: %d wrong bytes in rank %d's block", s, bad, (rank + 1) % nprocs);
    }
    MPI_File_close(&fh);
    free(buf), free(back);
    char callstr[16];
    snprintf(callstr, sizeof callstr, "%d", calls);
    return pmpi_test_finish("pmpi_set_info", failures, argv[3], callstr);
}
