/*
 * Shared between the cost model's files (costmodel.c: one candidate's prediction;
 * costcandidates.c: the candidates and the choice), not part of mcio_costmodel.h's interface.
 */
#ifndef MCIO_COSTMODEL_INTERNAL_H
#define MCIO_COSTMODEL_INTERNAL_H

#include "mcio_costmodel.h"

/* Is the file access the node's CPU work (the page cache's copies)? */
static inline int io_is_cpu(const mcio_cost_table *t)
{
    return t->cores > 0 && !t->remote;
}

/* Rank r's extents (1 where unknown). */
static inline int64_t mcio_cost_rank_extents(const mcio_topology *topo, int r)
{
    return topo->rank_extents && topo->rank_extents[r] > 0 ? topo->rank_extents[r] : 1;
}

/* Rank r's pieces per byte (its extents over its bytes; 0 where the extents are unknown): a
 * message of its pieces is a datatype of that many blocks. */
static inline double mcio_cost_piece_density(const mcio_topology *topo, const mcio_summary *sum, int r)
{
    return topo->rank_extents && sum[r].bytes > 0
               ? (double)mcio_cost_rank_extents(topo, r) / (double)sum[r].bytes
               : 0;
}

/* The independent candidate's time in c->seconds (costmodel.c); 0 or MCIO_ERR_NOMEM. */
int mcio_cost_predict_independent(const mcio_cost_inputs *in, mcio_cost_config *c);

/* A plan walked (mcio_cost_walk_ranks) and what the walk found, kept for the candidates whose
 * plan is the same. */
typedef struct mcio_cost_walked {
    mcio_fdplan fd; /* a copy of the plan; ndomains 0: nothing kept */
    double *found;  /* bytes, remote, msgs [ndomains each], cpu [nnodes], the slowest sender */
} mcio_cost_walked;

enum { MCIO_COST_WALKED = 2 }; /* a plan and its pipelined one, for each aggregator count */

/* What every candidate's plan and prediction of one call share, built once per decision
 * rather than once per candidate (each of these is a sort or a pass over the ranks). */
typedef struct mcio_cost_prep {
    mcio_spans spans;   /* the summaries' merged spans: the planners' data regions */
    mcio_reqmap map;    /* the request map: a domain's bytes */
    mcio_topology topo; /* in->topo with spans: what the planners see */
    double density;     /* the ranks' pieces per byte over all their bytes */
    int *ranks;         /* [nnodes] ranks per node */
    int *own;           /* [nprocs] scratch of a walk: -1, but for the aggregators it marks */
    mcio_cost_walked walked[MCIO_COST_WALKED]; /* the last plans walked */
    int next;                                  /* the one replaced next */
} mcio_cost_prep;

/* Build *p for in (freed by mcio_cost_prep_free, also on failure); 0 or MCIO_ERR_NOMEM. */
int mcio_cost_prep_build(const mcio_cost_inputs *in, mcio_cost_prep *p);
void mcio_cost_prep_free(mcio_cost_prep *p);

/* The walk of an aggregated plan's domains and ranks (costwalk.c): per domain its bytes,
 * remote bytes (not its aggregator's own) and messages, per node its senders' CPU (cpu, set),
 * the slowest sender's time in *worst; a plan walked just before is prep's copy.
 * 0 or MCIO_ERR_NOMEM. */
int mcio_cost_walk_ranks(const mcio_cost_inputs *in, mcio_cost_prep *prep, const mcio_fdplan *fd,
                         double *bytes, double *remote, double *msgs, double *cpu, double *worst);

/* Each domain's messages in msgs[ndomains] (the windows its ranks meet, but its aggregator's
 * own), as mcio_cost_predict_plan counts them; 0 or MCIO_ERR_NOMEM. */
int mcio_cost_domain_messages(const mcio_cost_inputs *in, mcio_cost_prep *prep,
                              const mcio_fdplan *fd, double *msgs);

/* An aggregated plan's time, walked domain by domain, in *seconds, with the shared parts of
 * prep (NULL: built for this plan alone); 0 or MCIO_ERR_NOMEM. */
int mcio_cost_predict_plan(const mcio_cost_inputs *in, mcio_cost_prep *prep,
                           const mcio_fdplan *fd, int depth, double *seconds);

#endif
