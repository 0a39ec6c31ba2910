/*
 * mcio-bench: mcio against the MPI library's own collective I/O, on the access patterns of the
 * collective-I/O literature (IOR, ROMIO's coll_perf, HACC-IO), with every byte verified.
 *
 * A case is one pattern through one engine. Each rank builds its extents once per pattern
 * (sorted, disjoint across ranks) and both engines get the same extents and the same buffer,
 * so the only difference between them is who does the collective I/O:
 *   native  MPI_File_set_view(hindexed of the extents) + MPI_File_write_all / read_all;
 *   mcio    mcio_write_at_all / mcio_read_at_all, or a persistent plan (--persistent).
 * The buffer is packed, except for a pattern whose memory is noncontiguous (flash-io): then
 * native is given the pattern's memory datatype and mcio each extent's address
 * (mcio_writev_at_all, or a plan of mcio_plan_createv).
 *
 * Each repetition writes, then reads; the engines (and mcio's cases of --strategies and
 * --config) take turns, repetition by repetition, in an order drawn afresh for each
 * repetition (case_order), so a change in the machine's load falls on all of them alike and
 * none always runs first or follows the same one. Only the collective call is timed
 * (after a barrier; the slowest rank's time): open, close, planning a persistent plan and the
 * checks stay out of the figures. The data is a function of (file offset, case, repetition),
 * so every rank knows what each of its bytes must be and a stale file from an earlier
 * repetition cannot pass: after the write each rank reads its extents back with POSIX pread
 * (not through the engine); after the read it compares the buffer, which was first filled
 * with the complement of the expected bytes, so that a byte the engine leaves untouched is
 * caught too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "mcio.h"
#include "mcio_splitmix64.h"
#include "patterns.h"

/* GIO, a comparison engine (gio, gio-all), when configured with -DMCIO_GIO_PREFIX. */
#ifndef MCIO_BENCH_GIO
#define MCIO_BENCH_GIO 0
#endif
#if MCIO_BENCH_GIO
#include <gio.h>
#endif

/* The simulation build (smpicc: SimGrid's SMPI, docs/simulation.md): the simulated storage keeps
 * no bytes, so nothing is verified (the real builds verify the same engine); the data buffers
 * are one allocation shared by all ranks (SMPI_SHARED_MALLOC), their content meaningless; only
 * mcio runs, since SMPI's own MPI-IO ignores file views and its files live on the rank's host. */
#ifdef SMPI_H
#define SIMULATED 1
#define DATA_MALLOC(n) SMPI_SHARED_MALLOC((n) ? (n) : 1)
#define DATA_FREE(p) SMPI_SHARED_FREE(p)
#else
#define SIMULATED 0
#define DATA_MALLOC(n) xmalloc(n)
#define DATA_FREE(p) free(p)
#endif

#define MIB (1024.0 * 1024.0)
enum { NENGINES = 6 }; /* engines[]: native, mcio, limit, dd, gio, gio-all */
#define MAX_PATTERNS 32

/* ---- Options ---- */

#define MAX_CONFIGS 16
#define MAX_CONFIG_HINTS 8

/* An mcio case of its own: a name and the hints it adds to --hint's (--config, --strategies). */
typedef struct config {
    const char *name;
    int nhints;
    const char *key[MAX_CONFIG_HINTS], *val[MAX_CONFIG_HINTS];
} config;

typedef struct opts {
    int pattern[MAX_PATTERNS], npatterns;
    int64_t size, transfer, random_max;
    uint64_t seed, order_seed; /* order_seed: --order-seed, else --seed (order_seeded 0) */
    int order_seeded;
    int use[NENGINES]; /* engines[i] chosen: native, mcio, limit, dd, gio, gio-all */
    int persistent, keep, reps, warmup, precreate, native_sync, native_again;
    const char *dir, *json;
    int nhints;
    char **hint_key, **hint_val;
    config config[MAX_CONFIGS]; /* --config, --strategies: one mcio case each */
    int nconfigs;
    const char *node_memory;       /* --node-memory: MCIO_VIRTUAL_NODE_MEMORY */
    const char *ranks_per_node;    /* --ranks-per-node: MCIO_VIRTUAL_RANKS_PER_NODE */
    int buffer_offset; /* --buffer-offset: data buffers this far past a page; -1: calloc's */
    int soak;          /* --soak: the whole run this many times in one process, sampled */
} opts;

typedef struct layout {
    int64_t n, cap;
    int64_t *off, *len; /* extents in increasing offset order, adjacent ones merged */
    int64_t bytes;      /* this rank's */
    /* Where each extent lives in the rank's memory (bytes from the buffer's start), for a
     * pattern whose memory is not packed (flash-io's blocks with guard cells); NULL: packed. */
    int64_t *mem, mem_bytes;
    MPI_Datatype mtype; /* the native engine's memory datatype for such a pattern */
} layout;

static const char usage[] =
    "usage: mpiexec -n N mcio-bench [options]\n"
    "Runs access patterns through the MPI library's collective I/O (native) and through mcio,\n"
    "verifies every byte after every write and read, and prints a table of bandwidths.\n"
    "\n"
    "  --pattern LIST   comma-separated, run in order (default ior):\n"
    "                   contiguous  each rank one block of --size bytes, ranks in rank order\n"
    "                   ior         segments of --transfer bytes, ranks interleaved in each\n"
    "                               segment (IOR -s size/transfer -b transfer -t transfer)\n"
    "                   coll_perf   3-D int array block-distributed over an MPI_Dims_create\n"
    "                               grid, row-major file (ROMIO's coll_perf)\n"
    "                   hacc-aos    38-byte particles, each rank's records contiguous\n"
    "                   hacc-soa    38-byte particles, one global array per field (9)\n"
    "                   random      each rank 0..--random-max bytes in random extents,\n"
    "                               disjoint across ranks, with holes (--seed)\n"
    "                   tapioca     each rank one block of 0..--random-max bytes,\n"
    "                               blocks in rank order (TAPIOCA's benchmark; --seed)\n"
    "                   mpi-io-test each rank --size/--transfer objects of --transfer bytes,\n"
    "                               strided by the ranks (the MPI-IO-test of the memory-\n"
    "                               conscious paper: IOR's layout under its own name)\n"
    "                   gcrm        8 variables of 8-byte values, each a [layers][cells] array\n"
    "                               with cells split evenly over the ranks (a GCRM-like\n"
    "                               climate output): one extent per rank, layer, variable\n"
    "                   flash-io    FLASH-IO's checkpoint: blocks of 16^3 cells with 4 guard\n"
    "                               cells a side in memory (noncontiguous), 24 variables, the\n"
    "                               interiors to the file variable by variable, ranks in order\n"
    "                   fragmented  a climate model's decomposition: the file cut into runs\n"
    "                               of 8-64 bytes, each owned by a random rank (--seed), so\n"
    "                               each rank has about --size bytes in short pieces\n"
    "  --size N         bytes per rank (k, m, g suffixes: powers of 1024; default 16m)\n"
    "  --transfer N     ior transfer size (default 256k, or --size if smaller)\n"
    "  --random-max N   random, tapioca: the most bytes a rank gets (default 2m)\n"
    "  --seed N         seed of the random pattern and of the data (default 1)\n"
    "  --order-seed N   seed of the order the cases take turns in (default: --seed)\n"
    "  --engine LIST    native, mcio, limit (each rank's bytes as one contiguous pwrite /\n"
    "                   pread, ranks back to back: the file system's bound), dd (rank 0 alone\n"
    "                   writes, then reads, all ranks' bytes sequentially in 1 MiB write /\n"
    "                   read calls, as dd bs=1M: the file system's sequential throughput),\n"
    "                   gio (GIO's two-phase library on its defaults), gio-all (GIO with\n"
    "                   cb_nodes = the ranks; both only in a build configured with\n"
    "                   -DMCIO_GIO_PREFIX), both (native,mcio; the default) or all\n"
    "                   (native,mcio,limit,dd); w/limit, r/limit are each engine's fraction\n"
    "                   of the limit\n"
    "  --persistent     mcio: mcio_plan_create once per case (not timed), then\n"
    "                   mcio_plan_write / mcio_plan_read\n"
    "  --warmup         one untimed write and read of each case before its timed\n"
    "                   repetitions, then its file truncated to nothing: every case's\n"
    "                   first timed call finds the process warmed alike (the memory\n"
    "                   of a collective buffer faulted in once)\n"
    "  --hint KEY=VAL   an MPI_Info hint, repeatable; mcio_* keys go to mcio only\n"
    "  --strategies L   mcio once per planning strategy in the comma-separated list\n"
    "                   (e.g. romio,memory), each against the same native run\n"
    "  --config 'NAME KEY=VAL ...'  mcio once more, as a case of its own named NAME\n"
    "                   (label mcio:NAME) with these hints on top of --hint's;\n"
    "                   repeatable (up to 16 cases with --strategies), e.g.\n"
    "                   --config default --config 'own romio_cb_write=disable'\n"
    "  --buffer-offset K  the data buffers K bytes past a page boundary (0-4095; default:\n"
    "                   where calloc puts them); 16: where the C library puts a program's\n"
    "                   large arrays (it decides what a read's kernel copy costs on\n"
    "                   some CPUs: mcio_read_shift)\n"
    "  --native-again   the native engine twice, the second case labelled native:again:\n"
    "                   how far the same native lands from itself in one process (a\n"
    "                   control for the ratios to it)\n"
    "  --node-memory S  mcio's virtual memory per node (MCIO_VIRTUAL_NODE_MEMORY): a list\n"
    "                   64m,16m,0 repeated over the nodes, or normal:MEAN:SD[:SEED]\n"
    "  --ranks-per-node K  mcio's virtual nodes (MCIO_VIRTUAL_RANKS_PER_NODE); the MPI\n"
    "                   library's own collective I/O still sees the real host\n"
    "  --reps N         repetitions of write + read per case (default 3)\n"
    "  --dir DIR        where the files go (default /tmp)\n"
    "  --json PATH      also write the results as JSON\n"
    "  --soak N         the whole run N times in this process (a soak: 10,000 calls of mixed\n"
    "                   workloads is N = 10000 / (2 x patterns x cases x reps)); after each\n"
    "                   time, a line of the calls so far, the median call, the largest RSS\n"
    "                   and open descriptors of any rank; the table is the last time's; fails\n"
    "                   if the descriptors grew after the second time (a leak)\n"
    "  --keep           keep the files\n"
    "  --precreate      rank 0 creates each case's file (empty) before the engine opens it,\n"
    "                   so that no engine's open creates it: on a FUSE mount with\n"
    "                   direct-io-mode=enable (GlusterFS), ranks that open a file while its\n"
    "                   creating descriptor is still open get the kernel's page cache, as\n"
    "                   ROMIO's and OMPIO's opens let them; this puts every engine on the\n"
    "                   mount as configured\n"
    "  --native-sync    the native engine ends each timed write with MPI_File_sync, as mcio\n"
    "                   ends its writes where the file system acknowledges writes before\n"
    "                   its servers have them (mcio_write_sync auto: GlusterFS, NFS): both\n"
    "                   then return only once the servers have the data\n"
    "  --help           this text\n"
    "\n"
    "Bandwidth = bytes of all ranks / slowest rank's time of the collective call; the table\n"
    "shows the median over the repetitions, the JSON every repetition. Exit status: 0 if every\n"
    "byte was right, 1 if not (or an engine failed), 2 on a bad argument.\n";

