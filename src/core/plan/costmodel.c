/*
 * The cost model that chooses, per collective call, how mcio runs it (issue 20).
 *
 * Drawn from:
 *   - Thakur, Gropp, Lusk, "Data sieving and collective I/O in ROMIO" (1999): two-phase I/O
 *     pays an exchange to turn many small file accesses into few large ones; ROMIO takes it
 *     only when ranks' accesses interleave (romio_cb_* automatic). Here the trade is priced.
 *   - Lu, Chen, Zhuang, Sun, memory-conscious collective I/O (shared/seeds/002): aggregators per
 *     node (Nah) and the node's available memory (Memavl) bound what a plan may hold; the paper
 *     leaves their calibration to future work. The memory model (memmodel.c) tells whether a
 *     candidate fits; the calibration probe (src/engine/mcio_calibrate.c) gives the costs.
 *   - Sehrish et al., pipelined aggregation (shared/seeds/003): with sub-buffers in flight the
 *     smaller of the exchange and the file access is hidden, at best.
 *   - Hockney's model of a message, alpha + n beta; TAPIOCA's cost model (shared/seeds/004)
 *     prices aggregation the same way (latency plus bytes over bandwidth).
 *
 * The prediction of an aggregated candidate walks the plan the real planners make for it
 * (romio.c, or the auto strategy's memory plan, then pipeline.c's sub-buffers): for each file
 * domain, the messages and bytes its aggregator receives (or sends, on reads) and its file
 * calls; the call's time is the slowest aggregator's, or the slowest sender's. An independent
 * candidate costs each rank one file call per extent, or per packing buffer where its pieces
 * meet in the file but not in memory (topo->rank_calls: the engine packs them, their bytes
 * copied once more). Ranks of a node that access the file at once each pay the concurrent
 * figures of the table (interpolated between 1 and conc ranks, and per byte proportionally
 * beyond conc: the node's bandwidth is shared). Collectives the
 * engine adds beyond the summaries' allgather are counted (coll each): four for an aggregated
 * call (the agreement on planning, the count of lists, the agreement on the lists, the final
 * one), one for an independent one (the final agreement: mcio_twophase.c).
 *
 * The node's cores (cost->cores, when known): ranks that outnumber them take turns, so a
 * node's CPU work (every rank's packing and messages, every aggregator's copies, and the file
 * access where it is the page cache's copying, not a wait on a remote server) takes at least
 * its sum over the cores; and a pipeline hides the smaller phase only as far as a core is left
 * beside the node's aggregators (its senders and its I/O run there). Measured on a 2-core host
 * with 8 ranks, in the early passes: 1 and 4 aggregators per node alike (the 4 share 2 cores),
 * and depth 2 with one aggregator per node 1.1-1.6x faster than depth 1 (docs/performance.md);
 * with today's engine, over four oracles of all ten patterns on /tmp, depth 2 ran at 0.70-1.34
 * times the speed of depth 1 (median 1.00), and 4 aggregators not alike 1 or 2 (below). Where
 * the ranks outnumber the cores, the waiting ones poll, runnable, and the scheduler spreads all the
 * ranks over the cores blind to which are busy: a node's aggregators may share a core while
 * another runs only waiting ones (mcio_cost_busiest_core), and so may an aggregator and its
 * I/O thread. Measured on this host (8 ranks of Open MPI on 2 cores, coll_perf on /tmp): 2
 * aggregators bound to one core ran as slowly as 1 aggregator, bound to different cores as
 * fast as 4; unbound, 4 ran at 0.95-1.30 times the speed of 2 (median 1.09: coll_perf,
 * random and gcrm, writes and reads, in four oracles; issue 20's eighteenth pass).
 *
 * Writes to one file of a local file system take turns on its node: the kernel holds the
 * file's inode lock for the whole of a buffered write (ext4_buffered_write_iter and
 * generic_file_write_iter take inode_lock, XFS its IOLOCK exclusive), so a node's writers of
 * the file copy into the page cache one at a time, whatever its cores; reads take no such lock
 * and share the cores. The node's writes to the file thus take at least their sum. Measured on
 * this 2-core host, 8 ranks, 2 MiB each, /tmp: independent writes of contiguous, ior, hacc-aos
 * and mpi-io-test took 4.7-5.4 ms, the sum of the 8 ranks' writes (5.0-5.3 ms predicted), not
 * that sum over 2 cores (2.5-2.7 ms; docs/performance.md, issue 20's fourth pass).
 *
 * A write that ends with a sync (mcio_write_sync: where the client acknowledges writes before
 * the servers have them, GlusterFS's write-behind) waits on each rank that wrote for the
 * servers' flush: cost->sync, alone or shared among the node's writers (its aggregators, or
 * every rank of an independent write). It is paid once per writer and call, not per file call,
 * and measured apart: fitted into the per-call figure as it was, it priced the syncs of 8
 * independent writers at a fifth of what they took (docs/performance.md, seventh pass).
 *
 * A message between two ranks of a node is one copy (Open MPI's and MPICH's single copy): its
 * bytes are the node's CPU work once, on the aggregator's side. Without a pipeline the rounds
 * go in step, so a node's writes to the file take their turns after the round's exchange. A
 * collective buffer beyond the node's cache (cost->cache, cost->copy_cold: cold_buffers)
 * costs its bytes another pass through memory; measured, gcrm's writes at 8 ranks on /tmp
 * took 1.4x longer through one 16 MiB buffer than through 4 MiB rounds (docs/performance.md,
 * ninth pass).
 *
 * A message of a rank's pieces is an MPI datatype with a block per piece: the MPI library's
 * datatype engine costs the sender (building and packing it) and the aggregator (unpacking)
 * cost->piece per block, measured at open (MPICH 4.0 here: 30-40 ns a 128-byte block; Open MPI
 * 4.1: 10-35). Without it FLASH-IO's aggregated write at 2 ranks on MPICH was predicted 0.35
 * ms and took 0.82 (its 24,576 rows are 128 bytes each: 2 x 6,144 blocks x 40 ns, 0.49 ms);
 * a rank's pieces are its extents spread evenly over its bytes. The figure also carries mcio's
 * own work on a piece's list entry (cut at the domains and rounds, encoded, decoded, merged
 * into the aggregator's rounds), half to each side, measured at open on a climate model's
 * pieces: on fragmented pieces (8-64 bytes) that work took 5-7 times the datatype engine's
 * share of the call's CPU (issue 47).
 *
 * Where a node's ranks outnumber its cores, the ranks that wait poll on the cores its senders
 * and aggregators need, and a call's messages take longer than the probe's ping-pong (its
 * other ranks napping) priced them: the probe measures the stretch (cost->crowd: the node's
 * ranks each sending one message to one rank, none napping), and the messages of the
 * exchange, on both sides, take it (mcio_cost_crowd); the CPU work they share is counted as
 * before. Measured before this (8 ranks of Open MPI on 2 cores, IOR on /tmp): an aggregated
 * write's exchange took 1.7 times its predicted time, the plan within 1 % of independent
 * access by the model (issue 48).
 *
 * What the model does not see: caches warmed by a previous call, the I/O thread's contention
 * (mcio_io_thread stays the engine's own run-time choice), and servers shared between nodes.
 *
 * Glossary (and mcio_planner.h):
 *   candidate      one configuration: independent, or aggregated with a strategy, aggregators
 *                  per node, collective buffer size and pipeline depth
 *   headroom       a node's available memory (the paper's Memavl): topo->node_mem
 *   usable         headroom less mcio_memory_margin (mcio_memmodel_usable)
 *   conc           the ranks per node at which the table's concurrent figures were measured
 *   cores          a node's online cores, which its ranks share (cost->cores; 0: unknown)
 *   node's CPU work what a node's cores must do for a call: packing, messages, copies, and the
 *                  page cache's copies of a local file system
 *   runner-up      the second fastest candidate that fits: what the choice beat, and by how much
 *   cold           a share of a collective buffer's bytes evicted from the cache between the
 *                  exchange and the file access (cold_buffers)
 *   piece          one extent of a rank, a block of the datatype of a message it is sent in
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel_internal.h"
#include "mcio_costmodel.h"

/* Collectives a call makes beyond the summaries' allgather (which carries the memory probe):
 * aggregated, the agreement after planning, the count of lists, the agreement after the list
 * exchange and the final one; independent, the final one (mcio_twophase.c; one more where a
 * write ends with a sync, which the model leaves out). */
