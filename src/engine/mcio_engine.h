/*
 * Engine internals: the file and plan handles, and the functions that communicate.
 * Everything here that talks to other ranks says so in its name or its comment.
 */
#ifndef MCIO_ENGINE_H
#define MCIO_ENGINE_H

#include <stddef.h>
#include <stdio.h>

#include "mcio.h"
#include "mcio_costmodel.h"
#include "mcio_decide.h"
#include "mcio_fsinfo.h"
#include "mcio_hints.h"
#include "mcio_io.h"
#include "mcio_machine.h"
#include "mcio_memory.h"
#include "mcio_planner.h"

/* The collective buffer. Its bytes matter on real machines only: in the simulation build
 * (SimGrid's SMPI) it is one allocation that all ranks share (SMPI_SHARED_MALLOC), since the
 * simulated storage keeps no data and thousands of private buffers would not fit in one host.
 * Nothing else is shared: lists and plans must stay each rank's own. */
#ifdef MCIO_SIMULATE
#define MCIO_CBUF_MALLOC(n) mcio_sim_buffer_alloc(n) /* counted on the node: memory model */
#define MCIO_CBUF_FREE(p) mcio_sim_buffer_free(p)
#else
#define MCIO_CBUF_MALLOC(n) malloc(n)
#define MCIO_CBUF_FREE(p) free(p)
#endif

/* Memory of a piece: base + displacement, where base may be NULL (absolute displacements). */
#define PIECE_ADDR(base, mem) ((char *)((uintptr_t)(base) + (uintptr_t)(mem)))

/* Nanoseconds since t0 (a PMPI_Wtime reading): the engine's phase times. */
static inline int64_t ns_since(double t0)
{
    return (int64_t)((PMPI_Wtime() - t0) * 1e9);
}

/* What each rank tells the others before planning: its summary, its argument check and its
 * memory, allgathered as MCIO_RECORD_WORDS int64 per rank (so a bad argument on one rank fails
 * every rank, and the memory probe costs no collective of its own). A call that moved its
 * bytes first (mcio_engine_bytes_first) gathers it after them: the status is then its file
 * access's too. */
enum { MCIO_RECORD_WORDS = 5 + MCIO_PROBE_FIELDS };
typedef struct mcio_rank_record {
    int64_t start, end, bytes;     /* as mcio_summary */
    int64_t status;                /* this rank's argument check: MCIO_SUCCESS or an error */
    int64_t mem[MCIO_PROBE_FIELDS]; /* mcio_machine_memory_read */
    int64_t calls;                 /* its own access's system calls (mcio_own_calls) */
} mcio_rank_record;
_Static_assert(sizeof(mcio_rank_record) == MCIO_RECORD_WORDS * sizeof(int64_t),
               "allgathered as MCIO_RECORD_WORDS MPI_INT64_T");

/* The times of one collective call, in nanoseconds, agreed as the slowest rank's (an allreduce
 * of the array v); io_inline is a flag (the pipeline ran its file access inline). */
enum { MCIO_CALL_TIMES = 8 };
typedef union mcio_call_times {
    struct {
        int64_t metadata, plan, exchange, io, total, wait, overlap, io_inline;
    };
    int64_t v[MCIO_CALL_TIMES];
} mcio_call_times;

/* The node-level step of the summaries' allgather (mcio_nodegather.c). */
typedef struct mcio_node_gather {
    int on;              /* 0: the flat allgather */
    MPI_Comm node;       /* this rank's node, ranks in rank order */
    MPI_Comm leaders;    /* the nodes' lowest ranks; MPI_COMM_NULL on the others */
    int node_index;      /* this rank's node */
    int *counts, *displs; /* leaders, [nnodes]: each node's block of records, in bytes */
    char *stage;         /* real build: [nprocs] records in node order */
    size_t record;
} mcio_node_gather;

/* What a file keeps for its two-layer calls (mcio_twolayer.c), made at its first one; freed
 * with the node gather's state (mcio_twolayer_free, mcio_nodegather.c), whose communicator
 * it may share. */
struct mcio_layer_state {
    MPI_Comm node;     /* the node's ranks, in rank order (the node gather's, or own) */
    int own;           /* node is this state's own, freed with it */
    int nrank, nsize;
    int64_t *fig;      /* node aggregator: [2 * nsize] each rank's pieces and bytes */
    int *counts, *displs; /* node aggregator: [nsize] the lists' gather, in int64 words */
    MPI_Request *reqs; /* [nsize] the hand-over's messages */
    MPI_Datatype *sinks; /* [nsize] their stand-ins' types (mcio_sink_irecv), or NULL types */
};

