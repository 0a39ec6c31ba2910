/*
 * The network model and the parsers of its files (flat, Slurm topology.conf, grid coordinates,
 * distance matrix). Design note, paper and glossary in mcio_network.h; formats in
 * docs/topology.md. Pure: text in, model out, no MPI and no file access, so that malformed
 * files are unit-tested line by line.
 */
#include "mcio_network.h"
#include "mcio_fnv1a.h"
#include "network_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_LATENCY 1e-6
#define DEFAULT_BANDWIDTH 1e9
#define MAX_MATRIX_NODES 4096 /* 64 MiB of hops on every rank */
#define MAX_IO 4096

mcio_network mcio_network_flat(void)
{
    return (mcio_network){.kind = MCIO_NET_FLAT, .latency = DEFAULT_LATENCY,
                          .bandwidth = DEFAULT_BANDWIDTH, .nio = 1};
}

void mcio_network_free(mcio_network *net)
{
    free(net->parent);
    free(net->switch_of_node);
    free(net->coord);
    free(net->hops);
    free(net->io_hops);
    free(net->io_of_node);
    *net = mcio_network_flat();
}

/* ---- Hops ---- */

/* Tree: switch levels climbed from x and from y to their lowest common switch, the larger of
 * the two, counting the common switch itself (two nodes on one switch are 1 apart). */
int mcio_net_tree_levels(const mcio_network *net, int x, int y)
{
    int dx = 0, dy = 0, upx = 0, upy = 0;
    for (int s = x; net->parent[s] >= 0; s = net->parent[s])
        dx++;
    for (int s = y; net->parent[s] >= 0; s = net->parent[s])
        dy++;
    for (; dx > dy; dx--, upx++)
        x = net->parent[x];
    for (; dy > dx; dy--, upy++)
        y = net->parent[y];
    for (; x != y; upx++, upy++)
        x = net->parent[x], y = net->parent[y];
    return (upx > upy ? upx : upy) + 1;
}

static int grid_distance(const mcio_network *net, const int *a, const int *b)
{
    int h = 0;
    for (int k = 0; k < net->ndims; k++) {
        int d = abs(a[k] - b[k]);
        if (net->dim_kind[k] == MCIO_DIM_TORUS && net->size[k] - d < d)
            d = net->size[k] - d;
        else if (net->dim_kind[k] == MCIO_DIM_ALL)
            d = d != 0;
        h += d;
    }
    return h;
}

/* Node a's coordinates: from its node line, or its row-major position when there were none. */
static const int *grid_coords(const mcio_network *net, int a, int *buf)
{
    if (net->coord)
        return &net->coord[(size_t)a * net->ndims];
    for (int k = net->ndims - 1; k >= 0; a /= net->size[k], k--)
        buf[k] = a % net->size[k];
    return buf;
}

int mcio_network_hops(const mcio_network *net, int a, int b)
{
    int ca[MCIO_NET_MAX_DIMS], cb[MCIO_NET_MAX_DIMS];
    if (a == b)
        return 0;
    switch (net->kind) {
    case MCIO_NET_TREE:
        return mcio_net_tree_levels(net, net->switch_of_node[a], net->switch_of_node[b]);
    case MCIO_NET_GRID:
        return grid_distance(net, grid_coords(net, a, ca), grid_coords(net, b, cb));
    case MCIO_NET_MATRIX:
        return net->hops[(size_t)a * net->nnodes + b];
    default:
        return 1;
    }
}

int mcio_network_io_hops(const mcio_network *net, int a)
{
    return net->io_hops ? net->io_hops[a] : 1;
}

int mcio_network_io_of(const mcio_network *net, int a)
{
    return net->io_of_node ? net->io_of_node[a] : 0;
}

/* ---- Lines and tokens ---- */

int mcio_net_fail(parser *p, int line, const char *fmt, ...)
{
    int n = line > 0 ? snprintf(p->detail, MCIO_DETAIL_LEN, "%s:%d: ", p->name, line)
                     : snprintf(p->detail, MCIO_DETAIL_LEN, "%s: ", p->name);
    if (n >= 0 && n < MCIO_DETAIL_LEN) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->detail + n, MCIO_DETAIL_LEN - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return MCIO_ERR_ARG;
}

/* The next line of *text, copied to a malloc'd string (comments kept), or NULL at the end. */
char *mcio_net_next_line(const char **text)
{
    if (!**text)
        return NULL;
    const char *e = strchr(*text, '\n');
    size_t n = e ? (size_t)(e - *text) : strlen(*text);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, *text, n);
        s[n] = '\0';
        if (n > 0 && s[n - 1] == '\r')
            s[n - 1] = '\0';
    }
    *text += n + (e != NULL);
    return s;
}

