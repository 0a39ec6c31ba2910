/*
 * Two-phase collective I/O (Thakur, Gropp, Lusk 1999; del Rosario, Bordawekar, Choudhary 1993):
 * the engine that every planner feeds.
 *
 *   1. metadata: every rank normalizes its extents and allgathers a summary (first byte, end,
 *      bytes, status); the allgather also agrees on bad arguments before anything moves.
 *   2. planning: a pure planner (src/core/plan/) turns the summaries into file domains, aggregators
 *      and rounds, identically on every rank.
 *   3. list exchange: each rank sends the compact description of its pieces in a domain
 *      (regular sections, mcio_sections.h) only to the aggregators whose domain it has pieces
 *      in, after an allreduce that tells each aggregator how many lists to expect (no
 *      all-to-all, no empty message), and each aggregator builds its schedule.
 *   4. data: an executor moves the bytes between user memory and the aggregators' collective
 *      buffers and the file (mcio_rounds.c: the classic rounds; mcio_pipeline.c: sub-buffers
 *      in flight, file access in an I/O thread, two-sided or one-sided).
 *   5. agreement: an allreduce gives every rank the same status and the slowest rank's times.
 *
 * A call whose operation's last call went to each rank's own access moves its bytes first and
 * gathers after, one collective for 1 and 5 (mcio_engine_bytes_first, at the end of this file).
 *
 * Glossary (mcio_planner.h): file domain, aggregator, collective buffer, round, piece, run.
 */
#ifndef _DEFAULT_SOURCE /* SMPI's compiler wrapper defines it */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mcio_engine.h"
#include "mcio_splitmix64.h"
#include "mcio_sections.h"

/* The collective buffer, page-aligned, and in transparent huge pages where the kernel offers
 * them (madvise mode included). A new buffer (the C library hands large blocks back to the
 * system; see cbuf_take for the one kept between calls) faults on its first touch, per 4 KiB:
 * measured here, the first pread into 16 MiB took 8-16 ms against 2 ms into touched memory,
 * 2.4 ms with huge pages. The pipelined executor holds depth sub-buffers, and its I/O thread
 * took those faults one sub-buffer after another at the start of every call, on the reads'
 * critical path. Only the whole 2 MiB pages of the buffer are advised: no page outside the
 * buffer is touched. */
static char *cbuf_alloc(size_t n)
{
#if defined(MADV_HUGEPAGE) && !defined(MCIO_SIMULATE)
    const size_t huge = (size_t)2 << 20;
    void *b = NULL;
    if (posix_memalign(&b, n < huge ? MCIO_DIO_ALIGN : huge, n) != 0)
        return NULL;
    if (n >= huge)
        madvise(b, n & ~(huge - 1), MADV_HUGEPAGE); /* advice: its failure changes nothing */
    return b;
#else
    return MCIO_CBUF_MALLOC(n);
#endif
}

/*
 * The collective buffer kept on the file handle between calls. A new buffer's first touch
 * faults its pages in, on the call's critical path: measured on this 2-core host (8 ranks,
 * coll_perf reads, 2 aggregators of 8 MiB, 5 calls per process, under load), the file access
 * of a read into a new buffer took 5.7-7.3 ms against 0.5-0.6 ms where the C library handed
 * back memory touched by the previous call (MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_
 * set high), whether the cost model or the hints chose the plan; which of the two a process
 * got depended on what it had allocated before. So a call hands its buffer to the file handle
 * and the next call takes it when it is large enough (else it is freed and a new one made:
 * mcio never holds two). Not where memory is short or capped: a plan of the memory strategy,
 * or a file with mcio_node_memory set, releases it (the application's memory comes first);
 * and the buffer kept counts as available in the next call's memory probe (mcio_engine_plan),
 * so that it does not shrink the next plan.
 * Never in the simulation build, whose buffer is one shared allocation counted on the node.
 */
