/*
 * The memory half of the machine description (src/core/machine/mcio_memory.c): virtual memory
 * specs (explicit lists, normal distribution) and MemAvailable from /proc/meminfo text.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mcio_memory.h"

namespace {

std::vector<int64_t> virt(const char *spec, int nnodes, int *st)
{
    std::vector<int64_t> v(nnodes + 1, -7);
    char detail[MCIO_DETAIL_LEN] = "";
    *st = mcio_memory_virtual(spec, nnodes, v.data(), detail);
    v.resize(nnodes);
    return v;
}

TEST(NodeMemory, ExplicitListRepeatsOverTheNodes)
{
    int st;
    EXPECT_EQ(virt("64m,16m,0", 5, &st),
              (std::vector<int64_t>{64 << 20, 16 << 20, 0, 64 << 20, 16 << 20}));
    EXPECT_EQ(st, MCIO_SUCCESS);
    EXPECT_EQ(virt("1000", 3, &st), (std::vector<int64_t>{1000, 1000, 1000}));
    EXPECT_EQ(virt("2g,1k", 2, &st), (std::vector<int64_t>{int64_t(2) << 30, 1024}));
}

TEST(NodeMemory, NormalIsSeededClampedAndNearItsMoments)
{
    int st;
    std::vector<int64_t> a = virt("normal:32m:16m:7", 4000, &st);
    ASSERT_EQ(st, MCIO_SUCCESS);
    EXPECT_EQ(virt("normal:32m:16m:7", 4000, &st), a); /* same seed, same machine */
    EXPECT_NE(virt("normal:32m:16m:8", 4000, &st), a);
    double sum = 0, sq = 0;
    int zeros = 0;
    for (int64_t x : a) {
        EXPECT_GE(x, 0);
        zeros += x == 0;
        sum += (double)x;
        sq += (double)x * (double)x;
    }
    /* 2.3% of a N(32m, 16m) lies below 0: clamped to 0. Mean and sd of the clamped draw are
     * within a few percent of the parameters for 4000 nodes. */
    EXPECT_GT(zeros, 40);
    EXPECT_LT(zeros, 150);
    double mean = sum / 4000, sd = std::sqrt(sq / 4000 - mean * mean);
    EXPECT_NEAR(mean / (32 << 20), 1.0, 0.05);
    EXPECT_NEAR(sd / (16 << 20), 1.0, 0.08);
    EXPECT_EQ(virt("normal:1m:0", 3, &st), (std::vector<int64_t>{1 << 20, 1 << 20, 1 << 20}));
    EXPECT_EQ(st, MCIO_SUCCESS); /* seed optional */
}

TEST(NodeMemory, BadSpecsNameTheVariableAndValue)
{
    for (const char *bad : {"", "lots", "1m,,2m", "-1m", "normal:", "normal:1m", "normal:1m:x",
                            "normal:1m:1m:1:1", "1m;2m", "normal:-1m:1m"}) {
        std::vector<int64_t> v(4);
        char detail[MCIO_DETAIL_LEN] = "";
        EXPECT_EQ(mcio_memory_virtual(bad, 4, v.data(), detail), MCIO_ERR_ARG) << "'" << bad << "'";
        std::string msg(detail);
        EXPECT_NE(msg.find("MCIO_VIRTUAL_NODE_MEMORY"), std::string::npos) << msg;
        EXPECT_NE(msg.find(std::string("'") + bad + "'"), std::string::npos) << msg;
    }
}

TEST(NodeMemory, MemAvailableFromMeminfo)
{
    EXPECT_EQ(mcio_memory_parse_meminfo("MemTotal:       16318412 kB\n"
                                        "MemFree:         1201496 kB\n"
                                        "MemAvailable:    9876543 kB\n"),
              int64_t(9876543) * 1024);
    EXPECT_EQ(mcio_memory_parse_meminfo("MemTotal:       16318412 kB\n"), -1);
    EXPECT_EQ(mcio_memory_parse_meminfo("MemAvailable: kB\n"), -1);
    EXPECT_GT(mcio_memory_available(), 0); /* Linux has had MemAvailable since 3.14 */
}

} // namespace
