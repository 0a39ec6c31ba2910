/*
 * Compact access descriptions (src/core/plan/sections.c): the papers' patterns encode into a
 * few sections (exact codes worked out by hand), every code decodes into exactly the pieces it
 * was made from (randomized against the plain piece list) and never takes more words than the
 * plain list, and malformed codes are refused.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "mcio_sections.h"

namespace {

typedef std::vector<int64_t> Code;
typedef std::pair<int64_t, int64_t> P;

Code encode(const std::vector<P> &v)
{
    std::vector<mcio_piece> p;
    for (const P &x : v)
        p.push_back(mcio_piece{x.first, x.second, 0});
    Code c((size_t)mcio_sections_max_words((int64_t)p.size()), -7);
    int64_t n = mcio_sections_encode(p.data(), (int64_t)p.size(), c.data());
    EXPECT_LE(n, (int64_t)c.size());
    c.resize((size_t)n);
    return c;
}

std::vector<P> decode(const Code &c)
{
    int64_t n = mcio_sections_count(c.data(), (int64_t)c.size());
    EXPECT_GE(n, 0);
    std::vector<mcio_piece> p((size_t)std::max<int64_t>(n, 0) + 1);
    int64_t m = mcio_sections_decode(c.data(), (int64_t)c.size(), p.data());
    EXPECT_EQ(m, n);
    std::vector<P> v;
    for (int64_t i = 0; i < m; i++)
        v.push_back(P(p[i].off, p[i].len));
    return v;
}

TEST(Sections, IorInterleavedIsOneVector)
{
    /* Rank 3 of 1,080, 4 transfers of 256 KiB: (s * 1080 + 3) * 256 KiB. */
    const int64_t t = 256 << 10;
    std::vector<P> v;
    for (int64_t s = 0; s < 4; s++)
        v.push_back(P((s * 1080 + 3) * t, t));
    EXPECT_EQ(encode(v), (Code{1, 3 * t, 4, t, 1080 * t, 1, 0}));
    EXPECT_EQ(decode(encode(v)), v);
}

TEST(Sections, SubarrayRowsInPlanesAreOneSection)
{
    /* coll_perf: a 4 x 5 block of rows of 64 bytes, rows 1,000 bytes apart, planes 100,000. */
    std::vector<P> v;
    for (int64_t z = 0; z < 4; z++)
        for (int64_t y = 0; y < 5; y++)
            v.push_back(P(7000 + z * 100000 + y * 1000, 64));
    EXPECT_EQ(encode(v), (Code{1, 7000, 5, 64, 1000, 4, 100000}));
    EXPECT_EQ(decode(encode(v)), v);
}

TEST(Sections, HaccFieldsAreAVectorAndTwoPieces)
{
    /* hacc-soa, rank 2 of 8 with 10 particles: seven 4-byte fields, an 8-byte one, a 2-byte one. */
    const int field[9] = {4, 4, 4, 4, 4, 4, 4, 8, 2};
    std::vector<P> v;
    int64_t base = 0;
    for (int f = 0; f < 9; f++) {
        v.push_back(P(base + 2 * 10 * field[f], 10 * field[f]));
        base += 8 * 10 * field[f];
    }
    EXPECT_EQ(encode(v), (Code{1, 80, 7, 40, 320, 1, 0, 2400, 80, 2920, 20}));
    EXPECT_EQ(decode(encode(v)), v);
}

TEST(Sections, IrregularPiecesStayPairs)
{
    std::vector<P> v = {{0, 10}, {15, 3}, {40, 10}, {47, 10}};
    /* No section: no count word, as the even length says. */
    EXPECT_EQ(encode(v), (Code{0, 10, 15, 3, 40, 10, 47, 10}));
    EXPECT_EQ(decode(encode(v)), v);
    EXPECT_EQ(encode({}), (Code{}));
    EXPECT_TRUE(decode(Code{}).empty());
    EXPECT_TRUE(decode(Code{0}).empty());
}

TEST(Sections, MalformedCodesAreRefused)
{
    std::vector<mcio_piece> out(64);
    const Code bad[] = {
        {1, 0, 3, 10, 20},                          /* a section cut short */
        {0, 5, 0},                                  /* empty piece */
        {5, 0},                                     /* empty piece, pairs only */
        {0, -1, 4},                                 /* negative offset */
        {-1, 4},                                    /* negative offset, pairs only */
        {1, 0, 3, 10, 5, 1, 0},                     /* stride below the block length */
        {1, 0, 3, 10, 20, 2, 30},                   /* vectors overlapping */
        {1, 0, 0, 10, 20, 1, 0},                    /* no block */
        {1, INT64_MAX - 10, 2, 10, 20, 1, 0},       /* past INT64_MAX */
        {1, 0, INT64_MAX / 2, 1, 4, 1, 0},          /* its end overflows */
        {-1},                                       /* negative count */
        {2, 0, 3, 10, 20, 1, 0},                    /* more sections than words */
    };
    for (const Code &c : bad) {
        EXPECT_EQ(mcio_sections_count(c.data(), (int64_t)c.size()), -1);
        EXPECT_EQ(mcio_sections_decode(c.data(), (int64_t)c.size(), out.data()), -1);
    }
}

/* Random piece lists with regular runs, nested runs, overlaps and irregular pieces. */
std::vector<P> random_pieces(std::mt19937_64 &rng)
{
    std::vector<P> v;
    int64_t pos = (int64_t)(rng() % 50);
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
    return v;
}

TEST(Sections, RandomRoundTripsGiveThePieceList)
{
    std::mt19937_64 rng(20261125);
    for (int trial = 0; trial < 20000; trial++) {
        std::vector<P> v = random_pieces(rng);
        Code c = encode(v);
        ASSERT_EQ(decode(c), v) << "trial " << trial;
        /* Never longer than the plain list, plus the count word when there are sections. */
        ASSERT_LE((int64_t)c.size(), (int64_t)(c.size() % 2) + 2 * (int64_t)v.size());
    }
}

} // namespace
