/*
 * Calibration of the cost model (issue 20; the model is src/core/plan/costmodel.c): a short
 * probe that measures the file system's cost per call and per byte, for writes and reads, for
 * one rank and for all the ranks of a node at once, and the cost of a message, a collective and
 * a copy; run on the first use of a file system and cached per file system with its date.
 *
 * The memory-conscious paper (shared/seeds/002) leaves the calibration of Nah, Msgind and
 * Msggroup to future work, ROMIO and OMPIO use fixed rules: this probe gives the model the
 * machine at hand. Each figure is fitted from two sizes (Hockney: t = alpha + n beta): a
 * few 4 KiB calls and one large call, per operation.
 *
 * The probe writes a hidden temporary file in the directory of the file being opened, about
 * 2 MiB by one rank and 512 KiB by each rank of the first node, writes it again timed, reads
 * it back and removes it; it takes a fraction of a second on the page cache and on the
 * GlusterFS testbed. On a file system that acknowledges writes before its servers have them
 * (mcio_fsinfo.defers_errors), the timed writes end with an fsync, as mcio's collective writes
 * do there, timed apart (probe_fs_costs).
 *
 * The cache: $XDG_CACHE_HOME/mcio (or $HOME/.cache/mcio), one file per file system named by
 * its kind and device number, text as mcio_cost_format writes it. A missing or read-only
 * directory costs a calibration per open, never a failure.
 *
 * Glossary (costmodel.c): conc, the ranks of the first node that take part in the concurrent
 * measurement; the table, mcio_cost_table.
 */
#ifndef _DEFAULT_SOURCE /* SMPI's compiler wrapper defines it */
#define _DEFAULT_SOURCE /* mkstemp, fsync */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calibrate_internal.h"
#include "mcio_engine.h"
#include "mcio_listcode.h"


#ifndef MCIO_SIMULATE /* the simulation has no files to probe: the defaults of the kind */
/* The cache's generation, in its files' names: a probe of another generation measured
 * otherwise, and its table is not kept. 2: the probe reads into page-aligned memory (before,
 * into malloc's block, 16 bytes into a page: on AMD's Zen 3 and later that priced a lone
 * read 6 times too dear, mcio_io_copy_alias_slow, and aggregated reads then won). 3: each
 * time is the slowest rank's, a write's sync the median of SYNC_REPEAT (before, each rank's
 * fastest, and one sync: a node's concurrent calls looked cheap, probe_fs_costs). 4: on a
 * remote file system the ranks not timed wait in the MPI library's barrier (phase_barrier).
 * 5: on a remote one each phase's median try is kept, not its fastest (probe_fs_costs).
 * 6: the text's format 2, the medians of the last probes and their figures (issue 48; before,
 * the best figures of all probes: mcio_cost_merge), and the corrections of the online check.
 * 7: a call's own cost from calls of 64 bytes, not 4 KiB (a read's came out at the floor), and
 * the crowd of the node's ranks in an exchange (mcio_calibrate_probe.c; issues 47, 48). */
enum { CACHE_GENERATION = MCIO_CALIBRATE_GENERATION };

/* Probes taken where no cache stands (none, of another generation, or of fewer ranks per
 * node): the cache starts with their medians (mcio_cost_merge), which a later probe (only on
 * purpose: mcio_calibrate=force, mcio-calibrate) moves little. One probe moved the choice of
 * later jobs with its noise (issue 48: a re-probe between two identical runs sent IOR's writes
 * from independent access to 2 aggregators, measured 1.7x slower). */
enum { FIRST_PROBES = 3 };

/* The cache file of the file system holding path: <dir>/<kind>-<device>.<generation>. 0, or
 * -1 when no cache directory can be named (no HOME) or path cannot be stat'ed. */
static int cache_path(const char *path, const mcio_fsinfo *fs, char *dir, size_t dlen, char *file,
                      size_t flen)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || mcio_calibrate_cache_dir(dir, dlen) != 0)
        return -1;
    int n = snprintf(file, flen, "%s/%s-%llx.%d", dir, mcio_fs_type_name(fs->type),
                     (unsigned long long)sb.st_dev, CACHE_GENERATION);
    return n < 0 || (size_t)n >= flen ? -1 : 0;
}

/* Read a table from a file (rank 0). 0, or -1 when absent or malformed. */
static int read_table(const char *file, mcio_cost_table *t, int64_t *date)
{
    char text[4096];
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return mcio_cost_parse(text, t, date, NULL, 0);
}

