/*
 * Two-layer aggregation (issue 50): a node's ranks hand their pieces to the node's aggregator
 * (its lowest rank) over the node's communicator, which merges them in file order and alone
 * takes part in the existing two-phase exchange with the file-domain aggregators (the engine,
 * mcio_twophase.c, unchanged: the others join its collectives with no pieces); a read runs
 * the same way and the node aggregator hands each rank its bytes after.
 *
 * Papers: TAM (Q. Kang et al., "Improving MPI Collective I/O for High Volume Non-Contiguous
 * Requests With Intra-Node Aggregation", IEEE TPDS 31(11), 2020) and PnetCDF's intra-node
 * aggregation (1.14, ncmpio_intra_node.c): inter-node messages go from ranks x aggregators
 * to nodes x aggregators. The pure parts (the staging in file order, the price of one layer
 * against two) are src/core/plan/layers.c.
 *
 * The hand-over is plain node-communicator messages (one from each rank, a derived datatype
 * on each side, received straight into its slots of the staging buffer), not an MPI-3 shared
 * window: both MPIs move a large intra-node message with one copy (Open MPI's CMA, MPICH's
 * LMT), which is what a window would cost, without a window's fences.
 *
 * Memory: the staging buffer holds the node's bytes on its aggregator. It is taken before the
 * engine gathers the ranks' memory records, so the memory strategy plans the collective
 * buffers with what is left; where the node's budget (mcio_node_memory, or what the node has)
 * is known and smaller than the node's bytes, a forced two-layer call fails on every rank
 * naming the hint, and auto stays at one layer (layers.c).
 *
 * Glossary: node aggregator, staging buffer, slot (where a piece's bytes lie in the staging
 * buffer), layer: src/core/plan/layers.c. Only one-shot calls take two layers: a persistent
 * plan keeps one (mcio_plan_create).
 */
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_twophase.h"

/* One call's hand-over, on one rank; the node aggregator's part only there. */
typedef struct layer_call {
    mcio_extent *ext; /* this rank's normalized pieces (mem from base) */
    int64_t next, bytes;
    mcio_extent *pcs; /* aggregator: the node's pieces, rank by rank */
    int64_t npcs;
    int64_t *slot;    /* aggregator: [npcs] */
    mcio_extent *merged;
    int64_t nm;
    char *stage;
} layer_call;

static void call_free(layer_call *c)
{
    free(c->ext);
    free(c->pcs);
    free(c->slot);
    free(c->merged);
    free(c->stage);
}

/* Collective over fh->comm, at the file's first two-layer call: its state (the node gather's
 * communicator where it has one, else one split off by node). Agreed: MCIO_SUCCESS, or the
 * same error on every rank. */
static int layer_setup(mcio_file fh)
{
    if (fh->layer)
        return MCIO_SUCCESS;
    struct mcio_layer_state *s = calloc(1, sizeof *s);
    int bad = !s, rc = MPI_SUCCESS;
    if (s && fh->node_gather.on) {
        s->node = fh->node_gather.node;
    } else if (s) {
        rc = PMPI_Comm_split(fh->comm, fh->machine.node_of_rank[fh->rank], fh->rank, &s->node);
        s->own = rc == MPI_SUCCESS;
        bad = rc != MPI_SUCCESS;
    }
    if (!bad) {
        PMPI_Comm_rank(s->node, &s->nrank);
        PMPI_Comm_size(s->node, &s->nsize);
        s->reqs = malloc((size_t)s->nsize * sizeof *s->reqs);
        s->sinks = malloc((size_t)s->nsize * sizeof *s->sinks);
        bad = !s->reqs || !s->sinks;
        if (s->nrank == 0) {
            s->fig = malloc((size_t)s->nsize * 2 * sizeof *s->fig);
            s->counts = malloc((size_t)s->nsize * sizeof *s->counts);
            s->displs = malloc((size_t)s->nsize * sizeof *s->displs);
            bad |= !s->fig || !s->counts || !s->displs;
        }
    }
    PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, fh->comm);
    fh->layer = s;
    if (bad) {
        mcio_twolayer_free(fh);
        return rc != MPI_SUCCESS ? MCIO_ERR_MPI : MCIO_ERR_NOMEM;
    }
    return MCIO_SUCCESS;
}

/* The committed datatype of n blocks at absolute addresses at[i] (from MPI_BOTTOM), of
 * lengths len[i]; or plain bytes (*bytes_at set, *count its length) where they lie back to
 * back. Returns an MPI error code. */
