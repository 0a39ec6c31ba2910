/*
 * The exchange schedule: which bytes each rank sends to (or receives from) which aggregator in
 * which round, and where they land in the collective buffer. Pure: the engine feeds it the
 * plan and the offset-length lists it exchanged, and turns its output into MPI messages.
 * Glossary in mcio_planner.h.
 */
#include <stdlib.h>
#include <string.h>

#include "mcio_planner.h"

typedef struct keyed_piece {
    int round, peer;
    mcio_piece p;
} keyed_piece;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_piece *x = a, *y = b;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    /* Offset, then length, then memory: a total order, so that the rank's side and the
     * aggregator's side list a message's pieces alike whatever qsort does with ties (equal
     * (offset, length) pieces carry the same bytes, so their order does not matter there). */
    if (x->p.off != y->p.off)
        return x->p.off < y->p.off ? -1 : 1;
    if (x->p.len != y->p.len)
        return x->p.len < y->p.len ? -1 : 1;
    return (x->p.mem > y->p.mem) - (x->p.mem < y->p.mem);
}

/* How keyed pieces come: in (round, peer, offset) order already; in file order (offset, then
 * length and memory), which within a round is (peer, offset) order, the domains being in file
 * order; or neither (then checked, and sorted if need be). */
enum { ORDER_NONE, ORDER_FILE, ORDER_KEYED };

/* The n pieces of kp in file order, stably by round: (round, peer, offset) order in O(n +
 * rounds). Frees kp; NULL when out of memory (kp freed too). FLASH-IO at 8 ranks with two
 * aggregators and a pipeline: each rank's 12,288 rows meet both domains in several rounds
 * each, and qsort took 0.4 ms of every call on every rank. */
static keyed_piece *by_round(keyed_piece *kp, int64_t n)
{
    int rounds = 0;
    for (int64_t i = 0; i < n; i++)
        rounds = kp[i].round >= rounds ? kp[i].round + 1 : rounds;
    int64_t *at = calloc((size_t)rounds + 1, sizeof *at);
    keyed_piece *out = malloc((n > 0 ? (size_t)n : 1) * sizeof *out);
    if (at && out) {
        for (int64_t i = 0; i < n; i++)
            at[kp[i].round + 1]++;
        for (int r = 0; r < rounds; r++)
            at[r + 1] += at[r];
        for (int64_t i = 0; i < n; i++)
            out[at[kp[i].round]++] = kp[i];
    } else {
        free(out);
        out = NULL;
    }
    free(at);
    free(kp);
    return out;
}

/* Sort keyed pieces by (round, peer, offset) as their order requires and pack them into
 * groups. Takes kp. */
static int build_groups(keyed_piece *kp, int64_t n, int order, mcio_groups *out)
{
    memset(out, 0, sizeof *out);
    if (order == ORDER_FILE && !(kp = by_round(kp, n)))
        return MCIO_ERR_NOMEM;
    for (int64_t i = 1; i < n && order == ORDER_NONE; i++)
        if (cmp_keyed(&kp[i - 1], &kp[i]) > 0) {
            qsort(kp, (size_t)n, sizeof *kp, cmp_keyed);
            break;
        }
    int64_t ng = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || kp[i].round != kp[i - 1].round || kp[i].peer != kp[i - 1].peer)
            ng++;
    size_t m = ng > 0 ? (size_t)ng : 1;
    out->round = malloc(m * sizeof(int));
    out->peer = malloc(m * sizeof(int));
    out->first = malloc((m + 1) * sizeof(int64_t));
    out->bytes = calloc(m, sizeof(int64_t));
    out->pieces = malloc((n > 0 ? (size_t)n : 1) * sizeof(mcio_piece));
    if (!out->round || !out->peer || !out->first || !out->bytes || !out->pieces) {
        free(kp);
        mcio_groups_free(out);
        return MCIO_ERR_NOMEM;
    }
    int64_t g = -1;
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || kp[i].round != kp[i - 1].round || kp[i].peer != kp[i - 1].peer) {
            g++;
            out->round[g] = kp[i].round;
            out->peer[g] = kp[i].peer;
            out->first[g] = i;
        }
        out->pieces[i] = kp[i].p;
        out->bytes[g] += kp[i].p.len;
    }
    out->first[ng] = n;
    out->ngroups = ng;
    out->npieces = n;
    free(kp);
    return MCIO_SUCCESS;
}

/* The end of round r of domain d. */
static int64_t round_end(const mcio_fdplan *plan, int d, int r)
{
    /* Relative to win_start, so that nothing overflows near INT64_MAX. */
    int64_t rel = (int64_t)(r + 1) * plan->window[d];
    return rel < plan->win_end[d] - plan->win_start[d] ? plan->win_start[d] + rel
                                                       : plan->win_end[d];
}

