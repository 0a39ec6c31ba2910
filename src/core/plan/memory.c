/*
 * The memory strategy: memory-conscious collective I/O (Y. Wang et al., "Memory-conscious
 * collective I/O for extreme scale HPC systems", section 3, Figs. 5-9; the short version has
 * the same design). Classic two-phase I/O puts one aggregator with a fixed buffer on every
 * node, whatever memory the node has left. Here the file domains follow the data (a partition
 * tree per aggregation group) and the aggregators follow the memory (the candidate node with
 * the most memory left), and a domain whose nodes are all short of memory is remerged with a
 * neighbour until some node can host it.
 *
 * Glossary, in the paper's words:
 *   aggregation group  a part of the aggregate access region whose data exchange stays inside
 *                      it; no node's processes serve two groups (section 3.1, Fig. 5)
 *   partition tree     per group, a binary tree whose root is the group's region; a vertex with
 *                      more than Msgind requested bytes is bisected (section 3.2, Figs. 6-7)
 *   file domain        a leaf of the partition tree; one aggregator reads or writes it
 *   aggregator         the process that gathers a file domain's data and accesses the file; here
 *                      one that requests bytes in the domain, on the chosen node
 *   remerging          a leaf whose candidate nodes lack memory leaves the tree and a
 *                      neighbouring leaf takes over its region (section 3.3, Fig. 8)
 *   round              one fill and flush of an aggregator's collective buffer; a call lasts
 *                      as long as its busiest aggregator's rounds
 *   Msggroup           requested bytes per aggregation group, about (hint mcio_msggroup)
 *   Msgind             requested bytes per file domain, at most (hint mcio_msgind)
 *   Nah                most aggregators one node hosts (hint mcio_nah)
 *   Memavl             memory a node has left for collective buffers (machine description)
 *   Memmin             least Memavl a node must have to host an aggregator (hint mcio_memmin)
 *
 * The planner sees summaries only (first byte, end, bytes per rank), so "requested bytes" in a
 * region are estimated by spreading each rank's bytes over its span (mcio_reqmap); holes between
 * ranks never count. A rank "touches" a domain when its span meets it.
 *
 * Aggregators' location (section 3.4, Fig. 9) walks each group's leaves in file order. The
 * candidates of a domain are the nodes with fewer than Nah aggregators and a process that
 * touches the domain and aggregates nothing yet (so no process aggregates two domains, which
 * the engine relies on). A sweep over the ranks sorted by start and by end keeps, per node, the
 * number of such processes, and a max-tree over the nodes gives the candidate with the most
 * Memavl in O(log nodes), so 100,000 ranks plan in milliseconds even when every rank touches
 * every domain (interleaved patterns). The domain's buffer is min(its data span, Msgind,
 * cb_buffer_size, Memavl), taken from the node's Memavl: cb_buffer_size keeps ROMIO's meaning
 * (the most an aggregator holds per round), so a domain larger than it takes several rounds.
 * One round of a whole 32 MiB domain (the paper's Msgind) ran at a third of the bandwidth of
 * two 16 MiB rounds here, the bigger buffer costing more than the extra round. When the last
 * leaf of a group cannot be located, the fallback takes the candidate with the most memory and
 * the smallest workable buffer.
 *
 * Not in the paper: remerging hands a starved leaf to whichever neighbour the tree's shape
 * gives, so a group whose nodes ran out of memory folds all its remaining leaves into one
 * domain, whose aggregator then runs a hundred rounds while the others run a few. After
 * location each group is re-cut, domains in proportion to their buffers, when that lowers the
 * group's most rounds (balance_group).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memory_internal.h"
#include "mcio_planner.h"

/* The smallest collective buffer the fallback gives: below it each round costs more in
 * synchronisation than it moves. */
#define MCIO_MEMORY_MIN_BUFFER ((int64_t)64 * 1024)

/* ---- Aggregators' location (Fig. 9) ---- */

/*
 * The sweep: a rank is active when its span meets the current window [a, b), that is when
 * start < b (a prefix of the ranks sorted by start) and not end <= a (a prefix of the ranks
 * sorted by end). Per node, free[] counts the active ranks that aggregate nothing yet; the
 * max-tree holds each node's Memavl when it is a candidate (a free rank, fewer than Nah
 * aggregators), else -1.
 */
