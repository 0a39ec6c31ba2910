/*
 * File errors must come back as errors, the same on every rank, never as success; and the
 * partial transfers and interruptions that are not errors must not become errors.
 *
 *   fault backend  registered here with mcio_io_register(): mcio_io_posix underneath, with
 *                  injected short writes and reads, -EINTR, 0-byte writes, and -errno after N
 *                  bytes, on every rank or on one
 *     retries      short transfers and EINTR everywhere, on writes, reads and the
 *                  read-modify-write of holes, and an end of file that moved: the call
 *                  succeeds and every byte is right
 *     errors       EIO after N bytes on the last aggregator; ENOSPC, EDQUOT, EFBIG on the
 *                  first; a 0-byte write; EIO on a read; EIO on the read of a read-modify-write;
 *                  reads of 0 bytes inside the file; EIO from sync. Each gives MCIO_ERR_IO / _NOSPACE / _FBIG on every rank, with
 *                  a message naming the failing rank and the file, and the handle keeps working
 *   ENOSPC         the posix and mpiio backends writing to /dev/full
 *   EFBIG          RLIMIT_FSIZE below the data, SIGXFSZ ignored, posix backend
 *   exchange       one rank's datatype for an exchange message fails (PMPI_Type_create_hindexed
 *                  interposed): rounds and pipelines, two-sided and one-sided (MCIO_HINTS)
 *   sink           a message received without room for it (the engine's stand-in receives)
 *                  is consumed whole, writes nothing outside its 4 KiB sink (sanitizer
 *                  builds), and the next message arrives intact
 */
#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>

#include "mcio_io.h"
#include "mcio_test.h"

/* What to inject; set by the test before each call, the same way on every rank. */
static struct {
    int short_every;    /* every k-th pwrite/pread moves only part of what was asked */
    int eintr_every;    /* every k-th pwrite/pread returns -EINTR having moved nothing */
    int zero_write;     /* pwrite returns 0 */
    int fail_rank;      /* the rank that fails (-1: all) */
    int fail_errno;     /* 0: none */
    int fail_reads;     /* the failure hits pread instead of pwrite */
    int64_t fail_after; /* bytes moved before the failure */
    int sync_errno;
    int lose;        /* fail_rank's next pwrite reports all its bytes written and stores none */
    int eof_reads;   /* fail_rank's next eof_reads preads read 0 bytes inside the file: the end
                        of the file where it was before another aggregator extended it */
    int close_fails; /* the backend's close fails on fail_rank (after its collective part) */
    /* What happened, to make sure the faults were really injected: [0] writes, [1] reads. */
    int64_t moved, calls[2], shorts[2], eintrs[2], failures;
} fault;

static void fault_reset(void)
{
    memset(&fault, 0, sizeof fault);
    fault.fail_rank = -1;
}

static int fault_here(void)
{
    return fault.fail_rank < 0 || fault.fail_rank == mt.rank;
}

static int fault_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, void **state,
                      int *can_read, char detail[MCIO_DETAIL_LEN])
{
    return mcio_io_posix.open(comm, path, amode, info, state, can_read, detail);
}

static int fault_close(void *state, char detail[MCIO_DETAIL_LEN])
{
    int st = mcio_io_posix.close(state, detail); /* released whatever is injected */
    if (st == MCIO_SUCCESS && fault.close_fails && fault_here()) {
        snprintf(detail, MCIO_DETAIL_LEN, "close: injected failure");
        return MCIO_ERR_IO;
    }
    return st;
}

/* Shared by pwrite and pread: returns the length to move, or a negative errno to return. */
static int64_t fault_decide(int64_t len, int is_read)
{
    int64_t call = ++fault.calls[is_read];
    if (fault.eintr_every && call % fault.eintr_every == 0) {
        fault.eintrs[is_read]++;
        return -EINTR;
    }
    if (fault.fail_errno && fault.fail_reads == is_read &&
        (fault.fail_rank < 0 || fault.fail_rank == mt.rank) &&
        fault.moved + len > fault.fail_after) {
        int64_t room = fault.fail_after - fault.moved;
        if (room > 0)
            return room; /* up to the limit, then fail on the next call */
        fault.failures++;
        return -fault.fail_errno;
    }
    if (!is_read && fault.zero_write) {
        fault.failures++;
        return 0;
    }
    if (fault.short_every && call % fault.short_every == 0 && len > 1) {
        fault.shorts[is_read]++;
        return 1 + (int64_t)((uint64_t)call % (uint64_t)(len - 1)); /* 1 .. len-1 bytes */
    }
    return len;
}

static int64_t fault_pwrite(void *state, const void *buf, int64_t len, int64_t off)
{
    if (fault.lose && fault_here()) { /* acknowledged, and lost: GlusterFS 10.3 did so */
        fault.lose = 0;
        fault.failures++;
        return len;
    }
    int64_t n = fault_decide(len, 0);
    if (n <= 0)
        return n;
    n = mcio_io_posix.pwrite(state, buf, n, off);
    if (n > 0)
        fault.moved += n;
    return n;
}

static int64_t fault_pread(void *state, void *buf, int64_t len, int64_t off)
{
    if (fault.eof_reads > 0 && fault_here()) {
        fault.eof_reads--;
        fault.failures++;
        return 0;
    }
    int64_t n = fault_decide(len, 1);
    if (n <= 0)
        return n;
    n = mcio_io_posix.pread(state, buf, n, off);
    if (n > 0)
        fault.moved += n;
    return n;
}

static int64_t fault_size(void *state)
{
    return mcio_io_posix.size(state);
}

static int fault_sync(void *state)
{
    if (fault.sync_errno && (fault.fail_rank < 0 || fault.fail_rank == mt.rank))
        return -fault.sync_errno;
    return mcio_io_posix.sync(state);
}

static const mcio_io_backend fault_backend = {
    .name = "fault",
    .open = fault_open,
    .close = fault_close,
    .pwrite = fault_pwrite,
    .pread = fault_pread,
    .sync = fault_sync,
    .size = fault_size,
};

static int64_t per_rank;

/* Interleaved pieces of about `piece` bytes with small holes: every rank in every aggregator's
 * domain. */
static void gen_pieces(int r, int n, int64_t piece, mt_extents *e)
{
    memset(e, 0, sizeof *e);
    const int64_t pieces = per_rank / piece;
    for (int64_t i = 0; i < pieces; i++)
        mt_ext_push(e, 32 + (i * n + r) * piece, piece - 1 - (i % 5));
}

static void gen(int r, int n, mt_extents *e)
{
    gen_pieces(r, n, 500, e);
}

