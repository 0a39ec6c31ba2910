/*
 * Statistics of each collective call: kept on the file handle for mcio_file_get_stats, and
 * appended as one JSON object per line to the file named by MCIO_STATS (rank 0 writes).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_twophase.h"

void mcio_stats_gather_aggregator_bytes(mcio_file fh, mcio_plan p)
{
    int64_t mine = 0;
    for (int64_t g = 0; g < p->recv.ngroups; g++)
        mine += p->recv.bytes[g];
    int64_t sink;
    PMPI_Gather(&mine, 1, MPI_INT64_T, fh->stats_gathered ? fh->stats_gathered : &sink, 1,
                MPI_INT64_T, 0, fh->comm);
}

void mcio_stats_clear_gathered(mcio_file fh)
{
    if (fh->stats_gathered)
        memset(fh->stats_gathered, 0, (size_t)fh->nprocs * sizeof(int64_t));
    memset(fh->meta_totals, 0, sizeof fh->meta_totals);
}

/* The exchange's bytes between this rank and the aggregators of its send groups (a write's
 * data goes to them, a read's comes back from them: the same bytes either way), into
 * [0] those within this rank's node and [1] those between nodes; its own domain's are a copy,
 * counted in neither. */
static void exchange_bytes(mcio_file fh, mcio_plan p, int64_t out[3])
{
    const int *node = fh->machine.node_of_rank;
    out[0] = fh->layer_bytes; /* handed to or from its node aggregator (two layers) */
    out[1] = out[2] = 0;
    for (int64_t g = 0; g < p->send.ngroups; g++) {
        int agg = p->fd.agg_rank[p->send.peer[g]];
        if (agg != fh->rank) {
            out[node[agg] != node[fh->rank]] += p->send.bytes[g];
            out[2] += node[agg] != node[fh->rank]; /* [2]: the messages between nodes */
        }
    }
}

void mcio_stats_gather_metadata(mcio_file fh, mcio_plan p)
{
    int64_t sum[6] = {p->meta_sent, p->meta_msgs, p->meta_list}, tot[6] = {0}, most = 0;
    exchange_bytes(fh, p, &sum[3]);
    PMPI_Reduce(sum, tot, 6, MPI_INT64_T, MPI_SUM, 0, fh->comm);
    PMPI_Reduce(&p->meta_recv, &most, 1, MPI_INT64_T, MPI_MAX, 0, fh->comm);
    fh->meta_totals[0] = tot[0];
    fh->meta_totals[1] = tot[1];
    fh->meta_totals[2] = most;
    fh->meta_totals[3] = tot[2];
    fh->meta_totals[4] = tot[3];
    fh->meta_totals[5] = tot[4];
    fh->meta_totals[6] = tot[5];
}

int mcio_stats_model(mcio_file fh, mcio_plan p)
{
    int nn = fh->machine.nnodes;
    mcio_summary *sum = mcio_engine_summaries(fh);
    int64_t *calls = mcio_engine_rank_calls(fh);
    mcio_memmodel_node *model = malloc(((size_t)nn + 1) * sizeof *model);
    p->mem_model = malloc(((size_t)nn + 1) * 2 * sizeof(int64_t));
    int st = sum && calls && model && p->mem_model ? MCIO_SUCCESS : MCIO_ERR_NOMEM;
    mcio_topology topo = {.nprocs = fh->nprocs, .nnodes = nn,
                          .node_of_rank = fh->machine.node_of_rank,
                          .rank_extents = fh->machine.rank_extents, .rank_calls = calls};
    if (st == MCIO_SUCCESS)
        st = mcio_memmodel(&topo, sum, &p->fd, p->slots, p->own_access, model);
    for (int j = 0; st == MCIO_SUCCESS && j < nn; j++) {
        int64_t used = fh->machine.node_mem_used[j];
        p->mem_model[j] = model[j].peak;
        p->mem_model[nn + j] = used >= 0 ? used + model[j].peak : -1;
    }
    free(sum);
    free(calls);
    free(model);
    return st;
}

