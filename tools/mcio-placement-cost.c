/*
 * mcio-placement-cost: the modelled cost of each aggregator placement policy on a large virtual
 * torus, from the pure planner alone (links mcio_core, no MPI). On one host the network is
 * virtual, so this is what the model says, not a measurement.
 *
 * Setup after TAPIOCA's evaluation (Tessier, Vishwanath, Jeannot 2017, section 5.2;
 * shared/seeds/004): 16 ranks per node bound in rank order, every rank one block of a random
 * size from 0 to 2 MiB in rank order (the micro-benchmark), a fixed ratio of aggregators, I/O
 * nodes reached through bridge positions of a BG/Q-like torus (1 I/O node per 64 or 128 nodes).
 * The romio strategy splits the data into file domains (TAPIOCA's partitions), then each policy
 * elects the aggregators. For every plan the model gives each domain's C1 + C2 (C1: the slowest
 * sender into the aggregator; C2: the aggregator to its I/O node); the aggregation round ends
 * with the slowest domain, so the table reports the maximum, and the mean, over domains,
 * averaged over seeds.
 *
 * Usage: mcio-placement-cost [--seeds N] [--latency S] [--bandwidth B]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcio_placement.h"
#include "mcio_planner.h"
#include "mcio_splitmix64.h"

typedef struct config {
    int ranks, per_node, aggs;
    const char *grid; /* the topology file's grid line */
    const char *io;   /* its io lines */
} config;

static const config configs[] = {
    /* 64 nodes, a 4 x 4 x 4 torus, one I/O node (bridge at the origin), 16 aggregators. */
    {1024, 16, 16, "grid 4:torus 4:torus 4:torus\n", "io 0 0 0\n"},
    /* 1,024 nodes, a 4^5 torus (BG/Q's five dimensions), 8 I/O nodes, 256 aggregators. */
    {16384, 16, 256, "grid 4:torus 4:torus 4:torus 4:torus 4:torus\n",
     "io 0 0 0 0 0\nio 0 0 0 0 2\nio 0 0 0 2 0\nio 0 0 0 2 2\n"
     "io 2 2 2 0 0\nio 2 2 2 0 2\nio 2 2 2 2 0\nio 2 2 2 2 2\n"},
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int seeds = 10;
    double latency = 1e-6, bandwidth = 1.8e9; /* BG/Q-like link: 2 GB/s raw */
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--seeds") == 0)
            seeds = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--latency") == 0)
            latency = atof(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--bandwidth") == 0)
            bandwidth = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--seeds N] [--latency S] [--bandwidth B]\n", argv[0]);
            return 2;
        }
    }
    if (seeds < 1 || latency <= 0 || bandwidth <= 0) {
        fprintf(stderr, "%s: --seeds, --latency and --bandwidth must be positive\n", argv[0]);
        return 2;
    }
    printf("# model: l = %g s/hop, B = %g B/s, blocks of 0..2 MiB, %d seeds; cost of a plan = "
           "max (mean) over domains of C1 + C2, in ms\n",
           latency, bandwidth, seeds);
    printf("%-6s %-6s %-5s %-9s %12s %12s %10s %10s %10s\n", "ranks", "nodes", "aggs", "policy",
           "max_ms", "mean_ms", "vs_topo", "mean_dIO", "plan_ms");
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        const config *cf = &configs[c];
        int n = cf->ranks, nnodes = n / cf->per_node;
        char text[1024];
        snprintf(text, sizeof text, "%s%slatency %g\nbandwidth %g\n", cf->grid, cf->io, latency,
                 bandwidth);
        mcio_network net;
        char why[MCIO_DETAIL_LEN];
        if (mcio_network_parse(text, "built-in torus", &net, why) != MCIO_SUCCESS) {
            fprintf(stderr, "%s\n", why);
            return 1;
        }
        int *node = malloc((size_t)n * sizeof(int)), *sock = calloc((size_t)n, sizeof(int));
        mcio_summary *sum = malloc((size_t)n * sizeof *sum);
        if (!node || !sock || !sum)
            return 1;
        for (int r = 0; r < n; r++)
            node[r] = r / cf->per_node;
        mcio_topology topo = {.nprocs = n, .nnodes = nnodes, .node_of_rank = node,
                              .socket_of_rank = sock, .sockets_per_node = 1, .net = &net};
        double topo_max = 0;
        for (int p = MCIO_PLACE_SPREAD; p < MCIO_PLACE_COUNT; p++) {
            /* topology first, so that the others can be shown relative to it */
            int policy = p == MCIO_PLACE_SPREAD ? MCIO_PLACE_TOPOLOGY
                         : p == MCIO_PLACE_TOPOLOGY ? MCIO_PLACE_SPREAD
                                                    : p;
            double tmax = 0, tmean = 0, dio = 0, tplan = 0;
            for (int s = 0; s < seeds; s++) {
                uint64_t st = 1000 + (uint64_t)s;
                int64_t off = 0;
                for (int r = 0; r < n; r++) {
                    int64_t len = (int64_t)(splitmix64(&st) % ((2 << 20) + 1));
                    sum[r] = (mcio_summary){off, off + len, len};
                    off += len;
                }
                mcio_planner_params params = {.buffer_size = 16 << 20, .cb_nodes = cf->aggs,
                                           .stripe = 0, .cb = MCIO_CB_ENABLE,
                                           .placement = policy, .socket_rule = 0};
                mcio_fdplan plan;
                double t0 = now();
                if (mcio_planner_make(mcio_planner_find("romio"), &topo, sum, params, &plan) !=
                    MCIO_SUCCESS) {
                    fprintf(stderr, "planning failed\n");
                    return 1;
                }
                tplan += now() - t0;
                double mx = 0, mean = 0, d = 0;
                for (int k = 0; k < plan.ndomains; k++) {
                    mcio_agg_info info;
                    if (mcio_place_describe(&topo, sum, plan.fd_start[k], plan.fd_end[k],
                                            plan.agg_rank[k], &info) != MCIO_SUCCESS)
                        return 1;
                    double cost = info.c1 + info.c2;
                    mx = cost > mx ? cost : mx;
                    mean += cost / plan.ndomains;
                    d += (double)info.io_hops / plan.ndomains;
                }
                tmax += mx / seeds;
                tmean += mean / seeds;
                dio += d / seeds;
                mcio_fdplan_free(&plan);
            }
            if (policy == MCIO_PLACE_TOPOLOGY)
                topo_max = tmax;
            printf("%-6d %-6d %-5d %-9s %12.4f %12.4f %9.2f%% %10.2f %10.2f\n", n, nnodes,
                   cf->aggs, mcio_placement_name(policy), tmax * 1e3, tmean * 1e3,
                   100.0 * (tmax - topo_max) / topo_max, dio, tplan / seeds * 1e3);
        }
        mcio_network_free(&net);
        free(node);
        free(sock);
        free(sum);
    }
    return 0;
}