/* Zeroed memory, or the end of the job: a benchmark that cannot allocate its buffers has
 * nothing to measure. */
static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "mcio-bench: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* "16m" -> 16777216. Returns 0 on success. */
static int parse_bytes(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v < 0)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10, end++; break;
    case 'm': case 'M': shift = 20, end++; break;
    case 'g': case 'G': shift = 30, end++; break;
    }
    if (*end || v > (INT64_MAX >> shift))
        return -1;
    *out = (int64_t)v << shift;
    return 0;
}

/* ---- Patterns: each rank's extents, computed identically by every rank from the options ---- */

/* Generators emit in increasing offset order (the native file view needs monotone
 * displacements); extents touching in the file (and in memory, for a layout with memory
 * displacements: mem >= 0) are merged so all engines see the same, shortest list. */
static void layout_push_at(layout *l, int64_t off, int64_t len, int64_t mem)
{
    if (len <= 0)
        return;
    l->bytes += len;
    if (l->n > 0 && l->off[l->n - 1] + l->len[l->n - 1] == off &&
        (mem < 0 || l->mem[l->n - 1] + l->len[l->n - 1] == mem)) {
        l->len[l->n - 1] += len;
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        int64_t *off2 = realloc(l->off, (size_t)l->cap * sizeof(int64_t));
        int64_t *len2 = realloc(l->len, (size_t)l->cap * sizeof(int64_t));
        int64_t *mem2 = mem < 0 ? l->mem : realloc(l->mem, (size_t)l->cap * sizeof(int64_t));
        if (!off2 || !len2 || (mem >= 0 && !mem2)) {
            fprintf(stderr, "mcio-bench: out of memory for %" PRId64 " extents\n", l->cap);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        l->off = off2, l->len = len2, l->mem = mem2;
    }
    if (mem >= 0)
        l->mem[l->n] = mem;
    l->off[l->n] = off;
    l->len[l->n++] = len;
}

static void layout_push(layout *l, int64_t off, int64_t len)
{
    layout_push_at(l, off, len, -1);
}

static void layout_free(layout *l)
{
    free(l->off);
    free(l->len);
    free(l->mem);
    if (l->mtype != MPI_DATATYPE_NULL)
        MPI_Type_free(&l->mtype);
}

/* The rank's buffer: the extents' bytes packed, or the memory a layout with displacements spans. */
static int64_t layout_mem_bytes(const layout *l)
{
    return l->mem ? l->mem_bytes : l->bytes;
}

/* The emit of the shared patterns (patterns.c): one extent into the layout. */
static void layout_emit(void *ctx, int64_t off, int64_t len, int64_t mem)
{
    layout_push_at(ctx, off, len, mem);
}

/* flash-io's memory (unk with its guard cells) and the native engine's memory datatype for it,
 * as a FLASH writer would build it: the interior of variable v over all blocks is a subarray of
 * unk (in bytes, to match the byte file view), and the variables follow one another as the
 * file's datasets do. mcio gets one memory displacement per row instead (patterns.c). */
static void flash_io_memory(const pattern_args *a, layout *l)
{
    int64_t nv, nb;
    patterns_flash_shape(a, &nv, &nb);
    const int64_t row = FLASH_NXB * FLASH_ELEM, mrow = FLASH_MEM * FLASH_ELEM;
    l->mem_bytes = nb * nv * FLASH_MEM * FLASH_MEM * mrow;
    MPI_Datatype *var = xmalloc((size_t)nv * sizeof(MPI_Datatype));
    int *ones = xmalloc((size_t)nv * sizeof(int));
    MPI_Aint *zeros = xmalloc((size_t)nv * sizeof(MPI_Aint));
    for (int v = 0; v < nv; v++) {
        int sizes[5] = {(int)nb, (int)nv, FLASH_MEM, FLASH_MEM, (int)mrow};
        int sub[5] = {(int)nb, 1, FLASH_NXB, FLASH_NXB, (int)row};
        int start[5] = {0, v, FLASH_NG, FLASH_NG, FLASH_NG * FLASH_ELEM};
        MPI_Type_create_subarray(5, sizes, sub, start, MPI_ORDER_C, MPI_BYTE, &var[v]);
        ones[v] = 1;
    }
    MPI_Type_create_struct((int)nv, ones, zeros, var, &l->mtype);
    MPI_Type_commit(&l->mtype);
    for (int v = 0; v < nv; v++)
        MPI_Type_free(&var[v]);
    free(var);
    free(ones);
    free(zeros);
}

/* This rank's layout of pattern p (patterns.c), with coll_perf's grid from MPI_Dims_create. */
static void layout_build(const opts *o, const pattern *p, int rank, int nprocs, layout *l)
{
    pattern_args a = {.size = o->size, .transfer = o->transfer, .random_max = o->random_max,
                      .seed = o->seed};
    MPI_Dims_create(nprocs, 3, a.dims);
    if (p->extents(&a, rank, nprocs, layout_emit, l)) {
        fprintf(stderr, "mcio-bench: out of memory building the %s pattern\n", p->name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!strcmp(p->name, "flash-io"))
        flash_io_memory(&a, l);
}

/* ---- Argument parsing: every rank parses the same argv and reaches the same verdict, so a
 * bad argument ends every rank without any communication that could hang. ---- */

/* The options that take a value; the others are --help, --persistent, --keep and --warmup. */
static const char *const valued[] = {"--pattern", "--size",   "--transfer", "--random-max",
                                     "--seed",    "--engine", "--hint",     "--reps",
                                     "--dir",     "--json",   "--strategies", "--node-memory",
                                     "--ranks-per-node", "--config", "--buffer-offset",
                                     "--order-seed", "--soak"};

/* Formats the message of a bad argument and returns parse_args' verdict for it. */
static int bad(char *msg, size_t msglen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return 2;
}

/* Returns 0 to run, 1 for --help, 2 for a bad argument (message in msg). */
/* --engine LIST. Returns 0, or bad()'s verdict. */
static int parse_engines(opts *o, char *val, char *msg, size_t msglen)
{
    static const char *const names[NENGINES] = {"native", "mcio", "limit", "dd", "gio", "gio-all"};
    memset(o->use, 0, sizeof o->use);
    for (char *t = strtok(val, ","); t; t = strtok(NULL, ",")) {
        int all = !strcmp(t, "all"), both = all || !strcmp(t, "both"), known = both;
        for (int e = 0; e < NENGINES; e++) {
            int pick = !strcmp(t, names[e]) || (e < 2 && both) || (e >= 2 && e < 4 && all);
            o->use[e] |= pick;
            known |= pick;
        }
        if (!known)
            return bad(msg, msglen,
                       "--engine: '%s' is not native, mcio, limit, dd, gio, gio-all, both or all", t);
    }
    int any = 0;
    for (int e = 0; e < NENGINES; e++)
        any |= o->use[e];
    if (!any)
        return bad(msg, msglen, "--engine: the list is empty");
    if (SIMULATED && (o->use[0] || o->use[2] || o->use[3] || o->use[4] || o->use[5]))
        return bad(msg, msglen, "--engine: only mcio runs in simulation");
    if (!MCIO_BENCH_GIO && (o->use[4] || o->use[5]))
        return bad(msg, msglen, "--engine: gio: this mcio-bench was built without GIO "
                                "(configure with -DMCIO_GIO_PREFIX=<GIO's install prefix>: "
                                "docs/workloads.md, Comparing with GIO)");
    return 0;
}

/* --strategies LIST: one mcio case per name, named after it, with mcio_strategy=NAME (which
 * mcio_file_open judges). Returns 0, or bad()'s verdict. */
static int parse_strategies(opts *o, char *val, char *msg, size_t msglen)
{
    int before = o->nconfigs;
    for (char *t = strtok(val, ","); t; t = strtok(NULL, ",")) {
        if (o->nconfigs == MAX_CONFIGS)
            return bad(msg, msglen, "--strategies: more than %d mcio cases", MAX_CONFIGS);
        o->config[o->nconfigs++] =
            (config){.name = t, .nhints = 1, .key = {"mcio_strategy"}, .val = {t}};
    }
    return o->nconfigs == before ? bad(msg, msglen, "--strategies: the list is empty") : 0;
}

/* --config 'NAME KEY=VAL ...': NAME, then hints, separated by spaces. Returns 0, or bad()'s
 * verdict. */
static int parse_config(opts *o, char *val, char *msg, size_t msglen)
{
    if (o->nconfigs == MAX_CONFIGS)
        return bad(msg, msglen, "--config: more than %d mcio cases", MAX_CONFIGS);
    config *c = &o->config[o->nconfigs];
    *c = (config){0};
    char *save = NULL;
    for (char *t = strtok_r(val, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (!c->name) { /* it names the case's label and JSON: letters, digits, - _ . */
            if (strlen(t) > 40 || strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_.") != strlen(t))
                return bad(msg, msglen, "--config: name '%s' is not 1-40 letters, digits, - _ .", t);
            c->name = t;
            continue;
        }
        char *sep = strchr(t, '=');
        if (!sep || sep == t)
            return bad(msg, msglen, "--config %s: '%s' is not KEY=VALUE", c->name, t);
        if (c->nhints == MAX_CONFIG_HINTS)
            return bad(msg, msglen, "--config %s: more than %d hints", c->name, MAX_CONFIG_HINTS);
        *sep = '\0';
        c->key[c->nhints] = t;
        c->val[c->nhints++] = sep + 1;
    }
    if (!c->name)
        return bad(msg, msglen, "--config: no name (e.g. --config 'own romio_cb_write=disable')");
    for (int k = 0; k < o->nconfigs; k++)
        if (!strcmp(o->config[k].name, c->name))
            return bad(msg, msglen, "--config: '%s' named twice", c->name);
    o->nconfigs++;
    return 0;
}

/* --pattern LIST: names separated by commas, checked against the table (patterns.c) and
 * against --size and --transfer. Returns 0, or bad()'s verdict. */
static int parse_patterns(opts *o, const char *plist, char *msg, size_t msglen)
{
    for (const char *p = plist; *p;) {
        size_t n = strcspn(p, ",");
        int found = -1;
        for (int k = 0; k < npatterns; k++)
            if (strlen(patterns[k].name) == n && !strncmp(p, patterns[k].name, n))
                found = k;
        if (found < 0)
            return bad(msg, msglen, "--pattern: unknown pattern '%.*s' (contiguous, ior, "
                       "coll_perf, hacc-aos, hacc-soa, random, tapioca, mpi-io-test, gcrm, "
                       "flash-io)",
                       (int)n, p);
        if (o->npatterns == MAX_PATTERNS)
            return bad(msg, msglen, "--pattern: more than %d patterns", MAX_PATTERNS);
        o->pattern[o->npatterns++] = found;
        p += n + (p[n] == ',');
    }
    for (int k = 0; k < o->npatterns; k++) {
        const pattern *pt = &patterns[o->pattern[k]];
        if (o->size < pt->min_size)
            return bad(msg, msglen, "--size %" PRId64 " is too small for %s (at least %" PRId64
                       ")", o->size, pt->name, pt->min_size);
        if (pt->transfer && o->transfer > o->size)
            return bad(msg, msglen, "--transfer %" PRId64 " is larger than --size %" PRId64,
                       o->transfer, o->size);
    }
    if (o->npatterns == 0)
        return bad(msg, msglen, "--pattern: the list is empty");
    return 0;
}

/* The options that take a plain count within bounds: 0 when arg is one and val fits, bad()'s
 * verdict when it does not, -1 when arg is not one of them. */
static int parse_count(opts *o, const char *arg, const char *val, int is_num, int64_t num,
                       char *msg, size_t msglen)
{
    static const struct {
        const char *name;
        int64_t lo, hi;
        size_t at; /* an int of opts */
    } counts[] = {
        {"--soak", 1, 1000000, offsetof(opts, soak)},
        {"--reps", 1, 100000, offsetof(opts, reps)},
        {"--buffer-offset", 0, 4095, offsetof(opts, buffer_offset)},
    };
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        if (strcmp(arg, counts[k].name) != 0)
            continue;
        if (!is_num || num < counts[k].lo || num > counts[k].hi || strpbrk(val, "kKmMgG"))
            return bad(msg, msglen, "%s: '%s' is not a count from %" PRId64 " to %" PRId64,
                       arg, val, counts[k].lo, counts[k].hi);
        *(int *)((char *)o + counts[k].at) = (int)num;
        return 0;
    }
    return -1;
}

static int parse_args(int argc, char **argv, opts *o, char *msg, size_t msglen)
{
    int verdict;
    *o = (opts){.size = 16 << 20, .transfer = -1, .random_max = 2 << 20, .seed = 1,
                .use = {!SIMULATED, 1}, .reps = 3, .dir = "/tmp", .buffer_offset = -1};
    const char *plist = "ior";
    o->hint_key = xmalloc((size_t)argc * sizeof(char *));
    o->hint_val = xmalloc((size_t)argc * sizeof(char *));
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i], *val = NULL, *eq = NULL;
        if (strncmp(arg, "--", 2) == 0 && (eq = strchr(arg, '=')) != NULL)
            *eq = '\0', val = eq + 1; /* --size=16m as well as --size 16m */
        int takes = 0;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            takes |= !strcmp(arg, valued[k]);
        int flag = !strcmp(arg, "--help") || !strcmp(arg, "--persistent") ||
                   !strcmp(arg, "--keep") || !strcmp(arg, "--warmup") ||
                   !strcmp(arg, "--precreate") || !strcmp(arg, "--native-sync") ||
                   !strcmp(arg, "--native-again");
        if (!takes && (!flag || val))
            return bad(msg, msglen, "unknown argument '%s%s%s' (see --help)", arg,
                       val ? "=" : "", val ? val : "");
        if (takes && !val && i + 1 >= argc)
            return bad(msg, msglen, "%s needs a value (see --help)", arg);
        if (takes && !val)
            val = argv[++i];
        int64_t num = 0;
        int is_num = takes && parse_bytes(val, &num) == 0;
        if (!strcmp(arg, "--help")) {
            return 1;
        } else if (!strcmp(arg, "--persistent")) {
            o->persistent = 1;
        } else if (!strcmp(arg, "--keep")) {
            o->keep = 1;
        } else if (!strcmp(arg, "--warmup")) {
            o->warmup = 1;
        } else if (!strcmp(arg, "--precreate")) {
            o->precreate = 1;
        } else if (!strcmp(arg, "--native-sync")) {
            o->native_sync = 1;
        } else if (!strcmp(arg, "--native-again")) {
            o->native_again = 1;
        } else if (!strcmp(arg, "--pattern")) {
            plist = val;
        } else if (!strcmp(arg, "--dir")) {
            o->dir = val;
        } else if (!strcmp(arg, "--json")) {
            o->json = val;
        } else if (!strcmp(arg, "--engine")) {
            if ((verdict = parse_engines(o, val, msg, msglen)) != 0)
                return verdict;
        } else if (!strcmp(arg, "--strategies")) {
            if ((verdict = parse_strategies(o, val, msg, msglen)) != 0)
                return verdict;
        } else if (!strcmp(arg, "--config")) {
            if ((verdict = parse_config(o, val, msg, msglen)) != 0)
                return verdict;
        } else if (!strcmp(arg, "--node-memory")) {
            o->node_memory = val; /* mcio_file_open judges the spec */
        } else if (!strcmp(arg, "--ranks-per-node")) {
            if (!is_num || num < 1 || num > (1 << 30) || strpbrk(val, "kKmMgG"))
                return bad(msg, msglen, "--ranks-per-node: '%s' is not a positive count", val);
            o->ranks_per_node = val;
        } else if (!strcmp(arg, "--hint")) {
            char *sep = strchr(val, '=');
            if (!sep || sep == val)
                return bad(msg, msglen, "--hint: '%s' is not KEY=VALUE", val);
            *sep = '\0';
            o->hint_key[o->nhints] = val;
            o->hint_val[o->nhints++] = sep + 1;
        } else if ((verdict = parse_count(o, arg, val, is_num, num, msg, msglen)) >= 0) {
            if (verdict)
                return verdict;
        } else { /* byte counts; only the seeds and --random-max may be 0 */
            int may_be_zero = strstr(arg, "seed") || !strcmp(arg, "--random-max");
            if (!is_num || (num == 0 && !may_be_zero))
                return bad(msg, msglen, "%s: '%s' is not a %sbyte count (e.g. 4096, 64k, 16m, 1g)",
                           arg, val, may_be_zero ? "" : "positive ");
            if (!strcmp(arg, "--seed"))
                o->seed = (uint64_t)num;
            else if (!strcmp(arg, "--order-seed"))
                o->order_seed = (uint64_t)num, o->order_seeded = 1;
            else if (!strcmp(arg, "--size"))
                o->size = num;
            else if (!strcmp(arg, "--transfer"))
                o->transfer = num;
            else
                o->random_max = num;
        }
    }
    if (o->transfer < 0) /* not given: IOR's favourite, or the whole block if that is smaller */
        o->transfer = o->size < (256 << 10) ? o->size : (256 << 10);
    return parse_patterns(o, plist, msg, msglen);
}

/* ---- Data and checks ---- */

/* A data buffer of n bytes, zeroed: calloc's, or (--buffer-offset K) K bytes past a page. A
 * program's arrays land where the C library puts them, and its large blocks start 16 bytes
 * into a page: the offset decides what a read's kernel copy costs on some CPUs
 * (mcio_read_shift in docs/hints.md). */
static void *data_alloc(const opts *o, int64_t n)
{
    if (SIMULATED || o->buffer_offset < 0)
        return DATA_MALLOC((size_t)n);
    void *p = NULL;
    size_t all = (size_t)n + (size_t)o->buffer_offset + 1;
    if (posix_memalign(&p, 4096, all) != 0) {
        fprintf(stderr, "mcio-bench: out of memory (%zu bytes)\n", all);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0, all);
    return (char *)p + o->buffer_offset;
}

static void data_free(const opts *o, void *p)
{
    if (p && !SIMULATED && o->buffer_offset >= 0)
        free((char *)p - o->buffer_offset);
    else if (p)
        DATA_FREE(p);
}

/* The expected bytes: each 8-byte-aligned word of the file is a hash of its index and key. */
static void fill_expected(const layout *l, uint64_t key, unsigned char *buf)
{
    for (int64_t i = 0; i < l->n; i++) {
        for (int64_t off = l->off[i], end = off + l->len[i]; off < end;) {
            uint64_t state = ((uint64_t)off >> 3) ^ key, v = splitmix64(&state);
            int64_t stop = (off | 7) + 1 < end ? (off | 7) + 1 : end;
            for (; off < stop; off++)
                *buf++ = (unsigned char)(v >> (8 * (off & 7)));
        }
    }
}

/* Every byte differs from the expected one, so a byte nobody fills cannot pass by luck. */
static void poison(unsigned char *buf, const unsigned char *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        buf[i] = (unsigned char)~want[i];
}

/* Compares got with want (both packed in extent order); names the first bad byte. */
static int check_bytes(const layout *l, const unsigned char *got, const unsigned char *want,
                       int rank, const char *what)
{
    for (int64_t i = 0, at = 0; i < l->n; at += l->len[i++]) {
        if (memcmp(got + at, want + at, (size_t)l->len[i]) == 0)
            continue;
        int64_t k = 0;
        while (got[at + k] == want[at + k])
            k++;
        fprintf(stderr, "mcio-bench: rank %d: %s: file offset %" PRId64 " holds 0x%02x, expected "
                "0x%02x\n", rank, what, l->off[i] + k, got[at + k], want[at + k]);
        return 0;
    }
    return 1;
}

/* What the guard cells of a layout with memory displacements hold, before and after every call:
 * an engine that writes a byte of memory outside the extents is caught. */
#define GUARD_BYTE 0xC7

/* The memory image of a layout with displacements: the packed bytes each at its place, the
 * guard byte everywhere else. */
static void scatter(const layout *l, const unsigned char *packed, unsigned char *img)
{
    memset(img, GUARD_BYTE, (size_t)l->mem_bytes);
    for (int64_t i = 0, at = 0; i < l->n; at += l->len[i++])
        memcpy(img + l->mem[i], packed + at, (size_t)l->len[i]);
}

/* Compares every byte of a memory image, guards included; names the first bad byte. */
static int check_image(const layout *l, const unsigned char *got, const unsigned char *want,
                       int rank, const char *what)
{
    if (memcmp(got, want, (size_t)l->mem_bytes) == 0)
        return 1;
    int64_t m = 0, file = -1;
    while (got[m] == want[m])
        m++;
    for (int64_t i = 0; i < l->n && file < 0; i++)
        if (m >= l->mem[i] && m < l->mem[i] + l->len[i])
            file = l->off[i] + (m - l->mem[i]);
    char where[64] = "a guard cell";
    if (file >= 0)
        snprintf(where, sizeof where, "file offset %" PRId64, file);
    fprintf(stderr, "mcio-bench: rank %d: %s: memory byte %" PRId64 " (%s) holds 0x%02x, "
            "expected 0x%02x\n", rank, what, m, where, got[m], want[m]);
    return 0;
}

/* Up to len bytes of fd at off into buf, fewer at the end of the file; -1 on an error. */
static int64_t pread_full(int fd, unsigned char *buf, int64_t len, int64_t off)
{
    int64_t done = 0;
    for (ssize_t got = 1; done < len && got > 0; done += got)
        if ((got = pread(fd, buf + done, (size_t)(len - done), off + done)) < 0)
            return -1;
    return done;
}

/* This rank's extents as the file holds them, read with POSIX pread: the engine cannot vouch
 * for its own writes. Bytes past the end of the file keep what buf held. Extents close to each
 * other in the file (FLASH-IO's guarded rows, adjacent in the file and not in memory) are read
 * together, a stretch of at most VERIFY_SPAN bytes at a time, and copied out: one pread per row
 * cost each repetition on the GlusterFS testbed 1.7 s for FLASH-IO alone (a FUSE round trip
 * each). */
static int pread_extents(const char *path, const layout *l, unsigned char *buf, int rank)
{
    enum { VERIFY_SPAN = 4 << 20, VERIFY_GAP = 4096 };
    int fd = open(path, O_RDONLY);
    unsigned char *span = malloc(VERIFY_SPAN);
    if (fd < 0 || !span) {
        fprintf(stderr, "mcio-bench: rank %d: open %s: %s\n", rank, path,
                fd < 0 ? strerror(errno) : "out of memory");
        free(span);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int ok = 1;
    for (int64_t i = 0, j; ok && i < l->n; i = j) {
        /* Extents i..j-1: within VERIFY_SPAN of extent i's start, gaps of VERIFY_GAP at most. */
        int64_t start = l->off[i], end = l->off[i] + l->len[i];
        for (j = i + 1; j < l->n && l->off[j] - end <= VERIFY_GAP &&
                        l->off[j] + l->len[j] - start <= VERIFY_SPAN;
             j++)
            end = l->off[j] + l->len[j];
        int alone = j == i + 1; /* read in place: it may be larger than the span */
        int64_t have = alone ? pread_full(fd, buf, l->len[i], start)
                             : pread_full(fd, span, end - start, start);
        if (have < 0) {
            fprintf(stderr, "mcio-bench: rank %d: pread %s: %s\n", rank, path, strerror(errno));
            ok = 0;
        }
        for (int64_t k = i; k < j; buf += l->len[k++]) {
            int64_t at = l->off[k] - start, n = have - at < l->len[k] ? have - at : l->len[k];
            if (!alone && ok && n > 0)
                memcpy(buf, span + at, (size_t)n);
        }
    }
    free(span);
    close(fd);
    return ok;
}

/* ---- Holes: the bytes no rank names must keep what the file held ---- */

/* What a hole holds: rank 0 writes it before the timed calls (holes_fill) and checks it after
 * every write (holes_check), so an engine that writes a hole (stale bytes of its buffer, or
 * zeros of a read-modify-write that did not read) is caught. */
static unsigned char hole_byte(int64_t off)
{
    return (unsigned char)(0xa5 ^ (((uint64_t)off * 0x9e3779b1u) >> 24));
}

static int by_offset(const void *a, const void *b)
{
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

/* Collective: on rank 0, the holes of all ranks' extents between offset 0 and the last byte any
 * rank names (the extents gathered, sorted, their gaps); elsewhere an empty layout. */
static layout holes_of(const layout *l)
{
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    layout h = {.mtype = MPI_DATATYPE_NULL};
    int64_t *pairs = xmalloc((size_t)(2 * l->n + 1) * sizeof(int64_t)), *all = NULL;
    for (int64_t i = 0; i < l->n; i++)
        pairs[2 * i] = l->off[i], pairs[2 * i + 1] = l->len[i];
    int mine = (int)(2 * l->n), *counts = xmalloc((size_t)nprocs * sizeof(int));
    int *displs = xmalloc((size_t)nprocs * sizeof(int)), n = 0;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < nprocs; r++)
        displs[r] = n, n += counts[r];
    if (rank == 0)
        all = xmalloc((size_t)(n + 1) * sizeof(int64_t));
    MPI_Gatherv(pairs, mine, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(all, (size_t)n / 2, 2 * sizeof(int64_t), by_offset);
        for (int64_t i = 0, end = 0; i < n / 2; i++) {
            layout_push(&h, end, all[2 * i] - end);
            end = all[2 * i] + all[2 * i + 1] > end ? all[2 * i] + all[2 * i + 1] : end;
        }
    }
    free(pairs), free(all), free(counts), free(displs);
    return h;
}

/* Rank 0: writes each hole's bytes (check 0) or checks them (check 1); 1 when all is well,
 * else says where the first wrong byte is. */
static int holes_visit(const char *path, const layout *h, int check)
{
    enum { CHUNK = 1 << 20 };
    int fd = open(path, check ? O_RDONLY : O_WRONLY), ok = fd >= 0, sys = fd < 0;
    unsigned char *buf = h->n > 0 ? xmalloc(CHUNK) : NULL, want;
    for (int64_t i = 0; ok && i < h->n; i++)
        for (int64_t at = h->off[i], end = at + h->len[i]; ok && at < end; at += CHUNK) {
            int64_t n = end - at < CHUNK ? end - at : CHUNK;
            if (!check) {
                for (int64_t k = 0; k < n; k++)
                    buf[k] = hole_byte(at + k);
                sys = !(ok = pwrite(fd, buf, (size_t)n, at) == n);
                continue;
            }
            sys = !(ok = pread_full(fd, buf, n, at) == n);
            for (int64_t k = 0; ok && k < n; k++)
                if (buf[k] != (want = hole_byte(at + k))) {
                    fprintf(stderr, "mcio-bench: byte %" PRId64 " of %s, which no rank names, "
                            "holds %#x, not %#x as before the write\n", at + k, path, buf[k], want);
                    ok = 0;
                }
        }
    if (sys)
        fprintf(stderr, "mcio-bench: the holes of %s: %s\n", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(buf);
    return ok;
}

/* ---- Engines: one table of operations each, so that one loop times and checks them all ---- */

typedef struct bench_file {
    const layout *l;
    int fd; /* limit: the file's descriptor */
    int persistent;
    int sync_writes; /* native: each write ends with MPI_File_sync (--native-sync) */
    MPI_File mf;
    MPI_Datatype ftype;
    mcio_file fh;
    mcio_plan plan;
#if MCIO_BENCH_GIO
    GIO_File gio;
    MPI_Offset *gio_list; /* the file pairs (offsets, lengths), then the memory pairs */
    MPI_Offset gio_mem_n;
#endif
    char err[MPI_MAX_ERROR_STRING + 64];
} bench_file;

typedef struct engine {
    const char *name;
    int mcio_hints; /* whether mcio_* hints go into its MPI_Info */
    int (*open)(bench_file *f, const char *path, MPI_Info info);
    int (*io)(bench_file *f, int write, void *buf); /* the collective call that is timed */
    void (*stats)(bench_file *f, mcio_stats *s);    /* NULL: the engine tells nothing */
    int (*close)(bench_file *f);
} engine;

static int engine_native_status(bench_file *f, const char *what, int err)
{
    if (err == MPI_SUCCESS)
        return 0;
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(err, s, &n);
    snprintf(f->err, sizeof f->err, "%s: %s", what, s);
    return 1;
}

static int engine_native_open(bench_file *f, const char *path, MPI_Info info)
{
    const layout *l = f->l;
    int *blocklens = xmalloc((size_t)l->n * sizeof(int));
    MPI_Aint *displs = xmalloc((size_t)l->n * sizeof(MPI_Aint));
    for (int64_t i = 0; i < l->n; i++) {
        blocklens[i] = (int)l->len[i]; /* main() keeps each rank under 2 GiB */
        displs[i] = (MPI_Aint)l->off[i];
    }
    /* A rank with nothing to access views the file as plain bytes: ROMIO 3.2.1 (Open MPI's
     * romio321) crashes in MPI_File_close on a view whose filetype has no blocks. */
    if (l->n > 0)
        MPI_Type_create_hindexed((int)l->n, blocklens, displs, MPI_BYTE, &f->ftype);
    else
        MPI_Type_dup(MPI_BYTE, &f->ftype);
    MPI_Type_commit(&f->ftype);
    free(blocklens);
    free(displs);
    int err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &f->mf);
    if (engine_native_status(f, "MPI_File_open", err))
        return 1;
    err = MPI_File_set_view(f->mf, 0, MPI_BYTE, f->ftype, "native", info);
    return engine_native_status(f, "MPI_File_set_view", err);
}

static int engine_native_io(bench_file *f, int write, void *buf)
{
    MPI_Status status;
    /* The last call left the individual file pointer after the view's data; the seek is local
     * and costs nothing next to the collective call. */
    int err = MPI_File_seek(f->mf, 0, MPI_SEEK_SET);
    const layout *l = f->l;
    int count = l->mem ? 1 : (int)l->bytes; /* noncontiguous memory: one of its datatype */
    MPI_Datatype mtype = l->mem ? l->mtype : MPI_BYTE;
    if (err == MPI_SUCCESS)
        err = write ? MPI_File_write_all(f->mf, buf, count, mtype, &status)
                    : MPI_File_read_all(f->mf, buf, count, mtype, &status);
    if (engine_native_status(f, write ? "MPI_File_write_all" : "MPI_File_read_all", err))
        return 1;
    return write && f->sync_writes
               ? engine_native_status(f, "MPI_File_sync", MPI_File_sync(f->mf))
               : 0;
}

static int engine_native_close(bench_file *f)
{
    int err = f->mf != MPI_FILE_NULL ? MPI_File_close(&f->mf) : MPI_SUCCESS;
    if (f->ftype != MPI_DATATYPE_NULL)
        MPI_Type_free(&f->ftype);
    return engine_native_status(f, "MPI_File_close", err);
}

static int engine_mcio_status(bench_file *f, const char *what, int rc)
{
    if (rc == MCIO_SUCCESS)
        return 0;
    const char *detail = mcio_error_message(); /* already starts with the generic message */
    snprintf(f->err, sizeof f->err, "%s: %s", what, *detail ? detail : mcio_strerror(rc));
    return 1;
}

static int engine_mcio_open(bench_file *f, const char *path, MPI_Info info)
{
    int rc = mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &f->fh);
    if (engine_mcio_status(f, "mcio_file_open", rc) || !f->persistent)
        return rc != MCIO_SUCCESS;
    const layout *l = f->l;
    rc = l->mem ? mcio_plan_createv(f->fh, l->n, l->off, l->len, l->mem, &f->plan)
                : mcio_plan_create(f->fh, l->n, l->off, l->len, &f->plan);
    return engine_mcio_status(f, "mcio_plan_create", rc);
}

static int engine_mcio_io(bench_file *f, int write, void *buf)
{
    const layout *l = f->l;
    int rc;
    if (f->plan) {
        rc = write ? mcio_plan_write(f->plan, buf) : mcio_plan_read(f->plan, buf);
    } else if (l->mem) { /* the addresses are part of the call, as they are an application's */
        void **addrs = xmalloc((size_t)l->n * sizeof(void *));
        for (int64_t i = 0; i < l->n; i++)
            addrs[i] = (char *)buf + l->mem[i];
        rc = write ? mcio_writev_at_all(f->fh, l->n, l->off, l->len, (const void *const *)addrs)
                   : mcio_readv_at_all(f->fh, l->n, l->off, l->len, addrs);
        free(addrs);
    } else {
        rc = write ? mcio_write_at_all(f->fh, l->n, l->off, l->len, buf)
                   : mcio_read_at_all(f->fh, l->n, l->off, l->len, buf);
    }
    return engine_mcio_status(f, write ? "mcio write" : "mcio read", rc);
}

static void engine_mcio_stats(bench_file *f, mcio_stats *s)
{
    mcio_file_get_stats(f->fh, s);
}

static int engine_mcio_close(bench_file *f)
{
    int rc = f->plan ? mcio_plan_free(&f->plan) : MCIO_SUCCESS;
    if (rc == MCIO_SUCCESS && f->fh)
        rc = mcio_file_close(&f->fh);
    return engine_mcio_status(f, "mcio_file_close", rc);
}

/*
 * limit: what the file system gives for the same bytes without any collective I/O: each rank
 * moves its bytes as one contiguous pwrite / pread, the ranks' blocks back to back (its case
 * gets that contiguous layout, so the data and its checks follow the blocks). The bound any
 * collective implementation is measured against.
 */
static int engine_limit_open(bench_file *f, const char *path, MPI_Info info)
{
    (void)info;
    int rank, err = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && (f->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
        err = errno;
    MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0 && !err && (f->fd = open(path, O_RDWR)) < 0)
        err = errno;
    if (err)
        snprintf(f->err, sizeof f->err, "limit: open %s: %s", path, strerror(err));
    return err != 0;
}

/* Moves l's one extent between buf and the file in calls of at most `chunk` bytes, in order. */
static int move_sequential(bench_file *f, int write, char *p, size_t chunk, const char *who)
{
    const layout *l = f->l;
    for (int64_t done = 0, len = l->bytes; done < len;) {
        size_t want = (uint64_t)(len - done) < chunk ? (size_t)(len - done) : chunk;
        off_t at = (off_t)(l->off[0] + done);
        ssize_t n = write ? pwrite(f->fd, p + done, want, at) : pread(f->fd, p + done, want, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(f->err, sizeof f->err, "%s: %s: %s", who, write ? "pwrite" : "pread",
                     n < 0 ? strerror(errno) : "end of file");
            return 1;
        }
        done += n;
    }
    return 0;
}

static int engine_limit_io(bench_file *f, int write, void *buf)
{
    return move_sequential(f, write, buf, SIZE_MAX, "limit");
}

static int engine_limit_close(bench_file *f)
{
    if (close(f->fd) == 0)
        return 0;
    snprintf(f->err, sizeof f->err, "limit: close: %s", strerror(errno));
    return 1;
}

/*
 * dd: the file system's sequential throughput for the same bytes, as `dd bs=1M` measures it:
 * rank 0 alone writes all ranks' bytes from the start of the file in 1 MiB write calls, then
 * reads them back the same way; the other ranks wait. Like every engine here it neither syncs
 * nor drops the page cache (the sweep runs dd itself for those figures).
 */
#define DD_BLOCK (1 << 20)
static int engine_dd_io(bench_file *f, int write, void *buf)
{
    return move_sequential(f, write, buf, DD_BLOCK, "dd");
}

/*
 * gio, gio-all: GIO 1.0 (github.com/wkliao/gio, the two-phase library PnetCDF 1.15 uses by
 * default), which takes the same offset-length lists as mcio: GIO_write_all / GIO_read_all with
 * the extents as the file pairs and the memory as one packed pair (or each extent's
 * displacement, flash-io). gio runs on GIO's defaults (one aggregator per node, 16 MiB rounds);
 * gio-all sets cb_nodes to the ranks, its other setting for a node of many cores. The lists are
 * built at open, as an application keeps them; --native-sync ends each timed write with
 * GIO_sync, as it does the native engine's.
 */
#if MCIO_BENCH_GIO
static int engine_gio_status(bench_file *f, const char *what, MPI_Offset err)
{
    if (err >= 0)
        return 0;
    snprintf(f->err, sizeof f->err, "%s: %s", what, GIO_strerror((int)err));
    return 1;
}

static int gio_open_with(bench_file *f, const char *path, MPI_Info info, int every_rank)
{
    const layout *l = f->l;
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    f->gio_mem_n = l->n == 0 ? 0 : l->mem ? l->n : 1;
    f->gio_list = xmalloc((size_t)(2 * l->n + 2 * f->gio_mem_n + 1) * sizeof(MPI_Offset));
    MPI_Offset *mem = f->gio_list + 2 * l->n;
    for (int64_t i = 0; i < l->n; i++) {
        f->gio_list[i] = l->off[i], f->gio_list[l->n + i] = l->len[i];
        if (l->mem)
            mem[i] = l->mem[i], mem[l->n + i] = l->len[i];
    }
    if (f->gio_mem_n == 1)
        mem[0] = 0, mem[1] = l->bytes;
    MPI_Info mine;
    char v[16];
    MPI_Info_dup(info, &mine);
    snprintf(v, sizeof v, "%d", nprocs);
    if (every_rank)
        MPI_Info_set(mine, "cb_nodes", v);
    /* GIO takes open(2)'s flags, not MPI's modes. */
    int err = GIO_open(MPI_COMM_WORLD, path, O_CREAT | O_RDWR, mine, &f->gio);
    MPI_Info_free(&mine);
    return engine_gio_status(f, "GIO_open", err);
}

static int engine_gio_open(bench_file *f, const char *path, MPI_Info info)
{
    return gio_open_with(f, path, info, 0);
}

static int engine_gio_all_open(bench_file *f, const char *path, MPI_Info info)
{
    return gio_open_with(f, path, info, 1);
}

static int engine_gio_io(bench_file *f, int write, void *buf)
{
    const MPI_Offset n = f->l->n, *file = f->gio_list, *mem = f->gio_list + 2 * n;
    const MPI_Offset m = f->gio_mem_n;
    MPI_Offset r = write ? GIO_write_all(f->gio, buf, n, file, file + n, m, mem, mem + m)
                         : GIO_read_all(f->gio, buf, n, file, file + n, m, mem, mem + m);
    if (engine_gio_status(f, write ? "GIO_write_all" : "GIO_read_all", r))
        return 1;
    return write && f->sync_writes ? engine_gio_status(f, "GIO_sync", GIO_sync(f->gio)) : 0;
}

static int engine_gio_close(bench_file *f)
{
    int err = f->gio ? GIO_close(&f->gio) : 0;
    free(f->gio_list);
    f->gio_list = NULL;
    return engine_gio_status(f, "GIO_close", err);
}
#else /* parse_engines refuses gio without GIO: these never run */
#define engine_gio_open NULL
#define engine_gio_all_open NULL
#define engine_gio_io NULL
#define engine_gio_close NULL
#endif

static const engine engines[] = {
    {.name = "native", .mcio_hints = 0, .open = engine_native_open, .io = engine_native_io,
     .stats = NULL, .close = engine_native_close},
    {.name = "mcio", .mcio_hints = 1, .open = engine_mcio_open, .io = engine_mcio_io,
     .stats = engine_mcio_stats, .close = engine_mcio_close},
    {.name = "limit", .mcio_hints = 0, .open = engine_limit_open, .io = engine_limit_io,
     .stats = NULL, .close = engine_limit_close},
    {.name = "dd", .mcio_hints = 0, .open = engine_limit_open, .io = engine_dd_io,
     .stats = NULL, .close = engine_limit_close},
    {.name = "gio", .mcio_hints = 0, .open = engine_gio_open, .io = engine_gio_io,
     .stats = NULL, .close = engine_gio_close},
    {.name = "gio-all", .mcio_hints = 0, .open = engine_gio_all_open, .io = engine_gio_io,
     .stats = NULL, .close = engine_gio_close},
};

/* ---- Running a case ---- */

typedef struct result {
    const char *pattern;
    const engine *eng;
    const config *cfg;    /* an mcio case of --config or --strategies, or NULL */
    char label[48];       /* engine, or mcio:the config's name */
    int ranks, reps, verified, have_stats, persistent;
    int64_t bytes, extents; /* summed over ranks */
    double *bw[2];          /* [write, read][rep] MiB/s */
    double median[2];
    mcio_stats *st[2];      /* [write, read][rep]: what the engine said of each call */
    int nodes;              /* the last write's memory per node, copied: the stats' arrays live */
    int64_t *node_budget, *node_peak; /* only until the next call on the file */
} result;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double *s = xmalloc((size_t)n * sizeof(double));
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof *s, by_value);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

