/*
 * Phase 3 of two-phase I/O: each rank sends the compact description of its pieces in a domain
 * (regular runs and varints, mcio_listcode.h) only to the aggregators whose domain it has
 * pieces in, after an allreduce that tells each aggregator how many lists to expect (no
 * all-to-all, no empty message); each aggregator builds its schedule; then the buffers the
 * rounds need.
 *
 * Glossary (mcio_planner.h): file domain, aggregator, piece, round, run.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_listcode.h"
#include "mcio_twophase.h"

/* Receive and drop the n bytes of a list we have no memory for (mcio_sink_irecv), so that
 * the sender's send completes. */
static void drain_message(MPI_Comm comm, int source, int tag, int n)
{
    char sink[MCIO_SINK_BYTES];
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    if (mcio_sink_irecv(sink, n, MPI_BYTE, 1, source, tag, comm, &type, &req) == MPI_SUCCESS) {
        PMPI_Wait(&req, MPI_STATUS_IGNORE);
        PMPI_Type_free(&type);
    }
}

void mcio_list_bufs_free(mcio_list_bufs *b)
{
    if (b->lists)
        for (int s = 0; s < b->nlists; s++)
            free(b->lists[s]);
    free(b->lists);
    free(b->nlist);
    free(b->sreq);
    free(b->senders);
    free(b->code);
    free(b->mine);
    free(b->start);
    free(b->count);
    memset(b, 0, sizeof *b);
}

/* nprocs: the senders' table, on an aggregator only (0 elsewhere: at 16,384 ranks, 16 bytes
 * per rank on every rank would be 4 GiB of a simulation's memory). */
int mcio_list_bufs_alloc(mcio_list_bufs *b, int ndomains, int64_t npieces, int nprocs)
{
    b->nlists = nprocs;
    b->count = calloc((size_t)ndomains + 1, sizeof(int64_t));
    b->start = calloc((size_t)ndomains + 1, sizeof(int64_t));
    b->mine = malloc(((size_t)npieces + 1) * sizeof(mcio_piece));
    b->code = malloc((size_t)mcio_listcode_max_bytes(npieces) + (size_t)ndomains + 1);
    b->sreq = malloc(((size_t)ndomains + 1) * sizeof(MPI_Request));
    b->senders = calloc((size_t)ndomains + 1, sizeof(int));
    b->nlist = calloc((size_t)nprocs + 1, sizeof(int64_t));
    b->lists = calloc((size_t)nprocs + 1, sizeof(mcio_piece *));
    if (!b->count || !b->start || !b->mine || !b->code || !b->sreq || !b->senders || !b->nlist || !b->lists) {
        mcio_list_bufs_free(b);
        return MCIO_ERR_NOMEM;
    }
    return MCIO_SUCCESS;
}

/* Receive the description rank s sent (status: its probe) and decode its pieces into
 * lists[s]; on any failure the message is still consumed, so that the sender's send completes. */
static int receive_list(mcio_file fh, struct mcio_plan_s *p, mcio_list_bufs *b, const MPI_Status *status,
                        char detail[MCIO_DETAIL_LEN])
{
    int s = status->MPI_SOURCE, n = 0;
    PMPI_Get_count(status, MPI_BYTE, &n);
    uint8_t *raw = malloc((size_t)n + 1);
    if (!raw) {
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory receiving the list of rank %d", s);
        drain_message(fh->comm, s, MCIO_TAG_LIST, n);
        return MCIO_ERR_NOMEM;
    }
    PMPI_Recv(raw, n, MPI_BYTE, s, MCIO_TAG_LIST, fh->comm, MPI_STATUS_IGNORE);
    p->meta_recv += n;
    int st = MCIO_SUCCESS;
    int64_t np = mcio_listcode_count(raw, n);
    if (p->my_domain < 0 || b->lists[s]) {
        st = MCIO_ERR_INTERNAL;
        snprintf(detail, MCIO_DETAIL_LEN, "unexpected list from rank %d", s);
    } else if (np < 0) {
        st = MCIO_ERR_INTERNAL;
        snprintf(detail, MCIO_DETAIL_LEN, "malformed list from rank %d", s);
    } else if (!(b->lists[s] = malloc(((size_t)np + 1) * sizeof(mcio_piece)))) {
        st = MCIO_ERR_NOMEM;
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory receiving the list of rank %d", s);
    } else {
        b->nlist[s] = mcio_listcode_decode(raw, n, b->lists[s]);
    }
    free(raw);
    return st;
}

