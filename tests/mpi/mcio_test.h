/*
 * Helpers shared by the multi-rank tests: a sentinel-filled file, the expected image of a file
 * after some ranks wrote some extents, byte-for-byte verification (through mcio and through
 * plain pread), failure counting and checks that print file:line with mcio's error message.
 *
 * The scheme every test follows:
 *   1. rank 0 fills the file with a sentinel pattern that depends on the offset (mt_prefill);
 *   2. the ranks write their extents with data that depends on the offset and a generation
 *      number and never equals the sentinel at that offset (mt_data), so a byte that was not
 *      written, written twice, or written at the wrong place is seen;
 *   3. every rank rebuilds the expected image of a slice of the file from every rank's extent
 *      list (the lists are deterministic functions of rank and size, or were allgathered) and
 *      compares it with what mcio_read_at_all and pread return: holes and the tail past the last
 *      written byte must keep the sentinel, and the file must keep its size.
 * Each program ends with mt_finish(), which allreduces the failure count: every rank exits
 * non-zero when any rank failed, and rank 0 prints a one-line summary.
 *
 * No hang goes unexplained: mt_init arms a deadline (MCIO_TEST_DEADLINE seconds, default 270,
 * below ctest's 300 s timeout); each CHECK_OK records the call the rank is in (its text,
 * file:line and the scenario), and when the deadline passes every rank prints where it is,
 * "deadline ... rank r/n in <call> at file:line [scenario]", and exits with status 124, so a
 * hang names the ranks that never arrived and the ones waiting for them.
 */
#ifndef MCIO_TEST_H
#define MCIO_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "mcio.h"
#include "../test_deadline.h"

/*
 * The tests of the planners and executors (rounds, pipelines, faults, memory budgets) check
 * plan shapes that the classic default made: they run with mcio_strategy=fit (romio when it
 * fits the memory, else memory) unless the test or its MCIO_HINTS file names a strategy or
 * MCIO_TEST_STRATEGY says another (mpi_auto: the default, the cost model, which the drop-in
 * and tool tests run under too).
 */
static inline int mt_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info,
                               mcio_file *fh)
{
    const char *want = getenv("MCIO_TEST_STRATEGY"), *hints = getenv("MCIO_HINTS");
    char named = 0, text[4096] = "";
    FILE *f = hints && *hints ? fopen(hints, "r") : NULL;
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
        named = strstr(text, "mcio_strategy") != NULL;
    }
    if (info != MPI_INFO_NULL) {
        int flag = 0;
        char v[32];
        MPI_Info_get(info, "mcio_strategy", (int)sizeof v - 1, v, &flag);
        named |= (char)flag;
    }
    if (named || (want && !strcmp(want, "default")))
        return (mcio_file_open)(comm, path, amode, info, fh);
    MPI_Info mine;
    if (info != MPI_INFO_NULL)
        MPI_Info_dup(info, &mine);
    else
        MPI_Info_create(&mine);
    MPI_Info_set(mine, "mcio_strategy", want && *want ? want : "fit");
    int st = (mcio_file_open)(comm, path, amode, mine, fh);
    MPI_Info_free(&mine);
    return st;
}
#define mcio_file_open(comm, path, amode, info, fh) mt_file_open(comm, path, amode, info, fh)

/* State of the test program; one per process. */
typedef struct mt_state {
    int rank, nprocs;
    const char *prog;
    const char *dir;
    char tag[32];    /* extra name part from the environment (virtual nodes), "" when none */
    int failures;    /* checks that failed on this rank */
    int checks;      /* checks made on this rank */
    int printed;     /* failure messages printed by this rank (capped) */
    const char *ctx; /* what the test is doing, printed with failures */
    char where[512];  /* the deadline's message: the call this rank is in (mt_phase) */
} mt_state;

static mt_state mt;

#define MT_MAX_PRINTED 30

static inline void mt_vfail(const char *file, int line, const char *fmt, va_list ap)
{
    mt.failures++;
    if (mt.printed++ >= MT_MAX_PRINTED)
        return;
    char msg[768];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "FAIL %s:%d rank %d/%d [%s]: %s\n", file, line, mt.rank, mt.nprocs,
            mt.ctx ? mt.ctx : "-", msg);
    fflush(stderr);
}

