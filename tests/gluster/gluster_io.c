/*
 * Collective I/O on a real GlusterFS volume (scripts/gluster.sh), with faults from the real
 * servers: brick processes killed with SIGKILL and restarted by glusterd, a volume that fills.
 *
 * Every call writes or reads one region of the file in an IOR-like layout: K blocks of B bytes
 * per rank, ranks interleaved in each segment, region c at c * nprocs * K * B. Data depends on
 * the offset and a generation (mt_data), so any byte that did not reach the file is seen.
 *
 * The brick killed is the one that holds the file's first shard (--pid-cmd, scripts/gluster.sh
 * brick-pid-of): every read and write of a sharded file goes through it (the shard translator
 * keeps the file's size there), so the outcome is certain: the call fails.
 *
 *   write-kill   call 0 healthy; brick killed by rank 0 a third of call 0's time into call 1;
 *                calls go on until one fails (at most --calls). Then the bricks are restarted.
 *   read-kill    the regions written and verified on a healthy volume, then read again through
 *                a new open (cached pages dropped) with the brick killed during read call 1,
 *                until a read fails.
 *   fill         writes to the small volume until one fails for lack of space; then the file
 *                is removed and a new one written on the same volume.
 *   restart      call 0; the brick killed and restarted; call 1 on the same handle must work.
 *   cross-write / cross-read   a file written at one rank count, read back at another.
 *
 * --fault-cmd CMD makes the fault something else than a kill: rank 0 runs `CMD WORD`, WORD
 * being what --pid-cmd printed (tests/hosts: --pid-cmd names the server host that holds the
 * shard, `scripts/hosts-gluster.sh cut HOST` takes its link down, a partition, and --restart
 * `scripts/hosts-gluster.sh heal` brings it back). --max-fail-seconds S: the failing call must
 * return within S seconds (the volume's ping-timeout bounds it; no hang).
 *
 * --api mcio (the default) asserts what mcio promises: the failing call fails on every rank with
 * the same status and message naming the file and the operation ("write" / "read"), the kill
 * landed before that call returned, every call reported successful holds its bytes in the file
 * after the restart, the next call on the healthy volume (same handle, then a new file) works.
 * --api mpi runs the same through MPI_File_write_all / read_all (the MPI library's ROMIO or
 * OMPIO) and only reports what it saw, one line, for docs/reliability.md.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <time.h>

#include "mcio_test.h"

static struct {
    const char *scenario, *file, *restart_cmd, *pid_cmd, *fault_cmd, *api;
    char target[256]; /* what --pid-cmd printed: a brick's pid, or a server host's name */
    int brick_pid, calls, blocks;
    double max_fail_s;
    int64_t block;
    int use_mpi;
} opt = {.api = "mcio", .calls = 8, .blocks = 4, .block = 256 << 10};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One open file, through mcio or through the MPI library's MPI-IO. */
typedef struct gfile {
    mcio_file m;
    MPI_File f;
    int64_t *off, *len; /* this rank's extents of the current region */
    MPI_Datatype view;
} gfile;

/* What the last call returned on this rank, and its message. */
static int last_st;
static char last_msg[MPI_MAX_ERROR_STRING + 64];

static int64_t region_bytes(void) { return (int64_t)mt.nprocs * opt.blocks * opt.block; }

static void set_extents(gfile *g, int c)
{
    for (int k = 0; k < opt.blocks; k++) {
        g->off[k] = c * region_bytes() + ((int64_t)k * mt.nprocs + mt.rank) * opt.block;
        g->len[k] = opt.block;
    }
}

static void mpi_status(int rc)
{
    last_st = rc;
    last_msg[0] = '\0';
    if (rc != MPI_SUCCESS) {
        int n = 0, cls = 0;
        char s[MPI_MAX_ERROR_STRING];
        MPI_Error_string(rc, s, &n);
        MPI_Error_class(rc, &cls);
        snprintf(last_msg, sizeof last_msg, "class %d: %s", cls, s);
        last_st = cls ? cls : 1;
    }
}

static int g_open(gfile *g, const char *path, int amode)
{
    memset(g, 0, sizeof *g);
    g->off = mt_malloc((size_t)opt.blocks * sizeof(int64_t));
    g->len = mt_malloc((size_t)opt.blocks * sizeof(int64_t));
    if (!opt.use_mpi) {
        last_st = mcio_file_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &g->m);
        snprintf(last_msg, sizeof last_msg, "%s", mcio_error_message());
        return last_st;
    }
    mpi_status(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &g->f));
    if (last_st == MPI_SUCCESS) {
        MPI_File_set_errhandler(g->f, MPI_ERRORS_RETURN);
        MPI_Type_vector(opt.blocks, (int)opt.block, (int)(mt.nprocs * opt.block), MPI_BYTE, &g->view);
        MPI_Type_commit(&g->view);
    }
    return last_st;
}