static int blocks_type(int64_t n, const int64_t *at, const int64_t *len, MPI_Datatype *t,
                       char **bytes_at, int *count)
{
    int64_t total = 0, contiguous = 1;
    for (int64_t i = 0; i < n; i++) {
        total += len[i];
        contiguous &= i == 0 || at[i] == at[i - 1] + len[i - 1];
    }
    if (contiguous) {
        *t = MPI_BYTE;
        *bytes_at = n > 0 ? (char *)(uintptr_t)at[0] : NULL;
        *count = (int)total;
        return MPI_SUCCESS;
    }
    int *bl = malloc((size_t)n * sizeof *bl);
    MPI_Aint *d = malloc((size_t)n * sizeof *d);
    int rc = bl && d ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int64_t i = 0; rc == MPI_SUCCESS && i < n; i++)
        bl[i] = (int)len[i], d[i] = (MPI_Aint)at[i];
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_hindexed((int)n, bl, d, MPI_BYTE, t);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(t)) != MPI_SUCCESS)
        PMPI_Type_free(t);
    free(bl);
    free(d);
    *bytes_at = MPI_BOTTOM;
    *count = 1;
    return rc;
}

/* Post the message of pieces [0, n) of one side (addresses at, lengths len) to or from peer. */
static int post_blocks(int64_t n, const int64_t *at, const int64_t *len, int send, int peer,
                       MPI_Comm comm, MPI_Request *req)
{
    MPI_Datatype t;
    char *addr;
    int count;
    int rc = blocks_type(n, at, len, &t, &addr, &count);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = send ? PMPI_Isend(addr, count, t, peer, MCIO_TAG_DATA, comm, req)
              : PMPI_Irecv(addr, count, t, peer, MCIO_TAG_DATA, comm, req);
    if (t != MPI_BYTE)
        PMPI_Type_free(&t); /* freed once the message completes (MPI keeps it until then) */
    return rc;
}

/* The addresses and lengths of pieces [i0, i1) of list e in memory at base, or (slot set) at
 * their slots in the staging buffer. NULL without memory. */
static int64_t *addresses(const mcio_extent *e, int64_t i0, int64_t i1, char *base,
                          const int64_t *slot, int64_t **len)
{
    int64_t n = i1 - i0, *at = malloc((size_t)(n > 0 ? n : 1) * sizeof *at);
    *len = malloc((size_t)(n > 0 ? n : 1) * sizeof **len);
    if (!at || !*len) {
        free(at);
        free(*len);
        *len = NULL;
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        (*len)[i] = e[i0 + i].len;
        at[i] = slot ? (int64_t)(uintptr_t)(base + slot[i0 + i])
                     : (int64_t)(uintptr_t)PIECE_ADDR(base, e[i0 + i].mem);
    }
    return at;
}

/* Post one side of a rank's hand-over: its pieces [i0, i1) between memory at base (slot NULL)
 * or the staging buffer's slots, to or from peer. Returns MCIO_SUCCESS or MCIO_ERR_MPI. */
static int post_side(const mcio_extent *e, int64_t i0, int64_t i1, char *base,
                     const int64_t *slot, int send, int peer, MPI_Comm comm, MPI_Request *req)
{
    int64_t *len, *at = addresses(e, i0, i1, base, slot, &len);
    int rc = at ? post_blocks(i1 - i0, at, len, send, peer, comm, req) : MPI_ERR_NO_MEM;
    free(at);
    free(len);
    return rc == MPI_SUCCESS ? MCIO_SUCCESS : MCIO_ERR_MPI;
}

/* Post one side of a rank's hand-over, or its stand-in where it cannot be posted (the peer
 * waits for it all the same): an empty send (the peer's receive takes fewer bytes, which MPI
 * allows), or the bytes received whole into sink (mcio_sink_irecv, *sink_type to free). */
static int post_or_standin(const mcio_extent *e, int64_t i0, int64_t i1, char *base,
                           const int64_t *slot, int send, int peer, MPI_Comm comm,
                           MPI_Request *req, char *sink, MPI_Datatype *sink_type)
{
    if (post_side(e, i0, i1, base, slot, send, peer, comm, req) == MCIO_SUCCESS)
        return MCIO_SUCCESS;
    int64_t bytes = 0;
    for (int64_t i = i0; i < i1; i++)
        bytes += e[i].len;
    if (send)
        PMPI_Isend(sink, 0, MPI_BYTE, peer, MCIO_TAG_DATA, comm, req);
    else if (mcio_sink_irecv(sink, bytes, MPI_BYTE, 1, peer, MCIO_TAG_DATA, comm, sink_type,
                             req) != MPI_SUCCESS)
        *req = MPI_REQUEST_NULL; /* MPI is failing: the peer's send cannot complete either */
    return MCIO_ERR_MPI;
}

