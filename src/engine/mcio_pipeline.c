/*
 * Pipelined aggregation: the exchange of one sub-buffer overlaps the file access of others.
 *
 * Sehrish, Son, Liao, Choudhary, Schuchardt, "Improving Collective I/O Performance by
 * Pipelining Request Aggregation and File Access" (shared/seeds/003, Fig. 2): the collective
 * buffer is cut into sub-buffers of the stripe size; the exchange of the next sub-buffers
 * proceeds while the current one is written, and a sub-buffer is reused only once its write is
 * complete. TAPIOCA, topology-aware aggregation with pipelined buffers (shared/seeds/004,
 * section 4.3 and Algorithm 1): the same with one-sided MPI_Put into the aggregators' windows,
 * two buffers each, one fence per round, buffers in multiples of the file system's block size.
 *
 * Design notes (the I/O thread, who accesses the file, the transports, when the thread
 * retires, thread level, errors): docs/design.md, section "Pipelined aggregation".
 *
 * Glossary (and mcio_planner.h):
 *   aggregator         the rank that gathers a file domain's data and accesses the file for it
 *   file domain        the contiguous part of the file one aggregator handles
 *   collective buffer  an aggregator's memory budget (cb_buffer_size), cut into sub-buffers
 *   sub-buffer         a slice of the collective buffer holding one round; `slots` in flight
 *   round              one sub-buffer's worth of a domain, exchanged then written (or read
 *                      then exchanged)
 *   prepare, flush     the I/O thread's tasks on a sub-buffer: fill it from the file before the
 *                      exchange, write it out after
 */
#define _GNU_SOURCE /* getrusage(RUSAGE_THREAD), sched_getaffinity */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "mcio_engine.h"