enum { COLL_AGGREGATED = 4, COLL_INDEPENDENT = 1 };

/* The passes through memory a cold byte of a collective buffer adds (cold_buffers): written
 * by the exchange, read by the file access, each at copy_cold's cost less copy_byte's. */
#define COLD_PASSES 2


/* A figure for one of w ranks of a node at once, from its value alone (v1) and among conc
 * (vn): interpolated between them, and beyond conc vn, or where the figure is a share of what
 * the node (or the servers behind it) moves (shared), vn grown with the ranks. */
static double at_ranks(const mcio_cost_table *t, int w, double v1, double vn, int shared)
{
    int k = t->conc >= 2 ? t->conc : 2;
    if (w <= 1)
        return v1;
    if (w > k)
        return shared ? vn * (double)w / (double)k : vn;
    return v1 + (double)(w - 1) / (double)(k - 1) * (vn - v1);
}

/* The cost per call and per byte of one of w ranks of a node accessing the file at once (the
 * node's bandwidth shared beyond conc). */
static void fs_cost(const mcio_cost_table *t, int op, int w, double *call, double *byte)
{
    *call = at_ranks(t, w, t->call[op][0], t->call[op][1], 0);
    *byte = at_ranks(t, w, t->byte[op][0], t->byte[op][1], 1);
}

