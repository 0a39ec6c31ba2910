/*
 * What the job runs on: which node and socket each rank of a communicator sits on.
 * Detected (nodes from MPI_Comm_split_type shared, sockets from the CPU each rank runs on,
 * through hwloc) or virtual: MCIO_VIRTUAL_RANKS_PER_NODE=k makes ranks [0,k) node 0, [k,2k)
 * node 1, ..., and MCIO_VIRTUAL_SOCKETS_PER_NODE=s splits each node's ranks into s sockets in
 * order ("accumulated" binding: consecutive ranks fill a socket first), so one host can act
 * as many nodes and every node-dependent path can be tested on it.
 * Memory per node (mcio_memory.h): the tightest of MemAvailable, the ranks' memory cgroups
 * and their rlimits, read by every rank at open (mcio_machine_probe_memory) and again at each
 * call that plans, then by one rank per node and cgroup, the reader, whose figures stand for
 * the others' (each still reads its own rlimits), or virtual (MCIO_VIRTUAL_NODE_MEMORY).
 */
#ifndef MCIO_MACHINE_H
#define MCIO_MACHINE_H

#include <mpi.h>

#include "mcio_network.h"
#include "mcio_planner.h"
#ifdef MCIO_SIMULATE
#include "mcio_machine_sim.h"
#endif

typedef struct mcio_machine {
    int nprocs;
    int nnodes;
    int *node_of_rank;   /* [nprocs] node index, nodes numbered by their lowest rank */
    int *socket_of_rank; /* [nprocs] socket index within the node */
    int sockets_per_node;
    int is_virtual;
    uint64_t env_key; /* mcio_machine_env_key when it was detected */
    mcio_network net; /* hops and I/O nodes: flat unless a topology file is named */
    int64_t *node_mem;  /* [nnodes] bytes available per node; -1: unknown */
    int mem_is_virtual; /* node_mem from MCIO_VIRTUAL_NODE_MEMORY */
    int *node_mem_source;   /* [nnodes] enum mcio_memory_source of node_mem */
    int64_t *node_mem_used; /* [nnodes] what the binding cgroups held and could not reclaim at
                               the last probe; -1 when no cgroup binds the node */
    char *node_mem_where;   /* [nnodes * MCIO_MEM_WHERE_LEN], rank 0 and only when asked: the
                               binding cgroup's path ("" otherwise) */
    int64_t *rank_extents;  /* [nprocs] each rank's extents at the last probe */
    /* Scratch of the probe, allocated once so that a call never fails for it. */
    int64_t *probe_all;     /* [nprocs * MCIO_PROBE_FIELDS] */
    int *rank_order;        /* [nprocs] ranks by node */
    int *node_first;        /* [nnodes + 1] where each node's ranks start in rank_order */
    struct mcio_memory_probe *probe_node; /* [most ranks on a node] */
    struct mcio_memory_where *mem_where;  /* this rank's memory cgroups, located at open */
    int *mem_reader;  /* [nprocs] the rank that reads each rank's shared figures at a call: the
                         first of its node in the cgroup it named at open (NULL: each its own) */
    int mem_not_reader; /* this rank sends MCIO_PROBE_AS_READER, not its shared figures */
    struct mcio_memory_probe *mem_last; /* this rank's last reading (mcio_machine_memory_read) */
    double mem_last_time;               /* when it was read (PMPI_Wtime) */
#ifdef MCIO_SIMULATE
    /* Kept once for all simulated ranks (mcio_machine_sim.h): node_of_rank, socket_of_rank,
     * rank_order and node_first live in sim_map; probe_all and rank_extents in the probe's
     * gather. */
    int *sim_map;
    mcio_sim_gather sim_probe;
#endif
} mcio_machine;

#define MCIO_PROBE_FIELDS 8
/* A record's first field (MemAvailable) from a rank that is not its node's reader for its
 * cgroup: its fields 0-5 are the reader's (mcio_machine_memory_combine). */
#define MCIO_PROBE_AS_READER (-2)

