/*
 * Phases 4 and 5 of two-phase I/O: the executor moves the bytes (mcio_rounds.c: the classic
 * rounds; mcio_pipeline.c: sub-buffers in flight; mcio_exec_own: each rank its own pieces),
 * a write ends with the file's sync where the file system may lose acknowledged data (and
 * mcio_write_verify's read-back), and an allreduce gives every rank the same status and the
 * slowest rank's times.
 */
#include <errno.h>
#include <string.h>

#include "mcio_twophase.h"

const mcio_executor *mcio_executor_of(mcio_plan p)
{
    return p->depth > 1 || p->fh->hints.transport == MCIO_TRANSPORT_RMA
               ? &mcio_exec_pipeline
               : &mcio_exec_rounds;
}

/* Does the file's next one-shot call of the operation go to each rank's own access, as far as
 * the file knows? Under strategy auto, when the operation's last choice was independent
 * (mcio_engine_bytes_first checks that its inputs still hold); under another, when
 * romio_cb_read (romio_cb_write) is disable. Not for writes that end with a sync (the mpiio
 * backend's is collective, and mcio_write_verify follows it), nor in the simulation build,
 * whose ranks share one plan per gather (mcio_shared_plan), which moving the bytes first does
 * not make. */
static int goes_own(const mcio_file fh, int write)
{
#ifdef MCIO_SIMULATE
    (void)fh, (void)write;
    return 0;
#else
    int w = write != 0;
    if (w && mcio_file_write_sync(fh))
        return 0;
    if (fh->hints.strategy == MCIO_STRATEGY_AUTO)
        return fh->chosen[w].valid && !fh->chosen[w].stale &&
               fh->chosen[w].choice.best.independent;
    return (w ? fh->hints.cb_write : fh->hints.cb_read) == MCIO_CB_DISABLE;
#endif
}

/* The online check (issue 48): the call's time (the slowest rank's, agreed) against the time its
 * choice was predicted at; twice far from it, the configuration's correction moves
 * (mcio_cost_observe) and the operation's next call with these inputs decides again
 * (mcio_chosen.stale), its choice settled as mcio_decide says. The same on every rank. Not
 * where the table is pinned (MCIO_CALIBRATION: the figures are the user's, and mcio-plan must
 * choose as the library does), nor for calls that move their bytes first (the operation's
 * independent choice taken again: the model's error on independent access is the smallest,
 * and such a call has no agreed time), nor where the hints leave independent access the only
 * candidate (romio_cb_read or romio_cb_write disable: deciding again cannot change it, and a
 * call's bytes-first path must not depend on the host's timing). */
static void check_prediction(mcio_file fh, const struct mcio_plan_s *p, int write,
                             int64_t total_ns)
{
    int w = write != 0, op = write ? MCIO_COST_WRITE : MCIO_COST_READ;
    if (fh->hints.strategy != MCIO_STRATEGY_AUTO || !p->chose || !fh->chosen[w].valid ||
        fh->cost_source == MCIO_COST_PINNED ||
        ((fh->cost_fixed[w] & MCIO_COST_FIX_CB) && p->choice.best.independent))
        return;
    if (mcio_cost_observe(&fh->cost, op, fh->chosen[w].shape, &p->choice.best,
                          p->choice.best.seconds, (double)total_ns * 1e-9)) {
        fh->chosen[w].stale = 1;
        fh->cost_learned = 1;
    }
}

int mcio_engine_run(mcio_plan p, int write, char *base, int agreed, int local_status,
                    const char *local_detail, char detail[MCIO_DETAIL_LEN])
{
    mcio_file fh = p->fh;
    double t0 = PMPI_Wtime();
    int st = local_status;
    if (st != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "%s", local_detail);
    if (!agreed) {
        st = mcio_engine_agree(fh->comm, st, detail, NULL, 0);
        if (st != MCIO_SUCCESS)
            return st;
    }
    mcio_exec_times t = {0};
    int io_st = (p->own_access ? &mcio_exec_own : mcio_executor_of(p))->run(p, write, base, &t,
                                                                              detail);
    if (write && mcio_file_write_sync(fh)) {
        /* Every rank, whatever its own access did (the mpiio backend's sync is collective): a
         * write the client acknowledged and a server then refused fails this call, not a later
         * one (GlusterFS's write-behind; mcio_write_sync). */
        int64_t ts = ns_since(t0);
        int err = mcio_file_backend_sync(fh);
        t.io += ns_since(t0) - ts;
        if (err && io_st == MCIO_SUCCESS) {
            /* An MPI library's sync says EIO for every cause: a full file system says why. */
            int full = err == -EIO && mcio_io_fs_full(fh->path, 1);
            io_st = full ? MCIO_ERR_NOSPACE : mcio_io_status_of_errno(-err);
            snprintf(detail, MCIO_DETAIL_LEN, "write to %s: the file system refused data it had "
                     "acknowledged (sync: %s%s)", fh->path, strerror(-err),
                     full ? "; no space left on the file system" : "");
        }
        if (io_st == MCIO_SUCCESS && fh->hints.write_verify) {
            /* What the sync cannot see: bytes acknowledged, synced, and lost all the same. */
            int64_t tv = ns_since(t0);
            io_st = mcio_verify_written(p, base, detail);
            t.io += ns_since(t0) - tv;
        }
    }
    /* 5. Agreement, with the slowest rank's times. */
    mcio_call_times times = {.metadata = (int64_t)(p->t_metadata * 1e9),
                             .plan = (int64_t)(p->t_plan * 1e9),
                             .exchange = t.exchange,
                             .io = t.io,
                             .total = ns_since(t0),
                             .wait = t.wait,
                             .overlap = t.overlap,
                             .io_inline = t.io_inline};
    st = mcio_engine_agree(fh->comm, io_st, detail, times.v, MCIO_CALL_TIMES);
    if (st == MCIO_SUCCESS)
        check_prediction(fh, p, write, times.total);
    if (fh->stats_on && st == MCIO_SUCCESS) {
        mcio_stats_gather_aggregator_bytes(fh, p);
        mcio_stats_gather_metadata(fh, p);
    } else if (fh->stats_on) { /* a rank that failed planning is not here (mcio_engine_plan) */
        mcio_stats_clear_gathered(fh);
    }
    mcio_stats_record(fh, p, write, &times);
    fh->bytes_first[write != 0] = st == MCIO_SUCCESS && p->own_access && goes_own(fh, write);
    return st;
}