/* Agrees on whether any rank failed (a collective error need not strike every rank) and
 * returns the lowest rank that did, or -1; only that rank prints its message, so that an error
 * every rank shares is printed once. */
static int first_failed(int failed, const bench_file *f)
{
    int rank, nprocs, first;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int mine = failed ? rank : nprocs;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == rank)
        fprintf(stderr, "mcio-bench: rank %d: %s\n", rank, f->err);
    return first < nprocs ? first : -1;
}

/* One timed collective call. The allreduce of the times also tells every rank that all of
 * them have returned, so the file holds every aggregator's data before the pread check. */
static double timed_call(const engine *e, bench_file *f, int write, void *buf, int *failed)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = e->io(f, write, buf);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *failed = first_failed(rc != 0, f) >= 0;
    return t;
}

/* The value an MPI library can read: "8m" as 8388608. ROMIO and OMPIO read the leading digits
 * of a byte count only, so cb_buffer_size=8m meant an 8-byte buffer to them (OMPIO grew a rank
 * to 22 GB on it); mcio takes both forms. Other values go as given. */
static const char *info_value(const char *v, char *buf, size_t len)
{
    size_t k = strlen(v);
    int64_t n;
    if (k == 0 || !strchr("kKmMgG", v[k - 1]) || parse_bytes(v, &n) != 0)
        return v;
    snprintf(buf, len, "%" PRId64, n);
    return buf;
}

