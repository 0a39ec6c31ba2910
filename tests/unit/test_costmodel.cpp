/*
 * The cost model (src/core/plan/costmodel.c, issue 20): on tables of costs, the choice between
 * independent and aggregated access, aggregators per node, buffer and pipeline depth; the
 * memory that rules candidates out; the hints the user set, which are not chosen; and the
 * calibration cache's text.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mcio_costmodel.h"
#include "mcio_hints.h"
#include "mcio_planner.h"
#include "plan_test_util.h"

namespace {

constexpr int64_t KiB = 1024, MiB = int64_t(1) << 20;

struct Job {
    std::vector<int> node;
    std::vector<mcio_summary> sum;
    std::vector<int64_t> ext; /* extents per rank */
    std::vector<int64_t> mem; /* per node; empty: no limit */
    int nnodes = 1;
    mcio_topology topo{};
    mcio_cost_table cost{};
    mcio_cost_inputs in{};

    void finish(int write)
    {
        topo = mcio_topology{.nprocs = (int)node.size(), .nnodes = nnodes,
                             .node_of_rank = node.data(), .socket_of_rank = nullptr,
                             .sockets_per_node = 1, .net = nullptr,
                             .node_mem = mem.empty() ? nullptr : mem.data(),
                             .rank_extents = ext.data(), .rank_calls = nullptr, .spans = nullptr};
        mcio_hints h = mcio_hints_default(); /* 16 MiB buffers, automatic, Nah 4, ... */
        mcio_planner_params p = mcio_hints_planner_params(&h, write);
        in = mcio_cost_inputs{.topo = &topo, .sum = sum.data(), .write = write, .params = p,
                              .depth = 1, .subbuffer = MiB, .unit = 4096, .fixed = 0,
                              .sync = 0, .cost = &cost, .planners = nullptr};
    }
};

/* 8 ranks on one node, each its own block of `block` bytes in `ext` extents (contiguous
 * blocks in rank order: nothing interleaves). */
Job blocks(int64_t block, int64_t ext)
{
    Job j;
    for (int r = 0; r < 8; r++) {
        j.node.push_back(0);
        j.sum.push_back(mcio_summary{r * block, (r + 1) * block, block});
        j.ext.push_back(ext);
    }
    return j;
}

/* 8 ranks interleaved in segments of t bytes (IOR): each rank `per` bytes in per / t extents. */
Job interleaved(int64_t per, int64_t t)
{
    Job j;
    int64_t segs = per / t;
    for (int r = 0; r < 8; r++) {
        j.node.push_back(0);
        j.sum.push_back(mcio_summary{r * t, (segs - 1) * 8 * t + (r + 1) * t, per});
        j.ext.push_back(segs);
    }
    return j;
}

/* A table with round numbers: calls, bytes and messages priced as given. */
mcio_cost_table table(double call, double byte_1, double byte_n, double msg)
{
    mcio_cost_table t{};
    for (int op = 0; op < 2; op++) {
        t.call[op][0] = call;
        t.call[op][1] = call;
        t.byte[op][0] = byte_1;
        t.byte[op][1] = byte_n;
    }
    t.conc = 8;
    t.msg = msg;
    t.msg_byte = 1e-10;
    t.coll = 1e-5;
    t.copy_byte = 1e-10;
    t.overlap = 1;
    t.calibrated = 1;
    return t;
}

/* The aggregated configuration: romio, aggs per node, a 16 MiB buffer, depth. */
mcio_cost_config romio(int aggs, int depth)
{
    mcio_cost_config c{};
    c.strategy = MCIO_STRATEGY_ROMIO;
    c.aggs_per_node = aggs;
    c.buffer = 16 * MiB;
    c.depth = depth;
    return c;
}

mcio_cost_choice decide(const Job &j)
{
    mcio_cost_choice c;
    EXPECT_EQ(mcio_cost_decide(&j.in, &c), MCIO_SUCCESS);
    return c;
}

/* The independent candidate's predicted time for j as it stands. */
double independent_seconds(const Job &j)
{
    mcio_cost_config c{};
    c.independent = 1;
    c.depth = 1;
    EXPECT_EQ(mcio_cost_predict(&j.in, &c), MCIO_SUCCESS);
    return c.seconds;
}

std::string name(const mcio_cost_config &c)
{
    char buf[96];
    mcio_cost_config_name(&c, buf, sizeof buf);
    return buf;
}

TEST(CostModel, IndependentWinsOnOwnContiguousBlocksInThePageCache)
{
    /* The example: 8 ranks, 256 KiB each in its own block, one extent: aggregating
     * only adds messages and copies. */
    Job j = blocks(256 * KiB, 1);
    j.cost = table(2e-6, 1.0 / 2e9, 1.0 / 1e9, 20e-6);
    j.finish(0);
    mcio_cost_choice c = decide(j);
    EXPECT_TRUE(c.best.independent) << name(c.best);
    EXPECT_FALSE(c.runner_up.independent);
    EXPECT_GT(c.runner_up.seconds, c.best.seconds);
    /* Predicted exactly: one call and 256 KiB at the concurrent rate, plus one collective
     * (the final agreement: the agreement on planning rides on it). */
    EXPECT_NEAR(c.best.seconds, 2e-6 + 256 * KiB * 1e-9 + 1e-5, 1e-12);
    EXPECT_EQ(c.candidates, 1 + 3 * 2 * 3);
}

TEST(CostModel, AggregatedPredictionByHand)
{
    /* One rank, 64 KiB in one extent: aggregated, it is its own aggregator: no message, one
     * call, its bytes copied once, four collectives; independent: one call, three. */
    Job j;
    j.node = {0};
    j.sum = {mcio_summary{0, 64 * KiB, 64 * KiB}};
    j.ext = {1};
    j.cost = table(1e-3, 1e-9, 8e-9, 2e-5);
    j.finish(1);
    mcio_cost_config agg = romio(1, 1);
    ASSERT_EQ(mcio_cost_predict(&j.in, &agg), MCIO_SUCCESS);
    EXPECT_NEAR(agg.seconds, 1e-3 + 64 * KiB * (1e-9 + 1e-10) + 4 * 1e-5, 1e-12);
    EXPECT_TRUE(decide(j).best.independent);
    /* Two ranks interleaved in two 32 KiB pieces each, one aggregator (rank 0): rank 1 sends
     * its 64 KiB in one message; the file gets one call of 128 KiB. */
    Job k;
    k.node = {0, 0};
    k.sum = {mcio_summary{0, 96 * KiB, 64 * KiB}, mcio_summary{32 * KiB, 128 * KiB, 64 * KiB}};
    k.ext = {2, 2};
    k.cost = j.cost;
    k.finish(1);
    ASSERT_EQ(mcio_cost_predict(&k.in, &agg), MCIO_SUCCESS);
    double ex = 2e-5 + 64 * KiB * 1e-10 + 128 * KiB * 1e-10, io = 1e-3 + 128 * KiB * 1e-9;
    EXPECT_NEAR(agg.seconds, ex + io + 4 * 1e-5, 1e-9);
}

TEST(CostModel, AggregationWinsOnManySmallExtentsBehindTheNetwork)
{
    /* FLASH-IO-like: each rank's block in 4096 extents of 128 bytes, 200 us per call: 0.8 s
     * independent; aggregated the extents of a round go in one call. */
    Job j = blocks(512 * KiB, 4096);
    j.cost = table(200e-6, 1.0 / 300e6, 8.0 / 300e6, 20e-6);
    j.finish(1);
    mcio_cost_choice c = decide(j);
    EXPECT_FALSE(c.best.independent) << name(c.best);
    EXPECT_LT(c.best.seconds, 0.1);
    mcio_cost_config ind{};
    ind.independent = 1;
    ind.depth = 1;
    ASSERT_EQ(mcio_cost_predict(&j.in, &ind), MCIO_SUCCESS);
    EXPECT_NEAR(ind.seconds, 4096 * 200e-6 + 512 * KiB * 8.0 / 300e6 + 1e-5, 1e-9);
}

