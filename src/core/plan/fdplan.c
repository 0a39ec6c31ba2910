/*
 * What every planning strategy shares once it has placed its file domains and aggregators:
 * the data region of each domain, its rounds and its collective buffer. Pure.
 * Glossary in mcio_planner.h.
 */
#include <stdlib.h>
#include <string.h>

#include "mcio_planner.h"

/* The seven arrays in one block, the five of int64_t first (their alignment); fd_start is the
 * block's start. One allocation a plan, not seven: an independent call plans a domain per rank
 * every call. */
int mcio_fdplan_alloc(mcio_fdplan *plan, int n)
{
    memset(plan, 0, sizeof *plan);
    size_t m = n > 0 ? (size_t)n : 1;
    int64_t *b = calloc(m, 5 * sizeof(int64_t) + 2 * sizeof(int));
    if (!b)
        return MCIO_ERR_NOMEM;
    plan->ndomains = n;
    plan->fd_start = b;
    plan->fd_end = b + m;
    plan->win_start = b + 2 * m;
    plan->win_end = b + 3 * m;
    plan->window = b + 4 * m;
    plan->agg_rank = (int *)(b + 5 * m);
    plan->rounds = plan->agg_rank + m;
    return MCIO_SUCCESS;
}

void mcio_fdplan_free(mcio_fdplan *plan)
{
    free(plan->fd_start); /* the block (mcio_fdplan_alloc) */
    memset(plan, 0, sizeof *plan);
}

int mcio_fdplan_copy(const mcio_fdplan *src, mcio_fdplan *dst)
{
    if (mcio_fdplan_alloc(dst, src->ndomains) != MCIO_SUCCESS)
        return MCIO_ERR_NOMEM;
    size_t n = (size_t)(src->ndomains > 0 ? src->ndomains : 0);
    memcpy(dst->agg_rank, src->agg_rank, n * sizeof(int));
    memcpy(dst->rounds, src->rounds, n * sizeof(int));
    memcpy(dst->fd_start, src->fd_start, n * sizeof(int64_t));
    memcpy(dst->fd_end, src->fd_end, n * sizeof(int64_t));
    memcpy(dst->win_start, src->win_start, n * sizeof(int64_t));
    memcpy(dst->win_end, src->win_end, n * sizeof(int64_t));
    memcpy(dst->window, src->window, n * sizeof(int64_t));
    dst->max_rounds = src->max_rounds;
    dst->max_buffer = src->max_buffer;
    dst->fallbacks = src->fallbacks;
    dst->memory_conscious = src->memory_conscious;
    return MCIO_SUCCESS;
}

static int by_start(const void *a, const void *b)
{
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

int mcio_spans_build(int nprocs, const mcio_summary *sum, mcio_spans *s)
{
    int64_t *iv = malloc(((size_t)nprocs + 1) * 2 * sizeof(int64_t));
    s->iv = iv;
    s->n = 0;
    if (!iv)
        return MCIO_ERR_NOMEM;
    int64_t n = 0;
    for (int r = 0; r < nprocs; r++)
        if (sum[r].bytes > 0) {
            iv[2 * n] = sum[r].start;
            iv[2 * n + 1] = sum[r].end;
            n++;
        }
    qsort(iv, (size_t)n, 2 * sizeof(int64_t), by_start);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (m > 0 && iv[2 * i] <= iv[2 * m - 1]) {
            if (iv[2 * i + 1] > iv[2 * m - 1])
                iv[2 * m - 1] = iv[2 * i + 1];
            continue;
        }
        iv[2 * m] = iv[2 * i];
        iv[2 * m + 1] = iv[2 * i + 1];
        m++;
    }
    s->n = m;
    return MCIO_SUCCESS;
}

