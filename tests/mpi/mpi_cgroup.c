/*
 * Memory as the machine enforces it (issue 17), under a real memory cgroup: ctest runs this
 * program through scripts/memlimit.sh, which makes a fresh memory cgroup inside the caller's,
 * so every rank's memory figure must come from that cgroup, and the kernel kills the job if a
 * plan takes more than the cgroup has.
 *
 * Each rank writes interleaved 1 MiB blocks (an IOR segment pattern, so the ranks' accesses
 * interleave and the classic plan aggregates) with cb_buffer_size as large as the file: the
 * classic plan wants one collective buffer of the whole file. The ranks then take ballast
 * until the cgroup has about half that buffer left, and write with default hints: the default
 * strategy must see the cgroup, plan memory-consciously within it (buffers within the node's
 * budget) and complete. With the ballast freed, the default must plan as before (one buffer of
 * the whole file). Every byte is verified with pread. First, the rule by which a call's
 * memory reading stands for the next one's: only young and with ample room (below 1 GiB, as
 * in this cgroup, every call reads again).
 */
#include "mcio_machine.h"
#include "mcio_memory.h"
#include "mcio_test.h"

#define BLOCK ((int64_t)1 << 20)

/* What the cgroup has left, as mcio reads it, agreed (rank 0's reading: the ranks share it).
 * -1 when some rank is not under a cgroup limit. */
