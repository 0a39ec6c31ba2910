/*
 * mcio-plan: what mcio would do on a job, without running it. Runs only the pure planner
 * (the mcio_core library, no MPI) on a described layout: an access pattern and its size as in
 * mcio-bench, the ranks and ranks per node, the memory of each node, and hints; prints the
 * aggregation groups, the partition tree, the file domains with their bytes and aggregators,
 * and the memory each node would spend, or all of it as JSON.
 *
 * The planner needs one summary per rank (first byte, end, bytes): they are computed here in
 * closed form for each pattern (the random pattern is walked once for all ranks), never as
 * per-rank extent lists, so 100,000 ranks take milliseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcio_costmodel.h"
#include "mcio_decide.h"
#include "mcio_layers.h"
#include "mcio_fs.h"
#include "mcio_hints.h"
#include "mcio_memory.h"
#include "mcio_planner.h"
#include "patterns.h"

static const char usage[] =
    "usage: mcio-plan [options]\n"
    "Plans one collective call as mcio would (the pure planner only) and prints the plan.\n"
    "  --pattern P        contiguous, ior, coll_perf, hacc-aos, hacc-soa, random, tapioca,\n"
    "                     mpi-io-test, gcrm, flash-io, fragmented (default ior): mcio-bench's\n"
    "                     layouts\n"
    "  --size N           bytes per rank (k, m, g suffixes; default 16m)\n"
    "  --transfer N       ior transfer size (default 256k, or --size if smaller)\n"
    "  --random-max N     random: the most bytes a rank gets (default 2m)\n"
    "  --seed N           random: seed (default 1)\n"
    "  --ranks N          number of ranks (default 8)\n"
    "  --ranks-per-node K consecutive ranks per node (default 1)\n"
    "  --node-memory SPEC memory per node, as MCIO_VIRTUAL_NODE_MEMORY: a list (64m,16m,0,\n"
    "                     repeated over the nodes) or normal:MEAN:SD[:SEED], or detect: every\n"
    "                     node has what this process has (MemAvailable, its memory cgroup,\n"
    "                     its rlimits, as mcio reads them); default: no limit\n"
    "  --strategy S       auto, memory, romio or fit (default auto, the library's: the cost\n"
    "                     model's choice; same as --hint mcio_strategy=S)\n"
    "  --hint KEY=VAL     a hint, repeatable (mcio_nah, mcio_msgind, mcio_msggroup, mcio_memmin,\n"
    "                     mcio_node_memory, cb_buffer_size, cb_nodes, striping_unit, ...)\n"
    "  --fs-path PATH     plan for the file system that holds PATH, as mcio_file_open does: its\n"
    "                     kind and stripe size (GlusterFS: the shard size) are printed, and\n"
    "                     a write's domains align on the stripe unless striping_unit is\n"
    "                     given (a read's align on striping_unit only)\n"
    "  --costs FILE       the cost model's figures (a calibration cache file, as mcio-calibrate\n"
    "                     writes it under ~/.cache/mcio); default: the defaults of the file\n"
    "                     system's kind (--fs-path: remote or not)\n"
    "  --op OP            write or read: the operation the cost model chooses for (default write)\n"
    "  --cores N          online cores per node, as the engine reads them at open: the node's\n"
    "                     ranks share them (default: unknown, each rank its core)\n"
    "  --cache N          bytes of one instance of a node's outermost cache level, as the\n"
    "                     engine reads it at open (k, m, g suffixes; default: unknown, no\n"
    "                     collective buffer cold)\n"
    "  --caches K         its instances per node (default 1): a socket's, a core complex's\n"
    "  --candidates       print every candidate the cost model predicted, in the order tried\n"
    "                     (--json always lists them)\n"
    "  --no-choice        skip the cost model's choice (at 100,000 ranks with --node-memory it\n"
    "                     plans the memory strategy once per candidate: minutes)\n"
    "  --max-print N      rows printed per table (default 40; --json prints everything)\n"
    "  --json             print JSON instead of tables\n"
    "  --help             this text\n";

typedef struct opts {
    const char *pattern;
    int64_t size, transfer, random_max, seed;
    int ranks, per_node, max_print, json, no_choice, candidates;
    const char *node_memory;
    mcio_hints hints;
    mcio_fsinfo fs; /* --fs-path; type MCIO_FS_UNKNOWN and stripe 0 without it */
    const char *costs; /* --costs */
    int read;          /* --op read */
    int cores;         /* --cores */
    int64_t cache;     /* --cache */
    int caches;        /* --caches */
} opts;

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "mcio-plan: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (see --help)\n");
    return 2;
}