/* What a pipelined plan keeps between calls. */
struct mcio_pipe {
    int64_t *run_first; /* [my rounds + 1]: round k's runs are plan->runs[run_first[k] ..) */
    MPI_Win win;        /* rma: the collective buffers of all aggregators; else MPI_WIN_NULL */
    int one_fence;      /* rma: every busy aggregator has two sub-buffers or more */
    unsigned char *done; /* [my rounds]: the tasks of each round done, cleared per call */
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The sub-buffer size of domain d: its round, or its whole data when that is smaller. */
static int64_t subbuffer_of(const mcio_fdplan *fd, int d)
{
    int64_t span = fd->win_end[d] - fd->win_start[d];
    return span < fd->window[d] ? span : fd->window[d];
}

int mcio_pipeline_prepare(mcio_plan p)
{
    const mcio_fdplan *fd = &p->fd;
    struct mcio_pipe *pp = calloc(1, sizeof *pp);
    if (!pp)
        return MCIO_ERR_NOMEM;
    p->pipe = pp;
    pp->win = MPI_WIN_NULL;
    int64_t nrounds = p->my_domain >= 0 ? fd->rounds[p->my_domain] : 0;
    pp->run_first = malloc(((size_t)nrounds + 1) * sizeof(int64_t));
    pp->done = malloc((size_t)nrounds + 1);
    if (!pp->run_first || !pp->done)
        return MCIO_ERR_NOMEM; /* the caller frees what was taken */
    /* The runs of every round of my domain, once: the I/O thread reads them, nobody writes. */
    int64_t at = 0, g = 0;
    for (int64_t k = 0; k < nrounds; k++) {
        int64_t g1 = g;
        while (g1 < p->recv.ngroups && p->recv.round[g1] == k)
            g1++;
        pp->run_first[k] = at;
        if (g1 > g)
            at += mcio_schedule_runs(&p->recv, g, g1, p->runs + at);
        g = g1;
    }
    pp->run_first[nrounds] = at;
    pp->one_fence = 1;
    for (int d = 0; d < fd->ndomains; d++)
        if (fd->rounds[d] > 1 && p->slots && p->slots[d] < 2)
            pp->one_fence = 0;
    if (!p->slots)
        pp->one_fence = fd->max_rounds <= 1;
    return MCIO_SUCCESS;
}

int mcio_pipeline_open_window(mcio_plan p, char detail[MCIO_DETAIL_LEN])
{
    MPI_Info info;
    PMPI_Info_create(&info);
    PMPI_Info_set(info, "no_locks", "true"); /* fences only: lets the library skip lock support */
    /* A window the library cannot make is answered below, not by the communicator's handler
     * (which may abort: the duplicate keeps the application's). */
    MPI_Errhandler old;
    PMPI_Comm_get_errhandler(p->fh->comm, &old);
    PMPI_Comm_set_errhandler(p->fh->comm, MPI_ERRORS_RETURN);
    int rc = PMPI_Win_create(p->cbuf ? p->cbuf : (void *)p->pipe, p->cbuf ? p->cbuf_len : 0, 1,
                             info, p->fh->comm, &p->pipe->win);
    PMPI_Comm_set_errhandler(p->fh->comm, old);
    PMPI_Errhandler_free(&old);
    PMPI_Info_free(&info);
    int st = rc == MPI_SUCCESS ? MCIO_SUCCESS : MCIO_ERR_MPI;
    if (st != MCIO_SUCCESS) {
        p->pipe->win = MPI_WIN_NULL;
        snprintf(detail, MCIO_DETAIL_LEN, "MPI_Win_create of the collective buffers failed");
    }
    st = mcio_engine_agree(p->fh->comm, st, detail, NULL, 0);
    if (st != MCIO_SUCCESS) {
        /* The MPI library cannot make the window on some rank (Open MPI 4.1 has no one-sided
         * component for a one-process job): every rank exchanges two-sided instead, the same
         * plan and bytes, rather than fail a call the MPI library itself would serve. */
        if (p->pipe->win != MPI_WIN_NULL)
            PMPI_Win_free(&p->pipe->win);
        p->pipe->win = MPI_WIN_NULL;
        st = MCIO_SUCCESS;
    }
    return st;
}

void mcio_pipeline_free(mcio_plan p)
{
    struct mcio_pipe *pp = p->pipe;
    if (!pp)
        return;
    if (pp->win != MPI_WIN_NULL)
        PMPI_Win_free(&pp->win);
    free(pp->run_first);
    free(pp->done);
    free(pp);
    p->pipe = NULL;
}

/* --- the I/O side: sub-buffers prepared and flushed, by the I/O thread or inline --- */

/*
 * Tasks are claimed in round order, prepares and flushes each in their own order, and may
 * finish out of order: the I/O thread takes the next task as soon as there is one (reads ahead
 * into every free sub-buffer without being asked), and the main thread, when it would wait for
 * a task nobody has started, runs it itself (work-stealing). A late-waking I/O thread then
 * costs the pipeline nothing: the main thread never waits for a file access that has not
 * begun. At most one file access per thread, so at most two at once.
 */
typedef struct pipe_io {
    mcio_plan p;
    int write;
    int threaded;
    int64_t nrounds; /* rounds of my domain (0 on a rank that aggregates nothing) */
    int slots;
    int64_t subbuf;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* the I/O thread sleeps on it when it has no task */
    /* Progress, in rounds; guarded by mu when threaded. A task is claimed (next_*), then done
     * (done[k] bit 1: prepared, bit 2: flushed); prepared and flushed count the rounds done
     * without a gap, the only ones the sub-buffers' reuse may rely on. */
    int64_t next_prepare, next_flush, prepared, flushed, released;
    unsigned char *done;
    int stop;
    /* The first failure, and the file access time of both threads; guarded by mu. */
    int status;
    char detail[MCIO_DETAIL_LEN];
    int accessing; /* file accesses in progress (0, 1 or 2) since accessing_since */
    int64_t accessing_since, io_ns, stolen_ns;
    int64_t stolen; /* tasks the main thread ran itself while the thread was busy */
    /* mcio_io_thread: the rank has a single core; file access runs inline (no thread from the
     * start, or the thread retired); the file accesses measured, and how many blocked. */
    int one_core, inline_access, retired;
    int64_t measured, blocked;
    int64_t inline_ns; /* the writes the main thread did as it released their rounds */
    /* From this round on, one sub-buffer (the slot of this round) serves every round, each
     * flushed or scattered before the next fills it: inline access on p2p, where the slots
     * are the aggregator's own business. INT64_MAX: never. */
    int64_t one_slot_from;
    int64_t (*trace)[7]; /* MCIO_PIPELINE_TRACE: per round, see pipe_trace_print */
    /* Nonblocking file access (no I/O thread, a backend with access_start: the simulation
     * build): the tasks started and not yet completed, oldest first, in a ring. */
    int async;
    struct inflight *fly;
    int nfly, fly0, flycap;
    int64_t busy_until; /* io_ns counts the time some access is in flight, not their sum */
} pipe_io;

/* A task whose file accesses were started: one per run, or one for the whole span. */
struct inflight {
    int flush;
    int64_t k, n, t0;
    void **handle;
    int64_t *len;
};

enum { TR_FREE, TR_START, TR_END, TR_WAIT, TR_RESUME, TR_EXCHANGED, TR_WHO };

/* The sub-buffers round k may wait for: the rounds before it hold that many at most. */
static int64_t slots_for(const pipe_io *io, int64_t k)
{
    return k >= io->one_slot_from ? 1 : io->slots;
}

static char *slot_of(const pipe_io *io, int64_t k)
{
    int64_t at = k < io->one_slot_from ? k : io->one_slot_from;
    return io->p->cbuf + (at % io->slots) * io->subbuf;
}

/* Is round k's sub-buffer free (the round that used it before written or scattered)? */
static int slot_free(const pipe_io *io, int64_t k)
{
    return k < (io->write ? io->flushed : io->released) + slots_for(io, k);
}

/* The next task for the I/O thread: prepare the next round whose sub-buffer is free (the main
 * thread will want it next), else flush the oldest exchanged round. 0 when there is none. */
static int next_task(const pipe_io *io, int *flush, int64_t *round)
{
    if (io->next_prepare < io->nrounds && slot_free(io, io->next_prepare)) {
        *flush = 0;
        *round = io->next_prepare;
        return 1;
    }
    if (io->write && io->next_flush < io->released) {
        *flush = 1;
        *round = io->next_flush;
        return 1;
    }
    return 0;
}

static void claim(pipe_io *io, int flush)
{
    if (flush)
        io->next_flush++;
    else
        io->next_prepare++;
}

/* The runs of round k; *span: accessed as one span (read-modify-write of small holes). */
static const mcio_piece *task_runs(const pipe_io *io, int64_t k, int64_t *n, int *span)
{
    mcio_plan p = io->p;
    const mcio_piece *runs = p->runs + p->pipe->run_first[k];
    *n = p->pipe->run_first[k + 1] - p->pipe->run_first[k];
    *span = *n > 0 && mcio_round_use_span(runs, *n) && (!io->write || p->fh->can_read);
    return runs;
}

/* Does the task touch the file? A write needs the old bytes only to fill holes it writes back. */
static int task_accesses_file(const pipe_io *io, int flush, int64_t k)
{
    int64_t n;
    int span;
    task_runs(io, k, &n, &span);
    return n > 0 && (flush || !io->write || (span && n > 1));
}

/* Prepare or flush round k of my domain into or from its sub-buffer slot (slot_of, taken
 * under mu: a retiring thread moves one_slot_from), unlocked. */
static int do_task(pipe_io *io, int flush, int64_t k, char *slot, char detail[MCIO_DETAIL_LEN])
{
    mcio_file fh = io->p->fh;
    int64_t n;
    int span;
    const mcio_piece *runs = task_runs(io, k, &n, &span);
    return mcio_round_access(fh, flush, slot, runs, n, span, detail);
}

/* Record task (flush, k) done, with its status and file access time. mu held when threaded. */
static void task_done(pipe_io *io, int flush, int64_t k, int st, const char *detail, int64_t ns)
{
    if (st != MCIO_SUCCESS && io->status == MCIO_SUCCESS) {
        io->status = st;
        memcpy(io->detail, detail, MCIO_DETAIL_LEN);
    }
    io->io_ns += ns;
    io->done[k] |= flush ? 2 : 1;
    while (io->prepared < io->nrounds && (io->done[io->prepared] & 1))
        io->prepared++;
    while (io->flushed < io->nrounds && (io->done[io->flushed] & 2))
        io->flushed++;
}

/* --- nonblocking file access, without a thread --- */

/*
 * Start claimed task (flush, k): the same accesses as do_task, each begun with access_start.
 * A task with nothing to access, or after a failure, is done at once.
 */
static void async_start(pipe_io *io, int flush, int64_t k)
{
    mcio_file fh = io->p->fh;
    int64_t n;
    int span;
    const mcio_piece *runs = task_runs(io, k, &n, &span);
    if (io->status != MCIO_SUCCESS || !task_accesses_file(io, flush, k)) {
        task_done(io, flush, k, MCIO_SUCCESS, "", 0);
        return;
    }
    int64_t na = span ? 1 : n;
    struct inflight *f = &io->fly[(io->fly0 + io->nfly) % io->flycap];
    *f = (struct inflight){.flush = flush, .k = k, .n = 0, .t0 = now_ns(),
                           .handle = malloc((size_t)na * sizeof(void *)),
                           .len = malloc((size_t)na * sizeof(int64_t))};
    char *slot = slot_of(io, k);
    int st = f->handle && f->len ? MCIO_SUCCESS : MCIO_ERR_NOMEM;
    for (int64_t i = 0; i < na && st == MCIO_SUCCESS; i++) {
        int64_t len = span ? runs[n - 1].mem + runs[n - 1].len - runs[0].mem : runs[i].len;
        void *h = fh->io->access_start(fh->io_state, flush, slot + runs[i].mem, len, runs[i].off);
        if (!h)
            st = MCIO_ERR_IO;
        else
            f->handle[f->n] = h, f->len[f->n++] = len;
    }
    if (st != MCIO_SUCCESS && io->status == MCIO_SUCCESS) {
        io->status = st;
        snprintf(io->detail, MCIO_DETAIL_LEN, "%s %s: cannot start a file access", fh->path,
                 flush ? "write" : "read");
    }
    io->nfly++; /* completed (and freed) in order by async_complete, even when it failed */
}

/* Complete the oldest task in flight: wait for its accesses. Its time is the longest of them
 * (they run side by side), less what overlaps the tasks before it, so that io_ns is the time
 * the file was busy for this rank, as the I/O thread's is (tasks start in FIFO order). */
static void async_complete(pipe_io *io)
{
    mcio_file fh = io->p->fh;
    struct inflight *f = &io->fly[io->fly0];
    int64_t ns = 0;
    int st = MCIO_SUCCESS;
    for (int64_t i = 0; i < f->n; i++) {
        int64_t t = 0, got = fh->io->access_wait(f->handle[i], f->len[i], &t);
        if (got != f->len[i] && st == MCIO_SUCCESS)
            st = MCIO_ERR_IO;
        ns = t > ns ? t : ns;
    }
    int64_t end = f->t0 + ns, from = f->t0 > io->busy_until ? f->t0 : io->busy_until;
    ns = end > from ? end - from : 0;
    io->busy_until = end > io->busy_until ? end : io->busy_until;
    char detail[MCIO_DETAIL_LEN] = "";
    if (st != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "%s: %s failed", fh->path, f->flush ? "write" : "read");
    free(f->handle);
    free(f->len);
    io->fly0 = (io->fly0 + 1) % io->flycap;
    io->nfly--;
    task_done(io, f->flush, f->k, st, detail, ns);
}

/* Start every task that may start: prepares into free sub-buffers, flushes of exchanged
 * rounds. At most one prepare and one flush per sub-buffer are in flight. */
static void async_pump(pipe_io *io)
{
    int flush;
    int64_t k;
    while (io->nfly < io->flycap && next_task(io, &flush, &k)) {
        claim(io, flush);
        async_start(io, flush, k);
    }
}

/* Voluntary context switches of the calling thread so far: a file access that blocked (on a
 * device, a sleep) made at least one; a copy from or into the page cache makes none. */
static long voluntary_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nvcsw : 0;
}

