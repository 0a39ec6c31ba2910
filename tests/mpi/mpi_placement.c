/*
 * Aggregator placement on a virtual machine (MCIO_VIRTUAL_RANKS_PER_NODE, _SOCKETS_PER_NODE) and
 * a virtual network (a 4 x 4 mesh topology file, I/O node at (3,3)):
 *
 *   policies     mcio_placement = spread, greedy, shortest, longest, topology, each with
 *                mcio_socket_rule = none and distributed: the aggregators the call used
 *                (mcio_file_get_stats) are the ones the pure planner elects from the same
 *                summaries and machine description, and every byte of the file is verified
 *                (with pread; once through mcio_read_at_all as well)
 *   workload     TAPIOCA's micro-benchmark: every rank writes one block of a random size
 *                (seeded, some empty), blocks in rank order; romio_cb_write=enable so that the
 *                non-interleaved blocks are aggregated; a small buffer for several rounds
 *   MINLOC       TAPIOCA's distributed election (mcio_engine_place_minloc: each rank its own
 *                key, a MINLOC-like allreduce) elects the same aggregators as the pure planner
 *   equal keys   IOR's interleaved pattern (every rank in every domain) with each elected
 *                policy: both elections agree, and greedy, whose keys are all equal, spreads
 *                the aggregators over the nodes (ties go to the node hosting fewer)
 *   sources      the topology file named by the hint, or by MCIO_TOPOLOGY_FILE
 *   errors       a malformed file, a missing one, one with fewer nodes than the job: the open
 *                fails on every rank with MCIO_ERR_HINT and a message naming file and line;
 *                an unknown MCIO_VIRTUAL_SOCKET_BINDING fails it with MCIO_ERR_ARG
 */
#include "mcio_test.h"
#include "mcio_placement.h"
#include "mcio_place_minloc.h"

static const char *mesh_text = "# 4 x 4 mesh, I/O node at the far corner\n"
                               "grid 4:mesh 4:mesh\n"
                               "io 3 3\n"
                               "latency 1e-6\n"
                               "bandwidth 1e9\n";

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : 0;
}

/* The virtual machine as docs/hints.md defines it: k consecutive ranks a node, each node's
 * ranks split into s sockets in order (accumulated binding) or round-robin (distributed). */
static void virtual_machine(int n, int *node, int *socket, int *nnodes, int *sockets)
{
    int k = env_int("MCIO_VIRTUAL_RANKS_PER_NODE"), s = env_int("MCIO_VIRTUAL_SOCKETS_PER_NODE");
    if (k <= 0)
        k = n; /* one node (every rank of a test runs on this host) */
    if (s <= 0)
        s = 1;
    for (int r = 0; r < n; r++) {
        int local_size = n - (r / k) * k < k ? n - (r / k) * k : k;
        node[r] = r / k;
        const char *b = getenv("MCIO_VIRTUAL_SOCKET_BINDING");
        socket[r] = b && strcmp(b, "distributed") == 0 ? r % k % s
                                                        : (int)((long)(r % k) * s / local_size);
    }
    *nnodes = (n + k - 1) / k;
    *sockets = s;
}

/* TAPIOCA's pattern: rank r writes [off_r, off_r + size_r), size_r random in [0, max]. */
static void tapioca_blocks(mt_extents *all, int n, int64_t max, uint64_t seed)
{
    int64_t off = 17;
    for (int r = 0; r < n; r++) {
        int64_t len = (int64_t)(mt_rand(&seed) % (uint64_t)(max + 1));
        if (r == 1)
            len = 0; /* a rank with nothing to write takes part too */
        mt_ext_push(&all[r], off, len);
        off += len;
    }
}

/* IOR's interleaved pattern: rank r writes transfers of t bytes at (k * n + r) * t, k < segs.
 * Every rank's summary overlaps every domain, and greedy gives every rank the same key. */
static void interleaved_blocks(mt_extents *all, int n, int64_t t, int segs)
{
    for (int r = 0; r < n; r++)
        for (int k = 0; k < segs; k++)
            mt_ext_push(&all[r], ((int64_t)k * n + r) * t, t);
}