static int parse(int argc, char **argv, opts *o)
{
    char detail[MCIO_DETAIL_LEN];
    *o = (opts){.pattern = "ior", .size = 16 << 20, .transfer = 256 << 10, .random_max = 2 << 20,
                .seed = 1, .ranks = 8, .per_node = 1, .max_print = 40};
    o->hints = mcio_hints_default(); /* the library's defaults: strategy auto, the cost model */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x;
        if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 1;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        } else if (!strcmp(a, "--no-choice")) {
            o->no_choice = 1;
            continue;
        } else if (!strcmp(a, "--candidates")) {
            o->candidates = 1;
            continue;
        }
        if (!v)
            return bad("%s needs a value%s", a, "");
        i++;
        if (!strcmp(a, "--pattern")) {
            o->pattern = v;
        } else if (!strcmp(a, "--costs")) {
            o->costs = v;
        } else if (!strcmp(a, "--cores")) {
            char *end;
            long c = strtol(v, &end, 10);
            if (*end || c < 1 || c > 1 << 20)
                return bad("--cores '%s' is not a count of cores%s", v, "");
            o->cores = (int)c;
        } else if (!strcmp(a, "--op")) {
            if (strcmp(v, "write") && strcmp(v, "read"))
                return bad("--op '%s' is not write or read%s", v, "");
            o->read = !strcmp(v, "read");
        } else if (!strcmp(a, "--fs-path")) {
            mcio_fs_probe(v, &o->fs);
        } else if (!strcmp(a, "--node-memory")) {
            if (strcmp(v, "detect") != 0 && mcio_memory_virtual(v, 0, NULL, detail) != MCIO_SUCCESS)
                return bad("--node-memory '%s': not a list of byte counts or normal:MEAN:SD[:SEED]%s",
                           v, "");
            o->node_memory = v;
        } else if (!strcmp(a, "--strategy") || !strcmp(a, "--hint")) {
            char key[128], *eq;
            snprintf(key, sizeof key, "%s", !strcmp(a, "--strategy") ? "mcio_strategy=" : "");
            snprintf(key + strlen(key), sizeof key - strlen(key), "%s", v);
            if (!(eq = strchr(key, '=')))
                return bad("--hint '%s' is not KEY=VALUE%s", v, "");
            *eq = '\0';
            if (mcio_hints_set(&o->hints, key, eq + 1, "command line", detail) != MCIO_SUCCESS)
                return bad("%s%s", detail, "");
        } else if (mcio_parse_bytes(v, 0, INT64_MAX / 4, &x)) {
            return bad("%s '%s' is not a count (digits, k/m/g suffix)", a, v);
        } else if (!strcmp(a, "--size")) {
            o->size = x;
        } else if (!strcmp(a, "--transfer") && x > 0) {
            o->transfer = x;
        } else if (!strcmp(a, "--random-max")) {
            o->random_max = x;
        } else if (!strcmp(a, "--cache")) {
            o->cache = x;
        } else if (!strcmp(a, "--caches") && x >= 1 && x <= (1 << 20)) {
            o->caches = (int)x;
        } else if (!strcmp(a, "--seed")) {
            o->seed = x;
        } else if (!strcmp(a, "--ranks") && x >= 1 && x <= (1 << 28)) {
            o->ranks = (int)x;
        } else if (!strcmp(a, "--ranks-per-node") && x >= 1 && x <= (1 << 28)) {
            o->per_node = (int)x;
        } else if (!strcmp(a, "--max-print")) {
            o->max_print = x > INT32_MAX ? INT32_MAX : (int)x;
        } else {
            return bad("unknown argument or value out of range: %s %s", a, v);
        }
    }
    if (o->transfer > o->size)
        o->transfer = o->size;
    return 0;
}

/* ---- The patterns' summaries (tools/patterns.c) ---- */

/* Every rank's summary: 0, -1 out of memory, -2 unknown pattern, -3 --size too small for it. */
static int summaries(const opts *o, mcio_summary *s)
{
    const pattern *p = patterns_find(o->pattern);
    if (!p)
        return -2;
    if (!p->summaries && o->size < p->min_size)
        return -3; /* the closed forms take any size; the extents need the pattern's least */
    pattern_args a = {.size = o->size, .transfer = o->transfer, .random_max = o->random_max,
                      .seed = (uint64_t)o->seed};
    patterns_grid(o->ranks, a.dims);
    return patterns_summaries(p, &a, o->ranks, s);
}

/* ---- Output ---- */

static const char *status_message(int st)
{
    switch (st) {
#define MCIO_X_CASE(name, value, msg)                                                              \
    case value: return msg;
        MCIO_ERRORS(MCIO_X_CASE)
#undef MCIO_X_CASE
    default: return "unknown status";
    }
}

