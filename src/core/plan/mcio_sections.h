/*
 * Compact access descriptions: a rank's file pieces as regular sections (MPI vectors, and
 * vectors of vectors as subarrays give), with a plain piece list only for what is irregular.
 * Pure: the engine encodes a rank's pieces in each aggregator's domain (mcio_schedule_rank
 * cuts them there) and sends the code; the aggregator decodes it into pieces (sections.c).
 *
 * Glossary:
 *   piece     (offset, length) in the file.
 *   vector    count blocks of blocklen bytes, the first at start, each stride bytes after the
 *             previous one (stride >= blocklen: blocks in file order, never overlapping).
 *   section   ocount vectors, each ostride bytes after the previous one (ostride at least the
 *             vector's span); ocount 1 is a plain vector. A 2-D subarray's rows, or a 3-D
 *             one's rows within planes (coll_perf), are one section; IOR's interleaved
 *             transfers, FLASH-IO's variables and HACC's fields are vectors.
 *   code      the wire form, int64 words. Odd length: [nsections, nsections x 6 words
 *             (start, count, blocklen, stride, ocount, ostride), then (offset, length) pairs
 *             to the end]; even length: (offset, length) pairs only (an irregular list costs
 *             no more than the plain list). Its pieces are the sections' blocks and the
 *             pairs; mcio_sections_decode returns them sorted.
 */
#ifndef MCIO_SECTIONS_H
#define MCIO_SECTIONS_H

#include <stdint.h>

#include "mcio_planner.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MCIO_SECTION_WORDS = 6 };

/* The most words a code of n pieces takes: 1 + 2 n (a section stands for 3 pieces or more). */
static inline int64_t mcio_sections_max_words(int64_t n)
{
    return 1 + 2 * n;
}

/*
 * Encode n pieces (off, len; len > 0; in file order, overlaps allowed) into code, which must
 * hold mcio_sections_max_words(n) words. A run of at least 3 pieces of equal length at a
 * constant stride becomes a vector, and a run of at least 2 equal vectors at a constant
 * distance becomes one section; the rest stay pairs. Returns the words written.
 */
int64_t mcio_sections_encode(const mcio_piece *pieces, int64_t n, int64_t *code);

/* The pieces a code describes, or -1 when the code is malformed (counts, lengths or strides
 * out of range, a section overflowing int64). */
int64_t mcio_sections_count(const int64_t *code, int64_t nwords);

/*
 * Decode a code into its pieces, sorted by (offset, length); out must hold
 * mcio_sections_count(code) pieces (mem is set to 0). Returns the pieces written, or -1
 * when the code is malformed.
 */
int64_t mcio_sections_decode(const int64_t *code, int64_t nwords, mcio_piece *out);

#ifdef __cplusplus
}
#endif

#endif