/* The end of a test on a shared file: close it, check that it holds generation gen of every
 * rank's extents, remove it and release the test's layout and buffers. */
static void close_and_release(mcio_file *fh, const char *path, int64_t size, mt_extents *all,
                              int n, unsigned gen, MPI_Info *info, uint8_t *got)
{
    CHECK_OK(mcio_file_close(fh));
    MT_VERIFY_FILE(path, size, all, n, gen);
    mt_remove(path);
    mt_info_free(info);
    free(got);
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
    mt.ctx = NULL;
}

static int64_t sum_over_ranks(int64_t x)
{
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return x;
}

/*
 * The fault-backend tests share one file: rewritten with generation gen after each error, so
 * that the handle is shown to work and the file to hold exactly the last good write.
 */
static void test_fault_backend(void)
{
    int n = mt.nprocs, me = mt.rank, last = n - 1;
    char path[512], tag[32];
    mt.ctx = "fault/retries";
    mt_path(path, sizeof path, "fault");
    mt_extents *all = calloc((size_t)n, sizeof *all);
    for (int r = 0; r < n; r++)
        gen(r, n, &all[r]);
    const mt_extents *e = &all[me];
    int64_t size = mt_ext_end(&all[last]) + 700, bytes = mt_ext_bytes(e);
    mt_prefill(path, size);

    /* Every rank an aggregator, each round a fraction of a domain. */
    char nodes[16], bufsize[32];
    snprintf(nodes, sizeof nodes, "%d", n);
    snprintf(bufsize, sizeof bufsize, "%" PRId64, per_rank / 3 + 11);
    MPI_Info info =
        mt_info("mcio_io_backend", "fault", "cb_nodes", nodes, "cb_buffer_size", bufsize, NULL);
    mcio_file fh;
    fault_reset();
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) != MCIO_SUCCESS) {
        mt_info_free(&info);
        return;
    }
    mcio_stats s;
    uint8_t *got = mt_malloc((size_t)bytes);

    /* Short transfers and EINTR everywhere: success, and every byte right. */
    unsigned gen_ok = 1;
    uint8_t *buf = mt_pack(e, gen_ok);
    fault.short_every = 2;
    fault.eintr_every = 3;
    CHECK_OK(mcio_write_at_all(fh, e->n, e->off, e->len, buf));
    CHECK_OK(mcio_file_get_stats(fh, &s));
    CHECKF(s.aggregators == n, "%d aggregators, expected %d", s.aggregators, n);
    CHECKF(s.rounds > 1, "%d rounds", s.rounds);
    memset(got, 0, (size_t)bytes);
    if (CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got)) == MCIO_SUCCESS)
        MT_COMPARE(got, buf, bytes, 0, "read back through short reads and EINTR");
    MT_VERIFY_MCIO(fh, size, all, n, gen_ok);
    for (int rd = 0; rd < 2; rd++) {
        int64_t shorts = sum_over_ranks(fault.shorts[rd]),
                eintrs = sum_over_ranks(fault.eintrs[rd]);
        CHECKF(shorts > 0 && eintrs > 0,
               "%s: faults not injected (%" PRId64 " short, %" PRId64 " EINTR)",
               rd ? "reads" : "writes", shorts, eintrs);
    }
    fault_reset();
    MPI_Barrier(MPI_COMM_WORLD); /* written before anyone looks */
    MT_VERIFY_FILE(path, size, all, n, gen_ok);
    free(buf);

    /* Errors: each on every rank, then a clean write to show the handle still works. */
    static const struct {
        const char *name;
        int err, reads, zero, on_last, status;
        int64_t after;
        const char *says;
    } cases[] = {
        {"EIO after 1000 bytes, last rank", EIO, 0, 0, 1, MCIO_ERR_IO, 1000, "Input/output error"},
        {"ENOSPC, first rank", ENOSPC, 0, 0, 0, MCIO_ERR_NOSPACE, 0, "No space left"},
        {"EDQUOT, first rank", EDQUOT, 0, 0, 0, MCIO_ERR_NOSPACE, 10, "quota"},
        {"EFBIG, last rank", EFBIG, 0, 0, 1, MCIO_ERR_FBIG, 0, "too large"},
        {"0-byte write, first rank", 0, 0, 1, 0, MCIO_ERR_IO, 0, "short write"},
        {"EIO on read-modify-write, last rank", EIO, 1, 0, 1, MCIO_ERR_IO, 0, "Input/output error"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mt.ctx = cases[c].name;
        fault_reset();
        fault.fail_errno = cases[c].err;
        fault.fail_reads = cases[c].reads;
        fault.zero_write = cases[c].zero && me == 0;
        fault.fail_rank = cases[c].on_last ? last : 0;
        fault.fail_after = cases[c].after;
        fault.short_every = 4;
        buf = mt_pack(e, 50 + (unsigned)c);
        MT_CHECK_ERROR(mcio_write_at_all(fh, e->n, e->off, e->len, buf), cases[c].status,
                       cases[c].says, path, mt_rank_tag(tag, cases[c].on_last ? last : 0));
        CHECKF(sum_over_ranks(fault.failures) > 0, "the fault was never hit");
        free(buf);
        /* The handle still works: a clean write, then the file holds it, all of it. */
        fault_reset();
        gen_ok = 100 + (unsigned)c;
        buf = mt_pack(e, gen_ok);
        CHECK_OK(mcio_write_at_all(fh, e->n, e->off, e->len, buf));
        MPI_Barrier(MPI_COMM_WORLD);
        MT_VERIFY_FILE(path, size, all, n, gen_ok);
        free(buf);
    }

    /* EIO on a read, on the last rank: an error everywhere, and the data is still there. */
    mt.ctx = "EIO on read";
    fault_reset();
    fault.fail_errno = EIO;
    fault.fail_reads = 1;
    fault.fail_rank = last;
    fault.fail_after = 300;
    MT_CHECK_ERROR(mcio_read_at_all(fh, e->n, e->off, e->len, got), MCIO_ERR_IO,
                   "Input/output error", "read", path, mt_rank_tag(tag, last));
    fault_reset();
    MT_VERIFY_MCIO(fh, size, all, n, gen_ok);

    /* sync failing on one rank. */
    mt.ctx = "EIO on sync";
    fault.sync_errno = EIO;
    fault.fail_rank = last;
    MT_CHECK_ERROR(mcio_file_sync(fh), MCIO_ERR_IO, "sync", path, mt_rank_tag(tag, last));
    fault_reset();
    CHECK_OK(mcio_file_sync(fh));

    /* A write acknowledged and lost, as GlusterFS 10.3 lost synced writes (docs/reliability.md,
     * item 4), each rank writing its own pieces: the call succeeds, since nothing told mcio;
     * with mcio_write_verify it fails on every rank, naming the rank that read its bytes back
     * wrong, the file and the offset; and the handle still writes. */
    mt.ctx = "a lost write";
    int64_t lost_off = e->off[0]; /* the last rank's first write is the one lost */
    MPI_Bcast(&lost_off, 1, MPI_INT64_T, last, MPI_COMM_WORLD);
    char at[64];
    snprintf(at, sizeof at, "at offset %" PRId64 " read back different", lost_off);
    for (int verify = 0; verify < 2; verify++) {
        MPI_Info h = mt_info("romio_cb_write", "disable", "mcio_write_verify",
                             verify ? "true" : "false", NULL);
        CHECK_OK(mcio_file_set_hints(fh, h));
        mt_info_free(&h);
        fault_reset();
        fault.lose = 1;
        fault.fail_rank = last;
        buf = mt_pack(e, 200 + (unsigned)verify);
        int st = mcio_write_at_all(fh, e->n, e->off, e->len, buf);
        if (verify)
            MT_CHECK_ERROR(st, MCIO_ERR_IO, at, "mcio_write_verify", path, mt_rank_tag(tag, last));
        else
            CHECK_OK(st);
        CHECKF(sum_over_ranks(fault.failures) == 1, "the fault was not hit once");
        free(buf);
    }
    fault_reset();
    gen_ok = 202;
    buf = mt_pack(e, gen_ok);
    CHECK_OK(mcio_write_at_all(fh, e->n, e->off, e->len, buf));
    free(buf);

    /* A read that meets an end of file the size then denies: the file grew meanwhile (another
     * aggregator of the same write extended it while this one read its span around holes,
     * seen in 2 of 25 runs of mcio-bench): read once more, and the call succeeds with every
     * byte right, writes (the read-modify-write) and reads alike. Every read meeting it is a
     * read that stops early (OMPIO on a dead brick): an error on every rank. */
    mt.ctx = "an end of file that moved";
    MPI_Info agg = mt_info("romio_cb_write", "enable", "romio_cb_read", "enable",
                           "mcio_write_verify", "false", NULL);
    CHECK_OK(mcio_file_set_hints(fh, agg));
    mt_info_free(&agg);
    for (int rd = 0; rd < 2; rd++) {
        fault_reset();
        fault.eof_reads = 1;
        fault.fail_rank = last;
        if (rd) {
            memset(got, 0, (size_t)bytes);
            buf = mt_pack(e, gen_ok);
            if (CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got)) == MCIO_SUCCESS)
                MT_COMPARE(got, buf, bytes, 0, "read through an end of file that moved");
        } else {
            gen_ok = 150;
            buf = mt_pack(e, gen_ok);
            CHECK_OK(mcio_write_at_all(fh, e->n, e->off, e->len, buf));
        }
        CHECKF(sum_over_ranks(fault.failures) == 1, "%s: the fault was not hit once",
               rd ? "read" : "write");
        free(buf);
    }
    fault_reset();
    MPI_Barrier(MPI_COMM_WORLD);
    MT_VERIFY_FILE(path, size, all, n, gen_ok);
    mt.ctx = "reads that stop early";
    fault.eof_reads = 1 << 20;
    fault.fail_rank = last;
    MT_CHECK_ERROR(mcio_read_at_all(fh, e->n, e->off, e->len, got), MCIO_ERR_IO,
                   "0 bytes read before the end of the file", "read", path,
                   mt_rank_tag(tag, last));
    fault_reset();

    close_and_release(&fh, path, size, all, n, gen_ok, &info, got);
}

