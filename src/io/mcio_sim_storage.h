/*
 * The simulation build's storage (MCIO_SIMULATE): a parallel file system of several simulated
 * storage targets, each a SimGrid disk on a host of the platform, with the file striped
 * round-robin over them as Lustre stripes a file over its OSTs. SMPI's own MPI-IO keeps no data
 * and reaches only the disks of the rank's own host, so aggregators write here instead.
 *
 * The platform names the targets and the stripe on its root zone (tools/sim/mcio_platform.cpp):
 *   mcio_storage      comma-separated host names, one disk each (the first disk of the host)
 *   mcio_stripe_size  bytes per stripe (default 1 MiB)
 * An access moves its bytes over the simulated network between the rank's host and each target
 * it touches while the target's disk serves them (both started together, so the slower of the
 * two sets the time, as a streamed transfer does), one disk request per stripe piece. The disk
 * is shared fairly among the requests in flight; a per-request cost, if any, is the platform's
 * (Disk::set_factor_cb). No byte is stored: reads return whatever the buffer held.
 *   mcio_disk_model   "cpu": each request is executed on the target host's processor, whose
 *                     speed and factor the platform made the disk's (tools/sim/mcio_platform.cpp),
 *                     instead of by its disk: the same fair sharing, but SimGrid's processor model
 *                     updates requests lazily where its disk model updates every request in
 *                     flight at every event of the simulation (docs/simulation.md, "16,384 ranks")
 */
#ifndef MCIO_SIM_STORAGE_H
#define MCIO_SIM_STORAGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The number of storage targets the platform names (0: none; -1: a named host has no disk),
 * and its stripe size. Local; the first call reads the platform, later ones reuse it. */
int mcio_sim_storage_targets(int64_t *stripe);

/* Write (write = 1) or read len bytes at file offset off, stripe bytes per stripe, over
 * ntargets targets (as mcio_sim_storage_targets returned): blocks the calling rank for the
 * simulated time. Returns 0, or -1 when there is no storage. */
int mcio_sim_storage_access(int write, int64_t len, int64_t off, int64_t stripe);

/* The same access in two halves: start it (returns a handle, or NULL when there is no storage)
 * and let the rank go on (its MPI calls proceed in simulated time while the access runs), then
 * wait for it (blocks for what is left of it; frees the handle). Returns the simulated seconds
 * the access took, from its start to the end of its last transfer or disk request. */
void *mcio_sim_storage_start(int write, int64_t len, int64_t off, int64_t stripe);
double mcio_sim_storage_wait(void *handle);

/*
 * The memory model (docs/simulation.md): each compute node has the memory its host property
 * mcio_memory gives (what the application leaves for collective buffers), and the root zone's
 * mcio_memory_model says what buffers beyond it cost: "paging", the bytes an aggregator moves
 * through its buffer pass through the node's disk "swap" (written out and read back, at the
 * bandwidth calibrated on this machine; the node's aggregators share it), or "oom", the
 * allocation fails, as the OOM killer would end the run. Without it, buffers cost nothing.
 * The node's buffers are counted across its simulated ranks.
 */

/* A collective buffer of n bytes on the calling rank's node: 0, or -1 when the model is oom
 * and the node's buffers would exceed its memory (then nothing is counted). */
int mcio_sim_node_take(int64_t n);

/* The buffer of n bytes is freed. */
void mcio_sim_node_give(int64_t n);

/* n bytes of a collective buffer are touched: with paging, and the node's buffers beyond its
 * memory, they pass through the node's swap disk (blocks the rank for that simulated time). */
void mcio_sim_node_page(int64_t n);

#ifdef __cplusplus
}
#endif

#endif
