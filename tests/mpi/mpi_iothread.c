/*
 * The pipeline's I/O thread and mcio_io_thread (mcio_pipeline_io.c; docs/design.md, "When the
 * I/O thread cannot help"). Each rank binds itself to the core it runs on, as MPI libraries
 * bind ranks, then writes an interleaved pattern at depth 4 (two-sided) and reads it back,
 * twice on one file:
 *
 *   null, auto        file access that never blocks: the thread retires during the first
 *                     call (io_inline 1), and the second call starts inline (io_inline 1)
 *   slow, auto        file access that sleeps (1 ms a call): the thread stays (io_inline 0),
 *                     every byte verified
 *   posix, always     the thread stays whatever its accesses (io_inline 0), bytes verified
 *   posix, never      inline from the start, one sub-buffer (io_inline 1), bytes verified
 *   posix, auto       whichever way it goes on this file system, bytes verified, both calls
 *   null, auto, unbound   with every core allowed (when the machine has two or more), the
 *                     thread stays (io_inline 0)
 *   posix, auto, reads on fresh handles   RETIRE_READS pipelined reads of a sentinel file, a
 *                     handle each (so each starts with the thread), every byte verified. The
 *                     thread, sharing the core, often reads two sub-buffers and retires before
 *                     the main thread has left the executor's start; that start once took the
 *                     switch to inline access (one sub-buffer) for its own and sent round 1
 *                     from round 0's sub-buffer (random layouts, Open MPI, 2 ranks).
 */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#include "mcio_test.h"

#include <sched.h>

#define BLOCK 3000

typedef struct config {
    const char *name, *backend, *mode;
    int bound;       /* bind to one core first */
    int verify;      /* the backend stores bytes */
    int want_inline; /* io_inline of both calls: 1, 0, or -1 (not checked) */
} config;

static const config configs[] = {
    {"null-auto", "null", "auto", 1, 0, 1},
    {"slow-auto", "slow", "auto", 1, 1, 0},
    {"posix-always", "posix", "always", 1, 1, 0},
    {"posix-never", "posix", "never", 1, 1, 1},
    {"posix-auto", "posix", "auto", 1, 1, -1},
    {"null-auto-unbound", "null", "auto", 0, 0, 0},
};

/* Bind this rank to the core it runs on, or allow it every online core. Returns the number of
 * cores it may run on. */
static int bind(int one)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (one) {
        int cpu = sched_getcpu();
        CPU_SET(cpu >= 0 ? cpu : 0, &set);
    } else {
        for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &set);
    }
    CHECKF(sched_setaffinity(0, sizeof set, &set) == 0, "sched_setaffinity: %s", strerror(errno));
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

static void check_inline(mcio_file fh, const config *c, const char *what)
{
    mcio_stats st;
    if (CHECK_OK(mcio_file_get_stats(fh, &st)) != MCIO_SUCCESS || c->want_inline < 0)
        return;
    CHECKF(st.io_inline == c->want_inline, "%s: io_inline %d, expected %d", what, st.io_inline,
           c->want_inline);
}

static void scenario(const config *c)
{
    int n = mt.nprocs, me = mt.rank;
    char path[512];
    mt.ctx = c->name;
    int cores = bind(c->bound), fewest = 0;
    MPI_Allreduce(&cores, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!c->bound && fewest < 2) {
        if (me == 0)
            printf("mpi_iothread: %s skipped: a rank may run on one core only\n", c->name);
        return;
    }
    mt_path(path, sizeof path, c->name);
    mt_extents *all = calloc((size_t)n, sizeof *all);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 16; i++)
            mt_ext_push(&all[r], (int64_t)(i * n + r) * BLOCK, BLOCK - (i % 4 == 3) * 11);
    int64_t size = (int64_t)16 * n * BLOCK + 777;
    mt_prefill(path, size);
    MPI_Info info = mt_info("mcio_io_backend", c->backend, "mcio_io_thread", c->mode,
                            "mcio_pipeline_depth", "4", "mcio_subbuffer_size", "4k",
                            "striping_unit", "4k", "cb_buffer_size", "16k", "romio_cb_write",
                            "enable", "romio_cb_read", "enable", "mcio_slow_call_seconds",
                            "0.001", NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        int64_t bytes = mt_ext_bytes(&all[me]);
        for (unsigned gen = 1; gen <= 2; gen++) {
            uint8_t *data = mt_pack(&all[me], gen), *back = mt_malloc((size_t)bytes);
            CHECK_OK(mcio_write_at_all(fh, all[me].n, all[me].off, all[me].len, data));
            check_inline(fh, c, gen == 1 ? "first write" : "second write");
            memset(back, 0, (size_t)bytes);
            CHECK_OK(mcio_read_at_all(fh, all[me].n, all[me].off, all[me].len, back));
            check_inline(fh, c, gen == 1 ? "first read" : "second read");
            if (c->verify)
                MT_COMPARE(back, data, bytes, 0, "mcio_read_at_all of my extents");
            free(data);
            free(back);
        }
        if (c->verify)
            MT_VERIFY_MCIO(fh, size, all, n, 2);
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);
    if (c->verify)
        MT_VERIFY_FILE(path, size, all, n, 2);
    else
        MT_VERIFY_UNCHANGED(path, size); /* the null backend stores nothing */
    mt_remove(path);
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
}

/* Reads on fresh handles: the thread beat the main thread to the executor's start in about one
 * read in 200 on a shared 2-core host (without the fix, 6 of 6 runs of 500 reads failed; 2 of
 * 9 runs of 60). 20 at more ranks, where MPICH busy-polls (3 ranks took 46 s for 166). */
#define RETIRE_READS 500

/* Pipelined reads, each on a new handle, bound to one core: whenever the I/O thread retires
 * (early or late in the call), every byte must still come from its own round. */
static void retire_reads(void)
{
    char path[512];
    mt.ctx = "posix-auto-fresh-reads";
    bind(1);
    mt_path(path, sizeof path, "retire-reads");
    int64_t size = (int64_t)64 * 1024 * mt.nprocs + 777; /* 16 sub-buffers of 4 KiB a rank */
    mt_prefill(path, size);
    MPI_Info info = mt_info("mcio_io_backend", "posix", "mcio_io_thread", "auto",
                            "mcio_pipeline_depth", "4", "mcio_subbuffer_size", "4k",
                            "striping_unit", "4k", "cb_buffer_size", "16k", "romio_cb_read",
                            "enable", NULL);
    int retired = 0, i = 0;
    for (; i < (mt.nprocs == 1 ? RETIRE_READS : 20); i++) { /* all ranks alike: each is collective */
        mcio_file fh;
        if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh)) !=
            MCIO_SUCCESS)
            break;
        MT_VERIFY_MCIO(fh, size, NULL, 0, 0); /* the sentinel, which differs by offset */
        mcio_stats st;
        if (CHECK_OK(mcio_file_get_stats(fh, &st)) == MCIO_SUCCESS)
            retired += st.io_inline;
        CHECK_OK(mcio_file_close(&fh));
    }
    if (mt.rank == 0)
        printf("mpi_iothread: %d pipelined reads on fresh handles, %d of them inline on rank 0 "
               "(the thread retired)\n", i, retired);
    mt_info_free(&info);
    mt_remove(path);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_iothread");
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        scenario(&configs[i]);
    retire_reads();
    return mt_finish();
}