/* Where the call's writes end with a sync (in->sync), add to a writing stream's times, alone
 * and as one of w writers of its node, its closing sync (the servers' flush shared beyond
 * conc; not dearer alone than in company). */
static void add_sync(const mcio_cost_inputs *in, int w, double *alone, double *shared)
{
    const mcio_cost_table *t = in->cost;
    if (!in->write || !in->sync)
        return;
    double s = at_ranks(t, w, t->sync[0], t->sync[1], 1);
    *shared += s;
    *alone += t->sync[0] < s ? t->sync[0] : s;
}

/* The cores n busy ranks of a node run on at once (n when the cores are unknown). */
static double cores_for(const mcio_cost_table *t, int n)
{
    return t->cores > 0 && t->cores < n ? (double)t->cores : (double)(n > 0 ? n : 1);
}

double mcio_cost_busiest_core(int cores, int w, int n)
{
    enum { MOST = 64 };
    if (cores <= 0 || n <= cores)
        return 1.0; /* each busy rank finds a core of its own */
    if (w <= 1 || w > n || n > MOST)
        return w > cores ? (double)w / cores : 1.0; /* as evenly as the cores allow */
    /* P(max <= m) = [x^w] prod over the cores of sum_{k <= min(m, s)} C(s, k) x^k, over
     * C(n, w), s the core's share of the n ranks; E[max] = sum over m < w of P(max > m). */
    double binom[MOST + 1][MOST + 1] = {{0}};
    for (int a = 0; a <= n; a++)
        for (int b = 0; b <= a; b++)
            binom[a][b] = b == 0 || b == a ? 1.0 : binom[a - 1][b - 1] + binom[a - 1][b];
    double expected = 0;
    for (int m = 0; m < w; m++) {
        double ways[MOST + 1] = {1.0}; /* ways[k]: k busy ranks on the cores so far */
        for (int c = 0; c < cores; c++) {
            int s = n / cores + (c < n % cores), top = m < s ? m : s;
            double next[MOST + 1] = {0};
            for (int have = 0; have <= w; have++)
                for (int k = 0; k <= top && have + k <= w && ways[have] > 0; k++)
                    next[have + k] += ways[have] * binom[s][k];
            memcpy(ways, next, sizeof ways);
        }
        expected += 1.0 - ways[w] / binom[n][w];
    }
    return expected;
}

double mcio_cost_crowd(const mcio_cost_table *t, int ranks)
{
    int k = t->conc;
    if (t->cores <= 0 || ranks <= t->cores || k <= t->cores || !(t->crowd > 1))
        return 1.0;
    return 1.0 + (t->crowd - 1.0) * (double)(ranks - t->cores) / (double)(k - t->cores);
}

/* Do a node's writes to the file take turns (the inode lock of a local file system, above)?
 * Only where the model knows the machine (cores known) and the file system is this node's. */
