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

#include "mcio_engine.h"

/* REPEAT: each phase of file access is timed so many times; on a local file system the fastest
 * is kept (the first after a wait is the slowest: on this host's page cache 1.4 times the
 * per-byte cost of a write taken once), on a remote one the median (probe_fs_costs). */
enum { SMALL = 4096, NSMALL = 16, BIG_ONE = 2 << 20, BIG_EACH = 512 << 10, PINGS = 20, REPEAT = 3 };

/* SYNC_REPEAT: a write and its sync are timed so many times, the median try kept (each
 * try's time the slowest rank's, as a call waits for it). A remote file system's flush
 * varies both ways from try to try: on this host's GlusterFS the sync of 8 ranks that had
 * each written 512 KiB, timed once per probe, came to 11.8-25.0 ms over 12 probes; the
 * median of five, 9.7-14.7 over 6 (docs/performance.md, seventeenth pass). */
enum { SYNC_REPEAT = 5 };

/* Called through a volatile pointer: a copy into memory nobody reads after is otherwise dead
 * code to the compiler (measured here: 0.17 us for 256 KiB). */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memmove;

#ifndef MCIO_SIMULATE /* the simulation has no files to probe: the defaults of the kind */
/* The cache's generation, in its files' names: a probe of another generation measured
 * otherwise, and its table is not kept. 2: the probe reads into page-aligned memory (before,
 * into malloc's block, 16 bytes into a page: on AMD's Zen 3 and later that priced a lone
 * read 6 times too dear, mcio_io_copy_alias_slow, and aggregated reads then won). 3: each
 * time is the slowest rank's, a write's sync the median of SYNC_REPEAT (before, each rank's
 * fastest, and one sync: a node's concurrent calls looked cheap, probe_fs_costs). 4: on a
 * remote file system the ranks not timed wait in the MPI library's barrier (phase_barrier).
 * 5: on a remote one each phase's median try is kept, not its fastest (probe_fs_costs). */
enum { CACHE_GENERATION = 5 };

/* The cache file of the file system holding path: <dir>/<kind>-<device>.<generation>. 0, or
 * -1 when no cache directory can be named (no HOME) or path cannot be stat'ed. */
static int cache_path(const char *path, const mcio_fsinfo *fs, char *dir, size_t dlen, char *file,
                      size_t flen)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    struct stat sb;
    if (stat(path, &sb) != 0)
        return -1;
    int n = xdg && *xdg ? snprintf(dir, dlen, "%s/mcio", xdg)
            : home && *home ? snprintf(dir, dlen, "%s/.cache/mcio", home)
                            : -1;
    if (n < 0 || (size_t)n >= dlen)
        return -1;
    n = snprintf(file, flen, "%s/%s-%llx.%d", dir, mcio_fs_type_name(fs->type),
                 (unsigned long long)sb.st_dev, CACHE_GENERATION);
    return n < 0 || (size_t)n >= flen ? -1 : 0;
}

/* Read a table from a file (rank 0). 0, or -1 when absent or malformed. */
static int read_table(const char *file, mcio_cost_table *t, int64_t *date)
{
    char text[2048];
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
    char text[2048], tmp[MCIO_PATH_LEN + 64];
    char parent[MCIO_PATH_LEN + 16];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        mkdir(parent, 0755); /* ~/.cache itself may be missing */
    }
    mkdir(dir, 0755);
    int n = mcio_cost_format(t, date, text, sizeof text);
    if (n < 0 || (size_t)n >= sizeof text ||
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", file, (long)getpid()) >= (int)sizeof tmp)
        return;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    int ok = fwrite(text, 1, (size_t)n, f) == (size_t)n;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, file) != 0)
        unlink(tmp);
}

#endif

/* Write or read len bytes at off on fd, in as many calls as the system takes: 0, or -1 on an
 * error. */
static int access_at(int fd, int write, char *buf, int64_t off, int64_t len)
{
    for (int64_t done = 0; done < len;) {
        ssize_t n = write ? pwrite(fd, buf + done, (size_t)(len - done), off + done)
                          : pread(fd, buf + done, (size_t)(len - done), off + done);
        if (n <= 0)
            return -1;
        done += n;
    }
    return 0;
}