static inline void mt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_vfail(file, line, fmt, ap);
    va_end(ap);
}

/* A condition that must hold; on failure prints it with the last mcio error message. */
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        mt.checks++;                                                                               \
        if (!(cond))                                                                               \
            mt_fail(__FILE__, __LINE__, "CHECK(%s) failed (last mcio error: '%s')", #cond,         \
                    mcio_error_message());                                                         \
    } while (0)

/* A condition with a printf-style explanation. */
#define CHECKF(cond, ...)                                                                          \
    do {                                                                                           \
        mt.checks++;                                                                               \
        if (!(cond))                                                                               \
            mt_fail(__FILE__, __LINE__, __VA_ARGS__);                                              \
    } while (0)

/* An mcio call that must succeed; evaluates to the status it returned. */
/* Record the call this rank is about to make, for the deadline's report. */
static inline void mt_phase(const char *what, const char *file, int line)
{
    snprintf(mt.where, sizeof mt.where, "%s: deadline passed: rank %d/%d in %.300s at %s:%d [%s]\n",
             mt.prog ? mt.prog : "test", mt.rank, mt.nprocs, what, file, line, mt.ctx ? mt.ctx : "-");
}

#define CHECK_OK(call)                                                                             \
    (mt_phase(#call, __FILE__, __LINE__), mt_check_st((call), MCIO_SUCCESS, #call, __FILE__, __LINE__))

static inline int mt_check_st(int st, int want, const char *what, const char *file, int line)
{
    mt.checks++;
    if (st != want)
        mt_fail(file, line, "%s returned %d (%s), expected %d (%s); message: '%s'", what, st,
                mcio_strerror(st), want, mcio_strerror(want), mcio_error_message());
    return st;
}

/* SIGALRM: say where this rank is (write: async-signal-safe), give the other ranks, whose
 * deadlines pass at about the same time, 3 s to say it too before the launcher sees an exit and
 * kills them, then exit 124. */
static void mt_deadline(int sig)
{
    (void)sig;
    ssize_t n = write(2, mt.where, strlen(mt.where));
    (void)n;
    sleep(3);
    _exit(124);
}

static inline void mt_arm_deadline(void)
{
    mt_phase("the test's own code (between mcio calls)", __FILE__, __LINE__);
    test_deadline_arm(270, mt_deadline);
}

/* MCIO_TEST_THREAD_MULTIPLE=1 initializes MPI with MPI_THREAD_MULTIPLE, so that pipelined
 * executors run the mpiio backend from their I/O thread too. */
static inline void mt_init(int *argc, char ***argv, const char *prog)
{
    const char *tm = getenv("MCIO_TEST_THREAD_MULTIPLE");
    if (tm && strcmp(tm, "1") == 0) {
        int provided = MPI_THREAD_SINGLE;
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided != MPI_THREAD_MULTIPLE)
            fprintf(stderr, "%s: MPI_THREAD_MULTIPLE asked, %d provided\n", prog, provided);
    } else {
        MPI_Init(argc, argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mt.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt.nprocs);
    mt.prog = prog;
    mt_arm_deadline();
    mt.dir = getenv("MCIO_TEST_DIR");
    if (!mt.dir || !*mt.dir)
        mt.dir = ".";
    const char *v = getenv("MCIO_VIRTUAL_RANKS_PER_NODE");
    if (v && *v)
        snprintf(mt.tag, sizeof mt.tag, "-v%.8s", v);
    /* A hints file from the environment (the pipeline matrix): its name, without directory and
     * extension, goes into the file names, so that variants running at once do not collide. */
    const char *h = getenv("MCIO_HINTS");
    if (h && *h) {
        const char *b = strrchr(h, '/') ? strrchr(h, '/') + 1 : h;
        size_t at = strlen(mt.tag), n = strcspn(b, ".");
        snprintf(mt.tag + at, sizeof mt.tag - at, "-%.*s", (int)(n < 20 ? n : 20), b);
    }
}

/*
 * End of the program: agree on the failure count, print one line on rank 0, finalize.
 * Returns the exit status (non-zero on every rank when any rank failed).
 */
static inline int mt_finish(void)
{
    mt_phase("mt_finish (the final allreduce of failures)", __FILE__, __LINE__);
    int local[2] = {mt.failures, mt.checks}, sum[2] = {0, 0};
    MPI_Allreduce(local, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mt.rank == 0) {
        printf("%s: %d ranks%s%s: %s (%d failed of %d checks)\n", mt.prog, mt.nprocs,
               mt.tag[0] ? ", env " : "", mt.tag, sum[0] ? "FAILED" : "passed", sum[0], sum[1]);
        fflush(stdout);
    }
    MPI_Finalize();
    return sum[0] ? 1 : 0;
}

/* The file name of a scenario: unique per program, rank count and environment. */
static inline void mt_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s-np%d%s-%s.dat", mt.dir, mt.prog, mt.nprocs, mt.tag, name);
}

/* --- the byte patterns --- */

static inline uint64_t mt_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* What the file holds where nobody wrote. */
static inline uint8_t mt_sentinel(int64_t off)
{
    return (uint8_t)(0xA5 ^ (uint8_t)(off * 7) ^ (uint8_t)(off >> 9));
}

/* What generation gen writes at off: never the sentinel, and different for each gen. */
static inline uint8_t mt_data(int64_t off, unsigned gen)
{
    uint64_t h = mt_mix((uint64_t)off * 0x9E3779B97F4A7C15ULL + gen);
    return (uint8_t)(mt_sentinel(off) ^ (uint8_t)(1 + h % 255));
}

/* --- extent lists --- */

typedef struct mt_extents {
    int64_t n, cap;
    int64_t *off, *len;
} mt_extents;

static inline void mt_ext_push(mt_extents *e, int64_t off, int64_t len)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 64;
        e->off = realloc(e->off, (size_t)e->cap * sizeof(int64_t));
        e->len = realloc(e->len, (size_t)e->cap * sizeof(int64_t));
        if (!e->off || !e->len) {
            fprintf(stderr, "mcio_test: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 2); /* a test harness may abort; the library may not */
        }
    }
    e->off[e->n] = off;
    e->len[e->n] = len;
    e->n++;
}

