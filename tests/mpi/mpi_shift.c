/*
 * Reads into memory 4K-aliased with the file (mcio_read_shift; src/io/mcio_io.c): where the
 * buffer lies 1-31 bytes past the file offset modulo 4096, mcio reads 32 - d bytes further on
 * and moves the bytes back, since a kernel copy of that shape is 5-10 times slower on AMD's
 * Zen 3 and later. Run with mcio_read_shift true, so that the shifted path is taken whatever
 * this host's CPU, false as the control, and auto:
 *
 *   placements   each rank reads one extent of 20-60 KiB (at or above the shift's threshold)
 *                at a file offset on or off a page, into memory placed so that it lies r
 *                bytes past the offset modulo 4096, r in 0, 1, 5, 16, 31, 32, 33, 4095; the
 *                buffer's every byte compared with the file, and 4 KiB of guard bytes on both
 *                sides unchanged
 *   paths        each placement read through each rank's own access (romio_cb_read disable,
 *                twice: a read of the previous read's inputs reads before it gathers, and
 *                says so) and through one aggregator (romio_cb_read enable, cb_nodes 1)
 *   end of file  the last rank's extent runs 5,000 bytes past the end of the file: those
 *                bytes read as zeros
 *   auto         the same under mcio_read_shift auto, which shifts where this host's copies
 *                are slow (the test prints which)
 */
#include "mcio_test.h"

#include "mcio_io.h"

#define PAGE 4096
#define GUARD 0xEE
#define PAST_END 5000

typedef struct path_case {
    const char *name;
    const char *cb_read;
    const char *cb_nodes;
    int reads; /* 2: own access, each placement read twice */
} path_case;

/* This rank's extent of a placement: its offset (base off the page or on it) and length. */
static void extent_of(int base, int *len, int64_t *off)
{
    *len = 20000 + 9973 * mt.rank % 40000;
    *off = base + (int64_t)mt.rank * 65536;
}

/* Read [off, off + len) into memory lying r bytes past off modulo 4096, inside a region of
 * guard bytes, and compare: the file's bytes (zeros past size), the guards unchanged. */
static void read_placed(mcio_file fh, int64_t off, int len, int r, int64_t size, int read_first,
                        const char *what)
{
    size_t region_len = 3 * PAGE + (size_t)len;
    uint8_t *region = NULL;
    if (posix_memalign((void **)&region, PAGE, region_len) != 0) {
        mt_fail(__FILE__, __LINE__, "no memory for %zu bytes", region_len);
        return;
    }
    memset(region, GUARD, region_len);
    uint8_t *buf = region + PAGE + (size_t)((off + r) % PAGE);
    int64_t length = len;
    CHECK_OK(mcio_read_at_all(fh, 1, &off, &length, buf));
    mcio_stats st;
    CHECK_OK(mcio_file_get_stats(fh, &st));
    CHECKF(read_first < 0 || st.read_first == read_first,
           "%s, r %d: read_first %d, expected %d", what, r, st.read_first, read_first);
    int64_t bad = -1;
    for (int64_t i = 0; i < len && bad < 0; i++)
        if (buf[i] != (off + i < size ? mt_sentinel(off + i) : 0))
            bad = i;
    CHECKF(bad < 0, "%s, r %d: byte %" PRId64 " of the read at offset %" PRId64 " is %u",
           what, r, bad, off, bad < 0 ? 0 : buf[bad]);
    int64_t guard = -1;
    for (size_t i = 0; i < region_len && guard < 0; i++)
        if ((region + i < buf || region + i >= buf + len) && region[i] != GUARD)
            guard = (int64_t)i - (int64_t)(buf - region);
    CHECKF(guard < 0, "%s, r %d: memory at %" PRId64 " bytes from the buffer changed", what, r,
           guard);
    free(region);
}

static void run_case(const char *path, int64_t size, const char *shift, const path_case *pc)
{
    static const int rel[] = {0, 1, 5, 16, 31, 32, 33, 4095};
    static const int bases[] = {0, 100};
    MPI_Info info = mt_info("mcio_read_shift", shift, "mcio_strategy", "auto", "romio_cb_read",
                            pc->cb_read, "cb_nodes", pc->cb_nodes, NULL);
    mcio_file fh;
    char what[128];
    CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++)
        for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) {
            int len;
            int64_t off;
            extent_of(bases[b], &len, &off);
            if (mt.rank == mt.nprocs - 1)
                len = (int)(size - off + PAST_END); /* past the end of the file */
            snprintf(what, sizeof what, "shift %s, %s, base %d", shift, pc->name, bases[b]);
            /* Own access: once a base's first placement was read, its reads have the previous
             * read's inputs (the placements differ in memory only) and read first; -1: the
             * base's first placement, not checked. */
            for (int i = 0; i < pc->reads; i++)
                read_placed(fh, off, len, rel[k], size, pc->reads < 2 ? 0 : k > 0 ? 1 : -1,
                            what);
        }
    CHECK_OK(mcio_file_close(&fh));
    mt_info_free(&info);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_shift");
    char path[512];
    mt_path(path, sizeof path, "shift");
    int64_t size = 100 + (int64_t)(mt.nprocs - 1) * 65536 + 30000; /* the last extent passes it */
    mt_prefill(path, size);
    const path_case cases[] = {{"own access", "disable", "1", 2},
                               {"one aggregator", "enable", "1", 1}};
    const char *shifts[] = {"true", "false", "auto"};
    for (int s = 0; s < 3; s++)
        for (int c = 0; c < 2; c++)
            run_case(path, size, shifts[s], &cases[c]);
    int slow = mcio_io_copy_alias_slow();
    if (mt.rank == 0)
        printf("mpi_shift: this host's kernel copies into 4K-aliased memory are %s\n",
               slow ? "slow (mcio_read_shift auto shifts)" : "not slower (auto does not shift)");
    mt_remove(path);
    return mt_finish();
}