TEST(CostModel, OwnAccessPacksPiecesThatMeetInTheFile)
{
    /* The same FLASH-IO-like blocks, their 4096 rows adjacent in the file: own access packs
     * them, one call per rank (its 512 KiB fit one buffer). The packing's copy is each rank's
     * own work, beside the network's share that the node's streams wait for. */
    Job j = blocks(512 * KiB, 4096);
    std::vector<int64_t> calls(8, 1);
    j.cost = table(200e-6, 1.0 / 300e6, 8.0 / 300e6, 20e-6);
    j.finish(1);
    j.topo.rank_calls = calls.data();
    EXPECT_NEAR(independent_seconds(j), 200e-6 + 512 * KiB * 8.0 / 300e6 + 1e-5, 1e-9);
    /* Where a rank alone is the longest (the node's share as cheap as one stream), it packs. */
    j.cost = table(200e-6, 1.0 / 300e6, 1.0 / 300e6, 20e-6);
    EXPECT_NEAR(independent_seconds(j),
                200e-6 + 512 * KiB / 300e6 + 512 * KiB * 1e-10 + 1e-5, 1e-9);
    j.cost = table(200e-6, 1.0 / 300e6, 8.0 / 300e6, 20e-6);
    EXPECT_TRUE(decide(j).best.independent) << name(decide(j).best);
    /* More calls than extents say nothing the extents do not: one call per extent. */
    std::fill(calls.begin(), calls.end(), 5000);
    EXPECT_NEAR(independent_seconds(j), 4096 * 200e-6 + 512 * KiB * 8.0 / 300e6 + 1e-5, 1e-9);
}

TEST(CostModel, AnExchangesPiecesCostTheDatatypeEngine)
{
    /* AggregatedPredictionByHand's two interleaved ranks: rank 1's two pieces go to rank 0 in
     * one message, a datatype of two blocks that rank 1 packs and rank 0 unpacks. The
     * aggregator's side is the call's longest: the call costs two blocks more. */
    Job k;
    k.node = {0, 0};
    k.sum = {mcio_summary{0, 96 * KiB, 64 * KiB}, mcio_summary{32 * KiB, 128 * KiB, 64 * KiB}};
    k.ext = {2, 2};
    k.cost = table(1e-3, 1e-9, 8e-9, 2e-5);
    k.finish(1);
    mcio_cost_config agg = romio(1, 1);
    ASSERT_EQ(mcio_cost_predict(&k.in, &agg), MCIO_SUCCESS);
    double without = agg.seconds;
    k.cost.piece = 3e-6;
    ASSERT_EQ(mcio_cost_predict(&k.in, &agg), MCIO_SUCCESS);
    EXPECT_NEAR(agg.seconds - without, 2 * 3e-6, 1e-12);
}

TEST(CostModel, InterleavedSegmentsAggregateAndMoreAggregatorsShareTheBandwidth)
{
    /* IOR-like, 16 KiB transfers: independent costs one call per transfer (1024 of them);
     * where concurrent writers slow each other down more than they share (byte_n = 16
     * byte_1: a disk seeking between them), one aggregator per node wins. */
    Job j = interleaved(16 * MiB, 16 * KiB);
    j.cost = table(200e-6, 1.0 / 300e6, 16.0 / 300e6, 20e-6);
    j.finish(1);
    mcio_cost_choice c = decide(j);
    EXPECT_FALSE(c.best.independent) << name(c.best);
    EXPECT_EQ(c.best.aggs_per_node, 1) << name(c.best);
    /* A node whose bandwidth grows with writers (byte_n = byte_1): more aggregators win. */
    j.cost = table(200e-6, 1.0 / 300e6, 1.0 / 300e6, 20e-6);
    c = decide(j);
    EXPECT_FALSE(c.best.independent) << name(c.best);
    EXPECT_EQ(c.best.aggs_per_node, 4) << name(c.best);
}

TEST(CostModel, PipelineWinsWhenExchangeAndFileAccessAreAlike)
{
    Job j = interleaved(16 * MiB, 16 * KiB);
    /* Messages as dear per byte as the file: depth > 1 hides one behind the other. */
    j.cost = table(50e-6, 1.0 / 1e9, 8.0 / 1e9, 20e-6);
    j.cost.msg_byte = 1.0 / 1e9;
    j.finish(1);
    mcio_cost_choice c = decide(j);
    EXPECT_FALSE(c.best.independent);
    EXPECT_GT(c.best.depth, 1) << name(c.best);
    mcio_cost_config d1 = c.best;
    d1.depth = 1;
    ASSERT_EQ(mcio_cost_predict(&j.in, &d1), MCIO_SUCCESS);
    EXPECT_GT(d1.seconds, c.best.seconds);
    /* No core to spare for the I/O thread: a pipeline hides nothing, and is not chosen. */
    j.cost.overlap = 0;
    c = decide(j);
    EXPECT_FALSE(c.best.independent);
    EXPECT_EQ(c.best.depth, 1) << name(c.best);
}

TEST(CostModel, MemoryRulesOutBuffersThatDoNotFit)
{
    /* 2 MiB of headroom per node: no 16 MiB buffer fits, the 4 MiB ones do not either; the
     * memory strategy (which always fits) or independent access must be chosen. */
    Job j = interleaved(16 * MiB, 16 * KiB);
    j.cost = table(200e-6, 1.0 / 300e6, 8.0 / 300e6, 20e-6);
    j.mem = {2 * MiB};
    j.finish(1);
    mcio_cost_choice c = decide(j);
    EXPECT_TRUE(c.best.fits);
    EXPECT_TRUE(c.best.independent || c.best.strategy == MCIO_STRATEGY_MEMORY) << name(c.best);
    /* With no limit the same job takes a romio plan. */
    j.mem.clear();
    j.finish(1);
    c = decide(j);
    EXPECT_EQ(c.best.strategy, MCIO_STRATEGY_ROMIO) << name(c.best);
    EXPECT_FALSE(c.best.independent);
}

TEST(CostModel, HintsTheUserSetAreNotChosen)
{
    Job j = blocks(256 * KiB, 1);
    j.cost = table(2e-6, 1.0 / 2e9, 1.0 / 1e9, 20e-6);
    j.finish(0);
    /* romio_cb_read=enable: aggregated only, even where independent is faster. */
    j.in.fixed = MCIO_COST_FIX_CB;
    j.in.params.cb = MCIO_CB_ENABLE;
    mcio_cost_choice c = decide(j);
    EXPECT_FALSE(c.best.independent);
    EXPECT_FALSE(c.runner_up.independent);
    /* ... with cb_nodes, cb_buffer_size and the depth set too: one candidate, the user's. */
    j.in.fixed |= MCIO_COST_FIX_CB_NODES | MCIO_COST_FIX_BUFFER | MCIO_COST_FIX_DEPTH;
    j.in.params.cb_nodes = 3;
    j.in.params.buffer_size = 8 * MiB;
    j.in.depth = 2;
    c = decide(j);
    EXPECT_EQ(c.candidates, 1);
    EXPECT_EQ(c.best.aggs_per_node, 0);
    EXPECT_EQ(c.best.buffer, 8 * MiB);
    EXPECT_EQ(c.best.depth, 2);
    EXPECT_LT(c.runner_up.seconds, 0);
    /* romio_cb_read=disable: independent only. */
    j.in.fixed = MCIO_COST_FIX_CB;
    j.in.params.cb = MCIO_CB_DISABLE;
    c = decide(j);
    EXPECT_EQ(c.candidates, 1);
    EXPECT_TRUE(c.best.independent);
    /* automatic, set explicitly, on interleaved accesses: aggregated only (ROMIO's rule). */
    Job k = interleaved(4 * MiB, 256 * KiB);
    k.cost = j.cost;
    k.finish(0);
    k.in.fixed = MCIO_COST_FIX_CB;
    c = decide(k);
    EXPECT_FALSE(c.best.independent);
    EXPECT_FALSE(c.runner_up.independent);
}

