/*
 * The classic executor: rounds one after another (Thakur et al. 1999). In round k every
 * aggregator gathers (write) or scatters (read) the k-th window of its file domain, and does
 * its file access between exchanges, so the network and the file system take turns.
 * Data moves straight between user memory and the collective buffer (one message per round
 * and peer, no packing); only the runs someone asked for are written, or the whole span of the
 * round (read-modify-write) when its holes are small and the file is readable. A round whose
 * only data is the aggregator's own goes straight between its memory and the file.
 * Glossary in src/core/plan/mcio_planner.h.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcio_engine.h"

int mcio_engine_node_crowded(mcio_file fh)
{
    if (!fh->crowded) {
        const mcio_machine *m = &fh->machine;
        int here = 0, me = m->node_of_rank ? m->node_of_rank[fh->rank] : 0;
        for (int r = 0; r < fh->nprocs; r++)
            here += m->is_virtual || !m->node_of_rank || m->node_of_rank[r] == me;
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        fh->crowded = cores > 0 && here > cores ? 2 : 1;
    }
    return fh->crowded == 2;
}

/* How long a crowded node's waiting rank polls before it naps, and the nap: a short wait
 * (small messages, a collective whose ranks are all there) never naps. */
#define MCIO_WAIT_POLL_SECONDS 0.0005
#define MCIO_WAIT_NAP_NS 50000

/* MPI libraries poll while they wait (Open MPI's and MPICH's Waitall spin unless told
 * otherwise), and a spinning rank takes the core another needs: an aggregator's I/O thread
 * (with two ranks on two cores the pipeline's reads overlapped nothing, the main thread
 * waiting for the whole file access), or, when ranks outnumber cores, the rank that holds the
 * data. So a wait yields the processor between polls (Open MPI's mpi_yield_when_idle does the
 * same for all of a program's waits). Not a sleep at first: large messages move only while
 * someone polls. But where the node's ranks outnumber its cores a yield gives the core to any
 * runnable rank, most of them polling too, and an aggregator, which copies every byte and
 * accesses the file, gets a share of a core like any of them. There a rank with nothing to
 * aggregate (nap) naps between polls once it has waited 0.5 ms: its messages still progress
 * every 50 us, and the cores go to the ranks with work (8 ranks on 2 cores, one aggregator
 * gathering 4 rounds of 2 MiB from 7 ranks and writing them: 2-3x faster than yielding, on a
 * host shared with other jobs). */
void mcio_engine_wait(MPI_Request *reqs, int n, int nap)
{
#ifdef MCIO_SIMULATE
    /* Simulated ranks share no processor, and SMPI charges simulated time per MPI_Test. */
    (void)nap;
    PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
#else
    int done = 0;
    const struct timespec nap_time = {0, MCIO_WAIT_NAP_NS};
    double t0 = nap ? PMPI_Wtime() : 0;
    for (;;) {
        PMPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (done)
            return;
        if (nap && PMPI_Wtime() - t0 > MCIO_WAIT_POLL_SECONDS)
            nanosleep(&nap_time, NULL);
        else
            sched_yield();
    }
#endif
}

/* Wait for a round's messages (mcio_engine_wait). */
static void exchange_wait(mcio_plan p, int n, int failed, int nap)
{
    MPI_Request *reqs = p->reqs;
    if (failed) {
        /* A round in which a message could not be posted as planned (post_group):
         * a stand-in may end in error (a 0-byte receive, truncated), which the communicator's
         * handler must not turn into an abort. One wait per request (each completes and is
         * freed, error or not); every message was posted before, so the order cannot deadlock. */
        MPI_Errhandler old;
        PMPI_Comm_get_errhandler(p->fh->comm, &old);
        PMPI_Comm_set_errhandler(p->fh->comm, MPI_ERRORS_RETURN);
        for (int i = 0; i < n; i++) {
            PMPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
            free(p->standin[i]);
            p->standin[i] = NULL;
        }
        PMPI_Comm_set_errhandler(p->fh->comm, old);
        PMPI_Errhandler_free(&old);
        return;
    }
    mcio_engine_wait(reqs, n, nap);
}