/* alpha and beta of t = alpha + n beta from a small and a big size. */
static void fit(double t_small, double t_big, int64_t big, double *call, double *byte)
{
    double b = (t_big - t_small) / (double)(big - SMALL);
    *byte = b > 1e-13 ? b : 1e-13;
    double a = t_small - SMALL * *byte;
    *call = a > 1e-8 ? a : 1e-8;
}

/* Collective: wait for every rank without holding a core (a nonblocking barrier tested between
 * naps of 50 us). The ranks that only wait must leave the cores to the ones being timed: with
 * 8 ranks on 2 cores, six ranks polling in a collective took the ping-pong's cores and priced
 * a message's bytes at 1.8 GB/s where the exchange of a call moved them at twice that. */
static void nap_barrier(MPI_Comm comm)
{
    MPI_Request req;
    int done = 0;
    PMPI_Ibarrier(comm, &req);
    for (PMPI_Test(&req, &done, MPI_STATUS_IGNORE); !done;
         PMPI_Test(&req, &done, MPI_STATUS_IGNORE)) {
        struct timespec nap = {0, 50000};
        nanosleep(&nap, NULL);
    }
}

/* Collective: the start of a phase of the file-system probe, and where the ranks that are
 * not timed wait. On a local file system a nap (nap_barrier): the kernel does each rank's
 * access on the rank's own core, and the ranks that only wait must leave it the cores. On a
 * remote one in the MPI library's barrier, as a call's waiting ranks wait in its collectives:
 * there the access's work is done by other processes (the file system's client, here its
 * servers too), which share the cores with the waiting ranks in a call as in the probe.
 * Measured on this host's GlusterFS testbed (8 ranks, 2 cores): napping ranks that woke every
 * 50 us put the lone 2 MiB write at 3.6-6.7 ms over 6 probes, and a node's 8 concurrent writes
 * with their syncs at 1.0-1.8 times one rank's 4 MiB (a probe near 1.1 sends the writes back
 * to independent access, which the calls measured at 0.83-1.0 of aggregation); waiting in
 * the barrier, 2.5-3.3 ms over 5 probes and 1.5-2.1 times over 12 (docs/performance.md,
 * eighteenth pass). */
static void phase_barrier(const mcio_file fh)
{
    if (fh->fs.remote)
        PMPI_Barrier(fh->comm);
    else
        nap_barrier(fh->comm);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n times (sorted in place). */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[n / 2];
}

/* The least of n times. */
static double least_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* Collective: the file-system part of the probe. The ranks with active set access the file at
 * once, each in its own region, in phases each begun together (phase_barrier): NSMALL calls of
 * SMALL bytes, one call of big bytes and, for writes that end with one (fs.defers_errors:
 * mcio_write_sync auto), the big call again with its sync right after, as a call syncs what
 * it has just written (the sync is that phase's time less the big call's). The sync is
 * priced apart: a call pays it once per writer, not per file call. Each phase but the last
 * runs REPEAT times, and the last SYNC_REPEAT times, the median kept. On a remote file
 * system, whose streams run side by side, a try's time is its slowest rank's, as a call waits
 * for it (each rank's fastest try, then the slowest of those, let each of 8 ranks pick its
 * lucky one of three: docs/performance.md, seventeenth pass), and the median try is kept, as
 * a call does not choose its try either: the fastest of three priced the independent reads
 * of the GlusterFS testbed at 0.55-0.62 of their measured time, aggregated ones at 0.64-0.77;
 * with the median, the independent read of HACC-IO's nine pieces a rank came to 0.99 of its
 * measured time (docs/performance.md, nineteenth pass). On a local one a try's time is each
 * rank's own, the fastest kept: a node's writes to the file take turns, which the cost model
 * adds up itself (costmodel.c: writes_take_turns). The region is written once, untimed,
 * before: the timed writes rewrite pages the file has, as a call rewriting a file does (a new
 * file's first write also allocates them, on this host's page cache several times the cost
 * per byte of a rewrite; the ways of running a call pay that alike). *ok agreed; fills
 * call/byte[.][c] and sync[c]. */