static char *cbuf_take(mcio_file fh, size_t n, size_t *cap)
{
#ifndef MCIO_SIMULATE
    if (fh->cbuf_kept && fh->cbuf_kept_len >= n) {
        char *b = fh->cbuf_kept;
        *cap = fh->cbuf_kept_len;
        fh->cbuf_kept = NULL;
        fh->cbuf_kept_len = 0;
        return b;
    }
    mcio_engine_cbuf_release(fh);
#else
    (void)fh;
#endif
    *cap = n;
    return cbuf_alloc(n);
}

/* Is memory short, or capped by the user, for p's file? Then nothing is kept between calls. */
static int cbuf_tight(const mcio_plan p)
{
    const mcio_file fh = p->fh;
    return p->fd.memory_conscious || fh->hints.strategy == MCIO_STRATEGY_MEMORY ||
           fh->hints.node_memory > 0;
}

/* A plan's buffer back to the file handle (or freed: memory tight, or a larger one kept). */
static void cbuf_give_back(mcio_plan p, int tight)
{
#ifndef MCIO_SIMULATE
    mcio_file fh = p->fh;
    if (!tight && (!fh->cbuf_kept || fh->cbuf_kept_len < p->cbuf_cap)) {
        mcio_engine_cbuf_release(fh);
        fh->cbuf_kept = p->cbuf_mem;
        fh->cbuf_kept_len = p->cbuf_cap;
        p->cbuf_mem = NULL;
        return;
    }
    if (tight)
        mcio_engine_cbuf_release(fh);
#else
    (void)tight;
#endif
    MCIO_CBUF_FREE(p->cbuf_mem);
    p->cbuf_mem = NULL;
}

/* The room beyond which the memory a rank read at an earlier call may stand for this call's
 * (mcio_machine_memory_read, within MCIO_MEM_REUSE_SECONDS): four times what the cost
 * model's most aggregators per node (4) take at cb_buffer_size, and at least 1 GiB. Below
 * it, where memory may be short, every call reads the files again. */
static int64_t memory_ample(const mcio_file fh)
{
    int64_t a = 16 * fh->hints.cb_buffer_size, gib = (int64_t)1 << 30;
    return a > gib ? a : gib;
}

/* The buffer the file handle keeps is this call's to use: counted in this rank's memory
 * record (mcio_machine_memory_read's fields) as available (MemAvailable, the cgroup's
 * headroom, the rlimits' headroom), not as the cgroup's own. */
static void count_kept_as_free(const mcio_file fh, int64_t *mem)
{
    int64_t k = (int64_t)fh->cbuf_kept_len;
    if (k <= 0)
        return;
    if (mem[0] >= 0)
        mem[0] += k; /* meminfo */
    if (mem[1] >= 0)
        mem[1] += k; /* cgroup headroom */
    if (mem[2] >= k)
        mem[2] -= k; /* cg_used */
    if (mem[6] >= 0)
        mem[6] += k; /* rlimit headroom */
}

void mcio_engine_cbuf_release(mcio_file fh)
{
    if (fh->cbuf_kept)
        MCIO_CBUF_FREE(fh->cbuf_kept);
    fh->cbuf_kept = NULL;
    fh->cbuf_kept_len = 0;
}

void mcio_engine_plan_clear(mcio_plan p)
{
    int tight = cbuf_tight(p); /* asked of the plan before it goes */
    free(p->ext);
    mcio_fdplan_free(&p->fd);
    mcio_groups_free(&p->send);
    mcio_groups_free(&p->recv);
    free(p->runs);
    free(p->blocklens);
    free(p->displs);
    free(p->reqs);
    free(p->types);
    free(p->standin);
    mcio_pipeline_free(p); /* its window over the buffer and its I/O thread first */
    if (p->cbuf_mem)
        cbuf_give_back(p, tight);
    free(p->slots);
    free(p->mem_model);
}

void mcio_engine_plan_free(mcio_plan p)
{
    if (p) {
        mcio_engine_plan_clear(p);
        free(p);
    }
}

/* Receive and drop the n int64s of a list we have no memory for (mcio_sink_irecv), so that
 * the sender's send completes. */
