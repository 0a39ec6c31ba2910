/*
 * mcio_planner_choose_aggregators: which ranks aggregate, for node layouts and cb_nodes values.
 * Definition (mcio_planner.h, docs/hints.md): cb_nodes aggregators (one per node when 0, capped at
 * nprocs). At most one per node: nodes floor(i * nnodes / want), i = 0..want-1, each giving its
 * first rank. More than the nodes: dealt round-robin over the nodes that have ranks left, and on
 * a node with c aggregators and s ranks, its ranks of local index floor(i * s / c) aggregate.
 * The result is in ascending rank order.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plan_test_util.h"

namespace {

struct AggCase {
    const char *name;
    std::vector<int> node_of_rank;
    int nnodes, cb_nodes;
    std::vector<int> want;
};

/* gtest prints a case by its name. */
void PrintTo(const AggCase &c, std::ostream *os)
{
    *os << c.name;
}

const AggCase agg_cases[] = {
    {"SingleRank", {0}, 1, 0, {0}},
    {"OneNodeDefaultIsRankZero", {0, 0, 0, 0}, 1, 0, {0}},
    {"DefaultOnePerNodeContiguous", {0, 0, 0, 0, 1, 1, 1, 1}, 2, 0, {0, 4}},
    {"DefaultOnePerNodeFourNodes", {0, 0, 1, 1, 2, 2, 3, 3}, 4, 0, {0, 2, 4, 6}},
    /* Round-robin placement: the first rank of node 1 is rank 1. */
    {"DefaultRoundRobinNodes", {0, 1, 0, 1, 0, 1, 0, 1}, 2, 0, {0, 1}},
    {"DefaultRoundRobinThreeNodes", {0, 1, 2, 0, 1, 2}, 3, 0, {0, 1, 2}},
    /* A node's first rank need not be its lowest-numbered node's rank 0. */
    {"DefaultNodesNumberedOutOfRankOrder", {1, 1, 0, 0}, 2, 0, {0, 2}},
    {"CbNodesEqualsNodes", {0, 0, 1, 1}, 2, 2, {0, 2}},
    /* Fewer than the nodes: nodes floor(i * nnodes / cb_nodes). */
    {"CbNodes2Of4Nodes", {0, 0, 1, 1, 2, 2, 3, 3}, 4, 2, {0, 4}},
    {"CbNodes3Of4Nodes", {0, 0, 1, 1, 2, 2, 3, 3}, 4, 3, {0, 2, 4}},
    {"CbNodes4Of6Nodes", {0, 1, 2, 3, 4, 5}, 6, 4, {0, 1, 3, 4}},
    {"CbNodes1PicksNode0", {0, 0, 1, 1, 2, 2}, 3, 1, {0}},
    {"CbNodes1PicksNode0NotRank0", {1, 0, 1, 0}, 2, 1, {1}},
    {"CbNodes2Of3RoundRobinNodes", {0, 1, 2, 0, 1, 2}, 3, 2, {0, 1}},
    /* More than the nodes: several per node, spread over the node's ranks. */
    {"CbNodes4On2NodesOf4", {0, 0, 0, 0, 1, 1, 1, 1}, 2, 4, {0, 2, 4, 6}},
    {"CbNodes3On2NodesOf4", {0, 0, 0, 0, 1, 1, 1, 1}, 2, 3, {0, 2, 4}},
    {"CbNodes6On2NodesOf4", {0, 0, 0, 0, 1, 1, 1, 1}, 2, 6, {0, 1, 2, 4, 5, 6}},
    {"CbNodes8On2NodesOf4IsEveryRank", {0, 0, 0, 0, 1, 1, 1, 1}, 2, 8, {0, 1, 2, 3, 4, 5, 6, 7}},
    {"CbNodes4On2RoundRobinNodes", {0, 1, 0, 1, 0, 1, 0, 1}, 2, 4, {0, 1, 4, 5}},
    {"CbNodes6On2RoundRobinNodes", {0, 1, 0, 1, 0, 1, 0, 1}, 2, 6, {0, 1, 2, 3, 4, 5}},
    /* node 0: ranks 0,3,6 (local 0..2); node 1: 1,4,7; node 2: 2,5. cb 5 gives counts 2,2,1;
     * node 0 picks local floor(i*3/2) = 0,1 -> ranks 0,3; node 1 -> 1,4; node 2 -> 2. */
    {"CbNodes5On3RoundRobinUnevenNodes", {0, 1, 2, 0, 1, 2, 0, 1}, 3, 5, {0, 1, 2, 3, 4}},
    /* Capped at nprocs. */
    {"CbNodesAboveNprocsCapped", {0, 0, 1, 1}, 2, 10, {0, 1, 2, 3}},
    {"CbNodesAboveNprocsOneNode", {0, 0, 0}, 1, 4, {0, 1, 2}},
    /* Uneven nodes: node 0 has 5 ranks, node 1 has 1. Round-robin counts: 1,1 then node 1 is
     * full, so node 0 takes the rest: counts 3,1; node 0 picks floor(i*5/3) = 0,1,3. */
    {"UnevenNodesCb4", {0, 0, 0, 0, 0, 1}, 2, 4, {0, 1, 3, 5}},
    {"UnevenNodesDefault", {0, 0, 0, 0, 0, 1}, 2, 0, {0, 5}},
    {"UnevenNodesCb6IsEveryRank", {0, 0, 0, 0, 0, 1}, 2, 6, {0, 1, 2, 3, 4, 5}},
    /* node 0: rank 0; node 1: ranks 1..3. cb 3: counts 1,2; node 1 picks floor(i*3/2) = 0,1. */
    {"UnevenNodesSmallFirstCb3", {0, 1, 1, 1}, 2, 3, {0, 1, 2}},
    /* Node sizes 3,1,2; cb 5: counts 1,1,1 then 2,-,2: node 0 floor(i*3/2) = 0,1 -> ranks 0,1;
     * node 1 rank 3; node 2 ranks 4,5. */
    {"UnevenThreeNodesCb5", {0, 0, 0, 1, 2, 2}, 3, 5, {0, 1, 3, 4, 5}},
};

class ChooseAggregators : public ::testing::TestWithParam<AggCase> {};

TEST_P(ChooseAggregators, Exact)
{
    const AggCase &c = GetParam();
    int nprocs = (int)c.node_of_rank.size();
    std::vector<int> aggs(nprocs + 1, -1);
    int n = mcio_planner_choose_aggregators(nprocs, c.node_of_rank.data(), c.nnodes, c.cb_nodes,
                                            aggs.data());
    ASSERT_GE(n, 0);
    ASSERT_LE(n, nprocs);
    EXPECT_EQ(aggs[nprocs], -1) << "wrote past nprocs entries";
    aggs.resize(n);
    EXPECT_EQ(aggs, c.want);
}

INSTANTIATE_TEST_SUITE_P(Aggregators, ChooseAggregators, ::testing::ValuesIn(agg_cases),
                         [](const ::testing::TestParamInfo<AggCase> &i) {
                             return std::string(i.param.name);
                         });

} // namespace