static int writes_take_turns(const mcio_cost_table *t, int write)
{
    return write && io_is_cpu(t);
}

/* The system calls of rank r's own access: fewer than its extents where pieces that meet in
 * the file are packed (mcio_own_calls). */
static int64_t rank_calls(const mcio_topology *topo, int r)
{
    int64_t e = mcio_cost_rank_extents(topo, r);
    return topo->rank_calls && topo->rank_calls[r] > 0 && topo->rank_calls[r] < e
               ? topo->rank_calls[r]
               : e;
}

/* The time of one stream of file access (a rank's, or an aggregator's) of `calls` calls and
 * `bytes` bytes: alone, and as one of w of its node at once (fs_cost). */
static void stream_cost(const mcio_cost_table *t, int op, int w, double calls, double bytes,
                        double *alone, double *shared)
{
    double call, byte;
    fs_cost(t, op, 1, &call, &byte);
    *alone = calls * call + bytes * byte;
    fs_cost(t, op, w, &call, &byte);
    *shared = calls * call + bytes * byte;
    /* A stream is not slower alone than in company: where a probe measured so (noise, or a
     * figure kept from another probe), the concurrent figure speaks. */
    *alone = *alone < *shared ? *alone : *shared;
}

/* The independent candidate: each rank one call per extent (per packing buffer where pieces
 * meet in the file but not in memory, their bytes copied once more), its node's accessing
 * ranks at once. A node's streams share what its client and the servers behind it move at
 * once (the table's concurrent figures, measured with every stream busy) only while they all
 * run: a rank with more to move than the others ends alone. So a rank takes at least its time
 * alone, and the node at least its streams' shared times over the streams (their mean): for
 * streams of one size that is each one's shared time, as before; for blocks of unequal sizes
 * (tapioca, random) the largest is not charged the contention of ranks that have finished.
 * 0 or MCIO_ERR_NOMEM. */
int mcio_cost_predict_independent(const mcio_cost_inputs *in, mcio_cost_config *c)
{
    const mcio_topology *topo = in->topo;
    int op = in->write ? MCIO_COST_WRITE : MCIO_COST_READ;
    int *active = calloc((size_t)topo->nnodes + 1, sizeof(int));
    if (!active)
        return MCIO_ERR_NOMEM;
    double *cpu = calloc((size_t)topo->nnodes + 1, sizeof(double));
    if (!cpu) {
        free(active);
        return MCIO_ERR_NOMEM;
    }
    double worst = 0;
    for (int r = 0; r < topo->nprocs; r++)
        active[topo->node_of_rank[r]] += in->sum[r].bytes > 0;
    for (int r = 0; r < topo->nprocs; r++) {
        if (in->sum[r].bytes <= 0)
            continue;
        double alone, t;
        int w = active[topo->node_of_rank[r]];
        int64_t calls = rank_calls(topo, r);
        stream_cost(in->cost, op, w, (double)calls, (double)in->sum[r].bytes, &alone, &t);
        if (calls < mcio_cost_rank_extents(topo, r)) { /* packed: the rank's own copy, on its core */
            double pack = (double)in->sum[r].bytes * in->cost->copy_byte;
            alone += pack;
            t += io_is_cpu(in->cost) ? pack : 0;
        }
        add_sync(in, w, &alone, &t); /* every rank wrote: each syncs its own writes */
        worst = alone > worst ? alone : worst;
        cpu[topo->node_of_rank[r]] += t;
    }
    /* The node's streams share its client, and (the page cache's copies) its cores; on a local
     * file system its writes to the file take turns whatever the cores. */
    int turns = writes_take_turns(in->cost, in->write);
    for (int j = 0; j < topo->nnodes; j++) {
        double t = active[j] > 0 ? cpu[j] / (double)active[j] : 0;
        if (io_is_cpu(in->cost))
            t = cpu[j] / (turns ? 1.0 : cores_for(in->cost, active[j]));
        worst = t > worst ? t : worst;
    }
    free(cpu);
    free(active);
    c->fits = 1; /* no collective buffer: the extents only, which every candidate holds */
    c->seconds = worst + COLL_INDEPENDENT * in->cost->coll;
    return MCIO_SUCCESS;
}

