/*
 * Sub-buffers of the pipelined executors (src/core/plan/pipeline.c, mcio_fdplan_subdivide): exact
 * sub-buffer sizes, rounds and sub-buffers in flight for hand-computed cases, and, through the
 * romio planner and the schedule, that sub-buffers fall on stripe multiples and that no piece
 * crosses one. The hint keys of the pipeline are in test_hints.cpp.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "plan_test_util.h"

namespace {

using mcio_test::Groups;
using mcio_test::Plan;

/* One domain with data [win_start, win_end) and a collective buffer of window bytes. */
void one_domain(Plan &pl, int64_t win_start, int64_t win_end, int64_t window)
{
    ASSERT_EQ(mcio_fdplan_alloc(&pl.p, 1), MCIO_SUCCESS);
    pl.p.agg_rank[0] = 0;
    pl.p.fd_start[0] = pl.p.win_start[0] = win_start;
    pl.p.fd_end[0] = pl.p.win_end[0] = win_end;
    pl.p.window[0] = window;
    int64_t span = win_end - win_start;
    pl.p.rounds[0] = span > 0 ? (int)((span + window - 1) / window) : 0;
    pl.p.max_rounds = pl.p.rounds[0];
    pl.p.max_buffer = span < window ? span : window;
}

struct Case {
    const char *name;
    int64_t win_start, win_end, window, subbuf;
    int depth;
    int64_t unit;
    /* expected */
    int64_t sub;
    int rounds, slots;
    int64_t max_buffer;
};

void PrintTo(const Case &c, std::ostream *os)
{
    *os << c.name;
}

const Case cases[] = {
    /* 4 KiB buffer, 1 KiB sub-buffers asked, two in flight: 10 rounds of 1 KiB. */
    {"AsAsked", 0, 10000, 4096, 1024, 2, 512, 1024, 10, 2, 2048},
    /* 1 MiB asked but four must fit in 4 KiB: 1 KiB each. */
    {"BudgetCaps", 0, 10000, 4096, 1 << 20, 4, 512, 1024, 10, 4, 4096},
    /* The budget share (384) is below a stripe: one stripe each, as many as fit (3 of 4). */
    {"WholeStripeAtLeast", 0, 10000, 1536, 100, 4, 512, 512, 20, 3, 1536},
    /* Rounded down to whole stripes: 1500 asked, 1024 given. */
    {"RoundedToStripes", 0, 10000, 1 << 20, 1500, 2, 512, 1024, 10, 2, 2048},
    /* A buffer smaller than one block: the whole buffer, one in flight. */
    {"BufferBelowUnit", 0, 1000, 300, 1 << 20, 2, 4096, 300, 4, 1, 300},
    /* Fewer rounds than the depth: only the rounds are in flight. */
    {"FewRounds", 100, 1600, 8192, 1024, 16, 1, 512, 3, 3, 1536},
    /* Less data than one sub-buffer: one round, the buffer held is the data. */
    {"SmallData", 4096, 4196, 1 << 20, 65536, 4, 4096, 65536, 1, 1, 100},
    /* Depth 1 keeps one sub-buffer of at most the buffer. */
    {"DepthOne", 0, 9000, 4096, 1024, 1, 1024, 1024, 9, 1, 1024},
};

class Subdivide : public ::testing::TestWithParam<Case> {};

TEST_P(Subdivide, SizesRoundsSlots)
{
    const Case &c = GetParam();
    Plan pl;
    one_domain(pl, c.win_start, c.win_end, c.window);
    int slots = -1;
    ASSERT_EQ(mcio_fdplan_subdivide(&pl.p, c.subbuf, c.depth, c.unit, &slots), MCIO_SUCCESS);
    EXPECT_EQ(pl.p.window[0], c.sub);
    EXPECT_EQ(pl.p.rounds[0], c.rounds);
    EXPECT_EQ(pl.p.max_rounds, c.rounds);
    EXPECT_EQ(slots, c.slots);
    EXPECT_EQ(pl.p.max_buffer, c.max_buffer);
    EXPECT_LE(pl.p.max_buffer, c.window) << "more memory than the collective buffer";
    EXPECT_EQ(pl.p.win_start[0], c.win_start);
    EXPECT_EQ(pl.p.win_end[0], c.win_end);
}

INSTANTIATE_TEST_SUITE_P(Pipeline, Subdivide, ::testing::ValuesIn(cases),
                         [](const ::testing::TestParamInfo<Case> &i) {
                             return std::string(i.param.name);
                         });