/*
 * Receiving a message without room for it. A receive shorter than the message (MPI's
 * truncation) is not safe: Open MPI 4.1 writes a message above its eager size past the buffer
 * anyway (seen with AddressSanitizer: 80 KB into an 8-byte buffer; MPICH keeps to the
 * buffer). Instead the message is received whole through a datatype of blocks of
 * MCIO_SINK_BYTES whose extent is 0: every block lands on the same sink, so the message is
 * consumed at any length with MCIO_SINK_BYTES of memory. (The MPI standard calls a receive
 * type with overlapping entries erroneous; Open MPI and MPICH receive through it correctly,
 * checked under AddressSanitizer up to 8 MB.) elem: the sender's element type, of elem_size
 * bytes. Returns an MPI error code.
 */
int mcio_sink_irecv(void *sink, int64_t bytes, MPI_Datatype elem, int elem_size, int peer, int tag,
                    MPI_Comm comm, MPI_Datatype *type, MPI_Request *req)
{
    MPI_Datatype block;
    int per = MCIO_SINK_BYTES / elem_size;
    int rc = PMPI_Type_contiguous(per, elem, &block);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Type_create_resized(block, 0, 0, type);
    PMPI_Type_free(&block);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(type)) != MPI_SUCCESS)
        PMPI_Type_free(type);
    if (rc != MPI_SUCCESS)
        return rc;
    int count = (int)((bytes + (int64_t)per * elem_size - 1) / ((int64_t)per * elem_size));
    return PMPI_Irecv(sink, count, *type, peer, tag, comm, req);
}

/* Where piece i lies: in memory (pc[i].mem), or in the file (pc[i].off: an RMA target). */
#define PIECE_POS(pc, i, at_off) ((at_off) ? (pc)[i].off : (pc)[i].mem)

/* The end of the run of pieces that starts at i: pieces of pc[i]'s length, each the same
 * stride after the one before. */
static int64_t run_end(const mcio_piece *pc, int64_t n, int64_t i, int at_off)
{
    int64_t j = i + 1;
    while (j < n && pc[j].len == pc[i].len &&
           PIECE_POS(pc, j, at_off) - PIECE_POS(pc, j - 1, at_off) ==
               PIECE_POS(pc, i + 1, at_off) - PIECE_POS(pc, i, at_off))
        j++;
    return j;
}

/* Pieces [i, j) of one length at one stride: an hvector of them (not committed). */
static int run_type(const mcio_piece *pc, int64_t i, int64_t j, int at_off, MPI_Datatype *type)
{
    MPI_Aint stride =
        j - i > 1 ? (MPI_Aint)(PIECE_POS(pc, i + 1, at_off) - PIECE_POS(pc, i, at_off)) : 0;
    return PMPI_Type_create_hvector((int)(j - i), (int)pc[i].len, stride, MPI_BYTE, type);
}

/* Does the run [i, j) have the shape (count, length, stride) of the run [a, b)? */
static int same_shape(const mcio_piece *pc, int64_t i, int64_t j, int64_t a, int64_t b, int at_off)
{
    return j - i == b - a && pc[i].len == pc[a].len &&
           (j - i == 1 || PIECE_POS(pc, i + 1, at_off) - PIECE_POS(pc, i, at_off) ==
                              PIECE_POS(pc, a + 1, at_off) - PIECE_POS(pc, a, at_off));
}

/*
 * The datatype of n pieces, each at base + its position (mcio_engine.h), not committed; *step
 * names the MPI call that made it (or failed). Under Open MPI, where most pieces form runs of
 * one shape (count, length, stride: a 3-D block's rows plane by plane, coll_perf's at the
 * aggregator, FLASH-IO's guarded rows at the rank): each stretch of such runs is an hvector of
 * one run repeated at each run's start (hindexed_block), and a run of another shape its own
 * hvector, the stretches and the others in order in one struct. A round or sub-buffer boundary
 * cuts a plane (and a row) in two, so a message's first and last runs are usually of another
 * shape: coll_perf at 8 ranks with 2 MiB sub-buffers sent all of its messages (about 800 rows
 * each) as one hindexed block per row before, and its exchange took 1.25x as long
 * (docs/performance.md, tenth pass). O(runs) for MPI to build and walk, against O(pieces) for
 * an hindexed type of every piece, which cost coll_perf's aggregator at 8 ranks a tenth of its
 * CPU in MPI_Type_create_hindexed alone (25,600 rows), and FLASH-IO at 8 ranks writes 1.1-1.3
 * times faster. Otherwise (runs of fewer than 4 pieces on average: random pieces), and under
 * MPICH, that hindexed type: MPICH moved FLASH-IO's rows 1.25-1.3 times slower through the
 * nested type, at 2 ranks (eighth pass).
 */