/* Whether mcio_node_gather mode (enum mcio_node_gather_mode) takes the node-level step on a
 * machine of nprocs ranks on nnodes nodes. Pure. */
int mcio_node_gather_wanted(int mode, int nprocs, int nnodes);

/* Collective over comm, at open: the node and leader communicators when the step is wanted
 * (g->on), else nothing. MCIO_SUCCESS or MCIO_ERR_NOMEM, the same on every rank. */
int mcio_node_gather_init(MPI_Comm comm, const mcio_machine *m, int mode, size_t record,
                          mcio_node_gather *g);
void mcio_node_gather_free(mcio_node_gather *g);

/* Collective over comm, g->on: every rank's record of g->record bytes, in rank order. */
#ifdef MCIO_SIMULATE
void *mcio_node_gather_run(const mcio_node_gather *g, const mcio_machine *m, mcio_sim_gather *sg,
                           const void *mine);
#else
void mcio_node_gather_run(const mcio_node_gather *g, const mcio_machine *m, const void *mine,
                          void *all);
#endif

/* The bytes this rank sends and receives in one node-level gather (MCIO_STATS). Local. */
int64_t mcio_node_gather_sent(const mcio_node_gather *g, const mcio_machine *m);
int64_t mcio_node_gather_received(const mcio_node_gather *g, const mcio_machine *m);


#ifdef MCIO_SIMULATE
/*
 * The simulation build's plan of a call, made once for the simulated ranks of the file's
 * communicator (mcio_twophase.c): the planning's pure part (the domains, aggregators and rounds
 * from the allgathered summaries, and the memory model of the plan) gives the same result on
 * every rank, and all simulated ranks run in one process, so that at 16,384 ranks every rank's
 * planning from 16,384 summaries was done 16,384 times. The first rank to plan a call keeps
 * its results here, in the derived area of the summaries' gather of that call (one per gather,
 * two alternating, as the table: mcio_machine_sim.h); the others copy them. The arrays are the
 * keeper's allocations on the one heap: freed by the rank that reuses the area two gathers
 * later, or by the file's last rank at close (mcio_engine_shared_plans_free).
 */
typedef struct mcio_shared_plan {
    unsigned gen;         /* the summaries' gather this entry is of (0: none yet) */
    int write;
    int planned, modelled; /* which of the two parts is kept */
    int plan_status, model_status;
    mcio_fdplan fd;       /* plan_domains' results */
    int *slots;
    int own_access, depth, cb_rounds, chose;
    int64_t total_bytes;
    mcio_cost_choice choice;
    mcio_chosen chosen;   /* the file's choice for the operation after planning (strategy auto) */
    int64_t *mem_model;   /* [2 * nnodes] mcio_stats_model's */
    int combined;         /* the node figures of mcio_file_memory_combine, [nnodes] each */
    int64_t *node_mem, *node_mem_used;
    int *node_mem_source, *which;
} mcio_shared_plan;

/* The shared plan of fh's last gather of the summaries, for an operation (write); NULL when it
 * is another operation's, which a collective call cannot meet. The first rank to ask in a
 * gather clears what the entry held two gathers before. Local. */
mcio_shared_plan *mcio_engine_shared_plan(mcio_file fh, int write);

/* mcio_file_memory_combine once per call: the first rank computes the node figures into e,
 * the others copy them; the paths still go to rank 0 from every rank (path, as there). */
void mcio_file_memory_combine_shared(mcio_file fh, const char *path, mcio_shared_plan *e);

/* Local: what the file's shared plans hold, freed; by the last rank of the file only. */
void mcio_engine_shared_plans_free(mcio_file fh);
#endif

/* A private duplicate of a user communicator with what was found on it, given back by a file's
 * close and taken by the next open on that communicator (mcio_kept.c). */
typedef struct mcio_kept {
    MPI_Comm comm;             /* MPI_COMM_NULL while a file holds it */
    mcio_machine machine;      /* detected on comm; nprocs 0: none */
    int cost_ok;               /* cost, cost_source, cost_date, cost_kept hold a table */
    char cost_key[MCIO_PATH_LEN + 128]; /* what it was read for (rank 0's) */
    mcio_cost_table cost;
    int cost_source, cost_kept;
    int64_t cost_date;
    char cost_file[MCIO_PATH_LEN + 96]; /* the cache the online check's corrections go to */
    struct mcio_kept_pool *pool;
    struct mcio_kept *next;
} mcio_kept;

