/* The access patterns of mcio-bench and mcio-plan: see patterns.h. */
#include "patterns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_splitmix64.h"

static const mcio_summary none = {0, 0, 0};

/* ---- contiguous: each rank one block of --size bytes, ranks in rank order ---- */

static int contiguous_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit,
                              void *ctx)
{
    (void)nprocs;
    emit(ctx, rank * a->size, a->size, -1);
    return 0;
}

static int contiguous_summaries(const pattern_args *a, int n, mcio_summary *s)
{
    for (int r = 0; r < n; r++)
        s[r] = (mcio_summary){r * a->size, (r + 1) * a->size, a->size};
    return 0;
}

/* ---- ior (and mpi-io-test): segments of --transfer bytes, ranks interleaved in each ---- */

static int ior_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit, void *ctx)
{
    int64_t t = a->transfer, segments = a->size / a->transfer;
    for (int64_t s = 0; s < segments; s++)
        emit(ctx, (s * nprocs + rank) * t, t, -1);
    return 0;
}

static int ior_summaries(const pattern_args *a, int n, mcio_summary *s)
{
    int64_t t = a->transfer, seg = t > 0 ? a->size / t : 0;
    for (int r = 0; r < n; r++)
        s[r] = seg ? (mcio_summary){r * t, ((seg - 1) * n + r) * t + t, seg * t} : none;
    return 0;
}

/* ---- coll_perf: the local block is n x n x n2 ints, n = cube root of the ints in --size and
 * the last dimension taking the rest, so a rank holds close to --size bytes whatever the grid ---- */

static int64_t cube_side(int64_t e)
{
    int64_t n = (int64_t)cbrt((double)e);
    while ((n + 1) * (n + 1) * (n + 1) <= e)
        n++;
    while (n > 1 && n * n * n > e)
        n--;
    return n;
}

static int coll_perf_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit,
                             void *ctx)
{
    (void)nprocs;
    const int *dims = a->dims;
    int64_t e = a->size / COLL_PERF_ELEM, n = cube_side(e);
    int64_t n2 = e / (n * n);
    int64_t c0 = rank / (dims[1] * dims[2]), c1 = rank / dims[2] % dims[1], c2 = rank % dims[2];
    int64_t g1 = dims[1] * n, g2 = dims[2] * n2; /* global sizes of the two inner dimensions */
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            emit(ctx, COLL_PERF_ELEM * (((c0 * n + i) * g1 + c1 * n + j) * g2 + c2 * n2),
                 COLL_PERF_ELEM * n2, -1);
    return 0;
}

static int coll_perf_summaries(const pattern_args *a, int n, mcio_summary *s)
{
    const int *d = a->dims;
    int64_t e = a->size / COLL_PERF_ELEM, m = cube_side(e);
    int64_t m2 = m > 0 ? e / (m * m) : 0, g1 = d[1] * m, g2 = d[2] * m2;
    for (int r = 0; r < n; r++) {
        int64_t c0 = r / (d[1] * d[2]), c1 = r / d[2] % d[1], c2 = r % d[2];
        int64_t first = ((c0 * m) * g1 + c1 * m) * g2 + c2 * m2;
        int64_t last = ((c0 * m + m - 1) * g1 + c1 * m + m - 1) * g2 + c2 * m2 + m2;
        s[r] = m2 > 0 ? (mcio_summary){COLL_PERF_ELEM * first, COLL_PERF_ELEM * last,
                                       COLL_PERF_ELEM * m * m * m2}
                      : none;
    }
    return 0;
}

void patterns_grid(int n, int d[3])
{
    int f[64], nf = 0;
    for (int p = 2, m = n; m > 1 && nf < 64; p++) {
        if ((int64_t)p * p > m)
            p = m;
        while (m % p == 0 && nf < 64)
            f[nf++] = p, m /= p;
    }
    d[0] = d[1] = d[2] = 1;
    for (int i = nf - 1; i >= 0; i--) {
        int k = d[0] <= d[1] && d[0] <= d[2] ? 0 : d[1] <= d[2] ? 1 : 2;
        d[k] *= f[i];
    }
    for (int i = 0; i < 2; i++) /* sort non-increasing */
        for (int j = 0; j < 2 - i; j++)
            if (d[j] < d[j + 1]) {
                int t = d[j];
                d[j] = d[j + 1];
                d[j + 1] = t;
            }
}