static int64_t cgroup_headroom(void)
{
    mcio_memory_probe p;
    mcio_memory_probe_at("", mcio_memory_rlimits(), &p);
    int limited = p.cg_version != 0 && p.cgroup >= 0, all = 0;
    MPI_Allreduce(&limited, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int64_t head = all ? p.cgroup : -1;
    MPI_Bcast(&head, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return head;
}

/* Write per_rank bytes per rank; short: with ballast that leaves the cgroup three quarters of
 * the classic buffer during the write (freed before the check). */
static void write_and_check(const char *name, int64_t per_rank, int short_of_memory)
{
    char path[512];
    mt_path(path, sizeof path, name);
    int64_t nblk = per_rank / BLOCK, size = per_rank * mt.nprocs;
    mt_extents mine = {0};
    for (int64_t i = 0; i < nblk; i++)
        mt_ext_push(&mine, (i * mt.nprocs + mt.rank) * BLOCK, BLOCK);
    mt_prefill(path, size); /* collective */
    uint8_t *buf = mt_pack(&mine, 1);
    MPI_Info info;
    MPI_Info_create(&info);
    char cb[32];
    snprintf(cb, sizeof cb, "%" PRId64, size);
    MPI_Info_set(info, "cb_buffer_size", cb);
    mcio_file fh;
    mt.ctx = name;
    char *ballast = NULL;
    int64_t head = cgroup_headroom();
    if (short_of_memory && head > size * 3 / 4) {
        int64_t share = (head - size * 3 / 4) / mt.nprocs;
        ballast = mt_malloc((size_t)share);
        memset(ballast, 0x5a, (size_t)share); /* touched: charged to the cgroup */
        MPI_Barrier(MPI_COMM_WORLD);
        head = cgroup_headroom();
    }
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        if (CHECK_OK(mcio_write_at_all(fh, mine.n, mine.off, mine.len, buf)) == MCIO_SUCCESS) {
            mcio_stats s;
            mcio_file_get_stats(fh, &s);
            int src = s.node_memory_source[0];
            CHECKF(src == MCIO_MEM_CGROUP_V1 || src == MCIO_MEM_CGROUP_V2,
                   "node memory from %s, not the cgroup", mcio_memory_source_name(src));
            CHECKF(s.memory_conscious == short_of_memory,
                   "memory_conscious %d, expected %d (budget %" PRId64 ", classic buffer %" PRId64
                   ")",
                   s.memory_conscious, short_of_memory, s.node_budget_bytes[0], size);
            /* The budget is what the cgroup had left when the call planned: what rank 0 saw
             * just before, give or take what the ranks allocated since (a few MiB). */
            CHECKF(s.node_budget_bytes[0] <= head + 8 * BLOCK && s.node_budget_bytes[0] > 0,
                   "budget %" PRId64 " against the cgroup's headroom %" PRId64,
                   s.node_budget_bytes[0], head);
            CHECKF(s.node_peak_bytes[0] <= s.node_budget_bytes[0],
                   "collective buffers %" PRId64 " over the budget %" PRId64, s.node_peak_bytes[0],
                   s.node_budget_bytes[0]);
            CHECKF(short_of_memory || s.max_buffer_bytes == size,
                   "with memory to spare the classic plan holds the file in one buffer: %" PRId64
                   " of %" PRId64,
                   s.max_buffer_bytes, size);
            CHECKF(s.node_predicted_peak_bytes[0] > s.node_model_bytes[0] &&
                       s.node_model_bytes[0] >= s.node_peak_bytes[0],
                   "predicted peak %" PRId64 ", model %" PRId64 ", buffers %" PRId64,
                   s.node_predicted_peak_bytes[0], s.node_model_bytes[0], s.node_peak_bytes[0]);
        }
        CHECK_OK(mcio_file_close(&fh));
    }
    free(ballast);
    MPI_Info_free(&info);
    free(buf);
    /* Every rank's extents, rebuilt by every rank for the expected image. */
    mt_extents *all = calloc((size_t)mt.nprocs, sizeof *all);
    for (int r = 0; r < mt.nprocs; r++)
        for (int64_t i = 0; i < nblk; i++)
            mt_ext_push(&all[r], (i * mt.nprocs + r) * BLOCK, BLOCK);
    MT_VERIFY_FILE(path, size, all, mt.nprocs, 1);
    for (int r = 0; r < mt.nprocs; r++)
        mt_ext_free(&all[r]);
    free(all);
    mt_ext_free(&mine);
    MPI_Barrier(MPI_COMM_WORLD);
    mt_remove(path);
}

/* A call's memory reading stands for the next within MCIO_MEM_REUSE_SECONDS only where it
 * found at least the call's ample room (mcio_machine_memory_read); every rank, readers and
 * not. A figure planted in the kept reading (its rlimit headroom: rec[6]) shows which one a
 * call got. */
static void check_reading_reuse(void)
{
    mcio_machine m;
    char detail[MCIO_DETAIL_LEN];
    if (CHECK_OK(mcio_machine_detect(MPI_COMM_WORLD, &m, detail)) != MCIO_SUCCESS)
        return;
    const int64_t gib = (int64_t)1 << 30, planted = 12345;
    int64_t rec[MCIO_PROBE_FIELDS];
    mcio_machine_memory_read(&m, 1, 0, rec, NULL);
    CHECK(m.mem_last != NULL);
    const struct {
        int64_t avail, ample;
        double age;
        int reused;
        const char *what;
    } cases[] = {
        {4 * gib, gib, 0, 1, "ample room, just read"},
        {4 * gib, 8 * gib, 0, 0, "less room than the call's ample"},
        {4 * gib, gib, 2 * MCIO_MEM_REUSE_SECONDS, 0, "an old reading"},
        {-1, gib, 0, 1, "no limit at all"},
        {4 * gib, 0, 0, 0, "ample 0: read every time"},
    };
    for (size_t i = 0; m.mem_last && i < sizeof cases / sizeof cases[0]; i++) {
        m.mem_last->rlimit = planted;
        m.mem_last->avail = cases[i].avail;
        m.mem_last_time = MPI_Wtime() - cases[i].age;
        mcio_machine_memory_read(&m, 1, cases[i].ample, rec, NULL);
        CHECKF((rec[6] == planted) == cases[i].reused, "%s: the kept reading was %s", cases[i].what,
               cases[i].reused ? "read again" : "reused");
        CHECKF(cases[i].reused || m.mem_last->rlimit != planted,
               "%s: the new reading was not kept", cases[i].what);
    }
    mcio_machine_free(&m);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_cgroup");
    check_reading_reuse();
    int64_t head = cgroup_headroom();
    CHECKF(head >= 0, "not under a memory cgroup limit: run under scripts/memlimit.sh");
    if (head >= 0) {
        write_and_check("short", 16 * BLOCK, 1);
        write_and_check("ample", 16 * BLOCK, 0);
    }
    return mt_finish();
}