/* The layout of test_read_first and test_write_first: each rank's interleaved pieces (gen) in
 * all[], and a block each in blocks[], 7 bytes shorter per rank, after 32 bytes; in others[],
 * when asked for, the blocks but the last rank's. Returns the file's size. */
static int64_t pieces_and_blocks(int n, mt_extents **all, mt_extents **blocks, mt_extents **others)
{
    *all = calloc((size_t)n, sizeof **all);
    *blocks = calloc((size_t)n, sizeof **blocks);
    if (others)
        *others = calloc((size_t)n, sizeof **others);
    for (int r = 0; r < n; r++) {
        gen(r, n, &(*all)[r]);
        mt_ext_push(&(*blocks)[r], 32 + (int64_t)r * per_rank, per_rank - 7 * r);
        if (others && r != n - 1)
            mt_ext_push(&(*others)[r], 32 + (int64_t)r * per_rank, per_rank - 7 * r);
    }
    return 32 + (int64_t)n * per_rank + 700;
}

/* Opens path through the fault backend with info (then freed), the faults reset; NULL where
 * the open failed (checked). */
static mcio_file open_faulty(const char *path, MPI_Info *info)
{
    mcio_file fh;
    fault_reset();
    int st = CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, *info, &fh));
    mt_info_free(info);
    return st == MCIO_SUCCESS ? fh : NULL;
}

/*
 * Reads that move their bytes first (mcio_engine_bytes_first): after a read that went to each
 * rank's own access, the next read of the same inputs reads before it gathers, one collective
 * that also agrees on the outcome. Every byte read is checked, and so is which path ran
 * (mcio_stats.read_first): under romio_cb_read=disable every read after the first; under the
 * cost model while the summaries stay those its independent choice was made from, and a read
 * whose inputs changed still reads its own bytes right, the next one gathering first. A read
 * failing on the last rank, and a bad argument on it, fail the call on every rank, naming
 * the rank; the next read gathers first, the one after reads first again.
 */