/*
 * Collective over comm: every rank reads its memory (mcio_memory_probe_at "/") and tells the
 * others, with my_extents (its extent count, for the memory model); node_mem, node_mem_source,
 * node_mem_used and rank_extents are filled for every node (virtual memory stays as it is).
 * where: gather the binding cgroups' paths to rank 0 as well (MCIO_STATS). Cannot fail.
 */
void mcio_machine_probe_memory(MPI_Comm comm, mcio_machine *m, int64_t my_extents, int where);

/* The probe in its two halves, for a caller that sends the record in an allgather of its own
 * (a collective call's summaries): local, this rank's memory as MCIO_PROBE_FIELDS words
 * (my_extents last) in rec, and its binding cgroup's path in path[MCIO_MEM_WHERE_LEN] (NULL:
 * not wanted). A reading younger than MCIO_MEM_REUSE_SECONDS that found at least ample bytes
 * free (its tightest figure; none: unlimited) stands for a new one (ample 0: read every
 * time). */
void mcio_machine_memory_read(mcio_machine *m, int64_t my_extents, int64_t ample, int64_t *rec,
                              char *path);
/* How long a reading with ample room may stand for a new one: the files cost about 0.24 ms
 * to read on this host (docs/performance.md, issue 20's seventh pass). */
#define MCIO_MEM_REUSE_SECONDS 0.5

/* Every rank's record, rank r's at all[stride * r], into the node figures as
 * mcio_machine_probe_memory fills them. Local, but for where (then collective: the paths
 * gathered to rank 0, path this rank's). Cannot fail. */
void mcio_machine_memory_combine(MPI_Comm comm, mcio_machine *m, const int64_t *all, int stride,
                                 const char *path, int where);

/* The two halves of mcio_machine_memory_combine. Local: the node figures and rank_extents from
 * the records, and in which[j] (NULL: not wanted) the rank whose record gave node j's figure,
 * or -1. Collective over comm: the binding cgroups' paths to rank 0 (path this rank's; which
 * as the first half filled it, needed on rank 0 only). */
void mcio_machine_memory_nodes(mcio_machine *m, const int64_t *all, int stride, int *which);
void mcio_machine_memory_where(MPI_Comm comm, mcio_machine *m, const char *path, const int *which);

/* Local: this host's outermost cache level (hwloc: the L3 on most hosts), the bytes of its
 * largest instance and the number of instances (a socket's, or a core complex's); 0 and 0 when
 * unknown (and in simulation). The cost model's cache: a collective buffer beyond it costs
 * another pass through memory (costmodel.c). Read once per process. */
void mcio_machine_caches(int64_t *bytes, int *count);

/* Collective over comm. Returns a status, the same on every rank, with detail on error. */
int mcio_machine_detect(MPI_Comm comm, mcio_machine *m, char detail[MCIO_DETAIL_LEN]);

/* The same, where origin (a communicator of comm's ranks in comm's order) keeps where each rank
 * lies from its first detection, for the next (a file opened again on the program's
 * communicator skips the node communicator's split). */
int mcio_machine_detect_kept(MPI_Comm comm, MPI_Comm origin, mcio_machine *m,
                             char detail[MCIO_DETAIL_LEN]);

/* Local: a key of the MCIO_VIRTUAL_* variables the detection reads (their values now), so that a
 * description kept from an earlier open is known to stand for a new detection. */
uint64_t mcio_machine_env_key(void);

/* Does rank lead its node (the node's first rank in m's order)? */
static inline int mcio_machine_leads_node(const mcio_machine *m, int rank)
{
    return m->rank_order[m->node_first[m->node_of_rank[rank]]] == rank;
}

void mcio_machine_free(mcio_machine *m);

/*
 * Collective over comm: load the network model from the topology file hint_path (the
 * mcio_topology_file hint), else from MCIO_TOPOLOGY_FILE, else keep the flat model. Rank 0
 * reads the file and broadcasts it. Returns MCIO_ERR_HINT for an unreadable or malformed file or
 * one describing fewer nodes than the job has, with "file:line: problem" in detail on rank 0
 * (the caller agrees, which gives every rank the message). Formats: docs/topology.md.
 */
int mcio_machine_load_network(MPI_Comm comm, mcio_machine *m, const char *hint_path,
                              char detail[MCIO_DETAIL_LEN]);

#endif
