/*
 * Aggregator placement: given file domains (the paper's partitions of contiguous data) and the
 * ranks' summaries, elect each domain's aggregator. Pure, usable by any planner: the romio
 * strategy calls mcio_place_apply on its plan; another strategy can call
 * mcio_place_aggregators on its own domains. mcio_place_describe tells a tool (mcio-plan, the
 * cost model) where each aggregator sits and what it costs.
 *
 * Papers: Tessier, Vishwanath, Jeannot, topology-aware data aggregation (TAPIOCA, 2017),
 * section 4.1: greedy, shortest path, longest path and the topology-aware C1 + C2 election
 * (shared/seeds/004); "Processor affinity of I/O aggregators on multi-core nodes"
 * (shared/seeds/001): the "distributed" socket rule, kept under "accumulated" binding.
 */
#ifndef MCIO_PLACEMENT_H
#define MCIO_PLACEMENT_H

#include "mcio_network.h"
#include "mcio_planner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mcio_placement hint, in the order of its names. */
enum mcio_placement {
    MCIO_PLACE_SPREAD = 0, /* default: cb_nodes spread evenly over nodes and ranks (romio) */
    MCIO_PLACE_GREEDY,     /* a rank with data in the domain (every key equal: the tie rule) */
    MCIO_PLACE_SHORTEST,   /* a rank of the domain nearest its I/O node */
    MCIO_PLACE_LONGEST,    /* a rank of the domain farthest from its I/O node */
    MCIO_PLACE_TOPOLOGY,   /* the rank minimizing C1 + C2 */
    MCIO_PLACE_COUNT
};
/* Every elected policy breaks ties between equal keys by the aggregators the candidate's node
 * already hosts, fewer first, then by the lower rank (mcio_place_better): on a pattern where
 * every rank has the same key (interleaved, as IOR's) the aggregators spread over the nodes
 * instead of filling the first nodes. */

/* The mcio_socket_rule hint. */
enum mcio_socket_rule {
    MCIO_SOCKET_NONE = 0,    /* take the rank the policy chose, whatever its socket */
    MCIO_SOCKET_DISTRIBUTED, /* a node's aggregators go round-robin over its sockets */
    MCIO_SOCKET_COUNT
};

/* Names of the values ("spread", "greedy", ...; "none", "distributed"), NULL out of range. */
const char *mcio_placement_name(int placement);
const char *mcio_socket_rule_name(int rule);

/*
 * Elect the aggregator of each of ndomains domains [fd_start[d], fd_end[d]), in domain order,
 * no rank twice. The candidates of a domain are the ranks whose summary overlaps it and that
 * are not already aggregators (any such rank when none is left); a rank's bytes in a domain are
 * estimated as its bytes times the share of its [start, end) inside the domain (exact for a
 * contiguous access). policy: enum mcio_placement other than SPREAD; socket_rule: enum
 * mcio_socket_rule. topo->net NULL means the flat network; job node k is described node k.
 * Requires ndomains <= topo->nprocs. Returns 0, MCIO_ERR_ARG (bad policy, more job nodes than
 * the network describes, too many domains) or MCIO_ERR_NOMEM.
 */
int mcio_place_aggregators(const mcio_topology *topo, const mcio_summary *sum, int policy,
                           int socket_rule, int ndomains, const int64_t *fd_start,
                           const int64_t *fd_end, int *agg_rank);

/*
 * The socket rule applied to an aggregator set chosen without regard to sockets (the spread
 * placement): each node keeps its number of aggregators, dealt round-robin over its sockets and
 * spread evenly over each socket's ranks. aggs[0..naggs) is rewritten, ascending.
 * Returns 0 or MCIO_ERR_NOMEM.
 */
int mcio_place_spread_sockets(const mcio_topology *topo, int naggs, int *aggs);

/*
 * Re-elect the aggregators of a finished plan as params.placement and params.socket_rule ask
 * (nothing changes for spread without the socket rule). Domains and rounds do not depend on
 * which rank aggregates, so only plan->agg_rank changes. Returns 0 or an MCIO_ERR_* code.
 */
int mcio_place_apply(const mcio_topology *topo, const mcio_summary *sum, mcio_planner_params params,
                     mcio_fdplan *plan);

/*
 * The policy's key for rank r as the aggregator of the domain [lo, hi): what rank r computes for
 * itself in TAPIOCA's distributed election (smaller is better, ties settled by
 * mcio_place_better; greedy's key is 0 for every rank). policy: enum mcio_placement other than
 * SPREAD. O(ranks). Returns 0, MCIO_ERR_ARG or MCIO_ERR_NOMEM.
 */
int mcio_place_key(const mcio_topology *topo, const mcio_summary *sum, int policy, int64_t lo,
                   int64_t hi, int r, double *key);

/* A candidate of an election: its key, the aggregators already elected on its node, its rank. */
typedef struct mcio_place_candidate {
    double key;
    int node_load;
    int rank;
} mcio_place_candidate;

/*
 * The order of every election, the pure one here and the engine's distributed one alike:
 * nonzero when a is elected before b, that is a smaller key, on equal keys fewer aggregators
 * on its node, then the lower rank. A total order on distinct ranks, so the winner does not
 * depend on the order candidates are compared in (the engine reduces in any order).
 */
int mcio_place_better(const mcio_place_candidate *a, const mcio_place_candidate *b);

/* Where an aggregator sits and what the model says its domain costs (seconds). */
typedef struct mcio_agg_info {
    int rank, node, socket;
    int io_node;  /* the I/O node it reaches (index in the topology file's io list) */
    int io_hops;  /* d(A, IO) */
    int senders;  /* ranks with data in the domain (|V_C|) */
    double bytes; /* estimated bytes of the domain */
    double c1;    /* max over senders i != A of l * d(i, A) + w(i, A) / B */
    double c2;    /* l * d(A, IO) + bytes / (|V_C| * B) */
} mcio_agg_info;

/*
 * Describe domain d's aggregator agg (any rank, to compare candidates) over the domain
 * [fd_start, fd_end). Pure; returns 0, MCIO_ERR_ARG (job nodes beyond the network) or
 * MCIO_ERR_NOMEM.
 */
int mcio_place_describe(const mcio_topology *topo, const mcio_summary *sum, int64_t fd_start,
                        int64_t fd_end, int agg, mcio_agg_info *info);

#ifdef __cplusplus
}
#endif
#endif