/* mcio_io_thread auto: should the I/O thread leave the file access to the main thread? When
 * it shares the rank's only core and its accesses do not block: then it only takes turns with
 * the exchange. Two accesses measured at least. */
static int should_retire(const pipe_io *io)
{
    return io->p->fh->hints.io_thread == MCIO_IO_THREAD_AUTO && io->one_core &&
           io->measured >= 2 && 2 * io->blocked < io->measured;
}

/* Run a claimed task, unlocked (after a failure, no more file access: the exchange still
 * completes), then record it done, locked. Called with mu held when threaded. The file access
 * time (t_io) counts the time during which at least one thread accessed the file, so that two
 * accesses at once count once and t_io stays within the call's time. */
static void run_task(pipe_io *io, int flush, int64_t k, int by_main)
{
    char detail[MCIO_DETAIL_LEN] = "";
    int st = MCIO_SUCCESS;
    int traced = io->trace && flush == io->write; /* a read's prepares, a write's flushes */
    int64_t t0 = now_ns();
    if (traced)
        io->trace[k][TR_START] = t0, io->trace[k][TR_WHO] = by_main;
    if (io->status == MCIO_SUCCESS && task_accesses_file(io, flush, k)) {
        if (io->accessing++ == 0)
            io->accessing_since = t0;
        char *slot = slot_of(io, k);
        if (io->threaded)
            pthread_mutex_unlock(&io->mu);
        long switches = voluntary_switches();
        st = do_task(io, flush, k, slot, detail);
        switches = voluntary_switches() - switches;
        if (io->threaded)
            pthread_mutex_lock(&io->mu);
        int64_t t1 = now_ns();
        io->measured++;
        io->blocked += switches > 0;
        if (io->threaded && !io->retired && should_retire(io)) {
            io->retired = io->inline_access = 1;
            if (io->p->pipe->win == MPI_WIN_NULL)
                io->one_slot_from = io->next_prepare; /* the rounds not yet begun */
        }
        if (--io->accessing == 0)
            io->io_ns += t1 - io->accessing_since;
        if (by_main && io->threaded)
            io->stolen++, io->stolen_ns += t1 - t0;
    }
    if (traced)
        io->trace[k][TR_END] = now_ns();
    task_done(io, flush, k, st, detail, 0); /* its time is counted above */
}

