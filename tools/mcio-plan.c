/*
 * mcio-plan: what mcio would do on a job, without running it. Runs only the pure planner
 * (the mcio_plan library, no MPI) on a described layout: an access pattern and its size as in
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

#include "mcio_hints.h"
#include "mcio_memory.h"
#include "mcio_plan.h"
#include "splitmix64.h"

#define HACC_PARTICLE 38 /* as mcio-bench: 7 float32, int64 id, uint16 mask */
#define COLL_PERF_ELEM 4

static const char usage[] =
    "usage: mcio-plan [options]\n"
    "Plans one collective call as mcio would (the pure planner only) and prints the plan.\n"
    "  --pattern P        contiguous, ior, coll_perf, hacc-aos, hacc-soa, random (default ior);\n"
    "                     the layouts of mcio-bench\n"
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
    "  --strategy S       memory, romio or auto (default memory; same as --hint mcio_strategy=S)\n"
    "  --hint KEY=VAL     a hint, repeatable (mcio_nah, mcio_msgind, mcio_msggroup, mcio_memmin,\n"
    "                     mcio_node_memory, cb_buffer_size, cb_nodes, striping_unit, ...)\n"
    "  --max-print N      rows printed per table (default 40; --json prints everything)\n"
    "  --json             print JSON instead of tables\n"
    "  --help             this text\n";