#ifdef OPEN_MPI
#define MCIO_TYPE_RUNS 1
#else
#define MCIO_TYPE_RUNS 0
#endif
/* The main shape of n pieces (mcio_pieces_type): the longest run, [*a, *b) (left [0, 1) where
 * runs are not used), and *segs, the struct's entries: each stretch of main runs one, each other
 * run one. */
static void main_shape(const mcio_piece *pc, int64_t n, int at_off, int64_t *a, int64_t *b,
                       int64_t *segs)
{
    for (int64_t i = 0; MCIO_TYPE_RUNS && i < n;) {
        int64_t j = run_end(pc, n, i, at_off);
        if (j - i > *b - *a)
            *a = i, *b = j;
        i = j;
    }
    for (int64_t i = 0, main_before = 0; *b - *a > 1 && i < n;) {
        int64_t j = run_end(pc, n, i, at_off);
        int is_main = same_shape(pc, i, j, *a, *b, at_off);
        *segs += !(is_main && main_before);
        main_before = is_main;
        i = j;
    }
}

int mcio_pieces_type(mcio_plan p, const mcio_piece *pc, int64_t n, char *base, int at_off,
                     MPI_Datatype *type, const char **step)
{
    /* The main shape: the longest run, [a, b). segs: the struct's entries. */
    int64_t a = 0, b = 1, segs = 0;
    main_shape(pc, n, at_off, &a, &b, &segs);
    MPI_Aint *seg_displs = NULL;
    MPI_Datatype *seg_types = NULL;
    int *ones = NULL;
    if (b - a > 1 && segs * 4 <= n && segs > 1) {
        seg_displs = malloc((size_t)segs * sizeof(*seg_displs));
        seg_types = malloc((size_t)segs * sizeof(*seg_types));
        ones = malloc((size_t)segs * sizeof(*ones));
    }
    if (b - a == 1 || segs * 4 > n || (segs > 1 && (!seg_displs || !seg_types || !ones))) {
        free(seg_displs);
        free(seg_types);
        free(ones);
        for (int64_t i = 0; i < n; i++) {
            p->blocklens[i] = (int)pc[i].len;
            p->displs[i] = (MPI_Aint)(uintptr_t)PIECE_ADDR(base, PIECE_POS(pc, i, at_off));
        }
        *step = "MPI_Type_create_hindexed";
        return PMPI_Type_create_hindexed((int)n, p->blocklens, p->displs, MPI_BYTE, type);
    }
    MPI_Datatype main_run;
    *step = "MPI_Type_create_hvector";
    int rc = run_type(pc, a, b, at_off, &main_run);
    if (rc != MPI_SUCCESS)
        segs = 0; /* nothing to build or free below */
    int64_t k = 0; /* entries made */
    for (int64_t i = 0; rc == MPI_SUCCESS && i < n; k++) {
        int64_t j = run_end(pc, n, i, at_off), m = 0;
        MPI_Aint start = (MPI_Aint)(uintptr_t)PIECE_ADDR(base, PIECE_POS(pc, i, at_off));
        MPI_Datatype t;
        if (same_shape(pc, i, j, a, b, at_off)) { /* a stretch of main runs */
            for (; i < n && same_shape(pc, i, j, a, b, at_off); m++) {
                p->displs[m] = (MPI_Aint)(uintptr_t)PIECE_ADDR(base, PIECE_POS(pc, i, at_off)) -
                               (segs > 1) * start;
                i = j;
                j = i < n ? run_end(pc, n, i, at_off) : n;
            }
            *step = "MPI_Type_create_hindexed_block";
            rc = PMPI_Type_create_hindexed_block((int)m, 1, p->displs, main_run, &t);
        } else {
            *step = "MPI_Type_create_hvector";
            rc = run_type(pc, i, j, at_off, &t);
            i = j;
        }
        if (rc != MPI_SUCCESS)
            break;
        if (segs == 1) {
            *type = t;
        } else {
            seg_displs[k] = start;
            seg_types[k] = t;
            ones[k] = 1;
        }
    }
    if (rc == MPI_SUCCESS && segs > 1) {
        *step = "MPI_Type_create_struct";
        rc = PMPI_Type_create_struct((int)segs, ones, seg_displs, seg_types, type);
    }
    for (int64_t e = 0; segs > 1 && e < k; e++)
        PMPI_Type_free(&seg_types[e]); /* the struct keeps what it needs of them */
    if (segs > 0)
        PMPI_Type_free(&main_run);
    free(seg_displs);
    free(seg_types);
    free(ones);
    return rc;
}

