/*
 * Errors: every one must come back with the same status and the same message on every rank
 * (even when only one rank erred), the message must name the problem, and nothing may be
 * written: the sentinel-filled file is checked byte for byte after each case. A file handle
 * that saw errors must still work afterwards.
 *
 *   arguments  a negative length, count or offset on one rank; a NULL buffer (or a NULL
 *              address in the v-form) with data on one rank; overlapping extents in one rank's
 *              write, one-shot, v-form and persistent plan; different errors on different
 *              ranks (the lowest failing rank's wins)
 *   access     a write to a file opened MPI_MODE_RDONLY, a read of one opened MPI_MODE_WRONLY,
 *              a bad amode at open
 *   hints      an unknown mcio_* key (on every rank, or on one rank only), malformed values,
 *              a malformed line or value in the MCIO_HINTS file (named with its line number), a
 *              MCIO_HINTS file that does not exist
 *   planning   planning fails on the last rank only (injected, before the cost model decides,
 *              so that rank cannot know what the others do): independent calls (the others
 *              leave the agreement on planning to the final one), aggregated ones and the
 *              cost model's choice, writes and reads, with and without MCIO_STATS (whose
 *              gathers follow a successful final agreement only); nobody hangs, every rank
 *              returns the error, the handle works afterwards
 *   files      opening a file that does not exist without MPI_MODE_CREATE, on both backends;
 *              and the modes that must work: CREATE makes the file, EXCL refuses an existing
 *              one (everywhere), DELETE_ON_CLOSE removes it
 */
#include "mcio_test.h"

static char path[512];
static int64_t size;
static char rank_last[32], rank_mid[32];

#define UNCHANGED() MT_VERIFY_UNCHANGED(path, size)

/* Each rank's valid pattern: two extents of its own. */
static void valid_extents(int64_t off[2], int64_t len[2])
{
    off[0] = 64 + 300 * (int64_t)mt.rank;
    len[0] = 100;
    off[1] = off[0] + 150;
    len[1] = 120;
}

static mcio_file open_file(int amode, MPI_Info info)
{
    mcio_file fh = MCIO_FILE_NULL;
    CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, amode, info, &fh));
    return fh;
}

