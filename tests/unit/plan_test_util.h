/*
 * Helpers shared by the planner's unit tests: owners that free what the planner allocates, and
 * a compact way to write a plan or a group list down as the expected value of a test.
 */
#ifndef MCIO_PLAN_TEST_UTIL_H
#define MCIO_PLAN_TEST_UTIL_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "mcio_planner.h"

namespace mcio_test {

/* Owns an mcio_fdplan (mcio_fdplan_free on a zeroed plan is a no-op). */
struct Plan {
    mcio_fdplan p{};
    Plan() = default;
    Plan(const Plan &) = delete;
    Plan &operator=(const Plan &) = delete;
    ~Plan() { mcio_fdplan_free(&p); }
};

/* Owns an mcio_groups. */
struct Groups {
    mcio_groups g{};
    Groups() = default;
    Groups(const Groups &) = delete;
    Groups &operator=(const Groups &) = delete;
    ~Groups() { mcio_groups_free(&g); }
};

/* Owns the array mcio_extents_normalize returns. */
struct Extents {
    mcio_extent *e = nullptr;
    int64_t n = 0;
    Extents() = default;
    Extents(const Extents &) = delete;
    Extents &operator=(const Extents &) = delete;
    ~Extents() { free(e); }
};

/* One domain of a plan, written down in full. */
struct Domain {
    int agg;
    int64_t fd_start, fd_end, win_start, win_end, window;
    int rounds;
};

inline std::ostream &operator<<(std::ostream &os, const Domain &d)
{
    return os << "{agg " << d.agg << ", fd [" << d.fd_start << ", " << d.fd_end << "), win ["
              << d.win_start << ", " << d.win_end << "), window " << d.window << ", rounds "
              << d.rounds << "}";
}

inline bool operator==(const Domain &a, const Domain &b)
{
    return a.agg == b.agg && a.fd_start == b.fd_start && a.fd_end == b.fd_end &&
           a.win_start == b.win_start && a.win_end == b.win_end && a.window == b.window &&
           a.rounds == b.rounds;
}

inline std::vector<Domain> domains_of(const mcio_fdplan &p)
{
    std::vector<Domain> v;
    for (int d = 0; d < p.ndomains; d++)
        v.push_back(Domain{p.agg_rank[d], p.fd_start[d], p.fd_end[d], p.win_start[d], p.win_end[d],
                           p.window[d], p.rounds[d]});
    return v;
}

/* Build a plan by hand (for the schedule and lookup tests). */
inline void make_plan(Plan &P, const std::vector<Domain> &doms)
{
    ASSERT_EQ(mcio_fdplan_alloc(&P.p, (int)doms.size()), MCIO_SUCCESS);
    for (size_t d = 0; d < doms.size(); d++) {
        P.p.agg_rank[d] = doms[d].agg;
        P.p.fd_start[d] = doms[d].fd_start;
        P.p.fd_end[d] = doms[d].fd_end;
        P.p.win_start[d] = doms[d].win_start;
        P.p.win_end[d] = doms[d].win_end;
        P.p.window[d] = doms[d].window;
        P.p.rounds[d] = doms[d].rounds;
    }
}

struct Piece {
    int64_t off, len, mem;
};

inline bool operator==(const Piece &a, const Piece &b)
{
    return a.off == b.off && a.len == b.len && a.mem == b.mem;
}

inline std::ostream &operator<<(std::ostream &os, const Piece &p)
{
    return os << "{off " << p.off << ", len " << p.len << ", mem " << p.mem << "}";
}

/* One group of an mcio_groups, written down in full. */
struct Group {
    int round, peer;
    int64_t bytes;
    std::vector<Piece> pieces;
};

inline bool operator==(const Group &a, const Group &b)
{
    return a.round == b.round && a.peer == b.peer && a.bytes == b.bytes && a.pieces == b.pieces;
}

inline std::ostream &operator<<(std::ostream &os, const Group &g)
{
    os << "{round " << g.round << ", peer " << g.peer << ", bytes " << g.bytes << ", pieces [";
    for (size_t i = 0; i < g.pieces.size(); i++)
        os << (i ? ", " : "") << g.pieces[i];
    return os << "]}";
}

/* The groups of g as values; also checks that first[] and npieces are consistent. */
inline std::vector<Group> groups_of(const mcio_groups &g)
{
    std::vector<Group> v;
    EXPECT_GE(g.ngroups, 0);
    if (g.ngroups <= 0)
        return v;
    EXPECT_EQ(g.first[0], 0);
    EXPECT_EQ(g.first[g.ngroups], g.npieces);
    for (int64_t i = 0; i < g.ngroups; i++) {
        Group x{g.round[i], g.peer[i], g.bytes[i], {}};
        for (int64_t k = g.first[i]; k < g.first[i + 1]; k++)
            x.pieces.push_back(Piece{g.pieces[k].off, g.pieces[k].len, g.pieces[k].mem});
        v.push_back(x);
    }
    return v;
}

inline std::vector<Piece> pieces_of(const mcio_piece *p, int64_t n)
{
    std::vector<Piece> v;
    for (int64_t i = 0; i < n; i++)
        v.push_back(Piece{p[i].off, p[i].len, p[i].mem});
    return v;
}

/* The groups with each group's pieces sorted by (offset, length, memory). */
inline std::vector<Group> sorted_pieces(std::vector<Group> v)
{
    for (Group &g : v)
        std::sort(g.pieces.begin(), g.pieces.end(), [](const Piece &a, const Piece &b) {
            return std::tie(a.off, a.len, a.mem) < std::tie(b.off, b.len, b.mem);
        });
    return v;
}

/*
 * Schedule each rank's extents (ext[s] for rank s), hand each domain's pieces to its aggregator
 * as the engine does (rank s's pieces of domain d, in s's group order), and check that for
 * every (round, sender) the aggregator's group lists the same (offset, length) pieces in the
 * same order as the sender's group for that (round, domain): the two sides describe one
 * message, sent and received piece after piece.
 */
inline void expect_ranks_aggregators_agree(const mcio_fdplan &plan,
                                           const std::vector<std::vector<mcio_extent>> &ext)
{
    int nprocs = (int)ext.size();
    std::vector<Groups> R(nprocs);
    for (int s = 0; s < nprocs; s++)
        ASSERT_EQ(mcio_schedule_rank(&plan, ext[s].data(), (int64_t)ext[s].size(), &R[s].g),
                  MCIO_SUCCESS);
    for (int d = 0; d < plan.ndomains; d++) {
        std::vector<std::vector<mcio_piece>> mine(nprocs);
        int64_t rank_groups = 0;
        for (int s = 0; s < nprocs; s++)
            for (int64_t g = 0; g < R[s].g.ngroups; g++)
                if (R[s].g.peer[g] == d) {
                    rank_groups++;
                    for (int64_t i = R[s].g.first[g]; i < R[s].g.first[g + 1]; i++) {
                        mcio_piece p = R[s].g.pieces[i];
                        p.mem = 0;
                        mine[s].push_back(p);
                    }
                }
        std::vector<int64_t> nlist(nprocs);
        std::vector<const mcio_piece *> lists(nprocs);
        for (int s = 0; s < nprocs; s++) {
            nlist[s] = (int64_t)mine[s].size();
            lists[s] = mine[s].data();
        }
        Groups A;
        ASSERT_EQ(mcio_schedule_aggregator(&plan, d, nprocs, nlist.data(), lists.data(), &A.g),
                  MCIO_SUCCESS);
        EXPECT_EQ(A.g.ngroups, rank_groups) << "domain " << d;
        for (int64_t ga = 0; ga < A.g.ngroups; ga++) {
            int s = A.g.peer[ga], k = A.g.round[ga];
            ASSERT_GE(s, 0);
            ASSERT_LT(s, nprocs);
            int64_t gr = -1;
            for (int64_t g = 0; g < R[s].g.ngroups; g++)
                if (R[s].g.round[g] == k && R[s].g.peer[g] == d)
                    gr = g;
            ASSERT_GE(gr, 0) << "domain " << d << " round " << k << " sender " << s
                             << ": aggregator expects data the rank does not send";
            EXPECT_EQ(A.g.bytes[ga], R[s].g.bytes[gr]);
            std::vector<std::pair<int64_t, int64_t>> a, r;
            for (int64_t i = A.g.first[ga]; i < A.g.first[ga + 1]; i++)
                a.emplace_back(A.g.pieces[i].off, A.g.pieces[i].len);
            for (int64_t i = R[s].g.first[gr]; i < R[s].g.first[gr + 1]; i++)
                r.emplace_back(R[s].g.pieces[i].off, R[s].g.pieces[i].len);
            EXPECT_EQ(a, r) << "domain " << d << " round " << k << " sender " << s
                            << ": the two sides order the message's pieces differently";
        }
    }
}

} // namespace mcio_test

#endif
