/*
 * Phase 1 of a collective call, in one place: every rank's record (its summary, status, own
 * calls and memory) gathered into every rank's fh->summaries (flat, or the node-level step,
 * mcio_nodegather.c), the nodes' memory combined from it into their budgets, and what the
 * decision reads of the records (summaries, own calls, the machine as the planner sees it, the
 * key of a choice). Calls nothing of the planning or execution above it (mcio_twophase.c,
 * mcio_run.c) nor of the file's life (mcio_file.c), which all call it.
 *
 * Glossary (mcio_planner.h, mcio_engine.h): record, summary, node budget.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_twophase.h"

mcio_summary *mcio_engine_summaries(const mcio_file fh)
{
    mcio_summary *sum = malloc(((size_t)fh->nprocs + 1) * sizeof *sum);
    for (int r = 0; sum && r < fh->nprocs; r++)
        sum[r] = (mcio_summary){fh->summaries[r].start, fh->summaries[r].end,
                                fh->summaries[r].bytes};
    return sum;
}

int64_t *mcio_engine_rank_calls(const mcio_file fh)
{
    int64_t *calls = malloc(((size_t)fh->nprocs + 1) * sizeof *calls);
    for (int r = 0; calls && r < fh->nprocs; r++)
        calls[r] = fh->summaries[r].calls;
    return calls;
}

/* The machine and the nodes' memory now, as the planner sees them; calls: the ranks'
 * own-access calls (mcio_engine_rank_calls), or NULL. */
mcio_topology mcio_engine_call_topology(const mcio_file fh, const int64_t *calls)
{
    return (mcio_topology){.nprocs = fh->nprocs,
                           .nnodes = fh->machine.nnodes,
                           .node_of_rank = fh->machine.node_of_rank,
                           .socket_of_rank = fh->machine.socket_of_rank,
                           .sockets_per_node = fh->machine.sockets_per_node,
                           .net = &fh->machine.net,
                           .node_mem = fh->node_budget,
                           .rank_extents = fh->machine.rank_extents,
                           .rank_calls = calls};
}

/* *key = the key of the gathered records' inputs to a choice (mcio_decide_key); 0 without
 * the memory to compute it. */
int mcio_engine_choice_key(const mcio_file fh, uint64_t *key)
{
    mcio_summary *sum = mcio_engine_summaries(fh);
    int64_t *calls = mcio_engine_rank_calls(fh);
    mcio_topology topo = mcio_engine_call_topology(fh, calls);
    int ok = sum && calls;
    if (ok)
        *key = mcio_decide_key(&topo, sum);
    free(sum);
    free(calls);
    return ok;
}

/* The summaries' bytes this rank sent and received (MCIO_STATS): the flat allgather delivers
 * its record to every other rank and theirs to it; the node-level step as it counts. */
void mcio_engine_summaries_counted(mcio_file fh, mcio_plan p)
{
    p->meta_sent = p->meta_recv = (int64_t)(fh->nprocs - 1) * (int64_t)sizeof(mcio_rank_record);
    if (fh->node_gather.on) {
        p->meta_sent = mcio_node_gather_sent(&fh->node_gather, &fh->machine);
        p->meta_recv = mcio_node_gather_received(&fh->node_gather, &fh->machine);
    }
}

/* The lowest rank whose gathered record says it failed, or -1. */
int mcio_engine_first_failed(const mcio_file fh)
{
    for (int r = 0; r < fh->nprocs; r++)
        if (fh->summaries[r].status != MCIO_SUCCESS)
            return r;
    return -1;
}

/* Phase 1's collective: this rank's record (p's summary, its status st, and the memory its
 * node has now: the application may have taken some since the open; where it had ample room,
 * a reading of the last half second stands, mcio_cbuf_memory_ample) into every rank's fh->summaries.
 * Returns the agreed status, the lowest failing rank's with its detail. where: this rank's
 * memory source under MCIO_STATS, or NULL. */
int mcio_engine_gather_records(mcio_file fh, const struct mcio_plan_s *p, int st, char *where,
                          char detail[MCIO_DETAIL_LEN])
{
    mcio_summary mine = mcio_extents_summary(p->ext, p->next);
    mcio_rank_record rec = {mine.start, mine.end, mine.bytes, st, {0},
                            mcio_own_calls(p->ext, p->next)};
    mcio_machine_memory_read(&fh->machine, p->next, mcio_cbuf_memory_ample(fh), rec.mem, where);
    mcio_cbuf_count_kept_as_free(fh, rec.mem);
    mcio_file_gather_records(fh, &rec);
    int failed = mcio_engine_first_failed(fh);
    return failed >= 0 ? mcio_engine_agree_from(fh->comm, failed, st, detail) : MCIO_SUCCESS;
}

/* The key of every rank's memory words in the gathered records. */
static uint64_t memory_key(const mcio_file fh)
{
    uint64_t h = 0;
    for (int r = 0; r < fh->nprocs; r++)
        for (int k = 0; k < MCIO_PROBE_FIELDS; k++)
            h = mcio_key_word(h, fh->summaries[r].mem[k]);
    return h;
}

/* The nodes' memory from the gathered records; in simulation once per call for all the
 * simulated ranks (mcio_engine_shared_plan). A call whose records hold the memory words of the
 * last call's (a reading stands for half a second where memory is ample:
 * mcio_machine_memory_read) has the nodes' memory that call combined: not combined again,
 * unless MCIO_STATS wants where each node's figure came from. */