/* ---- hacc-aos, hacc-soa: 38-byte particles, records contiguous or one array per field ---- */

static int hacc_aos_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit,
                            void *ctx)
{
    (void)nprocs;
    int64_t np = a->size / HACC_PARTICLE;
    emit(ctx, rank * np * HACC_PARTICLE, np * HACC_PARTICLE, -1);
    return 0;
}

static int hacc_aos_summaries(const pattern_args *a, int n, mcio_summary *s)
{
    int64_t b = a->size / HACC_PARTICLE * HACC_PARTICLE;
    for (int r = 0; r < n; r++)
        s[r] = b ? (mcio_summary){r * b, (r + 1) * b, b} : none;
    return 0;
}

static int hacc_soa_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit,
                            void *ctx)
{
    static const int field[9] = {4, 4, 4, 4, 4, 4, 4, 8, 2};
    int64_t np = a->size / HACC_PARTICLE, base = 0;
    for (int f = 0; f < 9; f++) {
        emit(ctx, base + rank * np * field[f], np * field[f], -1);
        base += nprocs * np * field[f];
    }
    return 0;
}

static int hacc_soa_summaries(const pattern_args *a, int n, mcio_summary *s)
{
    int64_t np = a->size / HACC_PARTICLE, last_base = (int64_t)n * np * (HACC_PARTICLE - 2);
    for (int r = 0; r < n; r++)
        s[r] = np ? (mcio_summary){r * np * 4, last_base + (r + 1) * np * 2, np * HACC_PARTICLE}
                  : none;
    return 0;
}

/* ---- random: every rank draws the same global sequence (same seed): the file is walked from
 * offset 0, each extent going to a random rank with bytes left, lengths log-uniform from 1 byte
 * to 64 KiB, and now and then a hole that nobody names ---- */

typedef void (*random_visit)(void *ctx, int rank, int64_t off, int64_t len);

static int random_walk(const pattern_args *a, int nprocs, random_visit visit, void *ctx)
{
    uint64_t s = a->seed;
    int64_t *left = malloc((size_t)nprocs * sizeof(int64_t)), remaining = 0, pos = 0;
    if (!left)
        return -1;
    for (int r = 0; r < nprocs; r++)
        remaining += left[r] = (int64_t)(splitmix64(&s) % (uint64_t)(a->random_max + 1));
    while (remaining > 0) {
        uint64_t x = splitmix64(&s), y = splitmix64(&s);
        if (x % 4 == 0)
            pos += (int64_t)((x >> 2) % 4096);
        int r = (int)((x >> 16) % (uint64_t)nprocs);
        while (left[r] == 0)
            r = (r + 1) % nprocs;
        int64_t len = 1 + (int64_t)((y >> 5) % (1ull << (y % 17)));
        len = len < left[r] ? len : left[r];
        visit(ctx, r, pos, len);
        left[r] -= len, remaining -= len, pos += len;
    }
    free(left);
    return 0;
}

typedef struct random_one {
    int rank;
    pattern_emit emit;
    void *ctx;
} random_one;

static void random_keep_mine(void *ctx, int rank, int64_t off, int64_t len)
{
    random_one *o = ctx;
    if (rank == o->rank)
        o->emit(o->ctx, off, len, -1);
}

static int random_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit,
                          void *ctx)
{
    random_one o = {.rank = rank, .emit = emit, .ctx = ctx};
    return random_walk(a, nprocs, random_keep_mine, &o);
}

static void random_summarize(void *ctx, int rank, int64_t off, int64_t len)
{
    mcio_summary *s = (mcio_summary *)ctx + rank;
    if (s->bytes == 0)
        s->start = off;
    s->end = off + len;
    s->bytes += len;
}

