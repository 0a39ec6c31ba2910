/*
 * The memory model and the default strategy (src/core/plan/memmodel.c, issue 17): auto keeps the
 * romio plan bit for bit when it fits the nodes' memory, and plans memory-consciously, within
 * the usable memory, when it does not.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mcio_planner.h"

namespace {

constexpr int64_t MiB = int64_t(1) << 20;

struct Case {
    std::vector<int> node;
    std::vector<mcio_summary> sum;
    std::vector<int64_t> mem;
    mcio_topology topo() const
    {
        return mcio_topology{.nprocs = (int)node.size(), .nnodes = (int)mem.size(),
                             .node_of_rank = node.data(), .socket_of_rank = nullptr,
                             .sockets_per_node = 1, .net = nullptr, .node_mem = mem.data(),
                             .rank_extents = nullptr, .rank_calls = nullptr};
    }
};

/* Four ranks on one node, each 32 MiB interleaved over a 128 MiB file (IOR segments). */
Case ior(int64_t mem)
{
    Case c;
    c.node = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++)
        c.sum.push_back(mcio_summary{r * MiB, 124 * MiB + (r + 1) * MiB, 32 * MiB});
    c.mem = {mem};
    return c;
}

mcio_planner_params params()
{
    mcio_planner_params p{};
    p.buffer_size = 128 * MiB;
    p.cb = MCIO_CB_AUTOMATIC;
    p.nah = 4;
    p.msgind = 32 * MiB;
    p.msggroup = int64_t(1) << 30;
    p.memmin = MiB;
    p.memory_margin = 10;
    return p;
}

bool same(const mcio_fdplan &a, const mcio_fdplan &b)
{
    if (a.ndomains != b.ndomains || a.max_rounds != b.max_rounds || a.max_buffer != b.max_buffer)
        return false;
    for (int d = 0; d < a.ndomains; d++)
        if (a.agg_rank[d] != b.agg_rank[d] || a.fd_start[d] != b.fd_start[d] ||
            a.fd_end[d] != b.fd_end[d] || a.window[d] != b.window[d] || a.rounds[d] != b.rounds[d])
            return false;
    return true;
}

TEST(MemModel, AutoKeepsTheRomioPlanWhenItFits)
{
    Case c = ior(20000 * MiB);
    mcio_topology t = c.topo();
    mcio_fdplan a, r;
    ASSERT_EQ(mcio_planner_auto(&t, c.sum.data(), params(), &a), MCIO_SUCCESS);
    ASSERT_EQ(mcio_planner_make(mcio_planner_find("romio"), &t, c.sum.data(), params(), &r),
              MCIO_SUCCESS);
    EXPECT_TRUE(same(a, r));
    EXPECT_EQ(a.memory_conscious, 0);
    EXPECT_EQ(a.max_buffer, 128 * MiB);
    mcio_fdplan_free(&a);
    mcio_fdplan_free(&r);
}

TEST(MemModel, AutoPlansWithinTheUsableMemoryWhenShort)
{
    for (int64_t mem : {140 * MiB, 100 * MiB, 40 * MiB, 2 * MiB}) {
        Case c = ior(mem);
        mcio_topology t = c.topo();
        mcio_fdplan a;
        ASSERT_EQ(mcio_planner_auto(&t, c.sum.data(), params(), &a), MCIO_SUCCESS) << mem;
        EXPECT_EQ(a.memory_conscious, 1) << mem;
        std::vector<mcio_memmodel_node> m(1);
        ASSERT_EQ(mcio_memmodel(&t, c.sum.data(), &a, nullptr, 0, m.data()), MCIO_SUCCESS);
        /* The whole call, buffers and metadata, within the usable memory (90%), unless the
         * memory strategy's fallback had to take its smallest workable buffer. */
        if (a.fallbacks == 0)
            EXPECT_LE(m[0].peak, mcio_memmodel_usable(mem, params())) << mem;
        else
            EXPECT_LE(a.max_buffer, 64 * 1024) << mem;
        EXPECT_GT(a.max_rounds, 1) << mem; /* more rounds instead of memory */
        mcio_fdplan_free(&a);
    }
}

TEST(MemModel, CountsBuffersSubBuffersAndMetadata)
{
    Case c = ior(20000 * MiB);
    mcio_topology t = c.topo();
    mcio_fdplan r;
    ASSERT_EQ(mcio_planner_make(mcio_planner_find("romio"), &t, c.sum.data(), params(), &r),
              MCIO_SUCCESS);
    std::vector<mcio_memmodel_node> m(1);
    ASSERT_EQ(mcio_memmodel(&t, c.sum.data(), &r, nullptr, 0, m.data()), MCIO_SUCCESS);
    EXPECT_EQ(m[0].buffers, 128 * MiB);
    EXPECT_GT(m[0].metadata, 0);
    EXPECT_EQ(m[0].peak, m[0].metadata + m[0].buffers);
    int slots = 2;
    ASSERT_EQ(mcio_memmodel(&t, c.sum.data(), &r, &slots, 0, m.data()), MCIO_SUCCESS);
    EXPECT_EQ(m[0].buffers, 256 * MiB);
    /* romio_cb_write=disable: no buffers at all. */
    ASSERT_EQ(mcio_memmodel(&t, c.sum.data(), &r, nullptr, 1, m.data()), MCIO_SUCCESS);
    EXPECT_EQ(m[0].buffers, 0);
    /* Metadata grows with the extents. */
    std::vector<int64_t> ext = {1, 1, 1, 1}, many = {4096, 4096, 4096, 4096};
    t.rank_extents = ext.data();
    ASSERT_EQ(mcio_memmodel(&t, c.sum.data(), &r, nullptr, 0, m.data()), MCIO_SUCCESS);
    int64_t few = m[0].metadata;
    t.rank_extents = many.data();
    ASSERT_EQ(mcio_memmodel(&t, c.sum.data(), &r, nullptr, 0, m.data()), MCIO_SUCCESS);
    EXPECT_GT(m[0].metadata, few + 4 * 4095 * (int64_t)sizeof(mcio_piece));
    /* Own access packs pieces that meet in the file: a packing buffer per rank that does. */
    std::vector<int64_t> calls = {1, 4096, 2, 4096};
    t.rank_calls = calls.data();
    ASSERT_EQ(mcio_memmodel(&t, c.sum.data(), &r, nullptr, 1, m.data()), MCIO_SUCCESS);
    EXPECT_EQ(m[0].buffers, 2 * MCIO_OWN_PACK);
    mcio_fdplan_free(&r);
}

TEST(MemModel, UsableLeavesTheMargin)
{
    mcio_planner_params p = params();
    EXPECT_EQ(mcio_memmodel_usable(1000, p), 900);
    EXPECT_EQ(mcio_memmodel_usable(INT64_MAX, p), INT64_MAX);
    p.memory_margin = 0;
    EXPECT_EQ(mcio_memmodel_usable(1000, p), 1000);
}

} // namespace
