/*
 * The wire form of offset-length lists (src/core/plan/listcode.c): the papers' patterns encode
 * into a few bytes (exact codes worked out by hand), a climate model's short irregular pieces
 * into a few bytes each, every code decodes into exactly the pieces it was made from
 * (randomized against the plain piece list) and never takes more than the raw form, and
 * malformed codes are refused.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "mcio_listcode.h"

namespace {

typedef std::vector<uint8_t> Code;
typedef std::pair<int64_t, int64_t> P;

Code encode(const std::vector<P> &v)
{
    std::vector<mcio_piece> p;
    for (const P &x : v)
        p.push_back(mcio_piece{x.first, x.second, 0});
    Code c((size_t)mcio_listcode_max_bytes((int64_t)p.size()), 0xee);
    int64_t n = mcio_listcode_encode(p.data(), (int64_t)p.size(), c.data());
    EXPECT_LE(n, (int64_t)c.size());
    c.resize((size_t)n);
    return c;
}

std::vector<P> decode(const Code &c)
{
    int64_t n = mcio_listcode_count(c.data(), (int64_t)c.size());
    EXPECT_GE(n, 0);
    std::vector<mcio_piece> p((size_t)std::max<int64_t>(n, 0) + 1);
    int64_t m = mcio_listcode_decode(c.data(), (int64_t)c.size(), p.data());
    EXPECT_EQ(m, n);
    std::vector<P> v;
    for (int64_t i = 0; i < m; i++)
        v.push_back(P(p[i].off, p[i].len));
    return v;
}

TEST(Listcode, IorInterleavedIsOneVector)
{
    /* Rank 3 of 1,080, 4 transfers of 256 KiB: (s * 1080 + 3) * 256 KiB. Unit 256 KiB
     * (0x80 0x80 0x10), gap 3 units (zigzag 6), a vector of 1-unit blocks (head 1), 4 of them
     * (1 past 3), 1,079 units between blocks (0xb7 0x08). */
    const int64_t t = 256 << 10;
    std::vector<P> v;
    for (int64_t s = 0; s < 4; s++)
        v.push_back(P((s * 1080 + 3) * t, t));
    EXPECT_EQ(encode(v), (Code{1, 0x80, 0x80, 0x10, 6, 1, 1, 0xb7, 0x08}));
    EXPECT_EQ(decode(encode(v)), v);
}

TEST(Listcode, SubarrayRowsInPlanesAreOneSection)
{
    /* coll_perf: a 4 x 5 block of rows of 64 bytes, rows 1,000 bytes apart, planes 100,000.
     * Unit 8: gap 875 units (zigzag 1750: 0xd6 0x0d), a section of 8-unit blocks (head 7 * 4
     * + 2), 5 a vector (2 past 3), 117 units between rows, 4 vectors (2 past 2), and
     * (100,000 - 4,064) / 8 = 11,992 units between planes (0xd8 0x5d). */
    std::vector<P> v;
    for (int64_t z = 0; z < 4; z++)
        for (int64_t y = 0; y < 5; y++)
            v.push_back(P(7000 + z * 100000 + y * 1000, 64));
    EXPECT_EQ(encode(v), (Code{1, 8, 0xd6, 0x0d, 30, 2, 117, 2, 0xd8, 0x5d}));
    EXPECT_EQ(decode(encode(v)), v);
}

TEST(Listcode, IrregularPiecesAreGapsAndLengths)
{
    /* Unit 1: (0, 10) gap 0, (15, 3) gap 5, (40, 10) gap 22, (47, 10) gap -3 (an overlap). */
    std::vector<P> v = {{0, 10}, {15, 3}, {40, 10}, {47, 10}};
    EXPECT_EQ(encode(v), (Code{1, 1, 0, 36, 10, 8, 44, 36, 5, 36}));
    EXPECT_EQ(decode(encode(v)), v);
    EXPECT_EQ(encode({}), (Code{}));
    EXPECT_TRUE(decode(Code{}).empty());
    EXPECT_TRUE(decode(Code{1, 1}).empty());
}

TEST(Listcode, FarApartPiecesTakeTheRawForm)
{
    /* Unit 1, a gap of 2^62 (10 bytes as a varint) and a length near 2^60 (9 bytes): more than
     * the raw form's 16 bytes a piece. */
    std::vector<P> v = {{(int64_t)1 << 62, ((int64_t)1 << 60) + 1}};
    Code c = encode(v);
    ASSERT_EQ(c.size(), 17u);
    EXPECT_EQ(c[0], MCIO_LISTCODE_RAW);
    EXPECT_EQ(decode(c), v);
    /* A length of 2^62 units or more has no varint head (its kind takes two bits): raw. */
    v = {{8, ((int64_t)1 << 62) + 11}};
    c = encode(v);
    EXPECT_EQ(c[0], MCIO_LISTCODE_RAW);
    EXPECT_EQ(decode(c), v);
}