static int random_summaries(const pattern_args *a, int n, mcio_summary *s)
{
    for (int r = 0; r < n; r++)
        s[r] = none;
    return random_walk(a, n, random_summarize, s);
}

/* ---- fragmented: a climate model's decomposition (E3SM-IO's, PIO's): the file is an array of
 * 8-byte values cut into runs of 1 to 8 values (8-64 bytes), each run owned by a rank drawn at
 * random (the same draws on every rank, --seed), never the owner of the run before, so no two
 * runs merge: each rank holds about --size bytes in thousands of short irregular pieces, and
 * the whole file is covered ---- */

enum { FRAG_ELEM = 8, FRAG_MAX_RUN = 8 };

static int fragmented_walk(const pattern_args *a, int nprocs, random_visit visit, void *ctx)
{
    uint64_t s = a->seed;
    int64_t end = a->size / FRAG_ELEM * FRAG_ELEM * nprocs;
    int prev = -1;
    for (int64_t pos = 0; pos < end;) {
        uint64_t x = splitmix64(&s);
        int64_t len = FRAG_ELEM * (1 + (int64_t)(x % FRAG_MAX_RUN));
        int r = (int)((x >> 8) % (uint64_t)nprocs);
        if (r == prev && nprocs > 1)
            r = (r + 1 + (int)((x >> 40) % (uint64_t)(nprocs - 1))) % nprocs;
        len = len < end - pos ? len : end - pos;
        visit(ctx, r, pos, len);
        prev = r, pos += len;
    }
    return 0;
}

static int fragmented_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit,
                              void *ctx)
{
    random_one o = {.rank = rank, .emit = emit, .ctx = ctx};
    return fragmented_walk(a, nprocs, random_keep_mine, &o);
}

static int fragmented_summaries(const pattern_args *a, int n, mcio_summary *s)
{
    for (int r = 0; r < n; r++)
        s[r] = none;
    return fragmented_walk(a, n, random_summarize, s);
}

/* ---- tapioca: TAPIOCA's micro-benchmark (Tessier et al. 2017, section 5.2): every rank one
 * block of a random size from 0 to --random-max bytes (the same draws on every rank, --seed),
 * the blocks one after another in rank order ---- */

static int tapioca_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit,
                           void *ctx)
{
    uint64_t s = a->seed;
    int64_t off = 0;
    for (int r = 0; r < nprocs && r <= rank; r++) {
        int64_t len = (int64_t)(splitmix64(&s) % (uint64_t)(a->random_max + 1));
        if (r == rank)
            emit(ctx, off, len, -1);
        off += len;
    }
    return 0;
}

/* ---- gcrm: GCRM_VARS variables, each a [layers][cells] array of doubles, cells split evenly
 * over the ranks, so every layer of every variable holds one stretch of each rank. Layers: 32,
 * or fewer when --size is small; cells per rank: what --size leaves ---- */

static int gcrm_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit, void *ctx)
{
    int64_t per_var = a->size / GCRM_VARS / GCRM_ELEM; /* values per variable on this rank */
    int64_t layers = per_var < GCRM_LAYERS ? per_var : GCRM_LAYERS, cells = per_var / layers;
    int64_t row = (int64_t)nprocs * cells * GCRM_ELEM; /* one layer of one variable */
    for (int v = 0; v < GCRM_VARS; v++)
        for (int64_t k = 0; k < layers; k++)
            emit(ctx, (v * layers + k) * row + rank * cells * GCRM_ELEM, cells * GCRM_ELEM, -1);
    return 0;
}

/* ---- flash-io: FLASH-IO's checkpoint. Each rank holds blocks of 16^3 cells with 4 guard cells
 * a side (24^3 in memory) for each of 24 variables of 8-byte reals, as unk[block][var][24][24][24]
 * (FLASH's index-reordered unk(i,j,k,var,blk)), so each interior row of 16 cells is contiguous
 * in memory and guard cells lie between the rows. Only the interiors go to the file, laid out
 * as FLASH-IO's HDF5 checkpoint: one dataset per variable, each holding all ranks' blocks in
 * rank order. Scaled: blocks per rank from --size (32 KiB per block and variable); fewer
 * variables when --size holds less than one block of each ---- */