/* Split s in place on white space; returns the number of tokens, or -1 past MAX_TOKENS. */
int mcio_net_tokenize(char *s, char **tok)
{
    int n = 0;
    for (char *q = strtok(s, " \t\r\f\v"); q; q = strtok(NULL, " \t\r\f\v")) {
        if (n == MAX_TOKENS)
            return -1;
        tok[n++] = q;
    }
    return n;
}

int mcio_net_parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (!isdigit((unsigned char)s[0]) || *end || errno || x < lo || x > hi)
        return -1;
    *out = (int)x;
    return 0;
}

static int parse_positive(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(x) || x <= 0)
        return -1;
    *out = x;
    return 0;
}

/* latency / bandwidth, shared by every format. 1: handled, 0: not such a key, <0: error. */
int mcio_net_link_key(parser *p, const char *key, const char *val, mcio_network *net)
{
    double *dst = strcmp(key, "latency") == 0     ? &net->latency
                  : strcmp(key, "bandwidth") == 0 ? &net->bandwidth
                                                  : NULL;
    if (!dst)
        return 0;
    if (parse_positive(val, dst))
        return -mcio_net_fail(p, p->line, "%s '%s' is not a positive number", key, val);
    return 1;
}

int mcio_net_grow_int(int **a, int *cap, int need)
{
    if (need <= *cap)
        return 0;
    int c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    int *b = realloc(*a, (size_t)c * sizeof(int));
    if (!b)
        return -1;
    *a = b;
    *cap = c;
    return 0;
}

/* ---- grid and matrix ---- */

static int parse_grid_dims(parser *p, mcio_network *net, char **tok, int n)
{
    if (n < 2 || n - 1 > MCIO_NET_MAX_DIMS)
        return mcio_net_fail(p, p->line, "grid needs 1 to %d dimensions", MCIO_NET_MAX_DIMS);
    net->ndims = n - 1;
    int64_t total = 1;
    for (int k = 0; k < net->ndims; k++) {
        char *colon = strchr(tok[k + 1], ':');
        const char *kind = colon ? colon + 1 : "torus";
        if (colon)
            *colon = '\0';
        if (mcio_net_parse_int(tok[k + 1], 1, MAX_NODES, &net->size[k]))
            return mcio_net_fail(p, p->line, "dimension %d: '%s' is not a size from 1 to %d", k + 1,
                                 tok[k + 1], MAX_NODES);
        if (strcmp(kind, "torus") == 0)
            net->dim_kind[k] = MCIO_DIM_TORUS;
        else if (strcmp(kind, "mesh") == 0)
            net->dim_kind[k] = MCIO_DIM_MESH;
        else if (strcmp(kind, "all") == 0)
            net->dim_kind[k] = MCIO_DIM_ALL;
        else
            return mcio_net_fail(p, p->line, "dimension %d: '%s' is not torus, mesh or all", k + 1,
                                 kind);
        total *= net->size[k];
        if (total > MAX_NODES)
            return mcio_net_fail(p, p->line, "more than %d positions", MAX_NODES);
    }
    return MCIO_SUCCESS;
}

/* Coordinates tok[0..ndims) into c, each within its dimension. */
static int parse_coords(parser *p, const mcio_network *net, char **tok, int n, const char *what,
                        int *c)
{
    if (n != net->ndims)
        return mcio_net_fail(p, p->line, "%s needs %d coordinates, found %d", what, net->ndims, n);
    for (int k = 0; k < net->ndims; k++)
        if (mcio_net_parse_int(tok[k], 0, net->size[k] - 1, &c[k]))
            return mcio_net_fail(p, p->line, "%s: coordinate %d '%s' is not in [0, %d)", what,
                                 k + 1, tok[k], net->size[k]);
    return MCIO_SUCCESS;
}

static int push_int(int **a, int *n, int *cap, int v)
{
    if (mcio_net_grow_int(a, cap, *n + 1))
        return -1;
    (*a)[(*n)++] = v;
    return 0;
}

/* What a grid or matrix file has said so far. */
typedef struct keyword_file {
    int header, row;                     /* the header's line (0: none yet); matrix rows read */
    int *io, nio_ints, iocap;            /* io lines: a node each, or its coordinates (grid) */
    int *nodes, nnode_ints, nodecap;     /* node lines of a grid: coordinates */
} keyword_file;

