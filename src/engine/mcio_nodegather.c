/*
 * The node-level step of the summaries' allgather (issue 21; docs/design.md, "Metadata").
 *
 * Before each collective call every rank needs every rank's record (its summary, argument check
 * and memory: mcio_rank_record), since every rank plans alike from all of them. One allgather
 * over all P ranks sends each record to P - 1 ranks across the network: P^2 records in all, and
 * in a simulation P flows at every step of the collective. With N nodes of several ranks, the
 * node-level step (as ROMIO's and MPICH's node-aware collectives do):
 *   1. gather:    each node's ranks send their records to the node's leader (its lowest rank);
 *   2. allgather: the N leaders exchange their nodes' blocks (MPI_Allgatherv): N x P records
 *                 cross the network, P/N times fewer than the flat allgather's;
 *   3. broadcast: each leader sends the whole table to its node's ranks (within the node).
 * The table is the same, record for record, as the flat allgather's, so the plan is too (the
 * test mpi_nodegather compares them). What is given up: two more steps' latency, and the
 * broadcast's P records to every rank within the node (shared-memory copies).
 *
 * Glossary: leader, the lowest rank of a node in the file's communicator; node order, the
 * ranks listed node by node (the machine description's rank_order), each node's in rank order,
 * which is the order of the leaders' blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "mcio_engine.h"

/* mcio_node_gather auto: the node-level step from this many ranks on, and where nodes hold
 * MCIO_NODE_GATHER_MIN_PER_NODE ranks or more on average. Below, the flat allgather is a few
 * latency-bound steps of small messages and the step's two extra steps cost more than it
 * saves. Not tuned on a large real machine (this project has none); in simulation the node
 * step cuts the simulator's work several times at 4,096 ranks and more (docs/simulation.md). */
enum { MCIO_NODE_GATHER_MIN_RANKS = 1024, MCIO_NODE_GATHER_MIN_PER_NODE = 4 };

int mcio_node_gather_wanted(int mode, int nprocs, int nnodes)
{
    if (mode == MCIO_NODE_GATHER_FALSE || nnodes < 2 || nnodes >= nprocs)
        return 0; /* one node, or one rank per node: nothing to gather within a node */
    if (mode == MCIO_NODE_GATHER_TRUE)
        return 1;
    return nprocs >= MCIO_NODE_GATHER_MIN_RANKS &&
           nprocs >= MCIO_NODE_GATHER_MIN_PER_NODE * nnodes;
}

/* Collective over the n ranks of comm listed (in that order): their communicator. 1 when it
 * could not be made. */
static int make_comm_of(MPI_Comm comm, const int *list, int n, MPI_Comm *out)
{
    MPI_Group all, sub;
    *out = MPI_COMM_NULL;
    if (PMPI_Comm_group(comm, &all) != MPI_SUCCESS)
        return 1;
    int rc = PMPI_Group_incl(all, n, list, &sub);
    PMPI_Group_free(&all);
    if (rc != MPI_SUCCESS)
        return 1;
    rc = PMPI_Comm_create_group(comm, sub, 0x6d63 /* "mc" */, out);
    PMPI_Group_free(&sub);
    return rc != MPI_SUCCESS || *out == MPI_COMM_NULL;
}

int mcio_node_gather_init(MPI_Comm comm, const mcio_machine *m, int mode, size_t record,
                          mcio_node_gather *g)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    memset(g, 0, sizeof *g);
    g->node = g->leaders = MPI_COMM_NULL;
    /* The leaders' block sizes are int byte counts. */
    if (!mcio_node_gather_wanted(mode, m->nprocs, m->nnodes) ||
        (double)m->nprocs * (double)record > (double)INT32_MAX)
        return MCIO_SUCCESS;
    int j = m->node_of_rank[rank];
    int leader = mcio_machine_leads_node(m, rank);
    int n = m->node_first[j + 1] - m->node_first[j], bad = 0, *firsts = NULL;
    if (leader) {
        g->counts = malloc((size_t)m->nnodes * sizeof(int));
        g->displs = malloc((size_t)m->nnodes * sizeof(int));
        firsts = malloc((size_t)m->nnodes * sizeof(int));
        bad = !g->counts || !g->displs || !firsts;
        for (int k = 0; !bad && k < m->nnodes; k++) {
            g->counts[k] = (m->node_first[k + 1] - m->node_first[k]) * (int)record;
            g->displs[k] = m->node_first[k] * (int)record;
            firsts[k] = m->rank_order[m->node_first[k]];
        }
    }
