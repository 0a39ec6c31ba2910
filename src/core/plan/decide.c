/*
 * One collective call's decision (mcio_decide.h): the gathered summaries, the machine, the
 * typed hints, the cost table and the operation's previous choice in; the whole plan out.
 *
 * Glossary: a *decision* is the plan of one call: file domains (each with its aggregator and
 * rounds), the pipeline depth and sub-buffers, or each rank's own access; a *choice* is the
 * cost model's (mcio_costmodel.h) pick among the candidate configurations, with predicted
 * times; the *memo* is an operation's last choice and the key of its inputs, so that a call
 * whose inputs repeat takes it again instead of predicting every candidate anew.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_decide.h"
#include "mcio_splitmix64.h"

uint64_t mcio_key_word(uint64_t h, int64_t w)
{
    uint64_t s = h ^ (uint64_t)w;
    return splitmix64(&s);
}

/* A node's memory to 1/16: its top five significant bits (-1: no limit). It moves by pages from
 * call to call; mcio_cost_replan checks a choice taken again against the exact figures. */
static int64_t memory_bucket(int64_t v)
{
    if (v == INT64_MAX || v < 0)
        return -1;
    int top = 63;
    while (top > 0 && !(v >> top & 1))
        top--;
    return top > 4 ? v & ~((INT64_C(1) << (top - 4)) - 1) : v;
}

/* The rest of a choice's inputs (hints, cost table, machine) change only with
 * mcio_file_set_hints, which forgets the choices. Offsets count from the lowest start: a
 * program's calls at moving offsets in one shape (IOR's transfers, a time step's records) keep
 * their choice (deciding at each call cost 15 us of a 4 KiB call's 19 at one rank, and most of
 * a 20,000-byte call's 3 ms at 8 ranks on 2 cores, issue 51); the choice taken again is
 * planned for the call's exact offsets, its alignment included (chosen_again). */
uint64_t mcio_decide_shape(const mcio_topology *topo, const mcio_summary *sum)
{
    uint64_t h = 0;
    const int64_t *extents = topo->rank_extents, *calls = topo->rank_calls;
    int64_t base = INT64_MAX;
    for (int r = 0; r < topo->nprocs; r++)
        if (sum[r].bytes > 0 && sum[r].start < base)
            base = sum[r].start;
    for (int r = 0; r < topo->nprocs; r++) {
        int64_t shift = sum[r].bytes > 0 ? base : 0;
        h = mcio_key_word(mcio_key_word(mcio_key_word(h, sum[r].start - shift), sum[r].end - shift),
                          sum[r].bytes);
        h = mcio_key_word(mcio_key_word(h, extents ? extents[r] : -1), calls ? calls[r] : 0);
    }
    return h;
}

uint64_t mcio_decide_key(const mcio_topology *topo, const mcio_summary *sum)
{
    uint64_t h = mcio_decide_shape(topo, sum);
    for (int j = 0; topo->node_mem && j < topo->nnodes; j++)
        h = mcio_key_word(h, memory_bucket(topo->node_mem[j]));
    return h;
}

/* The planning parameters, aligned as a pipeline of depth needs (mcio_pipeline_unit). */
static mcio_planner_params plan_params(const mcio_decide_inputs *in, int depth)
{
    mcio_planner_params pp = in->hints.params;
    pp.stripe = mcio_pipeline_unit(depth, in->hints.params.stripe, in->fs_block);
    return pp;
}

mcio_cost_inputs mcio_decide_cost_inputs(const mcio_decide_inputs *in)
{
    int64_t stripe = in->hints.params.stripe;
    int64_t unit = mcio_pipeline_unit(2, stripe, in->fs_block);
    return (mcio_cost_inputs){.topo = in->topo,
                              .sum = in->sum,
                              .write = in->write,
                              .params = plan_params(in, 1),
                              .depth = in->hints.depth,
                              .subbuffer = mcio_pipeline_subbuffer(in->hints.subbuffer, stripe,
                                                                   unit),
                              .unit = unit,
                              .fixed = in->hints.fixed,
                              .sync = in->sync,
                              .cost = in->cost,
                              .planners = in->planners};
}

