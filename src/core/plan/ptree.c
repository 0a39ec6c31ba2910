/*
 * The memory strategy's data structures (memory.c holds the strategy and its design note):
 * the requested bytes per region (mcio_reqmap), the aggregation groups (section 3.1, Fig. 5)
 * and the partition tree with its remerging (sections 3.2-3.3, Figs. 6-8) of Y. Wang et al.,
 * "Memory-conscious collective I/O for extreme scale HPC systems". The glossary is memory.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memory_internal.h"
#include "mcio_planner.h"

/* ---- Requested bytes ---- */

typedef struct event {
    int64_t x;
    double dslope;
} event;

/* A total order, so that the sums below do not depend on how qsort orders equal keys. */
static int by_x(const void *a, const void *b)
{
    const event *e = a, *f = b;
    if (e->x != f->x)
        return (e->x > f->x) - (e->x < f->x);
    return (e->dslope > f->dslope) - (e->dslope < f->dslope);
}

int mcio_reqmap_build(int nprocs, const mcio_summary *sum, mcio_reqmap *m)
{
    memset(m, 0, sizeof *m);
    event *ev = malloc(((size_t)nprocs + 1) * 2 * sizeof *ev);
    m->x = malloc(((size_t)nprocs + 1) * 2 * sizeof(int64_t));
    m->f = malloc(((size_t)nprocs + 1) * 2 * sizeof(double));
    m->slope = malloc(((size_t)nprocs + 1) * 2 * sizeof(double));
    if (!ev || !m->x || !m->f || !m->slope) {
        free(ev);
        mcio_reqmap_free(m);
        return MCIO_ERR_NOMEM;
    }
    int64_t ne = 0;
    for (int r = 0; r < nprocs; r++)
        if (sum[r].bytes > 0 && sum[r].end > sum[r].start) {
            double d = (double)sum[r].bytes / (double)(sum[r].end - sum[r].start);
            ev[ne++] = (event){sum[r].start, d};
            ev[ne++] = (event){sum[r].end, -d};
        }
    qsort(ev, (size_t)ne, sizeof *ev, by_x);
    double f = 0, slope = 0;
    for (int64_t i = 0; i < ne; i++) {
        if (m->n > 0) {
            f += slope * (double)(ev[i].x - m->x[m->n - 1]);
            if (m->x[m->n - 1] == ev[i].x)
                m->n--; /* same breakpoint: accumulate its slope change */
        }
        slope += ev[i].dslope;
        m->x[m->n] = ev[i].x;
        m->f[m->n] = f;
        m->slope[m->n] = slope;
        m->n++;
    }
    /* Sums of densities that cancel leave rounding dust; past the last span the slope is 0. */
    for (int64_t i = 0; i < m->n; i++)
        if (fabs(m->slope[i]) < 1e-12)
            m->slope[i] = 0;
    free(ev);
    return MCIO_SUCCESS;
}

static double reqmap_f(const mcio_reqmap *m, int64_t x)
{
    int64_t a = 0, b = m->n; /* last breakpoint <= x */
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        if (m->x[mid] <= x)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == 0)
        return 0;
    return m->f[a - 1] + m->slope[a - 1] * (double)(x - m->x[a - 1]);
}

int64_t mcio_reqmap_bytes(const mcio_reqmap *m, int64_t a, int64_t b)
{
    if (b <= a)
        return 0;
    double v = reqmap_f(m, b) - reqmap_f(m, a);
    return v <= 0 ? 0 : (int64_t)llround(v);
}

void mcio_reqmap_free(mcio_reqmap *m)
{
    free(m->x);
    free(m->f);
    free(m->slope);
    memset(m, 0, sizeof *m);
}

/* ---- Aggregation groups (Fig. 5) ---- */

typedef struct node_span {
    int64_t start, end, bytes;
} node_span;

static int by_span_start(const void *a, const void *b)
{
    const node_span *x = a, *y = b;
    if (x->start != y->start)
        return (x->start > y->start) - (x->start < y->start);
    return (x->end > y->end) - (x->end < y->end);
}

int mcio_memplan_groups(int nprocs, const mcio_summary *sum, const int *node_of_rank, int nnodes,
                        int64_t msggroup, mcio_aggr_groups *g)
{
    int st = MCIO_SUCCESS;
    memset(g, 0, sizeof *g);
    node_span *ns = malloc(((size_t)nnodes + 1) * sizeof *ns);
    if (!ns)
        return MCIO_ERR_NOMEM;
    for (int j = 0; j < nnodes; j++)
        ns[j] = (node_span){INT64_MAX, INT64_MIN, 0};
    for (int r = 0; r < nprocs; r++) {
        if (sum[r].bytes <= 0)
            continue;
        node_span *s = &ns[node_of_rank[r]];
        s->start = min64(s->start, sum[r].start);
        s->end = max64(s->end, sum[r].end);
        s->bytes += sum[r].bytes;
    }
    int n = 0; /* nodes with data, sorted by their first byte */
    for (int j = 0; j < nnodes; j++)
        if (ns[j].bytes > 0)
            ns[n++] = ns[j];
    qsort(ns, (size_t)n, sizeof *ns, by_span_start);
    g->start = malloc(((size_t)n + 1) * sizeof(int64_t));
    g->end = malloc(((size_t)n + 1) * sizeof(int64_t));
    g->bytes = malloc(((size_t)n + 1) * sizeof(int64_t));
    if (!g->start || !g->end || !g->bytes) {
        st = MCIO_ERR_NOMEM;
        goto fail;
    }
    /*
     * A group may end only between clusters of nodes whose spans overlap: a boundary inside a
     * node's span would have that node serve two groups. The group that reaches msggroup bytes
     * inside a cluster is extended to the cluster's end, the last byte of the last process of
     * the node it ends in.
     */
    for (int i = 0; i < n;) {
        int64_t gs = ns[i].start, ge = ns[i].end, bytes = 0;
        for (; i < n && !(bytes >= msggroup && ns[i].start >= ge); i++) {
            ge = max64(ge, ns[i].end);
            bytes += ns[i].bytes;
        }
        g->start[g->n] = gs;
        g->end[g->n] = ge;
        g->bytes[g->n] = bytes;
        g->n++;
    }
fail:
    free(ns);
    if (st != MCIO_SUCCESS)
        mcio_aggr_groups_free(g);
    return st;
}