/* Whether --hint's h-th hint goes to a case of engine e and config cfg: not an mcio_* key to
 * an engine that is not mcio, nor a key the case's config sets itself. */
static int hint_applies(const opts *o, int h, const engine *e, const config *cfg)
{
    if (!e->mcio_hints && strncmp(o->hint_key[h], "mcio_", 5) == 0)
        return 0;
    for (int k = 0; cfg && k < cfg->nhints; k++)
        if (!strcmp(cfg->key[k], o->hint_key[h]))
            return 0;
    return 1;
}

static MPI_Info make_info(const opts *o, const engine *e, const config *cfg)
{
    MPI_Info info;
    char buf[32];
    MPI_Info_create(&info);
    for (int h = 0; h < o->nhints; h++)
        if (hint_applies(o, h, e, cfg))
            MPI_Info_set(info, o->hint_key[h], info_value(o->hint_val[h], buf, sizeof buf));
    for (int k = 0; cfg && k < cfg->nhints; k++)
        MPI_Info_set(info, cfg->key[k], info_value(cfg->val[k], buf, sizeof buf));
    return info;
}

/* One engine's case of the pattern being run: its file and its result. */
typedef struct bench_case {
    const engine *e;
    const layout *holes; /* rank 0: what no rank names, which the case's writes must keep */
    int idx, open_failed;
    char path[4096];
    bench_file f;
    result *r;
} bench_case;