/* prev's choice, planned again for this call (out->chose 2); 0 when there is none for these
 * inputs, it is stale, or it no longer fits the nodes' memory (nothing is kept then). */
static int chosen_again(const mcio_cost_inputs *ci, const mcio_chosen *prev, uint64_t key,
                        mcio_decision *out)
{
    if (!prev || !prev->valid || prev->stale || prev->key != key)
        return 0;
    out->choice = prev->choice;
    int st = mcio_cost_replan(ci, &out->choice.best, &out->fd, &out->slots);
    if (st == MCIO_SUCCESS && out->choice.best.fits)
        return 1;
    mcio_fdplan_free(&out->fd);
    free(out->slots);
    out->slots = NULL;
    return 0;
}

static int same_config(const mcio_cost_config *a, const mcio_cost_config *b)
{
    if (a->independent || b->independent)
        return a->independent == b->independent;
    return a->strategy == b->strategy && a->aggs_per_node == b->aggs_per_node &&
           a->depth == b->depth && a->buffer == b->buffer;
}

/* A candidate's time as the choice compares them: corrected, and independent access's divided
 * by the margin aggregation must win by (mcio_cost_decide's rule). */
static double compared(const mcio_cost_table *t, int op, uint64_t shape, const mcio_cost_config *c,
                       double margin)
{
    double s = c->seconds * mcio_cost_correction_of(t, op, shape, c);
    return c->independent ? s / margin : s;
}

/* The candidate the choice settles on among seen[0..n-1] (see mcio_decide), or -1 where none
 * fits (the model's least-memory choice stands). */
enum { SETTLE_FIRST_PERCENT = 10 };
#define SETTLE_FIRST (SETTLE_FIRST_PERCENT / 100.0)
static int settled(const mcio_cost_inputs *ci, const mcio_chosen *prev, uint64_t key,
                   uint64_t shape, const mcio_cost_config *seen, int n)
{
    int op = ci->write ? MCIO_COST_WRITE : MCIO_COST_READ, fastest = -1, pick = -1;
    double margin = mcio_cost_aggregation_margin(ci->cost), low = 0;
    for (int i = 0; i < n; i++) {
        double v = compared(ci->cost, op, shape, &seen[i], margin);
        if (seen[i].fits && seen[i].seconds >= 0 && (fastest < 0 || v < low))
            fastest = i, low = v;
    }
    if (fastest < 0)
        return -1;
    double within = low * (1 + ci->cost->spread[op]);
    int again = prev && prev->valid && prev->key == key;
    for (int i = 0; again && pick < 0 && i < n; i++)
        if (seen[i].fits && seen[i].seconds >= 0 && same_config(&seen[i], &prev->choice.best) &&
            compared(ci->cost, op, shape, &seen[i], margin) <= within)
            pick = i;
    /* A first choice settles within SETTLE_FIRST of the fastest only: the probes' spread (up
     * to 0.5) moves the candidates' figures together, not apart, and as a tolerance between
     * them it sent coll_perf's writes at 8 ranks on 2 cores to 1 aggregator, predicted 1.32 x
     * 4 aggregators' time and measured at 0.71 of their speed on a quiet host (issue 48). */
    double first = low * (1 + (ci->cost->spread[op] < SETTLE_FIRST ? ci->cost->spread[op]
                                                                    : SETTLE_FIRST));
    for (int i = 0; pick < 0 && i < n; i++)
        if (seen[i].fits && seen[i].seconds >= 0 &&
            compared(ci->cost, op, shape, &seen[i], margin) <= first)
            pick = i;
    return pick;
}

