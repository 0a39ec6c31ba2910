/*
 * Pipelined aggregation, the I/O side: an aggregator's sub-buffers prepared (read from the file
 * before their exchange) and flushed (written after it), by the I/O thread, by the main thread
 * inline, or through nonblocking file access. The exchanges and the executor are in
 * mcio_pipeline.c, which opens with the papers (Sehrish et al., shared/seeds/003; TAPIOCA,
 * shared/seeds/004) and the glossary; design notes in docs/design.md, "Pipelined aggregation".
 */
#define _GNU_SOURCE /* getrusage(RUSAGE_THREAD), sched_getaffinity */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "mcio_engine.h"
#include "pipeline_internal.h"

/* --- the I/O side: sub-buffers prepared and flushed, by the I/O thread or inline --- */

/*
 * Tasks are claimed in round order, prepares and flushes each in their own order, and may
 * finish out of order: the I/O thread takes the next task as soon as there is one (reads ahead
 * into every free sub-buffer without being asked), and the main thread, when it would wait for
 * a task nobody has started, runs it itself (work-stealing). A late-waking I/O thread then
 * costs the pipeline nothing: the main thread never waits for a file access that has not
 * begun. At most one file access per thread, so at most two at once.
 */

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
char *mcio_pipe_wait_prepared(pipe_io *io, int64_t k, int64_t *wait_ns)
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
void mcio_pipe_release(pipe_io *io, int64_t k)
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
void mcio_pipe_io_start(pipe_io *io)
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
        return; /* inline: docs/design.md, "When the I/O thread cannot help" */
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
void mcio_pipe_io_finish(pipe_io *io, int64_t *wait_ns)
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
void mcio_pipe_trace_print(const pipe_io *io, int64_t t0)
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
