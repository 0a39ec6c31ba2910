/*
 * The access patterns of real applications, written collectively over a sentinel-filled file
 * and verified byte for byte: read back through mcio_read_at_all (each rank its own extents,
 * the next rank's, rank 0's all at once, and a slice of the whole file, holes included) and
 * through pread (each rank a slice: the sentinel where nobody wrote, the size unchanged).
 *
 *   contig   one block per rank, passed as three adjacent extents that must merge
 *   ior      IOR's segmented layout: transfer t of rank r in segment s at (s*n + r)*T, each
 *            transfer a little shorter than its slot, so small holes sit between all ranks'
 *            data (the read-modify-write path must keep the sentinel in them)
 *   block3d  coll_perf: a 3-D array in row-major order, each rank a sub-block (one extent per
 *            row of the block, many extents, a header nobody writes)
 *   hacc     HACC-IO: 38-byte particle records in array-of-structures layout, the ranks'
 *            records interleaved record by record; odd ranks list theirs in reverse order
 *   random   seeded random chunks: unsorted lists, holes, ranks without extents, zero-length
 *            extents (one far past the end of the file), adjacent extents that must merge
 *   ior-big  IOR with transfers of ~68 KiB whatever the rank count: several large pieces per
 *            message, contiguous in the sender's memory (sent as plain bytes) and scattered in
 *            the collective buffer (received with a derived datatype), and on odd ranks a small
 *            extent too
 *
 * each under several configurations of hints: the defaults; a collective buffer much smaller
 * than a file domain (many rounds); cb_nodes 2 or 3 (several aggregators, on one host when
 * MCIO_VIRTUAL_RANKS_PER_NODE makes it many nodes); striping_unit; the mpiio and posix backends;
 * MPI_MODE_WRONLY (no read-modify-write) and MPI_MODE_RDWR; romio_cb_write/read disable (no
 * aggregation: each rank moves its own pieces, no buffer). The null backend is run once: the
 * calls succeed and the file is left untouched.
 *
 * Sizes shrink with the rank count (MPICH busy-polls when ranks outnumber cores), and from 8
 * ranks on each pattern runs under one configuration.
 */
#include <math.h>

#include "mcio_test.h"

enum { W_CONTIG, W_IOR, W_BLOCK3D, W_HACC, W_RANDOM, W_IORBIG, W_COUNT };
static const char *const workload_name[W_COUNT] = {"contig", "ior",    "block3d",
                                                   "hacc",   "random", "ior-big"};

#define HACC_RECORD 38 /* 7 floats (x y z vx vy vz phi), int64 id, uint16 mask */
#define HEADER 256     /* bytes at the start of the file that no rank writes */

static int64_t per_rank; /* target bytes per rank */

/* IOR: segments, and the slot of each transfer; each transfer leaves a hole at its slot's end. */
static void gen_ior(int r, int n, mt_extents *e)
{
    const int64_t segments = 6, slot = per_rank / segments, hole = 24;
    for (int64_t s = 0; s < segments; s++)
        mt_ext_push(e, HEADER + (s * n + r) * slot, slot - hole);
}

/* coll_perf: an edge^3 array of 8-byte elements on a px*py*pz grid from MPI_Dims_create. */
static void gen_block3d(int r, int n, mt_extents *e)
{
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(n, 3, dims);
    int64_t edge = (int64_t)cbrt((double)per_rank * n / 8.0);
    int c[3] = {r / (dims[1] * dims[2]), (r / dims[2]) % dims[1], r % dims[2]};
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = edge * c[d] / dims[d];
        hi[d] = edge * (c[d] + 1) / dims[d];
    }
    for (int64_t x = lo[0]; x < hi[0]; x++)
        for (int64_t y = lo[1]; y < hi[1]; y++)
            mt_ext_push(e, HEADER + ((x * edge + y) * edge + lo[2]) * 8, (hi[2] - lo[2]) * 8);
}