TEST(CostModel, SameInputsSameChoice)
{
    Job j = interleaved(4 * MiB, 64 * KiB);
    j.cost = mcio_cost_defaults(1);
    j.finish(1);
    mcio_cost_choice a = decide(j), b = decide(j);
    EXPECT_EQ(name(a.best), name(b.best));
    EXPECT_EQ(a.best.seconds, b.best.seconds);
    EXPECT_EQ(name(a.runner_up), name(b.runner_up));
}

TEST(CostModel, RanksShareTheNodesCores)
{
    /* 8 ranks of one node on 2 cores, each its own 256 KiB block in one call: the page
     * cache's copies are the node's CPU work, so the call takes the 8 ranks' work over 2
     * cores, not one rank's. */
    Job j = blocks(256 * KiB, 1);
    j.cost = table(2e-6, 1e-9, 1e-9, 20e-6);
    j.finish(0); /* reads: writes to one file take turns (WritesToOneFileTakeTurns...) */
    const double one = 2e-6 + 256 * KiB * 1e-9;
    EXPECT_NEAR(independent_seconds(j), one + 1e-5, 1e-12); /* cores unknown: each its own */
    j.cost.cores = 2;
    EXPECT_NEAR(independent_seconds(j), 8 * one / 2 + 1e-5, 1e-12);
    j.cost.cores = 16; /* more cores than ranks: each rank its own again */
    EXPECT_NEAR(independent_seconds(j), one + 1e-5, 1e-12);
    /* A remote file system: the ranks wait on the servers, not on the cores. */
    j.cost.cores = 2;
    j.cost.remote = 1;
    EXPECT_NEAR(independent_seconds(j), one + 1e-5, 1e-12);
    /* Aggregated, the exchange is the node's CPU work too: on 2 cores, 4 aggregators per node
     * cost no less than the node's packing, messages and copies over 2 cores. */
    Job k = interleaved(4 * MiB, 64 * KiB);
    k.cost = table(20e-6, 1.0 / 2e9, 1.0 / 2e9, 10e-6);
    k.cost.msg_byte = 1.0 / 1e9;
    k.finish(1);
    mcio_cost_config a4 = romio(4, 1), a4c = a4;
    ASSERT_EQ(mcio_cost_predict(&k.in, &a4), MCIO_SUCCESS);
    k.cost.cores = 2;
    ASSERT_EQ(mcio_cost_predict(&k.in, &a4c), MCIO_SUCCESS);
    EXPECT_GT(a4c.seconds, 1.5 * a4.seconds);
    /* Every byte not the aggregator's own is packed, moved once (msg_byte: one copy between
     * the ranks of a node) and copied into the collective buffer (copy_byte), and written
     * through the page cache once: a floor of the node's work. */
    const double total = 8 * 4.0 * MiB, moved = total * 3 / 4; /* at least 3/4 moves */
    EXPECT_GE(a4c.seconds, (moved * (1e-9 + 2 * 1e-10) + total / 2e9) / 2);
}

TEST(CostModel, WritesToOneFileTakeTurnsOnALocalFileSystem)
{
    /* 8 ranks of one node on 2 cores, each its own 256 KiB block: the reads share the 2 cores,
     * the writes hold the file's inode lock one at a time and take the 8 ranks' sum. */
    Job j = blocks(256 * KiB, 1);
    j.cost = table(2e-6, 1e-9, 1e-9, 20e-6);
    j.cost.cores = 2;
    const double one = 2e-6 + 256 * KiB * 1e-9;
    j.finish(0);
    EXPECT_NEAR(independent_seconds(j), 8 * one / 2 + 1e-5, 1e-12);
    j.finish(1);
    EXPECT_NEAR(independent_seconds(j), 8 * one + 1e-5, 1e-12);
    /* Not where the servers hold the file, nor where the machine is unknown (cores 0). */
    j.cost.remote = 1;
    EXPECT_NEAR(independent_seconds(j), one + 1e-5, 1e-12);
    j.cost.remote = 0;
    j.cost.cores = 0;
    EXPECT_NEAR(independent_seconds(j), one + 1e-5, 1e-12);
    /* Aggregated, 4 aggregators of a node each write 8 MiB in one round, in turn: at least
     * their 4 calls and 32 MiB at the concurrent figure, though messages and copies are
     * free and 2 cores would halve it. */
    Job k = interleaved(4 * MiB, 64 * KiB);
    k.cost = table(20e-6, 1e-9, 1e-9, 0);
    k.cost.msg_byte = k.cost.copy_byte = k.cost.coll = 0;
    k.cost.cores = 2;
    k.finish(1);
    mcio_cost_config a4 = romio(4, 1);
    ASSERT_EQ(mcio_cost_predict(&k.in, &a4), MCIO_SUCCESS);
    EXPECT_NEAR(a4.seconds, 4 * (20e-6 + 8 * MiB * 1e-9), 1e-9);
    /* Reads share the cores, as far as 4 busy aggregators among the node's 8 ranks spread
     * over them (mcio_cost_busiest_core: 2.51 on the busiest core, expected, not 2). */
    k.finish(0);
    ASSERT_EQ(mcio_cost_predict(&k.in, &a4), MCIO_SUCCESS);
    EXPECT_NEAR(a4.seconds, mcio_cost_busiest_core(2, 4, 8) * (20e-6 + 8 * MiB * 1e-9), 1e-9);
}

TEST(CostModel, BusyRanksLandOnTheCoresAmongTheWaitingOnes)
{
    /* Each rank a core of its own, or the cores unknown: no busy rank shares one. */
    EXPECT_EQ(mcio_cost_busiest_core(0, 2, 8), 1.0);
    EXPECT_EQ(mcio_cost_busiest_core(8, 2, 8), 1.0);
    EXPECT_EQ(mcio_cost_busiest_core(16, 8, 8), 1.0);
    /* 8 ranks on 2 cores, 4 to a core: 2 busy ones share a core 3 times in 7 (the second
     * lands among the first's 3 neighbours of 7); 4 busy ones 2-2 in 36 of 70 draws, 3-1 in
     * 32, 4-0 in 2; all 8 busy, 4 to a core. */
    EXPECT_DOUBLE_EQ(mcio_cost_busiest_core(2, 1, 8), 1.0);
    EXPECT_DOUBLE_EQ(mcio_cost_busiest_core(2, 2, 8), 1.0 + 3.0 / 7);
    EXPECT_DOUBLE_EQ(mcio_cost_busiest_core(2, 4, 8), (36 * 2 + 32 * 3 + 2 * 4) / 70.0);
    EXPECT_DOUBLE_EQ(mcio_cost_busiest_core(2, 8, 8), 4.0);
    /* 4 cores of 2 ranks each: 2 busy ones share one in 4 of 28 pairs. An odd split: 9 ranks
     * on 2 cores (5 and 4), 2 busy ones together in 16 of 36 pairs. */
    EXPECT_DOUBLE_EQ(mcio_cost_busiest_core(4, 2, 8), 1.0 + 4.0 / 28);
    EXPECT_DOUBLE_EQ(mcio_cost_busiest_core(2, 2, 9), 1.0 + 16.0 / 36);
    /* Beyond 64 ranks on a node: as evenly as the cores allow. */
    EXPECT_EQ(mcio_cost_busiest_core(2, 2, 100), 1.0);
    EXPECT_EQ(mcio_cost_busiest_core(2, 8, 100), 4.0);
    /* So on 2 cores, the node's exchange split among 4 aggregators beats 2: measured on this
     * host (8 ranks, Open MPI, /tmp), 4 at a median 1.09 times the speed of 2 over four
     * oracles, and 2 as fast as 4 once bound to different cores. Before, the node's CPU work
     * over its 2 cores made them alike. */
    Job j = interleaved(2 * MiB, 16 * KiB);
    j.cost = table(2e-6, 1.0 / 10e9, 1.0 / 10e9, 5e-6);
    j.cost.msg_byte = 1.0 / 5e9;
    j.finish(0);
    auto predict = [&](int aggs) {
        mcio_cost_config c = romio(aggs, 1);
        EXPECT_EQ(mcio_cost_predict(&j.in, &c), MCIO_SUCCESS);
        return c.seconds;
    };
    j.cost.cores = 2;
    const double each = mcio_cost_busiest_core(2, 2, 8) / mcio_cost_busiest_core(2, 4, 8);
    EXPECT_NEAR(predict(2) / predict(4), 2 * each, 0.02); /* 1.14: twice the work each */
}