void mcio_engine_combine_memory(mcio_file fh, const char *where, int write)
{
#ifdef MCIO_SIMULATE
    mcio_shared_plan *shared = mcio_engine_shared_plan(fh, write);
    if (shared) {
        mcio_file_memory_combine_shared(fh, where, shared);
        return;
    }
#else
    (void)write;
#endif
    uint64_t key = memory_key(fh);
    if (fh->memory_combined && key == fh->memory_key && !fh->stats_on)
        return;
    mcio_file_memory_combine(fh, where);
    fh->memory_key = key;
    fh->memory_combined = 1;
}

/* Each node's budget: its memory (the machine description's last probe) capped by the
 * mcio_node_memory hint, and where the figure came from. */
void mcio_engine_node_budgets(mcio_file f)
{
    for (int j = 0; j < f->machine.nnodes; j++) {
        int64_t mem = f->machine.node_mem[j], cap = f->hints.node_memory;
        mem = mem < 0 ? INT64_MAX : mem;
        f->node_budget[j] = cap > 0 && cap < mem ? cap : mem;
        f->node_source[j] = cap > 0 && cap < mem ? MCIO_MEM_HINT : f->machine.node_mem_source[j];
    }
}

void mcio_file_memory_combine(mcio_file f, const char *path)
{
    mcio_machine_memory_combine(f->comm, &f->machine, f->summaries[0].mem, MCIO_RECORD_WORDS, path,
                                f->stats_on);
    mcio_engine_node_budgets(f);
}

#ifdef MCIO_SIMULATE
void mcio_file_memory_combine_shared(mcio_file f, const char *path, mcio_shared_plan *e)
{
    mcio_machine *m = &f->machine;
    size_t nn = (size_t)m->nnodes;
    if (!e->combined) {
        e->node_mem = malloc((nn + 1) * sizeof(int64_t));
        e->node_mem_used = malloc((nn + 1) * sizeof(int64_t));
        e->node_mem_source = malloc((nn + 1) * sizeof(int));
        e->which = malloc((nn + 1) * sizeof(int));
        if (!e->node_mem || !e->node_mem_used || !e->node_mem_source || !e->which) {
            free(e->node_mem), free(e->node_mem_used), free(e->node_mem_source), free(e->which);
            e->node_mem = e->node_mem_used = NULL, e->node_mem_source = e->which = NULL;
            mcio_file_memory_combine(f, path); /* not kept: the next rank combines for itself */
            return;
        }
        mcio_machine_memory_nodes(m, f->summaries[0].mem, MCIO_RECORD_WORDS, e->which);
        memcpy(e->node_mem, m->node_mem, nn * sizeof(int64_t));
        memcpy(e->node_mem_used, m->node_mem_used, nn * sizeof(int64_t));
        memcpy(e->node_mem_source, m->node_mem_source, nn * sizeof(int));
        e->combined = 1;
    } else { /* rank_extents lies in the probe's shared area: the first rank wrote it */
        memcpy(m->node_mem, e->node_mem, nn * sizeof(int64_t));
        memcpy(m->node_mem_used, e->node_mem_used, nn * sizeof(int64_t));
        memcpy(m->node_mem_source, e->node_mem_source, nn * sizeof(int));
    }
    if (f->stats_on)
        mcio_machine_memory_where(f->comm, m, path, e->which);
    mcio_engine_node_budgets(f);
}
#endif

void mcio_file_gather_records(mcio_file f, const mcio_rank_record *mine)
{
#ifdef MCIO_SIMULATE
    if (f->node_gather.on)
        f->summaries = mcio_node_gather_run(&f->node_gather, &f->machine, &f->sim_summaries, mine);
    else
        f->summaries = mcio_sim_gather_run(f->comm, &f->sim_summaries, mine);
#else
    if (f->node_gather.on)
        mcio_node_gather_run(&f->node_gather, &f->machine, mine, f->summaries);
    else
        PMPI_Allgather(mine, MCIO_RECORD_WORDS, MPI_INT64_T, f->summaries, MCIO_RECORD_WORDS,
                   MPI_INT64_T, f->comm);
#endif
}

#ifdef MCIO_SIMULATE
/* What a shared plan holds, freed (mcio_engine.h). */
static void shared_plan_clear(mcio_shared_plan *e)
{
    mcio_fdplan_free(&e->fd);
    free(e->slots);
    free(e->mem_model);
    free(e->node_mem);
    free(e->node_mem_used);
    free(e->node_mem_source);
    free(e->which);
    memset(e, 0, sizeof *e);
}

void mcio_engine_shared_plans_free(mcio_file fh)
{
    mcio_sim_gather *g = &fh->sim_summaries;
    if (!mcio_sim_shared_last(g->shared))
        return;
    for (int k = 0; k < 2; k++)
        if (g->area[k])
            shared_plan_clear((mcio_shared_plan *)g->area[k]);
}

mcio_shared_plan *mcio_engine_shared_plan(mcio_file fh, int write)
{
    mcio_shared_plan *e = mcio_sim_gather_area(&fh->sim_summaries);
    if (e->gen != fh->sim_summaries.gen) {
        shared_plan_clear(e);
        e->gen = fh->sim_summaries.gen;
        e->write = write;
    }
    return e->write == write ? e : NULL;
}

/* *dst = the n entries of src in an allocation of its own (NULL src: NULL); 0 or NOMEM. */
int mcio_engine_copy_array(void **dst, const void *src, size_t bytes)
{
    *dst = NULL;
    if (!src)
        return MCIO_SUCCESS;
    if (!(*dst = malloc(bytes + 1)))
        return MCIO_ERR_NOMEM;
    memcpy(*dst, src, bytes);
    return MCIO_SUCCESS;
}
#endif

