/*
 * The simulation build's machine description (MCIO_SIMULATE, SimGrid's SMPI): what hwloc and
 * /proc/meminfo tell on a real machine, the simulated host a rank runs on tells by its
 * properties, set by the platform (tools/sim/mcio_platform.cpp, docs/simulation.md):
 *   host property mcio_memory        bytes of memory the node has for collective buffers
 *   host property mcio_sockets       sockets of the node; its ranks fill them in order
 *   root zone property mcio_topology_file   the network model (docs/topology.md) of the job's
 *                                            nodes, used when neither the hint nor
 *                                            MCIO_TOPOLOGY_FILE names one
 * Nodes themselves are the simulated hosts: SMPI's MPI_COMM_TYPE_SHARED splits by host.
 */
#ifndef MCIO_MACHINE_SIM_H
#define MCIO_MACHINE_SIM_H

#include <stdint.h>

/* The calling rank's host's mcio_memory, or -1 when the host has none (unknown memory). */
int64_t mcio_sim_node_memory(void);

/* The calling rank's host's mcio_sockets, or 1. */
int mcio_sim_node_sockets(void);

/* The platform's mcio_topology_file, or NULL. */
const char *mcio_sim_topology_file(void);

/*
 * Tables that every simulated rank of a communicator holds alike, kept once.
 *
 * SMPI runs all simulated ranks in one process, one at a time (its actors switch only inside
 * MPI calls), and gives each rank a private copy of the program's globals but one heap. An
 * array of one entry per rank that every rank holds (an allgather's result, the rank-to-node
 * map) is then held nprocs times: at 16,384 ranks, 96 bytes per entry of allgathered summaries
 * and probes alone are 24 GiB. In the simulation build such arrays are allocated once per
 * communicator on that heap and shared by its ranks; the real build keeps them per rank.
 *
 * The simulated traffic is unchanged: mcio_sim_gather_run still allgathers the records' bytes
 * over the communicator, between content-free SMPI_SHARED_MALLOC buffers (SMPI charges the
 * messages by size and copies nothing), while the content goes through the shared table:
 * each rank writes its record at its index before the allgather, and when the allgather returns
 * every rank has entered it, so every record is there. Two tables alternate: a rank reads the
 * table of its last gather until it enters the next one, and can enter the gather after that
 * only once every rank has entered the next, so the table it would overwrite is read by none.
 * Every rank writes the same values into a shared derived table (mcio_sim_gather_area), each
 * within one stretch without MPI calls, so no rank sees another's half-written table.
 */
#ifdef MCIO_SIMULATE
#include <mpi.h>
#include <stddef.h>

/* Collective over comm: bytes of zeroed memory shared by comm's simulated ranks (rank 0
 * allocates and broadcasts the address), or NULL on every rank. Freed by mcio_sim_shared_free
 * on every rank (the last one frees). */
void *mcio_sim_shared_alloc(MPI_Comm comm, size_t bytes);
void mcio_sim_shared_free(void *p);

/* Local: 1 when the calling rank is the last holder of shared allocation p (its
 * mcio_sim_shared_free frees it), so that it frees what the allocation points to first. */
int mcio_sim_shared_last(const void *p);

typedef struct mcio_sim_gather {
    char *table[2];   /* shared: nprocs records each, alternating by gather */
    char *area[2];    /* shared: area_bytes each, derived from the table of the same gather */
    void *wire_send;  /* SMPI_SHARED_MALLOC: the bytes the simulated messages carry */
    void *wire_recv;
    void *shared;     /* the one shared allocation behind table and area */
    size_t record, area_bytes;
    int rank, nprocs;
    unsigned gen; /* gathers done */
} mcio_sim_gather;

/* Collective over comm: MCIO_SUCCESS or MCIO_ERR_NOMEM, the same on every rank. */
int mcio_sim_gather_init(MPI_Comm comm, size_t record, size_t area_bytes, mcio_sim_gather *g);

/* Collective over comm: allgathers `record` bytes of mine; returns the shared table of all
 * ranks' records, valid until this rank's next mcio_sim_gather_run on g. */
void *mcio_sim_gather_run(MPI_Comm comm, mcio_sim_gather *g, const void *mine);

/* Local: writes this rank's record into the next gather's shared table and returns the table,
 * for a caller that carries the simulated bytes over its own collectives (the node-level
 * step, mcio_nodegather.c: g->wire_send and g->wire_recv). The table is whole once the
 * caller's collectives have delivered every rank's bytes to this rank. */
void *mcio_sim_gather_put(mcio_sim_gather *g, const void *mine);

/* The shared derived area of the last gather (valid as its table). */
void *mcio_sim_gather_area(const mcio_sim_gather *g);

/* Local. */
void mcio_sim_gather_free(mcio_sim_gather *g);

/* A collective buffer (SMPI_SHARED_MALLOC: its bytes are meaningless here) counted on the
 * node for the memory model (mcio_sim_storage.h): NULL when the model is oom and the node's
 * memory would be exceeded. Local. */
void *mcio_sim_buffer_alloc(size_t n);
void mcio_sim_buffer_free(void *p);

/* The file access of len bytes from or into buf: when buf is one of this rank's collective
 * buffers, its bytes pass through the node's memory model (paging). Local. */
void mcio_sim_buffer_touch(const void *buf, int64_t len);
#endif

#endif