/* Write the cache (rank 0), atomically (a temporary file renamed); failures are silent. */
static void write_cache(const char *dir, const char *file, const mcio_cost_table *t, int64_t date)
{
    char text[4096];
    int n = mcio_cost_format(t, date, text, sizeof text);
    if (n >= 0 && (size_t)n < sizeof text)
        mcio_calibrate_write_atomic(dir, file, text, (size_t)n);
}

#endif

#ifndef MCIO_SIMULATE
/* Rank 0: can a pipelined aggregator's I/O thread run beside the ranks of its node? 1 when
 * the node has at least twice as many online cores as ranks (each rank a core, its thread
 * another), else 0: the thread then takes turns with the ranks and hides nothing (measured on
 * this 2-core host at 8 ranks: depth 2 and 4 slower than depth 1). Rank 0's node speaks for
 * all, so that every rank decides alike. */
/* The host's online cores, asked once per process (sysconf reads /sys at each call: a tenth of
 * an open's own work at one rank, issue 51); 0 when unknown. */
static long online_cores;
static pthread_once_t online_once = PTHREAD_ONCE_INIT;

static void online_cores_read(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    online_cores = cores > 0 && cores < 1 << 20 ? cores : 0;
}

static long cores_online(void)
{
    pthread_once(&online_once, online_cores_read);
    return online_cores;
}

static double overlap_here(mcio_file fh)
{
    long cores = cores_online();
    return cores > 0 && cores >= 2L * mcio_calibrate_first_node_ranks(fh) ? 1.0 : 0.0;
}

/* Rank 0: its node's online cores (the cost model's cores; rank 0's node speaks for all). */
static int cores_here(void)
{
    return (int)cores_online();
}

#endif

/* A copy's cost per byte here (the packing of pieces into a collective buffer): one memmove
 * of n bytes of buf (2n bytes). */
static double copy_here(char *buf, size_t n)
{
    memset(buf, 0x5a, 2 * n); /* touched: the copy, not the page faults */
    double c0 = PMPI_Wtime();
    copy_fn(buf + n, buf, n);
    return (PMPI_Wtime() - c0) / (double)n;
}

/* The MPI library's datatype engine per block beyond its bytes (the table's piece): an
 * hindexed type of PIECES blocks of 128 bytes, 64 bytes apart in src (rows between guard
 * cells, as an exchange sends a rank's pieces), created, committed, packed into dst and freed,
 * less the bytes' copy (src: 384 KiB, dst: 256 KiB); the better of two (the first warms the
 * engine). Measured here, MPICH 4.0: 30-40 ns a block, most of it the pack; Open MPI 4.1:
 * 10-35, most of it the commit. */
static double piece_here(const char *src, char *dst, double copy_byte)
{
    enum { PIECES = 2048, LEN = 128, GAP = 64 };
    MPI_Aint *disp = malloc(PIECES * sizeof *disp);
    int *lens = malloc(PIECES * sizeof *lens);
    double best = -1;
    for (int i = 0; disp && lens && i < PIECES; i++)
        disp[i] = (MPI_Aint)i * (LEN + GAP), lens[i] = LEN;
    for (int k = 0; disp && lens && k < 2; k++) {
        MPI_Datatype type;
        int pos = 0;
        double t0 = PMPI_Wtime();
        if (PMPI_Type_create_hindexed(PIECES, lens, disp, MPI_BYTE, &type) != MPI_SUCCESS)
            break;
        int ok = PMPI_Type_commit(&type) == MPI_SUCCESS &&
                 PMPI_Pack(src, 1, type, dst, PIECES * LEN, &pos, MPI_COMM_SELF) == MPI_SUCCESS;
        PMPI_Type_free(&type);
        double each = (PMPI_Wtime() - t0 - (double)PIECES * LEN * copy_byte) / PIECES;
        each = each > 0 ? each : 0;
        if (ok && (best < 0 || each < best))
            best = each;
    }
    free(disp);
    free(lens);
    return best;
}

/* mcio's own work per piece of an aggregated call, both sides (schedule.c, listcode.c): a
 * sender cuts its pieces at domain and round boundaries and encodes their list, the aggregator
 * decodes the senders' lists and merges them into its rounds' groups. Timed on a climate
 * model's pieces (tools/patterns.c: fragmented, runs of 8-64 bytes, each of one of LIST_RANKS
 * ranks), one domain of one round; the better of two, per piece. -1 when memory is short.
 * Measured on this host (8 ranks of 2 MiB of such pieces): these steps took 5-7 times the
 * datatype engine's share of an aggregated call's CPU (perf: the aggregator's merge, the
 * encoder, the grouping), which alone the model priced: fragmented reads aggregated were
 * predicted at a tenth of their time (issue 47). */
