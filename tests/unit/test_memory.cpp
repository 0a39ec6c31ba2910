/*
 * The memory strategy (src/core/plan/memory.c), component by component, on the examples of the
 * paper (Wang et al., memory-conscious collective I/O, section 3): the 9-process, 3-node group
 * division of Fig. 5, a partition tree of five file domains as in Fig. 7, both remerge cases
 * of Fig. 8 (and the mirror of case 2), and the location of Fig. 9 failing on a node short of
 * memory and succeeding after remerging. Expected values are worked out by hand in comments.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plan_test_util.h"

using mcio_test::Domain;
using mcio_test::domains_of;
using mcio_test::Plan;

namespace {

struct Memplan {
    mcio_memplan d{};
    Memplan() = default;
    Memplan(const Memplan &) = delete;
    Memplan &operator=(const Memplan &) = delete;
    ~Memplan() { mcio_memplan_free(&d); }
};

struct Tree {
    mcio_ptree t{};
    Tree() = default;
    Tree(const Tree &) = delete;
    Tree &operator=(const Tree &) = delete;
    ~Tree() { mcio_ptree_free(&t); }
};

struct Region {
    int64_t start, end, bytes;
};

bool operator==(const Region &a, const Region &b)
{
    return a.start == b.start && a.end == b.end && a.bytes == b.bytes;
}

std::ostream &operator<<(std::ostream &os, const Region &r)
{
    return os << "[" << r.start << ", " << r.end << "):" << r.bytes;
}

std::vector<Region> leaves(const mcio_ptree &t, int g)
{
    std::vector<int> idx(t.n + 1);
    idx.resize(mcio_ptree_leaves(&t, g, idx.data()));
    std::vector<Region> out;
    for (int v : idx)
        out.push_back(Region{t.v[v].start, t.v[v].end, t.v[v].bytes});
    return out;
}

/* The live vertex of region [start, end) (the tests name vertices by region, as the figures do). */
int vertex(const mcio_ptree &t, int64_t start, int64_t end)
{
    for (int v = 0; v < t.n; v++)
        if (t.v[v].alive && t.v[v].start == start && t.v[v].end == end)
            return v;
    return -1;
}

Region region(const mcio_ptree &t, int v)
{
    return Region{t.v[v].start, t.v[v].end, t.v[v].bytes};
}

/* Dense ranks: rank r requests every byte of [spans[r].first, spans[r].second). */
std::vector<mcio_summary> dense(const std::vector<std::pair<int64_t, int64_t>> &spans)
{
    std::vector<mcio_summary> s;
    for (auto &p : spans)
        s.push_back(mcio_summary{p.first, p.second, p.second - p.first});
    return s;
}

mcio_planner_params params(int nah, int64_t msgind, int64_t msggroup, int64_t memmin)
{
    mcio_planner_params p{};
    p.buffer_size = 1 << 20; /* unused by the memory strategy */
    p.nah = nah;
    p.msgind = msgind;
    p.msggroup = msggroup;
    p.memmin = memmin;
    return p;
}

/* --- requested bytes --- */

TEST(MemoryReqmap, SpreadsEachRanksBytesOverItsSpan)
{
    /* r0 has 50 bytes over [0, 100) (density 1/2), r1 100 bytes over [50, 150) (density 1). */
    std::vector<mcio_summary> s = {{0, 100, 50}, {50, 150, 100}, {500, 600, 0}};
    mcio_reqmap m;
    ASSERT_EQ(mcio_reqmap_build(3, s.data(), &m), MCIO_SUCCESS);
    EXPECT_EQ(mcio_reqmap_bytes(&m, 0, 50), 25);
    EXPECT_EQ(mcio_reqmap_bytes(&m, 50, 100), 75);
    EXPECT_EQ(mcio_reqmap_bytes(&m, 100, 150), 50);
    EXPECT_EQ(mcio_reqmap_bytes(&m, 0, 150), 150);
    EXPECT_EQ(mcio_reqmap_bytes(&m, 20, 120), 40 + 70);
    EXPECT_EQ(mcio_reqmap_bytes(&m, 150, 1000), 0); /* holes and empty ranks count nothing */
    EXPECT_EQ(mcio_reqmap_bytes(&m, -10, 0), 0);
    EXPECT_EQ(mcio_reqmap_bytes(&m, 80, 80), 0);
    mcio_reqmap_free(&m);
}