static void drain_message(MPI_Comm comm, int source, int tag, int n)
{
    int64_t sink[MCIO_SINK_BYTES / sizeof(int64_t)];
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    if (mcio_sink_irecv(sink, (int64_t)n * (int64_t)sizeof(int64_t), MPI_INT64_T, sizeof(int64_t),
                        source, tag, comm, &type, &req) == MPI_SUCCESS) {
        PMPI_Wait(&req, MPI_STATUS_IGNORE);
        PMPI_Type_free(&type);
    }
}

/* Buffers of the list exchange, allocated before the ranks agree to start it. */
typedef struct list_bufs {
    int64_t *count, *start; /* [ndomains + 1] my pieces per domain, and where they start */
    mcio_piece *mine;       /* [my pieces] by domain, in file order, touching pieces merged */
    int64_t *code;          /* [2 * my pieces + ndomains] each domain's compact description */
    MPI_Request *sreq;      /* [ndomains] */
    int *senders;           /* [ndomains] ranks that send to each domain */
    int64_t *nlist;         /* [nprocs] pieces each sender has in my domain */
    mcio_piece **lists;     /* [nprocs] */
    int nlists;             /* entries of nlist and lists: nprocs on an aggregator, else 0 */
} list_bufs;

static void list_bufs_free(list_bufs *b)
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
static int list_bufs_alloc(list_bufs *b, int ndomains, int64_t npieces, int nprocs)
{
    b->nlists = nprocs;
    b->count = calloc((size_t)ndomains + 1, sizeof(int64_t));
    b->start = calloc((size_t)ndomains + 1, sizeof(int64_t));
    b->mine = malloc(((size_t)npieces + 1) * sizeof(mcio_piece));
    b->code = malloc(((size_t)npieces * 2 + (size_t)ndomains + 1) * sizeof(int64_t));
    b->sreq = malloc(((size_t)ndomains + 1) * sizeof(MPI_Request));
    b->senders = calloc((size_t)ndomains + 1, sizeof(int));
    b->nlist = calloc((size_t)nprocs + 1, sizeof(int64_t));
    b->lists = calloc((size_t)nprocs + 1, sizeof(mcio_piece *));
    if (!b->count || !b->start || !b->mine || !b->code || !b->sreq || !b->senders || !b->nlist || !b->lists) {
        list_bufs_free(b);
        return MCIO_ERR_NOMEM;
    }
    return MCIO_SUCCESS;
}

/* Receive the description rank s sent (status: its probe) and decode its pieces into
 * lists[s]; on any failure the message is still consumed, so that the sender's send completes. */
static int receive_list(mcio_file fh, struct mcio_plan_s *p, list_bufs *b, const MPI_Status *status,
                        char detail[MCIO_DETAIL_LEN])
{
    int s = status->MPI_SOURCE, n = 0;
    PMPI_Get_count(status, MPI_INT64_T, &n);
    int64_t *raw = malloc(((size_t)n + 1) * sizeof(int64_t));
    if (!raw) {
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory receiving the list of rank %d", s);
        drain_message(fh->comm, s, MCIO_TAG_LIST, n);
        return MCIO_ERR_NOMEM;
    }
    PMPI_Recv(raw, n, MPI_INT64_T, s, MCIO_TAG_LIST, fh->comm, MPI_STATUS_IGNORE);
    p->meta_recv += n * (int64_t)sizeof(int64_t);
    int st = MCIO_SUCCESS;
    int64_t np = mcio_sections_count(raw, n);
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
        b->nlist[s] = mcio_sections_decode(raw, n, b->lists[s]);
    }
    free(raw);
    return st;
}