/* HACC-IO: record i of rank r is global record i*n + r. */
static void gen_hacc(int r, int n, mt_extents *e)
{
    int64_t records = per_rank / HACC_RECORD;
    for (int64_t k = 0; k < records; k++) {
        int64_t i = r % 2 ? records - 1 - k : k;
        mt_ext_push(e, HEADER + (i * n + r) * HACC_RECORD, HACC_RECORD);
    }
}

/*
 * Random: one global walk over the region, the same on every rank, deals chunks to ranks or to
 * nobody; each rank keeps its own, splits some into adjacent pieces that stay consecutive in
 * its list (and so must merge), shuffles the rest of its list, and sprinkles zero-length
 * extents. When n > 1, ranks 1, 5, 9, ... get nothing.
 */
static void gen_random(int r, int n, mt_extents *e)
{
    uint64_t seed = 0x5EED0000u + (uint64_t)n;
    int64_t region = per_rank * n * 3 / 2, avg = per_rank / 12 + 1;
    int64_t (*chunks)[2] = NULL;
    int64_t nchunks = 0, cap = 0;
    for (int64_t pos = (int64_t)(mt_rand(&seed) % 100); pos < region;) {
        int64_t len = 1 + (int64_t)(mt_rand(&seed) % (uint64_t)(2 * avg));
        if (mt_rand(&seed) % 8 == 0)
            len = 1 + (int64_t)(mt_rand(&seed) % 3);               /* tiny chunks too */
        int owner = (int)(mt_rand(&seed) % (uint64_t)(n + 1)) - 1; /* -1: a hole */
        if (n > 1 && owner % 4 == 1)
            owner = -1;
        if (owner == r) {
            if (nchunks == cap) {
                cap = cap ? 2 * cap : 64;
                chunks = realloc(chunks, (size_t)cap * sizeof *chunks);
            }
            chunks[nchunks][0] = pos;
            chunks[nchunks][1] = len;
            nchunks++;
        }
        pos += len;
    }
    uint64_t mine = 0xC0FFEE00u + (uint64_t)r * 7919 + (uint64_t)n;
    for (int64_t i = nchunks - 1; i > 0; i--) { /* shuffle the chunks */
        int64_t j = (int64_t)(mt_rand(&mine) % (uint64_t)(i + 1));
        int64_t t0 = chunks[i][0], t1 = chunks[i][1];
        chunks[i][0] = chunks[j][0], chunks[i][1] = chunks[j][1];
        chunks[j][0] = t0, chunks[j][1] = t1;
    }
    for (int64_t i = 0; i < nchunks; i++) {
        int64_t off = chunks[i][0], len = chunks[i][1];
        if (mt_rand(&mine) % 5 == 0)
            mt_ext_push(e, (int64_t)(mt_rand(&mine) % (uint64_t)region), 0);
        if (len >= 3 && mt_rand(&mine) % 3 == 0) { /* adjacent in file and memory: merged */
            int64_t a = 1 + (int64_t)(mt_rand(&mine) % (uint64_t)(len - 2));
            mt_ext_push(e, off, a);
            mt_ext_push(e, off + a, len - a);
        } else {
            mt_ext_push(e, off, len);
        }
    }
    if (nchunks > 0 || r % 8 == 5) /* rank 5 names only a zero-length extent, with a NULL buf */
        mt_ext_push(e, region * 4 + 12345, 0); /* far past the end: must not grow the file */
    free(chunks);
}

/* IOR with large transfers: 3 segments of 70000-byte slots, the last 24 bytes of each a hole. */
static void gen_iorbig(int r, int n, mt_extents *e)
{
    const int64_t segments = 3, slot = 70000;
    for (int64_t s = 0; s < segments; s++)
        mt_ext_push(e, HEADER + (s * n + r) * slot, slot - 24);
    if (r % 2)
        mt_ext_push(e, HEADER + (segments * n + r) * slot, 100);
}

