/*
 * Two-layer aggregation's pure parts (src/core/plan/layers.c): a node's pieces staged in file
 * order (exact slots and merged lists worked out by hand; a write's overlaps cut, a read's
 * kept; a randomized check that every byte of the merged list comes from the right piece),
 * and the choice between one layer and two (forced modes, nodes of one rank, memory, and the
 * price: two layers for fine interleaving at many ranks per node, one for contiguous blocks).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "mcio_layers.h"

namespace {

struct Staged {
    std::vector<int64_t> slot;
    std::vector<mcio_extent> merged;
};

Staged stage(const std::vector<mcio_extent> &pc, int write)
{
    Staged s;
    s.slot.assign(pc.size(), -1);
    s.merged.assign(pc.size() + 1, mcio_extent{-1, -1, -1});
    std::vector<int64_t> scratch(2 * pc.size() + 2);
    int64_t nm = -1;
    mcio_layers_stage(pc.data(), (int64_t)pc.size(), write, s.slot.data(), s.merged.data(), &nm,
                      scratch.data());
    s.merged.resize((size_t)nm);
    return s;
}

void expect_merged(const Staged &s, const std::vector<mcio_extent> &want)
{
    ASSERT_EQ(s.merged.size(), want.size());
    for (size_t i = 0; i < want.size(); i++) {
        EXPECT_EQ(s.merged[i].off, want[i].off) << i;
        EXPECT_EQ(s.merged[i].len, want[i].len) << i;
        EXPECT_EQ(s.merged[i].mem, want[i].mem) << i;
    }
}

/* Two ranks' rows interleaved (rank 0's first, as gathered): in the staging buffer they lie
 * in file order, so the rows meet in memory as they do in the file. */
TEST(LayersStage, InterleavedRowsLieInFileOrder)
{
    Staged s = stage({{0, 4, 0}, {8, 4, 4}, {4, 4, 0}, {12, 4, 4}}, 1);
    EXPECT_EQ(s.slot, (std::vector<int64_t>{0, 8, 4, 12}));
    expect_merged(s, {{0, 4, 0}, {4, 4, 4}, {8, 4, 8}, {12, 4, 12}});
}

/* A write's overlap: the earlier piece's bytes stand, the later loses the overlapped ones (and
 * a piece wholly covered goes); a read keeps every piece whole. */
TEST(LayersStage, WriteOverlapsCutReadsKept)
{
    std::vector<mcio_extent> pc = {{0, 10, 0}, {5, 10, 0}, {6, 2, 0}};
    Staged w = stage(pc, 1);
    EXPECT_EQ(w.slot, (std::vector<int64_t>{0, 10, 20}));
    expect_merged(w, {{0, 10, 0}, {10, 5, 15}});
    Staged r = stage(pc, 0);
    expect_merged(r, {{0, 10, 0}, {5, 10, 10}, {6, 2, 20}});
}

/* Pieces at one offset keep the order given (the ranks' order): the slots are stable. */
TEST(LayersStage, TiesKeepTheRanksOrder)
{
    Staged r = stage({{100, 3, 0}, {100, 3, 0}, {50, 1, 0}}, 0);
    EXPECT_EQ(r.slot, (std::vector<int64_t>{1, 4, 0}));
    expect_merged(r, {{50, 1, 0}, {100, 3, 1}, {100, 3, 4}});
    Staged none = stage({}, 1);
    EXPECT_TRUE(none.merged.empty());
}

/* Random node lists (several ranks, each sorted, overlapping across ranks): the slots lay the
 * pieces back to back in file order, and each byte of a write's merged list is the byte of the
 * first piece (in file order, then rank order) that covers it, every covered byte once. */