/* The figures of this host's /tmp (ext4) as mcio-calibrate cached them (~/.cache/mcio), with
 * its 2 cores, and a GCRM-like write: 8 ranks, 2 MiB each in 256 extents of 8 KiB, every
 * rank in every stretch of 64 KiB. Independent, the 2,048 writes take turns on the inode lock
 * (17.6 ms); aggregated, 2 aggregators write 8 MiB each (12.7 ms). Measured (idle host,
 * docs/figures/oracle-idle-tmp-3.json): independent 13.1 ms, aggregated 5.7-8.0 ms. */
TEST(CostModel, ManySmallWritesToOneLocalFileAggregate)
{
    Job j;
    for (int r = 0; r < 8; r++) {
        j.node.push_back(0);
        j.sum.push_back(mcio_summary{r * 8 * KiB, 255 * 64 * KiB + (r + 1) * 8 * KiB, 2 * MiB});
        j.ext.push_back(256);
    }
    mcio_cost_table t{};
    t.conc = 8;
    t.call[0][0] = 3.03e-6, t.call[0][1] = 6.18e-6, t.call[1][0] = 7.84e-6, t.call[1][1] = 5.85e-7;
    t.byte[0][0] = 2.37e-10, t.byte[0][1] = 2.90e-10, t.byte[1][0] = 1.56e-10;
    t.byte[1][1] = 1.54e-10;
    t.msg = 1.07e-5, t.msg_byte = 5.56e-10, t.coll = 4.12e-5, t.copy_byte = 1.37e-10;
    t.overlap = 0, t.calibrated = 1, t.cores = 2;
    j.cost = t;
    j.finish(1);
    mcio_cost_choice w = decide(j);
    EXPECT_FALSE(w.best.independent) << name(w.best);
    /* Reads take no lock: the 2,048 reads share the cores and beat the exchange. */
    j.finish(0);
    mcio_cost_choice r = decide(j);
    EXPECT_TRUE(r.best.independent) << name(r.best);
}

/* A write that ends with a sync (GlusterFS's write-behind): every rank that wrote syncs, the
 * node's writers at once paying the concurrent figure. 8 ranks of 512 KiB each: independent,
 * 8 syncs among 8; one aggregator per node, one sync alone, and the others have nothing to
 * flush. The sync is paid once per writer, not per file call, so it turns the choice. */
TEST(CostModel, ASyncIsPaidOncePerWriter)
{
    Job j = blocks(512 * KiB, 1);
    j.cost = table(1e-4, 2e-9, 5e-9, 1e-5);
    j.cost.remote = 1;
    j.cost.sync[0] = 2e-3;
    j.cost.sync[1] = 15e-3;
    j.finish(1);
    const double one = 1e-4 + 512 * KiB * 5e-9;
    EXPECT_NEAR(independent_seconds(j), one + 1e-5, 1e-12);
    mcio_cost_config a1 = romio(1, 1), a1s = a1;
    ASSERT_EQ(mcio_cost_predict(&j.in, &a1), MCIO_SUCCESS);
    EXPECT_TRUE(decide(j).best.independent) << name(decide(j).best);
    j.in.sync = 1;
    EXPECT_NEAR(independent_seconds(j), one + 15e-3 + 1e-5, 1e-12);
    ASSERT_EQ(mcio_cost_predict(&j.in, &a1s), MCIO_SUCCESS);
    EXPECT_NEAR(a1s.seconds, a1.seconds + 2e-3, 1e-12);
    mcio_cost_choice c = decide(j);
    EXPECT_FALSE(c.best.independent) << name(c.best);
    /* Reads sync nothing. */
    j.finish(0);
    j.in.sync = 1;
    EXPECT_NEAR(independent_seconds(j), one + 1e-5, 1e-12);
}

TEST(CostModel, PipelineHidesOnlyWhereACoreIsLeftBesideTheAggregators)
{
    /* Exchange and file access alike: a pipeline hides one behind the other where the node
     * has a core beside its aggregators (1 aggregator, 2 cores), not where it has none. */
    Job j = interleaved(16 * MiB, 16 * KiB);
    j.cost = table(50e-6, 1.0 / 1e9, 1.0 / 1e9, 20e-6);
    j.cost.msg_byte = 1.0 / 1e9;
    j.cost.overlap = 0; /* what the cores say replaces it */
    j.finish(1);
    auto predict = [&](int aggs, int depth) {
        mcio_cost_config c = romio(aggs, depth);
        EXPECT_EQ(mcio_cost_predict(&j.in, &c), MCIO_SUCCESS);
        return c.seconds;
    };
    j.cost.cores = 2;
    EXPECT_LT(predict(1, 2), predict(1, 1));
    /* Writes to one file of a local file system take turns: without a pipeline, after the
     * round's exchange; with one, one aggregator's beside the other's exchange. */
    EXPECT_LT(predict(2, 2), predict(2, 1));
    j.finish(0); /* reads: 2 aggregators on 2 cores, nothing left */
    EXPECT_GE(predict(2, 2), predict(2, 1));
    j.cost.cores = 1;
    EXPECT_GE(predict(1, 2), predict(1, 1));
    /* 8 ranks on 2 cores: the I/O thread lands apart from its aggregator only as often as the
     * scheduler puts them on different cores (mcio_cost_busiest_core: the 2 busy ones of 9
     * share a core 16 times in 36, 1/1.44 of the overlap), so depth 2 hides less there than
     * where each rank and thread has a core (without that, 0.94 of the gain). */
    auto gain = [&](int cores) {
        j.cost.cores = cores;
        return predict(1, 1) - predict(1, 2);
    };
    EXPECT_GT(gain(2), 0);
    EXPECT_LT(gain(2), 0.8 * gain(16));
}

