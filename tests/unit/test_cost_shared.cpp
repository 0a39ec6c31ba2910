/*
 * The cost model's decision prices its candidates with what they share built once (issue 50:
 * the request map, the merged spans, the ranks per node; each rank's windows counted in one
 * pass rather than the ranks searched per window). Here, on the oracle's cases (its ten
 * workloads, writes and reads, tools/mcio-oracle.py and tests/tools/plan_vs_library.py; its
 * three pinned tables and the defaults; one node and several), the decision must price every
 * candidate as exhaustive pricing does (each candidate planned and walked on its own,
 * mcio_cost_predict) and take the choice that pricing gives; and the messages the walk counts
 * per domain in one pass over the ranks must be those of every window searched over every
 * rank.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "costmodel_internal.h" /* mcio_cost_prep, mcio_cost_domain_messages */
}
#include "mcio_costmodel.h"
#include "mcio_hints.h"
#include "mcio_planner.h"
#include "patterns.h"

namespace {

constexpr int64_t KiB = 1024, MiB = int64_t(1) << 20;

const char *const kPatterns[] = {"contiguous", "ior",    "coll_perf",   "hacc-aos", "hacc-soa",
                                 "random",     "tapioca", "mpi-io-test", "gcrm",     "flash-io"};

/* plan_vs_library.py's tables: call, byte alone, byte at once, message, message byte. */
struct Figures {
    double call, b1, bn, msg, mb;
};
const Figures kTables[] = {{2e-6, 5e-10, 5e-10, 2e-5, 5e-10},
                           {1e-3, 1e-9, 8e-9, 2e-5, 1e-10},
                           {1e-4, 1e-9, 8e-9, 2e-5, 1e-9}};

mcio_cost_table pinned(const Figures &f)
{
    mcio_cost_table t{};
    for (int op = 0; op < 2; op++) {
        t.call[op][0] = t.call[op][1] = f.call;
        t.byte[op][0] = f.b1;
        t.byte[op][1] = f.bn;
    }
    t.conc = 8;
    t.msg = f.msg;
    t.msg_byte = f.mb;
    t.coll = 1e-5;
    t.copy_byte = t.copy_cold = 1e-10;
    t.overlap = 1;
    t.calibrated = 1;
    return t;
}

void count_extent(void *ctx, int64_t, int64_t, int64_t)
{
    ++*static_cast<int64_t *>(ctx);
}

/* One oracle case: a pattern's summaries and extents on nprocs ranks, per_node a node. */
struct Case {
    std::vector<int> node;
    std::vector<mcio_summary> sum;
    std::vector<int64_t> ext;
    mcio_topology topo{};
    mcio_cost_table cost{};
    mcio_cost_inputs in{};

