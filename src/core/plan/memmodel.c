/*
 * The memory a collective call holds, node by node, and the default strategy that never
 * plans more than a node has (issue 17).
 *
 * The memory-conscious paper (Wang et al., section 3) budgets the collective buffers against
 * Memavl, the memory a node has left. On a real machine that is the headroom of the job's
 * memory cgroup (mcio_memory.h), and a call spends more than its buffers: each rank's extents
 * and pieces, the aggregator's schedule and runs, the list exchange, arrays that grow with
 * the ranks. The model counts what the engine (mcio_twophase.c) allocates, from the plan and
 * the summaries, so that the planner can ask before allocating whether a plan fits.
 *
 * Glossary (mcio_planner.h, memory.c): collective buffer, file domain, round, piece; Memavl.
 *   headroom   what a node's binding limit leaves (its Memavl), node_mem of the topology
 *   margin     the share of the headroom the default strategy leaves free (mcio_memory_margin),
 *              for what the model does not see: MPI's buffers, the allocator, other threads
 *   usable     headroom less the margin
 *
 * The default strategy, auto: the classic plan (romio, or the independent plan when accesses do
 * not interleave, exactly as before) when the model says it fits every node's usable memory;
 * otherwise the memory strategy, each node offering its usable memory less the model's
 * non-buffer bytes, so that fewer or smaller buffers, remerged domains and more rounds take
 * the place of memory the node does not have. The memory strategy never fails for lack of
 * memory: when no node has even its smallest buffer, its fallback takes that much anyway.
 */
#include <stdlib.h>
#include <string.h>

#include "mcio_planner.h"

/* Bytes of the engine's per-piece and per-group records (mcio_planner.h, mcio_twophase.c). */
#define PIECE_BYTES ((int64_t)sizeof(mcio_piece))
#define GROUP_BYTES ((int64_t)(2 * sizeof(int) + 2 * sizeof(int64_t)))
#define DOMAIN_BYTES ((int64_t)(2 * sizeof(int) + 5 * sizeof(int64_t)))
#define LIST_PAIR_BYTES ((int64_t)(2 * sizeof(int64_t)))
#define SCRATCH_BYTES ((int64_t)(sizeof(int) + 2 * sizeof(int64_t))) /* blocklen, displ, request */

/* What the ranks' pieces make on the domains' side: per domain, the pieces and the groups
 * (round boundaries met) its aggregator receives. */
typedef struct recv_tally {
    int64_t *pieces, *groups; /* [nd] */
    int64_t *prefix;          /* [nd + 1] the rounds of the domains before d */
    int64_t *cover;           /* [nd + 1] difference array: the ranks whose span holds d whole */
    double *density;          /* [nd + 1] difference array: their extents per byte of span */
} recv_tally;

static void tally_free(recv_tally *t)
{
    free(t->pieces);
    free(t->groups);
    free(t->prefix);
    free(t->cover);
    free(t->density);
}

static int tally_alloc(const mcio_fdplan *plan, recv_tally *t)
{
    size_t n = (size_t)plan->ndomains + 1;
    *t = (recv_tally){calloc(n, sizeof(int64_t)), calloc(n, sizeof(int64_t)),
                      calloc(n, sizeof(int64_t)), calloc(n, sizeof(int64_t)),
                      calloc(n, sizeof(double))};
    if (!t->pieces || !t->groups || !t->prefix || !t->cover || !t->density) {
        tally_free(t);
        return MCIO_ERR_NOMEM;
    }
    for (int d = 0; d < plan->ndomains; d++)
        t->prefix[d + 1] = t->prefix[d] + plan->rounds[d];
    return MCIO_SUCCESS;
}

/* Domain d, met in part by a rank's span [s, e) of ext extents: the rank's groups there, and
 * on d's side those groups and its pieces (the extents in proportion to the bytes met). */
static int64_t met_in_part(const mcio_fdplan *plan, recv_tally *t, int d, int64_t s, int64_t e,
                           int64_t ext)
{
    int64_t g = mcio_fdplan_rounds_met(plan, d, s, e);
    int64_t lo = s > plan->fd_start[d] ? s : plan->fd_start[d];
    int64_t hi = e < plan->fd_end[d] ? e : plan->fd_end[d];
    double share = hi > lo ? (double)(hi - lo) / (double)(e - s) : 0;
    t->groups[d] += g;
    t->pieces[d] += g + (int64_t)((double)ext * share + 0.5);
    return g;
}