typedef struct opts {
    const char *pattern;
    int64_t size, transfer, random_max, seed;
    int ranks, per_node, max_print, json;
    const char *node_memory;
    mcio_hints hints;
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
    o->hints = mcio_hints_default();
    snprintf(o->hints.strategy, sizeof o->hints.strategy, "memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x;
        if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 1;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!v)
            return bad("%s needs a value%s", a, "");
        i++;
        if (!strcmp(a, "--pattern")) {
            o->pattern = v;
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
        } else if (mcio_hints_parse_bytes(v, 0, INT64_MAX / 4, &x)) {
            return bad("%s '%s' is not a count (digits, k/m/g suffix)", a, v);
        } else if (!strcmp(a, "--size")) {
            o->size = x;
        } else if (!strcmp(a, "--transfer") && x > 0) {
            o->transfer = x;
        } else if (!strcmp(a, "--random-max")) {
            o->random_max = x;
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

/* ---- The patterns' summaries, in closed form ---- */

/* A balanced 3-D grid as MPI_Dims_create makes it (prime factors, largest first, each to the
 * smallest dimension; then non-increasing). */
static void dims3(int n, int d[3])
{
    int f[64], nf = 0;
    for (int p = 2, m = n; m > 1 && nf < 64; p++) {
        if ((int64_t)p * p > m)
            p = m;
        while (m % p == 0 && nf < 64)
            f[nf++] = p, m /= p;
    }
    d[0] = d[1] = d[2] = 1;
    for (int i = nf - 1; i >= 0; i--) {
        int k = d[0] <= d[1] && d[0] <= d[2] ? 0 : d[1] <= d[2] ? 1 : 2;
        d[k] *= f[i];
    }
    for (int i = 0; i < 2; i++) /* sort non-increasing */
        for (int j = 0; j < 2 - i; j++)
            if (d[j] < d[j + 1]) {
                int t = d[j];
                d[j] = d[j + 1];
                d[j + 1] = t;
            }
}

static int summaries(const opts *o, mcio_summary *s)
{
    int n = o->ranks;
    const char *p = o->pattern;
    if (!strcmp(p, "contiguous")) {
        for (int r = 0; r < n; r++)
            s[r] = (mcio_summary){r * o->size, (r + 1) * o->size, o->size};
    } else if (!strcmp(p, "ior")) {
        int64_t t = o->transfer, seg = t > 0 ? o->size / t : 0;
        for (int r = 0; r < n; r++)
            s[r] = seg ? (mcio_summary){r * t, ((seg - 1) * n + r) * t + t, seg * t}
                       : (mcio_summary){0, 0, 0};
    } else if (!strcmp(p, "coll_perf")) {
        int d[3];
        dims3(n, d);
        int64_t e = o->size / COLL_PERF_ELEM, m = (int64_t)cbrt((double)e);
        while ((m + 1) * (m + 1) * (m + 1) <= e)
            m++;
        while (m > 1 && m * m * m > e)
            m--;
        int64_t m2 = m > 0 ? e / (m * m) : 0, g1 = d[1] * m, g2 = d[2] * m2;
        for (int r = 0; r < n; r++) {
            int64_t c0 = r / (d[1] * d[2]), c1 = r / d[2] % d[1], c2 = r % d[2];
            int64_t first = ((c0 * m) * g1 + c1 * m) * g2 + c2 * m2;
            int64_t last = ((c0 * m + m - 1) * g1 + c1 * m + m - 1) * g2 + c2 * m2 + m2;
            s[r] = m2 > 0 ? (mcio_summary){COLL_PERF_ELEM * first, COLL_PERF_ELEM * last,
                                           COLL_PERF_ELEM * m * m * m2}
                          : (mcio_summary){0, 0, 0};
        }
    } else if (!strcmp(p, "hacc-aos")) {
        int64_t b = o->size / HACC_PARTICLE * HACC_PARTICLE;
        for (int r = 0; r < n; r++)
            s[r] = b ? (mcio_summary){r * b, (r + 1) * b, b} : (mcio_summary){0, 0, 0};
    } else if (!strcmp(p, "hacc-soa")) {
        int64_t np = o->size / HACC_PARTICLE, last_base = (int64_t)n * np * (HACC_PARTICLE - 2);
        for (int r = 0; r < n; r++)
            s[r] = np ? (mcio_summary){r * np * 4, last_base + (r + 1) * np * 2, np * HACC_PARTICLE}
                      : (mcio_summary){0, 0, 0};
    } else if (!strcmp(p, "random")) {
        /* The walk of mcio-bench's random pattern, once for all ranks. */
        uint64_t st = (uint64_t)o->seed;
        int64_t *left = malloc((size_t)n * sizeof(int64_t)), remaining = 0, pos = 0;
        if (!left)
            return -1;
        for (int r = 0; r < n; r++) {
            remaining += left[r] = (int64_t)(splitmix64(&st) % (uint64_t)(o->random_max + 1));
            s[r] = (mcio_summary){0, 0, 0};
        }
        while (remaining > 0) {
            uint64_t x = splitmix64(&st), y = splitmix64(&st);
            if (x % 4 == 0)
                pos += (int64_t)((x >> 2) % 4096);
            int r = (int)((x >> 16) % (uint64_t)n);
            while (left[r] == 0)
                r = (r + 1) % n;
            int64_t len = 1 + (int64_t)((y >> 5) % (1ull << (y % 17)));
            len = len < left[r] ? len : left[r];
            if (s[r].bytes == 0)
                s[r].start = pos;
            s[r].end = pos + len;
            s[r].bytes += len;
            left[r] -= len, remaining -= len, pos += len;
        }
        free(left);
    } else {
        return -2;
    }
    return 0;
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

int main(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : rc;
    int n = o.ranks, nn = (n + o.per_node - 1) / o.per_node, st = 1;
    mcio_summary *sum = malloc((size_t)n * sizeof *sum);
    int *node = malloc((size_t)n * sizeof(int)), *sock = calloc((size_t)n, sizeof(int));
    int64_t *mem = malloc((size_t)nn * sizeof(int64_t)), *used = calloc((size_t)nn, sizeof(int64_t));
    int *aggs = calloc((size_t)nn, sizeof(int));
    mcio_fdplan plan = {0};
    mcio_memplan d = {0};
    char detail[MCIO_DETAIL_LEN], b1[32], b2[32];
    if (!sum || !node || !sock || !mem || !used || !aggs) {
        fprintf(stderr, "mcio-plan: out of memory\n");
        goto done;
    }
    rc = summaries(&o, sum);
    if (rc) {
        fprintf(stderr, rc == -2 ? "mcio-plan: unknown pattern '%s' (see --help)\n"
                                 : "mcio-plan: out of memory (%s)\n",
                o.pattern);
        st = 2;
        goto done;
    }
    for (int r = 0; r < n; r++)
        node[r] = r / o.per_node;
    for (int j = 0; j < nn; j++)
        mem[j] = INT64_MAX;
    /* Where the nodes' figure comes from, as MCIO_STATS says it (node_memory_source). */
    char source[MCIO_MEM_WHERE_LEN + 16] = "unknown";
    if (o.node_memory && !strcmp(o.node_memory, "detect")) {
        mcio_memory_probe p;
        mcio_memory_probe_at("", mcio_memory_rlimits(), &p);
        for (int j = 0; j < nn; j++)
            mem[j] = p.avail < 0 ? INT64_MAX : p.avail;
        int cg = p.source == MCIO_MEM_CGROUP_V1 || p.source == MCIO_MEM_CGROUP_V2;
        snprintf(source, sizeof source, "%s%s%s", mcio_memory_source_name(p.source), cg ? ":" : "",
                 cg ? p.cg_path : "");
    } else if (o.node_memory) {
        mcio_memory_virtual(o.node_memory, nn, mem, detail); /* checked when parsed */
        snprintf(source, sizeof source, "virtual");
    }
    int capped = 0;
    for (int j = 0; j < nn; j++) /* the mcio_node_memory cap, as mcio_file_open applies it */
        if (o.hints.node_memory > 0 && o.hints.node_memory < mem[j])
            mem[j] = o.hints.node_memory, capped = 1;
    if (capped)
        snprintf(source, sizeof source, "hint");
    mcio_topology topo = {.nprocs = n, .nnodes = nn, .node_of_rank = node, .socket_of_rank = sock,
                          .sockets_per_node = 1, .node_mem = mem};
    /* What a write would do: when the accesses do not interleave and romio_cb_write is not
     * enable, the engine gives each rank its own domain (the independent plan), as here. */
    mcio_plan_params params = mcio_hints_plan_params(&o.hints, 1);
    const mcio_planner *pl = mcio_planner_find(o.hints.strategy);
    int independent = mcio_plan_is_independent(pl, n, sum, params);
    int memory = !independent && !strcmp(o.hints.strategy, "memory");
    /* Wall and CPU time: on a shared host the wall time says more about the neighbours. */
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    rc = independent ? mcio_plan_independent(n, sum, params, &plan)
         : memory    ? mcio_plan_memory(&topo, sum, params, &plan, &d)
                     : pl->plan(&topo, sum, params, &plan);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    if (rc != MCIO_SUCCESS) {
        fprintf(stderr, "mcio-plan: planning failed: %s%s\n", status_message(rc),
                rc == MCIO_ERR_ARG ? " (a domain would need more than 2^31 rounds)" : "");
        goto done;
    }
    int64_t total = 0;
    for (int r = 0; r < n; r++)
        total += sum[r].bytes;
    for (int k = 0; k < plan.ndomains; k++) {
        used[node[plan.agg_rank[k]]] += mcio_fdplan_buffer(&plan, k);
        aggs[node[plan.agg_rank[k]]]++;
    }
    int max = o.max_print, first = 1, printed = 0;
    if (o.json) {
        printf("{\"strategy\":\"%s\",\"independent\":%s,\"pattern\":\"%s\",\"ranks\":%d,\"ranks_per_node\":%d,"
               "\"nodes\":%d,\"bytes\":%" PRId64 ",\"plan_seconds\":%.6f,\"plan_cpu_seconds\":%.6f,"
               "\"nah\":%d,\"msgind\":%" PRId64
               ",\"msggroup\":%" PRId64 ",\"memmin\":%" PRId64 ",\"domains\":%d,\"max_rounds\":%d,"
               "\"max_buffer\":%" PRId64 ",\"fallbacks\":%d",
               o.hints.strategy, independent ? "true" : "false", o.pattern, n, o.per_node, nn,
               total, secs, cpu, params.nah,
               params.msgind, params.msggroup, params.memmin, plan.ndomains, plan.max_rounds,
               plan.max_buffer, plan.fallbacks);
        if (memory) {
            printf(",\"initial_leaves\":%d,\"remerges\":%d,\"groups_balanced\":%d,\"groups\":[",
                   d.initial_leaves, d.remerges, d.balanced);
            for (int g = 0; g < d.groups.n; g++)
                printf("%s{\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"bytes\":%" PRId64
                       ",\"balanced\":%s}",
                       g ? "," : "", d.groups.start[g], d.groups.end[g], d.groups.bytes[g],
                       d.group_balanced[g] ? "true" : "false");
            printf("],\"tree\":[");
            for (int g = 0; g < d.tree.ngroups; g++)
                print_tree(&d.tree, d.tree.root[g], 0, &printed, max, 1, &first);
            printf("]");
        }
        printf(",\"file_domains\":[");
        for (int k = 0; k < plan.ndomains; k++)
            printf("%s{\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"group\":%d,\"bytes\":%" PRId64
                   ",\"aggregator\":%d,\"node\":%d,\"buffer\":%" PRId64 ",\"rounds\":%d,"
                   "\"fallback\":%d}",
                   k ? "," : "", plan.fd_start[k], plan.fd_end[k], memory ? d.domain_group[k] : 0,
                   memory ? d.domain_bytes[k] : -1, plan.agg_rank[k], node[plan.agg_rank[k]],
                   mcio_fdplan_buffer(&plan, k), plan.rounds[k], memory ? d.fallback[k] : 0);
        printf("],\"node_memory_source\":\"%s\",\"node_memory\":[", source);
        for (int j = 0; j < nn; j++)
            printf("%s{\"budget\":%" PRId64 ",\"used\":%" PRId64 ",\"aggregators\":%d}", j ? "," : "",
                   mem[j] == INT64_MAX ? -1 : mem[j], used[j], aggs[j]);
        printf("]}\n");
        st = 0;
        goto done;
    }
    human((double)total, b1, sizeof b1);
    printf("mcio-plan: strategy %s, pattern %s, %d ranks, %d per node (%d nodes), %s requested\n",
           o.hints.strategy, o.pattern, n, o.per_node, nn, b1);
    if (independent)
        printf("the ranks' accesses do not interleave: each rank is the aggregator of its own "
               "region (romio_cb_write=automatic; --hint romio_cb_write=enable shows the strategy)\n");
    if (memory)
        printf("hints: mcio_nah %d, mcio_msgind %" PRId64 ", mcio_msggroup %" PRId64
               ", mcio_memmin %" PRId64 ", mcio_node_memory %" PRId64 "; node memory %s\n",
               params.nah, params.msgind, params.msggroup, params.memmin, o.hints.node_memory,
               o.node_memory ? o.node_memory : "unlimited");
    human((double)plan.max_buffer, b1, sizeof b1);
    printf("planned in %.3f ms (%.3f ms of CPU): %d file domains, at most %d rounds, largest "
           "buffer %s, %d fallbacks\n",
           secs * 1e3, cpu * 1e3, plan.ndomains, plan.max_rounds, b1, plan.fallbacks);
    if (memory) {
        printf("%d aggregation groups; %d leaves before remerging, %d remerges; %d groups re-cut "
               "to even rounds\n",
               d.groups.n, d.initial_leaves, d.remerges, d.balanced);
        printf("\naggregation groups:\n  %5s %16s %16s %16s %8s\n", "group", "start", "end",
               "bytes", "re-cut");
        for (int g = 0; g < d.groups.n && g < max; g++)
            printf("  %5d %16" PRId64 " %16" PRId64 " %16" PRId64 " %8s\n", g, d.groups.start[g],
                   d.groups.end[g], d.groups.bytes[g], d.group_balanced[g] ? "yes" : "no");
        if (d.groups.n > max)
            printf("  ... %d more\n", d.groups.n - max);
        printf("\npartition tree (after remerging and re-cutting; bytes as the planner estimates "
               "them):\n");
        for (int g = 0; g < d.tree.ngroups; g++)
            print_tree(&d.tree, d.tree.root[g], 0, &printed, max, 0, &first);
        if (printed > max)
            printf("  ... %d more vertices\n", printed - max);
    }
    printf("\nfile domains:\n  %6s %5s %16s %16s %14s %10s %6s %10s %7s %s\n", "domain", "group",
           "start", "end", "bytes", "aggregator", "node", "buffer", "rounds", "");
    for (int k = 0; k < plan.ndomains && k < max; k++)
        printf("  %6d %5d %16" PRId64 " %16" PRId64 " %14" PRId64 " %10d %6d %10" PRId64
               " %7d %s\n",
               k, memory ? d.domain_group[k] : 0, plan.fd_start[k], plan.fd_end[k],
               memory ? d.domain_bytes[k] : plan.win_end[k] - plan.win_start[k], plan.agg_rank[k],
               node[plan.agg_rank[k]], mcio_fdplan_buffer(&plan, k), plan.rounds[k],
               memory && d.fallback[k] ? "fallback" : "");
    if (plan.ndomains > max)
        printf("  ... %d more\n", plan.ndomains - max);
    printf("\nmemory per node (from %s):\n  %6s %12s %12s %11s\n", source, "node", "budget", "used",
           "aggregators");
    for (int j = 0; j < nn && j < max; j++) {
        if (mem[j] == INT64_MAX)
            snprintf(b1, sizeof b1, "unlimited");
        else
            human((double)mem[j], b1, sizeof b1);
        human((double)used[j], b2, sizeof b2);
        printf("  %6d %12s %12s %11d%s\n", j, b1, b2, aggs[j], used[j] > mem[j] ? "  over" : "");
    }
    if (nn > max)
        printf("  ... %d more\n", nn - max);
    st = 0;
done:
    mcio_fdplan_free(&plan);
    mcio_memplan_free(&d);
    free(sum);
    free(node);
    free(sock);
    free(mem);
    free(used);
    free(aggs);
    return st;
}
