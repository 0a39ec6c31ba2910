/*
 * Aggregator placement (mcio_place_aggregators, mcio_place_spread_sockets, mcio_place_apply,
 * mcio_place_describe). Every expected aggregator is worked out by hand from TAPIOCA's
 * definitions (section 4.1; mcio_placement.h):
 *   greedy    a rank with data in the domain: every key is 0, the tie rule decides
 *   shortest  the sender on a node with the smallest d(A, IO)
 *   longest   the largest d(A, IO)
 *   topology  min C1 + C2, C1 = max_{i != A} l * d(i, A) + w_i / B,
 *             C2 = l * d(A, IO) + (sum w) / (|V_C| * B)
 *   ties      equal keys go to the node hosting fewer aggregators, then to the lower rank
 *   no rank aggregates twice (domains elected in order; an unused rank when no sender is left)
 *   distributed socket rule: when the policy's rank sits on a socket of its node holding more
 *             aggregators than another socket of that node with unused ranks, re-elect among the
 *             senders on the least-loaded sockets of that node, else any unused rank there
 * Latency 1 and bandwidth 1 make the costs small exact numbers.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mcio_placement.h"

namespace {

struct NetText {
    mcio_network n = mcio_network_flat();
    explicit NetText(const char *text)
    {
        char d[MCIO_DETAIL_LEN];
        EXPECT_EQ(mcio_network_parse(text, "test", &n, d), 0) << d;
    }
    ~NetText() { mcio_network_free(&n); }
};

/* Ranks 0..n-1 each write one contiguous block of bytes[r], in rank order. */
std::vector<mcio_summary> blocks(const std::vector<int64_t> &bytes)
{
    std::vector<mcio_summary> s;
    int64_t off = 0;
    for (int64_t b : bytes) {
        s.push_back({off, off + b, b});
        off += b;
    }
    return s;
}

std::vector<int> place(const mcio_topology &t, const std::vector<mcio_summary> &sum, int policy,
                       int rule, const std::vector<int64_t> &bounds)
{
    int nd = (int)bounds.size() - 1;
    std::vector<int> agg(nd, -1);
    int st = mcio_place_aggregators(&t, sum.data(), policy, rule, nd, bounds.data(),
                                    bounds.data() + 1, agg.data());
    EXPECT_EQ(st, 0);
    return agg;
}

/*
 * One partition of 4 ranks on a 4 x 4 grid, I/O node at (0,0): node k at (k / 4, k % 4).
 *   rank  node  position  bytes   d(A, IO) mesh  d(A, IO) torus
 *   0     6     (1,2)     10      4              4
 *   1     4     (1,0)      2      2              2
 *   2     15    (3,3)      4      7              3
 *   3     9     (2,1)     13      4              4
 * sum w = 29, |V_C| = 4: C2's data term 7.25.
 * Mesh hops: 0-1 2, 0-2 3, 0-3 2, 1-2 5, 1-3 2, 2-3 3.
 *   C1(0) = max(2+2, 3+4, 2+13) = 15, C2 = 4 + 7.25: 26.25
 *   C1(1) = max(2+10, 5+4, 2+13) = 15, C2 = 2 + 7.25: 24.25
 *   C1(2) = max(3+10, 5+2, 3+13) = 16, C2 = 7 + 7.25: 30.25
 *   C1(3) = max(2+10, 2+2, 3+4)  = 12, C2 = 4 + 7.25: 23.25  <- topology
 * Torus hops: 0-1 2, 0-2 3, 0-3 2, 1-2 3, 1-3 2, 2-3 3.
 *   C1(0) = max(4, 7, 15) = 15, C2 11.25: 26.25;  C1(1) = max(12, 7, 15) = 15, C2 9.25: 24.25
 *   C1(2) = max(13, 5, 16) = 16, C2 10.25: 26.25; C1(3) = max(12, 4, 7) = 12, C2 11.25: 23.25
 */