/* Local: comm's kept handle if its pool has one, else a new empty one (comm MPI_COMM_NULL),
 * NULL without memory. Every rank of an open takes alike: pools change only in opens and
 * closes, which are collective. */
mcio_kept *mcio_kept_take(MPI_Comm comm);
/* Local: k back to its pool when it holds a communicator and its user communicator is still
 * there, else freed. */
void mcio_kept_give(mcio_kept *k);
void mcio_kept_free(mcio_kept *k);

struct mcio_file_s {
    MPI_Comm comm; /* private duplicate: our messages never meet the application's */
    MPI_Request comm_ready; /* comm's nonblocking duplication, until the open's end waits */
    int opening;            /* begun (mcio_file_open_begin), not yet ended */
    int open_status;        /* the begin's checks on this rank, which the end agrees */
    char open_detail[MCIO_DETAIL_LEN];
    mcio_kept *kept; /* where comm, the machine and the costs go at close; NULL: nowhere */
    int rank, nprocs;
    int amode;
    int can_read; /* the backend may read (read-modify-write of holes is possible) */
    char *path;
    mcio_hints hints;
    MPI_Info given; /* the hints as the program set them, value strings as given (hints files,
                       info at open, mcio_file_set_hints), later sources winning: what
                       mcio_file_get_info reports for those keys */
    int io_inline; /* mcio_io_thread auto: the pipeline's file access learned to run inline,
                      without its I/O thread (mcio_pipeline.c) */
    mcio_machine machine;
    const mcio_io_backend *io;
    void *io_state;
    void *local;     /* this rank's own descriptor (mcio_io_posix's state), where the file
                        system is the node's own and io is mpiio (mcio_local_io), or NULL */
    int local_read;  /* reads go through it (it is readable, and not direct_read) */
    int local_write; /* writes go through it (it is writable, and not direct_write) */
    int live_plans;
    int fail_next;                         /* mcio_file_fail_next's status, 0: none */
    char fail_detail[MCIO_DETAIL_LEN];     /* and its detail */
    mcio_rank_record *summaries; /* [nprocs]: allgather buffer, allocated at open so a call
                                    never fails before it (mcio_file_gather_records) */
#ifdef MCIO_SIMULATE
    mcio_sim_gather sim_summaries; /* summaries kept once for all simulated ranks */
#endif
    mcio_node_gather node_gather; /* how the summaries are gathered (mcio_node_gather hint) */
    char *stats_path; /* MCIO_STATS, rank 0 only; NULL when unset */
    FILE *stats_out;  /* it, opened at the first line and kept until close (an open and a
                         close of it at every call cost more than the line) */
    int stats_on;     /* MCIO_STATS is set (every rank: they gather the aggregators' bytes) */
    int64_t *stats_gathered; /* rank 0, [nprocs]: bytes each rank aggregated in the last call */
    int64_t meta_totals[7];  /* rank 0: the last call's metadata bytes and messages summed over
                                ranks, the busiest rank's received bytes, the list messages'
                                bytes summed over ranks, the exchange's bytes within and
                                between nodes summed over ranks, and its messages between
                                nodes (MCIO_STATS) */
    mcio_stats stats; /* its choice and runner_up are named when read (mcio_stats_name) */
    mcio_cost_choice stats_choice; /* the last call's choice (stats.predicted >= 0: it chose) */
    int *stats_aggs, *stats_nodes;
    /* [nnodes] what a node may spend on collective buffers: its memory (machine description)
     * capped by the mcio_node_memory hint; INT64_MAX when neither is known. */
    int64_t *node_budget;
    int *node_source; /* [nnodes] enum mcio_memory_source of node_budget */
    int64_t *stats_budget, *stats_peak; /* [nnodes] of the last call, -1 for no limit */
    int64_t *stats_model;     /* [nnodes] the memory model's bytes of the last call (src/plan) */
    int64_t *stats_predicted; /* [nnodes] its predicted peak: what the binding cgroup held at
                                 the call plus the model's bytes; -1 when no cgroup binds */
    int64_t fs_block; /* the file system's block size (statvfs at open; 4096 when unknown) */
    mcio_fsinfo fs;   /* the file system and its stripe size (rank 0 probes at open) */
    mcio_cost_table cost; /* the cost model's figures for this file system (mcio_calibrate.c) */
    int cost_source;      /* enum mcio_cost_source */
    int64_t cost_date;    /* when they were measured (seconds since the epoch), 0: never */
    int cost_kept;        /* figures this open's probe measured more than twice the cache's
                             (mcio_cost_merge) */
    char cost_file[MCIO_PATH_LEN + 96]; /* rank 0: the calibration cache the table came from or
                                           went to ("": none, or a pinned table) */
    int cost_learned;     /* the online check corrected a configuration (mcio_cost_observe):
                             rank 0 keeps the corrections in cost_file at close */
    char *cbuf_kept;      /* the last call's collective buffer, kept for the next (its pages
                             already faulted in: mcio_twophase.c), or NULL */
    size_t cbuf_kept_len; /* its bytes */
    /* Strategy auto: the last choice of each operation ([0] read, [1] write) and the key of
     * the inputs it was made from (mcio_twophase.c, choice_key); mcio_file_set_hints forgets
     * them. */
    mcio_chosen chosen[2];
    int bytes_first[2];  /* [write]: the operation's next one-shot call moves its bytes before
                            the summaries' gather (mcio_engine_bytes_first); the same on
                            every rank */
    int stats_deferred;  /* the last call moved its bytes first, and its statistics are still
                            to be made from its records (mcio_engine_bytes_first_stats): its
                            operation as mcio_stats.op (1 write, 2 read), else 0 */
    mcio_call_times deferred_times; /* its times, this rank's */
    uint64_t memory_key; /* the memory words of the records last combined (mcio_twophase.c) */
    int memory_combined; /* 1: memory_key holds */
    unsigned cost_fixed[2]; /* [write] what the hints fix for the cost model (mcio_hints_cost_fixed),
                               found when they are set, not every call */
    /* Two-layer aggregation (mcio_twolayer.c): its node communicator and buffers, made at the
     * file's first two-layer call (NULL before); the last call's layers, this rank's bytes
     * handed to or from its node aggregator, and the last auto decision's prices. */
    struct mcio_layer_state *layer;
    int layers_last;
    int64_t layer_bytes;
    mcio_layers_price layers_price;
    int crowded; /* this rank's node holds more ranks than online cores: 2, else 1; 0 not yet
                    known (mcio_rounds.c, exchange_wait) */
};