/*
 * Post the one message of group gi (to or from peer): a send when send is set, else a receive.
 * Each (round, peer) pair exchanges exactly one message, so both sides agree without talking.
 * When the group's pieces lie back to back in this side's memory (a rank's packed buffer, the
 * aggregator's buffer for a contiguous stretch) the message is plain bytes, which MPI moves
 * with a single copy (Open MPI's CMA, MPICH's LMT); otherwise the datatype of the pieces
 * (mcio_pieces_type). Only the type signatures (n bytes) must match, so the two sides choose
 * independently. Measured on Open MPI at 8 ranks: one message per group beats one message per
 * large piece (fewer rendezvous handshakes when ranks outnumber cores), docs/performance.md.
 */
static int post_group(mcio_plan p, const mcio_groups *g, int64_t gi, char *base, int peer,
                      int send, int *nreq, char detail[MCIO_DETAIL_LEN])
{
    MPI_Comm comm = p->fh->comm;
    const mcio_piece *pc = &g->pieces[g->first[gi]];
    int64_t n = g->first[gi + 1] - g->first[gi];
    int contiguous = 1;
    for (int64_t i = 1; i < n && contiguous; i++)
        contiguous = pc[i].mem == pc[i - 1].mem + pc[i - 1].len;
    MPI_Datatype *type = &p->types[*nreq];
    MPI_Request *req = &p->reqs[*nreq];
    void *addr = MPI_BOTTOM;
    int count = 1, rc = MPI_SUCCESS;
    const char *step = "";
    if (contiguous) {
        *type = MPI_BYTE;
        addr = PIECE_ADDR(base, pc[0].mem);
        count = (int)g->bytes[gi];
    } else {
        rc = mcio_pieces_type(p, pc, n, base, 0, type, &step);
        if (rc == MPI_SUCCESS) {
            step = "MPI_Type_commit";
            rc = PMPI_Type_commit(type);
            if (rc != MPI_SUCCESS)
                PMPI_Type_free(type);
        }
    }
    if (rc == MPI_SUCCESS) {
        step = send ? "MPI_Isend" : "MPI_Irecv";
        rc = send ? PMPI_Isend(addr, count, *type, peer, MCIO_TAG_DATA, comm, req)
                  : PMPI_Irecv(addr, count, *type, peer, MCIO_TAG_DATA, comm, req);
        if (rc != MPI_SUCCESS && *type != MPI_BYTE)
            PMPI_Type_free(type);
    }
    (*nreq)++;
    if (rc == MPI_SUCCESS)
        return MCIO_SUCCESS;
    /* The message cannot go as planned; the peer waits for it all the same. A stand-in takes
     * its place: a send of 0 bytes (the peer's receive takes fewer bytes than it posted, which
     * MPI allows), or a receive of its bytes into scratch memory, dropped after the wait, or,
     * when that memory cannot be had, into the plan's sink (mcio_sink_irecv). The call has
     * failed on this rank, and the ranks agree on that after the exchange. */
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    PMPI_Error_string(rc, msg, &len);
    snprintf(detail, MCIO_DETAIL_LEN,
             "exchange with rank %d: %s of %" PRId64 " pieces (%" PRId64 " bytes) failed: %.120s",
             peer, step, n, g->bytes[gi], msg);
    *type = MPI_BYTE;
    *req = MPI_REQUEST_NULL;
    if (send) {
        PMPI_Isend(p->blocklens, 0, MPI_BYTE, peer, MCIO_TAG_DATA, comm, req);
    } else if ((p->standin[*nreq - 1] = malloc((size_t)g->bytes[gi]))) {
        PMPI_Irecv(p->standin[*nreq - 1], (int)g->bytes[gi], MPI_BYTE, peer, MCIO_TAG_DATA, comm,
                   req);
    } else if (mcio_sink_irecv(p->sink, g->bytes[gi], MPI_BYTE, 1, peer, MCIO_TAG_DATA, comm, type,
                               req) != MPI_SUCCESS) {
        *type = MPI_BYTE; /* nothing to free; the peer's send cannot complete: MPI is failing */
    }
    return MCIO_ERR_MPI;
}