/* --- aggregation groups (Fig. 5) --- */

struct GroupCase {
    const char *name;
    std::vector<int> node_of_rank;
    int64_t msggroup;
    std::vector<Region> groups;
};

void PrintTo(const GroupCase &c, std::ostream *os)
{
    *os << c.name;
}

/* Nine processes, 10 bytes each in rank order, on three nodes. */
const GroupCase group_cases[] = {
    /* Fig. 5: the cut at byte 20 falls in node 0; the group is extended to the end of node 0's
     * last process, byte 30; so for every group. */
    {"Fig5", {0, 0, 0, 1, 1, 1, 2, 2, 2}, 20, {{0, 30, 30}, {30, 60, 30}, {60, 90, 30}}},
    /* The cut at byte 40 falls in node 1: extended to byte 60. */
    {"CutInSecondNode", {0, 0, 0, 1, 1, 1, 2, 2, 2}, 40, {{0, 60, 60}, {60, 90, 30}}},
    {"CutAtNodeEnd", {0, 0, 0, 1, 1, 1, 2, 2, 2}, 30, {{0, 30, 30}, {30, 60, 30}, {60, 90, 30}}},
    {"OneGroup", {0, 0, 0, 1, 1, 1, 2, 2, 2}, 1 << 30, {{0, 90, 90}}},
    /* Round-robin placement: every node's processes span the whole region, no cut is possible
     * without a node serving two groups. */
    {"RoundRobinNodes", {0, 1, 2, 0, 1, 2, 0, 1, 2}, 10, {{0, 90, 90}}},
    /* Nodes 0 and 1 interleave, node 2 stands alone. */
    {"TwoNodesInterleaved", {0, 1, 0, 1, 1, 0, 2, 2, 2}, 10, {{0, 60, 60}, {60, 90, 30}}},
};

class MemoryGroups : public ::testing::TestWithParam<GroupCase> {};

TEST_P(MemoryGroups, Division)
{
    const GroupCase &c = GetParam();
    std::vector<mcio_summary> s;
    for (int r = 0; r < 9; r++)
        s.push_back(mcio_summary{10 * r, 10 * r + 10, 10});
    mcio_aggr_groups g;
    ASSERT_EQ(mcio_memplan_groups(9, s.data(), c.node_of_rank.data(), 3, c.msggroup, &g),
              MCIO_SUCCESS);
    std::vector<Region> got;
    for (int i = 0; i < g.n; i++)
        got.push_back(Region{g.start[i], g.end[i], g.bytes[i]});
    EXPECT_EQ(got, c.groups);
    mcio_aggr_groups_free(&g);
}

INSTANTIATE_TEST_SUITE_P(Memory, MemoryGroups, ::testing::ValuesIn(group_cases),
                         [](const ::testing::TestParamInfo<GroupCase> &i) {
                             return std::string(i.param.name);
                         });

TEST(MemoryGroups, RanksWithoutDataAndNodesWithoutDataAreIgnored)
{
    /* Node 1 has no data; rank 1's summary is meaningless (bytes 0). */
    std::vector<mcio_summary> s = {{0, 10, 10}, {999, 5, 0}, {100, 120, 20}};
    std::vector<int> node = {0, 1, 2};
    mcio_aggr_groups g;
    ASSERT_EQ(mcio_memplan_groups(3, s.data(), node.data(), 3, 5, &g), MCIO_SUCCESS);
    ASSERT_EQ(g.n, 2);
    EXPECT_EQ(Region({g.start[0], g.end[0], g.bytes[0]}), Region({0, 10, 10}));
    EXPECT_EQ(Region({g.start[1], g.end[1], g.bytes[1]}), Region({100, 120, 20}));
    mcio_aggr_groups_free(&g);
}

/* --- the partition tree (Figs. 6-7) and remerging (Fig. 8) --- */

/*
 * Five processes, 20 bytes each: [0,20) [20,40) [50,70) [90,110) [140,160); Msgind 20.
 *   [0,160):100 -> [0,80):60 -> [0,40):40 -> [0,20):20, [20,40):20
 *                              [40,80):20
 *               -> [80,160):40 -> [80,120):20, [120,160):20
 * Five leaves, the five file domains of Fig. 7.
 */
