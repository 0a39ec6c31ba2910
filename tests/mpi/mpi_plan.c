/*
 * Persistent plans and the iovec forms.
 *
 * plans: two plans live on one file at once, a HACC-style record pattern (records of all
 *   ranks interleaved) and a contiguous block per rank behind it (regions that do not
 *   interleave: the independent plan, each rank its own aggregator). Each is reused several times
 *   with new data (a checkpoint every step), one-shot calls and the other plan's uses in
 *   between; every write is read back with mcio_plan_read and, at the end, the whole file is
 *   checked to hold the last generation of each region over the sentinel. A file with a live
 *   plan must refuse to close, the same way on every rank.
 * iovec: mcio_writev_at_all / mcio_readv_at_all and a persistent plan of mcio_plan_createv,
 *   with each extent's memory somewhere else in an arena (shuffled, with guard bytes between),
 *   zero-length extents with NULL addresses, two
 *   extents adjacent in both file and memory; readv must not touch a byte of the arena outside
 *   the extents. Reads may overlap: the same bytes read into two places, with both forms.
 *
 * Both with a collective buffer a fraction of a file domain (many rounds), on the mpiio and
 * posix backends. Meanwhile a wildcard receive posted on MPI_COMM_WORLD must catch none of
 * mcio's messages.
 */
#include "mcio_test.h"

#define RECORD 38

static int64_t records; /* per rank */
static int64_t block;   /* per rank */

/* Record region: record i of rank r at (i*n + r) * RECORD. */
static void gen_records(int r, int n, mt_extents *e)
{
    memset(e, 0, sizeof *e);
    for (int64_t i = 0; i < records; i++)
        mt_ext_push(e, (i * n + r) * RECORD, RECORD);
}

/* Block region, after the records and a gap: one block per rank, the last 5 bytes left alone. */
static void gen_blocks(int r, int n, mt_extents *e)
{
    memset(e, 0, sizeof *e);
    int64_t base = records * n * RECORD + 333;
    mt_ext_push(e, base + r * block, block - 5);
}

/* A third set, written once by a one-shot call: rank r's 100 bytes in the gap before the blocks. */
static void gen_gap(int r, int n, mt_extents *e)
{
    memset(e, 0, sizeof *e);
    if (r == n - 1)
        mt_ext_push(e, records * n * RECORD + 100, 200);
}

static void gen_all(void (*g)(int, int, mt_extents *), mt_extents *all)
{
    for (int r = 0; r < mt.nprocs; r++)
        g(r, mt.nprocs, &all[r]);
}

static void free_all(mt_extents *all)
{
    for (int r = 0; r < mt.nprocs; r++)
        mt_ext_free(&all[r]);
}

static void check_rounds(mcio_file fh, int op, int64_t bytes)
{
    mcio_stats s;
    CHECK_OK(mcio_file_get_stats(fh, &s));
    CHECKF(s.op == op, "stats.op %d, expected %d", s.op, op);
    CHECKF(s.bytes == bytes, "stats.bytes %" PRId64 ", expected %" PRId64, s.bytes, bytes);
    CHECKF(s.rounds > 1, "small collective buffer but %d round(s)", s.rounds);
}

/* Write generation gen with plan p over extents e, then read it back with the plan. */
static void plan_cycle(mcio_file fh, mcio_plan p, const mt_extents *e, const mt_extents *all,
                       unsigned gen, const char *what)
{
    int64_t bytes = mt_ext_bytes(e), total = 0;
    for (int r = 0; r < mt.nprocs; r++)
        total += mt_ext_bytes(&all[r]);
    uint8_t *buf = mt_pack(e, gen), *got = mt_malloc((size_t)bytes);
    if (CHECK_OK(mcio_plan_write(p, buf)) == MCIO_SUCCESS)
        check_rounds(fh, 1, total);
    memset(got, 0x11, (size_t)bytes);
    if (CHECK_OK(mcio_plan_read(p, got)) == MCIO_SUCCESS) {
        check_rounds(fh, 2, total);
        char msg[96];
        snprintf(msg, sizeof msg, "%s: mcio_plan_read of generation %u", what, gen);
        MT_COMPARE(got, buf, bytes, 0, msg);
    }
    free(buf);
    free(got);
}