/* A rank's groups: the round boundaries its span [s, e) (s < e) meets, at most one cut of its
 * extents per (round, domain). The first and last domains it meets are met in part; those
 * between, whole: all their rounds, and on their side the rank is tallied once for all of them
 * (tally_whole). In O(log domains) a rank, not O(domains): an IOR-like pattern has every rank
 * in every domain, and the domain-by-domain walk took 5.6 s a plan at 100,000 ranks. */
static int64_t rank_groups(const mcio_fdplan *plan, recv_tally *t, int64_t s, int64_t e,
                           int64_t ext)
{
    int nd = plan->ndomains;
    int d0 = mcio_fdplan_first_after(plan, s), d1 = mcio_fdplan_first_after(plan, e - 1);
    if (d0 >= nd)
        return 0;
    int last = d1 < nd ? d1 : nd - 1;
    int64_t groups = met_in_part(plan, t, d0, s, e, ext);
    if (last == d0)
        return groups;
    groups += met_in_part(plan, t, last, s, e, ext) + t->prefix[last] - t->prefix[d0 + 1];
    if (last > d0 + 1) {
        double per_byte = (double)ext / (double)(e - s);
        t->cover[d0 + 1]++, t->cover[last]--;
        t->density[d0 + 1] += per_byte, t->density[last] -= per_byte;
    }
    return groups;
}

/* The domains that ranks' spans hold whole: each such rank brings all the domain's rounds as
 * groups, and its extents in proportion to the domain's bytes as pieces (their sum over the
 * ranks, rounded once). */
static void tally_whole(const mcio_fdplan *plan, recv_tally *t)
{
    int64_t cover = 0;
    double density = 0;
    for (int d = 0; d < plan->ndomains; d++) {
        cover += t->cover[d];
        density += t->density[d];
        int64_t g = cover * plan->rounds[d];
        double expect = density > 0 ? density * (double)(plan->fd_end[d] - plan->fd_start[d]) : 0;
        t->groups[d] += g;
        t->pieces[d] += g + (int64_t)(expect + 0.5);
    }
}

int mcio_memmodel(const mcio_topology *topo, const mcio_summary *sum, const mcio_fdplan *plan,
                  const int *slots, int own_access, mcio_memmodel_node *out)
{
    int nd = plan->ndomains;
    memset(out, 0, (size_t)topo->nnodes * sizeof *out);
    /* Per domain, the pieces and groups its aggregator receives (none: own access). */
    recv_tally t = {0};
    if (!own_access && tally_alloc(plan, &t) != MCIO_SUCCESS)
        return MCIO_ERR_NOMEM;
    int64_t per_rank = (int64_t)sizeof(mcio_summary) + 2 * (int64_t)sizeof(int64_t);
    for (int r = 0; r < topo->nprocs; r++) {
        mcio_memmodel_node *n = &out[topo->node_of_rank[r]];
        /* Every rank holds the plan, and while planning the summaries and the list arrays
         * (nlist, lists) of one entry per rank. */
        n->metadata += (int64_t)nd * DOMAIN_BYTES;
        n->planning += (int64_t)topo->nprocs * per_rank + (int64_t)nd * 3 * (int64_t)sizeof(int64_t);
        if (sum[r].bytes <= 0)
            continue;
        int64_t ext = topo->rank_extents && topo->rank_extents[r] > 0 ? topo->rank_extents[r] : 1;
        n->metadata += ext * PIECE_BYTES; /* the normalized extents */
        if (own_access) {
            if (topo->rank_calls && topo->rank_calls[r] > 0 && topo->rank_calls[r] < ext)
                n->buffers += MCIO_OWN_PACK; /* pieces packed for their calls (own_run) */
            continue;
        }
        /* Its pieces: the extents, cut at every round boundary inside them. */
        int64_t groups = rank_groups(plan, &t, sum[r].start, sum[r].end, ext);
        int64_t pieces = ext + groups;
        if (pieces > sum[r].bytes)
            pieces = sum[r].bytes;
        n->metadata += pieces * (PIECE_BYTES + SCRATCH_BYTES) + groups * GROUP_BYTES;
        /* the lists it sends: its pieces by domain, and their descriptions (at most a pair each) */
        n->planning += pieces * (PIECE_BYTES + LIST_PAIR_BYTES);
    }
    if (!own_access)
        tally_whole(plan, &t);
    for (int d = 0; d < nd && !own_access; d++) {
        mcio_memmodel_node *n = &out[topo->node_of_rank[plan->agg_rank[d]]];
        n->buffers += mcio_fdplan_buffer(plan, d) * (slots ? slots[d] : 1);
        /* The schedule of its domain and a round's runs; while planning, the received lists
         * (pieces, and the raw pairs of one sender at a time). */
        n->metadata += t.pieces[d] * (2 * PIECE_BYTES + SCRATCH_BYTES) +
                       t.groups[d] * GROUP_BYTES;
        n->planning += t.pieces[d] * (PIECE_BYTES + LIST_PAIR_BYTES);
    }
    for (int j = 0; j < topo->nnodes; j++) {
        mcio_memmodel_node *n = &out[j];
        n->peak = n->metadata + (n->buffers > n->planning ? n->buffers : n->planning);
    }
    tally_free(&t);
    return MCIO_SUCCESS;
}

