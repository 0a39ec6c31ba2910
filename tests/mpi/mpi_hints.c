/*
 * Hints from the MCIO_HINTS file and from the MPI_Info, and which wins: each configuration is
 * checked three ways, by mcio_file_get_info (the hints in force), by mcio_file_get_stats (what
 * the call did: buffer size, rounds, aggregators) and by the file (every byte verified).
 *
 *   file         MCIO_HINTS with comments, blank lines, padding, a CRLF line and no final
 *                newline: cb_buffer_size 4096, cb_nodes 2 take effect
 *   long comment a comment line of ~2000 characters is one line like any other
 *   info wins    the same file, cb_buffer_size 8192 in the MPI_Info: 8192 in force, cb_nodes
 *                still 2 from the file
 *   suffixes     "3k" in the file; mcio_io_backend from the file, and overridden by the info
 *   foreign keys ROMIO / vendor keys mcio does not read are accepted and ignored
 *   defaults     no MCIO_HINTS (unset or empty): 16 MiB, one aggregator per (virtual) node
 *   ROMIO_HINTS  ROMIO's hints file is read too, as ROMIO reads it (once, at the first open; a
 *                key's first line counts): its keys take effect, MCIO_HINTS wins over it, the
 *                info over both; a missing one is ignored (MPI_HINTS_ROMIO=file|absent)
 *   MCIO_STATS   one JSON line per call, with the numbers mcio_file_get_stats reports
 */
#include "mcio_test.h"

/* The strategy the hints in force name: auto unless a scenario names one. */
static const char *want_strategy = "fit"; /* the suite's default (mcio_test.h) */

static int64_t per_rank;

static int nodes(void)
{
    const char *v = getenv("MCIO_VIRTUAL_RANKS_PER_NODE");
    int k = v && *v ? atoi(v) : 0;
    return k > 0 ? (mt.nprocs + k - 1) / k : 1;
}

/* What a configuration must produce. */
typedef struct expect {
    const char *cb_buffer_size; /* in force, as get_info prints it */
    const char *cb_nodes;
    const char *backend;
    int64_t buffer; /* stats.max_buffer_bytes ... */
    int aggregators;
    int64_t slack; /* ... or up to this much less (a domain may end in a hole) */
} expect;

/* Open with the hints in force, check them, write interleaved blocks, check stats and bytes. */
static void scenario(const char *name, MPI_Info info, const expect *x)
{
    int n = mt.nprocs, me = mt.rank;
    char path[512];
    mt.ctx = name;
    mt_path(path, sizeof path, name);
    mt_extents *all = calloc((size_t)n, sizeof *all);
    /* Each rank's data in two halves, one in each half of the region, so that the ranks'
     * accesses interleave and the default romio_cb_write=automatic aggregates them. */
    int64_t half = per_rank / 2;
    for (int r = 0; r < n; r++) {
        mt_ext_push(&all[r], 10 + r * half, half);
        mt_ext_push(&all[r], 10 + (n + r) * half, half - (r % 2) * 7);
    }
    int64_t size = mt_ext_end(&all[n - 1]) + 300, total = 0;
    for (int r = 0; r < n; r++)
        total += mt_ext_bytes(&all[r]);
    mt_prefill(path, size);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) != MCIO_SUCCESS)
        goto out;
    char v[64];
    mt_get_hint(fh, "cb_buffer_size", v, sizeof v);
    CHECKF(strcmp(v, x->cb_buffer_size) == 0, "cb_buffer_size in force '%s', expected '%s'", v,
           x->cb_buffer_size);
    mt_get_hint(fh, "cb_nodes", v, sizeof v);
    CHECKF(strcmp(v, x->cb_nodes) == 0, "cb_nodes in force '%s', expected '%s'", v, x->cb_nodes);
    mt_get_hint(fh, "mcio_io_backend", v, sizeof v);
    CHECKF(strcmp(v, x->backend) == 0, "mcio_io_backend in force '%s', expected '%s'", v,
           x->backend);
    mt_get_hint(fh, "mcio_strategy", v, sizeof v);
    CHECKF(strcmp(v, want_strategy) == 0, "mcio_strategy in force '%s', expected '%s'", v,
           want_strategy);

    uint8_t *buf = mt_pack(&all[me], 1);
    if (CHECK_OK(mcio_write_at_all(fh, all[me].n, all[me].off, all[me].len, buf)) == MCIO_SUCCESS) {
        mcio_stats s;
        CHECK_OK(mcio_file_get_stats(fh, &s));
        CHECKF(s.max_buffer_bytes <= x->buffer && s.max_buffer_bytes >= x->buffer - x->slack,
               "max_buffer_bytes %" PRId64 ", expected %" PRId64 " (less at most %" PRId64 ")",
               s.max_buffer_bytes, x->buffer, x->slack);
        CHECKF(s.aggregators == x->aggregators, "%d aggregators, expected %d", s.aggregators,
               x->aggregators);
        /* The busiest domain needs at least its share of the data over the buffer in rounds. */
        int64_t share = (total + x->aggregators - 1) / x->aggregators;
        int64_t min_rounds = (share + x->buffer - 1) / x->buffer;
        CHECKF(s.rounds >= min_rounds, "%d rounds, expected at least %" PRId64, s.rounds,
               min_rounds);
        CHECKF(s.bytes == total, "stats.bytes %" PRId64 ", expected %" PRId64, s.bytes, total);
    }
    free(buf);
    MT_VERIFY_MCIO(fh, size, all, n, 1);
    CHECK_OK(mcio_file_close(&fh));
    MT_VERIFY_FILE(path, size, all, n, 1);
    mt_remove(path);