enum { LIST_RANKS = 8, LIST_PIECES = 4096 };

static double list_pass(const mcio_fdplan *plan, mcio_extent *const *ext, const int64_t *n,
                        uint8_t *code, mcio_piece **lists, int64_t *nlist)
{
    double t0 = PMPI_Wtime();
    int64_t at[LIST_RANKS + 1] = {0};
    int ok = 1;
    for (int s = 0; ok && s < LIST_RANKS; s++) { /* the senders' side */
        mcio_groups g = {0};
        ok = mcio_schedule_rank(plan, ext[s], n[s], &g) == MCIO_SUCCESS;
        at[s + 1] = at[s] + (ok ? mcio_listcode_encode(g.pieces, g.npieces, code + at[s]) : 0);
        mcio_groups_free(&g);
    }
    for (int s = 0; ok && s < LIST_RANKS; s++) /* the aggregator's */
        ok = (nlist[s] = mcio_listcode_decode(code + at[s], at[s + 1] - at[s], lists[s])) >= 0;
    mcio_groups out = {0};
    ok = ok && mcio_schedule_aggregator(plan, 0, LIST_RANKS, nlist,
                                        (const mcio_piece *const *)lists, &out) == MCIO_SUCCESS;
    mcio_groups_free(&out);
    return ok ? (PMPI_Wtime() - t0) / LIST_PIECES : -1;
}

static double list_here(void)
{
    mcio_extent *ext[LIST_RANKS] = {0};
    mcio_piece *lists[LIST_RANKS] = {0};
    int64_t n[LIST_RANKS] = {0}, nlist[LIST_RANKS], off = 0, win[2];
    int agg = 0, rounds = 1;
    uint8_t *code = malloc((size_t)mcio_listcode_max_bytes(LIST_PIECES) + LIST_RANKS);
    int ok = code != NULL;
    for (int s = 0; ok && s < LIST_RANKS; s++)
        ok = (ext[s] = malloc(LIST_PIECES * sizeof **ext)) &&
             (lists[s] = malloc(LIST_PIECES * sizeof **lists));
    uint32_t x = 2463534242u; /* xorshift: the same pieces in every process */
    for (int i = 0; ok && i < LIST_PIECES; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        int s = (int)(x % LIST_RANKS);
        int64_t len = 8 + (int64_t)(x >> 8) % 57;
        int64_t mem = n[s] ? ext[s][n[s] - 1].mem + ext[s][n[s] - 1].len : 0;
        ext[s][n[s]++] = (mcio_extent){off, len, mem};
        off += len;
    }
    win[0] = 0, win[1] = off;
    int64_t zero = 0;
    mcio_fdplan plan = {.ndomains = 1, .agg_rank = &agg, .fd_start = &zero, .fd_end = &win[1],
                        .win_start = &win[0], .win_end = &win[1], .window = &win[1],
                        .rounds = &rounds, .max_rounds = 1, .max_buffer = off};
    double best = -1;
    for (int k = 0; ok && k < 2; k++) { /* the first warms the code and the memory */
        double t = list_pass(&plan, ext, n, code, lists, nlist);
        best = t >= 0 && (best < 0 || t < best) ? t : best;
    }
    for (int s = 0; s < LIST_RANKS; s++)
        free(ext[s]), free(lists[s]);
    free(code);
    return best;
}

/* The figures below, measured once (issue 51: at every open they cost 12-55 ms of 8 ranks on
 * this 2-core host, most of an open): the copy and the datatype engine's cost per block once
 * per process (-1: not measured), from the host's last measurements where enough are kept
 * (mcio_calibrate_host.c), the collective's once per communicator, an attribute of the
 * file's (which a closed file leaves to the next open on the same program communicator,
 * mcio_kept.c; dropped with it). */
static struct {
    pthread_once_t once;
    double copy, piece;
} host_figures = {.once = PTHREAD_ONCE_INIT, .copy = -1, .piece = -1};
static int coll_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t coll_once = PTHREAD_ONCE_INIT;