    Case(const char *name, int nprocs, int per_node, int64_t size, const mcio_cost_table &t,
         int write)
        : node(nprocs), sum(nprocs), ext(nprocs), cost(t)
    {
        const pattern *p = patterns_find(name);
        EXPECT_NE(p, nullptr) << name;
        pattern_args a{};
        a.size = size;
        a.transfer = size < 64 * KiB ? size : 64 * KiB;
        a.random_max = 2 * size;
        a.seed = 1;
        patterns_grid(nprocs, a.dims);
        EXPECT_EQ(patterns_summaries(p, &a, nprocs, sum.data()), 0) << name;
        for (int r = 0; r < nprocs; r++) {
            node[r] = r / per_node;
            EXPECT_EQ(p->extents(&a, r, nprocs, count_extent, &ext[r]), 0) << name;
        }
        topo.nprocs = nprocs;
        topo.nnodes = (nprocs + per_node - 1) / per_node;
        topo.node_of_rank = node.data();
        topo.sockets_per_node = 1;
        topo.rank_extents = ext.data();
        mcio_hints h = mcio_hints_default();
        in.topo = &topo;
        in.sum = sum.data();
        in.write = write;
        in.params = mcio_hints_planner_params(&h, write);
        in.depth = 1;
        in.subbuffer = MiB;
        in.unit = 4096;
        in.cost = &cost;
    }
};

/* The exhaustive choice among separately priced candidates, by the rule mcio_cost_decide
 * documents: the fastest that fits (the first on a tie); independent access where it fits and
 * the fastest aggregated one is predicted less than the margin faster. */
int exhaustive_choice(const std::vector<mcio_cost_config> &c, double margin)
{
    int best = 0;
    for (int i = 1; i < (int)c.size(); i++)
        if (c[i].fits != c[best].fits ? c[i].fits > c[best].fits : c[i].seconds < c[best].seconds)
            best = i;
    if (!c[best].independent && c[best].fits && c[0].independent && c[0].fits &&
        c[0].seconds < c[best].seconds * margin)
        best = 0;
    return best;
}

void same_as_exhaustive(Case &k, const std::string &what)
{
    SCOPED_TRACE(what);
    enum { CAP = 64 };
    mcio_cost_config seen[CAP];
    mcio_cost_choice got;
    ASSERT_EQ(mcio_cost_decide_seen(&k.in, &got, seen, CAP), MCIO_SUCCESS);
    ASSERT_GE(got.candidates, 10); /* independent and nine romio configurations at least */
    ASSERT_LE(got.candidates, CAP);
    std::vector<mcio_cost_config> alone;
    for (int i = 0; i < got.candidates; i++) {
        mcio_cost_config c = seen[i];
        c.seconds = -1;
        c.fits = 0;
        ASSERT_EQ(mcio_cost_predict(&k.in, &c), MCIO_SUCCESS);
        EXPECT_EQ(c.fits, seen[i].fits) << "candidate " << i;
        EXPECT_NEAR(c.seconds, seen[i].seconds, 1e-12 * std::fabs(c.seconds)) << "candidate " << i;
        alone.push_back(c);
    }
    double margin = k.cost.cores > 0 && !k.cost.remote ? 1.3 : 1.0;
    const mcio_cost_config &want = alone[exhaustive_choice(alone, margin)];
    EXPECT_EQ(got.best.independent, want.independent);
    EXPECT_EQ(got.best.strategy, want.strategy);
    EXPECT_EQ(got.best.aggs_per_node, want.aggs_per_node);
    EXPECT_EQ(got.best.buffer, want.buffer);
    EXPECT_EQ(got.best.depth, want.depth);
    EXPECT_EQ(got.best.seconds, want.seconds);
}

/* The oracle's cases: 8 ranks on one node, 256 KiB each, the three pinned tables. */
TEST(CostShared, OracleCasesPinnedTables)
{
    for (const char *pat : kPatterns)
        for (int write = 0; write <= 1; write++)
            for (int t = 0; t < 3; t++) {
                Case k(pat, 8, 8, 256 * KiB, pinned(kTables[t]), write);
                same_as_exhaustive(k, std::string(pat) + (write ? " write" : " read") +
                                          " table " + std::to_string(t));
            }
}

/* The same workloads on several nodes, with the defaults of both kinds of file system, the
 * node's cores and cache known (the CPU bounds, cold buffers) or not. */
TEST(CostShared, OracleWorkloadsOnNodes)
{
    struct Shape {
        int nprocs, per_node;
        int64_t size;
    } shapes[] = {{64, 8, MiB}, {96, 32, 256 * KiB}, {33, 5, 100 * KiB}};
    for (const Shape &s : shapes)
        for (const char *pat : kPatterns)
            for (int write = 0; write <= 1; write++)
                for (int remote = 0; remote <= 1; remote++)
                    for (int cores = 0; cores <= 4; cores += 4) {
                        mcio_cost_table t = mcio_cost_defaults(remote);
                        t.remote = remote;
                        t.cores = cores;
                        t.cache = cores ? 32 * MiB : 0;
                        t.caches = 1;
                        Case k(pat, s.nprocs, s.per_node, s.size, t, write);
                        same_as_exhaustive(k, std::string(pat) + " " +
                                                  std::to_string(s.nprocs) + " ranks" +
                                                  (write ? " write" : " read") +
                                                  (remote ? " remote" : " local") +
                                                  " cores " + std::to_string(cores));
                    }
}

/* Each domain's messages by brute force: every window of it against every rank with data, but
 * the windows its aggregator's own span meets. */
std::vector<double> messages_brute(const Case &k, const mcio_fdplan &fd)
{
    std::vector<double> msgs(fd.ndomains, 0.0);
    for (int d = 0; d < fd.ndomains; d++)
        for (int64_t w = 0; w < fd.rounds[d]; w++) {
            int64_t a = fd.win_start[d] + w * fd.window[d];
            int64_t b = std::min(a + fd.window[d], fd.win_end[d]);
            for (int r = 0; r < k.topo.nprocs; r++) {
                const mcio_summary &s = k.sum[r];
                if (s.bytes > 0 && s.start < b && s.end > a)
                    msgs[d] += r == fd.agg_rank[d] ? 0 : 1;
            }
        }
    return msgs;
}

TEST(CostShared, MessagesOfOnePassAreThoseOfEveryWindow)
{
    struct Shape {
        int nprocs, per_node;
    } shapes[] = {{8, 8}, {33, 5}, {64, 8}};
    for (const Shape &s : shapes)
        for (const char *pat : kPatterns) {
            Case k(pat, s.nprocs, s.per_node, 256 * KiB, pinned(kTables[1]), 1);
            mcio_cost_prep prep;
            ASSERT_EQ(mcio_cost_prep_build(&k.in, &prep), MCIO_SUCCESS);
            for (int aggs : {1, 2, 4})
                for (int64_t buffer : {16 * MiB, 64 * KiB, 4 * KiB})
                    for (int depth : {1, 2}) {
                        SCOPED_TRACE(std::string(pat) + " " + std::to_string(s.nprocs) +
                                     " ranks, " + std::to_string(aggs) + "/node, buffer " +
                                     std::to_string(buffer) + ", depth " +
                                     std::to_string(depth));
                        mcio_cost_config c{};
                        c.strategy = MCIO_STRATEGY_ROMIO;
                        c.aggs_per_node = aggs;
                        c.buffer = buffer;
                        c.depth = depth;
                        mcio_fdplan fd{};
                        ASSERT_EQ(mcio_cost_plan(&k.in, &c, &fd), MCIO_SUCCESS);
                        std::vector<int> slots(fd.ndomains + 1);
                        if (depth > 1) {
                            ASSERT_EQ(mcio_fdplan_subdivide(&fd, k.in.subbuffer, depth,
                                                            k.in.unit, slots.data()),
                                      MCIO_SUCCESS);
                        }
                        std::vector<double> got(fd.ndomains, 0.0);
                        ASSERT_EQ(mcio_cost_domain_messages(&k.in, &prep, &fd, got.data()),
                                  MCIO_SUCCESS);
                        EXPECT_EQ(got, messages_brute(k, fd));
                        mcio_fdplan_free(&fd);
                    }
            mcio_cost_prep_free(&prep);
        }
}

} // namespace
