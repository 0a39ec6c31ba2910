/*
 * The two-phase engine's files and what they share (internal to src/engine):
 *   mcio_twophase.c   planning orchestration: gather -> mcio_decide -> this rank's schedule
 *   mcio_lists.c      phase 3, the list exchange, and the buffers the rounds need
 *   mcio_cbuf.c       the collective buffer kept between calls, and a plan's release
 *   mcio_run.c        phases 4-5: the executor, the closing sync and verify, the agreement
 *   mcio_bytesfirst.c calls that move their bytes first and gather after
 * The calls go one way: bytes-first and run use planning's helpers, planning uses the list
 * exchange, which uses the buffer cache.
 */
#ifndef MCIO_TWOPHASE_H
#define MCIO_TWOPHASE_H

#include "mcio_engine.h"

/* --- mcio_cbuf.c --- */

/* A collective buffer of at least n bytes: the file's kept one when it is large enough, else a
 * new one; *cap: its bytes. NULL without memory. */
char *mcio_cbuf_take(mcio_file fh, size_t n, size_t *cap);

/* The room beyond which an earlier call's memory reading may stand for this call's. */
int64_t mcio_cbuf_memory_ample(const mcio_file fh);

/* Count the file's kept collective buffer as free in this rank's memory words. */
void mcio_cbuf_count_kept_as_free(const mcio_file fh, int64_t *mem);

/* --- mcio_lists.c --- */

/* Buffers of the list exchange, allocated before the ranks agree to start it. */
typedef struct mcio_list_bufs {
    int64_t *count, *start; /* [ndomains + 1] my pieces per domain, and where they start */
    mcio_piece *mine;       /* [my pieces] by domain, in file order, touching pieces merged */
    uint8_t *code;          /* [16 * my pieces + ndomains] each domain's list, encoded
                               (mcio_listcode.h) */
    MPI_Request *sreq;      /* [ndomains] */
    int *senders;           /* [ndomains] ranks that send to each domain */
    int64_t *nlist;         /* [nprocs] pieces each sender has in my domain */
    mcio_piece **lists;     /* [nprocs] */
    int nlists;             /* entries of nlist and lists: nprocs on an aggregator, else 0 */
} mcio_list_bufs;

void mcio_list_bufs_free(mcio_list_bufs *b);
int mcio_list_bufs_alloc(mcio_list_bufs *b, int ndomains, int64_t npieces, int nprocs);

/* Phase 3: offset-length lists, point to point; then the buffers the rounds will need and the
 * plan's own memory. Collective (the list exchange); not agreed here. */
int mcio_engine_exchange_and_allocate(mcio_file fh, struct mcio_plan_s *p, mcio_list_bufs *lb,
                                      int aggregate, char detail[MCIO_DETAIL_LEN]);

/* --- mcio_gather.c --- */

/* The lowest rank whose gathered record says it failed, or -1. Local. */
int mcio_engine_first_failed(const mcio_file fh);

/* Collective: this rank's record into every rank's fh->summaries; the agreed status. */
int mcio_engine_gather_records(mcio_file fh, const struct mcio_plan_s *p, int st, char *where,
                               char detail[MCIO_DETAIL_LEN]);

/* The nodes' memory from the gathered records (local; shared in simulation). */
void mcio_engine_combine_memory(mcio_file fh, const char *where, int write);

/* The summaries' bytes this rank sent and received (MCIO_STATS). Local. */
void mcio_engine_summaries_counted(mcio_file fh, mcio_plan p);

/* *key = the gathered records' key of a choice's inputs (mcio_decide_key); 0 without memory. */
int mcio_engine_choice_key(const mcio_file fh, uint64_t *key);

/* The machine and the nodes' memory now, as the planner sees them; calls: the ranks'
 * own-access calls (mcio_engine_rank_calls), or NULL. Local. */
mcio_topology mcio_engine_call_topology(const mcio_file fh, const int64_t *calls);

#ifdef MCIO_SIMULATE
/* *dst = a copy of src's bytes in an allocation of its own (NULL src: NULL); 0 or NOMEM. */
int mcio_engine_copy_array(void **dst, const void *src, size_t bytes);
#endif

/* --- mcio_stats.c --- */

/* mcio_stats_model, once per call in the simulation build. Local. */
int mcio_engine_stats_model_once(mcio_file fh, struct mcio_plan_s *p, int write);

#endif
