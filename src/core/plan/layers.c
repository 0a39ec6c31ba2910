/*
 * Two-layer aggregation, the pure parts: the node aggregator's staging and the price of one
 * layer against two.
 *
 * Papers: TAM, two-layer aggregation (Q. Kang, S. Lee, K. Hou, R. Ross, A. Agrawal,
 * A. Choudhary, W.-k. Liao, "Improving MPI Collective I/O for High Volume Non-Contiguous
 * Requests With Intra-Node Aggregation", IEEE TPDS 31(11), 2020): the ranks of a node first
 * hand their requests to a few local aggregators, which merge them and alone take part in the
 * inter-node two-phase exchange, so the messages that cross the network go from ranks x
 * aggregators to nodes x aggregators. PnetCDF's intra-node aggregation (1.14,
 * ncmpio_intra_node.c, hint nc_num_aggrs_per_node) does the same above MPI-IO.
 *
 * Here: the node's pieces lie in the staging buffer in file order, so pieces of different
 * ranks that meet in the file meet in the buffer too and the engine's normalization merges
 * them into one (a coll_perf row split over a node's ranks becomes one piece); the price
 * counts the messages into the busiest file-domain aggregator (the inter-node side, where the
 * incast is), the per-piece datatype work, and the intra-node hand-over (a copy of the node's
 * bytes and the node's messages into its aggregator).
 *
 * Glossary: node aggregator, the rank of a node that gathers its node's pieces (its lowest);
 * staging buffer, where it holds them; file-domain aggregator, the aggregator of the existing
 * two-phase exchange (mcio_planner.h); layer, one hand-over of the bytes between ranks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_layers.h"

typedef struct stage_key {
    int64_t off, i;
} stage_key;

static int by_offset(const void *a, const void *b)
{
    const stage_key *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

void mcio_layers_stage(const mcio_extent *pc, int64_t n, int write, int64_t *slot,
                       mcio_extent *merged, int64_t *nm, int64_t *scratch)
{
    *nm = 0;
    stage_key *k = (stage_key *)scratch;
    for (int64_t i = 0; i < n; i++)
        k[i] = (stage_key){.off = pc[i].off, .i = i};
    qsort(k, (size_t)n, sizeof *k, by_offset);
    int64_t at = 0, end = INT64_MIN;
    for (int64_t j = 0; j < n; j++) {
        const mcio_extent *e = &pc[k[j].i];
        slot[k[j].i] = at;
        mcio_extent m = {.off = e->off, .len = e->len, .mem = at};
        at += e->len;
        if (write && m.off < end) { /* overlapped by an earlier piece: its bytes stand */
            int64_t cut = end - m.off < m.len ? end - m.off : m.len;
            m.off += cut, m.mem += cut, m.len -= cut;
        }
        if (m.len > 0)
            merged[(*nm)++] = m;
        if (e->off + e->len > end)
            end = e->off + e->len;
    }
}

/* Messages to the file-domain aggregators of groups senders whose spans sum to span, with
 * pieces pieces in all: each sender sends one message per round and domain it has data in,
 * and no more messages than it has pieces. */
static double messages(double senders, double span, double pieces, const mcio_layers_inputs *in,
                       double rounds)
{
    int64_t file_span = in->end - in->first;
    double per_domain = (double)(file_span > 0 ? file_span : 1) / in->aggregators;
    double touched = senders + span / per_domain; /* domains, summed over senders */
    double m = touched * rounds;
    return m < pieces ? m : pieces;
}

void mcio_layers_add_rank(mcio_layers_inputs *in, int64_t pieces, int64_t bytes, int64_t start,
                          int64_t end)
{
    if (pieces <= 0)
        return;
    if (in->pieces == 0 || start < in->first)
        in->first = start;
    if (in->pieces == 0 || end > in->end)
        in->end = end;
    in->pieces += pieces;
    in->bytes += bytes;
    in->span += end - start;
    in->max_pieces = pieces > in->max_pieces ? pieces : in->max_pieces;
    in->max_bytes = bytes > in->max_bytes ? bytes : in->max_bytes;
}

int mcio_layers_choose(int mode, const mcio_layers_inputs *in, const mcio_cost_table *c,
                       mcio_layers_price *out)
{
    mcio_layers_price pr = {0};
    int nodes = in->nnodes > 0 ? in->nnodes : 1, aggs = in->aggregators > 0 ? in->aggregators : 1;
    mcio_layers_inputs x = *in;
    x.aggregators = aggs;
    double buffer = (double)(in->buffer > 0 ? in->buffer : 1);
    double rounds = fmax(1.0, ceil((double)in->bytes / (aggs * buffer)));
    /* A node's span: its ranks' spans end to end, or the whole file where they interleave. */
    double node_span = fmin((double)(in->end - in->first), (double)in->span / nodes);
    pr.msgs_one = messages(in->nprocs, (double)in->span, (double)in->pieces, &x, rounds);
    pr.msgs_two = messages(nodes, node_span * nodes, (double)in->pieces, &x, rounds);
    pr.stage_bytes = in->max_bytes * in->max_per_node;
    pr.fits = pr.stage_bytes <= in->node_budget;
    /* The busiest file-domain aggregator takes its share of the messages, one after another,
     * and of the pieces (datatype work on both sides: a sender's own pieces, the fullest
     * node's at its node aggregator). */
    double agg_pieces = (double)in->pieces / aggs;
    pr.one = pr.msgs_one / aggs * c->msg +
             fmax(agg_pieces, (double)in->max_pieces) * c->piece;
    double node_pieces = (double)in->max_pieces * in->max_per_node;
    double hand_over = (in->max_per_node - 1) * c->msg + (double)pr.stage_bytes * c->copy_byte +
                       node_pieces * c->piece; /* into the node aggregator, whose copy */
    pr.two = pr.msgs_two / aggs * c->msg + fmax(agg_pieces, node_pieces) * c->piece + hand_over;
    int layers = 1;
    if (in->max_per_node >= 2 && mode == MCIO_LAYERS_TWO)
        layers = 2;
    else if (in->max_per_node >= 2 && mode == MCIO_LAYERS_AUTO && pr.fits &&
             pr.two < (1.0 - MCIO_LAYERS_MARGIN) * pr.one)
        layers = 2;
    pr.layers = layers;
    if (out)
        *out = pr;
    return layers;
}
