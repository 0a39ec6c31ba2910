/*
 * The independent plan (src/core/plan/independent.c) and the choice between it and a strategy
 * (mcio_planner_make): exact domains for small layouts, and the interleaving test on its edges.
 */
#include "plan_test_util.h"

using mcio_test::Domain;
using mcio_test::Plan;

namespace {

struct Topo {
    std::vector<int> node, socket;
    mcio_topology t{};
    explicit Topo(int nprocs, int per_node) : node(nprocs), socket(nprocs, 0)
    {
        for (int r = 0; r < nprocs; r++)
            node[r] = r / per_node;
        t.nprocs = nprocs;
        t.nnodes = (nprocs + per_node - 1) / per_node;
        t.node_of_rank = node.data();
        t.socket_of_rank = socket.data();
        t.sockets_per_node = 1;
    }
};

mcio_planner_params params_of(int64_t buffer, int cb, int64_t stripe = 0)
{
    mcio_planner_params p{};
    p.buffer_size = buffer;
    p.cb_nodes = 0;
    p.stripe = stripe;
    p.cb = cb;
    return p;
}

TEST(Interleaved, Cases)
{
    /* {start, end, bytes}; bytes 0 means the rank takes no part. */
    std::vector<mcio_summary> apart = {{0, 100, 100}, {100, 200, 50}, {300, 400, 100}};
    EXPECT_EQ(mcio_planner_interleaved(3, apart.data()), 0) << "touching regions do not interleave";
    std::vector<mcio_summary> overlap = {{0, 101, 100}, {100, 200, 50}};
    EXPECT_EQ(mcio_planner_interleaved(2, overlap.data()), 1);
    std::vector<mcio_summary> unsorted = {{300, 400, 100}, {0, 100, 100}, {100, 300, 10}};
    EXPECT_EQ(mcio_planner_interleaved(3, unsorted.data()), 0);
    std::vector<mcio_summary> nested = {{0, 1000, 20}, {400, 500, 100}};
    EXPECT_EQ(mcio_planner_interleaved(2, nested.data()), 1) << "a region inside another";
    std::vector<mcio_summary> same_start = {{50, 60, 10}, {50, 70, 20}};
    EXPECT_EQ(mcio_planner_interleaved(2, same_start.data()), 1);
    /* An empty rank's (meaningless) region never counts. */
    std::vector<mcio_summary> empty = {{0, 100, 100}, {0, 0, 0}, {50, 70, 0}, {100, 200, 100}};
    EXPECT_EQ(mcio_planner_interleaved(4, empty.data()), 0);
    EXPECT_EQ(mcio_planner_interleaved(0, nullptr), 0);
}

TEST(Independent, EachRankItsOwnDomainInFileOrder)
{
    /* Ranks out of file order, one without data, a hole inside rank 0's region. */
    std::vector<mcio_summary> sum = {{500, 800, 200}, {0, 0, 0}, {0, 250, 250}, {250, 500, 250}};
    Plan P;
    ASSERT_EQ(mcio_planner_independent(4, sum.data(), params_of(100, MCIO_CB_AUTOMATIC, 64), &P.p),
              MCIO_SUCCESS);
    /* No stripe alignment: each domain is exactly its rank's region. */
    std::vector<Domain> want = {{2, 0, 250, 0, 250, 100, 3},
                                {3, 250, 500, 250, 500, 100, 3},
                                {0, 500, 800, 500, 800, 100, 3}};
    EXPECT_EQ(mcio_test::domains_of(P.p), want);
    EXPECT_EQ(P.p.max_rounds, 3);
    EXPECT_EQ(P.p.max_buffer, 100);
}

TEST(Independent, NobodyHasData)
{
    std::vector<mcio_summary> sum = {{0, 0, 0}, {0, 0, 0}};
    Plan P;
    ASSERT_EQ(mcio_planner_independent(2, sum.data(), params_of(100, MCIO_CB_AUTOMATIC), &P.p),
              MCIO_SUCCESS);
    EXPECT_EQ(P.p.ndomains, 0);
    EXPECT_EQ(P.p.max_rounds, 0);
}

/* romio_cb_* disable: each rank with data listed as the aggregator of its own span, in rank
 * order (not file order), no rounds, no buffer. */
TEST(Own, EachRankWithDataItsOwnSpanInRankOrder)
{
    std::vector<mcio_summary> sum = {{500, 800, 200}, {0, 0, 0}, {0, 250, 250}, {250, 500, 250}};
    Plan P;
    ASSERT_EQ(mcio_planner_own(4, sum.data(), &P.p), MCIO_SUCCESS);
    ASSERT_EQ(P.p.ndomains, 3);
    const int ranks[] = {0, 2, 3};
    const int64_t starts[] = {500, 0, 250}, ends[] = {800, 250, 500};
    for (int d = 0; d < 3; d++) {
        EXPECT_EQ(P.p.agg_rank[d], ranks[d]) << d;
        EXPECT_EQ(P.p.fd_start[d], starts[d]) << d;
        EXPECT_EQ(P.p.fd_end[d], ends[d]) << d;
        EXPECT_EQ(P.p.rounds[d], 0) << d;
        EXPECT_EQ(mcio_fdplan_buffer(&P.p, d), 0) << d;
    }
    EXPECT_EQ(P.p.max_rounds, 0);
}

TEST(Own, NobodyHasData)
{
    std::vector<mcio_summary> sum = {{0, 0, 0}, {0, 0, 0}};
    Plan P;
    ASSERT_EQ(mcio_planner_own(2, sum.data(), &P.p), MCIO_SUCCESS);
    EXPECT_EQ(P.p.ndomains, 0);
}

/* mcio_planner_make: the strategy when accesses interleave or cb is enabled, else independent. */
TEST(PlanMake, ChoosesByInterleavingAndHint)
{
    Topo topo(4, 2);
    const mcio_planner *romio = mcio_planner_find("romio");
    ASSERT_NE(romio, nullptr);
    std::vector<mcio_summary> apart = {{0, 100, 100}, {100, 200, 100}, {200, 300, 100},
                                       {300, 400, 100}};
    std::vector<mcio_summary> inter = {{0, 310, 100}, {10, 320, 100}, {20, 330, 100},
                                       {30, 340, 100}};
    for (int cb : {MCIO_CB_AUTOMATIC, MCIO_CB_DISABLE}) {
        Plan P;
        ASSERT_EQ(mcio_planner_make(romio, &topo.t, apart.data(), params_of(1000, cb), &P.p),
                  MCIO_SUCCESS);
        std::vector<Domain> want = {{0, 0, 100, 0, 100, 1000, 1},
                                    {1, 100, 200, 100, 200, 1000, 1},
                                    {2, 200, 300, 200, 300, 1000, 1},
                                    {3, 300, 400, 300, 400, 1000, 1}};
        EXPECT_EQ(mcio_test::domains_of(P.p), want) << "cb " << cb;
    }
    Plan E;
    ASSERT_EQ(
        mcio_planner_make(romio, &topo.t, apart.data(), params_of(1000, MCIO_CB_ENABLE), &E.p),
        MCIO_SUCCESS);
    std::vector<Domain> want_enable = {{0, 0, 200, 0, 200, 1000, 1},
                                       {2, 200, 400, 200, 400, 1000, 1}};
    EXPECT_EQ(mcio_test::domains_of(E.p), want_enable);
    Plan I;
    ASSERT_EQ(mcio_planner_make(romio, &topo.t, inter.data(), params_of(1000, MCIO_CB_AUTOMATIC), &I.p),
              MCIO_SUCCESS);
    std::vector<Domain> want_inter = {{0, 0, 170, 0, 170, 1000, 1},
                                      {2, 170, 340, 170, 340, 1000, 1}};
    EXPECT_EQ(mcio_test::domains_of(I.p), want_inter);
}

} // namespace
