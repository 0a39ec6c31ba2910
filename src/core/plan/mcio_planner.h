/*
 * The planner: pure functions from access summaries to a two-phase I/O plan.
 * No MPI, no file access, no globals: plain arrays in, plain structs out. Every rank runs the
 * same functions on the same allgathered inputs and so reaches the same plan without talking.
 *
 * Glossary (two-phase I/O, Thakur et al.; the words the papers in shared/seeds use):
 *   extent          a (file offset, length) pair one rank asks for, with where its bytes sit in memory
 *   aggregate access region  [smallest offset, largest end) over all ranks' extents
 *   file domain     a contiguous part of the file whose bytes one aggregator reads or writes
 *   aggregator      the rank that gathers a file domain's data and does its file access
 *   collective buffer  the aggregator's memory for one round of its file domain
 *   round           one step of the aggregator's walk over its domain, one collective buffer at a time
 *   piece           the part of an extent that falls in one round of one file domain
 *   run             a maximal stretch of bytes in a round that some rank asked for
 */
#ifndef MCIO_PLANNER_H
#define MCIO_PLANNER_H

#include <stddef.h>
#include <stdint.h>

#include "mcio_base.h" /* MCIO_DETAIL_LEN, status codes */

#ifdef __cplusplus
extern "C" {
#endif

/* One normalized extent: file range and where its bytes are in memory (relative to a base). */
typedef struct mcio_extent {
    int64_t off;
    int64_t len;
    int64_t mem; /* displacement from the caller's base pointer (or an absolute address) */
} mcio_extent;

/* What every rank tells the others before planning (allgathered). */
typedef struct mcio_summary {
    int64_t start; /* first byte accessed; meaningless when bytes == 0 */
    int64_t end;   /* one past the last byte accessed */
    int64_t bytes; /* bytes accessed (0: the rank takes no part in file domains) */
} mcio_summary;

/* Collective buffering (ROMIO's romio_cb_write / romio_cb_read). */
enum mcio_cb_mode {
    MCIO_CB_AUTOMATIC = 0, /* aggregate only when ranks' accesses interleave */
    MCIO_CB_ENABLE,        /* always aggregate */
    MCIO_CB_DISABLE        /* no aggregation: each rank accesses its own pieces (the engine) */
};

/* Planning parameters, parsed from hints once and passed by value. */
typedef struct mcio_planner_params {
    int64_t buffer_size; /* cb_buffer_size: collective buffer per aggregator */
    int cb_nodes;        /* number of aggregators wanted; 0 = one per node */
    int64_t stripe;      /* striping_unit: align domains and rounds to it; 0 = no alignment */
    int cb;              /* enum mcio_cb_mode for the operation being planned */
    int placement;       /* enum mcio_placement (mcio_placement.h): 0 = spread */
    int socket_rule;     /* enum mcio_socket_rule (mcio_placement.h): 0 = none */
    /* The memory strategy (memory.c); the others ignore these. */
    int nah;          /* mcio_nah: most aggregators one node may host */
    int64_t msgind;   /* mcio_msgind: requested bytes per file domain (a leaf of the tree) */
    int64_t msggroup; /* mcio_msggroup: requested bytes per aggregation group, about */
    int64_t memmin;   /* mcio_memmin: least memory a node must offer to host an aggregator */
    int memory_margin; /* mcio_memory_margin: percent of a node's memory auto leaves free */
} mcio_planner_params;

/*
 * The plan: file domains sorted by offset, disjoint, each with its own aggregator rank (no rank
 * aggregates two domains). Round k of domain d covers
 *   [win_start[d] + k * window[d], min(win_start[d] + (k + 1) * window[d], win_end[d])).
 */
typedef struct mcio_fdplan {
    int ndomains;
    int *agg_rank;      /* [ndomains] */
    int64_t *fd_start;  /* [ndomains] domain, end exclusive; empty when fd_start == fd_end */
    int64_t *fd_end;    /* [ndomains] */
    int64_t *win_start; /* [ndomains] first byte of round 0 (data in the domain starts here) */
    int64_t *win_end;   /* [ndomains] end of the data in the domain */
    int64_t *window;    /* [ndomains] bytes per round: the collective buffer size */
    int *rounds;        /* [ndomains] */
    int max_rounds;     /* rounds of the busiest aggregator */
    int64_t max_buffer; /* largest collective buffer any aggregator needs */
    int fallbacks;      /* domains whose aggregator got less memory than the strategy wanted */
    int memory_conscious; /* the auto strategy planned with the memory strategy (memmodel.c) */
} mcio_fdplan;

/* --- extents.c --- */

/*
 * Validate, sort and merge one rank's extent list. mem[i] is where extent i's bytes are in
 * memory. Zero-length extents are dropped; extents adjacent in both file and memory are merged.
 * Overlapping extents are an error when reject_overlap is set (writes), allowed otherwise.
 * On success *out (malloc'd, may be NULL when *nout == 0) holds the sorted extents.
 * Returns 0, or an MCIO_ERR_* code with a message in detail.
 */
int mcio_extents_normalize(int64_t count, const int64_t *off, const int64_t *len, const int64_t *mem,
                           int reject_overlap, mcio_extent **out, int64_t *nout,
                           char detail[MCIO_DETAIL_LEN]);

/* The summary of a normalized extent list. */
mcio_summary mcio_extents_summary(const mcio_extent *ext, int64_t n);

/* A rank's own access (romio_cb_write/read disable) packs pieces that meet in the file but not
 * in memory (rows between guard cells) into a buffer of this many bytes, one system call per
 * buffer (ROMIO's ind_wr_buffer_size is 512 KiB). */
enum { MCIO_OWN_PACK = 1 << 20 };

/* The end j of the extents [i, j) of a normalized list that one system call of own access
 * moves: each begins where the one before ends in the file, MCIO_OWN_PACK bytes together at
 * most; j == i + 1 for an extent that goes alone. */
int64_t mcio_own_pack_end(const mcio_extent *ext, int64_t i, int64_t n);

/* The system calls of a rank's own access to a normalized list (mcio_own_pack_end's runs). */
int64_t mcio_own_calls(const mcio_extent *ext, int64_t n);

/* --- romio.c: the classic even split (ROMIO's ADIOI_Calc_file_domains) --- */

/*
 * Choose aggregators: params.cb_nodes of them (one per node when 0), spread evenly over the
 * nodes and, within a node, over its ranks. node_of_rank[r] in [0, nnodes).
 * Writes up to nprocs ranks, ascending, to aggs; returns how many.
 */
int mcio_planner_choose_aggregators(int nprocs, const int *node_of_rank, int nnodes, int cb_nodes,
                                    int *aggs);

/*
 * The romio strategy: split the aggregate access region evenly among the aggregators (domain
 * boundaries on stripe multiples when params.stripe > 0), then fill in rounds.
 * Returns 0, MCIO_ERR_NOMEM, or MCIO_ERR_ARG (too many rounds, see mcio_fdplan_fill_rounds).
 */
int mcio_planner_romio(int nprocs, const mcio_summary *sum, const int *node_of_rank, int nnodes,
                       mcio_planner_params params, mcio_fdplan *plan);

/* --- independent.c: every rank its own aggregator (accesses that do not interleave) --- */

/*
 * Do the ranks' accessed regions [start, end) overlap? ROMIO's test for collective buffering
 * (ADIOI_GEN_WriteStridedColl): when no two ranks' regions overlap, aggregation only adds
 * copies, and each rank is better off accessing its own data.
 */
int mcio_planner_interleaved(int nprocs, const mcio_summary *sum);

/*
 * The independent plan: one file domain per rank with data, its region [start, end), that rank
 * its aggregator, rounds of the buffer size. Requires regions that do not interleave.
 */
int mcio_planner_independent(int nprocs, const mcio_summary *sum, mcio_planner_params params,
                             mcio_fdplan *plan);

/*
 * romio_cb_write / romio_cb_read disable (MCIO_CB_DISABLE): no file domains to aggregate; the
 * plan lists each rank with data as the aggregator of its own span [start, end), in rank
 * order, with no rounds and no buffer (the engine's own-access executor moves each rank's
 * pieces; the statistics list the ranks). Pure; 0 or MCIO_ERR_NOMEM.
 */
int mcio_planner_own(int nprocs, const mcio_summary *sum, mcio_fdplan *plan);

/* --- planners.c: the strategies, by name (the mcio_strategy hint) --- */

/* What the planner knows of the machine: a plain view of the engine's machine description. */
typedef struct mcio_topology {
    int nprocs;
    int nnodes;
    const int *node_of_rank;   /* [nprocs] */
    const int *socket_of_rank; /* [nprocs] socket within the node */
    int sockets_per_node;
    const struct mcio_network *net; /* hops and I/O nodes (mcio_network.h); NULL = flat */
    const int64_t *node_mem; /* [nnodes] bytes a node may spend on collective buffers; NULL: no limit */
    const int64_t *rank_extents; /* [nprocs] each rank's extents (the memory model); NULL: unknown */
    const int64_t *rank_calls;   /* [nprocs] the system calls of each rank's own access
                                    (mcio_own_calls); NULL: one per extent */
    /* The summaries' merged spans (mcio_spans_build), built once by a caller that plans one
     * call many times (the cost model's candidates); NULL: each plan builds them. */
    const struct mcio_spans *spans;
} mcio_topology;

/* As mcio_planner_romio, on topo's ranks and nodes, with topo->spans when given (then the
 * region and the rounds cost O(ndomains log spans), not a sort of the ranks' spans). */
int mcio_planner_romio_topo(const mcio_topology *topo, const mcio_summary *sum,
                            mcio_planner_params params, mcio_fdplan *plan);

/* A planning strategy: summaries in, a plan out. Pure; returns 0 or an MCIO_ERR_* code. */
typedef struct mcio_planner {
    const char *name;
    int (*plan)(const mcio_topology *topo, const mcio_summary *sum, mcio_planner_params params,
                mcio_fdplan *plan);
    /* The strategy keeps every node's collective buffers within its memory, which the
     * independent plan (a buffer for every rank with data) does not: always use the strategy. */
    int keeps_node_memory;
    /* As a candidate of strategy auto: the cost model (costmodel.c) tries the table's rows in
     * order for each number of aggregators per node, buffer and depth (enum mcio_candidate). */
    int candidate;
    /* How the cost model plans the candidate, when not with plan (NULL). */
    int (*cost_plan)(const mcio_topology *topo, const mcio_summary *sum,
                     mcio_planner_params params, mcio_fdplan *plan);
} mcio_planner;

enum mcio_candidate {
    MCIO_CANDIDATE_NO = 0, /* not a candidate of strategy auto */
    MCIO_CANDIDATE_ALWAYS, /* tried at every configuration */
    MCIO_CANDIDATE_UNFIT   /* tried where the row before it was priced and does not fit the
                              nodes' memory: a different plan only there (the memory strategy) */
};

/* The planners: a table of rows indexed by enum mcio_strategy (and beyond, for rows of one's
 * own: a new planner is a function and a row). */
typedef struct mcio_planner_table {
    const mcio_planner *rows;
    int n;
} mcio_planner_table;

/* The library's table (planners.c). */
mcio_planner_table mcio_planners(void);

/* Row s of table t (NULL: the library's), or NULL past the last. */
const mcio_planner *mcio_planner_row(const mcio_planner_table *t, int s);

/* The strategy called name, or NULL. */
const mcio_planner *mcio_planner_find(const char *name);

/* mcio_strategy, parsed: the index of a strategy in the table of planners.c (the order of
 * mcio_planner_name). A new strategy is a new row there and a new name here. */
enum mcio_strategy {
    MCIO_STRATEGY_ROMIO = 0,
    MCIO_STRATEGY_MEMORY,
    MCIO_STRATEGY_AUTO, /* the default: the cost model chooses per call (mcio_costmodel.h) */
    MCIO_STRATEGY_FIT   /* romio when it fits the nodes' memory, else memory (memmodel.c) */
};

/* The planner of strategy s (enum mcio_strategy), or NULL past the last. */
const mcio_planner *mcio_planner_at(int s);

/*
 * Plan with strategy pl, or with mcio_planner_independent when collective buffering is not
 * enabled (params.cb), the accesses do not interleave and the strategy does not keep node
 * memory budgets. Pure; 0 or an MCIO_ERR_* code.
 */
int mcio_planner_make(const mcio_planner *pl, const mcio_topology *topo, const mcio_summary *sum,
                      mcio_planner_params params, mcio_fdplan *plan);

/* Whether mcio_planner_make takes the independent plan rather than strategy pl (the test above). */
int mcio_planner_is_independent(const mcio_planner *pl, int nprocs, const mcio_summary *sum,
                                mcio_planner_params params);

/* The name of strategy i (0-based), or NULL past the last: to list them in messages. */
const char *mcio_planner_name(int i);

/* --- memory.c: memory-conscious collective I/O (glossary at the top of memory.c) --- */

/*
 * Requested bytes as the planner sees them. It knows each rank's summary only (first byte,
 * end, bytes), so it spreads a rank's bytes evenly over its span: the bytes requested in a file
 * region are the sum over ranks of (overlap with the span) x (bytes / span). Regions no rank's
 * span reaches count nothing; a dense rank (bytes == span) counts exactly.
 * F(x), the bytes before x, is piecewise linear with breakpoints at the spans' ends.
 */
typedef struct mcio_reqmap {
    int64_t n;
    int64_t *x;    /* [n] breakpoints, ascending */
    double *f;     /* [n] F(x[i]) */
    double *slope; /* [n] dF/dx on [x[i], x[i+1]) */
} mcio_reqmap;

int mcio_reqmap_build(int nprocs, const mcio_summary *sum, mcio_reqmap *m);
/* Requested bytes in [a, b), rounded to the nearest integer. */
int64_t mcio_reqmap_bytes(const mcio_reqmap *m, int64_t a, int64_t b);
void mcio_reqmap_free(mcio_reqmap *m);

/* Aggregation groups (paper section 3.1): disjoint file regions, ascending. */
typedef struct mcio_aggr_groups {
    int n;
    int64_t *start, *end; /* [n] */
    int64_t *bytes;       /* [n] requested bytes (exact: the sum of the ranks' bytes) */
} mcio_aggr_groups;

/*
 * Divide the aggregate access region into aggregation groups of about msggroup requested
 * bytes. A group ends only where no node has data on both sides, so it is extended to the last
 * byte of the last process of the node it would end in (Fig. 5); nodes whose spans interleave
 * stay in one group. Every rank with data lies in exactly one group. Returns 0 or MCIO_ERR_NOMEM.
 */
int mcio_memplan_groups(int nprocs, const mcio_summary *sum, const int *node_of_rank, int nnodes,
                        int64_t msggroup, mcio_aggr_groups *g);
void mcio_aggr_groups_free(mcio_aggr_groups *g);

/* A vertex of a partition tree (section 3.2). Leaves are file domains. */
typedef struct mcio_ptree_vertex {
    int64_t start, end; /* file region */
    int64_t bytes;      /* requested bytes in the region (mcio_reqmap) */
    int parent, left, right; /* -1: none; a leaf has neither child */
    int group;
    int alive;          /* 0 once the vertex has left the tree (remerging) */
} mcio_ptree_vertex;

typedef struct mcio_ptree {
    int n, cap;
    mcio_ptree_vertex *v;
    int ngroups;
    int *root; /* [ngroups] */
} mcio_ptree;

/*
 * Build one binary partition tree per group (Fig. 6): a vertex holding more than msgind
 * requested bytes is bisected at the middle of its region (at the nearest stripe multiple when
 * stripe > 0) until every leaf holds at most msgind bytes or cannot be split.
 * Returns 0 or MCIO_ERR_NOMEM.
 */
int mcio_ptree_build(const mcio_reqmap *m, const mcio_aggr_groups *g, int64_t msgind,
                     int64_t stripe, mcio_ptree *t);

/* Leaves of group g in file order into out (may be NULL); returns how many. */
int mcio_ptree_leaves(const mcio_ptree *t, int g, int *out);

/* The leaf after leaf in file order within its group, or -1. */
int mcio_ptree_next_leaf(const mcio_ptree *t, int leaf);

/*
 * Remerging (section 3.3, Fig. 8): leaf a leaves the tree and a neighbour takes its region.
 * Sibling b a leaf: a and b merge into their parent, which becomes the leaf (returned).
 * Otherwise the adjacent leaf c of b's subtree (depth-first, leftmost first when a is the left
 * sibling, rightmost first when a is the right one) takes a's region over; c is returned.
 * *taker is the leaf of before (b or c) whose region grew. Returns -1 when a is its group's
 * root: there is nobody to merge with (remerging never crosses a group).
 */
int mcio_ptree_remerge(mcio_ptree *t, int a, int *taker);

void mcio_ptree_free(mcio_ptree *t);

/* What the memory strategy did, beyond the plan: for mcio-plan and the tests. */
typedef struct mcio_memplan {
    mcio_aggr_groups groups;
    mcio_ptree tree;       /* the final tree: its live leaves are the plan's domains */
    int *domain_vertex;    /* [ndomains] the leaf of each domain */
    int *domain_group;     /* [ndomains] */
    int64_t *domain_bytes; /* [ndomains] requested bytes (mcio_reqmap) */
    int64_t *grant;        /* [ndomains] memory reserved for the domain's collective buffer */
    int *fallback;         /* [ndomains] 1: located by the fallback */
    int *group_balanced;   /* [groups.n] 1: the group's domains were re-cut to even rounds */
    int balanced;          /* groups re-cut */
    int initial_leaves;    /* domains before remerging */
    int remerges;
    int nnodes;
    int64_t *node_budget;  /* [nnodes] memory each node offered (INT64_MAX: no limit) */
    int64_t *node_used;    /* [nnodes] memory reserved on each node */
    int *node_aggs;        /* [nnodes] aggregators each node hosts */
} mcio_memplan;

/*
 * The memory strategy (Wang et al., memory-conscious collective I/O): aggregation groups, a
 * partition tree per group, aggregators located on the candidate node with the most memory
 * left (at most params.nah per node, one domain per rank), remerging when no candidate has
 * params.memmin, and a fallback that never fails for lack of memory (the node with the most
 * memory, the smallest workable buffer, more rounds; counted in plan->fallbacks), then, per
 * group, domains re-cut in proportion to their buffers when that evens out their rounds.
 * Each domain's window is the memory reserved for it: the buffers of a node sum to at most its
 * topo->node_mem, except on a fallback with less than the smallest workable buffer.
 * detail may be NULL; otherwise it is filled (free with mcio_memplan_free).
 * Returns 0, MCIO_ERR_NOMEM, or MCIO_ERR_ARG (see mcio_fdplan_fill_rounds).
 */
int mcio_planner_memory(const mcio_topology *topo, const mcio_summary *sum,
                        mcio_planner_params params, mcio_fdplan *plan, mcio_memplan *detail);
void mcio_memplan_free(mcio_memplan *d);

/* --- memmodel.c: the memory a call holds, and the default strategy (auto) --- */

/* What the memory model counts on one node, in bytes. */
typedef struct mcio_memmodel_node {
    int64_t buffers;  /* collective buffers (all sub-buffers of a pipeline; an RMA window is
                         created over them and adds nothing) */
    int64_t metadata; /* extents, pieces, schedules, round scratch, per-rank arrays */
    int64_t planning; /* what only the planning and list exchange hold (freed before the
                         buffers are allocated) */
    int64_t peak;     /* max(metadata + buffers, metadata + planning) */
} mcio_memmodel_node;

/*
 * The memory model: what a call with plan holds on each node beyond what the program held
 * before it (out[nnodes]). slots[d] (NULL: 1) sub-buffers in flight per domain; own_access:
 * romio_cb_write/read disable (no buffers, no schedules). Counts the engine's allocations as
 * mcio_twophase.c makes them, from the summaries, topo->rank_extents (one extent per rank
 * with data when NULL) and the plan;
 * MPI's own buffers and the allocator's overhead are not in it. Pure; 0 or MCIO_ERR_NOMEM.
 */
int mcio_memmodel(const mcio_topology *topo, const mcio_summary *sum, const mcio_fdplan *plan,
                  const int *slots, int own_access, mcio_memmodel_node *out);

/* What auto may spend of a node whose memory is mem: mem less params.memory_margin percent
 * (INT64_MAX stays INT64_MAX: no limit). */
int64_t mcio_memmodel_usable(int64_t mem, mcio_planner_params params);

/*
 * The default strategy, auto: the romio plan (mcio_planner_make with it, so the independent plan
 * when accesses do not interleave) when the memory model says it fits every node's usable
 * memory (topo->node_mem less the margin), bit for bit; otherwise the memory strategy, each
 * node offering its usable memory less the model's non-buffer bytes, and
 * plan->memory_conscious = 1. Pure; 0 or an MCIO_ERR_* code.
 */
int mcio_planner_auto(const mcio_topology *topo, const mcio_summary *sum,
                      mcio_planner_params params, mcio_fdplan *plan);

/* --- fdplan.c: shared by every strategy --- */

/* Allocate the arrays of a plan with n domains (zeroed). Returns 0 or MCIO_ERR_NOMEM. */
int mcio_fdplan_alloc(mcio_fdplan *plan, int n);

/*
 * Given domains and aggregators, compute each domain's data region (from the ranks' summaries),
 * its window (window[d] when a strategy preset it, else the buffer size; rounded down to a
 * stripe multiple when that leaves at least one stripe) and its number of rounds, then
 * max_rounds and max_buffer. O(nprocs log nprocs + ndomains log nprocs). Returns MCIO_ERR_ARG
 * when a domain would need more than INT32_MAX rounds (the buffer is far too small for the
 * span), MCIO_ERR_NOMEM, else 0.
 */
int mcio_fdplan_fill_rounds(mcio_fdplan *plan, int nprocs, const mcio_summary *sum,
                             mcio_planner_params params);

/* As mcio_fdplan_fill_rounds, from the ranks' merged spans (mcio_spans_build) built before:
 * O(ndomains log spans). */
int mcio_fdplan_fill_rounds_spans(mcio_fdplan *plan, const struct mcio_spans *spans,
                                  mcio_planner_params params);

void mcio_fdplan_free(mcio_fdplan *plan);

/* A copy of src in *dst, arrays of its own. Pure; 0 or MCIO_ERR_NOMEM (*dst then empty). */
int mcio_fdplan_copy(const mcio_fdplan *src, mcio_fdplan *dst);

/* Bytes of the collective buffer the aggregator of domain d holds: its window, or less when the
 * domain's data is shorter. The engine allocates exactly this much. */
static inline int64_t mcio_fdplan_buffer(const mcio_fdplan *plan, int d)
{
    int64_t span = plan->win_end[d] - plan->win_start[d];
    return plan->rounds[d] == 0 ? 0 : span < plan->window[d] ? span : plan->window[d];
}

/*
 * The union of the ranks' spans [start, end) as sorted, disjoint intervals: a domain's data
 * region is its first and last covered byte, found by binary search. That is the same region
 * as the least start and greatest end of the ranks overlapping the domain, in O(log nprocs)
 * per domain rather than O(nprocs).
 */
typedef struct mcio_spans {
    int64_t n;
    int64_t *iv; /* [2n]: start, end of each interval */
} mcio_spans;

/* Build the union of the spans of the ranks with bytes. Returns 0 or MCIO_ERR_NOMEM. */
int mcio_spans_build(int nprocs, const mcio_summary *sum, mcio_spans *s);

/* The first and last+1 covered byte in [fs, fe): returns 1 and sets *lo, *hi, or returns 0
 * when no rank's span meets [fs, fe). */
int mcio_spans_clip(const mcio_spans *s, int64_t fs, int64_t fe, int64_t *lo, int64_t *hi);

void mcio_spans_free(mcio_spans *s);

/* The bytes a round of a collective buffer of window bytes covers: window rounded down to a
 * stripe multiple when that leaves at least one stripe (rounds write whole stripes), at least 1. */
static inline int64_t mcio_fdplan_round_window(int64_t window, int64_t stripe)
{
    if (stripe > 0 && window >= stripe)
        window -= window % stripe;
    return window < 1 ? 1 : window;
}

/*
 * The rounds of a domain [fs, fe) with a collective buffer of *window bytes, as
 * mcio_fdplan_fill_rounds counts them: *window becomes mcio_fdplan_round_window of it;
 * [*lo, *hi) is the domain's data region, its start aligned down to
 * a stripe boundary inside the domain. Returns 0 (and *lo = *hi = fs) when nobody touches it.
 */
int64_t mcio_fdplan_domain_rounds(const mcio_spans *spans, int64_t fs, int64_t fe,
                                  int64_t *window, int64_t stripe, int64_t *lo, int64_t *hi);

/* The first domain whose end is past off (domains are sorted and disjoint): ndomains when
 * none is. */
int mcio_fdplan_first_after(const mcio_fdplan *plan, int64_t off);

/* Rounds of domain d that the file range [s, e) meets. */
int64_t mcio_fdplan_rounds_met(const mcio_fdplan *plan, int d, int64_t s, int64_t e);

/* Index of the domain holding byte off, or -1. Domains are sorted and disjoint. */
int mcio_fdplan_find(const mcio_fdplan *plan, int64_t off);

/* Round of domain d holding byte off (off must lie in the domain's data region). */
static inline int mcio_fdplan_round(const mcio_fdplan *plan, int d, int64_t off)
{
    return (int)((off - plan->win_start[d]) / plan->window[d]);
}

/* --- pipeline.c: sub-buffers for the pipelined executors --- */

/*
 * Cut each domain's collective buffer (window[d] as the planner left it) into sub-buffers of
 * at most subbuf bytes, at most depth of them within the buffer, whole multiples of unit (the
 * stripe or file-system block) when the budget allows one; the sub-buffer becomes the round:
 * window[d] is set to its size and rounds[d], max_rounds are recomputed. slots[d] (an array of
 * ndomains the caller owns) receives how many sub-buffers domain d keeps in flight: depth,
 * capped by what fits in the collective buffer and by the rounds; max_buffer becomes the
 * largest slots[d] * sub-buffer. win_start is unchanged (already on a unit boundary when the
 * planner aligned it). Returns 0, or MCIO_ERR_ARG when a domain would need more than
 * INT32_MAX rounds.
 */
int mcio_fdplan_subdivide(mcio_fdplan *plan, int64_t subbuf, int depth, int64_t unit, int *slots);

/*
 * The alignment unit of a plan: the stripe (striping_unit), or, for a pipelined plan
 * (depth > 1) without one, the file system's block size (TAPIOCA: buffers in whole blocks).
 */
int64_t mcio_pipeline_unit(int depth, int64_t stripe, int64_t fs_block);

/*
 * The sub-buffer size of a pipelined plan: mcio_subbuffer_size when set (subbuffer_hint > 0);
 * else the stripe when one is given (Sehrish et al.: sub-buffers of the stripe size); else the
 * smallest multiple of unit (mcio_pipeline_unit, > 0) of at least 1 MiB (TAPIOCA).
 */
int64_t mcio_pipeline_subbuffer(int64_t subbuffer_hint, int64_t stripe, int64_t unit);

/* --- schedule.c: who sends what to whom in which round --- */

/* A piece: part of one extent inside one round of one domain. */
typedef struct mcio_piece {
    int64_t off; /* file offset */
    int64_t len;
    int64_t mem; /* memory displacement (as in mcio_extent) or collective-buffer displacement */
} mcio_piece;

/*
 * Pieces grouped by (round, peer): peer is a domain index on the rank side and a sending rank
 * on the aggregator side. Group g covers pieces[first[g] .. first[g + 1]).
 */
typedef struct mcio_groups {
    int64_t ngroups;
    int *round;        /* [ngroups], ascending */
    int *peer;         /* [ngroups], ascending within a round */
    int64_t *first;    /* [ngroups + 1] */
    int64_t *bytes;    /* [ngroups] */
    mcio_piece *pieces;
    int64_t npieces;
} mcio_groups;

/*
 * Rank side: cut a rank's normalized extents at domain and round boundaries.
 * Groups are (round, domain); piece.mem is the memory displacement.
 * Returns 0 or MCIO_ERR_NOMEM.
 */
int mcio_schedule_rank(const mcio_fdplan *plan, const mcio_extent *ext, int64_t n, mcio_groups *out);

/*
 * Aggregator side of domain d: from the pieces each sender has in the domain (lists[s] of
 * nlist[s] pieces in file order, file offset and length only; pieces crossing round boundaries
 * are cut there), build groups
 * (round, sender) whose piece.mem is the displacement in the collective buffer of that round.
 * Returns 0 or MCIO_ERR_NOMEM.
 */
int mcio_schedule_aggregator(const mcio_fdplan *plan, int d, int nprocs, const int64_t *nlist,
                             const mcio_piece *const *lists, mcio_groups *out);

void mcio_groups_free(mcio_groups *g);

/*
 * The runs of round k (bytes someone asked for) from the aggregator-side groups of that
 * round: groups [g0, g1). runs[] receives at most (pieces in the round) entries, in buffer
 * displacements, sorted and merged. Returns the number of runs.
 */
int64_t mcio_schedule_runs(const mcio_groups *g, int64_t g0, int64_t g1, mcio_piece *runs);

#ifdef __cplusplus
}
#endif
#endif