/*
 * Phase 3: send my pieces in each aggregator's domain, as a compact description (regular
 * sections and irregular pieces, mcio_sections.h), to that aggregator only when I have some
 * there; receive the descriptions of my domain. Communicates: an allreduce of how many ranks
 * send to each domain (an int per domain), then point to point. Before, every rank whose
 * first-to-last byte range overlapped a domain sent to its aggregator, so that the aggregator
 * knew whom to expect; on IOR's interleaved pattern that is every rank to every aggregator
 * (74,000 messages at 1,080 ranks, most of them empty). A sparse exchange without the count
 * (Hoefler, Siebert, Lumsdaine 2010: probe for any sender until a nonblocking barrier
 * completes) needs polling, which SMPI charges 100 us per probe: it made the metadata phase
 * of a 120-rank simulation 2-5 times longer.
 */
static int exchange_lists(mcio_file fh, struct mcio_plan_s *p, list_bufs *b,
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
        int64_t *code = &b->code[2 * start[d] + d]; /* room for 1 + 2 * count[d] words */
        int64_t words = mcio_sections_encode(&mine[start[d]], count[d], code);
        PMPI_Isend(code, (int)words, MPI_INT64_T, fd->agg_rank[d], MCIO_TAG_LIST, fh->comm,
                   &b->sreq[nsend++]);
        p->meta_sent += words * (int64_t)sizeof(int64_t);
        p->meta_list += words * (int64_t)sizeof(int64_t);
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
    PMPI_Waitall(nsend, b->sreq, MPI_STATUSES_IGNORE);
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

/* The stripe that an operation's domains and rounds align on (mcio_fs_align_stripe): the
 * striping_unit hint, else a write's the file system's (GlusterFS's shards). */
static int64_t raw_stripe(mcio_file fh, int write)
{
    return mcio_fs_align_stripe(&fh->fs, fh->hints.striping_unit, write);
}

/* The planning parameters: the hints', aligned as a pipeline of depth needs
 * (mcio_pipeline_unit). */
static mcio_planner_params plan_params(mcio_file fh, int write, int depth)
{
    mcio_planner_params pp = mcio_hints_planner_params(&fh->hints, write);
    pp.stripe = mcio_pipeline_unit(depth, raw_stripe(fh, write), fh->fs_block);
    return pp;
}

/* Cut the collective buffers into sub-buffers (a depth > 1) of the size
 * mcio_pipeline_subbuffer gives. */
static int subdivide(mcio_file fh, struct mcio_plan_s *p, int write)
{
    int64_t stripe = raw_stripe(fh, write);
    int64_t unit = mcio_pipeline_unit(p->depth, stripe, fh->fs_block);
    int64_t sub = mcio_pipeline_subbuffer(fh->hints.subbuffer_size, stripe, unit);
    p->slots = malloc(((size_t)p->fd.ndomains + 1) * sizeof(int));
    if (!p->slots)
        return MCIO_ERR_NOMEM;
    return mcio_fdplan_subdivide(&p->fd, sub, p->depth, unit, p->slots);
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
        p->cbuf_mem = cbuf_take(p->fh, (size_t)p->cbuf_len + 1 + shift, &p->cbuf_cap);
        p->cbuf = p->cbuf_mem ? p->cbuf_mem + shift : NULL;
    }
    return (!p->runs || !p->blocklens || !p->displs || !p->reqs || !p->types || !p->standin ||
            (p->my_domain >= 0 && !p->cbuf))
               ? MCIO_ERR_NOMEM
               : MCIO_SUCCESS;
}

/* A node's memory to 1/16: its top five significant bits (-1: no limit). */
static int64_t memory_bucket(int64_t v)
{
    if (v == INT64_MAX || v < 0)
        return -1;
    int top = 63;
    while (top > 0 && !(v >> top & 1))
        top--;
    return top > 4 ? v & ~((INT64_C(1) << (top - 4)) - 1) : v;
}

/* A word into a key (choice_key, memory_key): splitmix64's finalizer over h ^ w, a word at a
 * time, as the keys read every rank's record every call. */
static uint64_t key_word(uint64_t h, int64_t w)
{
    uint64_t s = h ^ (uint64_t)w;
    return splitmix64(&s);
}