static void *io_thread(void *arg)
{
    pipe_io *io = arg;
    int flush;
    int64_t k;
    pthread_mutex_lock(&io->mu);
    for (;;) {
        if (io->retired) {
            break; /* the main thread does the rest (should_retire) */
        } else if (next_task(io, &flush, &k)) {
            claim(io, flush);
            run_task(io, flush, k, 0);
        } else if (io->stop) {
            break;
        } else {
            pthread_cond_wait(&io->cv, &io->mu);
        }
    }
    pthread_mutex_unlock(&io->mu);
    return NULL;
}

/* Main thread, mu held when threaded: until done(k) holds, run the tasks nobody has started that
 * it waits for (the prepares of rounds up to k, the flushes that free their sub-buffers), else
 * poll until the I/O thread finishes the one it runs. */
static void main_wait(pipe_io *io, int (*done)(const pipe_io *, int64_t), int64_t k)
{
    if (io->async) { /* start what may start; complete the oldest until done */
        for (async_pump(io); !done(io, k) && io->nfly > 0; async_pump(io))
            async_complete(io);
        return;
    }
    while (!done(io, k)) {
        int flush;
        int64_t r;
        if (next_task(io, &flush, &r) && (flush ? r + slots_for(io, k) <= k : r <= k)) {
            claim(io, flush);
            run_task(io, flush, r, 1);
            if (io->threaded)
                pthread_cond_broadcast(&io->cv); /* the thread may be waiting for a free slot */
        } else if (io->threaded) {
            /* Poll, yielding the processor, as the MPI waits do (mcio_exchange_round's wait). Asleep on
             * the condition variable the main thread woke in tens of microseconds when a core
             * was free, but up to 2 ms after the prepare it waited for when a core was not
             * (measured on a 2-core host), and a read's exchange is on the critical path. */
            pthread_mutex_unlock(&io->mu);
            sched_yield();
            pthread_mutex_lock(&io->mu);
        } else {
            break; /* inline, nothing left to run (cannot happen while done() is false) */
        }
    }
}