/* Write (write = 1) or read region c with buf (this rank's blocks, packed). */
static int g_io(gfile *g, int c, int write, uint8_t *buf)
{
    set_extents(g, c);
    if (!opt.use_mpi) {
        last_st = write ? mcio_write_at_all(g->m, opt.blocks, g->off, g->len, buf)
                        : mcio_read_at_all(g->m, opt.blocks, g->off, g->len, buf);
        snprintf(last_msg, sizeof last_msg, "%s", last_st ? mcio_error_message() : "");
        return last_st;
    }
    int rc = MPI_File_set_view(g->f, g->off[0], MPI_BYTE, g->view, "native", MPI_INFO_NULL);
    if (rc == MPI_SUCCESS) {
        MPI_Status s;
        int n = (int)(opt.blocks * opt.block);
        rc = write ? MPI_File_write_all(g->f, buf, n, MPI_BYTE, &s)
                   : MPI_File_read_all(g->f, buf, n, MPI_BYTE, &s);
        int got = 0;
        if (rc == MPI_SUCCESS && MPI_Get_count(&s, MPI_BYTE, &got) == MPI_SUCCESS && got != n)
            rc = MPI_ERR_IO, snprintf(last_msg, sizeof last_msg, "%d of %d bytes", got, n);
    }
    mpi_status(rc);
    return last_st;
}

static int g_close(gfile *g)
{
    if (!opt.use_mpi) {
        last_st = mcio_file_close(&g->m);
        snprintf(last_msg, sizeof last_msg, "%s", last_st ? mcio_error_message() : "");
    } else {
        mpi_status(MPI_File_close(&g->f));
        if (g->view != MPI_DATATYPE_NULL && g->view)
            MPI_Type_free(&g->view);
    }
    free(g->off);
    free(g->len);
    return last_st;
}

/* This rank's data of region c, generation gen. */
static uint8_t *region_data(int c, unsigned gen)
{
    mt_extents e = {0};
    for (int k = 0; k < opt.blocks; k++)
        mt_ext_push(&e, c * region_bytes() + ((int64_t)k * mt.nprocs + mt.rank) * opt.block,
                    opt.block);
    uint8_t *b = mt_pack(&e, gen);
    mt_ext_free(&e);
    return b;
}