const std::vector<std::pair<int64_t, int64_t>> fig7 = {{0, 20}, {20, 40}, {50, 70}, {90, 110},
                                                       {140, 160}};
/* Its mirror image: [0,20) [50,70) [90,110) [120,140) [140,160).
 *   [0,160) -> [0,80) -> [0,40), [40,80)
 *           -> [80,160) -> [80,120), [120,160) -> [120,140), [140,160) */
const std::vector<std::pair<int64_t, int64_t>> fig7_mirror = {{0, 20}, {50, 70}, {90, 110},
                                                              {120, 140}, {140, 160}};

void build_tree(const std::vector<std::pair<int64_t, int64_t>> &spans, int64_t msgind, Tree &T)
{
    std::vector<mcio_summary> s = dense(spans);
    std::vector<int> node(s.size(), 0);
    mcio_reqmap m;
    mcio_aggr_groups g;
    ASSERT_EQ(mcio_reqmap_build((int)s.size(), s.data(), &m), MCIO_SUCCESS);
    ASSERT_EQ(mcio_memplan_groups((int)s.size(), s.data(), node.data(), 1, 1 << 30, &g),
              MCIO_SUCCESS);
    ASSERT_EQ(mcio_ptree_build(&m, &g, msgind, 0, &T.t), MCIO_SUCCESS);
    mcio_reqmap_free(&m);
    mcio_aggr_groups_free(&g);
}

TEST(MemoryTree, Fig7FiveFileDomains)
{
    Tree T;
    build_tree(fig7, 20, T);
    const mcio_ptree &t = T.t;
    ASSERT_EQ(t.n, 9);
    ASSERT_EQ(t.ngroups, 1);
    std::vector<Region> want = {{0, 20, 20}, {20, 40, 20}, {40, 80, 20}, {80, 120, 20},
                                {120, 160, 20}};
    EXPECT_EQ(leaves(t, 0), want);
    /* The internal vertices, their weights and links. */
    int root = t.root[0], l = vertex(t, 0, 80), ll = vertex(t, 0, 40), r = vertex(t, 80, 160);
    ASSERT_GE(l, 0);
    ASSERT_GE(ll, 0);
    ASSERT_GE(r, 0);
    EXPECT_EQ(region(t, root), Region({0, 160, 100}));
    EXPECT_EQ(region(t, l), Region({0, 80, 60}));
    EXPECT_EQ(region(t, ll), Region({0, 40, 40}));
    EXPECT_EQ(region(t, r), Region({80, 160, 40}));
    EXPECT_EQ(t.v[root].left, l);
    EXPECT_EQ(t.v[root].right, r);
    EXPECT_EQ(t.v[l].left, ll);
    EXPECT_EQ(t.v[l].right, vertex(t, 40, 80));
    EXPECT_EQ(t.v[vertex(t, 40, 80)].left, -1);
    EXPECT_EQ(t.v[vertex(t, 40, 80)].parent, l);
}

TEST(MemoryTree, HolesDoNotCount)
{
    /* The same data spread over a ten times wider region: the bytes decide, not the span. */
    Tree T;
    build_tree({{0, 20}, {1000, 1020}}, 20, T);
    std::vector<Region> want = {{0, 510, 20}, {510, 1020, 20}};
    EXPECT_EQ(leaves(T.t, 0), want);
}

TEST(MemoryTree, Fig8aSiblingIsALeaf)
{
    Tree T;
    build_tree(fig7, 20, T);
    int a = vertex(T.t, 0, 20), b = vertex(T.t, 20, 40), p = vertex(T.t, 0, 40), taker = -1;
    /* Leaf A [0,20) leaves; its sibling B [20,40) is a leaf: they merge into their parent,
     * which becomes the leaf, owned by B. */
    EXPECT_EQ(mcio_ptree_remerge(&T.t, a, &taker), p);
    EXPECT_EQ(taker, b);
    std::vector<Region> want = {{0, 40, 40}, {40, 80, 20}, {80, 120, 20}, {120, 160, 20}};
    EXPECT_EQ(leaves(T.t, 0), want);
    EXPECT_FALSE(T.t.v[a].alive);
    EXPECT_FALSE(T.t.v[b].alive);
}

