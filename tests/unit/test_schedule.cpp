/*
 * The exchange schedule: mcio_schedule_rank (a rank's extents cut at domain and round
 * boundaries, grouped by (round, domain)), mcio_schedule_aggregator (pieces of one domain
 * grouped by (round, sender), placed in the round's collective buffer) and mcio_schedule_runs
 * (the merged stretches of a round someone asked for). Expected groups worked out by hand.
 */
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "plan_test_util.h"

using mcio_test::Group;
using mcio_test::Groups;
using mcio_test::Piece;
using mcio_test::Plan;

namespace {

std::vector<mcio_extent> extents(const std::vector<Piece> &v)
{
    std::vector<mcio_extent> e;
    for (const Piece &p : v) {
        mcio_extent x;
        x.off = p.off;
        x.len = p.len;
        x.mem = p.mem;
        e.push_back(x);
    }
    return e;
}

/*
 * Two domains of 500 bytes, rounds of 200:
 *   domain 0 [1000, 1500): rounds [1000, 1200) [1200, 1400) [1400, 1500)
 *   domain 1 [1500, 2000): rounds [1500, 1700) [1700, 1900) [1900, 2000)
 */
void two_domains(Plan &P)
{
    mcio_test::make_plan(
        P, {{0, 1000, 1500, 1000, 1500, 200, 3}, {4, 1500, 2000, 1500, 2000, 200, 3}});
}

TEST(ScheduleRank, CutAtDomainAndRoundBoundaries)
{
    Plan P;
    two_domains(P);
    /* [1100, 1600) from memory 0 and [1650, 1950) from memory 1000. */
    std::vector<mcio_extent> e = extents({{1100, 500, 0}, {1650, 300, 1000}});
    Groups G;
    ASSERT_EQ(mcio_schedule_rank(&P.p, e.data(), (int64_t)e.size(), &G.g), MCIO_SUCCESS);
    std::vector<Group> want = {
        {0, 0, 100, {{1100, 100, 0}}},
        {0, 1, 150, {{1500, 100, 400}, {1650, 50, 1000}}},
        {1, 0, 200, {{1200, 200, 100}}},
        {1, 1, 200, {{1700, 200, 1050}}},
        {2, 0, 100, {{1400, 100, 300}}},
        {2, 1, 50, {{1900, 50, 1250}}},
    };
    EXPECT_EQ(mcio_test::groups_of(G.g), want);
    EXPECT_EQ(G.g.ngroups, 6);
    EXPECT_EQ(G.g.npieces, 7);
}

TEST(ScheduleRank, ManyExtentsInOneRoundShareAGroup)
{
    Plan P;
    two_domains(P);
    /* Memory order differs from file order: pieces are listed by file offset in a group. */
    std::vector<mcio_extent> e = extents({{1000, 10, 90}, {1020, 10, 0}, {1190, 20, 40}});
    Groups G;
    ASSERT_EQ(mcio_schedule_rank(&P.p, e.data(), (int64_t)e.size(), &G.g), MCIO_SUCCESS);
    std::vector<Group> want = {
        {0, 0, 30, {{1000, 10, 90}, {1020, 10, 0}, {1190, 10, 40}}},
        {1, 0, 10, {{1200, 10, 50}}},
    };
    EXPECT_EQ(mcio_test::groups_of(G.g), want);
}

TEST(ScheduleRank, SkipsEmptyDomain)
{
    Plan P;
    mcio_test::make_plan(P, {{0, 0, 100, 0, 100, 1000, 1},
                             {1, 100, 100, 100, 100, 1000, 0},
                             {2, 100, 200, 100, 200, 1000, 1}});
    std::vector<mcio_extent> e = extents({{50, 100, 7}});
    Groups G;
    ASSERT_EQ(mcio_schedule_rank(&P.p, e.data(), 1, &G.g), MCIO_SUCCESS);
    std::vector<Group> want = {{0, 0, 50, {{50, 50, 7}}}, {0, 2, 50, {{100, 50, 57}}}};
    EXPECT_EQ(mcio_test::groups_of(G.g), want);
}

TEST(ScheduleRank, RoundsStartAtWinStartNotFdStart)
{
    /* Domain [0, 256) whose data starts at 64: rounds [64, 128) [128, 192) [192, 200). */
    Plan P;
    mcio_test::make_plan(P, {{0, 0, 256, 64, 200, 64, 3}});
    std::vector<mcio_extent> e = extents({{100, 100, 0}});
    Groups G;
    ASSERT_EQ(mcio_schedule_rank(&P.p, e.data(), 1, &G.g), MCIO_SUCCESS);
    std::vector<Group> want = {
        {0, 0, 28, {{100, 28, 0}}}, {1, 0, 64, {{128, 64, 28}}}, {2, 0, 8, {{192, 8, 92}}}};
    EXPECT_EQ(mcio_test::groups_of(G.g), want);
}

TEST(ScheduleRank, OverlappingReadExtentsEachGetPieces)
{
    Plan P;
    two_domains(P);
    std::vector<mcio_extent> e = extents({{1150, 100, 0}, {1180, 40, 500}});
    Groups G;
    ASSERT_EQ(mcio_schedule_rank(&P.p, e.data(), 2, &G.g), MCIO_SUCCESS);
    /* Two pieces of round 1 start at 1200; their order within the group is not part of the
     * definition (see RankAndAggregatorAgreeOnPieceOrder), so compare groups as sets. */
    std::vector<Group> want = {
        {0, 0, 70, {{1150, 50, 0}, {1180, 20, 500}}},
        {1, 0, 70, {{1200, 20, 520}, {1200, 50, 50}}},
    };
    EXPECT_EQ(mcio_test::sorted_pieces(mcio_test::groups_of(G.g)), want);
}

TEST(ScheduleRank, ManyOverlappingReadsEachCutAtEveryRound)
{
    /* Twenty reads of the whole data, [1000, 2000): each is cut into the six rounds, 120
     * pieces, more than one per extent and round of the plan (the array grows). Every piece
     * must lie in its group's round and domain and keep its memory displacement. */
    Plan P;
    two_domains(P);
    std::vector<Piece> v;
    for (int i = 0; i < 20; i++)
        v.push_back({1000, 1000, 5000 * i});
    std::vector<mcio_extent> e = extents(v);
    Groups G;
    ASSERT_EQ(mcio_schedule_rank(&P.p, e.data(), (int64_t)e.size(), &G.g), MCIO_SUCCESS);
    ASSERT_EQ(G.g.ngroups, 6);
    ASSERT_EQ(G.g.npieces, 120);
    for (int64_t g = 0; g < G.g.ngroups; g++) {
        int d = G.g.peer[g], r = G.g.round[g];
        int64_t lo = 1000 + 500 * d + 200 * r, hi = lo + (r == 2 ? 100 : 200);
        EXPECT_EQ(G.g.bytes[g], 20 * (hi - lo));
        for (int64_t i = G.g.first[g]; i < G.g.first[g + 1]; i++) {
            const mcio_piece &pc = G.g.pieces[i];
            EXPECT_EQ(pc.off, lo);
            EXPECT_EQ(pc.len, hi - lo);
            EXPECT_EQ(pc.mem % 5000, lo - 1000);
        }
    }
}

/*
 * The engine sends a group's pieces back to back (one hindexed message) and the other side
 * receives them into its own group's pieces in its own order: the rank side (round, domain)
 * and the aggregator side (round, sender) must list the same pieces in the same order,
 * including pieces that start at the same offset (reads of overlapping extents).
 */
TEST(ScheduleAgreement, RankAndAggregatorAgreeOnPieceOrder)
{
    Plan P;
    two_domains(P);
    /* Rank 0 (normalized read extents, sorted by offset then memory): round 1 of domain 0
     * gets pieces [1200, 1250), [1200, 1220) and [1200, 1300), all starting at 1200.
     * Rank 1 has a piece in round 0 of domain 0 and one in domain 1. */
    std::vector<std::vector<mcio_extent>> ext = {
        extents({{1150, 100, 0}, {1200, 20, 500}, {1200, 100, 600}, {1300, 10, 50}}),
        extents({{1000, 10, 0}, {1600, 10, 10}}),
    };
    mcio_test::expect_ranks_aggregators_agree(P.p, ext);
}

TEST(ScheduleRank, NoExtents)
{
    Plan P;
    two_domains(P);
    Groups G;
    ASSERT_EQ(mcio_schedule_rank(&P.p, nullptr, 0, &G.g), MCIO_SUCCESS);
    EXPECT_EQ(G.g.ngroups, 0);
    EXPECT_EQ(G.g.npieces, 0);
    ASSERT_NE(G.g.first, nullptr);
    EXPECT_EQ(G.g.first[0], 0);
}

TEST(ScheduleRank, BytesOutsideThePlanAreAnInternalError)
{
    Plan P;
    mcio_test::make_plan(P, {{0, 100, 200, 120, 200, 50, 2}});
    const Piece bad[] = {
        {50, 10, 0},   /* before every domain */
        {250, 10, 0},  /* after every domain */
        {150, 100, 0}, /* runs off the end of the last domain */
        {100, 10, 0},  /* in the domain but before its data region */
    };
    for (const Piece &b : bad) {
        std::vector<mcio_extent> e = extents({b});
        Groups G;
        EXPECT_EQ(mcio_schedule_rank(&P.p, e.data(), 1, &G.g), MCIO_ERR_INTERNAL) << b;
    }
}

/*
 * Bytes inside a domain but past the end of its data region (win_end) are not covered by any
 * round either, and must be reported like the bytes before win_start. Run in a child process
 * with an alarm: a planner that loops forever on them fails this test alone.
 */
int schedule_past_win_end()
{
    alarm(3);
    Plan P;
    mcio_test::make_plan(P, {{0, 0, 100, 0, 50, 10, 5}});
    std::vector<mcio_extent> e = extents({{60, 10, 0}});
    Groups G;
    return mcio_schedule_rank(&P.p, e.data(), 1, &G.g);
}

TEST(ScheduleRankDeathTest, BytesPastWinEndAreAnInternalError)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(std::exit(schedule_past_win_end() == MCIO_ERR_INTERNAL ? 0 : 1),
                ::testing::ExitedWithCode(0), "");
}

