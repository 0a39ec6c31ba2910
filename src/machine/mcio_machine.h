/*
 * What the job runs on: which node and socket each rank of a communicator sits on.
 * Detected (nodes from MPI_Comm_split_type shared, sockets from the CPU each rank runs on,
 * through hwloc) or virtual: MCIO_VIRTUAL_RANKS_PER_NODE=k makes ranks [0,k) node 0, [k,2k)
 * node 1, ..., and MCIO_VIRTUAL_SOCKETS_PER_NODE=s splits each node's ranks into s sockets in
 * order ("accumulated" binding: consecutive ranks fill a socket first), so one host can act
 * as many nodes and every node-dependent path can be tested on it.
 * Memory per node (mcio_memory.h): MemAvailable on the node's lowest rank, or virtual
 * (MCIO_VIRTUAL_NODE_MEMORY).
 */
#ifndef MCIO_MACHINE_H
#define MCIO_MACHINE_H

#include <mpi.h>

#include "mcio_network.h"
#include "mcio_plan.h"

typedef struct mcio_machine {
    int nprocs;
    int nnodes;
    int *node_of_rank;   /* [nprocs] node index, nodes numbered by their lowest rank */
    int *socket_of_rank; /* [nprocs] socket index within the node */
    int sockets_per_node;
    int is_virtual;
    mcio_network net; /* hops and I/O nodes: flat unless a topology file is named */
    int64_t *node_mem;  /* [nnodes] bytes available per node; -1: unknown */
    int mem_is_virtual; /* node_mem from MCIO_VIRTUAL_NODE_MEMORY */
} mcio_machine;

/* Collective over comm. Returns a status, the same on every rank, with detail on error. */
int mcio_machine_detect(MPI_Comm comm, mcio_machine *m, char detail[MCIO_DETAIL_LEN]);

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
