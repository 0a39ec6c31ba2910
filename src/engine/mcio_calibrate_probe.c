/*
 * The calibration probe (mcio_calibrate_run): the timed writes and reads of a hidden temporary
 * file, alone and by every rank of the first node at once, and the messages and copies, fitted
 * into the cost model's table. When it runs, the cache it feeds and the figures measured at
 * every open are in mcio_calibrate.c, which opens with the design note, the papers
 * (shared/seeds/002; Hockney) and the glossary (src/core/plan/costmodel.c).
 */
#ifndef _DEFAULT_SOURCE /* SMPI's compiler wrapper defines it */
#define _DEFAULT_SOURCE /* mkstemp, fsync */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calibrate_internal.h"
#include "mcio_engine.h"

/* REPEAT: each phase of file access is timed so many times; on a local file system the fastest
 * is kept (the first after a wait is the slowest: on this host's page cache 1.4 times the
 * per-byte cost of a write taken once), on a remote one the median (probe_fs_costs). */
enum { SMALL = 4096, NSMALL = 16, BIG_ONE = 2 << 20, BIG_EACH = 512 << 10, PINGS = 20, REPEAT = 3 };

/* The small calls' size: a call's own cost is what is left of a call of TINY bytes, each call
 * in a page of its own (SMALL apart), once its bytes are priced at the big call's rate. Until
 * cache generation 7 the small calls moved SMALL bytes: on this host's page cache a 4 KiB
 * read costs less than 4 KiB at a 2 MiB read's rate per byte (the big one streams beyond the
 * caches), so the fitted per-call cost of a read came out negative, at the floor of 1e-8 s in
 * every probe, and the independent reads of many short pieces (fragmented: runs of 8-64
 * bytes) were priced at a hundredth of their time (issue 47). A pread of 64 bytes here costs
 * about 0.3-0.5 us, a pwrite 1-3 us (docs/performance.md). */
enum { TINY = 64 };

/* SYNC_REPEAT: a write and its sync are timed so many times, the median try kept (each
 * try's time the slowest rank's, as a call waits for it). A remote file system's flush
 * varies both ways from try to try: on this host's GlusterFS the sync of 8 ranks that had
 * each written 512 KiB, timed once per probe, came to 11.8-25.0 ms over 12 probes; the
 * median of five, 9.7-14.7 over 6 (docs/performance.md, seventeenth pass). */
enum { SYNC_REPEAT = 5 };

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

/* alpha and beta of t = alpha + n beta from a call of TINY bytes and one of big. */
static void fit(double t_small, double t_big, int64_t big, double *call, double *byte)
{
    double b = (t_big - t_small) / (double)(big - TINY);
    *byte = b > 1e-13 ? b : 1e-13;
    double a = t_small - TINY * *byte;
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
double mcio_calibrate_median_of(double *v, int n)
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
 * TINY bytes (SMALL apart), one call of big bytes and, for writes that end with one (fs.defers_errors:
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
                    err |= access_at(fd, op == 0, buf, off + (int64_t)i * SMALL, TINY);
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
        kept[k] = fh->fs.remote ? mcio_calibrate_median_of(worst + REPEAT * k, REPEAT) : worst[TRIES + k];
    for (int op = 0; op < 2; op++)
        fit(kept[2 * op], kept[2 * op + 1], big, &t->call[op][c], &t->byte[op][c]);
    double synced = mcio_calibrate_median_of(worst + 4 * REPEAT, SYNC_REPEAT); /* 0: no sync phase */
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
    return mcio_calibrate_median_of(each, reps);
}

/* Wait for n requests as the engine's exchange does (mcio_rounds.c: exchange_wait): polling,
 * yielding the core between polls. */
static void yield_wait(int n, MPI_Request *reqs)
{
    int done = 0;
    for (PMPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE); !done;
         PMPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE))
        sched_yield();
}

/* Collective: t->crowd, the exchange of a call among the first node's k ranks against what the
 * ping-pong's figures price it at. Every other rank of the node sends rank 0 one message of
 * `each` bytes (a 2 MiB round's share), rank 0 receives them all into buf, each waiting as the
 * engine's exchange waits, then every rank in the MPI library's barrier, polling, as a call's
 * ranks wait in its collectives: where the ranks outnumber the cores the waiting ones take
 * the cores the messages need. Rank 0's time, the median of REPEAT tries, over (k - 1) (msg +
 * each msg_byte); within [1, 16]. Measured on this host (8 ranks of Open MPI on 2 cores): an
 * aggregated write's exchange took 1.7 times its price from the napping ping-pong (issue 48). */
static void probe_crowd(mcio_file fh, char *buf, mcio_cost_table *t)
{
    int k = mcio_calibrate_first_node_ranks(fh), node0 = fh->machine.node_of_rank[fh->rank] == 0;
    if (k < 2 || fh->nprocs < 2)
        return;
    int64_t each = BIG_ONE / (k - 1) < BIG_EACH ? BIG_ONE / (k - 1) : BIG_EACH;
    MPI_Request *reqs = fh->rank == 0 ? malloc((size_t)k * sizeof *reqs) : NULL;
    double tries[REPEAT], v = 0;
    int ok = fh->rank != 0 || reqs;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, fh->comm);
    for (int rep = 0; ok && rep < REPEAT; rep++) {
        PMPI_Barrier(fh->comm);
        double t0 = PMPI_Wtime();
        if (fh->rank == 0) {
            for (int i = 1; i < k; i++)
                PMPI_Irecv(buf + (i - 1) * each, (int)each, MPI_BYTE, MPI_ANY_SOURCE, MCIO_TAG_DATA,
                           fh->comm, &reqs[i - 1]);
            yield_wait(k - 1, reqs);
        } else if (node0) { /* the node's ranks need not be 0..k-1: any source above */
            MPI_Request r;
            PMPI_Isend(buf, (int)each, MPI_BYTE, 0, MCIO_TAG_DATA, fh->comm, &r);
            yield_wait(1, &r);
        }
        tries[rep] = PMPI_Wtime() - t0;
        PMPI_Barrier(fh->comm);
    }
    free(reqs);
    if (ok && fh->rank == 0) {
        double priced = (k - 1) * (t->msg + (double)each * t->msg_byte);
        v = mcio_calibrate_median_of(tries, REPEAT) / priced;
        v = v < 1 ? 1 : v > 16 ? 16 : v;
    }
    PMPI_Bcast(&v, 1, MPI_DOUBLE, 0, fh->comm);
    t->crowd = ok ? v : 1;
}

/* Collective: message, collective and copy costs (ping-pong between ranks 0 and 1, while the
 * other ranks nap), and the exchange among the first node's ranks (probe_crowd). */
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
    probe_crowd(fh, buf, t);
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
        int node0 = fh->machine.node_of_rank[fh->rank] == 0, k = mcio_calibrate_first_node_ranks(fh);
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

/* The ranks of the first node: the probe's conc. A cache whose concurrent figures are of fewer
 * ranks than a job's node holds is probed again (auto): the model would stretch them past what
 * they measured. Measured on this host's /tmp: a table probed by a 3-rank test priced the
 * independent writes of an 8-rank job at twice their time, and contiguous, hacc-aos and
 * tapioca then aggregated at 0.46-0.62 of ROMIO's speed. */
int mcio_calibrate_first_node_ranks(mcio_file fh)
{
    return fh->machine.node_first[1] - fh->machine.node_first[0]; /* node 0: rank 0's */
}
