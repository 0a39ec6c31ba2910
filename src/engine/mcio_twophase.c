/*
 * Two-phase collective I/O (Thakur, Gropp, Lusk 1999; del Rosario, Bordawekar, Choudhary 1993):
 * the engine that every planner feeds.
 *
 *   1. metadata: every rank normalizes its extents and allgathers a summary (first byte, end,
 *      bytes, status); the allgather also agrees on bad arguments before anything moves.
 *   2. planning: a pure planner (src/core/plan/) turns the summaries into file domains, aggregators
 *      and rounds, identically on every rank.
 *   3. list exchange: each rank sends the compact description of its pieces in a domain
 *      (regular runs and varints, mcio_listcode.h) only to the aggregators whose domain it
 *      has pieces in, after an allreduce that tells each aggregator how many lists to expect (no
 *      all-to-all, no empty message), and each aggregator builds its schedule (mcio_lists.c).
 *   4. data: an executor moves the bytes between user memory and the aggregators' collective
 *      buffers and the file (mcio_rounds.c: the classic rounds; mcio_pipeline.c: sub-buffers
 *      in flight, file access in an I/O thread, two-sided or one-sided).
 *   5. agreement: an allreduce gives every rank the same status and the slowest rank's times
 *      (4 and 5: mcio_run.c).
 *
 * This file is 2, and the call's walk: gather (1: mcio_gather.c) -> mcio_decide
 * (src/core/plan/decide.c, pure) -> this rank's schedule -> the lists (3: mcio_lists.c); the
 * collective buffer kept between calls is mcio_cbuf.c's.
 *
 * A call whose operation's last call went to each rank's own access moves its bytes first and
 * gathers after, one collective for 1 and 5 (mcio_engine_bytes_first, mcio_bytesfirst.c).
 *
 * Glossary (mcio_planner.h): file domain, aggregator, collective buffer, round, piece, run.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_twophase.h"

/* Phase 2, pure: the gathered records, the machine, the hints, the file system's costs and the
 * operation's last choice into the call's plan (mcio_decide), the same on every rank. */
static int plan_domains(mcio_file fh, struct mcio_plan_s *p, int write)
{
    int w = write != 0, choose = fh->hints.strategy == MCIO_STRATEGY_AUTO;
    mcio_summary *sum = mcio_engine_summaries(fh);
    int64_t *calls = choose ? mcio_engine_rank_calls(fh) : NULL;
    if (!sum || (choose && !calls)) {
        free(sum);
        free(calls);
        return MCIO_ERR_NOMEM;
    }
    mcio_topology topo = mcio_engine_call_topology(fh, calls);
    int64_t stripe = mcio_fs_align_stripe(&fh->fs, fh->hints.striping_unit, write);
    mcio_decide_inputs in = {.topo = &topo,
                             .sum = sum,
                             .hints = mcio_hints_decide(&fh->hints, write, stripe,
                                                        fh->cost_fixed[w]),
                             .cost = &fh->cost,
                             .write = write,
                             .sync = write && mcio_file_write_sync(fh),
                             .fs_block = fh->fs_block};
    mcio_decision d;
    int st = mcio_decide(&in, &fh->chosen[w], &d);
    fh->chosen[w] = d.memo;
    p->fd = d.fd;
    p->slots = d.slots;
    p->own_access = d.own_access;
    p->depth = d.depth;
    p->cb_rounds = d.cb_rounds;
    p->chose = d.chose;
    p->choice = d.choice;
    p->total_bytes = d.total_bytes;
    free(sum);
    free(calls);
    return st;
}

/* plan_domains, once per call in the simulation build (mcio_shared_plan): the first rank keeps
 * its results, the others take a copy. */
static int plan_domains_once(mcio_file fh, struct mcio_plan_s *p, int write)
{
#ifdef MCIO_SIMULATE
    mcio_shared_plan *e = mcio_engine_shared_plan(fh, write);
    int w = write != 0;
    if (e && e->planned) {
        p->own_access = e->own_access;
        p->depth = e->depth;
        p->cb_rounds = e->cb_rounds;
        p->chose = e->chose;
        p->choice = e->choice;
        p->total_bytes = e->total_bytes;
        fh->chosen[w] = e->chosen;
        if (e->plan_status != MCIO_SUCCESS)
            return e->plan_status;
        if (mcio_fdplan_copy(&e->fd, &p->fd) != MCIO_SUCCESS ||
            mcio_engine_copy_array((void **)&p->slots, e->slots, (size_t)e->fd.ndomains * sizeof(int)) !=
                MCIO_SUCCESS)
            return MCIO_ERR_NOMEM;
        return MCIO_SUCCESS;
    }
    int st = plan_domains(fh, p, write);
    if (!e)
        return st;
    if (st == MCIO_SUCCESS &&
        (mcio_fdplan_copy(&p->fd, &e->fd) != MCIO_SUCCESS ||
         mcio_engine_copy_array((void **)&e->slots, p->slots, (size_t)p->fd.ndomains * sizeof(int)) !=
             MCIO_SUCCESS)) {
        mcio_fdplan_free(&e->fd); /* not kept: the next rank plans for itself */
        return st;
    }
    e->planned = 1;
    e->plan_status = st;
    e->own_access = p->own_access;
    e->depth = p->depth;
    e->cb_rounds = p->cb_rounds;
    e->chose = p->chose;
    e->choice = p->choice;
    e->total_bytes = p->total_bytes;
    e->chosen = fh->chosen[w];
    return st;
#else
    return plan_domains(fh, p, write);
#endif
}

/* Still phase 2, local: this rank's pieces cut by domain and round, the list
 * buffers, and which domain this rank aggregates. */
