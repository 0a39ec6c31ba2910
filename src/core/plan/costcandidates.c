/*
 * The cost model's candidates (issue 20): which configurations mcio_cost_decide enumerates
 * (independent access; the planner table's rows at 1, 2 and 4 aggregators per node, two
 * collective buffer sizes and pipeline depths 1, 2 and 4), how each is planned as the engine
 * runs it (mcio_cost_plan, plan_config), and how the best and runner-up are kept, with the
 * margin aggregation must win by. The prediction of one candidate is costmodel.c's; the design
 * notes, the papers (Thakur et al. 1999; Lu et al., memory-conscious collective I/O; Sehrish et
 * al., pipelined aggregation; Hockney) and the glossary are at the top of costmodel.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel_internal.h"
#include "mcio_costmodel.h"

/* How much faster than independent access an aggregated candidate must be predicted to be
 * taken (decide, below): where the file access is the node's CPU work (a local file system,
 * the node's cores known), where the model's aggregated calls fall shortest; elsewhere none. */
#define AGGREGATION_MARGIN_REMOTE 1.0
#define AGGREGATION_MARGIN_LOCAL 1.3

/* mcio_cost_plan with prep's shared parts (NULL: none). */
static int plan_with(const mcio_cost_inputs *in, const mcio_cost_prep *prep,
                     const mcio_cost_config *c, mcio_fdplan *fd)
{
    const mcio_topology *topo = prep ? &prep->topo : in->topo;
    mcio_planner_params pp = in->params;
    pp.cb = MCIO_CB_ENABLE;
    pp.buffer_size = c->buffer;
    if (c->aggs_per_node > 0) {
        int64_t n = (int64_t)c->aggs_per_node * topo->nnodes;
        pp.cb_nodes = n > topo->nprocs ? topo->nprocs : (int)n;
    }
    if (c->depth > 1)
        pp.stripe = in->unit;
    const mcio_planner *pl = mcio_planner_row(in->planners, c->strategy);
    if (!pl)
        return MCIO_ERR_ARG;
    return (pl->cost_plan ? pl->cost_plan : pl->plan)(topo, in->sum, pp, fd);
}

int mcio_cost_plan(const mcio_cost_inputs *in, const mcio_cost_config *c, mcio_fdplan *fd)
{
    return plan_with(in, NULL, c, fd);
}

/* Does the plan fit every node's usable memory? -1 when out of memory. */
static int plan_fits(const mcio_cost_inputs *in, const mcio_fdplan *fd, const int *slots)
{
    const mcio_topology *topo = in->topo;
    int limited = 0;
    for (int j = 0; topo->node_mem && j < topo->nnodes; j++)
        limited |= topo->node_mem[j] != INT64_MAX;
    if (!limited)
        return 1; /* no node has a limit: the memory model would walk every rank for nothing */
    mcio_memmodel_node *m = malloc(((size_t)topo->nnodes + 1) * sizeof *m);
    if (!m || mcio_memmodel(topo, in->sum, fd, slots, 0, m) != MCIO_SUCCESS) {
        free(m);
        return -1;
    }
    int fits = 1;
    for (int j = 0; j < topo->nnodes; j++)
        fits &= m[j].peak <= mcio_memmodel_usable(topo->node_mem[j], in->params);
    free(m);
    return fits;
}

/* Plan the aggregated configuration c as the engine runs it in *fd and *slots (subdivided for
 * a pipeline; the caller frees both, also on failure) and set c->fits. */
static int plan_config(const mcio_cost_inputs *in, const mcio_cost_prep *prep,
                       mcio_cost_config *c, mcio_fdplan *fd, int **slots)
{
    *slots = NULL;
    int st = plan_with(in, prep, c, fd);
    if (st != MCIO_SUCCESS)
        return st;
    if (c->depth > 1) {
        *slots = malloc(((size_t)fd->ndomains + 1) * sizeof(int));
        st = *slots ? mcio_fdplan_subdivide(fd, in->subbuffer, c->depth, in->unit, *slots)
                    : MCIO_ERR_NOMEM;
    }
    int fits = st == MCIO_SUCCESS ? plan_fits(in, fd, *slots) : 0;
    if (st == MCIO_SUCCESS && fits < 0)
        st = MCIO_ERR_NOMEM;
    /* The memory strategy keeps each node's buffers within what the node offers (the margin
     * and the metadata taken off, memmodel.c), but for its fallback: that is its fit, even
     * where the metadata alone would not leave room for any buffer. */
    const mcio_planner *pl = mcio_planner_row(in->planners, c->strategy);
    if (pl && pl->keeps_node_memory && fd->memory_conscious && fd->fallbacks == 0)
        fits = 1;
    if (st == MCIO_SUCCESS)
        c->fits = fits;
    return st;
}

/* Predict the aggregated configuration c, and leave its plan as plan_config does; with
 * prep's shared parts (NULL: built for c alone). */
static int predict_planned(const mcio_cost_inputs *in, mcio_cost_prep *prep, mcio_cost_config *c,
                           mcio_fdplan *fd, int **slots)
{
    int st = plan_config(in, prep, c, fd, slots);
    return st == MCIO_SUCCESS ? mcio_cost_predict_plan(in, prep, fd, c->depth, &c->seconds) : st;
}