static void gen(int w, int r, int n, mt_extents *e)
{
    memset(e, 0, sizeof *e);
    switch (w) {
    case W_CONTIG: {
        /* Blocks of slightly different sizes, back to back after the header. */
        int64_t at = HEADER;
        for (int q = 0; q < r; q++)
            at += per_rank + 37 * q;
        int64_t b = per_rank + 37 * r, third = b / 3;
        mt_ext_push(e, at, third);
        mt_ext_push(e, at + third, third);
        mt_ext_push(e, at + 2 * third, b - 2 * third);
        break;
    }
    case W_IOR: gen_ior(r, n, e); break;
    case W_BLOCK3D: gen_block3d(r, n, e); break;
    case W_HACC: gen_hacc(r, n, e); break;
    case W_RANDOM: gen_random(r, n, e); break;
    case W_IORBIG: gen_iorbig(r, n, e); break;
    }
}

typedef struct config {
    const char *name;
    const char *backend;
    int wronly;       /* write with MPI_MODE_WRONLY, read back after reopening MPI_MODE_RDONLY */
    int small_buffer; /* cb_buffer_size a fraction of a file domain: many rounds */
    int cb_nodes;     /* 0: not set */
    int64_t stripe;   /* striping_unit, 0: not set */
    int cb;           /* romio_cb_write/read: 0 automatic (the default), CB_ON enable, CB_OFF
                         disable (no aggregation: each rank accesses its own pieces) */
} config;
enum { CB_ON = 1, CB_OFF = 2 };

/* Under automatic collective buffering, a pattern whose ranks' regions do not interleave
 * (contig, block3d at some rank counts) gets the independent plan: the default and the
 * small-buffer configurations cover it, the others always aggregate. */
