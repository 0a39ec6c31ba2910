/*
 * The romio strategy: classic two-phase I/O as ROMIO does it (Thakur, Gropp, Lusk, "Data
 * sieving and collective I/O in ROMIO", 1999; ADIOI_Calc_file_domains in ROMIO's
 * adio/common/ad_aggregate.c). The aggregate access region is split into as many equal file
 * domains as there are aggregators; with a stripe size, each boundary moves to the nearest
 * stripe multiple so that no two aggregators share a stripe (ROMIO's file-lock alignment).
 * Aggregators default to one per node, as ROMIO's cb_nodes does; domain i goes to the i-th
 * aggregator in rank order. Glossary in mcio_planner.h.
 */
#include <stdlib.h>

#include "mcio_planner.h"

int mcio_planner_choose_aggregators(int nprocs, const int *node_of_rank, int nnodes, int cb_nodes,
                                    int *aggs)
{
    int want = cb_nodes > 0 ? cb_nodes : nnodes;
    if (want > nprocs)
        want = nprocs;
    int *size = calloc((size_t)nnodes, sizeof(int));  /* ranks on each node */
    int *count = calloc((size_t)nnodes, sizeof(int)); /* aggregators on each node */
    if (!size || !count) {
        free(size);
        free(count);
        return 0;
    }
    for (int r = 0; r < nprocs; r++)
        size[node_of_rank[r]]++;
    if (want <= nnodes) {
        /* At most one per node: nodes spread evenly over the node list. */
        for (int i = 0; i < want; i++)
            count[(int)((int64_t)i * nnodes / want)] = 1;
    } else {
        /* Several per node: deal them out round-robin to nodes that have ranks left. */
        for (int placed = 0; placed < want;)
            for (int j = 0; j < nnodes && placed < want; j++)
                if (count[j] < size[j]) {
                    count[j]++;
                    placed++;
                }
    }
    /* Within a node, aggregators are spread evenly over its ranks (in rank order). */
    int n = 0;
    int *seen = calloc((size_t)nnodes, sizeof(int));
    if (!seen) {
        free(size);
        free(count);
        return 0;
    }
    for (int r = 0; r < nprocs; r++) {
        int j = node_of_rank[r], idx = seen[j]++;
        /* Pick local index floor(i * size / count) for i = 0..count-1. */
        for (int i = 0; i < count[j]; i++)
            if ((int)((int64_t)i * size[j] / count[j]) == idx) {
                aggs[n++] = r;
                break;
            }
    }
    free(seen);
    free(size);
    free(count);
    return n;
}

static int64_t nearest_multiple(int64_t x, int64_t unit)
{
    int64_t front = x % unit;
    if (front < unit - front || x > INT64_MAX - (unit - front))
        return x - front;
    return x + (unit - front);
}

int mcio_planner_romio(int nprocs, const mcio_summary *sum, const int *node_of_rank, int nnodes,
                       mcio_planner_params params, mcio_fdplan *plan)
{
    mcio_topology topo = {.nprocs = nprocs, .nnodes = nnodes, .node_of_rank = node_of_rank};
    return mcio_planner_romio_topo(&topo, sum, params, plan);
}

/* The aggregate access region [*lo, *hi): the first start and the last end of the ranks with
 * data (the merged spans' ends when given), both 0 when nobody accesses anything. */
static void access_region(const mcio_topology *topo, const mcio_summary *sum, int64_t *lo,
                          int64_t *hi)
{
    *lo = INT64_MAX, *hi = 0;
    if (topo->spans) {
        if (topo->spans->n > 0)
            *lo = topo->spans->iv[0], *hi = topo->spans->iv[2 * topo->spans->n - 1];
    } else {
        for (int r = 0; r < topo->nprocs; r++)
            if (sum[r].bytes > 0) {
                *lo = sum[r].start < *lo ? sum[r].start : *lo;
                *hi = sum[r].end > *hi ? sum[r].end : *hi;
            }
    }
    if (*lo == INT64_MAX) /* nobody accesses anything */
        *lo = *hi = 0;
}

int mcio_planner_romio_topo(const mcio_topology *topo, const mcio_summary *sum,
                            mcio_planner_params params, mcio_fdplan *plan)
{
    int *aggs = malloc((size_t)topo->nprocs * sizeof(int));
    if (!aggs)
        return MCIO_ERR_NOMEM;
    int naggs = mcio_planner_choose_aggregators(topo->nprocs, topo->node_of_rank, topo->nnodes,
                                                params.cb_nodes, aggs);
    if (naggs == 0 || mcio_fdplan_alloc(plan, naggs) != MCIO_SUCCESS) {
        free(aggs);
        return MCIO_ERR_NOMEM;
    }
    int64_t lo, hi;
    access_region(topo, sum, &lo, &hi);
    /* Ceiling division and boundaries computed so that nothing overflows near INT64_MAX. */
    int64_t region = hi - lo;
    int64_t fd_size = region / naggs + (region % naggs != 0);
    int64_t prev = lo;
    for (int i = 0; i < naggs; i++) {
        int64_t k = i + 1;
        int64_t end = (k == naggs || fd_size == 0 || k > region / fd_size) ? hi : lo + k * fd_size;
        if (params.stripe > 0 && i < naggs - 1)
            end = nearest_multiple(end, params.stripe);
        end = end < prev ? prev : end > hi ? hi : end;
        plan->agg_rank[i] = aggs[i];
        plan->fd_start[i] = prev;
        plan->fd_end[i] = end;
        prev = end;
    }
    free(aggs);
    int st = topo->spans ? mcio_fdplan_fill_rounds_spans(plan, topo->spans, params)
                         : mcio_fdplan_fill_rounds(plan, topo->nprocs, sum, params);
    if (st != MCIO_SUCCESS)
        mcio_fdplan_free(plan);
    return st;
}
