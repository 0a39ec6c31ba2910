/*
 * The network model and the parsers of its files (flat, Slurm topology.conf, grid coordinates,
 * distance matrix). Design note, paper and glossary in mcio_network.h; formats in
 * docs/topology.md. Pure: text in, model out, no MPI and no file access, so that malformed
 * files are unit-tested line by line.
 */
#include "mcio_network.h"
#include "mcio_fnv1a.h"

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
/* Every rank keeps the model: a few integers per node (the I/O distance and which I/O node;
 * a grid without node lines keeps no coordinates), so up to a million nodes costs 8 MiB. */
#define MAX_NODES (1 << 20)
#define MAX_MATRIX_NODES 4096 /* 64 MiB of hops on every rank */
#define MAX_IO 4096
#define MAX_TOKENS 64

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
static int tree_levels(const mcio_network *net, int x, int y)
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
        return tree_levels(net, net->switch_of_node[a], net->switch_of_node[b]);
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

typedef struct parser {
    const char *name;
    char *detail;
    int line;
} parser;

static int fail(parser *p, int line, const char *fmt, ...)
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
static char *next_line(const char **text)
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
static int tokenize(char *s, char **tok)
{
    int n = 0;
    for (char *q = strtok(s, " \t\r\f\v"); q; q = strtok(NULL, " \t\r\f\v")) {
        if (n == MAX_TOKENS)
            return -1;
        tok[n++] = q;
    }
    return n;
}

static int parse_int(const char *s, int lo, int hi, int *out)
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
static int link_key(parser *p, const char *key, const char *val, mcio_network *net)
{
    double *dst = strcmp(key, "latency") == 0     ? &net->latency
                  : strcmp(key, "bandwidth") == 0 ? &net->bandwidth
                                                  : NULL;
    if (!dst)
        return 0;
    if (parse_positive(val, dst))
        return -fail(p, p->line, "%s '%s' is not a positive number", key, val);
    return 1;
}

/* ---- Names (Slurm): a small open-addressing hash table ---- */

typedef struct names {
    char **name; /* [n] in order of first appearance */
    int n, cap;
    int *slot; /* [nslots] index + 1, 0 empty */
    size_t nslots;
} names;

static size_t name_hash(const char *s)
{
    return (size_t)mcio_fnv1a(MCIO_FNV1A_OFFSET, s, strlen(s));
}

static int names_find(const names *t, const char *s)
{
    if (!t->nslots)
        return -1;
    for (size_t i = name_hash(s) & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
        if (!t->slot[i])
            return -1;
        if (strcmp(t->name[t->slot[i] - 1], s) == 0)
            return t->slot[i] - 1;
    }
}

/* Add s (not present); returns its index or -1 when out of memory. */
static int names_add(names *t, const char *s)
{
    if (2 * ((size_t)t->n + 1) > t->nslots) {
        size_t ns = t->nslots ? 2 * t->nslots : 64;
        int *slot = calloc(ns, sizeof(int));
        if (!slot)
            return -1;
        for (int k = 0; k < t->n; k++) {
            size_t i = name_hash(t->name[k]) & (ns - 1);
            while (slot[i])
                i = (i + 1) & (ns - 1);
            slot[i] = k + 1;
        }
        free(t->slot);
        t->slot = slot;
        t->nslots = ns;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        char **nn = realloc(t->name, (size_t)cap * sizeof(char *));
        if (!nn)
            return -1;
        t->name = nn;
        t->cap = cap;
    }
    if (!(t->name[t->n] = strdup(s)))
        return -1;
    size_t i = name_hash(s) & (t->nslots - 1);
    while (t->slot[i])
        i = (i + 1) & (t->nslots - 1);
    t->slot[i] = t->n + 1;
    return t->n++;
}