/* The round a byte falls in, kept from one piece to the next: a rank's pieces (and each
 * sender's list) come in file order, and most of them fall in the round of the piece before
 * (FLASH-IO's 128-byte rows, coll_perf's rows: thousands a round), which then costs two
 * comparisons instead of a search and two divisions. */
typedef struct round_at {
    int d, r;
    int64_t lo, hi; /* [lo, hi): the bytes of round r of domain d; empty before the first */
} round_at;

/* Moves *at to the round of domain d holding pos (in the domain's data). */
static void enter_round(const mcio_fdplan *plan, int d, int64_t pos, round_at *at)
{
    int r = mcio_fdplan_round(plan, d, pos);
    *at = (round_at){.d = d, .r = r,
                     .lo = plan->win_start[d] + (int64_t)r * plan->window[d],
                     .hi = round_end(plan, d, r)};
}

/* Moves *at to the round holding pos; 0, or -1 when the plan does not cover pos. */
static int find_round(const mcio_fdplan *plan, round_at *at, int64_t pos)
{
    if (pos >= at->lo && pos < at->hi)
        return 0;
    int d = mcio_fdplan_find(plan, pos);
    if (d < 0 && at->hi > at->lo) /* within a piece, past its domain's end (empty domains) */
        for (d = at->d; d < plan->ndomains && plan->fd_end[d] <= pos; d++)
            ;
    if (d < 0 || d >= plan->ndomains || plan->win_start[d] > pos || pos >= plan->win_end[d])
        return -1;
    enter_round(plan, d, pos, at);
    return 0;
}

int mcio_schedule_rank(const mcio_fdplan *plan, const mcio_extent *ext, int64_t n, mcio_groups *out)
{
    /* One pass. Pieces are cut only at round ends: disjoint pieces (a write's) at most once
     * per round of the plan, overlapping ones (a read's) may be cut more, and the array
     * grows then. In file order the pieces are already in (round, domain) order unless a
     * domain has several rounds the rank meets (checked as they come). */
    int64_t cap = n + 1;
    for (int d = 0; d < plan->ndomains; d++)
        cap += plan->rounds[d];
    keyed_piece *kp = malloc((size_t)cap * sizeof *kp);
    if (!kp)
        return MCIO_ERR_NOMEM;
    int64_t k = 0;
    int sorted = 1, file_order = 1;
    round_at at = {.lo = 0, .hi = 0};
    for (int64_t i = 0; i < n; i++) {
        for (int64_t pos = ext[i].off, end = ext[i].off + ext[i].len; pos < end; k++) {
            if (find_round(plan, &at, pos) != 0) {
                free(kp);
                return MCIO_ERR_INTERNAL; /* the plan does not cover this byte */
            }
            int64_t stop = at.hi < end ? at.hi : end;
            if (k == cap) {
                keyed_piece *grown = realloc(kp, (size_t)(cap *= 2) * sizeof *kp);
                if (!grown) {
                    free(kp);
                    return MCIO_ERR_NOMEM;
                }
                kp = grown;
            }
            kp[k] = (keyed_piece){
                .round = at.r,
                .peer = at.d,
                .p = {.off = pos, .len = stop - pos, .mem = ext[i].mem + (pos - ext[i].off)}};
            if (k > 0 && file_order && kp[k - 1].p.off >= pos) {
                /* By offset, then length and memory: cmp_keyed's order of one (round, peer). */
                keyed_piece same = kp[k - 1];
                same.round = at.r, same.peer = at.d;
                file_order = cmp_keyed(&same, &kp[k]) <= 0;
            }
            if (k > 0 && sorted && (kp[k - 1].round != at.r || kp[k - 1].peer != at.d ||
                                    kp[k - 1].p.off >= pos))
                sorted = cmp_keyed(&kp[k - 1], &kp[k]) <= 0;
            pos = stop;
        }
    }
    return build_groups(kp, k, sorted ? ORDER_KEYED : file_order ? ORDER_FILE : ORDER_NONE, out);
}