static void argument_errors(void)
{
    int me = mt.rank, n = mt.nprocs, last = n - 1, mid = n / 2;
    mt.ctx = "arguments";
    mcio_file fh = open_file(MPI_MODE_RDWR, MPI_INFO_NULL);
    if (!fh)
        return;
    int64_t off[3], len[3];
    uint8_t buf[512];
    memset(buf, 0x42, sizeof buf);

    /* A negative length on the last rank only. */
    valid_extents(off, len);
    if (me == last)
        len[1] = -5;
    MT_CHECK_ERROR(mcio_write_at_all(fh, 2, off, len, buf), MCIO_ERR_ARG, "negative length",
                   rank_last);
    UNCHANGED();
    /* ... and on a read: the same agreement, nothing read. */
    MT_CHECK_ERROR(mcio_read_at_all(fh, 2, off, len, buf), MCIO_ERR_ARG, "negative length",
                   rank_last);

    /* A negative count, and a negative offset, on the last rank. */
    valid_extents(off, len);
    MT_CHECK_ERROR(mcio_write_at_all(fh, me == last ? -1 : 2, off, len, buf), MCIO_ERR_ARG,
                   "negative", rank_last);
    if (me == last)
        off[0] = -64;
    MT_CHECK_ERROR(mcio_write_at_all(fh, 2, off, len, buf), MCIO_ERR_ARG, "negative offset",
                   rank_last);
    UNCHANGED();

    /* A NULL buffer with data on the middle rank only. */
    valid_extents(off, len);
    MT_CHECK_ERROR(mcio_write_at_all(fh, 2, off, len, me == mid ? NULL : buf), MCIO_ERR_ARG, "NULL",
                   rank_mid);
    UNCHANGED();

    /* A NULL address for an extent with data, in the v-form, on the middle rank only. */
    const void *addrs[2] = {buf, me == mid ? NULL : buf + 100};
    MT_CHECK_ERROR(mcio_writev_at_all(fh, 2, off, len, addrs), MCIO_ERR_ARG, "NULL address",
                   rank_mid);
    UNCHANGED();

    /* Overlapping extents in one rank's write (rank 0), listed out of order. */
    valid_extents(off, len);
    int64_t cnt = 2;
    if (me == 0) {
        off[2] = off[1] + 10; /* inside extent 1 */
        len[2] = 20;
        cnt = 3;
    }
    MT_CHECK_ERROR(mcio_write_at_all(fh, cnt, off, len, buf), MCIO_ERR_ARG, "overlap",
                   mt_rank_tag((char[32]){0}, 0));
    UNCHANGED();
    const void *addrs3[3] = {buf, buf + 100, buf + 220};
    MT_CHECK_ERROR(mcio_writev_at_all(fh, cnt, off, len, addrs3), MCIO_ERR_ARG, "overlap");
    mcio_plan plan = (mcio_plan)&plan; /* must come back MCIO_PLAN_NULL */
    MT_CHECK_ERROR(mcio_plan_create(fh, cnt, off, len, &plan), MCIO_ERR_ARG, "overlap");
    CHECK(plan == MCIO_PLAN_NULL);
    UNCHANGED();
    /* The same extents are fine to read (reads may overlap). */
    CHECK_OK(mcio_read_at_all(fh, cnt, off, len, buf));

    /*
     * Different errors on different ranks: the lowest failing rank's is reported everywhere.
     * The last two ranks err, in both orders.
     */
    for (int order = 0; order < 2 && n > 1; order++) {
        valid_extents(off, len);
        const void *b = buf;
        int null_rank = order ? last : last - 1, neg_rank = order ? last - 1 : last;
        if (me == null_rank)
            b = NULL;
        if (me == neg_rank)
            len[0] = -1;
        char want[32];
        MT_CHECK_ERROR(mcio_write_at_all(fh, 2, off, len, b), MCIO_ERR_ARG,
                       order ? "negative length" : "NULL", mt_rank_tag(want, last - 1));
        UNCHANGED();
    }

    /* A plan with a NULL buffer on one rank at use. */
    valid_extents(off, len);
    if (CHECK_OK(mcio_plan_create(fh, 2, off, len, &plan)) == MCIO_SUCCESS) {
        MT_CHECK_ERROR(mcio_plan_write(plan, me == mid ? NULL : buf), MCIO_ERR_ARG, "NULL",
                       rank_mid);
        UNCHANGED();
        CHECK_OK(mcio_plan_free(&plan));
    }

    /* After all that, the handle still works: a valid write lands, and only it. */
    MPI_Barrier(MPI_COMM_WORLD); /* everyone checked the file before it changes */
    mt_extents *all = calloc((size_t)n, sizeof *all);
    for (int r = 0; r < n; r++) {
        int64_t o = 64 + 300 * (int64_t)r;
        mt_ext_push(&all[r], o, 100);
        mt_ext_push(&all[r], o + 150, 120);
    }
    uint8_t *data = mt_pack(&all[me], 1);
    CHECK_OK(mcio_write_at_all(fh, all[me].n, all[me].off, all[me].len, data));
    CHECK_OK(mcio_file_close(&fh));
    MT_VERIFY_FILE(path, size, all, n, 1);
    free(data);
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
    mt_prefill(path, size); /* the sentinel again, for the next cases */
}

