/*
 * One collective call's decision, pure (decide.c): everything the engine gathered in, the whole
 * plan out. The engine is gather -> mcio_decide -> move; mcio-plan calls the same function on a
 * described job, so the tool and the library cannot choose differently from the same inputs.
 */
#ifndef MCIO_DECIDE_H
#define MCIO_DECIDE_H

#include <stdint.h>

#include "mcio_costmodel.h"
#include "mcio_planner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The hints one operation is decided with, typed (mcio_hints_decide builds it from the file's
 * hints: the planner layer cannot read them itself). */
typedef struct mcio_decide_hints {
    int strategy;               /* enum mcio_strategy */
    mcio_planner_params params; /* the operation's (mcio_hints_planner_params), stripe = the
                                   stripe the operation aligns on (mcio_fs_align_stripe) */
    int depth;                  /* mcio_pipeline_depth */
    int64_t subbuffer;          /* mcio_subbuffer_size (0: from the stripe) */
    unsigned fixed;             /* what the user set (enum mcio_cost_fixed) */
} mcio_decide_hints;

typedef struct mcio_decide_inputs {
    const mcio_topology *topo;   /* the machine, the nodes' memory now (node_mem), the ranks'
                                    extents and own-access calls (rank_extents, rank_calls) */
    const mcio_summary *sum;     /* [nprocs] the gathered summaries */
    mcio_decide_hints hints;
    const mcio_cost_table *cost; /* strategy auto: the file system's costs */
    int write;
    int sync;                    /* a write that ends with a sync on every rank */
    int64_t fs_block;            /* the file system's block: a pipeline's alignment without a
                                    stripe (mcio_pipeline_unit) */
    const mcio_planner_table *planners; /* the strategies (hints.strategy indexes it) and auto's
                                           candidates; NULL: the library's (mcio_planners) */
} mcio_decide_inputs;

/* An operation's last choice of the cost model and the key of the inputs it was made from: a
 * call with the same key takes the choice again without deciding (deciding plans every
 * candidate: 0.1-1 ms at 8 ranks, seconds at 100,000). */
typedef struct mcio_chosen {
    int valid;
    int stale; /* the engine's online check found a call far from the choice's prediction
                  (mcio_cost_observe): the next call with the key decides again, with this
                  choice as the previous one (issue 48) */
    uint64_t key;
    uint64_t shape; /* the key's summaries and extents, without the memory: what corrections
                       are kept by (mcio_decide_shape) */
    mcio_cost_choice choice; /* the model's predictions, before corrections */
} mcio_chosen;

/* The whole plan of one call. */
typedef struct mcio_decision {
    int strategy;    /* the planner of fd (enum mcio_strategy; for auto the chosen one), or -1:
                        each rank accesses its own pieces */
    int own_access;  /* no aggregation: fd lists each rank's own domain (for the statistics) */
    mcio_fdplan fd;  /* domains, aggregators, rounds */
    int *slots;      /* [ndomains] sub-buffers in flight for a pipeline (depth > 1), else NULL */
    int depth;       /* the pipeline depth it runs with (the hint, or chosen) */
    int cb_rounds;   /* the busiest aggregator's rounds in collective buffers, before a
                        pipeline of the hint cut them into sub-buffers */
    int chose;       /* 0: the hints decided; 1: the cost model chose; 2: it took prev again */
    mcio_cost_choice choice; /* strategy auto: the choice, its predicted time and fit, and the
                                runner-up */
    mcio_chosen memo;        /* the operation's choice after this call, for the next */
    int64_t total_bytes;     /* over all ranks */
} mcio_decision;

/*
 * Decide one call's plan: with strategy auto, the cost model's choice (or prev's, when the
 * inputs are those prev was made from, it is not stale and it still fits the nodes' memory) and
 * its plan. The choice is settled among the candidates whose predictions (each multiplied by
 * its correction, mcio_cost_correction_of; independent access's divided by the aggregation
 * margin, mcio_cost_aggregation_margin) lie within the table's spread of the fastest's
 * (cost->spread, the figures' noise over the probes: issue 48): prev's configuration when it
 * is one of them and prev was made from the same inputs, else the first in the model's order
 * of candidates (mcio_cost_decide: independent access, then fewer aggregators per node, the
 * hints' buffer, shallower pipelines) within the smaller of the spread and 10 % of the
 * fastest, so that figures that move within their noise do not move a choice made, and a
 * choice moves only for a candidate faster by more than the spread;
 * otherwise the hints' strategy, or each rank's own access with romio_cb_* disable. A pipeline
 * (depth > 1) comes subdivided. prev: the operation's last choice, or NULL. Pure: the same
 * inputs give the same decision on every rank. 0 or an MCIO_ERR_* code; out holds what it
 * allocated either way (mcio_decision_free).
 */
int mcio_decide(const mcio_decide_inputs *in, const mcio_chosen *prev, mcio_decision *out);

void mcio_decision_free(mcio_decision *d);

/* The cost model's inputs of a decision under strategy auto (mcio-plan --candidates lists what
 * the model predicted from them). Pure. */
mcio_cost_inputs mcio_decide_cost_inputs(const mcio_decide_inputs *in);

/* The key of what a choice depends on and a call may change: the summaries, the ranks'
 * extents and own-access calls, each node's memory to 1/16. */
uint64_t mcio_decide_key(const mcio_topology *topo, const mcio_summary *sum);

/* The key's summaries and extents alone: the shape of a call, the same from job to job where
 * the nodes' memory is not (the online check's corrections are kept by it). */
uint64_t mcio_decide_shape(const mcio_topology *topo, const mcio_summary *sum);

/* One word into a key: splitmix64's finalizer over h ^ w. */
uint64_t mcio_key_word(uint64_t h, int64_t w);

#ifdef __cplusplus
}
#endif
#endif
