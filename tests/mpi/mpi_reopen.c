/*
 * Opens that take what a closed file left on their communicator (mcio_kept.c): its private
 * duplicate, its machine description and its cost table. Each scenario writes every rank's
 * block with a new generation and checks every byte of the file (each rank reads all of it
 * back with pread), so a kept handle that carried the wrong communicator or machine shows:
 *   - the same communicator opened and closed again and again;
 *   - MCIO_VIRTUAL_RANKS_PER_NODE changed between two opens: the second detects again (the
 *     nodes its call reports are the new ones, not the kept machine's);
 *   - two files open at once on one communicator (the second takes a new handle), then both
 *     closed and opened again (both kept, in order);
 *   - a duplicate of MPI_COMM_WORLD opened on, closed, and freed (its kept handles go with it),
 *     then another duplicate.
 */
#include "mcio_test.h"

enum { BLOCK = 48 * 1024 };

/* Rank r's block of generation gen into path through fh, then every byte of the file checked. */
static void write_and_check(mcio_file fh, const char *path, unsigned gen)
{
    int64_t off = (int64_t)mt.rank * BLOCK, len = BLOCK;
    uint8_t *buf = mt_malloc(BLOCK), *back = mt_malloc((size_t)BLOCK * mt.nprocs);
    for (int i = 0; i < BLOCK; i++)
        buf[i] = mt_data(off + i, gen);
    CHECK_OK(mcio_write_at_all(fh, 1, &off, &len, buf));
    CHECK_OK(mcio_file_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(path, O_RDONLY);
    CHECKF(fd >= 0 && pread(fd, back, (size_t)BLOCK * mt.nprocs, 0) == (ssize_t)BLOCK * mt.nprocs,
           "%s: cannot read %d bytes back", path, BLOCK * mt.nprocs);
    int64_t bad = 0;
    for (int64_t i = 0; i < (int64_t)BLOCK * mt.nprocs; i++)
        bad += back[i] != mt_data(i, gen);
    CHECKF(bad == 0, "%s, generation %u: %lld bytes wrong", path, gen, (long long)bad);
    if (fd >= 0)
        close(fd);
    free(buf);
    free(back);
}

/* One open, write, check and close on comm; the nodes the call reports, or -1. */
static int round_on(MPI_Comm comm, const char *path, unsigned gen)
{
    mcio_file fh;
    mcio_stats st;
    int nodes = -1;
    CHECK_OK(mt_file_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    write_and_check(fh, path, gen);
    if (mcio_file_get_stats(fh, &st) == MCIO_SUCCESS)
        nodes = st.nodes;
    CHECK_OK(mcio_file_close(&fh));
    return nodes;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_reopen");
    char a[512], b[512];
    mt_path(a, sizeof a, "a");
    mt_path(b, sizeof b, "b");
    unsigned gen = 1;
    int first = round_on(MPI_COMM_WORLD, a, gen++);
    for (int i = 0; i < 4; i++) {
        int again = round_on(MPI_COMM_WORLD, a, gen++);
        CHECKF(again == first, "open %d on the same communicator: %d nodes, the first %d", i + 2,
               again, first);
    }
    /* Another machine between two opens: detected again, not the kept one. */
    const char *was = getenv("MCIO_VIRTUAL_RANKS_PER_NODE");
    char keep[64] = "";
    if (was)
        snprintf(keep, sizeof keep, "%s", was);
    setenv("MCIO_VIRTUAL_RANKS_PER_NODE", "1", 1);
    int one_each = round_on(MPI_COMM_WORLD, a, gen++);
    CHECKF(one_each == mt.nprocs, "one rank per node: %d nodes, not %d", one_each, mt.nprocs);
    if (was)
        setenv("MCIO_VIRTUAL_RANKS_PER_NODE", keep, 1);
    else
        unsetenv("MCIO_VIRTUAL_RANKS_PER_NODE");
    int back = round_on(MPI_COMM_WORLD, a, gen++);
    CHECKF(back == first, "the first machine again: %d nodes, not %d", back, first);
    /* Two files at once on one communicator, twice. */
    for (int twice = 0; twice < 2; twice++) {
        mcio_file fa, fb;
        CHECK_OK(mt_file_open(MPI_COMM_WORLD, a, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fa));
        CHECK_OK(mt_file_open(MPI_COMM_WORLD, b, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fb));
        unsigned ga = gen++, gb = gen++;
        write_and_check(fb, b, gb);
        write_and_check(fa, a, ga);
        CHECK_OK(mcio_file_close(&fa));
        CHECK_OK(mcio_file_close(&fb));
    }
    /* Communicators of the program's own, freed after their files. */
    for (int k = 0; k < 3; k++) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        round_on(dup, b, gen++);
        round_on(dup, b, gen++);
        MPI_Comm_free(&dup);
    }
    if (mt.rank == 0) {
        unlink(a);
        unlink(b);
    }
    return mt_finish();
}