/* predict_plan's file access of each domain d with data (its rounds' calls and its span's
 * bytes, and for a write with holes the span read first: read-modify-write), as
 * predict_independent prices a rank's: at least the aggregator's time alone, and at least the
 * mean of its node's aggregators' shared times. aggs[node]: the node's aggregators with data;
 * turns[node] (added to): the node's writes to the file where they take turns
 * (writes_take_turns). 0 or MCIO_ERR_NOMEM. */
static int domains_io(const mcio_cost_inputs *in, const mcio_fdplan *fd, const double *bytes,
                      const int *aggs, double *io, double *turns)
{
    const mcio_topology *topo = in->topo;
    const mcio_cost_table *t = in->cost;
    int op = in->write ? MCIO_COST_WRITE : MCIO_COST_READ;
    double *node = calloc((size_t)topo->nnodes + 1, sizeof(double));
    if (!node)
        return MCIO_ERR_NOMEM;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < fd->ndomains; d++) {
            if (fd->rounds[d] <= 0)
                continue;
            int j = topo->node_of_rank[fd->agg_rank[d]];
            double span = (double)(fd->win_end[d] - fd->win_start[d]), rounds = fd->rounds[d];
            double alone, shared, ra = 0, rs = 0;
            stream_cost(t, op, aggs[j], rounds, span, &alone, &shared);
            if (pass == 0 && writes_take_turns(t, in->write))
                turns[j] += shared; /* the node's writes to the file, one after another */
            if (in->write && bytes[d] < 0.999 * span)
                stream_cost(t, MCIO_COST_READ, aggs[j], rounds, span, &ra, &rs);
            alone += ra, shared += rs;
            add_sync(in, aggs[j], &alone, &shared); /* the aggregators' are the syncs that wait */
            if (pass == 0)
                node[j] += shared;
            else
                io[d] = alone > node[j] / aggs[j] ? alone : node[j] / aggs[j];
        }
    free(node);
    return MCIO_SUCCESS;
}

/* A collective buffer's bytes pass through memory once more where the node's buffers outgrow
 * its cache: filled by the exchange and drained to the file (or the other way on reads), they
 * are evicted in between. cold[node]: the share of its aggregators' bytes that pays it, from
 * the bytes its buffers hold at once (B: each aggregator's round, or its sub-buffers in
 * flight) and the cache they have: one instance of the outermost level per aggregator, as
 * many as the node has (an aggregator's buffer lives in the cache of the socket or core
 * complex it runs on). The buffer and the bytes streaming into or out of it take twice B;
 * a memmove of n bytes (2n in the cache) ran at the cache's speed up to 2n = cache / 2, half
 * way to memory's at 2n = cache and at memory's from 2n = 2 x cache on this host (32 MiB of
 * L3; mcio_calibrate.c's copy_cold): cold = 2B / cache - 1/2, within [0, 1]. Measured, 8
 * ranks, gcrm writes on /tmp: one aggregator with a 16 MiB buffer took 3.1-3.3 ms, with 4
 * MiB or 2 MiB 2.2-2.3 ms; coll_perf at 2 aggregators read 1.2x faster through 4 MiB
 * rounds than through 16 MiB, once a round boundary no longer cost its messages a datatype
 * block per row (mcio_rounds.c: mcio_pieces_type; docs/performance.md, ninth and tenth passes).
 * Nothing without a cache size. aggs[node]: its aggregators with data. */
static void cold_buffers(const mcio_cost_inputs *in, const mcio_fdplan *fd, int depth,
                         const int *aggs, double *cold)
{
    const mcio_cost_table *t = in->cost;
    if (t->cache <= 0 || t->copy_cold <= t->copy_byte)
        return;
    for (int d = 0; d < fd->ndomains; d++) {
        if (fd->rounds[d] <= 0)
            continue;
        int64_t span = fd->win_end[d] - fd->win_start[d];
        int64_t round = fd->window[d] < span ? fd->window[d] : span;
        int inflight = depth > 1 && fd->rounds[d] > 1 ? (fd->rounds[d] < depth ? fd->rounds[d] : depth)
                                                      : 1;
        cold[in->topo->node_of_rank[fd->agg_rank[d]]] += (double)inflight * (double)round;
    }
    for (int j = 0; j < in->topo->nnodes; j++) {
        int share = aggs[j] < t->caches ? aggs[j] : t->caches; /* instances they have */
        double c = 2.0 * cold[j] / ((double)t->cache * (share > 1 ? share : 1)) - 0.5;
        cold[j] = c < 0 ? 0 : c > 1 ? 1 : c;
    }
}

