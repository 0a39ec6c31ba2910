/*
 * mcio_extents_normalize and mcio_extents_summary: validation, sorting, dropping empty extents,
 * merging what is adjacent in both file and memory, overlap rules for writes and reads.
 * Expected values worked out by hand from the definitions in mcio_planner.h.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "plan_test_util.h"

using mcio_test::Extents;

namespace {

struct Ext {
    int64_t off, len, mem;
};

bool operator==(const Ext &a, const Ext &b)
{
    return a.off == b.off && a.len == b.len && a.mem == b.mem;
}

std::ostream &operator<<(std::ostream &os, const Ext &e)
{
    return os << "{off " << e.off << ", len " << e.len << ", mem " << e.mem << "}";
}

/* A successful normalization: input columns and the exact output list. */
struct NormalizeCase {
    const char *name;
    std::vector<int64_t> off, len, mem;
    int reject_overlap;
    std::vector<Ext> want;
};

/* gtest prints a case by its name. */
void PrintTo(const NormalizeCase &c, std::ostream *os)
{
    *os << c.name;
}

const NormalizeCase normalize_cases[] = {
    {"AlreadySortedKeptAsIs", {0, 200, 400}, {100, 100, 100}, {0, 100, 200}, 1,
     {{0, 100, 0}, {200, 100, 100}, {400, 100, 200}}},
    {"UnsortedIsSortedByOffset", {300, 0, 100}, {50, 50, 50}, {0, 100, 200}, 1,
     {{0, 50, 100}, {100, 50, 200}, {300, 50, 0}}},
    {"ZeroLengthDropped", {0, 50, 20}, {10, 0, 5}, {0, 10, 10}, 1, {{0, 10, 0}, {20, 5, 10}}},
    /* The zero-length middle extent has a memory displacement that would break the merge if it
     * were kept: dropping it first lets its neighbours merge. */
    {"ZeroLengthDroppedBeforeMerging", {0, 10, 10}, {10, 0, 5}, {0, 99, 10}, 1, {{0, 15, 0}}},
    {"AllZeroLength", {5, 6}, {0, 0}, {0, 0}, 1, {}},
    {"AdjacentInFileAndMemoryMerged", {0, 100, 200}, {100, 100, 50}, {1000, 1100, 1200}, 1,
     {{0, 250, 1000}}},
    {"AdjacentInFileNotMemoryKept", {0, 100}, {100, 100}, {0, 500}, 1,
     {{0, 100, 0}, {100, 100, 500}}},
    {"AdjacentInMemoryNotFileKept", {0, 200}, {100, 100}, {0, 100}, 1,
     {{0, 100, 0}, {200, 100, 100}}},
    /* Memory runs backwards (mem of the second extent is below the first): no merge. */
    {"AdjacentInFileMemoryReversedKept", {0, 100}, {100, 100}, {100, 0}, 1,
     {{0, 100, 100}, {100, 100, 0}}},
    {"UnsortedThenMerged", {100, 0}, {100, 100}, {100, 0}, 1, {{0, 200, 0}}},
    /* Merging chains across three and stops at the first gap. */
    {"MergeStopsAtGap", {30, 0, 10, 60}, {30, 10, 20, 5}, {30, 0, 10, 90}, 1,
     {{0, 60, 0}, {60, 5, 90}}},
    /* Touching extents are not overlapping, so a write accepts them. */
    {"WriteAcceptsTouchingExtents", {0, 10}, {10, 10}, {50, 0}, 1, {{0, 10, 50}, {10, 10, 0}}},
    /* Reads may overlap: both extents are kept, in offset order. */
    {"ReadOverlapAllowed", {50, 0}, {100, 100}, {100, 0}, 0, {{0, 100, 0}, {50, 100, 100}}},
    /* Reads of the same range into two places: equal offsets sort by memory. */
    {"ReadDuplicateSortedByMemory", {0, 0}, {10, 10}, {50, 0}, 0, {{0, 10, 0}, {0, 10, 50}}},
    /* Reads: a nested extent is kept; merging still works after it. */
    {"ReadNestedExtentKept", {0, 10}, {100, 20}, {0, 500}, 0, {{0, 100, 0}, {10, 20, 500}}},
    /* The largest allowed end: offset + length == INT64_MAX. */
    {"EndAtInt64Max", {INT64_MAX - 10}, {10}, {0}, 1, {{INT64_MAX - 10, 10, 0}}},
    /* Memory may hold absolute addresses. */
    {"AbsoluteAddressesMerged", {4096, 4196}, {100, 28}, {0x7f0000001000, 0x7f0000001064}, 1,
     {{4096, 128, 0x7f0000001000}}},
};

class Normalize : public ::testing::TestWithParam<NormalizeCase> {};

