/*
 * Hints: parsed once, from strings, into a plain struct that is passed by value to whoever
 * needs it. Pure (no MPI): the engine reads the MPI_Info and the MCIO_HINTS file and feeds
 * each key/value pair to mcio_hints_set. The keys, defaults and meanings are in docs/hints.md.
 */
#ifndef MCIO_HINTS_H
#define MCIO_HINTS_H

#include <stdint.h>

#include "mcio_decide.h"
#include "mcio_layers.h"
#include "mcio_planner.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCIO_NAME_LEN 32
#define MCIO_PATH_LEN 256

/* mcio_io_thread: whether a pipelined aggregator's file access runs in an I/O thread. */
enum mcio_io_thread_mode {
    MCIO_IO_THREAD_AUTO = 0, /* a thread, unless it shares its rank's only core with file
                                access that is CPU work (mcio_pipeline.c) */
    MCIO_IO_THREAD_ALWAYS,
    MCIO_IO_THREAD_NEVER
};

/* mcio_transport: how a pipeline's data moves between ranks and aggregators. */
enum mcio_transport {
    MCIO_TRANSPORT_P2P = 0, /* two-sided: nonblocking sends and receives */
    MCIO_TRANSPORT_RMA      /* one-sided: MPI_Put / MPI_Get into the aggregators' windows */
};

/* The value of mcio_transport t ("p2p", "rma"), or NULL past the last. */
const char *mcio_transport_name(int t);

/* mcio_write_sync: whether a collective write ends with a sync of the file. */
enum mcio_write_sync_mode {
    MCIO_WRITE_SYNC_AUTO = 0, /* where the file system acknowledges writes before its servers
                                 have them (GlusterFS, NFS: mcio_fsinfo.defers_errors) */
    MCIO_WRITE_SYNC_TRUE,
    MCIO_WRITE_SYNC_FALSE
};

/* mcio_read_shift: whether a read into memory that lies 1-31 bytes past the file's offset
 * (modulo 4096) lands 32 bytes further and is moved back (mcio_io_read_shifted). */
enum mcio_read_shift_mode {
    MCIO_READ_SHIFT_AUTO = 0, /* where this host's kernel copies such memory slowly
                                 (mcio_io_copy_alias_slow) */
    MCIO_READ_SHIFT_TRUE,
    MCIO_READ_SHIFT_FALSE
};

/* mcio_node_gather: how the ranks' records reach every rank before planning. */
enum mcio_node_gather_mode {
    MCIO_NODE_GATHER_AUTO = 0, /* the node-level step from MCIO_NODE_GATHER_MIN_RANKS ranks on,
                                  where nodes hold several ranks (mcio_nodegather.c) */
    MCIO_NODE_GATHER_TRUE,     /* the node-level step wherever nodes hold several ranks */
    MCIO_NODE_GATHER_FALSE     /* one allgather over all ranks */
};

/* mcio_calibrate: the calibration probe of the file system's costs (mcio_calibrate.c). */
enum mcio_calibrate_mode {
    MCIO_CALIBRATE_AUTO = 0, /* on first use of a file system, then its cached figures */
    MCIO_CALIBRATE_OFF,      /* never: the cached figures if any, else the defaults of its kind */
    MCIO_CALIBRATE_FORCE,    /* at this open; the probe joins the cache's last ones, whose
                                medians it stands for (mcio_cost_merge) */
    MCIO_CALIBRATE_REPLACE   /* at this open, and this probe's figures replace the cache's */
};