/* --- aggregator side --- */

/* The groups of domain 1 of two_domains for senders 0 and 2 below, in either form. */
void expect_domain1_groups(const Groups &G)
{
    std::vector<Group> want = {
        {0, 0, 150, {{1500, 100, 0}, {1650, 50, 150}}},
        {0, 2, 50, {{1600, 50, 100}}},
        {1, 0, 200, {{1700, 200, 0}}},
        {2, 0, 50, {{1900, 50, 0}}},
        {2, 2, 50, {{1950, 50, 50}}},
    };
    EXPECT_EQ(mcio_test::groups_of(G.g), want);
    EXPECT_EQ(G.g.npieces, 6);
}

TEST(ScheduleAggregator, GroupsByRoundThenSender)
{
    Plan P;
    two_domains(P);
    /* Pieces of domain 1 (rounds from 1500, 200 bytes), already cut at round boundaries.
     * Sender 2's list is not in offset order; sender 1 sends nothing. */
    const mcio_piece s0[] = {{1500, 100, -1}, {1650, 50, -1}, {1700, 200, -1}, {1900, 50, -1}};
    const mcio_piece s2[] = {{1950, 50, -1}, {1600, 50, -1}};
    const mcio_piece *lists[] = {s0, nullptr, s2};
    const int64_t nlist[] = {4, 0, 2};
    Groups G;
    ASSERT_EQ(mcio_schedule_aggregator(&P.p, 1, 3, nlist, lists, &G.g), MCIO_SUCCESS);
    expect_domain1_groups(G);
}

