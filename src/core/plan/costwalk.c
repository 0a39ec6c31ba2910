/*
 * The walk of an aggregated plan's domains and ranks that the cost model's prediction starts
 * from (costmodel.c, whose top note gives the papers and the glossary), and what every
 * candidate of one decision shares (mcio_cost_prep): the ranks' merged spans, the request map,
 * the ranks per node, and the walks of plans already walked (issue 50: the candidates that
 * differ only in a pipeline's depth, or in a buffer their sub-buffers cut alike, have one plan).
 *
 * Glossary (and costmodel.c): a rank's *messages* are the windows (rounds) of other ranks'
 * domains its span meets; *met* and *cover* count them per domain in one pass over the ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "costmodel_internal.h"

/* The share of rank r's bytes that falls in [a, b) (spread evenly over its span, as the
 * memory strategy's request map does). */
static double share_in(const mcio_summary *s, int64_t a, int64_t b)
{
    int64_t lo = s->start > a ? s->start : a, hi = s->end < b ? s->end : b;
    double span = (double)(s->end - s->start);
    return hi > lo && span > 0 ? (double)(hi - lo) / span * (double)s->bytes : 0;
}

/* mcio_fdplan_first_after(fd, off) in O(1) where the domains are about even (romio's): from
 * the domain an even split would give, a few steps either way, else the binary search. */
static int domain_after(const mcio_fdplan *fd, int64_t off)
{
    int nd = fd->ndomains;
    if (nd <= 0 || off < fd->fd_start[0] || off >= fd->fd_end[nd - 1])
        return mcio_fdplan_first_after(fd, off);
    double span = (double)(fd->fd_end[nd - 1] - fd->fd_start[0]);
    int g = (int)((double)(off - fd->fd_start[0]) / span * nd);
    g = g < 0 ? 0 : g >= nd ? nd - 1 : g;
    for (int step = 0; step < 4; step++) {
        if (g > 0 && fd->fd_end[g - 1] > off)
            g--;
        else if (fd->fd_end[g] <= off)
            g++; /* below nd: off < fd_end[nd - 1] */
        else
            return g; /* the first domain ending after off */
    }
    return mcio_fdplan_first_after(fd, off);
}

/* The slowest sender's side (receiver's, on reads): its messages to other ranks' domains, and
 * its pieces packed into them. prefix[d]: rounds of the domains before d; own[r]: the domain
 * rank r aggregates, or -1; ranks[node]: its ranks. A rank's messages are the windows it
 * meets, which summed over the ranks are each domain's messages (domain_messages): met[d]
 * (added to) the windows of d met by
 * the ranks that meet d in part, cover[d] (a difference array: +1 at the first domain a rank
 * covers whole, -1 past its last) the ranks that cover d whole. One pass over the ranks, not
 * one search of the ranks per window (a 16 MiB-a-rank IOR file has 10^6 windows of 16 MiB
 * at 10^6 ranks). */
static double senders(const mcio_cost_inputs *in, const mcio_fdplan *fd, const int64_t *prefix,
                      const int *own, const int *ranks, int64_t *met, int64_t *cover, double *cpu)
{
    const mcio_cost_table *t = in->cost;
    int nd = fd->ndomains;
    double worst = 0;
    for (int r = 0; r < in->topo->nprocs; r++) {
        const mcio_summary *s = &in->sum[r];
        if (s->bytes <= 0)
            continue;
        /* Its windows: the first and last domain it meets in part, those between whole. */
        int d0 = domain_after(fd, s->start), d1 = domain_after(fd, s->end - 1);
        double nmsg = 0, sent = (double)s->bytes;
        if (d0 < nd) {
            int last = d1 < nd ? d1 : nd - 1;
            int64_t first = mcio_fdplan_rounds_met(fd, d0, s->start, s->end);
            met[d0] += first;
            nmsg = (double)first;
            if (last > d0) {
                int64_t final = mcio_fdplan_rounds_met(fd, last, s->start, s->end);
                met[last] += final;
                cover[d0 + 1]++, cover[last]--;
                nmsg += (double)(prefix[last] - prefix[d0 + 1]) + (double)final;
            }
        }
        if (own[r] >= 0) {
            nmsg -= (double)mcio_fdplan_rounds_met(fd, own[r], s->start, s->end);
            sent -= share_in(s, fd->fd_start[own[r]], fd->fd_end[own[r]]);
        }
        /* A sender's side: its messages, and its pieces packed into them (each a block of
         * the message's datatype). Its CPU: the messages and the packing; a message's bytes
         * are copied once, by the aggregator's side (Open MPI's and MPICH's single copy
         * between the ranks of a node), where predict_plan counts them. */
        double cpu_r = nmsg * t->msg + sent * t->copy_byte +
                       sent * mcio_cost_piece_density(in->topo, in->sum, r) * t->piece;
        /* Its messages take crowd times what the ping-pong priced where its node's ranks
         * outnumber the cores (mcio_cost_crowd); its CPU work does not grow with them. */
        double crowd = mcio_cost_crowd(t, ranks[in->topo->node_of_rank[r]]);
        double ts = cpu_r + (crowd - 1) * nmsg * t->msg + crowd * sent * t->msg_byte;
        worst = ts > worst ? ts : worst;
        cpu[in->topo->node_of_rank[r]] += cpu_r;
    }
    return worst;
}