/* Wait for n requests, yielding the processor between polls (mcio_rounds.c's exchange_wait
 * says why: ranks that outnumber cores must not spin). */
static void wait_yielding(int n, MPI_Request *reqs)
{
#ifdef MCIO_SIMULATE
    PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE); /* SMPI charges simulated time per test */
#else
    for (int done = 0;;) {
        PMPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (done)
            return;
        sched_yield();
    }
#endif
}

/*
 * The bytes between the node's ranks and the staging buffer, over the node: a write's into
 * it (before the exchange), a read's out of it (after). The node aggregator copies its own
 * pieces and posts one message per other rank with pieces; each other rank posts one.
 * Returns MCIO_SUCCESS or MCIO_ERR_MPI (every message completed either way).
 */
static int hand_over(const struct mcio_layer_state *s, layer_call *c, int write, char *base,
                     char detail[MCIO_DETAIL_LEN])
{
    int n = 0, st = MCIO_SUCCESS, pst;
    MPI_Request *reqs = s->reqs;
    MPI_Datatype *sinks = s->sinks;
    char sink[MCIO_SINK_BYTES];
    if (s->nrank == 0) {
        int64_t first = s->fig[0];
        for (int64_t i = 0; i < first; i++) { /* its own pieces: a copy */
            char *user = PIECE_ADDR(base, c->ext[i].mem), *slot = c->stage + c->slot[i];
            memcpy(write ? slot : user, write ? user : slot, (size_t)c->ext[i].len);
        }
        for (int r = 1; r < s->nsize; first += s->fig[2 * r], r++) {
            if (s->fig[2 * r] == 0)
                continue;
            sinks[n] = MPI_DATATYPE_NULL;
            pst = post_or_standin(c->pcs, first, first + s->fig[2 * r], c->stage, c->slot,
                                  !write, r, s->node, &reqs[n], sink, &sinks[n]);
            n++;
            st = st == MCIO_SUCCESS ? pst : st;
        }
    } else if (c->next > 0) {
        sinks[0] = MPI_DATATYPE_NULL;
        st = post_or_standin(c->ext, 0, c->next, base, NULL, write, 0, s->node, &reqs[0], sink,
                             &sinks[0]);
        n = 1;
    }
    wait_yielding(n, reqs);
    for (int i = 0; i < n; i++)
        if (sinks[i] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&sinks[i]);
    if (st != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN,
                 "mcio_layers: the hand-over of a %s within the node failed (an MPI datatype or "
                 "message could not be made)", write ? "write" : "read");
    return st;
}

/* The node aggregator's part of step 2: the node's figures checked against its memory, the
 * staging buffer and the lists' room taken. Returns the verdict for the node. */
static int take_stage(mcio_file fh, const struct mcio_layer_state *s, layer_call *c,
                      char detail[MCIO_DETAIL_LEN])
{
    int64_t words = 0, bytes = 0;
    int node = fh->machine.node_of_rank[fh->rank];
    for (int r = 0; r < s->nsize; r++) {
        s->displs[r] = (int)(words < INT_MAX ? words : 0);
        s->counts[r] = (int)(3 * s->fig[2 * r] < INT_MAX ? 3 * s->fig[2 * r] : 0);
        words += 3 * s->fig[2 * r];
        bytes += s->fig[2 * r + 1];
    }
    int64_t budget = fh->node_budget ? fh->node_budget[node] : INT64_MAX;
    if (words > INT_MAX) {
        snprintf(detail, MCIO_DETAIL_LEN,
                 "mcio_layers: node %d's ranks hold %" PRId64 " pieces, more than one gather of "
                 "their lists takes (%d): set mcio_layers to 1",
                 node, words / 3, INT_MAX / 3);
        return MCIO_ERR_ARG;
    }
    if (bytes > budget) {
        snprintf(detail, MCIO_DETAIL_LEN,
                 "mcio_layers 2: node %d's ranks would stage %" PRId64 " bytes on rank %d, more "
                 "than the node's memory budget for buffers (%" PRId64 " bytes): set "
                 "mcio_layers to 1 or auto, or raise mcio_node_memory",
                 node, bytes, fh->rank, budget);
        return MCIO_ERR_NOMEM;
    }
    size_t n = (size_t)(words / 3 > 0 ? words / 3 : 1);
    c->npcs = words / 3;
    c->pcs = malloc(n * sizeof *c->pcs);
    c->slot = malloc(n * 3 * sizeof *c->slot); /* slots, then stage's scratch */
    c->merged = malloc(n * sizeof *c->merged);
    c->stage = malloc((size_t)(bytes > 0 ? bytes : 1));
    if (!c->pcs || !c->slot || !c->merged || !c->stage) {
        snprintf(detail, MCIO_DETAIL_LEN,
                 "mcio_layers: out of memory for node %d's staging buffer (%" PRId64 " bytes) "
                 "and its %" PRId64 " pieces' lists on rank %d",
                 node, bytes, c->npcs, fh->rank);
        return MCIO_ERR_NOMEM;
    }
    return MCIO_SUCCESS;
}

