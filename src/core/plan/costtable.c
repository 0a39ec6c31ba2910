/*
 * The cost model's table (issue 20): the defaults of a file system's kind where nothing is
 * calibrated, and the calibration cache's text (mcio_cost_format, mcio_cost_parse) with the
 * medians of a cached table's last probes and a new one (mcio_cost_merge; issue 48).
 * The figures themselves are measured by src/engine/mcio_calibrate.c; what they mean is in
 * mcio_costmodel.h and at the top of costmodel.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mcio_costmodel.h"

/* The datatype engine's cost per block where it is not measured (MPICH's and Open MPI's,
 * 128-byte blocks, on this host: mcio_calibrate.c's piece_here). */
#define DEFAULT_PIECE 20e-9

mcio_cost_table mcio_cost_defaults(int remote)
{
    /* Orders of magnitude, not measurements: the page cache moves a few GB/s per rank and a
     * call costs microseconds; a network file system (GlusterFS over FUSE here, NFS, Lustre)
     * costs a round trip per call and a network's bandwidth shared by a node's ranks. */
    mcio_cost_table t = {.conc = 8,
                         .msg = 20e-6,
                         .msg_byte = 1.0 / 2e9,
                         .coll = 50e-6,
                         .copy_byte = 1.0 / 4e9,
                         .copy_cold = 1.0 / 1e9,
                         .crowd = 1,
                         .piece = DEFAULT_PIECE,
                         .overlap = 1,
                         .remote = remote,
                         .calibrated = 0,
                         .load = -1};
    double call = remote ? 150e-6 : 3e-6, bw = remote ? 300e6 : 2.5e9;
    for (int op = 0; op < 2; op++) {
        t.call[op][0] = call;
        t.call[op][1] = call * (remote ? 2.0 : 4.0); /* 8 ranks on 2 cores, or on one client */
        t.byte[op][0] = 1.0 / bw;
        t.byte[op][1] = (double)t.conc / (bw * (remote ? 1.0 : 2.0)); /* the node's share */
    }
    /* A sync waits for the servers' own flush: about a millisecond alone (GlusterFS here),
     * several when a node's writers sync at once. Nothing where writes do not end with one. */
    t.sync[0] = remote ? 1e-3 : 0;
    t.sync[1] = remote ? 4e-3 : 0;
    return t;
}

/* --- the calibration cache's text --- */

typedef struct cost_key {
    const char *key;
    size_t at; /* offset of a double in mcio_cost_table */
} cost_key;

#define COST_KEY(name, field) {name, offsetof(mcio_cost_table, field)}
static const cost_key keys[] = {
    COST_KEY("write_call_1", call[0][0]), COST_KEY("write_call_n", call[0][1]),
    COST_KEY("read_call_1", call[1][0]),  COST_KEY("read_call_n", call[1][1]),
    COST_KEY("write_byte_1", byte[0][0]), COST_KEY("write_byte_n", byte[0][1]),
    COST_KEY("read_byte_1", byte[1][0]),  COST_KEY("read_byte_n", byte[1][1]),
    COST_KEY("write_sync_1", sync[0]),    COST_KEY("write_sync_n", sync[1]),
    COST_KEY("msg", msg),                 COST_KEY("msg_byte", msg_byte),
    COST_KEY("coll", coll),               COST_KEY("copy_byte", copy_byte),
    COST_KEY("copy_cold", copy_cold),     COST_KEY("crowd", crowd),
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))
#define FS_KEYS 10 /* keys[0..9]: the file system's figures: call and byte by op and c, sync */
#define CROWD_KEY 15 /* optional (a table pinned before it existed): 1, no stretch */

_Static_assert(NKEYS == MCIO_COST_FIGURES, "the history holds every figure of the cache");
_Static_assert(CROWD_KEY == NKEYS - 1, "crowd is the last key");

/* A figure of t by its index in keys[]. */
static double *figure(mcio_cost_table *t, int i)
{
    return (double *)((char *)t + keys[i].at);
}

static double figure_of(const mcio_cost_table *t, int i)
{
    return *(const double *)((const char *)t + keys[i].at);
}

/* What an operation's file-system figures (v: a probe's, by keys[]) say one call of 1 MiB
 * costs (a write with its sync), by one rank alone plus by one of conc ranks at once: which
 * probe found the file system faster. */
