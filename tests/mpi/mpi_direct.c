/*
 * Direct I/O (ROMIO's hints direct_write and direct_read) in the posix and slow backends:
 *
 *   bytes        an interleaved pattern of 10,000-byte blocks from offset 100, so that every
 *                aggregator run starts and ends off the 4 KiB boundaries (its head and tail go
 *                through the page cache, its middle directly), written collectively through
 *                the classic rounds, the pipeline (depth 4, 64 KiB sub-buffers), the slow
 *                backend and the independent path (romio_cb_write disable, aligned and
 *                unaligned user buffers), read back through mcio with direct_read, and every
 *                byte of the file verified, holes and tail keeping the sentinel
 *   page cache   the direct path is really taken: the file's pages are cached (prefilled
 *                through the page cache) before a collective write; with direct_write most of
 *                them are gone from the page cache after it (mincore), and without it all are
 *                still there (the control, so that the check can tell). Checked only where
 *                O_DIRECT bypasses the page cache (probed first: tmpfs accepts O_DIRECT and
 *                caches anyway).
 */
#define _GNU_SOURCE /* O_DIRECT */
#include "mcio_test.h"

#include <sys/mman.h>

#define BLOCK 10000
#define BASE 100
#define PAGE 4096

/* Fraction of the pages of [0, size) of path that are in the page cache. Not collective. */
static double cached_fraction(const char *path, int64_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -1;
    size_t pages = (size_t)((size + PAGE - 1) / PAGE), in = 0;
    unsigned char *vec = mt_malloc(pages);
    double f = -1;
    if (mincore(map, (size_t)size, vec) == 0) {
        for (size_t i = 0; i < pages; i++)
            in += vec[i] & 1;
        f = (double)in / (double)pages;
    }
    free(vec);
    munmap(map, (size_t)size);
    return f;
}

/* Does O_DIRECT bypass the page cache in the test directory? A cached page, overwritten
 * directly, must leave the cache. Rank 0 probes; every rank gets the answer. */
static int direct_bypasses_cache(void)
{
    int yes = 0;
    if (mt.rank == 0) {
        char path[512];
        mt_path(path, sizeof path, "probe");
        void *page = NULL;
        int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
        if (fd >= 0 && posix_memalign(&page, PAGE, 16 * PAGE) == 0) {
            memset(page, 7, 16 * PAGE);
            int dfd = pwrite(fd, page, 16 * PAGE, 0) == 16 * PAGE ? open(path, O_RDWR | O_DIRECT)
                                                                   : -1;
            if (dfd >= 0 && pwrite(dfd, page, 16 * PAGE, 0) == 16 * PAGE)
                yes = cached_fraction(path, 16 * PAGE) == 0.0;
            if (dfd >= 0)
                close(dfd);
        }
        if (fd >= 0)
            close(fd);
        free(page);
        unlink(path);
    }
    MPI_Bcast(&yes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return yes;
}

typedef struct config {
    const char *name;
    const char *backend;
    int direct;       /* direct_write and direct_read */
    int depth;        /* mcio_pipeline_depth */
    int independent;  /* romio_cb_write/read disable */
    int aligned;      /* user buffer on a page boundary (the independent path writes from it) */
    double max_cached; /* after the write, when the file system bypasses the cache; < 0: no check */
    double min_cached;
} config;

static const config configs[] = {
    {"posix-direct", "posix", 1, 1, 0, 0, 0.25, 0},
    {"posix-buffered", "posix", 0, 1, 0, 0, -1, 0.99}, /* the control of the page-cache check */
    {"pipeline-direct", "posix", 1, 4, 0, 0, 0.25, 0},
    {"slow-direct", "slow", 1, 2, 0, 0, 0.25, 0},
    {"independent-aligned", "posix", 1, 1, 1, 1, -1, 0},
    {"independent-unaligned", "posix", 1, 1, 1, 0, -1, 0},
};

static void scenario(const config *c, int bypass)
{
    int n = mt.nprocs, me = mt.rank;
    char path[512];
    mt.ctx = c->name;
    mt_path(path, sizeof path, c->name);
    /* Rank r's blocks: r, r + n, r + 2n, ... of 12 per rank, every third one 37 bytes short
     * (a hole before the next block). */
    mt_extents *all = calloc((size_t)n, sizeof *all);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 12; i++)
            mt_ext_push(&all[r], BASE + (int64_t)(i * n + r) * BLOCK, BLOCK - (i % 3 == 2) * 37);
    int64_t size = BASE + (int64_t)12 * n * BLOCK + 5000;
    mt_prefill(path, size);
    MPI_Info info = mt_info("mcio_io_backend", c->backend, "cb_buffer_size",
                            c->depth > 1 ? "256k" : "96k", "mcio_subbuffer_size", "64k",
                            "mcio_pipeline_depth", c->depth > 1 ? (c->depth == 4 ? "4" : "2") : "1",
                            "direct_write", c->direct ? "true" : "false",
                            "direct_read", c->direct ? "true" : "false",
                            "romio_cb_write", c->independent ? "disable" : "enable",
                            "romio_cb_read", c->independent ? "disable" : "enable", NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        char v[64];
        mt_get_hint(fh, "direct_write", v, sizeof v);
        CHECKF(strcmp(v, c->direct ? "true" : "false") == 0, "direct_write in force: %s", v);
        int64_t bytes = mt_ext_bytes(&all[me]);
        uint8_t *packed = mt_pack(&all[me], 1), *buf = packed;
        void *aligned = NULL;
        if (c->aligned && posix_memalign(&aligned, PAGE, (size_t)bytes) == 0)
            buf = memcpy(aligned, packed, (size_t)bytes);
        CHECKF(!c->aligned || buf == aligned, "no aligned buffer");
        CHECK_OK(mcio_write_at_all(fh, all[me].n, all[me].off, all[me].len, buf));
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0 && bypass && (c->max_cached >= 0 || c->min_cached > 0)) {
            double f = cached_fraction(path, size);
            mt.checks++;
            if (f < 0 || (c->max_cached >= 0 && f > c->max_cached) || f < c->min_cached)
                mt_fail(__FILE__, __LINE__, "%.0f %% of the file's pages are in the page cache "
                        "after the write (expected %s %.0f %%)", 100 * f,
                        c->max_cached >= 0 ? "at most" : "at least",
                        100 * (c->max_cached >= 0 ? c->max_cached : c->min_cached));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        /* Read back this rank's own extents into a zeroed buffer, then the whole file. */
        memset(buf, 0, (size_t)bytes);
        if (CHECK_OK(mcio_read_at_all(fh, all[me].n, all[me].off, all[me].len, buf)) ==
            MCIO_SUCCESS)
            MT_COMPARE(buf, packed, bytes, 0, "mcio_read_at_all of my extents");
        MT_VERIFY_MCIO(fh, size, all, n, 1);
        CHECK_OK(mcio_file_close(&fh));
        free(packed);
        free(aligned);
    }
    mt_info_free(&info);
    MT_VERIFY_FILE(path, size, all, n, 1);
    mt_remove(path);
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_direct");
    int bypass = direct_bypasses_cache();
    if (mt.rank == 0 && !bypass)
        printf("mpi_direct: O_DIRECT does not bypass the page cache in %s: bytes checked, the "
               "page cache not\n", mt.dir);
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        scenario(&configs[i], bypass);
    return mt_finish();
}
