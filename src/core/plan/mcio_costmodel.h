/*
 * The cost model that chooses how a collective call runs (issue 20): pure, no MPI, no files.
 * Every rank calls mcio_cost_decide on the same allgathered inputs and the same calibrated
 * table (broadcast when the file opens) and so reaches the same choice without a message.
 * Design notes and the papers it draws on are at the top of costmodel.c.
 */
#ifndef MCIO_COSTMODEL_H
#define MCIO_COSTMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "mcio_planner.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MCIO_COST_WRITE = 0, MCIO_COST_READ = 1 };

/* The cache's figures (the keys of mcio_cost_format: call, byte and sync of the file system,
 * msg, msg_byte, coll, copy_byte, copy_cold, crowd), the probes kept of each, and the
 * corrections kept per operation (issue 48). */
enum { MCIO_COST_FIGURES = 16, MCIO_COST_HISTORY = 5, MCIO_COST_CORRECTIONS = 16 };

/* What calls of one configuration on one shape of access measured against their prediction
 * (the engine's online check, mcio_cost_observe): later predictions of the configuration for
 * that shape are multiplied by factor. */
typedef struct mcio_cost_correction {
    uint64_t shape; /* the calls' shape (mcio_decide_shape: their summaries and extents) */
    int independent, strategy, aggs_per_node, depth; /* the configuration (mcio_cost_config) */
    int64_t buffer;
    double factor;  /* measured over predicted, within [1/4, 4] */
    double pending; /* a first far call's ratio to its prediction, awaiting a second; 0: none */
} mcio_cost_correction;

/* The machine's costs, in seconds: measured by the calibration probe (mcio_calibrate.c) or
 * the defaults of the file system's kind (mcio_cost_defaults). */
typedef struct mcio_cost_table {
    /* [op][c]: op MCIO_COST_WRITE / READ; c = 0: one rank of a node accesses the file,
     * c = 1: conc ranks of a node access it at once (each rank's own cost then). */
    double call[2][2]; /* per file-system call (pwrite / pread) */
    double byte[2][2]; /* per byte */
    double sync[2];    /* a write's closing sync (fsync) by a rank that wrote: [0] one rank of a
                          node, [1] one of conc at once; measured where writes end with one
                          (mcio_fsinfo.defers_errors: write-behind), else 0 */
    int conc;          /* ranks per node of the c = 1 figures, >= 2 */
    double msg;        /* one point-to-point message: latency (Hockney's alpha) */
    double msg_byte;   /* per byte of a message (Hockney's beta) */
    double coll;       /* one small collective (allreduce of a few words) over the ranks */
    double copy_byte;  /* a memcpy of one byte (packing pieces into a collective buffer) */
    double copy_cold;  /* a memcpy of one byte beyond the cache (a copy of cache bytes, rank 0
                          alone): what a byte of a collective buffer costs a call once more
                          where the node's buffers outgrow the cache */
    double crowd;      /* an exchange's messages among the conc ranks of a node, each sending
                          one to the node's first rank, every rank busy as in a call (none
                          napping), over what msg and msg_byte price them at: how much longer
                          a call's messages take where the node's ranks outnumber its cores
                          (the waiting ranks poll on the cores the sender and the aggregator
                          need; mcio_cost_crowd). Measured by the probe (issue 48); 1 where
                          not measured (a pinned table without a "crowd" line): no stretch */
    double piece;      /* a piece of an aggregated call, beyond its bytes, on each side: the
                          MPI library's datatype engine per block of a message's datatype (an
                          hindexed type of 128-byte blocks created, committed, packed and
                          freed) and half of mcio's own work on its list entry (cut, encoded,
                          decoded, merged: mcio_calibrate.c's list_here); each piece an
                          exchange sends costs it the sender and the aggregator. The job's MPI
                          library and host: set at open, not cached (a "piece" line pins it,
                          else 20e-9) */
    double overlap;    /* share of the smaller of exchange and file access that a pipeline hides:
                          1 when an aggregator's I/O thread has a core of its own, 0 when the
                          node's cores are all taken by ranks (the job's layout, not the file
                          system's: set at open, not cached; -1 from mcio_cost_parse when the
                          text does not pin it) */
    int cores;         /* online cores of a node (the job's layout, set at open, not cached);
                          0: unknown, and then a pipeline hides what overlap says. With cores,
                          the ranks of a node share them: the exchange (and the file access of
                          a file system that is not remote: the page cache's copies) is work
                          of the node's CPU, and a pipeline hides the smaller phase as far as a
                          core is left beside the node's aggregators */
    int64_t cache;     /* bytes of one instance of a node's outermost cache level (the job's
                          host, set at open, not cached: mcio_machine_caches); 0: unknown, and
                          no collective buffer is cold */
    int caches;        /* its instances on a node (a socket's, a core complex's; 0: one) */
    int remote;        /* file access waits on the network (mcio_fsinfo.remote): not the
                          node's CPU work. Set at open, not cached */
    int calibrated;    /* 1: measured on this file system; 0: the defaults of its kind */
    int probes;        /* probes merged into the table over its life (mcio_cost_merge); 1 from
                          mcio_cost_parse when the text does not say */
    double load;       /* the host's load average per core at the latest probe; -1: unknown */
    /* Issue 48: the last probes' figures (hist[0] the oldest; kept of them, 0 for a table that
     * no probe made), of which the figures above are the medians (mcio_cost_merge), and the
     * spread of what they price, per operation: half their range over their median, within
     * [0.05, 0.5] (0.1 from one probe). Predictions that differ by less are the same to the
     * choice (mcio_decide). */
    int kept;
    double hist[MCIO_COST_HISTORY][MCIO_COST_FIGURES];
    double spread[2];
    /* Per operation, the configurations the engine measured far from their prediction. Kept
     * with the calibration (a cache's "correct_" lines), not measured by its probe. */
    int ncorr[2];
    mcio_cost_correction corr[2][MCIO_COST_CORRECTIONS];
} mcio_cost_table;