static void scenario(const char *topo_path, int placement, int rule, int via_env,
                     int interleaved)
{
    int n = mt.nprocs, me = mt.rank;
    char name[96], path[512], cbn[16];
    snprintf(name, sizeof name, "%s-%s%s%s", mcio_placement_name(placement),
             mcio_socket_rule_name(rule), via_env ? "-env" : "", interleaved ? "-ior" : "");
    mt.ctx = name;
    mt_path(path, sizeof path, name);
    mt_extents *all = calloc((size_t)n, sizeof *all);
    if (interleaved)
        interleaved_blocks(all, n, 100, 8);
    else
        tapioca_blocks(all, n, 3000, 42 + (uint64_t)placement * 2 + (uint64_t)rule);
    int64_t size = 0;
    for (int r = 0; r < n; r++)
        size = mt_ext_end(&all[r]) > size ? mt_ext_end(&all[r]) : size;
    size += 100;
    mt_prefill(path, size);
    /* Half as many aggregators as ranks: several per node, so the socket rule matters. */
    int cb_nodes = n / 2 > 0 ? n / 2 : 1;
    snprintf(cbn, sizeof cbn, "%d", cb_nodes);
    if (via_env)
        setenv("MCIO_TOPOLOGY_FILE", topo_path, 1);
    MPI_Info info = mt_info("mcio_placement", mcio_placement_name(placement), "mcio_socket_rule",
                            mcio_socket_rule_name(rule), "romio_cb_write", "enable",
                            "cb_buffer_size", "2000", "cb_nodes", cbn,
                            via_env ? NULL : "mcio_topology_file", topo_path, NULL);
    mcio_file fh;
    int st = CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    mt_info_free(&info);
    unsetenv("MCIO_TOPOLOGY_FILE");
    if (st != MCIO_SUCCESS)
        goto out;
    char v[64];
    mt_get_hint(fh, "mcio_placement", v, sizeof v);
    CHECKF(strcmp(v, mcio_placement_name(placement)) == 0, "mcio_placement in force '%s'", v);
    mt_get_hint(fh, "mcio_socket_rule", v, sizeof v);
    CHECKF(strcmp(v, mcio_socket_rule_name(rule)) == 0, "mcio_socket_rule in force '%s'", v);
    uint8_t *buf = mt_pack(&all[me], 1);
    if (CHECK_OK(mcio_write_at_all(fh, all[me].n, all[me].off, all[me].len, buf)) ==
        MCIO_SUCCESS) {
        mcio_stats s;
        CHECK_OK(mcio_file_get_stats(fh, &s));
        /* The pure planner, on the same inputs, must elect the same aggregators. */
        int *node = malloc((size_t)n * sizeof(int)), *sock = malloc((size_t)n * sizeof(int));
        mcio_summary *sum = malloc((size_t)n * sizeof *sum);
        int nnodes, sockets;
        virtual_machine(n, node, sock, &nnodes, &sockets);
        for (int r = 0; r < n; r++)
            sum[r] = (mcio_summary){all[r].n ? all[r].off[0] : 0, mt_ext_end(&all[r]),
                                    mt_ext_bytes(&all[r])};
        mcio_network net;
        char why[MCIO_DETAIL_LEN];
        CHECKF(mcio_network_parse(mesh_text, "mesh", &net, why) == 0, "%s", why);
        mcio_topology topo = {.nprocs = n, .nnodes = nnodes, .node_of_rank = node,
                              .socket_of_rank = sock, .sockets_per_node = sockets, .net = &net};
        mcio_planner_params params = {.buffer_size = 2000, .cb_nodes = cb_nodes, .stripe = 0,
                                   .cb = MCIO_CB_ENABLE, .placement = placement,
                                   .socket_rule = rule};
        mcio_fdplan plan;
        if (CHECK_OK(mcio_planner_make(mcio_planner_find("romio"), &topo, sum, params, &plan)) ==
            MCIO_SUCCESS) {
            CHECKF(s.aggregators == plan.ndomains, "%d aggregators, the planner has %d",
                   s.aggregators, plan.ndomains);
            for (int d = 0; d < plan.ndomains && d < s.aggregators; d++)
                CHECKF(s.aggregator_ranks[d] == plan.agg_rank[d],
                       "domain %d: aggregator %d, the pure planner elects %d", d,
                       s.aggregator_ranks[d], plan.agg_rank[d]);
            /* TAPIOCA's distributed election finds the same aggregators (no socket rule). */
            if (placement != MCIO_PLACE_SPREAD && rule == MCIO_SOCKET_NONE) {
                int *got = malloc(((size_t)plan.ndomains + 1) * sizeof(int));
                CHECK_OK(mcio_engine_place_minloc(MPI_COMM_WORLD, &topo, sum, placement,
                                                  plan.ndomains, plan.fd_start, plan.fd_end,
                                                  got));
                for (int d = 0; d < plan.ndomains; d++)
                    CHECKF(got[d] == plan.agg_rank[d],
                           "domain %d: the distributed election elects %d, the pure planner %d",
                           d, got[d], plan.agg_rank[d]);
                free(got);
            }
            /* Equal keys: the nodes' aggregator counts differ by one at most. */
            if (interleaved && placement == MCIO_PLACE_GREEDY) {
                int *per = calloc((size_t)nnodes, sizeof(int)), lo = n, hi = 0;
                for (int d = 0; d < plan.ndomains; d++)
                    per[node[plan.agg_rank[d]]]++;
                for (int j = 0; j < nnodes; j++) {
                    lo = per[j] < lo ? per[j] : lo;
                    hi = per[j] > hi ? per[j] : hi;
                }
                CHECKF(hi - lo <= 1, "%d aggregators on %d nodes: %d to %d per node",
                       plan.ndomains, nnodes, lo, hi);
                free(per);
            }
            /* No rank twice (each aggregator has one collective buffer). */
            for (int d = 0; d < s.aggregators; d++)
                for (int e = d + 1; e < s.aggregators; e++)
                    CHECKF(s.aggregator_ranks[d] != s.aggregator_ranks[e],
                           "rank %d aggregates domains %d and %d", s.aggregator_ranks[d], d, e);
            mcio_fdplan_free(&plan);
        }
        mcio_network_free(&net);
        free(node);
        free(sock);
        free(sum);
    }
    free(buf);
    /* Reading back through mcio once is enough: the placement of reads is the same code. Every
     * scenario's file is checked byte by byte with pread below. */
    if (placement == MCIO_PLACE_TOPOLOGY && rule == MCIO_SOCKET_DISTRIBUTED && !via_env)
        MT_VERIFY_MCIO(fh, size, all, n, 1);
    CHECK_OK(mcio_file_close(&fh));
    MT_VERIFY_FILE(path, size, all, n, 1);
    mt_remove(path);
out:
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
    mt.ctx = NULL;
}

