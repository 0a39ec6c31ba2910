/*
 * The romio strategy (mcio_planner_romio), mcio_fdplan_fill_rounds, mcio_fdplan_find and
 * mcio_fdplan_round. Every expected plan is worked out by hand from the definition:
 *   region      [lo, hi) = [min start, max end) over ranks with bytes > 0 ([0, 0) if none)
 *   fd_size     ceil((hi - lo) / naggs); domain i ends at lo + (i + 1) * fd_size (the last at hi),
 *               moved to the nearest stripe multiple (ties upward, as ROMIO) when stripe > 0,
 *               then clamped to [previous end, hi]
 *   window      buffer_size, rounded down to a stripe multiple when that leaves >= 1 stripe
 *   data region [max(lo_d, fd_start), min(hi_d, fd_end)) over the ranks whose [start, end)
 *               meets the domain; with a stripe, its start goes down to a stripe boundary but
 *               not below fd_start; empty domains get win_start = win_end = fd_start
 *   rounds      ceil((win_end - win_start) / window)
 *   max_buffer  max over domains of min(win_end - win_start, window)
 */
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "plan_test_util.h"

using mcio_test::Domain;
using mcio_test::Plan;

namespace {

struct RomioCase {
    const char *name;
    std::vector<int> node_of_rank;
    int nnodes;
    std::vector<mcio_summary> sum; /* {start, end, bytes} per rank */
    int64_t buffer;
    int cb_nodes;
    int64_t stripe;
    std::vector<Domain> want; /* {agg, fd_start, fd_end, win_start, win_end, window, rounds} */
    int max_rounds;
    int64_t max_buffer;
};

/* gtest prints a case by its name. */
void PrintTo(const RomioCase &c, std::ostream *os)
{
    *os << c.name;
}

const int64_t kMax = INT64_MAX;

const RomioCase romio_cases[] = {
    /* 8 ranks, 4 nodes of 2: aggregators 0,2,4,6. Rank r writes [50r, 50r + 50). */
    {"EvenSplit",
     {0, 0, 1, 1, 2, 2, 3, 3},
     4,
     {{0, 50, 50}, {50, 100, 50}, {100, 150, 50}, {150, 200, 50},
      {200, 250, 50}, {250, 300, 50}, {300, 350, 50}, {350, 400, 50}},
     1000, 0, 0,
     {{0, 0, 100, 0, 100, 1000, 1},
      {2, 100, 200, 100, 200, 1000, 1},
      {4, 200, 300, 200, 300, 1000, 1},
      {6, 300, 400, 300, 400, 1000, 1}},
     1, 100},
    /* One node, cb_nodes 2: ranks 0 and 1 aggregate. Region [1000, 2000), fd_size 500.
     * Rank 0's [1000, 1600) reaches into domain 1 but the data region is clipped to it. */
    {"RegionNotAtZero",
     {0, 0},
     1,
     {{1000, 1600, 600}, {1600, 2000, 400}},
     200, 2, 0,
     {{0, 1000, 1500, 1000, 1500, 200, 3}, {1, 1500, 2000, 1500, 2000, 200, 3}},
     3, 200},
    /* [0, 1000) over 3: fd_size 334, the last domain is 332. Rank 2 has no bytes and a
     * meaningless start/end that must be ignored. */
    {"UnevenDivision",
     {0, 1, 2},
     3,
     {{0, 1000, 1000}, {250, 700, 450}, {5000, 9000, 0}},
     100, 0, 0,
     {{0, 0, 334, 0, 334, 100, 4},
      {1, 334, 668, 334, 668, 100, 4},
      {2, 668, 1000, 668, 1000, 100, 4}},
     4, 100},
    /* 10 bytes over 4: fd_size 3, domains 3,3,3,1. */
    {"UnevenDivisionShortLast",
     {0, 1, 2, 3},
     4,
     {{0, 10, 10}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     2, 0, 0,
     {{0, 0, 3, 0, 3, 2, 2}, {1, 3, 6, 3, 6, 2, 2}, {2, 6, 9, 6, 9, 2, 2}, {3, 9, 10, 9, 10, 2, 1}},
     2, 2},
    /* Region [100, 1100), stripe 64: fd_size 334; 434 -> 448 (434 % 64 = 50, nearer 448);
     * 768 is a multiple. Window 200 -> 192. Data regions: [100, 400) (start 100 would align to
     * 64, below fd_start, so stays 100), [500, 700) -> win_start 448, [800, 1100) -> 768. */
    {"StripeAlignment",
     {0, 1, 2},
     3,
     {{100, 400, 300}, {500, 700, 200}, {800, 1100, 300}},
     200, 0, 64,
     {{0, 100, 448, 100, 400, 192, 2},
      {1, 448, 768, 448, 700, 192, 2},
      {2, 768, 1100, 768, 1100, 192, 2}},
     2, 192},
    /* [0, 800) over 4, stripe 64: 200 -> 192, 400 -> 384, 600 -> 576 (all round down).
     * Window 1000 -> 960. */
    {"StripeBoundariesRoundDown",
     {0, 1, 2, 3},
     4,
     {{0, 800, 800}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     1000, 0, 64,
     {{0, 0, 192, 0, 192, 960, 1},
      {1, 192, 384, 192, 384, 960, 1},
      {2, 384, 576, 384, 576, 960, 1},
      {3, 576, 800, 576, 800, 960, 1}},
     1, 224},
    /* [0, 384) over 4, stripe 64: fd_size 96; 96 and 288 are exactly half-way (32 either side)
     * and go up, as ROMIO's rem_front < rem_back test does: 128, 192, 320. Window 100 -> 64. */
    {"StripeTiesRoundUp",
     {0, 1, 2, 3},
     4,
     {{0, 384, 384}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     100, 0, 64,
     {{0, 0, 128, 0, 128, 64, 2},
      {1, 128, 192, 128, 192, 64, 1},
      {2, 192, 320, 192, 320, 64, 2},
      {3, 320, 384, 320, 384, 64, 1}},
     2, 64},
    /* Stripe 100 larger than the region [10, 40): the first two boundaries (20, 30) round to 0,
     * clamped to the previous end 10: two empty domains, the last takes everything. Its data
     * starts at 10, which would align to 0 < fd_start, so stays 10. */
    {"StripeLargerThanRegion",
     {0, 1, 2},
     3,
     {{10, 40, 30}, {0, 0, 0}, {0, 0, 0}},
     1000, 0, 100,
     {{0, 10, 10, 10, 10, 1000, 0}, {1, 10, 10, 10, 10, 1000, 0}, {2, 10, 40, 10, 40, 1000, 1}},
     1, 30},
    /* A buffer smaller than the stripe is not rounded (that would leave no stripe). */
    {"BufferSmallerThanStripe",
     {0},
     1,
     {{0, 200, 200}},
     50, 0, 64,
     {{0, 0, 200, 0, 200, 50, 4}},
     4, 50},
    /* 3 bytes, 5 aggregators: fd_size 1; domains 3 and 4 are empty at the end (10). */
    {"MoreAggregatorsThanBytes",
     {0, 1, 2, 3, 4},
     5,
     {{7, 10, 3}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     4, 0, 0,
     {{0, 7, 8, 7, 8, 4, 1},
      {1, 8, 9, 8, 9, 4, 1},
      {2, 9, 10, 9, 10, 4, 1},
      {3, 10, 10, 10, 10, 4, 0},
      {4, 10, 10, 10, 10, 4, 0}},
     1, 1},
    /* No rank has data (their start/end are noise): every domain is [0, 0), no rounds. */
    {"AllRanksEmpty",
     {0, 1, 2},
     3,
     {{500, 900, 0}, {0, 0, 0}, {7, 3, 0}},
     100, 0, 0,
     {{0, 0, 0, 0, 0, 100, 0}, {1, 0, 0, 0, 0, 100, 0}, {2, 0, 0, 0, 0, 100, 0}},
     0, 0},
    /* A hole in the middle: domains [0, 200) and [200, 400), data only [0, 100), [300, 400). */
    {"HolesShrinkDataRegions",
     {0, 1},
     2,
     {{0, 100, 100}, {300, 400, 100}},
     64, 0, 0,
     {{0, 0, 200, 0, 100, 64, 2}, {1, 200, 400, 300, 400, 64, 2}},
     2, 64},
    /* Same with stripe 128: boundary 200 -> 256; window 300 -> 256; domain 1's data starts at
     * 300, its rounds at the stripe boundary 256. */
    {"HolesWithStripe",
     {0, 1},
     2,
     {{0, 100, 100}, {300, 400, 100}},
     300, 0, 128,
     {{0, 0, 256, 0, 100, 256, 1}, {1, 256, 400, 256, 400, 256, 1}},
     1, 144},
    /* Rank 0 ends exactly where domain 1 starts: it does not touch domain 1, whose data
     * region starts at rank 1's 300, not at fd_start 200. */
    {"RankEndingAtDomainStart",
     {0, 1},
     2,
     {{0, 200, 200}, {300, 400, 100}},
     64, 0, 0,
     {{0, 0, 200, 0, 200, 64, 4}, {1, 200, 400, 300, 400, 64, 2}},
     4, 64},
    /* Rank 1 spans [150, 400) with holes: domain 0 [0, 134) only sees rank 0; domains 1 and 2
     * see rank 1, clipped to the domain. */
    {"RankSpanningDomains",
     {0, 1, 2},
     3,
     {{0, 100, 100}, {150, 400, 50}, {0, 0, 0}},
     1000, 0, 0,
     {{0, 0, 134, 0, 100, 1000, 1},
      {1, 134, 268, 150, 268, 1000, 1},
      {2, 268, 400, 268, 400, 1000, 1}},
     1, 132},
    /* One node: one aggregator, rank 0, walking [0, 2000) 300 bytes at a time. */
    {"BufferSmallerThanDomain",
     {0, 0},
     1,
     {{0, 1000, 1000}, {1000, 2000, 1000}},
     300, 0, 0,
     {{0, 0, 2000, 0, 2000, 300, 7}},
     7, 300},
    {"BufferSmallerThanDomainStriped",
     {0, 0},
     1,
     {{0, 1000, 1000}, {1000, 2000, 1000}},
     300, 0, 128,
     {{0, 0, 2000, 0, 2000, 256, 8}},
     8, 256},
    /* Round-robin nodes: aggregators are ranks 0 and 1. */
    {"RoundRobinNodes",
     {0, 1, 0, 1},
     2,
     {{0, 10, 10}, {10, 20, 10}, {20, 30, 10}, {30, 40, 10}},
     8, 0, 0,
     {{0, 0, 20, 0, 20, 8, 3}, {1, 20, 40, 20, 40, 8, 3}},
     3, 8},
    {"CbNodesCappedAtNprocs",
     {0, 1},
     2,
     {{0, 50, 50}, {50, 100, 50}},
     1000, 5, 0,
     {{0, 0, 50, 0, 50, 1000, 1}, {1, 50, 100, 50, 100, 1000, 1}},
     1, 50},
    /* Accepted by mcio_extents_normalize (offset + length == INT64_MAX), so the planner must
     * cope: fd_size = ceil(INT64_MAX / 2) = 2^62. */
    {"RegionEndingAtInt64Max",
     {0, 1},
     2,
     {{0, 1, 1}, {kMax - 1, kMax, 1}},
     16 << 20, 0, 0,
     {{0, 0, INT64_C(1) << 62, 0, 1, 16 << 20, 1},
      {1, INT64_C(1) << 62, kMax, kMax - 1, kMax, 16 << 20, 1}},
     1, 1},
};

class Romio : public ::testing::TestWithParam<RomioCase> {};

TEST_P(Romio, ExactPlan)
{
    const RomioCase &c = GetParam();
    ASSERT_EQ(c.node_of_rank.size(), c.sum.size());
    mcio_planner_params params{};
    params.buffer_size = c.buffer;
    params.cb_nodes = c.cb_nodes;
    params.stripe = c.stripe;
    Plan P;
    ASSERT_EQ(mcio_planner_romio((int)c.sum.size(), c.sum.data(), c.node_of_rank.data(), c.nnodes,
                                 params, &P.p),
              MCIO_SUCCESS);
    ASSERT_EQ(P.p.ndomains, (int)c.want.size());
    std::vector<Domain> got = mcio_test::domains_of(P.p);
    for (size_t d = 0; d < c.want.size(); d++)
        EXPECT_EQ(got[d], c.want[d]) << "domain " << d;
    EXPECT_EQ(P.p.max_rounds, c.max_rounds);
    EXPECT_EQ(P.p.max_buffer, c.max_buffer);
}

INSTANTIATE_TEST_SUITE_P(Plan, Romio, ::testing::ValuesIn(romio_cases),
                         [](const ::testing::TestParamInfo<RomioCase> &i) {
                             return std::string(i.param.name);
                         });

/* The parsed mcio_strategy (enum mcio_strategy) indexes the table in the names' order. */
TEST(Planners, EnumIndexesTheTable)
{
    EXPECT_STREQ(mcio_planner_at(MCIO_STRATEGY_ROMIO)->name, "romio");
    EXPECT_STREQ(mcio_planner_at(MCIO_STRATEGY_MEMORY)->name, "memory");
    EXPECT_STREQ(mcio_planner_at(MCIO_STRATEGY_AUTO)->name, "auto");
    for (int i = 0; mcio_planner_name(i); i++)
        EXPECT_EQ(mcio_planner_at(i), mcio_planner_find(mcio_planner_name(i))) << i;
    EXPECT_EQ(mcio_planner_at(-1), nullptr);
    EXPECT_EQ(mcio_planner_at(MCIO_STRATEGY_FIT + 1), nullptr);
}

/* The strategy table finds romio and plans exactly as mcio_planner_romio. */
TEST(Planners, RomioByName)
{
    ASSERT_NE(mcio_planner_find("romio"), nullptr);
    EXPECT_STREQ(mcio_planner_find("romio")->name, "romio");
    EXPECT_EQ(mcio_planner_find("nosuch"), nullptr);
    EXPECT_STREQ(mcio_planner_name(0), "romio");
    EXPECT_EQ(mcio_planner_name(-1), nullptr);
    int n = 0;
    while (mcio_planner_name(n))
        n++;
    EXPECT_EQ(mcio_planner_name(n), nullptr);

    int node_of_rank[] = {0, 0, 1, 1}, socket_of_rank[] = {0, 0, 0, 0};
    mcio_summary sum[] = {{0, 100, 100}, {100, 200, 100}, {200, 300, 100}, {300, 400, 100}};
    mcio_topology topo{};
    topo.nprocs = 4;
    topo.nnodes = 2;
    topo.node_of_rank = node_of_rank;
    topo.socket_of_rank = socket_of_rank;
    topo.sockets_per_node = 1;
    mcio_planner_params params{};
    params.buffer_size = 150;
    params.cb_nodes = 0;
    params.stripe = 0;
    Plan P;
    ASSERT_EQ(mcio_planner_find("romio")->plan(&topo, sum, params, &P.p), MCIO_SUCCESS);
    std::vector<Domain> want = {{0, 0, 200, 0, 200, 150, 2}, {2, 200, 400, 200, 400, 150, 2}};
    EXPECT_EQ(mcio_test::domains_of(P.p), want);
    EXPECT_EQ(P.p.max_rounds, 2);
    EXPECT_EQ(P.p.max_buffer, 150);
}

/*
 * A round count that does not fit an int: one aggregator, data at byte 0 and byte 2^32 and a
 * 1-byte buffer need 2^32 + 1 rounds. Either the planner refuses (non-zero status), or the
 * rounds it reports must cover the data region; a silently truncated count would leave bytes
 * that no round reads or writes.
 */
TEST(RomioLimits, RoundCountBeyondIntIsRefusedOrCovers)
{
    int node_of_rank[] = {0, 0};
    mcio_summary sum[] = {{0, 1, 1}, {INT64_C(1) << 32, (INT64_C(1) << 32) + 1, 1}};
    mcio_planner_params params{};
    params.buffer_size = 1;
    params.cb_nodes = 0;
    params.stripe = 0;
    Plan P;
    int st = mcio_planner_romio(2, sum, node_of_rank, 1, params, &P.p);
    if (st != MCIO_SUCCESS)
        return;
    ASSERT_EQ(P.p.ndomains, 1);
    EXPECT_EQ(P.p.win_start[0], 0);
    EXPECT_EQ(P.p.win_end[0], (INT64_C(1) << 32) + 1);
    EXPECT_GE((int64_t)P.p.rounds[0] * P.p.window[0], P.p.win_end[0] - P.p.win_start[0])
        << "rounds " << P.p.rounds[0] << " of window " << P.p.window[0];
    EXPECT_GE((int64_t)P.p.max_rounds, (int64_t)P.p.rounds[0]);
}

/* --- mcio_fdplan_fill_rounds with windows a strategy set per domain --- */

TEST(FillRounds, PresetWindowsAndStripe)
{
    Plan P;
    ASSERT_EQ(mcio_fdplan_alloc(&P.p, 3), MCIO_SUCCESS);
    int64_t fs[] = {0, 1000, 2000}, fe[] = {1000, 2000, 2000};
    int64_t preset[] = {100, 0, 50};
    for (int d = 0; d < 3; d++) {
        P.p.agg_rank[d] = 3 * d;
        P.p.fd_start[d] = fs[d];
        P.p.fd_end[d] = fe[d];
        P.p.window[d] = preset[d];
    }
    mcio_summary sum[] = {{10, 1500, 700}, {0, 0, 0}, {1200, 1300, 100}};
    mcio_planner_params params{};
    params.buffer_size = 300;
    params.cb_nodes = 0;
    params.stripe = 64;
    mcio_fdplan_fill_rounds(&P.p, 3, sum, params);
    /* d0: window 100 -> 64; data [10, 1000) starts at 10, aligned to 0 = fd_start; 16 rounds.
     * d1: window 300 -> 256; data [1000, 1500), 1000 aligns to 960 < fd_start so stays 1000.
     * d2: empty; window 50 is below the stripe and stays. */
    std::vector<Domain> want = {{0, 0, 1000, 0, 1000, 64, 16},
                                {3, 1000, 2000, 1000, 1500, 256, 2},
                                {6, 2000, 2000, 2000, 2000, 50, 0}};
    EXPECT_EQ(mcio_test::domains_of(P.p), want);
    EXPECT_EQ(P.p.max_rounds, 16);
    EXPECT_EQ(P.p.max_buffer, 256);
}

/* --- mcio_fdplan_copy: the simulation build's shared plan is taken by copy --- */

TEST(FdplanCopy, SameDomainsAndFiguresInArraysOfItsOwn)
{
    Plan P, C;
    ASSERT_EQ(mcio_fdplan_alloc(&P.p, 3), MCIO_SUCCESS);
    int64_t fs[] = {0, 1000, 2000}, fe[] = {1000, 2000, 2000};
    for (int d = 0; d < 3; d++) {
        P.p.agg_rank[d] = 3 * d;
        P.p.fd_start[d] = fs[d];
        P.p.fd_end[d] = fe[d];
    }
    mcio_summary sum[] = {{10, 1500, 700}, {0, 0, 0}, {1200, 1300, 100}};
    mcio_planner_params params{};
    params.buffer_size = 300;
    params.stripe = 64;
    ASSERT_EQ(mcio_fdplan_fill_rounds(&P.p, 3, sum, params), MCIO_SUCCESS);
    P.p.fallbacks = 2;
    P.p.memory_conscious = 1;
    ASSERT_EQ(mcio_fdplan_copy(&P.p, &C.p), MCIO_SUCCESS);
    EXPECT_EQ(mcio_test::domains_of(C.p), mcio_test::domains_of(P.p));
    EXPECT_EQ(C.p.max_rounds, P.p.max_rounds);
    EXPECT_EQ(C.p.max_buffer, P.p.max_buffer);
    EXPECT_EQ(C.p.fallbacks, 2);
    EXPECT_EQ(C.p.memory_conscious, 1);
    EXPECT_NE(C.p.agg_rank, P.p.agg_rank);
    EXPECT_NE(C.p.window, P.p.window);

    Plan E, CE;
    ASSERT_EQ(mcio_fdplan_alloc(&E.p, 0), MCIO_SUCCESS);
    ASSERT_EQ(mcio_fdplan_copy(&E.p, &CE.p), MCIO_SUCCESS);
    EXPECT_EQ(CE.p.ndomains, 0);
}

/* --- mcio_fdplan_find and mcio_fdplan_round --- */

struct FindCase {
    int64_t off;
    int want;
};

TEST(FdplanFind, WithEmptyDomains)
{
    /* [10, 20), [20, 20), [20, 35), [35, 35), [35, 50) */
    Plan P;
    mcio_test::make_plan(P, {{0, 10, 20, 10, 20, 8, 2},
                             {1, 20, 20, 20, 20, 8, 0},
                             {2, 20, 35, 20, 35, 8, 2},
                             {3, 35, 35, 35, 35, 8, 0},
                             {4, 35, 50, 35, 50, 8, 2}});
    const FindCase cases[] = {{INT64_MIN, -1}, {-5, -1}, {0, -1}, {9, -1}, {10, 0}, {19, 0},
                              {20, 2},         {34, 2},  {35, 4}, {49, 4}, {50, -1}, {1000, -1},
                              {INT64_MAX, -1}};
    for (const FindCase &c : cases)
        EXPECT_EQ(mcio_fdplan_find(&P.p, c.off), c.want) << "offset " << c.off;
}

TEST(FdplanFind, EmptyDomainsFirstAndLast)
{
    /* As romio lays them out when early boundaries round down and late ones run out of data:
     * [10, 10), [10, 40), [40, 40), [40, 40). */
    Plan P;
    mcio_test::make_plan(P, {{0, 10, 10, 10, 10, 8, 0},
                             {1, 10, 40, 10, 40, 8, 4},
                             {2, 40, 40, 40, 40, 8, 0},
                             {3, 40, 40, 40, 40, 8, 0}});
    const FindCase cases[] = {{9, -1}, {10, 1}, {39, 1}, {40, -1}, {41, -1}};
    for (const FindCase &c : cases)
        EXPECT_EQ(mcio_fdplan_find(&P.p, c.off), c.want) << "offset " << c.off;
}

TEST(FdplanFind, GapsBetweenDomains)
{
    /* A strategy may leave unaccessed gaps between domains. */
    Plan P;
    mcio_test::make_plan(
        P, {{0, 0, 10, 0, 10, 8, 2}, {1, 20, 30, 20, 30, 8, 2}, {2, 30, 31, 30, 31, 8, 1}});
    const FindCase cases[] = {{0, 0}, {9, 0}, {10, -1}, {15, -1}, {19, -1}, {20, 1}, {29, 1},
                              {30, 2}, {31, -1}};
    for (const FindCase &c : cases)
        EXPECT_EQ(mcio_fdplan_find(&P.p, c.off), c.want) << "offset " << c.off;
}

TEST(FdplanFind, NoDomains)
{
    Plan P;
    ASSERT_EQ(mcio_fdplan_alloc(&P.p, 0), MCIO_SUCCESS);
    EXPECT_EQ(P.p.ndomains, 0);
    EXPECT_EQ(mcio_fdplan_find(&P.p, 0), -1);
    EXPECT_EQ(mcio_fdplan_find(&P.p, 12345), -1);
}

TEST(FdplanFind, OnRomioPlanWithEmptyDomains)
{
    /* The MoreAggregatorsThanBytes plan: [7, 8), [8, 9), [9, 10), [10, 10), [10, 10). */
    int node_of_rank[] = {0, 1, 2, 3, 4};
    mcio_summary sum[] = {{7, 10, 3}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    mcio_planner_params params{};
    params.buffer_size = 4;
    params.cb_nodes = 0;
    params.stripe = 0;
    Plan P;
    ASSERT_EQ(mcio_planner_romio(5, sum, node_of_rank, 5, params, &P.p), MCIO_SUCCESS);
    const FindCase cases[] = {{6, -1}, {7, 0}, {8, 1}, {9, 2}, {10, -1}, {11, -1}};
    for (const FindCase &c : cases)
        EXPECT_EQ(mcio_fdplan_find(&P.p, c.off), c.want) << "offset " << c.off;
}

TEST(FdplanRound, RoundsCountFromWinStart)
{
    /* Domain 0: rounds of 64 from 100; domain 1: rounds of 10 from 1000. */
    Plan P;
    mcio_test::make_plan(P, {{0, 0, 1000, 100, 400, 64, 5}, {1, 1000, 2000, 1000, 1025, 10, 3}});
    struct {
        int d;
        int64_t off;
        int want;
    } cases[] = {{0, 100, 0}, {0, 163, 0}, {0, 164, 1}, {0, 227, 1}, {0, 228, 2},
                 {0, 355, 3}, {0, 356, 4}, {0, 399, 4}, {1, 1000, 0}, {1, 1009, 0},
                 {1, 1010, 1}, {1, 1024, 2}};
    for (const auto &c : cases)
        EXPECT_EQ(mcio_fdplan_round(&P.p, c.d, c.off), c.want)
            << "domain " << c.d << " offset " << c.off;
}

} // namespace