static void host_figures_measure(void)
{
    enum { COPY = 1 << 20 }; /* a copy beyond the caches, as of a collective buffer */
#ifndef MCIO_SIMULATE
    if (mcio_calibrate_host_kept(&host_figures.copy, &host_figures.piece) == 0)
        return; /* the medians of this host's last measurements (mcio_calibrate_host.c) */
#endif
    char *buf = malloc(2 * (size_t)COPY);
    if (buf) {
        host_figures.copy = copy_here(buf, COPY);
        host_figures.piece = piece_here(buf, buf + COPY, host_figures.copy);
        /* The model charges a piece's figure to its sender and to its aggregator: each side
         * half of mcio's own work on it. */
        double list = list_here();
        if (host_figures.piece >= 0 && list > 0)
            host_figures.piece += list / 2;
#ifndef MCIO_SIMULATE
        if (host_figures.copy > 0 && host_figures.piece >= 0)
            mcio_calibrate_host_keep(&host_figures.copy, &host_figures.piece);
#endif
    }
    free(buf);
}

static void coll_keyval_create(void)
{
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &coll_keyval, NULL);
}

/* The attribute's value is the figure's bits, not a pointer to memory that one rank might fail
 * to allocate: every rank of the communicator has it, or none. */
_Static_assert(sizeof(void *) >= sizeof(double), "a double fits an attribute value");

/* Collective: this rank's median of five allreduces back to back on fh's communicator (the
 * job's size and layout: 8 ranks on 2 cores pay more than a probe measured once per file system,
 * maybe under another load, and cached), measured at the first open on the file's communicator;
 * *kept: the agreed figure of an earlier open on it instead (coll_keep keeps it). */
static double coll_here(mcio_file fh, int *kept)
{
    enum { REPS = 5 };
    double each[REPS], v;
    uintptr_t bits = 0;
    void *val = NULL;
    int flag = 0, x = 0, y;
    pthread_once(&coll_once, coll_keyval_create);
    if (coll_keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_get_attr(fh->comm, coll_keyval, &val, &flag);
    *kept = flag;
    if (flag) {
        bits = (uintptr_t)val;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    PMPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, fh->comm); /* all arrived */
    for (int i = 0; i < REPS; i++) { /* the median: one descheduled rank is not the rule */
        double t0 = PMPI_Wtime();
        PMPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, fh->comm);
        each[i] = PMPI_Wtime() - t0;
    }
    return mcio_calibrate_median_of(each, REPS);
}

static void coll_keep(MPI_Comm comm, double v)
{
    uintptr_t bits = 0;
    memcpy(&bits, &v, sizeof v);
    if (coll_keyval != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL)
        PMPI_Comm_set_attr(comm, coll_keyval, (void *)bits);
}

/* Collective: the machine's figures of the table as they are for this job, the same on every
 * rank, in one allreduce: the collective's cost on this communicator (the slowest rank's), a
 * copy and the datatype engine's cost per block (the least disturbed node's). Only each node's
 * first rank measures those two, once per process: they are the host's, and every rank
 * measuring them cost 8 ranks sharing 2 cores about 4 ms of their first open (issue 51). */
static void machine_here(mcio_file fh, mcio_cost_table *t)
{
    double copy = -1, piece = -1;
    if (mcio_machine_leads_node(&fh->machine, fh->rank)) {
        pthread_once(&host_figures.once, host_figures_measure);
        copy = host_figures.copy, piece = host_figures.piece;
    }
    int kept;
    /* -1e300: not measured here; max of -copy: the least. */
    double v[3] = {coll_here(fh, &kept), copy >= 0 ? -copy : -1e300,
                   piece >= 0 ? -piece : -1e300};
    PMPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, fh->comm);
    if (!kept)
        coll_keep(fh->comm, v[0]);
    t->coll = v[0] > 1e-8 ? v[0] : 1e-8;
    if (v[1] > -1e299)
        t->copy_byte = -v[1] > 1e-13 ? -v[1] : 1e-13;
    if (v[2] > -1e299)
        t->piece = -v[2];
}

/* The network as a topology file describes it: its latency per hop (two hops between nodes,
 * through a switch) and bandwidth replace the measured message costs. */
static void apply_topology(mcio_file fh, mcio_cost_table *t)
{
    const mcio_network *net = &fh->machine.net;
    if (fh->hints.topology_file[0] && net->latency > 0 && net->bandwidth > 0) {
        t->msg = 2 * net->latency;
        t->msg_byte = 1.0 / net->bandwidth;
    }
}