typedef struct mcio_hints {
    int64_t cb_buffer_size; /* ROMIO's cb_buffer_size: 16 MiB */
    int cb_nodes;           /* ROMIO's cb_nodes: 0 = one aggregator per node */
    int64_t striping_unit;  /* ROMIO's striping_unit: 0 = no alignment */
    int cb_write, cb_read;  /* ROMIO's romio_cb_write / romio_cb_read: enum mcio_cb_mode */
    int strategy; /* mcio_strategy: enum mcio_strategy, auto (romio, or memory when short) */
    char io_backend[MCIO_NAME_LEN]; /* mcio_io_backend: mpiio, posix, null, slow */
    int direct_write, direct_read;  /* ROMIO's direct_write / direct_read: 0; posix, slow */
    int enable;                     /* mcio_enable: 1; 0 = the drop-in layer leaves the file alone */
    int placement;                  /* mcio_placement: enum mcio_placement, spread */
    int socket_rule;                /* mcio_socket_rule: enum mcio_socket_rule, none */
    char topology_file[MCIO_PATH_LEN]; /* mcio_topology_file: "" = MCIO_TOPOLOGY_FILE or flat */
    /* The memory strategy (docs/hints.md). */
    int nah;             /* mcio_nah: 4 */
    int64_t msgind;      /* mcio_msgind: 32 MiB */
    int64_t msggroup;    /* mcio_msggroup: 1 GiB */
    int64_t memmin;      /* mcio_memmin: 1 MiB */
    int64_t node_memory; /* mcio_node_memory: per-node budget for collective buffers; 0 = none */
    int memory_margin;   /* mcio_memory_margin: percent of a node's memory auto leaves free: 10 */
    /* Pipelined aggregation (docs/hints.md). */
    int pipeline_depth;             /* mcio_pipeline_depth: sub-buffers in flight; 1 = classic */
    int64_t subbuffer_size;         /* mcio_subbuffer_size: 0 = stripe, or block-size multiple */
    int transport;                  /* mcio_transport: enum mcio_transport, p2p */
    int io_thread;                  /* mcio_io_thread: enum mcio_io_thread_mode, auto */
    int write_sync;                 /* mcio_write_sync: enum mcio_write_sync_mode, auto */
    int read_shift;                 /* mcio_read_shift: enum mcio_read_shift_mode, auto */
    int local_io;                   /* mcio_local_io: 1 auto (each rank's own descriptor for
                                       reads and writes where the file system is the node's
                                       own, under the mpiio backend), 0 false */
    double slow_call_seconds;       /* mcio_slow_call_seconds: slow backend, delay per call */
    double slow_byte_seconds;       /* mcio_slow_byte_seconds: slow backend, delay per byte */
    int calibrate;                  /* mcio_calibrate: enum mcio_calibrate_mode, auto */
    int node_gather;                /* mcio_node_gather: enum mcio_node_gather_mode, auto */
    int write_verify;               /* mcio_write_verify: 0; 1 = read each write back */
    int layers;                     /* mcio_layers: enum mcio_layers_mode, auto */
    uint64_t set; /* bit i: hint i (mcio_hints_get's order) was set explicitly (mcio_hints_set) */
} mcio_hints;

/* The defaults. */
mcio_hints mcio_hints_default(void);

/*
 * Apply one key/value pair. Keys that are neither mcio_* nor one of ROMIO's we honour are
 * ignored (returns 0; they are meant for the MPI library). An unknown mcio_* key or a
 * malformed value returns MCIO_ERR_HINT with a message naming the key and the value.
 * `where` names the source for the message ("MPI_Info", "/path/hints:3").
 */
int mcio_hints_set(mcio_hints *h, const char *key, const char *value, const char *where,
                   char detail[MCIO_DETAIL_LEN]);

/* Parse one line of a hints file ("key value", '#' comments, blank lines). *key and *value
 * point into line, which is modified. Returns 1 for a pair, 0 for a blank/comment line, -1
 * for a malformed line. */
int mcio_hints_parse_line(char *line, char **key, char **value);

/* Write hint i (0-based) as key/value strings; returns 0 past the last. A hint that is unset
 * and has no default (mcio_topology_file) comes back with the value "". */
int mcio_hints_get(const mcio_hints *h, int i, char *key, int keylen, char *value, int valuelen);

/* Was hint key set explicitly (by mcio_hints_set), rather than left at its default? */
int mcio_hints_is_set(const mcio_hints *h, const char *key);

/* The planning parameters the hints imply, for a write (write = 1) or a read. */
mcio_planner_params mcio_hints_planner_params(const mcio_hints *h, int write);

/* The choices the user made for a write (write = 1) or a read, which the cost model leaves
 * alone (enum mcio_cost_fixed): the hints set explicitly, and the pipeline depth under the rma
 * transport (it runs the pipelined executor). */
unsigned mcio_hints_cost_fixed(const mcio_hints *h, int write);

/* The hints a call of the operation is decided with (mcio_decide), stripe the one it aligns
 * on (mcio_fs_align_stripe: the striping_unit hint, else a write's file system's), fixed what
 * the user set (mcio_hints_cost_fixed: the engine keeps it from when the hints were set). */
mcio_decide_hints mcio_hints_decide(const mcio_hints *h, int write, int64_t stripe,
                                    unsigned fixed);

/* Does each collective write end with a sync (mcio_write_sync; auto: where the file system
 * acknowledges writes before its servers have them, mcio_fsinfo.defers_errors; always when
 * mcio_write_verify reads the write back)? */
int mcio_hints_write_sync(const mcio_hints *h, int defers_errors);

#ifdef __cplusplus
}
#endif

#endif
