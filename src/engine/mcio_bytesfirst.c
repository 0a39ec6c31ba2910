/*
 * Calls that move their bytes first (issue 20): own access, then the one gather that agrees on
 * the outcome; the design note is at mcio_engine_bytes_first.
 */
#include <stdlib.h>
#include <string.h>

#include "mcio_twophase.h"

/* A bytes-first call's plan: own access, nothing else yet (all but the sink zeroed, as
 * mcio_engine_plan's). */
static void bytes_first_plan(mcio_file fh, struct mcio_plan_s *p)
{
    memset(p, 0, offsetof(struct mcio_plan_s, sink));
    p->fh = fh;
    p->my_domain = -1;
    p->own_access = 1;
    p->depth = 1;
    p->bytes_first = 1;
}

/*
 * Calls that move their bytes first (issue 20). Two-phase I/O gathers what the ranks will
 * access, decides, then moves the bytes, and a call that went to each rank's own access still
 * ends with an agreement, without which one rank's failed access would be success on the
 * others: two collectives around the file access, where ROMIO, which does not agree at the
 * end, also makes two (the allgathers of the ranks' first and last offsets). Own access moves
 * the right bytes whatever the plan would have been; only its speed depends on the choice. So
 * a call whose operation's last call went to own access, with inputs that gave that choice
 * (fh->bytes_first[write], the same on every rank: set from agreed outcomes and allgathered
 * records only), reads or writes first, then allgathers the records, each with its access's
 * status: one collective, which agrees on the outcome as the final agreement did (the lowest
 * failing rank's error and detail, on every rank). The records then tell whether the
 * operation's next call may do the same: under strategy auto, while their key is the one the
 * choice was made from (the summaries, the extents, the nodes' memory to 1/16: mcio_decide_key);
 * the choice itself is left as it was, so that no rank's local failure can make the ranks'
 * next calls differ. Where the inputs changed, the next call gathers first and decides. A bad
 * argument on one rank still fails the call on every rank, naming it; the other ranks' reads
 * are in their buffers by then, and their writes in the file, each within its own extents (a
 * failed write's extents hold the call's bytes or the earlier ones, as where a write fails on
 * one rank; nothing outside them changes). Not for writes that end with a sync (goes_own).
 * Under MCIO_STATS, calls gather first (its statistics gather after the final agreement);
 * mcio_file_get_stats reports a bytes-first call with the own-access plan, its choice as
 * taken again, and this rank's times (mcio_engine_bytes_first_stats).
 */
int mcio_engine_bytes_first(mcio_file fh, int write, int64_t count, const int64_t *off,
                            const int64_t *len, const int64_t *mem, char *base, int local_status,
                            const char *local_detail, char detail[MCIO_DETAIL_LEN])
{
    double t0 = PMPI_Wtime();
    int w = write != 0;
    struct mcio_plan_s p;
    bytes_first_plan(fh, &p);
    int st = local_status;
    if (st != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "%s", local_detail);
    else
        st = mcio_extents_normalize(count, off, len, mem, w, &p.ext, &p.next, detail);
    mcio_exec_times t = {0};
    if (st == MCIO_SUCCESS)
        st = mcio_exec_own.run(&p, w, base, &t, detail);
    st = mcio_engine_gather_records(fh, &p, st, NULL, detail);
    if (st == MCIO_SUCCESS) {
        mcio_engine_combine_memory(fh, "", w);
        uint64_t key;
        fh->bytes_first[w] = fh->hints.strategy != MCIO_STRATEGY_AUTO ||
                             (mcio_engine_choice_key(fh, &key) && key == fh->chosen[w].key);
    } else {
        fh->bytes_first[w] = 0;
    }
    mcio_engine_plan_clear(&p);
    /* The statistics, with this rank's times: made when they are asked for (they plan the own
     * access again and model its memory: 0.5-0.9 us of a warm call on MPICH at 2 ranks, more
     * where ranks share cores), from the gathered records, which stay until the next call. */
    int64_t total = ns_since(t0);
    fh->deferred_times = (mcio_call_times){.metadata = total - t.io, .io = t.io, .total = total};
    fh->stats_deferred = w ? 1 : 2; /* mcio_stats.op */
    return st;
}

void mcio_engine_bytes_first_stats(mcio_file fh)
{
    if (!fh->stats_deferred)
        return;
    int w = fh->stats_deferred == 1;
    struct mcio_plan_s p;
    bytes_first_plan(fh, &p);
    int ok = mcio_engine_first_failed(fh) < 0; /* a failed call's records plan nothing */
    mcio_summary *sum = ok ? mcio_engine_summaries(fh) : NULL;
    if (sum && mcio_planner_own(fh->nprocs, sum, &p.fd) == MCIO_SUCCESS)
        (void)mcio_engine_stats_model_once(fh, &p, w); /* local: a failure leaves the figures unknown */
    for (int r = 0; sum && r < fh->nprocs; r++)
        p.total_bytes += sum[r].bytes;
    free(sum);
    p.cb_rounds = p.fd.max_rounds;
    if (fh->hints.strategy == MCIO_STRATEGY_AUTO) {
        p.chose = 2; /* the operation's last choice, taken again */
        p.choice = fh->chosen[w].choice;
    }
    mcio_engine_summaries_counted(fh, &p);
    mcio_stats_record(fh, &p, w, &fh->deferred_times); /* clears stats_deferred */
    mcio_engine_plan_clear(&p);
}