static void access_errors(void)
{
    mt.ctx = "access";
    int64_t off[2], len[2];
    uint8_t buf[512];
    memset(buf, 0x42, sizeof buf);
    valid_extents(off, len);

    mcio_file fh = open_file(MPI_MODE_RDONLY, MPI_INFO_NULL);
    if (fh) {
        MT_CHECK_ERROR(mcio_write_at_all(fh, 2, off, len, buf), MCIO_ERR_AMODE, "MPI_MODE_RDONLY");
        const void *addrs[2] = {buf, buf + 100};
        MT_CHECK_ERROR(mcio_writev_at_all(fh, 2, off, len, addrs), MCIO_ERR_AMODE,
                       "MPI_MODE_RDONLY");
        /* A plan may be made on a read-only file, but not used to write. */
        mcio_plan plan;
        if (CHECK_OK(mcio_plan_create(fh, 2, off, len, &plan)) == MCIO_SUCCESS) {
            MT_CHECK_ERROR(mcio_plan_write(plan, buf), MCIO_ERR_AMODE, "MPI_MODE_RDONLY");
            /* Reading works and sees the sentinel. */
            if (CHECK_OK(mcio_plan_read(plan, buf)) == MCIO_SUCCESS) {
                mt_extents e = {0};
                mt_ext_push(&e, off[0], len[0]);
                mt_ext_push(&e, off[1], len[1]);
                uint8_t *want = mt_malloc(220);
                for (int i = 0; i < 100; i++)
                    want[i] = mt_sentinel(off[0] + i);
                for (int i = 0; i < 120; i++)
                    want[100 + i] = mt_sentinel(off[1] + i);
                MT_COMPARE(buf, want, 220, off[0], "plan read of a read-only file");
                free(want);
                mt_ext_free(&e);
            }
            CHECK_OK(mcio_plan_free(&plan));
        }
        CHECK_OK(mcio_file_close(&fh));
    }
    UNCHANGED();

    fh = open_file(MPI_MODE_WRONLY, MPI_INFO_NULL);
    if (fh) {
        MT_CHECK_ERROR(mcio_read_at_all(fh, 2, off, len, buf), MCIO_ERR_AMODE, "MPI_MODE_WRONLY");
        CHECK_OK(mcio_file_close(&fh));
    }
    UNCHANGED();

    /* Bad amodes are refused at open. */
    fh = (mcio_file)&fh;
    MT_CHECK_ERROR(
        mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        MCIO_ERR_ARG, "amode");
    CHECK(fh == MCIO_FILE_NULL);
    MT_CHECK_ERROR(
        mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
        MCIO_ERR_ARG, "MPI_MODE_CREATE");
    /* No place for the handle on the last rank only: every rank fails, naming it, and the
     * others' open goes nowhere (the same again, so that a kept communicator is met too). */
    for (int k = 0; k < 2; k++) {
        fh = (mcio_file)&fh;
        MT_CHECK_ERROR(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL,
                                      mt.rank == mt.nprocs - 1 ? NULL : &fh),
                       MCIO_ERR_ARG, "fh is NULL");
        CHECK(mt.rank == mt.nprocs - 1 || fh == MCIO_FILE_NULL);
        if (k == 0) { /* a closed file leaves its communicator to the second try */
            CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
            CHECK_OK(mcio_file_close(&fh));
        }
    }
    UNCHANGED();
}

/* Open must fail with MCIO_ERR_HINT, the same everywhere, naming the given strings. */
#define OPEN_FAILS(info, ...)                                                                      \
    do {                                                                                           \
        mcio_file fh_ = (mcio_file) & fh_;                                                         \
        MT_CHECK_ERROR(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, (info), &fh_),          \
                       MCIO_ERR_HINT, __VA_ARGS__);                                                \
        CHECK(fh_ == MCIO_FILE_NULL);                                                              \
    } while (0)