static void probe_fs_costs(mcio_file fh, int fd, int active, int c, int64_t big, char *buf,
                           mcio_cost_table *t, int *ok)
{
    /* [REPEAT (2 op + phase) + rep]: per small call, the big call; [4 REPEAT + rep]: the write
     * and its sync; [TRIES + 2 op + phase]: this rank's fastest try */
    enum { TRIES = 4 * REPEAT + SYNC_REPEAT, TIMES = TRIES + 4 };
    double mine[TIMES] = {0}, worst[TIMES];
    int64_t off = (int64_t)fh->rank * (NSMALL * SMALL + big);
    int sync = fh->fs.defers_errors;
    int err = active && (access_at(fd, 1, buf, off, NSMALL * SMALL + big) != 0 ||
                         (sync && fsync(fd) != 0));
    for (int op = 0; op < 2; op++)
        for (int phase = 0; phase < (op == 0 && sync ? 3 : 2); phase++)
            for (int rep = 0; rep < (phase == 2 ? SYNC_REPEAT : REPEAT); rep++) {
                phase_barrier(fh);
                if (!active || err)
                    continue;
                double t0 = PMPI_Wtime();
                for (int i = 0; phase == 0 && i < NSMALL; i++)
                    err |= access_at(fd, op == 0, buf, off + (int64_t)i * SMALL, SMALL);
                if (phase == 1)
                    err |= access_at(fd, op == 0, buf, off + NSMALL * SMALL, big);
                if (phase == 2) /* the big write again, and its sync right after */
                    err |= access_at(fd, 1, buf, off + NSMALL * SMALL, big) != 0 || fsync(fd) != 0;
                double t = (PMPI_Wtime() - t0) / (phase == 0 ? NSMALL : 1);
                mine[phase == 2 ? 4 * REPEAT + rep : REPEAT * (2 * op + phase) + rep] = t;
            }
    for (int k = 0; k < 4; k++)
        mine[TRIES + k] = least_of(mine + REPEAT * k, REPEAT);
    int bad = err != 0, anybad = 0;
    PMPI_Allreduce(mine, worst, TIMES, MPI_DOUBLE, MPI_MAX, fh->comm);
    PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, fh->comm);
    if (anybad) {
        *ok = 0;
        return;
    }
    double kept[4]; /* [2 op + phase]: the median try's slowest rank, or the ranks' fastest */
    for (int k = 0; k < 4; k++)
        kept[k] = fh->fs.remote ? median_of(worst + REPEAT * k, REPEAT) : worst[TRIES + k];
    for (int op = 0; op < 2; op++)
        fit(kept[2 * op], kept[2 * op + 1], big, &t->call[op][c], &t->byte[op][c]);
    double synced = median_of(worst + 4 * REPEAT, SYNC_REPEAT); /* 0: no sync phase */
    t->sync[c] = synced > kept[1] ? synced - kept[1] : 0;
}

/* A copy's cost per byte beyond the cache (the cost model's copy_cold): the best of three
 * memmoves of the size of the host's outermost cache (one instance: mcio_machine_caches, at
 * most COLD_MOST), twice that in memory; 0 when the cache is unknown, or when the copy would
 * take more than an eighth of the node's memory budget (room: a memory cgroup's limit, say;
 * the probe must not be what the kernel's OOM killer finds), or the memory cannot be had.
 * Measured on this host (32 MiB of L3): 1.5e-11 s a byte up to 8 MiB, 3.0e-11 at 16 MiB, 5.0e-11
 * from 32 MiB on. */
static double copy_cold_here(int64_t room)
{
    enum { COLD_MOST = 64 << 20 };
    int64_t n;
    int count;
    mcio_machine_caches(&n, &count);
    n = n < COLD_MOST ? n : COLD_MOST;
    char *b = n > 0 && 2 * n <= room / 8 ? malloc(2 * (size_t)n) : NULL;
    if (!b)
        return 0;
    memset(b, 0x5a, 2 * (size_t)n); /* touched: the copy, not the page faults */
    double best = 0;
    for (int i = 0; i < 3; i++) {
        double t0 = PMPI_Wtime();
        copy_fn(b + n, b, (size_t)n);
        double t = (PMPI_Wtime() - t0) / (double)n;
        best = i == 0 || t < best ? t : best;
    }
    free(b);
    return best;
}