/* The alignment unit: the stripe; a pipeline without one aligns on the file-system block. */
TEST(Pipeline, UnitIsTheStripeOrThePipelinesBlock)
{
    EXPECT_EQ(mcio_pipeline_unit(1, 0, 4096), 0);           /* classic: no alignment */
    EXPECT_EQ(mcio_pipeline_unit(1, 1 << 20, 4096), 1 << 20);
    EXPECT_EQ(mcio_pipeline_unit(2, 0, 4096), 4096);        /* TAPIOCA: whole blocks */
    EXPECT_EQ(mcio_pipeline_unit(4, 65536, 4096), 65536);   /* the stripe wins */
}

/* The sub-buffer: the hint; else the stripe; else the least block multiple of 1 MiB or more. */
TEST(Pipeline, SubBufferDefaults)
{
    EXPECT_EQ(mcio_pipeline_subbuffer(300000, 65536, 65536), 300000);
    EXPECT_EQ(mcio_pipeline_subbuffer(0, 65536, 65536), 65536);        /* Sehrish et al. */
    EXPECT_EQ(mcio_pipeline_subbuffer(0, 0, 4096), 1 << 20);           /* TAPIOCA */
    EXPECT_EQ(mcio_pipeline_subbuffer(0, 0, 1000000), 2000000);        /* a multiple of it */
    EXPECT_EQ(mcio_pipeline_subbuffer(0, 0, 3 << 20), 3 << 20);
}

TEST(Pipeline, EmptyDomainKeepsNoRounds)
{
    Plan pl;
    one_domain(pl, 500, 500, 4096);
    int slots = -1;
    ASSERT_EQ(mcio_fdplan_subdivide(&pl.p, 1024, 4, 512, &slots), MCIO_SUCCESS);
    EXPECT_EQ(pl.p.rounds[0], 0);
    EXPECT_EQ(pl.p.max_rounds, 0);
    EXPECT_EQ(pl.p.max_buffer, 0);
    EXPECT_EQ(slots, 1);
}

TEST(Pipeline, TooManyRoundsIsAnError)
{
    Plan pl;
    one_domain(pl, 0, INT64_MAX / 2, (int64_t)1 << 40); /* 2^22 rounds of the buffer */
    int slots = 0;
    EXPECT_EQ(mcio_fdplan_subdivide(&pl.p, 1, 2, 1, &slots), MCIO_ERR_ARG);
}

/*
 * Through the romio planner with a stripe: every domain boundary and every sub-buffer starts
 * on a stripe multiple, and the rank schedule cuts no piece across a sub-buffer.
 */
TEST(Pipeline, SubBuffersOnStripesAndPiecesInside)
{
    const int n = 5;
    const int64_t stripe = 4096;
    std::vector<mcio_summary> sum;
    for (int r = 0; r < n; r++) /* each rank a block of 100000 bytes, after a 300-byte header */
        sum.push_back({300 + r * 100000, 300 + (r + 1) * 100000, 100000});
    std::vector<int> node(n, 0);
    mcio_planner_params params{};
    params.buffer_size = 50000;
    params.cb_nodes = 3;
    params.stripe = stripe;
    Plan pl;
    ASSERT_EQ(mcio_planner_romio(n, sum.data(), node.data(), 1, params, &pl.p), MCIO_SUCCESS);
    std::vector<int> slots(pl.p.ndomains);
    ASSERT_EQ(mcio_fdplan_subdivide(&pl.p, 8192, 4, stripe, slots.data()), MCIO_SUCCESS);
    for (int d = 0; d < pl.p.ndomains; d++) {
        if (d > 0) {
            EXPECT_EQ(pl.p.fd_start[d] % stripe, 0) << "domain " << d;
        }
        EXPECT_EQ(pl.p.window[d] % stripe, 0) << "domain " << d;
        EXPECT_EQ(pl.p.window[d], 8192) << "domain " << d; /* 49152 / 4 = 12288 > 8192 */
        EXPECT_EQ(slots[d], 4) << "domain " << d;
        if (d > 0 || pl.p.win_start[d] >= stripe) {
            EXPECT_EQ(pl.p.win_start[d] % stripe, 0) << "domain " << d;
        }
    }
    mcio_extent ext = {300 + 2 * 100000, 100000, 0}; /* rank 2's block */
    Groups g;
    ASSERT_EQ(mcio_schedule_rank(&pl.p, &ext, 1, &g.g), MCIO_SUCCESS);
    int64_t bytes = 0;
    for (int64_t i = 0; i < g.g.npieces; i++) {
        const mcio_piece &pc = g.g.pieces[i];
        int d = mcio_fdplan_find(&pl.p, pc.off);
        ASSERT_GE(d, 0);
        int64_t k = (pc.off - pl.p.win_start[d]) / pl.p.window[d];
        int64_t lo = pl.p.win_start[d] + k * pl.p.window[d];
        EXPECT_LE(pc.off + pc.len, lo + pl.p.window[d]) << "piece crosses a sub-buffer";
        bytes += pc.len;
    }
    EXPECT_EQ(bytes, 100000);
}

} // namespace