out:
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
    mt.ctx = NULL;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* The MCIO_STATS file: rank 0 appends one line per call; check the write's line. */
static void check_stats_file(void)
{
    char spath[600], path[512], json[64];
    mt.ctx = "MCIO_STATS";
    mt_path(path, sizeof path, "stats");
    snprintf(spath, sizeof spath, "%s.jsonl", path);
    if (mt.rank == 0)
        unlink(spath);
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("MCIO_STATS", spath, 1);
    int64_t off = 100 + mt.rank * per_rank, len = per_rank;
    mt_prefill(path, 100 + mt.nprocs * per_rank);
    MPI_Info info = mt_info("cb_buffer_size", "5000", NULL);
    mcio_file fh;
    mcio_stats s = {0};
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        uint8_t *buf = mt_malloc((size_t)len);
        memset(buf, 1, (size_t)len);
        CHECK_OK(mcio_write_at_all(fh, 1, &off, &len, buf));
        CHECK_OK(mcio_file_get_stats(fh, &s));
        CHECK_OK(mcio_read_at_all(fh, 1, &off, &len, buf));
        CHECK_OK(mcio_file_close(&fh));
        free(buf);
    }
    mt_info_free(&info);
    unsetenv("MCIO_STATS");
    if (mt.rank == 0) {
        FILE *f = fopen(spath, "r");
        char line[4096];
        int lines = 0, writes = 0;
        while (f && fgets(line, sizeof line, f)) {
            lines++;
            if (!strstr(line, "\"op\":\"write\""))
                continue;
            writes++;
            snprintf(json, sizeof json, "\"rounds\":%d,", s.rounds);
            CHECKF(strstr(line, json) != NULL, "stats line lacks %s: %s", json, line);
            snprintf(json, sizeof json, "\"bytes\":%" PRId64 ",", s.bytes);
            CHECKF(strstr(line, json) != NULL, "stats line lacks %s: %s", json, line);
            snprintf(json, sizeof json, "\"max_buffer_bytes\":%" PRId64 ",", s.max_buffer_bytes);
            CHECKF(strstr(line, json) != NULL, "stats line lacks %s: %s", json, line);
            CHECKF(strstr(line, path) != NULL, "stats line does not name %s: %s", path, line);
        }
        CHECKF(f != NULL, "MCIO_STATS file %s was not written", spath);
        CHECKF(lines == 2 && writes == 1, "MCIO_STATS: %d lines, %d writes; expected 2 and 1",
               lines, writes);
        if (f)
            fclose(f);
        if (!mt.failures)
            unlink(spath);
    }
    mt_remove(path);
    mt.ctx = NULL;
}

/* MPI_HINTS_ROMIO=file|absent: ROMIO's hints file, read once, at the process's first open, as
 * ROMIO reads it (MPICH 4.0.2), so each case is a process of its own. file: cb_buffer_size
 * (its first line) and cb_nodes from it, MCIO_HINTS overrides cb_nodes, the info
 * cb_buffer_size, and ROMIO_HINTS naming another file later changes nothing. absent: a
 * ROMIO_HINTS naming no file is ignored, as ROMIO ignores it, and one set later is not read. */
