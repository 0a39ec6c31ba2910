/*
 * The cost model's table (issue 20): the defaults of a file system's kind where nothing is
 * calibrated, and the calibration cache's text (mcio_cost_format, mcio_cost_parse) with the
 * choice of the best figures between a cached table and a new probe (mcio_cost_keep_best).
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
    COST_KEY("copy_cold", copy_cold),
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))
#define FS_KEYS 10 /* keys[0..9]: the file system's figures: call and byte by op and c, sync */

/* What an operation's file-system figures of t say one call of 1 MiB costs (a write with its
 * sync), by one rank alone plus by one of conc ranks at once: which of two probes found the
 * file system faster. */
static double fs_reference(const mcio_cost_table *t, int op)
{
    double mib = (double)(1 << 20), sync = op == MCIO_COST_WRITE ? t->sync[0] + t->sync[1] : 0;
    return t->call[op][0] + t->call[op][1] + mib * (t->byte[op][0] + t->byte[op][1]) + sync;
}

int mcio_cost_keep_best(const mcio_cost_table *cached, const mcio_cost_table *probed,
                        mcio_cost_table *out)
{
    mcio_cost_table x = *probed;
    int slower = 0;
    for (int i = 0; i < NKEYS; i++) {
        const double *c = (const double *)((const char *)cached + keys[i].at);
        double *v = (double *)((char *)&x + keys[i].at);
        /* Concurrent figures of another number of ranks per node are not comparable. */
        int concurrent = keys[i].key[strlen(keys[i].key) - 1] == 'n';
        if (concurrent && cached->conc != probed->conc)
            continue;
        slower += *v > 2 * *c;
        if (*c < *v && i >= FS_KEYS) /* the file system's: below, by operation */
            *v = *c;
    }
    /* An operation's file-system figures (call and byte, alone and concurrent; a write's sync too)
     * are kept together, from the probe that found them cheaper: the choice between independent
     * access and aggregation rests on the ratio of the concurrent figures to the lone ones, which
     * only one probe's figures hold. Taken figure by figure (this host's GlusterFS, 4 probes), the
     * lone read of a quiet moment sat beside concurrent reads of other probes: with either probe's
     * own four figures, reads of contiguous, ior, hacc-aos, mpi-io-test and tapioca went
     * independent (measured 3-4x faster than one aggregator), with the mix they all aggregated.
     * With another conc (another layout) they are the probe's. */
    for (int op = 0; cached->conc == probed->conc && op < 2; op++)
        if (fs_reference(cached, op) < fs_reference(probed, op))
            for (int c = 0; c < 2; c++) {
                x.call[op][c] = cached->call[op][c], x.byte[op][c] = cached->byte[op][c];
                if (op == MCIO_COST_WRITE)
                    x.sync[c] = cached->sync[c];
            }
    x.probes = (cached->probes > 0 ? cached->probes : 1) + 1;
    x.load = probed->load;
    *out = x;
    return slower;
}

int mcio_cost_format(const mcio_cost_table *t, int64_t date, char *buf, size_t len)
{
    int n = snprintf(buf, len, "# mcio calibration (mcio-calibrate; seconds)\ndate %" PRId64
                     "\nconc %d\nprobes %d\n", date, t->conc, t->probes > 0 ? t->probes : 1);
    if (t->load >= 0) {
        size_t at = n < 0 || (size_t)n >= len ? len : (size_t)n;
        n += snprintf(buf + at, len - at, "load %.2f\n", t->load);
    }
    for (int i = 0; i < NKEYS; i++) {
        size_t at = n < 0 || (size_t)n >= len ? len : (size_t)n;
        n += snprintf(buf + at, len - at, "%s %.6e\n", keys[i].key,
                      *(const double *)((const char *)t + keys[i].at));
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

int mcio_cost_parse(const char *text, mcio_cost_table *t, int64_t *date, char *why, size_t len)
{
    mcio_cost_table x = {.overlap = -1, .piece = DEFAULT_PIECE, .probes = 1, .load = -1};
    unsigned seen = 0; /* bit i: keys[i]; bit NKEYS: date; NKEYS + 1: conc */
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
            int got = sscanf(buf, "%63s %lf %63s", key, &v, rest);
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
        if (!(seen & (1u << i)))
            return bad_table(why, len, 0, "no line for ",
                             i < NKEYS ? keys[i].key : i == NKEYS ? "date" : "conc");
    x.calibrated = 1;
    *t = x;
    *date = when;
    return 0;
}