typedef struct locator {
    const mcio_summary *sum;
    const int *node_of_rank;
    int nnodes, nah, nr;
    int *by_start, *by_end; /* ranks with data */
    int ps, pe;             /* prefix lengths */
    char *in_s, *in_e, *is_agg;
    int *nfree;             /* [nnodes] */
    int *naggs;             /* [nnodes] */
    int64_t *memavl;        /* [nnodes] */
    int size;               /* leaves of the max-tree: a power of two >= nnodes */
    int *best;              /* [2 * size] node with the largest key in the subtree, or -1 */
    int *node_first, *node_ranks; /* the ranks of each node, ascending (CSR) */
} locator;

static int64_t node_key(const locator *L, int j)
{
    return L->nfree[j] > 0 && L->naggs[j] < L->nah ? L->memavl[j] : -1;
}

static void node_update(locator *L, int j)
{
    int i = L->size + j;
    L->best[i] = node_key(L, j) >= 0 ? j : -1;
    for (i /= 2; i >= 1; i /= 2) {
        int x = L->best[2 * i], y = L->best[2 * i + 1];
        /* The most memory; on a tie the lower node, so the plan does not depend on the order. */
        if (x < 0 || (y >= 0 && node_key(L, y) > node_key(L, x)))
            x = y;
        L->best[i] = x;
    }
}

static void rank_toggle(locator *L, int r, int was_active)
{
    int now = L->in_s[r] && !L->in_e[r];
    if (now != was_active && !L->is_agg[r]) {
        L->nfree[L->node_of_rank[r]] += now ? 1 : -1;
        node_update(L, L->node_of_rank[r]);
    }
}

static void set_window(locator *L, int64_t a, int64_t b)
{
    const mcio_summary *s = L->sum;
    while (L->ps < L->nr && s[L->by_start[L->ps]].start < b) {
        int r = L->by_start[L->ps++], was = L->in_s[r] && !L->in_e[r];
        L->in_s[r] = 1;
        rank_toggle(L, r, was);
    }
    while (L->ps > 0 && s[L->by_start[L->ps - 1]].start >= b) {
        int r = L->by_start[--L->ps], was = L->in_s[r] && !L->in_e[r];
        L->in_s[r] = 0;
        rank_toggle(L, r, was);
    }
    while (L->pe < L->nr && s[L->by_end[L->pe]].end <= a) {
        int r = L->by_end[L->pe++], was = L->in_s[r] && !L->in_e[r];
        L->in_e[r] = 1;
        rank_toggle(L, r, was);
    }
    while (L->pe > 0 && s[L->by_end[L->pe - 1]].end > a) {
        int r = L->by_end[--L->pe], was = L->in_s[r] && !L->in_e[r];
        L->in_e[r] = 0;
        rank_toggle(L, r, was);
    }
}

static void set_aggregator(locator *L, int r, int is_agg, int64_t grant)
{
    int j = L->node_of_rank[r], active = L->in_s[r] && !L->in_e[r];
    L->is_agg[r] = (char)is_agg;
    if (active)
        L->nfree[j] += is_agg ? -1 : 1;
    L->naggs[j] += is_agg ? 1 : -1;
    L->memavl[j] += is_agg ? -grant : grant;
    node_update(L, j);
}

/* The process of node j that aggregates [a, b): the free active one with the most requested
 * bytes in it (estimated), the lowest rank on a tie. */
static int pick_rank(const locator *L, int j, int64_t a, int64_t b)
{
    int bestr = -1;
    double bestv = -1;
    for (int i = L->node_first[j]; i < L->node_first[j + 1]; i++) {
        int r = L->node_ranks[i];
        const mcio_summary *s = &L->sum[r];
        if (L->is_agg[r] || s->bytes <= 0 || s->start >= b || s->end <= a)
            continue;
        double v = (double)(min64(s->end, b) - max64(s->start, a)) * (double)s->bytes /
                   (double)(s->end - s->start);
        if (v > bestv) {
            bestv = v;
            bestr = r;
        }
    }
    return bestr;
}