/* The key of what the cost model's choice depends on and a call may change: the summaries,
 * the extents and own access's calls per rank and each node's memory to 1/16 (it moves by
 * pages from call to call; mcio_cost_replan checks a choice taken again against the exact
 * figures). The rest of its inputs (hints, cost table, machine) change only with
 * mcio_file_set_hints, which forgets the choices. Every rank computes it from the same
 * allgathered inputs: the same key everywhere. */
static uint64_t choice_key(const mcio_file fh)
{
    /* Offsets from the lowest start: a program's calls at moving offsets in one shape (IOR's
     * transfers, a time step's records) keep their choice and take the bytes-first path
     * (deciding at each call cost 15 us of a 4 KiB call's 19 at one rank, and most of a
     * 20,000-byte call's 3 ms at 8 ranks on 2 cores, issue 51). The choice taken again is
     * planned for the call's exact offsets, its alignment included (chosen_again). */
    int64_t base = INT64_MAX;
    for (int r = 0; r < fh->nprocs; r++)
        if (fh->summaries[r].bytes > 0 && fh->summaries[r].start < base)
            base = fh->summaries[r].start;
    uint64_t h = 0;
    const int64_t *extents = fh->machine.rank_extents;
    for (int r = 0; r < fh->nprocs; r++) {
        const mcio_rank_record *s = &fh->summaries[r];
        int64_t shift = s->bytes > 0 ? base : 0;
        h = key_word(key_word(key_word(h, s->start - shift), s->end - shift), s->bytes);
        h = key_word(key_word(h, extents ? extents[r] : -1), s->calls);
    }
    for (int j = 0; fh->node_budget && j < fh->machine.nnodes; j++)
        h = key_word(h, memory_bucket(fh->node_budget[j]));
    return h;
}

/* An earlier call's choice for inputs with this key, planned again for this call (p->chose
 * 2); 0 when there is none, or it no longer fits the nodes' memory (nothing is kept then). */
static int chosen_again(mcio_file fh, struct mcio_plan_s *p, const mcio_cost_inputs *in,
                        uint64_t key)
{
    int w = in->write != 0;
    if (!fh->chosen[w].valid || fh->chosen[w].key != key)
        return 0;
    p->choice = fh->chosen[w].choice;
    int st = mcio_cost_replan(in, &p->choice.best, &p->fd, &p->slots);
    if (st == MCIO_SUCCESS && p->choice.best.fits)
        return 1;
    mcio_fdplan_free(&p->fd);
    free(p->slots);
    p->slots = NULL;
    return 0;
}

/* Strategy auto: the cost model's choice (mcio_costmodel.h) for this call, pure and the same on
 * every rank; then the plan it names. A call whose inputs are those of the operation's last
 * call takes its choice again without deciding (deciding plans every candidate: 0.1-1 ms at 8
 * ranks, seconds at 100,000). Sets p->own_access and p->depth. */
static int plan_chosen(mcio_file fh, struct mcio_plan_s *p, const mcio_topology *topo,
                       const mcio_summary *sum, int write)
{
    int64_t stripe = raw_stripe(fh, write), unit = mcio_pipeline_unit(2, stripe, fh->fs_block);
    mcio_cost_inputs in = {.topo = topo,
                           .sum = sum,
                           .write = write,
                           .params = plan_params(fh, write, 1),
                           .depth = fh->hints.pipeline_depth,
                           .subbuffer = mcio_pipeline_subbuffer(fh->hints.subbuffer_size, stripe,
                                                                unit),
                           .unit = unit,
                           .fixed = fh->cost_fixed[write != 0],
                           .sync = write && mcio_file_write_sync(fh),
                           .cost = &fh->cost};
    uint64_t key = choice_key(fh);
    p->chose = chosen_again(fh, p, &in, key) ? 2 : 1;
    if (p->chose == 1) {
        /* The chosen plan is the one its prediction walked, already subdivided for a
         * pipeline. */
        int st = mcio_cost_decide_plan(&in, &p->choice, &p->fd, &p->slots);
        fh->chosen[write != 0].valid = st == MCIO_SUCCESS;
        if (st != MCIO_SUCCESS)
            return st;
        fh->chosen[write != 0].key = key;
        fh->chosen[write != 0].choice = p->choice;
    }
    const mcio_cost_config *c = &p->choice.best;
    if (c->independent) {
        p->own_access = 1;
        return mcio_planner_own(fh->nprocs, sum, &p->fd);
    }
    p->depth = c->depth;
    return MCIO_SUCCESS;
}

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

