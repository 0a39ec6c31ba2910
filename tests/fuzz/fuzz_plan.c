/*
 * Fuzz target: the planners (src/core/plan): a machine (1-16 ranks on 1-16 nodes, optional memory
 * per node), hints (strategy romio or memory, cb_nodes, cb_buffer_size, striping_unit,
 * romio_cb_*, mcio_nah, mcio_msgind, mcio_msggroup, mcio_memmin) and each rank's access
 * (first byte, end, bytes), all decoded from the input, planned by mcio_planner_make. Properties,
 * for every plan that succeeds (a failure must be MCIO_ERR_ARG or MCIO_ERR_NOMEM, never a crash):
 *   - domains in file order and disjoint, each with one aggregator, no rank aggregating two;
 *   - every requested byte in exactly one domain's data region: each rank's [start, end) is
 *     covered once by the regions [win_start, win_end) (a rank's bytes lie in its span);
 *   - rounds = ceil(data region / window), max_rounds and max_buffer their maxima;
 *   - the memory strategy keeps each node's buffers within its memory, except on a node where
 *     it fell back (mcio_memplan.fallback), and at most mcio_nah aggregators per node.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_planner.h"

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint64_t take(reader *r, int bytes)
{
    uint64_t x = 0;
    for (int i = 0; i < bytes; i++) {
        x = x << 8 | (r->n ? *r->p : 0);
        if (r->n)
            r->p++, r->n--;
    }
    return x;
}

#define FAIL(...)                                                                             \
    do {                                                                                      \
        fprintf(stderr, __VA_ARGS__);                                                         \
        fputc('\n', stderr);                                                                  \
        __builtin_trap();                                                                     \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    int nprocs = 1 + (int)(take(&r, 1) % 16), nnodes = 1 + (int)(take(&r, 1) % (uint64_t)nprocs);
    int node_of_rank[16], socket_of_rank[16] = {0};
    int layout = (int)take(&r, 1) % 3;
    for (int i = 0; i < nprocs; i++)
        node_of_rank[i] = layout == 0 ? i * nnodes / nprocs
                        : layout == 1 ? i % nnodes
                                      : (i < nnodes ? i : (int)(take(&r, 1) % (uint64_t)nnodes));
    int memory = (int)take(&r, 1) % 2; /* the strategy */
    int64_t node_mem[16];
    int limited = (int)take(&r, 1) % 2;
    for (int j = 0; j < nnodes; j++)
        node_mem[j] = (int64_t)take(&r, 3);
    mcio_planner_params params = {0};
    params.buffer_size = 1 + (int64_t)take(&r, 3);
    params.cb_nodes = (int)(take(&r, 1) % 20);
    static const int64_t stripes[] = {0, 0, 1, 3, 64, 100, 4096, 65536};
    params.stripe = stripes[take(&r, 1) % 8];
    params.cb = (int)(take(&r, 1) % 3);
    params.nah = 1 + (int)(take(&r, 1) % 6);
    params.msgind = 1 + (int64_t)take(&r, 3);
    params.msggroup = 1 + (int64_t)take(&r, 4);
    params.memmin = (int64_t)take(&r, 3);
    mcio_summary sum[16];
    for (int i = 0; i < nprocs; i++) {
        int64_t start = (int64_t)take(&r, 3), len = (int64_t)take(&r, 2);
        int64_t bytes = len ? 1 + (int64_t)(take(&r, 2) % (uint64_t)len) : 0;
        sum[i] = (mcio_summary){.start = start, .end = start + len, .bytes = bytes};
    }
    /* At most ~1024 partition-tree leaves per input (msgind of a 1-byte leaf over a 16 MB
     * region would be millions): fast inputs, and the tree's shapes are all there at that size. */
    int64_t lo = INT64_MAX, hi = 0;
    for (int i = 0; i < nprocs; i++)
        if (sum[i].bytes > 0)
            lo = sum[i].start < lo ? sum[i].start : lo, hi = sum[i].end > hi ? sum[i].end : hi;
    if (hi > lo && params.msgind < (hi - lo) / 1024)
        params.msgind = (hi - lo) / 1024 + params.msgind % 64;
    mcio_topology topo = {.nprocs = nprocs,
                          .nnodes = nnodes,
                          .node_of_rank = node_of_rank,
                          .socket_of_rank = socket_of_rank,
                          .sockets_per_node = 1,
                          .node_mem = limited ? node_mem : NULL};
    mcio_fdplan p;
    memset(&p, 0, sizeof p);
    mcio_memplan d;
    memset(&d, 0, sizeof d);
    int st;
    int independent = 0;
    const mcio_planner *pl = mcio_planner_find(memory ? "memory" : "romio");
    if (!pl)
        FAIL("no planner");
    independent = mcio_planner_is_independent(pl, nprocs, sum, params);
    if (memory && !independent)
        st = mcio_planner_memory(&topo, sum, params, &p, &d); /* with its detail: fallbacks */
    else
        st = mcio_planner_make(pl, &topo, sum, params, &p);
    if (st != MCIO_SUCCESS) {
        if (st != MCIO_ERR_ARG && st != MCIO_ERR_NOMEM)
            FAIL("status %d", st);
        goto done;
    }
    int is_agg[16] = {0}, aggs[16] = {0};
    int64_t used[16] = {0}, max_buffer = 0;
    int max_rounds = 0;
    for (int k = 0; k < p.ndomains; k++) {
        if (p.fd_start[k] > p.fd_end[k] || (k > 0 && p.fd_start[k] < p.fd_end[k - 1]))
            FAIL("domain %d [%lld, %lld) not after the one before", k, (long long)p.fd_start[k],
                 (long long)p.fd_end[k]);
        int a = p.agg_rank[k];
        if (a < 0 || a >= nprocs || is_agg[a]++)
            FAIL("domain %d: aggregator %d", k, a);
        if (p.rounds[k] > 0) {
            if (p.win_start[k] < p.fd_start[k] || p.win_end[k] > p.fd_end[k] || p.window[k] < 1)
                FAIL("domain %d: data region outside the domain or no window", k);
            int64_t span = p.win_end[k] - p.win_start[k];
            if (p.rounds[k] != (span + p.window[k] - 1) / p.window[k])
                FAIL("domain %d: %d rounds for %lld bytes by %lld", k, p.rounds[k], (long long)span,
                     (long long)p.window[k]);
            max_buffer = span < p.window[k] ? (span > max_buffer ? span : max_buffer)
                                            : (p.window[k] > max_buffer ? p.window[k] : max_buffer);
        }
        max_rounds = p.rounds[k] > max_rounds ? p.rounds[k] : max_rounds;
        aggs[node_of_rank[a]]++;
        used[node_of_rank[a]] += mcio_fdplan_buffer(&p, k);
    }
    if (p.max_rounds != max_rounds || p.max_buffer != max_buffer)
        FAIL("max_rounds %d (%d), max_buffer %lld (%lld)", p.max_rounds, max_rounds,
             (long long)p.max_buffer, (long long)max_buffer);
    for (int i = 0; i < nprocs; i++) {
        if (sum[i].bytes == 0)
            continue;
        int64_t in = 0;
        for (int k = 0; k < p.ndomains; k++) {
            if (p.rounds[k] == 0)
                continue;
            int64_t a = sum[i].start > p.win_start[k] ? sum[i].start : p.win_start[k];
            int64_t b = sum[i].end < p.win_end[k] ? sum[i].end : p.win_end[k];
            in += b > a ? b - a : 0;
        }
        if (in != sum[i].end - sum[i].start)
            FAIL("rank %d: %lld of its span's %lld bytes in data regions", i, (long long)in,
                 (long long)(sum[i].end - sum[i].start));
    }
    if (memory && !independent) {
        int fell[16] = {0};
        for (int k = 0; k < p.ndomains; k++)
            fell[node_of_rank[p.agg_rank[k]]] |= d.fallback[k];
        for (int j = 0; j < nnodes; j++) {
            if (aggs[j] > params.nah && !fell[j])
                FAIL("node %d hosts %d aggregators, mcio_nah %d", j, aggs[j], params.nah);
            if (limited && !fell[j] && used[j] > node_mem[j])
                FAIL("node %d: buffers %lld over its memory %lld", j, (long long)used[j],
                     (long long)node_mem[j]);
        }
    }
done:
    if (memory && !independent)
        mcio_memplan_free(&d);
    mcio_fdplan_free(&p);
    return 0;
}
