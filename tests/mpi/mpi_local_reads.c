/*
 * Reads through each rank's own descriptor (mcio_local_reads; src/engine/mcio_file.c): where
 * the file system is the node's own (tmpfs, ext4, xfs, btrfs, overlay) and the backend is
 * mpiio, a read's file access goes through a read-only descriptor of the rank's, not through
 * the MPI library's independent read. Each read's every byte is compared with what the file
 * holds, and mcio_stats.local_reads says which way it went:
 *
 *   paths       own access (romio_cb_read disable) and one aggregator (enable, cb_nodes 1):
 *               the descriptor under auto on a node-local file system (the test directory's
 *               kind, as mcio_file_get_costs names it), the backend elsewhere
 *   coherent    bytes written by mcio, then by a plain pwrite of another rank, read back at
 *               once through the descriptor
 *   end of file the last rank's extent runs past the end of the file: zeros there
 *   hints       mcio_local_reads false after open: the backend; auto again: the descriptor;
 *               direct_read true (the MPI library's to honour): the backend
 *   posix       the posix backend reads through its own descriptors: local_reads 0
 *   writes      never counted as local reads
 *   delete      MPI_MODE_DELETE_ON_CLOSE: the file is gone after close
 */
#include "mcio_test.h"

#define EXT 40000 /* bytes per rank, not a page multiple */
#define PAST_END 3000

/* Is the test directory's file system one mcio reads through its own descriptors? Its kind
 * from the cost model's text ("fs_type <kind>", under strategy auto). */
static int node_local(mcio_file fh)
{
    static const char *const kinds[] = {"tmpfs", "ext4", "xfs", "btrfs", "overlay"};
    char text[4096], kind[64] = "";
    CHECK_OK(mcio_file_get_costs(fh, text, (int)sizeof text));
    const char *at = strstr(text, "fs_type ");
    if (at)
        sscanf(at + 8, "%63s", kind);
    int local = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        local |= strcmp(kind, kinds[i]) == 0;
    if (mt.rank == 0)
        printf("mpi_local_reads: the test directory is %s: reads go through %s\n",
               kind[0] ? kind : "of an unknown kind",
               local ? "each rank's own descriptor" : "the backend");
    return local;
}

/* What the file holds at off: gen 0 the prefill's sentinel, else mt_data of that gen. */
static uint8_t held(int64_t off, unsigned gen)
{
    return gen ? mt_data(off, gen) : mt_sentinel(off);
}

/* Read this rank's extent (past the end of the file on the last rank, size bytes long) and
 * compare: the file's bytes of generation gen, zeros past size; local_reads as expected. */
static void read_check(mcio_file fh, int64_t size, unsigned gen, int local, const char *what)
{
    int64_t off = (int64_t)mt.rank * EXT, len = EXT + (mt.rank == mt.nprocs - 1 ? PAST_END : 0);
    uint8_t *buf = mt_malloc((size_t)len);
    memset(buf, 0xEE, (size_t)len);
    CHECK_OK(mcio_read_at_all(fh, 1, &off, &len, buf));
    mcio_stats st;
    CHECK_OK(mcio_file_get_stats(fh, &st));
    CHECKF(st.local_reads == local, "%s: local_reads %d, expected %d", what, st.local_reads,
           local);
    int64_t bad = -1;
    for (int64_t i = 0; i < len && bad < 0; i++)
        if (buf[i] != (off + i < size ? held(off + i, gen) : 0))
            bad = i;
    CHECKF(bad < 0, "%s: byte %" PRId64 " of rank %d's read is %u", what, off + bad, mt.rank,
           bad < 0 ? 0 : buf[bad]);
    free(buf);
}

/* Write generation gen over this rank's extent through mcio. */
static void write_gen(mcio_file fh, unsigned gen)
{
    int64_t off = (int64_t)mt.rank * EXT, len = EXT;
    uint8_t *buf = mt_malloc(EXT);
    for (int64_t i = 0; i < len; i++)
        buf[i] = mt_data(off + i, gen);
    CHECK_OK(mcio_write_at_all(fh, 1, &off, &len, buf));
    mcio_stats st;
    CHECK_OK(mcio_file_get_stats(fh, &st));
    CHECKF(st.local_reads == 0, "a write counted as a local read");
    free(buf);
}

/* Generation gen over the next rank's extent with a plain pwrite, outside mcio; every rank
 * returns once all have. */
static void pwrite_next(const char *path, unsigned gen)
{
    int64_t off = (int64_t)((mt.rank + 1) % mt.nprocs) * EXT;
    uint8_t *buf = mt_malloc(EXT);
    for (int64_t i = 0; i < EXT; i++)
        buf[i] = mt_data(off + i, gen);
    int fd = open(path, O_WRONLY);
    CHECKF(fd >= 0 && pwrite(fd, buf, EXT, off) == EXT && close(fd) == 0,
           "pwrite of %s: %s", path, strerror(errno));
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void set_hint(mcio_file fh, const char *key, const char *value)
{
    MPI_Info info = mt_info(key, value, NULL);
    CHECK_OK(mcio_file_set_hints(fh, info));
    mt_info_free(&info);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_local_reads");
    char path[512];
    mt_path(path, sizeof path, "local");
    int64_t size = (int64_t)mt.nprocs * EXT;
    mt_prefill(path, size);
    MPI_Info info = mt_info("mcio_strategy", "auto", "romio_cb_read", "disable", NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        int local = node_local(fh);
        read_check(fh, size, 0, local, "own access, the prefill");
        write_gen(fh, 1);
        read_check(fh, size, 1, local, "own access after mcio's write");
        set_hint(fh, "romio_cb_read", "enable");
        set_hint(fh, "cb_nodes", "1");
        read_check(fh, size, 1, local, "one aggregator");
        pwrite_next(path, 2);
        read_check(fh, size, 2, local, "one aggregator after another rank's pwrite");
        set_hint(fh, "mcio_local_reads", "false");
        read_check(fh, size, 2, 0, "mcio_local_reads false");
        write_gen(fh, 3);
        read_check(fh, size, 3, 0, "mcio_local_reads false after mcio's write");
        set_hint(fh, "mcio_local_reads", "auto");
        set_hint(fh, "direct_read", "true"); /* the MPI library's to do: through it */
        read_check(fh, size, 3, 0, "direct_read true");
        set_hint(fh, "direct_read", "false");
        set_hint(fh, "romio_cb_read", "disable");
        pwrite_next(path, 4);
        read_check(fh, size, 4, local, "auto again, after another rank's pwrite");
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);

    /* The posix backend: its own descriptors, no second one. */
    info = mt_info("mcio_io_backend", "posix", "romio_cb_read", "disable", NULL);
    int st = CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
    if (st == MCIO_SUCCESS) {
        read_check(fh, size, 4, 0, "posix backend");
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);
    mt_remove(path);

    /* Deleted on close: the descriptor does not keep the file's name. */
    mt_path(path, sizeof path, "delete");
    int amode = MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE;
    info = mt_info("mcio_strategy", "auto", NULL); /* node_local reads the cost model's text */
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, amode, info, &fh)) == MCIO_SUCCESS) {
        int local = node_local(fh);
        write_gen(fh, 5);
        read_check(fh, size, 5, local, "a file deleted on close");
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECKF(access(path, F_OK) != 0 && errno == ENOENT, "%s is still there after close", path);
    return mt_finish();
}