static int is_prepared(const pipe_io *io, int64_t k)
{
    return io->prepared > k;
}

static int all_flushed(const pipe_io *io, int64_t k)
{
    (void)k; /* every round: the caller passes one past the last flush */
    return !io->write || io->flushed >= io->released;
}

/* Main thread: wait until round k is prepared (its sub-buffer free and filled); returns that
 * sub-buffer, taken under mu (the I/O thread may retire meanwhile and move one_slot_from). */
static char *wait_prepared(pipe_io *io, int64_t k, int64_t *wait_ns)
{
    int64_t t0 = now_ns();
    if (io->trace)
        io->trace[k][TR_WAIT] = t0;
    if (io->threaded)
        pthread_mutex_lock(&io->mu);
    main_wait(io, is_prepared, k);
    char *slot = slot_of(io, k);
    if (io->threaded)
        pthread_mutex_unlock(&io->mu);
    int64_t t1 = now_ns();
    if (io->trace)
        io->trace[k][TR_RESUME] = t1;
    *wait_ns += t1 - t0;
    return slot;
}

/* Main thread: round k is exchanged; its sub-buffer goes to be flushed (writes) or is free. */
static void release(pipe_io *io, int64_t k)
{
    if (io->trace) {
        io->trace[k][TR_EXCHANGED] = now_ns();
        if (io->write)
            io->trace[k][TR_FREE] = io->trace[k][TR_EXCHANGED]; /* its flush may start */
        else if (k + io->slots < io->nrounds)
            io->trace[k + io->slots][TR_FREE] = io->trace[k][TR_EXCHANGED];
    }
    if (io->threaded)
        pthread_mutex_lock(&io->mu);
    io->released = k + 1;
    if (io->async) {
        async_pump(io); /* its flush, or the read of round k + slots, starts now */
    } else if (io->inline_access) {
        /* Flush now, while the round is in the caches, as the classic rounds do. */
        int64_t t0 = now_ns();
        while (io->write && io->next_flush < io->released) {
            int64_t r = io->next_flush;
            claim(io, 1);
            run_task(io, 1, r, 1);
        }
        io->inline_ns += now_ns() - t0;
    } else if (io->threaded) {
        pthread_cond_broadcast(&io->cv); /* only the I/O thread can be waiting */
    }
    if (io->threaded)
        pthread_mutex_unlock(&io->mu);
}

/* Has the rank a single core, which an I/O thread would inherit? */
static int one_core(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
}