static double fs_reference(const double *v, int op)
{
    double mib = (double)(1 << 20);
    int w = op == MCIO_COST_WRITE, call = w ? 0 : 2, byte = w ? 4 : 6;
    double sync = w ? v[8] + v[9] : 0;
    return v[call] + v[call + 1] + mib * (v[byte] + v[byte + 1]) + sync;
}

/* A message of 1 MiB (keys[10] msg, keys[11] msg_byte): what an exchange pays. */
static double msg_reference(const double *v)
{
    return v[10] + (double)(1 << 20) * v[11];
}

/* The median of n values (the lower of the middle two for even n): which one, by index. */
static int median_index(const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        int below = 0, equal_before = 0;
        for (int j = 0; j < n; j++)
            below += v[j] < v[i], equal_before += j < i && v[j] == v[i];
        if (below + equal_before == (n - 1) / 2)
            return i;
    }
    return 0;
}

/* Half the range of n values over their median. */
static double half_range(const double *v, int n)
{
    double lo = v[0], hi = v[0];
    for (int i = 1; i < n; i++)
        lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
    double mid = v[median_index(v, n)];
    return mid > 0 ? (hi - lo) / (2 * mid) : 0;
}

/* The spread the choice gives the figures: one probe says nothing of its noise (SPREAD_ONE);
 * never below SPREAD_MIN (the model's own error: candidates 1 % apart are not told apart by
 * it, issue 48), nor above SPREAD_MAX (beyond, the probes disagree so much that the choice
 * would be the preference's alone). */
#define SPREAD_ONE 0.10
#define SPREAD_MIN 0.05
#define SPREAD_MAX 0.50

/* The figures of t from its history: medians (an operation's file-system figures from its
 * median probe), and the spread per operation. */
static void from_history(mcio_cost_table *t)
{
    int n = t->kept;
    double col[MCIO_COST_HISTORY], ref[MCIO_COST_HISTORY], msg[MCIO_COST_HISTORY];
    for (int i = FS_KEYS; i < NKEYS; i++) {
        for (int k = 0; k < n; k++)
            col[k] = t->hist[k][i];
        *figure(t, i) = col[median_index(col, n)];
    }
    for (int k = 0; k < n; k++)
        msg[k] = msg_reference(t->hist[k]);
    for (int op = 0; op < 2; op++) {
        for (int k = 0; k < n; k++)
            ref[k] = fs_reference(t->hist[k], op);
        const double *mid = t->hist[median_index(ref, n)];
        for (int i = 0; i < FS_KEYS; i++) /* the other operation's figures: its own loop */
            if ((i < 8 && (i / 2) % 2 == op) || (i >= 8 && op == MCIO_COST_WRITE))
                *figure(t, i) = mid[i];
        double s = n < 2 ? SPREAD_ONE : half_range(ref, n);
        double m = n < 2 ? 0 : half_range(msg, n);
        s = m > s ? m : s;
        t->spread[op] = s < SPREAD_MIN ? SPREAD_MIN : s > SPREAD_MAX ? SPREAD_MAX : s;
    }
}

void mcio_cost_history_start(mcio_cost_table *t)
{
    t->kept = 1;
    for (int i = 0; i < NKEYS; i++)
        t->hist[0][i] = figure_of(t, i);
    from_history(t);
}

int mcio_cost_merge(const mcio_cost_table *cached, const mcio_cost_table *probed,
                    mcio_cost_table *out)
{
    mcio_cost_table x = *probed;
    int slower = 0;
    for (int i = 0; i < NKEYS; i++) {
        /* Concurrent figures of another number of ranks per node are not comparable. */
        int concurrent = keys[i].key[strlen(keys[i].key) - 1] == 'n';
        if (!concurrent || cached->conc == probed->conc)
            slower += figure_of(probed, i) > 2 * figure_of(cached, i);
    }
    int keep = cached->conc == probed->conc && cached->kept > 0 ? cached->kept : 0;
    int drop = keep == MCIO_COST_HISTORY ? 1 : 0; /* the oldest makes room */
    x.kept = keep - drop + 1;
    for (int k = 0; k < keep - drop; k++)
        memcpy(x.hist[k], cached->hist[k + drop], sizeof x.hist[k]);
    for (int i = 0; i < NKEYS; i++)
        x.hist[x.kept - 1][i] = figure_of(probed, i);
    from_history(&x);
    memcpy(x.ncorr, cached->ncorr, sizeof x.ncorr);
    memcpy(x.corr, cached->corr, sizeof x.corr);
    x.probes = (cached->probes > 0 ? cached->probes : 1) + 1;
    x.load = probed->load;
    *out = x;
    return slower;
}