typedef struct keyed {
    int64_t key;
    int rank;
} keyed;

static int by_key(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key)
        return (a->key > b->key) - (a->key < b->key);
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The ranks with data in order of start (end_key 0) or of end (1), ties by rank. */
static int sort_ranks(const mcio_summary *sum, int nprocs, int end_key, int *out)
{
    keyed *k = malloc(((size_t)nprocs + 1) * sizeof *k);
    if (!k)
        return -1;
    int n = 0;
    for (int r = 0; r < nprocs; r++)
        if (sum[r].bytes > 0)
            k[n++] = (keyed){end_key ? sum[r].end : sum[r].start, r};
    qsort(k, (size_t)n, sizeof *k, by_key);
    for (int i = 0; i < n; i++)
        out[i] = k[i].rank;
    free(k);
    return n;
}

static void locator_free(locator *L)
{
    free(L->by_start);
    free(L->by_end);
    free(L->in_s);
    free(L->in_e);
    free(L->is_agg);
    free(L->nfree);
    free(L->naggs);
    free(L->memavl);
    free(L->best);
    free(L->node_first);
    free(L->node_ranks);
}

static int locator_init(locator *L, const mcio_topology *topo, const mcio_summary *sum, int nah)
{
    int n = topo->nprocs, nn = topo->nnodes;
    memset(L, 0, sizeof *L);
    L->sum = sum;
    L->node_of_rank = topo->node_of_rank;
    L->nnodes = nn;
    L->nah = nah;
    for (L->size = 1; L->size < nn; L->size *= 2)
        ;
    L->by_start = malloc(((size_t)n + 1) * sizeof(int));
    L->by_end = malloc(((size_t)n + 1) * sizeof(int));
    L->in_s = calloc((size_t)n + 1, 1);
    L->in_e = calloc((size_t)n + 1, 1);
    L->is_agg = calloc((size_t)n + 1, 1);
    L->nfree = calloc((size_t)nn + 1, sizeof(int));
    L->naggs = calloc((size_t)nn + 1, sizeof(int));
    L->memavl = malloc(((size_t)nn + 1) * sizeof(int64_t));
    L->best = malloc(2 * (size_t)L->size * sizeof(int));
    L->node_first = calloc((size_t)nn + 2, sizeof(int));
    L->node_ranks = malloc(((size_t)n + 1) * sizeof(int));
    if (!L->by_start || !L->by_end || !L->in_s || !L->in_e || !L->is_agg || !L->nfree ||
        !L->naggs || !L->memavl || !L->best || !L->node_first || !L->node_ranks) {
        locator_free(L);
        return MCIO_ERR_NOMEM;
    }
    L->nr = sort_ranks(sum, n, 0, L->by_start);
    if (L->nr < 0 || sort_ranks(sum, n, 1, L->by_end) < 0) {
        locator_free(L);
        return MCIO_ERR_NOMEM;
    }
    for (int j = 0; j < nn; j++) {
        int64_t mem = topo->node_mem ? topo->node_mem[j] : INT64_MAX;
        L->memavl[j] = mem < 0 ? 0 : mem;
    }
    for (int r = 0; r < n; r++)
        L->node_first[topo->node_of_rank[r] + 1]++;
    for (int j = 0; j < nn; j++)
        L->node_first[j + 1] += L->node_first[j];
    int *fill = L->nfree; /* still zero: borrowed as the fill cursor, then cleared */
    for (int r = 0; r < n; r++) {
        int j = topo->node_of_rank[r];
        L->node_ranks[L->node_first[j] + fill[j]++] = r;
    }
    memset(L->nfree, 0, ((size_t)nn + 1) * sizeof(int));
    for (int i = 0; i < 2 * L->size; i++)
        L->best[i] = -1;
    return MCIO_SUCCESS;
}

/* Per-vertex location: the aggregator (-1 none), the memory it reserved, whether by fallback. */
typedef struct located {
    int rank;
    int fallback;
    int64_t grant;
} located;