/* Main thread: start the I/O thread when the backend and the MPI thread level allow one. */
static void io_start(pipe_io *io)
{
    mcio_file fh = io->p->fh;
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    io->threaded = 0;
    if (io->nrounds == 0 || (fh->io->calls_mpi && level != MPI_THREAD_MULTIPLE))
        return;
    if (fh->io->access_start && fh->io->access_wait)
        return; /* nonblocking file access: the main thread overlaps without a thread */
#ifdef MCIO_SIMULATE
    /* A simulated rank is a SimGrid actor: a thread of its own would be outside the simulation
     * and its file accesses would cost no simulated time. The main thread does them inline. */
    return;
#endif
    int mode = fh->hints.io_thread;
    io->one_core = one_core();
    if (mode == MCIO_IO_THREAD_NEVER ||
        (mode == MCIO_IO_THREAD_AUTO && io->one_core && fh->io_inline))
        return; /* inline: see "When the I/O thread cannot help" at the top */
    if (pthread_mutex_init(&io->mu, NULL) != 0)
        return;
    if (pthread_cond_init(&io->cv, NULL) != 0) {
        pthread_mutex_destroy(&io->mu);
        return;
    }
    io->threaded = 1; /* before the thread exists: it reads it */
    if (pthread_create(&io->thread, NULL, io_thread, io) != 0) {
        io->threaded = 0;
        pthread_cond_destroy(&io->cv);
        pthread_mutex_destroy(&io->mu);
        return; /* no thread: the main thread does the file access itself */
    }
}

/* Main thread: wait for the last flushes (running those nobody has started), stop the thread. */
static void io_finish(pipe_io *io, int64_t *wait_ns)
{
    int64_t t0 = now_ns();
    if (io->threaded) {
        pthread_mutex_lock(&io->mu);
        main_wait(io, all_flushed, io->nrounds + io->slots);
        io->stop = 1;
        pthread_cond_broadcast(&io->cv);
        pthread_mutex_unlock(&io->mu);
        pthread_join(io->thread, NULL);
        pthread_cond_destroy(&io->cv);
        pthread_mutex_destroy(&io->mu);
    } else {
        main_wait(io, all_flushed, io->nrounds + io->slots);
        while (io->nfly > 0) /* after a failure, tasks may remain in flight */
            async_complete(io);
    }
    *wait_ns += now_ns() - t0;
    /* What the file handle learns for its next calls (should_retire). */
    mcio_file fh = io->p->fh;
    if (fh->hints.io_thread == MCIO_IO_THREAD_AUTO && io->one_core) {
        if (io->retired)
            fh->io_inline = 1;
        else if (io->inline_access && io->measured >= 2 && 2 * io->blocked >= io->measured)
            fh->io_inline = 0; /* the accesses block now: the thread can overlap them */
    }
}

/* MCIO_PIPELINE_TRACE=1: each aggregator prints on stderr, per round, in ms from the start of
 * the call: when its file access could start (a read: its sub-buffer free; a write: the round
 * exchanged), when it started and ended (and which thread ran it: io or m, main), when the
 * main thread began waiting for the round's sub-buffer, resumed, and finished its exchange. */
static void pipe_trace_print(const pipe_io *io, int64_t t0)
{
    mcio_plan p = io->p;
    fprintf(stderr,
            "mcio pipeline trace: rank %d %s, %d sub-buffers, %" PRId64 " rounds, %.3f ms, "
            "%" PRId64 " tasks stolen by the main thread (%.3f ms)\n",
            p->fh->rank, io->write ? "write" : "read", io->slots, io->nrounds,
            (now_ns() - t0) / 1e6, io->stolen, io->stolen_ns / 1e6);
    fprintf(stderr, "round     free    start      end  by   wait0   resume exchanged\n");
    for (int64_t k = 0; k < io->nrounds; k++) {
        const int64_t *t = io->trace[k];
        fprintf(stderr, "%5" PRId64 " %8.3f %8.3f %8.3f %3s %8.3f %8.3f %8.3f\n", k,
                (t[TR_FREE] - t0) / 1e6, (t[TR_START] - t0) / 1e6, (t[TR_END] - t0) / 1e6,
                t[TR_WHO] ? "m" : "io", (t[TR_WAIT] - t0) / 1e6, (t[TR_RESUME] - t0) / 1e6,
                (t[TR_EXCHANGED] - t0) / 1e6);
    }
}

/* --- the exchange: two-sided --- */

/* Main thread: the exchange failed (detail); the first failure of the call is kept, and no
 * file access starts after it (run_task), while the exchanges still complete. */
static void exchange_failed(pipe_io *io, int st, const char *detail)
{
    if (io->threaded)
        pthread_mutex_lock(&io->mu);
    if (io->status == MCIO_SUCCESS) {
        io->status = st;
        snprintf(io->detail, MCIO_DETAIL_LEN, "%s", detail);
    }
    if (io->threaded)
        pthread_mutex_unlock(&io->mu);
}

