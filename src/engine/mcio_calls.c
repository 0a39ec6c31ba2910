/*
 * The public collective calls: argument checks that are local, then the engine. Every check's
 * outcome travels with the first collective of the engine, so that a bad argument on one rank
 * fails the call on all of them before a byte moves (a call that moves its bytes first,
 * mcio_engine_bytes_first, has filled the other ranks' buffers, or written their extents, by
 * then).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_engine.h"

/* Local checks shared by every call: returns a status and fills detail. */
static int check_access(mcio_file fh, int write, char detail[MCIO_DETAIL_LEN])
{
    if (write && (fh->amode & MPI_MODE_RDONLY)) {
        snprintf(detail, MCIO_DETAIL_LEN, "write to %s, which was opened MPI_MODE_RDONLY", fh->path);
        return MCIO_ERR_AMODE;
    }
    if (!write && (fh->amode & MPI_MODE_WRONLY)) {
        snprintf(detail, MCIO_DETAIL_LEN, "read from %s, which was opened MPI_MODE_WRONLY", fh->path);
        return MCIO_ERR_AMODE;
    }
    return MCIO_SUCCESS;
}

/* The memory displacement of each extent: packed (prefix sums) or the given addresses. */
static int64_t *memory_of(int64_t count, const int64_t *len, const void *const *addrs, int *st,
                          char detail[MCIO_DETAIL_LEN])
{
    int64_t *mem = malloc(((size_t)(count > 0 ? count : 0) + 1) * sizeof(int64_t));
    if (!mem) {
        *st = MCIO_ERR_NOMEM;
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory for %" PRId64 " extents", count);
        return NULL;
    }
    int64_t at = 0;
    for (int64_t i = 0; i < count && len; i++) {
        if (addrs) {
            mem[i] = (int64_t)(uintptr_t)addrs[i];
            if (!addrs[i] && len[i] > 0 && *st == MCIO_SUCCESS) {
                *st = MCIO_ERR_ARG;
                snprintf(detail, MCIO_DETAIL_LEN, "extent %" PRId64 " has %" PRId64
                         " bytes but a NULL address", i, len[i]);
            }
        } else {
            mem[i] = at;
            at += len[i] > 0 ? len[i] : 0;
        }
    }
    return mem;
}

/* One-shot call: plan, run, free. vform: extents' memory is addrs[], not packed in buf. */
static int one_shot(mcio_file fh, int write, int64_t count, const int64_t *off, const int64_t *len,
                    const void *buf, int vform, const void *const *addrs)
{
    char detail[MCIO_DETAIL_LEN] = "", local[MCIO_DETAIL_LEN] = "";
    if (!fh)
        return mcio_error_set(MCIO_ERR_ARG, "file handle is NULL");
    int st = check_access(fh, write, local);
    if (st == MCIO_SUCCESS && fh->fail_next) {
        st = fh->fail_next;
        snprintf(local, sizeof local, "%s", fh->fail_detail);
    }
    fh->fail_next = 0;
    if (st == MCIO_SUCCESS && vform && count > 0 && !addrs) {
        st = MCIO_ERR_ARG;
        snprintf(local, sizeof local, "%" PRId64 " extents but addrs is NULL", count);
    }
    if (st == MCIO_SUCCESS && !vform && count > 0 && !buf) {
        int64_t bytes = 0;
        for (int64_t i = 0; len && i < count; i++)
            bytes += len[i] > 0 ? len[i] : 0;
        if (bytes > 0) {
            st = MCIO_ERR_ARG;
            snprintf(local, sizeof local, "buf is NULL but the extents hold %" PRId64 " bytes", bytes);
        }
    }
    int64_t *mem = st == MCIO_SUCCESS ? memory_of(count, len, addrs, &st, local) : NULL;
    fh->layers_last = 1;
    fh->layer_bytes = 0;
    if (fh->bytes_first[write] && !fh->stats_on) { /* the bytes first, then the gather */
        st = mcio_engine_bytes_first(fh, write, count, off, len, mem, (char *)buf, st, local,
                                     detail);
        free(mem);
        return mcio_error_set(st, detail);
    }
    if (mcio_twolayer_layers(fh, write, count, off, len) == 2) { /* node first (issue 50) */
        st = mcio_twolayer_call(fh, write, count, off, len, mem, (char *)buf, st, local, detail);
        free(mem);
        return mcio_error_set(st, detail);
    }
    struct mcio_plan_s p;
    st = mcio_engine_plan(fh, count, off, len, mem, write, 1, st, local, &p, detail);
    free(mem);
    if (st == MCIO_SUCCESS) {
        st = mcio_engine_run(&p, write, (char *)buf, 1, MCIO_SUCCESS, "", detail);
        mcio_engine_plan_clear(&p);
    }
    return mcio_error_set(st, detail);
}