/*
 * Phase 3: send my pieces in each aggregator's domain, as a compact description (regular
 * runs, and varints of what is irregular: mcio_listcode.h), to that aggregator only when I
 * have some there; receive the descriptions of my domain. Communicates: an allreduce of how
 * many ranks send to each domain (an int per domain), then point to point. Before, every rank whose
 * first-to-last byte range overlapped a domain sent to its aggregator, so that the aggregator
 * knew whom to expect; on IOR's interleaved pattern that is every rank to every aggregator
 * (74,000 messages at 1,080 ranks, most of them empty). A sparse exchange without the count
 * (Hoefler, Siebert, Lumsdaine 2010: probe for any sender until a nonblocking barrier
 * completes) needs polling, which SMPI charges 100 us per probe: it made the metadata phase
 * of a 120-rank simulation 2-5 times longer.
 */
static int exchange_lists(mcio_file fh, struct mcio_plan_s *p, mcio_list_bufs *b,
                          char detail[MCIO_DETAIL_LEN])
{
    const mcio_fdplan *fd = &p->fd;
    int st = MCIO_SUCCESS, nd = fd->ndomains, nsend = 0;
    int64_t *count = b->count, *start = b->start;
    mcio_piece *mine = b->mine;
    /* My pieces, regrouped by domain in file order (the schedule groups them by round first).
     * Pieces that meet in the file go as one, across rounds too: the aggregator needs only
     * where the bytes land, not where they lie in my memory (FLASH-IO's 128-byte rows,
     * scattered in memory by guard cells, become one range per block), and it cuts them at its
     * rounds' boundaries itself. */
    for (int64_t g = 0; g < p->send.ngroups; g++)
        count[p->send.peer[g]] += p->send.first[g + 1] - p->send.first[g];
    for (int d = 0; d < nd; d++) {
        start[d + 1] = start[d] + count[d];
        b->senders[d] = count[d] > 0;
    }
    memset(count, 0, ((size_t)nd + 1) * sizeof(int64_t));
    for (int64_t g = 0; g < p->send.ngroups; g++) {
        int d = p->send.peer[g];
        for (int64_t i = p->send.first[g]; i < p->send.first[g + 1]; i++) {
            const mcio_piece *pc = &p->send.pieces[i];
            mcio_piece *last = count[d] ? &mine[start[d] + count[d] - 1] : NULL;
            if (last && last->off + last->len == pc->off)
                last->len += pc->len;
            else
                mine[start[d] + count[d]++] = (mcio_piece){pc->off, pc->len, 0};
        }
    }
    PMPI_Allreduce(MPI_IN_PLACE, b->senders, nd, MPI_INT, MPI_SUM, fh->comm);
    p->meta_sent += nd * (int64_t)sizeof(int);
    p->meta_recv += nd * (int64_t)sizeof(int);
    for (int d = 0; d < nd; d++) {
        if (count[d] == 0)
            continue;
        uint8_t *code = &b->code[16 * start[d] + d]; /* mcio_listcode_max_bytes(count[d]) */
        int64_t bytes = mcio_listcode_encode(&mine[start[d]], count[d], code);
        if (bytes > INT_MAX) { /* one message's count is an int: a code the aggregator refuses */
            snprintf(detail, MCIO_DETAIL_LEN,
                     "the list of %" PRId64 " pieces for aggregator %d takes %" PRId64
                     " bytes, more than one message holds",
                     count[d], fd->agg_rank[d], bytes);
            st = MCIO_ERR_ARG;
            code[0] = 0xff, bytes = 1;
        }
        PMPI_Isend(code, (int)bytes, MPI_BYTE, fd->agg_rank[d], MCIO_TAG_LIST, fh->comm,
                   &b->sreq[nsend++]);
        p->meta_sent += bytes;
        p->meta_list += bytes;
        p->meta_msgs++;
    }
    for (int k = 0; p->my_domain >= 0 && k < b->senders[p->my_domain]; k++) {
        MPI_Status status;
        char why[MCIO_DETAIL_LEN] = "";
        PMPI_Probe(MPI_ANY_SOURCE, MCIO_TAG_LIST, fh->comm, &status);
        int rs = receive_list(fh, p, b, &status, why);
        if (rs != MCIO_SUCCESS && st == MCIO_SUCCESS) {
            st = rs; /* the caller agrees; keep receiving, so the others' sends complete */
            snprintf(detail, MCIO_DETAIL_LEN, "%s", why);
        }
    }
    mcio_engine_wait(b->sreq, nsend, p->my_domain < 0 && mcio_engine_node_crowded(fh));
    if (p->my_domain < 0)
        return st;
    if (st == MCIO_SUCCESS)
        st = mcio_schedule_aggregator(fd, p->my_domain, fh->nprocs, b->nlist,
                                      (const mcio_piece *const *)b->lists, &p->recv);
    if (st == MCIO_ERR_NOMEM && !detail[0])
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory building the aggregator schedule");
    else if (st == MCIO_ERR_INTERNAL && !detail[0])
        snprintf(detail, MCIO_DETAIL_LEN, "a list's pieces lie outside the aggregator's domain");
    return st;
}