TEST(MemoryTree, Fig8bRightSiblingLeavesRightmostFirst)
{
    Tree T;
    build_tree(fig7, 20, T);
    int a = vertex(T.t, 40, 80), b = vertex(T.t, 0, 40), c = vertex(T.t, 20, 40), taker = -1;
    /* Leaf A [40,80) is the right sibling of B [0,40), which is split: the DFS in B's subtree
     * visits right first and finds C [20,40), which takes over [40,80). B takes the parent's
     * place under the root. */
    EXPECT_EQ(mcio_ptree_remerge(&T.t, a, &taker), c);
    EXPECT_EQ(taker, c);
    std::vector<Region> want = {{0, 20, 20}, {20, 80, 40}, {80, 120, 20}, {120, 160, 20}};
    EXPECT_EQ(leaves(T.t, 0), want);
    EXPECT_EQ(T.t.v[T.t.root[0]].left, b);
    EXPECT_EQ(T.t.v[b].parent, T.t.root[0]);
    EXPECT_EQ(region(T.t, b), Region({0, 80, 60}));
    EXPECT_EQ(vertex(T.t, 0, 40), -1); /* the old parent [0,80) left as well */
}

TEST(MemoryTree, Fig8bLeftSiblingLeavesLeftmostFirst)
{
    Tree T;
    build_tree(fig7_mirror, 20, T);
    ASSERT_EQ(T.t.n, 9);
    int a = vertex(T.t, 80, 120), b = vertex(T.t, 120, 160), c = vertex(T.t, 120, 140);
    int taker = -1;
    /* Leaf A [80,120) is the left sibling of B [120,160), which is split: the DFS visits left
     * first and finds C [120,140), which takes over [80,120). */
    EXPECT_EQ(mcio_ptree_remerge(&T.t, a, &taker), c);
    EXPECT_EQ(taker, c);
    std::vector<Region> want = {{0, 40, 20}, {40, 80, 20}, {80, 140, 40}, {140, 160, 20}};
    EXPECT_EQ(leaves(T.t, 0), want);
    EXPECT_EQ(T.t.v[T.t.root[0]].right, b);
    EXPECT_EQ(region(T.t, b), Region({80, 160, 60}));
}

TEST(MemoryTree, TheRootCannotLeave)
{
    Tree T;
    build_tree({{0, 20}}, 20, T);
    int taker = -1;
    EXPECT_EQ(mcio_ptree_remerge(&T.t, T.t.root[0], &taker), -1);
    std::vector<Region> want = {{0, 20, 20}};
    EXPECT_EQ(leaves(T.t, 0), want);
}

TEST(MemoryTree, RemergingDownToTheRootThenNobodyIsLeft)
{
    Tree T;
    build_tree(fig7, 20, T);
    int taker, v = vertex(T.t, 0, 20);
    int n = 0;
    while ((v = mcio_ptree_remerge(&T.t, v, &taker)) >= 0)
        n++;
    EXPECT_EQ(n, 4); /* five leaves, four remerges */
    std::vector<Region> want = {{0, 160, 100}};
    EXPECT_EQ(leaves(T.t, 0), want);
}

/* --- whole plans: location (Fig. 9), remerging, fallback --- */

struct PlanCase {
    const char *name;
    std::vector<std::pair<int64_t, int64_t>> spans; /* dense ranks */
    std::vector<int> node_of_rank;
    std::vector<int64_t> node_mem; /* empty: no limit */
    mcio_planner_params params;
    std::vector<Domain> domains;
    int remerges, fallbacks;
    std::vector<int64_t> node_used;
};

void PrintTo(const PlanCase &c, std::ostream *os)
{
    *os << c.name;
}

const int64_t big = int64_t(1) << 40;