static int64_t exchange_p2p(mcio_plan p, pipe_io *io, int write, char *base, int64_t *wait_ns)
{
    int64_t t_exch = 0, gs = 0, gr = 0;
    for (int k = 0; k < p->fd.max_rounds; k++) {
        int64_t gs1 = gs, gr1 = gr;
        while (gs1 < p->send.ngroups && p->send.round[gs1] == k)
            gs1++;
        while (gr1 < p->recv.ngroups && p->recv.round[gr1] == k)
            gr1++;
        int mine = k < io->nrounds;
        char *slot = mine ? wait_prepared(io, k, wait_ns) : NULL;
        int64_t t = now_ns();
        char why[MCIO_DETAIL_LEN];
        int st = mcio_exchange_round(p, write, base, slot, k, gs, gs1, gr, gr1, 0, why);
        if (st != MCIO_SUCCESS)
            exchange_failed(io, st, why);
        t_exch += now_ns() - t;
        if (mine)
            release(io, k);
        gs = gs1;
        gr = gr1;
    }
    return t_exch;
}

/* --- the exchange: one-sided --- */

/* Put (write) or get (read) this rank's pieces of round k, groups [gs, gs1), into or from the
 * aggregators' sub-buffers; my own domain's pieces are copied. Inside an epoch. A group whose
 * datatypes or operation fail is left out (one-sided: nobody waits for it; the fences are
 * everyone's all the same) and the failure is recorded on io. */
static void access_rma(mcio_plan p, pipe_io *io, int64_t gs, int64_t gs1, int k, int write,
                       char *base)
{
    mcio_file fh = p->fh;
    const mcio_fdplan *fd = &p->fd;
    MPI_Win win = p->pipe->win;
    for (int64_t g = gs; g < gs1; g++) {
        int dom = p->send.peer[g], agg = fd->agg_rank[dom];
        int64_t w0 = fd->win_start[dom] + (int64_t)k * fd->window[dom];
        int slots = p->slots ? p->slots[dom] : 1;
        int64_t slot = (int64_t)(k % slots) * subbuffer_of(fd, dom);
        const mcio_piece *pc = &p->send.pieces[p->send.first[g]];
        int64_t n = p->send.first[g + 1] - p->send.first[g];
        if (agg == fh->rank) {
            for (int64_t i = 0; i < n; i++) {
                char *at = p->cbuf + slot + (pc[i].off - w0);
                if (write)
                    memcpy(at, PIECE_ADDR(base, pc[i].mem), (size_t)pc[i].len);
                else
                    memcpy(PIECE_ADDR(base, pc[i].mem), at, (size_t)pc[i].len);
            }
            continue;
        }
        int rc;
        const char *step = write ? "MPI_Put" : "MPI_Get";
        if (n == 1) {
            int len = (int)pc[0].len;
            rc = write ? PMPI_Put(PIECE_ADDR(base, pc[0].mem), len, MPI_BYTE, agg,
                                  (MPI_Aint)(slot + pc[0].off - w0), len, MPI_BYTE, win)
                       : PMPI_Get(PIECE_ADDR(base, pc[0].mem), len, MPI_BYTE, agg,
                                  (MPI_Aint)(slot + pc[0].off - w0), len, MPI_BYTE, win);
        } else {
            MPI_Datatype origin = MPI_DATATYPE_NULL, target = MPI_DATATYPE_NULL;
            rc = mcio_pieces_type(p, pc, n, base, 0, &origin, &step);
            if (rc != MPI_SUCCESS)
                origin = MPI_DATATYPE_NULL;
            else if ((rc = mcio_pieces_type(p, pc, n, (char *)(uintptr_t)(slot - w0), 1, &target,
                                            &step)) != MPI_SUCCESS)
                target = MPI_DATATYPE_NULL;
            if (rc == MPI_SUCCESS) {
                step = "MPI_Type_commit";
                rc = PMPI_Type_commit(&origin);
                if (rc == MPI_SUCCESS)
                    rc = PMPI_Type_commit(&target);
            }
            if (rc == MPI_SUCCESS) {
                step = write ? "MPI_Put" : "MPI_Get";
                rc = write ? PMPI_Put(MPI_BOTTOM, 1, origin, agg, 0, 1, target, win)
                           : PMPI_Get(MPI_BOTTOM, 1, origin, agg, 0, 1, target, win);
            }
            /* the operation keeps what it needs until the fence */
            if (origin != MPI_DATATYPE_NULL)
                PMPI_Type_free(&origin);
            if (target != MPI_DATATYPE_NULL)
                PMPI_Type_free(&target);
        }
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING] = "", why[MCIO_DETAIL_LEN];
            int len = 0;
            PMPI_Error_string(rc, msg, &len);
            snprintf(why, sizeof why,
                     "round %d: exchange with rank %d: %s of %" PRId64 " pieces (%" PRId64
                     " bytes) failed: %.120s",
                     k, agg, step, n, p->send.bytes[g], msg);
            exchange_failed(io, MCIO_ERR_MPI, why);
        }
    }
}