/* Does round k of the aggregator have small enough holes to read-modify-write its span? */
int mcio_round_use_span(const mcio_piece *runs, int64_t nruns)
{
    int64_t covered = 0;
    for (int64_t i = 0; i < nruns; i++)
        covered += runs[i].len;
    int64_t span = runs[nruns - 1].mem + runs[nruns - 1].len - runs[0].mem;
    return nruns == 1 || span - covered <= covered;
}

/* Write len bytes at off from user memory at addr, or read them there (through this rank's
 * own descriptor where it has one, mcio_file_access; past the kernel's slow copy into
 * 4K-aliased memory where mcio_read_shift says so). */
static int move_piece(mcio_file fh, int write, char *addr, int64_t len, int64_t off,
                      char detail[MCIO_DETAIL_LEN])
{
    void *state;
    const mcio_io_backend *b = mcio_file_access(fh, write, &state);
    if (write)
        return mcio_io_write_full(b, state, addr, len, off, fh->path, detail);
    return mcio_file_read_shift(fh)
               ? mcio_io_read_shifted(b, state, addr, len, off, fh->path, detail)
               : mcio_io_read_full(b, state, addr, len, off, fh->path, detail);
}

/* My pieces for my own domain among the send groups [gs, gs1) of a round. (The aggregator's
 * lists arrive with file-adjacent pieces merged, so its receive side may count fewer.) */
static int64_t own_pieces(mcio_plan p, int64_t gs, int64_t gs1)
{
    for (int64_t g = gs; g < gs1; g++)
        if (p->send.peer[g] == p->my_domain)
            return p->send.first[g + 1] - p->send.first[g];
    return 0;
}

int mcio_round_access(mcio_file fh, int write, char *buf, const mcio_piece *runs, int64_t n,
                      int span, char detail[MCIO_DETAIL_LEN])
{
    if (n <= 0)
        return MCIO_SUCCESS;
    if (span) /* one access from the first run's start to the last run's end */
        return move_piece(fh, write, buf + runs[0].mem, runs[n - 1].mem + runs[n - 1].len - runs[0].mem,
                          runs[0].off, detail);
    int st = MCIO_SUCCESS;
    for (int64_t i = 0; i < n && st == MCIO_SUCCESS; i++)
        st = move_piece(fh, write, buf + runs[i].mem, runs[i].len, runs[i].off, detail);
    return st;
}

/* The direct path of a round: this rank's pieces for its own domain, between user memory and
 * the file, without the collective buffer. */
static int direct_access(mcio_plan p, int write, char *base, int64_t gs, int64_t gs1,
                         char detail[MCIO_DETAIL_LEN])
{
    mcio_file fh = p->fh;
    int st = MCIO_SUCCESS;
    for (int64_t g = gs; g < gs1; g++) {
        if (p->fd.agg_rank[p->send.peer[g]] != fh->rank)
            continue;
        for (int64_t i = p->send.first[g]; i < p->send.first[g + 1] && st == MCIO_SUCCESS; i++) {
            const mcio_piece *pc = &p->send.pieces[i];
            st = move_piece(fh, write, PIECE_ADDR(base, pc->mem), pc->len, pc->off, detail);
        }
    }
    return st;
}

/*
 * The two-sided exchange of round k, for both executors: the aggregator's side (receive groups
 * [gr, gr1), its round's data in cbuf), then this rank's pieces (send groups [gs, gs1), in user
 * memory at base); its pieces for its own domain are copied between base and cbuf, unless
 * direct (they were moved between user memory and the file already). Returns MCIO_SUCCESS, or
 * the first message that could not be posted (detail); every message is completed either way.
 */
