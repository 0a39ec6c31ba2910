/*
 * The cost model where a node's ranks outnumber its cores (issue 48, item 2): an exchange's
 * messages take the probe's measured crowd times what the napping ping-pong priced them at
 * (mcio_cost_crowd), on the sender's side and the aggregator's, and nothing changes where each
 * rank has a core. And the cache keeps the crowd with its probes, a table without it reading as
 * no stretch.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "mcio_costmodel.h"
#include "mcio_hints.h"
#include "mcio_planner.h"

namespace {

constexpr int64_t KiB = 1024, MiB = int64_t(1) << 20;

mcio_cost_table crowded(double crowd, int cores)
{
    mcio_cost_table t{};
    for (int op = 0; op < 2; op++) {
        t.call[op][0] = t.call[op][1] = 2e-6;
        t.byte[op][0] = 2e-10;
        t.byte[op][1] = 4e-10;
    }
    t.conc = 8;
    t.msg = 2e-6;
    t.msg_byte = 2e-10;
    t.coll = 1e-5;
    t.copy_byte = t.copy_cold = 1e-10;
    t.piece = 20e-9;
    t.overlap = 1;
    t.calibrated = 1;
    t.crowd = crowd;
    t.cores = cores;
    return t;
}

/* 8 ranks of one node, IOR-like: 4 MiB each in 64 KiB segments, interleaved. */
struct Ior {
    std::vector<int> node = std::vector<int>(8, 0);
    std::vector<mcio_summary> sum;
    std::vector<int64_t> ext = std::vector<int64_t>(8, 64);
    mcio_topology topo{};
    mcio_cost_table cost{};
    mcio_cost_inputs in{};

    Ior(const mcio_cost_table &t, int write) : cost(t)
    {
        const int64_t seg = 64 * KiB;
        for (int r = 0; r < 8; r++)
            sum.push_back(mcio_summary{r * seg, 63 * 8 * seg + (r + 1) * seg, 64 * seg});
        topo = mcio_topology{.nprocs = 8, .nnodes = 1, .node_of_rank = node.data(),
                             .socket_of_rank = nullptr, .sockets_per_node = 1, .net = nullptr,
                             .node_mem = nullptr, .rank_extents = ext.data(),
                             .rank_calls = nullptr, .spans = nullptr};
        mcio_hints h = mcio_hints_default();
        in = mcio_cost_inputs{.topo = &topo, .sum = sum.data(), .write = write,
                              .params = mcio_hints_planner_params(&h, write), .depth = 1,
                              .subbuffer = MiB, .unit = 4096, .fixed = 0, .sync = 0,
                              .cost = &cost, .planners = nullptr};
    }

    double predict(int aggs)
    {
        mcio_cost_config c{};
        c.strategy = MCIO_STRATEGY_ROMIO;
        c.aggs_per_node = aggs;
        c.buffer = 16 * MiB;
        c.depth = 1;
        EXPECT_EQ(mcio_cost_predict(&in, &c), MCIO_SUCCESS);
        return c.seconds;
    }
};

TEST(CostCrowd, StretchOnlyWhereTheRanksOutnumberTheCores)
{
    mcio_cost_table t = crowded(3, 2);
    EXPECT_DOUBLE_EQ(mcio_cost_crowd(&t, 1), 1.0);
    EXPECT_DOUBLE_EQ(mcio_cost_crowd(&t, 2), 1.0);  /* a core each */
    EXPECT_DOUBLE_EQ(mcio_cost_crowd(&t, 8), 3.0);  /* as the probe measured: conc 8 */
    EXPECT_DOUBLE_EQ(mcio_cost_crowd(&t, 5), 2.0);  /* half way from the cores to conc */
    EXPECT_DOUBLE_EQ(mcio_cost_crowd(&t, 14), 5.0); /* grown in proportion past conc */
    t.cores = 0; /* unknown: no stretch */
    EXPECT_DOUBLE_EQ(mcio_cost_crowd(&t, 8), 1.0);
    t = crowded(3, 8); /* the probe's ranks had a core each: it says nothing */
    EXPECT_DOUBLE_EQ(mcio_cost_crowd(&t, 16), 1.0);
    t = crowded(0, 2); /* a table that did not measure it (zeroed, or pinned without it) */
    EXPECT_DOUBLE_EQ(mcio_cost_crowd(&t, 8), 1.0);
}