/* predict_plan's first step: per domain d, its bytes, those from other ranks than its
 * aggregator (remote), its rounds' prefix sum, and own[aggregator] = d. */
static void walk_domains(const mcio_cost_inputs *in, const mcio_fdplan *fd, const mcio_reqmap *map,
                         double *bytes, double *remote, int64_t *prefix, int *own)
{
    for (int d = 0; d < fd->ndomains; d++) {
        own[fd->agg_rank[d]] = d;
        prefix[d + 1] = prefix[d] + fd->rounds[d];
        if (fd->rounds[d] <= 0)
            continue;
        bytes[d] = (double)mcio_reqmap_bytes(map, fd->fd_start[d], fd->fd_end[d]);
        const mcio_summary *ag = &in->sum[fd->agg_rank[d]];
        remote[d] = ag->bytes > 0 ? bytes[d] - share_in(ag, fd->fd_start[d], fd->fd_end[d])
                                  : bytes[d];
    }
}

/* Each domain's messages: the windows its ranks meet (senders' met and cover), but for its
 * aggregator's own data, which sends no message. */
static void domain_messages(const mcio_cost_inputs *in, const mcio_fdplan *fd, const int64_t *met,
                            const int64_t *cover, double *msgs)
{
    int64_t covering = 0;
    for (int d = 0; d < fd->ndomains; d++) {
        covering += cover[d];
        if (fd->rounds[d] <= 0)
            continue;
        msgs[d] = (double)(met[d] + covering * fd->rounds[d]);
        const mcio_summary *ag = &in->sum[fd->agg_rank[d]];
        if (ag->bytes > 0)
            msgs[d] -= (double)mcio_fdplan_rounds_met(fd, d, ag->start, ag->end);
    }
}

/* The rank's pieces per byte over all the ranks (mcio_cost_predict_plan's density): the
 * blocks an aggregator unpacks per remote byte. */
static double mean_density(const mcio_cost_inputs *in)
{
    const mcio_topology *topo = in->topo;
    double all_bytes = 0, all_pieces = 0; /* pieces per byte over the ranks */
    for (int r = 0; r < topo->nprocs; r++) {
        all_bytes += (double)in->sum[r].bytes;
        all_pieces += mcio_cost_piece_density(topo, in->sum, r) * (double)in->sum[r].bytes;
    }
    return all_bytes > 0 ? all_pieces / all_bytes : 0;
}

int mcio_cost_prep_build(const mcio_cost_inputs *in, mcio_cost_prep *p)
{
    const mcio_topology *topo = in->topo;
    memset(p, 0, sizeof *p);
    p->ranks = calloc((size_t)topo->nnodes + 1, sizeof(int));
    p->own = malloc(((size_t)topo->nprocs + 1) * sizeof(int));
    if (!p->ranks || !p->own || mcio_spans_build(topo->nprocs, in->sum, &p->spans) != 0 ||
        mcio_reqmap_build(topo->nprocs, in->sum, &p->map) != MCIO_SUCCESS)
        return MCIO_ERR_NOMEM;
    p->topo = *topo;
    p->topo.spans = &p->spans;
    p->density = mean_density(in);
    for (int r = 0; r < topo->nprocs; r++) {
        p->ranks[topo->node_of_rank[r]]++;
        p->own[r] = -1;
    }
    return MCIO_SUCCESS;
}

void mcio_cost_prep_free(mcio_cost_prep *p)
{
    for (int k = 0; k < MCIO_COST_WALKED; k++) {
        mcio_fdplan_free(&p->walked[k].fd);
        free(p->walked[k].found);
    }
    mcio_spans_free(&p->spans);
    mcio_reqmap_free(&p->map);
    free(p->ranks);
    free(p->own);
    memset(p, 0, sizeof *p);
}