TEST(CostModel, ABufferBeyondTheCacheCostsAnotherPassThroughMemory)
{
    /* One aggregator of 8 ranks on 2 cores, 16 MiB of writes: with a 32 MiB cache, a 16 MiB
     * buffer is half cold (2 x 16 MiB / 32 MiB - 1/2), a 4 MiB one hot; each cold byte pays
     * two passes of copy_cold less copy_byte. No cache known, no cold buffer. */
    Job j = interleaved(2 * MiB, 16 * KiB);
    j.cost = table(2e-6, 1.0 / 10e9, 1.0 / 10e9, 20e-6);
    j.cost.cores = 2;
    j.cost.copy_cold = 5e-10;
    j.finish(1);
    auto predict = [&](int64_t buffer) {
        mcio_cost_config c = romio(1, 1);
        c.buffer = buffer;
        EXPECT_EQ(mcio_cost_predict(&j.in, &c), MCIO_SUCCESS);
        return c.seconds;
    };
    const double unknown16 = predict(16 * MiB), unknown4 = predict(4 * MiB);
    j.cost.cache = 32 * MiB;
    EXPECT_NEAR(predict(4 * MiB), unknown4, 1e-12);
    EXPECT_NEAR(predict(16 * MiB) - unknown16, 0.5 * 2 * 16 * MiB * (5e-10 - 1e-10), 1e-9);
    /* Reads alike: the buffer filled from the file, then drained to the ranks. */
    j.in.write = 0;
    const double read16 = predict(16 * MiB);
    j.cost.cache = 0;
    EXPECT_NEAR(read16 - predict(16 * MiB), 0.5 * 2 * 16 * MiB * (5e-10 - 1e-10), 1e-9);
    j.cost.cache = 32 * MiB;
    j.in.write = 1;
    j.cost.cache = 8 * MiB; /* 4 MiB: half cold too (2 x 4 / 8 - 1/2 = 1/2) */
    EXPECT_GT(predict(4 * MiB), unknown4);
    /* A pipeline's sub-buffers in flight are what the cache holds: 1 MiB of them, hot. */
    mcio_cost_config d2 = romio(1, 2), d2u = d2;
    j.cost.cache = 32 * MiB;
    ASSERT_EQ(mcio_cost_predict(&j.in, &d2), MCIO_SUCCESS);
    j.cost.cache = 0;
    ASSERT_EQ(mcio_cost_predict(&j.in, &d2u), MCIO_SUCCESS);
    EXPECT_NEAR(d2.seconds, d2u.seconds, 1e-12);
    /* A node of two cache instances of 16 MiB (two sockets): two aggregators of 8 MiB have one
     * each (2 x 16 / 32 - 1/2: half cold), one aggregator of 16 MiB only its own (all cold).
     * A core to each rank: the two aggregators' copies do not share one (BusyRanks...). */
    j.cost.cores = 8;
    j.cost.cache = 16 * MiB;
    auto cold_cost = [&](int aggs, int caches) {
        j.cost.caches = caches;
        mcio_cost_config c = romio(aggs, 1), u = c;
        EXPECT_EQ(mcio_cost_predict(&j.in, &c), MCIO_SUCCESS);
        int64_t cache = j.cost.cache;
        j.cost.cache = 0;
        EXPECT_EQ(mcio_cost_predict(&j.in, &u), MCIO_SUCCESS);
        j.cost.cache = cache;
        return c.seconds - u.seconds;
    };
    const double pass = 2 * 16 * MiB * (5e-10 - 1e-10);
    EXPECT_NEAR(cold_cost(2, 1), pass / 2, 1e-9); /* each aggregator half its 8 MiB, all cold */
    EXPECT_NEAR(cold_cost(2, 2), pass / 4, 1e-9);
    EXPECT_NEAR(cold_cost(1, 2), pass, 1e-9);
}

/* The plan mcio_cost_decide_plan hands the engine is the chosen configuration's, as
 * mcio_cost_plan and the pipeline's subdivision make it (planned once, not twice). */
void expect_chosen_plan(const Job &j)
{
    mcio_cost_choice c, d;
    mcio_fdplan got{}, want{};
    int *slots = nullptr;
    ASSERT_EQ(mcio_cost_decide_plan(&j.in, &d, &got, &slots), MCIO_SUCCESS);
    c = decide(j);
    EXPECT_EQ(name(c.best), name(d.best));
    EXPECT_EQ(c.best.seconds, d.best.seconds);
    EXPECT_EQ(name(c.runner_up), name(d.runner_up));
    if (c.best.independent) {
        EXPECT_EQ(got.ndomains, 0);
        EXPECT_EQ(slots, nullptr);
        return;
    }
    ASSERT_EQ(mcio_cost_plan(&j.in, &c.best, &want), MCIO_SUCCESS);
    std::vector<int> want_slots(want.ndomains + 1);
    if (c.best.depth > 1) {
        ASSERT_NE(slots, nullptr);
        ASSERT_EQ(mcio_fdplan_subdivide(&want, j.in.subbuffer, c.best.depth, j.in.unit,
                                        want_slots.data()),
                  MCIO_SUCCESS);
    } else {
        EXPECT_EQ(slots, nullptr);
    }
    EXPECT_EQ(mcio_test::domains_of(got), mcio_test::domains_of(want));
    for (int d = 0; slots && d < want.ndomains; d++)
        EXPECT_EQ(slots[d], want_slots[d]) << "domain " << d;
    EXPECT_EQ(got.max_buffer, want.max_buffer);
    mcio_fdplan_free(&got);
    mcio_fdplan_free(&want);
    free(slots);
}

/* A choice taken again (the engine, for a call whose inputs are an earlier call's): the plan
 * mcio_cost_replan makes is the one mcio_cost_decide_plan handed over, its prediction is left
 * as it was, and it says whether the plan still fits the nodes' memory as they are now. */
void expect_replanned(const Job &j)
{
    mcio_cost_choice d;
    mcio_fdplan first{}, again{};
    int *slots = nullptr, *slots_again = nullptr;
    ASSERT_EQ(mcio_cost_decide_plan(&j.in, &d, &first, &slots), MCIO_SUCCESS);
    mcio_cost_config c = d.best;
    c.fits = -1;
    ASSERT_EQ(mcio_cost_replan(&j.in, &c, &again, &slots_again), MCIO_SUCCESS);
    EXPECT_EQ(c.fits, 1) << name(c);
    EXPECT_EQ(c.seconds, d.best.seconds);
    EXPECT_EQ(mcio_test::domains_of(again), mcio_test::domains_of(first)) << name(c);
    EXPECT_EQ(again.max_buffer, first.max_buffer);
    ASSERT_EQ(slots_again == nullptr, slots == nullptr);
    for (int k = 0; slots && k < first.ndomains; k++)
        EXPECT_EQ(slots_again[k], slots[k]) << "domain " << k;
    mcio_fdplan_free(&first);
    mcio_fdplan_free(&again);
    free(slots);
    free(slots_again);
}

TEST(CostModel, DecidePlanHandsOverTheChosenPlan)
{
    Job j = interleaved(16 * MiB, 16 * KiB);
    j.cost = table(50e-6, 1.0 / 1e9, 8.0 / 1e9, 20e-6); /* a pipeline */
    j.cost.msg_byte = 1.0 / 1e9;
    j.finish(1);
    ASSERT_GT(decide(j).best.depth, 1);
    expect_chosen_plan(j);
    expect_replanned(j);
    j.cost = table(200e-6, 1.0 / 300e6, 1.0 / 300e6, 20e-6); /* aggregated, depth 1 */
    ASSERT_EQ(decide(j).best.depth, 1);
    ASSERT_FALSE(decide(j).best.independent);
    expect_chosen_plan(j);
    expect_replanned(j);
    Job k = blocks(256 * KiB, 1); /* independent */
    k.cost = table(2e-6, 1.0 / 2e9, 1.0 / 1e9, 20e-6);
    k.finish(0);
    ASSERT_TRUE(decide(k).best.independent);
    expect_chosen_plan(k);
    expect_replanned(k);
}

/* IOR-like segments of 64 KiB, the page cache's figures with calls (cores 0: the node's
 * cores unknown, the margin of a remote file system) or messages (cores known: the file access
 * the node's CPU work, where calls stay cheap) dearer and dearer: independent access pays a
 * call per segment, aggregation an exchange. Wherever the default aggregates, independent
 * access is predicted at least margin times slower, and the sweep passes through costs where
 * aggregation is predicted faster, but by less (margin 1: none, it aggregates there). */
