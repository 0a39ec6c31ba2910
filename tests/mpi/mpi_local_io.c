/*
 * Reads and writes through each rank's own descriptor (mcio_local_io; src/engine/mcio_file.c):
 * where the file system is the node's own (tmpfs, ext4, xfs, btrfs, overlay) and the backend
 * is mpiio, a call's file access goes through a descriptor of the rank's, not through the MPI
 * library's independent read or write. Each read's every byte is compared with what the file
 * holds, each write's every byte read back with a plain pread, and mcio_stats.local_io says
 * which way each call went:
 *
 *   paths       own access (romio_cb_* disable) and one aggregator (enable, cb_nodes 1):
 *               the descriptor under auto on a node-local file system (the test directory's
 *               kind, as mcio_file_get_costs names it), the backend elsewhere
 *   coherent    bytes written through the descriptor read by the MPI library, bytes it wrote
 *               and a plain pwrite of another rank's read through the descriptor, at once
 *   end of file the last rank's extent runs past the end of the file: zeros there
 *   hints       mcio_local_io false after open: the backend; auto again: the descriptor;
 *               direct_read / direct_write true (the MPI library's to honour): that operation
 *               through the backend, the other still through the descriptor
 *   sync        mcio_file_sync after writes through the descriptor
 *   modes       write-only and read-only opens: the descriptor for what the mode allows
 *   posix       the posix backend goes through its own descriptors: local_io 0
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
        printf("mpi_local_io: the test directory is %s: reads and writes go through %s\n",
               kind[0] ? kind : "of an unknown kind",
               local ? "each rank's own descriptor" : "the backend");
    return local;
}

/* What the file holds at off: gen 0 the prefill's sentinel, else mt_data of that gen. */
static uint8_t held(int64_t off, unsigned gen)
{
    return gen ? mt_data(off, gen) : mt_sentinel(off);
}

/* The first of len bytes in buf, read from off, that is not the file's (generation gen's
 * bytes, zeros past size), or -1. */
static int64_t first_bad(const uint8_t *buf, int64_t off, int64_t len, int64_t size, unsigned gen)
{
    for (int64_t i = 0; i < len; i++)
        if (buf[i] != (off + i < size ? held(off + i, gen) : 0))
            return i;
    return -1;
}

/* Read this rank's extent (past the end of the file on the last rank, size bytes long) and
 * compare: the file's bytes of generation gen, zeros past size; local_io as expected. */
static void read_check(mcio_file fh, int64_t size, unsigned gen, int local, const char *what)
{
    int64_t off = (int64_t)mt.rank * EXT, len = EXT + (mt.rank == mt.nprocs - 1 ? PAST_END : 0);
    uint8_t *buf = mt_malloc((size_t)len);
    memset(buf, 0xEE, (size_t)len);
    CHECK_OK(mcio_read_at_all(fh, 1, &off, &len, buf));
    mcio_stats st;
    CHECK_OK(mcio_file_get_stats(fh, &st));
    CHECKF(st.local_io == local, "%s: read local_io %d, expected %d", what, st.local_io, local);
    int64_t bad = first_bad(buf, off, len, size, gen);
    CHECKF(bad < 0, "%s: byte %" PRId64 " of rank %d's read is %u", what, off + bad, mt.rank,
           bad < 0 ? 0 : buf[bad]);
    free(buf);
}

/* This rank's extent as the file holds it, read with a plain pread of a descriptor of its
 * own once every rank's write has returned: generation gen's bytes. Returns once every rank
 * has read. */
static void file_check(const char *path, unsigned gen, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t off = (int64_t)mt.rank * EXT;
    uint8_t *buf = mt_malloc(EXT);
    int fd = open(path, O_RDONLY);
    CHECKF(fd >= 0 && pread(fd, buf, EXT, off) == EXT && close(fd) == 0, "%s: pread of %s: %s",
           what, path, strerror(errno));
    int64_t bad = first_bad(buf, off, EXT, off + EXT, gen);
    CHECKF(bad < 0, "%s: byte %" PRId64 " of the file is %u after rank %d's write", what,
           off + bad, bad < 0 ? 0 : buf[bad], mt.rank);
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD); /* before any rank writes again */
}

/* Write generation gen over this rank's extent through mcio (local_io as expected), and read
 * it back from the file. */