#ifndef MCIO_SIMULATE /* the simulation's table is shared and indexed by rank: no staging */
    if (!bad && !(g->stage = malloc((size_t)m->nprocs * record)))
        bad = 1;
#endif
    PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    /* The groups from the machine description, which every rank holds alike (virtual nodes,
     * MCIO_VIRTUAL_RANKS_PER_NODE, as detected ones), each communicator made by its members
     * only: no MPI_Comm_split over all ranks, which SMPI runs as a linear gather to one rank
     * (its CPU time grows with ranks squared: minutes at 16,384 simulated ranks). */
    if (!bad) {
        bad = make_comm_of(comm, m->rank_order + m->node_first[j], n, &g->node);
        if (leader)
            bad |= make_comm_of(comm, firsts, m->nnodes, &g->leaders);
        PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    }
    free(firsts);
    if (bad) {
        mcio_node_gather_free(g);
        return MCIO_ERR_NOMEM;
    }
    g->on = 1;
    g->node_index = j;
    g->record = record;
    return MCIO_SUCCESS;
}

void mcio_node_gather_free(mcio_node_gather *g)
{
    if (g->node != MPI_COMM_NULL)
        PMPI_Comm_free(&g->node);
    if (g->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&g->leaders);
    free(g->counts);
    free(g->displs);
    free(g->stage);
    memset(g, 0, sizeof *g);
    g->node = g->leaders = MPI_COMM_NULL;
}

/* The three steps over the node-ordered buffer stage (nprocs records): mine goes to its node's
 * block on the leader, the blocks to every leader, the whole to every rank of the node. */
static void three_steps(const mcio_node_gather *g, const mcio_machine *m, const void *mine,
                        char *stage)
{
    int rec = (int)g->record;
    char *block = stage + (size_t)m->node_first[g->node_index] * g->record;
    PMPI_Gather(mine, rec, MPI_BYTE, block, rec, MPI_BYTE, 0, g->node);
    if (g->leaders != MPI_COMM_NULL)
        PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, stage, g->counts, g->displs, MPI_BYTE,
                        g->leaders);
    PMPI_Bcast(stage, m->nprocs * rec, MPI_BYTE, 0, g->node);
}

#ifdef MCIO_SIMULATE
void *mcio_node_gather_run(const mcio_node_gather *g, const mcio_machine *m, mcio_sim_gather *sg,
                           const void *mine)
{
    /* The content through the shared table (mcio_machine_sim.h), the bytes over the three
     * steps between content-free buffers: every rank has written its record once the leader
     * has gathered its node and the leaders have exchanged, which a rank's broadcast follows. */
    void *table = mcio_sim_gather_put(sg, mine);
    three_steps(g, m, sg->wire_send, sg->wire_recv);
    return table;
}
#else
void mcio_node_gather_run(const mcio_node_gather *g, const mcio_machine *m, const void *mine,
                          void *all)
{
    three_steps(g, m, mine, g->stage);
    for (int i = 0; i < m->nprocs; i++) /* node order to rank order */
        memcpy((char *)all + (size_t)m->rank_order[i] * g->record,
               g->stage + (size_t)i * g->record, g->record);
}
#endif

int64_t mcio_node_gather_sent(const mcio_node_gather *g, const mcio_machine *m)
{
    int64_t rec = (int64_t)g->record;
    if (g->leaders == MPI_COMM_NULL)
        return rec; /* to the leader */
    int n = m->node_first[g->node_index + 1] - m->node_first[g->node_index];
    /* its node's block to every other leader, the table to each other rank of the node */
    return (int64_t)(m->nnodes - 1) * n * rec + (int64_t)(n - 1) * m->nprocs * rec;
}

int64_t mcio_node_gather_received(const mcio_node_gather *g, const mcio_machine *m)
{
    int64_t rec = (int64_t)g->record;
    return g->leaders == MPI_COMM_NULL ? (int64_t)m->nprocs * rec
                                       : (int64_t)(m->nprocs - 1) * rec;
}

void mcio_twolayer_free(mcio_file fh)
{
    struct mcio_layer_state *s = fh->layer;
    if (!s)
        return;
    if (s->own)
        PMPI_Comm_free(&s->node);
    free(s->fig);
    free(s->counts);
    free(s->displs);
    free(s->reqs);
    free(s->sinks);
    free(s);
    fh->layer = NULL;
}