void aggregation_margin(int cores, double margin)
{
    int decisive = 0, aggregated = 0;
    for (double x = 1e-7; x < 1e-2; x *= 1.02) {
        Job j = interleaved(4 * MiB, 64 * KiB);
        j.cost = cores ? table(1e-6, 1.0 / 2e9, 1.0 / 1.5e9, x)
                       : table(x, 1.0 / 2e9, 1.0 / 1.5e9, 5e-6);
        j.cost.cores = cores;
        j.finish(1);
        mcio_cost_choice c = decide(j);
        double ind = independent_seconds(j);
        j.in.fixed = MCIO_COST_FIX_CB;
        j.in.params.cb = MCIO_CB_ENABLE;
        mcio_cost_choice agg = decide(j);
        if (!c.best.independent) {
            aggregated++;
            EXPECT_GE(ind, margin * c.best.seconds) << name(c.best) << " at " << x;
            EXPECT_EQ(c.margin, 0) << "at " << x;
        } else if (agg.best.seconds < ind) {
            decisive++; /* aggregation predicted faster, by less than the margin */
            EXPECT_LT(ind, margin * agg.best.seconds) << "at " << x;
            EXPECT_EQ(name(c.runner_up), name(agg.best)) << "at " << x;
            EXPECT_EQ(c.margin, margin) << "at " << x; /* the choice says why */
        } else {
            EXPECT_EQ(c.margin, 0) << "at " << x; /* independent on its own merits */
        }
    }
    if (margin > 1)
        EXPECT_GT(decisive, 0) << cores << " cores";
    else
        EXPECT_EQ(decisive, 0) << cores << " cores";
    EXPECT_GT(aggregated, 0) << cores << " cores";
}

TEST(CostModel, AggregationOnlyWhereClearlyFasterThanIndependentAccess)
{
    aggregation_margin(0, 1.0); /* a remote file system: wherever predicted faster */
    aggregation_margin(8, 1.3); /* the file access the node's CPU work: 1.3 */
}

/* mcio_cost_decide_seen lists what mcio_cost_decide weighed: every candidate it predicted,
 * as far as the caller's array goes, and the same choice. */
TEST(CostModel, DecideSeenListsEveryCandidatePredicted)
{
    Job j = interleaved(4 * MiB, 64 * KiB);
    j.cost = table(1e-4, 1.0 / 2e9, 1.0 / 1.5e9, 5e-6);
    j.finish(1);
    mcio_cost_choice c = decide(j), s;
    std::vector<mcio_cost_config> seen(64);
    ASSERT_EQ(mcio_cost_decide_seen(&j.in, &s, seen.data(), (int)seen.size()), MCIO_SUCCESS);
    EXPECT_EQ(name(s.best), name(c.best));
    EXPECT_EQ(s.best.seconds, c.best.seconds);
    EXPECT_EQ(s.candidates, c.candidates);
    ASSERT_EQ(s.candidates, 1 + 3 * 2 * 3);
    EXPECT_TRUE(seen[0].independent); /* tried first */
    int at_best = 0, at_runner_up = 0;
    for (int i = 0; i < s.candidates; i++) {
        EXPECT_GT(seen[i].seconds, 0) << i;
        EXPECT_GE(seen[i].seconds, s.best.independent ? 0 : s.best.seconds) << name(seen[i]);
        at_best += name(seen[i]) == name(s.best) && seen[i].seconds == s.best.seconds;
        at_runner_up += name(seen[i]) == name(s.runner_up);
    }
    EXPECT_EQ(at_best, 1);
    EXPECT_EQ(at_runner_up, 1);
    /* A shorter array: the first candidates, nothing written beyond it, the same choice. */
    std::vector<mcio_cost_config> few(4);
    few[3].seconds = 123;
    ASSERT_EQ(mcio_cost_decide_seen(&j.in, &s, few.data(), 3), MCIO_SUCCESS);
    EXPECT_EQ(s.candidates, c.candidates);
    EXPECT_EQ(name(s.best), name(c.best));
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(few[i].seconds, seen[i].seconds) << i;
    EXPECT_EQ(few[3].seconds, 123);
    ASSERT_EQ(mcio_cost_decide_seen(&j.in, &s, nullptr, 8), MCIO_SUCCESS);
    EXPECT_EQ(name(s.best), name(c.best));
}

TEST(CostModel, AChoiceTakenAgainIsCheckedAgainstTheMemoryNow)
{
    /* The romio plan chosen with no limit no longer fits a node of 2 MiB: the engine must
     * decide again (DecidePlanHandsOverTheChosenPlan checks the plan taken again). */
    Job j = interleaved(16 * MiB, 16 * KiB);
    j.cost = table(200e-6, 1.0 / 300e6, 1.0 / 300e6, 20e-6);
    j.finish(1);
    mcio_cost_config c = decide(j).best;
    ASSERT_EQ(c.strategy, MCIO_STRATEGY_ROMIO);
    ASSERT_FALSE(c.independent);
    j.mem = {2 * MiB};
    j.finish(1);
    mcio_fdplan fd{};
    int *slots = nullptr;
    ASSERT_EQ(mcio_cost_replan(&j.in, &c, &fd, &slots), MCIO_SUCCESS);
    EXPECT_EQ(c.fits, 0);
    mcio_fdplan_free(&fd);
    free(slots);
}

TEST(CostModel, UnequalStreamsShareTheNodesClientOnlyWhileTheyRun)
{
    /* TAPIOCA-like on a FUSE client (GlusterFS): 8 ranks of one node, rank 0 a 2 MiB block,
     * the others 256 KiB each, one read call apiece. The concurrent figures say the node's
     * client moves 8 streams at 3 times one stream's cost each (8/3 of one stream's
     * bandwidth). The seven small blocks are done a sixth of the way through the large one,
     * which then reads alone: the call takes the larger of the largest block alone and the
     * node's streams at the shared rate over 8, not the largest block at the shared rate
     * (which made a single aggregator look cheaper). */
    Job j = blocks(256 * KiB, 1);
    j.sum[0] = mcio_summary{0, 2 * MiB, 2 * MiB};
    for (int r = 1; r < 8; r++)
        j.sum[r] = mcio_summary{2 * MiB + (r - 1) * 256 * KiB, 2 * MiB + r * 256 * KiB, 256 * KiB};
    const double call = 500e-6, b1 = 1.0 / 150e6, bn = 3.0 / 150e6;
    j.cost = table(call, b1, bn, 20e-6);
    j.cost.remote = 1;
    j.cost.cores = 2;
    j.finish(0);
    /* File domains aligned on the volume's 4 MiB shards, a pipeline's sub-buffers a shard
     * (mcio_pipeline_unit, mcio_pipeline_subbuffer), as the engine plans on GlusterFS. */
    j.in.params.stripe = j.in.unit = j.in.subbuffer = 4 * MiB;
    mcio_cost_config ind{};
    ind.independent = 1;
    ind.depth = 1;
    ASSERT_EQ(mcio_cost_predict(&j.in, &ind), MCIO_SUCCESS);
    const double alone = call + 2 * MiB * b1;
    const double shared = (8 * call + (2 * MiB + 7 * 256 * KiB) * bn) / 8;
    EXPECT_NEAR(ind.seconds, std::max(alone, shared) + 1e-5, 1e-12);
    /* Aggregated, the 3.75 MiB fall in one shard, one domain: one stream alone, slower. */
    mcio_cost_choice c = decide(j);
    EXPECT_TRUE(c.best.independent) << name(c.best);
    EXPECT_GT(c.runner_up.seconds, (2 * MiB + 7 * 256 * KiB) * b1);
    /* Blocks of one size: each its shared time, as before. */
    Job k = blocks(512 * KiB, 1);
    k.cost = j.cost;
    k.finish(0);
    ASSERT_EQ(mcio_cost_predict(&k.in, &ind), MCIO_SUCCESS);
    EXPECT_NEAR(ind.seconds, call + 512 * KiB * bn + 1e-5, 1e-12);
    /* Where a probe measured a stream slower alone than in company, the concurrent figure
     * speaks: never dearer than the shared rate. */
    k.cost.byte[MCIO_COST_READ][0] = 2 * bn;
    ASSERT_EQ(mcio_cost_predict(&k.in, &ind), MCIO_SUCCESS);
    EXPECT_NEAR(ind.seconds, call + 512 * KiB * bn + 1e-5, 1e-12);
}

