/*
 * Two-layer aggregation's refusals and fall-backs (issue 50; the byte-for-byte runs of every
 * pattern are mpi_patterns under mcio_layers hints files):
 *   - mcio_layers 2 where the node's staging buffer would exceed its budget (mcio_node_memory
 *     4k, each node's ranks 64 KiB in interleaved 512-byte pieces): the write fails on every
 *     rank with MCIO_ERR_NOMEM, the message naming mcio_layers, and no byte reaches the file;
 *   - mcio_layers auto on the same budget: one layer (stats.layers 1), the write and a read
 *     back through two layers (mcio_node_memory lifted) verified byte for byte, holes
 *     included.
 * Run on virtual nodes (MCIO_VIRTUAL_RANKS_PER_NODE).
 */
#include <sys/stat.h>

#include "mcio_test.h"

enum { PIECE = 512, PIECES = 128 };

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_layers");
    int n = mt.nprocs, me = mt.rank;
    char path[512];
    mt_path(path, sizeof path, "layers");
    if (me == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Rank r's pieces: every n-th slot of PIECE bytes, with a 16-byte hole at each slot's end. */
    int64_t off[PIECES], len[PIECES];
    uint8_t *buf = malloc(PIECES * PIECE), *back = malloc(PIECES * PIECE);
    for (int i = 0; i < PIECES; i++) {
        off[i] = ((int64_t)i * n + me) * PIECE;
        len[i] = PIECE - 16;
        for (int b = 0; b < PIECE; b++)
            buf[i * PIECE + b] = mt_data(off[i] + b, 1);
    }
    for (int i = 0; i < PIECES; i++) /* packed: each piece's bytes back to back */
        memmove(buf + (int64_t)i * (PIECE - 16), buf + (int64_t)i * PIECE, PIECE - 16);
    MPI_Info info = mt_info("mcio_layers", "2", "mcio_node_memory", "4k", NULL);
    mcio_file fh;
    if (CHECK_OK(mt_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh)) ==
        MCIO_SUCCESS) {
        int st = mcio_write_at_all(fh, PIECES, off, len, buf);
        MT_CHECK_ERROR(st, MCIO_ERR_NOMEM, "mcio_layers", "memory budget");
        struct stat sb;
        CHECKF(stat(path, &sb) == 0 && sb.st_size == 0, "a refused write left %lld bytes",
               (long long)sb.st_size);
        MPI_Info a = mt_info("mcio_layers", "auto", NULL);
        CHECK_OK(mcio_file_set_hints(fh, a));
        mt_info_free(&a);
        CHECK_OK(mcio_write_at_all(fh, PIECES, off, len, buf));
        mcio_stats s;
        if (CHECK_OK(mcio_file_get_stats(fh, &s)) == MCIO_SUCCESS)
            CHECKF(s.layers == 1, "auto over the budget took %d layers", s.layers);
        a = mt_info("mcio_layers", "2", "mcio_node_memory", "1g", NULL);
        CHECK_OK(mcio_file_set_hints(fh, a));
        mt_info_free(&a);
        memset(back, 0xEE, PIECES * PIECE);
        CHECK_OK(mcio_read_at_all(fh, PIECES, off, len, back));
        CHECKF(memcmp(back, buf, (size_t)PIECES * (PIECE - 16)) == 0, "read back differs");
        if (CHECK_OK(mcio_file_get_stats(fh, &s)) == MCIO_SUCCESS)
            CHECKF(s.layers == 2, "mcio_layers 2 read took %d layers", s.layers);
        CHECK_OK(mcio_file_close(&fh));
        /* The holes: nobody wrote them, so they read as zeros (a new file) through pread. */
        int fd = open(path, O_RDONLY);
        uint8_t hole[16];
        for (int i = 0; fd >= 0 && i < PIECES; i++) {
            int64_t at = off[i] + PIECE - 16;
            if (at + 16 > ((int64_t)PIECES * n) * PIECE - 16)
                break; /* the last hole lies past the file's end */
            CHECKF(pread(fd, hole, 16, at) == 16, "pread of a hole at %lld", (long long)at);
            for (int b = 0; b < 16; b++)
                CHECKF(hole[b] == 0, "hole byte %lld is %d", (long long)(at + b), hole[b]);
        }
        CHECKF(fd >= 0, "open %s", path);
        if (fd >= 0)
            close(fd);
    }
    mt_info_free(&info);
    free(buf);
    free(back);
    return mt_finish();
}