/* The stretch of a message's time (msg, msg_byte) on a node of `ranks` ranks: 1 where the
 * ranks do not outnumber the cores (or the cores are unknown), else t->crowd as the probe
 * measured it with conc ranks on the node's cores, interpolated in the ranks beyond the
 * cores (and grown in proportion past conc); 1 where the probe's ranks did not outnumber the
 * cores (it says nothing then). Pure. */
double mcio_cost_crowd(const mcio_cost_table *t, int ranks);

/* The defaults when nothing was measured: remote = 0 for a file system that lives in the
 * page cache or on a local device (tmpfs, ext4, xfs), 1 for one behind the network (GlusterFS,
 * NFS, Lustre, ...: mcio_fsinfo.remote). */
mcio_cost_table mcio_cost_defaults(int remote);

/* One way to run a call. */
typedef struct mcio_cost_config {
    int independent;   /* 1: each rank accesses its own pieces (romio_cb_write/read = disable) */
    int strategy;      /* aggregated: MCIO_STRATEGY_ROMIO, or MCIO_STRATEGY_MEMORY (planned as
                          the auto strategy does when the romio plan does not fit the memory) */
    int aggs_per_node; /* aggregated: cb_nodes = aggs_per_node x nodes (0: the user's cb_nodes) */
    int64_t buffer;    /* aggregated: cb_buffer_size */
    int depth;         /* aggregated: mcio_pipeline_depth */
    int fits;          /* the memory model says every node's usable memory holds it */
    double seconds;    /* predicted time of the call, beyond the summaries' allgather */
} mcio_cost_config;

/* Which of the choices the user made (a hint set explicitly): those are not chosen. */
enum mcio_cost_fixed {
    MCIO_COST_FIX_CB = 1 << 0,       /* romio_cb_write / romio_cb_read for this operation */
    MCIO_COST_FIX_CB_NODES = 1 << 1, /* cb_nodes */
    MCIO_COST_FIX_BUFFER = 1 << 2,   /* cb_buffer_size */
    MCIO_COST_FIX_DEPTH = 1 << 3,    /* mcio_pipeline_depth */
};

typedef struct mcio_cost_inputs {
    const mcio_topology *topo; /* nodes, node_mem (headroom; NULL: no limit), rank_extents */
    const mcio_summary *sum;   /* [nprocs] */
    int write;
    mcio_planner_params params; /* the hints' parameters for this operation (user or default) */
    int depth;               /* the hints' mcio_pipeline_depth */
    int64_t subbuffer;       /* the sub-buffer size a pipeline would use (mcio_pipeline_subbuffer) */
    int64_t unit;            /* its alignment unit (mcio_pipeline_unit at depth 2) */
    unsigned fixed;          /* enum mcio_cost_fixed */
    int sync;                /* a write ends with a sync on every rank (mcio_write_sync): the
                                ranks that wrote pay cost->sync */
    const mcio_cost_table *cost;
    const mcio_planner_table *planners; /* the candidates' rows; NULL: the library's */
} mcio_cost_inputs;