static void names_free(names *t)
{
    for (int k = 0; k < t->n; k++)
        free(t->name[k]);
    free(t->name);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

/*
 * Expand a Slurm host list ("tux[0-3,7],login1", zero padding kept: "n[08-10]") and call
 * fn(arg, name) for each name. Returns 0, or -1 with the problem in why.
 */
typedef int (*name_fn)(void *arg, const char *name);

static int expand_one(const char *pre, const char *rest, name_fn fn, void *arg, char *why,
                      size_t whylen)
{
    const char *lb = strchr(rest, '[');
    if (!lb) {
        size_t n = strlen(pre) + strlen(rest) + 1;
        char *s = malloc(n);
        if (!s)
            return snprintf(why, whylen, "out of memory"), -1;
        snprintf(s, n, "%s%s", pre, rest);
        int st = fn(arg, s);
        free(s);
        return st ? (snprintf(why, whylen, "%s", "duplicate or unknown name"), -1) : 0;
    }
    const char *rb = strchr(lb, ']');
    if (!rb || rb == lb + 1)
        return snprintf(why, whylen, "unbalanced or empty '[' in '%s'", rest), -1;
    size_t plen = strlen(pre) + (size_t)(lb - rest);
    char *head = malloc(plen + 24);
    if (!head)
        return snprintf(why, whylen, "out of memory"), -1;
    for (const char *r = lb + 1; r < rb;) {
        const char *c = r;
        while (c < rb && *c != ',')
            c++;
        /* one range lo[-hi] in [r, c) */
        char buf[48];
        size_t n = (size_t)(c - r);
        if (n == 0 || n >= sizeof buf) {
            free(head);
            return snprintf(why, whylen, "bad range in '%.*s'", (int)(rb - lb + 1), lb), -1;
        }
        memcpy(buf, r, n);
        buf[n] = '\0';
        char *dash = strchr(buf, '-');
        if (dash)
            *dash = '\0';
        int lo, hi, width = (int)strlen(buf);
        if (parse_int(buf, 0, INT_MAX - 1, &lo) || (dash ? parse_int(dash + 1, 0, INT_MAX - 1, &hi)
                                                         : (hi = lo, 0)) ||
            hi < lo || hi - lo >= MAX_NODES) {
            free(head);
            return snprintf(why, whylen, "bad range in '%.*s'", (int)(rb - lb + 1), lb), -1;
        }
        for (int v = lo; v <= hi; v++) {
            snprintf(head, plen + 24, "%s%.*s%0*d", pre, (int)(lb - rest), rest, width, v);
            if (expand_one(head, rb + 1, fn, arg, why, whylen)) {
                free(head);
                return -1;
            }
        }
        r = c < rb ? c + 1 : c;
    }
    free(head);
    return 0;
}

static int expand_hostlist(const char *list, name_fn fn, void *arg, char *why, size_t whylen)
{
    size_t n = strlen(list);
    char *item = malloc(n + 1);
    if (!item)
        return snprintf(why, whylen, "out of memory"), -1;
    int st = 0;
    for (size_t i = 0; i < n && st == 0;) {
        /* An item ends at a comma outside brackets. */
        size_t j = i, depth = 0;
        for (; j < n && (list[j] != ',' || depth); j++)
            depth += list[j] == '[' ? 1 : list[j] == ']' && depth ? (size_t)-1 : 0;
        if (j == i) {
            snprintf(why, whylen, "empty name in '%s'", list);
            st = -1;
            break;
        }
        memcpy(item, list + i, j - i);
        item[j - i] = '\0';
        st = expand_one("", item, fn, arg, why, whylen);
        i = j + 1;
    }
    free(item);
    return st;
}

/* ---- Slurm topology.conf ---- */

typedef struct slurm {
    names sw, node;
    int *parent, *parent_line, *sw_line; /* per switch (capacity sw.cap) */
    int *node_switch;                    /* per node (capacity node.cap) */
    int cur;                             /* the switch of the line being read */
    int pcap, ncap;
    /* "Switches=" references, resolved once all switches are known */
    char **ref;
    int *ref_line, *ref_parent, nref, refcap; /* the line, and the switch that names it */
    names io; /* #mcio io= names */
    int io_line;
    int line; /* the line being read */
} slurm;

static int grow_int(int **a, int *cap, int need)
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

static int slurm_add_node(void *arg, const char *name)
{
    slurm *s = arg;
    if (names_find(&s->node, name) >= 0)
        return -1;
    int k = names_add(&s->node, name);
    int cap = s->ncap;
    if (k < 0 || grow_int(&s->node_switch, &cap, k + 1))
        return -1;
    s->ncap = cap;
    s->node_switch[k] = s->cur;
    return 0;
}

static int slurm_add_ref(void *arg, const char *name)
{
    slurm *s = arg;
    if (s->nref == s->refcap) {
        int c = s->refcap ? 2 * s->refcap : 64;
        char **r = realloc(s->ref, (size_t)c * sizeof(char *));
        int *l = r ? realloc(s->ref_line, (size_t)c * sizeof(int)) : NULL;
        if (r)
            s->ref = r;
        if (l)
            s->ref_line = l;
        int *ch = l ? realloc(s->ref_parent, (size_t)c * sizeof(int)) : NULL;
        if (!ch)
            return -1;
        s->ref_parent = ch;
        s->refcap = c;
    }
    if (!(s->ref[s->nref] = strdup(name)))
        return -1;
    s->ref_line[s->nref] = s->line;
    s->ref_parent[s->nref++] = s->cur;
    return 0;
}

static int slurm_add_io(void *arg, const char *name)
{
    slurm *s = arg;
    return names_find(&s->io, name) >= 0 || names_add(&s->io, name) < 0 ? -1 : 0;
}

static void slurm_free(slurm *s)
{
    names_free(&s->sw);
    names_free(&s->node);
    names_free(&s->io);
    free(s->parent);
    free(s->parent_line);
    free(s->sw_line);
    free(s->node_switch);
    for (int i = 0; i < s->nref; i++)
        free(s->ref[i]);
    free(s->ref);
    free(s->ref_line);
    free(s->ref_parent);
}

/* Keys are case-insensitive in Slurm's files. */
static int key_is(const char *tok, const char *key, const char **val)
{
    size_t n = strlen(key);
    if (strncasecmp(tok, key, n) != 0 || tok[n] != '=')
        return 0;
    *val = tok + n + 1;
    return 1;
}

/* A "#mcio key=value ..." line of a Slurm file: the network's links, or the I/O nodes. */
static int slurm_directive(parser *p, slurm *s, char **tok, int n, mcio_network *net)
{
    char why[160];
    for (int i = 0; i < n; i++) {
        const char *val;
        char *eq = strchr(tok[i], '=');
        if (!eq)
            return fail(p, p->line, "'#mcio %s' is not key=value", tok[i]);
        *eq = '\0';
        val = eq + 1;
        int r = link_key(p, tok[i], val, net);
        if (r < 0)
            return -r;
        if (r)
            continue;
        if (strcmp(tok[i], "io") != 0)
            return fail(p, p->line, "unknown #mcio key '%s' (io, latency, bandwidth)", tok[i]);
        if (expand_hostlist(val, slurm_add_io, s, why, sizeof why))
            return fail(p, p->line, "io=%s: %s", val, why);
        s->io_line = p->line;
    }
    return MCIO_SUCCESS;
}

/* A "SwitchName=<name> Nodes=... Switches=..." line; *cap is the switch arrays' capacity. */
static int slurm_switch(parser *p, slurm *s, char **tok, int n, int *cap)
{
    char why[160];
    const char *swname = NULL;
    if (!key_is(tok[0], "SwitchName", &swname) || !*swname)
        return fail(p, p->line, "expected SwitchName=<name> first, found '%s'", tok[0]);
    if (names_find(&s->sw, swname) >= 0)
        return fail(p, p->line, "switch '%s' defined twice (first on line %d)", swname,
                    s->sw_line[names_find(&s->sw, swname)]);
    int k = names_add(&s->sw, swname);
    int c1 = *cap, c2 = *cap, c3 = *cap;
    if (k < 0 || grow_int(&s->parent, &c1, k + 1) || grow_int(&s->parent_line, &c2, k + 1) ||
        grow_int(&s->sw_line, &c3, k + 1))
        return MCIO_ERR_NOMEM;
    *cap = c1;
    s->parent[k] = -1;
    s->sw_line[k] = p->line;
    s->cur = k;
    s->line = p->line;
    for (int i = 1; i < n; i++) {
        const char *val;
        if (key_is(tok[i], "Nodes", &val)) {
            if (expand_hostlist(val, slurm_add_node, s, why, sizeof why)) {
                if (strcmp(why, "duplicate or unknown name") == 0)
                    snprintf(why, sizeof why, "a node is listed under two switches");
                return fail(p, p->line, "Nodes=%s: %s", val, why);
            }
        } else if (key_is(tok[i], "Switches", &val)) {
            if (expand_hostlist(val, slurm_add_ref, s, why, sizeof why))
                return fail(p, p->line, "Switches=%s: %s", val, why);
        } else if (!strchr(tok[i], '=')) {
            return fail(p, p->line, "'%s' is not key=value", tok[i]);
        } /* LinkSpeed= and other Slurm keys mean nothing to the model */
    }
    return MCIO_SUCCESS;
}

/* Each line of the file: directives and switches; comments dropped. */
static int slurm_lines(parser *p, const char *text, slurm *s, mcio_network *net)
{
    int st = MCIO_SUCCESS, nsw_cap = 0;
    char *tok[MAX_TOKENS];
    char *line = NULL;
    for (p->line = 1; (line = next_line(&text)) != NULL; p->line++) {
        /* "#mcio key=value ..." carries what Slurm's format has no words for; Slurm reads it as
         * a comment, so one file serves both. Other comments are dropped. */
        char *body = line;
        while (isspace((unsigned char)*body))
            body++;
        int directive =
            strncmp(body, "#mcio", 5) == 0 && (!body[5] || isspace((unsigned char)body[5]));
        if (directive)
            body += 5;
        else if (strchr(body, '#'))
            *strchr(body, '#') = '\0';
        int n = tokenize(body, tok);
        if (n < 0)
            st = fail(p, p->line, "too many words on one line");
        else if (n > 0)
            st = directive ? slurm_directive(p, s, tok, n, net)
                           : slurm_switch(p, s, tok, n, &nsw_cap);
        free(line);
        if (st != MCIO_SUCCESS)
            break;
    }
    return st;
}

/* Resolve Switches= references into parents; then check the switches make one tree (no
 * cycles, one root) and set *root. */
static int slurm_tree(parser *p, slurm *s, int *root)
{
    for (int i = 0; i < s->nref; i++) {
        int child = names_find(&s->sw, s->ref[i]);
        if (child < 0)
            return fail(p, s->ref_line[i], "switch '%s' is not defined", s->ref[i]);
        if (s->parent[child] >= 0)
            return fail(p, s->ref_line[i], "switch '%s' already has parent '%s' (line %d)",
                        s->ref[i], s->sw.name[s->parent[child]], s->parent_line[child]);
        s->parent[child] = s->ref_parent[i];
        s->parent_line[child] = s->ref_line[i];
    }
    if (s->node.n == 0)
        return fail(p, 0, "no nodes (no Nodes= on any SwitchName line)");
    *root = -1;
    for (int k = 0; k < s->sw.n; k++) {
        int steps = 0, x = k;
        while (s->parent[x] >= 0 && steps <= s->sw.n)
            x = s->parent[x], steps++;
        if (steps > s->sw.n)
            return fail(p, s->sw_line[k], "switch '%s' is its own ancestor", s->sw.name[k]);
        if (*root < 0)
            *root = x;
        else if (x != *root)
            return fail(p, s->sw_line[x],
                        "switches '%s' and '%s' have no common switch: the file must describe "
                        "one tree",
                        s->sw.name[*root], s->sw.name[x]);
    }
    return MCIO_SUCCESS;
}

/* Each node's nearest I/O node and its hops. Bridges: named nodes or switches; by default the
 * I/O node hangs from the root switch. */
static int slurm_bridges(parser *p, const slurm *s, int root, mcio_network *net)
{
    net->io_hops = malloc((size_t)net->nnodes * sizeof(int));
    net->io_of_node = malloc((size_t)net->nnodes * sizeof(int));
    if (!net->io_hops || !net->io_of_node)
        return MCIO_ERR_NOMEM;
    net->nio = s->io.n ? s->io.n : 1;
    for (int a = 0; a < net->nnodes; a++) {
        net->io_hops[a] = INT_MAX;
        for (int i = 0; i < net->nio; i++) {
            int h;
            if (!s->io.n) {
                h = tree_levels(net, net->switch_of_node[a], root) + 1;
            } else {
                int nd = names_find(&s->node, s->io.name[i]);
                int sw = names_find(&s->sw, s->io.name[i]);
                if (nd < 0 && sw < 0)
                    return fail(p, s->io_line, "io: '%s' is neither a node nor a switch",
                                s->io.name[i]);
                h = (nd >= 0 ? mcio_network_hops(net, a, nd)
                             : tree_levels(net, net->switch_of_node[a], sw)) + 1;
            }
            if (h < net->io_hops[a]) {
                net->io_hops[a] = h;
                net->io_of_node[a] = i;
            }
        }
    }
    return MCIO_SUCCESS;
}

static int parse_slurm(parser *p, const char *text, mcio_network *net)
{
    slurm s = {0};
    int root = -1;
    int st = slurm_lines(p, text, &s, net);
    if (st == MCIO_SUCCESS)
        st = slurm_tree(p, &s, &root);
    if (st == MCIO_SUCCESS) {
        net->kind = MCIO_NET_TREE;
        net->nnodes = s.node.n;
        net->nswitches = s.sw.n;
        net->parent = s.parent;
        net->switch_of_node = s.node_switch;
        s.parent = s.node_switch = NULL;
        st = slurm_bridges(p, &s, root, net);
    }
    slurm_free(&s);
    return st;
}

/* ---- grid and matrix ---- */

static int parse_grid_dims(parser *p, mcio_network *net, char **tok, int n)
{
    if (n < 2 || n - 1 > MCIO_NET_MAX_DIMS)
        return fail(p, p->line, "grid needs 1 to %d dimensions", MCIO_NET_MAX_DIMS);
    net->ndims = n - 1;
    int64_t total = 1;
    for (int k = 0; k < net->ndims; k++) {
        char *colon = strchr(tok[k + 1], ':');
        const char *kind = colon ? colon + 1 : "torus";
        if (colon)
            *colon = '\0';
        if (parse_int(tok[k + 1], 1, MAX_NODES, &net->size[k]))
            return fail(p, p->line, "dimension %d: '%s' is not a size from 1 to %d", k + 1,
                        tok[k + 1], MAX_NODES);
        if (strcmp(kind, "torus") == 0)
            net->dim_kind[k] = MCIO_DIM_TORUS;
        else if (strcmp(kind, "mesh") == 0)
            net->dim_kind[k] = MCIO_DIM_MESH;
        else if (strcmp(kind, "all") == 0)
            net->dim_kind[k] = MCIO_DIM_ALL;
        else
            return fail(p, p->line, "dimension %d: '%s' is not torus, mesh or all", k + 1, kind);
        total *= net->size[k];
        if (total > MAX_NODES)
            return fail(p, p->line, "more than %d positions", MAX_NODES);
    }
    return MCIO_SUCCESS;
}

/* Coordinates tok[0..ndims) into c, each within its dimension. */
static int parse_coords(parser *p, const mcio_network *net, char **tok, int n, const char *what,
                        int *c)
{
    if (n != net->ndims)
        return fail(p, p->line, "%s needs %d coordinates, found %d", what, net->ndims, n);
    for (int k = 0; k < net->ndims; k++)
        if (parse_int(tok[k], 0, net->size[k] - 1, &c[k]))
            return fail(p, p->line, "%s: coordinate %d '%s' is not in [0, %d)", what, k + 1,
                        tok[k], net->size[k]);
    return MCIO_SUCCESS;
}

static int push_int(int **a, int *n, int *cap, int v)
{
    if (grow_int(a, cap, *n + 1))
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
        if (n != 2 || parse_int(tok[1], 1, MAX_MATRIX_NODES, &net->nnodes))
            return fail(p, p->line, "expected 'matrix <nodes>' with 1 to %d nodes",
                        MAX_MATRIX_NODES);
        net->hops = malloc((size_t)net->nnodes * net->nnodes * sizeof(int));
        return net->hops ? MCIO_SUCCESS : MCIO_ERR_NOMEM;
    }
    return fail(p, p->line,
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
    else if (n != 2 || parse_int(tok[1], 0, net->nnodes - 1, &c[0]))
        st = fail(p, p->line, "expected 'io <node>' with a node in [0, %d)", net->nnodes);
    if (st)
        return st;
    if (k->nio_ints / per >= MAX_IO)
        return fail(p, p->line, "more than %d I/O nodes", MAX_IO);
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
        return fail(p, p->line, "more than %d nodes", MAX_NODES);
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
        return fail(p, p->line, "more than %d rows", net->nnodes);
    if (n != net->nnodes)
        return fail(p, p->line, "row %d has %d distances, expected %d", row, n, net->nnodes);
    for (int k = 0; k < n; k++) {
        int h;
        if (parse_int(tok[k], 0, 1 << 20, &h))
            return fail(p, p->line, "'%s' is not a hop count", tok[k]);
        if ((k == row) != (h == 0))
            return fail(p, p->line, "row %d, column %d: %d hops (a node is 0 hops from "
                        "itself only)", row, k, h);
        if (k < row && net->hops[(size_t)k * net->nnodes + row] != h)
            return fail(p, p->line, "row %d, column %d: %d hops, but row %d says %d", row, k, h, k,
                        net->hops[(size_t)k * net->nnodes + row]);
        net->hops[(size_t)row * net->nnodes + k] = h;
    }
    kf->row++;
    return MCIO_SUCCESS;
}

/* One line after the header. */
static int keyword_line(parser *p, mcio_network *net, char **tok, int n, keyword_file *k)
{
    int r = n == 2 ? link_key(p, tok[0], tok[1], net) : 0;
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
    return fail(p, p->line, "unknown directive '%s'", tok[0]);
}

/* After the last line: the file complete, the grid's nodes, each node's nearest I/O node. */
static int keyword_finish(parser *p, mcio_network *net, keyword_file *k)
{
    if (!k->header)
        return fail(p, 0, "empty topology file");
    if (net->kind == MCIO_NET_MATRIX && k->row < net->nnodes)
        return fail(p, 0, "%d rows of distances, expected %d", k->row, net->nnodes);
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
    for (p->line = 1; (line = next_line(&text)) != NULL; p->line++) {
        if (strchr(line, '#'))
            *strchr(line, '#') = '\0';
        if ((n = tokenize(line, tok)) < 0) {
            st = fail(p, p->line, "too many words on one line");
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
    st = slurm ? parse_slurm(&p, text, net) : parse_keyword_file(&p, text, net);
    if (st == MCIO_ERR_NOMEM && !detail[0])
        snprintf(detail, MCIO_DETAIL_LEN, "%s: out of memory", name);
    if (st != MCIO_SUCCESS)
        mcio_network_free(net);
    return st;
}