static int64_t exchange_rma(mcio_plan p, pipe_io *io, int write, char *base, int64_t *wait_ns)
{
    const mcio_fdplan *fd = &p->fd;
    MPI_Win win = p->pipe->win;
    int R = fd->max_rounds;
    int64_t t_exch = 0, gs = 0;
    if (R == 0)
        return 0;
    if (p->pipe->one_fence) {
        /* The fence of iteration k closes round k - 1 and opens round k (TAPIOCA). */
        for (int k = 0; k <= R; k++) {
            if (k < R && k < io->nrounds)
                wait_prepared(io, k, wait_ns);
            int64_t t = now_ns();
            PMPI_Win_fence(0, win);
            if (k > 0 && k - 1 < io->nrounds)
                release(io, k - 1);
            if (k < R) {
                int64_t gs1 = gs;
                while (gs1 < p->send.ngroups && p->send.round[gs1] == k)
                    gs1++;
                access_rma(p, io, gs, gs1, k, write, base);
                gs = gs1;
            }
            t_exch += now_ns() - t;
        }
        return t_exch;
    }
    /* A single sub-buffer somewhere: it must be flushed (or scattered) before it is refilled. */
    for (int k = 0; k < R; k++) {
        if (k < io->nrounds)
            wait_prepared(io, k, wait_ns);
        int64_t t = now_ns(), gs1 = gs;
        while (gs1 < p->send.ngroups && p->send.round[gs1] == k)
            gs1++;
        PMPI_Win_fence(0, win);
        access_rma(p, io, gs, gs1, k, write, base);
        PMPI_Win_fence(0, win);
        gs = gs1;
        t_exch += now_ns() - t;
        if (k < io->nrounds)
            release(io, k);
    }
    return t_exch;
}

static int pipeline_run(mcio_plan p, int write, char *base, mcio_exec_times *times,
                        char detail[MCIO_DETAIL_LEN])
{
    const mcio_fdplan *fd = &p->fd;
    pipe_io io = {.p = p, .write = write, .status = MCIO_SUCCESS, .one_slot_from = INT64_MAX};
    if (p->my_domain >= 0) {
        io.nrounds = fd->rounds[p->my_domain];
        io.slots = p->slots ? p->slots[p->my_domain] : 1;
        io.subbuf = subbuffer_of(fd, p->my_domain);
    }
    int64_t t0 = now_ns();
    io.done = p->pipe->done;
    memset(io.done, 0, (size_t)io.nrounds);
    const char *tr = getenv("MCIO_PIPELINE_TRACE");
    if (tr && *tr && *tr != '0' && io.nrounds > 0)
        io.trace = calloc((size_t)io.nrounds, sizeof *io.trace);
    for (int64_t k = 0; io.trace && !write && k < io.nrounds && k < io.slots; k++)
        io.trace[k][TR_FREE] = t0;
    io_start(&io);
    const mcio_io_backend *be = p->fh->io;
    if (!io.threaded && io.nrounds > 0 && be->access_start && be->access_wait) {
        io.flycap = 2 * io.slots;
        io.fly = malloc((size_t)io.flycap * sizeof *io.fly);
        io.async = io.fly != NULL; /* else the accesses block, as without the ops */
    }
    /* Once the thread runs, inline_access and one_slot_from are its (under mu): it may have
     * read rounds into several sub-buffers and retired by now, setting one_slot_from past
     * them. Overwriting that with 0 made round 1 be exchanged from round 0's sub-buffer. */
    if (!io.threaded) {
        io.inline_access = !io.async;
        if (io.inline_access && p->pipe->win == MPI_WIN_NULL)
            io.one_slot_from = 0; /* nothing to overlap: the classic rounds */
    }
    int64_t wait_ns = 0, exch_ns;
    if (p->pipe->win != MPI_WIN_NULL)
        exch_ns = exchange_rma(p, &io, write, base, &wait_ns);
    else
        exch_ns = exchange_p2p(p, &io, write, base, &wait_ns);
    io_finish(&io, &wait_ns);
    if (io.trace)
        pipe_trace_print(&io, t0);
    if (io.status != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "%s", io.detail);
    /* The file access the main thread did not wait for; what it ran itself is in its waits. */
    wait_ns += io.inline_ns;
    int64_t hidden = io.io_ns - wait_ns;
    *times = (mcio_exec_times){.exchange = exch_ns,
                               .io = io.io_ns,
                               .wait = wait_ns,
                               .overlap = (io.threaded || io.async) && hidden > 0 ? hidden : 0,
                               .io_inline = io.nrounds > 0 && io.inline_access};
    free(io.trace);
    free(io.fly);
    return io.status;
}

const mcio_executor mcio_exec_pipeline = {.name = "pipeline", .run = pipeline_run};