_Static_assert(sizeof(mcio_extent) == 3 * sizeof(int64_t), "lists gathered as int64 words");

/*
 * Steps 1-3 over the node: each rank's figures (pieces, bytes) to its node aggregator, which
 * takes the staging buffer (take_stage) and tells the node; then the lists, and their staging
 * in file order (mcio_layers_stage). Returns the verdict, the same on the node's ranks; the
 * node aggregator's detail says why.
 */
static int gather_node(mcio_file fh, const struct mcio_layer_state *s, layer_call *c, int write,
                       char detail[MCIO_DETAIL_LEN])
{
    int64_t mine[2] = {c->next, c->bytes}, verdict = MCIO_SUCCESS;
    PMPI_Gather(mine, 2, MPI_INT64_T, s->fig, 2, MPI_INT64_T, 0, s->node);
    if (s->nrank == 0)
        verdict = take_stage(fh, s, c, detail);
    PMPI_Bcast(&verdict, 1, MPI_INT64_T, 0, s->node);
    if (verdict != MCIO_SUCCESS)
        return (int)verdict;
    PMPI_Gatherv(c->ext, (int)(3 * c->next), MPI_INT64_T, c->pcs, s->counts, s->displs,
                 MPI_INT64_T, 0, s->node);
    if (s->nrank == 0)
        mcio_layers_stage(c->pcs, c->npcs, write, c->slot, c->merged, &c->nm,
                          c->slot + c->npcs);
    return MCIO_SUCCESS;
}

/* Step 4: the engine's one-layer call, the node aggregator with the node's merged pieces in
 * the staging buffer, the others with none; st, local: this rank's status so far. */
static int engine_call(mcio_file fh, const struct mcio_layer_state *s, layer_call *c,
                       int write, int st, const char *local, char detail[MCIO_DETAIL_LEN])
{
    int64_t n = s->nrank == 0 && st == MCIO_SUCCESS ? c->nm : 0;
    int64_t *w = malloc((size_t)(3 * n + 1) * sizeof *w);
    char why[MCIO_DETAIL_LEN];
    snprintf(why, sizeof why, "%s", local);
    if (!w && st == MCIO_SUCCESS) {
        st = MCIO_ERR_NOMEM;
        snprintf(why, sizeof why, "mcio_layers: out of memory for %" PRId64 " pieces", n);
    }
    n = w ? n : 0;
    for (int64_t i = 0; i < n; i++)
        w[i] = c->merged[i].off, w[n + i] = c->merged[i].len, w[2 * n + i] = c->merged[i].mem;
    struct mcio_plan_s p;
    st = mcio_engine_plan(fh, n, w, w + n, w + 2 * n, write, 1, st, why, &p, detail);
    free(w);
    if (st == MCIO_SUCCESS) {
        st = mcio_engine_run(&p, write, s->nrank == 0 ? c->stage : NULL, 1, MCIO_SUCCESS, "",
                             detail);
        mcio_engine_plan_clear(&p);
    }
    return st;
}