static inline void mt_ext_free(mt_extents *e)
{
    free(e->off);
    free(e->len);
    memset(e, 0, sizeof *e);
}

/* Every rank's extents all[0..n) and the array itself. */
static inline void mt_ext_free_all(mt_extents *all, int n)
{
    for (int r = 0; all && r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
}

/* MCIO_VIRTUAL_RANKS_PER_NODE, 0 when unset. */
static inline int mt_virtual_per_node(void)
{
    const char *v = getenv("MCIO_VIRTUAL_RANKS_PER_NODE");
    return v && *v ? atoi(v) : 0;
}

static inline int64_t mt_ext_bytes(const mt_extents *e)
{
    int64_t b = 0;
    for (int64_t i = 0; i < e->n; i++)
        b += e->len[i];
    return b;
}

static inline int64_t mt_ext_end(const mt_extents *e)
{
    int64_t end = 0;
    for (int64_t i = 0; i < e->n; i++)
        if (e->len[i] > 0 && e->off[i] + e->len[i] > end)
            end = e->off[i] + e->len[i];
    return end;
}

static inline void *mt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "mcio_test: out of memory for %zu bytes\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* The data of generation gen for e, packed in list order (as mcio_write_at_all wants it). */
static inline uint8_t *mt_pack(const mt_extents *e, unsigned gen)
{
    uint8_t *buf = mt_malloc((size_t)mt_ext_bytes(e));
    int64_t at = 0;
    for (int64_t i = 0; i < e->n; i++)
        for (int64_t j = 0; j < e->len[i]; j++)
            buf[at++] = mt_data(e->off[i] + j, gen);
    return buf;
}

/*
 * What one set of writes left in the file: the extents of every rank (all[0..nall)), written
 * with generation gen. A file's expected image is the sentinel with layers applied in order.
 */
typedef struct mt_layer {
    const mt_extents *all;
    int nall;
    unsigned gen;
} mt_layer;

/* Expected bytes [lo, hi) of a sentinel-filled file after the layers were written. malloc'd. */
static inline uint8_t *mt_image_layers(int64_t lo, int64_t hi, const mt_layer *layers, int nlayers)
{
    uint8_t *img = mt_malloc((size_t)(hi - lo));
    for (int64_t o = lo; o < hi; o++)
        img[o - lo] = mt_sentinel(o);
    for (int l = 0; l < nlayers; l++)
        for (int r = 0; r < layers[l].nall; r++) {
            const mt_extents *e = &layers[l].all[r];
            for (int64_t i = 0; i < e->n; i++) {
                int64_t a = e->off[i], b = a + e->len[i];
                a = a > lo ? a : lo;
                b = b < hi ? b : hi;
                for (int64_t o = a; o < b; o++)
                    img[o - lo] = mt_data(o, layers[l].gen);
            }
        }
    return img;
}

/* The same with a single layer. */
static inline uint8_t *mt_image(int64_t lo, int64_t hi, const mt_extents *all, int nall,
                                unsigned gen)
{
    mt_layer l = {all, nall, gen};
    return mt_image_layers(lo, hi, &l, all ? 1 : 0);
}

/* Compare n bytes; one failure (with the first difference and a count) when they differ. */
static inline int mt_compare_at(const uint8_t *got, const uint8_t *want, int64_t n, int64_t base,
                                const char *what, const char *file, int line)
{
    int64_t bad = 0, first = -1;
    mt.checks++;
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (first < 0)
                first = i;
            bad++;
        }
    if (bad) {
        int64_t o = base + first;
        mt_fail(file, line,
                "%s: %" PRId64 " of %" PRId64 " bytes differ; first at %" PRId64
                ": got 0x%02x, expected 0x%02x (sentinel there is 0x%02x)",
                what, bad, n, o, got[first], want[first], mt_sentinel(o));
    }
    return bad == 0;
}
#define MT_COMPARE(got, want, n, base, what)                                                       \
    mt_compare_at((got), (want), (n), (base), (what), __FILE__, __LINE__)

