/*
 * The network model's parsers (mcio_network_parse) and distances, from file texts.
 * Definitions (mcio_network.h, docs/topology.md):
 *   grid     hops summed over dimensions: torus min(|dx|, size - |dx|), mesh |dx|, all (dx != 0);
 *            without node lines, node k sits at the k-th position in row-major order
 *   tree     hops(a, b) = 1 + max(levels a climbs, levels b climbs) to their lowest common switch
 *   matrix   the table as written
 *   d(A, IO) = 1 + hops from A to the bridge of its nearest I/O node (lowest index on ties);
 *            1 everywhere without io lines; for a tree without io, the bridge is the root switch
 * Every malformed file gives "<file>:<line>: <problem>" (or "<file>: <problem>" for the whole
 * file), worked out by hand below.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mcio_network.h"

namespace {

struct Net {
    mcio_network n = mcio_network_flat();
    std::string detail;
    int st = 0;
    explicit Net(const char *text)
    {
        char d[MCIO_DETAIL_LEN];
        st = mcio_network_parse(text, "t.conf", &n, d);
        detail = st ? d : "";
    }
    ~Net() { mcio_network_free(&n); }
    int hops(int a, int b) const { return mcio_network_hops(&n, a, b); }
    int io(int a) const { return mcio_network_io_hops(&n, a); }
};

TEST(Network, FlatDefault)
{
    mcio_network n = mcio_network_flat();
    EXPECT_EQ(mcio_network_hops(&n, 3, 3), 0);
    EXPECT_EQ(mcio_network_hops(&n, 0, 7), 1);
    EXPECT_EQ(mcio_network_io_hops(&n, 5), 1);
    EXPECT_EQ(n.latency, 1e-6);
    EXPECT_EQ(n.bandwidth, 1e9);
    mcio_network_free(&n);
}

TEST(Network, GridTorusRowMajor)
{
    Net t("# 4 x 4 torus\ngrid 4:torus 4\nio 0 0\nlatency 2e-6\nbandwidth 5e9\n");
    ASSERT_EQ(t.st, 0) << t.detail;
    EXPECT_EQ(t.n.kind, MCIO_NET_GRID);
    EXPECT_EQ(t.n.nnodes, 16);
    EXPECT_EQ(t.n.latency, 2e-6);
    EXPECT_EQ(t.n.bandwidth, 5e9);
    EXPECT_EQ(t.hops(0, 15), 2);  /* (0,0)-(3,3): one wrap step each way */
    EXPECT_EQ(t.hops(1, 14), 2);  /* (0,1)-(3,2): x 1 round the wrap, y 1 */
    EXPECT_EQ(t.hops(5, 10), 2);  /* (1,1)-(2,2) */
    EXPECT_EQ(t.hops(4, 12), 2);  /* (1,0)-(3,0): 2 either way round */
    EXPECT_EQ(t.io(0), 1);
    EXPECT_EQ(t.io(15), 3);
    EXPECT_EQ(t.io(10), 5);       /* (2,2): 2 + 2 + 1 */
}

TEST(Network, GridMeshAndAll)
{
    Net m("grid 4:mesh 4:mesh\n");
    ASSERT_EQ(m.st, 0) << m.detail;
    EXPECT_EQ(m.hops(0, 15), 6);
    EXPECT_EQ(m.io(15), 1); /* no io line: one hop from everywhere */
    /* Dragonfly-like: 3 groups all-to-all, 4 routers per group on a line. */
    Net d("grid 3:all 4:mesh\nio 0 0\n");
    ASSERT_EQ(d.st, 0) << d.detail;
    EXPECT_EQ(d.n.nnodes, 12);
    EXPECT_EQ(d.hops(0, 11), 1 + 3); /* (0,0)-(2,3) */
    EXPECT_EQ(d.hops(4, 8), 1);      /* (1,0)-(2,0) */
    EXPECT_EQ(d.io(9), 1 + 1 + 1);   /* (2,1) */
}

TEST(Network, GridNodeLinesAndNearestIo)
{
    Net t("grid 8:mesh\nnode 7\nnode 0\nnode 3\nio 1\nio 6\n");
    ASSERT_EQ(t.st, 0) << t.detail;
    EXPECT_EQ(t.n.nnodes, 3);
    EXPECT_EQ(t.hops(0, 1), 7);
    EXPECT_EQ(t.hops(2, 0), 4);
    EXPECT_EQ(t.io(0), 2); /* position 7: io 6 at 1 hop */
    EXPECT_EQ(mcio_network_io_of(&t.n, 0), 1);
    EXPECT_EQ(t.io(1), 2); /* position 0: io 1 */
    EXPECT_EQ(mcio_network_io_of(&t.n, 1), 0);
    EXPECT_EQ(t.io(2), 3); /* position 3: io 1 at 2, io 6 at 3 */
    EXPECT_EQ(mcio_network_io_of(&t.n, 2), 0);
}