TEST(ScheduleAggregator, BufferDisplacementFromWinStart)
{
    /* Rounds of 64 from win_start 64 (fd_start 0): round 1 is [128, 192). */
    Plan P;
    mcio_test::make_plan(P, {{0, 0, 256, 64, 200, 64, 3}});
    const mcio_piece s0[] = {{100, 28, 0}, {130, 10, 0}};
    const mcio_piece s1[] = {{64, 10, 0}, {192, 8, 0}};
    const mcio_piece *lists[] = {s0, s1};
    const int64_t nlist[] = {2, 2};
    Groups G;
    ASSERT_EQ(mcio_schedule_aggregator(&P.p, 0, 2, nlist, lists, &G.g), MCIO_SUCCESS);
    std::vector<Group> want = {
        {0, 0, 28, {{100, 28, 36}}},
        {0, 1, 10, {{64, 10, 0}}},
        {1, 0, 10, {{130, 10, 2}}},
        {2, 1, 8, {{192, 8, 0}}},
    };
    EXPECT_EQ(mcio_test::groups_of(G.g), want);
}

TEST(ScheduleAggregator, PiecesAcrossRoundsAreCutThere)
{
    /* The lists of GroupsByRoundThenSender, as the engine now sends them: merged in the file
     * across rounds (the aggregator cuts them at its rounds' boundaries itself). */
    Plan P;
    two_domains(P);
    const mcio_piece s0[] = {{1500, 100, -1}, {1650, 300, -1}};
    const mcio_piece s2[] = {{1950, 50, -1}, {1600, 50, -1}};
    const mcio_piece *lists[] = {s0, nullptr, s2};
    const int64_t nlist[] = {2, 0, 2};
    Groups G;
    ASSERT_EQ(mcio_schedule_aggregator(&P.p, 1, 3, nlist, lists, &G.g), MCIO_SUCCESS);
    expect_domain1_groups(G);
    /* A piece outside the domain's data is refused, not written past a round. */
    const mcio_piece bad[] = {{1400, 10, -1}};
    const mcio_piece *blists[] = {bad};
    const int64_t bn[] = {1};
    Groups B;
    EXPECT_EQ(mcio_schedule_aggregator(&P.p, 1, 1, bn, blists, &B.g), MCIO_ERR_INTERNAL);
}

