/*
 * Fuzz target: the wire form of offset-length lists (src/core/plan/listcode.c), both ways.
 * The input is a code as an aggregator receives it: mcio_listcode_count and
 * mcio_listcode_decode must refuse it (-1, both) or agree on its pieces, each with an offset
 * >= 0, a length >= 1 and an end within INT64_MAX, sorted by (offset, length); and those pieces,
 * encoded again, must decode into the same pieces in no more than the raw form's bytes. Codes
 * that describe more than MOST pieces (a few bytes may stand for 2^60) are counted, not decoded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_listcode.h"

enum { MOST = 1 << 16 };

#define FAIL(...)                                                                             \
    do {                                                                                      \
        fprintf(stderr, __VA_ARGS__);                                                         \
        fputc('\n', stderr);                                                                  \
        __builtin_trap();                                                                     \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t n = mcio_listcode_count(data, (int64_t)size);
    if (n < 0 || n > MOST)
        return 0;
    mcio_piece *p = malloc(((size_t)n + 1) * sizeof *p), *q = malloc(((size_t)n + 1) * sizeof *q);
    uint8_t *code = malloc((size_t)mcio_listcode_max_bytes(n) + 1);
    if (!p || !q || !code)
        FAIL("out of memory for %lld pieces", (long long)n);
    if (mcio_listcode_decode(data, (int64_t)size, p) != n)
        FAIL("count %lld, decode does not agree", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        if (p[i].off < 0 || p[i].len < 1 || p[i].off > INT64_MAX - p[i].len)
            FAIL("piece %lld out of range", (long long)i);
        if (i > 0 && (p[i].off < p[i - 1].off ||
                      (p[i].off == p[i - 1].off && p[i].len < p[i - 1].len)))
            FAIL("piece %lld out of order", (long long)i);
    }
    int64_t bytes = mcio_listcode_encode(p, n, code);
    if (bytes > mcio_listcode_max_bytes(n) || mcio_listcode_count(code, bytes) != n ||
        mcio_listcode_decode(code, bytes, q) != n)
        FAIL("%lld pieces encoded again: %lld bytes that do not decode", (long long)n,
             (long long)bytes);
    for (int64_t i = 0; i < n; i++)
        if (p[i].off != q[i].off || p[i].len != q[i].len)
            FAIL("piece %lld changed in a round trip", (long long)i);
    free(p);
    free(q);
    free(code);
    return 0;
}