static void test_plans(const char *backend)
{
    int n = mt.nprocs, me = mt.rank;
    char path[512], name[64], ctx[64];
    snprintf(ctx, sizeof ctx, "plans/%s", backend);
    mt.ctx = ctx;
    snprintf(name, sizeof name, "plans-%s", backend);
    mt_path(path, sizeof path, name);
    mt_extents *rec = calloc((size_t)n, sizeof *rec), *blk = calloc((size_t)n, sizeof *blk),
               *gap = calloc((size_t)n, sizeof *gap);
    gen_all(gen_records, rec);
    gen_all(gen_blocks, blk);
    gen_all(gen_gap, gap);
    int64_t size = mt_ext_end(&blk[n - 1]) + 2000;
    mt_prefill(path, size);

    char bufsize[32];
    snprintf(bufsize, sizeof bufsize, "%" PRId64, records * n * RECORD / 7 + 1);
    MPI_Info info =
        mt_info("mcio_io_backend", backend, "cb_buffer_size", bufsize, "cb_nodes", "2", NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) != MCIO_SUCCESS) {
        mt_info_free(&info);
        return;
    }
    mcio_plan prec = MCIO_PLAN_NULL, pblk = MCIO_PLAN_NULL;
    CHECK_OK(mcio_plan_create(fh, rec[me].n, rec[me].off, rec[me].len, &prec));
    CHECK_OK(mcio_plan_create(fh, blk[me].n, blk[me].off, blk[me].len, &pblk));
    if (prec != MCIO_PLAN_NULL && pblk != MCIO_PLAN_NULL) {
        unsigned gen_rec = 0, gen_blk = 0;
        for (unsigned step = 1; step <= 4; step++) {
            plan_cycle(fh, prec, &rec[me], rec, gen_rec = 10 + step, "records");
            if (step % 2)
                plan_cycle(fh, pblk, &blk[me], blk, gen_blk = 20 + step, "blocks");
            if (step == 2) {
                /* A one-shot call between uses: the plans must not depend on the file's last call.
                 */
                uint8_t *g = mt_pack(&gap[me], 30);
                CHECK_OK(mcio_write_at_all(fh, gap[me].n, gap[me].off, gap[me].len, g));
                free(g);
            }
        }
        /* The plans and the one-shot write each left their last generation. */
        mt_layer layers[3] = {{rec, n, gen_rec}, {blk, n, gen_blk}, {gap, n, 30}};
        MT_VERIFY_MCIO_LAYERS(fh, size, layers, 3);

        /* Closing with live plans is refused on every rank and leaves the file usable. */
        mcio_file keep = fh;
        MT_CHECK_ERROR(mcio_file_close(&fh), MCIO_ERR_ARG, "plan");
        CHECK(fh == keep);
        fh = keep;
        CHECK_OK(mcio_plan_free(&prec));
        CHECK(prec == MCIO_PLAN_NULL);
        MT_CHECK_ERROR(mcio_file_close(&fh), MCIO_ERR_ARG, "plan");
        fh = keep;
        /* The block plan still works after the other was freed. */
        plan_cycle(fh, pblk, &blk[me], blk, gen_blk = 29, "blocks after free");
        CHECK_OK(mcio_plan_free(&pblk));
        CHECK_OK(mcio_file_close(&fh));
        layers[1].gen = gen_blk;
        MT_VERIFY_LAYERS(path, size, layers, 3);
        mt_remove(path);
    } else {
        if (prec)
            mcio_plan_free(&prec);
        if (pblk)
            mcio_plan_free(&pblk);
        mcio_file_close(&fh);
    }
    mt_info_free(&info);
    free_all(rec);
    free_all(blk);
    free_all(gap);
    free(rec);
    free(blk);
    free(gap);
    mt.ctx = NULL;
}