/* What rank 0 decides at open and broadcasts: the table's source (enum mcio_cost_source), the
 * probes to take (0: none), the table and its date. */
struct calibration {
    int source, probe;
    int64_t date;
    mcio_cost_table t;
};

#ifndef MCIO_SIMULATE
/* The host's load average per core over the last minute, or -1 where it cannot be read. */
static double load_now(void)
{
    double avg;
    long cores = cores_online();
    return getloadavg(&avg, 1) == 1 && cores > 0 ? avg / (double)cores : -1;
}

/* Does a cached table stand for this open (auto)? Not where its probe had fewer ranks on a
 * node than this job (first_node_ranks): its concurrent figures would be stretched past what
 * they measured. Nothing else sends an open to probe again (issue 48): until then a table probed
 * under load (above half of each core) was probed again where the host was now less than half
 * as loaded, and the load average counts the job's own ranks, which wait polling: whether the
 * next job probed, and with it which plan it ran, was the chance of how long after the last
 * job it started. The cache's medians over its probes stand for a loaded probe instead. */
static int cache_stands(mcio_file fh, const mcio_cost_table *t)
{
    return t->conc >= mcio_calibrate_first_node_ranks(fh);
}

/* Rank 0, after a probe: the host's load per core now, and the probe merged into prior (the
 * probes of this open before it), else into the cached table unless the hint says replace
 * (mcio_cost_merge: the medians of the last probes), else the probe as a history of one.
 * fh->cost_kept says how many figures the probe measured more than twice the cache's. */
static void probe_merge(mcio_file fh, const char *file, const mcio_cost_table *prior,
                        mcio_cost_table *t)
{
    t->load = load_now();
    t->probes = 1;
    fh->cost_kept = 0;
    mcio_cost_table cached;
    int64_t when;
    if (prior)
        fh->cost_kept = mcio_cost_merge(prior, t, t);
    else if (fh->hints.calibrate != MCIO_CALIBRATE_REPLACE && file[0] &&
             read_table(file, &cached, &when) == 0)
        fh->cost_kept = mcio_cost_merge(&cached, t, t); /* the job's fields: the probe's */
    else
        mcio_cost_history_start(t);
}

/* Collective: got->probe probes in directory where, merged (probe_merge), cached and broadcast
 * into got->t; got->source PROBED when one succeeded. */
static void probe_and_cache(mcio_file fh, const char *dir, const char *file, const char *where,
                            struct calibration *got)
{
    mcio_cost_table t, acc;
    int done = 0;
    for (int k = 0; k < got->probe && mcio_calibrate_run(fh, where, &t) == MCIO_SUCCESS; k++) {
        t.overlap = got->t.overlap;
        t.cores = got->t.cores;
        t.cache = got->t.cache;
        t.caches = got->t.caches;
        if (fh->rank == 0)
            probe_merge(fh, file, done ? &acc : NULL, &t);
        acc = t;
        done++;
    }
    if (!done)
        return;
    got->source = MCIO_COST_PROBED;
    got->date = (int64_t)time(NULL);
    got->t = acc;
    if (fh->rank == 0 && file[0])
        write_cache(dir, file, &acc, got->date);
    PMPI_Bcast(&got->t, (int)sizeof got->t, MPI_BYTE, 0, fh->comm); /* rank 0's choice */
    PMPI_Bcast(&fh->cost_kept, 1, MPI_INT, 0, fh->comm);
}

void mcio_calibrate_keep_learned(mcio_file fh)
{
    mcio_cost_table t;
    int64_t date;
    char dir[MCIO_PATH_LEN + 96];
    snprintf(dir, sizeof dir, "%s", fh->cost_file);
    char *slash = strrchr(dir, '/');
    if (!fh->cost_learned || !fh->cost_file[0] || !slash || read_table(fh->cost_file, &t, &date))
        return;
    *slash = '\0';
    memcpy(t.ncorr, fh->cost.ncorr, sizeof t.ncorr);
    memcpy(t.corr, fh->cost.corr, sizeof t.corr);
    write_cache(dir, fh->cost_file, &t, date);
}
#else
void mcio_calibrate_keep_learned(mcio_file fh)
{
    (void)fh;
}
#endif

