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

#endif