const PlanCase plan_cases[] = {
    /* Fig. 7 on five nodes with memory to spare: each domain's only process aggregates it;
     * the buffer is the domain's data span (at most Msgind), one round each. */
    {"Fig7PlentyOfMemory",
     fig7,
     {0, 1, 2, 3, 4},
     {},
     params(4, 20, 1 << 30, 0),
     {{0, 0, 20, 0, 20, 20, 1},
      {1, 20, 40, 20, 40, 20, 1},
      {2, 40, 80, 50, 70, 20, 1},
      {3, 80, 120, 90, 110, 20, 1},
      {4, 120, 160, 140, 160, 20, 1}},
     0,
     0,
     {20, 20, 20, 20, 20}},
    /* Fig. 9: [0,20) is touched only by rank 0, on node 0, which has no memory: below Memmin,
     * remerge (its sibling [20,40) is a leaf: case 1). The merged domain [0,40) has candidates
     * node 0 (0 bytes) and node 1 (100): rank 1 on node 1 aggregates it with a 20-byte buffer
     * (Msgind), two rounds. */
    {"ShortNodeRemergedThenLocated",
     {{0, 20}, {20, 40}},
     {0, 1},
     {0, 100},
     params(4, 20, 1 << 30, 10),
     {{1, 0, 40, 0, 40, 20, 2}},
     1,
     0,
     {0, 20}},
    /* Two domains on one node of 30 bytes: the first takes 20, the second gets the 10 left
     * (above Memmin 5) and needs two rounds; the node's buffers sum to its memory. */
    {"NodeMemorySharedByItsAggregators",
     {{0, 20}, {20, 40}},
     {0, 0},
     {30},
     params(4, 20, 1 << 30, 5),
     {{0, 0, 20, 0, 20, 20, 1}, {1, 20, 40, 20, 40, 10, 2}},
     0,
     0,
     {30}},
    /* Nah = 2 on one node, four leaves [0,10) [10,20) [20,30) [30,40): the third finds its node
     * full, merges with [30,40) (case 1), still full, then [20,40) leaves and [10,20), the
     * rightmost leaf of its sibling, takes it over (case 2) and is located again: rank 1 has
     * the most bytes of [10,40) among the free processes on a tie, lowest rank. That leaves
     * rounds of 1 and 3; with equal buffers the group is re-cut in halves, 2 rounds each, and
     * rank 1 gathers [20,40), where it requests nothing. */
    {"NahLimitsAggregatorsPerNode",
     {{0, 10}, {10, 20}, {20, 30}, {30, 40}},
     {0, 0, 0, 0},
     {},
     params(2, 10, 1 << 30, 0),
     {{0, 0, 20, 0, 20, 10, 2}, {1, 20, 40, 20, 40, 10, 2}},
     2,
     0,
     {20}},
    /* No node has any memory: remerged down to one domain, then the fallback: node 0 (most
     * memory on a tie, the lowest), the smallest workable buffer (here the whole 20-byte
     * Msgind, below the 64 KiB floor), reported. */
    {"FallbackWhenNoNodeHasMemory",
     {{0, 20}, {20, 40}},
     {0, 1},
     {0, 0},
     params(4, 20, 1 << 30, 10),
     {{0, 0, 40, 0, 40, 20, 2}},
     1,
     1,
     {20, 0}},
    /* Two groups (Msggroup 20, nodes apart): remerging stays in a group. Group [0,40) on node
     * 0 with no memory falls back; group [100,140) on node 1 is located normally. */
    {"RemergingNeverCrossesAGroup",
     {{0, 20}, {20, 40}, {100, 120}, {120, 140}},
     {0, 0, 1, 1},
     {0, big},
     params(4, 20, 20, 10),
     {{0, 0, 40, 0, 40, 20, 2}, {2, 100, 120, 100, 120, 20, 1}, {3, 120, 140, 120, 140, 20, 1}},
     1,
     1,
     {20, 40}},
};

class MemoryPlans : public ::testing::TestWithParam<PlanCase> {};

TEST_P(MemoryPlans, Exact)
{
    const PlanCase &c = GetParam();
    std::vector<mcio_summary> s = dense(c.spans);
    int nnodes = 0;
    for (int n : c.node_of_rank)
        nnodes = std::max(nnodes, n + 1);
    mcio_topology topo{};
    topo.nprocs = (int)s.size();
    topo.nnodes = nnodes;
    topo.node_of_rank = c.node_of_rank.data();
    topo.node_mem = c.node_mem.empty() ? nullptr : c.node_mem.data();
    Plan P;
    Memplan M;
    ASSERT_EQ(mcio_planner_memory(&topo, s.data(), c.params, &P.p, &M.d), MCIO_SUCCESS);
    EXPECT_EQ(domains_of(P.p), c.domains);
    EXPECT_EQ(M.d.remerges, c.remerges);
    EXPECT_EQ(P.p.fallbacks, c.fallbacks);
    std::vector<int64_t> used(M.d.node_used, M.d.node_used + nnodes);
    EXPECT_EQ(used, c.node_used);
    /* The same plan without the detail. */
    Plan Q;
    ASSERT_EQ(mcio_planner_memory(&topo, s.data(), c.params, &Q.p, nullptr), MCIO_SUCCESS);
    EXPECT_EQ(domains_of(Q.p), c.domains);
}