/* Phase 2, pure: the summaries into a plan (or, with romio_cb_* disable, the own-access
 * plan), the same on every rank. With strategy auto, the cost model chooses how. */
static int plan_domains(mcio_file fh, struct mcio_plan_s *p, int write)
{
    int choose = fh->hints.strategy == MCIO_STRATEGY_AUTO;
    mcio_summary *sum = mcio_engine_summaries(fh);
    int64_t *calls = choose ? mcio_engine_rank_calls(fh) : NULL;
    if (!sum || (choose && !calls)) {
        free(sum);
        free(calls);
        return MCIO_ERR_NOMEM;
    }
    mcio_topology topo = {.nprocs = fh->nprocs,
                          .nnodes = fh->machine.nnodes,
                          .node_of_rank = fh->machine.node_of_rank,
                          .socket_of_rank = fh->machine.socket_of_rank,
                          .sockets_per_node = fh->machine.sockets_per_node,
                          .net = &fh->machine.net,
                          .node_mem = fh->node_budget,
                          .rank_extents = fh->machine.rank_extents,
                          .rank_calls = calls};
    p->depth = fh->hints.pipeline_depth;
    p->own_access = (write ? fh->hints.cb_write : fh->hints.cb_read) == MCIO_CB_DISABLE;
    int st;
    if (choose)
        st = plan_chosen(fh, p, &topo, sum, write);
    else
        st = p->own_access ? mcio_planner_own(fh->nprocs, sum, &p->fd)
                           : mcio_planner_make(mcio_planner_at(fh->hints.strategy), &topo, sum,
                                            plan_params(fh, write, p->depth), &p->fd);
    for (int r = 0; r < fh->nprocs; r++)
        p->total_bytes += sum[r].bytes;
    free(sum);
    free(calls);
    return st;
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
static int copy_array(void **dst, const void *src, size_t bytes)
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
        p->chose = e->chose;
        p->choice = e->choice;
        p->total_bytes = e->total_bytes;
        fh->chosen[w] = e->chosen;
        if (e->plan_status != MCIO_SUCCESS)
            return e->plan_status;
        if (mcio_fdplan_copy(&e->fd, &p->fd) != MCIO_SUCCESS ||
            copy_array((void **)&p->slots, e->slots, (size_t)e->fd.ndomains * sizeof(int)) !=
                MCIO_SUCCESS)
            return MCIO_ERR_NOMEM;
        return MCIO_SUCCESS;
    }
    int st = plan_domains(fh, p, write);
    if (!e)
        return st;
    if (st == MCIO_SUCCESS &&
        (mcio_fdplan_copy(&p->fd, &e->fd) != MCIO_SUCCESS ||
         copy_array((void **)&e->slots, p->slots, (size_t)p->fd.ndomains * sizeof(int)) !=
             MCIO_SUCCESS)) {
        mcio_fdplan_free(&e->fd); /* not kept: the next rank plans for itself */
        return st;
    }
    e->planned = 1;
    e->plan_status = st;
    e->own_access = p->own_access;
    e->depth = p->depth;
    e->chose = p->chose;
    e->choice = p->choice;
    e->total_bytes = p->total_bytes;
    e->chosen = fh->chosen[w];
    return st;
#else
    return plan_domains(fh, p, write);
#endif
}