const std::vector<int> grid_nodes = {6, 4, 15, 9};
const std::vector<int64_t> grid_bytes = {10, 2, 4, 13};

mcio_topology grid_topo(const mcio_network *net)
{
    return mcio_topology{.nprocs = 4, .nnodes = 16, .node_of_rank = grid_nodes.data(),
                         .socket_of_rank = nullptr, .sockets_per_node = 1, .net = net, .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
}

struct PolicyCase {
    const char *name;
    const char *net;
    int policy;
    int want;
};

void PrintTo(const PolicyCase &c, std::ostream *os)
{
    *os << c.name;
}

const char *mesh = "grid 4:mesh 4:mesh\nio 0 0\nlatency 1\nbandwidth 1\n";
const char *torus = "grid 4:torus 4:torus\nio 0 0\nlatency 1\nbandwidth 1\n";

const PolicyCase policy_cases[] = {
    {"MeshGreedy", mesh, MCIO_PLACE_GREEDY, 0},
    {"MeshShortest", mesh, MCIO_PLACE_SHORTEST, 1},
    {"MeshLongest", mesh, MCIO_PLACE_LONGEST, 2},
    {"MeshTopology", mesh, MCIO_PLACE_TOPOLOGY, 3},
    {"TorusGreedy", torus, MCIO_PLACE_GREEDY, 0},
    {"TorusShortest", torus, MCIO_PLACE_SHORTEST, 1},
    /* ranks 0 and 3 both 4 from the I/O node: the lower rank */
    {"TorusLongestTieToLowerRank", torus, MCIO_PLACE_LONGEST, 0},
    {"TorusTopology", torus, MCIO_PLACE_TOPOLOGY, 3},
};

class Policy : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(Policy, ElectsWhatThePaperDefines)
{
    const PolicyCase &c = GetParam();
    NetText net(c.net);
    mcio_topology t = grid_topo(&net.n);
    auto sum = blocks(grid_bytes);
    EXPECT_EQ(place(t, sum, c.policy, MCIO_SOCKET_NONE, {0, 29}), std::vector<int>{c.want});
}

INSTANTIATE_TEST_SUITE_P(Grid, Policy, ::testing::ValuesIn(policy_cases),
                         [](const ::testing::TestParamInfo<PolicyCase> &i) {
                             return std::string(i.param.name);
                         });

TEST(Placement, DescribeGivesTheCosts)
{
    NetText net(mesh);
    mcio_topology t = grid_topo(&net.n);
    auto sum = blocks(grid_bytes);
    const double c1[4] = {15, 15, 16, 12}, c2[4] = {11.25, 9.25, 14.25, 11.25};
    const int io[4] = {4, 2, 7, 4};
    for (int a = 0; a < 4; a++) {
        mcio_agg_info info;
        ASSERT_EQ(mcio_place_describe(&t, sum.data(), 0, 29, a, &info), 0);
        EXPECT_EQ(info.rank, a);
        EXPECT_EQ(info.node, grid_nodes[a]);
        EXPECT_EQ(info.socket, 0);
        EXPECT_EQ(info.io_hops, io[a]);
        EXPECT_EQ(info.senders, 4);
        EXPECT_EQ(info.bytes, 29);
        EXPECT_EQ(info.c1, c1[a]) << "rank " << a;
        EXPECT_EQ(info.c2, c2[a]) << "rank " << a;
    }
}

/* The key each rank computes for itself in the distributed election: C1 + C2 for topology,
 * d(A, IO) for shortest, -d(A, IO) for longest, 0 for greedy (the rank order decides). */
TEST(Placement, KeyIsWhatEachRankComputesForItself)
{
    NetText net(mesh);
    mcio_topology t = grid_topo(&net.n);
    auto sum = blocks(grid_bytes);
    const double cost[4] = {26.25, 24.25, 30.25, 23.25};
    const int io[4] = {4, 2, 7, 4};
    for (int a = 0; a < 4; a++) {
        double k = -1;
        ASSERT_EQ(mcio_place_key(&t, sum.data(), MCIO_PLACE_TOPOLOGY, 0, 29, a, &k), 0);
        EXPECT_EQ(k, cost[a]) << "rank " << a;
        ASSERT_EQ(mcio_place_key(&t, sum.data(), MCIO_PLACE_SHORTEST, 0, 29, a, &k), 0);
        EXPECT_EQ(k, io[a]);
        ASSERT_EQ(mcio_place_key(&t, sum.data(), MCIO_PLACE_LONGEST, 0, 29, a, &k), 0);
        EXPECT_EQ(k, -io[a]);
        ASSERT_EQ(mcio_place_key(&t, sum.data(), MCIO_PLACE_GREEDY, 0, 29, a, &k), 0);
        EXPECT_EQ(k, 0);
    }
    double k;
    EXPECT_EQ(mcio_place_key(&t, sum.data(), MCIO_PLACE_SPREAD, 0, 29, 0, &k), MCIO_ERR_ARG);
    EXPECT_EQ(mcio_place_key(&t, sum.data(), MCIO_PLACE_GREEDY, 0, 29, 4, &k), MCIO_ERR_ARG);
}

/* A domain boundary cuts rank 0's block [0, 10) at 5: w_0 = 5 in each half (estimated by share). */
TEST(Placement, PartialOverlapCountsTheShare)
{
    NetText net(mesh);
    mcio_topology t = grid_topo(&net.n);
    auto sum = blocks(grid_bytes);
    mcio_agg_info info;
    ASSERT_EQ(mcio_place_describe(&t, sum.data(), 5, 12, 1, &info), 0);
    EXPECT_EQ(info.senders, 2);
    EXPECT_EQ(info.bytes, 5 + 2);
    EXPECT_EQ(info.c1, 2 + 5);         /* from rank 0, 2 hops */
    EXPECT_EQ(info.c2, 2 + 7.0 / 2.0); /* d(IO) 2; 7 bytes over 2 senders */
}

/*
 * No rank aggregates twice. Flat network, one node; rank 0 spans [0, 100), rank 1 [100, 110),
 * rank 2 has nothing. Domains [0, 50) [50, 110) [110, 120):
 *   greedy: d0 -> 0; d1 senders {0, 1}, 0 taken -> 1; d2 no sender -> lowest unused rank, 2.
 */
TEST(Placement, NoRankTwiceAndFallbackToUnusedRanks)
{
    const std::vector<int> node = {0, 0, 0};
    mcio_topology t{.nprocs = 3, .nnodes = 1, .node_of_rank = node.data(),
                    .socket_of_rank = nullptr, .sockets_per_node = 1, .net = nullptr, .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
    std::vector<mcio_summary> sum = {{0, 100, 100}, {100, 110, 10}, {0, 0, 0}};
    for (int p = MCIO_PLACE_GREEDY; p < MCIO_PLACE_COUNT; p++)
        EXPECT_EQ(place(t, sum, p, MCIO_SOCKET_NONE, {0, 50, 110, 120}),
                  (std::vector<int>{0, 1, 2}))
            << mcio_placement_name(p);
}

/*
 * Equal keys spread over the nodes: 48 ranks on 4 nodes of 12, interleaved as IOR does (rank r
 * writes 1 byte at r + 48 k, k < 8: its summary [r, 337 + r) overlaps every domain), 8 domains
 * of 48 bytes, flat network. Greedy, shortest and longest give every rank the same key, so the
 * node hosting the fewest aggregators wins, then the lowest rank: d0 0, d1 12, d2 24, d3 36
 * (node 0, 1, 2, 3), then every node holds one: d4 1, d5 13, d6 25, d7 37. Two per node;
 * ties by rank alone gave 0..7, all on node 0.
 * Topology: in d1..d6 every rank's share is the whole 48 / 336 of its 8 bytes, so every key is
 * l + w / B + C2, equal; in d0 the shares fall with the rank (48 - r of 336), and the
 * candidates of node 0 all have C1 = l + top1(node 1) / B, the smallest; in d7 they grow
 * (r + 1), and node 3's candidates have the smallest C1: node 0's rank 0 first, node 3's
 * rank 37 last, the same eight ranks.
 */
TEST(Placement, EqualKeysSpreadOverNodes)
{
    const int n = 48, per_node = 12, naggs = 8;
    std::vector<int> node(n);
    std::vector<mcio_summary> sum(n);
    for (int r = 0; r < n; r++) {
        node[r] = r / per_node;
        sum[r] = {r, 7 * n + r + 1, 8};
    }
    mcio_topology t{.nprocs = n, .nnodes = n / per_node, .node_of_rank = node.data(),
                    .socket_of_rank = nullptr, .sockets_per_node = 1, .net = nullptr,
                    .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
    std::vector<int64_t> bounds;
    for (int d = 0; d <= naggs; d++)
        bounds.push_back((int64_t)d * n);
    for (int p = MCIO_PLACE_GREEDY; p < MCIO_PLACE_COUNT; p++) {
        auto got = place(t, sum, p, MCIO_SOCKET_NONE, bounds);
        EXPECT_EQ(got, (std::vector<int>{0, 12, 24, 36, 1, 13, 25, 37})) << mcio_placement_name(p);
        std::vector<int> per(t.nnodes, 0);
        for (int r : got)
            per[node[r]]++;
        EXPECT_EQ(per, (std::vector<int>{2, 2, 2, 2})) << mcio_placement_name(p);
    }
}

/* The order of both elections (the pure one and the engine's reduction): key, then node load,
 * then rank; a total order, whichever side is asked. */
TEST(Placement, BetterIsKeyThenNodeLoadThenRank)
{
    const mcio_place_candidate c[] = {
        {1.0, 0, 5}, /* the smallest key wins whatever its node and rank */
        {2.0, 0, 9}, /* equal keys: the node with fewer aggregators */
        {2.0, 1, 3},
        {2.0, 1, 4}, /* equal keys and loads: the lower rank */
        {3.0, 0, 0},
    };
    const int n = (int)(sizeof c / sizeof c[0]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            EXPECT_EQ(mcio_place_better(&c[i], &c[j]), i < j) << i << " before " << j;
}

/*
 * Topology on the flat network (l = 1e-6 s, B = 1e9 B/s), where bytes dominate: ranks 0..3 hold
 * 1, 4, 2, 3 MB on nodes 0, 1, 0, 1 and every C2 is equal, so C1 decides:
 *   C1(0) = C1(2) = l + 4 ms (rank 1's block crosses a hop);
 *   C1(1) = max(l + 2 ms, 3 ms) = 3 ms;  C1(3) = max(l + 2 ms, 4 ms) = 4 ms  -> rank 1,
 * the holder of the largest block, which then need not receive it.
 */
TEST(Placement, TopologyOnFlatNetworkPicksTheLargestSender)
{
    const std::vector<int> node = {0, 1, 0, 1};
    mcio_topology t{.nprocs = 4, .nnodes = 2, .node_of_rank = node.data(),
                    .socket_of_rank = nullptr, .sockets_per_node = 1, .net = nullptr, .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
    auto sum = blocks({1000000, 4000000, 2000000, 3000000});
    EXPECT_EQ(place(t, sum, MCIO_PLACE_TOPOLOGY, MCIO_SOCKET_NONE, {0, 10000000}),
              std::vector<int>{1});
}

TEST(Placement, RefusesMoreJobNodesThanDescribed)
{
    NetText net("matrix 2\n0 1\n1 0\n");
    const std::vector<int> node = {0, 1, 2};
    mcio_topology t{.nprocs = 3, .nnodes = 3, .node_of_rank = node.data(),
                    .socket_of_rank = nullptr, .sockets_per_node = 1, .net = &net.n, .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
    auto sum = blocks({1, 1, 1});
    const int64_t lo = 0, hi = 3;
    int agg = -1;
    EXPECT_EQ(mcio_place_aggregators(&t, sum.data(), MCIO_PLACE_GREEDY, 0, 1, &lo, &hi, &agg),
              MCIO_ERR_ARG);
    EXPECT_EQ(mcio_place_aggregators(&t, sum.data(), MCIO_PLACE_SPREAD, 0, 1, &lo, &hi, &agg),
              MCIO_ERR_ARG);
    mcio_agg_info info;
    EXPECT_EQ(mcio_place_describe(&t, sum.data(), lo, hi, 0, &info), MCIO_ERR_ARG);
}

/*
 * The socket rule: one node of 8 ranks and 2 sockets, 4 domains of 2 ranks each (rank 2d and
 * 2d + 1 write domain d), greedy.
 *   distributed binding (socket r % 2), no rule: 0, 2, 4, 6, all on socket 0.
 *   distributed binding, rule: d0 0 (s0); d1 2 is on s0 (1 aggregator) while s1 has 0: sender 3;
 *     d2 4 (loads 1, 1); d3 6 on s0 (2) vs s1 (1): sender 7. -> 0 3 4 7, two per socket.
 *   accumulated binding (ranks 0-3 socket 0), no rule: 0, 2, 4, 6: sockets 0 0 1 1.
 *   accumulated, rule: d0 0; d1 2 on s0 (1) vs s1 (0), no sender on s1: lowest unused rank of s1,
 *     4; d2 senders {5} (4 taken), loads 1, 1: 5; d3 6 on s1 (2) vs s0 (1), no sender on s0:
 *     lowest unused rank of s0, 1. -> 0 4 5 1, two per socket.
 */
struct SocketCase {
    const char *name;
    std::vector<int> socket;
    int rule;
    std::vector<int> want;
};

void PrintTo(const SocketCase &c, std::ostream *os)
{
    *os << c.name;
}

const SocketCase socket_cases[] = {
    {"DistributedBindingNoRule", {0, 1, 0, 1, 0, 1, 0, 1}, MCIO_SOCKET_NONE, {0, 2, 4, 6}},
    {"DistributedBindingRule", {0, 1, 0, 1, 0, 1, 0, 1}, MCIO_SOCKET_DISTRIBUTED, {0, 3, 4, 7}},
    {"AccumulatedBindingNoRule", {0, 0, 0, 0, 1, 1, 1, 1}, MCIO_SOCKET_NONE, {0, 2, 4, 6}},
    {"AccumulatedBindingRule", {0, 0, 0, 0, 1, 1, 1, 1}, MCIO_SOCKET_DISTRIBUTED, {0, 4, 5, 1}},
};

class SocketRule : public ::testing::TestWithParam<SocketCase> {};

TEST_P(SocketRule, GreedyFourAggregatorsOnATwoSocketNode)
{
    const SocketCase &c = GetParam();
    const std::vector<int> node(8, 0);
    mcio_topology t{.nprocs = 8, .nnodes = 1, .node_of_rank = node.data(),
                    .socket_of_rank = c.socket.data(), .sockets_per_node = 2, .net = nullptr, .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
    auto sum = blocks({4, 4, 4, 4, 4, 4, 4, 4});
    auto got = place(t, sum, MCIO_PLACE_GREEDY, c.rule, {0, 8, 16, 24, 32});
    EXPECT_EQ(got, c.want);
    if (c.rule == MCIO_SOCKET_DISTRIBUTED) {
        int per[2] = {0, 0};
        for (int r : got)
            per[c.socket[r]]++;
        EXPECT_EQ(per[0], 2);
        EXPECT_EQ(per[1], 2);
    }
}

INSTANTIATE_TEST_SUITE_P(Node, SocketRule, ::testing::ValuesIn(socket_cases),
                         [](const ::testing::TestParamInfo<SocketCase> &i) {
                             return std::string(i.param.name);
                         });

/*
 * The rule with the other policies: the same node, distributed binding, shortest and topology
 * on the flat network. Shortest ties everywhere (one node): it behaves as greedy, 0 3 4 7.
 * Topology: in each domain both senders hold 4 bytes, so C1 and C2 tie: the lower rank, and the
 * rule moves it as for greedy: 0 3 4 7.
 */
TEST(SocketRule, OtherPoliciesSpreadToo)
{
    const std::vector<int> node(8, 0), socket = {0, 1, 0, 1, 0, 1, 0, 1};
    mcio_topology t{.nprocs = 8, .nnodes = 1, .node_of_rank = node.data(),
                    .socket_of_rank = socket.data(), .sockets_per_node = 2, .net = nullptr, .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
    auto sum = blocks({4, 4, 4, 4, 4, 4, 4, 4});
    for (int p : {MCIO_PLACE_SHORTEST, MCIO_PLACE_LONGEST, MCIO_PLACE_TOPOLOGY})
        EXPECT_EQ(place(t, sum, p, MCIO_SOCKET_DISTRIBUTED, {0, 8, 16, 24, 32}),
                  (std::vector<int>{0, 3, 4, 7}))
            << mcio_placement_name(p);
}

/*
 * The rule on the spread placement (mcio_place_spread_sockets): each node keeps its count,
 * dealt round-robin over its sockets, spread evenly over each socket's ranks (local index
 * floor(i * size / count)).
 */
struct SpreadCase {
    const char *name;
    std::vector<int> node, socket;
    int nnodes, sockets;
    std::vector<int> aggs, want;
};

void PrintTo(const SpreadCase &c, std::ostream *os)
{
    *os << c.name;
}

const SpreadCase spread_cases[] = {
    /* socket 0 = {0,2,4,6}: local 0, 2 -> 0, 4; socket 1 = {1,3,5,7} -> 1, 5 */
    {"OneNodeDistributedBinding", {0, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 1, 0, 1, 0, 1}, 1, 2,
     {0, 2, 4, 6}, {0, 1, 4, 5}},
    /* socket 0 = {0..3} -> 0, 2; socket 1 = {4..7} -> 4, 6 */
    {"OneNodeAccumulatedBinding", {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 1, 1, 1, 1}, 1, 2,
     {0, 2, 4, 6}, {0, 2, 4, 6}},
    /* two nodes of 4 with 2 aggregators each: one per socket, the socket's first rank */
    {"TwoNodesDistributedBinding", {0, 0, 0, 0, 1, 1, 1, 1}, {0, 1, 0, 1, 0, 1, 0, 1}, 2, 2,
     {0, 2, 4, 6}, {0, 1, 4, 5}},
    /* three aggregators on a node of 2 sockets: 2 on socket 0 ({0,2,4,6}: 0, 4), 1 on socket 1 */
    {"ThreeOnTwoSockets", {0, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 1, 0, 1, 0, 1}, 1, 2, {0, 2, 5},
     {0, 1, 4}},
    /* socket 1 has one rank: it takes one, socket 0 the rest: {0,1,2}: floor(i*3/2) = 0, 1 */
    {"SmallSocketFillsFirst", {0, 0, 0, 0}, {0, 0, 0, 1}, 1, 2, {0, 1, 2}, {0, 1, 3}},
    /* one aggregator per node stays the node's first rank of socket 0 */
    {"OnePerNode", {0, 0, 1, 1}, {0, 1, 0, 1}, 2, 2, {0, 2}, {0, 2}},
};

class SpreadSockets : public ::testing::TestWithParam<SpreadCase> {};

TEST_P(SpreadSockets, Exact)
{
    const SpreadCase &c = GetParam();
    mcio_topology t{.nprocs = (int)c.node.size(), .nnodes = c.nnodes,
                    .node_of_rank = c.node.data(), .socket_of_rank = c.socket.data(),
                    .sockets_per_node = c.sockets, .net = nullptr, .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
    std::vector<int> aggs = c.aggs;
    ASSERT_EQ(mcio_place_spread_sockets(&t, (int)aggs.size(), aggs.data()), 0);
    EXPECT_EQ(aggs, c.want);
}

INSTANTIATE_TEST_SUITE_P(Spread, SpreadSockets, ::testing::ValuesIn(spread_cases),
                         [](const ::testing::TestParamInfo<SpreadCase> &i) {
                             return std::string(i.param.name);
                         });

/*
 * Through the romio planner: the domains and rounds do not move, only agg_rank, and spread
 * without the rule is today's plan. 4 ranks on 2 nodes of 2, matrix with node 1 two hops from
 * node 0 and the I/O node at node 0 (d(IO) 1 and 3), default l = 1e-6, B = 1e9, cb_nodes 2.
 */
TEST(Placement, RomioPlannerOnlyMovesAggregators)
{
    NetText net("matrix 2\n0 2\n2 0\nio 0\n");
    const std::vector<int> node = {0, 0, 1, 1}, socket = {0, 0, 0, 0};
    mcio_topology t{.nprocs = 4, .nnodes = 2, .node_of_rank = node.data(),
                    .socket_of_rank = socket.data(), .sockets_per_node = 1, .net = &net.n, .node_mem = nullptr, .rank_extents = nullptr, .rank_calls = nullptr, .spans = nullptr};
    auto sum = blocks({10, 10, 10, 10});
    const mcio_planner *pl = mcio_planner_find("romio");
    ASSERT_NE(pl, nullptr);
    mcio_planner_params base{.buffer_size = 8, .cb_nodes = 2, .stripe = 0, .cb = MCIO_CB_ENABLE,
                          .placement = MCIO_PLACE_SPREAD, .socket_rule = MCIO_SOCKET_NONE,
                          .nah = 0, .msgind = 0, .msggroup = 0, .memmin = 0, .memory_margin = 0};
    mcio_fdplan ref;
    ASSERT_EQ(mcio_planner_make(pl, &t, sum.data(), base, &ref), 0);
    ASSERT_EQ(ref.ndomains, 2);
    EXPECT_EQ(ref.agg_rank[0], 0);
    EXPECT_EQ(ref.agg_rank[1], 2);
    /* Rank 3 writes twice as much: topology on d1 prefers it (C1 of 2 is 20, of 3 is 10). */
    auto sum2 = blocks({10, 10, 10, 20});
    mcio_planner_params topo = base;
    topo.placement = MCIO_PLACE_TOPOLOGY;
    mcio_fdplan ref2, got;
    ASSERT_EQ(mcio_planner_make(pl, &t, sum2.data(), base, &ref2), 0);
    ASSERT_EQ(mcio_planner_make(pl, &t, sum2.data(), topo, &got), 0);
    ASSERT_EQ(got.ndomains, ref2.ndomains);
    for (int d = 0; d < got.ndomains; d++) {
        EXPECT_EQ(got.fd_start[d], ref2.fd_start[d]);
        EXPECT_EQ(got.fd_end[d], ref2.fd_end[d]);
        EXPECT_EQ(got.win_start[d], ref2.win_start[d]);
        EXPECT_EQ(got.rounds[d], ref2.rounds[d]);
    }
    /* Domains [0, 25) [25, 50). d0: senders 0, 1 (10 bytes each, node 0) and 2 (half of its
     * [20, 30): 5, node 1). C1(0) = C1(1) = max(10/B, 2l + 5/B), C1(2) = 2l + 10/B, and C2 is
     * l * d(IO) + the same data term: node 0 wins, rank 0 on the tie. d1: senders 2 (5) and
     * 3 (20), both on node 1: C1(2) = 20/B, C1(3) = 5/B: rank 3. */
    EXPECT_EQ(got.agg_rank[0], 0);
    EXPECT_EQ(got.agg_rank[1], 3);
    mcio_fdplan_free(&ref);
    mcio_fdplan_free(&ref2);
    mcio_fdplan_free(&got);
}

} // namespace
