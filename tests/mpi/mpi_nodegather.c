/*
 * The node-level step of the summaries' allgather (mcio_node_gather, src/engine/mcio_nodegather.c)
 * on a virtual machine (MCIO_VIRTUAL_RANKS_PER_NODE from ctest, an uneven last node at odd
 * counts):
 *   - the table it delivers equals the flat allgather's, byte for byte, on every rank, for
 *     records of several sizes whose every byte names its rank and position;
 *   - mcio_node_gather_wanted: auto stays flat below its rank count, true takes the step, and
 *     no setting takes it with one node or one rank per node;
 *   - a collective write and read with the step and without: the same plan (every planning
 *     figure of mcio_stats alike), stats.node_gather says which ran, and every byte of the
 *     file and of the read verified (romio, and the memory strategy on uneven node memory).
 */
#include "mcio_engine.h"
#include "mcio_test.h"

#define HEADER 256

static uint8_t record_byte(int rank, size_t i)
{
    return (uint8_t)mt_mix(((uint64_t)rank << 20) ^ (uint64_t)i);
}

/* The step's table against the flat allgather's, for one record size. */
static void check_table(const mcio_machine *m, size_t record, const char *what)
{
    char ctx[64];
    snprintf(ctx, sizeof ctx, "table/%s/%zu", what, record);
    mt.ctx = ctx;
    int n = mt.nprocs;
    mcio_node_gather g;
    if (CHECK_OK(mcio_node_gather_init(MPI_COMM_WORLD, m, MCIO_NODE_GATHER_TRUE, record, &g)) !=
        MCIO_SUCCESS)
        return;
    CHECKF(g.on, "mcio_node_gather true on %d nodes of %d ranks: the step is off", m->nnodes, n);
    uint8_t *mine = mt_malloc(record), *flat = mt_malloc((size_t)n * record);
    uint8_t *got = mt_malloc((size_t)n * record);
    for (size_t i = 0; i < record; i++)
        mine[i] = record_byte(mt.rank, i);
    memset(got, 0xEE, (size_t)n * record);
    MPI_Allgather(mine, (int)record, MPI_BYTE, flat, (int)record, MPI_BYTE, MPI_COMM_WORLD);
    if (g.on)
        mcio_node_gather_run(&g, m, mine, got);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < record; i++)
            CHECKF(flat[(size_t)r * record + i] == record_byte(r, i),
                   "flat allgather: rank %d byte %zu", r, i);
    MT_COMPARE(got, flat, (int64_t)n * (int64_t)record, 0, "node-level table against the flat one");
    free(mine);
    free(flat);
    free(got);
    mcio_node_gather_free(&g);
    mt.ctx = NULL;
}

static void check_wanted(void)
{
    mt.ctx = "wanted";
    CHECK(!mcio_node_gather_wanted(MCIO_NODE_GATHER_AUTO, 64, 8));
    CHECK(mcio_node_gather_wanted(MCIO_NODE_GATHER_AUTO, 16384, 1024));
    CHECK(!mcio_node_gather_wanted(MCIO_NODE_GATHER_AUTO, 16384, 8192)); /* 2 ranks per node */
    CHECK(mcio_node_gather_wanted(MCIO_NODE_GATHER_TRUE, 5, 3));
    CHECK(!mcio_node_gather_wanted(MCIO_NODE_GATHER_TRUE, 8, 1));  /* one node */
    CHECK(!mcio_node_gather_wanted(MCIO_NODE_GATHER_TRUE, 8, 8));  /* one rank per node */
    CHECK(!mcio_node_gather_wanted(MCIO_NODE_GATHER_FALSE, 16384, 1024));
    mt.ctx = NULL;
}

/* What a call planned, copied out of mcio_stats (its arrays live until the next call). */
typedef struct planned {
    mcio_stats s;
    int aggs[64], agg_nodes[64];
    int64_t budget[64], peak[64];
} planned;

static void keep(mcio_file fh, planned *p)
{
    memset(p, 0, sizeof *p);
    if (CHECK_OK(mcio_file_get_stats(fh, &p->s)) != MCIO_SUCCESS)
        return;
    CHECK(p->s.aggregators <= 64 && p->s.nodes <= 64);
    for (int d = 0; d < p->s.aggregators && d < 64; d++)
        p->aggs[d] = p->s.aggregator_ranks[d], p->agg_nodes[d] = p->s.aggregator_nodes[d];
    for (int j = 0; j < p->s.nodes && j < 64; j++)
        p->budget[j] = p->s.node_budget_bytes[j], p->peak[j] = p->s.node_peak_bytes[j];
}

static void same_plan(const planned *a, const planned *b, const char *op)
{
    CHECKF(a->s.aggregators == b->s.aggregators && a->s.rounds == b->s.rounds &&
               a->s.bytes == b->s.bytes && a->s.max_buffer_bytes == b->s.max_buffer_bytes &&
               a->s.nodes == b->s.nodes && a->s.fallbacks == b->s.fallbacks &&
               a->s.subbuffer_rounds == b->s.subbuffer_rounds,
           "%s: flat: %d aggregators, %d rounds, %d fallbacks; node-level: %d, %d, %d", op,
           a->s.aggregators, a->s.rounds, a->s.fallbacks, b->s.aggregators, b->s.rounds,
           b->s.fallbacks);
    CHECKF(memcmp(a->aggs, b->aggs, sizeof a->aggs) == 0 &&
               memcmp(a->agg_nodes, b->agg_nodes, sizeof a->agg_nodes) == 0,
           "%s: the aggregators differ", op);
    CHECKF(memcmp(a->budget, b->budget, sizeof a->budget) == 0 &&
               memcmp(a->peak, b->peak, sizeof a->peak) == 0,
           "%s: the nodes' budgets or buffers differ", op);
    CHECKF(a->s.node_gather == 0 && b->s.node_gather == 1, "%s: stats.node_gather %d and %d", op,
           a->s.node_gather, b->s.node_gather);
}

