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
#include "pipeline_internal.h"

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
    char why[MCIO_DETAIL_LEN];
    if (p->my_domain < 0) { /* all its rounds' messages at once, as mcio_rounds.c's senders */
        int64_t t = now_ns();
        int st = mcio_exchange_round(p, write, base, NULL, 0, 0, p->send.ngroups, 0, 0, 0, why);
        if (st != MCIO_SUCCESS)
            exchange_failed(io, st, why);
        return now_ns() - t;
    }
    for (int k = 0; k < p->fd.max_rounds; k++) {
        int64_t gs1 = gs, gr1 = gr;
        while (gs1 < p->send.ngroups && p->send.round[gs1] == k)
            gs1++;
        while (gr1 < p->recv.ngroups && p->recv.round[gr1] == k)
            gr1++;
        int mine = k < io->nrounds;
        char *slot = mine ? mcio_pipe_wait_prepared(io, k, wait_ns) : NULL;
        int64_t t = now_ns();
        int st = mcio_exchange_round(p, write, base, slot, k, gs, gs1, gr, gr1, 0, why);
        if (st != MCIO_SUCCESS)
            exchange_failed(io, st, why);
        t_exch += now_ns() - t;
        if (mine)
            mcio_pipe_release(io, k);
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
                mcio_pipe_wait_prepared(io, k, wait_ns);
            int64_t t = now_ns();
            PMPI_Win_fence(0, win);
            if (k > 0 && k - 1 < io->nrounds)
                mcio_pipe_release(io, k - 1);
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
            mcio_pipe_wait_prepared(io, k, wait_ns);
        int64_t t = now_ns(), gs1 = gs;
        while (gs1 < p->send.ngroups && p->send.round[gs1] == k)
            gs1++;
        PMPI_Win_fence(0, win);
        access_rma(p, io, gs, gs1, k, write, base);
        PMPI_Win_fence(0, win);
        gs = gs1;
        t_exch += now_ns() - t;
        if (k < io->nrounds)
            mcio_pipe_release(io, k);
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
    mcio_pipe_io_start(&io);
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
    mcio_pipe_io_finish(&io, &wait_ns);
    if (io.trace)
        mcio_pipe_trace_print(&io, t0);
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