int64_t mcio_memmodel_usable(int64_t mem, mcio_planner_params params)
{
    if (mem == INT64_MAX || mem < 0)
        return mem < 0 ? 0 : mem;
    int pct = params.memory_margin < 0 ? 0 : params.memory_margin > 100 ? 100 : params.memory_margin;
    return mem - mem / 100 * pct - mem % 100 * pct / 100;
}

int mcio_planner_auto(const mcio_topology *topo, const mcio_summary *sum,
                      mcio_planner_params params, mcio_fdplan *plan)
{
    mcio_memmodel_node *model = NULL;
    int64_t *offer = NULL;
    int st = mcio_planner_make(mcio_planner_find("romio"), topo, sum, params, plan);
    if (st != MCIO_SUCCESS || !topo->node_mem)
        return st;
    st = MCIO_ERR_NOMEM;
    model = malloc(((size_t)topo->nnodes + 1) * sizeof *model);
    offer = malloc(((size_t)topo->nnodes + 1) * sizeof(int64_t));
    if (!model || !offer || mcio_memmodel(topo, sum, plan, NULL, 0, model) != MCIO_SUCCESS)
        goto fail;
    int fits = 1;
    for (int j = 0; j < topo->nnodes; j++) {
        int64_t usable = mcio_memmodel_usable(topo->node_mem[j], params);
        fits &= model[j].peak <= usable;
        /* What the node can offer the memory strategy's buffers: its usable memory less what
         * the call holds beside them (the metadata, or the planning when that is larger). */
        int64_t beside = model[j].metadata + model[j].planning;
        offer[j] = usable == INT64_MAX ? INT64_MAX : usable > beside ? usable - beside : 0;
    }
    if (fits) {
        st = MCIO_SUCCESS;
        goto done;
    }
    /* The memory plan has more domains and rounds, so more metadata than the romio plan the
     * offer was cut from: replan with the excess taken off (a few passes; the metadata shrinks
     * with the buffers' rounds only slowly). */
    mcio_topology t = *topo;
    t.node_mem = offer;
    for (int pass = 0; pass < 4; pass++) {
        mcio_fdplan_free(plan);
        st = mcio_planner_memory(&t, sum, params, plan, NULL);
        if (st != MCIO_SUCCESS || (st = mcio_memmodel(topo, sum, plan, NULL, 0, model)) != 0)
            goto fail;
        int over = 0;
        for (int j = 0; j < topo->nnodes; j++) {
            int64_t excess = model[j].peak - mcio_memmodel_usable(topo->node_mem[j], params);
            if (excess > 0 && offer[j] != INT64_MAX) {
                offer[j] = offer[j] > 2 * excess ? offer[j] - 2 * excess : 0;
                over = 1;
            }
        }
        if (!over)
            break;
    }
    plan->memory_conscious = 1;
done:
    free(model);
    free(offer);
    return st;
fail:
    mcio_fdplan_free(plan);
    free(model);
    free(offer);
    return st;
}