static const config configs[] = {
    {"default", "mpiio", 0, 0, 0, 0, 0},
    {"smallbuf-posix", "posix", 0, 1, 0, 0, 0},
    {"aggs3-stripe-wronly", "mpiio", 1, 1, 3, 512, 1},
    {"aggs2-posix-wronly", "posix", 1, 1, 2, 0, 1},
    {"aggs3-smallbuf", "mpiio", 0, 1, 3, 0, 1},
    {"disable-posix", "posix", 0, 1, 0, 0, CB_OFF},
    {"disable-mpiio-wronly", "mpiio", 1, 0, 0, 0, CB_OFF},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

static int virtual_per_node(void)
{
    const char *v = getenv("MCIO_VIRTUAL_RANKS_PER_NODE");
    return v && *v ? atoi(v) : 0;
}

/* Do the ranks' regions [first byte, end) overlap? Then the ranks' accesses interleave. */
static int interleaved(const mt_extents *all, int n)
{
    for (int a = 0; a < n; a++)
        for (int b = 0; b < a; b++) {
            int64_t sa = INT64_MAX, sb = INT64_MAX;
            for (int64_t i = 0; i < all[a].n; i++)
                sa = all[a].len[i] > 0 && all[a].off[i] < sa ? all[a].off[i] : sa;
            for (int64_t i = 0; i < all[b].n; i++)
                sb = all[b].len[i] > 0 && all[b].off[i] < sb ? all[b].off[i] : sb;
            if (sa < mt_ext_end(&all[b]) && sb < mt_ext_end(&all[a]))
                return 1;
        }
    return 0;
}

/* Does this configuration give the independent plan (every rank with data its own aggregator)? */
static int independent(const config *c, const mt_extents *all, int n)
{
    return c->cb == CB_OFF || (c->cb != CB_ON && !interleaved(all, n));
}

/* The aggregators mcio must choose: the ranks with data in an independent plan; else cb_nodes,
 * or one per (virtual) node; capped at n. */
static int expected_aggregators(const config *c, const mt_extents *all, int n, int layers)
{
    if (independent(c, all, n)) {
        /* Two layers: a node's data is its first rank's (its node aggregator's). */
        int with_data = 0, k = layers == 2 ? (virtual_per_node() > 0 ? virtual_per_node() : n) : 1;
        for (int node = 0; node * k < n; node++) {
            int64_t b = 0;
            for (int r = node * k; r < n && r < (node + 1) * k; r++)
                b += mt_ext_bytes(&all[r]);
            with_data += b > 0;
        }
        return with_data;
    }
    int k = virtual_per_node();
    int nodes = k > 0 ? (n + k - 1) / k : 1;
    int want = c->cb_nodes > 0 ? c->cb_nodes : nodes;
    return want < n ? want : n;
}

static void check_stats(mcio_file fh, int op, const config *c, const mt_extents *all,
                        int64_t bytes, int64_t cb_buffer)
{
    mcio_stats s;
    if (CHECK_OK(mcio_file_get_stats(fh, &s)) != MCIO_SUCCESS)
        return;
    int n = mt.nprocs, k = virtual_per_node();
    CHECKF(s.op == op, "stats.op %d, expected %d", s.op, op);
    CHECKF(s.ranks == n, "stats.ranks %d", s.ranks);
    CHECKF(s.bytes == bytes, "stats.bytes %" PRId64 ", expected %" PRId64, s.bytes, bytes);
    /* The aggregators and rounds expected below are the romio strategy's, which the default
     * (auto) plans too while memory allows; under another (the pipeline matrix runs the memory
     * strategy too) only the bytes and buffers are checked. */
    char strategy[32];
    mt_get_hint(fh, "mcio_strategy", strategy, sizeof strategy);
    int romio = strcmp(strategy, "romio") == 0 ||
                ((strcmp(strategy, "auto") == 0 || strcmp(strategy, "fit") == 0) && !s.memory_conscious);
    /* mcio_layers 2 (a hints file of the two-layer variants): through the node aggregators
     * wherever a node holds several ranks and the ranks aggregate. */
    char layers[8];
    mt_get_hint(fh, "mcio_layers", layers, sizeof layers);
    int node_ranks = k > 0 ? (k < n ? k : n) : n;
    int want_layers = strcmp(layers, "2") == 0 && node_ranks >= 2 && c->cb != CB_OFF ? 2 : 1;
    if (strcmp(layers, "auto") != 0)
        CHECKF(s.layers == want_layers, "stats.layers %d, expected %d", s.layers, want_layers);
    int naggs = romio ? expected_aggregators(c, all, n, s.layers) : s.aggregators;
    CHECKF(s.aggregators == naggs, "stats.aggregators %d, expected %d", s.aggregators, naggs);
    for (int i = 0; i < s.aggregators && s.aggregators == naggs; i++) {
        int a = s.aggregator_ranks[i];
        CHECKF(a >= 0 && a < n, "aggregator %d is rank %d", i, a);
        /* Each domain its own aggregator. */
        for (int j = 0; j < i; j++)
            CHECKF(s.aggregator_ranks[j] != a, "rank %d aggregates domains %d and %d", a, j, i);
        if (k > 0)
            CHECKF(s.aggregator_nodes[i] == a / k, "aggregator rank %d on node %d, expected %d", a,
                   s.aggregator_nodes[i], a / k);
        /* Fewer aggregators than nodes: at most one per node. */
        int nodes = k > 0 ? (n + k - 1) / k : 1;
        for (int j = 0; j < i && naggs <= nodes; j++)
            CHECKF(s.aggregator_nodes[j] != s.aggregator_nodes[i],
                   "aggregators %d and %d share node %d though there are %d nodes", j, i,
                   s.aggregator_nodes[i], nodes);
    }
    if (c->cb == CB_OFF) /* no aggregation: no buffer, no round */
        CHECKF(s.max_buffer_bytes == 0 && s.rounds == 0, "disabled, yet buffers of %" PRId64
               " bytes and %d rounds", s.max_buffer_bytes, s.rounds);
    else
        CHECKF(s.max_buffer_bytes > 0 || bytes == 0, "stats.max_buffer_bytes %" PRId64,
               s.max_buffer_bytes);
    CHECKF(s.max_buffer_bytes <= cb_buffer,
           "stats.max_buffer_bytes %" PRId64 " > cb_buffer_size %" PRId64, s.max_buffer_bytes,
           cb_buffer);
    if (c->small_buffer && romio && c->cb != CB_OFF)
        CHECKF(s.rounds > 1,
               "cb_buffer_size %" PRId64 " is a fraction of a domain but only %d round(s)",
               cb_buffer, s.rounds);
    else if (romio && c->cb != CB_OFF)
        CHECKF(s.rounds == 1, "default 16 MiB buffer, small data, but %d rounds", s.rounds);
    if (c->stripe > 0 && s.rounds > 1 && !independent(c, all, n))
        CHECKF(s.max_buffer_bytes % c->stripe == 0,
               "striping_unit %" PRId64 ": buffer %" PRId64 " is not whole stripes", c->stripe,
               s.max_buffer_bytes);
    CHECKF(s.t_total >= 0 && s.t_total >= s.t_io, "times: total %g io %g", s.t_total, s.t_io);
}

/* Read the extents e with mcio into a poisoned buffer; they must hold generation gen. */
static void read_back(mcio_file fh, const mt_extents *e, const char *what)
{
    int64_t bytes = mt_ext_bytes(e);
    uint8_t *want = mt_pack(e, 1), *got = mt_malloc((size_t)bytes + 16);
    memset(got, 0xEE, (size_t)bytes + 16);
    if (CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got)) == MCIO_SUCCESS) {
        MT_COMPARE(got, want, bytes, 0, what);
        static const uint8_t poison[16] = {0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE,
                                           0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE};
        CHECKF(memcmp(got + bytes, poison, 16) == 0, "%s: read past the end of the buffer", what);
    }
    free(want);
    free(got);
}