static void human(double x, char *out, size_t n)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int i = 0;
    while (x >= 1024 && i < 5)
        x /= 1024, i++;
    snprintf(out, n, i ? "%.1f %s" : "%.0f %s", x, u[i]);
}

static void print_tree(const mcio_ptree *t, int v, int depth, int *printed, int max, int json,
                       int *first)
{
    if (v < 0)
        return;
    const mcio_ptree_vertex *x = &t->v[v];
    if (json) {
        printf("%s{\"id\":%d,\"group\":%d,\"parent\":%d,\"left\":%d,\"right\":%d,\"start\":%" PRId64
               ",\"end\":%" PRId64 ",\"bytes\":%" PRId64 "}",
               *first ? "" : ",", v, x->group, x->parent, x->left, x->right, x->start, x->end,
               x->bytes);
        *first = 0;
    } else if ((*printed)++ < max) {
        printf("  %*s[%" PRId64 ", %" PRId64 ") %" PRId64 " bytes%s\n", 2 * depth, "", x->start,
               x->end, x->bytes, x->left < 0 ? "  (file domain)" : "");
    }
    print_tree(t, x->left, depth + 1, printed, max, json, first);
    print_tree(t, x->right, depth + 1, printed, max, json, first);
}

/* ---- The job: the described machine, the plan and what it costs each node ---- */

enum { MAX_SEEN = 64 }; /* candidates kept for --candidates (mcio_cost_decide tries at most 37) */

typedef struct job {
    opts o;
    int n, nn;          /* ranks, nodes */
    mcio_summary *sum;  /* [n] */
    int *node, *sock;   /* [n]: node and socket of each rank */
    int64_t *mem;       /* [nn]: each node's memory budget, INT64_MAX: unlimited */
    int64_t *used;      /* [nn]: collective buffers placed on each node */
    int *aggs;          /* [nn]: aggregators on each node */
    int64_t total;      /* bytes requested */
    mcio_planner_params params;
    int independent;    /* the ranks' accesses do not interleave: each its own domain */
    int memory;         /* the memory strategy planned (d is filled) */
    double secs, cpu;   /* wall and CPU time of the planning call */
    mcio_fdplan plan;
    mcio_memplan d;
    char source[MCIO_MEM_WHERE_LEN + 16]; /* where the nodes' memory figure came from */
    int64_t *ext;            /* [n] extents per rank (the cost model), NULL above MAX_COUNTED */
    int64_t *calls;          /* [n] own access's system calls per rank (mcio_own_calls), idem */
    mcio_cost_table cost;    /* --costs, or the defaults of the file system's kind */
    mcio_cost_choice choice; /* what the default strategy (auto) would run */
    int chose;               /* the cost model could price the job */
    int decided;             /* strategy auto: job_plan took the plan from mcio_decide */
    mcio_cost_config seen[MAX_SEEN]; /* the candidates it predicted, in the order tried */
} job;

/* Ranks whose extents are counted for the cost model (walking the pattern); above, one extent
 * per rank is assumed. */
enum { MAX_COUNTED = 4096 };

static void job_free(job *j)
{
    mcio_fdplan_free(&j->plan);
    mcio_memplan_free(&j->d);
    free(j->sum);
    free(j->node);
    free(j->sock);
    free(j->mem);
    free(j->used);
    free(j->aggs);
    free(j->ext);
    free(j->calls);
}

/* The ranks' summaries and the nodes' memory. Returns 0, or the exit status after a message. */
static int job_describe(job *j)
{
    int n = j->n, nn = j->nn;
    char detail[MCIO_DETAIL_LEN];
    j->sum = malloc((size_t)n * sizeof *j->sum);
    j->node = malloc((size_t)n * sizeof(int));
    j->sock = calloc((size_t)n, sizeof(int));
    j->mem = malloc((size_t)nn * sizeof(int64_t));
    j->used = calloc((size_t)nn, sizeof(int64_t));
    j->aggs = calloc((size_t)nn, sizeof(int));
    if (!j->sum || !j->node || !j->sock || !j->mem || !j->used || !j->aggs) {
        fprintf(stderr, "mcio-plan: out of memory\n");
        return 1;
    }
    int rc = summaries(&j->o, j->sum);
    if (rc) {
        fprintf(stderr, rc == -2   ? "mcio-plan: unknown pattern '%s' (see --help)\n"
                        : rc == -3 ? "mcio-plan: --size is too small for the %s pattern\n"
                                   : "mcio-plan: out of memory (%s)\n",
                j->o.pattern);
        return 2;
    }
    for (int r = 0; r < n; r++)
        j->node[r] = r / j->o.per_node;
    for (int k = 0; k < nn; k++)
        j->mem[k] = INT64_MAX;
    /* Where the nodes' figure comes from, as MCIO_STATS says it (node_memory_source). */
    snprintf(j->source, sizeof j->source, "unknown");
    if (j->o.node_memory && !strcmp(j->o.node_memory, "detect")) {
        mcio_memory_probe p;
        mcio_memory_probe_at("", mcio_memory_rlimits(), &p);
        for (int k = 0; k < nn; k++)
            j->mem[k] = p.avail < 0 ? INT64_MAX : p.avail;
        int cg = p.source == MCIO_MEM_CGROUP_V1 || p.source == MCIO_MEM_CGROUP_V2;
        snprintf(j->source, sizeof j->source, "%s%s%s", mcio_memory_source_name(p.source),
                 cg ? ":" : "", cg ? p.cg_path : "");
    } else if (j->o.node_memory) {
        mcio_memory_virtual(j->o.node_memory, nn, j->mem, detail); /* checked when parsed */
        snprintf(j->source, sizeof j->source, "virtual");
    }
    for (int k = 0; k < nn; k++) /* the mcio_node_memory cap, as mcio_file_open applies it */
        if (j->o.hints.node_memory > 0 && j->o.hints.node_memory < j->mem[k]) {
            j->mem[k] = j->o.hints.node_memory;
            snprintf(j->source, sizeof j->source, "hint");
        }
    return 0;
}

