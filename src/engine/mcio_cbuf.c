/*
 * The collective buffer kept between calls (Thakur, Gropp, Lusk 1999 call it the collective
 * buffer; ROMIO frees it after every call): an aggregator keeps it on the file handle, the next
 * call reuses it when it is large enough, and the memory probe counts it as free; and a plan's
 * release, which gives the buffer back. Local, no communication.
 */
#ifndef _DEFAULT_SOURCE /* SMPI's compiler wrapper defines it */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mcio_twophase.h"

/* The collective buffer, page-aligned, and in transparent huge pages where the kernel offers
 * them (madvise mode included). A new buffer (the C library hands large blocks back to the
 * system; see mcio_cbuf_take for the one kept between calls) faults on its first touch, per 4 KiB:
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
char *mcio_cbuf_take(mcio_file fh, size_t n, size_t *cap)
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
int64_t mcio_cbuf_memory_ample(const mcio_file fh)
{
    int64_t a = 16 * fh->hints.cb_buffer_size, gib = (int64_t)1 << 30;
    return a > gib ? a : gib;
}

/* The buffer the file handle keeps is this call's to use: counted in this rank's memory
 * record (mcio_machine_memory_read's fields) as available (MemAvailable, the cgroup's
 * headroom, the rlimits' headroom), not as the cgroup's own. */
void mcio_cbuf_count_kept_as_free(const mcio_file fh, int64_t *mem)
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