TEST(ScheduleAggregator, NoSenders)
{
    Plan P;
    two_domains(P);
    const int64_t nlist[] = {0, 0};
    const mcio_piece *lists[] = {nullptr, nullptr};
    Groups G;
    ASSERT_EQ(mcio_schedule_aggregator(&P.p, 0, 2, nlist, lists, &G.g), MCIO_SUCCESS);
    EXPECT_EQ(G.g.ngroups, 0);
    EXPECT_EQ(G.g.npieces, 0);
}

/* --- runs --- */

TEST(ScheduleRuns, MergeAdjacentAndOverlappingAcrossSenders)
{
    Plan P;
    two_domains(P);
    const mcio_piece s0[] = {{1500, 100, -1}, {1650, 50, -1}, {1700, 200, -1}, {1900, 50, -1}};
    const mcio_piece s2[] = {{1950, 50, -1}, {1600, 50, -1}};
    const mcio_piece *lists[] = {s0, nullptr, s2};
    const int64_t nlist[] = {4, 0, 2};
    Groups G;
    ASSERT_EQ(mcio_schedule_aggregator(&P.p, 1, 3, nlist, lists, &G.g), MCIO_SUCCESS);
    ASSERT_EQ(G.g.ngroups, 5);
    std::vector<mcio_piece> runs(G.g.npieces);
    /* Round 0 = groups [0, 2): [0, 100) + [150, 200) from sender 0, [100, 150) from sender 2. */
    int64_t n = mcio_schedule_runs(&G.g, 0, 2, runs.data());
    EXPECT_EQ(mcio_test::pieces_of(runs.data(), n), (std::vector<Piece>{{1500, 200, 0}}));
    /* Round 1 = group 2. */
    n = mcio_schedule_runs(&G.g, 2, 3, runs.data());
    EXPECT_EQ(mcio_test::pieces_of(runs.data(), n), (std::vector<Piece>{{1700, 200, 0}}));
    /* Round 2 = groups [3, 5): [0, 50) and [50, 100) from two senders. */
    n = mcio_schedule_runs(&G.g, 3, 5, runs.data());
    EXPECT_EQ(mcio_test::pieces_of(runs.data(), n), (std::vector<Piece>{{1900, 100, 0}}));
    /* No groups. */
    EXPECT_EQ(mcio_schedule_runs(&G.g, 2, 2, runs.data()), 0);
}