/* A rank's extents as its pattern emits them, in arrays for mcio_extents_normalize (mem -1:
 * the rank's memory packed in extent order); nomem: an array could not grow. */
typedef struct collected {
    int64_t n, cap, packed, *off, *len, *mem;
    int nomem;
} collected;

static void collect_extent(void *ctx, int64_t off, int64_t len, int64_t mem)
{
    collected *c = ctx;
    if (c->n == c->cap) {
        int64_t cap = c->cap ? 2 * c->cap : 1024;
        int64_t *o = realloc(c->off, (size_t)cap * sizeof *o);
        c->off = o ? o : c->off;
        int64_t *l = realloc(c->len, (size_t)cap * sizeof *l);
        c->len = l ? l : c->len;
        int64_t *m = realloc(c->mem, (size_t)cap * sizeof *m);
        c->mem = m ? m : c->mem;
        if (!o || !l || !m) {
            c->nomem = 1;
            return;
        }
        c->cap = cap;
    }
    c->off[c->n] = off;
    c->len[c->n] = len;
    c->mem[c->n++] = mem < 0 ? c->packed : mem;
    c->packed += len;
}

/* Rank r's extents and own access's system calls as the engine counts them: its pattern's
 * extents normalized (mcio_extents_normalize), then mcio_own_calls. 1 and 1 where they cannot
 * be had. */
static void count_rank(const pattern *p, const pattern_args *a, int r, int n, collected *c,
                       int64_t *extents, int64_t *calls)
{
    mcio_extent *ext = NULL;
    int64_t next = 0;
    char detail[MCIO_DETAIL_LEN];
    c->n = c->packed = 0;
    c->nomem = 0;
    *extents = *calls = 1;
    if (p->extents(a, r, n, collect_extent, c) == 0 && !c->nomem &&
        mcio_extents_normalize(c->n, c->off, c->len, c->mem, 0, &ext, &next, detail) ==
            MCIO_SUCCESS &&
        next > 0) {
        *extents = next;
        *calls = mcio_own_calls(ext, next);
    }
    free(ext);
}

/* The cost model's figures (--costs, or the defaults of the file system's kind) and each
 * rank's extents and own-access calls, as the engine has them when it decides. 0, or the exit
 * status after a message. */
static int job_costs(job *j)
{
    j->cost = mcio_cost_defaults(j->o.fs.remote);
    if (j->o.costs) {
        char text[4096];
        int64_t date;
        FILE *f = fopen(j->o.costs, "r");
        int err = errno;
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[n] = '\0';
        char why[128] = "";
        if (!f) {
            fprintf(stderr, "mcio-plan: --costs %s: %s\n", j->o.costs, strerror(err));
            return 2;
        }
        if (mcio_cost_parse(text, &j->cost, &date, why, sizeof why) != 0) {
            fprintf(stderr, "mcio-plan: --costs %s: not a calibration file of this mcio (%s)\n",
                    j->o.costs, why);
            return 2;
        }
        if (j->cost.overlap < 0)
            j->cost.overlap = 1; /* not pinned: a machine with a core for each I/O thread */
    }
    j->cost.cores = j->o.cores;
    j->cost.cache = j->o.cache;
    j->cost.caches = j->o.caches;
    j->cost.remote = j->o.fs.remote;
    const pattern *p = patterns_find(j->o.pattern);
    if (j->n <= MAX_COUNTED && p && (j->ext = calloc((size_t)j->n, sizeof(int64_t))) &&
        (j->calls = calloc((size_t)j->n, sizeof(int64_t)))) {
        pattern_args a = {.size = j->o.size, .transfer = j->o.transfer,
                          .random_max = j->o.random_max, .seed = (uint64_t)j->o.seed};
        patterns_grid(j->n, a.dims);
        collected c = {0};
        for (int r = 0; r < j->n; r++)
            count_rank(p, &a, r, j->n, &c, &j->ext[r], &j->calls[r]);
        free(c.off);
        free(c.len);
        free(c.mem);
    }
    return 0;
}