/*
 * iovec extents of rank r: strided pieces of varying length, listed in a shuffled order, with
 * zero-length extents between; extent 0 and 1 are adjacent in the file (and will be adjacent in
 * memory too, so they merge).
 */
static void gen_iov(int r, int n, mt_extents *e)
{
    memset(e, 0, sizeof *e);
    uint64_t seed = 0xABCDu + (uint64_t)r;
    int64_t pieces = records / 2 + 2, slot = 97;
    int64_t *order = mt_malloc((size_t)pieces * sizeof(int64_t));
    for (int64_t i = 0; i < pieces; i++)
        order[i] = i;
    for (int64_t i = pieces - 1; i > 2; i--) { /* keep 0, 1, 2 first */
        int64_t j = 2 + (int64_t)(mt_rand(&seed) % (uint64_t)(i - 1));
        int64_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int64_t k = 0; k < pieces; k++) {
        int64_t i = order[k], off = 64 + (i * n + r) * slot;
        if (k == 0)
            mt_ext_push(e, off, 40);
        else if (k == 1)
            mt_ext_push(e, off - slot * n + 40, 50); /* right after extent 0's 40 bytes */
        else
            mt_ext_push(e, off, 1 + (int64_t)(mt_rand(&seed) % (uint64_t)(slot - 1)));
        if (k % 4 == 3)
            mt_ext_push(e, off + 3, 0);
    }
    free(order);
}

/*
 * Arena positions: extent i goes at pos[i], in an order unrelated to the file order, with
 * guard bytes between; extents 0 and 1 are adjacent. Returns the arena size.
 */
static int64_t place(const mt_extents *e, int64_t *pos)
{
    int64_t at = 16, n = e->n;
    for (int64_t k = n - 1; k >= 0; k--) { /* reverse list order */
        int64_t i = k;
        if (i == 1)
            continue; /* placed right after extent 0 */
        pos[i] = at;
        at += e->len[i];
        if (i == 0 && n > 1) {
            pos[1] = at;
            at += e->len[1];
        }
        at += 1 + (i % 7);
    }
    return at + 16;
}

#define GUARD 0xD7

