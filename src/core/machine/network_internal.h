/*
 * Shared between the network model's parsers (mcio_network.c: lines and tokens, grid and
 * matrix files; mcio_network_slurm.c: Slurm topology.conf), not part of mcio_network.h's
 * interface.
 */
#ifndef MCIO_NETWORK_INTERNAL_H
#define MCIO_NETWORK_INTERNAL_H

#include "mcio_network.h"

/* Every rank keeps the model: a few integers per node (the I/O distance and which I/O node;
 * a grid without node lines keeps no coordinates), so up to a million nodes costs 8 MiB. */
#define MAX_NODES (1 << 20)
#define MAX_TOKENS 64

/* A file being parsed: its name and the current line, for the detail of an error. */
typedef struct parser {
    const char *name;
    char *detail;
    int line;
} parser;

/* MCIO_ERR_ARG, with "name:line: " and the printf-formatted message in p->detail. */
int mcio_net_fail(parser *p, int line, const char *fmt, ...);

/* The next line of *text, copied to a malloc'd string (comments kept), or NULL at the end. */
char *mcio_net_next_line(const char **text);

/* Split s in place on white space; returns the number of tokens, or -1 past MAX_TOKENS. */
int mcio_net_tokenize(char *s, char **tok);

/* A decimal integer in [lo, hi] in *out: 0, or -1 when s is not one. */
int mcio_net_parse_int(const char *s, int lo, int hi, int *out);

/* latency / bandwidth, shared by every format. 1: handled, 0: not such a key, <0: error. */
int mcio_net_link_key(parser *p, const char *key, const char *val, mcio_network *net);

/* Tree: switch levels climbed from x and from y to their lowest common switch. */
int mcio_net_tree_levels(const mcio_network *net, int x, int y);

/* Grow *a (capacity *cap) to hold need ints: 0, or -1 out of memory. */
int mcio_net_grow_int(int **a, int *cap, int need);

/* The Slurm topology.conf text into *net (mcio_network_slurm.c). */
int mcio_net_parse_slurm(parser *p, const char *text, mcio_network *net);

#endif
