/*
 * Aggregator placement policies. Pure: every rank runs them on the same allgathered summaries
 * and machine description and elects the same aggregators without talking. (TAPIOCA finds the
 * minimum with an MPI_MINLOC allreduce; here the inputs are already allgathered for the plan,
 * so the election costs no message at all.)
 *
 * Papers: Tessier, Vishwanath, Jeannot, topology-aware data aggregation (TAPIOCA, 2017),
 * section 4.1 (shared/seeds/004); processor affinity of I/O aggregators on multi-core nodes
 * (shared/seeds/001) for the socket rule.
 *
 * Glossary:
 *   partition   TAPIOCA's word for a file domain: ranks that access a contiguous part of the file
 *   V_C         the senders of a domain: ranks whose summary overlaps it
 *   w(i, A)     bytes rank i sends to aggregator A (estimated from i's summary)
 *   C1(A)       max over i in V_C, i != A, of l * d(i, A) + w(i, A) / B: the slowest sender
 *   C2(A)       l * d(A, IO) + (sum of w) / (|V_C| * B): reaching the I/O node, its data term
 *               normalized by |V_C| as the paper does so that C1 and C2 weigh alike
 *   greedy      any rank of the domain: every key is 0, so the tie rule alone decides
 *   shortest / longest   a rank on a node nearest to / farthest from the I/O node
 *   node load   the aggregators already elected on a node; on equal keys the candidate whose
 *               node hosts fewer wins, then the lower rank (mcio_place_better), so that equal
 *               keys (an interleaved pattern: every rank in every domain) spread over nodes
 *   distributed socket rule   a node's k-th aggregator goes to socket k mod sockets, so several
 *               aggregators of a node use different memory buses whatever the rank binding
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_placement.h"

static const char *const placement_names[] = {"spread", "greedy", "shortest", "longest",
                                              "topology"};
static const char *const socket_rule_names[] = {"none", "distributed"};

const char *mcio_placement_name(int placement)
{
    return placement >= 0 && placement < MCIO_PLACE_COUNT ? placement_names[placement] : NULL;
}

const char *mcio_socket_rule_name(int rule)
{
    return rule >= 0 && rule < MCIO_SOCKET_COUNT ? socket_rule_names[rule] : NULL;
}

static int socket_of(const mcio_topology *topo, int r)
{
    return topo->socket_of_rank ? topo->socket_of_rank[r] : 0;
}

static int nsockets(const mcio_topology *topo)
{
    return topo->sockets_per_node > 0 ? topo->sockets_per_node : 1;
}

/* The network to use, or NULL when the job has more nodes than it describes. */
static const mcio_network *network_of(const mcio_topology *topo, mcio_network *flat)
{
    *flat = mcio_network_flat();
    if (!topo->net)
        return flat;
    return topo->net->kind == MCIO_NET_FLAT || topo->nnodes <= topo->net->nnodes ? topo->net
                                                                                   : NULL;
}

/* w(i, domain): rank i's bytes times the share of its [start, end) inside the domain. */
static double bytes_in(const mcio_summary *s, int64_t lo, int64_t hi)
{
    if (s->bytes <= 0 || s->end <= lo || s->start >= hi)
        return 0;
    int64_t a = s->start > lo ? s->start : lo, b = s->end < hi ? s->end : hi;
    if (a == s->start && b == s->end)
        return (double)s->bytes;
    return (double)s->bytes * ((double)(b - a) / (double)(s->end - s->start));
}

/* Per domain: the senders, grouped by node, with the two largest w of each node so that C1 of
 * every candidate costs one pass over the sender nodes. */
typedef struct domain_view {
    int nsenders;
    double total;   /* sum of w */
    int nnodes;     /* distinct sender nodes */
    int *node;      /* [nnodes] */
    double *top1;   /* [nnodes] largest w on the node */
    int *top1_rank; /* [nnodes] */
    double *top2;   /* [nnodes] second largest (-1: none) */
    int *slot;      /* [topo->nnodes] index in node[], -1 when not a sender node */
    double *w;      /* [nprocs] */
} domain_view;

static void view_free(domain_view *v)
{
    free(v->node);
    free(v->top1);
    free(v->top1_rank);
    free(v->top2);
    free(v->slot);
    free(v->w);
    memset(v, 0, sizeof *v);
}