/* The decision: the fastest candidate that fits, and the next fastest. */
typedef struct mcio_cost_choice {
    mcio_cost_config best;
    mcio_cost_config runner_up; /* seconds < 0: there was no other candidate */
    int candidates;             /* how many were predicted */
    double margin;              /* > 0: independent access was taken over the runner-up, an
                                   aggregated candidate predicted faster but by less than this
                                   factor (within it the model's error decides) */
} mcio_cost_choice;

/*
 * Predict the time of configuration c (fills c->fits and c->seconds). Aggregated
 * configurations are planned with the real planners (romio.c, memmodel.c) and subdivided as
 * the pipeline does (pipeline.c), and the prediction walks that plan. Pure; 0 or an
 * MCIO_ERR_* code of the planner.
 */
int mcio_cost_predict(const mcio_cost_inputs *in, mcio_cost_config *c);

/*
 * The busy ranks the busiest core of a node runs, expected, when w of its n ranks are busy and
 * the others wait in the MPI library, on `cores` cores: 1 where each rank has a core of its
 * own (n <= cores; cores 0: unknown). Where the ranks outnumber the cores the waiting ones
 * poll, runnable, and the scheduler spreads all n evenly over the cores, blind to which are
 * busy: the busy ones land as a random w of the n (the expected maximum of a multivariate
 * hypergeometric draw, computed exactly up to 64 ranks on a node; beyond, as evenly as the
 * cores allow, w / cores). Pure.
 */
double mcio_cost_busiest_core(int cores, int w, int n);

/*
 * Plan the aggregated configuration c as the engine runs it and mcio_cost_predict prices it:
 * the hints' parameters (in->params) with c's buffer, aggregators per node and, for a pipeline,
 * its alignment unit (in->unit); the romio planner, or the memory strategy as the fit strategy
 * plans it. Pure; 0 or an MCIO_ERR_* code of the planner.
 */
int mcio_cost_plan(const mcio_cost_inputs *in, const mcio_cost_config *c, mcio_fdplan *fd);

/*
 * Enumerate the candidates (independent; aggregated with the romio or the memory strategy,
 * 1, 2 or 4 aggregators per node, the hints' buffer or 4 MiB, pipeline depth 1, 2 or 4; a
 * choice the user fixed has its one value) in a fixed order, predict each, and take the
 * fastest that fits (the first on a tie), else the one that needs least memory; independent
 * access where it fits and the fastest is aggregated but predicted less than a margin faster
 * (out->margin). Pure: the same inputs give the same choice on every rank. 0 or an MCIO_ERR_*
 * code.
 */
int mcio_cost_decide(const mcio_cost_inputs *in, mcio_cost_choice *out);

/* How much faster than independent access an aggregated candidate must be predicted to be
 * taken under table t (mcio_cost_decide; 1: no margin). Pure. */
double mcio_cost_aggregation_margin(const mcio_cost_table *t);

/*
 * As mcio_cost_decide, and every candidate it predicted, in the order tried, in seen[0..n-1]
 * (n = the smaller of out->candidates and cap): what mcio-plan --candidates prints.
 */
int mcio_cost_decide_seen(const mcio_cost_inputs *in, mcio_cost_choice *out,
                          mcio_cost_config *seen, int cap);

/*
 * As mcio_cost_decide, and the best configuration's plan as the engine runs it (planned once:
 * the prediction's own): *fd, subdivided for a pipeline with its sub-buffers per domain in
 * *slots (mcio_fdplan_subdivide), else *slots NULL; for an independent best, an empty *fd.
 * The caller frees both (mcio_fdplan_free, free). Pure; 0 or an MCIO_ERR_* code (then nothing
 * to free).
 */
int mcio_cost_decide_plan(const mcio_cost_inputs *in, mcio_cost_choice *out, mcio_fdplan *fd,
                          int **slots);