int mcio_cost_replan(const mcio_cost_inputs *in, mcio_cost_config *c, mcio_fdplan *fd,
                     int **slots)
{
    *fd = (mcio_fdplan){0};
    *slots = NULL;
    if (c->independent) {
        c->fits = 1;
        return MCIO_SUCCESS;
    }
    return plan_config(in, NULL, c, fd, slots);
}

int mcio_cost_predict(const mcio_cost_inputs *in, mcio_cost_config *c)
{
    if (c->independent)
        return mcio_cost_predict_independent(in, c);
    mcio_fdplan fd = {0};
    int *slots = NULL;
    int st = predict_planned(in, NULL, c, &fd, &slots);
    free(slots);
    mcio_fdplan_free(&fd);
    return st;
}

/* Is a better than b? Fitting first, then faster; ties keep the earlier candidate. */
static int better(const mcio_cost_config *a, const mcio_cost_config *b)
{
    if (a->fits != b->fits)
        return a->fits > b->fits;
    return a->seconds < b->seconds;
}

/* The best candidate's plan, kept while the others are predicted (NULL: not wanted). */
typedef struct kept_plan {
    mcio_fdplan fd;
    int *slots;
} kept_plan;

/* Every candidate predicted, as far as the caller's array goes (NULL: not wanted). */
typedef struct seen_list {
    mcio_cost_config *at;
    int cap;
} seen_list;

/* Predict *c and rank it among the best two so far (c->seconds stays -1 when the candidate
 * cannot run: too many rounds for its buffer); a new best's plan replaces the kept one. */
static int consider(const mcio_cost_inputs *in, mcio_cost_prep *prep, mcio_cost_config *c,
                    mcio_cost_choice *out, kept_plan *keep, const seen_list *seen)
{
    c->seconds = -1;
    mcio_fdplan fd = {0};
    int *slots = NULL;
    int st = c->independent ? mcio_cost_predict_independent(in, c)
                            : predict_planned(in, prep, c, &fd, &slots);
    if (st == MCIO_ERR_ARG) {
        st = MCIO_SUCCESS;
        goto done;
    }
    if (st != MCIO_SUCCESS)
        goto done;
    if (seen && out->candidates < seen->cap)
        seen->at[out->candidates] = *c;
    int best = out->candidates++ == 0 || better(c, &out->best);
    if (best) {
        if (out->candidates > 1)
            out->runner_up = out->best;
        out->best = *c;
        if (keep) { /* the new best's plan is kept, the former best's is dropped below */
            mcio_fdplan t = keep->fd;
            int *ts = keep->slots;
            keep->fd = fd, keep->slots = slots;
            fd = t, slots = ts;
        }
    } else if (out->runner_up.seconds < 0 || better(c, &out->runner_up)) {
        out->runner_up = *c;
    }
done:
    free(slots);
    mcio_fdplan_free(&fd);
    return st;
}

/* The table's candidate rows at configuration c (aggregators, buffer, depth), in the table's
 * order: each that is tried always, and one tried where the row before it does not fit. */
static int consider_planners(const mcio_cost_inputs *in, mcio_cost_prep *prep,
                             mcio_cost_config c, mcio_cost_choice *out, kept_plan *keep,
                             const seen_list *seen)
{
    mcio_planner_table lib = mcio_planners();
    const mcio_planner_table *t = in->planners ? in->planners : &lib;
    int st = MCIO_SUCCESS, before_unfit = 0;
    for (int s = 0; st == MCIO_SUCCESS && s < t->n; s++) {
        int kind = t->rows[s].candidate;
        if (kind == MCIO_CANDIDATE_NO || (kind == MCIO_CANDIDATE_UNFIT && !before_unfit))
            continue;
        c.strategy = s;
        st = consider(in, prep, &c, out, keep, seen);
        before_unfit = c.seconds >= 0 && !c.fits;
    }
    return st;
}

