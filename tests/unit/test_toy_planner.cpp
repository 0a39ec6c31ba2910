/*
 * A new planner is a function and a row (issue 45): a toy planner added to a table of planners
 * the way planners.c adds its own becomes a candidate of strategy auto, which the cost model
 * enumerates and mcio_decide can pick, with no other change; and mcio_decide plans strategies of
 * the table by their row.
 *
 * The toy: every rank the aggregator of its own span (the independent plan, but as an
 * aggregated candidate with rounds of the buffer), so that 8 ranks of blocks on one node need
 * no exchange, where romio's most aggregators per node (4) receive half of their domains' bytes
 * from another rank.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mcio_decide.h"
#include "mcio_hints.h"
#include "plan_test_util.h"

namespace {

constexpr int64_t MiB = int64_t(1) << 20;

int plan_toy(const mcio_topology *topo, const mcio_summary *sum, mcio_planner_params params,
             mcio_fdplan *plan)
{
    return mcio_planner_independent(topo->nprocs, sum, params, plan);
}

/* The library's rows, then the toy's. */
struct Table {
    std::vector<mcio_planner> rows;
    mcio_planner_table t{};
    explicit Table(int toy_candidate)
    {
        mcio_planner_table lib = mcio_planners();
        rows.assign(lib.rows, lib.rows + lib.n);
        rows.push_back(mcio_planner{.name = "toy", .plan = plan_toy, .keeps_node_memory = 0,
                                    .candidate = toy_candidate, .cost_plan = nullptr});
        t = mcio_planner_table{rows.data(), (int)rows.size()};
    }
    int toy() const { return t.n - 1; }
};

/* 8 ranks on one node, 4 MiB blocks in rank order; messages dear, so that no exchange wins. */
struct Job {
    std::vector<int> node = std::vector<int>(8, 0);
    std::vector<mcio_summary> sum;
    std::vector<int64_t> ext = std::vector<int64_t>(8, 1);
    mcio_topology topo{};
    mcio_cost_table cost{};
    mcio_decide_inputs in{};

    explicit Job(const mcio_planner_table *planners)
    {
        for (int r = 0; r < 8; r++)
            sum.push_back(mcio_summary{r * 4 * MiB, (r + 1) * 4 * MiB, 4 * MiB});
        topo = mcio_topology{.nprocs = 8, .nnodes = 1, .node_of_rank = node.data(),
                             .socket_of_rank = nullptr, .sockets_per_node = 1, .net = nullptr,
                             .node_mem = nullptr, .rank_extents = ext.data(),
                             .rank_calls = nullptr, .spans = nullptr};
        for (int op = 0; op < 2; op++)
            for (int k = 0; k < 2; k++) {
                cost.call[op][k] = 1e-5;
                cost.byte[op][k] = 1e-10;
            }
        cost.conc = 8;
        cost.msg = 1e-3;
        cost.msg_byte = 1e-8;
        cost.coll = 1e-5;
        cost.copy_byte = 1e-10;
        cost.overlap = 1;
        cost.calibrated = 1;
        mcio_hints h = mcio_hints_default();
        h.cb_write = MCIO_CB_ENABLE; /* aggregated candidates only: the toy against romio */
        in = mcio_decide_inputs{.topo = &topo, .sum = sum.data(),
                                .hints = mcio_hints_decide(&h, 1, 0, MCIO_COST_FIX_CB),
                                .cost = &cost, .write = 1,
                                .sync = 0, .fs_block = 4096, .planners = planners};
    }
};

struct Decision {
    mcio_decision d{};
    ~Decision() { mcio_decision_free(&d); }
};

TEST(ToyPlanner, AutoPicksTheNewRow)
{
    Table with(MCIO_CANDIDATE_ALWAYS);
    Job j(&with.t);
    Decision out;
    ASSERT_EQ(mcio_decide(&j.in, nullptr, &out.d), MCIO_SUCCESS);
    EXPECT_EQ(out.d.chose, 1);
    EXPECT_EQ(out.d.own_access, 0);
    EXPECT_EQ(out.d.choice.best.strategy, with.toy());
    EXPECT_EQ(out.d.strategy, with.toy());
    /* Chosen because it is predicted faster than the best of the library's rows. */
    Table without(MCIO_CANDIDATE_NO);
    Job lib(&without.t);
    Decision ref;
    ASSERT_EQ(mcio_decide(&lib.in, nullptr, &ref.d), MCIO_SUCCESS);
    EXPECT_EQ(ref.d.choice.best.strategy, MCIO_STRATEGY_ROMIO);
    EXPECT_LT(out.d.choice.best.seconds, ref.d.choice.best.seconds);
    EXPECT_GT(out.d.choice.candidates, ref.d.choice.candidates);
    /* The plan that runs is the toy's: each rank aggregates its own block. */
    ASSERT_EQ(out.d.fd.ndomains, 8);
    for (int r = 0; r < 8; r++) {
        EXPECT_EQ(out.d.fd.agg_rank[r], r);
        EXPECT_EQ(out.d.fd.fd_start[r], r * 4 * MiB);
        EXPECT_EQ(out.d.fd.fd_end[r], (r + 1) * 4 * MiB);
    }
    /* Taken again for the same inputs, without deciding. */
    Decision again;
    ASSERT_EQ(mcio_decide(&j.in, &out.d.memo, &again.d), MCIO_SUCCESS);
    EXPECT_EQ(again.d.chose, 2);
    EXPECT_EQ(again.d.choice.best.strategy, with.toy());
}

/* The same job without the toy as a candidate: romio, and the toy's row is not weighed. */
TEST(ToyPlanner, NotACandidateNotWeighed)
{
    Table without(MCIO_CANDIDATE_NO);
    Job j(&without.t);
    Decision out;
    ASSERT_EQ(mcio_decide(&j.in, nullptr, &out.d), MCIO_SUCCESS);
    EXPECT_EQ(out.d.choice.best.strategy, MCIO_STRATEGY_ROMIO);
    Job lib(nullptr); /* the library's table: the same choice and the same candidates */
    Decision ref;
    ASSERT_EQ(mcio_decide(&lib.in, nullptr, &ref.d), MCIO_SUCCESS);
    EXPECT_EQ(ref.d.choice.candidates, out.d.choice.candidates);
    EXPECT_EQ(ref.d.choice.best.aggs_per_node, out.d.choice.best.aggs_per_node);
    EXPECT_EQ(ref.d.choice.best.seconds, out.d.choice.best.seconds);
}

/* A strategy of the table, named by the hints, plans with its row. */
TEST(ToyPlanner, StrategyByRow)
{
    Table with(MCIO_CANDIDATE_NO);
    Job j(&with.t);
    j.in.hints.strategy = with.toy();
    Decision out;
    ASSERT_EQ(mcio_decide(&j.in, nullptr, &out.d), MCIO_SUCCESS);
    EXPECT_EQ(out.d.chose, 0);
    EXPECT_EQ(out.d.strategy, with.toy());
    EXPECT_EQ(out.d.fd.ndomains, 8);
}

} // namespace