/* The decision of strategy auto for the job: mcio_decide, the function the engine calls (it
 * also knows which hints the user set: here, those given with --hint), with no earlier call's
 * choice; with --candidates or --json also every candidate the cost model predicted. The
 * caller frees *d. Returns mcio_decide's status. */
static int job_decide(job *j, mcio_decision *d)
{
    mcio_topology topo = {.nprocs = j->n, .nnodes = j->nn, .node_of_rank = j->node,
                          .socket_of_rank = j->sock, .sockets_per_node = 1, .node_mem = j->mem,
                          .rank_extents = j->ext, .rank_calls = j->calls};
    int write = !j->o.read;
    mcio_decide_inputs in = {
        .topo = &topo, .sum = j->sum,
        .hints = mcio_hints_decide(&j->o.hints, write, j->params.stripe,
                                   mcio_hints_cost_fixed(&j->o.hints, write)),
        .cost = &j->cost, .write = write,
        .sync = write && mcio_hints_write_sync(&j->o.hints, j->o.fs.defers_errors),
        .fs_block = 4096};
    in.hints.strategy = MCIO_STRATEGY_AUTO;
    int st = mcio_decide(&in, NULL, d);
    j->chose = st == MCIO_SUCCESS;
    j->choice = d->choice;
    if (j->chose && (j->o.candidates || j->o.json)) {
        mcio_cost_inputs ci = mcio_decide_cost_inputs(&in);
        mcio_cost_choice again;
        (void)mcio_cost_decide_seen(&ci, &again, j->seen, MAX_SEEN);
    }
    return st;
}

/* What the default strategy (auto) would do, when the plan was another strategy's. */
static int job_choose(job *j)
{
    if (j->o.no_choice || j->decided)
        return 0;
    int rc = job_costs(j);
    if (rc)
        return rc;
    mcio_decision d;
    (void)job_decide(j, &d); /* a failure: no choice printed (j->chose) */
    mcio_decision_free(&d);
    return 0;
}

/* The candidates the cost model predicted, in the order tried: JSON's "seen" list, or with
 * --candidates a table. */
static void print_seen(const job *j)
{
    int n = j->choice.candidates < MAX_SEEN ? j->choice.candidates : MAX_SEEN;
    if (!j->o.json)
        printf("\ncandidates (predicted seconds, in the order tried):\n  %-32s %12s %5s\n",
               "configuration", "predicted", "fits");
    for (int i = 0; i < n; i++) {
        char name[64];
        const mcio_cost_config *c = &j->seen[i];
        mcio_cost_config_name(c, name, sizeof name);
        if (j->o.json)
            printf("%s{\"config\":\"%s\",\"predicted\":%.9f,\"fits\":%s}", i ? "," : "", name,
                   c->seconds, c->fits ? "true" : "false");
        else
            printf("  %-32s %12.6f %5s\n", name, c->seconds, c->fits ? "yes" : "no");
    }
}

/* One layer or two (mcio_layers_choose, as the engine decides a one-shot call from the ranks'
 * figures; the mcio_layers hint as given), printed after the choice. */
static void print_layers(const job *j)
{
    mcio_layers_inputs in = {.nprocs = j->n, .nnodes = j->nn,
                             .max_per_node = j->o.per_node < j->n ? j->o.per_node : j->n,
                             .aggregators = j->o.hints.cb_nodes > 0 ? j->o.hints.cb_nodes : j->nn,
                             .buffer = j->o.hints.cb_buffer_size, .node_budget = INT64_MAX};
    for (int r = 0; r < j->n; r++) {
        const mcio_summary *s = &j->sum[r];
        mcio_layers_add_rank(&in, s->bytes > 0 ? (j->ext ? j->ext[r] : 1) : 0, s->bytes,
                             s->start, s->end);
    }
    for (int k = 0; k < j->nn; k++)
        in.node_budget = j->mem[k] < in.node_budget ? j->mem[k] : in.node_budget;
    mcio_layers_price p;
    int layers = mcio_layers_choose(j->o.hints.layers, &in, &j->cost, &p);
    if (j->o.json) {
        printf(",\"layers\":{\"layers\":%d,\"one\":%.9f,\"two\":%.9f,\"messages_one\":%.0f,"
               "\"messages_two\":%.0f,\"stage_bytes\":%" PRId64 ",\"fits\":%d}",
               layers, p.one, p.two, p.msgs_one, p.msgs_two, p.stage_bytes, p.fits);
        return;
    }
    printf("layers: %d (mcio_layers %s): one layer %.6f s, %.0f messages to the file-domain "
           "aggregators; two layers %.6f s, %.0f messages, node staging %" PRId64 " bytes%s\n",
           layers, j->o.hints.layers == MCIO_LAYERS_AUTO ? "auto"
           : j->o.hints.layers == MCIO_LAYERS_TWO ? "2"
                                                  : "1",
           p.one, p.msgs_one, p.two, p.msgs_two, p.stage_bytes, p.fits ? "" : " (over budget)");
}