/* Where a file's cost table came from. */
enum mcio_cost_source {
    MCIO_COST_DEFAULTS = 0, /* the defaults of the file system's kind (mcio_cost_defaults) */
    MCIO_COST_CACHE,        /* the calibration cache of the file system */
    MCIO_COST_PROBED,       /* the probe, run at this open */
    MCIO_COST_PINNED        /* the file MCIO_CALIBRATION names */
};
const char *mcio_cost_source_name(int s);

/* Release the collective buffer the file handle keeps between calls (at close, and where
 * memory is short). */
void mcio_engine_cbuf_release(mcio_file fh);

/*
 * Collective, at open: the cost table of the file's file system, into fh->cost: the file
 * MCIO_CALIBRATION names if set and valid; else the cache (unless mcio_calibrate=force); else
 * the probe (unless mcio_calibrate=off), whose result is cached; else the defaults of the
 * kind. A topology file's latency and bandwidth replace the message costs. The host's copy and
 * datatype costs are measured once per process, the collective's once per comm (the program's
 * communicator, which keeps it as an attribute). Never fails.
 */
void mcio_calibrate_file(mcio_file fh, const char *path);

/*
 * Rank 0, at close: the corrections the file's calls learned (fh->cost_learned), written into
 * the calibration cache they were read from, so that the next process starts from them. A cache
 * that cannot be read or written is left as it is. Not collective; never fails.
 */
void mcio_calibrate_keep_learned(mcio_file fh);

/*
 * Collective: the calibration probe, in a temporary file of directory dir (removed after).
 * Returns 0 and the measured table, or MCIO_ERR_IO (every rank alike; *out then holds the
 * defaults of the kind) when the file cannot be made or accessed.
 */
int mcio_calibrate_run(mcio_file fh, const char *dir, mcio_cost_table *out);

/* A plan: the metadata exchange and planning of one access pattern, done once. */
/* The sink of receives without room (mcio_sink_irecv), bytes. */
#define MCIO_SINK_BYTES 4096