/* --- files --- */


/* Rank 0 writes text to path (a hints file); every rank returns once it is there. The barrier
 * first: no rank is still reading the previous text. */
static inline void mt_write_text(const char *path, const char *text)
{
    int ok = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt.rank == 0) {
        FILE *f = fopen(path, "w");
        ok = f && fputs(text, f) >= 0;
        if (f && fclose(f) != 0)
            ok = 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECKF(ok, "cannot write %s", path);
}
/*
 * Rank 0 creates path with size bytes of sentinel, once every rank is done with what was there
 * (a barrier); every rank returns after it has.
 */
static inline void mt_prefill(const char *path, int64_t size)
{
    int ok = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt.rank == 0) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        ok = fd >= 0;
        uint8_t chunk[65536];
        for (int64_t at = 0; ok && at < size;) {
            int64_t n = size - at < (int64_t)sizeof chunk ? size - at : (int64_t)sizeof chunk;
            for (int64_t i = 0; i < n; i++)
                chunk[i] = mt_sentinel(at + i);
            ok = pwrite(fd, chunk, (size_t)n, at) == n;
            at += n;
        }
        if (fd >= 0 && close(fd) != 0)
            ok = 0;
        if (!ok)
            mt_fail(__FILE__, __LINE__, "cannot prefill %s: %s", path, strerror(errno));
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD); /* also orders the others after the fill */
}

/* The slice [lo, hi) of [0, size) that this rank verifies. */
static inline void mt_slice(int64_t size, int64_t *lo, int64_t *hi)
{
    *lo = size * mt.rank / mt.nprocs;
    *hi = size * (mt.rank + 1) / mt.nprocs;
}

/*
 * Independent check of the whole file, each rank a slice, with plain POSIX: the file must be
 * exactly size bytes long and hold the image of the layers over the sentinel.
 * Not collective. Returns 1 when this rank's slice matched.
 */