static void print_choice(const job *j)
{
    char best[64] = "", next[64] = "";
    const mcio_cost_choice *c = &j->choice;
    if (!j->chose)
        return;
    mcio_cost_config_name(&c->best, best, sizeof best);
    if (c->runner_up.seconds >= 0)
        mcio_cost_config_name(&c->runner_up, next, sizeof next);
    const char *op = j->o.read ? "read" : "write";
    if (j->o.json) {
        printf(",\"choice\":{\"op\":\"%s\",\"costs\":\"%s\",\"best\":\"%s\",\"predicted\":%.9f,"
               "\"runner_up\":\"%s\",\"runner_up_predicted\":%.9f,\"candidates\":%d,"
               "\"margin\":%.3f,\"seen\":[",
               op, j->o.costs ? j->o.costs : "defaults", best, c->best.seconds, next,
               c->runner_up.seconds, c->candidates, c->margin);
        print_seen(j);
        printf("]}");
        print_layers(j);
        return;
    }
    printf("cost model (%s, %s figures): the default would %s with %s, predicted %.6f s", op,
           j->o.costs ? j->o.costs : "default", op, best, c->best.seconds);
    if (next[0])
        printf("; runner-up %s, %.6f s", next, c->runner_up.seconds);
    printf(" (%d candidates)\n", c->candidates);
    if (c->margin > 0)
        printf("independent access: the runner-up is predicted faster, but by less than the "
               "aggregation margin (%.2fx)\n", c->margin);
    print_layers(j);
    if (j->o.candidates)
        print_seen(j);
}

/* What the operation (--op) would do: when the accesses do not interleave and romio_cb_write
 * (romio_cb_read) is not enable, the engine gives each rank its own domain (the independent
 * plan), as here. Returns 0, or the exit status after a message. */