static void write_gen(mcio_file fh, const char *path, unsigned gen, int local, const char *what)
{
    int64_t off = (int64_t)mt.rank * EXT, len = EXT;
    uint8_t *buf = mt_malloc(EXT);
    for (int64_t i = 0; i < len; i++)
        buf[i] = mt_data(off + i, gen);
    CHECK_OK(mcio_write_at_all(fh, 1, &off, &len, buf));
    mcio_stats st;
    CHECK_OK(mcio_file_get_stats(fh, &st));
    CHECKF(st.local_io == local, "%s: write local_io %d, expected %d", what, st.local_io, local);
    free(buf);
    file_check(path, gen, what);
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
    mt_init(&argc, &argv, "mpi_local_io");
    char path[512];
    mt_path(path, sizeof path, "local");
    int64_t size = (int64_t)mt.nprocs * EXT;
    mt_prefill(path, size);
    MPI_Info info = mt_info("mcio_strategy", "auto", "romio_cb_read", "disable", "romio_cb_write",
                            "disable", NULL);
    mcio_file fh;
    int local = 0;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        local = node_local(fh);
        read_check(fh, size, 0, local, "own access, the prefill");
        write_gen(fh, path, 1, local, "own access");
        read_check(fh, size, 1, local, "own access after mcio's write");
        set_hint(fh, "romio_cb_read", "enable");
        set_hint(fh, "romio_cb_write", "enable");
        set_hint(fh, "cb_nodes", "1");
        read_check(fh, size, 1, local, "one aggregator");
        write_gen(fh, path, 2, local, "one aggregator");
        pwrite_next(path, 3);
        read_check(fh, size, 3, local, "one aggregator after another rank's pwrite");
        set_hint(fh, "mcio_local_io", "false");
        read_check(fh, size, 3, 0, "mcio_local_io false, after the descriptor's writes");
        write_gen(fh, path, 4, 0, "mcio_local_io false");
        read_check(fh, size, 4, 0, "mcio_local_io false after mcio's write");
        set_hint(fh, "mcio_local_io", "auto");
        set_hint(fh, "direct_read", "true"); /* the MPI library's to do: through it */
        read_check(fh, size, 4, 0, "direct_read true");
        write_gen(fh, path, 5, local, "direct_read true");
        read_check(fh, size, 5, 0, "direct_read true, after the descriptor's write");
        set_hint(fh, "direct_write", "true");
        write_gen(fh, path, 6, 0, "direct_write true");
        set_hint(fh, "direct_read", "false");
        read_check(fh, size, 6, local, "direct_write true, after the MPI library's write");
        set_hint(fh, "direct_write", "false");
        set_hint(fh, "romio_cb_read", "disable");
        set_hint(fh, "romio_cb_write", "disable");
        write_gen(fh, path, 7, local, "auto again");
        CHECK_OK(mcio_file_sync(fh));
        pwrite_next(path, 8);
        read_check(fh, size, 8, local, "auto again, after another rank's pwrite");
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);

    /* Write-only, then read-only: the descriptor for what the mode allows. */
    info = mt_info("mcio_strategy", "auto", "romio_cb_read", "disable", "romio_cb_write",
                   "disable", NULL);
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, info, &fh)) ==
        MCIO_SUCCESS) {
        write_gen(fh, path, 9, local, "write-only");
        CHECK_OK(mcio_file_close(&fh));
    }
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh)) ==
        MCIO_SUCCESS) {
        read_check(fh, size, 9, local, "read-only");
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);

    /* The posix backend: its own descriptors, no second one. */
    info = mt_info("mcio_io_backend", "posix", "romio_cb_read", "disable", NULL);
    int st = CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
    if (st == MCIO_SUCCESS) {
        read_check(fh, size, 9, 0, "posix backend");
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);
    mt_remove(path);

    /* Deleted on close: the descriptor does not keep the file's name. */
    mt_path(path, sizeof path, "delete");
    int amode = MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE;
    info = mt_info("mcio_strategy", "auto", NULL); /* node_local reads the cost model's text */
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, amode, info, &fh)) == MCIO_SUCCESS) {
        write_gen(fh, path, 10, local, "a file deleted on close");
        read_check(fh, size, 10, local, "a file deleted on close");
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECKF(access(path, F_OK) != 0 && errno == ENOENT, "%s is still there after close", path);
    return mt_finish();
}