static void test_read_first(void)
{
    int n = mt.nprocs, me = mt.rank, last = n - 1;
    char path[512], tag[32];
    mt_path(path, sizeof path, "read-first");
    mt_extents *all, *blocks;
    int64_t size = pieces_and_blocks(n, &all, &blocks, NULL);
    mt_prefill(path, size);
    const unsigned gen_ok = 7;
    uint8_t *got = mt_malloc((size_t)per_rank + 4096);
    for (int model = 0; model < 2; model++) {
        mt.ctx = model ? "read first, the cost model" : "read first, romio_cb_read=disable";
        /* mcio_node_memory: the nodes' memory in the choice's key, steady from call to call */
        MPI_Info info = model ? mt_info("mcio_io_backend", "fault", "mcio_node_memory", "256m", NULL)
                              : mt_info("mcio_io_backend", "fault", "romio_cb_read", "disable", NULL);
        mcio_file fh = open_faulty(path, &info);
        if (!fh)
            continue;
        /* The blocks, then the interleaved pieces over them: every byte of both known. */
        uint8_t *bw = mt_pack(&blocks[me], gen_ok), *pw = mt_pack(&all[me], gen_ok);
        CHECK_OK(mcio_write_at_all(fh, blocks[me].n, blocks[me].off, blocks[me].len, bw));
        CHECK_OK(mcio_write_at_all(fh, all[me].n, all[me].off, all[me].len, pw));
        mcio_stats s;
        /* Blocks (0) and pieces (1). A read reads first after a read of its operation that
         * went to own access: every read but the first under romio_cb_read=disable; under the
         * model, after a read that chose independent, or a read first of the inputs that
         * choice was made from (decided: their pattern). */
        static const int pieces[] = {0, 0, 0, 1, 1, 0, 0};
        int expect = 0, decided = -1, firsts = 0;
        for (int k = 0; k < (int)(sizeof pieces / sizeof pieces[0]); k++) {
            const mt_extents *e = pieces[k] ? &all[me] : &blocks[me];
            memset(got, 0, (size_t)mt_ext_bytes(e));
            if (CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got)) == MCIO_SUCCESS)
                MT_COMPARE(got, pieces[k] ? pw : bw, mt_ext_bytes(e), 0,
                           pieces[k] ? "pieces" : "blocks");
            int64_t total = sum_over_ranks(mt_ext_bytes(e));
            CHECK_OK(mcio_file_get_stats(fh, &s));
            CHECKF(s.read_first == expect, "read %d: read_first %d, expected %d (choice '%s')", k,
                   s.read_first, expect, s.choice);
            CHECKF(s.op == 2 && s.bytes == total, "read %d: op %d, %" PRId64 " bytes", k, s.op,
                   s.bytes);
            firsts += s.read_first;
            if (!model)
                expect = 1;
            else if (s.read_first)
                expect = pieces[k] == decided;
            else
                decided = pieces[k], expect = !strcmp(s.choice, "independent");
        }
        CHECKF(model || firsts == 6, "%d reads first of 6", firsts);
        /* Errors in a read first: a failed read and a bad argument on the last rank. */
        for (int c = 0; c < 2 && expect; c++) {
            const mt_extents *e = &blocks[me];
            fault_reset();
            int64_t bad = -1;
            const int64_t *lens = c && me == last ? &bad : e->len;
            if (c == 0) {
                fault.fail_errno = EIO;
                fault.fail_reads = 1;
                fault.fail_rank = last;
            }
            int st = mcio_read_at_all(fh, e->n, e->off, lens, got);
            if (c == 0) {
                MT_CHECK_ERROR(st, MCIO_ERR_IO, "Input/output error", "read", path,
                               mt_rank_tag(tag, last));
                CHECKF(sum_over_ranks(fault.failures) == 1, "the fault was not hit once");
            } else {
                MT_CHECK_ERROR(st, MCIO_ERR_ARG, "negative length", mt_rank_tag(tag, last));
            }
            CHECK_OK(mcio_file_get_stats(fh, &s));
            CHECKF(s.read_first == 1, "%s: not a read first", c ? "bad argument" : "EIO");
            fault_reset();
            for (int again = 0; again < 2; again++) { /* gathers first, then reads first */
                memset(got, 0, (size_t)mt_ext_bytes(e));
                if (CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got)) == MCIO_SUCCESS)
                    MT_COMPARE(got, bw, mt_ext_bytes(e), 0, "blocks after an error");
                CHECK_OK(mcio_file_get_stats(fh, &s));
                CHECKF(s.read_first == again, "after %s, read %d: read_first %d",
                       c ? "a bad argument" : "EIO", again, s.read_first);
            }
        }
        /* A read first's statistics are made when asked for, from the call's records: after a
         * persistent plan's creation (which gathers records of its own) still the read's; after
         * a one-shot call that fails before it runs, that call's (nothing planned). */
        if (expect) {
            const mt_extents *e = &blocks[me];
            int64_t total = sum_over_ranks(mt_ext_bytes(e)), bad = -1;
            CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got));
            mcio_plan pl;
            CHECK_OK(mcio_plan_create(fh, all[me].n, all[me].off, all[me].len, &pl));
            CHECK_OK(mcio_file_get_stats(fh, &s));
            CHECKF(s.op == 2 && s.read_first == 1 && s.bytes == total && s.aggregators > 0,
                   "after a plan's creation: op %d, read_first %d, %" PRId64 " bytes, %d domains",
                   s.op, s.read_first, s.bytes, s.aggregators);
            CHECK_OK(mcio_plan_free(&pl));
            CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got));
            MT_CHECK_ERROR(mcio_write_at_all(fh, e->n, e->off, me == last ? &bad : e->len, bw),
                           MCIO_ERR_ARG, "negative length", mt_rank_tag(tag, last));
            CHECK_OK(mcio_file_get_stats(fh, &s));
            CHECKF(s.op == 1 && s.read_first == 0 && s.bytes == 0 && s.aggregators == 0,
                   "after a failed write: op %d, read_first %d, %" PRId64 " bytes, %d domains",
                   s.op, s.read_first, s.bytes, s.aggregators);
        }
        free(bw);
        free(pw);
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_layer layers[2] = {{blocks, n, gen_ok}, {all, n, gen_ok}};
    MT_VERIFY_LAYERS(path, size, layers, 2);
    mt_remove(path);
    free(got);
    for (int r = 0; r < n; r++) {
        mt_ext_free(&all[r]);
        mt_ext_free(&blocks[r]);
    }
    free(all);
    free(blocks);
    mt.ctx = NULL;
}

/* Writes extents e of generation gen with mcio_write_at_all, their lengths lens. */
static int write_gen(mcio_file fh, const mt_extents *e, const int64_t *lens, unsigned gen)
{
    uint8_t *w = mt_pack(e, gen);
    int st = mcio_write_at_all(fh, e->n, e->off, lens, w);
    free(w);
    return st;
}

/* What mcio_file_get_stats says of the last write (of generation gen): write_first as expected
 * (after the call's error was checked: the call clears the message). */
static void check_write_first(mcio_file fh, unsigned gen, int expect, mcio_stats *s)
{
    CHECK_OK(mcio_file_get_stats(fh, s));
    CHECKF(s->write_first == expect, "write of generation %u: write_first %d, expected %d "
           "(choice '%s')", gen, s->write_first, expect, s->choice);
    CHECKF(s->op == 1 && s->read_first == 0, "write of generation %u: op %d, read_first %d",
           gen, s->op, s->read_first);
}