static int view_alloc(domain_view *v, const mcio_topology *topo)
{
    size_t nn = (size_t)topo->nnodes + 1, np = (size_t)topo->nprocs + 1;
    memset(v, 0, sizeof *v);
    v->node = malloc(nn * sizeof(int));
    v->top1 = malloc(nn * sizeof(double));
    v->top1_rank = malloc(nn * sizeof(int));
    v->top2 = malloc(nn * sizeof(double));
    v->slot = malloc(nn * sizeof(int));
    v->w = malloc(np * sizeof(double));
    if (!v->node || !v->top1 || !v->top1_rank || !v->top2 || !v->slot || !v->w) {
        view_free(v);
        return MCIO_ERR_NOMEM;
    }
    for (int j = 0; j < topo->nnodes; j++)
        v->slot[j] = -1;
    return MCIO_SUCCESS;
}

static void view_fill(domain_view *v, const mcio_topology *topo, const mcio_summary *sum,
                      int64_t lo, int64_t hi)
{
    for (int k = 0; k < v->nnodes; k++)
        v->slot[v->node[k]] = -1;
    v->nnodes = v->nsenders = 0;
    v->total = 0;
    for (int r = 0; r < topo->nprocs; r++) {
        double w = v->w[r] = bytes_in(&sum[r], lo, hi);
        if (sum[r].bytes <= 0 || sum[r].end <= lo || sum[r].start >= hi)
            continue;
        v->nsenders++;
        v->total += w;
        int j = topo->node_of_rank[r], k = v->slot[j];
        if (k < 0) {
            k = v->slot[j] = v->nnodes++;
            v->node[k] = j;
            v->top1[k] = w;
            v->top1_rank[k] = r;
            v->top2[k] = -1;
        } else if (w > v->top1[k]) {
            v->top2[k] = v->top1[k];
            v->top1[k] = w;
            v->top1_rank[k] = r;
        } else if (w > v->top2[k]) {
            v->top2[k] = w;
        }
    }
}

/* C1 of aggregator a on node ja, given the largest remote term of node ja (remote). */
static double c1_of(const domain_view *v, const mcio_network *net, int a, int ja, double remote)
{
    double c1 = remote;
    int k = v->slot[ja];
    if (k >= 0) {
        double w = v->top1_rank[k] == a ? v->top2[k] : v->top1[k];
        if (w >= 0 && w / net->bandwidth > c1)
            c1 = w / net->bandwidth; /* same node: no hop */
    }
    return c1;
}

/* max over sender nodes n != ja of l * d(n, ja) + top1(n) / B; 0 when none. */
static double remote_term(const domain_view *v, const mcio_network *net, int ja)
{
    double m = 0;
    for (int k = 0; k < v->nnodes; k++)
        if (v->node[k] != ja) {
            double t = net->latency * mcio_network_hops(net, v->node[k], ja) +
                       v->top1[k] / net->bandwidth;
            m = t > m ? t : m;
        }
    return m;
}

static double c2_of(const domain_view *v, const mcio_network *net, int ja)
{
    int n = v->nsenders > 0 ? v->nsenders : 1;
    return net->latency * mcio_network_io_hops(net, ja) + v->total / ((double)n * net->bandwidth);
}

/* The policy's key of rank r (smaller is better; ties settled by mcio_place_better). */
static double key_of(int policy, const domain_view *v, const mcio_network *net,
                     const mcio_topology *topo, int r, const double *remote)
{
    int j = topo->node_of_rank[r];
    switch (policy) {
    case MCIO_PLACE_SHORTEST:
        return mcio_network_io_hops(net, j);
    case MCIO_PLACE_LONGEST:
        return -(double)mcio_network_io_hops(net, j);
    case MCIO_PLACE_TOPOLOGY:
        return c1_of(v, net, r, j, remote[j]) + c2_of(v, net, j);
    default:
        return 0; /* greedy: the tie rule decides */
    }
}

/* What one election looks at. */
typedef struct election {
    const mcio_topology *topo;
    const mcio_summary *sum;
    const mcio_network *net;
    const domain_view *v;
    int policy, S;
    int64_t lo, hi;       /* the domain */
    const char *used;     /* [nprocs] already an aggregator */
    const int *load;      /* [nnodes * S] aggregators per (node, socket) */
    double *remote;       /* [nnodes] remote_term, computed on first use */
    char *remote_done;    /* [nnodes] */
} election;

/* The node load: aggregators already on node j, over its sockets. */
static int node_load(const election *e, int j)
{
    int n = 0;
    for (int s = 0; s < e->S; s++)
        n += e->load[j * e->S + s];
    return n;
}