static void run(int w, const config *c)
{
    int n = mt.nprocs, me = mt.rank;
    char ctx[96], path[512], name[96];
    snprintf(ctx, sizeof ctx, "%s/%s", workload_name[w], c->name);
    mt.ctx = ctx;
    snprintf(name, sizeof name, "%s-%s", workload_name[w], c->name);
    mt_path(path, sizeof path, name);

    mt_extents *all = calloc((size_t)n, sizeof *all);
    int64_t total = 0, end = 0;
    for (int r = 0; r < n; r++) {
        gen(w, r, n, &all[r]);
        total += mt_ext_bytes(&all[r]);
        end = mt_ext_end(&all[r]) > end ? mt_ext_end(&all[r]) : end;
    }
    int64_t size = end + 1001; /* a tail past the last written byte */
    const mt_extents *mine = &all[me];

    /* A buffer that splits each domain into several rounds, at an odd size. */
    int naggs = expected_aggregators(c, all, n, 1); /* the buffer as one layer sizes it */
    int64_t cb_buffer = 16 * 1024 * 1024;
    char bufstr[32], nodestr[16], stripestr[32];
    if (c->small_buffer) {
        cb_buffer = (end - HEADER) / naggs / 5 + 3;
        if (cb_buffer < 2 * c->stripe + 3)
            cb_buffer = 2 * c->stripe + 3;
    }
    snprintf(bufstr, sizeof bufstr, "%" PRId64, cb_buffer);
    snprintf(nodestr, sizeof nodestr, "%d", c->cb_nodes);
    snprintf(stripestr, sizeof stripestr, "%" PRId64, c->stripe);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mcio_io_backend", c->backend);
    if (c->small_buffer)
        MPI_Info_set(info, "cb_buffer_size", bufstr);
    if (c->cb_nodes)
        MPI_Info_set(info, "cb_nodes", nodestr);
    if (c->stripe)
        MPI_Info_set(info, "striping_unit", stripestr);
    if (c->cb) {
        MPI_Info_set(info, "romio_cb_write", c->cb == CB_ON ? "enable" : "disable");
        MPI_Info_set(info, "romio_cb_read", c->cb == CB_ON ? "enable" : "disable");
    }

    mt_prefill(path, size);
    mcio_file fh = MCIO_FILE_NULL;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, c->wronly ? MPI_MODE_WRONLY : MPI_MODE_RDWR,
                                info, &fh)) != MCIO_SUCCESS)
        goto out;
    char v[64];
    mt_get_hint(fh, "mcio_io_backend", v, sizeof v);
    CHECKF(strcmp(v, c->backend) == 0, "hint mcio_io_backend in force: '%s'", v);

    uint8_t *buf = mt_ext_bytes(mine) > 0 ? mt_pack(mine, 1) : NULL; /* NULL is allowed then */
    int st = CHECK_OK(mcio_write_at_all(fh, mine->n, mine->off, mine->len, buf));
    free(buf);
    if (st == MCIO_SUCCESS)
        check_stats(fh, 1, c, all, total, cb_buffer);
    if (c->wronly) {
        CHECK_OK(mcio_file_close(&fh));
        if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh)) !=
            MCIO_SUCCESS)
            goto out;
    }
    read_back(fh, mine, "mcio_read_at_all of my own extents");
    check_stats(fh, 2, c, all, total, cb_buffer);
    read_back(fh, &all[(me + 1) % n], "mcio_read_at_all of the next rank's extents");
    /* Every rank reading the same bytes: the aggregators send each of them to everyone. */
    read_back(fh, &all[0], "mcio_read_at_all of rank 0's extents, by every rank");
    MT_VERIFY_MCIO(fh, size, all, n, 1);
    CHECK_OK(mcio_file_close(&fh));
    CHECK(fh == MCIO_FILE_NULL);
    MT_VERIFY_FILE(path, size, all, n, 1);
    mt_remove(path);