/* The first line: "grid ..." or "matrix <nodes>". */
static int keyword_header(parser *p, mcio_network *net, char **tok, int n)
{
    if (strcmp(tok[0], "grid") == 0) {
        net->kind = MCIO_NET_GRID;
        return parse_grid_dims(p, net, tok, n);
    }
    if (strcmp(tok[0], "matrix") == 0) {
        net->kind = MCIO_NET_MATRIX;
        if (n != 2 || mcio_net_parse_int(tok[1], 1, MAX_MATRIX_NODES, &net->nnodes))
            return mcio_net_fail(p, p->line, "expected 'matrix <nodes>' with 1 to %d nodes",
                                 MAX_MATRIX_NODES);
        net->hops = malloc((size_t)net->nnodes * net->nnodes * sizeof(int));
        return net->hops ? MCIO_SUCCESS : MCIO_ERR_NOMEM;
    }
    return mcio_net_fail(p, p->line,
                         "'%s': a topology file starts with 'grid', 'matrix' or Slurm's "
                         "SwitchName= lines",
                         tok[0]);
}

/* "io <node>" or "io <coordinates>" (grid). */
static int keyword_io(parser *p, mcio_network *net, char **tok, int n, keyword_file *k)
{
    int c[MCIO_NET_MAX_DIMS], st = MCIO_SUCCESS, per = net->kind == MCIO_NET_GRID ? net->ndims : 1;
    if (net->kind == MCIO_NET_GRID)
        st = parse_coords(p, net, tok + 1, n - 1, "io", c);
    else if (n != 2 || mcio_net_parse_int(tok[1], 0, net->nnodes - 1, &c[0]))
        st = mcio_net_fail(p, p->line, "expected 'io <node>' with a node in [0, %d)", net->nnodes);
    if (st)
        return st;
    if (k->nio_ints / per >= MAX_IO)
        return mcio_net_fail(p, p->line, "more than %d I/O nodes", MAX_IO);
    for (int d = 0; d < per; d++)
        if (push_int(&k->io, &k->nio_ints, &k->iocap, c[d]))
            return MCIO_ERR_NOMEM;
    return MCIO_SUCCESS;
}

/* "node <coordinates>" of a grid. */
static int keyword_node(parser *p, mcio_network *net, char **tok, int n, keyword_file *k)
{
    int c[MCIO_NET_MAX_DIMS], st;
    if ((st = parse_coords(p, net, tok + 1, n - 1, "node", c)))
        return st;
    if (k->nnode_ints / net->ndims >= MAX_NODES)
        return mcio_net_fail(p, p->line, "more than %d nodes", MAX_NODES);
    for (int d = 0; d < net->ndims; d++)
        if (push_int(&k->nodes, &k->nnode_ints, &k->nodecap, c[d]))
            return MCIO_ERR_NOMEM;
    return MCIO_SUCCESS;
}

/* One row of a matrix's hop distances, checked against the rows above it. */
static int keyword_matrix_row(parser *p, mcio_network *net, char **tok, int n, keyword_file *kf)
{
    int row = kf->row;
    if (row == net->nnodes)
        return mcio_net_fail(p, p->line, "more than %d rows", net->nnodes);
    if (n != net->nnodes)
        return mcio_net_fail(p, p->line, "row %d has %d distances, expected %d", row, n,
                             net->nnodes);
    for (int k = 0; k < n; k++) {
        int h;
        if (mcio_net_parse_int(tok[k], 0, 1 << 20, &h))
            return mcio_net_fail(p, p->line, "'%s' is not a hop count", tok[k]);
        if ((k == row) != (h == 0))
            return mcio_net_fail(p, p->line,
                                 "row %d, column %d: %d hops (a node is 0 hops from "
                                 "itself only)",
                                 row, k, h);
        if (k < row && net->hops[(size_t)k * net->nnodes + row] != h)
            return mcio_net_fail(p, p->line, "row %d, column %d: %d hops, but row %d says %d", row,
                                 k, h, k, net->hops[(size_t)k * net->nnodes + row]);
        net->hops[(size_t)row * net->nnodes + k] = h;
    }
    kf->row++;
    return MCIO_SUCCESS;
}