/*
 * Writes that move their bytes first (mcio_engine_bytes_first), as test_read_first's reads:
 * after a write that went to each rank's own access, the next write of the same inputs writes
 * before it gathers, one collective that also agrees on the outcome; the file is checked after
 * every write, each a new generation. Under romio_cb_write=disable every write after the
 * first; under the cost model while the summaries stay those of its independent choice. A
 * write failing on the last rank, and a bad argument on it, fail the call on every rank,
 * naming the rank: the other ranks' blocks then hold the call's bytes, the last rank's the
 * earlier ones, and nothing else changed; the next write gathers first, the one after writes
 * first again. Where writes end with a sync (mcio_write_sync true), none writes first.
 */
static void test_write_first(void)
{
    int n = mt.nprocs, me = mt.rank, last = n - 1;
    char path[512], tag[32];
    mt_path(path, sizeof path, "write-first");
    mt_extents *all, *blocks, *others;
    int64_t size = pieces_and_blocks(n, &all, &blocks, &others);
    static const char *const ctx[3] = {"write first, romio_cb_write=disable",
                                       "write first, the cost model", "write first, synced"};
    for (int c = 0; c < 3; c++) {
        mt.ctx = ctx[c];
        mt_prefill(path, size);
        MPI_Info info =
            c == 0   ? mt_info("mcio_io_backend", "fault", "romio_cb_write", "disable", NULL)
            : c == 1 ? mt_info("mcio_io_backend", "fault", "mcio_node_memory", "256m", NULL)
                     : mt_info("mcio_io_backend", "fault", "romio_cb_write", "disable",
                               "mcio_write_sync", "true", NULL);
        mcio_file fh = open_faulty(path, &info);
        if (!fh)
            continue;
        /* Blocks (0) and pieces (1), each write a generation of its own over the last. */
        static const int pieces[] = {0, 0, 0, 1, 1, 0, 0};
        int expect = 0, decided = -1, firsts = 0;
        unsigned g = 10;
        mcio_stats s;
        for (int k = 0; k < (int)(sizeof pieces / sizeof pieces[0]); k++, g++) {
            const mt_extents *e = pieces[k] ? &all[me] : &blocks[me];
            CHECK_OK(write_gen(fh, e, e->len, g));
            check_write_first(fh, g, c == 2 ? 0 : expect, &s);
            mt_layer now = {pieces[k] ? all : blocks, n, g};
            MT_VERIFY_LAYERS(path, size, &now, 1);
            mt_prefill(path, size); /* the next generation over the sentinel alone */
            firsts += s.write_first;
            if (c == 0)
                expect = 1;
            else if (s.write_first)
                expect = pieces[k] == decided;
            else
                decided = pieces[k], expect = !strcmp(s.choice, "independent");
        }
        CHECKF(c != 0 || firsts == 6, "%d writes first of 6", firsts);
        /* Errors in a write first: a failed write and a bad argument on the last rank. */
        for (int f = 0; f < 2 && expect && c < 2; f++, g += 2) {
            const mt_extents *e = &blocks[me];
            mt.ctx = f ? "write first, a bad argument" : "write first, a failed write";
            CHECK_OK(write_gen(fh, e, e->len, g)); /* generation g everywhere */
            check_write_first(fh, g, 1, &s);
            fault_reset();
            int64_t bad = -1;
            if (f == 0)
                fault.fail_errno = EIO, fault.fail_rank = last;
            int st = write_gen(fh, e, f && me == last ? &bad : e->len, g + 1);
            if (f == 0) {
                MT_CHECK_ERROR(st, MCIO_ERR_IO, "Input/output error", "write", path,
                               mt_rank_tag(tag, last));
                CHECKF(sum_over_ranks(fault.failures) == 1, "the fault was not hit once");
            } else {
                MT_CHECK_ERROR(st, MCIO_ERR_ARG, "negative length", mt_rank_tag(tag, last));
            }
            check_write_first(fh, g + 1, 1, &s);
            fault_reset();
            mt_layer layers[2] = {{blocks, n, g}, {others, n, g + 1}};
            MT_VERIFY_LAYERS(path, size, layers, 2);
            /* A collective call does not order the ranks (MPI: sync, barrier, sync does): a
             * write first lands as soon as its rank enters the call, while another may still be
             * reading the file here. */
            MPI_Barrier(MPI_COMM_WORLD);
            for (int again = 0; again < 2; again++) { /* gathers first, then writes first */
                CHECK_OK(write_gen(fh, e, e->len, g + 1));
                check_write_first(fh, g + 1, again, &s);
            }
            mt_layer now = {blocks, n, g + 1};
            MT_VERIFY_LAYERS(path, size, &now, 1);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_remove(path);
    for (int r = 0; r < n; r++) {
        mt_ext_free(&all[r]);
        mt_ext_free(&blocks[r]);
        mt_ext_free(&others[r]);
    }
    free(all);
    free(blocks);
    free(others);
    mt.ctx = NULL;
}

/*
 * A failure in the close phase on one rank (the last) reaches every rank as the same error
 * naming that rank, and leaves nothing behind: the handle released on every rank (the sanitizer
 * build would see a leak) and the file holding what was written. The other phases: open, a
 * hint refused on one rank (mpi_errors; a backend's own open agrees inside, as posix and mpiio
 * do); plan, bad arguments on one rank (mpi_errors); exchange, test_exchange_fault below;
 * file access, test_fault_backend above.
 */
static void test_close_one_rank(void)
{
    int last = mt.nprocs - 1;
    char path[512], tag[32];
    mt_path(path, sizeof path, "phases");
    MPI_Info info = mt_info("mcio_io_backend", "fault", NULL);
    mcio_file fh = MCIO_FILE_NULL;

    fault_reset();
    mt.ctx = "close fails on one rank";
    int64_t off = 100 * (int64_t)mt.rank, len = 100;
    char data[100], got[100];
    for (int i = 0; i < 100; i++)
        data[i] = (char)(mt.rank * 7 + i);
    CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    CHECK_OK(mcio_write_at_all(fh, 1, &off, &len, data));
    fault.close_fails = 1;
    fault.fail_rank = last;
    MT_CHECK_ERROR(mcio_file_close(&fh), MCIO_ERR_IO, "close: injected failure",
                   mt_rank_tag(tag, last));
    CHECKF(fh == MCIO_FILE_NULL, "a failed close left the handle set");
    fault_reset();
    CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
    memset(got, 0, sizeof got);
    CHECK_OK(mcio_read_at_all(fh, 1, &off, &len, got));
    CHECKF(memcmp(got, data, sizeof got) == 0, "the data written before the failed close is lost");
    CHECK_OK(mcio_file_close(&fh));
    mt_remove(path);
    mt_info_free(&info);
    mt.ctx = NULL;
}

/*
 * The exchange phase. The engine builds an MPI datatype for each message whose pieces are
 * scattered (mcio_exchange_post_group; the origin and target of a one-sided put or get), the
 * step where MPI packs the pieces and allocates for it. This program interposes
 * PMPI_Type_create_hindexed through MPI's profiling interface: the engine calls the PMPI_ name,
 * this definition comes first, and the MPI library's is found with dlsym(RTLD_NEXT). Armed, it
 * fails once, the (after+1)-th creation on xfault.rank, as an MPI library out of memory would
 * (MPI_ERR_NO_MEM, returned: the engine's calls check it). Nothing in the library is there for
 * the test.
 */
static struct {
    int rank; /* the rank that fails (-1: none) */
    int64_t after, calls, failures;
    int64_t runs;      /* creations of the runs' types (hvector, hindexed_block), any rank */
    char failed[40];   /* the call that failed, on the failing rank */
} xfault = {.rank = -1};

typedef int (*hindexed_fn)(int, const int[], const MPI_Aint[], MPI_Datatype, MPI_Datatype *);
typedef int (*hvector_fn)(int, int, MPI_Aint, MPI_Datatype, MPI_Datatype *);
typedef int (*hindexed_block_fn)(int, int, const MPI_Aint[], MPI_Datatype, MPI_Datatype *);

/* Is this creation (by the MPI call named) the one that fails? */
static int xfault_now(const char *call)
{
    if (xfault.rank == mt.rank && xfault.calls++ == xfault.after) {
        xfault.failures++;
        snprintf(xfault.failed, sizeof xfault.failed, "%s", call);
        return 1;
    }
    return 0;
}

int PMPI_Type_create_hindexed(int count, const int blocklens[], const MPI_Aint displs[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static hindexed_fn real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Type_create_hindexed");
    return xfault_now("MPI_Type_create_hindexed") ? MPI_ERR_NO_MEM
                                                  : real(count, blocklens, displs, oldtype, newtype);
}

/* The two calls of a message whose pieces form runs of one shape (Open MPI: pieces_type in
 * mcio_rounds.c): the run's hvector, then its repetition at each run's start. */
int PMPI_Type_create_hvector(int count, int blocklen, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static hvector_fn real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Type_create_hvector");
    xfault.runs++;
    return xfault_now("MPI_Type_create_hvector") ? MPI_ERR_NO_MEM
                                                 : real(count, blocklen, stride, oldtype, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklen, const MPI_Aint displs[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static hindexed_block_fn real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Type_create_hindexed_block");
    xfault.runs++;
    return xfault_now("MPI_Type_create_hindexed_block") ? MPI_ERR_NO_MEM
                                                        : real(count, blocklen, displs, oldtype, newtype);
}

/*
 * A datatype of the exchange fails on one rank, in a write and in a read, on the first and the
 * last rank: every rank returns MCIO_ERR_MPI with the same message naming the failing rank, the
 * exchange and MPI_Type_create_hindexed; no rank waits for a message that never comes (the
 * deadline would name it); then the same handle writes and reads again, every byte checked in
 * the file and in memory. Every rank aggregates, with several rounds each (as
 * test_fault_backend), and the pieces are small (40 bytes), so that every message to or from
 * an aggregator gathers scattered pieces, even in the 512-byte sub-buffers of some pipeline
 * variants. MCIO_HINTS chooses the executor and transport (tests/mpi/CMakeLists.txt).
 */
static void test_exchange_fault(int regular)
{
    int n = mt.nprocs, me = mt.rank, last = n - 1;
    if (n == 1) {
        if (me == 0)
            printf("mpi_faults: exchange faults need 2 ranks or more (one rank exchanges "
                   "nothing)\n");
        return;
    }
    char path[512], tag[32], nodes[16], bufsize[32];
    mt.ctx = regular ? "exchange, regular pieces" : "exchange";
    xfault.runs = 0;
    mt_path(path, sizeof path, regular ? "exchange-regular" : "exchange");
    mt_extents *all = calloc((size_t)n, sizeof *all);
    for (int r = 0; r < n; r++) {
        if (!regular) {
            gen_pieces(r, n, 40, &all[r]);
            continue;
        }
        memset(&all[r], 0, sizeof all[r]); /* 39 bytes every n x 40: one run per message */
        for (int64_t i = 0; i < per_rank / 40; i++)
            mt_ext_push(&all[r], 32 + (i * n + r) * 40, 39);
    }
    const mt_extents *e = &all[me];
    int64_t size = mt_ext_end(&all[last]) + 700, bytes = mt_ext_bytes(e);
    mt_prefill(path, size);
    snprintf(nodes, sizeof nodes, "%d", n);
    snprintf(bufsize, sizeof bufsize, "%" PRId64, per_rank / 3 + 11);
    MPI_Info info =
        mt_info("mcio_io_backend", "posix", "cb_nodes", nodes, "cb_buffer_size", bufsize, NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) != MCIO_SUCCESS) {
        mt_info_free(&info);
        return;
    }
    uint8_t *got = mt_malloc((size_t)bytes), *buf;
    unsigned gen_ok = 1;
    buf = mt_pack(e, gen_ok);
    CHECK_OK(mcio_write_at_all(fh, e->n, e->off, e->len, buf));
    free(buf);
    static const struct {
        const char *name;
        int read, on_last;
        int64_t after;
    } cases[] = {
        {"exchange: write, last rank's 1st datatype fails", 0, 1, 0},
        {"exchange: write, last rank's 2nd datatype fails", 0, 1, 1},
        {"exchange: write, first rank's 1st datatype fails", 0, 0, 0},
        {"exchange: read, last rank's 2nd datatype fails", 1, 1, 1},
        {"exchange: read, first rank's 3rd datatype fails", 1, 0, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int bad = cases[c].on_last ? last : 0;
        mt.ctx = cases[c].name;
        xfault.rank = bad;
        xfault.after = cases[c].after;
        xfault.calls = xfault.failures = 0;
        xfault.failed[0] = '\0';
        int st;
        if (cases[c].read) {
            memset(got, 0, (size_t)bytes);
            mt_phase("mcio_read_at_all (exchange fault)", __FILE__, __LINE__);
            st = mcio_read_at_all(fh, e->n, e->off, e->len, got);
        } else {
            buf = mt_pack(e, 50 + (unsigned)c);
            mt_phase("mcio_write_at_all (exchange fault)", __FILE__, __LINE__);
            st = mcio_write_at_all(fh, e->n, e->off, e->len, buf);
            free(buf);
        }
        xfault.rank = -1;
        /* The message names the call that failed (regular pieces go as runs under Open MPI:
         * an hvector, then its repetition, hindexed_block), as the failing rank saw it. */
        char step[48];
        PMPI_Bcast(xfault.failed, (int)sizeof xfault.failed, MPI_CHAR, bad, MPI_COMM_WORLD);
        snprintf(step, sizeof step, "%s of", xfault.failed);
        MT_CHECK_ERROR(st, MCIO_ERR_MPI, "exchange with rank", step, mt_rank_tag(tag, bad));
        int64_t hit = sum_over_ranks(xfault.failures);
        CHECKF(hit == 1, "the fault was hit %" PRId64 " times, not once", hit);
        /* The handle still works: a write (a new generation) and a read, every byte checked. */
        gen_ok = 100 + (unsigned)c;
        buf = mt_pack(e, gen_ok);
        CHECK_OK(mcio_write_at_all(fh, e->n, e->off, e->len, buf));
        memset(got, 0, (size_t)bytes);
        if (CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got)) == MCIO_SUCCESS)
            MT_COMPARE(got, buf, bytes, 0, "read back after an exchange fault");
        free(buf);
        MPI_Barrier(MPI_COMM_WORLD);
        MT_VERIFY_FILE(path, size, all, n, gen_ok);
    }
#ifdef OPEN_MPI
    /* Under Open MPI the regular pieces went as runs in the classic rounds (no MCIO_HINTS: the
     * pipeline variants cut them into sub-buffers of a piece or two, and the one-sided
     * transport builds its own types): the test reached that path. */
    int64_t runs = sum_over_ranks(xfault.runs);
    CHECKF(!regular || getenv("MCIO_HINTS") || runs > 0,
           "no message went as runs (%" PRId64 " creations)", runs);
#endif
    close_and_release(&fh, path, size, all, n, gen_ok, &info, got);
}

/*
 * Writing to /dev/full: ENOSPC from every write. want_alt: a second status accepted, for the
 * mpiio backend, where the MPI library decides what mcio can know: MPICH 4.0's ROMIO reports
 * ENOSPC as class MPI_ERR_IO ("Other I/O error No space left on device"), and Open MPI 4.1's
 * OMPIO returns MPI_SUCCESS with a count of 0 (which mcio must still turn into an error).
 */
static void test_dev_full(const char *backend, int want, int want_alt)
{
    char ctx[64];
    snprintf(ctx, sizeof ctx, "/dev/full %s", backend);
    mt.ctx = ctx;
    MPI_Info info = mt_info("mcio_io_backend", backend, "cb_nodes", "2", NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, info, &fh)) ==
        MCIO_SUCCESS) {
        int64_t off = 4096 * (int64_t)mt.rank, len = 4096;
        uint8_t buf[4096];
        memset(buf, 0x5A, sizeof buf);
        int st = mcio_write_at_all(fh, 1, &off, &len, buf);
        MT_CHECK_ERROR(st, st == want_alt ? want_alt : want, "/dev/full");
        CHECK_OK(mcio_file_close(&fh));
    }
    mt_info_free(&info);
    mt.ctx = NULL;
}

/* RLIMIT_FSIZE: a write past the limit fails with EFBIG (SIGXFSZ ignored). */
static void test_fsize_limit(void)
{
    int n = mt.nprocs;
    char path[512];
    mt.ctx = "RLIMIT_FSIZE";
    mt_path(path, sizeof path, "fsize");
    const int64_t limit = 64 * 1024, block = 40 * 1024;
    mt_prefill(path, 1000);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = (rlim_t)limit;
    signal(SIGXFSZ, SIG_IGN);
    MPI_Info info = mt_info("mcio_io_backend", "posix", NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) == MCIO_SUCCESS) {
        /* Past the limit, whatever the rank count. */
        int64_t off = block * mt.rank + (n == 1 ? block : 0), len = block;
        uint8_t *buf = mt_malloc((size_t)block);
        memset(buf, 0x5A, (size_t)block);
        CHECKF(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));
        MT_CHECK_ERROR(mcio_write_at_all(fh, 1, &off, &len, buf), MCIO_ERR_FBIG, "too large", path);
        CHECKF(setrlimit(RLIMIT_FSIZE, &old) == 0, "setrlimit: %s", strerror(errno));
        /* Below the limit again, the same handle writes. */
        CHECK_OK(mcio_write_at_all(fh, 1, &off, &len, buf));
        free(buf);
        CHECK_OK(mcio_file_close(&fh));
    }
    signal(SIGXFSZ, SIG_DFL);
    mt_info_free(&info);
    mt_remove(path);
    mt.ctx = NULL;
}