int mcio_schedule_aggregator(const mcio_fdplan *plan, int d, int nprocs, const int64_t *nlist,
                             const mcio_piece *const *lists, mcio_groups *out)
{
    /* A counting sort by round, stable in (sender, position): each sender lists its pieces in
     * file order, hence by round, so the result is already in (round, sender, offset) order and
     * build_groups need not sort (it checks, and sorts what a sender listed out of order). With
     * hundreds of thousands of pieces (FLASH-IO's rows) the sort was most of the planning.
     * A piece that crosses round boundaries is cut there first. */
    int R = plan->rounds[d];
    int64_t n = 0, *at = calloc((size_t)R + 1, sizeof(int64_t));
    if (!at)
        return MCIO_ERR_NOMEM;
    round_at cur = {.lo = 0, .hi = 0}; /* the round of the piece before (find_round) */
    for (int s = 0; s < nprocs; s++)
        for (int64_t i = 0; i < nlist[s]; i++)
            for (int64_t pos = lists[s][i].off, end = pos + lists[s][i].len; pos < end; n++) {
                if (pos < plan->win_start[d] || pos >= plan->win_end[d]) {
                    free(at);
                    return MCIO_ERR_INTERNAL; /* a sender's piece outside this domain's data */
                }
                if (pos < cur.lo || pos >= cur.hi)
                    enter_round(plan, d, pos, &cur);
                at[cur.r + 1]++;
                pos = cur.hi < end ? cur.hi : end;
            }
    keyed_piece *kp = malloc((n > 0 ? (size_t)n : 1) * sizeof *kp);
    if (!kp) {
        free(at);
        return MCIO_ERR_NOMEM;
    }
    for (int r = 0; r < R; r++)
        at[r + 1] += at[r];
    for (int s = 0; s < nprocs; s++)
        for (int64_t i = 0; i < nlist[s]; i++)
            for (int64_t pos = lists[s][i].off, end = pos + lists[s][i].len; pos < end;) {
                if (pos < cur.lo || pos >= cur.hi)
                    enter_round(plan, d, pos, &cur);
                int64_t stop = cur.hi < end ? cur.hi : end;
                mcio_piece p = {.off = pos, .len = stop - pos, .mem = pos - cur.lo};
                kp[at[cur.r]++] = (keyed_piece){.round = cur.r, .peer = s, .p = p};
                pos = stop;
            }
    free(at);
    return build_groups(kp, n, ORDER_NONE, out);
}

void mcio_groups_free(mcio_groups *g)
{
    free(g->round);
    free(g->peer);
    free(g->first);
    free(g->bytes);
    free(g->pieces);
    memset(g, 0, sizeof *g);
}

static int cmp_mem(const void *a, const void *b)
{
    const mcio_piece *x = a, *y = b;
    return (x->mem > y->mem) - (x->mem < y->mem);
}

/* Appends piece p to runs[0 .. *m], merged with the last run when they overlap or touch. */
static void push_run(mcio_piece *runs, int64_t *m, mcio_piece p)
{
    if (*m >= 0 && p.mem <= runs[*m].mem + runs[*m].len) {
        int64_t end = p.mem + p.len;
        if (end > runs[*m].mem + runs[*m].len)
            runs[*m].len = end - runs[*m].mem;
    } else {
        runs[++*m] = p;
    }
}

/* Heap of groups keyed by the displacement of their next piece (at[] indexes g->pieces). */
static int head_less(const mcio_groups *g, const int64_t *at, int64_t a, int64_t b)
{
    return g->pieces[at[a]].mem < g->pieces[at[b]].mem;
}

static void sift_down(const mcio_groups *g, const int64_t *at, int64_t *heap, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, min = i;
        if (l < n && head_less(g, at, heap[l], heap[min]))
            min = l;
        if (r < n && head_less(g, at, heap[r], heap[min]))
            min = r;
        if (min == i)
            return;
        int64_t t = heap[i];
        heap[i] = heap[min];
        heap[min] = t;
        i = min;
    }
}

int64_t mcio_schedule_runs(const mcio_groups *g, int64_t g0, int64_t g1, mcio_piece *runs)
{
    int64_t n = g->first[g1] - g->first[g0], m = -1, k = g1 - g0;
    if (n <= 0)
        return 0;
    /* Each group's pieces are in buffer order (build_groups sorts them by offset, and an
     * aggregator's displacements follow offsets): merge the groups, O(n log groups), rather
     * than sort all pieces. Any group out of order, or no memory for the heap: sort. */
    int in_order = 1;
    for (int64_t gi = g0; gi < g1 && in_order; gi++)
        for (int64_t i = g->first[gi] + 1; i < g->first[gi + 1] && in_order; i++)
            in_order = g->pieces[i - 1].mem <= g->pieces[i].mem;
    int64_t *at = in_order ? malloc(2 * (size_t)k * sizeof(int64_t)) : NULL;
    if (!at) {
        memcpy(runs, &g->pieces[g->first[g0]], (size_t)n * sizeof *runs);
        qsort(runs, (size_t)n, sizeof *runs, cmp_mem);
        for (int64_t i = 0; i < n; i++)
            push_run(runs, &m, runs[i]);
        return m + 1;
    }
    int64_t *heap = at + k, nh = 0;
    for (int64_t j = 0; j < k; j++) {
        at[j] = g->first[g0 + j];
        if (at[j] < g->first[g0 + j + 1])
            heap[nh++] = j;
    }
    for (int64_t i = nh / 2 - 1; i >= 0; i--)
        sift_down(g, at, heap, nh, i);
    while (nh > 0) {
        int64_t j = heap[0];
        push_run(runs, &m, g->pieces[at[j]++]);
        if (at[j] == g->first[g0 + j + 1])
            heap[0] = heap[--nh];
        sift_down(g, at, heap, nh, 0);
    }
    free(at);
    return m + 1;
}