/* Do all ranks agree on last_st and last_msg? Collective. */
static int agreed(void)
{
    int64_t h = mt_hash(last_msg), v[4] = {last_st, -(int64_t)last_st, h, -h}, r[4];
    MPI_Allreduce(v, r, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return r[0] == -r[1] && r[2] == -r[3];
}

/* The largest status over ranks (0: every rank succeeded). Collective. */
static int any_failed(void)
{
    int f = last_st != 0, any = 0;
    MPI_Allreduce(&f, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* Whether the first bytes of got (32 of its n at most) are generation gen's data of file
 * offset off + s for a shift s = -unit[u] or +unit[u] (a misplaced piece): the first such s,
 * in out, or "none found". */
static void find_shift(const uint8_t *got, int64_t n, int64_t off, unsigned gen,
                       const int64_t *unit, size_t nunit, char *out, size_t outlen)
{
    snprintf(out, outlen, "none found");
    for (size_t u = 0; u < 2 * nunit; u++) {
        int64_t s = (u % 2 ? 1 : -1) * unit[u / 2], m = 0, k = 0;
        for (; k < 32 && k < n && off + s + k >= 0; k++)
            m += got[k] == mt_data(off + s + k, gen);
        if (k > 0 && m == k) {
            snprintf(out, outlen, "%+" PRId64, s);
            return;
        }
    }
}

/* The end of the run of wrong bytes of got that starts at `at` (of n), across chance
 * agreements: it ends where 64 bytes in a row are right (a zero the data holds by chance does
 * not end a hole). *wrong and *zeros (may be NULL): its wrong bytes, and how many are 0. */
static int64_t wrong_run_end(const uint8_t *got, const uint8_t *want, int64_t at, int64_t n,
                             int64_t *wrong, int64_t *zeros)
{
    int64_t end = at, w = 0, z = 0, same = 0;
    for (; end < n && same < 64; end++) {
        same = got[end] == want[end] ? same + 1 : 0;
        w += got[end] != want[end];
        z += got[end] != want[end] && got[end] == 0;
    }
    if (wrong)
        *wrong = w;
    if (zeros)
        *zeros = z;
    return end - same;
}

/* len bytes at off read again through a descriptor of their own (with the client's cached
 * pages of the file dropped first when drop): how many of them equal want's and got's (as_got
 * may be NULL). 1 when the read got them all, else 0 and nothing counted. */
static int read_again(const char *path, int64_t off, int64_t len, const uint8_t *want,
                      const uint8_t *got, int drop, int64_t *as_want, int64_t *as_got)
{
    uint8_t *now = mt_malloc((size_t)len);
    int fd = open(path, O_RDONLY);
    if (fd >= 0 && drop)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    int ok = fd >= 0 && pread(fd, now, (size_t)len, off) == len;
    if (fd >= 0)
        close(fd);
    *as_want = 0;
    if (as_got)
        *as_got = 0;
    for (int64_t k = 0; ok && k < len; k++) {
        *as_want += now[k] == want[k];
        if (as_got)
            *as_got += now[k] == got[k];
    }
    free(now);
    return ok;
}

/* pread of [lo, hi) of the file (each rank a slice) against regions [0, nreg) of gen. */
static int verify_regions(const char *path, int nreg, unsigned gen)
{
    int64_t size = nreg * region_bytes(), lo = size * mt.rank / mt.nprocs,
            hi = size * (mt.rank + 1) / mt.nprocs, done = 0;
    uint8_t *got = mt_malloc((size_t)(hi - lo)), *want = mt_malloc((size_t)(hi - lo));
    for (int64_t o = lo; o < hi; o++)
        want[o - lo] = mt_data(o, gen);
    int fd = open(path, O_RDONLY), err = fd < 0 ? errno : 0;
    while (fd >= 0 && done < hi - lo) {
        ssize_t n = pread(fd, got + done, (size_t)(hi - lo - done), lo + done);
        if (n <= 0) {
            err = n < 0 ? errno : 0;
            break;
        }
        done += n;
    }
    int ok = fd >= 0 && done == hi - lo && memcmp(got, want, (size_t)(hi - lo)) == 0;
    if (!ok) { /* which way: the read (and the file's size then), or the bytes */
        struct stat sb;
        int64_t size = fd >= 0 && fstat(fd, &sb) == 0 ? (int64_t)sb.st_size : -1, bad = 0;
        while (bad < done && got[bad] == want[bad])
            bad++;
        /* What the wrong bytes are: how far they run, how many of them are zeros (a hole),
         * whether they are this data of another offset (a misplaced piece), and whether a
         * read of them again, the client's cached pages of the file dropped first, finds
         * them right (the servers hold them: the first read went wrong) or as before. */
        int64_t wrong, zeros, end = wrong_run_end(got, want, bad, done, &wrong, &zeros);
        static const int64_t shifts[] = {4194304, 8388608, 1048576, 262144, 131072, 65536};
        char shift[32], again[48] = "not read";
        find_shift(got + bad, done - bad, lo + bad, gen, shifts, sizeof shifts / sizeof shifts[0],
                   shift, sizeof shift);
        int64_t right;
        if (bad < done && read_again(path, lo + bad, end - bad, want + bad, got + bad, 1, &right, NULL))
            snprintf(again, sizeof again, "%" PRId64 " of %" PRId64 " right", right, end - bad);
        fprintf(stderr, "gluster_io rank %d: verify %s [%" PRId64 ", %" PRId64 "): read %" PRId64
                        " bytes (%s), file size %" PRId64 "; %s at %" PRId64 ": %" PRId64
                        " bytes to the last wrong one, %" PRId64 " wrong, %" PRId64
                        " of them zeros; as this data at a shift: %s; read again: %s\n",
                mt.rank, path, lo, hi, done, err ? strerror(err) : "no error", size,
                bad < done ? "first wrong byte" : "all read bytes right, up", lo + bad, end - bad,
                wrong, zeros, shift, again);
    }
    if (fd >= 0)
        close(fd);
    free(got);
    free(want);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Rank 0 runs the restart command (scripts/gluster.sh restart-bricks VOL); 0 when it worked. */
static int restart_bricks(void)
{
    int rc = 0;
    if (mt.rank == 0) {
        fflush(stdout);
        rc = opt.restart_cmd ? system(opt.restart_cmd) : -1;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

/* Rank 0 asks which brick (or server host) holds the file's byte at off (--pid-cmd CMD FILE OFF
 * prints its pid, or the host's name with --fault-cmd); 0 when it cannot. */
static int find_brick(int64_t off)
{
    memset(opt.target, 0, sizeof opt.target);
    if (mt.rank == 0 && opt.pid_cmd) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "%s '%s' %" PRId64, opt.pid_cmd, opt.file, off);
        FILE *p = popen(cmd, "r");
        if (p && fscanf(p, "%255s", opt.target) != 1)
            opt.target[0] = '\0';
        if (p)
            pclose(p);
    }
    MPI_Bcast(opt.target, (int)sizeof opt.target, MPI_CHAR, 0, MPI_COMM_WORLD);
    opt.brick_pid = atoi(opt.target);
    int ok = opt.fault_cmd ? opt.target[0] != '\0' : opt.brick_pid > 0;
    CHECKF(ok, "no brick %s for %s from '%s'", opt.fault_cmd ? "host" : "pid", opt.file,
           opt.pid_cmd ? opt.pid_cmd : "(no --pid-cmd)");
    return ok;
}

/* The fault, on rank 0: the brick killed, or --fault-cmd run on the target; 0 when it was done. */
static int fault_now(void)
{
    if (!opt.fault_cmd)
        return kill(opt.brick_pid, SIGKILL);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s '%s'", opt.fault_cmd, opt.target);
    return system(cmd);
}

/* Rank 0 kills the brick from a thread, delay seconds after it starts; when it did it. */
static struct {
    pthread_t th;
    double delay, at;
    int started;
} killer;

static void *kill_brick(void *arg)
{
    (void)arg;
    struct timespec ts = {.tv_sec = (time_t)killer.delay,
                          .tv_nsec = (long)((killer.delay - (double)(time_t)killer.delay) * 1e9)};
    nanosleep(&ts, NULL);
    killer.at = now();
    fault_now();
    return NULL;
}

static void start_killer(double delay)
{
    if (mt.rank != 0)
        return;
    killer.delay = delay;
    killer.started = pthread_create(&killer.th, NULL, kill_brick, NULL) == 0;
}

static void join_killer(void)
{
    if (mt.rank == 0 && killer.started)
        pthread_join(killer.th, NULL);
}

/* What a fault scenario saw; asserted for mcio, reported for the MPI library. */
typedef struct outcome {
    int failed_call; /* the first call that failed, -1: none */
    int status, agree, names_file, names_op;
    double call_seconds; /* the failing call's duration */
    int kill_in_call;    /* the kill landed before the failing call returned */
    int ok_calls_verified, next_call_ok, new_file_ok, close_st, close_agree;
    char msg[sizeof last_msg];
} outcome;

static void note_failure(outcome *o, int c, const char *op, double t0, double t1)
{
    o->failed_call = c;
    o->status = last_st;
    o->agree = agreed();
    snprintf(o->msg, sizeof o->msg, "%s", last_msg);
    const char *base = strrchr(opt.file, '/') ? strrchr(opt.file, '/') + 1 : opt.file;
    int v[2] = {strstr(last_msg, base) != NULL, strstr(last_msg, op) != NULL}, all[2];
    if (last_st == 0) /* a rank that succeeded has nothing to name */
        v[0] = v[1] = 0;
    MPI_Allreduce(v, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    o->names_file = all[0];
    o->names_op = all[1];
    o->call_seconds = t1 - t0;
    int in = mt.rank == 0 && killer.started && killer.at > 0 && killer.at <= t1;
    MPI_Bcast(&in, 1, MPI_INT, 0, MPI_COMM_WORLD);
    o->kill_in_call = in;
}

/* The next call on a healthy volume: a new file beside the first, written and read back. */
static int new_file_works(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s.next", opt.file);
    gfile g;
    int ok = g_open(&g, path, MPI_MODE_CREATE | MPI_MODE_RDWR) == 0;
    uint8_t *w = region_data(0, 7), *r = mt_malloc((size_t)(opt.blocks * opt.block));
    ok = !any_failed() && ok;
    if (ok) {
        ok = g_io(&g, 0, 1, w) == 0;
        ok = !any_failed() && ok;
        ok = ok && g_io(&g, 0, 0, r) == 0 && memcmp(r, w, (size_t)(opt.blocks * opt.block)) == 0;
        g_close(&g);
    }
    ok = ok && verify_regions(path, 1, 7);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt.rank == 0)
        unlink(path);
    free(w);
    free(r);
    return all;
}

static void report(const outcome *o)
{
    if (mt.rank != 0)
        return;
    printf("RESULT api=%s scenario=%s ranks=%d failed_call=%d status=%d agree=%d names_file=%d "
           "names_op=%d kill_in_call=%d call_s=%.2f ok_calls_verified=%d next_call_ok=%d "
           "new_file_ok=%d close=%d close_agree=%d msg=\"%.200s\"\n",
           opt.api, opt.scenario, mt.nprocs, o->failed_call, o->status, o->agree, o->names_file,
           o->names_op, o->kill_in_call, o->call_seconds, o->ok_calls_verified, o->next_call_ok,
           o->new_file_ok, o->close_st, o->close_agree, o->msg);
    fflush(stdout);
}

static void assert_outcome(const outcome *o, const char *op, int want_fail)
{
    if (opt.use_mpi)
        return; /* the MPI library's behaviour is reported, not judged */
    if (want_fail) {
        CHECKF(o->failed_call >= 0, "no %s failed although the brick was killed / space ran out", op);
        CHECKF(o->agree, "ranks disagree on the failed %s (this rank: %d '%s')", op, o->status, o->msg);
        CHECKF(o->names_file, "the error does not name the file %s: '%s'", opt.file, o->msg);
        CHECKF(o->names_op, "the error does not name the operation '%s': '%s'", op, o->msg);
        CHECKF(o->status == MCIO_ERR_IO || o->status == MCIO_ERR_NOSPACE,
               "status %d (%s), expected an I/O or no-space error", o->status, mcio_strerror(o->status));
        CHECKF(opt.max_fail_s <= 0 || o->call_seconds <= opt.max_fail_s,
               "the failed %s returned after %.1f s, more than %.1f s", op, o->call_seconds,
               opt.max_fail_s);
    }
    CHECKF(o->ok_calls_verified, "a %s reported successful does not hold its bytes", op);
    CHECKF(o->next_call_ok, "the next call on the same handle failed after the volume was healthy again");
    CHECKF(o->new_file_ok, "a new file on the healthy volume could not be written and read back");
    CHECKF(o->close_agree, "ranks disagree on close");
}

/* The opening of every fault scenario: o cleared, the file opened (created) on every rank.
 * 0 when a rank could not open it (counted as a failed check). Collective. */
static int scenario_open(gfile *g, outcome *o)
{
    *o = (outcome){.failed_call = -1, .close_st = -1};
    CHECKF(g_open(g, opt.file, MPI_MODE_CREATE | MPI_MODE_RDWR) == 0, "open %s: %s", opt.file,
           last_msg);
    return !any_failed();
}

/* The handle closed; the outcome notes close's status and whether the ranks agree on it. */
static void scenario_close(gfile *g, outcome *o)
{
    g_close(g);
    o->close_st = last_st;
    o->close_agree = agreed();
}

/* Collective call c, all ranks starting together: this rank's start and end times, and the
 * slowest rank's duration. */
static double timed_io(gfile *g, int c, int write, uint8_t *buf, double *t0, double *t1)
{
    MPI_Barrier(MPI_COMM_WORLD);
    *t0 = now();
    g_io(g, c, write, buf);
    *t1 = now();
    double d = *t1 - *t0;
    MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return d;
}

static void scenario_write_kill(int restart_between)
{
    outcome o;
    gfile g;
    if (!scenario_open(&g, &o))
        return;
    int c, ok_calls = 0;
    double d0 = 0;
    for (c = 0; c < opt.calls; c++) {
        uint8_t *buf = region_data(c, 1);
        if (c == 1 && !find_brick(0))
            break;
        if (c == 1 && !restart_between)
            start_killer(d0 / 3 > 0.005 ? d0 / 3 : 0.005);
        if (c == 1 && restart_between) {
            int rc = 0;
            if (mt.rank == 0)
                rc = fault_now();
            MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
            CHECKF(rc == 0, "the fault on %s failed", opt.target);
            CHECKF(restart_bricks() == 0, "restart of the bricks failed");
        }
        double t0, t1, d = timed_io(&g, c, 1, buf, &t0, &t1);
        free(buf);
        if (c == 0)
            d0 = d;
        if (any_failed()) {
            note_failure(&o, c, "write", t0, t1);
            break;
        }
        ok_calls = c + 1;
        if (restart_between && c == 1)
            break;
    }
    join_killer();
    if (!restart_between && restart_bricks() != 0)
        CHECKF(0, "restart of the bricks failed");
    /* Every call reported successful holds its bytes (generation 1). */
    o.ok_calls_verified = verify_regions(opt.file, ok_calls, 1);
    /* The next call on the same handle: the failed region again, then read back. */
    int next = o.failed_call >= 0 ? o.failed_call : ok_calls;
    uint8_t *w = region_data(next, 2), *r = mt_malloc((size_t)(opt.blocks * opt.block));
    int ok = g_io(&g, next, 1, w) == 0;
    ok = !any_failed() && ok;
    ok = ok && g_io(&g, next, 0, r) == 0 && memcmp(r, w, (size_t)(opt.blocks * opt.block)) == 0;
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    o.next_call_ok = all;
    free(w);
    free(r);
    scenario_close(&g, &o);
    o.new_file_ok = new_file_works();
    report(&o);
    if (restart_between) {
        CHECKF(o.failed_call < 0, "a write after the restart failed: %d '%s'", o.status, o.msg);
        CHECKF(ok_calls == 2, "%d calls done, expected 2", ok_calls);
    } else {
        if (!opt.use_mpi)
            CHECKF(o.failed_call < 0 || o.kill_in_call,
                   "call %d failed but the kill landed after it returned", o.failed_call);
    }
    assert_outcome(&o, "write", !restart_between);
}

static void scenario_read_kill(void)
{
    outcome o;
    gfile g;
    if (!scenario_open(&g, &o))
        return;
    int64_t n = opt.blocks * opt.block;
    for (int c = 0; c < opt.calls; c++) {
        uint8_t *buf = region_data(c, 1);
        CHECKF(g_io(&g, c, 1, buf) == 0, "healthy write of region %d: %s", c, last_msg);
        free(buf);
    }
    CHECKF(verify_regions(opt.file, opt.calls, 1), "the healthy writes do not verify");
    /* A read that the client can serve from its cache never reaches the brick, so it does not
     * fail when the brick dies (seen: the writer's own descriptor read back its writes from a
     * client-side cache with the brick dead, about one run in five). The reads go through a
     * new open of the file, after its cached pages are dropped. */
    g_close(&g);
    if (mt.rank == 0) {
        int fd = open(opt.file, O_RDONLY);
        CHECKF(fd >= 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0, "dropping the cached pages of %s", opt.file);
        if (fd >= 0)
            close(fd);
    }
    CHECKF(g_open(&g, opt.file, MPI_MODE_RDWR) == 0, "reopen %s: %s", opt.file, last_msg);
    if (any_failed())
        return;
    uint8_t *r = mt_malloc((size_t)n);
    int c, bad_reads = 0, more = 1;
    double d0 = 0;
    /* The brick killed holds region 1's first shard; the reads go over the regions twice, and
     * on for up to 10 s after the kill until one fails, so a read of that shard comes after the
     * kill even when call 1 read it just before. */
    for (c = 0; more; c++) {
        if (c == 1 && !find_brick(region_bytes()))
            break;
        if (c == 1)
            start_killer(d0 / 3 > 0.005 ? d0 / 3 : 0.005);
        memset(r, 0, (size_t)n);
        double t0, t1, d = timed_io(&g, c % opt.calls, 0, r, &t0, &t1);
        if (c == 0)
            d0 = d;
        if (any_failed()) {
            note_failure(&o, c, "read", t0, t1);
            break;
        }
        /* A read reported successful must hold the right bytes. */
        uint8_t *want = region_data(c % opt.calls, 1);
        bad_reads += memcmp(r, want, (size_t)n) != 0;
        free(want);
        more = c + 1 < 2 * opt.calls || (killer.at > 0 && now() - killer.at < 10.0);
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad_reads, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    join_killer();
    CHECKF(restart_bricks() == 0, "restart of the bricks failed");
    o.ok_calls_verified = bad_reads == 0 && verify_regions(opt.file, opt.calls, 1);
    /* The next call on the same handle: every region read again, all bytes intact. */
    int ok = 1;
    for (c = 0; c < opt.calls && ok; c++) {
        uint8_t *want = region_data(c, 1);
        ok = g_io(&g, c, 0, r) == 0 && memcmp(r, want, (size_t)n) == 0;
        free(want);
        int all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        ok = all;
    }
    o.next_call_ok = ok;
    free(r);
    scenario_close(&g, &o);
    o.new_file_ok = new_file_works();
    report(&o);
    if (!opt.use_mpi)
        CHECKF(o.failed_call < 0 || o.kill_in_call,
               "read %d failed but the kill landed after it returned", o.failed_call);
    assert_outcome(&o, "read", 1);
}

/* Wait up to 10 s until the file system that holds path has need bytes free: GlusterFS frees
 * a removed sharded file's shards in the background (the shard translator's .remove_me), so
 * the space comes back some time after the unlink returns. 1 when it is there. */
static int wait_free(const char *path, int64_t need)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    for (int i = 0; i < 200; i++) {
        struct statvfs v;
        if (statvfs(dir, &v) == 0 && (int64_t)v.f_bavail * (int64_t)v.f_frsize >= need)
            return 1;
        nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
    }
    return 0;
}

static void scenario_fill(void)
{
    outcome o;
    gfile g;
    if (!scenario_open(&g, &o))
        return;
    int c, ok_calls = 0;
    for (c = 0; c < opt.calls; c++) {
        uint8_t *buf = region_data(c, 1);
        double t0 = now();
        g_io(&g, c, 1, buf);
        double t1 = now();
        free(buf);
        if (any_failed()) {
            note_failure(&o, c, "write", t0, t1);
            break;
        }
        ok_calls = c + 1;
    }
    scenario_close(&g, &o);
    o.ok_calls_verified = verify_regions(opt.file, ok_calls, 1);
    /* Free the space (a full brick may refuse the unlink for a moment), then the volume is
     * healthy: the next call is a new file on it. */
    int rm = 0;
    if (mt.rank == 0) {
        for (int i = 0; i < 100 && (rm = unlink(opt.file) == 0 || errno == ENOENT) == 0; i++) {
            if (truncate(opt.file, 0) != 0 && errno == ENOENT)
                break;
            nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
        }
    }
    /* The new file's bytes, twice over: the volume is healthy again once they fit. */
    if (mt.rank == 0 && rm)
        rm = wait_free(opt.file, 2 * (int64_t)mt.nprocs * opt.blocks * opt.block);
    MPI_Bcast(&rm, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECKF(rm, "cannot remove %s to free the volume (or its space did not come back in 10 s)",
           opt.file);
    o.next_call_ok = rm;
    o.new_file_ok = new_file_works();
    report(&o);
    assert_outcome(&o, "write", 1);
    if (!opt.use_mpi)
        CHECKF(o.status == MCIO_ERR_NOSPACE || strstr(o.msg, "space"),
               "the fill failed with %d '%s', not for lack of space", o.status, o.msg);
}

/* After a cross-count read that found wrong bytes: the first wrong run's file offset and
 * length; whether a plain pread of the same bytes now finds them right (then the read went
 * wrong, or the file changed since) or as mcio read them (the file holds them); and whether
 * they are generation 5's data of another offset (a misplaced piece), tried at the shifts this
 * layout could make: a block, a region, a read piece, a shard, powers of two. */
static void diagnose_cross(const char *path, const mt_extents *e, const uint8_t *got,
                           const uint8_t *want)
{
    int64_t at = 0, i = 0, n = mt_ext_bytes(e);
    while (at < n && got[at] == want[at])
        at++;
    if (at == n)
        return;
    int64_t end = wrong_run_end(got, want, at, n, NULL, NULL), base = 0;
    while (i < e->n && base + e->len[i] <= at)
        base += e->len[i++];
    int64_t off = e->off[i] + (at - base), len = end - at < e->len[i] - (at - base) ? end - at : e->len[i] - (at - base);
    int64_t as_want, as_got;
    int r = read_again(path, off, len, want + at, got + at, 0, &as_want, &as_got);
    static const int64_t unit[] = {300000, 6000000, 65536 + 4093, 4194304, 65536, 131072, 262144,
                                   524288, 1048576, 2097152};
    char shift[64];
    find_shift(got + at, len, off, 5, unit, sizeof unit / sizeof unit[0], shift, sizeof shift);
    fprintf(stderr, "gluster_io rank %d: first wrong run at file offset %" PRId64 ", %" PRId64
                    " bytes (within one extent); a pread of it now: %s, %" PRId64 " of its bytes as"
                    " expected, %" PRId64 " as mcio read them; as generation 5's data at a shift:"
                    " %s\n",
            mt.rank, off, len, r ? "read" : "failed", as_want, as_got, shift);
}

/* cross-write: regions [0, calls) with generation 5. cross-read: read them back (any rank count
 * and block layout that covers the same bytes: here each rank reads a contiguous slice). */
static void scenario_cross(int write)
{
    mcio_file fh;
    CHECK_OK(mcio_file_open(MPI_COMM_WORLD, opt.file,
                            write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY,
                            MPI_INFO_NULL, &fh));
    if (write) {
        gfile g = {.m = fh};
        g.off = mt_malloc((size_t)opt.blocks * sizeof(int64_t));
        g.len = mt_malloc((size_t)opt.blocks * sizeof(int64_t));
        for (int c = 0; c < opt.calls; c++) {
            uint8_t *buf = region_data(c, 5);
            CHECK_OK(g_io(&g, c, 1, buf));
            free(buf);
        }
        free(g.off);
        free(g.len);
    } else {
        /* The total size is given by the writer's layout (--ranks-written): read the file's size. */
        struct stat sb;
        int64_t size = stat(opt.file, &sb) == 0 ? (int64_t)sb.st_size : 0;
        CHECKF(size > 0, "%s is empty or missing", opt.file);
        /* Pieces of an odd size, dealt round-robin: no rank reads what it would have written. */
        int64_t piece = 65536 + 4093, np = (size + piece - 1) / piece;
        mt_extents e = {0};
        for (int64_t i = mt.rank; i < np; i += mt.nprocs)
            mt_ext_push(&e, i * piece, i * piece + piece <= size ? piece : size - i * piece);
        int64_t n = mt_ext_bytes(&e);
        uint8_t *got = mt_malloc((size_t)n);
        if (CHECK_OK(mcio_read_at_all(fh, e.n, e.off, e.len, got)) == MCIO_SUCCESS) {
            uint8_t *want = mt_pack(&e, 5);
            if (!MT_COMPARE(got, want, n, 0, "cross-count read"))
                diagnose_cross(opt.file, &e, got, want);
            free(want);
        }
        free(got);
        mt_ext_free(&e);
    }
    CHECK_OK(mcio_file_close(&fh));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "gluster_io");
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' && !opt.scenario)
            opt.scenario = argv[i];
        else if (!strcmp(argv[i], "--file") && i + 1 < argc)
            opt.file = argv[++i];
        else if (!strcmp(argv[i], "--api") && i + 1 < argc)
            opt.api = argv[++i];
        else if (!strcmp(argv[i], "--pid-cmd") && i + 1 < argc)
            opt.pid_cmd = argv[++i];
        else if (!strcmp(argv[i], "--fault-cmd") && i + 1 < argc)
            opt.fault_cmd = argv[++i];
        else if (!strcmp(argv[i], "--max-fail-seconds") && i + 1 < argc)
            opt.max_fail_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--restart") && i + 1 < argc)
            opt.restart_cmd = argv[++i];
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
            opt.calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--blocks") && i + 1 < argc)
            opt.blocks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--block") && i + 1 < argc)
            opt.block = atoll(argv[++i]);
        else {
            if (mt.rank == 0)
                fprintf(stderr, "gluster_io: unknown argument '%s'\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    opt.use_mpi = !strcmp(opt.api, "mpi");
    if (!opt.scenario || !opt.file || opt.calls < 2 || opt.blocks < 1 || opt.block < 1) {
        if (mt.rank == 0)
            fprintf(stderr, "usage: gluster_io write-kill|read-kill|fill|restart|cross-write|"
                            "cross-read --file PATH [--api mcio|mpi] [--pid-cmd CMD] "
                            "[--fault-cmd CMD] [--max-fail-seconds S] [--restart CMD] [--calls N] "
                            "[--blocks K] [--block B]\n");
        MPI_Finalize();
        return 2;
    }
    mt.ctx = opt.scenario;
    if (!strcmp(opt.scenario, "write-kill"))
        scenario_write_kill(0);
    else if (!strcmp(opt.scenario, "restart"))
        scenario_write_kill(1);
    else if (!strcmp(opt.scenario, "read-kill"))
        scenario_read_kill();
    else if (!strcmp(opt.scenario, "fill"))
        scenario_fill();
    else if (!strcmp(opt.scenario, "cross-write") || !strcmp(opt.scenario, "cross-read"))
        scenario_cross(!strcmp(opt.scenario, "cross-write"));
    else
        CHECKF(0, "unknown scenario %s", opt.scenario);
    return mt_finish();
}
