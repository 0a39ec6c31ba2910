/*
 * Shared between the pipelined executor's files (mcio_pipeline.c: the plan's pipeline state,
 * the exchanges, the executor; mcio_pipeline_io.c: the I/O side), not part of mcio_engine.h.
 */
#ifndef MCIO_PIPELINE_INTERNAL_H
#define MCIO_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "mcio_engine.h"

/* What a pipelined plan keeps between calls. */
struct mcio_pipe {
    int64_t *run_first; /* [my rounds + 1]: round k's runs are plan->runs[run_first[k] ..) */
    MPI_Win win;        /* rma: the collective buffers of all aggregators; else MPI_WIN_NULL */
    int one_fence;      /* rma: every busy aggregator has two sub-buffers or more */
    unsigned char *done; /* [my rounds]: the tasks of each round done, cleared per call */
};

static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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
    int64_t (*trace)[7]; /* MCIO_PIPELINE_TRACE: per round, see mcio_pipe_trace_print */
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

/* The I/O side's entry points for the main thread (mcio_pipeline_io.c). */

/* Main thread: wait until round k is prepared; returns its sub-buffer. */
char *mcio_pipe_wait_prepared(pipe_io *io, int64_t k, int64_t *wait_ns);

/* Main thread: round k is exchanged; its sub-buffer goes to be flushed (writes) or is free. */
void mcio_pipe_release(pipe_io *io, int64_t k);

/* Main thread: start the I/O thread when the backend and the MPI thread level allow one. */
void mcio_pipe_io_start(pipe_io *io);

/* Main thread: wait for the last flushes (running those nobody has started), stop the thread. */
void mcio_pipe_io_finish(pipe_io *io, int64_t *wait_ns);

/* MCIO_PIPELINE_TRACE=1: each aggregator's rounds on stderr, in ms from t0. */
void mcio_pipe_trace_print(const pipe_io *io, int64_t t0);

#endif
