/*
 * Property test of the whole planner: for random (seeded) machines, hints and extent lists,
 * the romio plan and the schedules built from it are consistent:
 *   - domains sorted, disjoint and covering [min start, max end), one distinct aggregator each;
 *   - windows, data regions, rounds, max_rounds and max_buffer as defined in mcio_planner.h;
 *   - every accessed byte of every rank in exactly one domain's data region;
 *   - each rank's schedule cuts its extents into pieces inside one round of one domain, with
 *     memory displacements that map every byte back where it came from;
 *   - the aggregator side rebuilt from the ranks' pieces holds the same pieces in the same
 *     order for every (round, sender), at the right collective-buffer displacement, and its
 *     runs are exactly the union of the pieces;
 *   - a simulated collective read through the schedules delivers every byte to every rank.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "plan_test_util.h"

using mcio_test::Extents;
using mcio_test::Groups;
using mcio_test::Plan;

namespace {

struct World {
    int nprocs = 0, nnodes = 0;
    std::vector<int> node_of_rank;
    mcio_planner_params params{};
    bool write = false;
    std::vector<std::vector<mcio_extent>> ext; /* normalized, per rank */
    std::vector<mcio_summary> sum;
    std::string describe;
};

int64_t uniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) /* inclusive */
{
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/* The byte stored at file offset off, for the simulated read. */
unsigned char file_byte(int64_t off)
{
    uint64_t x = (uint64_t)off * 0x9E3779B97F4A7C15ull;
    return (unsigned char)(x >> 56);
}

void make_world(uint64_t seed, World &w)
{
    std::mt19937_64 rng(seed);
    w.nprocs = (int)uniform(rng, 1, 12);
    w.nnodes = (int)uniform(rng, 1, w.nprocs);
    w.node_of_rank.assign(w.nprocs, 0);
    int layout = (int)uniform(rng, 0, 2);
    for (int r = 0; r < w.nprocs; r++) {
        if (layout == 0) /* blocks of consecutive ranks */
            w.node_of_rank[r] = (int)((int64_t)r * w.nnodes / w.nprocs);
        else if (layout == 1) /* round-robin */
            w.node_of_rank[r] = r % w.nnodes;
        else /* random, every node holding at least one rank */
            w.node_of_rank[r] = r < w.nnodes ? r : (int)uniform(rng, 0, w.nnodes - 1);
    }
    if (layout == 2)
        std::shuffle(w.node_of_rank.begin(), w.node_of_rank.end(), rng);

    static const int64_t stripes[] = {0, 0, 0, 1, 3, 64, 100, 4096};
    w.params.stripe = stripes[uniform(rng, 0, 7)];
    w.params.buffer_size =
        uniform(rng, 0, 4) == 0 ? uniform(rng, 1, 1 << 20) : uniform(rng, 1, 3000);
    w.params.cb_nodes = (int)uniform(rng, 0, w.nprocs + 2);
    w.write = uniform(rng, 0, 1) == 1;

    static const int64_t spans[] = {64, 1000, 50000, 1 << 24};
    int64_t span = spans[uniform(rng, 0, 3)];
    int64_t base = uniform(rng, 0, 1) ? 0 : uniform(rng, 0, 1 << 20);
    int64_t maxlen = std::min<int64_t>(span, 2000);

    w.ext.assign(w.nprocs, {});
    w.sum.assign(w.nprocs, mcio_summary{0, 0, 0});
    for (int r = 0; r < w.nprocs; r++) {
        int n = uniform(rng, 0, 5) == 0 ? 0 : (int)uniform(rng, 1, 6);
        std::vector<int64_t> off, len, mem;
        for (int i = 0; i < n; i++) {
            int64_t l = uniform(rng, 0, 9) == 0 ? 0 : uniform(rng, 1, maxlen);
            int64_t o = base + uniform(rng, 0, span - 1);
            if (!w.write && i > 0 && uniform(rng, 0, 3) == 0)
                o = off[uniform(rng, 0, i - 1)]; /* reads: same start as another extent */
            bool clash = false;
            for (int j = 0; w.write && j < (int)off.size(); j++)
                clash |= o < off[j] + len[j] && off[j] < o + l;
            if (clash)
                continue;
            off.push_back(o);
            len.push_back(l);
        }
        /* Memory: packed in list order (not file order), sometimes with gaps. */
        int64_t at = uniform(rng, 0, 100);
        bool gaps = uniform(rng, 0, 1) == 1;
        for (size_t i = 0; i < off.size(); i++) {
            mem.push_back(at);
            at += len[i] + (gaps ? uniform(rng, 0, 50) : 0);
        }
        Extents x;
        char detail[MCIO_DETAIL_LEN] = "";
        int st = mcio_extents_normalize((int64_t)off.size(), off.data(), len.data(), mem.data(),
                                        w.write, &x.e, &x.n, detail);
        ASSERT_EQ(st, MCIO_SUCCESS) << detail;
        w.ext[r].assign(x.e, x.e + x.n);
        w.sum[r] = mcio_extents_summary(x.e, x.n);
    }
    w.describe = "seed " + std::to_string(seed) + ": nprocs " + std::to_string(w.nprocs) +
                 ", nnodes " + std::to_string(w.nnodes) + ", layout " + std::to_string(layout) +
                 ", buffer " + std::to_string(w.params.buffer_size) + ", cb_nodes " +
                 std::to_string(w.params.cb_nodes) + ", stripe " + std::to_string(w.params.stripe) +
                 (w.write ? ", write" : ", read");
}

int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t lo = std::max(a0, b0), hi = std::min(a1, b1);
    return hi > lo ? hi - lo : 0;
}

