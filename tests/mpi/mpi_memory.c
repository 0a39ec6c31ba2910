/*
 * The memory strategy on a virtual machine (MCIO_VIRTUAL_RANKS_PER_NODE from ctest) with uneven
 * memory per node (MCIO_VIRTUAL_NODE_MEMORY, set here before each open): patterns written over a
 * sentinel-filled file and verified byte for byte through mcio_read_at_all and pread, and the
 * statistics checked against the memory map:
 *   - each node's budget is its virtual memory, capped by mcio_node_memory;
 *   - without a fallback, the collective buffers a node held never exceed its budget, and a
 *     node without memory hosts no aggregator;
 *   - no node hosts more than mcio_nah aggregators, no rank two domains;
 *   - with no memory anywhere the calls still succeed (fallback, reported in the statistics);
 *   - with the detected memory (MemAvailable) capped by mcio_node_memory, the budget is the cap.
 */
#include "mcio_test.h"

#define HEADER 512

enum { W_CONTIG, W_IOR, W_INTERLEAVED, W_RANDOM, W_COUNT };
static const char *const workload_name[W_COUNT] = {"contig", "ior", "interleaved", "random"};

static int64_t per_rank;

static void gen(int w, int r, int n, mt_extents *e)
{
    memset(e, 0, sizeof *e);
    switch (w) {
    case W_CONTIG: /* blocks of different sizes, rank 2 without data from 4 ranks on */
        if (r != 2 || n < 4) {
            int64_t at = HEADER;
            for (int q = 0; q < r; q++)
                at += q == 2 && n >= 4 ? 0 : per_rank + 101 * q;
            mt_ext_push(e, at, per_rank + 101 * r);
        }
        break;
    case W_IOR: /* 4 segments, a 16-byte hole after each transfer */
        for (int64_t s = 0, slot = per_rank / 4; s < 4; s++)
            mt_ext_push(e, HEADER + (s * n + r) * slot, slot - 16);
        break;
    case W_INTERLEAVED: /* 40-byte records dealt round-robin: every rank spans the file */
        for (int64_t k = 0; k < per_rank / 40; k++)
            mt_ext_push(e, HEADER + (k * n + r) * 40, 40);
        break;
    case W_RANDOM: {
        uint64_t seed = 0xABCD00u + (uint64_t)n;
        int64_t region = per_rank * n * 3 / 2;
        for (int64_t pos = 0; pos < region;) {
            int64_t len = 1 + (int64_t)(mt_rand(&seed) % (uint64_t)(per_rank / 6));
            int owner = (int)(mt_rand(&seed) % (uint64_t)(n + 1)) - 1; /* -1: a hole */
            if (owner == r)
                mt_ext_push(e, HEADER + pos, len);
            pos += len;
        }
        break;
    }
    }
}

typedef struct memcase {
    const char *name;
    const char *memory;      /* MCIO_VIRTUAL_NODE_MEMORY; NULL: detected */
    const char *node_memory; /* mcio_node_memory hint, NULL: not set */
    const char *nah, *msgind, *msggroup, *memmin;
    int expect_fallback;     /* 1: must fall back, 0: must not, -1: may */
} memcase;

