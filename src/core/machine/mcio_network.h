/*
 * The network model of the machine description: hop distance between nodes, the I/O node each
 * node reaches and its distance to it, latency per hop and bandwidth. Pure (no MPI): the parsers
 * take a file's text and give a model or an error naming the file, the line and the problem, so
 * they are unit-tested without a file system; the engine reads the file and broadcasts its text
 * (mcio_machine_net.c). The formats, with examples, are in docs/topology.md.
 *
 * The model is the one of Tessier, Vishwanath, Jeannot, topology-aware data aggregation
 * (TAPIOCA, 2017, section 4.1; shared/seeds/004): d(u, v) hops, l latency, B bandwidth. Sources:
 *   flat      the default: every two nodes one hop apart, one I/O node one hop from every node
 *   tree      a Slurm topology.conf: switches over switches over nodes; the hop distance of two
 *             nodes is the number of switch levels climbed to their lowest common switch
 *   grid      coordinates on a torus, a mesh or all-to-all groups (dragonfly-like) per dimension;
 *             hops are summed over dimensions
 *   matrix    an explicit table of hop distances
 *
 * Glossary:
 *   described node  a node of the file; the k-th node of the job (nodes numbered by their lowest
 *                   rank, as in mcio_machine) is the k-th described node
 *   bridge          the node (or, in a tree, the switch) an I/O node hangs from
 *   d(A, IO)        hops from node A to its bridge, plus one for the link to the I/O node; each
 *                   node uses its nearest I/O node (the lowest-numbered one on ties)
 *   l, B            latency of one hop (seconds) and bandwidth of a link (bytes per second)
 */
#ifndef MCIO_NETWORK_H
#define MCIO_NETWORK_H

#include <stdint.h>

#include "mcio_base.h" /* MCIO_DETAIL_LEN, status codes */

#ifdef __cplusplus
extern "C" {
#endif

#define MCIO_NET_MAX_DIMS 8

enum mcio_net_kind { MCIO_NET_FLAT = 0, MCIO_NET_TREE, MCIO_NET_GRID, MCIO_NET_MATRIX };

/* How one grid dimension connects its positions. */
enum mcio_net_dim { MCIO_DIM_TORUS = 0, MCIO_DIM_MESH, MCIO_DIM_ALL };

typedef struct mcio_network {
    int kind;       /* enum mcio_net_kind */
    int nnodes;     /* described nodes; 0 for flat, which fits any number */
    double latency;   /* l: seconds per hop (default 1e-6) */
    double bandwidth; /* B: bytes per second (default 1e9) */
    /* tree */
    int nswitches;
    int *parent;       /* [nswitches] parent switch, -1 for the root */
    int *switch_of_node; /* [nnodes] the switch a node hangs from */
    /* grid */
    int ndims;
    int size[MCIO_NET_MAX_DIMS];
    int dim_kind[MCIO_NET_MAX_DIMS]; /* enum mcio_net_dim */
    int *coord;                      /* [nnodes * ndims] from node lines; NULL: row-major */
    /* matrix */
    int *hops; /* [nnodes * nnodes] */
    /* every kind: the distance of each node to its nearest I/O node, and which one it is */
    int nio;
    int *io_hops; /* [nnodes] d(A, IO); NULL for flat (1 everywhere) */
    int *io_of_node; /* [nnodes] */
} mcio_network;

/* The flat default: every two nodes one hop apart, one I/O node one hop away. Allocates nothing. */
mcio_network mcio_network_flat(void);

/*
 * Parse the text of a topology file (any of the formats; a file containing a SwitchName= line
 * is a Slurm topology.conf, otherwise its first directive names the format). name is the file
 * name used in messages. On error, detail reads "<name>:<line>: <problem>" and the status is
 * MCIO_ERR_ARG (malformed) or MCIO_ERR_NOMEM; *net is left empty. Pure.
 */
int mcio_network_parse(const char *text, const char *name, mcio_network *net,
                       char detail[MCIO_DETAIL_LEN]);

/* Hops between described nodes a and b (0 when a == b). Pure, O(depth) or O(dims). */
int mcio_network_hops(const mcio_network *net, int a, int b);

/* d(A, IO): hops from described node a to its nearest I/O node, the last link included. */
int mcio_network_io_hops(const mcio_network *net, int a);

/* The I/O node described node a uses (its index in the file's io list; 0 for flat). */
int mcio_network_io_of(const mcio_network *net, int a);

void mcio_network_free(mcio_network *net);

#ifdef __cplusplus
}
#endif
#endif
