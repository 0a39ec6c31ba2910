/*
 * The wire form of offset-length lists (mcio_listcode.h; glossary there): regular runs as
 * vectors and sections, everything in units of the list's common divisor, as varints relative to
 * the end of the item before. ROMIO's two-phase I/O (Thakur, Gropp, Lusk 1999) sends every
 * (offset, length) pair as two 8-byte integers ("others_req"); for a climate model's
 * decomposition of 8-64-byte runs that is nearly the data itself (issue 47: 28.9 MB of lists
 * for a 34 MB write). Regular sections (the papers' subarrays and interleaved transfers) say as
 * much in a few bytes; what is irregular is small numbers, a byte or two each as varints
 * (LEB128, as DWARF and Protocol Buffers write them), the way delta-encoded index lists are
 * compressed. Items come in the list's order, so the aggregator decodes them in file order
 * without sorting (the previous form put sections before pairs, and the aggregator sorted every
 * list it received: a sixth of an aggregator's time on the fragmented pattern).
 * Pure: arrays in, arrays out.
 */
#include "mcio_listcode.h"

#include <stdlib.h>
#include <string.h>

typedef struct item {
    int64_t start, count, blocklen, stride, ocount, ostride;
} item;

/* ---- encoding ---- */

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* The list's unit: the greatest common divisor of its offsets and lengths (1 at the least). */
static int64_t unit_of(const mcio_piece *p, int64_t n)
{
    int64_t u = 0;
    for (int64_t i = 0; i < n && u != 1; i++)
        u = gcd64(gcd64(u, p[i].off), p[i].len);
    return u > 0 ? u : 1;
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

/* Do the s->count pieces from at on repeat the vector s (its block length and stride)? */
static int repeats(const mcio_piece *p, int64_t at, const item *s)
{
    for (int64_t k = at; k < at + s->count; k++)
        if (p[k].len != s->blocklen || (k > at && p[k].off - p[k - 1].off != s->stride))
            return 0;
    return 1;
}

/* The span of one vector of s, from its first byte to the end of its last block. */
static int64_t vector_span(const item *s)
{
    return (s->count - 1) * s->stride + s->blocklen;
}

/* The item that starts at piece i: a section, a vector, or the piece alone; *used: its pieces. */
static item item_at(const mcio_piece *p, int64_t n, int64_t i, int64_t *used)
{
    int64_t c = run_of(p, n, i);
    item s = {p[i].off, 1, p[i].len, p[i].len, 1, 0};
    if (c < 3) {
        *used = 1;
        return s;
    }
    s.count = c, s.stride = p[i + 1].off - p[i].off;
    int64_t next = i + c, span = vector_span(&s);
    while (next + c <= n && repeats(p, next, &s)) {
        int64_t gap = p[next].off - (s.start + (s.ocount - 1) * s.ostride);
        if (gap < span || (s.ocount > 1 && gap != s.ostride))
            break;
        s.ostride = gap;
        s.ocount++;
        next += c;
    }
    *used = next - i;
    return s;
}

/* The code being written; at > cap once it would not fit. */
typedef struct writer {
    uint8_t *code;
    int64_t at, cap;
} writer;

static void put(writer *w, uint64_t v)
{
    do {
        if (w->at >= w->cap) {
            w->at = w->cap + 1;
            return;
        }
        w->code[w->at++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

static uint64_t zigzag(int64_t v)
{
    return v < 0 ? 2 * (uint64_t)(-(v + 1)) + 1 : 2 * (uint64_t)v;
}

/* The varint form of n > 0 pieces into w (its cap the raw form's length); the item ends. */
static void put_varints(writer *w, const mcio_piece *p, int64_t n)
{
    int64_t u = unit_of(p, n), end = 0;
    w->code[w->at++] = MCIO_LISTCODE_VARINT;
    put(w, (uint64_t)u);
    for (int64_t i = 0, used = 0; i < n && w->at <= w->cap; i += used) {
        item s = item_at(p, n, i, &used);
        int kind = s.ocount > 1 ? 2 : s.count > 1 ? 1 : 0;
        if ((uint64_t)(s.blocklen / u) - 1 > UINT64_MAX / 4) {
            w->at = w->cap + 1; /* a length of 2^62 units or more: the raw form holds it */
            return;
        }
        put(w, zigzag((s.start - end) / u));
        put(w, ((uint64_t)(s.blocklen / u) - 1) * 4 + (uint64_t)kind);
        if (kind >= 1) {
            put(w, (uint64_t)(s.count - 3));
            put(w, (uint64_t)((s.stride - s.blocklen) / u));
        }
        if (kind == 2) {
            put(w, (uint64_t)(s.ocount - 2));
            put(w, (uint64_t)((s.ostride - vector_span(&s)) / u));
        }
        end = s.start + (s.ocount - 1) * s.ostride + vector_span(&s);
    }
}

int64_t mcio_listcode_encode(const mcio_piece *pieces, int64_t n, uint8_t *code)
{
    if (n <= 0)
        return 0;
    /* The varint form while it stays shorter than the raw one (cap: the raw form's bytes). */
    writer w = {code, 0, mcio_listcode_max_bytes(n)};
    put_varints(&w, pieces, n);
    if (w.at < w.cap)
        return w.at;
    code[0] = MCIO_LISTCODE_RAW;
    for (int64_t i = 0; i < n; i++) {
        int64_t pair[2] = {pieces[i].off, pieces[i].len};
        memcpy(code + 1 + 16 * i, pair, sizeof pair);
    }
    return mcio_listcode_max_bytes(n);
}

/* ---- decoding ---- */

/* The code being read; bad once anything in it was out of range. */
typedef struct reader {
    const uint8_t *code;
    int64_t at, n;
    int bad;
} reader;

static uint64_t get(reader *r)
{
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        if (r->at >= r->n || shift > 63) {
            r->bad = 1;
            return 0;
        }
        uint8_t b = r->code[r->at++];
        if (shift == 63 && (b & 0x7e)) { /* a 64-bit number's tenth byte holds one bit */
            r->bad = 1;
            return 0;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

/* A field in bytes: v units plus base, or bad when that leaves [0, INT64_MAX]. */
static int64_t scaled(reader *r, uint64_t v, int64_t u, int64_t base)
{
    if (v > (uint64_t)(INT64_MAX - base) / (uint64_t)u) {
        r->bad = 1;
        return 0;
    }
    return base + (int64_t)v * u;
}

/* Is a*b + c within [0, INT64_MAX] for a, b, c >= 0? */
static int fits(int64_t a, int64_t b, int64_t c)
{
    return a == 0 || b <= (INT64_MAX - c) / a;
}

/* The next item, placed after end; bad where it does not fit in [0, INT64_MAX]. */
static item get_item(reader *r, int64_t u, int64_t end)
{
    item s = {0, 1, 0, 0, 1, 0};
    uint64_t z = get(r), head = get(r);
    int kind = (int)(head & 3);
    /* The gap: zigzag(z) back to a signed number of units, then bytes from end on. */
    uint64_t mag = z & 1 ? z / 2 + 1 : z / 2; /* |gap| in units */
    if (z & 1) {
        if (mag > (uint64_t)end / (uint64_t)u)
            r->bad = 1;
        else
            s.start = end - (int64_t)mag * u;
    } else {
        s.start = scaled(r, mag, u, end);
    }
    s.blocklen = scaled(r, head / 4, u, u);
    s.stride = s.blocklen;
    if (kind >= 1) {
        s.count = scaled(r, get(r), 1, 3);
        s.stride = scaled(r, get(r), u, s.blocklen);
        if (!fits(s.count - 1, s.stride, s.blocklen))
            r->bad = 1;
    }
    if (kind == 2) {
        s.ocount = scaled(r, get(r), 1, 2);
        s.ostride = r->bad ? 0 : scaled(r, get(r), u, vector_span(&s));
        if (!r->bad && !fits(s.ocount - 1, s.ostride, vector_span(&s)))
            r->bad = 1;
    }
    if (kind == 3)
        r->bad = 1;
    else if (!r->bad && (s.start > INT64_MAX - (s.ocount - 1) * s.ostride - vector_span(&s) ||
                         s.count > INT64_MAX / s.ocount))
        r->bad = 1;
    return s;
}

/* Walk the varint form: its pieces into out (NULL: only counted). The pieces, or -1. */
static int64_t walk_varints(const uint8_t *code, int64_t nbytes, mcio_piece *out)
{
    reader r = {code, 1, nbytes, 0};
    uint64_t uv = get(&r);
    if (r.bad || uv < 1 || uv > INT64_MAX)
        return -1;
    int64_t u = (int64_t)uv, end = 0, m = 0;
    while (r.at < r.n) {
        item s = get_item(&r, u, end);
        if (r.bad || s.count * s.ocount > INT64_MAX - m)
            return -1;
        for (int64_t o = 0; out && o < s.ocount; o++)
            for (int64_t i = 0; i < s.count; i++)
                out[m + o * s.count + i] =
                    (mcio_piece){s.start + o * s.ostride + i * s.stride, s.blocklen, 0};
        m += s.count * s.ocount;
        end = s.start + (s.ocount - 1) * s.ostride + vector_span(&s);
    }
    return m;
}

/* Walk the raw form likewise. */
static int64_t walk_raw(const uint8_t *code, int64_t nbytes, mcio_piece *out)
{
    if ((nbytes - 1) % 16)
        return -1;
    int64_t n = (nbytes - 1) / 16;
    for (int64_t i = 0; i < n; i++) {
        int64_t pair[2];
        memcpy(pair, code + 1 + 16 * i, sizeof pair);
        if (pair[0] < 0 || pair[1] < 1 || pair[0] > INT64_MAX - pair[1])
            return -1;
        if (out)
            out[i] = (mcio_piece){pair[0], pair[1], 0};
    }
    return n;
}

static int64_t walk(const uint8_t *code, int64_t nbytes, mcio_piece *out)
{
    if (nbytes <= 0)
        return nbytes == 0 ? 0 : -1;
    if (code[0] == MCIO_LISTCODE_RAW)
        return walk_raw(code, nbytes, out);
    return code[0] == MCIO_LISTCODE_VARINT ? walk_varints(code, nbytes, out) : -1;
}

int64_t mcio_listcode_count(const uint8_t *code, int64_t nbytes)
{
    return walk(code, nbytes, NULL);
}

static int cmp_piece(const void *a, const void *b)
{
    const mcio_piece *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (x->len > y->len) - (x->len < y->len);
}

int64_t mcio_listcode_decode(const uint8_t *code, int64_t nbytes, mcio_piece *out)
{
    int64_t m = walk(code, nbytes, out);
    int sorted = 1;
    for (int64_t i = 1; i < m && sorted; i++)
        sorted = cmp_piece(&out[i - 1], &out[i]) <= 0;
    if (!sorted)
        qsort(out, (size_t)m, sizeof *out, cmp_piece);
    return m;
}