/* Scratch for one round: runs, datatype arrays, requests. Sized once, so rounds never allocate. */
static int alloc_round_scratch(struct mcio_plan_s *p)
{
    int64_t maxg = 1, per_round = 1;
    const mcio_groups *gs[2] = {&p->send, &p->recv};
    for (int w = 0; w < 2; w++)
        for (int64_t g = 0; g < gs[w]->ngroups; g++) {
            int64_t n = gs[w]->first[g + 1] - gs[w]->first[g];
            maxg = n > maxg ? n : maxg;
        }
    /* Requests in one round: one message per group of that round, both sides. */
    for (int64_t k = 0, gs0 = 0, gr0 = 0; k < p->fd.max_rounds; k++) {
        int64_t n = 0;
        for (; gs0 < p->send.ngroups && p->send.round[gs0] == k; gs0++)
            n++;
        for (; gr0 < p->recv.ngroups && p->recv.round[gr0] == k; gr0++)
            n++;
        per_round = n > per_round ? n : per_round;
    }
    if (p->my_domain < 0 && p->send.ngroups > per_round)
        per_round = p->send.ngroups; /* all its rounds at once (mcio_rounds.c) */
    p->runs = malloc(((size_t)p->recv.npieces + 1) * sizeof(mcio_piece));
    p->blocklens = malloc((size_t)maxg * sizeof(int));
    p->displs = malloc((size_t)maxg * sizeof(MPI_Aint));
    p->reqs = malloc((size_t)per_round * sizeof(MPI_Request));
    p->types = malloc((size_t)per_round * sizeof(MPI_Datatype));
    p->standin = calloc((size_t)per_round, sizeof(void *));
    if (p->my_domain >= 0) {
        /* Exactly what the plan gives this domain (the memory strategy's budgets rely on it),
         * times the sub-buffers a pipeline keeps in flight. */
        p->cbuf_len = mcio_fdplan_buffer(&p->fd, p->my_domain) *
                      (p->slots ? p->slots[p->my_domain] : 1);
        /* With direct I/O the buffer starts where the domain's first window starts within a
         * page, so that the page-aligned middle of a run is page-aligned in memory too (when
         * windows and sub-buffers are page multiples, as they are by default) and can go to
         * the file directly (mcio_io_posix.c). */
        size_t shift = p->fh->hints.direct_write || p->fh->hints.direct_read
                           ? (size_t)(p->fd.win_start[p->my_domain] % MCIO_DIO_ALIGN)
                           : 0;
        p->cbuf_mem = mcio_cbuf_take(p->fh, (size_t)p->cbuf_len + 1 + shift, &p->cbuf_cap);
        p->cbuf = p->cbuf_mem ? p->cbuf_mem + shift : NULL;
    }
    return (!p->runs || !p->blocklens || !p->displs || !p->reqs || !p->types || !p->standin ||
            (p->my_domain >= 0 && !p->cbuf))
               ? MCIO_ERR_NOMEM
               : MCIO_SUCCESS;
}

/* Phase 3: offset-length lists, point to point; then the buffers the rounds will need and the
 * plan's own memory. Not agreed here. */
int mcio_engine_exchange_and_allocate(mcio_file fh, struct mcio_plan_s *p, mcio_list_bufs *lb, int aggregate,
                                 char detail[MCIO_DETAIL_LEN])
{
    int st = MCIO_SUCCESS;
    if (aggregate)
        st = exchange_lists(fh, p, lb, detail);
    mcio_list_bufs_free(lb);
    if (aggregate && st == MCIO_SUCCESS && alloc_round_scratch(p) != MCIO_SUCCESS) {
        st = MCIO_ERR_NOMEM;
        snprintf(detail, MCIO_DETAIL_LEN, "cannot allocate a collective buffer of %" PRId64 " bytes",
                 p->cbuf_len);
    }
    if (aggregate && st == MCIO_SUCCESS && mcio_executor_of(p) == &mcio_exec_pipeline &&
        mcio_pipeline_prepare(p) != MCIO_SUCCESS) {
        st = MCIO_ERR_NOMEM;
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory preparing the pipeline");
    }
    return st;
}