int mcio_twolayer_call(mcio_file fh, int write, int64_t count, const int64_t *off,
                       const int64_t *len, const int64_t *mem, char *base, int st,
                       const char *local, char detail[MCIO_DETAIL_LEN])
{
    layer_call c = {0};
    char why[MCIO_DETAIL_LEN];
    snprintf(why, sizeof why, "%s", local);
    int sst = layer_setup(fh); /* agreed */
    if (sst != MCIO_SUCCESS) {
        snprintf(detail, MCIO_DETAIL_LEN, "mcio_layers 2: the node's communicator: %s",
                 mcio_strerror(sst));
        return sst;
    }
    const struct mcio_layer_state *s = fh->layer;
    if (st == MCIO_SUCCESS)
        st = mcio_extents_normalize(count, off, len, mem, write, &c.ext, &c.next, why);
    for (int64_t i = 0; st == MCIO_SUCCESS && i < c.next; i++)
        c.bytes += c.ext[i].len;
    if (st != MCIO_SUCCESS)
        c.next = c.bytes = 0; /* nothing handed over: the engine's gather fails every rank */
    fh->layers_last = 2;
    fh->layer_bytes = s->nrank == 0 ? 0 : c.bytes;
    int v = gather_node(fh, s, &c, write, why);
    if (v == MCIO_SUCCESS && write)
        v = hand_over(s, &c, 1, base, why);
    if (st == MCIO_SUCCESS && v != MCIO_SUCCESS && s->nrank > 0)
        snprintf(why, sizeof why, "mcio_layers: the node's hand-over failed (its aggregator "
                 "says why)"); /* the aggregator is the node's lowest rank: its detail wins */
    if (st == MCIO_SUCCESS)
        st = v;
    st = engine_call(fh, s, &c, write, st, why, detail);
    if (!write && st == MCIO_SUCCESS) { /* agreed: every rank is here */
        st = hand_over(s, &c, 0, base, detail);
        st = mcio_engine_agree(fh->comm, st, detail, NULL, 0);
    }
    call_free(&c);
    return st;
}

/* The job's figures for the price of one layer against two: each rank's own, reduced. */
static void job_figures(mcio_file fh, int64_t count, const int64_t *off, const int64_t *len,
                        mcio_layers_inputs *in)
{
    int64_t pieces = 0, bytes = 0, start = INT64_MAX, end = 0;
    for (int64_t i = 0; off && len && i < count; i++) {
        if (len[i] <= 0)
            continue; /* bad ones fail in the engine; here they count for nothing */
        pieces++;
        bytes += len[i];
        start = off[i] < start ? off[i] : start;
        end = off[i] + len[i] > end ? off[i] + len[i] : end;
    }
    int64_t sum[3] = {pieces, bytes, pieces ? end - start : 0};
    int64_t most[4] = {pieces, bytes, pieces ? -start : INT64_MIN, end};
    MPI_Request r[2];
    PMPI_Iallreduce(MPI_IN_PLACE, sum, 3, MPI_INT64_T, MPI_SUM, fh->comm, &r[0]);
    PMPI_Iallreduce(MPI_IN_PLACE, most, 4, MPI_INT64_T, MPI_MAX, fh->comm, &r[1]);
    wait_yielding(2, r);
    in->pieces = sum[0], in->bytes = sum[1], in->span = sum[2];
    in->max_pieces = most[0], in->max_bytes = most[1];
    in->first = most[2] == INT64_MIN ? 0 : -most[2];
    in->end = most[2] == INT64_MIN ? 0 : most[3];
}

int mcio_twolayer_layers(mcio_file fh, int write, int64_t count, const int64_t *off,
                         const int64_t *len)
{
    const mcio_machine *m = &fh->machine;
    int most = 0, mode = fh->hints.layers;
    for (int j = 0; j < m->nnodes; j++)
        most = m->node_first[j + 1] - m->node_first[j] > most ? m->node_first[j + 1] -
                                                                    m->node_first[j]
                                                              : most;
    /* One layer where nothing aggregates (romio_cb_* disable) or nodes hold one rank. */
    if (mode == MCIO_LAYERS_ONE || most < 2 ||
        (write ? fh->hints.cb_write : fh->hints.cb_read) == MCIO_CB_DISABLE)
        return 1;
    if (mode == MCIO_LAYERS_TWO)
        return 2;
    if (m->nnodes < 2)
        return 1; /* auto: one node has no network to spare, and no allreduce is spent */
    mcio_layers_inputs in = {.nprocs = fh->nprocs,
                             .nnodes = m->nnodes,
                             .max_per_node = most,
                             .aggregators = fh->hints.cb_nodes > 0 ? fh->hints.cb_nodes
                                                                   : m->nnodes,
                             .buffer = fh->hints.cb_buffer_size,
                             .node_budget = INT64_MAX};
    for (int j = 0; fh->node_budget && j < m->nnodes; j++)
        in.node_budget = fh->node_budget[j] < in.node_budget ? fh->node_budget[j]
                                                             : in.node_budget;
    job_figures(fh, count, off, len, &in); /* collective */
    return mcio_layers_choose(mode, &in, &fh->cost, &fh->layers_price);
}