static void test_iovec(const char *backend)
{
    int n = mt.nprocs, me = mt.rank;
    char path[512], name[64], ctx[64];
    snprintf(ctx, sizeof ctx, "iovec/%s", backend);
    mt.ctx = ctx;
    snprintf(name, sizeof name, "iovec-%s", backend);
    mt_path(path, sizeof path, name);
    mt_extents *all = calloc((size_t)n, sizeof *all);
    gen_all(gen_iov, all);
    int64_t end = 0;
    for (int r = 0; r < n; r++)
        end = mt_ext_end(&all[r]) > end ? mt_ext_end(&all[r]) : end;
    int64_t size = end + 500;
    const mt_extents *e = &all[me];
    mt_prefill(path, size);

    char bufsize[32];
    snprintf(bufsize, sizeof bufsize, "%" PRId64, end / 6 + 1);
    MPI_Info info = mt_info("mcio_io_backend", backend, "cb_buffer_size", bufsize, NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) != MCIO_SUCCESS)
        goto out;

    int64_t *pos = mt_malloc((size_t)e->n * sizeof(int64_t));
    int64_t arena_len = place(e, pos);
    uint8_t *arena = mt_malloc((size_t)arena_len), *expect = mt_malloc((size_t)arena_len);
    const void **waddr = mt_malloc((size_t)e->n * sizeof(void *));
    void **raddr = mt_malloc((size_t)e->n * sizeof(void *));
    memset(arena, GUARD, (size_t)arena_len);
    for (int64_t i = 0; i < e->n; i++) {
        for (int64_t j = 0; j < e->len[i]; j++)
            arena[pos[i] + j] = mt_data(e->off[i] + j, 1);
        waddr[i] = e->len[i] ? arena + pos[i] : NULL;
    }
    memcpy(expect, arena, (size_t)arena_len);
    if (CHECK_OK(mcio_writev_at_all(fh, e->n, e->off, e->len, waddr)) == MCIO_SUCCESS) {
        mcio_stats s;
        mcio_file_get_stats(fh, &s);
        CHECKF(s.rounds > 1, "small collective buffer but %d round(s)", s.rounds);
    }

    /* Read back into a fresh arena: the extents' bytes and not one guard byte more. */
    uint8_t *rarena = mt_malloc((size_t)arena_len);
    memset(rarena, GUARD, (size_t)arena_len);
    for (int64_t i = 0; i < e->n; i++)
        raddr[i] = e->len[i] ? rarena + pos[i] : NULL;
    if (CHECK_OK(mcio_readv_at_all(fh, e->n, e->off, e->len, raddr)) == MCIO_SUCCESS)
        MT_COMPARE(rarena, expect, arena_len, 0, "mcio_readv_at_all arena (guards included)");

    /*
     * The same scattered memory through a persistent plan (mcio_plan_createv: displacements
     * from each use's buffer): generation 2 written from a second arena, read back with readv,
     * then generation 1 again from the first arena, read back with the plan into a fresh one.
     */
    uint8_t *arena2 = mt_malloc((size_t)arena_len);
    memset(arena2, GUARD, (size_t)arena_len);
    for (int64_t i = 0; i < e->n; i++)
        for (int64_t j = 0; j < e->len[i]; j++)
            arena2[pos[i] + j] = mt_data(e->off[i] + j, 2);
    mcio_plan pv;
    if (CHECK_OK(mcio_plan_createv(fh, e->n, e->off, e->len, pos, &pv)) == MCIO_SUCCESS) {
        memset(rarena, GUARD, (size_t)arena_len);
        if (CHECK_OK(mcio_plan_write(pv, arena2)) == MCIO_SUCCESS &&
            CHECK_OK(mcio_readv_at_all(fh, e->n, e->off, e->len, raddr)) == MCIO_SUCCESS)
            MT_COMPARE(rarena, arena2, arena_len, 0, "readv after a createv plan's write");
        memset(rarena, GUARD, (size_t)arena_len);
        if (CHECK_OK(mcio_plan_write(pv, arena)) == MCIO_SUCCESS &&
            CHECK_OK(mcio_plan_read(pv, rarena)) == MCIO_SUCCESS)
            MT_COMPARE(rarena, expect, arena_len, 0, "createv plan's read (guards included)");
        CHECK_OK(mcio_plan_free(&pv));
    }
    free(arena2);
    int64_t one_off = 0, one_len = 1;
    MT_CHECK_ERROR(mcio_plan_createv(fh, 1, &one_off, &one_len, NULL, &pv), MCIO_ERR_ARG,
                   "NULL memory");

    /*
     * Overlapping reads: the same file range into several places, v-form and packed form:
     * twice the whole of extent 0, its second half, and its first third (the same offset as
     * the whole, a different length).
     */
    if (e->n > 0) {
        int64_t l0 = e->len[0], o0 = e->off[0];
        int64_t ro[4] = {o0, o0, o0 + l0 / 2, o0};
        int64_t rl[4] = {l0, l0, l0 - l0 / 2, l0 / 3};
        int64_t at[4], total = 0;
        const int64_t src[4] = {0, 0, l0 / 2, 0}; /* where each copy starts in extent 0 */
        for (int i = 3; i >= 0; i--) {            /* backwards in memory, a guard byte after each */
            at[i] = total;
            total += rl[i] + 1;
        }
        uint8_t *many = mt_malloc((size_t)total);
        void *ta[4];
        memset(many, GUARD, (size_t)total);
        for (int i = 0; i < 4; i++)
            ta[i] = many + at[i];
        const uint8_t *x = arena + pos[0];
        if (CHECK_OK(mcio_readv_at_all(fh, 4, ro, rl, ta)) == MCIO_SUCCESS) {
            for (int i = 0; i < 4; i++) {
                char what[64];
                snprintf(what, sizeof what, "overlapping readv, copy %d", i);
                MT_COMPARE(many + at[i], x + src[i], rl[i], ro[i], what);
                CHECKF(many[at[i] + rl[i]] == GUARD, "readv wrote the guard byte after copy %d", i);
            }
        }
        uint8_t *packed = mt_malloc((size_t)total);
        if (CHECK_OK(mcio_read_at_all(fh, 4, ro, rl, packed)) == MCIO_SUCCESS) {
            for (int i = 0, p = 0; i < 4; p += (int)rl[i], i++) {
                char what[64];
                snprintf(what, sizeof what, "overlapping read, copy %d", i);
                MT_COMPARE(packed + p, x + src[i], rl[i], ro[i], what);
            }
        }
        free(packed);
        free(many);
    } else {
        CHECK_OK(mcio_readv_at_all(fh, 0, NULL, NULL, NULL));
        CHECK_OK(mcio_read_at_all(fh, 0, NULL, NULL, NULL));
    }
    /*
     * Past the end of the file: what exists reads as written, what does not as zeros; the last
     * rank reads across the end, the others nothing.
     */
    int64_t tail_off = size - 100, tail_len = me == n - 1 ? 300 : 0;
    uint8_t tail[300];
    memset(tail, 0x99, sizeof tail);
    if (CHECK_OK(mcio_read_at_all(fh, 1, &tail_off, &tail_len, tail)) == MCIO_SUCCESS && tail_len) {
        uint8_t *want = mt_image(tail_off, size, all, n, 1);
        MT_COMPARE(tail, want, 100, tail_off, "read across the end of the file: the file part");
        int64_t nonzero = 0;
        for (int i = 100; i < 300; i++)
            nonzero += tail[i] != 0;
        CHECKF(nonzero == 0, "read past the end of the file: %" PRId64 " of 200 bytes not zero",
               nonzero);
        free(want);
    }
    CHECK_OK(mcio_file_close(&fh));
    MT_VERIFY_FILE(path, size, all, n, 1); /* and the read did not grow it */
    mt_remove(path);
    free(rarena);
    free(arena);
    free(expect);
    free(waddr);
    free(raddr);
    free(pos);