TEST(Network, GridIoTieGoesToLowerIndex)
{
    Net t("grid 5:mesh\nio 4\nio 0\n");
    ASSERT_EQ(t.st, 0) << t.detail;
    EXPECT_EQ(t.io(2), 3);
    EXPECT_EQ(mcio_network_io_of(&t.n, 2), 0);
}

TEST(Network, Matrix)
{
    Net t("matrix 3\n0 1 4\n1 0 2   # comments anywhere\n4 2 0\nio 2\n");
    ASSERT_EQ(t.st, 0) << t.detail;
    EXPECT_EQ(t.n.kind, MCIO_NET_MATRIX);
    EXPECT_EQ(t.hops(0, 2), 4);
    EXPECT_EQ(t.hops(2, 1), 2);
    EXPECT_EQ(t.io(0), 5);
    EXPECT_EQ(t.io(1), 3);
    EXPECT_EQ(t.io(2), 1);
}

const char *slurm_tree = "# Slurm topology.conf\n"
                         "SwitchName=s0 Nodes=tux[0-3] LinkSpeed=100\n"
                         "SwitchName=s1 Nodes=tux[4-7]\n"
                         "switchname=s2 switches=s[0-1]\n"
                         "SwitchName=s3 Nodes=tux[8-9]\n"
                         "SwitchName=root Switches=s2,s3\n";

TEST(Network, SlurmTreeIoAtRoot)
{
    Net t(slurm_tree);
    ASSERT_EQ(t.st, 0) << t.detail;
    EXPECT_EQ(t.n.kind, MCIO_NET_TREE);
    EXPECT_EQ(t.n.nnodes, 10);
    EXPECT_EQ(t.hops(0, 1), 1); /* one switch */
    EXPECT_EQ(t.hops(0, 4), 2); /* s0, s1 under s2 */
    EXPECT_EQ(t.hops(0, 8), 3); /* s0 -> s2 -> root (2 up), s3 -> root (1 up) */
    EXPECT_EQ(t.hops(9, 8), 1);
    EXPECT_EQ(t.io(0), 4);      /* levels s0..root = 3, plus the link */
    EXPECT_EQ(t.io(8), 3);
}

TEST(Network, SlurmTreeIoAtNodeAndSwitch)
{
    std::string text = std::string("#mcio io=tux4 latency=3e-6\n") + slurm_tree;
    Net t(text.c_str());
    ASSERT_EQ(t.st, 0) << t.detail;
    EXPECT_EQ(t.n.latency, 3e-6);
    EXPECT_EQ(t.io(0), 3);
    EXPECT_EQ(t.io(4), 1);
    EXPECT_EQ(t.io(8), 4);
    std::string text2 = std::string(slurm_tree) + "#mcio io=s3,tux0\n";
    Net u(text2.c_str());
    ASSERT_EQ(u.st, 0) << u.detail;
    EXPECT_EQ(u.io(8), 2); /* bridge s3: its own switch, one level, plus the link */
    EXPECT_EQ(mcio_network_io_of(&u.n, 8), 0);
    EXPECT_EQ(u.io(1), 2); /* tux0 is one switch away */
    EXPECT_EQ(mcio_network_io_of(&u.n, 1), 1);
    EXPECT_EQ(u.io(0), 1);
    EXPECT_EQ(u.io(5), 3); /* tux0 via s2: 2 levels; s3 via root: 3 */
}

TEST(Network, SlurmHostlistPaddingAndOrder)
{
    Net t("SwitchName=top Switches=a,b\nSwitchName=b Nodes=n[08-10],x\nSwitchName=a Nodes=n07\n");
    ASSERT_EQ(t.st, 0) << t.detail;
    EXPECT_EQ(t.n.nnodes, 5); /* n08 n09 n10 x n07, in order of appearance */
    EXPECT_EQ(t.hops(0, 3), 1);
    EXPECT_EQ(t.hops(3, 4), 2);
}

struct BadCase {
    const char *name;
    const char *text;
    const char *detail;
};

void PrintTo(const BadCase &c, std::ostream *os)
{
    *os << c.name;
}

