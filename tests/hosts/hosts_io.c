/*
 * mcio across the hosts of scripts/hosts.sh (each host its own network, UTS, mount and IPC
 * namespaces, joined by shaped veth links): what only separate hosts can show.
 *
 *   nodes       mcio's machine detection finds one node per host (the ranks' hostnames say
 *               which), numbered in order of each node's lowest rank
 *   placement   IOR's interleaved pattern written and read with one aggregator per node
 *               (cb_nodes = hosts, the romio strategy): MCIO_STATS's aggregators sit one on
 *               each host, on the node the plan names (aggregator_nodes), checked against the
 *               hostnames of aggregator_ranks
 *   bytes       the links' byte counters (each host's eth0, /proc/net/dev in its network
 *               namespace) around each call: the bytes that crossed between hosts are at least
 *               mcio_stats.exchange_network_bytes and exceed it by no more than the protocol
 *               headers (5%) and the call's metadata and agreement messages; nothing crossed
 *               where mcio says nothing did (one host)
 *   memory      with MCIO_TEST_HOST_MEM (scripts/hosts.sh up --mem), every node's budget comes
 *               from its host's memory cgroup and is at most that limit
 * Every byte of the file is verified with pread (holes keep the sentinel).
 * Run from host 1 by tests/hosts/on_hosts.sh with MCIO_TEST_HOSTS, the hosts the job spans.
 */
#include "mcio_test.h"

#define BLOCK (256 * 1024)
#define SEGMENTS 8

static char hostnames[256][MPI_MAX_PROCESSOR_NAME];
static int node_of[256], nhosts_seen;

/* Every rank's hostname; node_of[r]: hosts numbered in order of their lowest rank. */
static void gather_hosts(void)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    gethostname(mine, sizeof mine - 1);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hostnames, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < mt.nprocs; r++) {
        node_of[r] = -1;
        for (int q = 0; q < r && node_of[r] < 0; q++)
            if (!strcmp(hostnames[q], hostnames[r]))
                node_of[r] = node_of[q];
        if (node_of[r] < 0)
            node_of[r] = nhosts_seen++;
    }
}

/* Bytes this host's eth0 sent (/proc/net/dev is the reader's network namespace's). */
static int64_t eth0_sent(void)
{
    FILE *f = fopen("/proc/net/dev", "r");
    char line[512];
    int64_t tx = -1;
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "eth0:");
        long long v[9];
        if (p && sscanf(p + 5, "%lld %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2],
                        &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 9)
            tx = v[8];
    }
    if (f)
        fclose(f);
    return tx;
}