static int decide(const mcio_cost_inputs *in, mcio_cost_choice *out, kept_plan *keep,
                  const seen_list *seen)
{
    memset(out, 0, sizeof *out);
    out->runner_up.seconds = -1;
    out->best.seconds = -1;
    int st = MCIO_SUCCESS;
    int cb_fixed = in->fixed & MCIO_COST_FIX_CB;
    int interleaved = mcio_planner_interleaved(in->topo->nprocs, in->sum);
    /* The user's romio_cb_*: disable is independent only; enable is aggregated only;
     * automatic set explicitly is ROMIO's rule (independent when nothing interleaves). */
    int try_ind = !cb_fixed || in->params.cb == MCIO_CB_DISABLE ||
                  (in->params.cb == MCIO_CB_AUTOMATIC && !interleaved);
    int try_agg = !cb_fixed || in->params.cb == MCIO_CB_ENABLE ||
                  (in->params.cb == MCIO_CB_AUTOMATIC && interleaved);
    mcio_cost_config ind = {.independent = 1, .depth = 1, .seconds = -1};
    if (try_ind)
        st = consider(in, NULL, &ind, out, keep, seen);
    /* What the aggregated candidates' plans and predictions share, built once for them all. */
    mcio_cost_prep prep = {0};
    if (try_agg && st == MCIO_SUCCESS)
        st = mcio_cost_prep_build(in, &prep);
    static const int per_node[] = {1, 2, 4}, depths[] = {1, 2, 4};
    int64_t buffers[2] = {in->params.buffer_size, (int64_t)4 << 20};
    int nbuf = in->fixed & MCIO_COST_FIX_BUFFER || buffers[1] >= buffers[0] ? 1 : 2;
    int nper = in->fixed & MCIO_COST_FIX_CB_NODES ? 1 : 3;
    int ndep = in->fixed & MCIO_COST_FIX_DEPTH ? 1 : 3;
    for (int a = 0; try_agg && st == MCIO_SUCCESS && a < nper; a++)
        for (int b = 0; st == MCIO_SUCCESS && b < nbuf; b++)
            for (int k = 0; st == MCIO_SUCCESS && k < ndep; k++) {
                mcio_cost_config c = {.aggs_per_node = nper == 1 ? 0 : per_node[a],
                                      .buffer = buffers[b],
                                      .depth = ndep == 1 ? in->depth : depths[k]};
                st = consider_planners(in, &prep, c, out, keep, seen);
            }
    mcio_cost_prep_free(&prep);
    /* Aggregation only where it is predicted clearly faster than independent access: within
     * the margin of it, the model's error decides (on this host's /tmp at 8 ranks the
     * aggregated calls took 1.3-3x their predicted time and the independent ones 0.8-1.3x:
     * the collectives of a call cost more than the probe's back-to-back allreduces), and two
     * candidates 4 % apart were taken in turn by calls of one pattern, the aggregated one
     * measured 1.8x slower (docs/performance.md, fifth pass). On /tmp, where a fresh
     * calibration's figures put contiguous, hacc-aos and tapioca writes 1.12-1.15 apart and
     * aggregated, which then took 1.35x independent's time, the margin is 1.3 (docs/
     * performance.md, thirteenth pass). On GlusterFS the model errs the other way: its
     * independent reads took 0.9-1.3x their predicted time (median 1.15), its aggregated ones
     * 0.8-1.15x (median 1.0; oracle-21 and the twentieth pass), and every read it predicted
     * within a margin was faster aggregated: HACC-IO SoA's (aggregation predicted 1.06x
     * faster, independent at 0.71-0.88 of the best, aggregated, in three runs) and IOR's and
     * MPI-IO-test's (1.044x: 4 aggregators per node measured 1.05-1.23x faster than
     * independent access in two runs; twenty-first pass). There no margin. */
    double margin = mcio_cost_aggregation_margin(in->cost);
    if (st == MCIO_SUCCESS && ind.seconds >= 0 && ind.fits && !out->best.independent &&
        out->best.fits && ind.seconds < out->best.seconds * margin) {
        out->runner_up = out->best;
        out->best = ind;
        out->margin = margin;
        if (keep) { /* no plan for independent access */
            mcio_fdplan_free(&keep->fd);
            free(keep->slots);
            *keep = (kept_plan){{0}, NULL};
        }
    }
    return st;
}

double mcio_cost_aggregation_margin(const mcio_cost_table *t)
{
    return io_is_cpu(t) ? AGGREGATION_MARGIN_LOCAL : AGGREGATION_MARGIN_REMOTE;
}

int mcio_cost_decide(const mcio_cost_inputs *in, mcio_cost_choice *out)
{
    return decide(in, out, NULL, NULL);
}

int mcio_cost_decide_seen(const mcio_cost_inputs *in, mcio_cost_choice *out,
                          mcio_cost_config *seen, int cap)
{
    seen_list list = {seen, seen ? cap : 0};
    return decide(in, out, NULL, &list);
}

int mcio_cost_decide_plan(const mcio_cost_inputs *in, mcio_cost_choice *out, mcio_fdplan *fd,
                          int **slots)
{
    kept_plan keep = {{0}, NULL};
    int st = decide(in, out, &keep, NULL);
    if (st != MCIO_SUCCESS || out->best.independent) {
        mcio_fdplan_free(&keep.fd);
        free(keep.slots);
        keep = (kept_plan){{0}, NULL};
    }
    *fd = keep.fd;
    *slots = keep.slots;
    return st;
}

void mcio_cost_config_name(const mcio_cost_config *c, char *buf, size_t len)
{
    if (c->independent) {
        snprintf(buf, len, "independent");
        return;
    }
    char per[16] = "cb_nodes";
    if (c->aggs_per_node > 0)
        snprintf(per, sizeof per, "%d/node", c->aggs_per_node);
    int64_t b = c->buffer;
    const char *unit = "";
    if (b > 0 && b % (1 << 20) == 0)
        b >>= 20, unit = "m";
    else if (b > 0 && b % 1024 == 0)
        b >>= 10, unit = "k";
    const char *name = mcio_planner_name(c->strategy);
    snprintf(buf, len, "%s %s %" PRId64 "%s depth %d", name ? name : "?", per, b, unit, c->depth);
}