const BadCase bad_cases[] = {
    {"Empty", "# nothing\n\n", "t.conf: empty topology file"},
    {"UnknownFormat", "torus 4 4\n",
     "t.conf:1: 'torus': a topology file starts with 'grid', 'matrix' or Slurm's SwitchName= "
     "lines"},
    {"GridDimKind", "grid 4:ring\n", "t.conf:1: dimension 1: 'ring' is not torus, mesh or all"},
    {"GridDimSize", "grid 4 0\n", "t.conf:1: dimension 2: '0' is not a size from 1 to 1048576"},
    {"GridNoDims", "grid\n", "t.conf:1: grid needs 1 to 8 dimensions"},
    {"GridTooBig", "grid 1024 1024 2\n", "t.conf:1: more than 1048576 positions"},
    {"GridIoOutside", "grid 4 4\nio 0 4\n", "t.conf:2: io: coordinate 2 '4' is not in [0, 4)"},
    {"GridNodeArity", "grid 2 2\n\nnode 0\n", "t.conf:3: node needs 2 coordinates, found 1"},
    {"GridUnknownDirective", "grid 2\nfoo 1\n", "t.conf:2: unknown directive 'foo'"},
    {"BadLatency", "grid 2\nlatency -1\n", "t.conf:2: latency '-1' is not a positive number"},
    {"BadBandwidth", "matrix 1\n0\nbandwidth fast\n",
     "t.conf:3: bandwidth 'fast' is not a positive number"},
    {"MatrixHeader", "matrix x\n", "t.conf:1: expected 'matrix <nodes>' with 1 to 4096 nodes"},
    {"MatrixAsymmetric", "matrix 2\n0 1\n2 0\n",
     "t.conf:3: row 1, column 0: 2 hops, but row 0 says 1"},
    {"MatrixDiagonal", "matrix 2\n1 0\n",
     "t.conf:2: row 0, column 0: 1 hops (a node is 0 hops from itself only)"},
    {"MatrixZeroOffDiagonal", "matrix 2\n0 0\n",
     "t.conf:2: row 0, column 1: 0 hops (a node is 0 hops from itself only)"},
    {"MatrixShortRow", "matrix 3\n0 1\n", "t.conf:2: row 0 has 2 distances, expected 3"},
    {"MatrixMissingRows", "matrix 2\n0 1\n", "t.conf: 1 rows of distances, expected 2"},
    {"MatrixExtraRow", "matrix 1\n0\n0\n", "t.conf:3: more than 1 rows"},
    {"MatrixBadHop", "matrix 2\n0 -1\n", "t.conf:2: '-1' is not a hop count"},
    {"MatrixIo", "matrix 2\n0 1\n1 0\nio 2\n",
     "t.conf:4: expected 'io <node>' with a node in [0, 2)"},
    {"SlurmNodeTwice", "SwitchName=s0 Nodes=a[0-1]\nSwitchName=s1 Nodes=a1\n",
     "t.conf:2: Nodes=a1: a node is listed under two switches"},
    {"SlurmSwitchTwice", "SwitchName=s0 Nodes=a0\nSwitchName=s0 Nodes=a1\n",
     "t.conf:2: switch 's0' defined twice (first on line 1)"},
    {"SlurmUndefinedSwitch", "SwitchName=s0 Nodes=a0\n\nSwitchName=top Switches=s[0-1]\n",
     "t.conf:3: switch 's1' is not defined"},
    {"SlurmTwoParents",
     "SwitchName=s0 Nodes=a0\nSwitchName=s1 Switches=s0\nSwitchName=s2 Switches=s0\n",
     "t.conf:3: switch 's0' already has parent 's1' (line 2)"},
    {"SlurmTwoTrees", "SwitchName=s0 Nodes=a0\nSwitchName=s1 Nodes=a1\n",
     "t.conf:2: switches 's0' and 's1' have no common switch: the file must describe one tree"},
    {"SlurmCycle", "SwitchName=s0 Switches=s1 Nodes=a0\nSwitchName=s1 Switches=s0\n",
     "t.conf:1: switch 's0' is its own ancestor"},
    {"SlurmBadRange", "SwitchName=s0 Nodes=a[3-1]\n",
     "t.conf:1: Nodes=a[3-1]: bad range in '[3-1]'"},
    {"SlurmUnbalanced", "SwitchName=s0 Nodes=a[0-1\n",
     "t.conf:1: Nodes=a[0-1: unbalanced or empty '[' in 'a[0-1'"},
    {"SlurmNoNodes", "SwitchName=s0 LinkSpeed=10\n",
     "t.conf: no nodes (no Nodes= on any SwitchName line)"},
    {"SlurmNotFirst", "Nodes=a0 SwitchName=s0\n",
     "t.conf:1: expected SwitchName=<name> first, found 'Nodes=a0'"},
    {"SlurmNotKeyValue", "SwitchName=s0 Nodes=a0 fast\n", "t.conf:1: 'fast' is not key=value"},
    {"SlurmIoUnknown", "#mcio io=b0\nSwitchName=s0 Nodes=a0\n",
     "t.conf:1: io: 'b0' is neither a node nor a switch"},
    {"SlurmDirectiveKey", "SwitchName=s0 Nodes=a0\n#mcio speed=3\n",
     "t.conf:2: unknown #mcio key 'speed' (io, latency, bandwidth)"},
    {"SlurmDirectiveLatency", "SwitchName=s0 Nodes=a0\n  #mcio latency=0\n",
     "t.conf:2: latency '0' is not a positive number"},
};

class BadFile : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadFile, NamesFileLineAndProblem)
{
    const BadCase &c = GetParam();
    Net t(c.text);
    EXPECT_EQ(t.st, MCIO_ERR_ARG);
    EXPECT_EQ(t.detail, c.detail);
    /* A failed parse leaves the flat model, so nothing dangles. */
    EXPECT_EQ(t.n.kind, MCIO_NET_FLAT);
    EXPECT_EQ(t.n.io_hops, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Parse, BadFile, ::testing::ValuesIn(bad_cases),
                         [](const ::testing::TestParamInfo<BadCase> &i) { return i.param.name; });

} // namespace