/*
 * The deferred backend: nonblocking file access (access_start, access_wait) whose bytes move
 * only at access_wait, posix underneath. A pipelined executor drives it from the main thread
 * (as it drives the simulation backend); one that reused a sub-buffer before completing its
 * write, or scattered one before completing its read, would write or read the wrong bytes.
 */
static struct {
    int64_t started, completed, inflight, max_inflight;
} deferred;

typedef struct deferred_op {
    int write;
    void *state, *buf;
    int64_t len, off;
} deferred_op;

static void *deferred_start(void *state, int write, void *buf, int64_t len, int64_t off)
{
    deferred_op *op = malloc(sizeof *op);
    if (!op)
        return NULL;
    *op = (deferred_op){write, state, buf, len, off};
    deferred.started++;
    if (++deferred.inflight > deferred.max_inflight)
        deferred.max_inflight = deferred.inflight;
    return op;
}

static int64_t deferred_wait(void *handle, int64_t len, int64_t *ns)
{
    deferred_op *op = handle;
    char detail[MCIO_DETAIL_LEN];
    int st = op->write ? mcio_io_write_full(&mcio_io_posix, op->state, op->buf, op->len, op->off,
                                            "deferred", detail)
                       : mcio_io_read_full(&mcio_io_posix, op->state, op->buf, op->len, op->off,
                                           "deferred", detail);
    free(op);
    deferred.completed++;
    deferred.inflight--;
    *ns = 0;
    return st == MCIO_SUCCESS ? len : -EIO;
}