TEST_P(Normalize, ExactOutput)
{
    const NormalizeCase &c = GetParam();
    ASSERT_EQ(c.off.size(), c.len.size());
    ASSERT_EQ(c.off.size(), c.mem.size());
    Extents x;
    char detail[MCIO_DETAIL_LEN] = "";
    int st = mcio_extents_normalize((int64_t)c.off.size(), c.off.data(), c.len.data(), c.mem.data(),
                                    c.reject_overlap, &x.e, &x.n, detail);
    ASSERT_EQ(st, MCIO_SUCCESS) << detail;
    std::vector<Ext> got;
    for (int64_t i = 0; i < x.n; i++)
        got.push_back(Ext{x.e[i].off, x.e[i].len, x.e[i].mem});
    EXPECT_EQ(got, c.want);
    if (c.want.empty()) {
        EXPECT_EQ(x.e, nullptr);
    }
}

INSTANTIATE_TEST_SUITE_P(Extents, Normalize, ::testing::ValuesIn(normalize_cases),
                         [](const ::testing::TestParamInfo<NormalizeCase> &i) {
                             return std::string(i.param.name);
                         });

TEST(Extents, ZeroCountWithNullArraysIsEmpty)
{
    mcio_extent *out = reinterpret_cast<mcio_extent *>(0x1); /* must be overwritten */
    int64_t n = 7;
    char detail[MCIO_DETAIL_LEN] = "";
    EXPECT_EQ(mcio_extents_normalize(0, nullptr, nullptr, nullptr, 1, &out, &n, detail),
              MCIO_SUCCESS);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(n, 0);
}

/* A rejected list: status, and the substrings the message must contain. */
struct RejectCase {
    const char *name;
    int64_t count; /* may differ from the array sizes (negative count) */
    std::vector<int64_t> off, len, mem;
    bool null_off, null_len;
    int reject_overlap;
    std::vector<std::string> message_has;
};

/* gtest prints a case by its name. */
void PrintTo(const RejectCase &c, std::ostream *os)
{
    *os << c.name;
}

const RejectCase reject_cases[] = {
    {"NegativeLength", 3, {0, 10, 20}, {10, 10, -5}, {0, 10, 20}, false, false, 0,
     {"extent 2", "-5"}},
    {"NegativeOffset", 3, {0, -1, 20}, {10, 10, 10}, {0, 10, 20}, false, false, 0,
     {"extent 1", "-1"}},
    /* A zero-length extent still must have a valid offset. */
    {"NegativeOffsetOfEmptyExtent", 2, {0, -7}, {10, 0}, {0, 10}, false, false, 1,
     {"extent 1", "-7"}},
    {"EndOverflows", 2, {0, INT64_MAX - 10}, {10, 11}, {0, 10}, false, false, 1,
     {"extent 1", std::to_string(INT64_MAX - 10), "11"}},
    {"EndOverflowsHugeLength", 1, {1}, {INT64_MAX}, {0}, false, false, 0, {"extent 0"}},
    {"NegativeCount", -1, {}, {}, {}, false, false, 1, {"-1"}},
    {"NullOffsets", 2, {}, {10, 10}, {0, 10}, true, false, 1, {"2", "offsets"}},
    {"NullLengths", 2, {0, 10}, {}, {0, 10}, false, true, 1, {"2", "lengths"}},
    /* Writes: overlapping extents are named, as file ranges, in the message. */
    {"WriteOverlap", 2, {100, 0}, {50, 120}, {0, 50}, false, false, 1, {"[0, 120)", "[100, 150)"}},
    {"WriteDuplicate", 2, {64, 64}, {8, 8}, {0, 8}, false, false, 1, {"[64, 72)"}},
    {"WriteOverlapByOneByte", 3, {0, 10, 19}, {10, 10, 5}, {0, 100, 200}, false, false, 1,
     {"[10, 20)", "[19, 24)"}},
};

class Reject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(Reject, ArgumentErrorWithMessage)
{
    const RejectCase &c = GetParam();
    Extents x;
    x.n = 99;
    char detail[MCIO_DETAIL_LEN] = "";
    int st = mcio_extents_normalize(c.count, c.null_off ? nullptr : c.off.data(),
                                    c.null_len ? nullptr : c.len.data(), c.mem.data(),
                                    c.reject_overlap, &x.e, &x.n, detail);
    EXPECT_EQ(st, MCIO_ERR_ARG);
    EXPECT_EQ(x.e, nullptr);
    EXPECT_EQ(x.n, 0);
    std::string msg(detail);
    for (const std::string &s : c.message_has)
        EXPECT_NE(msg.find(s), std::string::npos) << "message '" << msg << "' lacks '" << s << "'";
}

INSTANTIATE_TEST_SUITE_P(Extents, Reject, ::testing::ValuesIn(reject_cases),
                         [](const ::testing::TestParamInfo<RejectCase> &i) {
                             return std::string(i.param.name);
                         });

/*
 * A NULL memory array with extents to describe is as invalid as a NULL offset or length array.
 * Run in a child process: if the planner dereferences the NULL array the child dies and only
 * this test fails.
 */
int normalize_with_null_memory()
{
    int64_t off[2] = {0, 10}, len[2] = {10, 10};
    mcio_extent *out = nullptr;
    int64_t n = 0;
    char detail[MCIO_DETAIL_LEN] = "";
    return mcio_extents_normalize(2, off, len, nullptr, 1, &out, &n, detail);
}