/* The cost model's candidates, the choice settled among them (settled) and its plan. */
static int decide_settled(const mcio_cost_inputs *ci, const mcio_chosen *prev, uint64_t key,
                          uint64_t shape, mcio_decision *out)
{
    enum { SEEN_MOST = 256 }; /* the candidates are fewer (1 + 3 x 2 x 3 x the table's rows) */
    mcio_cost_config *seen = malloc(SEEN_MOST * sizeof *seen);
    if (!seen)
        return MCIO_ERR_NOMEM;
    mcio_cost_choice *ch = &out->choice;
    int st = mcio_cost_decide_seen(ci, ch, seen, SEEN_MOST);
    int pick = st == MCIO_SUCCESS && ch->candidates <= SEEN_MOST
                   ? settled(ci, prev, key, shape, seen, ch->candidates)
                   : -1;
    if (pick >= 0 && !same_config(&seen[pick], &ch->best)) {
        ch->runner_up = ch->best;
        ch->best = seen[pick];
        ch->margin = 0;
    }
    free(seen);
    if (st == MCIO_SUCCESS)
        st = mcio_cost_replan(ci, &ch->best, &out->fd, &out->slots);
    return st;
}

/* Strategy auto: the cost model's choice and the plan it names (already subdivided for a
 * pipeline: the plan its prediction walked). */
static int decide_auto(const mcio_decide_inputs *in, const mcio_chosen *prev, mcio_decision *out)
{
    mcio_cost_inputs ci = mcio_decide_cost_inputs(in);
    uint64_t shape = mcio_decide_shape(in->topo, in->sum), key = mcio_decide_key(in->topo, in->sum);
    out->chose = chosen_again(&ci, prev, key, out) ? 2 : 1;
    if (out->chose == 1) {
        int st = decide_settled(&ci, prev, key, shape, out);
        out->memo.valid = st == MCIO_SUCCESS;
        if (st != MCIO_SUCCESS)
            return st;
        out->memo.key = key;
        out->memo.shape = shape;
        out->memo.stale = 0;
        out->memo.choice = out->choice;
    }
    const mcio_cost_config *c = &out->choice.best;
    if (c->independent) {
        out->own_access = 1;
        out->strategy = -1;
        return mcio_planner_own(in->topo->nprocs, in->sum, &out->fd);
    }
    out->strategy = c->strategy;
    out->depth = c->depth;
    return MCIO_SUCCESS;
}

/* Cut the collective buffers into the sub-buffers of a pipeline of out->depth. */
static int subdivide(const mcio_decide_inputs *in, mcio_decision *out)
{
    int64_t stripe = in->hints.params.stripe;
    int64_t unit = mcio_pipeline_unit(out->depth, stripe, in->fs_block);
    int64_t sub = mcio_pipeline_subbuffer(in->hints.subbuffer, stripe, unit);
    out->slots = malloc(((size_t)out->fd.ndomains + 1) * sizeof(int));
    if (!out->slots)
        return MCIO_ERR_NOMEM;
    return mcio_fdplan_subdivide(&out->fd, sub, out->depth, unit, out->slots);
}

int mcio_decide(const mcio_decide_inputs *in, const mcio_chosen *prev, mcio_decision *out)
{
    const mcio_decide_hints *h = &in->hints;
    int n = in->topo->nprocs;
    memset(out, 0, sizeof *out);
    if (prev)
        out->memo = *prev;
    out->depth = h->depth;
    out->own_access = h->params.cb == MCIO_CB_DISABLE;
    out->strategy = out->own_access ? -1 : h->strategy;
    for (int r = 0; r < n; r++)
        out->total_bytes += in->sum[r].bytes;
    int st;
    if (h->strategy == MCIO_STRATEGY_AUTO)
        st = decide_auto(in, prev, out);
    else if (out->own_access)
        st = mcio_planner_own(n, in->sum, &out->fd);
    else
        st = mcio_planner_make(mcio_planner_row(in->planners, h->strategy), in->topo, in->sum,
                               plan_params(in, out->depth), &out->fd);
    out->cb_rounds = out->fd.max_rounds;
    if (st == MCIO_SUCCESS && !out->own_access && out->depth > 1 && !out->slots)
        st = subdivide(in, out);
    return st;
}

void mcio_decision_free(mcio_decision *d)
{
    mcio_fdplan_free(&d->fd);
    free(d->slots);
    d->slots = NULL;
}
