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
#ifndef MCIO_PLAN_H
#define MCIO_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "mcio_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCIO_DETAIL_LEN 256

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

/* Planning parameters, parsed from hints once and passed by value. */
typedef struct mcio_plan_params {
    int64_t buffer_size; /* cb_buffer_size: collective buffer per aggregator */
    int cb_nodes;        /* number of aggregators wanted; 0 = one per node */
    int64_t stripe;      /* striping_unit: align domains and rounds to it; 0 = no alignment */
} mcio_plan_params;

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

/* --- romio.c: the classic even split (ROMIO's ADIOI_Calc_file_domains) --- */

/*
 * Choose aggregators: params.cb_nodes of them (one per node when 0), spread evenly over the
 * nodes and, within a node, over its ranks. node_of_rank[r] in [0, nnodes).
 * Writes up to nprocs ranks, ascending, to aggs; returns how many.
 */
int mcio_plan_choose_aggregators(int nprocs, const int *node_of_rank, int nnodes, int cb_nodes,
                                 int *aggs);

/*
 * The romio strategy: split the aggregate access region evenly among the aggregators (domain
 * boundaries on stripe multiples when params.stripe > 0), then fill in rounds.
 * Returns 0, MCIO_ERR_NOMEM, or MCIO_ERR_ARG (too many rounds, see mcio_fdplan_fill_rounds).
 */
int mcio_plan_romio(int nprocs, const mcio_summary *sum, const int *node_of_rank, int nnodes,
                    mcio_plan_params params, mcio_fdplan *plan);

/* --- planners.c: the strategies, by name (the mcio_strategy hint) --- */

/* What the planner knows of the machine: a plain view of the engine's machine description. */
typedef struct mcio_topology {
    int nprocs;
    int nnodes;
    const int *node_of_rank;   /* [nprocs] */
    const int *socket_of_rank; /* [nprocs] socket within the node */
    int sockets_per_node;
} mcio_topology;

/* A planning strategy: summaries in, a plan out. Pure; returns 0 or an MCIO_ERR_* code. */
typedef struct mcio_planner {
    const char *name;
    int (*plan)(const mcio_topology *topo, const mcio_summary *sum, mcio_plan_params params,
                mcio_fdplan *plan);
} mcio_planner;

/* The strategy called name, or NULL. */
const mcio_planner *mcio_planner_find(const char *name);

/* The name of strategy i (0-based), or NULL past the last: to list them in messages. */
const char *mcio_planner_name(int i);

/* --- fdplan.c: shared by every strategy --- */

/* Allocate the arrays of a plan with n domains (zeroed). Returns 0 or MCIO_ERR_NOMEM. */
int mcio_fdplan_alloc(mcio_fdplan *plan, int n);

/*
 * Given domains and aggregators, compute each domain's data region (from the ranks' summaries),
 * its window (window[d] when a strategy preset it, else the buffer size; rounded down to a
 * stripe multiple when that leaves at least one stripe) and its number of rounds, then
 * max_rounds and max_buffer. Returns MCIO_ERR_ARG when a domain would need more than
 * INT32_MAX rounds (the buffer is far too small for the span), else 0.
 */
int mcio_fdplan_fill_rounds(mcio_fdplan *plan, int nprocs, const mcio_summary *sum,
                             mcio_plan_params params);

void mcio_fdplan_free(mcio_fdplan *plan);

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
 * nlist[s] pieces, file offset and length only, cut at round boundaries), build groups
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