int mcio_spans_clip(const mcio_spans *s, int64_t fs, int64_t fe, int64_t *lo, int64_t *hi)
{
    const int64_t *iv = s->iv;
    /* First interval ending after fs, and last one starting before fe. */
    int64_t a = 0, b = s->n;
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        if (iv[2 * mid + 1] > fs)
            b = mid;
        else
            a = mid + 1;
    }
    int64_t first = a;
    a = 0, b = s->n;
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        if (iv[2 * mid] < fe)
            a = mid + 1;
        else
            b = mid;
    }
    int64_t last = a - 1;
    if (fs >= fe || first >= s->n || first > last)
        return 0;
    *lo = iv[2 * first] > fs ? iv[2 * first] : fs;
    *hi = iv[2 * last + 1] < fe ? iv[2 * last + 1] : fe;
    return 1;
}

void mcio_spans_free(mcio_spans *s)
{
    free(s->iv);
    s->iv = NULL;
    s->n = 0;
}

int64_t mcio_fdplan_domain_rounds(const mcio_spans *spans, int64_t fs, int64_t fe,
                                  int64_t *window, int64_t stripe, int64_t *lo, int64_t *hi)
{
    int64_t w = *window = mcio_fdplan_round_window(*window, stripe);
    if (!mcio_spans_clip(spans, fs, fe, lo, hi)) { /* nobody touches this domain */
        *lo = *hi = fs;
        return 0;
    }
    if (stripe > 0) { /* start rounds on a stripe boundary, inside the domain */
        int64_t al = *lo - *lo % stripe;
        *lo = al > fs ? al : fs;
    }
    int64_t span = *hi - *lo;
    return span / w + (span % w != 0); /* no overflow near INT64_MAX */
}

int mcio_fdplan_fill_rounds_spans(mcio_fdplan *plan, const mcio_spans *spans,
                                  mcio_planner_params params)
{
    plan->max_rounds = 0;
    plan->max_buffer = 0;
    for (int d = 0; d < plan->ndomains; d++) {
        if (plan->window[d] <= 0)
            plan->window[d] = params.buffer_size;
        int64_t rounds = mcio_fdplan_domain_rounds(spans, plan->fd_start[d], plan->fd_end[d],
                                                   &plan->window[d], params.stripe,
                                                   &plan->win_start[d], &plan->win_end[d]);
        if (rounds > INT32_MAX)
            return MCIO_ERR_ARG; /* the caller says: raise cb_buffer_size */
        plan->rounds[d] = (int)rounds;
        if (plan->rounds[d] > plan->max_rounds)
            plan->max_rounds = plan->rounds[d];
        int64_t buf = mcio_fdplan_buffer(plan, d);
        if (buf > plan->max_buffer)
            plan->max_buffer = buf;
    }
    return MCIO_SUCCESS;
}

int mcio_fdplan_fill_rounds(mcio_fdplan *plan, int nprocs, const mcio_summary *sum,
                            mcio_planner_params params)
{
    mcio_spans spans;
    if (mcio_spans_build(nprocs, sum, &spans) != MCIO_SUCCESS)
        return MCIO_ERR_NOMEM;
    int st = mcio_fdplan_fill_rounds_spans(plan, &spans, params);
    mcio_spans_free(&spans);
    return st;
}

int mcio_fdplan_find(const mcio_fdplan *plan, int64_t off)
{
    int lo = 0, hi = plan->ndomains - 1, found = -1;
    while (lo <= hi) { /* last domain starting at or before off */
        int mid = lo + (hi - lo) / 2;
        if (plan->fd_start[mid] <= off) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    /* Domains are sorted and disjoint: only the last one starting at or before off can hold it. */
    return found >= 0 && off < plan->fd_end[found] ? found : -1;
}

int mcio_fdplan_first_after(const mcio_fdplan *plan, int64_t off)
{
    int lo = 0, hi = plan->ndomains;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (plan->fd_end[mid] <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t mcio_fdplan_rounds_met(const mcio_fdplan *plan, int d, int64_t s, int64_t e)
{
    int64_t lo = s > plan->win_start[d] ? s : plan->win_start[d];
    int64_t hi = e < plan->win_end[d] ? e : plan->win_end[d];
    if (plan->rounds[d] == 0 || hi <= lo || plan->window[d] <= 0)
        return 0;
    return (hi - 1 - plan->win_start[d]) / plan->window[d] -
           (lo - plan->win_start[d]) / plan->window[d] + 1;
}