TEST(ExtentsDeathTest, NullMemoryArrayIsAnArgumentError)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(std::exit(normalize_with_null_memory() == MCIO_ERR_ARG ? 0 : 1),
                ::testing::ExitedWithCode(0), "");
}

/* --- mcio_extents_summary --- */

struct SummaryCase {
    const char *name;
    std::vector<Ext> ext; /* normalized: sorted by offset */
    int64_t start, end, bytes;
};

/* gtest prints a case by its name. */
void PrintTo(const SummaryCase &c, std::ostream *os)
{
    *os << c.name;
}

const SummaryCase summary_cases[] = {
    {"Empty", {}, 0, 0, 0},
    {"One", {{100, 28, 0}}, 100, 128, 28},
    {"WithHoles", {{0, 10, 0}, {20, 5, 10}, {100, 50, 15}}, 0, 150, 65},
    /* A read list may nest one extent in another: the end is the largest end, not the last. */
    {"NestedEndIsLargest", {{0, 100, 0}, {10, 20, 100}}, 0, 100, 120},
};

class Summary : public ::testing::TestWithParam<SummaryCase> {};

TEST_P(Summary, Exact)
{
    const SummaryCase &c = GetParam();
    std::vector<mcio_extent> e;
    for (const Ext &x : c.ext) {
        mcio_extent m;
        m.off = x.off;
        m.len = x.len;
        m.mem = x.mem;
        e.push_back(m);
    }
    mcio_summary s = mcio_extents_summary(e.data(), (int64_t)e.size());
    if (c.bytes > 0) { /* start and end mean nothing without bytes */
        EXPECT_EQ(s.start, c.start);
        EXPECT_EQ(s.end, c.end);
    }
    EXPECT_EQ(s.bytes, c.bytes);
}

INSTANTIATE_TEST_SUITE_P(Extents, Summary, ::testing::ValuesIn(summary_cases),
                         [](const ::testing::TestParamInfo<SummaryCase> &i) {
                             return std::string(i.param.name);
                         });

/* Normalize then summarize, as the engine does. */
TEST(Extents, SummaryOfNormalizedUnsortedList)
{
    int64_t off[] = {500, 40, 0, 300}, len[] = {20, 10, 0, 100}, mem[] = {0, 20, 30, 30};
    Extents x;
    char detail[MCIO_DETAIL_LEN] = "";
    ASSERT_EQ(mcio_extents_normalize(4, off, len, mem, 1, &x.e, &x.n, detail), MCIO_SUCCESS);
    ASSERT_EQ(x.n, 3);
    mcio_summary s = mcio_extents_summary(x.e, x.n);
    EXPECT_EQ(s.start, 40);
    EXPECT_EQ(s.end, 520);
    EXPECT_EQ(s.bytes, 130);
}

TEST(Extents, OwnAccessPacksPiecesThatMeetInTheFileUpToItsBuffer)
{
    /* Rows of 128 bytes between guard cells: adjacent in the file, 64 bytes apart in memory
     * (normalization keeps them apart), then a gap in the file. */
    std::vector<mcio_extent> e;
    for (int i = 0; i < 3; i++)
        e.push_back(mcio_extent{1000 + 128 * i, 128, 192 * i});
    e.push_back(mcio_extent{5000, 128, 1000}); /* a gap before it: a call of its own */
    EXPECT_EQ(mcio_own_pack_end(e.data(), 0, 4), 3);
    EXPECT_EQ(mcio_own_pack_end(e.data(), 3, 4), 4);
    EXPECT_EQ(mcio_own_calls(e.data(), 4), 2);
    EXPECT_EQ(mcio_own_calls(e.data(), 0), 0);
    /* A run longer than the buffer: as many calls as buffers it fills (whole pieces each). */
    const int64_t row = 96 * 1024, rows = 2 * MCIO_OWN_PACK / row + 1; /* 10 rows a buffer */
    std::vector<mcio_extent> run;
    for (int64_t i = 0; i < rows; i++)
        run.push_back(mcio_extent{row * i, row, 2 * row * i});
    int64_t per = MCIO_OWN_PACK / row;
    EXPECT_EQ(mcio_own_pack_end(run.data(), 0, rows), per);
    EXPECT_EQ(mcio_own_calls(run.data(), rows), (rows + per - 1) / per);
    /* A piece beyond the buffer goes alone, and the one after it starts the next call. */
    std::vector<mcio_extent> big = {{0, 3 * MCIO_OWN_PACK, 0},
                                    {3 * MCIO_OWN_PACK, 10, 4 * MCIO_OWN_PACK},
                                    {3 * MCIO_OWN_PACK + 10, 10, 5 * MCIO_OWN_PACK}};
    EXPECT_EQ(mcio_own_pack_end(big.data(), 0, 3), 1);
    EXPECT_EQ(mcio_own_calls(big.data(), 3), 2);
}

} // namespace