/* Ranks 0 and 1: the median round trip of n bytes over reps ping-pongs, halved. */
static double ping_pong(mcio_file fh, char *buf, int n, int reps)
{
    double each[PINGS];
    int peer = 1 - fh->rank;
    for (int i = 0; i < reps; i++) {
        double t0 = PMPI_Wtime();
        if (fh->rank == 0) {
            PMPI_Send(buf, n, MPI_BYTE, peer, MCIO_TAG_DATA, fh->comm);
            PMPI_Recv(buf, n, MPI_BYTE, peer, MCIO_TAG_DATA, fh->comm, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, n, MPI_BYTE, peer, MCIO_TAG_DATA, fh->comm, MPI_STATUS_IGNORE);
            PMPI_Send(buf, n, MPI_BYTE, peer, MCIO_TAG_DATA, fh->comm);
        }
        each[i] = (PMPI_Wtime() - t0) / 2.0;
    }
    return median_of(each, reps);
}

/* Collective: message, collective and copy costs (ping-pong between ranks 0 and 1, while the
 * other ranks nap). */
static void probe_net(mcio_file fh, char *buf, mcio_cost_table *t)
{
    double v[3] = {0};
    if (fh->nprocs >= 2 && fh->rank < 2) {
        v[0] = ping_pong(fh, buf, 8, PINGS);
        v[1] = ping_pong(fh, buf, BIG_EACH, 8);
    }
    nap_barrier(fh->comm);
    int x = 0, y;
    double t0 = PMPI_Wtime();
    for (int i = 0; i < PINGS; i++)
        PMPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, fh->comm);
    v[2] = (PMPI_Wtime() - t0) / PINGS;
    PMPI_Bcast(v, 3, MPI_DOUBLE, 0, fh->comm);
    if (fh->nprocs >= 2) {
        t->msg = v[0] > 1e-8 ? v[0] : 1e-8;
        double b = (v[1] - v[0]) / (BIG_EACH - 8);
        t->msg_byte = b > 1e-13 ? b : 1e-13;
    }
    t->coll = v[2] > 1e-8 ? v[2] : 1e-8;
    /* A copy: the packing of pieces into a collective buffer; and rank 0's beyond the cache. */
    double c0 = PMPI_Wtime();
    copy_fn(buf + BIG_EACH, buf, BIG_EACH);
    int64_t room = fh->node_budget[fh->machine.node_of_rank[0]];
    double cb[2] = {(PMPI_Wtime() - c0) / BIG_EACH, fh->rank == 0 ? copy_cold_here(room) : 0};
    PMPI_Allreduce(MPI_IN_PLACE, cb, 1, MPI_DOUBLE, MPI_MIN, fh->comm); /* the undisturbed rank */
    PMPI_Bcast(cb + 1, 1, MPI_DOUBLE, 0, fh->comm);
    t->copy_byte = cb[0] > 1e-13 ? cb[0] : 1e-13;
    /* Not cheaper than a copy in the cache (unknown cache, or no memory for the copy: the same). */
    t->copy_cold = cb[1] > t->copy_byte ? cb[1] : t->copy_byte;
}

/* The ranks of the first node: the probe's conc. A cache whose concurrent figures are of fewer
 * ranks than a job's node holds is probed again (auto): the model would stretch them past what
 * they measured. Measured on this host's /tmp: a table probed by a 3-rank test priced the
 * independent writes of an 8-rank job at twice their time, and contiguous, hacc-aos and
 * tapioca then aggregated at 0.46-0.62 of ROMIO's speed. */
static int first_node_ranks(mcio_file fh)
{
    return fh->machine.node_first[1] - fh->machine.node_first[0]; /* node 0: rank 0's */
}