struct mcio_plan_s {
    mcio_file fh;
    mcio_extent *ext; /* this rank's normalized extents; mem relative to the call's base */
    int64_t next;
    int64_t total_bytes; /* over all ranks */
    mcio_fdplan fd;
    mcio_groups send;  /* this rank's pieces, by (round, domain) */
    int my_domain;     /* the domain this rank aggregates, or -1 */
    mcio_groups recv;  /* the aggregator's pieces, by (round, sender); empty unless my_domain >= 0 */
    int own_access;    /* romio_cb_write/read disable: no aggregation, each rank accesses its
                          own pieces (fd then lists them, one domain per rank, for the stats) */
    char *cbuf;        /* the collective buffer, fd.window[my_domain] bytes at most */
    char *cbuf_mem;    /* its allocation (cbuf may start a few bytes in: direct I/O) */
    size_t cbuf_cap;   /* the allocation's bytes (a kept buffer may be larger than needed) */
    int64_t cbuf_len;
    mcio_piece *runs;  /* scratch for one round: its runs, datatype arrays, requests */
    int *blocklens;
    MPI_Aint *displs;
    MPI_Request *reqs;
    MPI_Datatype *types;
    void **standin;    /* [requests of a round] stand-in receive buffers of a failed exchange,
                          NULL otherwise (mcio_exchange_round) */
    double t_metadata, t_plan;
    /* This rank's metadata traffic while the plan was made (MCIO_STATS' metadata_*): bytes
     * sent and received (an allgather counts its record once per other rank) and the
     * point-to-point list messages sent, and the bytes of those messages. */
    int64_t meta_sent, meta_recv, meta_msgs, meta_list;
    int cb_rounds;            /* rounds of the busiest aggregator in collective buffers (stats) */
    int *slots;               /* [ndomains] sub-buffers in flight (pipelined plans), else NULL */
    struct mcio_pipe *pipe;   /* the pipelined executors' state (mcio_pipeline.c), else NULL */
    int64_t *mem_model;       /* [2 * nnodes] the memory model's bytes per node, then its
                                 predicted peak (-1: no cgroup binds the node) (mcio_stats.c) */
    int depth;                /* the pipeline depth this plan runs with (the hint, or chosen) */
    int chose;                /* 1: the cost model chose the configuration (strategy auto);
                                 2: it took again an earlier call's choice for the same inputs */
    int bytes_first;          /* a call that moved its bytes before the summaries' gather
                                 (mcio_engine_bytes_first) */
    mcio_cost_choice choice;  /* what it chose, and the runner-up, with predicted times */
    /* Last, and left out of the plan's zeroing (mcio_engine_plan): a call's plan is made anew
     * every call, and its bytes are never read. */
    char sink[MCIO_SINK_BYTES]; /* stand-in receives without memory (mcio_sink_irecv) */
};
_Static_assert(offsetof(struct mcio_plan_s, sink) + MCIO_SINK_BYTES == sizeof(struct mcio_plan_s),
               "the sink is the plan's last field");

/*
 * Collective over the file's communicator, and only when MCIO_STATS is set: gather to rank 0
 * the bytes each aggregator moved in the call (its received pieces), for the statistics'
 * aggregator_bytes, which the simulation test compares with the real builds'.
 */
void mcio_stats_gather_aggregator_bytes(mcio_file fh, mcio_plan p);

/* Collective over the file's communicator, and only when MCIO_STATS is set: reduce to rank 0
 * the plan's metadata traffic (its total over ranks, and the busiest rank's received bytes). */
void mcio_stats_gather_metadata(mcio_file fh, mcio_plan p);

/* Local: what the two gathers above fill, zeroed (a failed call gathers nothing). */
void mcio_stats_clear_gathered(mcio_file fh);

/* Local: the memory model's bytes and predicted peak of plan p per node (p->mem_model), from
 * the summaries of the call and the plan as the engine will run it. 0 or MCIO_ERR_NOMEM. */
int mcio_stats_model(mcio_file fh, mcio_plan p);

/*
 * The node budgets again from the memory records in the call's allgathered summaries
 * (mcio_machine_memory_combine); path: this rank's cgroup path, read with the record (gathered
 * to rank 0 under MCIO_STATS: then collective). Cannot fail.
 */
void mcio_file_memory_combine(mcio_file fh, const char *path);
/* Each node's budget: its memory (the machine description's last probe) capped by the
 * mcio_node_memory hint, and where the figure came from (mcio_gather.c). Local. */
void mcio_engine_node_budgets(mcio_file fh);

/* Collective: allgather every rank's record into fh->summaries (in the simulation build, a
 * table shared by the simulated ranks, mcio_machine_sim.h: valid until the next call). */
void mcio_file_gather_records(mcio_file fh, const mcio_rank_record *mine);