int mcio_exchange_round(mcio_plan p, int write, char *base, char *cbuf, int k, int64_t gs,
                        int64_t gs1, int64_t gr, int64_t gr1, int direct,
                        char detail[MCIO_DETAIL_LEN])
{
    mcio_file fh = p->fh;
    const mcio_fdplan *fd = &p->fd;
    int nreq = 0, st = MCIO_SUCCESS, pst;
    char why[MCIO_DETAIL_LEN];
    for (int64_t g = gr; g < gr1; g++) {
        if (p->recv.peer[g] == fh->rank)
            continue; /* copied below, from the sender's side */
        pst = post_group(p, &p->recv, g, cbuf, p->recv.peer[g], !write, &nreq, why);
        if (pst != MCIO_SUCCESS && st == MCIO_SUCCESS)
            st = pst, snprintf(detail, MCIO_DETAIL_LEN, "round %d: %.230s", k, why);
    }
    int naggregated = nreq;
    for (int64_t g = gs; g < gs1; g++) {
        int dom = p->send.peer[g], agg = fd->agg_rank[dom];
        if (agg == fh->rank) {
            if (direct)
                continue; /* done before */
            int64_t w0 = fd->win_start[dom] + (int64_t)k * fd->window[dom];
            for (int64_t i = p->send.first[g]; i < p->send.first[g + 1]; i++) {
                const mcio_piece *pc = &p->send.pieces[i];
                if (write)
                    memcpy(cbuf + (pc->off - w0), PIECE_ADDR(base, pc->mem), (size_t)pc->len);
                else
                    memcpy(PIECE_ADDR(base, pc->mem), cbuf + (pc->off - w0), (size_t)pc->len);
            }
            continue;
        }
        pst = post_group(p, &p->send, g, base, agg, write, &nreq, why);
        if (pst != MCIO_SUCCESS && st == MCIO_SUCCESS)
            st = pst, snprintf(detail, MCIO_DETAIL_LEN, "round %d: %.230s", k, why);
    }
    /* Nap only where no message of this wait is one this rank aggregates. */
    exchange_wait(p, nreq, st != MCIO_SUCCESS, naggregated == 0 && mcio_engine_node_crowded(fh));
    for (int i = 0; i < nreq; i++)
        if (p->types[i] != MPI_BYTE)
            PMPI_Type_free(&p->types[i]);
    return st;
}

/* A rank that aggregates nothing posts all its rounds' messages at once and waits once: the
 * aggregators take each round's as they reach it (one message per round and peer, matched in
 * the order sent), and the rank does not poll through every round's wait; on a crowded node
 * it naps through its one wait (exchange_wait), leaving the cores to the aggregators. Its
 * pieces of different rounds are disjoint in its memory, so a read's receives may all be
 * posted together too. */
static int rounds_run_sender(mcio_plan p, int write, char *base, mcio_exec_times *times,
                             char detail[MCIO_DETAIL_LEN])
{
    double t = PMPI_Wtime();
    int st = mcio_exchange_round(p, write, base, NULL, 0, 0, p->send.ngroups, 0, 0, 0, detail);
    *times = (mcio_exec_times){.exchange = ns_since(t)};
    return st;
}