static const mcio_io_backend deferred_backend = {
    .name = "deferred",
    .open = fault_open,
    .close = fault_close,
    .pwrite = fault_pwrite,
    .pread = fault_pread,
    .sync = fault_sync,
    .access_start = deferred_start,
    .access_wait = deferred_wait,
};

/* Under the pipeline variants (MCIO_HINTS), writes and reads through deferred accesses. */
static void test_deferred_backend(void)
{
    int n = mt.nprocs, me = mt.rank;
    char path[512], nodes[16], bufsize[32], depth[32] = "", transport[32] = "";
    mt.ctx = "deferred";
    mt_path(path, sizeof path, "deferred");
    mt_extents *all = calloc((size_t)n, sizeof *all);
    for (int r = 0; r < n; r++)
        gen(r, n, &all[r]);
    const mt_extents *e = &all[me];
    int64_t size = mt_ext_end(&all[n - 1]) + 700, bytes = mt_ext_bytes(e);
    mt_prefill(path, size);
    snprintf(nodes, sizeof nodes, "%d", n);
    snprintf(bufsize, sizeof bufsize, "%" PRId64, per_rank / 3 + 11);
    MPI_Info info = mt_info("mcio_io_backend", "deferred", "cb_nodes", nodes, "cb_buffer_size",
                            bufsize, NULL);
    mcio_file fh;
    fault_reset();
    memset(&deferred, 0, sizeof deferred);
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) != MCIO_SUCCESS) {
        mt_info_free(&info);
        return;
    }
    mt_get_hint(fh, "mcio_pipeline_depth", depth, sizeof depth);
    mt_get_hint(fh, "mcio_transport", transport, sizeof transport);
    int pipelined = atoi(depth) > 1 || strcmp(transport, "rma") == 0;
    uint8_t *buf = mt_pack(e, 7), *got = mt_malloc((size_t)bytes);
    CHECK_OK(mcio_write_at_all(fh, e->n, e->off, e->len, buf));
    MPI_Barrier(MPI_COMM_WORLD); /* written before anyone looks */
    MT_VERIFY_FILE(path, size, all, n, 7);
    memset(got, 0, (size_t)bytes);
    if (CHECK_OK(mcio_read_at_all(fh, e->n, e->off, e->len, got)) == MCIO_SUCCESS)
        MT_COMPARE(got, buf, bytes, 0, "read back through deferred accesses");
    CHECK_OK(mcio_file_close(&fh));
    /* The pipeline used the nonblocking accesses, completed each, and with two sub-buffers or
     * more kept several in flight at once; the classic executor never uses them. */
    int64_t started = sum_over_ranks(deferred.started), most = deferred.max_inflight;
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    CHECKF(pipelined ? started > 0 : started == 0, "%" PRId64 " nonblocking accesses (%s)",
           started, pipelined ? "pipelined" : "classic");
    CHECKF(sum_over_ranks(deferred.completed) == started, "%" PRId64 " started, %" PRId64
           " completed", started, sum_over_ranks(deferred.completed));
    CHECKF(atoi(depth) < 2 || most > 1, "at most %" PRId64 " access in flight at depth %s", most,
           depth);
    free(buf);
    free(got);
    for (int r = 0; r < n; r++)
        mt_ext_free(&all[r]);
    free(all);
    mt_info_free(&info);
    mt_remove(path);
    mt.ctx = NULL;
}