/* predict_plan's walk of the domains and the ranks: per domain its bytes, remote bytes and
 * messages; per node its senders' CPU (cpu, added to); the slowest sender's time in *worst.
 * 0 or MCIO_ERR_NOMEM. */
static int walk_plan(const mcio_cost_inputs *in, mcio_cost_prep *prep, const mcio_fdplan *fd,
                     double *bytes, double *remote, double *msgs, double *cpu, double *worst)
{
    int nd = fd->ndomains;
    int64_t *counts = calloc(((size_t)nd + 1) * 3, sizeof(int64_t));
    if (!counts)
        return MCIO_ERR_NOMEM;
    int64_t *prefix = counts, *met = prefix + nd + 1, *cover = met + nd + 1;
    walk_domains(in, fd, &prep->map, bytes, remote, prefix, prep->own);
    *worst = senders(in, fd, prefix, prep->own, prep->ranks, met, cover, cpu);
    domain_messages(in, fd, met, cover, msgs);
    for (int d = 0; d < nd; d++) /* the scratch back to -1 for the next walk */
        prep->own[fd->agg_rank[d]] = -1;
    free(counts);
    return MCIO_SUCCESS;
}

int mcio_cost_domain_messages(const mcio_cost_inputs *in, mcio_cost_prep *prep,
                              const mcio_fdplan *fd, double *msgs)
{
    double worst, *v = calloc(((size_t)fd->ndomains + 1) * 2 + (size_t)in->topo->nnodes + 1,
                              sizeof(double));
    int st = v ? walk_plan(in, prep, fd, v, v + fd->ndomains + 1, msgs,
                            v + 2 * ((size_t)fd->ndomains + 1), &worst)
               : MCIO_ERR_NOMEM;
    free(v);
    return st;
}


/* Are a and b one plan (domains, aggregators, windows and rounds)? */
static int same_plan(const mcio_fdplan *a, const mcio_fdplan *b)
{
    size_t n = (size_t)b->ndomains, w = n * sizeof(int64_t);
    return a->ndomains == b->ndomains && a->ndomains > 0 &&
           !memcmp(a->fd_start, b->fd_start, w) && !memcmp(a->fd_end, b->fd_end, w) &&
           !memcmp(a->win_start, b->win_start, w) && !memcmp(a->win_end, b->win_end, w) &&
           !memcmp(a->window, b->window, w) && !memcmp(a->agg_rank, b->agg_rank, n * sizeof(int)) &&
           !memcmp(a->rounds, b->rounds, n * sizeof(int));
}

/* Keep fd's walk (the parts of len doubles each, then worst) in prep, replacing the oldest
 * kept; nothing kept where memory is short (the next such plan is walked again). */
static void keep_walk(mcio_cost_prep *prep, const mcio_fdplan *fd, double *const *part,
                      const size_t *len, double worst)
{
    mcio_cost_walked *k = &prep->walked[prep->next];
    mcio_fdplan_free(&k->fd);
    free(k->found);
    k->found = malloc((len[0] + len[1] + len[2] + len[3] + 1) * sizeof(double));
    if (!k->found || mcio_fdplan_copy(fd, &k->fd) != MCIO_SUCCESS) {
        free(k->found);
        k->found = NULL;
        return;
    }
    double *f = k->found;
    for (int i = 0; i < 4; f += len[i], i++)
        memcpy(f, part[i], len[i] * sizeof(double));
    *f = worst;
    prep->next = (prep->next + 1) % MCIO_COST_WALKED;
}

int mcio_cost_walk_ranks(const mcio_cost_inputs *in, mcio_cost_prep *prep, const mcio_fdplan *fd,
                         double *bytes, double *remote, double *msgs, double *cpu, double *worst)
{
    size_t nd = (size_t)fd->ndomains, nn = (size_t)in->topo->nnodes;
    double *const part[] = {bytes, remote, msgs, cpu};
    const size_t len[] = {nd, nd, nd, nn};
    for (int k = 0; k < MCIO_COST_WALKED; k++) {
        const mcio_cost_walked *w = &prep->walked[k];
        if (!w->found || !same_plan(&w->fd, fd))
            continue;
        const double *f = w->found;
        for (int i = 0; i < 4; f += len[i], i++)
            memcpy(part[i], f, len[i] * sizeof(double));
        *worst = *f;
        return MCIO_SUCCESS;
    }
    memset(cpu, 0, nn * sizeof(double));
    int st = walk_plan(in, prep, fd, bytes, remote, msgs, cpu, worst);
    if (st == MCIO_SUCCESS)
        keep_walk(prep, fd, part, len, *worst);
    return st;
}