static void hint_errors(void)
{
    mt.ctx = "hints";
    MPI_Info info = mt_info("mcio_bogus", "1", NULL);
    OPEN_FAILS(info, "mcio_bogus", "MPI_Info");
    mt_info_free(&info);

    /* Only the last rank's info is bad: every rank must fail, naming the key. */
    info = mt.rank == mt.nprocs - 1 ? mt_info("cb_nodes", "2", "mcio_frobnicate", "yes", NULL)
                                    : mt_info("cb_nodes", "2", NULL);
    OPEN_FAILS(info, "mcio_frobnicate", rank_last);
    mt_info_free(&info);

    static const char *const bad[][2] = {
        {"cb_buffer_size", "12x"}, {"cb_buffer_size", "0"},     {"cb_buffer_size", "-4096"},
        {"cb_buffer_size", "4g"},  {"cb_nodes", "0"},           {"cb_nodes", "two"},
        {"striping_unit", "1.5m"}, {"mcio_io_backend", "tape"}, {"mcio_strategy", "magic"},
        {"mcio_nah", "0"},         {"mcio_msgind", "2g"},       {"mcio_msggroup", "0"},
        {"mcio_memmin", "-1"},     {"mcio_node_memory", "lots"},
        {"mcio_pipeline_depth", "0"}, {"mcio_subbuffer_size", "1x"}, {"mcio_transport", "shm"},
        {"mcio_slow_byte_seconds", "-1"}, {"mcio_layers", "3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        info = mt_info(bad[i][0], bad[i][1], NULL);
        OPEN_FAILS(info, bad[i][0], bad[i][1]);
        mt_info_free(&info);
    }
    UNCHANGED();

    /* The MCIO_HINTS file: a malformed line, named by file and line number. */
    char hpath[600], where[640];
    snprintf(hpath, sizeof hpath, "%s.hints", path);
    mt_write_text(hpath, "# job defaults\ncb_buffer_size 4096\n\ncb_nodes\nstriping_unit 0\n");
    setenv("MCIO_HINTS", hpath, 1);
    snprintf(where, sizeof where, "%s:4", hpath);
    OPEN_FAILS(MPI_INFO_NULL, where);

    /* A malformed value in the file: file, line, key and value. */
    mt_write_text(hpath, "cb_nodes 1\ncb_buffer_size 12x # oops\n");
    snprintf(where, sizeof where, "%s:2", hpath);
    OPEN_FAILS(MPI_INFO_NULL, where, "cb_buffer_size", "12x");

    /* An unknown mcio_ key in the file. */
    mt_write_text(hpath, "mcio_bogus 1\n");
    snprintf(where, sizeof where, "%s:1", hpath);
    OPEN_FAILS(MPI_INFO_NULL, where, "mcio_bogus");

    /* A value with two words. */
    mt_write_text(hpath, "cb_buffer_size 4096 8192\n");
    snprintf(where, sizeof where, "%s:1", hpath);
    OPEN_FAILS(MPI_INFO_NULL, where);

    /* A hints file that is not there. */
    if (mt.rank == 0)
        unlink(hpath);
    MPI_Barrier(MPI_COMM_WORLD);
    OPEN_FAILS(MPI_INFO_NULL, hpath);
    unsetenv("MCIO_HINTS");
    UNCHANGED();

    /* A malformed virtual memory map: MCIO_ERR_ARG everywhere, naming the variable and value. */
    static const char *const badmem[] = {"lots", "1m,,2m", "normal:1m", "normal:1m:x:3"};
    for (size_t i = 0; i < sizeof badmem / sizeof badmem[0]; i++) {
        setenv("MCIO_VIRTUAL_NODE_MEMORY", badmem[i], 1);
        mcio_file fh_ = (mcio_file)&fh_;
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", badmem[i]);
        MT_CHECK_ERROR(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh_),
                       MCIO_ERR_ARG, "MCIO_VIRTUAL_NODE_MEMORY", quoted);
        CHECK(fh_ == MCIO_FILE_NULL);
    }
    unsetenv("MCIO_VIRTUAL_NODE_MEMORY");
    UNCHANGED();
}

/* Tests only (src/engine/mcio_engine.h, which this program does not include). */
void mcio_engine_fail_planning(int calls);

static void planning_errors(void)
{
    int me = mt.rank, last = mt.nprocs - 1;
    mt.ctx = "planning";
    static const char *const cbs[] = {"disable", "enable", NULL}; /* NULL: the model's choice */
    char stats[512];
    mt_path(stats, sizeof stats, "planning-stats");
    int64_t off[2], len[2];
    uint8_t buf[512], got[512];
    valid_extents(off, len);
    for (int i = 0; i < (int)sizeof buf; i++)
        buf[i] = (uint8_t)(i * 7 + me);
    for (int with_stats = 0; with_stats < 2; with_stats++)
        for (int c = with_stats ? 2 : 0; c < 3; c++) { /* MCIO_STATS: the model's choice only */
            if (with_stats)
                setenv("MCIO_STATS", stats, 1);
            MPI_Info info = cbs[c] ? mt_info("romio_cb_write", cbs[c], "romio_cb_read", cbs[c],
                                             NULL)
                                   : MPI_INFO_NULL;
            mcio_file fh = open_file(MPI_MODE_RDWR, info);
            mt_info_free(&info);
            unsetenv("MCIO_STATS");
            if (!fh)
                continue;
            for (int write = 1; write >= 0; write--) {
                if (me == last)
                    mcio_engine_fail_planning(1);
                int st = write ? mcio_write_at_all(fh, 2, off, len, buf)
                               : mcio_read_at_all(fh, 2, off, len, got);
                MT_CHECK_ERROR(st, MCIO_ERR_NOMEM, "planning failed", rank_last);
            }
            /* Aggregated, nothing moved; independent, the others wrote their pieces. */
            if (cbs[c] && !strcmp(cbs[c], "enable"))
                UNCHANGED();
            /* The handle works afterwards: a write read back. */
            memset(got, 0, sizeof got);
            CHECK_OK(mcio_write_at_all(fh, 2, off, len, buf));
            if (CHECK_OK(mcio_read_at_all(fh, 2, off, len, got)) == MCIO_SUCCESS)
                MT_COMPARE(got, buf, len[0] + len[1], off[0], "read back after planning errors");
            CHECK_OK(mcio_file_close(&fh));
            mt_prefill(path, size);
        }
    if (me == 0)
        unlink(stats);
}

