/*
 * Compact access descriptions (mcio_sections.h): regular sections with a piece list only for
 * what is irregular, so that what a rank tells an aggregator about its accesses grows with the
 * regularity of the pattern, not with its pieces. ROMIO's two-phase I/O (Thakur, Gropp, Lusk
 * 1999) sends every offset-length pair ("others_req") to every aggregator; the papers' patterns
 * are regular (IOR's interleaved transfers, coll_perf's and FLASH-IO's subarrays, HACC's
 * fields), as the datatypes that describe them are, and a few words per section say as much.
 * Pure: arrays in, arrays out.
 */
#include "mcio_sections.h"

#include <stdlib.h>
#include <string.h>

typedef struct section {
    int64_t start, count, blocklen, stride, ocount, ostride;
} section;

static section section_at(const int64_t *code, int64_t k)
{
    const int64_t *w = &code[1 + MCIO_SECTION_WORDS * k];
    return (section){w[0], w[1], w[2], w[3], w[4], w[5]};
}

/* The span of one vector of s, from its first byte to the end of its last block. */
static int64_t vector_span(const section *s)
{
    return (s->count - 1) * s->stride + s->blocklen;
}

/* Is a*b + c within [0, INT64_MAX] for a, b, c >= 0? */
static int fits(int64_t a, int64_t b, int64_t c)
{
    return a == 0 || b <= (INT64_MAX - c) / a;
}

static int section_valid(const section *s)
{
    if (s->start < 0 || s->count < 1 || s->blocklen < 1 || s->ocount < 1)
        return 0;
    if (s->count > 1 && (s->stride < s->blocklen || !fits(s->count - 1, s->stride, s->blocklen)))
        return 0;
    if (s->count == 1 && s->stride != s->blocklen)
        return 0;
    int64_t span = vector_span(s);
    if (s->ocount > 1 && (s->ostride < span || !fits(s->ocount - 1, s->ostride, span)))
        return 0;
    if (s->ocount == 1 && s->ostride != 0)
        return 0;
    int64_t total = (s->ocount - 1) * s->ostride + span;
    return s->start <= INT64_MAX - total && s->count <= INT64_MAX / s->ocount;
}

/* Where the pairs start: an even-length code is pairs only; an odd one opens with its number
 * of sections (-1: more sections than words). */
static int64_t pairs_at(const int64_t *code, int64_t nwords)
{
    if (nwords % 2 == 0)
        return 0;
    if (code[0] < 0 || code[0] > (nwords - 1) / MCIO_SECTION_WORDS)
        return -1;
    return 1 + MCIO_SECTION_WORDS * code[0];
}

static int64_t sections_of(const int64_t *code, int64_t nwords)
{
    return nwords % 2 ? code[0] : 0;
}

int64_t mcio_sections_count(const int64_t *code, int64_t nwords)
{
    int64_t at = nwords >= 0 ? pairs_at(code, nwords) : -1;
    if (at < 0 || (nwords - at) % 2)
        return -1;
    int64_t nsec = sections_of(code, nwords), n = (nwords - at) / 2;
    for (int64_t k = 0; k < nsec; k++) {
        section s = section_at(code, k);
        if (!section_valid(&s) || s.count * s.ocount > INT64_MAX - n)
            return -1;
        n += s.count * s.ocount;
    }
    for (int64_t w = at; w < nwords; w += 2)
        if (code[w] < 0 || code[w + 1] < 1 || code[w] > INT64_MAX - code[w + 1])
            return -1;
    return n;
}

static int cmp_piece(const void *a, const void *b)
{
    const mcio_piece *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (x->len > y->len) - (x->len < y->len);
}

int64_t mcio_sections_decode(const int64_t *code, int64_t nwords, mcio_piece *out)
{
    int64_t n = mcio_sections_count(code, nwords), m = 0;
    if (n < 0)
        return -1;
    int64_t nsec = sections_of(code, nwords);
    for (int64_t k = 0; k < nsec; k++) {
        section s = section_at(code, k);
        for (int64_t o = 0; o < s.ocount; o++)
            for (int64_t i = 0; i < s.count; i++)
                out[m++] = (mcio_piece){s.start + o * s.ostride + i * s.stride, s.blocklen, 0};
    }
    for (int64_t w = pairs_at(code, nwords); w < nwords; w += 2)
        out[m++] = (mcio_piece){code[w], code[w + 1], 0};
    int sorted = 1;
    for (int64_t i = 1; i < m && sorted; i++)
        sorted = cmp_piece(&out[i - 1], &out[i]) <= 0;
    if (!sorted)
        qsort(out, (size_t)m, sizeof *out, cmp_piece);
    return m;
}