TEST(Listcode, ClimatePiecesCostAFewBytesEach)
{
    /* tools/patterns.c's fragmented pattern, one rank of 8: runs of 1-8 doubles, each rank's
     * 7 of 8 runs apart on average. A pair would be 16 bytes a piece. */
    std::mt19937_64 rng(47);
    std::vector<P> v;
    int64_t data = 0;
    for (int64_t pos = 0; v.size() < 100000;) {
        int64_t len = 8 * (1 + (int64_t)(rng() % 8));
        v.push_back(P(pos, len));
        data += len;
        pos += len + 8 * (1 + (int64_t)(rng() % 56)); /* the other ranks' runs between */
    }
    Code c = encode(v);
    EXPECT_EQ(c[0], MCIO_LISTCODE_VARINT);
    EXPECT_LE(c.size(), 3 * v.size());
    EXPECT_LT((int64_t)c.size() * 10, data);
    EXPECT_EQ(decode(c), v);
}

TEST(Listcode, MalformedCodesAreRefused)
{
    std::vector<mcio_piece> out(64);
    const Code bad[] = {
        {2, 1, 0, 0},                                   /* an unknown form */
        {1},                                            /* no unit */
        {1, 0, 0, 0},                                   /* unit 0 */
        {1, 1, 0},                                      /* an item cut short */
        {1, 1, 0, 0x81},                                /* a varint cut short */
        {1, 1, 0, 1, 0},                                /* a vector cut short */
        {1, 1, 0, 3},                                   /* kind 3 */
        {1, 1, 1, 0},                                   /* a negative offset */
        {1, 1, 0, 0, 3, 0},                             /* past 0: -2 */
        {1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0}, /* > 64 bits */
        {1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 0, 4}, /* length 2^63 */
        {1, 1, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 4}, /* end > INT64_MAX */
        {1, 1, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff,
         0xff, 0xff, 0x3f}, /* count * stride past INT64_MAX */
        {0, 1, 2},                                      /* raw, cut short */
    };
    for (const Code &c : bad) {
        EXPECT_EQ(mcio_listcode_count(c.data(), (int64_t)c.size()), -1);
        EXPECT_EQ(mcio_listcode_decode(c.data(), (int64_t)c.size(), out.data()), -1);
    }
    int64_t raw[2] = {-1, 4}; /* raw: a negative offset */
    Code c(17, 0);
    std::memcpy(c.data() + 1, raw, sizeof raw);
    EXPECT_EQ(mcio_listcode_count(c.data(), (int64_t)c.size()), -1);
}

/* Random piece lists with regular runs, nested runs, overlaps and irregular pieces, scaled by a
 * unit (so that the unit's division is exercised). */
std::vector<P> random_pieces(std::mt19937_64 &rng)
{
    std::vector<P> v;
    int64_t pos = (int64_t)(rng() % 50), unit = (int64_t)1 << (rng() % 5);
    int parts = 1 + (int)(rng() % 6);
    for (int k = 0; k < parts; k++) {
        int kind = (int)(rng() % 4);
        int64_t len = 1 + (int64_t)(rng() % 9);
        if (kind == 0) { /* irregular */
            for (int i = 0, n = (int)(rng() % 4); i < n; i++) {
                v.push_back(P(pos, 1 + (int64_t)(rng() % 9)));
                pos += v.back().second + (int64_t)(rng() % 5);
            }
        } else if (kind == 1) { /* a vector */
            int64_t stride = len + (int64_t)(rng() % 6), count = 1 + (int64_t)(rng() % 6);
            for (int64_t i = 0; i < count; i++)
                v.push_back(P(pos + i * stride, len));
            pos += count * stride + (int64_t)(rng() % 4);
        } else if (kind == 2) { /* vectors of vectors */
            int64_t stride = len + (int64_t)(rng() % 6), count = 1 + (int64_t)(rng() % 5);
            int64_t span = (count - 1) * stride + len, ostride = span + (int64_t)(rng() % 7);
            int64_t ocount = 1 + (int64_t)(rng() % 5);
            for (int64_t o = 0; o < ocount; o++)
                for (int64_t i = 0; i < count; i++)
                    v.push_back(P(pos + o * ostride + i * stride, len));
            pos += ocount * ostride + 1;
        } else { /* overlapping pieces, as a read may ask */
            for (int i = 0, n = 1 + (int)(rng() % 4); i < n; i++)
                v.push_back(P(pos + (int64_t)(rng() % 3), len));
            pos += len + 3;
        }
    }
    std::sort(v.begin(), v.end());
    for (P &x : v)
        x.first *= unit, x.second *= unit;
    return v;
}

TEST(Listcode, RandomRoundTripsGiveThePieceList)
{
    std::mt19937_64 rng(20261202);
    for (int trial = 0; trial < 20000; trial++) {
        std::vector<P> v = random_pieces(rng);
        Code c = encode(v);
        ASSERT_EQ(decode(c), v) << "trial " << trial;
        ASSERT_LE((int64_t)c.size(), mcio_listcode_max_bytes((int64_t)v.size()));
    }
}

} // namespace
