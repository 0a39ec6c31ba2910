/*
 * mcio: memory-conscious collective I/O for MPI.
 *
 * Every function taking an mcio_file or mcio_plan is collective over the communicator the
 * file was opened on: all of its ranks call it, in the same order, and all of them return
 * the same status. A failure on one rank (a bad argument, a failed write) is reported on
 * every rank, with the same detailed message (see mcio_error_message()).
 *
 * Hints (MPI_Info keys, or `key value` lines in the file named by MCIO_HINTS; a key set in
 * the MPI_Info wins over the same key in the file) are documented in docs/hints.md.
 */
#ifndef MCIO_H
#define MCIO_H

#include <mpi.h>
#include <stdint.h>

#include "mcio_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCIO_VERSION_MAJOR 0
#define MCIO_VERSION_MINOR 1

/* Opaque handles. */
typedef struct mcio_file_s *mcio_file;
typedef struct mcio_plan_s *mcio_plan;
#define MCIO_FILE_NULL ((mcio_file)0)
#define MCIO_PLAN_NULL ((mcio_plan)0)

/** The generic message of a status code ("invalid hint"). Never NULL. Not collective. */
const char *mcio_strerror(int status);

/**
 * The detailed message of the last error returned to this thread ("hint cb_buffer_size:
 * value '12x' is not a byte count"), or "" after success. Valid until the next mcio call on
 * this thread. Not collective.
 */
const char *mcio_error_message(void);

/**
 * Open a file for collective access. Collective over comm.
 * @param comm  the ranks that will access the file (duplicated; the caller keeps its own)
 * @param path  file name, the same on every rank
 * @param amode MPI_MODE_* flags as for MPI_File_open
 * @param info  hints, or MPI_INFO_NULL; unknown non-mcio keys are passed to the MPI library
 * @param fh    out: the file handle, MCIO_FILE_NULL on failure
 * @return MCIO_SUCCESS or an error code, the same on every rank
 */
int mcio_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, mcio_file *fh);

/**
 * mcio_file_open in two steps, for a layer that must return from its open before the ranks meet
 * (the drop-in's MPI_File_open: a program that opens and closes files often pays no collective
 * of mcio's at open). mcio_file_open_begin is local: it takes the communicator a closed file
 * left, or starts a nonblocking duplicate of comm, and checks the arguments and hints on this
 * rank (a failure is held, not returned). mcio_file_open_end is collective: it completes the
 * open (or fails it on every rank, freeing *fh and setting it to MCIO_FILE_NULL). Between the
 * two only mcio_file_get_info, mcio_file_get_given_info and mcio_file_close (collective; it
 * opens nothing) may be called on the handle. begin fails only for a missing fh or comm
 * (MCIO_ERR_ARG) or memory for the handle (MCIO_ERR_NOMEM; then this rank cannot end the open).
 */
int mcio_file_open_begin(MPI_Comm comm, const char *path, int amode, MPI_Info info, mcio_file *fh);
int mcio_file_open_end(mcio_file *fh);

/** Close a file and set *fh to MCIO_FILE_NULL. Collective. Plans made on it must be freed first. */
int mcio_file_close(mcio_file *fh);

/** Flush the file's data to storage (MPI_File_sync / fsync by every rank that wrote). Collective. */
int mcio_file_sync(mcio_file fh);

/**
 * Collective write. Each rank names its own `count` extents (file offset, length in bytes);
 * the data of extent i follows that of extent i-1 in `buf` (list order, packed). Lists may be
 * unsorted; a rank may pass count 0 (buf may then be NULL); adjacent extents are merged.
 * A rank's extents must not overlap one another; where different ranks write the same byte,
 * which rank's value lands is undefined, as in MPI-IO. Bytes no rank names are never written.
 * @return MCIO_SUCCESS or an error code, the same on every rank
 */
int mcio_write_at_all(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                      const void *buf);

/** Collective read: the mirror of mcio_write_at_all; fills exactly the requested bytes of buf. */
int mcio_read_at_all(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                     void *buf);

/**
 * Collective write whose extent i comes from memory addrs[i] (an iovec-like list), so data
 * that is scattered in memory is sent without first being packed. Otherwise as
 * mcio_write_at_all.
 */
int mcio_writev_at_all(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                       const void *const addrs[]);

/** Collective read into memory addrs[i] for extent i. */
int mcio_readv_at_all(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                      void *const addrs[]);

/**
 * A persistent plan: the metadata exchange and planning for one access pattern, done once
 * and reused by every mcio_plan_write / mcio_plan_read (a checkpoint written every step).
 * Collective. The arrays are copied; buf is given at each use, packed as for mcio_write_at_all.
 */
int mcio_plan_create(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                     mcio_plan *plan);