/*
 * Locate leaf v; returns 1 when located, 0 when no candidate can host it (remerge). With
 * fallback set, the best node that has a free process hosts it whatever its memory.
 */
static int locate(locator *L, const mcio_spans *spans, mcio_ptree_vertex *v, located *loc,
                  mcio_planner_params p, int fallback)
{
    int64_t lo, hi;
    set_window(L, v->start, v->end);
    int j = L->best[1];
    if (j < 0 && fallback) { /* Nah reached everywhere: should not happen in a lone leaf */
        for (int k = 0; k < L->nnodes; k++)
            if (L->nfree[k] > 0 && (j < 0 || L->memavl[k] > L->memavl[j]))
                j = k;
    }
    if (j < 0 || !mcio_spans_clip(spans, v->start, v->end, &lo, &hi))
        return 0;
    /* A buffer below need would take more than 2^31 - 1 rounds (or below Memmin, or nothing). */
    int64_t want = min64(min64(hi - lo, p.msgind), p.buffer_size > 0 ? p.buffer_size : INT64_MAX),
            avl = L->memavl[j];
    int64_t need = max64(max64(1, min64(p.memmin, want)), (hi - lo) / INT32_MAX + 1);
    int64_t grant = min64(want, avl);
    int short_of_memory = avl < need;
    if (short_of_memory) {
        if (!fallback)
            return 0;
        /* The smallest workable buffer: MCIO_MEMORY_MIN_BUFFER, at least one stripe and few
         * enough rounds; all the node has left when that is more. */
        int64_t floor = max64(max64(MCIO_MEMORY_MIN_BUFFER, p.stripe), need);
        grant = min64(want, max64(avl, floor));
        grant = max64(grant, (hi - lo) / INT32_MAX + 1);
    }
    int r = pick_rank(L, j, v->start, v->end);
    if (r < 0)
        return 0;
    set_aggregator(L, r, 1, grant);
    *loc = (located){.rank = r, .fallback = short_of_memory, .grant = grant};
    return 1;
}

static void unlocate(locator *L, located *loc)
{
    if (loc->rank >= 0)
        set_aggregator(L, loc->rank, 0, loc->grant);
    loc->rank = -1;
}

/* ---- Rounds balancing (mcio's addition to section 3.4) ---- */

/* A domain's aggregator and what was reserved for it: they move together. */
typedef struct hosted {
    int64_t mid; /* the aggregator's span's middle: the order of the new domains */
    int rank, fallback;
    int64_t window, grant;
} hosted;