/* Budgets are in bytes; Msgind about a sixth of the data, so there are several domains. */
static const memcase cases[] = {
    /* Node 0 has nothing, node 1 plenty, node 2 little, node 3 some: domains avoid node 0. */
    {"uneven", "0,1m,6000,40k", NULL, "2", "12k", "1g", "2k", 0},
    /* One aggregator per node at most, small groups (remerging stays inside them). */
    {"nah1-groups", "3m,0,1m,0", NULL, "1", "8k", "20k", "1k", -1},
    /* The cap wins over the virtual memory where it is lower. */
    {"capped", "5m,200k,5m,200k", "100k", "4", "16k", "1g", "4k", 0},
    /* No memory anywhere: every group falls back, and the data is still right. */
    {"no-memory", "0", NULL, "4", "12k", "1g", "1k", 1},
    /* Memory drawn from a normal distribution, as in the paper's evaluation. */
    {"normal", "normal:24k:24k:11", NULL, "3", "10k", "1g", "2k", -1},
    /* Detected memory (MemAvailable, far above the cap): the budget is the cap. */
    {"detected-capped", NULL, "60k", "2", "12k", "1g", "4k", 0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* The budget the test expects for node j: parsed here from the case, independently of mcio. */
static int64_t expected_budget(const memcase *c, int j, int nnodes, int64_t got)
{
    int64_t mem = -1, cap = -1;
    if (c->node_memory)
        cap = strtoll(c->node_memory, NULL, 10) * 1024; /* the cases write caps in k */
    if (!c->memory) {
        return cap; /* detected: far above the cap */
    } else if (strncmp(c->memory, "normal:", 7) == 0) {
        (void)nnodes;
        return got; /* random: checked for range below */
    } else {
        const char *p = c->memory;
        int count = 1;
        for (const char *q = p; *q; q++)
            count += *q == ',';
        int k = j % count;
        for (int i = 0; i < k; i++)
            p = strchr(p, ',') + 1;
        char *end;
        mem = strtoll(p, &end, 10);
        if (*end == 'k')
            mem *= 1024;
        else if (*end == 'm')
            mem *= 1024 * 1024;
    }
    return cap >= 0 && cap < mem ? cap : mem;
}

static void check_stats(mcio_file fh, const memcase *c)
{
    mcio_stats s;
    if (CHECK_OK(mcio_file_get_stats(fh, &s)) != MCIO_SUCCESS)
        return;
    int k = mt_virtual_per_node(), n = mt.nprocs, nodes = (n + k - 1) / k, nah = atoi(c->nah);
    CHECKF(s.nodes == nodes, "stats.nodes %d, expected %d", s.nodes, nodes);
    if (s.nodes != nodes)
        return;
    if (c->expect_fallback >= 0)
        CHECKF((s.fallbacks > 0) == c->expect_fallback, "stats.fallbacks %d, expected %s",
               s.fallbacks, c->expect_fallback ? "some" : "none");
    int *aggs = calloc((size_t)nodes, sizeof(int));
    for (int i = 0; i < s.aggregators; i++) {
        int a = s.aggregator_ranks[i];
        CHECKF(s.aggregator_nodes[i] == a / k, "aggregator %d on node %d", a, s.aggregator_nodes[i]);
        for (int j = 0; j < i; j++)
            CHECKF(s.aggregator_ranks[j] != a, "rank %d aggregates two domains", a);
        aggs[a / k]++;
    }
    for (int j = 0; j < nodes; j++) {
        int64_t want = expected_budget(c, j, nodes, s.node_budget_bytes[j]);
        CHECKF(s.node_budget_bytes[j] == want, "node %d budget %" PRId64 ", expected %" PRId64, j,
               s.node_budget_bytes[j], want);
        CHECKF(s.node_budget_bytes[j] >= 0, "node %d budget %" PRId64, j, s.node_budget_bytes[j]);
        CHECKF(aggs[j] <= nah, "node %d hosts %d aggregators, mcio_nah %d", j, aggs[j], nah);
        if (s.fallbacks == 0) {
            CHECKF(s.node_peak_bytes[j] <= s.node_budget_bytes[j],
                   "node %d held %" PRId64 " bytes of collective buffers, budget %" PRId64, j,
                   s.node_peak_bytes[j], s.node_budget_bytes[j]);
            CHECKF(s.node_budget_bytes[j] > 0 || aggs[j] == 0,
                   "node %d has no memory but hosts %d aggregators", j, aggs[j]);
        }
    }
    free(aggs);
}

static void run(int w, const memcase *c)
{
    int n = mt.nprocs, me = mt.rank;
    char ctx[96], path[512], name[96];
    snprintf(ctx, sizeof ctx, "%s/%s", workload_name[w], c->name);
    mt.ctx = ctx;
    snprintf(name, sizeof name, "mem-%s-%s", workload_name[w], c->name);
    mt_path(path, sizeof path, name);
    mt_extents *all = calloc((size_t)n, sizeof *all);
    int64_t end = 0;
    for (int r = 0; r < n; r++) {
        gen(w, r, n, &all[r]);
        end = mt_ext_end(&all[r]) > end ? mt_ext_end(&all[r]) : end;
    }
    int64_t size = end + 777;
    const mt_extents *mine = &all[me];
    if (c->memory)
        setenv("MCIO_VIRTUAL_NODE_MEMORY", c->memory, 1);
    else
        unsetenv("MCIO_VIRTUAL_NODE_MEMORY");
    MPI_Info info = mt_info("mcio_strategy", "memory", "mcio_nah", c->nah, "mcio_msgind", c->msgind,
                            "mcio_msggroup", c->msggroup, "mcio_memmin", c->memmin, NULL);
    if (c->node_memory)
        MPI_Info_set(info, "mcio_node_memory", c->node_memory);
    mt_prefill(path, size);
    mcio_file fh = MCIO_FILE_NULL;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) != MCIO_SUCCESS)
        goto out;
    uint8_t *buf = mt_ext_bytes(mine) > 0 ? mt_pack(mine, 1) : NULL;
    if (CHECK_OK(mcio_write_at_all(fh, mine->n, mine->off, mine->len, buf)) == MCIO_SUCCESS)
        check_stats(fh, c);
    free(buf);
    /* The same pattern read back (a plan of its own), into a poisoned buffer. */
    int64_t bytes = mt_ext_bytes(mine);
    uint8_t *want = mt_pack(mine, 1), *got = mt_malloc((size_t)bytes + 1);
    memset(got, 0xEE, (size_t)bytes + 1);
    if (CHECK_OK(mcio_read_at_all(fh, mine->n, mine->off, mine->len, got)) == MCIO_SUCCESS) {
        MT_COMPARE(got, want, bytes, 0, "mcio_read_at_all of my own extents");
        check_stats(fh, c);
    }
    free(want);
    free(got);
    MT_VERIFY_MCIO(fh, size, all, n, 1);
    CHECK_OK(mcio_file_close(&fh));
    MT_VERIFY_FILE(path, size, all, n, 1);
    mt_remove(path);
out:
    mt_info_free(&info);
    mt_ext_free_all(all, n);
    mt.ctx = NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_memory");
    if (mt_virtual_per_node() < 1) {
        if (mt.rank == 0)
            fprintf(stderr, "mpi_memory: run with MCIO_VIRTUAL_RANKS_PER_NODE set\n");
        MPI_Finalize();
        return 1;
    }
    int n = mt.nprocs;
    per_rank = n <= 4 ? 24 * 1024 : 6 * 1024;
    for (int w = 0; w < W_COUNT; w++)
        for (int c = 0; c < NCASES; c++)
            if (n < 4 || (w + c) % 2 == 0) /* from 4 ranks on, half of the pairs (MPICH polls) */
                run(w, &cases[c]);
    return mt_finish();
}