int mcio_file_fail_next(mcio_file fh, int status, const char *detail)
{
    if (!fh || status == MCIO_SUCCESS)
        return mcio_error_set(MCIO_ERR_ARG, "file handle is NULL or status is MCIO_SUCCESS");
    fh->fail_next = status;
    snprintf(fh->fail_detail, sizeof fh->fail_detail, "%s", detail ? detail : "");
    return mcio_error_set(MCIO_SUCCESS, NULL);
}

int mcio_write_at_all(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                      const void *buf)
{
    return one_shot(fh, 1, count, offsets, lengths, buf, 0, NULL);
}

int mcio_read_at_all(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                     void *buf)
{
    return one_shot(fh, 0, count, offsets, lengths, buf, 0, NULL);
}

int mcio_writev_at_all(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                       const void *const addrs[])
{
    return one_shot(fh, 1, count, offsets, lengths, NULL, 1, addrs);
}

int mcio_readv_at_all(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                      void *const addrs[])
{
    return one_shot(fh, 0, count, offsets, lengths, NULL, 1, (const void *const *)addrs);
}

/* vform: extent i's memory is displs[i] from each use's buf (NULL fails in the engine, on
 * every rank); otherwise packed. */
static int plan_create(mcio_file fh, int64_t count, const int64_t *off, const int64_t *len,
                       int vform, const int64_t *displs, mcio_plan *plan)
{
    char detail[MCIO_DETAIL_LEN] = "", local[MCIO_DETAIL_LEN] = "";
    if (!fh || !plan)
        return mcio_error_set(MCIO_ERR_ARG, "file handle or plan is NULL");
    *plan = MCIO_PLAN_NULL;
    int st = MCIO_SUCCESS;
    int64_t *packed = vform ? NULL : memory_of(count, len, NULL, &st, local);
    /* The handle with the arguments, so that its allocation is agreed with them. */
    struct mcio_plan_s failed;
    mcio_plan heap = st == MCIO_SUCCESS ? malloc(sizeof *heap) : NULL;
    if (st == MCIO_SUCCESS && !heap)
        st = MCIO_ERR_NOMEM, snprintf(local, sizeof local, "out of memory for a plan");
    /* Overlaps are rejected: a plan may be used to write. */
    st = mcio_engine_plan(fh, count, off, len, vform ? displs : packed, 1, 0, st, local,
                          heap ? heap : &failed, detail);
    free(packed);
    if (st == MCIO_SUCCESS) {
        fh->live_plans++;
        /* Later uses report only their own time; the setup was paid here, once. */
        heap->t_metadata = heap->t_plan = 0;
        *plan = heap;
    } else {
        free(heap);
    }
    return mcio_error_set(st, detail);
}

int mcio_plan_create(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                     mcio_plan *plan)
{
    return plan_create(fh, count, offsets, lengths, 0, NULL, plan);
}

int mcio_plan_createv(mcio_file fh, int64_t count, const int64_t offsets[], const int64_t lengths[],
                      const int64_t displs[], mcio_plan *plan)
{
    return plan_create(fh, count, offsets, lengths, 1, displs, plan);
}

static int plan_run(mcio_plan plan, int write, const void *buf)
{
    char detail[MCIO_DETAIL_LEN] = "", local[MCIO_DETAIL_LEN] = "";
    if (!plan)
        return mcio_error_set(MCIO_ERR_ARG, "plan is NULL");
    int st = check_access(plan->fh, write, local);
    int64_t mine = 0;
    for (int64_t i = 0; i < plan->next; i++)
        mine += plan->ext[i].len;
    if (st == MCIO_SUCCESS && !buf && mine > 0) {
        st = MCIO_ERR_ARG;
        snprintf(local, sizeof local, "buf is NULL but the plan holds %" PRId64 " bytes", mine);
    }
    plan->fh->layers_last = 1; /* a persistent plan keeps one layer */
    plan->fh->layer_bytes = 0;
    st = mcio_engine_run(plan, write, (char *)buf, 0, st, local, detail);
    return mcio_error_set(st, detail);
}

int mcio_plan_write(mcio_plan plan, const void *buf)
{
    return plan_run(plan, 1, buf);
}

int mcio_plan_read(mcio_plan plan, void *buf)
{
    return plan_run(plan, 0, buf);
}

int mcio_plan_free(mcio_plan *plan)
{
    if (!plan || !*plan)
        return mcio_error_set(MCIO_ERR_ARG, "plan is NULL");
    (*plan)->fh->live_plans--;
    mcio_engine_plan_free(*plan);
    *plan = MCIO_PLAN_NULL;
    return mcio_error_set(MCIO_SUCCESS, NULL);
}