/* Sorted union of [off, off + len) intervals, as (start, end) pairs. */
std::vector<std::pair<int64_t, int64_t>> interval_union(std::vector<std::pair<int64_t, int64_t>> v)
{
    std::sort(v.begin(), v.end());
    std::vector<std::pair<int64_t, int64_t>> u;
    for (auto &iv : v) {
        if (!u.empty() && iv.first <= u.back().second)
            u.back().second = std::max(u.back().second, iv.second);
        else
            u.push_back(iv);
    }
    return u;
}

void check_plan(const World &w, const mcio_fdplan &p)
{
    /* Aggregators: as chosen by mcio_planner_choose_aggregators, distinct. */
    std::vector<int> aggs(w.nprocs);
    int naggs = mcio_planner_choose_aggregators(w.nprocs, w.node_of_rank.data(), w.nnodes,
                                                w.params.cb_nodes, aggs.data());
    int want_aggs = w.params.cb_nodes > 0 ? w.params.cb_nodes : w.nnodes;
    EXPECT_EQ(naggs, std::min(want_aggs, w.nprocs));
    ASSERT_EQ(p.ndomains, naggs);
    for (int d = 0; d < p.ndomains; d++) {
        EXPECT_EQ(p.agg_rank[d], aggs[d]);
        if (d > 0) {
            EXPECT_LT(p.agg_rank[d - 1], p.agg_rank[d]);
        }
    }

    /* Domains: sorted, disjoint, covering [lo, hi). */
    int64_t lo = INT64_MAX, hi = 0;
    for (const mcio_summary &s : w.sum)
        if (s.bytes > 0) {
            lo = std::min(lo, s.start);
            hi = std::max(hi, s.end);
        }
    if (lo == INT64_MAX)
        lo = hi = 0;
    EXPECT_EQ(p.fd_start[0], lo);
    EXPECT_EQ(p.fd_end[p.ndomains - 1], hi);
    int64_t fd_size = (hi - lo + naggs - 1) / naggs;
    for (int d = 0; d < p.ndomains; d++) {
        EXPECT_LE(p.fd_start[d], p.fd_end[d]) << "domain " << d;
        if (d > 0) {
            EXPECT_EQ(p.fd_start[d], p.fd_end[d - 1]) << "domain " << d;
        }
        if (d < p.ndomains - 1) {
            int64_t b = p.fd_end[d];
            if (w.params.stripe > 0) { /* on a stripe unless clamped to the region */
                EXPECT_TRUE(b % w.params.stripe == 0 || b == lo || b == hi) << "boundary " << b;
            } else {
                EXPECT_EQ(b, std::min(lo + (int64_t)(d + 1) * fd_size, hi)) << "domain " << d;
            }
        }
    }

    /* Windows, data regions, rounds. */
    int64_t window = w.params.buffer_size;
    if (w.params.stripe > 0 && window >= w.params.stripe)
        window -= window % w.params.stripe;
    int max_rounds = 0;
    int64_t max_buffer = 0;
    for (int d = 0; d < p.ndomains; d++) {
        SCOPED_TRACE("domain " + std::to_string(d));
        int64_t fs = p.fd_start[d], fe = p.fd_end[d], dlo = INT64_MAX, dhi = INT64_MIN;
        for (const mcio_summary &s : w.sum)
            if (s.bytes > 0 && s.start < fe && s.end > fs) {
                dlo = std::min(dlo, s.start);
                dhi = std::max(dhi, s.end);
            }
        EXPECT_EQ(p.window[d], window);
        if (dlo == INT64_MAX || fs == fe) {
            EXPECT_EQ(p.win_start[d], fs);
            EXPECT_EQ(p.win_end[d], fs);
            EXPECT_EQ(p.rounds[d], 0);
            continue;
        }
        int64_t first = std::max(dlo, fs);
        int64_t ws = first;
        if (w.params.stripe > 0)
            ws = std::max(fs, first - first % w.params.stripe);
        EXPECT_EQ(p.win_start[d], ws);
        EXPECT_EQ(p.win_end[d], std::min(dhi, fe));
        int64_t dspan = p.win_end[d] - p.win_start[d];
        EXPECT_EQ((int64_t)p.rounds[d], (dspan + window - 1) / window);
        max_rounds = std::max(max_rounds, p.rounds[d]);
        max_buffer = std::max(max_buffer, std::min(dspan, window));
    }
    EXPECT_EQ(p.max_rounds, max_rounds);
    EXPECT_EQ(p.max_buffer, max_buffer);

    /* Every accessed byte in exactly one data region (the regions are disjoint). */
    for (int r = 0; r < w.nprocs; r++)
        for (const mcio_extent &e : w.ext[r]) {
            int64_t in = 0;
            for (int d = 0; d < p.ndomains; d++)
                in += overlap(e.off, e.off + e.len, p.win_start[d], p.win_end[d]);
            EXPECT_EQ(in, e.len) << "rank " << r << " extent [" << e.off << ", " << e.off + e.len
                                 << ")";
        }
}