out:
    mt_info_free(&info);
    free_all(all);
    free(all);
    mt.ctx = NULL;
}

/*
 * Own access (romio_cb_write/read disable) of rows that meet in the file but not in memory,
 * as FLASH-IO's rows between guard cells: packed through a buffer of MCIO_OWN_PACK bytes
 * (1 MiB), one system call per buffer. Per rank, 1,200 rows of 1,000 bytes (two buffers), a
 * 7-byte gap in the file, 100 more rows, a piece larger than the buffer (alone), then 3 rows
 * after it; the memory of each in another place of an arena with guard bytes between (place: the first two
 * meet in memory too). Every byte of the file and of the arena read back is checked, guards
 * included.
 */
static void gen_rows(int r, int n, mt_extents *e)
{
    (void)n;
    enum { ROW = 1000, PACK = 1 << 20 }; /* PACK: mcio_planner.h's MCIO_OWN_PACK */
    memset(e, 0, sizeof *e);
    int64_t at = (int64_t)r * (1300 * ROW + PACK + 4 * ROW + 64);
    for (int i = 0; i < 1300; i++, at += ROW) {
        if (i == 1200)
            at += 7;
        mt_ext_push(e, at, ROW);
    }
    mt_ext_push(e, at, PACK + 5);
    at += PACK + 5;
    for (int i = 0; i < 3; i++, at += ROW)
        mt_ext_push(e, at, ROW);
}