/* One line after the header. */
static int keyword_line(parser *p, mcio_network *net, char **tok, int n, keyword_file *k)
{
    int r = n == 2 ? mcio_net_link_key(p, tok[0], tok[1], net) : 0;
    if (r < 0)
        return -r;
    if (r)
        return MCIO_SUCCESS;
    if (strcmp(tok[0], "io") == 0)
        return keyword_io(p, net, tok, n, k);
    if (net->kind == MCIO_NET_GRID && strcmp(tok[0], "node") == 0)
        return keyword_node(p, net, tok, n, k);
    if (net->kind == MCIO_NET_MATRIX && isdigit((unsigned char)tok[0][0]))
        return keyword_matrix_row(p, net, tok, n, k);
    return mcio_net_fail(p, p->line, "unknown directive '%s'", tok[0]);
}

/* After the last line: the file complete, the grid's nodes, each node's nearest I/O node. */
static int keyword_finish(parser *p, mcio_network *net, keyword_file *k)
{
    if (!k->header)
        return mcio_net_fail(p, 0, "empty topology file");
    if (net->kind == MCIO_NET_MATRIX && k->row < net->nnodes)
        return mcio_net_fail(p, 0, "%d rows of distances, expected %d", k->row, net->nnodes);
    if (net->kind == MCIO_NET_GRID) {
        /* Without node lines, the nodes fill the grid in row-major order (grid_coords). */
        if (k->nnode_ints == 0) {
            int64_t total = 1;
            for (int d = 0; d < net->ndims; d++)
                total *= net->size[d];
            net->nnodes = (int)total;
        } else {
            net->nnodes = k->nnode_ints / net->ndims;
            net->coord = k->nodes;
            k->nodes = NULL;
        }
    }
    int per = net->kind == MCIO_NET_GRID ? net->ndims : 1;
    net->nio = k->nio_ints ? k->nio_ints / per : 1;
    net->io_hops = malloc((size_t)net->nnodes * sizeof(int));
    net->io_of_node = calloc((size_t)net->nnodes, sizeof(int));
    if (!net->io_hops || !net->io_of_node)
        return MCIO_ERR_NOMEM;
    for (int a = 0; a < net->nnodes; a++) {
        /* Without io lines the I/O node is one hop from every node, as in the flat model. */
        net->io_hops[a] = k->nio_ints ? INT_MAX : 1;
        for (int i = 0; k->nio_ints && i < net->nio; i++) {
            int c[MCIO_NET_MAX_DIMS];
            int h = 1 + (net->kind == MCIO_NET_GRID
                             ? grid_distance(net, grid_coords(net, a, c), &k->io[i * per])
                             : mcio_network_hops(net, a, k->io[i]));
            if (h < net->io_hops[a]) {
                net->io_hops[a] = h;
                net->io_of_node[a] = i;
            }
        }
    }
    return MCIO_SUCCESS;
}

static int parse_keyword_file(parser *p, const char *text, mcio_network *net)
{
    int st = MCIO_SUCCESS, n;
    keyword_file k = {0};
    char *tok[MAX_TOKENS], *line = NULL;
    for (p->line = 1; (line = mcio_net_next_line(&text)) != NULL; p->line++) {
        if (strchr(line, '#'))
            *strchr(line, '#') = '\0';
        if ((n = mcio_net_tokenize(line, tok)) < 0) {
            st = mcio_net_fail(p, p->line, "too many words on one line");
        } else if (n > 0 && !k.header) {
            k.header = p->line;
            st = keyword_header(p, net, tok, n);
        } else if (n > 0) {
            st = keyword_line(p, net, tok, n, &k);
        }
        free(line);
        if (st != MCIO_SUCCESS)
            break;
    }
    if (st == MCIO_SUCCESS)
        st = keyword_finish(p, net, &k);
    free(k.io);
    free(k.nodes);
    return st;
}

int mcio_network_parse(const char *text, const char *name, mcio_network *net,
                       char detail[MCIO_DETAIL_LEN])
{
    parser p = {.name = name, .detail = detail, .line = 0};
    *net = mcio_network_flat();
    net->nio = 0;
    detail[0] = '\0';
    /* A Slurm file is recognised by its SwitchName= lines, wherever its comments end. */
    int st = MCIO_SUCCESS, slurm = 0;
    for (const char *q = text; (q = strstr(q, "witchName=")) != NULL; q++)
        if (q > text && (q[-1] == 'S' || q[-1] == 's')) {
            slurm = 1;
            break;
        }
    st = slurm ? mcio_net_parse_slurm(&p, text, net) : parse_keyword_file(&p, text, net);
    if (st == MCIO_ERR_NOMEM && !detail[0])
        snprintf(detail, MCIO_DETAIL_LEN, "%s: out of memory", name);
    if (st != MCIO_SUCCESS)
        mcio_network_free(net);
    return st;
}