/* The code being written: sections from the front (after the count word), pairs after them. */
typedef struct writer {
    int64_t *code;
    int64_t nsec, npairs;
    int pairs; /* 0: this pass writes sections, 1: pairs (after every section) */
} writer;

static void put_pair(writer *w, int64_t off, int64_t len)
{
    if (!w->pairs)
        return;
    int64_t at = 1 + MCIO_SECTION_WORDS * w->nsec + 2 * w->npairs++;
    w->code[at] = off;
    w->code[at + 1] = len;
}

/* Put ocount vectors of count blocks: as a section when that is shorter than its pairs (three
 * blocks or more), else as pairs. */
static void put_section(writer *w, section s)
{
    if (s.count == 1)
        s.stride = s.blocklen;
    if (s.ocount == 1)
        s.ostride = 0;
    if (s.count * s.ocount >= 3) {
        if (w->pairs)
            return;
        int64_t *at = &w->code[1 + MCIO_SECTION_WORDS * w->nsec++];
        at[0] = s.start, at[1] = s.count, at[2] = s.blocklen;
        at[3] = s.stride, at[4] = s.ocount, at[5] = s.ostride;
        return;
    }
    for (int64_t o = 0; o < s.ocount; o++)
        for (int64_t i = 0; i < s.count; i++)
            put_pair(w, s.start + o * s.ostride + i * s.stride, s.blocklen);
}

/* How many pieces from i on continue piece i's length at a constant stride >= that length. */
static int64_t run_of(const mcio_piece *p, int64_t n, int64_t i)
{
    if (i + 1 >= n || p[i + 1].len != p[i].len || p[i + 1].off - p[i].off < p[i].len)
        return 1;
    int64_t stride = p[i + 1].off - p[i].off, k = i + 2;
    while (k < n && p[k].len == p[i].len && p[k].off - p[k - 1].off == stride)
        k++;
    return k - i;
}

/* Do the s.count pieces from at on repeat the vector s (its block length and stride)? */
static int repeats(const mcio_piece *p, int64_t at, const section *s)
{
    for (int64_t k = at; k < at + s->count; k++)
        if (p[k].len != s->blocklen || (k > at && p[k].off - p[k - 1].off != s->stride))
            return 0;
    return 1;
}

int64_t mcio_sections_encode(const mcio_piece *pieces, int64_t n, int64_t *code)
{
    /* Pass 1 writes the sections, pass 2 the pairs; both find the same runs. */
    writer w = {.code = code};
    for (w.pairs = 0; w.pairs < 2; w.pairs++) {
        int64_t i = 0;
        while (i < n) {
            int64_t c = run_of(pieces, n, i);
            if (c < 3) {
                put_pair(&w, pieces[i].off, pieces[i].len);
                i++;
                continue;
            }
            /* A vector: now repeat it while the next vectors are equal and evenly spaced. */
            section s = {pieces[i].off, c, pieces[i].len, pieces[i + 1].off - pieces[i].off, 1, 0};
            int64_t next = i + c, span = vector_span(&s);
            while (next + c <= n && repeats(pieces, next, &s)) {
                int64_t gap = pieces[next].off - (s.start + (s.ocount - 1) * s.ostride);
                if (gap < span || (s.ocount > 1 && gap != s.ostride))
                    break;
                s.ostride = gap;
                s.ocount++;
                next += c;
            }
            put_section(&w, s);
            i = next;
        }
    }
    code[0] = w.nsec;
    int64_t words = 1 + MCIO_SECTION_WORDS * w.nsec + 2 * w.npairs;
    if (w.nsec == 0) { /* pairs only: no count word, the even length says so */
        memmove(code, code + 1, (size_t)(words - 1) * sizeof *code);
        words--;
    }
    return words;
}