/* Check a groups list's shape: ascending (round, peer), consistent first[] and bytes[]. */
void check_groups_shape(const mcio_groups &g)
{
    ASSERT_GE(g.ngroups, 0);
    EXPECT_EQ(g.first[0], 0);
    EXPECT_EQ(g.first[g.ngroups], g.npieces);
    for (int64_t i = 0; i < g.ngroups; i++) {
        EXPECT_LT(g.first[i], g.first[i + 1]) << "empty group " << i;
        if (i > 0) {
            EXPECT_TRUE(g.round[i - 1] < g.round[i] ||
                        (g.round[i - 1] == g.round[i] && g.peer[i - 1] < g.peer[i]))
                << "groups " << i - 1 << " and " << i << " out of order";
        }
        int64_t b = 0;
        for (int64_t k = g.first[i]; k < g.first[i + 1]; k++) {
            EXPECT_GT(g.pieces[k].len, 0);
            b += g.pieces[k].len;
        }
        EXPECT_EQ(g.bytes[i], b);
    }
}

void check_world(const World &w)
{
    SCOPED_TRACE(w.describe);
    Plan P;
    ASSERT_EQ(mcio_planner_romio(w.nprocs, w.sum.data(), w.node_of_rank.data(), w.nnodes, w.params,
                                 &P.p),
              MCIO_SUCCESS);
    const mcio_fdplan &p = P.p;
    check_plan(w, p);
    if (::testing::Test::HasFatalFailure())
        return;

    /* Rank side. */
    std::vector<Groups> send(w.nprocs);
    /* per domain, per sender: the sender's pieces of that domain in its group order */
    std::vector<std::vector<std::vector<mcio_piece>>> to(
        p.ndomains, std::vector<std::vector<mcio_piece>>(w.nprocs));
    int64_t total = 0;
    for (int r = 0; r < w.nprocs; r++) {
        SCOPED_TRACE("rank " + std::to_string(r));
        const std::vector<mcio_extent> &e = w.ext[r];
        mcio_groups &g = send[r].g;
        ASSERT_EQ(mcio_schedule_rank(&p, e.data(), (int64_t)e.size(), &g), MCIO_SUCCESS);
        check_groups_shape(g);
        int64_t bytes = 0;
        std::vector<std::pair<int64_t, int64_t>> from_pieces, from_ext; /* (file, memory) bytes */
        for (int64_t gi = 0; gi < g.ngroups; gi++) {
            int k = g.round[gi], d = g.peer[gi];
            ASSERT_GE(d, 0);
            ASSERT_LT(d, p.ndomains);
            EXPECT_LT(k, p.rounds[d]);
            int64_t r0 = p.win_start[d] + (int64_t)k * p.window[d];
            int64_t r1 = std::min(r0 + p.window[d], p.win_end[d]);
            for (int64_t i = g.first[gi]; i < g.first[gi + 1]; i++) {
                const mcio_piece &pc = g.pieces[i];
                EXPECT_GE(pc.off, r0) << "piece outside its round";
                EXPECT_LE(pc.off + pc.len, r1) << "piece outside its round";
                EXPECT_GE(pc.off, p.fd_start[d]);
                EXPECT_LE(pc.off + pc.len, p.fd_end[d]);
                bytes += pc.len;
                for (int64_t b = 0; b < pc.len; b++)
                    from_pieces.emplace_back(pc.off + b, pc.mem + b);
                to[d][r].push_back(mcio_piece{pc.off, pc.len, 0});
            }
        }
        EXPECT_EQ(bytes, w.sum[r].bytes);
        total += bytes;
        for (const mcio_extent &x : e)
            for (int64_t b = 0; b < x.len; b++)
                from_ext.emplace_back(x.off + b, x.mem + b);
        std::sort(from_pieces.begin(), from_pieces.end());
        std::sort(from_ext.begin(), from_ext.end());
        EXPECT_TRUE(from_pieces == from_ext) << "pieces do not map back onto the extents' bytes";
    }

    /* Aggregator side, and a simulated read through both sides. */
    std::vector<std::vector<unsigned char>> user(w.nprocs);
    for (int r = 0; r < w.nprocs; r++) {
        int64_t size = 0;
        for (const mcio_extent &x : w.ext[r])
            size = std::max(size, x.mem + x.len);
        user[r].assign((size_t)size, 0);
    }
    int64_t total_agg = 0;
    for (int d = 0; d < p.ndomains; d++) {
        SCOPED_TRACE("domain " + std::to_string(d));
        std::vector<int64_t> nlist(w.nprocs);
        std::vector<const mcio_piece *> lists(w.nprocs);
        for (int s = 0; s < w.nprocs; s++) {
            nlist[s] = (int64_t)to[d][s].size();
            lists[s] = to[d][s].data();
        }
        Groups A;
        ASSERT_EQ(mcio_schedule_aggregator(&p, d, w.nprocs, nlist.data(), lists.data(), &A.g),
                  MCIO_SUCCESS);
        const mcio_groups &a = A.g;
        check_groups_shape(a);
        int64_t rank_groups = 0;
        for (int s = 0; s < w.nprocs; s++)
            for (int64_t gi = 0; gi < send[s].g.ngroups; gi++)
                rank_groups += send[s].g.peer[gi] == d;
        EXPECT_EQ(a.ngroups, rank_groups);
        std::vector<mcio_piece> runs((size_t)a.npieces + 1);
        std::vector<unsigned char> cbuf((size_t)p.window[d]);
        for (int64_t g0 = 0; g0 < a.ngroups;) {
            int k = a.round[g0];
            int64_t g1 = g0;
            while (g1 < a.ngroups && a.round[g1] == k)
                g1++;
            int64_t r0 = p.win_start[d] + (int64_t)k * p.window[d];
            /* Runs: sorted, separated, inside the buffer, the union of the round's pieces. */
            std::vector<std::pair<int64_t, int64_t>> iv;
            for (int64_t i = a.first[g0]; i < a.first[g1]; i++)
                iv.emplace_back(a.pieces[i].mem, a.pieces[i].mem + a.pieces[i].len);
            int64_t nruns = mcio_schedule_runs(&a, g0, g1, runs.data());
            std::vector<std::pair<int64_t, int64_t>> got;
            for (int64_t i = 0; i < nruns; i++) {
                got.emplace_back(runs[i].mem, runs[i].mem + runs[i].len);
                EXPECT_EQ(runs[i].off, r0 + runs[i].mem) << "run " << i << " of round " << k;
            }
            EXPECT_EQ(got, interval_union(iv)) << "round " << k;
            /* The simulated read: the aggregator fills the runs from the file ... */
            std::fill(cbuf.begin(), cbuf.end(), 0);
            for (int64_t i = 0; i < nruns; i++) {
                ASSERT_GE(runs[i].mem, 0);
                ASSERT_LE(runs[i].mem + runs[i].len, p.window[d]);
                for (int64_t b = 0; b < runs[i].len; b++)
                    cbuf[(size_t)(runs[i].mem + b)] = file_byte(runs[i].off + b);
            }
            for (int64_t ga = g0; ga < g1; ga++) {
                int s = a.peer[ga];
                ASSERT_GE(s, 0);
                ASSERT_LT(s, w.nprocs);
                /* ... packs each sender's group in its piece order into one message ... */
                std::vector<unsigned char> msg;
                for (int64_t i = a.first[ga]; i < a.first[ga + 1]; i++) {
                    const mcio_piece &pc = a.pieces[i];
                    EXPECT_EQ(pc.mem, pc.off - r0);
                    for (int64_t b = 0; b < pc.len; b++)
                        msg.push_back(cbuf[(size_t)(pc.mem + b)]);
                }
                total_agg += a.bytes[ga];
                /* ... which the rank unpacks through its own group (k, d). */
                const mcio_groups &g = send[s].g;
                int64_t gr = -1;
                for (int64_t gi = 0; gi < g.ngroups; gi++)
                    if (g.round[gi] == k && g.peer[gi] == d)
                        gr = gi;
                ASSERT_GE(gr, 0) << "rank " << s << " has no group for round " << k;
                ASSERT_EQ(g.bytes[gr], a.bytes[ga]) << "rank " << s << " round " << k;
                size_t at = 0;
                for (int64_t i = g.first[gr]; i < g.first[gr + 1]; i++)
                    for (int64_t b = 0; b < g.pieces[i].len; b++)
                        user[s][(size_t)(g.pieces[i].mem + b)] = msg[at++];
            }
            g0 = g1;
        }
    }
    EXPECT_EQ(total_agg, total) << "bytes not conserved between ranks and aggregators";

    /* Every rank got the file's bytes where its extents put them. */
    for (int r = 0; r < w.nprocs; r++)
        for (const mcio_extent &x : w.ext[r]) {
            int64_t bad = 0;
            for (int64_t b = 0; b < x.len; b++)
                bad += user[r][(size_t)(x.mem + b)] != file_byte(x.off + b);
            EXPECT_EQ(bad, 0) << "rank " << r << " extent [" << x.off << ", " << x.off + x.len
                              << ") read wrong bytes";
        }
}

class RandomPlans : public ::testing::TestWithParam<int> {};

/* Each parameter runs 50 seeded worlds; the seed is in every failure message. */
TEST_P(RandomPlans, Consistent)
{
    for (int i = 0; i < 50; i++) {
        World w;
        uint64_t seed = (uint64_t)GetParam() * 1000 + (uint64_t)i;
        make_world(seed, w);
        if (HasFatalFailure())
            return;
        check_world(w);
        if (HasFailure())
            return; /* one world's report is enough */
    }
}

INSTANTIATE_TEST_SUITE_P(Property, RandomPlans, ::testing::Range(1, 9));

} // namespace