/**
 * A persistent plan whose extent i lives at displs[i] bytes from the buf of each use, so that
 * data scattered in memory (a block with guard cells, a record with padding) is written and
 * read without being packed, as by mcio_writev_at_all, while the buffer may move between
 * uses. Displacements may be in any order and negative. Otherwise as mcio_plan_create.
 * Collective.
 */
int mcio_plan_createv(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                      const int64_t displs[], mcio_plan *plan);

/** Collective write of buf with a persistent plan. */
int mcio_plan_write(mcio_plan plan, const void *buf);

/** Collective read into buf with a persistent plan. */
int mcio_plan_read(mcio_plan plan, void *buf);

/** Free a plan and set *plan to MCIO_PLAN_NULL. Collective. */
int mcio_plan_free(mcio_plan *plan);

/** What the last collective call on a file did. Times are seconds, the maximum over ranks
 * (but see read_first and write_first). */
typedef struct mcio_stats {
    int op;                   /* 0: none yet, 1: write, 2: read */
    int ranks;                /* size of the file's communicator */
    int aggregators;          /* number of aggregators (file domains) */
    int rounds;               /* rounds of the busiest aggregator, in collective buffers */
    int64_t bytes;            /* bytes moved, summed over ranks */
    int64_t max_buffer_bytes; /* largest collective buffer any aggregator held */
    double t_metadata;        /* summary allgather and offset-length list exchange */
    double t_plan;            /* planning (pure computation) */
    double t_exchange;        /* data exchange between ranks and aggregators */
    double t_io;              /* file access by aggregators */
    double t_total;           /* the whole call */
    const int *aggregator_ranks; /* [aggregators]; valid until the next call on the file */
    const int *aggregator_nodes; /* [aggregators]; node index of each aggregator */
    int nodes;                   /* nodes of the machine description */
    const int64_t *node_budget_bytes; /* [nodes] memory a node may spend on collective
                                         buffers (its memory capped by mcio_node_memory), -1:
                                         unknown, no limit */
    const int64_t *node_peak_bytes;   /* [nodes] collective-buffer bytes mcio held on the node
                                         during the call (all of a plan's buffers live at once) */
    int fallbacks; /* domains the memory strategy placed with less memory than it wanted */
    /* Pipelined aggregation (mcio_pipeline_depth, mcio_transport; docs/hints.md). */
    int pipeline_depth;       /* sub-buffers in flight per aggregator asked for (1: classic) */
    int subbuffer_rounds;     /* rounds of the busiest aggregator, in sub-buffers */
    int64_t subbuffer_bytes;  /* the largest sub-buffer (the collective buffer when depth is 1) */
    double t_wait;            /* exchange stalled waiting for file access to free a sub-buffer */
    double t_overlap;         /* file access hidden behind the exchange (0 without a pipeline) */
    int io_inline;            /* 1: some aggregator's pipelined file access ran inline, without
                                 an I/O thread (mcio_io_thread; docs/hints.md) */
    /* Memory (docs/hints.md, mcio_memory_margin). */
    const int *node_memory_source; /* [nodes] where node_budget_bytes came from: 0 unknown,
                                      1 MemAvailable, 2 cgroup v1, 3 cgroup v2, 4 rlimit,
                                      5 the mcio_node_memory hint, 6 virtual */
    const int64_t *node_model_bytes; /* [nodes] the memory model's bytes for the call: buffers,
                                        staging, metadata (src/core/plan/memmodel.c) */
    const int64_t *node_predicted_peak_bytes; /* [nodes] what the node's binding cgroup held
                                                 when the call planned plus node_model_bytes;
                                                 -1 when no cgroup binds the node */
    int memory_conscious; /* 1: the default strategy (auto) planned memory-consciously because
                             the classic plan did not fit a node's memory */
    /* Metadata traffic of the call's plan, filled only when MCIO_STATS is set (-1 otherwise):
     * bytes sent summed over ranks (an allgathered record counts once per receiving rank),
     * the point-to-point list messages, the most bytes one rank received, and the list
     * messages' bytes summed over ranks (the rest is the allgathers of the ranks' summaries
     * and memory, and the count of each domain's senders). */
    int64_t metadata_bytes;
    int64_t metadata_messages;
    int64_t metadata_max_rank_bytes;
    int64_t metadata_list_bytes;
    /* The data exchange's bytes between ranks and aggregators, summed over ranks, filled only
     * when MCIO_STATS is set (-1 otherwise): between two ranks of one node, and between ranks
     * of different nodes (what crosses the network; a rank's bytes for its own domain are
     * in neither). */
    int64_t exchange_node_bytes;
    int64_t exchange_network_bytes;
    /* The cost model's choice (strategy auto; docs/hints.md, mcio_calibrate): "" when the
     * configuration was not chosen (a strategy named by the user). */
    char choice[64];           /* "independent", "romio 1/node 16m depth 2", ... */
    double predicted;          /* its predicted time, seconds (-1: not chosen) */
    char runner_up[64];        /* the next fastest candidate, "" when there was none */
    double runner_up_predicted; /* its predicted time, seconds (-1: none) */
    int node_gather; /* 1: the ranks' summaries were gathered node by node (mcio_node_gather) */
    int choice_again; /* 1: the choice of the operation's previous call, whose inputs (the
                         ranks' summaries, their extents, the nodes' memory to 1/16) were this
                         call's, taken again without deciding */
    int read_first; /* 1: a read that moved its bytes before the ranks' summaries were
                       gathered, each rank its own extents, as the previous read chose (one
                       collective instead of two; docs/hints.md, mcio_strategy). Its times
                       are this rank's; never under MCIO_STATS */
    int write_first; /* 1: the same for a write, each rank its own extents written before the
                        gather: a bad argument on another rank then fails the call on every
                        rank after those bytes are in the file (docs/reliability.md). Not
                        where writes end with a sync (mcio_write_sync) */
    int local_io;    /* 1: a call whose file access on this rank (if it had any) went through
                        the rank's own descriptor instead of the MPI library's independent
                        read or write (the file system is the node's own: mcio_local_io,
                        docs/hints.md) */
    int layers;      /* 1, or 2: the call went through each node's aggregator first
                        (mcio_layers, docs/hints.md); its ranks' bytes handed over within the
                        node count in exchange_node_bytes */
    int64_t exchange_network_messages; /* the data exchange's messages between ranks of
                        different nodes, summed over ranks (MCIO_STATS only, -1 otherwise) */
} mcio_stats;

