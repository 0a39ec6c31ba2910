/*
 * The memory half of the machine description: how many bytes each node may spend on
 * collective buffers (Memavl in the memory strategy). Pure (no MPI), so that mcio-plan and the
 * unit tests use the very code the library uses.
 *
 * Detected: MemAvailable of /proc/meminfo on the node. Virtual, for tests and experiments, from
 * the environment variable MCIO_VIRTUAL_NODE_MEMORY:
 *   "64m,16m,0"           explicit values, node i gets value i modulo the count
 *   "normal:MEAN:SD:SEED" drawn per node from a normal distribution (Box-Muller on splitmix64),
 *                         clamped at 0, the way the paper modelled memory variance; SEED
 *                         optional (default 1)
 * Byte counts take k, m, g suffixes (powers of 1024).
 */
#ifndef MCIO_MEMORY_H
#define MCIO_MEMORY_H

#include <stdint.h>

#include "mcio_base.h" /* MCIO_DETAIL_LEN, status codes */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fill node_mem[0..nnodes) from a virtual memory spec (nnodes may be 0 to check the syntax
 * only). Returns 0, or MCIO_ERR_ARG with a message naming the spec in detail.
 */
int mcio_memory_virtual(const char *spec, int nnodes, int64_t *node_mem,
                        char detail[MCIO_DETAIL_LEN]);

/* MemAvailable in bytes from the text of /proc/meminfo, or -1 when absent. */
int64_t mcio_memory_parse_meminfo(const char *text);

/* MemAvailable of this host in bytes, or -1 when it cannot be read. */
int64_t mcio_memory_available(void);

#ifdef __cplusplus
}
#endif

#endif