int mcio_place_better(const mcio_place_candidate *a, const mcio_place_candidate *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    if (a->node_load != b->node_load)
        return a->node_load < b->node_load;
    return a->rank < b->rank;
}

static int is_sender(const election *e, int r)
{
    return e->sum[r].bytes > 0 && e->sum[r].end > e->lo && e->sum[r].start < e->hi;
}

/*
 * The best unused rank by the policy's key, ties by node load then rank (mcio_place_better),
 * among the senders (only_senders) or all ranks; restricted to node `node` and its sockets
 * holding `load` aggregators when node >= 0. -1 when none qualifies.
 */
static int elect(election *e, int only_senders, int node, int load)
{
    mcio_place_candidate best = {.key = DBL_MAX, .node_load = 0, .rank = -1};
    for (int r = 0; r < e->topo->nprocs; r++) {
        int j = e->topo->node_of_rank[r];
        if (e->used[r] || (only_senders && !is_sender(e, r)))
            continue;
        if (node >= 0 && (j != node || e->load[j * e->S + socket_of(e->topo, r)] != load))
            continue;
        if (e->policy == MCIO_PLACE_TOPOLOGY && !e->remote_done[j]) {
            e->remote[j] = remote_term(e->v, e->net, j);
            e->remote_done[j] = 1;
        }
        mcio_place_candidate c = {.key = key_of(e->policy, e->v, e->net, e->topo, r, e->remote),
                                  .node_load = node_load(e, j),
                                  .rank = r};
        if (best.rank < 0 || mcio_place_better(&c, &best))
            best = c;
    }
    return best.rank;
}

/* The socket rule: move the choice to the least-loaded sockets of its node, unless it is on one
 * already; senders first, then any unused rank of the node. */
static int distribute(election *e, int best)
{
    int j = e->topo->node_of_rank[best], min = -1;
    for (int r = 0; r < e->topo->nprocs; r++)
        if (!e->used[r] && e->topo->node_of_rank[r] == j) {
            int l = e->load[j * e->S + socket_of(e->topo, r)];
            min = min < 0 || l < min ? l : min;
        }
    if (e->load[j * e->S + socket_of(e->topo, best)] == min)
        return best;
    int r = elect(e, 1, j, min);
    return r >= 0 ? r : elect(e, 0, j, min);
}