/* n values as a JSON list's items, comma-separated. */
static void print_i64s(FILE *f, const int64_t *v, int n)
{
    for (int j = 0; j < n; j++)
        fprintf(f, "%s%" PRId64, j ? "," : "", v[j]);
}

void mcio_stats_name(const mcio_file fh, mcio_stats *s)
{
    s->choice[0] = s->runner_up[0] = '\0';
    if (s->predicted >= 0)
        mcio_cost_config_name(&fh->stats_choice.best, s->choice, sizeof s->choice);
    if (s->runner_up_predicted >= 0)
        mcio_cost_config_name(&fh->stats_choice.runner_up, s->runner_up, sizeof s->runner_up);
}

/* Append the last call's statistics to MCIO_STATS as one JSON line (rank 0). */
static void stats_append(mcio_file fh, const mcio_fdplan *fd, int write, int listed)
{
    mcio_stats *s = &fh->stats;
    mcio_stats_name(fh, s);
    int nn = fh->machine.nnodes;
    /* The share of the smaller phase hidden behind the other: 1 is the ideal the papers bound. */
    double smaller = s->t_io < s->t_exchange ? s->t_io : s->t_exchange;
    double overlap = smaller > 0 ? s->t_overlap / smaller : 0;
    overlap = overlap > 1 ? 1 : overlap;
    if (!fh->stats_out && (fh->stats_out = fopen(fh->stats_path, "a")) != NULL)
        setvbuf(fh->stats_out, NULL, _IOFBF, 1 << 16); /* a line in one write (fflush below) */
    FILE *f = fh->stats_out;
    if (!f)
        return; /* statistics are best effort: they never fail the I/O they describe */
    fprintf(f,
            "{\"op\":\"%s\",\"path\":\"%s\",\"strategy\":\"%s\",\"ranks\":%d,\"nodes\":%d,"
            "\"bytes\":%" PRId64 ",\"aggregators\":%d,\"rounds\":%d,\"max_buffer_bytes\":%" PRId64
            ",\"t_metadata\":%.9f,\"t_plan\":%.9f,\"t_exchange\":%.9f,\"t_io\":%.9f,"
            "\"t_total\":%.9f,\"pipeline_depth\":%d,\"transport\":\"%s\","
            "\"subbuffer_bytes\":%" PRId64 ",\"subbuffer_rounds\":%d,\"t_wait\":%.9f,"
            "\"t_overlap\":%.9f,\"overlap\":%.4f,\"io_inline\":%d,\"fs_type\":\"%s\","
            "\"fs_name\":\"%s\",\"fs_stripe\":%" PRId64 ",\"fs_write_behind\":%d,"
            "\"stripe\":%" PRId64 ",\"write_sync\":%d,\"read_shift\":%d,\"local_io\":%d,"
            "\"metadata_bytes\":%" PRId64 ",\"metadata_messages\":%" PRId64
            ",\"metadata_max_rank_bytes\":%" PRId64 ",\"metadata_list_bytes\":%" PRId64
            ",\"exchange_node_bytes\":%" PRId64 ",\"exchange_network_bytes\":%" PRId64
            ",\"exchange_network_messages\":%" PRId64 ",\"layers\":%d,\"node_gather\":%d,"
            "\"aggregator_ranks\":[",
            write ? "write" : "read", fh->path, mcio_planner_name(fh->hints.strategy), s->ranks, fh->machine.nnodes,
            s->bytes, s->aggregators, s->rounds, s->max_buffer_bytes, s->t_metadata, s->t_plan,
            s->t_exchange, s->t_io, s->t_total, s->pipeline_depth, mcio_transport_name(fh->hints.transport),
            s->subbuffer_bytes, s->subbuffer_rounds, s->t_wait, s->t_overlap, overlap,
            s->io_inline, mcio_fs_type_name(fh->fs.type), fh->fs.name, fh->fs.stripe,
            fh->fs.write_behind,
            mcio_fs_align_stripe(&fh->fs, fh->hints.striping_unit, write),
            write && mcio_file_write_sync(fh), !write && mcio_file_read_shift(fh),
            s->local_io, s->metadata_bytes, s->metadata_messages,
            s->metadata_max_rank_bytes, s->metadata_list_bytes, s->exchange_node_bytes,
            s->exchange_network_bytes, s->exchange_network_messages, s->layers, s->node_gather);
    for (int d = 0; d < listed; d++)
        fprintf(f, "%s%d", d ? "," : "", fh->stats_aggs[d]);
    fprintf(f, "],\"aggregator_nodes\":[");
    for (int d = 0; d < listed; d++)
        fprintf(f, "%s%d", d ? "," : "", fh->stats_nodes[d]);
    if (fh->stats_on && fh->stats_gathered) { /* in domain order, as aggregator_ranks */
        fprintf(f, "],\"aggregator_bytes\":[");
        for (int d = 0; d < listed; d++)
            fprintf(f, "%s%" PRId64, d ? "," : "", fh->stats_gathered[fh->stats_aggs[d]]);
    }
    fprintf(f, "],\"fallbacks\":%d,\"node_budget_bytes\":[", s->fallbacks);
    print_i64s(f, fh->stats_budget, nn);
    fprintf(f, "],\"node_peak_bytes\":[");
    print_i64s(f, fh->stats_peak, nn);
    /* Where each node's figure came from: "cgroup-v1:/path", "meminfo", "hint", ... */
    fprintf(f, "],\"node_memory_source\":[");
    for (int j = 0; j < nn; j++) {
        const char *where = fh->machine.node_mem_where
                                ? &fh->machine.node_mem_where[(size_t)j * MCIO_MEM_WHERE_LEN]
                                : "";
        int cg = fh->node_source[j] == MCIO_MEM_CGROUP_V1 || fh->node_source[j] == MCIO_MEM_CGROUP_V2;
        fprintf(f, "%s\"%s%s%s\"", j ? "," : "", mcio_memory_source_name(fh->node_source[j]),
                cg && *where ? ":" : "", cg ? where : "");
    }
    fprintf(f, "],\"node_model_bytes\":[");
    print_i64s(f, fh->stats_model, nn);
    fprintf(f, "],\"node_predicted_peak_bytes\":[");
    print_i64s(f, fh->stats_predicted, nn);
    fprintf(f, "],\"memory_conscious\":%d,\"choice\":\"%s\",\"predicted\":%.9f,"
               "\"runner_up\":\"%s\",\"runner_up_predicted\":%.9f,\"choice_again\":%d,"
               "\"cost_source\":\"%s\",\"cost_date\":%" PRId64 "}\n",
            fd->memory_conscious, s->choice, s->predicted, s->runner_up, s->runner_up_predicted,
            s->choice_again, mcio_cost_source_name(fh->cost_source), fh->cost_date);
    fflush(f); /* each line readable as soon as its call returns */
}