/*
 * The plan of configuration c, chosen before by mcio_cost_decide_plan from inputs that differ
 * from in at most in the nodes' memory: as mcio_cost_decide_plan leaves it (*fd subdivided for a
 * pipeline, *slots; an empty *fd for independent access), without predicting anything again,
 * and c->fits for the nodes' memory now (c->seconds is left as it was). The engine takes a
 * call's choice again this way when the call's inputs are those of an earlier call's. The
 * caller frees both, also on failure. Pure; 0 or an MCIO_ERR_* code of the planner.
 */
int mcio_cost_replan(const mcio_cost_inputs *in, mcio_cost_config *c, mcio_fdplan *fd,
                     int **slots);

/* A configuration as a short text: "independent", "romio 2/node 16m depth 2". */
void mcio_cost_config_name(const mcio_cost_config *c, char *buf, size_t len);

/* --- The calibration cache's text (one file per file system, "key value" lines) --- */

/* Write the table and its date (seconds since the epoch) as text into buf; returns the length
 * snprintf wants (as snprintf). */
int mcio_cost_format(const mcio_cost_table *t, int64_t date, char *buf, size_t len);

/* The calibration cache keeps the last MCIO_COST_HISTORY probes of every figure and stands
 * for their medians (issue 48): a probe can be disturbed into slower figures (a loaded host,
 * another job's I/O) and, more rarely, into faster ones; a median of five moves little with
 * one probe, where the best of all probes (before issue 48) or the latest one moved with every
 * lucky probe and flipped the choices of later jobs. The network's and the machine's figures
 * are medians figure by figure; an operation's file-system figures (call and byte, alone and
 * concurrent; a write's sync) are one probe's, the probe whose figures price a 1 MiB call alone
 * plus one among conc the median: their ratio decides independent against aggregated, and
 * only one probe's figures hold it. Where conc differs (another layout), the history restarts
 * with the probe. probes = cached's + 1, load = the probe's, spread from the kept probes, the
 * corrections the cached table's. Returns how many figures the probe measured more than twice
 * as dear as the cache: 0 when the probe agrees or improves. out may alias either table. */
int mcio_cost_merge(const mcio_cost_table *cached, const mcio_cost_table *probed,
                    mcio_cost_table *out);

/* A table of one probe: its figures as its history (kept 1) and the spread of one probe
 * (the probe's own table, or a table parsed from an older cache's text). */
void mcio_cost_history_start(mcio_cost_table *t);

/* The correction of configuration c for operation op (MCIO_COST_WRITE / READ) and calls of
 * shape in t: the factor its predictions are multiplied by, 1 when none. Pure. */
double mcio_cost_correction_of(const mcio_cost_table *t, int op, uint64_t shape,
                               const mcio_cost_config *c);

/*
 * The online check (issue 48): a call of shape run with configuration c, which the model
 * predicted at predicted seconds (c->seconds, before any correction), measured at measured
 * (the slowest rank's). A call measured more than 1.5x from its corrected prediction either
 * way, twice in a row, corrects c's factor for the shape by the lesser of the two ratios and
 * returns 1: the operation's calls then decide again. Calls predicted under 1 ms are not
 * checked (their fixed costs, which the model does not price, dominate). Pure; t updated (when
 * all MCIO_COST_CORRECTIONS entries are taken, the last is reused).
 */
int mcio_cost_observe(mcio_cost_table *t, int op, uint64_t shape, const mcio_cost_config *c,
                      double predicted, double measured);

/* Parse text written by mcio_cost_format. Unknown keys are ignored, every known key must be
 * present with a finite non-negative value (conc >= 2); "overlap" (0 to 1) is optional, and
 * -1 when absent; "piece" (else the defaults'), "probes" (>= 1, else 1) and "load" (else -1)
 * are optional. Format 2 (issue 48) adds "hist_<key>" lines (the kept probes' figures, oldest
 * first, all of one count) and "correct_write" / "correct_read" lines (shape in hex,
 * independent, strategy, aggregators per node, depth, buffer, factor); text without them (format 1) reads as one
 * probe's (mcio_cost_history_start). Returns 0 and fills *t (calibrated = 1) and *date, or -1 for malformed or
 * incomplete text (the caller calibrates again), with what is wrong in why (len bytes; may be
 * NULL): the line and key at fault, or the first key missing (a cache written by an older
 * mcio lacks the newer keys). */
int mcio_cost_parse(const char *text, mcio_cost_table *t, int64_t *date, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
