/*
 * The network model's Slurm parser (mcio_network.c holds the model and the other formats):
 * topology.conf's SwitchName= lines, Slurm's hostlist expressions and a hash table of the node
 * names. Design note, paper and glossary in mcio_network.h; the format in docs/topology.md.
 */
#include "mcio_fnv1a.h"
#include "mcio_network.h"
#include "network_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
        if (mcio_net_parse_int(buf, 0, INT_MAX - 1, &lo) ||
            (dash ? mcio_net_parse_int(dash + 1, 0, INT_MAX - 1, &hi) : (hi = lo, 0)) || hi < lo ||
            hi - lo >= MAX_NODES) {
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

static int slurm_add_node(void *arg, const char *name)
{
    slurm *s = arg;
    if (names_find(&s->node, name) >= 0)
        return -1;
    int k = names_add(&s->node, name);
    int cap = s->ncap;
    if (k < 0 || mcio_net_grow_int(&s->node_switch, &cap, k + 1))
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
            return mcio_net_fail(p, p->line, "'#mcio %s' is not key=value", tok[i]);
        *eq = '\0';
        val = eq + 1;
        int r = mcio_net_link_key(p, tok[i], val, net);
        if (r < 0)
            return -r;
        if (r)
            continue;
        if (strcmp(tok[i], "io") != 0)
            return mcio_net_fail(p, p->line, "unknown #mcio key '%s' (io, latency, bandwidth)",
                                 tok[i]);
        if (expand_hostlist(val, slurm_add_io, s, why, sizeof why))
            return mcio_net_fail(p, p->line, "io=%s: %s", val, why);
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
        return mcio_net_fail(p, p->line, "expected SwitchName=<name> first, found '%s'", tok[0]);
    if (names_find(&s->sw, swname) >= 0)
        return mcio_net_fail(p, p->line, "switch '%s' defined twice (first on line %d)", swname,
                             s->sw_line[names_find(&s->sw, swname)]);
    int k = names_add(&s->sw, swname);
    int c1 = *cap, c2 = *cap, c3 = *cap;
    if (k < 0 || mcio_net_grow_int(&s->parent, &c1, k + 1) ||
        mcio_net_grow_int(&s->parent_line, &c2, k + 1) ||
        mcio_net_grow_int(&s->sw_line, &c3, k + 1))
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
                return mcio_net_fail(p, p->line, "Nodes=%s: %s", val, why);
            }
        } else if (key_is(tok[i], "Switches", &val)) {
            if (expand_hostlist(val, slurm_add_ref, s, why, sizeof why))
                return mcio_net_fail(p, p->line, "Switches=%s: %s", val, why);
        } else if (!strchr(tok[i], '=')) {
            return mcio_net_fail(p, p->line, "'%s' is not key=value", tok[i]);
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
    for (p->line = 1; (line = mcio_net_next_line(&text)) != NULL; p->line++) {
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
        int n = mcio_net_tokenize(body, tok);
        if (n < 0)
            st = mcio_net_fail(p, p->line, "too many words on one line");
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
            return mcio_net_fail(p, s->ref_line[i], "switch '%s' is not defined", s->ref[i]);
        if (s->parent[child] >= 0)
            return mcio_net_fail(p, s->ref_line[i], "switch '%s' already has parent '%s' (line %d)",
                                 s->ref[i], s->sw.name[s->parent[child]], s->parent_line[child]);
        s->parent[child] = s->ref_parent[i];
        s->parent_line[child] = s->ref_line[i];
    }
    if (s->node.n == 0)
        return mcio_net_fail(p, 0, "no nodes (no Nodes= on any SwitchName line)");
    *root = -1;
    for (int k = 0; k < s->sw.n; k++) {
        int steps = 0, x = k;
        while (s->parent[x] >= 0 && steps <= s->sw.n)
            x = s->parent[x], steps++;
        if (steps > s->sw.n)
            return mcio_net_fail(p, s->sw_line[k], "switch '%s' is its own ancestor",
                                 s->sw.name[k]);
        if (*root < 0)
            *root = x;
        else if (x != *root)
            return mcio_net_fail(
                p, s->sw_line[x],
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
                h = mcio_net_tree_levels(net, net->switch_of_node[a], root) + 1;
            } else {
                int nd = names_find(&s->node, s->io.name[i]);
                int sw = names_find(&s->sw, s->io.name[i]);
                if (nd < 0 && sw < 0)
                    return mcio_net_fail(p, s->io_line, "io: '%s' is neither a node nor a switch",
                                         s->io.name[i]);
                h = (nd >= 0 ? mcio_network_hops(net, a, nd)
                             : mcio_net_tree_levels(net, net->switch_of_node[a], sw)) +
                    1;
            }
            if (h < net->io_hops[a]) {
                net->io_hops[a] = h;
                net->io_of_node[a] = i;
            }
        }
    }
    return MCIO_SUCCESS;
}

int mcio_net_parse_slurm(parser *p, const char *text, mcio_network *net)
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