/* Two-layer aggregation (mcio_twolayer.c). Collective in mcio_layers auto (two small
 * allreduces of each rank's figures), local otherwise: 1 or 2, the same on every rank, for a
 * one-shot call of these extents. */
int mcio_twolayer_layers(mcio_file fh, int write, int64_t count, const int64_t *off,
                         const int64_t *len);
/* Collective: a one-shot call through the node aggregators; arguments and result as
 * mcio_engine_plan's and mcio_engine_run's together (base: the user's buffer). */
int mcio_twolayer_call(mcio_file fh, int write, int64_t count, const int64_t *off,
                       const int64_t *len, const int64_t *mem, char *base, int st,
                       const char *local, char detail[MCIO_DETAIL_LEN]);
/* Local: what the file's first two-layer call made, released (at close). */
void mcio_twolayer_free(mcio_file fh);

/* Record status and detail as this thread's last error; returns status. */
int mcio_error_set(int status, const char *detail);

/*
 * Collective: agree on the outcome of a phase. Every rank passes its own status and detail;
 * all return the status of the lowest-ranked failing rank, with its detail copied into detail.
 * maxvals[0..nvals) are replaced by their maximum over ranks (piggy-backed timings).
 */
int mcio_engine_agree(MPI_Comm comm, int status, char detail[MCIO_DETAIL_LEN], int64_t *maxvals,
                      int nvals);

/* Local: does this rank's node hold more ranks than online cores? Found once per file
 * (virtual nodes share one host: all the file's ranks count). */
int mcio_engine_node_crowded(mcio_file fh);

/* Local: wait for n requests, yielding the processor between polls; nap: napping 50 us
 * between them once it has waited 0.5 ms, for a rank with nothing to aggregate on a crowded
 * node (mcio_rounds.c says why). Requests in error are not reported: the caller agrees. */
void mcio_engine_wait(MPI_Request *reqs, int n, int nap);

/* Collective, the Bcast of mcio_engine_agree: every rank knows that root (the lowest failing
 * rank) failed; all return root's status, with its detail copied into detail. */
int mcio_engine_agree_from(MPI_Comm comm, int root, int status, char detail[MCIO_DETAIL_LEN]);

/* mcio_file_hints.c. Local. The hints of an open (ROMIO_HINTS, MCIO_HINTS, then info) over the
 * defaults into h, recorded as set in given; info's pairs over h (recorded in given unless
 * MPI_INFO_NULL), `where` naming the source in messages. */
int mcio_file_read_hints(MPI_Info info, mcio_hints *h, MPI_Info given, char detail[MCIO_DETAIL_LEN]);
int mcio_file_apply_info(MPI_Info info, mcio_hints *h, MPI_Info given, const char *where,
                         char detail[MCIO_DETAIL_LEN]);

/*
 * Collective: a one-shot call whose bytes move before the summaries' gather
 * (fh->bytes_first[write]: the operation's last call went to each rank's own access, and the
 * ranks' summaries were those of its choice). Each rank reads or writes its own extents, then
 * one allgather of the records (status included) agrees on the outcome; the records tell
 * whether the operation's next call may move its bytes first too. Returns the agreed status.
 * Arguments as mcio_engine_plan's.
 */
int mcio_engine_bytes_first(mcio_file fh, int write, int64_t count, const int64_t *off,
                            const int64_t *len, const int64_t *mem, char *base, int local_status,
                            const char *local_detail, char detail[MCIO_DETAIL_LEN]);

/* Local: the statistics of the last call, if it moved its bytes first and its statistics were
 * left for when they are asked for (mcio_file_get_stats; a later call's replace them). */
void mcio_engine_bytes_first_stats(mcio_file fh);

/* The ranks' summaries of the call as an array of nprocs + 1 (NULL: out of memory). Local. */
mcio_summary *mcio_engine_summaries(const mcio_file fh);
/* The gathered records' own-access calls per rank (mcio_topology.rank_calls), malloc'd; NULL
 * when out of memory. */
int64_t *mcio_engine_rank_calls(const mcio_file fh);

/*
 * Collective: build a plan. mem[i] is extent i's memory displacement (packed offset, or an
 * absolute address for the v-forms). write: the plan is for writes (a rank's overlapping
 * extents are refused; romio_cb_write applies, else romio_cb_read). Persistent plans are made
 * for writes. run_next: the caller runs the plan at once (mcio_engine_run, agreed = 1) when this
 * succeeds, with nothing collective between (a one-shot call): an independent plan may then
 * leave the agreement on planning to the run's final one, and a rank that fails here has met
 * the others' final agreement. local_status/local_detail: this rank's argument check, agreed
 * on here. The plan is made in the caller's storage p (a one-shot call's is on its stack): on
 * success mcio_engine_plan_clear releases what it holds, on failure nothing is held.
 */