TEST(CostModel, DefaultsByKind)
{
    mcio_cost_table local = mcio_cost_defaults(0), remote = mcio_cost_defaults(1);
    EXPECT_EQ(local.calibrated, 0);
    EXPECT_GT(remote.call[0][0], 10 * local.call[0][0]);
    EXPECT_GT(remote.byte[1][0], local.byte[1][0]);
    EXPECT_GE(local.conc, 2);
    /* On the defaults, the two examples go the measured ways: contiguous 256 KiB
     * blocks independent in the page cache, FLASH-IO-like extents aggregated on GlusterFS. */
    Job j = blocks(256 * KiB, 1);
    j.cost = local;
    j.finish(0);
    EXPECT_TRUE(decide(j).best.independent);
    Job k = blocks(512 * KiB, 4096);
    k.cost = remote;
    k.finish(1);
    EXPECT_FALSE(decide(k).best.independent);
}

TEST(CostCache, RoundTrip)
{
    mcio_cost_table t = table(1.5e-6, 2.5e-10, 3.5e-10, 7e-6);
    t.conc = 4;
    char buf[1024];
    int n = mcio_cost_format(&t, 1795000000, buf, sizeof buf);
    ASSERT_GT(n, 0);
    ASSERT_LT(n, (int)sizeof buf);
    mcio_cost_table u{};
    int64_t date = 0;
    ASSERT_EQ(mcio_cost_parse(buf, &u, &date, nullptr, 0), 0);
    EXPECT_EQ(date, 1795000000);
    EXPECT_EQ(u.conc, 4);
    EXPECT_EQ(u.calibrated, 1);
    for (int op = 0; op < 2; op++)
        for (int c = 0; c < 2; c++) {
            EXPECT_NEAR(u.call[op][c], t.call[op][c], 1e-12);
            EXPECT_NEAR(u.byte[op][c], t.byte[op][c], 1e-16);
        }
    EXPECT_NEAR(u.msg, 7e-6, 1e-12);
    EXPECT_NEAR(u.coll, 1e-5, 1e-12);
}

TEST(CostCache, RejectsMalformedOrIncompleteText)
{
    mcio_cost_table t = table(1e-6, 1e-10, 1e-10, 1e-6);
    char buf[1024];
    mcio_cost_format(&t, 42, buf, sizeof buf);
    mcio_cost_table u{};
    int64_t date;
    std::string good = buf;
    /* Each key left out in turn. */
    size_t lines = 0;
    for (size_t at = 0; (at = good.find('\n', at)) != std::string::npos; at++)
        lines++;
    for (size_t drop = 1; drop < lines; drop++) { /* line 0 is the comment */
        std::string s;
        size_t line = 0, from = 0;
        std::string dropped;
        for (size_t at; (at = good.find('\n', from)) != std::string::npos; from = at + 1, line++)
            if (line != drop)
                s += good.substr(from, at + 1 - from);
            else
                dropped = good.substr(from, at + 1 - from);
        if (dropped.rfind("probes ", 0) == 0 || dropped.rfind("load ", 0) == 0 ||
            dropped.rfind("format ", 0) == 0 || dropped.rfind("crowd ", 0) == 0)
            continue; /* optional, below (format: text without it is format 1; crowd:
                         test_cost_crowd.cpp) */
        char why[128] = "";
        EXPECT_EQ(mcio_cost_parse(s.c_str(), &u, &date, why, sizeof why), -1)
            << "without line " << drop;
        /* The reason names the key missing (an older mcio's cache lacks the newer keys). */
        std::string key = dropped.substr(0, dropped.find(' '));
        EXPECT_EQ(std::string(why), "no line for " + key) << "without line " << drop;
    }
    /* A bad value names its line and key. */
    char why[128] = "";
    std::string bad = good + "msg -1\n";
    EXPECT_EQ(mcio_cost_parse(bad.c_str(), &u, &date, why, sizeof why), -1);
    size_t nl = std::count(good.begin(), good.end(), '\n');
    EXPECT_EQ(std::string(why), "line " + std::to_string(nl + 1) + ": msg: not a finite value >= 0");
    EXPECT_EQ(mcio_cost_parse((good + "msg -1\n").c_str(), &u, &date, nullptr, 0), -1);
    EXPECT_EQ(mcio_cost_parse((good + "msg nan\n").c_str(), &u, &date, nullptr, 0), -1);
    EXPECT_EQ(mcio_cost_parse((good + "msg\n").c_str(), &u, &date, nullptr, 0), -1);
    EXPECT_EQ(mcio_cost_parse((good + "msg 1 2\n").c_str(), &u, &date, nullptr, 0), -1);
    EXPECT_EQ(mcio_cost_parse((good + "conc 1\n").c_str(), &u, &date, nullptr, 0), -1);
    EXPECT_EQ(mcio_cost_parse("", &u, &date, nullptr, 0), -1);
    /* overlap is optional: -1 when absent, pinned when given, 0 to 1 only. */
    ASSERT_EQ(mcio_cost_parse(good.c_str(), &u, &date, nullptr, 0), 0);
    EXPECT_EQ(u.overlap, -1);
    ASSERT_EQ(mcio_cost_parse((good + "overlap 0.5\n").c_str(), &u, &date, nullptr, 0), 0);
    EXPECT_EQ(u.overlap, 0.5);
    EXPECT_EQ(mcio_cost_parse((good + "overlap 2\n").c_str(), &u, &date, nullptr, 0), -1);
    /* probes and load are optional: 1 and -1 when absent (a cache of an earlier mcio). */
    std::string old = good.substr(0, good.find("probes ")) + good.substr(good.find("write_call_1"));
    ASSERT_EQ(mcio_cost_parse(old.c_str(), &u, &date, nullptr, 0), 0);
    EXPECT_EQ(u.probes, 1);
    EXPECT_EQ(u.load, -1);
    /* Unknown keys are ignored (a newer mcio's cache). */
    EXPECT_EQ(mcio_cost_parse((good + "future_key 3\n").c_str(), &u, &date, nullptr, 0), 0);
}

/* probed merged into the cache t (in place): what a later open reads. */
void merge_into(mcio_cost_table &t, mcio_cost_table probed)
{
    probed.kept = 0;
    mcio_cost_merge(&t, &probed, &t);
}