INSTANTIATE_TEST_SUITE_P(Memory, MemoryPlans, ::testing::ValuesIn(plan_cases),
                         [](const ::testing::TestParamInfo<PlanCase> &i) {
                             return std::string(i.param.name);
                         });

TEST(MemoryPlans, ByNameFromTheTable)
{
    const mcio_planner *p = mcio_planner_find("memory");
    ASSERT_NE(p, nullptr);
    std::vector<mcio_summary> s = dense(fig7);
    std::vector<int> node = {0, 1, 2, 3, 4};
    mcio_topology topo{};
    topo.nprocs = 5;
    topo.nnodes = 5;
    topo.node_of_rank = node.data();
    Plan P;
    ASSERT_EQ(p->plan(&topo, s.data(), params(4, 20, 1 << 30, 0), &P.p), MCIO_SUCCESS);
    EXPECT_EQ(P.p.ndomains, 5);
}

/* IOR's interleaved layout on 8 nodes, memory for 5 aggregators of unequal buffers: the
 * leaves past the last located one fold into it (remerging), which alone would run that domain
 * in many small rounds; the group is re-cut so that each domain's share of the 32 KiB is in
 * proportion to its buffer (8+8+3+2+1 KiB), at most ceil(32/22) + 1 rounds each, every buffer
 * still within its node's memory. */
TEST(MemoryPlans, RemergedDomainsAreReCutToEvenRounds)
{
    const int64_t B = 1024;
    std::vector<mcio_summary> s;
    for (int r = 0; r < 8; r++)
        s.push_back(mcio_summary{r * B, (24 + r + 1) * B, 4 * B});
    std::vector<int> node = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<int64_t> mem = {8 * B, 8 * B, 3 * B, 2 * B, 1 * B, 0, 0, 0};
    mcio_topology topo{};
    topo.nprocs = 8;
    topo.nnodes = 8;
    topo.node_of_rank = node.data();
    topo.node_mem = mem.data();
    Plan P;
    Memplan M;
    ASSERT_EQ(mcio_planner_memory(&topo, s.data(), params(1, 4 * B, 1 << 30, B), &P.p, &M.d),
              MCIO_SUCCESS);
    EXPECT_GT(M.d.remerges, 0);
    EXPECT_EQ(M.d.balanced, 1);
    EXPECT_EQ(P.p.ndomains, 5);
    EXPECT_LE(P.p.max_rounds, 3);
    int64_t covered = 0;
    for (int k = 0; k < P.p.ndomains; k++) {
        SCOPED_TRACE("domain " + std::to_string(k));
        EXPECT_GE(P.p.rounds[k], 1);
        covered += P.p.fd_end[k] - P.p.fd_start[k];
        int j = node[P.p.agg_rank[k]];
        EXPECT_LE(M.d.node_used[j], mem[j]);
        /* The tree's leaves follow the re-cut domains. */
        const mcio_ptree_vertex &v = M.d.tree.v[M.d.domain_vertex[k]];
        EXPECT_EQ(v.start, P.p.fd_start[k]);
        EXPECT_EQ(v.end, P.p.fd_end[k]);
    }
    EXPECT_EQ(covered, 32 * B);
    const mcio_ptree_vertex &root = M.d.tree.v[M.d.tree.root[0]];
    EXPECT_EQ(root.start, 0);
    EXPECT_EQ(root.end, 32 * B);
}

TEST(MemoryPlans, NobodyAccessesAnything)
{
    std::vector<mcio_summary> s = {{0, 0, 0}, {0, 0, 0}};
    std::vector<int> node = {0, 1};
    mcio_topology topo{};
    topo.nprocs = 2;
    topo.nnodes = 2;
    topo.node_of_rank = node.data();
    Plan P;
    ASSERT_EQ(mcio_planner_memory(&topo, s.data(), params(4, 20, 1 << 30, 0), &P.p, nullptr),
              MCIO_SUCCESS);
    EXPECT_EQ(P.p.ndomains, 0);
    EXPECT_EQ(P.p.max_rounds, 0);
}

} // namespace