void mcio_aggr_groups_free(mcio_aggr_groups *g)
{
    free(g->start);
    free(g->end);
    free(g->bytes);
    memset(g, 0, sizeof *g);
}

/* ---- The partition tree (Figs. 6-8) ---- */

static int ptree_add(mcio_ptree *t, int64_t start, int64_t end, int64_t bytes, int parent, int group)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        mcio_ptree_vertex *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n] = (mcio_ptree_vertex){.start = start, .end = end, .bytes = bytes, .parent = parent,
                                     .left = -1, .right = -1, .group = group, .alive = 1};
    return t->n++;
}

/* Where to bisect [s, e): its middle, or the stripe multiple nearest to it; -1: cannot split. */
static int64_t split_point(int64_t s, int64_t e, int64_t stripe)
{
    int64_t mid = s + (e - s) / 2;
    if (stripe > 0) {
        int64_t down = mid - mid % stripe, up = down + stripe;
        mid = (mid - down <= up - mid || up >= e) ? down : up;
        if (mid <= s)
            mid = up;
    }
    return mid > s && mid < e ? mid : -1;
}

int mcio_ptree_build(const mcio_reqmap *m, const mcio_aggr_groups *g, int64_t msgind,
                     int64_t stripe, mcio_ptree *t)
{
    memset(t, 0, sizeof *t);
    t->ngroups = g->n;
    t->root = malloc(((size_t)g->n + 1) * sizeof(int));
    int *stack = NULL;
    int cap = 0, top = 0;
    if (!t->root)
        goto nomem;
    for (int k = 0; k < g->n; k++) {
        int root = ptree_add(t, g->start[k], g->end[k], mcio_reqmap_bytes(m, g->start[k], g->end[k]),
                             -1, k);
        if (root < 0)
            goto nomem;
        t->root[k] = root;
        top = 0;
        /* Depth first, left subtree first; a split's two children are numbered together. */
        for (int v = root;;) {
            int64_t s = t->v[v].start, e = t->v[v].end, mid;
            if (t->v[v].bytes > msgind && (mid = split_point(s, e, stripe)) >= 0) {
                int l = ptree_add(t, s, mid, mcio_reqmap_bytes(m, s, mid), v, k);
                int r = l < 0 ? -1 : ptree_add(t, mid, e, mcio_reqmap_bytes(m, mid, e), v, k);
                if (r < 0)
                    goto nomem;
                t->v[v].left = l;
                t->v[v].right = r;
                if (top == cap) {
                    cap = cap ? 2 * cap : 64;
                    int *s2 = realloc(stack, (size_t)cap * sizeof(int));
                    if (!s2)
                        goto nomem;
                    stack = s2;
                }
                stack[top++] = r;
                v = l;
                continue;
            }
            if (top == 0)
                break;
            v = stack[--top];
        }
    }
    free(stack);
    return MCIO_SUCCESS;
nomem:
    free(stack);
    mcio_ptree_free(t);
    return MCIO_ERR_NOMEM;
}

int mcio_ptree_next_leaf(const mcio_ptree *t, int leaf)
{
    int v = leaf;
    for (int p = t->v[v].parent; p >= 0; v = p, p = t->v[p].parent)
        if (t->v[p].left == v)
            return leftmost_leaf(t, t->v[p].right);
    return -1;
}

int mcio_ptree_leaves(const mcio_ptree *t, int g, int *out)
{
    int n = 0;
    for (int v = leftmost_leaf(t, t->root[g]); v >= 0; v = mcio_ptree_next_leaf(t, v), n++)
        if (out)
            out[n] = v;
    return n;
}

int mcio_ptree_remerge(mcio_ptree *t, int a, int *taker)
{
    mcio_ptree_vertex *v = t->v;
    int p = v[a].parent;
    if (p < 0)
        return -1;
    int a_is_left = v[p].left == a, b = a_is_left ? v[p].right : v[p].left;
    v[a].alive = 0;
    if (v[b].left < 0) { /* case 1 (Fig. 8a): the sibling is a leaf; the parent becomes one */
        *taker = b;
        v[b].alive = 0;
        v[p].left = v[p].right = -1;
        return p;
    }
    /* Case 2 (Fig. 8b): depth-first search in the sibling's subtree for the leaf next to a. */
    int c = a_is_left ? leftmost_leaf(t, b) : rightmost_leaf(t, b);
    *taker = c;
    int gp = v[p].parent; /* the sibling takes the parent's place */
    v[b].parent = gp;
    if (gp < 0)
        t->root[v[p].group] = b;
    else if (v[gp].left == p)
        v[gp].left = b;
    else
        v[gp].right = b;
    v[p].alive = 0;
    for (int u = c;; u = v[u].parent) { /* the path from b to c now covers a's region too */
        if (a_is_left)
            v[u].start = v[a].start;
        else
            v[u].end = v[a].end;
        v[u].bytes += v[a].bytes;
        if (u == b)
            break;
    }
    return c;
}

void mcio_ptree_free(mcio_ptree *t)
{
    free(t->v);
    free(t->root);
    memset(t, 0, sizeof *t);
}