TEST(CostCache, KeepsTheMedianOfTheLastFiveProbes)
{
    /* The message latency of six probes: 1, 2, 100 (a loaded host), 3, 4 and 5 us. The cache
     * stands for their median over the last five: 100 moves it by one place, not to 100. */
    mcio_cost_table t = table(2e-6, 2.4e-10, 3e-10, 1e-6);
    t.probes = 1;
    mcio_cost_history_start(&t);
    EXPECT_EQ(t.kept, 1);
    EXPECT_NEAR(t.spread[MCIO_COST_WRITE], 0.10, 1e-12); /* one probe: its noise unknown */
    const double lat[] = {2e-6, 100e-6, 3e-6, 4e-6, 5e-6};
    const double median[] = {1e-6, 2e-6, 2e-6, 3e-6, 4e-6}; /* after each (lower middle) */
    for (int i = 0; i < 5; i++) {
        mcio_cost_table p = table(2e-6, 2.4e-10, 3e-10, lat[i]);
        p.load = i;
        merge_into(t, p);
        EXPECT_EQ(t.msg, median[i]) << i;
        EXPECT_EQ(t.kept, i < 4 ? i + 2 : 5) << i;
        EXPECT_EQ(t.probes, i + 2) << i;
        EXPECT_EQ(t.load, i) << i;
    }
    /* The sixth probe dropped the first (1 us): 2, 100, 3, 4, 5. */
    EXPECT_EQ(t.hist[0][10], 2e-6);
    /* The file system's figures agree; the messages' spread is the table's: half the range of
     * a 1 MiB message's time over its median (4 us + 1 MiB at 1e-10 s a byte). */
    double mib = 4e-6 + (1 << 20) * 1e-10;
    EXPECT_NEAR(t.spread[MCIO_COST_WRITE], (100e-6 - 2e-6) / (2 * mib), 1e-9);
    EXPECT_NEAR(t.spread[MCIO_COST_READ], (100e-6 - 2e-6) / (2 * mib), 1e-9);
    /* Probes that agree: the least spread, 0.05. */
    for (int i = 0; i < 5; i++)
        merge_into(t, table(2e-6, 2.4e-10, 3e-10, 4e-6));
    EXPECT_EQ(t.spread[MCIO_COST_WRITE], 0.05);
    /* Through the cache's text: the same history, medians and spread. */
    char buf[4096];
    int n = mcio_cost_format(&t, 7, buf, sizeof buf);
    ASSERT_LT(n, (int)sizeof buf);
    mcio_cost_table u{};
    int64_t date;
    char why[128] = "";
    ASSERT_EQ(mcio_cost_parse(buf, &u, &date, why, sizeof why), 0) << why;
    EXPECT_EQ(u.kept, 5);
    EXPECT_NEAR(u.msg, t.msg, 1e-12);
    EXPECT_NEAR(u.spread[MCIO_COST_WRITE], t.spread[MCIO_COST_WRITE], 1e-6);
    for (int k = 0; k < 5; k++)
        EXPECT_NEAR(u.hist[k][10], t.hist[k][10], 1e-12) << k;
}

TEST(CostCache, KeepsAnOperationsFileSystemFiguresFromItsMedianProbe)
{
    /* GlusterFS's reads on this host: one probe measured 8 concurrent readers 6.3 times dearer
     * per byte than one; another found one reader quicker (a quiet moment) and the concurrent
     * ones dearer (13.5 times one). Figure by figure the medians would mix them into a ratio
     * no probe measured: an operation's four figures (and a write's sync) are its median
     * probe's, by what they price a 1 MiB call at. */
    mcio_cost_table a = table(4.5e-4, 6e-9, 3.76e-8, 8e-6), b = a, c = a;
    b.byte[1][0] = 3.7e-9, b.byte[1][1] = 5e-8;  /* reads: the dearest of the three */
    c.byte[1][0] = 5e-9, c.byte[1][1] = 1e-8;    /* reads: the cheapest */
    b.byte[0][0] = 0.5 * a.byte[0][0];           /* writes: b the cheapest, a the median */
    c.byte[0][1] = 2 * a.byte[0][1];
    mcio_cost_table t = a;
    mcio_cost_history_start(&t);
    merge_into(t, b);
    merge_into(t, c);
    for (int k = 0; k < 2; k++) {
        EXPECT_EQ(t.byte[MCIO_COST_READ][k], a.byte[MCIO_COST_READ][k]) << k;
        EXPECT_EQ(t.byte[MCIO_COST_WRITE][k], a.byte[MCIO_COST_WRITE][k]) << k;
    }
    /* Another conc (another layout): the history starts again with the probe. */
    mcio_cost_table other = b;
    other.conc = 4;
    EXPECT_EQ(mcio_cost_merge(&t, &other, &t), 0);
    EXPECT_EQ(t.kept, 1);
    EXPECT_EQ(t.conc, 4);
    EXPECT_EQ(t.byte[1][1], b.byte[1][1]);
}

TEST(CostCache, CountsFiguresTwiceTheCaches)
{
    mcio_cost_table quiet = table(2e-6, 2.4e-10, 3e-10, 8e-6), loaded = quiet, out;
    mcio_cost_history_start(&quiet);
    loaded.byte[0][0] *= 30, loaded.byte[0][1] *= 30, loaded.coll *= 3;
    loaded.msg *= 1.5; /* dearer, but not twice */
    EXPECT_EQ(mcio_cost_merge(&quiet, &loaded, &out), 3);
    EXPECT_EQ(mcio_cost_merge(&out, &quiet, &out), 0);
}

TEST(CostCache, OlderTextReadsAsOneProbeAndCorrectionsRoundTrip)
{
    mcio_cost_table t = table(2e-6, 2.4e-10, 3e-10, 8e-6);
    char buf[4096];
    mcio_cost_format(&t, 7, buf, sizeof buf); /* kept 0: no hist_ lines, as format 1 */
    EXPECT_EQ(std::string(buf).find("hist_"), std::string::npos);
    mcio_cost_table u{};
    int64_t date;
    ASSERT_EQ(mcio_cost_parse(buf, &u, &date, nullptr, 0), 0);
    EXPECT_EQ(u.kept, 1);
    EXPECT_EQ(u.hist[0][10], u.msg);
    EXPECT_NEAR(u.spread[MCIO_COST_READ], 0.10, 1e-12);
    /* Corrections are kept with the figures. */
    mcio_cost_config agg{};
    agg.strategy = MCIO_STRATEGY_ROMIO, agg.aggs_per_node = 2, agg.buffer = 16 << 20, agg.depth = 1;
    ASSERT_EQ(mcio_cost_observe(&u, MCIO_COST_WRITE, 0xfeed, &agg, 0.04, 0.07), 0);
    ASSERT_EQ(mcio_cost_observe(&u, MCIO_COST_WRITE, 0xfeed, &agg, 0.04, 0.068), 1);
    mcio_cost_format(&u, 7, buf, sizeof buf);
    mcio_cost_table v{};
    ASSERT_EQ(mcio_cost_parse(buf, &v, &date, nullptr, 0), 0);
    EXPECT_NEAR(mcio_cost_correction_of(&v, MCIO_COST_WRITE, 0xfeed, &agg), 1.7, 1e-4);
    EXPECT_EQ(mcio_cost_correction_of(&v, MCIO_COST_READ, 0xfeed, &agg), 1.0);
    EXPECT_EQ(mcio_cost_correction_of(&v, MCIO_COST_WRITE, 0xbeef, &agg), 1.0); /* another shape */
    agg.aggs_per_node = 4; /* another configuration */
    EXPECT_EQ(mcio_cost_correction_of(&v, MCIO_COST_WRITE, 0xfeed, &agg), 1.0);
    /* Malformed lists: the caller probes again. */
    std::string good(buf);
    char why[128];
    auto parse = [&](const char *extra) {
        return mcio_cost_parse((good + extra).c_str(), &v, &date, why, sizeof why);
    };
    EXPECT_EQ(parse("hist_msg 1e-6 x\n"), -1);
    EXPECT_EQ(parse("hist_msg 1e-6 2e-6\n"), -1) << "hist_ lines of unequal counts";
    EXPECT_EQ(parse("correct_read 1f 0 0 1 1 4096 9\n"), -1) << "a factor beyond 4";
    EXPECT_EQ(parse("correct_read 1f 0 0 1\n"), -1);
    EXPECT_EQ(parse("correct_other 1 2\n"), 0) << "a newer mcio's kind: ignored";
}

} // namespace