TEST(CostCrowd, AggregatedCallsPayTheCrowdOnlyOnAnOversubscribedNode)
{
    for (int write = 0; write < 2; write++) {
        Ior calm(crowded(1, 2), write), busy(crowded(3, 2), write);
        Ior roomy(crowded(1, 16), write), roomy_busy(crowded(3, 16), write);
        for (int aggs : {1, 2, 4}) {
            double a = calm.predict(aggs), b = busy.predict(aggs);
            /* The messages take 3 times longer; the file access and the copies do not. */
            EXPECT_GT(b, 1.2 * a) << "write " << write << " aggs " << aggs;
            EXPECT_LT(b, 3.0 * a) << "write " << write << " aggs " << aggs;
            EXPECT_DOUBLE_EQ(roomy.predict(aggs), roomy_busy.predict(aggs));
        }
        /* Independent access sends no message: the crowd leaves it alone. */
        mcio_cost_config i{}, j{};
        i.independent = j.independent = 1;
        i.depth = j.depth = 1;
        ASSERT_EQ(mcio_cost_predict(&calm.in, &i), MCIO_SUCCESS);
        ASSERT_EQ(mcio_cost_predict(&busy.in, &j), MCIO_SUCCESS);
        EXPECT_DOUBLE_EQ(i.seconds, j.seconds);
    }
}

TEST(CostCrowd, TheCacheKeepsItWithItsProbes)
{
    mcio_cost_table t = crowded(2.5, 0);
    mcio_cost_history_start(&t);
    mcio_cost_table p = t;
    p.crowd = 3.5;
    ASSERT_GE(mcio_cost_merge(&t, &p, &t), 0);
    p.crowd = 2.0;
    ASSERT_GE(mcio_cost_merge(&t, &p, &t), 0);
    EXPECT_DOUBLE_EQ(t.crowd, 2.5); /* the median of 2.5, 3.5, 2.0 */
    char buf[4096];
    int n = mcio_cost_format(&t, 1795000000, buf, sizeof buf);
    ASSERT_GT(n, 0);
    ASSERT_LT(n, (int)sizeof buf);
    EXPECT_NE(strstr(buf, "\ncrowd 2.500000e+00"), nullptr) << buf;
    EXPECT_NE(strstr(buf, "\nhist_crowd 2.500000e+00 3.500000e+00 2.000000e+00"), nullptr) << buf;
    mcio_cost_table u{};
    int64_t date = 0;
    ASSERT_EQ(mcio_cost_parse(buf, &u, &date, nullptr, 0), 0);
    EXPECT_DOUBLE_EQ(u.crowd, 2.5);
    EXPECT_EQ(u.kept, 3);
    EXPECT_DOUBLE_EQ(u.hist[1][MCIO_COST_FIGURES - 1], 3.5);
    /* A cache or a pinned table written before the crowd: no stretch, and its history whole. */
    std::string text(buf);
    for (const char *key : {"\ncrowd ", "\nhist_crowd "}) {
        size_t at = text.find(key);
        ASSERT_NE(at, std::string::npos);
        text.erase(at, text.find('\n', at + 1) - at);
    }
    ASSERT_EQ(mcio_cost_parse(text.c_str(), &u, &date, nullptr, 0), 0) << text;
    EXPECT_DOUBLE_EQ(u.crowd, 1.0);
    EXPECT_EQ(u.kept, 3);
    EXPECT_DOUBLE_EQ(u.hist[2][MCIO_COST_FIGURES - 1], 1.0);
}

} // namespace