/** Copy the statistics of the last collective call on fh. Not collective. */
int mcio_file_get_stats(mcio_file fh, mcio_stats *stats);

/**
 * The cost model's figures for fh's file system (docs/hints.md, mcio_calibrate), as text: the
 * calibration cache's "key value" lines (seconds), then "fs_type <kind>" and "source <defaults,
 * cache, probe or pinned>". Empty when the strategy is not auto (no figures were loaded).
 * Not collective. Returns MCIO_SUCCESS, or MCIO_ERR_ARG when fh or text is NULL or len is too
 * small for the text.
 */
int mcio_file_get_costs(mcio_file fh, char *text, int len);

/**
 * The hints in force on fh, with defaults filled in, as a new MPI_Info the caller frees.
 * Not collective.
 */
int mcio_file_get_info(mcio_file fh, MPI_Info *info);

/**
 * The hints set on fh as they were given, later sources winning: ROMIO's hints file (read once,
 * at the process's first open, a key's first line counting, as ROMIO reads it), the MCIO_HINTS
 * file, the info at open, then each mcio_file_set_hints. Values as written ("4m" stays "4m"),
 * keys mcio does not read included: what ROMIO's MPI_File_get_info reports for the keys a
 * program set (the drop-in layer's MPI_File_get_info reports them so). A new MPI_Info the
 * caller frees. Not collective.
 */
int mcio_file_get_given_info(mcio_file fh, MPI_Info *info);

/**
 * The next collective data call on fh from this rank (mcio_write_at_all, mcio_read_at_all and
 * their v forms) fails locally with status and detail, as a bad argument of that rank would: the
 * call's own agreement then gives every rank the status of the lowest failing rank. For a layer
 * that serves another API's calls: it declines a call (MCIO_ERR_DECLINED: this rank cannot serve
 * it) or asks for it again after a collective step of its own (MCIO_ERR_AGAIN) at no collective
 * of its own. Other ranks may have moved their bytes already (a call whose last choice was
 * independent access moves them before it agrees): a write that fails so must be written again
 * whole, a read read again. Not collective.
 */
int mcio_file_fail_next(mcio_file fh, int status, const char *detail);

/**
 * Change the file's hints after open (what MPI_File_set_info and MPI_File_set_view's info do
 * under the drop-in layer): info's pairs are applied over the hints in force, as at open, and
 * the next call uses them; plans made before keep theirs. Collective: every rank must end with
 * the same hints (a key missing or different on one rank is an error naming it), and every rank
 * returns the same status. On error no hint changes. The hints chosen at open only (the I/O
 * backend, the topology file) may be given again with the same value but not changed.
 * @param info the new hints; MPI_INFO_NULL changes nothing (but still agrees)
 * @return MCIO_SUCCESS, or MCIO_ERR_HINT naming the hint, the same on every rank
 */
int mcio_file_set_hints(mcio_file fh, MPI_Info info);

#ifdef __cplusplus
}
#endif
#endif /* MCIO_H */