static inline int mt_verify_layers_at(const char *path, int64_t size, const mt_layer *layers,
                                      int nlayers, const char *file, int line)
{
    int64_t lo, hi;
    mt_slice(size, &lo, &hi);
    struct stat sb;
    mt.checks++;
    if (stat(path, &sb) != 0) {
        mt_fail(file, line, "stat %s: %s", path, strerror(errno));
        return 0;
    }
    if ((int64_t)sb.st_size != size) {
        mt_fail(file, line, "%s is %" PRId64 " bytes, expected %" PRId64, path, (int64_t)sb.st_size,
                size);
        return 0;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        mt_fail(file, line, "open %s: %s", path, strerror(errno));
        return 0;
    }
    uint8_t *got = mt_malloc((size_t)(hi - lo));
    int64_t done = 0;
    while (done < hi - lo) {
        ssize_t n = pread(fd, got + done, (size_t)(hi - lo - done), lo + done);
        if (n <= 0)
            break;
        done += n;
    }
    close(fd);
    int ok;
    if (done != hi - lo) {
        mt_fail(file, line, "pread %s: %" PRId64 " of %" PRId64 " bytes", path, done, hi - lo);
        ok = 0;
    } else {
        uint8_t *want = mt_image_layers(lo, hi, layers, nlayers);
        char what[600];
        snprintf(what, sizeof what, "pread of %s [%" PRId64 ", %" PRId64 ")", path, lo, hi);
        ok = mt_compare_at(got, want, hi - lo, lo, what, file, line);
        free(want);
    }
    free(got);
    return ok;
}
#define MT_VERIFY_LAYERS(path, size, layers, nlayers)                                              \
    mt_verify_layers_at((path), (size), (layers), (nlayers), __FILE__, __LINE__)

static inline int mt_verify_file_at(const char *path, int64_t size, const mt_extents *all, int nall,
                                    unsigned gen, const char *file, int line)
{
    mt_layer l = {all, nall, gen};
    return mt_verify_layers_at(path, size, &l, all ? 1 : 0, file, line);
}
#define MT_VERIFY_FILE(path, size, all, nall, gen)                                                 \
    mt_verify_file_at((path), (size), (all), (nall), (gen), __FILE__, __LINE__)

/* The file must still hold only the sentinel, at its size. */
#define MT_VERIFY_UNCHANGED(path, size)                                                            \
    mt_verify_file_at((path), (size), NULL, 0, 0, __FILE__, __LINE__)

/*
 * The same check through mcio: each rank reads its slice with mcio_read_at_all (holes
 * included, so aggregators read sentinel bytes too). Collective over fh.
 */
static inline int mt_verify_mcio_layers_at(mcio_file fh, int64_t size, const mt_layer *layers,
                                           int nlayers, const char *file, int line)
{
    int64_t lo, hi;
    mt_slice(size, &lo, &hi);
    int64_t len = hi - lo;
    uint8_t *got = mt_malloc((size_t)len);
    memset(got, 0x3C, (size_t)len);
    int st = mt_check_st(mcio_read_at_all(fh, 1, &lo, &len, got), MCIO_SUCCESS,
                         "mcio_read_at_all(slice)", file, line);
    int ok = 0;
    if (st == MCIO_SUCCESS) {
        uint8_t *want = mt_image_layers(lo, hi, layers, nlayers);
        char what[96];
        snprintf(what, sizeof what, "mcio_read_at_all of slice [%" PRId64 ", %" PRId64 ")", lo, hi);
        ok = mt_compare_at(got, want, len, lo, what, file, line);
        free(want);
    }
    free(got);
    return ok;
}
#define MT_VERIFY_MCIO_LAYERS(fh, size, layers, nlayers)                                           \
    mt_verify_mcio_layers_at((fh), (size), (layers), (nlayers), __FILE__, __LINE__)