/* snprintf at buf + n of len, as a sum of snprintf's: the length wanted. */
#define APPEND(n, buf, len, ...)                                                               \
    ((n) += snprintf((buf) + ((n) < 0 || (size_t)(n) >= (len) ? (len) : (size_t)(n)),          \
                     (n) < 0 || (size_t)(n) >= (len) ? 0 : (len) - (size_t)(n), __VA_ARGS__))

static const char *const op_name[2] = {"write", "read"}; /* [MCIO_COST_WRITE / READ] */

int mcio_cost_format(const mcio_cost_table *t, int64_t date, char *buf, size_t len)
{
    int n = snprintf(buf, len, "# mcio calibration (mcio-calibrate; seconds)\nformat 2\ndate %"
                     PRId64 "\nconc %d\nprobes %d\n", date, t->conc, t->probes > 0 ? t->probes : 1);
    if (t->load >= 0)
        APPEND(n, buf, len, "load %.2f\n", t->load);
    for (int i = 0; i < NKEYS; i++)
        APPEND(n, buf, len, "%s %.6e\n", keys[i].key, figure_of(t, i));
    /* Derived from the hist_ lines when read; written for whoever reads the file. */
    for (int op = 0; t->kept > 0 && op < 2; op++)
        APPEND(n, buf, len, "spread_%s %.3f\n", op_name[op], t->spread[op]);
    for (int i = 0; t->kept > 0 && i < NKEYS; i++) {
        APPEND(n, buf, len, "hist_%s", keys[i].key);
        for (int k = 0; k < t->kept && k < MCIO_COST_HISTORY; k++)
            APPEND(n, buf, len, " %.6e", t->hist[k][i]);
        APPEND(n, buf, len, "\n");
    }
    for (int op = 0; op < 2; op++)
        for (int k = 0; k < t->ncorr[op] && k < MCIO_COST_CORRECTIONS; k++) {
            const mcio_cost_correction *c = &t->corr[op][k];
            APPEND(n, buf, len, "correct_%s %" PRIx64 " %d %d %d %d %" PRId64 " %.4f\n",
                   op_name[op], c->shape, c->independent, c->strategy, c->aggs_per_node, c->depth,
                   c->buffer, c->factor);
        }
    return n;
}

/* mcio_cost_parse's failure: -1, with why (when not NULL) saying what is wrong. */
static int bad_table(char *why, size_t len, int line, const char *what, const char *key)
{
    if (why && line > 0)
        snprintf(why, len, "line %d: %s%s%s", line, key ? key : "", key ? ": " : "", what);
    else if (why)
        snprintf(why, len, "%s%s", what, key ? key : "");
    return -1;
}

/* Whether line's remainder from rest on is blank. */
static int blank(const char *rest)
{
    while (*rest == ' ' || *rest == '\t' || *rest == '\r')
        rest++;
    return *rest == '\0';
}

/* A "hist_<key>" line of format 2 (counts[i]: how many probes hist_ line i held) or a
 * "correct_<op>" line into x: 1 when line is one (unknown keys of either kind are ignored), 0
 * when it is not, -1 when it is malformed (why says). */
static int parse_list(const char *line, int lineno, mcio_cost_table *x, int *counts, char *why,
                      size_t len)
{
    char key[64];
    int at = 0;
    if (sscanf(line, "%63s%n", key, &at) != 1)
        return 0;
    const char *rest = line + at;
    if (strncmp(key, "hist_", 5) == 0) {
        for (int i = 0; i < NKEYS; i++) {
            if (strcmp(key + 5, keys[i].key) != 0)
                continue;
            int n = 0, used = 0;
            double v;
            for (; sscanf(rest, " %lf%n", &v, &used) == 1; rest += used) {
                if (!(isfinite(v) && v >= 0) || n == MCIO_COST_HISTORY)
                    return bad_table(why, len, lineno, "not up to 5 finite values >= 0", key);
                x->hist[n++][i] = v;
            }
            if (n == 0 || !blank(rest))
                return bad_table(why, len, lineno, "not up to 5 finite values >= 0", key);
            counts[i] = n;
        }
        return 1;
    }
    int op = strcmp(key, "correct_write") == 0 ? MCIO_COST_WRITE
             : strcmp(key, "correct_read") == 0 ? MCIO_COST_READ
                                                 : -1;
    if (op < 0)
        return strncmp(key, "correct_", 8) == 0;
    mcio_cost_correction c = {0};
    int used = 0;
    if (sscanf(rest, " %" SCNx64 " %d %d %d %d %" SCNd64 " %lf%n", &c.shape, &c.independent,
               &c.strategy, &c.aggs_per_node, &c.depth, &c.buffer, &c.factor, &used) != 7 ||
        !blank(rest + used) || !(c.factor >= 0.25 && c.factor <= 4) || c.depth < 1)
        return bad_table(why, len, lineno,
                         "not \"shape independent strategy aggregators depth buffer factor\"",
                         key);
    if (x->ncorr[op] < MCIO_COST_CORRECTIONS)
        x->corr[op][x->ncorr[op]++] = c;
    return 1;
}