void patterns_flash_shape(const pattern_args *a, int64_t *nvars, int64_t *nblocks)
{
    int64_t nv = a->size / FLASH_BLOCK < FLASH_VARS ? a->size / FLASH_BLOCK : FLASH_VARS;
    *nvars = nv;
    *nblocks = a->size / (nv * FLASH_BLOCK);
}

static int flash_io_extents(const pattern_args *a, int rank, int nprocs, pattern_emit emit,
                            void *ctx)
{
    int64_t nv, nb;
    patterns_flash_shape(a, &nv, &nb);
    const int64_t row = FLASH_NXB * FLASH_ELEM, mrow = FLASH_MEM * FLASH_ELEM;
    for (int64_t v = 0; v < nv; v++)
        for (int64_t b = 0; b < nb; b++)
            for (int64_t k = 0; k < FLASH_NXB; k++)
                for (int64_t j = 0; j < FLASH_NXB; j++)
                    emit(ctx, ((v * nprocs + rank) * nb + b) * FLASH_BLOCK + (k * FLASH_NXB + j) * row,
                         row,
                         (((b * nv + v) * FLASH_MEM + k + FLASH_NG) * FLASH_MEM + j + FLASH_NG) *
                                 mrow +
                             FLASH_NG * FLASH_ELEM);
    return 0;
}

/* ---- The table ---- */

const pattern patterns[] = {
    {.name = "contiguous", .extents = contiguous_extents, .summaries = contiguous_summaries,
     .min_size = 1},
    {.name = "ior", .extents = ior_extents, .summaries = ior_summaries, .min_size = 1,
     .transfer = 1},
    {.name = "coll_perf", .extents = coll_perf_extents, .summaries = coll_perf_summaries,
     .min_size = COLL_PERF_ELEM},
    {.name = "hacc-aos", .extents = hacc_aos_extents, .summaries = hacc_aos_summaries,
     .min_size = HACC_PARTICLE},
    {.name = "hacc-soa", .extents = hacc_soa_extents, .summaries = hacc_soa_summaries,
     .min_size = HACC_PARTICLE},
    {.name = "random", .extents = random_extents, .summaries = random_summaries, .min_size = 0},
    {.name = "tapioca", .extents = tapioca_extents, .min_size = 0},
    {.name = "mpi-io-test", .extents = ior_extents, .summaries = ior_summaries, .min_size = 1,
     .transfer = 1},
    {.name = "gcrm", .extents = gcrm_extents, .min_size = GCRM_VARS * GCRM_ELEM},
    {.name = "flash-io", .extents = flash_io_extents, .min_size = FLASH_BLOCK},
    {.name = "fragmented", .extents = fragmented_extents, .summaries = fragmented_summaries,
     .min_size = FRAG_ELEM},
};
const int npatterns = (int)(sizeof patterns / sizeof patterns[0]);

const pattern *patterns_find(const char *name)
{
    for (int k = 0; k < npatterns; k++)
        if (!strcmp(patterns[k].name, name))
            return &patterns[k];
    return NULL;
}

static void summarize(void *ctx, int64_t off, int64_t len, int64_t mem)
{
    (void)mem;
    mcio_summary *s = ctx;
    if (len <= 0)
        return;
    if (s->bytes == 0 || off < s->start)
        s->start = off;
    if (s->bytes == 0 || off + len > s->end)
        s->end = off + len;
    s->bytes += len;
}

int patterns_summaries(const pattern *p, const pattern_args *a, int nprocs, mcio_summary *s)
{
    if (p->summaries)
        return p->summaries(a, nprocs, s);
    for (int r = 0; r < nprocs; r++) {
        s[r] = none;
        if (p->extents(a, r, nprocs, summarize, &s[r]))
            return -1;
    }
    return 0;
}