static int romio_hints_cases(const char *mode, const char *nodestr, int two)
{
    int n = mt.nprocs;
    char hpath[600], name[64];
    snprintf(name, sizeof name, "hints-romio-%.20s", mode); /* not the other runs' files */
    mt_path(hpath, sizeof hpath, name);
    int64_t span = (int64_t)n * per_rank - ((n - 1) % 2 ? 7 : 0);
    int64_t fd = (span + nodes() - 1) / nodes();
    char rpath[620];
    snprintf(rpath, sizeof rpath, "%s.romio", hpath);
    mt_write_text(rpath, "cb_buffer_size 4096\ncb_nodes 1\nromio_no_indep_rw false\n"
                         "cb_buffer_size 8192\n"); /* collective */
    if (strcmp(mode, "file") == 0) {
        setenv("ROMIO_HINTS", rpath, 1);
        scenario("romio-hints", MPI_INFO_NULL, &(expect){"4096", "1", "mpiio", 4096, 1, 0});
        mt_write_text(hpath, "cb_nodes 2\n");
        setenv("MCIO_HINTS", hpath, 1);
        scenario("romio-hints-mcio-hints", MPI_INFO_NULL, &(expect){"4096", "2", "mpiio", 4096, two, 0});
        MPI_Info info = mt_info("cb_buffer_size", "8192", NULL);
        scenario("romio-hints-info", info, &(expect){"8192", "2", "mpiio", 8192, two, 0});
        mt_info_free(&info);
        unsetenv("MCIO_HINTS");
        setenv("ROMIO_HINTS", hpath, 1); /* read once: this one is not */
        scenario("romio-hints-once", MPI_INFO_NULL, &(expect){"4096", "1", "mpiio", 4096, 1, 0});
    } else {
        char absent[640];
        snprintf(absent, sizeof absent, "%s.absent", rpath);
        setenv("ROMIO_HINTS", absent, 1);
        scenario("romio-hints-absent", MPI_INFO_NULL, &(expect){"16777216", nodestr, "mpiio", fd, nodes(), 14});
        setenv("ROMIO_HINTS", rpath, 1); /* read once: too late */
        scenario("romio-hints-late", MPI_INFO_NULL, &(expect){"16777216", nodestr, "mpiio", fd, nodes(), 14});
    }
    unsetenv("ROMIO_HINTS");
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt.rank == 0 && !mt.failures)
        unlink(hpath), unlink(rpath);
    return mt_finish();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_hints");
    int n = mt.nprocs;
    per_rank = n <= 4 ? 24 * 1024 : 6 * 1024;
    char hpath[600], path[512], nodestr[16];
    mt_path(path, sizeof path, "hints");
    snprintf(hpath, sizeof hpath, "%s.txt", path);
    snprintf(nodestr, sizeof nodestr, "%d", nodes());
    int two = min_int(2, n);
    const char *mode = getenv("MPI_HINTS_ROMIO");
    if (mode && *mode)
        return romio_hints_cases(mode, nodestr, two);

    mt_write_text(hpath, "# site defaults for mcio\n"
                      "\n"
                      "   cb_buffer_size \t 4096   # small: many rounds\n"
                      "cb_nodes 2\r\n"    /* CRLF */
                      "striping_unit 0"); /* no newline at the end */
    setenv("MCIO_HINTS", hpath, 1);
    scenario("file", MPI_INFO_NULL, &(expect){"4096", "2", "mpiio", 4096, two, 0});

    MPI_Info info = mt_info("cb_buffer_size", "8192", NULL);
    scenario("info-wins", info, &(expect){"8192", "2", "mpiio", 8192, two, 0});
    mt_info_free(&info);

    /* A long comment line (a commented-out list of hosts, say) is still one comment line. */
    char *text = mt_malloc(4096);
    int at = snprintf(text, 4096, "# job hints\n# nodes:");
    while (at < 1900)
        at += snprintf(text + at, 4096 - (size_t)at, " node%04d", at);
    snprintf(text + at, 4096 - (size_t)at, "\ncb_buffer_size 4096\n# end\ncb_nodes 2\n");
    mt_write_text(hpath, text);
    free(text);
    scenario("long-comment", MPI_INFO_NULL, &(expect){"4096", "2", "mpiio", 4096, two, 0});

    mt_write_text(hpath, "cb_buffer_size 3k\nmcio_io_backend posix\nmcio_strategy romio\n");
    want_strategy = "romio"; /* named by the file; the default here is fit */
    scenario("suffix-backend", MPI_INFO_NULL,
             &(expect){"3072", nodestr, "posix", 3072, nodes(), 0});
    info = mt_info("mcio_io_backend", "mpiio", "cb_nodes", "1", NULL);
    scenario("info-backend", info, &(expect){"3072", "1", "mpiio", 3072, 1, 0});
    mt_info_free(&info);
    want_strategy = "fit";

    unsetenv("MCIO_HINTS");
    info = mt_info("romio_cb_write", "enable", "vendor_magic", "42", "cb_buffer_size", "2k", NULL);
    scenario("foreign-keys", info, &(expect){"2048", nodestr, "mpiio", 2048, nodes(), 0});
    mt_info_free(&info);

    /* Defaults: no hints at all; an empty MCIO_HINTS means none too. The data is far below
       16 MiB, so the buffer is each domain's whole span. */
    setenv("MCIO_HINTS", "", 1);
    int64_t span = (int64_t)n * per_rank - ((n - 1) % 2 ? 7 : 0);
    int64_t fd = (span + nodes() - 1) / nodes();
    scenario("defaults", MPI_INFO_NULL, &(expect){"16777216", nodestr, "mpiio", fd, nodes(), 14});
    unsetenv("MCIO_HINTS");

    check_stats_file();
    if (mt.rank == 0 && !mt.failures)
        unlink(hpath);
    return mt_finish();
}