int mcio_place_aggregators(const mcio_topology *topo, const mcio_summary *sum, int policy,
                           int socket_rule, int ndomains, const int64_t *fd_start,
                           const int64_t *fd_end, int *agg_rank)
{
    mcio_network flat;
    const mcio_network *net = network_of(topo, &flat);
    if (!net || policy <= MCIO_PLACE_SPREAD || policy >= MCIO_PLACE_COUNT ||
        ndomains > topo->nprocs || ndomains < 0)
        return MCIO_ERR_ARG;
    int st = MCIO_SUCCESS, S = nsockets(topo);
    domain_view v;
    char *used = calloc((size_t)topo->nprocs + 1, 1);
    int *load = calloc((size_t)topo->nnodes * S + 1, sizeof(int));
    double *remote = malloc(((size_t)topo->nnodes + 1) * sizeof(double));
    char *remote_done = calloc((size_t)topo->nnodes + 1, 1);
    if (!used || !load || !remote || !remote_done || view_alloc(&v, topo) != MCIO_SUCCESS) {
        free(used);
        free(load);
        free(remote);
        free(remote_done);
        return MCIO_ERR_NOMEM;
    }
    election e = {.topo = topo, .sum = sum, .net = net, .v = &v, .policy = policy, .S = S,
                  .used = used, .load = load, .remote = remote, .remote_done = remote_done};
    for (int d = 0; d < ndomains; d++) {
        e.lo = fd_start[d];
        e.hi = fd_end[d];
        view_fill(&v, topo, sum, e.lo, e.hi);
        memset(remote_done, 0, (size_t)topo->nnodes);
        /* Unused senders; when every sender already aggregates, any unused rank. */
        int best = elect(&e, 1, -1, 0);
        if (best < 0)
            best = elect(&e, 0, -1, 0);
        if (socket_rule == MCIO_SOCKET_DISTRIBUTED)
            best = distribute(&e, best);
        agg_rank[d] = best;
        used[best] = 1;
        load[topo->node_of_rank[best] * S + socket_of(topo, best)]++;
    }
    view_free(&v);
    free(used);
    free(load);
    free(remote);
    free(remote_done);
    return st;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int mcio_place_spread_sockets(const mcio_topology *topo, int naggs, int *aggs)
{
    int S = nsockets(topo), st = MCIO_SUCCESS;
    size_t cells = (size_t)topo->nnodes * S + 1;
    int *per_node = calloc((size_t)topo->nnodes + 1, sizeof(int));
    int *size = calloc(cells, sizeof(int));  /* ranks per (node, socket) */
    int *count = calloc(cells, sizeof(int)); /* aggregators per (node, socket) */
    int *seen = calloc(cells, sizeof(int));
    if (!per_node || !size || !count || !seen) {
        st = MCIO_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < naggs; i++)
        per_node[topo->node_of_rank[aggs[i]]]++;
    for (int r = 0; r < topo->nprocs; r++)
        size[topo->node_of_rank[r] * S + socket_of(topo, r)]++;
    /* Deal each node's aggregators round-robin over its sockets that have ranks left. */
    for (int j = 0; j < topo->nnodes; j++)
        for (int placed = 0; placed < per_node[j];)
            for (int s = 0; s < S && placed < per_node[j]; s++)
                if (count[j * S + s] < size[j * S + s]) {
                    count[j * S + s]++;
                    placed++;
                }
    /* Within a socket, spread evenly over its ranks: local indices floor(i * size / count). */
    int n = 0;
    for (int r = 0; r < topo->nprocs; r++) {
        int c = topo->node_of_rank[r] * S + socket_of(topo, r), idx = seen[c]++;
        for (int i = 0; i < count[c]; i++)
            if ((int)((int64_t)i * size[c] / count[c]) == idx) {
                aggs[n++] = r;
                break;
            }
    }
    qsort(aggs, (size_t)n, sizeof(int), cmp_int);
done:
    free(per_node);
    free(size);
    free(count);
    free(seen);
    return st;
}

int mcio_place_apply(const mcio_topology *topo, const mcio_summary *sum, mcio_planner_params params,
                     mcio_fdplan *plan)
{
    if (params.placement == MCIO_PLACE_SPREAD)
        return params.socket_rule == MCIO_SOCKET_DISTRIBUTED
                   ? mcio_place_spread_sockets(topo, plan->ndomains, plan->agg_rank)
                   : MCIO_SUCCESS;
    return mcio_place_aggregators(topo, sum, params.placement, params.socket_rule, plan->ndomains,
                                  plan->fd_start, plan->fd_end, plan->agg_rank);
}

int mcio_place_key(const mcio_topology *topo, const mcio_summary *sum, int policy, int64_t lo,
                   int64_t hi, int r, double *key)
{
    mcio_network flat;
    const mcio_network *net = network_of(topo, &flat);
    if (!net || policy <= MCIO_PLACE_SPREAD || policy >= MCIO_PLACE_COUNT || r < 0 ||
        r >= topo->nprocs)
        return MCIO_ERR_ARG;
    domain_view v;
    double *remote = malloc(((size_t)topo->nnodes + 1) * sizeof(double));
    if (!remote || view_alloc(&v, topo) != MCIO_SUCCESS) {
        free(remote);
        return MCIO_ERR_NOMEM;
    }
    view_fill(&v, topo, sum, lo, hi);
    int j = topo->node_of_rank[r];
    if (policy == MCIO_PLACE_TOPOLOGY)
        remote[j] = remote_term(&v, net, j);
    *key = key_of(policy, &v, net, topo, r, remote);
    free(remote);
    view_free(&v);
    return MCIO_SUCCESS;
}

int mcio_place_describe(const mcio_topology *topo, const mcio_summary *sum, int64_t fd_start,
                        int64_t fd_end, int agg, mcio_agg_info *info)
{
    mcio_network flat;
    const mcio_network *net = network_of(topo, &flat);
    if (!net || agg < 0 || agg >= topo->nprocs)
        return MCIO_ERR_ARG;
    domain_view v;
    if (view_alloc(&v, topo) != MCIO_SUCCESS)
        return MCIO_ERR_NOMEM;
    view_fill(&v, topo, sum, fd_start, fd_end);
    int j = topo->node_of_rank[agg];
    *info = (mcio_agg_info){.rank = agg,
                            .node = j,
                            .socket = socket_of(topo, agg),
                            .io_node = mcio_network_io_of(net, j),
                            .io_hops = mcio_network_io_hops(net, j),
                            .senders = v.nsenders,
                            .bytes = v.total,
                            .c1 = c1_of(&v, net, agg, j, remote_term(&v, net, j)),
                            .c2 = c2_of(&v, net, j)};
    view_free(&v);
    return MCIO_SUCCESS;
}