/* The slowest node's bound (cores known): its ranks share its cores, so its CPU work (cpu: the
 * exchange's; cpu_io: the file access's, where that is the page cache's copying) takes at
 * least its share of each; its aggregators' writes to the file take turns. Without a pipeline
 * they take them after the round's exchange, which every aggregator of the node waits for
 * (the rounds go in step): the writes add to the exchange's share of the cores. */
static double nodes_bound(const mcio_cost_table *t, int nnodes, int depth, const int *ranks,
                          const double *cpu, const double *cpu_io, const double *turns)
{
    double worst = 0;
    for (int j = 0; t->cores > 0 && j < nnodes; j++) {
        double cores = cores_for(t, ranks[j]);
        double tc = (cpu[j] + cpu_io[j]) / cores;
        if (depth <= 1 && turns[j] > 0)
            tc = cpu[j] / cores + turns[j];
        worst = tc > worst ? tc : worst;
        worst = turns[j] > worst ? turns[j] : worst;
    }
    return worst;
}

/* An aggregator's time for its domain of `rounds` rounds: its exchange ex and file access io
 * (each already stretched by the core it shares, mcio_cost_busiest_core), one after the other,
 * or at depth > 1 the smaller phase hidden (as far as a core is free for it), but for one
 * sub-buffer's worth; each sub-buffer a hand-over. threads: the busiest core's busy threads
 * when the node's w aggregators each run an I/O thread. */
static double aggregator_time(const mcio_cost_table *t, int depth, int w, double rounds,
                              double ex, double io, double threads)
{
    if (depth <= 1)
        return ex + io;
    double lo = ex < io ? ex : io, ov = t->overlap;
    if (t->cores > 0) { /* the cores left beside the node's w aggregators, per aggregator;
                           where waiting ranks poll, only as often as an I/O thread lands
                           apart from the busy ones */
        double both = 2.0 * w, spread = both > t->cores ? both / t->cores : 1.0;
        ov = (double)(t->cores - w) / (double)w * spread / threads;
    }
    ov = ov < 0 ? 0 : ov > 1 ? 1 : ov;
    return (ex > io ? ex : io) + (1 - ov) * lo + lo / rounds + rounds * t->msg;
}

/* What mcio_cost_predict_plan's walk found per domain (msgs, remote, bytes, iod) and per node
 * (aggs, ranks, cold). */
typedef struct domain_loads {
    const double *msgs, *remote, *bytes, *iod;
    const int *aggs, *ranks;
    const double *cold;
} domain_loads;

/* The slowest of worst and every busy domain's aggregator time; each domain's exchange added to
 * its node's CPU work (cpu), and its file access too where that is CPU work (cpu_io). */
static double aggregators_worst(const mcio_cost_inputs *in, const mcio_fdplan *fd, int depth,
                                double density, const domain_loads *dl, double worst, double *cpu,
                                double *cpu_io)
{
    const mcio_topology *topo = in->topo;
    const mcio_cost_table *t = in->cost;
    const int *aggs = dl->aggs, *ranks = dl->ranks;
    int last_w = -1, last_n = -1;
    double share = 1, threads = 1;
    for (int d = 0; d < fd->ndomains; d++) {
        if (fd->rounds[d] <= 0)
            continue;
        int j = topo->node_of_rank[fd->agg_rank[d]], w = aggs[j];
        double rounds = fd->rounds[d], io = dl->iod[d];
        if (w != last_w || ranks[j] != last_n) { /* the cores they share, per node layout */
            last_w = w, last_n = ranks[j];
            share = mcio_cost_busiest_core(t->cores, w, ranks[j]);
            threads = mcio_cost_busiest_core(t->cores, 2 * w, ranks[j] + w);
        }
        /* The remote bytes arrive through datatypes of the senders' pieces: the aggregator
         * unpacks as many blocks as they packed. Its messages take crowd times what the
         * ping-pong priced where the node's ranks outnumber its cores. */
        double crowd = mcio_cost_crowd(t, ranks[j]);
        double ex = crowd * (dl->msgs[d] * t->msg + dl->remote[d] * t->msg_byte) +
                    dl->remote[d] * density * t->piece + dl->bytes[d] * t->copy_byte +
                    COLD_PASSES * dl->cold[j] * dl->bytes[d] * (t->copy_cold - t->copy_byte);
        int io_shares = io_is_cpu(t) && !writes_take_turns(t, in->write); /* else: turns */
        double td = aggregator_time(t, depth, w, rounds, ex * share,
                                    io_shares ? io * share : io, threads);
        worst = td > worst ? td : worst;
        cpu[j] += ex;
        cpu_io[j] += io_is_cpu(t) ? io : 0;
    }
    return worst;
}