static int schedule_mine(mcio_file fh, struct mcio_plan_s *p, mcio_list_bufs *lb)
{
    int st = mcio_schedule_rank(&p->fd, p->ext, p->next, &p->send);
    for (int d = 0; st == MCIO_SUCCESS && d < p->fd.ndomains; d++)
        if (p->fd.agg_rank[d] == fh->rank)
            p->my_domain = d;
    if (st == MCIO_SUCCESS)
        st = mcio_list_bufs_alloc(lb, p->fd.ndomains, p->send.npieces,
                             p->my_domain >= 0 ? fh->nprocs : 0);
    return st;
}

static int fail_planning; /* mcio_engine_fail_planning */

void mcio_engine_fail_planning(int calls)
{
    fail_planning = calls;
}

/* Phase 2: the call's plan (mcio_decide), this rank's schedule (an own-access plan has no
 * domains to schedule, no lists and no buffers) and the memory model of the plan as it will
 * run. Local; a failure's detail says why. */
static int decide_and_schedule(mcio_file fh, struct mcio_plan_s *p, int write,
                               mcio_list_bufs *lb, char detail[MCIO_DETAIL_LEN])
{
    int st = fail_planning > 0 ? (fail_planning--, MCIO_ERR_NOMEM)
                               : plan_domains_once(fh, p, write);
    if (!p->own_access && st == MCIO_SUCCESS)
        st = schedule_mine(fh, p, lb);
    if (st == MCIO_SUCCESS)
        st = mcio_engine_stats_model_once(fh, p, write);
    if (st == MCIO_ERR_ARG)
        snprintf(detail, MCIO_DETAIL_LEN,
                 "a file domain would need more than 2^31 rounds of cb_buffer_size=%" PRId64
                 " bytes: raise cb_buffer_size",
                 fh->hints.cb_buffer_size);
    else if (st != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "planning failed: %s", mcio_strerror(st));
    return st;
}

int mcio_engine_plan(mcio_file fh, int64_t count, const int64_t *off, const int64_t *len,
                     const int64_t *mem, int write, int run_next, int local_status,
                     const char *local_detail, mcio_plan p, char detail[MCIO_DETAIL_LEN])
{
    double t0 = PMPI_Wtime();
    mcio_list_bufs lb = {0};
    memset(p, 0, offsetof(struct mcio_plan_s, sink)); /* all but the sink: 4 KiB a call */
    p->fh = fh;
    p->my_domain = -1;
    int st = local_status;
    if (st != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "%s", local_detail);
    else
        st = mcio_extents_normalize(count, off, len, mem, write, &p->ext, &p->next, detail);

    /* 1. Metadata: the summaries, whose status field agrees on bad arguments. */
    char where[MCIO_MEM_WHERE_LEN] = "";
    if (!run_next) /* a persistent plan records none: a bytes-first call's, from its records */
        mcio_engine_bytes_first_stats(fh);
    st = mcio_engine_gather_records(fh, p, st, fh->stats_on ? where : NULL, detail);
    if (st != MCIO_SUCCESS)
        goto fail;
    mcio_engine_combine_memory(fh, where, write);
    mcio_engine_summaries_counted(fh, p);
    double t1 = PMPI_Wtime();

    /* 2. Planning: pure, the same on every rank; then this rank's schedule. */
    st = decide_and_schedule(fh, p, write, &lb, detail);
    int aggregate = !p->own_access;
    double t2 = PMPI_Wtime();
    /* The agreement on planning. A rank whose planning failed cannot know whether the others
     * aggregate, so this agreement has the shape of the final one (mcio_engine_run: the
     * times ride along): the others meet it here if they aggregate, and there if they went
     * independent and skipped it. They skip it only where nothing collective lies between
     * (a one-shot call, mcio_engine_run next, and no sync after a write: the mpiio
     * backend's is collective); the statistics' gathers follow the final agreement only
     * when it succeeds. Every rank still returns the failing rank's error; the others'
     * independent accesses have happened by then, as in a call whose file access fails. */
    if (!(run_next && !aggregate && st == MCIO_SUCCESS && !(write && mcio_file_write_sync(fh)))) {
        mcio_call_times shape = {.v = {0}};
        st = mcio_engine_agree(fh->comm, st, detail, shape.v, MCIO_CALL_TIMES);
        if (st != MCIO_SUCCESS)
            goto fail;
    }
    /* Independent: no lists, no buffers; the bytes move now. */
    if (!aggregate)
        goto done;

    /* 3. Offset-length lists, point to point; then the buffers the rounds will need. */
    st = mcio_engine_exchange_and_allocate(fh, p, &lb, aggregate, detail);
    st = mcio_engine_agree(fh->comm, st, detail, NULL, 0);
    if (st != MCIO_SUCCESS)
        goto fail;
    if (fh->hints.transport == MCIO_TRANSPORT_RMA) {
        st = mcio_pipeline_open_window(p, detail); /* collective, agreed inside */
        if (st != MCIO_SUCCESS)
            goto fail;
    }
done:
    p->t_metadata = (t1 - t0) + (PMPI_Wtime() - t2);
    p->t_plan = t2 - t1;
    return MCIO_SUCCESS;
fail:
    mcio_list_bufs_free(&lb);
    mcio_engine_plan_clear(p);
    fh->bytes_first[write != 0] = 0; /* agreed: every rank fails here, or in the run's agreement */
    if (fh->stats_deferred) {
        /* A bytes-first call's statistics, not made yet, from records this one-shot call's
         * gather replaced: this failed call's instead, which planned nothing. */
        mcio_call_times none = {.v = {0}};
        memset(p, 0, offsetof(struct mcio_plan_s, sink));
        p->fh = fh;
        mcio_stats_record(fh, p, write, &none);
    }
    return st;
}