void mcio_calibrate_file(mcio_file fh, const char *path)
{
    struct calibration got = {.source = MCIO_COST_DEFAULTS,
                              .t = mcio_cost_defaults(fh->fs.remote)};
    char dir[MCIO_PATH_LEN] = "", file[MCIO_PATH_LEN + 96] = "", where[MCIO_PATH_LEN] = ".";
#ifndef MCIO_SIMULATE
    if (fh->rank == 0) {
        const char *pinned = getenv("MCIO_CALIBRATION");
        int have = cache_path(path, &fh->fs, dir, sizeof dir, file, sizeof file) == 0;
        int on_purpose = fh->hints.calibrate == MCIO_CALIBRATE_FORCE ||
                         fh->hints.calibrate == MCIO_CALIBRATE_REPLACE;
        mcio_cost_table cached;
        int64_t when = 0;
        int readable = !(pinned && *pinned) && have && read_table(file, &cached, &when) == 0;
        int stands = readable && cache_stands(fh, &cached);
        if (pinned && *pinned && read_table(pinned, &got.t, &got.date) == 0) {
            got.source = MCIO_COST_PINNED;
        } else if (!on_purpose && readable &&
                   (fh->hints.calibrate == MCIO_CALIBRATE_OFF || stands)) {
            got.source = MCIO_COST_CACHE;
            got.t = cached;
            got.date = when;
        } else if (fh->hints.calibrate != MCIO_CALIBRATE_OFF) {
            /* One probe on purpose into a cache that stands (or to replace it); a new cache
             * starts from FIRST_PROBES. */
            int one = fh->hints.calibrate == MCIO_CALIBRATE_REPLACE ||
                      (fh->hints.calibrate == MCIO_CALIBRATE_FORCE && stands);
            got.probe = one ? 1 : FIRST_PROBES;
        }
        if (!have)
            file[0] = '\0';
        /* The job's layout, never cached; a pinned table that says how a pipeline overlaps
         * pins that too, and then the cores and the cache stay unknown. */
        got.t.cores = 0;
        got.t.cache = 0;
        got.t.caches = 0;
        if (got.t.overlap < 0 || got.source != MCIO_COST_PINNED) {
            got.t.overlap = overlap_here(fh);
            got.t.cores = cores_here();
            mcio_machine_caches(&got.t.cache, &got.t.caches);
        }
    }
    PMPI_Bcast(&got, (int)sizeof got, MPI_BYTE, 0, fh->comm);
    if (got.probe) {
        /* The directory of the file: the same file system. */
        const char *slash = strrchr(path, '/');
        if (slash && slash != path)
            snprintf(where, sizeof where, "%.*s", (int)(slash - path), path);
        else if (slash)
            snprintf(where, sizeof where, "/");
        probe_and_cache(fh, dir, file, where, &got);
    }
    /* Where the online check's corrections go at close (mcio_calibrate_keep_learned). */
    if (fh->rank == 0 && (got.source == MCIO_COST_CACHE || got.source == MCIO_COST_PROBED))
        snprintf(fh->cost_file, sizeof fh->cost_file, "%s", file);
#else
    (void)path, (void)dir, (void)file, (void)where;
#endif
    if (got.source != MCIO_COST_PINNED) {
        machine_here(fh, &got.t);
        mcio_calibrate_net_between(fh, &got.t);
    }
    got.t.remote = fh->fs.remote;
    apply_topology(fh, &got.t);
    fh->cost = got.t;
    fh->cost_source = got.source;
    fh->cost_date = got.date;
}

const char *mcio_cost_source_name(int s)
{
    static const char *const names[] = {"defaults", "cache", "probe", "pinned"};
    return s >= 0 && s < 4 ? names[s] : "?";
}

int mcio_file_get_costs(mcio_file fh, char *text, int len)
{
    if (!fh || !text || len < 1)
        return mcio_error_set(MCIO_ERR_ARG, "file handle or text is NULL");
    text[0] = '\0';
    if (fh->hints.strategy != MCIO_STRATEGY_AUTO)
        return mcio_error_set(MCIO_SUCCESS, NULL);
    int n = mcio_cost_format(&fh->cost, fh->cost_date, text, (size_t)len);
    if (n >= 0 && n < len)
        n += snprintf(text + n, (size_t)(len - n), "fs_type %s\nsource %s\nkept %d\n",
                      mcio_fs_type_name(fh->fs.type), mcio_cost_source_name(fh->cost_source),
                      fh->cost_kept);
    if (n < 0 || n >= len)
        return mcio_error_set(MCIO_ERR_ARG, "text is too small for the cost table");
    return mcio_error_set(MCIO_SUCCESS, NULL);
}
