/*
 * The benchmark patterns shared by mcio-bench and mcio-plan (tools/patterns.c): the closed-form
 * summaries mcio-plan plans from must be exactly the summaries of the extents mcio-bench
 * writes, for every pattern that has them, over rank counts that make odd grids and sizes that
 * leave remainders; and every pattern's extents are in increasing, non-overlapping order.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "patterns.h"

namespace {

struct rank_extents {
    std::vector<int64_t> off, len;
};

void collect(void *ctx, int64_t off, int64_t len, int64_t mem)
{
    (void)mem;
    auto *r = static_cast<rank_extents *>(ctx);
    if (len <= 0)
        return;
    r->off.push_back(off);
    r->len.push_back(len);
}

mcio_summary summary_of(const rank_extents &r)
{
    mcio_summary s = {0, 0, 0};
    for (size_t i = 0; i < r.off.size(); i++) {
        if (s.bytes == 0)
            s.start = r.off[i];
        s.end = r.off[i] + r.len[i];
        s.bytes += r.len[i];
    }
    return s;
}

pattern_args args_for(int nprocs, int64_t size)
{
    pattern_args a = {};
    a.size = size;
    a.transfer = size < 4096 ? size : 4096;
    a.random_max = 3 * size;
    a.seed = 7;
    patterns_grid(nprocs, a.dims);
    return a;
}

TEST(Patterns, ClosedFormSummariesMatchTheExtents)
{
    int checked = 0;
    for (int k = 0; k < npatterns; k++) {
        const pattern *p = &patterns[k];
        if (!p->summaries)
            continue;
        for (int nprocs : {1, 2, 5, 6, 12, 27}) {
            for (int64_t size : {int64_t(4096), int64_t(40000), int64_t(1) << 20}) {
                pattern_args a = args_for(nprocs, size);
                std::vector<mcio_summary> closed(nprocs);
                ASSERT_EQ(p->summaries(&a, nprocs, closed.data()), 0);
                for (int r = 0; r < nprocs; r++) {
                    rank_extents ext;
                    ASSERT_EQ(p->extents(&a, r, nprocs, collect, &ext), 0);
                    mcio_summary want = summary_of(ext);
                    EXPECT_EQ(closed[r].start, want.start) << p->name << " n=" << nprocs
                                                           << " size=" << size << " rank " << r;
                    EXPECT_EQ(closed[r].end, want.end) << p->name << " rank " << r;
                    EXPECT_EQ(closed[r].bytes, want.bytes) << p->name << " rank " << r;
                    checked++;
                }
            }
        }
    }
    EXPECT_GT(checked, 6 * 100); /* the six closed forms (and mpi-io-test), every rank */
}

TEST(Patterns, ExtentsIncreaseAndDoNotOverlapAcrossRanks)
{
    for (int k = 0; k < npatterns; k++) {
        const pattern *p = &patterns[k];
        const int nprocs = 6;
        pattern_args a = args_for(nprocs, int64_t(1) << 20);
        std::vector<std::pair<int64_t, int64_t>> all;
        for (int r = 0; r < nprocs; r++) {
            rank_extents ext;
            ASSERT_EQ(p->extents(&a, r, nprocs, collect, &ext), 0);
            for (size_t i = 1; i < ext.off.size(); i++)
                EXPECT_GE(ext.off[i], ext.off[i - 1] + ext.len[i - 1]) << p->name << " rank " << r;
            for (size_t i = 0; i < ext.off.size(); i++)
                all.emplace_back(ext.off[i], ext.len[i]);
        }
        std::sort(all.begin(), all.end());
        ASSERT_FALSE(all.empty()) << p->name;
        for (size_t i = 1; i < all.size(); i++)
            EXPECT_GE(all[i].first, all[i - 1].first + all[i - 1].second) << p->name;
    }
}

TEST(Patterns, DerivedSummariesForPatternsWithoutAClosedForm)
{
    const pattern *p = patterns_find("tapioca");
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(p->summaries, nullptr);
    pattern_args a = args_for(4, 1000);
    std::vector<mcio_summary> s(4);
    ASSERT_EQ(patterns_summaries(p, &a, 4, s.data()), 0);
    for (int r = 1; r < 4; r++) { /* the blocks one after another in rank order */
        if (s[r].bytes && s[r - 1].bytes) {
            EXPECT_EQ(s[r].start, s[r - 1].end);
        }
    }
    EXPECT_EQ(patterns_find("no-such-pattern"), nullptr);
}

TEST(Patterns, GridIsBalancedAndNonIncreasing)
{
    int d[3];
    patterns_grid(12, d);
    EXPECT_EQ(d[0] * d[1] * d[2], 12);
    EXPECT_EQ(d[0], 3);
    EXPECT_EQ(d[1], 2);
    EXPECT_EQ(d[2], 2);
    patterns_grid(27, d);
    EXPECT_EQ(d[0], 3);
    EXPECT_EQ(d[1], 3);
    EXPECT_EQ(d[2], 3);
    patterns_grid(7, d);
    EXPECT_EQ(d[0], 7);
    EXPECT_EQ(d[1], 1);
    EXPECT_EQ(d[2], 1);
}

} // namespace
