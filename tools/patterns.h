/*
 * The access patterns of mcio-bench and mcio-plan, in one place: each pattern gives one rank's
 * extents (what mcio-bench writes and reads) and, for the patterns mcio-plan plans at scale,
 * every rank's summary in closed form (first byte, end, bytes: what the planner sees). Pure:
 * no MPI, so mcio-plan links it without MPI; the caller gives coll_perf's process grid
 * (mcio-bench: MPI_Dims_create; mcio-plan: patterns_grid, the same factorization).
 * The layouts are described in mcio-bench --help.
 */
#ifndef MCIO_PATTERNS_H
#define MCIO_PATTERNS_H

#include <stdint.h>

#include "mcio_planner.h" /* mcio_summary */

#ifdef __cplusplus
extern "C" {
#endif

#define HACC_PARTICLE 38 /* xx yy zz vx vy vz phi: float32; pid: int64; mask: uint16 */
#define COLL_PERF_ELEM 4 /* coll_perf's array of int */

/* GCRM-like output: GCRM_VARS variables of GCRM_LAYERS layers of 8-byte values. */
enum { GCRM_VARS = 8, GCRM_LAYERS = 32, GCRM_ELEM = 8 };
/* FLASH-IO's blocks: 16^3 cells, 4 guard cells a side in memory, 24 variables of 8 bytes. */
enum { FLASH_NXB = 16, FLASH_NG = 4, FLASH_MEM = FLASH_NXB + 2 * FLASH_NG, FLASH_ELEM = 8,
       FLASH_VARS = 24, FLASH_BLOCK = FLASH_NXB * FLASH_NXB * FLASH_NXB * FLASH_ELEM };

typedef struct pattern_args {
    int64_t size;       /* --size: bytes per rank */
    int64_t transfer;   /* --transfer: ior's transfer size */
    int64_t random_max; /* --random-max: random, tapioca */
    uint64_t seed;      /* --seed: random, tapioca */
    int dims[3];        /* coll_perf's process grid, as MPI_Dims_create(nprocs, 3) gives it */
} pattern_args;

/* One extent of a rank, in increasing offset order; mem is its displacement in the rank's
 * memory, or -1 when the rank's memory is packed. */
typedef void (*pattern_emit)(void *ctx, int64_t off, int64_t len, int64_t mem);

typedef struct pattern {
    const char *name;
    /* Emits the extents of one rank. Returns 0, or -1 when out of memory. */
    int (*extents)(const pattern_args *a, int rank, int nprocs, pattern_emit emit, void *ctx);
    /* Every rank's summary in closed form (NULL: derive it from extents). 0, or -1. */
    int (*summaries)(const pattern_args *a, int nprocs, mcio_summary *s);
    int64_t min_size; /* smallest --size that gives a rank any data; 0: --size unused */
    int transfer;     /* 1: --transfer applies and may not exceed --size (ior, mpi-io-test) */
} pattern;

extern const pattern patterns[];
extern const int npatterns;

/* The pattern of that name, or NULL. */
const pattern *patterns_find(const char *name);

/* Every rank's summary: closed form when the pattern has one, else from each rank's extents.
 * Returns 0, or -1 when out of memory. */
int patterns_summaries(const pattern *p, const pattern_args *a, int nprocs, mcio_summary *s);

/* A balanced 3-D grid as MPI_Dims_create makes it (prime factors, largest first, each to the
 * smallest dimension; then non-increasing). */
void patterns_grid(int n, int d[3]);

/* flash-io's shape for these arguments: variables, and blocks per rank. */
void patterns_flash_shape(const pattern_args *a, int64_t *nvars, int64_t *nblocks);

#ifdef __cplusplus
}
#endif

#endif