static int by_mid(const void *x, const void *y)
{
    const hosted *a = x, *b = y;
    if (a->mid != b->mid)
        return (a->mid > b->mid) - (a->mid < b->mid);
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/*
 * The domains of one group, [a, b) in file order, run in a collective call whose rounds are
 * synchronised: the group takes as long as its busiest domain. Remerging leaves that balance
 * to chance (when a group's nodes run out of memory, its last leaves all fold into one domain)
 * and buffers cut by a node's Memavl differ, so one domain may run a hundred rounds where its
 * neighbours run two. Re-cut the group so that each domain's share of the group's data region
 * is proportional to its buffer, boundaries on stripe multiples, the aggregators (each with
 * its buffer and the memory reserved for it) in the order of their spans' middles, so that
 * they stay near their data; adopt it only if it lowers the group's most rounds. An aggregator
 * may then request no byte of its new domain (in IOR's layout the file's last part is only
 * the last ranks'): like ROMIO's cb_nodes aggregators, it gathers the domain all the same.
 */
static int balance_group(mcio_fdplan *plan, mcio_memplan *d, int a, int b,
                         const mcio_summary *sum, const mcio_spans *spans, int64_t stripe,
                         int *balanced)
{
    int n = b - a, ok = 1;
    int64_t lo, hi, glo, ghi, total = 0, old_max = 0, new_max = 0, share = 0;
    *balanced = 0;
    if (n < 2 || !mcio_spans_clip(spans, plan->fd_start[a], plan->fd_end[b - 1], &glo, &ghi))
        return MCIO_SUCCESS;
    hosted *h = malloc((size_t)n * sizeof *h);
    int64_t *cut = malloc(((size_t)n + 1) * sizeof *cut);
    if (!h || !cut) {
        free(h);
        free(cut);
        return MCIO_ERR_NOMEM;
    }
    for (int k = a; k < b; k++) {
        const mcio_summary *s = &sum[plan->agg_rank[k]];
        hosted *x = &h[k - a];
        *x = (hosted){.mid = s->start + (s->end - s->start) / 2, .rank = plan->agg_rank[k],
                      .fallback = d->fallback[k], .window = plan->window[k], .grant = d->grant[k]};
        int64_t w = x->window;
        old_max = max64(old_max, mcio_fdplan_domain_rounds(spans, plan->fd_start[k],
                                                           plan->fd_end[k], &w, stripe, &lo, &hi));
        total += w;
    }
    qsort(h, (size_t)n, sizeof *h, by_mid);
    cut[0] = plan->fd_start[a];
    cut[n] = plan->fd_end[b - 1];
    for (int i = 0; ok && i < n; i++) {
        int64_t w = h[i].window;
        if (i + 1 < n) {
            share += mcio_fdplan_round_window(w, stripe);
            int64_t x = glo + (int64_t)((long double)(ghi - glo) * (long double)share /
                                        (long double)total);
            if (stripe > 0) {
                int64_t down = x - x % stripe;
                x = x - down <= down + stripe - x ? down : down + stripe;
            }
            cut[i + 1] = x;
        }
        w = h[i].window;
        int64_t rounds = cut[i + 1] > cut[i] ? mcio_fdplan_domain_rounds(
                                                   spans, cut[i], cut[i + 1], &w, stripe, &lo, &hi)
                                             : 0;
        ok = rounds > 0; /* a domain in a hole between the ranks' spans would idle */
        new_max = max64(new_max, rounds);
    }
    *balanced = ok && new_max < old_max;
    if (*balanced)
        for (int k = a; k < b; k++) {
            const hosted *x = &h[k - a];
            plan->fd_start[k] = cut[k - a];
            plan->fd_end[k] = cut[k - a + 1];
            plan->agg_rank[k] = x->rank;
            plan->window[k] = x->window;
            d->grant[k] = x->grant;
            d->fallback[k] = x->fallback;
        }
    free(h);
    free(cut);
    return MCIO_SUCCESS;
}

/* The tree follows its leaves after balancing: each leaf takes its domain's region, and each
 * vertex above, the region from its leftmost leaf's start to its rightmost leaf's end. */
static void retile_tree(mcio_ptree *t, const mcio_fdplan *plan, const int *domain_vertex,
                        const mcio_reqmap *m)
{
    for (int k = 0; k < plan->ndomains; k++) {
        mcio_ptree_vertex *x = &t->v[domain_vertex[k]];
        x->start = plan->fd_start[k];
        x->end = plan->fd_end[k];
        x->bytes = mcio_reqmap_bytes(m, x->start, x->end);
    }
    for (int k = 0; k < plan->ndomains; k++)
        for (int v = t->v[domain_vertex[k]].parent; v >= 0; v = t->v[v].parent) {
            mcio_ptree_vertex *x = &t->v[v];
            int64_t s = t->v[leftmost_leaf(t, v)].start, e = t->v[rightmost_leaf(t, v)].end;
            if (x->start == s && x->end == e)
                break; /* right already, or an earlier leaf's walk went on from here */
            x->start = s;
            x->end = e;
            x->bytes = mcio_reqmap_bytes(m, s, e);
        }
}

void mcio_memplan_free(mcio_memplan *d)
{
    mcio_aggr_groups_free(&d->groups);
    mcio_ptree_free(&d->tree);
    free(d->domain_vertex);
    free(d->domain_group);
    free(d->domain_bytes);
    free(d->grant);
    free(d->fallback);
    free(d->group_balanced);
    free(d->node_budget);
    free(d->node_used);
    free(d->node_aggs);
    memset(d, 0, sizeof *d);
}

/* Location and remerging over every group's partition tree (the paper's components 3 and 4):
 * each leaf from left to right gets an aggregator, or is merged into a neighbour that is then
 * located again; a group left as one domain without Memmin anywhere takes the fallback.
 * Counts the leaves before remerging, the remerges and the domains left. */
static int locate_groups(locator *L, const mcio_spans *spans, mcio_memplan *d, located *loc,
                         mcio_planner_params params, int *initial, int *remerges, int *nd)
{
    for (int g = 0; g < d->groups.n; g++) {
        *initial += mcio_ptree_leaves(&d->tree, g, NULL);
        for (int v = mcio_ptree_leaves(&d->tree, g, NULL) ? d->tree.root[g] : -1; v >= 0;) {
            while (d->tree.v[v].left >= 0)
                v = d->tree.v[v].left;
            if (locate(L, spans, &d->tree.v[v], &loc[v], params, 0)) {
                v = mcio_ptree_next_leaf(&d->tree, v);
                continue;
            }
            int taker, nv = mcio_ptree_remerge(&d->tree, v, &taker);
            if (nv < 0) { /* the group is one domain and no node has Memmin for it */
                if (!locate(L, spans, &d->tree.v[v], &loc[v], params, 1))
                    return MCIO_ERR_INTERNAL; /* a group always has a process touching it */
                v = -1;
                continue;
            }
            (*remerges)++;
            unlocate(L, &loc[taker]); /* its region grew: locate it again */
            v = nv;
        }
        *nd += mcio_ptree_leaves(&d->tree, g, NULL);
    }
    return MCIO_SUCCESS;
}

/* The plan's nd file domains from the tree's leaves, in group and file order, each with its
 * located aggregator and grant. */
static int domains_of_leaves(mcio_fdplan *plan, mcio_memplan *d, const located *loc, int nd)
{
    if (mcio_fdplan_alloc(plan, nd) != MCIO_SUCCESS)
        return MCIO_ERR_NOMEM;
    d->domain_vertex = malloc(((size_t)nd + 1) * sizeof(int));
    d->domain_group = malloc(((size_t)nd + 1) * sizeof(int));
    d->domain_bytes = malloc(((size_t)nd + 1) * sizeof(int64_t));
    d->grant = malloc(((size_t)nd + 1) * sizeof(int64_t));
    d->fallback = malloc(((size_t)nd + 1) * sizeof(int));
    d->group_balanced = calloc((size_t)d->groups.n + 1, sizeof(int));
    if (!d->domain_vertex || !d->domain_group || !d->domain_bytes || !d->grant || !d->fallback ||
        !d->group_balanced)
        return MCIO_ERR_NOMEM;
    for (int g = 0, k = 0; g < d->groups.n; g++)
        k += mcio_ptree_leaves(&d->tree, g, d->domain_vertex + k);
    for (int k = 0; k < nd; k++) {
        const mcio_ptree_vertex *v = &d->tree.v[d->domain_vertex[k]];
        const located *l = &loc[d->domain_vertex[k]];
        plan->agg_rank[k] = l->rank;
        plan->fd_start[k] = v->start;
        plan->fd_end[k] = v->end;
        plan->window[k] = l->grant;
        plan->fallbacks += l->fallback;
        d->domain_group[k] = v->group;
        d->grant[k] = l->grant;
        d->fallback[k] = l->fallback;
    }
    return MCIO_SUCCESS;
}

/* Re-cut each group to even rounds where that lowers its most rounds (balance_group). */
static int balance_groups(mcio_fdplan *plan, mcio_memplan *d, int nd, const mcio_summary *sum,
                          const mcio_spans *spans, int64_t stripe)
{
    for (int a = 0, b; a < nd; a = b) { /* each group's domains are consecutive */
        for (b = a + 1; b < nd && d->domain_group[b] == d->domain_group[a]; b++)
            ;
        int st = balance_group(plan, d, a, b, sum, spans, stripe,
                               &d->group_balanced[d->domain_group[a]]);
        if (st != MCIO_SUCCESS)
            return st;
        d->balanced += d->group_balanced[d->domain_group[a]];
    }
    return MCIO_SUCCESS;
}

/* What each node offers and spends on collective buffers, for the caller's report. */
static int node_usage(mcio_memplan *d, const mcio_topology *topo, const mcio_fdplan *plan, int nd)
{
    d->nnodes = topo->nnodes;
    d->node_budget = malloc(((size_t)topo->nnodes + 1) * sizeof(int64_t));
    d->node_used = calloc((size_t)topo->nnodes + 1, sizeof(int64_t));
    d->node_aggs = calloc((size_t)topo->nnodes + 1, sizeof(int));
    if (!d->node_budget || !d->node_used || !d->node_aggs)
        return MCIO_ERR_NOMEM;
    for (int j = 0; j < topo->nnodes; j++)
        d->node_budget[j] = topo->node_mem ? max64(0, topo->node_mem[j]) : INT64_MAX;
    for (int k = 0; k < nd; k++) {
        int j = topo->node_of_rank[plan->agg_rank[k]];
        d->node_used[j] += mcio_fdplan_buffer(plan, k);
        d->node_aggs[j]++;
    }
    return MCIO_SUCCESS;
}

int mcio_planner_memory(const mcio_topology *topo, const mcio_summary *sum,
                        mcio_planner_params params, mcio_fdplan *plan, mcio_memplan *detail)
{
    mcio_memplan d = {0};
    mcio_reqmap m = {0};
    mcio_spans spans = {0};
    locator L = {0};
    located *loc = NULL;
    int st, nd = 0, remerges = 0, initial = 0, have_locator = 0;
    memset(plan, 0, sizeof *plan);
    if (params.nah < 1)
        params.nah = 1;
    if (params.msgind < 1)
        params.msgind = 1;
    /* Components 1 and 2: aggregation groups, a partition tree per group. */
    if ((st = mcio_reqmap_build(topo->nprocs, sum, &m)) != MCIO_SUCCESS ||
        (st = mcio_spans_build(topo->nprocs, sum, &spans)) != MCIO_SUCCESS ||
        (st = mcio_memplan_groups(topo->nprocs, sum, topo->node_of_rank, topo->nnodes,
                                  params.msggroup, &d.groups)) != MCIO_SUCCESS ||
        (st = mcio_ptree_build(&m, &d.groups, params.msgind, params.stripe, &d.tree)) !=
            MCIO_SUCCESS ||
        (st = locator_init(&L, topo, sum, params.nah)) != MCIO_SUCCESS)
        goto fail;
    have_locator = 1;
    st = MCIO_ERR_NOMEM;
    if (!(loc = malloc(((size_t)d.tree.n + 1) * sizeof *loc)))
        goto fail;
    for (int i = 0; i < d.tree.n; i++)
        loc[i] = (located){.rank = -1};
    /* Components 3 and 4, then the domains, re-cut to even rounds, and their rounds. */
    if ((st = locate_groups(&L, &spans, &d, loc, params, &initial, &remerges, &nd)) !=
            MCIO_SUCCESS ||
        (st = domains_of_leaves(plan, &d, loc, nd)) != MCIO_SUCCESS ||
        (st = balance_groups(plan, &d, nd, sum, &spans, params.stripe)) != MCIO_SUCCESS)
        goto fail;
    retile_tree(&d.tree, plan, d.domain_vertex, &m);
    for (int k = 0; k < nd; k++)
        d.domain_bytes[k] = mcio_reqmap_bytes(&m, plan->fd_start[k], plan->fd_end[k]);
    st = mcio_fdplan_fill_rounds(plan, topo->nprocs, sum, params);
    if (st != MCIO_SUCCESS)
        goto fail;
    if (detail) {
        if ((st = node_usage(&d, topo, plan, nd)) != MCIO_SUCCESS)
            goto fail;
        d.initial_leaves = initial;
        d.remerges = remerges;
        *detail = d;
        memset(&d, 0, sizeof d);
    }
    st = MCIO_SUCCESS;
fail:
    if (st != MCIO_SUCCESS)
        mcio_fdplan_free(plan);
    free(loc);
    if (have_locator)
        locator_free(&L);
    mcio_spans_free(&spans);
    mcio_reqmap_free(&m);
    mcio_memplan_free(&d);
    return st;
}