int mcio_cost_parse(const char *text, mcio_cost_table *t, int64_t *date, char *why, size_t len)
{
    mcio_cost_table x = {.overlap = -1, .piece = DEFAULT_PIECE, .probes = 1, .load = -1,
                         .crowd = 1};
    unsigned seen = 0; /* bit i: keys[i]; bit NKEYS: date; NKEYS + 1: conc */
    int counts[NKEYS]; /* probes on each hist_ line; -1: none */
    for (int i = 0; i < NKEYS; i++)
        counts[i] = -1;
    int64_t when = 0;
    int lineno = 0;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char buf[128], key[64], rest[64];
        double v;
        lineno++;
        if (n < sizeof buf && line[0] != '#') {
            memcpy(buf, line, n);
            buf[n] = '\0';
            int list = parse_list(buf, lineno, &x, counts, why, len);
            if (list < 0)
                return -1;
            int got = list ? 0 : sscanf(buf, "%63s %lf %63s", key, &v, rest);
            if (got == 1 || got == 3)
                return bad_table(why, len, lineno, "not \"key value\"", NULL);
            if (got == 2 && !(isfinite(v) && v >= 0))
                return bad_table(why, len, lineno, "not a finite value >= 0", key);
            for (int i = 0; got == 2 && i < NKEYS; i++)
                if (strcmp(key, keys[i].key) == 0)
                    *(double *)((char *)&x + keys[i].at) = v, seen |= 1u << i;
            if (got == 2 && strcmp(key, "overlap") == 0) {
                if (v > 1)
                    return bad_table(why, len, lineno, "above 1", key);
                x.overlap = v;
            }
            if (got == 2 && strcmp(key, "date") == 0)
                when = (int64_t)v, seen |= 1u << NKEYS;
            if (got == 2 && strcmp(key, "probes") == 0 && v >= 1 && v <= 1 << 30)
                x.probes = (int)v;
            if (got == 2 && strcmp(key, "load") == 0)
                x.load = v;
            if (got == 2 && strcmp(key, "piece") == 0) /* optional: measured at open */
                x.piece = v;
            if (got == 2 && strcmp(key, "conc") == 0) {
                if (v < 2 || v > 1 << 20 || v != floor(v))
                    return bad_table(why, len, lineno, "not a whole number from 2 to 2^20", key);
                x.conc = (int)v, seen |= 1u << (NKEYS + 1);
            }
        } else if (n >= sizeof buf) {
            return bad_table(why, len, lineno, "longer than 127 characters", NULL);
        }
        line = nl ? nl + 1 : NULL;
    }
    for (int i = 0; i < NKEYS + 2; i++) /* the first key missing (a cache of an older mcio) */
        if (!(seen & (1u << i)) && i != CROWD_KEY)
            return bad_table(why, len, 0, "no line for ",
                             i < NKEYS ? keys[i].key : i == NKEYS ? "date" : "conc");
    /* Format 2's probes, all of one count, else (an older cache) the figures as one probe. */
    x.kept = counts[0] > 0 ? counts[0] : 0;
    for (int k = 0; counts[CROWD_KEY] < 0 && k < x.kept; k++) /* optional: its figure */
        x.hist[k][CROWD_KEY] = x.crowd;
    counts[CROWD_KEY] = counts[CROWD_KEY] < 0 ? counts[0] : counts[CROWD_KEY];
    for (int i = 1; i < NKEYS; i++)
        if (counts[i] != counts[0])
            return bad_table(why, len, 0, "hist_ lines of unequal counts or missing: ",
                             keys[i].key);
    if (x.kept > 0)
        from_history(&x);
    else
        mcio_cost_history_start(&x);
    x.calibrated = 1;
    *t = x;
    *date = when;
    return 0;
}
