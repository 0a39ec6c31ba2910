/*
 * Hints: parsed once, from strings, into a plain struct that is passed by value to whoever
 * needs it. Pure (no MPI): the engine reads the MPI_Info and the MCIO_HINTS file and feeds
 * each key/value pair to mcio_hints_set. The keys, defaults and meanings are in docs/hints.md.
 */
#ifndef MCIO_HINTS_H
#define MCIO_HINTS_H

#include <stdint.h>

#include "mcio_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCIO_NAME_LEN 32

typedef struct mcio_hints {
    int64_t cb_buffer_size; /* ROMIO's cb_buffer_size: 16 MiB */
    int cb_nodes;           /* ROMIO's cb_nodes: 0 = one aggregator per node */
    int64_t striping_unit;  /* ROMIO's striping_unit: 0 = no alignment */
    char strategy[MCIO_NAME_LEN];   /* mcio_strategy: romio */
    char io_backend[MCIO_NAME_LEN]; /* mcio_io_backend: mpiio, posix, null, slow */
    int pipeline_depth;             /* mcio_pipeline_depth: sub-buffers in flight; 1 = classic */
    int64_t subbuffer_size;         /* mcio_subbuffer_size: 0 = stripe, or block-size multiple */
    char transport[8];              /* mcio_transport: p2p (two-sided) or rma (one-sided) */
    double slow_call_seconds;       /* mcio_slow_call_seconds: slow backend, delay per call */
    double slow_byte_seconds;       /* mcio_slow_byte_seconds: slow backend, delay per byte */
} mcio_hints;

/* The defaults. */
mcio_hints mcio_hints_default(void);

/*
 * Apply one key/value pair. Keys that are neither mcio_* nor one of ROMIO's we honour are
 * ignored (returns 0; they are meant for the MPI library). An unknown mcio_* key or a
 * malformed value returns MCIO_ERR_HINT with a message naming the key and the value.
 * `where` names the source for the message ("MPI_Info", "/path/hints:3").
 */
int mcio_hints_set(mcio_hints *h, const char *key, const char *value, const char *where,
                   char detail[MCIO_DETAIL_LEN]);

/* Parse one line of a hints file ("key value", '#' comments, blank lines). *key and *value
 * point into line, which is modified. Returns 1 for a pair, 0 for a blank/comment line, -1
 * for a malformed line. */
int mcio_hints_parse_line(char *line, char **key, char **value);

/* Write hint i (0-based) as key/value strings; returns 0 past the last. */
int mcio_hints_get(const mcio_hints *h, int i, char *key, int keylen, char *value, int valuelen);

/* The planning parameters the hints imply. */
mcio_plan_params mcio_hints_plan_params(const mcio_hints *h);

#ifdef __cplusplus
}
#endif

#endif