/* Uneven per-rank data, interleaved: 3 transfers per rank, rank r's of 1000 + 37 r bytes. */
static void extents(int r, int n, mt_extents *e)
{
    memset(e, 0, sizeof *e);
    int64_t slot = 1000 + 37 * (int64_t)n;
    for (int s = 0; s < 3; s++)
        mt_ext_push(e, HEADER + ((int64_t)s * n + r) * slot, 1000 + 37 * (int64_t)r);
}

/* One write and read with the step (on = 1) or without, with strategy; what they planned. */
static void io_once(const char *strategy, int on, planned out[2])
{
    int n = mt.nprocs;
    char ctx[64], path[512], name[64];
    snprintf(ctx, sizeof ctx, "%s/%s", strategy, on ? "node" : "flat");
    mt.ctx = ctx;
    snprintf(name, sizeof name, "nodegather-%s-%d", strategy, on);
    mt_path(path, sizeof path, name);
    mt_extents *all = calloc((size_t)n, sizeof *all);
    int64_t end = 0;
    for (int r = 0; r < n; r++) {
        extents(r, n, &all[r]);
        end = mt_ext_end(&all[r]) > end ? mt_ext_end(&all[r]) : end;
    }
    int64_t size = end + 333;
    const mt_extents *mine = &all[mt.rank];
    MPI_Info info = mt_info("mcio_strategy", strategy, "mcio_node_gather", on ? "true" : "false",
                            "cb_buffer_size", "2k", "romio_cb_write", "enable", "romio_cb_read",
                            "enable", "mcio_nah", "2", "mcio_msgind", "3k", "mcio_memmin", "1k",
                            NULL);
    mt_prefill(path, size);
    mcio_file fh = MCIO_FILE_NULL;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        uint8_t *buf = mt_pack(mine, 1);
        if (CHECK_OK(mcio_write_at_all(fh, mine->n, mine->off, mine->len, buf)) == MCIO_SUCCESS)
            keep(fh, &out[0]);
        int64_t bytes = mt_ext_bytes(mine);
        uint8_t *got = mt_malloc((size_t)bytes + 1);
        memset(got, 0xEE, (size_t)bytes + 1);
        if (CHECK_OK(mcio_read_at_all(fh, mine->n, mine->off, mine->len, got)) == MCIO_SUCCESS) {
            MT_COMPARE(got, buf, bytes, 0, "mcio_read_at_all of my own extents");
            keep(fh, &out[1]);
        }
        free(buf);
        free(got);
        CHECK_OK(mcio_file_close(&fh));
        MT_VERIFY_FILE(path, size, all, n, 1);
    }
    mt_remove(path);
    mt_info_free(&info);
    mt_ext_free_all(all, n);
    mt.ctx = NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_nodegather");
    if (mt_virtual_per_node() < 2) {
        if (mt.rank == 0)
            fprintf(stderr, "mpi_nodegather: run with MCIO_VIRTUAL_RANKS_PER_NODE >= 2\n");
        MPI_Finalize();
        return 1;
    }
    check_wanted();
    mcio_machine m;
    char detail[MCIO_DETAIL_LEN] = "";
    const size_t sizes[] = {1, 13, sizeof(mcio_rank_record), 1000};
    if (CHECK_OK(mcio_machine_detect(MPI_COMM_WORLD, &m, detail)) == MCIO_SUCCESS) {
        for (int i = 0; i < 4; i++)
            check_table(&m, sizes[i], "virtual");
        mcio_machine_free(&m);
    }
    /* Nodes whose ranks are not contiguous (ranks dealt round-robin to 2 nodes, as a cyclic
     * placement gives): node order is not rank order. */
    int n = mt.nprocs, order[64], first[3] = {0, (n + 1) / 2, n}, node_of[64];
    for (int r = 0, at[2] = {0, 0}; r < n && n <= 64; r++)
        node_of[r] = r % 2, order[first[r % 2] + at[r % 2]++] = r;
    mcio_machine cyc = {.nprocs = n, .nnodes = 2, .node_of_rank = node_of, .rank_order = order,
                        .node_first = first};
    for (int i = 0; i < 4 && n <= 64; i++)
        check_table(&cyc, sizes[i], "cyclic");
    /* Uneven memory per node: the memory strategy avoids node 0 and crowds the others. */
    setenv("MCIO_VIRTUAL_NODE_MEMORY", "0,40k,6000,1m", 1);
    const char *strategies[] = {"romio", "memory"};
    for (int k = 0; k < 2; k++) {
        planned flat[2], node[2];
        io_once(strategies[k], 0, flat);
        io_once(strategies[k], 1, node);
        same_plan(&flat[0], &node[0], "write");
        same_plan(&flat[1], &node[1], "read");
    }
    return mt_finish();
}