/* mcio_stats_model, once per call in the simulation build, as plan_domains_once. */
static int stats_model_once(mcio_file fh, struct mcio_plan_s *p, int write)
{
#ifdef MCIO_SIMULATE
    mcio_shared_plan *e = mcio_engine_shared_plan(fh, write);
    size_t bytes = ((size_t)fh->machine.nnodes + 1) * 2 * sizeof(int64_t);
    if (e && e->modelled) {
        if (e->model_status != MCIO_SUCCESS)
            return e->model_status;
        return copy_array((void **)&p->mem_model, e->mem_model, bytes);
    }
    int st = mcio_stats_model(fh, p);
    if (e && (st != MCIO_SUCCESS || copy_array((void **)&e->mem_model, p->mem_model, bytes) ==
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

/* Still phase 2, local: sub-buffers, this rank's pieces cut by domain and round, the list
 * buffers, and which domain this rank aggregates. */
static int schedule_mine(mcio_file fh, struct mcio_plan_s *p, int write, list_bufs *lb)
{
    int st = MCIO_SUCCESS;
    if (p->depth > 1 && !p->slots) /* the cost model's plan comes subdivided */
        st = subdivide(fh, p, write);
    if (st == MCIO_SUCCESS)
        st = mcio_schedule_rank(&p->fd, p->ext, p->next, &p->send);
    for (int d = 0; st == MCIO_SUCCESS && d < p->fd.ndomains; d++)
        if (p->fd.agg_rank[d] == fh->rank)
            p->my_domain = d;
    if (st == MCIO_SUCCESS)
        st = list_bufs_alloc(lb, p->fd.ndomains, p->send.npieces,
                             p->my_domain >= 0 ? fh->nprocs : 0);
    return st;
}

/* Phase 3: offset-length lists, point to point; then the buffers the rounds will need and the
 * plan's own memory. Not agreed here. */
static int exchange_and_allocate(mcio_file fh, struct mcio_plan_s *p, list_bufs *lb, int aggregate,
                                 char detail[MCIO_DETAIL_LEN])
{
    int st = MCIO_SUCCESS;
    if (aggregate)
        st = exchange_lists(fh, p, lb, detail);
    list_bufs_free(lb);
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

static int fail_planning; /* mcio_engine_fail_planning */

void mcio_engine_fail_planning(int calls)
{
    fail_planning = calls;
}

/* The summaries' bytes this rank sent and received (MCIO_STATS): the flat allgather delivers
 * its record to every other rank and theirs to it; the node-level step as it counts. */
static void summaries_counted(mcio_file fh, mcio_plan p)
{
    p->meta_sent = p->meta_recv = (int64_t)(fh->nprocs - 1) * (int64_t)sizeof(mcio_rank_record);
    if (fh->node_gather.on) {
        p->meta_sent = mcio_node_gather_sent(&fh->node_gather, &fh->machine);
        p->meta_recv = mcio_node_gather_received(&fh->node_gather, &fh->machine);
    }
}

/* The lowest rank whose gathered record says it failed, or -1. */
static int first_failed(const mcio_file fh)
{
    for (int r = 0; r < fh->nprocs; r++)
        if (fh->summaries[r].status != MCIO_SUCCESS)
            return r;
    return -1;
}

/* Phase 1's collective: this rank's record (p's summary, its status st, and the memory its
 * node has now: the application may have taken some since the open; where it had ample room,
 * a reading of the last half second stands, memory_ample) into every rank's fh->summaries.
 * Returns the agreed status, the lowest failing rank's with its detail. where: this rank's
 * memory source under MCIO_STATS, or NULL. */
static int gather_records(mcio_file fh, const struct mcio_plan_s *p, int st, char *where,
                          char detail[MCIO_DETAIL_LEN])
{
    mcio_summary mine = mcio_extents_summary(p->ext, p->next);
    mcio_rank_record rec = {mine.start, mine.end, mine.bytes, st, {0},
                            mcio_own_calls(p->ext, p->next)};
    mcio_machine_memory_read(&fh->machine, p->next, memory_ample(fh), rec.mem, where);
    count_kept_as_free(fh, rec.mem);
    mcio_file_gather_records(fh, &rec);
    int failed = first_failed(fh);
    return failed >= 0 ? mcio_engine_agree_from(fh->comm, failed, st, detail) : MCIO_SUCCESS;
}

/* The key of every rank's memory words in the gathered records. */
static uint64_t memory_key(const mcio_file fh)
{
    uint64_t h = 0;
    for (int r = 0; r < fh->nprocs; r++)
        for (int k = 0; k < MCIO_PROBE_FIELDS; k++)
            h = key_word(h, fh->summaries[r].mem[k]);
    return h;
}

/* The nodes' memory from the gathered records; in simulation once per call for all the
 * simulated ranks (mcio_engine_shared_plan). A call whose records hold the memory words of the
 * last call's (a reading stands for half a second where memory is ample:
 * mcio_machine_memory_read) has the nodes' memory that call combined: not combined again,
 * unless MCIO_STATS wants where each node's figure came from. */
static void combine_memory(mcio_file fh, const char *where, int write)
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

int mcio_engine_plan(mcio_file fh, int64_t count, const int64_t *off, const int64_t *len,
                     const int64_t *mem, int write, int run_next, int local_status,
                     const char *local_detail, mcio_plan p, char detail[MCIO_DETAIL_LEN])
{
    double t0 = PMPI_Wtime();
    list_bufs lb = {0};
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
    st = gather_records(fh, p, st, fh->stats_on ? where : NULL, detail);
    if (st != MCIO_SUCCESS)
        goto fail;
    combine_memory(fh, where, write);
    summaries_counted(fh, p);
    double t1 = PMPI_Wtime();

    /* 2. Planning: pure, the same on every rank; then this rank's schedule. An own-access plan
     * has no domains to schedule, no lists and no buffers. */
    st = fail_planning > 0 ? (fail_planning--, MCIO_ERR_NOMEM) : plan_domains_once(fh, p, write);
    p->cb_rounds = p->fd.max_rounds;
    int aggregate = !p->own_access;
    if (aggregate && st == MCIO_SUCCESS)
        st = schedule_mine(fh, p, write, &lb);
    if (st == MCIO_SUCCESS)
        st = stats_model_once(fh, p, write); /* the memory model of the plan as it will run */
    if (st == MCIO_ERR_ARG)
        snprintf(detail, MCIO_DETAIL_LEN,
                 "a file domain would need more than 2^31 rounds of cb_buffer_size=%" PRId64
                 " bytes: raise cb_buffer_size",
                 fh->hints.cb_buffer_size);
    else if (st != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "planning failed: %s", mcio_strerror(st));
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
    st = exchange_and_allocate(fh, p, &lb, aggregate, detail);
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
    list_bufs_free(&lb);
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
        return fh->chosen[w].valid && fh->chosen[w].choice.best.independent;
    return (w ? fh->hints.cb_write : fh->hints.cb_read) == MCIO_CB_DISABLE;
#endif
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
 * choice was made from (the summaries, the extents, the nodes' memory to 1/16: choice_key);
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
    st = gather_records(fh, &p, st, NULL, detail);
    if (st == MCIO_SUCCESS) {
        combine_memory(fh, "", w);
        fh->bytes_first[w] =
            fh->hints.strategy != MCIO_STRATEGY_AUTO || choice_key(fh) == fh->chosen[w].key;
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
    int ok = first_failed(fh) < 0; /* a failed call's records plan nothing */
    mcio_summary *sum = ok ? mcio_engine_summaries(fh) : NULL;
    if (sum && mcio_planner_own(fh->nprocs, sum, &p.fd) == MCIO_SUCCESS)
        (void)stats_model_once(fh, &p, w); /* local: a failure leaves the figures unknown */
    for (int r = 0; sum && r < fh->nprocs; r++)
        p.total_bytes += sum[r].bytes;
    free(sum);
    p.cb_rounds = p.fd.max_rounds;
    if (fh->hints.strategy == MCIO_STRATEGY_AUTO) {
        p.chose = 2; /* the operation's last choice, taken again */
        p.choice = fh->chosen[w].choice;
    }
    summaries_counted(fh, &p);
    mcio_stats_record(fh, &p, w, &fh->deferred_times); /* clears stats_deferred */
    mcio_engine_plan_clear(&p);
}