int mcio_engine_plan(mcio_file fh, int64_t count, const int64_t *off, const int64_t *len,
                     const int64_t *mem, int write, int run_next, int local_status,
                     const char *local_detail, mcio_plan p, char detail[MCIO_DETAIL_LEN]);

/*
 * Collective: run a plan. write: 1 write, 0 read. base: memory base the plan's mem is relative
 * to (NULL when displacements are absolute addresses). agreed: the ranks already agreed that
 * every local_status is success (the plan was just built); otherwise they agree first.
 */
int mcio_engine_run(mcio_plan plan, int write, char *base, int agreed, int local_status,
                    const char *local_detail, char detail[MCIO_DETAIL_LEN]);

/* Where an executor's time went on this rank, in nanoseconds. */
typedef struct mcio_exec_times {
    int64_t exchange; /* moving data between ranks (the main thread) */
    int64_t io;       /* file access (the I/O thread when there is one) */
    int64_t wait;     /* the main thread waiting for file access to free or fill a sub-buffer */
    int64_t overlap;  /* file access hidden behind the exchange: io - wait when they overlap */
    int64_t io_inline; /* 1: a pipelined aggregator accessed the file inline (mcio_io_thread) */
} mcio_exec_times;

/*
 * An executor moves a plan's data: the classic rounds (mcio_rounds.c) and the pipelines
 * (mcio_pipeline.c). run() returns the status of this rank's file access (the caller agrees on
 * it) and fills *t. It must not return before every message it posted has completed, whatever
 * failed, so that no rank is left waiting.
 */
typedef struct mcio_executor {
    const char *name;
    int (*run)(mcio_plan plan, int write, char *base, mcio_exec_times *t,
               char detail[MCIO_DETAIL_LEN]);
} mcio_executor;

extern const mcio_executor mcio_exec_rounds;
extern const mcio_executor mcio_exec_own; /* own_access plans (mcio_rounds.c) */
extern const mcio_executor mcio_exec_pipeline;

/* The executor of an aggregated plan: pipelined when its depth > 1 or mcio_transport=rma. */
const mcio_executor *mcio_executor_of(mcio_plan p);

/*
 * The two-sided exchange of round k (mcio_rounds.c), for both executors: receive groups
 * [gr, gr1) into or from the aggregator's round buffer cbuf, send groups [gs, gs1) from or
 * into user memory at base; this rank's pieces for its own domain are copied between them,
 * unless direct (already moved between user memory and the file). Communicates (nonblocking
 * point to point, then a wait that yields the processor). A message that cannot be posted as
 * planned (its datatype, its post) is replaced by a stand-in so that its peer is not left
 * waiting; returns the first such failure with detail ("round k: ..."), MCIO_SUCCESS
 * otherwise; every message is completed either way.
 */
int mcio_exchange_round(mcio_plan p, int write, char *base, char *cbuf, int k, int64_t gs,
                        int64_t gs1, int64_t gr, int64_t gr1, int direct,
                        char detail[MCIO_DETAIL_LEN]);

/*
 * The datatype (not committed) of n pieces, piece i at base + pc[i].mem (at_off 0: the pieces
 * in memory) or at base + pc[i].off (at_off 1: the pieces in a window, base then the
 * displacement of offset 0); regular runs of pieces become hvectors (mcio_rounds.c). Uses
 * p->blocklens and p->displs (n entries) as scratch. *step names the MPI call that made it or
 * failed. Returns an MPI error code.
 */
int mcio_pieces_type(mcio_plan p, const mcio_piece *pc, int64_t n, char *base, int at_off,
                     MPI_Datatype *type, const char **step);

/*
 * Post a receive of a message of bytes bytes (elements elem of elem_size bytes, as sent) from
 * peer that has no room: every MCIO_SINK_BYTES block of it lands on sink, which must hold
 * MCIO_SINK_BYTES and outlive the request; *type (committed here) is freed by the caller after
 * the wait. Never writes outside sink, unlike a truncating receive (mcio_rounds.c). Returns an
 * MPI error code (on failure nothing is posted and *type is not set).
 */