out:
    MPI_Info_free(&info);
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
    mt.ctx = NULL;
}

/* The null backend stores nothing: the calls succeed, reads return zeros, the file is untouched. */
static void run_null(void)
{
    int n = mt.nprocs;
    char path[512];
    mt.ctx = "random/null";
    mt_path(path, sizeof path, "random-null");
    mt_extents *all = calloc((size_t)n, sizeof *all);
    int64_t end = 0;
    for (int r = 0; r < n; r++) {
        gen(W_RANDOM, r, n, &all[r]);
        end = mt_ext_end(&all[r]) > end ? mt_ext_end(&all[r]) : end;
    }
    const mt_extents *mine = &all[mt.rank];
    int64_t size = end + 1001, bytes = mt_ext_bytes(mine);
    mt_prefill(path, size);
    MPI_Info info = mt_info("mcio_io_backend", "null", "cb_buffer_size", "777", NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        uint8_t *buf = mt_pack(mine, 1);
        CHECK_OK(mcio_write_at_all(fh, mine->n, mine->off, mine->len, buf));
        memset(buf, 0x77, (size_t)bytes);
        CHECK_OK(mcio_read_at_all(fh, mine->n, mine->off, mine->len, buf));
        int64_t nonzero = 0;
        for (int64_t i = 0; i < bytes; i++)
            nonzero += buf[i] != 0;
        CHECKF(nonzero == 0, "null backend: %" PRId64 " bytes read back non-zero", nonzero);
        free(buf);
        CHECK_OK(mcio_file_sync(fh));
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);
    MT_VERIFY_UNCHANGED(path, size);
    mt_remove(path);
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
    mt.ctx = NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_patterns");
    int n = mt.nprocs;
    per_rank = n <= 4 ? 96 * 1024 : n <= 8 ? 24 * 1024 : 8 * 1024;
    for (int w = 0; w < W_COUNT; w++)
        for (int c = 0; c < NCONFIGS; c++) {
            /*
             * Every pattern under every configuration up to 4 ranks; from 8 ranks on under one
             * of them, rotating over the patterns (and differently at 8 and 16 ranks), so that
             * every configuration still runs.
             */
            if (n >= 8 && c != (w + (n >= 16 ? 0 : 2)) % NCONFIGS)
                continue;
            run(w, &configs[c]);
        }
    run_null();
    return mt_finish();
}