static int job_plan(job *j)
{
    mcio_topology topo = {.nprocs = j->n, .nnodes = j->nn, .node_of_rank = j->node,
                          .socket_of_rank = j->sock, .sockets_per_node = 1, .node_mem = j->mem};
    j->params = mcio_hints_planner_params(&j->o.hints, !j->o.read);
    j->params.stripe = mcio_fs_align_stripe(&j->o.fs, j->params.stripe, !j->o.read);
    const mcio_planner *pl = mcio_planner_at(j->o.hints.strategy);
    int rc = j->o.hints.strategy == MCIO_STRATEGY_AUTO ? job_costs(j) : 0;
    if (rc)
        return rc;
    j->decided = j->o.hints.strategy == MCIO_STRATEGY_AUTO;
    j->independent = !j->decided && mcio_planner_is_independent(pl, j->n, j->sum, j->params);
    j->memory = !j->independent && j->o.hints.strategy == MCIO_STRATEGY_MEMORY;
    /* Wall and CPU time: on a shared host the wall time says more about the neighbours. */
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (j->decided) { /* the engine's own decision: the plan it would run */
        mcio_decision d;
        rc = job_decide(j, &d);
        j->plan = d.fd;
        j->independent = d.own_access;
        free(d.slots);
    } else {
        rc = j->independent ? mcio_planner_independent(j->n, j->sum, j->params, &j->plan)
             : j->memory    ? mcio_planner_memory(&topo, j->sum, j->params, &j->plan, &j->d)
                            : pl->plan(&topo, j->sum, j->params, &j->plan);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    j->secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    j->cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    if (rc != MCIO_SUCCESS) {
        fprintf(stderr, "mcio-plan: planning failed: %s%s\n", status_message(rc),
                rc == MCIO_ERR_ARG ? " (a domain would need more than 2^31 rounds)" : "");
        return 1;
    }
    for (int r = 0; r < j->n; r++)
        j->total += j->sum[r].bytes;
    for (int k = 0; k < j->plan.ndomains; k++) {
        j->used[j->node[j->plan.agg_rank[k]]] += mcio_fdplan_buffer(&j->plan, k);
        j->aggs[j->node[j->plan.agg_rank[k]]]++;
    }
    return 0;
}

static const char *pl_name(const job *j)
{
    return mcio_planner_name(j->o.hints.strategy);
}

static void print_json(const job *j)
{
    const mcio_fdplan *plan = &j->plan;
    const mcio_memplan *d = &j->d;
    int first = 1, printed = 0;
    printf("{\"strategy\":\"%s\",\"independent\":%s,\"pattern\":\"%s\",\"ranks\":%d,\"ranks_per_node\":%d,"
           "\"nodes\":%d,\"bytes\":%" PRId64 ",\"plan_seconds\":%.6f,\"plan_cpu_seconds\":%.6f,"
           "\"nah\":%d,\"msgind\":%" PRId64
           ",\"msggroup\":%" PRId64 ",\"memmin\":%" PRId64 ",\"domains\":%d,\"max_rounds\":%d,"
           "\"max_buffer\":%" PRId64 ",\"fallbacks\":%d,\"fs_type\":\"%s\",\"fs_name\":\"%s\","
           "\"stripe\":%" PRId64,
           pl_name(j), j->independent ? "true" : "false", j->o.pattern, j->n,
           j->o.per_node, j->nn, j->total, j->secs, j->cpu, j->params.nah, j->params.msgind,
           j->params.msggroup, j->params.memmin, plan->ndomains, plan->max_rounds,
           plan->max_buffer, plan->fallbacks, mcio_fs_type_name(j->o.fs.type), j->o.fs.name,
           j->params.stripe);
    if (j->memory) {
        printf(",\"initial_leaves\":%d,\"remerges\":%d,\"groups_balanced\":%d,\"groups\":[",
               d->initial_leaves, d->remerges, d->balanced);
        for (int g = 0; g < d->groups.n; g++)
            printf("%s{\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"bytes\":%" PRId64
                   ",\"balanced\":%s}",
                   g ? "," : "", d->groups.start[g], d->groups.end[g], d->groups.bytes[g],
                   d->group_balanced[g] ? "true" : "false");
        printf("],\"tree\":[");
        for (int g = 0; g < d->tree.ngroups; g++)
            print_tree(&d->tree, d->tree.root[g], 0, &printed, j->o.max_print, 1, &first);
        printf("]");
    }
    printf(",\"file_domains\":[");
    for (int k = 0; k < plan->ndomains; k++)
        printf("%s{\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"group\":%d,\"bytes\":%" PRId64
               ",\"aggregator\":%d,\"node\":%d,\"buffer\":%" PRId64 ",\"rounds\":%d,"
               "\"fallback\":%d}",
               k ? "," : "", plan->fd_start[k], plan->fd_end[k], j->memory ? d->domain_group[k] : 0,
               j->memory ? d->domain_bytes[k] : -1, plan->agg_rank[k], j->node[plan->agg_rank[k]],
               mcio_fdplan_buffer(plan, k), plan->rounds[k], j->memory ? d->fallback[k] : 0);
    printf("],\"node_memory_source\":\"%s\",\"node_memory\":[", j->source);
    for (int k = 0; k < j->nn; k++)
        printf("%s{\"budget\":%" PRId64 ",\"used\":%" PRId64 ",\"aggregators\":%d}", k ? "," : "",
               j->mem[k] == INT64_MAX ? -1 : j->mem[k], j->used[k], j->aggs[k]);
    printf("]");
    print_choice(j);
    printf("}\n");
}

/* The header lines of the tables: the job, the hints, the plan's totals. */
static void print_summary(const job *j)
{
    char b1[32];
    const mcio_fdplan *plan = &j->plan;
    human((double)j->total, b1, sizeof b1);
    printf("mcio-plan: strategy %s, pattern %s, %d ranks, %d per node (%d nodes), %s requested\n",
           pl_name(j), j->o.pattern, j->n, j->o.per_node, j->nn, b1);
    if (j->o.fs.name[0])
        printf("file system: %s (%s)%s%s, stripe %" PRId64 " bytes%s\n",
               mcio_fs_type_name(j->o.fs.type), j->o.fs.name, j->o.fs.remote ? ", remote" : "",
               j->o.fs.write_behind < 0 ? ""
               : j->o.fs.write_behind   ? ", write-behind"
                                        : ", no write-behind",
               j->o.fs.stripe,
               j->params.stripe == j->o.fs.stripe && j->o.fs.stripe > 0
                   ? ": file domains align on it"
               : j->o.fs.stripe > 0 && j->params.stripe == 0 ? ": reads align on no stripe"
                                                             : "");
    if (j->independent)
        printf("the ranks' accesses do not interleave: each rank is the aggregator of its own "
               "region (romio_cb_write=automatic; --hint romio_cb_write=enable shows the strategy)\n");
    if (j->memory)
        printf("hints: mcio_nah %d, mcio_msgind %" PRId64 ", mcio_msggroup %" PRId64
               ", mcio_memmin %" PRId64 ", mcio_node_memory %" PRId64 "; node memory %s\n",
               j->params.nah, j->params.msgind, j->params.msggroup, j->params.memmin,
               j->o.hints.node_memory, j->o.node_memory ? j->o.node_memory : "unlimited");
    human((double)plan->max_buffer, b1, sizeof b1);
    printf("planned in %.3f ms (%.3f ms of CPU): %d file domains, at most %d rounds, largest "
           "buffer %s, %d fallbacks\n",
           j->secs * 1e3, j->cpu * 1e3, plan->ndomains, plan->max_rounds, b1, plan->fallbacks);
    print_choice(j);
}

/* The memory strategy's aggregation groups and partition tree. */
static void print_groups(const job *j)
{
    const mcio_memplan *d = &j->d;
    int max = j->o.max_print, first = 1, printed = 0;
    printf("%d aggregation groups; %d leaves before remerging, %d remerges; %d groups re-cut "
           "to even rounds\n",
           d->groups.n, d->initial_leaves, d->remerges, d->balanced);
    printf("\naggregation groups:\n  %5s %16s %16s %16s %8s\n", "group", "start", "end", "bytes",
           "re-cut");
    for (int g = 0; g < d->groups.n && g < max; g++)
        printf("  %5d %16" PRId64 " %16" PRId64 " %16" PRId64 " %8s\n", g, d->groups.start[g],
               d->groups.end[g], d->groups.bytes[g], d->group_balanced[g] ? "yes" : "no");
    if (d->groups.n > max)
        printf("  ... %d more\n", d->groups.n - max);
    printf("\npartition tree (after remerging and re-cutting; bytes as the planner estimates "
           "them):\n");
    for (int g = 0; g < d->tree.ngroups; g++)
        print_tree(&d->tree, d->tree.root[g], 0, &printed, max, 0, &first);
    if (printed > max)
        printf("  ... %d more vertices\n", printed - max);
}

/* The file domains, then the memory each node spends. */
static void print_domains(const job *j)
{
    const mcio_fdplan *plan = &j->plan;
    const mcio_memplan *d = &j->d;
    int max = j->o.max_print, memory = j->memory;
    char b1[32], b2[32];
    printf("\nfile domains:\n  %6s %5s %16s %16s %14s %10s %6s %10s %7s %s\n", "domain", "group",
           "start", "end", "bytes", "aggregator", "node", "buffer", "rounds", "");
    for (int k = 0; k < plan->ndomains && k < max; k++)
        printf("  %6d %5d %16" PRId64 " %16" PRId64 " %14" PRId64 " %10d %6d %10" PRId64
               " %7d %s\n",
               k, memory ? d->domain_group[k] : 0, plan->fd_start[k], plan->fd_end[k],
               memory ? d->domain_bytes[k] : plan->win_end[k] - plan->win_start[k],
               plan->agg_rank[k], j->node[plan->agg_rank[k]], mcio_fdplan_buffer(plan, k),
               plan->rounds[k], memory && d->fallback[k] ? "fallback" : "");
    if (plan->ndomains > max)
        printf("  ... %d more\n", plan->ndomains - max);
    printf("\nmemory per node (from %s):\n  %6s %12s %12s %11s\n", j->source, "node", "budget",
           "used", "aggregators");
    for (int k = 0; k < j->nn && k < max; k++) {
        if (j->mem[k] == INT64_MAX)
            snprintf(b1, sizeof b1, "unlimited");
        else
            human((double)j->mem[k], b1, sizeof b1);
        human((double)j->used[k], b2, sizeof b2);
        printf("  %6d %12s %12s %11d%s\n", k, b1, b2, j->aggs[k],
               j->used[k] > j->mem[k] ? "  over" : "");
    }
    if (j->nn > max)
        printf("  ... %d more\n", j->nn - max);
}

int main(int argc, char **argv)
{
    job j = {0};
    int rc = parse(argc, argv, &j.o);
    if (rc)
        return rc == 1 ? 0 : rc;
    j.n = j.o.ranks;
    j.nn = (j.n + j.o.per_node - 1) / j.o.per_node;
    if ((rc = job_describe(&j)) == 0 && (rc = job_plan(&j)) == 0 && (rc = job_choose(&j)) == 0) {
        if (j.o.json) {
            print_json(&j);
        } else {
            print_summary(&j);
            if (j.memory)
                print_groups(&j);
            print_domains(&j);
        }
    }
    job_free(&j);
    return rc;
}