/* A pattern's buffers: the expected bytes packed in extent order, a packed scratch, and, for a
 * layout with memory displacements, the memory images written from and read into. */
typedef struct buffers {
    unsigned char *want, *packed, *wimg, *rimg;
} buffers;

/* --warmup: one untimed write and read of the case, then its file emptied, so that its first
 * timed call finds the process as its later ones do. The first aggregated call of a process
 * faults in its collective buffer's memory (glibc keeps it for later calls), which on a loaded
 * host cost more than the rest of a small call's file access: measured one call per process,
 * a configuration whose earlier patterns went independent paid it where another had paid it
 * already. The timed repetitions verify the bytes; a failure here fails the case. */
static void warm_up(bench_case *c, const buffers *b)
{
    int rank, failed[2];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned char *wimg = c->f.l->mem ? b->wimg : b->want;
    if (!SIMULATED) { /* any bytes will do: they are overwritten and checked after */
        memset(wimg, 0x5a, (size_t)(c->f.l->mem ? c->f.l->mem_bytes : c->f.l->bytes));
    }
    timed_call(c->e, &c->f, 1, wimg, &failed[0]);
    timed_call(c->e, &c->f, 0, b->rimg, &failed[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && !SIMULATED && truncate(c->path, 0) != 0)
        fprintf(stderr, "mcio-bench: --warmup: cannot empty %s: %s\n", c->path, strerror(errno));
    if (rank == 0 && c->holes && c->holes->n > 0 && !holes_visit(c->path, c->holes, 0))
        failed[0] = 1;
    MPI_Bcast(&failed[0], 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (failed[0] || failed[1])
        c->r->verified = 0, c->r->reps = 0;
}

/* One repetition of one case: write, check the file, read, check the buffer (with memory
 * displacements: every byte of it, the guard cells too). */
static void run_rep(const opts *o, bench_case *c, int rep, int ncases, const buffers *b)
{
    const layout *l = c->f.l;
    result *r = c->r;
    int rank, failed[2];
    double t[2];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t key_state = o->seed ^ ((uint64_t)c->idx << 32) ^ (uint64_t)rep;
    unsigned char *wimg = l->mem ? b->wimg : b->want;
    if (!SIMULATED) { /* nothing is stored in simulation: no data to make or check */
        fill_expected(l, splitmix64(&key_state), b->want);
        if (l->mem)
            scatter(l, b->want, wimg);
    }
    t[0] = timed_call(c->e, &c->f, 1, wimg, &failed[0]);
    if (!SIMULATED)
        poison(b->packed, b->want, l->bytes);
    int ok = !failed[0] && (SIMULATED || (pread_extents(c->path, l, b->packed, rank) &&
                                          check_bytes(l, b->packed, b->want, rank,
                                                      "after the write, the file")));
    if (ok && rank == 0 && c->holes && c->holes->n > 0)
        ok = holes_visit(c->path, c->holes, 1);
    if (c->e->stats) {
        c->e->stats(&c->f, &r->st[0][rep]);
        const mcio_stats *st = &r->st[0][rep];
        free(r->node_budget);
        free(r->node_peak);
        r->nodes = st->node_budget_bytes ? st->nodes : 0;
        r->node_budget = xmalloc((size_t)r->nodes * sizeof(int64_t));
        r->node_peak = xmalloc((size_t)r->nodes * sizeof(int64_t));
        for (int j = 0; j < r->nodes; j++) {
            r->node_budget[j] = st->node_budget_bytes[j];
            r->node_peak[j] = st->node_peak_bytes[j];
        }
    }
    if (!SIMULATED) {
        poison(l->mem ? b->packed : b->rimg, b->want, l->bytes);
        if (l->mem)
            scatter(l, b->packed, b->rimg);
    }
    t[1] = timed_call(c->e, &c->f, 0, b->rimg, &failed[1]);
    ok = ok && !failed[1] &&
         (SIMULATED || (l->mem ? check_image(l, b->rimg, wimg, rank, "the read buffer")
                               : check_bytes(l, b->rimg, b->want, rank, "the read buffer")));
    if (c->e->stats)
        c->e->stats(&c->f, &r->st[1][rep]);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    r->verified &= ok;
    for (int w = 0; w < 2; w++)
        r->bw[w][rep] = (double)r->bytes / MIB / (t[w] > 0 ? t[w] : 1e-9);
    if (rank == 0)
        fprintf(stderr, "[%d/%d] %s engine=%s rep %d/%d write %.1f MiB/s read %.1f MiB/s%s\n",
                c->idx + 1, ncases, r->pattern, r->label, rep + 1, o->reps, r->bw[0][rep],
                r->bw[1][rep], !ok ? "  VERIFICATION FAILED" : SIMULATED ? "  (simulated)" : "");
}

/* The cases of engine e (engines[] order) in each pattern: none when not chosen; the native
 * twice with --native-again; mcio once per --strategies and --config case, or once. */
static int engine_cases(const opts *o, int e)
{
    if (!o->use[e])
        return 0;
    return e == 0 ? 1 + o->native_again : e == 1 && o->nconfigs > 0 ? o->nconfigs : 1;
}

/* The order of a repetition's cases: a permutation drawn afresh for each repetition (the same
 * on every rank: from --order-seed, the pattern and the repetition). A case's time depends on the
 * case before it: measured with four identical mcio configurations beside the native (MPICH, 2
 * ranks, 2 MiB, contiguous, 4 processes), rotating the order by one each repetition, which
 * keeps every case's predecessor, gave the one after the native's second case writes 6-10 %
 * slower than the last. Drawn afresh, each case follows each other one as often; the same seed
 * still gave one case 5-8 % slower in each of 4 processes, and seeds drawn per process (as
 * tools/mcio-oracle.py does) spread that over the cases. */
static void case_order(const opts *o, int idx0, int rep, int nc, int *order)
{
    uint64_t state = (o->order_seeded ? o->order_seed : o->seed) ^ ((uint64_t)idx0 << 40) ^
                     ((uint64_t)rep << 20) ^ 0x5eedu;
    for (int i = 0; i < nc; i++)
        order[i] = i;
    for (int i = nc - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(splitmix64(&state) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* Runs one pattern through every chosen engine, filling res[0..] in engine order; returns how
 * many. Both files stay open while the engines take turns (see the top of the file). */
static int run_pattern(const opts *o, const char *pname, const layout *l, long pid, int idx0,
                       int ncases, result *res)
{
    int rank, nprocs, nc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int64_t mine[2] = {l->bytes, l->n}, total[2];
    MPI_Allreduce(mine, total, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    bench_case cs[NENGINES + MAX_CONFIGS];
    /* The limit's layout: this rank's bytes as one block, the ranks' blocks back to back. */
    int64_t before = 0;
    if (o->use[2]) /* SMPI's MPI_Exscan sends O(ranks^2) messages: only when the limit runs */
        MPI_Exscan(&l->bytes, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    layout contig = {.mtype = MPI_DATATYPE_NULL}, whole = {.mtype = MPI_DATATYPE_NULL};
    layout holes = SIMULATED ? (layout){.mtype = MPI_DATATYPE_NULL} : holes_of(l);
    layout_push(&contig, rank == 0 ? 0 : before, l->bytes);
    if (rank == 0) /* dd's layout: all the bytes, rank 0's */
        layout_push(&whole, 0, total[0]);
    /* native, mcio, the limit, dd, GIO: each engine's cases (engine_cases) */
    for (int e = 0; e < NENGINES; e++)
        for (int k = 0; k < engine_cases(o, e); k++) {
            bench_case *c = &cs[nc];
            const config *cfg = e == 1 && o->nconfigs > 0 ? &o->config[k] : NULL;
            *c = (bench_case){.e = &engines[e], .idx = idx0 + nc, .r = &res[nc],
                              .holes = e == 2 || e == 3 ? NULL : &holes,
                              .f = {.l = e == 2 ? &contig : e == 3 ? &whole : l,
                                    .persistent = o->persistent, .sync_writes = o->native_sync,
                                    .mf = MPI_FILE_NULL, .ftype = MPI_DATATYPE_NULL, .fd = -1}};
            snprintf(c->path, sizeof c->path, "%s/mcio-bench.%ld.%d.%s.%s", o->dir, pid, c->idx,
                     pname, c->e->name);
            *c->r = (result){.pattern = pname, .eng = c->e, .cfg = cfg, .ranks = nprocs,
                             .reps = o->reps, .verified = 1, .bytes = total[0], .extents = total[1],
                             .have_stats = c->e->stats != NULL};
            const char *suffix = cfg ? cfg->name : e == 0 && k > 0 ? "again" : NULL;
            snprintf(c->r->label, sizeof c->r->label, "%s%s%s", c->e->name, suffix ? ":" : "",
                     suffix ? suffix : "");
            for (int w = 0; w < 2; w++) {
                c->r->bw[w] = xmalloc((size_t)o->reps * sizeof(double));
                c->r->st[w] = xmalloc((size_t)o->reps * sizeof(mcio_stats));
            }
            if (rank == 0) {
                unlink(c->path); /* MPI_MODE_CREATE keeps an old file's bytes; start from nothing */
                int fd = o->precreate ? open(c->path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644) : -1;
                if (fd >= 0)
                    close(fd); /* a failure shows at the engine's open */
            }
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Info info = make_info(o, c->e, cfg);
            c->open_failed = c->e->open(&c->f, c->path, info);
            MPI_Info_free(&info);
            if (rank == 0 && !c->open_failed && c->holes && c->holes->n > 0 &&
                !holes_visit(c->path, c->holes, 0))
                c->open_failed = 1, snprintf(c->f.err, sizeof c->f.err, "cannot write the holes");
            if (first_failed(c->open_failed, &c->f) >= 0)
                c->r->verified = 0, c->r->reps = 0;
            c->r->persistent = c->f.plan != MCIO_PLAN_NULL;
            nc++;
        }
    int64_t packed = whole.bytes > l->bytes ? whole.bytes : l->bytes, img = layout_mem_bytes(l);
    buffers b = {.want = data_alloc(o, packed), .packed = data_alloc(o, packed),
                 .wimg = l->mem ? data_alloc(o, l->mem_bytes) : NULL,
                 .rimg = data_alloc(o, img > packed ? img : packed)};
    for (int i = 0; o->warmup && i < nc; i++)
        if (cs[i].r->reps > 0)
            warm_up(&cs[i], &b);
    for (int rep = 0; rep < o->reps; rep++) {
        int order[NENGINES + MAX_CONFIGS];
        case_order(o, idx0, rep, nc, order);
        for (int j = 0; j < nc; j++) {
            int i = order[j];
            if (rep < cs[i].r->reps)
                run_rep(o, &cs[i], rep, ncases, &b);
        }
    }
    for (int i = 0; i < nc; i++) {
        bench_case *c = &cs[i];
        if (!c->open_failed && c->e->close(&c->f) != 0)
            fprintf(stderr, "mcio-bench: rank %d: %s\n", rank, c->f.err);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0 && !o->keep)
            unlink(c->path);
        for (int w = 0; w < 2 && c->r->reps > 0; w++)
            c->r->median[w] = median(c->r->bw[w], c->r->reps);
    }
    data_free(o, b.want);
    data_free(o, b.packed);
    data_free(o, b.wimg);
    data_free(o, b.rimg);
    layout_free(&contig);
    layout_free(&whole);
    layout_free(&holes);
    return nc;
}

/* ---- Output (rank 0) ---- */

/* r's median over that of engine `to` (native, or the limit) for the same pattern in this
 * invocation; 0 when there is none, or r is that engine, or r is a bound (limit, dd). */
static double ratio_to(const result *res, int nres, const result *r, int w, const engine *to)
{
    if (r->eng == to || r->eng == &engines[2] || r->eng == &engines[3])
        return 0;
    for (int i = 0; i < nres; i++)
        if (res[i].eng == to && !strcmp(res[i].pattern, r->pattern) && res[i].reps > 0 &&
            res[i].median[w] > 0)
            return r->median[w] / res[i].median[w];
    return 0;
}

static void fmt_bytes(char *out, size_t n, int64_t b)
{
    if (b >= (1 << 20))
        snprintf(out, n, "%.1f MiB", (double)b / MIB);
    else if (b >= 1024)
        snprintf(out, n, "%.1f KiB", b / 1024.0);
    else
        snprintf(out, n, "%" PRId64 " B", b);
}

/* The columns not every record can fill, as text for the table (human) or the JSON, with
 * `none` where there is nothing to say: native keeps no statistics and has no ratio to itself. */
enum { C_AGGS, C_ROUNDS, C_MAXBUF, C_RATIO_W, C_RATIO_R, C_LIMIT_W, C_LIMIT_R, NCELLS };
typedef char cells[NCELLS][32];

static void optional_cells(const result *res, int nres, const result *r, int human,
                           const char *none, cells c)
{
    for (int k = 0; k < NCELLS; k++)
        snprintf(c[k], sizeof c[k], "%s", none);
    if (r->have_stats && r->reps > 0) { /* every repetition's write has the same shape */
        const mcio_stats *st = &r->st[0][r->reps - 1];
        snprintf(c[C_AGGS], sizeof c[C_AGGS], "%d", st->aggregators);
        snprintf(c[C_ROUNDS], sizeof c[C_ROUNDS], "%d", st->rounds);
        if (human)
            fmt_bytes(c[C_MAXBUF], sizeof c[C_MAXBUF], st->max_buffer_bytes);
        else
            snprintf(c[C_MAXBUF], sizeof c[C_MAXBUF], "%" PRId64, st->max_buffer_bytes);
    }
    for (int w = 0; w < 2; w++) {
        double q = ratio_to(res, nres, r, w, &engines[0]);
        if (q > 0)
            snprintf(c[C_RATIO_W + w], sizeof c[C_RATIO_W], human ? "%.2f" : "%.4f", q);
        q = ratio_to(res, nres, r, w, &engines[2]);
        if (q > 0)
            snprintf(c[C_LIMIT_W + w], sizeof c[C_LIMIT_W], human ? "%.2f" : "%.4f", q);
    }
}

/* Which MPI-IO implementation "native" is: Open MPI chooses its io component by MCA parameter
 * (`--mca io romio321` exports OMPI_MCA_io), OMPIO by default; MPICH's is ROMIO. */
static const char *native_io(const char *libversion)
{
    if (!strstr(libversion, "Open MPI"))
        return "romio";
    const char *io = getenv("OMPI_MCA_io");
    return io && *io ? io : "ompio";
}

static void print_table(const opts *o, const result *res, int nres, const char *libversion)
{
    char lib[128];
    snprintf(lib, sizeof lib, "%.*s", (int)strcspn(libversion, "\n,"), libversion);
    for (char *t = lib; (t = strchr(t, '\t')) != NULL;) /* MPICH: "MPICH Version:\t4.0.2" */
        *t = ' ';
    printf("# mcio-bench: %d ranks, %s (native = %s), reps %d%s", res[0].ranks, lib,
           native_io(libversion), o->reps, o->persistent ? ", persistent plans" : "");
    for (int h = 0; h < o->nhints; h++)
        printf("%s%s=%s", h ? " " : ", hints: ", o->hint_key[h], o->hint_val[h]);
    printf("\n%-11s %-12s %5s %11s %12s %12s %8s %8s %7s %7s %5s %6s %10s  %s\n", "pattern",
           "engine", "ranks", "bytes", "write MiB/s", "read MiB/s", "w/native", "r/native",
           "w/limit", "r/limit", "aggs", "rounds", "max buffer", "verified");
    for (int i = 0; i < nres; i++) {
        const result *r = &res[i];
        char bytes[32];
        cells c;
        fmt_bytes(bytes, sizeof bytes, r->bytes);
        optional_cells(res, nres, r, 1, "-", c);
        printf("%-11s %-12s %5d %11s %12.1f %12.1f %8s %8s %7s %7s %5s %6s %10s  %s\n",
               r->pattern, r->label, r->ranks, bytes, r->median[0], r->median[1], c[C_RATIO_W],
               c[C_RATIO_R], c[C_LIMIT_W], c[C_LIMIT_R], c[C_AGGS], c[C_ROUNDS], c[C_MAXBUF],
               !r->verified ? "NO" : SIMULATED ? "simulated" : "yes");
    }
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* "key":"value" as the i-th member of an object. */
static void json_pair(FILE *f, int i, const char *key, const char *value)
{
    fprintf(f, "%s", i ? "," : "");
    json_string(f, key);
    fputc(':', f);
    json_string(f, value);
}

static void json_numbers(FILE *f, const char *key, const double *v, int n)
{
    fprintf(f, ",\"%s\":[", key);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.3f", i ? "," : "", v[i]);
    fputc(']', f);
}

/* mcio's split of each call (slowest rank, seconds); the JSON gives medians over repetitions. */
static const struct {
    const char *name;
    size_t at;
} time_part[] = {{"t_metadata", offsetof(mcio_stats, t_metadata)},
                 {"t_plan", offsetof(mcio_stats, t_plan)},
                 {"t_exchange", offsetof(mcio_stats, t_exchange)},
                 {"t_io", offsetof(mcio_stats, t_io)},
                 {"t_total", offsetof(mcio_stats, t_total)},
                 {"t_wait", offsetof(mcio_stats, t_wait)},
                 {"t_overlap", offsetof(mcio_stats, t_overlap)}};

/* f was opened before the run, so that a bad --json path costs no measurement. */
static int write_json(FILE *f, const opts *o, const result *res, int nres, const char *libversion,
                      FILE *series)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    fprintf(f, "{\"machine\":{\"hostname\":");
    json_string(f, host);
    fprintf(f, ",\"mpi_library_version\":");
    json_string(f, libversion);
    fprintf(f, ",\"native_io\":");
    json_string(f, native_io(libversion));
    fprintf(f, ",\"ranks\":%d},\n\"results\":[", res[0].ranks);
    for (int i = 0; i < nres; i++) {
        const result *r = &res[i];
        cells c;
        optional_cells(res, nres, r, 0, "null", c);
        fprintf(f, "%s\n{\"pattern\":\"%s\",\"engine\":\"%s\",\"label\":\"%s\",\"ranks\":%d,"
                "\"bytes\":%" PRId64 ",\"extents\":%" PRId64 ",\"persistent\":%s,"
                "\"write_mib_s\":%.3f,\"read_mib_s\":%.3f",
                i ? "," : "", r->pattern, r->eng->name, r->label, r->ranks, r->bytes,
                r->extents, r->persistent ? "true" : "false", r->median[0],
                r->median[1]);
        json_numbers(f, "write_reps", r->bw[0], r->reps);
        json_numbers(f, "read_reps", r->bw[1], r->reps);
        if (SIMULATED) /* no byte to verify: "verified" says only that no call failed */
            fprintf(f, ",\"simulated\":true");
        fprintf(f, ",\"verified\":%s,\"aggregators\":%s,\"rounds\":%s,\"max_buffer_bytes\":%s,"
                "\"ratio_write_vs_native\":%s,\"ratio_read_vs_native\":%s,"
                "\"fraction_of_limit_write\":%s,\"fraction_of_limit_read\":%s,\"hints\":{",
                r->verified ? "true" : "false", c[C_AGGS], c[C_ROUNDS], c[C_MAXBUF],
                c[C_RATIO_W], c[C_RATIO_R], c[C_LIMIT_W], c[C_LIMIT_R]);
        int n = 0; /* the hints make_info gave this case */
        for (int h = 0; h < o->nhints; h++)
            if (hint_applies(o, h, r->eng, r->cfg))
                json_pair(f, n++, o->hint_key[h], o->hint_val[h]);
        for (int k = 0; r->cfg && k < r->cfg->nhints; k++)
            json_pair(f, n++, r->cfg->key[k], r->cfg->val[k]);
        fprintf(f, "}");
        if (r->cfg) {
            fprintf(f, ",\"mcio_config\":");
            json_string(f, r->cfg->name);
        }
        if (r->have_stats && r->reps > 0) { /* the memory the last write's plan held per node */
            fprintf(f, ",\"fallbacks\":%d,\"node_budget_bytes\":[",
                    r->st[0][r->reps - 1].fallbacks);
            for (int j = 0; j < r->nodes; j++)
                fprintf(f, "%s%" PRId64, j ? "," : "", r->node_budget[j]);
            fprintf(f, "],\"node_peak_bytes\":[");
            for (int j = 0; j < r->nodes; j++)
                fprintf(f, "%s%" PRId64, j ? "," : "", r->node_peak[j]);
            fprintf(f, "]");
        }
        fprintf(f, ",\"mcio_times\":%s", r->have_stats ? "{" : "null");
        double *v = xmalloc((size_t)r->reps * sizeof(double) + 1);
        for (int w = 0; w < 2 && r->have_stats; w++) {
            fprintf(f, "%s\"%s\":{", w ? "," : "", w ? "read" : "write");
            for (int k = 0; k < (int)(sizeof time_part / sizeof time_part[0]); k++) {
                for (int rep = 0; rep < r->reps; rep++)
                    memcpy(&v[rep], (const char *)&r->st[w][rep] + time_part[k].at, sizeof *v);
                fprintf(f, "%s\"%s\":%.6f", k ? "," : "", time_part[k].name, median(v, r->reps));
            }
            fputc('}', f);
        }
        free(v);
        fprintf(f, "%s}", r->have_stats ? "}" : "");
    }
    fprintf(f, "\n]");
    if (series) { /* --soak: the samples, one per time */
        fprintf(f, ",\n\"soak\":[\n");
        rewind(series);
        for (int ch; (ch = fgetc(series)) != EOF;)
            fputc(ch, f);
        fprintf(f, "\n]");
    }
    fprintf(f, "}\n");
    return fclose(f) != 0;
}

/* Every pattern through every chosen engine, then the table and the JSON (rank 0). */
static void results_free(result *res, int nres)
{
    for (int i = 0; i < nres; i++) {
        for (int w = 0; w < 2; w++) {
            free(res[i].bw[w]);
            free(res[i].st[w]);
        }
        free(res[i].node_budget);
        free(res[i].node_peak);
    }
}

/* This process's resident memory in KiB and open descriptors, from /proc (-1 where absent). */
static void process_now(int64_t *rss_kib, int64_t *fds)
{
    long pages = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    if (f)
        fclose(f);
    *rss_kib = resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
    DIR *d = opendir("/proc/self/fd");
    *fds = d ? 0 : -1;
    for (struct dirent *e; d && (e = readdir(d));)
        *fds += e->d_name[0] != '.'; /* the directory's own descriptor counts alike each time */
    if (d)
        closedir(d);
}

/* --soak: after time k of the run, the calls so far, the median call (seconds: each timed
 * call's bytes over its bandwidth), and the most RSS and descriptors of any rank; rank 0
 * prints them and keeps them for the JSON. Returns the descriptors. */
static int64_t soak_sample(const opts *o, int k, const result *res, int nres, int64_t *calls,
                           FILE *log)
{
    int64_t v[2];
    double *t = xmalloc((size_t)(2 * nres * o->reps + 1) * sizeof(double));
    int n = 0;
    for (int i = 0; i < nres; i++)
        for (int w = 0; w < 2; w++)
            for (int rep = 0; rep < res[i].reps; rep++)
                t[n++] = (double)res[i].bytes / MIB / res[i].bw[w][rep];
    *calls += n;
    double med = n ? median(t, n) : 0;
    free(t);
    process_now(&v[0], &v[1]);
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fprintf(stderr, "mcio-bench: soak %d/%d: %" PRId64 " calls, median call %.3f ms, "
                "RSS %" PRId64 " KiB, %" PRId64 " descriptors\n", k + 1, o->soak, *calls,
                med * 1e3, v[0], v[1]);
        if (log)
            fprintf(log, "%s{\"calls\": %" PRId64 ", \"median_call_s\": %.9f, \"rss_kib\": %"
                    PRId64 ", \"fds\": %" PRId64 "}", k ? ",\n  " : "  ", *calls, med, v[0], v[1]);
    }
    return v[1];
}

/* Every pattern through every chosen engine (--soak times over), then the table and the JSON
 * (rank 0). */
static int run_all(const opts *o, layout *lay, FILE *json)
{
    int rank, status = 0, nres = 0, len = 0, ncases = 0, times = o->soak ? o->soak : 1;
    for (int e = 0; e < NENGINES; e++)
        ncases += o->npatterns * engine_cases(o, e);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char libversion[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    MPI_Get_library_version(libversion, &len);
    long pid = (long)getpid(); /* rank 0's pid names the files, so concurrent runs never meet */
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    result *res = xmalloc((size_t)ncases * sizeof(result));
    FILE *series = rank == 0 && o->soak ? tmpfile() : NULL;
    int64_t calls = 0, fds_settled = -1;
    for (int k = 0; k < times; k++) {
        if (k > 0)
            results_free(res, nres);
        nres = 0;
        for (int p = 0; p < o->npatterns; p++)
            nres += run_pattern(o, patterns[o->pattern[p]].name, &lay[p], pid, nres, ncases,
                                &res[nres]);
        for (int i = 0; i < nres; i++)
            status |= !res[i].verified;
        int64_t fds = o->soak ? soak_sample(o, k, res, nres, &calls, series) : 0;
        if (k == 1)
            fds_settled = fds;
        if (k > 1 && fds > fds_settled) {
            if (rank == 0)
                fprintf(stderr, "mcio-bench: soak: %" PRId64 " descriptors open after time %d, "
                        "%" PRId64 " after the second: a leak\n", fds, k + 1, fds_settled);
            status = 1;
        }
    }
    if (rank == 0) {
        print_table(o, res, nres, libversion);
        if (json && write_json(json, o, res, nres, libversion, series) != 0) {
            fprintf(stderr, "mcio-bench: --json %s: %s\n", o->json, strerror(errno));
            status = 1;
        }
    }
    if (series)
        fclose(series);
    results_free(res, nres);
    free(res);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD); /* a failed --json counts everywhere */
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    opts o;
    char msg[512] = "";
    FILE *json = NULL;
    layout *lay = NULL;
    int verdict = parse_args(argc, argv, &o, msg, sizeof msg);
    if (verdict == 0) {
        /* What only the file system and the patterns can judge, before any measurement. */
        lay = xmalloc((size_t)o.npatterns * sizeof(layout));
        for (int p = 0; p < o.npatterns; p++)
            lay[p] = (layout){.mtype = MPI_DATATYPE_NULL};
        int64_t most[MAX_PATTERNS];
        for (int p = 0; p < o.npatterns; p++) {
            layout_build(&o, &patterns[o.pattern[p]], rank, nprocs, &lay[p]);
            most[p] = lay[p].bytes;
        }
        MPI_Allreduce(MPI_IN_PLACE, most, o.npatterns, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        int bad = 0;
        for (int p = 0; p < o.npatterns && !bad; p++)
            if ((bad = most[p] > INT_MAX)) /* the native engine passes them as one int count */
                snprintf(msg, sizeof msg, "--size: %s gives a rank %" PRId64 " bytes, more than "
                         "an MPI count holds (2 GiB - 1)", patterns[o.pattern[p]].name, most[p]);
        if (rank == 0 && !bad && (bad = access(o.dir, W_OK | X_OK) != 0))
            snprintf(msg, sizeof msg, "--dir %s: %s", o.dir, strerror(errno));
        if (rank == 0 && !bad && o.json && (bad = !(json = fopen(o.json, "w"))))
            snprintf(msg, sizeof msg, "--json %s: %s", o.json, strerror(errno));
        MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0 alone judged the last two */
        verdict = bad ? 2 : 0;
    }
    if (rank == 0 && verdict == 1)
        fputs(usage, stdout);
    if (rank == 0 && verdict == 2)
        fprintf(stderr, "mcio-bench: %s\n", msg);
    /* mcio reads its machine description from the environment when a file opens. */
    if (verdict == 0 && o.node_memory)
        setenv("MCIO_VIRTUAL_NODE_MEMORY", o.node_memory, 1);
    if (verdict == 0 && o.ranks_per_node)
        setenv("MCIO_VIRTUAL_RANKS_PER_NODE", o.ranks_per_node, 1);
    int status = verdict == 0 ? run_all(&o, lay, json) : verdict == 1 ? 0 : 2;
    for (int p = 0; lay && p < o.npatterns; p++)
        layout_free(&lay[p]);
    free(lay);
    free(o.hint_key);
    free(o.hint_val);
    MPI_Finalize();
    return status;
}
