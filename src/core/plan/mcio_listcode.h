/*
 * The wire form of an offset-length list (listcode.c): what a rank tells an aggregator about its
 * pieces in the aggregator's domain, in bytes that grow with the pattern's irregularity, not
 * with 16 bytes a piece. Pure: the engine encodes a rank's pieces in each aggregator's domain
 * (mcio_schedule_rank cuts them there) and sends the code; the aggregator decodes it.
 *
 * Glossary:
 *   piece     (offset, length) in the file, length > 0.
 *   unit      the greatest common divisor of the list's offsets and lengths (8 for a climate
 *             model's doubles): every field is sent in units, so small.
 *   vector    count blocks of blocklen bytes, each stride bytes after the previous one
 *             (stride >= blocklen: in file order, never overlapping).
 *   section   ocount vectors, each ostride bytes after the previous one (ostride at least the
 *             vector's span): a 2-D subarray's rows, or a 3-D one's rows within planes.
 *   item      a piece, a vector (3 blocks or more) or a section (2 vectors or more), in the
 *             list's order; its gap is its first byte less the end of the item before
 *             (0 before the first item), negative where pieces overlap (a read's may).
 *   varint    an unsigned LEB128 number: 7 bits a byte, low bits first, the top bit set on
 *             every byte but the last; signed numbers as zigzag (0, -1, 1, -2 ... as 0, 1, 2,
 *             3 ...).
 *   code      the bytes sent: [form] then, form MCIO_LISTCODE_RAW, (offset, length) int64
 *             pairs in this host's byte order (the ranks of a job share one); form
 *             MCIO_LISTCODE_VARINT, [unit] then per item [zigzag(gap / unit)]
 *             [(blocklen / unit - 1) * 4 + kind] (kind 0 piece, 1 vector, 2 section), a
 *             vector then [count - 3] [(stride - blocklen) / unit], a section [count - 3]
 *             [(stride - blocklen) / unit] [ocount - 2] [(ostride - span) / unit]; every
 *             field a varint. The encoder takes the raw form where the varints would be
 *             longer, so a code never takes more than 16 bytes a piece and the form byte.
 * A climate model's pieces of 8-64 bytes (tools/patterns.c: fragmented) cost 2-3 bytes each
 * this way, a subarray's rows a few bytes per section.
 */
#ifndef MCIO_LISTCODE_H
#define MCIO_LISTCODE_H

#include <stdint.h>

#include "mcio_planner.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MCIO_LISTCODE_RAW = 0, MCIO_LISTCODE_VARINT = 1 };

/* The most bytes a code of n pieces takes: the raw form's (a form byte, 16 bytes a piece). */
static inline int64_t mcio_listcode_max_bytes(int64_t n)
{
    return 1 + 16 * n;
}

/*
 * Encode n pieces (off >= 0, len > 0, in file order; overlaps allowed) into code, which must
 * hold mcio_listcode_max_bytes(n) bytes. Returns the bytes written (0 for no pieces).
 */
int64_t mcio_listcode_encode(const mcio_piece *pieces, int64_t n, uint8_t *code);

/* The pieces a code of nbytes bytes describes, or -1 when it is malformed (a field cut short or
 * beyond 64 bits, a length or count out of range, an offset negative or past INT64_MAX). */
int64_t mcio_listcode_count(const uint8_t *code, int64_t nbytes);

/*
 * Decode a code into its pieces, sorted by (offset, length) (the order they were encoded in
 * when that was so, as the engine's lists are); out must hold mcio_listcode_count(code)
 * pieces (mem is set to 0). Returns the pieces written, or -1 when the code is malformed.
 */
int64_t mcio_listcode_decode(const uint8_t *code, int64_t nbytes, mcio_piece *out);

#ifdef __cplusplus
}
#endif

#endif