int mcio_sink_irecv(void *sink, int64_t bytes, MPI_Datatype elem, int elem_size, int peer, int tag,
                    MPI_Comm comm, MPI_Datatype *type, MPI_Request *req);

/* After a write's sync (mcio_write_verify): this rank's extents read back from the file past
 * the client's cache and compared with the memory at base (mcio_verify.c). MCIO_SUCCESS, or
 * MCIO_ERR_IO / MCIO_ERR_NOMEM with detail naming the file and the first wrong offset. */
int mcio_verify_written(mcio_plan p, const char *base, char detail[MCIO_DETAIL_LEN]);

/* Do the runs of a round have holes small enough to read-modify-write its whole span? */
int mcio_round_use_span(const mcio_piece *runs, int64_t nruns);

/* The file access of one round of an aggregator, for both executors (rounds, pipeline): write
 * (write = 1) the n runs of buf (runs[i].mem is the run's place in buf) to the file, or read
 * them into buf; span: as one access from the first run to the end of the last
 * (read-modify-write of small holes, mcio_round_use_span). Returns the backend's status. */
int mcio_round_access(mcio_file fh, int write, char *buf, const mcio_piece *runs, int64_t n,
                      int span, char detail[MCIO_DETAIL_LEN]);

/* Pipelined plans (mcio_pipeline.c), called by mcio_engine_plan. Local: the per-round runs of
 * the aggregator and scratch; 0 or MCIO_ERR_NOMEM. */
int mcio_pipeline_prepare(mcio_plan p);
/* Collective: expose the collective buffers as an RMA window (mcio_transport=rma). */
int mcio_pipeline_open_window(mcio_plan p, char detail[MCIO_DETAIL_LEN]);
/* Free the pipelined state; collective when the plan holds an RMA window. */
void mcio_pipeline_free(mcio_plan p);

/* Does a read (write) of the file go through this rank's own descriptor (mcio_local_io)? */
static inline int mcio_file_goes_local(const struct mcio_file_s *fh, int write)
{
    return fh->local && (write ? fh->local_write : fh->local_read);
}

/* The backend, and its state in *state, that a read (write) of the file goes through: this
 * rank's own descriptor where it has one for the operation (mcio_local_io), else the file's
 * backend. */
static inline const mcio_io_backend *mcio_file_access(const struct mcio_file_s *fh, int write,
                                                      void **state)
{
    int local = mcio_file_goes_local(fh, write);
    *state = local ? fh->local : fh->io_state;
    return local ? &mcio_io_posix : fh->io;
}

/* Local: sync the file's data: the backend's sync, or, where the backend's own handle was left
 * out (every access through the ranks' own descriptors), this rank's descriptor's. 0 or
 * -errno. */
int mcio_file_backend_sync(mcio_file fh);

/* Does each collective write end with a sync (mcio_hints_write_sync)? */
static inline int mcio_file_write_sync(const struct mcio_file_s *fh)
{
    return mcio_hints_write_sync(&fh->hints, fh->fs.defers_errors);
}

/* Do reads into memory 4K-aliased with the file land 32 bytes on and move back
 * (mcio_read_shift; auto: where this host's kernel copies such memory slowly)? */
static inline int mcio_file_read_shift(const struct mcio_file_s *fh)
{
    return fh->hints.read_shift == MCIO_READ_SHIFT_TRUE ||
           (fh->hints.read_shift == MCIO_READ_SHIFT_AUTO && mcio_io_copy_alias_slow());
}

/* Message tags on the file's private communicator. */
enum { MCIO_TAG_LIST = 1, MCIO_TAG_DATA = 2 };

/* Tests only (tests/mpi/mpi_errors.c): the next calls plannings on this rank fail as an
 * allocation would, before the cost model decides (so the rank cannot know whether the others
 * aggregate). Local. */
void mcio_engine_fail_planning(int calls);

/* Free a plan's memory (collective when it holds an RMA window, mcio_transport=rma). */
void mcio_engine_plan_clear(mcio_plan plan); /* what the plan holds; not the plan itself */
void mcio_engine_plan_free(mcio_plan plan);  /* a persistent plan: cleared, then freed */

/* Record the stats of a finished call on the file, and append them to MCIO_STATS (rank 0). */
void mcio_stats_record(mcio_file fh, mcio_plan plan, int write, const mcio_call_times *t);
/* s->choice and s->runner_up named from fh's last choice: when read, not every call. */
void mcio_stats_name(const mcio_file fh, mcio_stats *s);

#endif
