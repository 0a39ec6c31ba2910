/*
 * Normalizing one rank's extent list: validate, sort by file offset, merge what is adjacent in
 * both file and memory. Pure (see mcio_planner.h for the glossary).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "mcio_planner.h"

static int cmp_extent(const void *a, const void *b)
{
    const mcio_extent *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    /* Equal offsets: keep list order (mem increases in packed lists) for a stable result. */
    return (x->mem > y->mem) - (x->mem < y->mem);
}

int mcio_extents_normalize(int64_t count, const int64_t *off, const int64_t *len, const int64_t *mem,
                           int reject_overlap, mcio_extent **out, int64_t *nout,
                           char detail[MCIO_DETAIL_LEN])
{
    mcio_extent *e = NULL;
    int64_t n = 0;
    *out = NULL;
    *nout = 0;
    if (count < 0) {
        snprintf(detail, MCIO_DETAIL_LEN, "extent count %" PRId64 " is negative", count);
        return MCIO_ERR_ARG;
    }
    if (count > 0 && (!off || !len || !mem)) {
        snprintf(detail, MCIO_DETAIL_LEN, "%" PRId64 " extents but a NULL %s array", count,
                 !off ? "offsets" : !len ? "lengths" : "memory");
        return MCIO_ERR_ARG;
    }
    /* One pass validates and copies (room for count; zero lengths dropped) and checks the
     * order: already sorted is the common case (checkpoints), and qsort runs only when not. */
    if (count > 0 && !(e = malloc((size_t)count * sizeof *e))) {
        snprintf(detail, MCIO_DETAIL_LEN, "cannot allocate %" PRId64 " extents", count);
        return MCIO_ERR_NOMEM;
    }
    int sorted = 1;
    for (int64_t i = 0; i < count; i++) {
        const char *bad = len[i] < 0 ? "negative length" : off[i] < 0 ? "negative offset"
                          : off[i] > INT64_MAX - len[i] ? "an end past 2^63" : NULL;
        if (bad) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "extent %" PRId64 " (offset %" PRId64 ", length %" PRId64 ") has %s", i,
                     off[i], len[i], bad);
            free(e);
            return MCIO_ERR_ARG;
        }
        if (len[i] == 0)
            continue;
        e[n] = (mcio_extent){.off = off[i], .len = len[i], .mem = mem[i]};
        if (n > 0 && sorted)
            sorted = e[n - 1].off < e[n].off ||
                     (e[n - 1].off == e[n].off && e[n - 1].mem <= e[n].mem);
        n++;
    }
    if (n == 0) {
        free(e);
        return MCIO_SUCCESS;
    }
    if (!sorted)
        qsort(e, (size_t)n, sizeof *e, cmp_extent);
    int64_t m = 0;
    for (int64_t i = 1; i < n; i++) {
        mcio_extent *last = &e[m];
        if (reject_overlap && e[i].off < last->off + last->len) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "extents overlap: [%" PRId64 ", %" PRId64 ") and [%" PRId64 ", %" PRId64
                     ") are both written by this rank",
                     last->off, last->off + last->len, e[i].off, e[i].off + e[i].len);
            free(e);
            return MCIO_ERR_ARG;
        }
        if (e[i].off == last->off + last->len && e[i].mem == last->mem + last->len)
            last->len += e[i].len;
        else
            e[++m] = e[i];
    }
    *out = e;
    *nout = m + 1;
    return MCIO_SUCCESS;
}

int64_t mcio_own_pack_end(const mcio_extent *ext, int64_t i, int64_t n)
{
    int64_t j = i + 1, bytes = ext[i].len;
    while (j < n && ext[j].off == ext[j - 1].off + ext[j - 1].len &&
           bytes + ext[j].len <= MCIO_OWN_PACK)
        bytes += ext[j++].len;
    return j;
}

int64_t mcio_own_calls(const mcio_extent *ext, int64_t n)
{
    int64_t calls = 0;
    for (int64_t i = 0; i < n; i = mcio_own_pack_end(ext, i, n))
        calls++;
    return calls;
}

mcio_summary mcio_extents_summary(const mcio_extent *ext, int64_t n)
{
    mcio_summary s = {0, 0, 0};
    if (n == 0)
        return s;
    s.start = ext[0].off; /* sorted */
    for (int64_t i = 0; i < n; i++) {
        if (ext[i].off + ext[i].len > s.end)
            s.end = ext[i].off + ext[i].len;
        s.bytes += ext[i].len;
    }
    return s;
}