TEST(ScheduleRuns, GapsOverlapsAndNesting)
{
    /* One round of 100 bytes from 0. Sender 0: [0, 10) [20, 30) [42, 45);
     * sender 1: [5, 15) [30, 35) [40, 50); sender 2: [60, 61) [99, 100).
     * Runs: [0, 15) (overlap), [20, 35) (adjacent), [40, 50) (nesting), [60, 61), [99, 100). */
    Plan P;
    mcio_test::make_plan(P, {{0, 0, 100, 0, 100, 100, 1}});
    const mcio_piece s0[] = {{0, 10, 0}, {20, 10, 0}, {42, 3, 0}};
    const mcio_piece s1[] = {{5, 10, 0}, {30, 5, 0}, {40, 10, 0}};
    const mcio_piece s2[] = {{60, 1, 0}, {99, 1, 0}};
    const mcio_piece *lists[] = {s0, s1, s2};
    const int64_t nlist[] = {3, 3, 2};
    Groups G;
    ASSERT_EQ(mcio_schedule_aggregator(&P.p, 0, 3, nlist, lists, &G.g), MCIO_SUCCESS);
    ASSERT_EQ(G.g.ngroups, 3);
    std::vector<mcio_piece> runs(G.g.npieces);
    int64_t n = mcio_schedule_runs(&G.g, 0, 3, runs.data());
    std::vector<Piece> want = {{0, 15, 0}, {20, 15, 20}, {40, 10, 40}, {60, 1, 60}, {99, 1, 99}};
    EXPECT_EQ(mcio_test::pieces_of(runs.data(), n), want);
    /* Sender 0 alone: nothing merges. */
    n = mcio_schedule_runs(&G.g, 0, 1, runs.data());
    EXPECT_EQ(mcio_test::pieces_of(runs.data(), n),
              (std::vector<Piece>{{0, 10, 0}, {20, 10, 20}, {42, 3, 42}}));
}

TEST(ScheduleRuns, IdenticalPiecesFromTwoSenders)
{
    /* Two readers of the same bytes: one run, not two. Round 1 of rounds of 50 from 1000. */
    Plan P;
    mcio_test::make_plan(P, {{0, 1000, 1100, 1000, 1100, 50, 2}});
    const mcio_piece s0[] = {{1060, 20, 0}};
    const mcio_piece s1[] = {{1060, 20, 0}, {1050, 5, 0}};
    const mcio_piece *lists[] = {s0, s1};
    const int64_t nlist[] = {1, 2};
    Groups G;
    ASSERT_EQ(mcio_schedule_aggregator(&P.p, 0, 2, nlist, lists, &G.g), MCIO_SUCCESS);
    std::vector<Group> want = {{1, 0, 20, {{1060, 20, 10}}},
                               {1, 1, 25, {{1050, 5, 0}, {1060, 20, 10}}}};
    EXPECT_EQ(mcio_test::groups_of(G.g), want);
    std::vector<mcio_piece> runs(G.g.npieces);
    int64_t n = mcio_schedule_runs(&G.g, 0, 2, runs.data());
    EXPECT_EQ(mcio_test::pieces_of(runs.data(), n),
              (std::vector<Piece>{{1050, 5, 0}, {1060, 20, 10}}));
}

} // namespace