static void file_errors(void)
{
    mt.ctx = "files";
    char missing[600];
    snprintf(missing, sizeof missing, "%s.does-not-exist", path);
    if (mt.rank == 0)
        unlink(missing);
    MPI_Barrier(MPI_COMM_WORLD);
    static const char *const backends[] = {"mpiio", "posix"};
    for (int b = 0; b < 2; b++) {
        MPI_Info info = mt_info("mcio_io_backend", backends[b], NULL);
        for (int rw = 0; rw < 2; rw++) {
            mcio_file fh = (mcio_file)&fh;
            MT_CHECK_ERROR(mcio_file_open(MPI_COMM_WORLD, missing,
                                          rw ? MPI_MODE_RDWR : MPI_MODE_RDONLY, info, &fh),
                           MCIO_ERR_FILE, "does-not-exist");
            CHECK(fh == MCIO_FILE_NULL);
            struct stat sb;
            CHECKF(stat(missing, &sb) != 0, "a failed open created %s", missing);
        }
        mt_info_free(&info);
    }
}

/*
 * Files that open: MPI_MODE_CREATE makes a missing file (and writes land in it), EXCL refuses an
 * existing one on every rank, DELETE_ON_CLOSE removes the file at close. Both backends.
 */
static void file_modes(void)
{
    int n = mt.nprocs, me = mt.rank;
    static const char *const backends[] = {"mpiio", "posix"};
    for (int b = 0; b < 2; b++) {
        char fresh[600], ctx[64];
        snprintf(ctx, sizeof ctx, "create/%s", backends[b]);
        mt.ctx = ctx;
        snprintf(fresh, sizeof fresh, "%s.created-%s", path, backends[b]);
        if (me == 0)
            unlink(fresh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Info info = mt_info("mcio_io_backend", backends[b], NULL);
        mcio_file fh;
        mt_extents *all = calloc((size_t)n, sizeof *all);
        for (int r = 0; r < n; r++)
            mt_ext_push(&all[r], 1000 * (int64_t)r, 1000);
        if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, fresh, MPI_MODE_CREATE | MPI_MODE_WRONLY, info,
                                    &fh)) == MCIO_SUCCESS) {
            uint8_t *buf = mt_pack(&all[me], 1);
            CHECK_OK(mcio_write_at_all(fh, 1, all[me].off, all[me].len, buf));
            free(buf);
            CHECK_OK(mcio_file_close(&fh));
            MT_VERIFY_FILE(fresh, 1000 * (int64_t)n, all, n, 1);
        }
        /* EXCL on a file that exists: refused everywhere, the file left alone. */
        MT_CHECK_ERROR(mcio_file_open(MPI_COMM_WORLD, fresh,
                                      MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, info, &fh),
                       MCIO_ERR_FILE, "created");
        CHECK(fh == MCIO_FILE_NULL);
        MT_VERIFY_FILE(fresh, 1000 * (int64_t)n, all, n, 1);
        /* DELETE_ON_CLOSE: gone once closed. */
        MPI_Barrier(MPI_COMM_WORLD);
        if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, fresh, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                                    info, &fh)) == MCIO_SUCCESS) {
            CHECK_OK(mcio_file_close(&fh));
            MPI_Barrier(MPI_COMM_WORLD);
            struct stat sb;
            CHECKF(stat(fresh, &sb) != 0, "%s survived MPI_MODE_DELETE_ON_CLOSE", fresh);
        }
        if (me == 0)
            unlink(fresh);
        mt_info_free(&info);
        for (int r = 0; r < n; r++)
            mt_ext_free(&all[r]);
        free(all);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_errors");
    mt_path(path, sizeof path, "sentinel");
    mt_rank_tag(rank_last, mt.nprocs - 1);
    mt_rank_tag(rank_mid, mt.nprocs / 2);
    size = 64 + 300 * (int64_t)mt.nprocs + 4000;
    mt_prefill(path, size);
    argument_errors();
    access_errors();
    hint_errors();
    planning_errors();
    file_errors();
    file_modes();
    mt.ctx = "end";
    UNCHANGED();
    mt_remove(path);
    return mt_finish();
}