/* Tests only (src/engine/mcio_engine.h, which this program does not include). */
#define SINK_BYTES 4096 /* MCIO_SINK_BYTES */
int mcio_sink_irecv(void *sink, int64_t bytes, MPI_Datatype elem, int elem_size, int peer, int tag,
                    MPI_Comm comm, MPI_Datatype *type, MPI_Request *req);

/*
 * The engine drops a message it has no memory for by receiving it through a sink. A truncating
 * receive wrote Open MPI's messages above its eager size past the buffer; this one must not
 * (the sink sits alone in a heap block of its size, so the sanitizer builds see any write past
 * it). Rank 0 sends rank 1 messages of several sizes (int64s 0, 1, 2, ...) and then a short one
 * on the same tag; rank 1 drops each through the sink and checks that the sink holds the
 * message's last block and that the short message is intact.
 */
static void test_sink(void)
{
    if (mt.nprocs < 2)
        return;
    mt.ctx = "sink";
    const int64_t sizes[] = {8, 4096, 80000, 4 << 20, (4 << 20) + 24};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        int64_t n = sizes[c] / 8, tail[3] = {-1, -2, -3};
        if (mt.rank == 0) {
            int64_t *msg = mt_malloc((size_t)sizes[c]);
            for (int64_t i = 0; i < n; i++)
                msg[i] = i;
            MPI_Send(msg, (int)n, MPI_INT64_T, 1, 77, MPI_COMM_WORLD);
            MPI_Send(tail, 3, MPI_INT64_T, 1, 77, MPI_COMM_WORLD);
            free(msg);
        } else if (mt.rank == 1) {
            int64_t *sink = mt_malloc(SINK_BYTES), got[3] = {0, 0, 0};
            MPI_Datatype type;
            MPI_Request req;
            MPI_Status status;
            int count = -1;
            CHECK(mcio_sink_irecv(sink, sizes[c], MPI_INT64_T, 8, 0, 77, MPI_COMM_WORLD, &type,
                                  &req) == MPI_SUCCESS);
            CHECK(MPI_Wait(&req, &status) == MPI_SUCCESS);
            MPI_Get_elements(&status, MPI_INT64_T, &count);
            CHECKF(count == n, "%" PRId64 " bytes: %d elements received, %" PRId64 " sent",
                   sizes[c], count, n);
            int64_t per = SINK_BYTES / 8, last = (n - 1) / per * per; /* the last block's start */
            for (int64_t i = last; i < n; i++)
                CHECKF(sink[i - last] == i, "%" PRId64 " bytes: sink[%" PRId64 "] = %" PRId64,
                       sizes[c], i - last, sink[i - last]);
            MPI_Type_free(&type);
            MPI_Recv(got, 3, MPI_INT64_T, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECKF(got[0] == -1 && got[1] == -2 && got[2] == -3,
                   "the message after a dropped one arrived as %" PRId64 " %" PRId64 " %" PRId64,
                   got[0], got[1], got[2]);
            free(sink);
        }
    }
    mt.ctx = NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_faults");
    per_rank = mt.nprocs <= 4 ? 30000 : 6000;
    mt.ctx = "register";
    CHECK(mcio_io_register(&fault_backend) == MCIO_SUCCESS);
    CHECK(mcio_io_register(&fault_backend) == MCIO_ERR_ARG); /* the name is taken */
    CHECK(mcio_io_find("fault") == &fault_backend);
    test_fault_backend();
    test_read_first();
    test_write_first();
    test_close_one_rank();
    test_exchange_fault(0);
    test_exchange_fault(1);
    test_sink();
    CHECK(mcio_io_register(&deferred_backend) == MCIO_SUCCESS);
    test_deferred_backend();
    test_dev_full("posix", MCIO_ERR_NOSPACE, MCIO_ERR_NOSPACE);
    test_dev_full("mpiio", MCIO_ERR_NOSPACE, MCIO_ERR_IO);
    test_fsize_limit();
    return mt_finish();
}
