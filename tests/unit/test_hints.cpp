/*
 * Hint parsing (src/core/util/mcio_hints.c): defaults, mcio_hints_set for every key with valid and
 * malformed values, mcio_hints_parse_line, mcio_hints_get and its round trip through
 * mcio_hints_set. Expected values from docs/hints.md and mcio_hints.h.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "mcio_placement.h"
#include "mcio_planner.h"
extern "C" {
#include "mcio_hints.h" /* has no extern "C" of its own */
}

namespace {

/* Every hint mcio_hints_get lists, as "key value" lines: two hint sets are the same when these
 * are, whatever fields mcio_hints gains. */
std::string show(const mcio_hints &h)
{
    std::string out;
    char key[64], value[300];
    for (int i = 0; mcio_hints_get(&h, i, key, sizeof key, value, sizeof value); i++)
        out += std::string(key) + " " + value + "\n";
    return out;
}

bool same(const mcio_hints &a, const mcio_hints &b)
{
    return show(a) == show(b);
}

TEST(Hints, Defaults)
{
    mcio_hints h = mcio_hints_default();
    EXPECT_EQ(h.cb_buffer_size, 16 * 1024 * 1024);
    EXPECT_EQ(h.cb_nodes, 0);
    EXPECT_EQ(h.striping_unit, 0);
    EXPECT_EQ(h.strategy, MCIO_STRATEGY_AUTO);
    EXPECT_EQ(h.memory_margin, 10);
    EXPECT_EQ(h.transport, MCIO_TRANSPORT_P2P);
    EXPECT_STREQ(h.io_backend, "mpiio");
    EXPECT_EQ(h.cb_write, MCIO_CB_AUTOMATIC);
    EXPECT_EQ(h.cb_read, MCIO_CB_AUTOMATIC);
    EXPECT_EQ(h.enable, 1);
    EXPECT_EQ(h.placement, MCIO_PLACE_SPREAD);
    EXPECT_EQ(h.socket_rule, MCIO_SOCKET_NONE);
    EXPECT_STREQ(h.topology_file, "");
    EXPECT_EQ(h.nah, 4);
    EXPECT_EQ(h.msgind, 32 * 1024 * 1024);
    EXPECT_EQ(h.msggroup, int64_t(1) << 30);
    EXPECT_EQ(h.memmin, 1024 * 1024);
    EXPECT_EQ(h.node_memory, 0);
    EXPECT_EQ(h.direct_write, 0);
    EXPECT_EQ(h.direct_read, 0);
    EXPECT_EQ(h.io_thread, MCIO_IO_THREAD_AUTO);
}

TEST(Hints, PlanParams)
{
    mcio_hints h = mcio_hints_default();
    h.cb_buffer_size = 4096;
    h.cb_nodes = 3;
    h.striping_unit = 1 << 20;
    h.cb_write = MCIO_CB_ENABLE;
    h.cb_read = MCIO_CB_DISABLE;
    h.placement = MCIO_PLACE_LONGEST;
    h.socket_rule = MCIO_SOCKET_DISTRIBUTED;
    mcio_planner_params p = mcio_hints_planner_params(&h, 1);
    EXPECT_EQ(p.placement, MCIO_PLACE_LONGEST);
    EXPECT_EQ(p.socket_rule, MCIO_SOCKET_DISTRIBUTED);
    EXPECT_EQ(p.buffer_size, 4096);
    EXPECT_EQ(p.cb_nodes, 3);
    EXPECT_EQ(p.stripe, 1 << 20);
    EXPECT_EQ(p.cb, MCIO_CB_ENABLE);
    EXPECT_EQ(mcio_hints_planner_params(&h, 0).cb, MCIO_CB_DISABLE);
    EXPECT_EQ(p.nah, 4);
    EXPECT_EQ(p.msgind, 32 * 1024 * 1024);
    EXPECT_EQ(p.msggroup, int64_t(1) << 30);
    EXPECT_EQ(p.memmin, 1024 * 1024);
}

/* --- valid values --- */

enum Field {
    BUF, NODES, STRIPE, STRATEGY, BACKEND, CB_WRITE, CB_READ, ENABLE, PLACEMENT, SOCKET, TOPOFILE,
    NAH, MSGIND, MSGGROUP, MEMMIN, NODEMEM, DIRECT_WRITE, DIRECT_READ, IO_THREAD,
    NODE_GATHER
};

struct SetCase {
    const char *name, *key, *value;
    Field field;
    int64_t num;      /* for BUF, NODES, STRIPE, ENABLE */
    const char *text; /* for STRATEGY, BACKEND */
};

/* gtest prints a case by its name. */
void PrintTo(const SetCase &c, std::ostream *os)
{
    *os << c.name;
}

const SetCase set_cases[] = {
    {"BufferPlain", "cb_buffer_size", "1048576", BUF, 1048576, nullptr},
    {"BufferOne", "cb_buffer_size", "1", BUF, 1, nullptr},
    {"BufferK", "cb_buffer_size", "64k", BUF, 65536, nullptr},
    {"BufferUpperK", "cb_buffer_size", "64K", BUF, 65536, nullptr},
    {"BufferM", "cb_buffer_size", "4m", BUF, 4194304, nullptr},
    {"BufferMi", "cb_buffer_size", "4Mi", BUF, 4194304, nullptr},
    {"BufferG", "cb_buffer_size", "1g", BUF, 1073741824, nullptr},
    {"BufferLargestM", "cb_buffer_size", "2047m", BUF, 2146435072, nullptr},
    {"BufferIntMax", "cb_buffer_size", "2147483647", BUF, 2147483647, nullptr},
    {"BufferLeadingZeros", "cb_buffer_size", "0010", BUF, 10, nullptr},
    {"NodesOne", "cb_nodes", "1", NODES, 1, nullptr},
    {"NodesMany", "cb_nodes", "128", NODES, 128, nullptr},
    {"NodesK", "cb_nodes", "1k", NODES, 1024, nullptr},
    {"StripeZero", "striping_unit", "0", STRIPE, 0, nullptr},
    {"StripeM", "striping_unit", "1m", STRIPE, 1048576, nullptr},
    {"StripePlain", "striping_unit", "65536", STRIPE, 65536, nullptr},
    {"StrategyRomio", "mcio_strategy", "romio", STRATEGY, 0, "romio"},
    {"BackendPosix", "mcio_io_backend", "posix", BACKEND, 0, "posix"},
    {"BackendNull", "mcio_io_backend", "null", BACKEND, 0, "null"},
    {"BackendMpiio", "mcio_io_backend", "mpiio", BACKEND, 0, "mpiio"},
    {"CbWriteEnable", "romio_cb_write", "enable", CB_WRITE, MCIO_CB_ENABLE, nullptr},
    {"CbWriteDisable", "romio_cb_write", "disable", CB_WRITE, MCIO_CB_DISABLE, nullptr},
    {"CbReadEnable", "romio_cb_read", "enable", CB_READ, MCIO_CB_ENABLE, nullptr},
    {"CbReadAutomatic", "romio_cb_read", "automatic", CB_READ, MCIO_CB_AUTOMATIC, nullptr},
    {"EnableFalse", "mcio_enable", "false", ENABLE, 0, nullptr},
    {"EnableTrue", "mcio_enable", "true", ENABLE, 1, nullptr},
    {"PlacementGreedy", "mcio_placement", "greedy", PLACEMENT, MCIO_PLACE_GREEDY, nullptr},
    {"PlacementShortest", "mcio_placement", "shortest", PLACEMENT, MCIO_PLACE_SHORTEST, nullptr},
    {"PlacementLongest", "mcio_placement", "longest", PLACEMENT, MCIO_PLACE_LONGEST, nullptr},
    {"PlacementTopology", "mcio_placement", "topology", PLACEMENT, MCIO_PLACE_TOPOLOGY, nullptr},
    {"PlacementSpread", "mcio_placement", "spread", PLACEMENT, MCIO_PLACE_SPREAD, nullptr},
    {"SocketDistributed", "mcio_socket_rule", "distributed", SOCKET, MCIO_SOCKET_DISTRIBUTED,
     nullptr},
    {"SocketNone", "mcio_socket_rule", "none", SOCKET, MCIO_SOCKET_NONE, nullptr},
    {"TopologyFile", "mcio_topology_file", "/etc/slurm/topology.conf", TOPOFILE, 0,
     "/etc/slurm/topology.conf"},
    {"StrategyMemory", "mcio_strategy", "memory", STRATEGY, MCIO_STRATEGY_MEMORY, "memory"},
    {"NahOne", "mcio_nah", "1", NAH, 1, nullptr},
    {"NahMany", "mcio_nah", "16", NAH, 16, nullptr},
    {"MsgindM", "mcio_msgind", "128m", MSGIND, 134217728, nullptr},
    {"MsgindOne", "mcio_msgind", "1", MSGIND, 1, nullptr},
    {"MsgindIntMax", "mcio_msgind", "2147483647", MSGIND, 2147483647, nullptr},
    {"MsggroupG", "mcio_msggroup", "64g", MSGGROUP, int64_t(64) << 30, nullptr},
    {"MemminZero", "mcio_memmin", "0", MEMMIN, 0, nullptr},
    {"MemminK", "mcio_memmin", "256k", MEMMIN, 262144, nullptr},
    {"NodeMemoryG", "mcio_node_memory", "2g", NODEMEM, int64_t(2) << 30, nullptr},
    {"NodeMemoryZero", "mcio_node_memory", "0", NODEMEM, 0, nullptr},
    {"DirectWriteTrue", "direct_write", "true", DIRECT_WRITE, 1, nullptr},
    {"DirectWriteFalse", "direct_write", "false", DIRECT_WRITE, 0, nullptr},
    {"DirectReadTrue", "direct_read", "true", DIRECT_READ, 1, nullptr},
    {"DirectReadFalse", "direct_read", "false", DIRECT_READ, 0, nullptr},
    {"IoThreadAuto", "mcio_io_thread", "auto", IO_THREAD, MCIO_IO_THREAD_AUTO, nullptr},
    {"IoThreadAlways", "mcio_io_thread", "always", IO_THREAD, MCIO_IO_THREAD_ALWAYS, nullptr},
    {"IoThreadNever", "mcio_io_thread", "never", IO_THREAD, MCIO_IO_THREAD_NEVER, nullptr},
    {"NodeGatherAuto", "mcio_node_gather", "auto", NODE_GATHER, MCIO_NODE_GATHER_AUTO, nullptr},
    {"NodeGatherTrue", "mcio_node_gather", "true", NODE_GATHER, MCIO_NODE_GATHER_TRUE, nullptr},
    {"NodeGatherFalse", "mcio_node_gather", "false", NODE_GATHER, MCIO_NODE_GATHER_FALSE, nullptr},
};

class HintsSet : public ::testing::TestWithParam<SetCase> {};

TEST_P(HintsSet, Valid)
{
    const SetCase &c = GetParam();
    mcio_hints h = mcio_hints_default();
    if (c.field == BACKEND) /* start from another value so that the change shows */
        strcpy(h.io_backend, strcmp(c.text, "posix") ? "posix" : "null");
    if (c.field == ENABLE)
        h.enable = !c.num;
    if (c.field == DIRECT_WRITE)
        h.direct_write = !c.num;
    if (c.field == DIRECT_READ)
        h.direct_read = !c.num;
    if (c.field == IO_THREAD)
        h.io_thread = c.num == MCIO_IO_THREAD_NEVER ? MCIO_IO_THREAD_AUTO : MCIO_IO_THREAD_NEVER;
    if (c.field == NODE_GATHER)
        h.node_gather =
            c.num == MCIO_NODE_GATHER_FALSE ? MCIO_NODE_GATHER_AUTO : MCIO_NODE_GATHER_FALSE;
    if (c.field == PLACEMENT)
        h.placement = c.num == MCIO_PLACE_GREEDY ? MCIO_PLACE_TOPOLOGY : MCIO_PLACE_GREEDY;
    if (c.field == SOCKET)
        h.socket_rule = c.num == MCIO_SOCKET_NONE ? MCIO_SOCKET_DISTRIBUTED : MCIO_SOCKET_NONE;
    mcio_hints want = h;
    switch (c.field) {
    case BUF: want.cb_buffer_size = c.num; break;
    case NODES: want.cb_nodes = (int)c.num; break;
    case STRIPE: want.striping_unit = c.num; break;
    case STRATEGY: want.strategy = (int)c.num; break;
    case BACKEND: strcpy(want.io_backend, c.text); break;
    case CB_WRITE: want.cb_write = (int)c.num; break;
    case CB_READ: want.cb_read = (int)c.num; break;
    case ENABLE: want.enable = (int)c.num; break;
    case PLACEMENT: want.placement = (int)c.num; break;
    case SOCKET: want.socket_rule = (int)c.num; break;
    case TOPOFILE: strcpy(want.topology_file, c.text); break;
    case NAH: want.nah = (int)c.num; break;
    case MSGIND: want.msgind = c.num; break;
    case MSGGROUP: want.msggroup = c.num; break;
    case MEMMIN: want.memmin = c.num; break;
    case NODEMEM: want.node_memory = c.num; break;
    case DIRECT_WRITE: want.direct_write = (int)c.num; break;
    case DIRECT_READ: want.direct_read = (int)c.num; break;
    case IO_THREAD: want.io_thread = (int)c.num; break;
    case NODE_GATHER: want.node_gather = (int)c.num; break;
    }
    char detail[MCIO_DETAIL_LEN] = "";
    EXPECT_EQ(mcio_hints_set(&h, c.key, c.value, "test", detail), MCIO_SUCCESS) << detail;
    EXPECT_TRUE(same(h, want)) << "got " << show(h) << ", want " << show(want);
}

INSTANTIATE_TEST_SUITE_P(Hints, HintsSet, ::testing::ValuesIn(set_cases),
                         [](const ::testing::TestParamInfo<SetCase> &i) {
                             return std::string(i.param.name);
                         });

/* --- malformed values and unknown mcio keys --- */

struct BadCase {
    const char *name, *key, *value;
};

/* gtest prints a case by its name. */
void PrintTo(const BadCase &c, std::ostream *os)
{
    *os << c.name;
}

const BadCase bad_cases[] = {
    {"BufferTrailingGarbage", "cb_buffer_size", "12x"},
    {"BufferEmpty", "cb_buffer_size", ""},
    {"BufferNegative", "cb_buffer_size", "-1"},
    {"BufferPlusSign", "cb_buffer_size", "+4"},
    {"BufferLeadingSpace", "cb_buffer_size", " 4"},
    {"BufferTrailingSpace", "cb_buffer_size", "4 "},
    {"BufferFraction", "cb_buffer_size", "1.5m"},
    {"BufferHex", "cb_buffer_size", "0x10"},
    {"BufferTwoSuffixes", "cb_buffer_size", "4mk"},
    {"BufferMiB", "cb_buffer_size", "4MiB"},
    {"BufferSuffixOnly", "cb_buffer_size", "m"},
    /* 'i' belongs to a k/m/g suffix ("4Mi"); a bare "12i" is not a byte count. */
    {"BufferBareI", "cb_buffer_size", "12i"},
    {"BufferZero", "cb_buffer_size", "0"},
    {"BufferTooLargeForInt", "cb_buffer_size", "2147483648"},
    {"BufferTwoG", "cb_buffer_size", "2g"},
    {"BufferOverflowsUint64", "cb_buffer_size", "99999999999999999999999"},
    {"BufferOverflowsWithSuffix", "cb_buffer_size", "17179869184g"},
    {"NodesZero", "cb_nodes", "0"},
    {"NodesNegative", "cb_nodes", "-2"},
    {"NodesGarbage", "cb_nodes", "two"},
    {"NodesEmpty", "cb_nodes", ""},
    {"NodesOverflow", "cb_nodes", "4294967296"},
    {"StripeGarbage", "striping_unit", "1mb"},
    {"StripeNegative", "striping_unit", "-64"},
    {"StripeTooLarge", "striping_unit", "4g"},
    {"StrategyUnknown", "mcio_strategy", "nosuch"},
    {"StrategyEmpty", "mcio_strategy", ""},
    {"StrategyCase", "mcio_strategy", "ROMIO"},
    /* An unregistered but well-formed name ("tape") is refused at open: tests/mpi/mpi_errors.c. */
    {"BackendNotAName", "mcio_io_backend", "std io"},
    {"BackendEmpty", "mcio_io_backend", ""},
    {"BackendUpperCase", "mcio_io_backend", "POSIX"},
    {"BackendTooLong", "mcio_io_backend", "a_backend_name_far_longer_than_any_kept"},
    {"CbWriteGarbage", "romio_cb_write", "on"},
    {"CbReadCase", "romio_cb_read", "Enable"},
    {"CbReadEmpty", "romio_cb_read", ""},
    {"EnableYes", "mcio_enable", "yes"},
    {"EnableOne", "mcio_enable", "1"},
    {"EnableUpperCase", "mcio_enable", "FALSE"},
    {"EnableEmpty", "mcio_enable", ""},
    {"DirectWriteOne", "direct_write", "1"},
    {"DirectReadEnable", "direct_read", "enable"},
    {"IoThreadOn", "mcio_io_thread", "on"},
    {"IoThreadCase", "mcio_io_thread", "Auto"},
    {"NodeGatherOn", "mcio_node_gather", "on"},
    {"PlacementUnknown", "mcio_placement", "nearest"},
    {"PlacementCase", "mcio_placement", "Greedy"},
    {"PlacementEmpty", "mcio_placement", ""},
    {"SocketRuleUnknown", "mcio_socket_rule", "accumulated"},
    {"SocketRuleEmpty", "mcio_socket_rule", ""},
    {"TopologyFileEmpty", "mcio_topology_file", ""},
    {"NahZero", "mcio_nah", "0"},
    {"NahNegative", "mcio_nah", "-4"},
    {"NahGarbage", "mcio_nah", "four"},
    {"MsgindZero", "mcio_msgind", "0"},
    {"MsgindTooLargeForInt", "mcio_msgind", "2g"},
    {"MsgindGarbage", "mcio_msgind", "32mb"},
    {"MsggroupZero", "mcio_msggroup", "0"},
    {"MsggroupNegative", "mcio_msggroup", "-1g"},
    {"MemminNegative", "mcio_memmin", "-1"},
    {"MemminFraction", "mcio_memmin", "0.5m"},
    {"NodeMemoryGarbage", "mcio_node_memory", "lots"},
    {"NodeMemoryOverflow", "mcio_node_memory", "99999999999g"},
    {"DepthZero", "mcio_pipeline_depth", "0"},
    {"DepthTooLarge", "mcio_pipeline_depth", "1025"},
    {"DepthGarbage", "mcio_pipeline_depth", "two"},
    {"SubbufferNegative", "mcio_subbuffer_size", "-4k"},
    {"SubbufferGarbage", "mcio_subbuffer_size", "1mb"},
    {"SubbufferTooLarge", "mcio_subbuffer_size", "2g"},
    {"TransportUnknown", "mcio_transport", "shm"},
    {"TransportCase", "mcio_transport", "RMA"},
    {"TransportEmpty", "mcio_transport", ""},
    {"SlowCallNegative", "mcio_slow_call_seconds", "-1"},
    {"SlowCallGarbage", "mcio_slow_call_seconds", "1s"},
    {"SlowCallNan", "mcio_slow_call_seconds", "nan"},
    {"SlowCallInf", "mcio_slow_call_seconds", "inf"},
    {"SlowCallTooLong", "mcio_slow_call_seconds", "3601"},
    {"SlowByteEmpty", "mcio_slow_byte_seconds", ""},
    {"SlowByteHuge", "mcio_slow_byte_seconds", "1e300"},
    {"UnknownMcioKey", "mcio_bogus", "xyz"},
    {"UnknownMcioKeyNamedLikeRomios", "mcio_cb_nodes", "4"},
};

class HintsBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(HintsBad, RejectedWithKeyAndValueInMessage)
{
    const BadCase &c = GetParam();
    mcio_hints h = mcio_hints_default(), before = h;
    char detail[MCIO_DETAIL_LEN] = "";
    EXPECT_EQ(mcio_hints_set(&h, c.key, c.value, "hints.txt:3", detail), MCIO_ERR_HINT)
        << "value '" << c.value << "' accepted: " << show(h);
    EXPECT_TRUE(same(h, before)) << "hints changed by a rejected value: " << show(h);
    std::string msg(detail);
    EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::string("'") + c.value + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("hints.txt:3"), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(Hints, HintsBad, ::testing::ValuesIn(bad_cases),
                         [](const ::testing::TestParamInfo<BadCase> &i) {
                             return std::string(i.param.name);
                         });

TEST(Hints, UnknownStrategyMessageListsKnownOnes)
{
    mcio_hints h = mcio_hints_default();
    char detail[MCIO_DETAIL_LEN] = "";
    ASSERT_EQ(mcio_hints_set(&h, "mcio_strategy", "nosuch", "MPI_Info", detail), MCIO_ERR_HINT);
    EXPECT_NE(std::string(detail).find("romio"), std::string::npos) << detail;
}

TEST(Hints, ForeignKeysIgnored)
{
    const char *keys[][2] = {{"romio_ds_write", "enable"}, {"access_style", "write_once"},
                             {"collective_buffering", "true"}, {"cb_config_list", "*:1"},
                             {"mciox", "1"}, {"MCIO_STRATEGY", "nosuch"}, {"", ""}};
    for (auto &kv : keys) {
        mcio_hints h = mcio_hints_default(), before = h;
        char detail[MCIO_DETAIL_LEN] = "untouched";
        EXPECT_EQ(mcio_hints_set(&h, kv[0], kv[1], "MPI_Info", detail), MCIO_SUCCESS) << kv[0];
        EXPECT_TRUE(same(h, before)) << kv[0];
    }
}

TEST(Hints, LaterValueWins)
{
    mcio_hints h = mcio_hints_default();
    char detail[MCIO_DETAIL_LEN] = "";
    ASSERT_EQ(mcio_hints_set(&h, "cb_buffer_size", "1m", "file", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "cb_buffer_size", "2m", "MPI_Info", detail), MCIO_SUCCESS);
    EXPECT_EQ(h.cb_buffer_size, 2 << 20);
}

/* --- mcio_hints_parse_line --- */

struct LineCase {
    const char *name, *line;
    int want;
    const char *key, *value;
};

/* gtest prints a case by its name. */
void PrintTo(const LineCase &c, std::ostream *os)
{
    *os << c.name;
}

const LineCase line_cases[] = {
    {"Pair", "cb_buffer_size 4m", 1, "cb_buffer_size", "4m"},
    {"PairNewline", "cb_nodes 2\n", 1, "cb_nodes", "2"},
    {"PairTabsAndSpaces", "  \tstriping_unit\t \t1m \t\r\n", 1, "striping_unit", "1m"},
    {"PairTrailingComment", "mcio_strategy romio # the default", 1, "mcio_strategy", "romio"},
    {"PairCommentNoSpace", "mcio_io_backend posix#fast", 1, "mcio_io_backend", "posix"},
    {"Empty", "", 0, nullptr, nullptr},
    {"Newline", "\n", 0, nullptr, nullptr},
    {"Blank", "   \t  \n", 0, nullptr, nullptr},
    {"Comment", "# site defaults", 0, nullptr, nullptr},
    {"IndentedComment", "   # cb_nodes 4", 0, nullptr, nullptr},
    {"KeyOnly", "cb_nodes", -1, nullptr, nullptr},
    {"KeyOnlyNewline", "cb_nodes\n", -1, nullptr, nullptr},
    {"KeyTrailingSpace", "cb_nodes   ", -1, nullptr, nullptr},
    {"KeyThenComment", "cb_nodes # 4", -1, nullptr, nullptr},
    {"ExtraWord", "cb_nodes 4 8", -1, nullptr, nullptr},
    {"ExtraWords", "mcio_strategy romio and more\n", -1, nullptr, nullptr},
};

class ParseLine : public ::testing::TestWithParam<LineCase> {};

TEST_P(ParseLine, Exact)
{
    const LineCase &c = GetParam();
    std::vector<char> buf(c.line, c.line + strlen(c.line) + 1);
    char *key = nullptr, *value = nullptr;
    int kind = mcio_hints_parse_line(buf.data(), &key, &value);
    EXPECT_EQ(kind, c.want);
    if (c.want == 1 && kind == 1) {
        EXPECT_STREQ(key, c.key);
        EXPECT_STREQ(value, c.value);
    }
}

INSTANTIATE_TEST_SUITE_P(Hints, ParseLine, ::testing::ValuesIn(line_cases),
                         [](const ::testing::TestParamInfo<LineCase> &i) {
                             return std::string(i.param.name);
                         });

/* --- mcio_hints_get --- */

TEST(Hints, GetDefaults)
{
    mcio_hints h = mcio_hints_default();
    const char *want[][2] = {{"cb_buffer_size", "16777216"}, {"cb_nodes", "0"},
                             {"striping_unit", "0"},          {"romio_cb_write", "automatic"},
                             {"romio_cb_read", "automatic"},  {"mcio_strategy", "auto"},
                             {"mcio_io_backend", "mpiio"},   {"mcio_enable", "true"},
                             {"mcio_placement", "spread"},   {"mcio_socket_rule", "none"},
                             {"mcio_topology_file", ""},     {"mcio_nah", "4"},
                             {"mcio_msgind", "33554432"},    {"mcio_msggroup", "1073741824"},
                             {"mcio_memmin", "1048576"},     {"mcio_node_memory", "0"},
                             {"mcio_pipeline_depth", "1"},   {"mcio_subbuffer_size", "0"},
                             {"mcio_transport", "p2p"},      {"mcio_slow_call_seconds", "0"},
                             {"mcio_slow_byte_seconds", "0"}, {"direct_write", "false"},
                             {"direct_read", "false"},        {"mcio_io_thread", "auto"},
                             {"mcio_write_sync", "auto"},     {"mcio_read_shift", "auto"},
                             {"mcio_local_io", "auto"},
                             {"mcio_memory_margin", "10"},   {"mcio_calibrate", "auto"},
                             {"mcio_node_gather", "auto"},   {"mcio_write_verify", "false"},
                             {"mcio_layers", "auto"}};
    char key[64], value[64];
    for (int i = 0; i < 32; i++) {
        ASSERT_EQ(mcio_hints_get(&h, i, key, sizeof key, value, sizeof value), 1) << i;
        EXPECT_STREQ(key, want[i][0]);
        EXPECT_STREQ(value, want[i][1]);
    }
    EXPECT_EQ(mcio_hints_get(&h, 32, key, sizeof key, value, sizeof value), 0);
    EXPECT_EQ(mcio_hints_get(&h, -1, key, sizeof key, value, sizeof value), 0);
}

TEST(Hints, GetSetRoundTrip)
{
    mcio_hints h = mcio_hints_default();
    char detail[MCIO_DETAIL_LEN] = "";
    ASSERT_EQ(mcio_hints_set(&h, "cb_buffer_size", "4m", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "cb_nodes", "3", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "striping_unit", "1m", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_io_backend", "posix", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "romio_cb_write", "enable", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "romio_cb_read", "disable", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_enable", "false", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_placement", "topology", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_socket_rule", "distributed", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_topology_file", "net.txt", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_strategy", "memory", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_nah", "2", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_msgind", "8m", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_msggroup", "64m", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_memmin", "4k", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_node_memory", "1g", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_pipeline_depth", "4", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_subbuffer_size", "1m", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_transport", "rma", "t", detail), MCIO_SUCCESS);
    EXPECT_EQ(h.transport, MCIO_TRANSPORT_RMA); /* parsed once, into the enum the engine reads */
    EXPECT_EQ(h.strategy, MCIO_STRATEGY_MEMORY);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_slow_call_seconds", "0.25", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_slow_byte_seconds", "1e-9", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "direct_write", "true", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "direct_read", "true", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_io_thread", "never", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_write_sync", "false", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_read_shift", "true", "t", detail), MCIO_SUCCESS);
    EXPECT_EQ(h.read_shift, MCIO_READ_SHIFT_TRUE);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_local_io", "false", "t", detail), MCIO_SUCCESS);
    EXPECT_EQ(h.local_io, 0);
    EXPECT_NE(mcio_hints_set(&h, "mcio_local_io", "true", "t", detail), MCIO_SUCCESS);
    EXPECT_NE(strstr(detail, "mcio_local_io"), nullptr) << detail;
    ASSERT_EQ(mcio_hints_set(&h, "mcio_memory_margin", "25", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_calibrate", "replace", "t", detail), MCIO_SUCCESS);
    EXPECT_EQ(h.calibrate, MCIO_CALIBRATE_REPLACE);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_calibrate", "off", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_node_gather", "true", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_write_verify", "true", "t", detail), MCIO_SUCCESS);
    ASSERT_EQ(mcio_hints_set(&h, "mcio_layers", "2", "t", detail), MCIO_SUCCESS);
    EXPECT_EQ(h.layers, MCIO_LAYERS_TWO);
    EXPECT_NE(mcio_hints_set(&h, "mcio_layers", "3", "t", detail), MCIO_SUCCESS);
    EXPECT_NE(strstr(detail, "mcio_layers"), nullptr) << detail;
    EXPECT_NE(strstr(detail, "auto, 1, 2"), nullptr) << detail;
    EXPECT_TRUE(mcio_hints_write_sync(&h, 0)); /* a write read back is synced first */
    const char *want[][2] = {{"cb_buffer_size", "4194304"}, {"cb_nodes", "3"},
                             {"striping_unit", "1048576"},  {"romio_cb_write", "enable"},
                             {"romio_cb_read", "disable"},  {"mcio_strategy", "memory"},
                             {"mcio_io_backend", "posix"},  {"mcio_enable", "false"},
                             {"mcio_placement", "topology"}, {"mcio_socket_rule", "distributed"},
                             {"mcio_topology_file", "net.txt"}, {"mcio_nah", "2"},
                             {"mcio_msgind", "8388608"},    {"mcio_msggroup", "67108864"},
                             {"mcio_memmin", "4096"},       {"mcio_node_memory", "1073741824"},
                             {"mcio_pipeline_depth", "4"},  {"mcio_subbuffer_size", "1048576"},
                             {"mcio_transport", "rma"},     {"mcio_slow_call_seconds", "0.25"},
                             {"mcio_slow_byte_seconds", "1.0000000000000001e-09"},
                             {"direct_write", "true"},     {"direct_read", "true"},
                             {"mcio_io_thread", "never"},   {"mcio_write_sync", "false"},
                             {"mcio_read_shift", "true"},   {"mcio_local_io", "false"},
                             {"mcio_memory_margin", "25"},
                             {"mcio_calibrate", "off"},     {"mcio_node_gather", "true"},
                             {"mcio_write_verify", "true"},  {"mcio_layers", "2"}};
    mcio_hints back = mcio_hints_default();
    char key[64], value[64];
    int i = 0;
    for (; mcio_hints_get(&h, i, key, sizeof key, value, sizeof value); i++) {
        ASSERT_LT(i, 32);
        EXPECT_STREQ(key, want[i][0]);
        EXPECT_STREQ(value, want[i][1]);
        EXPECT_EQ(mcio_hints_set(&back, key, value, "round trip", detail), MCIO_SUCCESS) << detail;
    }
    EXPECT_EQ(i, 32);
    EXPECT_TRUE(same(back, h)) << "got " << show(back) << ", want " << show(h);
}

/* The hints set explicitly are known as such (the cost model chooses only the others), even
 * when set to their default value; a refused value does not count as set. */
TEST(Hints, SetExplicitly)
{
    mcio_hints h = mcio_hints_default();
    char detail[MCIO_DETAIL_LEN];
    EXPECT_FALSE(mcio_hints_is_set(&h, "cb_buffer_size"));
    EXPECT_FALSE(mcio_hints_is_set(&h, "mcio_pipeline_depth"));
    ASSERT_EQ(mcio_hints_set(&h, "mcio_pipeline_depth", "1", "t", detail), MCIO_SUCCESS);
    EXPECT_TRUE(mcio_hints_is_set(&h, "mcio_pipeline_depth"));
    EXPECT_FALSE(mcio_hints_is_set(&h, "cb_buffer_size"));
    EXPECT_EQ(mcio_hints_set(&h, "cb_buffer_size", "lots", "t", detail), MCIO_ERR_HINT);
    EXPECT_FALSE(mcio_hints_is_set(&h, "cb_buffer_size"));
    ASSERT_EQ(mcio_hints_set(&h, "romio_cb_read", "disable", "t", detail), MCIO_SUCCESS);
    EXPECT_TRUE(mcio_hints_is_set(&h, "romio_cb_read"));
    EXPECT_FALSE(mcio_hints_is_set(&h, "romio_cb_write"));
    EXPECT_FALSE(mcio_hints_is_set(&h, "no_such_hint"));
    /* Keys meant for the MPI library are not mcio's to remember. */
    ASSERT_EQ(mcio_hints_set(&h, "access_style", "read_once", "t", detail), MCIO_SUCCESS);
    EXPECT_FALSE(mcio_hints_is_set(&h, "access_style"));
}

/* Every default but cb_nodes (whose default 0, "one per node", is not a value cb_nodes
 * accepts; mcio_file_get_info reports the node count instead) reads back unchanged. */
TEST(Hints, GetSetRoundTripOfDefaults)
{
    mcio_hints h = mcio_hints_default(), back = mcio_hints_default();
    back.cb_buffer_size = 1;
    back.striping_unit = 7;
    strcpy(back.io_backend, "null");
    back.cb_write = MCIO_CB_ENABLE;
    back.cb_read = MCIO_CB_DISABLE;
    back.enable = 0;
    back.placement = MCIO_PLACE_LONGEST;
    back.socket_rule = MCIO_SOCKET_DISTRIBUTED;
    back.nah = 9;
    back.msgind = 9;
    back.msggroup = 9;
    back.memmin = 9;
    back.node_memory = 9;
    char key[64], value[64], detail[MCIO_DETAIL_LEN] = "";
    for (int i = 0; mcio_hints_get(&h, i, key, sizeof key, value, sizeof value); i++)
        if (strcmp(key, "cb_nodes") != 0 && value[0]) { /* "": unset, nothing to set back */
            EXPECT_EQ(mcio_hints_set(&back, key, value, "round trip", detail), MCIO_SUCCESS)
                << detail;
        }
    EXPECT_TRUE(same(back, h)) << "got " << show(back) << ", want " << show(h);
}

TEST(Hints, GetTruncatesToTheGivenLength)
{
    mcio_hints h = mcio_hints_default();
    char key[5], value[4];
    ASSERT_EQ(mcio_hints_get(&h, 0, key, sizeof key, value, sizeof value), 1);
    EXPECT_STREQ(key, "cb_b");
    EXPECT_STREQ(value, "167");
}

} // namespace