int mcio_calibrate_run(mcio_file fh, const char *dir, mcio_cost_table *out)
{
    mcio_cost_table t = mcio_cost_defaults(fh->fs.remote);
    char name[MCIO_PATH_LEN + 32] = "";
    int ok = 1, fd = -1;
    /* Page-aligned: into malloc's block (16 bytes into a page) the reads cost 6 times what
     * they cost into the collective buffer on this host (mcio_io_copy_alias_slow). */
    char *buf = mcio_io_buffer_alloc((size_t)BIG_ONE + NSMALL * SMALL);
    if (fh->rank == 0) {
        int n = snprintf(name, sizeof name, "%s/.mcio-calibrate-XXXXXX", dir);
        int tmp = n > 0 && (size_t)n < sizeof name ? mkstemp(name) : -1;
        ok = tmp >= 0;
        if (tmp >= 0)
            close(tmp);
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, fh->comm);
    if (ok)
        PMPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, fh->comm);
    if (ok) {
        fd = buf ? open(name, O_RDWR) : -1;
        int bad = fd < 0, any;
        PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, fh->comm);
        ok = !any;
    }
    if (ok) {
        memset(buf, 0x5a, (size_t)BIG_ONE + NSMALL * SMALL);
        /* The ranks of the first node; one of them alone, then all at once. */
        int node0 = fh->machine.node_of_rank[fh->rank] == 0, k = first_node_ranks(fh);
        probe_fs_costs(fh, fd, fh->rank == 0, 0, BIG_ONE, buf, &t, &ok);
        if (ok && k >= 2) {
            probe_fs_costs(fh, fd, node0, 1, BIG_EACH, buf, &t, &ok);
            t.conc = k;
        } else if (ok) {
            for (int op = 0; op < 2; op++)
                t.call[op][1] = t.call[op][0], t.byte[op][1] = 2 * t.byte[op][0];
            t.sync[1] = 2 * t.sync[0];
            t.conc = 2; /* not measured: two ranks taken to share a node's bandwidth */
        }
        if (ok)
            probe_net(fh, buf, &t);
    }
    if (fd >= 0)
        close(fd);
    PMPI_Barrier(fh->comm);
    if (fh->rank == 0 && name[0] && name[strlen(name) - 1] != 'X')
        unlink(name);
    free(buf);
    t.calibrated = ok;
    *out = t;
    return ok ? MCIO_SUCCESS : MCIO_ERR_IO;
}

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
    return cores > 0 && cores >= 2L * first_node_ranks(fh) ? 1.0 : 0.0;
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

/* The figures below, measured once (issue 51: at every open they cost 12-55 ms of 8 ranks on
 * this 2-core host, most of an open): the copy and the datatype engine's cost per block once
 * per process (-1: not measured), the collective's once per communicator, an attribute of the
 * program's communicator (dropped with it; its duplicates do not inherit it). */
static struct {
    pthread_once_t once;
    double copy, piece;
} host_figures = {.once = PTHREAD_ONCE_INIT, .copy = -1, .piece = -1};
static int coll_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t coll_once = PTHREAD_ONCE_INIT;