void mcio_stats_record(mcio_file fh, mcio_plan p, int write, const mcio_call_times *t)
{
    const mcio_fdplan *fd = &p->fd;
    mcio_stats *s = &fh->stats;
    fh->stats_deferred = 0; /* this call's replace a bytes-first call's not yet made */
    int *aggs = realloc(fh->stats_aggs, ((size_t)fd->ndomains + 1) * sizeof(int));
    if (aggs)
        fh->stats_aggs = aggs;
    int *nodes = realloc(fh->stats_nodes, ((size_t)fd->ndomains + 1) * sizeof(int));
    if (nodes)
        fh->stats_nodes = nodes;
    int listed = aggs && nodes ? fd->ndomains : 0;
    for (int d = 0; d < listed; d++) {
        fh->stats_aggs[d] = fd->agg_rank[d];
        fh->stats_nodes[d] = fh->machine.node_of_rank[fd->agg_rank[d]];
    }
    /* Per node: the budget, and the buffers held, which the engine allocates exactly as
     * mcio_fdplan_buffer says (mcio_twophase.c), all of them for the plan's lifetime. */
    int nn = fh->machine.nnodes;
    for (int j = 0; j < nn; j++) {
        fh->stats_budget[j] = fh->node_budget[j] == INT64_MAX ? -1 : fh->node_budget[j];
        fh->stats_peak[j] = 0;
        fh->stats_model[j] = p->mem_model ? p->mem_model[j] : -1;
        fh->stats_predicted[j] = p->mem_model ? p->mem_model[nn + j] : -1;
    }
    for (int d = 0; d < fd->ndomains; d++)
        fh->stats_peak[fh->machine.node_of_rank[fd->agg_rank[d]]] +=
            mcio_fdplan_buffer(fd, d) * (p->slots ? p->slots[d] : 1); /* all sub-buffers */
    *s = (mcio_stats){
        .op = write ? 1 : 2,
        .ranks = fh->nprocs,
        .aggregators = fd->ndomains,
        .rounds = p->cb_rounds,
        .bytes = p->total_bytes,
        .max_buffer_bytes = fd->max_buffer,
        .t_metadata = t->metadata * 1e-9,
        .t_plan = t->plan * 1e-9,
        .t_exchange = t->exchange * 1e-9,
        .t_io = t->io * 1e-9,
        .t_total = t->total * 1e-9,
        .aggregator_ranks = fh->stats_aggs,
        .aggregator_nodes = fh->stats_nodes,
        .nodes = nn,
        .node_budget_bytes = fh->stats_budget,
        .node_peak_bytes = fh->stats_peak,
        .fallbacks = fd->fallbacks,
        .pipeline_depth = p->depth,
        .subbuffer_rounds = fd->max_rounds,
        .t_wait = t->wait * 1e-9,
        .t_overlap = t->overlap * 1e-9,
        .io_inline = (int)t->io_inline,
        .node_memory_source = fh->node_source,
        .node_model_bytes = fh->stats_model,
        .node_predicted_peak_bytes = fh->stats_predicted,
        .memory_conscious = fd->memory_conscious,
        .metadata_bytes = fh->stats_on ? fh->meta_totals[0] : -1,
        .metadata_messages = fh->stats_on ? fh->meta_totals[1] : -1,
        .metadata_max_rank_bytes = fh->stats_on ? fh->meta_totals[2] : -1,
        .metadata_list_bytes = fh->stats_on ? fh->meta_totals[3] : -1,
        .exchange_node_bytes = fh->stats_on ? fh->meta_totals[4] : -1,
        .exchange_network_bytes = fh->stats_on ? fh->meta_totals[5] : -1,
        .node_gather = fh->node_gather.on,
        .layers = fh->layers_last > 0 ? fh->layers_last : 1,
        .exchange_network_messages = fh->stats_on ? fh->meta_totals[6] : -1,
        .choice_again = p->chose == 2,
        .read_first = p->bytes_first && !write,
        .write_first = p->bytes_first && write,
        .local_io = mcio_file_goes_local(fh, write),
    };
    s->predicted = p->chose ? p->choice.best.seconds : -1;
    s->runner_up_predicted =
        p->chose && p->choice.runner_up.seconds >= 0 ? p->choice.runner_up.seconds : -1;
    if (p->chose)
        fh->stats_choice = p->choice;
    for (int d = 0; d < fd->ndomains; d++)
        if (fd->rounds[d] > 0 && fd->window[d] > s->subbuffer_bytes)
            s->subbuffer_bytes = fd->window[d];
    if (fh->stats_path)
        stats_append(fh, fd, write, listed);
}

/* mcio_stats_model, once per call in the simulation build, as plan_domains_once. */
int mcio_engine_stats_model_once(mcio_file fh, struct mcio_plan_s *p, int write)
{
#ifdef MCIO_SIMULATE
    mcio_shared_plan *e = mcio_engine_shared_plan(fh, write);
    size_t bytes = ((size_t)fh->machine.nnodes + 1) * 2 * sizeof(int64_t);
    if (e && e->modelled) {
        if (e->model_status != MCIO_SUCCESS)
            return e->model_status;
        return mcio_engine_copy_array((void **)&p->mem_model, e->mem_model, bytes);
    }
    int st = mcio_stats_model(fh, p);
    if (e && (st != MCIO_SUCCESS || mcio_engine_copy_array((void **)&e->mem_model, p->mem_model, bytes) ==
                                        MCIO_SUCCESS)) {
        e->modelled = 1;
        e->model_status = st;
    }
    return st;
#else
    (void)write;
    return mcio_stats_model(fh, p);
#endif
}
