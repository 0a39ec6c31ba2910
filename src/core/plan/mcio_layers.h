/*
 * Two-layer aggregation's pure parts (layers.c): how a node's pieces lie in its node
 * aggregator's staging buffer, and the price of one layer against two. No MPI: the engine
 * (src/engine/mcio_twolayer.c) moves the bytes.
 */
#ifndef MCIO_LAYERS_H
#define MCIO_LAYERS_H

#include <stdint.h>

#include "mcio_costmodel.h"
#include "mcio_planner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mcio_layers: one layer of aggregation, or two (a node's ranks hand their pieces to the node's
 * aggregator first: src/engine/mcio_twolayer.c, src/core/plan/layers.c). */
enum mcio_layers_mode {
    MCIO_LAYERS_AUTO = 0, /* the cost model prices both and picks (mcio_layers_choose) */
    MCIO_LAYERS_ONE,      /* every rank exchanges with the file-domain aggregators */
    MCIO_LAYERS_TWO       /* through the node's aggregator wherever nodes hold several ranks */
};

/*
 * The staging of a node's n pieces (each rank's normalized extents, concatenated rank by rank;
 * pc[i].mem is ignored): slot[i], where piece i's bytes lie in the staging buffer, which holds
 * the node's pieces in file order (ties in the order given), back to back; and merged[0..*nm),
 * the pieces the node aggregator hands the engine: in file order, mem their slot. A write's
 * pieces that overlap an earlier one lose the overlapped bytes (MPI leaves which rank's
 * bytes land undefined; one layer gives it to whichever aggregator copy comes last), so
 * merged never overlaps and a write's list passes mcio_extents_normalize; a read keeps every
 * piece whole. merged: room for n; scratch: room for 2 * n (no allocation, so that a node
 * aggregator cannot fail between the node's lists and its data). O(n log n).
 */
void mcio_layers_stage(const mcio_extent *pc, int64_t n, int write, int64_t *slot,
                       mcio_extent *merged, int64_t *nm, int64_t *scratch);

/* What the price of one and two layers is made from: the whole job's figures (the engine
 * allreduces each rank's own). */
typedef struct mcio_layers_inputs {
    int nprocs, nnodes;
    int max_per_node;     /* ranks of the fullest node */
    int aggregators;      /* file domains one layer would plan (cb_nodes, or one per node) */
    int64_t buffer;       /* cb_buffer_size: the collective buffer, so the rounds */
    int64_t pieces;       /* pieces summed over ranks */
    int64_t bytes;        /* bytes summed over ranks */
    int64_t span;         /* each rank's last byte + 1 - its first, summed over ranks */
    int64_t first, end;   /* the job's first byte and one past its last (0, 0: none) */
    int64_t max_pieces;   /* the most pieces one rank has */
    int64_t max_bytes;    /* the most bytes one rank has */
    int64_t node_budget;  /* the smallest node's memory for buffers (INT64_MAX: unknown) */
} mcio_layers_inputs;

/* One rank's part of the job's figures (its pieces, bytes, and its pieces' first byte and
 * end), added into in, whose figures start at 0: mcio-plan's way to them (the engine reduces
 * the ranks' own with MPI). */
void mcio_layers_add_rank(mcio_layers_inputs *in, int64_t pieces, int64_t bytes, int64_t start,
                          int64_t end);

/* The two prices, seconds, and what they count. */
typedef struct mcio_layers_price {
    double one, two;
    double msgs_one, msgs_two; /* data messages to the file-domain aggregators, per call */
    int64_t stage_bytes;       /* the fullest node's staging buffer, at most */
    int fits;                  /* the staging buffer fits the node's budget */
    int layers;                /* the choice: 1 or 2 */
} mcio_layers_price;

/*
 * One layer or two (mode: enum mcio_layers_mode, from the mcio_layers hint): a forced mode is
 * taken as it is, except that two layers need a node of several ranks (else 1); auto prices both with the cost table c and takes two layers only when they fit
 * the node's memory and cost less by MCIO_LAYERS_MARGIN. *out: the prices (may be NULL).
 * Returns 1 or 2.
 */
int mcio_layers_choose(int mode, const mcio_layers_inputs *in, const mcio_cost_table *c,
                       mcio_layers_price *out);

/* Two layers must beat one by this share of one's price to be taken (the model's error). */
#define MCIO_LAYERS_MARGIN 0.1

#ifdef __cplusplus
}
#endif
#endif