/*
 * Walk an aggregated plan: per domain, what its aggregator exchanges and accesses; per rank,
 * what it sends (receives, on reads) to others' domains. In O(nprocs log ndomains + ndomains)
 * with prep's shared parts, not ranks x domains (an IOR-like pattern has every rank in every
 * domain: at 100,000 ranks the direct walk took minutes), nor a search of the ranks per window:
 * a domain's bytes from the request map, its messages from the windows each rank meets
 * (senders), a rank's messages from a prefix sum of the domains' rounds. The time in *seconds;
 * 0 or MCIO_ERR_NOMEM (never a price that one rank alone would see: every rank must reach the
 * same choice, or fail).
 */
static int predict_walk(const mcio_cost_inputs *in, mcio_cost_prep *prep, const mcio_fdplan *fd,
                        int depth, double *seconds)
{
    const mcio_topology *topo = in->topo;
    int nd = fd->ndomains, nn = topo->nnodes;
    double *dom = calloc(((size_t)nd + 1) * 4 + ((size_t)nn + 1) * 4, sizeof(double));
    int *aggs = calloc((size_t)nn + 1, sizeof(int));
    double worst = 0;
    int st = MCIO_ERR_NOMEM;
    if (!dom || !aggs)
        goto done;
    /* Per domain: bytes, remote, msgs, iod; per node: cpu, turns (a node's writes), cpu_io (of
     * cpu: file access), cold (cold_buffers). */
    double *bytes = dom, *remote = bytes + nd + 1, *msgs = remote + nd + 1, *iod = msgs + nd + 1;
    double *cpu = iod + nd + 1, *turns = cpu + nn + 1, *cpu_io = turns + nn + 1,
           *cold = cpu_io + nn + 1;
    if (mcio_cost_walk_ranks(in, prep, fd, bytes, remote, msgs, cpu, &worst) != MCIO_SUCCESS)
        goto done;
    for (int d = 0; d < nd; d++)
        aggs[topo->node_of_rank[fd->agg_rank[d]]] += fd->rounds[d] > 0;
    if (domains_io(in, fd, bytes, aggs, iod, turns) != MCIO_SUCCESS)
        goto done;
    cold_buffers(in, fd, depth, aggs, cold);
    domain_loads dl = {msgs, remote, bytes, iod, aggs, prep->ranks, cold};
    worst = aggregators_worst(in, fd, depth, prep->density, &dl, worst, cpu, cpu_io);
    double nodes = nodes_bound(in->cost, nn, depth, prep->ranks, cpu, cpu_io, turns);
    worst = nodes > worst ? nodes : worst;
    st = MCIO_SUCCESS;
done:
    free(dom);
    free(aggs);
    *seconds = worst + COLL_AGGREGATED * in->cost->coll;
    return st;
}

int mcio_cost_predict_plan(const mcio_cost_inputs *in, mcio_cost_prep *prep,
                           const mcio_fdplan *fd, int depth, double *seconds)
{
    mcio_cost_prep mine;
    int st = MCIO_SUCCESS, built = !prep;
    if (built && (st = mcio_cost_prep_build(in, &mine)) == MCIO_SUCCESS)
        prep = &mine;
    if (st == MCIO_SUCCESS)
        st = predict_walk(in, prep, fd, depth, seconds);
    else
        *seconds = COLL_AGGREGATED * in->cost->coll;
    if (built)
        mcio_cost_prep_free(&mine);
    return st;
}
