/*
 * Independent access inside a collective call: when the ranks' accessed regions do not
 * interleave (each rank's data lies in a stretch of the file no other rank touches), two-phase
 * I/O would only copy every byte once more. ROMIO then falls back to independent I/O
 * (romio_cb_write / romio_cb_read = automatic, its default; ADIOI_GEN_WriteStridedColl).
 * Here the same thing is a plan: each rank with data is the aggregator of its own region, so
 * the engine's rounds, hole handling and error agreement apply unchanged, and the executor
 * moves the bytes straight between user memory and the file. Glossary in mcio_planner.h.
 */
#include <stdlib.h>

#include "mcio_planner.h"

typedef struct start_rank {
    int64_t start;
    int rank;
} start_rank;

static int cmp_start(const void *a, const void *b)
{
    const start_rank *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The ranks with data, by first byte; *n of them. NULL when out of memory. */
static start_rank *by_start(int nprocs, const mcio_summary *sum, int *n)
{
    start_rank *v = malloc(((size_t)nprocs + 1) * sizeof *v);
    if (!v)
        return NULL;
    int m = 0, sorted = 1;
    for (int r = 0; r < nprocs; r++)
        if (sum[r].bytes > 0) {
            v[m] = (start_rank){sum[r].start, r};
            sorted = sorted && (m == 0 || cmp_start(&v[m - 1], &v[m]) < 0);
            m++;
        }
    if (!sorted)
        qsort(v, (size_t)m, sizeof *v, cmp_start);
    *n = m;
    return v;
}

int mcio_planner_interleaved(int nprocs, const mcio_summary *sum)
{
    int n = 0;
    start_rank *v = by_start(nprocs, sum, &n);
    if (!v)
        return 1; /* cannot tell: aggregate, which is always correct */
    int inter = 0;
    for (int i = 1; i < n && !inter; i++)
        inter = v[i].start < sum[v[i - 1].rank].end;
    free(v);
    return inter;
}

int mcio_planner_independent(int nprocs, const mcio_summary *sum, mcio_planner_params params,
                             mcio_fdplan *plan)
{
    int n = 0;
    start_rank *v = by_start(nprocs, sum, &n);
    if (!v || mcio_fdplan_alloc(plan, n) != MCIO_SUCCESS) {
        free(v);
        return MCIO_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        plan->agg_rank[i] = v[i].rank;
        plan->fd_start[i] = v[i].start;
        plan->fd_end[i] = sum[v[i].rank].end;
    }
    free(v);
    /* Each rank's rounds are its own: no stripe alignment is needed between ranks that never
     * share a domain, and aligning would widen a domain into its neighbour's. */
    params.stripe = 0;
    int st = mcio_fdplan_fill_rounds(plan, nprocs, sum, params);
    if (st != MCIO_SUCCESS)
        mcio_fdplan_free(plan);
    return st;
}

int mcio_planner_own(int nprocs, const mcio_summary *sum, mcio_fdplan *fd)
{
    int n = 0;
    for (int r = 0; r < nprocs; r++)
        n += sum[r].bytes > 0;
    if (mcio_fdplan_alloc(fd, n) != MCIO_SUCCESS)
        return MCIO_ERR_NOMEM;
    for (int r = 0, d = 0; r < nprocs; r++)
        if (sum[r].bytes > 0) {
            fd->agg_rank[d] = r;
            fd->fd_start[d] = sum[r].start;
            fd->fd_end[d++] = sum[r].end;
        }
    return MCIO_SUCCESS;
}