static void host_figures_measure(void)
{
    enum { COPY = 1 << 20 }; /* a copy beyond the caches, as of a collective buffer */
    char *buf = malloc(2 * (size_t)COPY);
    if (buf) {
        host_figures.copy = copy_here(buf, COPY);
        host_figures.piece = piece_here(buf, buf + COPY, host_figures.copy);
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

/* Collective: the median of nine allreduces back to back on fh's communicator, the slowest
 * rank's (the job's size and layout: 8 ranks on 2 cores pay more than a probe measured once per
 * file system, maybe under another load, and cached); measured at the first open on comm. */
static double coll_here(mcio_file fh, MPI_Comm comm)
{
    enum { REPS = 9 };
    double each[REPS], v;
    uintptr_t bits = 0;
    void *val = NULL;
    int flag = 0, x = 0, y;
    pthread_once(&coll_once, coll_keyval_create);
    if (coll_keyval != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL)
        PMPI_Comm_get_attr(comm, coll_keyval, &val, &flag);
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
    v = median_of(each, REPS);
    PMPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, fh->comm);
    memcpy(&bits, &v, sizeof v);
    if (coll_keyval != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL)
        PMPI_Comm_set_attr(comm, coll_keyval, (void *)bits);
    return v;
}

/* Collective: the machine's figures of the table as they are for this job: the collective's
 * cost on this communicator, a copy and the datatype engine's cost per block (the least
 * disturbed rank's); the same figures on every rank. */
static void machine_here(mcio_file fh, MPI_Comm comm, mcio_cost_table *t)
{
    pthread_once(&host_figures.once, host_figures_measure);
    double copy = host_figures.copy >= 0 ? host_figures.copy : t->copy_byte;
    double piece = host_figures.piece;
    double v[3] = {coll_here(fh, comm), -copy, piece >= 0 ? -piece : -t->piece};
    PMPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, fh->comm); /* max of -copy: min */
    t->coll = v[0] > 1e-8 ? v[0] : 1e-8;
    t->copy_byte = -v[1] > 1e-13 ? -v[1] : 1e-13;
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

#ifndef MCIO_SIMULATE
/* The host's load average per core over the last minute, or -1 where it cannot be read. */
static double load_now(void)
{
    double avg;
    long cores = cores_online();
    return getloadavg(&avg, 1) == 1 && cores > 0 ? avg / (double)cores : -1;
}

/* Does a cached table stand for this open (auto)? Not where its probe had fewer ranks on a
 * node than this job (first_node_ranks), nor where it was probed under load (above
 * LOADED_PERCENT % of each core) and the host is now less than half as loaded: a probe under
 * load prices the file system dearer, figure by figure and not alike (measured on the
 * GlusterFS testbed: probed at 1.91 per core, FLASH-IO's reads went independent at 0.58 of
 * the best configuration; probed at 0.56, they aggregated at 1.24 of OMPIO), and the probe
 * taken again merges its figures with the cache's (mcio_cost_keep_best), so the rule ends. */
static int cache_stands(mcio_file fh, const mcio_cost_table *t)
{
    enum { LOADED_PERCENT = 50 };
    double now = load_now();
    int loaded = t->load * 100 > LOADED_PERCENT && now >= 0 && now < t->load / 2;
    return t->conc >= first_node_ranks(fh) && !loaded;
}

/* Rank 0, after a probe: the host's load per core now, and, unless the hint says replace, the
 * best of this probe and the cached table figure by figure (mcio_cost_keep_best: a probe under
 * load measured every write 30 times dearer on this host's /tmp, and every later job of the
 * file system then aggregated). fh->cost_kept says how many figures the cache kept. */
static void probe_keep_best(mcio_file fh, const char *file, mcio_cost_table *t)
{
    t->load = load_now();
    t->probes = 1;
    fh->cost_kept = 0;
    mcio_cost_table cached;
    int64_t when;
    if (fh->hints.calibrate != MCIO_CALIBRATE_REPLACE && file[0] &&
        read_table(file, &cached, &when) == 0)
        fh->cost_kept = mcio_cost_keep_best(&cached, t, t); /* the job's fields: the probe's */
}
#endif

void mcio_calibrate_file(mcio_file fh, MPI_Comm comm, const char *path)
{
    /* [0] the table's source (enum mcio_cost_source); the table and its date follow. */
    struct {
        int source, probe;
        int64_t date;
        mcio_cost_table t;
    } got = {.source = MCIO_COST_DEFAULTS, .t = mcio_cost_defaults(fh->fs.remote)};
    char dir[MCIO_PATH_LEN] = "", file[MCIO_PATH_LEN + 96] = "", where[MCIO_PATH_LEN] = ".";
#ifndef MCIO_SIMULATE
    if (fh->rank == 0) {
        const char *pinned = getenv("MCIO_CALIBRATION");
        int have = cache_path(path, &fh->fs, dir, sizeof dir, file, sizeof file) == 0;
        if (pinned && *pinned && read_table(pinned, &got.t, &got.date) == 0)
            got.source = MCIO_COST_PINNED;
        else if (fh->hints.calibrate != MCIO_CALIBRATE_FORCE &&
                 fh->hints.calibrate != MCIO_CALIBRATE_REPLACE && have &&
                 read_table(file, &got.t, &got.date) == 0 &&
                 (fh->hints.calibrate == MCIO_CALIBRATE_OFF || cache_stands(fh, &got.t)))
            got.source = MCIO_COST_CACHE;
        else
            got.probe = fh->hints.calibrate != MCIO_CALIBRATE_OFF;
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
        mcio_cost_table t;
        if (mcio_calibrate_run(fh, where, &t) == MCIO_SUCCESS) {
            t.overlap = got.t.overlap;
            t.cores = got.t.cores;
            t.cache = got.t.cache;
            t.caches = got.t.caches;
            got.source = MCIO_COST_PROBED;
            got.date = (int64_t)time(NULL);
            if (fh->rank == 0)
                probe_keep_best(fh, file, &t);
            got.t = t;
            if (fh->rank == 0 && file[0])
                write_cache(dir, file, &t, got.date);
            PMPI_Bcast(&got.t, (int)sizeof got.t, MPI_BYTE, 0, fh->comm); /* rank 0's choice */
            PMPI_Bcast(&fh->cost_kept, 1, MPI_INT, 0, fh->comm);
        }
    }
#else
    (void)path, (void)dir, (void)file, (void)where;
#endif
    if (got.source != MCIO_COST_PINNED)
        machine_here(fh, comm, &got.t);
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