/* The bytes all hosts sent over their links since the last call (one rank per host reads). */
static int64_t links_sent(int64_t *last)
{
    MPI_Barrier(MPI_COMM_WORLD);
    int leader = 1;
    for (int q = 0; q < mt.rank; q++)
        leader &= node_of[q] != node_of[mt.rank];
    int64_t now = leader ? eth0_sent() : 0, total = 0;
    MPI_Allreduce(&now, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t d = total - *last;
    *last = total;
    return d;
}

static void check_placement(const mcio_stats *s, int hosts, const char *op)
{
    CHECKF(s->nodes == hosts, "%s: mcio sees %d nodes, the job spans %d hosts", op, s->nodes, hosts);
    CHECKF(s->aggregators == hosts, "%s: %d aggregators, cb_nodes asked %d", op, s->aggregators,
           hosts);
    int used[256] = {0};
    for (int d = 0; d < s->aggregators && d < 256; d++) {
        int r = s->aggregator_ranks[d];
        CHECKF(r >= 0 && r < mt.nprocs && s->aggregator_nodes[d] == node_of[r],
               "%s: aggregator %d is rank %d on %s (node %d), the plan says node %d", op, d, r,
               r >= 0 && r < mt.nprocs ? hostnames[r] : "?", r >= 0 && r < mt.nprocs ? node_of[r] : -1,
               s->aggregator_nodes[d]);
        if (r >= 0 && r < mt.nprocs) {
            CHECKF(!used[node_of[r]], "%s: two aggregators on %s", op, hostnames[r]);
            used[node_of[r]] = 1;
        }
    }
}

/* The links carried what mcio says crossed between nodes, plus headers and small messages. */
static void check_bytes(const mcio_stats *s, int64_t crossed, const char *op)
{
    /* Rank 0 holds the sums (MCIO_STATS is written there). */
    int64_t v[3] = {s->exchange_network_bytes, s->exchange_node_bytes, s->metadata_bytes};
    MPI_Bcast(v, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int64_t x = v[0];
    int64_t slack = x / 20 + (v[2] > 0 ? v[2] : 0) + 64 * 1024 * (int64_t)s->nodes;
    if (mt.rank == 0)
        printf("%s: links carried %" PRId64 " bytes, MCIO_STATS: %" PRId64 " between nodes, %" PRId64
               " within, metadata %" PRId64 "\n", op, crossed, x, v[1], v[2]);
    CHECKF(x >= 0, "%s: exchange_network_bytes %" PRId64 " (MCIO_STATS unset?)", op, x);
    CHECKF(s->nodes == 1 || x > 0, "%s: no exchange bytes between %d nodes", op, s->nodes);
    CHECKF(crossed >= x, "%s: the links carried %" PRId64 " bytes, fewer than the %" PRId64
           " mcio says crossed between nodes", op, crossed, x);
    CHECKF(crossed <= x + slack, "%s: the links carried %" PRId64 " bytes, more than the %" PRId64
           " mcio says crossed between nodes and %" PRId64 " of headers and messages", op, crossed,
           x, slack);
}

static void check_memory(const mcio_stats *s, const char *op)
{
    const char *v = getenv("MCIO_TEST_HOST_MEM");
    int64_t limit = v && *v ? atoll(v) : 0;
    if (limit <= 0)
        return;
    for (int j = 0; j < s->nodes; j++)
        CHECKF((s->node_memory_source[j] == 2 || s->node_memory_source[j] == 3) &&
                   s->node_budget_bytes[j] > 0 && s->node_budget_bytes[j] <= limit,
               "%s: node %d's memory from source %d, budget %" PRId64 ", its host's cgroup %" PRId64,
               op, j, s->node_memory_source[j], s->node_budget_bytes[j], limit);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "hosts_io");
    const char *h = getenv("MCIO_TEST_HOSTS");
    int hosts = h && *h ? atoi(h) : 0;
    CHECKF(hosts > 0 && mt.nprocs <= 256, "MCIO_TEST_HOSTS (the hosts of the job) is unset");
    gather_hosts();
    CHECKF(nhosts_seen == hosts, "the ranks' hostnames name %d hosts, the job spans %d",
           nhosts_seen, hosts);

    char path[512], n_aggs[16];
    mt_path(path, sizeof path, "ior");
    int64_t size = (int64_t)SEGMENTS * mt.nprocs * BLOCK;
    mt_extents *all = calloc((size_t)mt.nprocs, sizeof *all);
    for (int r = 0; r < mt.nprocs; r++)
        for (int k = 0; k < SEGMENTS; k++)
            mt_ext_push(&all[r], ((int64_t)k * mt.nprocs + r) * BLOCK, BLOCK);
    const mt_extents *me = &all[mt.rank];
    uint8_t *buf = mt_pack(me, 1), *back = mt_malloc((size_t)mt_ext_bytes(me));
    mt_prefill(path, size);

    MPI_Info info;
    MPI_Info_create(&info);
    snprintf(n_aggs, sizeof n_aggs, "%d", hosts);
    MPI_Info_set(info, "cb_nodes", n_aggs);
    MPI_Info_set(info, "mcio_strategy", "romio");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    mcio_file fh;
    int64_t last = 0;
    links_sent(&last);
    CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    mcio_stats s;
    for (int write = 1; write >= 0; write--) {
        const char *op = write ? "write" : "read";
        links_sent(&last); /* the open's messages are not the call's */
        if (write)
            CHECK_OK(mcio_write_at_all(fh, me->n, me->off, me->len, buf));
        else
            CHECK_OK(mcio_read_at_all(fh, me->n, me->off, me->len, back));
        int64_t crossed = links_sent(&last);
        CHECK_OK(mcio_file_get_stats(fh, &s));
        check_placement(&s, hosts, op);
        check_bytes(&s, crossed, op);
        check_memory(&s, op);
    }
    CHECKF(!memcmp(back, buf, (size_t)mt_ext_bytes(me)), "read back: rank %d's bytes differ", mt.rank);
    CHECK_OK(mcio_file_close(&fh));
    MPI_Info_free(&info);
    MT_VERIFY_FILE(path, size, all, mt.nprocs, 1);
    mt_remove(path);
    mt_ext_free_all(all, mt.nprocs);
    free(buf);
    free(back);
    return mt_finish();
}