/* A bad topology file fails the open on every rank, naming what is wrong; nothing is created. */
static void bad_file(const char *topo_path, const char *text, const char *want)
{
    char path[512];
    mt.ctx = want;
    mt_path(path, sizeof path, "badtopo");
    if (text)
        mt_write_text(topo_path, text);
    MPI_Info info = mt_info("mcio_topology_file", topo_path, "mcio_placement", "topology", NULL);
    mcio_file fh = MCIO_FILE_NULL;
    int st = mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    mt_info_free(&info);
    CHECKF(st == MCIO_ERR_HINT, "open returned %d (%s), expected MCIO_ERR_HINT", st,
           mcio_strerror(st));
    const char *msg = mcio_error_message();
    CHECKF(strstr(msg, topo_path) && strstr(msg, want), "message '%s' lacks '%s' and '%s'", msg,
           topo_path, want);
    if (st == MCIO_SUCCESS)
        mcio_file_close(&fh);
    mt.ctx = NULL;
}

/* A binding mcio does not know fails the open on every rank, naming the variable. */
static void bad_binding(void)
{
    char path[512], *keep = getenv("MCIO_VIRTUAL_SOCKET_BINDING");
    char saved[64];
    snprintf(saved, sizeof saved, "%s", keep ? keep : "");
    mt.ctx = "bad binding";
    mt_path(path, sizeof path, "badbinding");
    setenv("MCIO_VIRTUAL_SOCKET_BINDING", "scattered", 1);
    mcio_file fh = MCIO_FILE_NULL;
    int st = mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                            &fh);
    CHECKF(st == MCIO_ERR_ARG, "open returned %d (%s), expected MCIO_ERR_ARG", st,
           mcio_strerror(st));
    CHECKF(strstr(mcio_error_message(), "MCIO_VIRTUAL_SOCKET_BINDING='scattered'"),
           "message '%s'", mcio_error_message());
    if (st == MCIO_SUCCESS)
        mcio_file_close(&fh);
    if (keep)
        setenv("MCIO_VIRTUAL_SOCKET_BINDING", saved, 1);
    else
        unsetenv("MCIO_VIRTUAL_SOCKET_BINDING");
    mt.ctx = NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_placement");
    char topo_path[600], base[512];
    mt_path(base, sizeof base, "topology");
    snprintf(topo_path, sizeof topo_path, "%s.txt", base);
    mt_write_text(topo_path, mesh_text);
    for (int p = MCIO_PLACE_SPREAD; p < MCIO_PLACE_COUNT; p++)
        for (int rule = MCIO_SOCKET_NONE; rule < MCIO_SOCKET_COUNT; rule++)
            scenario(topo_path, p, rule, 0, 0);
    scenario(topo_path, MCIO_PLACE_TOPOLOGY, MCIO_SOCKET_DISTRIBUTED, 1, 0);
    for (int p = MCIO_PLACE_GREEDY; p < MCIO_PLACE_COUNT; p++)
        scenario(topo_path, p, MCIO_SOCKET_NONE, 0, 1);

    bad_file(topo_path, "grid 4:mesh 4:mesh\nio 3 9\n",
             ":2: io: coordinate 2 '9' is not in [0, 4)");
    /* One described node, more job nodes (with virtual nodes; a single node fits). */
    int k = env_int("MCIO_VIRTUAL_RANKS_PER_NODE");
    if (k > 0 && mt.nprocs > k)
        bad_file(topo_path, "matrix 1\n0\n", "describes 1 nodes, the job runs on");
    char missing[640];
    snprintf(missing, sizeof missing, "%s.missing", base);
    bad_file(missing, NULL, "No such file or directory");
    bad_binding();
    if (mt.rank == 0 && !mt.failures)
        unlink(topo_path);
    return mt_finish();
}