static int rounds_run(mcio_plan p, int write, char *base, mcio_exec_times *times,
                      char detail[MCIO_DETAIL_LEN])
{
    mcio_file fh = p->fh;
    if (p->my_domain < 0)
        return rounds_run_sender(p, write, base, times, detail);
    int64_t t_exch = 0, t_io = 0;
    int io_st = MCIO_SUCCESS;
    int64_t gs = 0, gr = 0;
    char scratch[MCIO_DETAIL_LEN]; /* the details after the first failure */
    for (int k = 0; k < p->fd.max_rounds; k++) {
        int64_t gs1 = gs, gr1 = gr;
        while (gs1 < p->send.ngroups && p->send.round[gs1] == k)
            gs1++;
        while (gr1 < p->recv.ngroups && p->recv.round[gr1] == k)
            gr1++;
        int64_t nruns = gr1 > gr ? mcio_schedule_runs(&p->recv, gr, gr1, p->runs) : 0;
        int span = nruns > 0 && mcio_round_use_span(p->runs, nruns) && (!write || fh->can_read);
        /* Direct: this rank is the only one with data in its round (an independent plan, or
         * just this round), each of its pieces is a run of its own (pieces that meet in the file
         * but not in memory, FLASH-IO's rows, are better packed into one access than written one
         * system call each), and no read-modify-write is wanted: its pieces go straight between
         * user memory and the file, without the copy through the collective buffer. */
        int direct = nruns > 0 && gr1 - gr == 1 && p->recv.peer[gr] == fh->rank &&
                     nruns == own_pieces(p, gs, gs1) && !(span && nruns > 1);
        double t;
        if (direct && io_st == MCIO_SUCCESS) {
            t = PMPI_Wtime();
            io_st = direct_access(p, write, base, gs, gs1, detail);
            t_io += ns_since(t);
        }
        /* Aggregator, before the exchange: reads fill the buffer; writes with holes read the span. */
        if (nruns > 0 && !direct && io_st == MCIO_SUCCESS && (!write || (span && nruns > 1))) {
            t = PMPI_Wtime();
            io_st = mcio_round_access(fh, 0, p->cbuf, p->runs, nruns, span, detail);
            t_io += ns_since(t);
        }
        t = PMPI_Wtime();
        /* After a failed exchange, no more file access (its data is not all there): the
         * exchanges still complete, and the ranks agree after the call. */
        int x_st = mcio_exchange_round(p, write, base, p->cbuf, k, gs, gs1, gr, gr1, direct,
                                  io_st == MCIO_SUCCESS ? detail : scratch);
        if (io_st == MCIO_SUCCESS)
            io_st = x_st;
        t_exch += ns_since(t);
        /* Aggregator, after the exchange: write what was asked for, never a byte more. */
        if (write && nruns > 0 && !direct && io_st == MCIO_SUCCESS) {
            t = PMPI_Wtime();
            io_st = mcio_round_access(fh, 1, p->cbuf, p->runs, nruns, span, detail);
            t_io += ns_since(t);
        }
        gs = gs1;
        gr = gr1;
    }
    *times = (mcio_exec_times){.exchange = t_exch, .io = t_io};
    return io_st;
}

const mcio_executor mcio_exec_rounds = {.name = "rounds", .run = rounds_run};

/* romio_cb_write/read disable (ROMIO's meaning): no aggregation, no exchange; each rank moves
 * its own pieces straight between its memory and the file, in file order. Pieces that meet in
 * the file but not in memory (rows between guard cells: FLASH-IO's blocks, a halo's
 * hyperslab) go through a packing buffer of MCIO_OWN_PACK bytes, one system call per
 * buffer, as ROMIO's independent access packs them (its ind_wr_buffer_size): one call per
 * 128-byte row made FLASH-IO's independent write 20x slower than aggregated. Without the
 * buffer (no memory), one call per piece. */
static int own_run(mcio_plan p, int write, char *base, mcio_exec_times *times,
                   char detail[MCIO_DETAIL_LEN])
{
    mcio_file fh = p->fh;
    const mcio_extent *e = p->ext;
    int st = MCIO_SUCCESS, tried = 0;
    char *pack = NULL;
    double t = PMPI_Wtime();
    for (int64_t i = 0, j; i < p->next && st == MCIO_SUCCESS; i = j) {
        j = tried && !pack ? i + 1 : mcio_own_pack_end(e, i, p->next);
        if (j > i + 1 && !tried)
            tried = 1, pack = mcio_io_buffer_alloc(MCIO_OWN_PACK);
        if (j == i + 1 || !pack) { /* alone, or no buffer: the piece by itself */
            j = i + 1;
            st = move_piece(fh, write, PIECE_ADDR(base, e[i].mem), e[i].len, e[i].off, detail);
            continue;
        }
        int64_t bytes = e[j - 1].off + e[j - 1].len - e[i].off, at = 0;
        if (write)
            for (int64_t k = i; k < j; at += e[k++].len)
                memcpy(pack + at, PIECE_ADDR(base, e[k].mem), (size_t)e[k].len);
        st = move_piece(fh, write, pack, bytes, e[i].off, detail);
        if (!write && st == MCIO_SUCCESS)
            for (int64_t k = i; k < j; at += e[k++].len)
                memcpy(PIECE_ADDR(base, e[k].mem), pack + at, (size_t)e[k].len);
    }
    free(pack);
    *times = (mcio_exec_times){.io = ns_since(t)};
    return st;
}

const mcio_executor mcio_exec_own = {.name = "own", .run = own_run};