static inline int mt_verify_mcio_at(mcio_file fh, int64_t size, const mt_extents *all, int nall,
                                    unsigned gen, const char *file, int line)
{
    mt_layer l = {all, nall, gen};
    return mt_verify_mcio_layers_at(fh, size, &l, all ? 1 : 0, file, line);
}
#define MT_VERIFY_MCIO(fh, size, all, nall, gen)                                                   \
    mt_verify_mcio_at((fh), (size), (all), (nall), (gen), __FILE__, __LINE__)

/* Rank 0 removes path once every rank is done with it, when nobody has failed so far. */
static inline void mt_remove(const char *path)
{
    int f = mt.failures, any = 0;
    MPI_Allreduce(&f, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (mt.rank == 0 && !any)
        unlink(path);
}

/* --- errors --- */

/* A hash of a string, to compare messages across ranks. */
static inline int64_t mt_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (int64_t)(h >> 1);
}

/*
 * An error case: st must be `want` on every rank, with the same message everywhere (checked
 * with an allreduce, so collective), and this rank's mcio_error_message() must be non-empty
 * and contain each of the NULL-ended strings that follow.
 */
static inline void mt_check_error_at(int st, int want, const char *file, int line, ...)
{
    int64_t h = mt_hash(mcio_error_message());
    int64_t mm[4] = {st, -(int64_t)st, h, -h}, red[4];
    MPI_Allreduce(mm, red, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    int lo = (int)-red[1], hi = (int)red[0];
    mt.checks += 4;
    if (lo != hi)
        mt_fail(file, line, "ranks disagree: statuses range from %d to %d (this rank %d: '%s')", lo,
                hi, st, mcio_error_message());
    else if (red[2] != -red[3])
        mt_fail(file, line, "ranks return different messages (this rank: '%s')",
                mcio_error_message());
    if (st != want) {
        mt_fail(file, line, "status %d (%s), expected %d (%s); message '%s'", st, mcio_strerror(st),
                want, mcio_strerror(want), mcio_error_message());
        return;
    }
    const char *msg = mcio_error_message();
    if (!msg || !*msg) {
        mt_fail(file, line, "status %d (%s) with an empty error message", st, mcio_strerror(st));
        return;
    }
    va_list ap;
    va_start(ap, line);
    for (const char *s; (s = va_arg(ap, const char *));) {
        mt.checks++;
        if (!strstr(msg, s))
            mt_fail(file, line, "error message '%s' does not mention '%s'", msg, s);
    }
    va_end(ap);
}
#define MT_CHECK_ERROR(st, want, ...)                                                              \
    mt_check_error_at((st), (want), __FILE__, __LINE__, __VA_ARGS__, (const char *)NULL)

/*
 * What an error message names its failing rank r by: "rank r:" with several ranks; "" with one
 * (a single rank's message has no prefix). out holds 32 bytes.
 */
static inline const char *mt_rank_tag(char *out, int r)
{
    if (mt.nprocs > 1)
        snprintf(out, 32, "rank %d:", r);
    else
        out[0] = '\0';
    return out;
}

/* An MPI_Info from NULL-ended key, value pairs (MPI_INFO_NULL when there are none). */
static inline MPI_Info mt_info(const char *key, ...)
{
    if (!key)
        return MPI_INFO_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    va_list ap;
    va_start(ap, key);
    for (const char *k = key; k; k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        MPI_Info_set(info, k, v);
    }
    va_end(ap);
    return info;
}

static inline void mt_info_free(MPI_Info *info)
{
    if (*info != MPI_INFO_NULL)
        MPI_Info_free(info);
}

/* Value of key in the hints in force on fh ("" when absent). */
static inline void mt_get_hint(mcio_file fh, const char *key, char *value, int n)
{
    MPI_Info info;
    int flag = 0;
    value[0] = '\0';
    if (mcio_file_get_info(fh, &info) != MCIO_SUCCESS)
        return;
    MPI_Info_get(info, key, n - 1, value, &flag);
    if (!flag)
        value[0] = '\0';
    MPI_Info_free(&info);
}

/* A small deterministic generator (splitmix64) for the random workloads. */
static inline uint64_t mt_rand(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15ULL;
    return mt_mix(*state);
}

#endif