TEST(LayersStage, RandomWritesTakeEachByteFromItsFirstPiece)
{
    std::mt19937_64 rng(50);
    for (int trial = 0; trial < 200; trial++) {
        std::vector<mcio_extent> pc;
        int ranks = 1 + (int)(rng() % 6);
        for (int r = 0; r < ranks; r++)
            for (int64_t at = (int64_t)(rng() % 16), k = rng() % 6; k > 0; k--) {
                int64_t len = 1 + (int64_t)(rng() % 9);
                pc.push_back({at, len, 0});
                at += len + (int64_t)(rng() % 12);
            }
        Staged s = stage(pc, 1);
        std::vector<int64_t> owner(256, -1), pos(256, -1); /* file byte -> stage position */
        std::vector<size_t> order(pc.size());
        for (size_t i = 0; i < pc.size(); i++)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return pc[a].off < pc[b].off; });
        int64_t at = 0;
        for (size_t i : order) {
            ASSERT_EQ(s.slot[i], at);
            for (int64_t b = 0; b < pc[i].len; b++)
                if (owner[pc[i].off + b] < 0)
                    owner[pc[i].off + b] = (int64_t)i, pos[pc[i].off + b] = at + b;
            at += pc[i].len;
        }
        std::vector<int> seen(256, 0);
        int64_t last_end = -1;
        for (const mcio_extent &m : s.merged) {
            ASSERT_GE(m.off, last_end) << "merged pieces overlap or go back";
            last_end = m.off + m.len;
            for (int64_t b = 0; b < m.len; b++) {
                EXPECT_EQ(m.mem + b, pos[m.off + b]) << trial;
                seen[m.off + b]++;
            }
        }
        for (int b = 0; b < 256; b++)
            EXPECT_EQ(seen[b], owner[b] >= 0 ? 1 : 0) << trial << " byte " << b;
    }
}

/* A job of n ranks on nodes of per_node, each rank pieces pieces of piece bytes; interleaved:
 * every rank's span is the whole file (a fine cyclic pattern), else each rank a contiguous
 * block of its own. */
mcio_layers_inputs job(int n, int per_node, int64_t pieces, int64_t piece, int interleaved)
{
    mcio_layers_inputs in = {};
    in.nprocs = n;
    in.nnodes = (n + per_node - 1) / per_node;
    in.max_per_node = per_node < n ? per_node : n;
    in.aggregators = in.nnodes;
    in.buffer = 16 << 20;
    in.node_budget = INT64_MAX;
    int64_t file = (int64_t)n * pieces * piece;
    for (int r = 0; r < n; r++) /* each rank's first byte and end */
        mcio_layers_add_rank(&in, pieces, pieces * piece, interleaved ? r * piece : r * file / n,
                             interleaved ? file - (n - 1 - r) * piece : (r + 1) * file / n);
    return in;
}

TEST(LayersChoose, ForcedModesAndNodesOfOneRank)
{
    mcio_cost_table c = mcio_cost_defaults(0);
    mcio_layers_inputs ior = job(64, 8, 1, 16 << 20, 0);
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_TWO, &ior, &c, nullptr), 2);
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_ONE, &ior, &c, nullptr), 1);
    mcio_layers_inputs single = job(64, 1, 4096, 256, 1); /* one rank a node: nothing to merge */
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_TWO, &single, &c, nullptr), 1);
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_AUTO, &single, &c, nullptr), 1);
}

/* Auto: two layers where the messages into the file-domain aggregators dominate (4,096 ranks,
 * 64 a node, 4,096 rows of 256 bytes each, interleaved over the whole file: ranks x
 * aggregators messages against nodes x aggregators), one for IOR's contiguous 16 MiB blocks
 * (as many messages either way; two layers would only add the node's copy), and one where the
 * staging buffer does not fit the node's memory. */
TEST(LayersChoose, AutoPricesBoth)
{
    mcio_cost_table c = mcio_cost_defaults(0);
    mcio_layers_price p;
    mcio_layers_inputs fine = job(4096, 64, 4096, 256, 1);
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_AUTO, &fine, &c, &p), 2);
    EXPECT_LT(p.two, 0.5 * p.one) << p.one << " " << p.two;
    EXPECT_LE(p.msgs_two * 32, p.msgs_one);
    EXPECT_EQ(p.stage_bytes, 64 * 4096 * 256);
    EXPECT_EQ(fine.first, 0);
    EXPECT_EQ(fine.end, (int64_t)4096 * 4096 * 256);
    EXPECT_EQ(fine.pieces, (int64_t)4096 * 4096);
    mcio_layers_inputs ior = job(4096, 64, 1, 16 << 20, 0);
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_AUTO, &ior, &c, &p), 1);
    EXPECT_GT(p.two, p.one);
    EXPECT_EQ(p.msgs_one, p.msgs_two);
    mcio_layers_inputs tight = fine;
    tight.node_budget = 64 * 4096 * 256 - 1;
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_AUTO, &tight, &c, &p), 1);
    EXPECT_FALSE(p.fits);
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_TWO, &tight, &c, &p), 2); /* the engine refuses */
    /* A small job of the same pattern (8 ranks, 2 nodes): too few messages to pay the copy. */
    mcio_layers_inputs small = job(8, 4, 4096, 256, 1);
    EXPECT_EQ(mcio_layers_choose(MCIO_LAYERS_AUTO, &small, &c, &p), 1);
}

} // namespace