static void test_own_pack(void)
{
    int n = mt.nprocs, me = mt.rank;
    char path[512];
    mt.ctx = "own access, packed";
    mt_path(path, sizeof path, "own-pack");
    mt_extents *all = calloc((size_t)n, sizeof *all);
    gen_all(gen_rows, all);
    const mt_extents *e = &all[me];
    int64_t size = mt_ext_end(&all[n - 1]) + 100;
    mt_prefill(path, size);
    MPI_Info info = mt_info("romio_cb_write", "disable", "romio_cb_read", "disable", NULL);
    mcio_file fh;
    if (CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh)) != MCIO_SUCCESS)
        goto out;
    int64_t *pos = mt_malloc((size_t)e->n * sizeof(int64_t));
    int64_t arena_len = place(e, pos);
    uint8_t *arena = mt_malloc((size_t)arena_len), *back = mt_malloc((size_t)arena_len);
    const void **waddr = mt_malloc((size_t)e->n * sizeof(void *));
    void **raddr = mt_malloc((size_t)e->n * sizeof(void *));
    memset(arena, GUARD, (size_t)arena_len);
    memset(back, GUARD, (size_t)arena_len);
    for (int64_t i = 0; i < e->n; i++) {
        for (int64_t j = 0; j < e->len[i]; j++)
            arena[pos[i] + j] = mt_data(e->off[i] + j, 1);
        waddr[i] = arena + pos[i];
        raddr[i] = back + pos[i];
    }
    if (CHECK_OK(mcio_writev_at_all(fh, e->n, e->off, e->len, waddr)) == MCIO_SUCCESS) {
        mcio_stats s;
        mcio_file_get_stats(fh, &s);
        CHECKF(s.rounds == 0 && s.max_buffer_bytes == 0,
               "romio_cb_write disable, yet %d rounds of %" PRId64 " bytes", s.rounds,
               s.max_buffer_bytes);
    }
    MT_VERIFY_FILE(path, size, all, n, 1);
    if (CHECK_OK(mcio_readv_at_all(fh, e->n, e->off, e->len, raddr)) == MCIO_SUCCESS)
        MT_COMPARE(back, arena, arena_len, 0, "own access's readv (guards included)");
    CHECK_OK(mcio_file_close(&fh));
    free(pos);
    free(arena);
    free(back);
    free(waddr);
    free(raddr);
out:
    MPI_Info_free(&info);
    mt_ext_free_all(all, n);
    mt_remove(path);
    mt.ctx = NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_plan");
    int n = mt.nprocs;
    records = n <= 4 ? 1500 : n <= 8 ? 400 : 150;
    /* A block spans two collective buffers or more (cb_buffer_size is a seventh of the record
     * region), so the block plan has several rounds, although the blocks do not interleave and
     * so get the independent plan (each rank writes its own block). */
    block = records * n * RECORD / 3;
    test_plans("mpiio");

    /*
     * mcio's messages travel on its own communicator: a wildcard receive the application has
     * posted on MPI_COMM_WORLD meanwhile must not catch any of them.
     */
    int mark[2] = {-1, -1};
    MPI_Request req;
    MPI_Irecv(mark, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    test_iovec("posix");
    mt.ctx = "isolation";
    int flag = 0, mine[2] = {0x600D, mt.rank};
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    CHECKF(!flag, "a receive on MPI_COMM_WORLD completed during mcio calls: {%d, %d}", mark[0],
           mark[1]);
    MPI_Send(mine, 2, MPI_INT, mt.rank, 7, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECKF(mark[0] == 0x600D && mark[1] == mt.rank,
           "the application's message came back as {%d, %d}", mark[0], mark[1]);
    mt.ctx = NULL;
    if (n <= 4) {
        test_plans("posix");
        test_iovec("mpiio");
    }
    test_own_pack();
    return mt_finish();
}
