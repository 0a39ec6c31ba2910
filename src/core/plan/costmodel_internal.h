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

/* The independent candidate's time in c->seconds (costmodel.c); 0 or MCIO_ERR_NOMEM. */
int mcio_cost_predict_independent(const mcio_cost_inputs *in, mcio_cost_config *c);

/* What every candidate's plan and prediction of one call share, built once per decision
 * rather than once per candidate (each of these is a sort or a pass over the ranks). */
typedef struct mcio_cost_prep {
    mcio_spans spans;   /* the summaries' merged spans: the planners' data regions */
    mcio_reqmap map;    /* the request map: a domain's bytes */
    mcio_topology topo; /* in->topo with spans: what the planners see */
    double density;     /* the ranks' pieces per byte over all their bytes */
    int *ranks;         /* [nnodes] ranks per node */
    int *own;           /* [nprocs] scratch of a walk: -1, but for the aggregators it marks */
} mcio_cost_prep;

/* Build *p for in (freed by mcio_cost_prep_free, also on failure); 0 or MCIO_ERR_NOMEM. */
int mcio_cost_prep_build(const mcio_cost_inputs *in, mcio_cost_prep *p);
void mcio_cost_prep_free(mcio_cost_prep *p);

/* Each domain's messages in msgs[ndomains] (the windows its ranks meet, but its aggregator's
 * own), as mcio_cost_predict_plan counts them; 0 or MCIO_ERR_NOMEM. */
int mcio_cost_domain_messages(const mcio_cost_inputs *in, mcio_cost_prep *prep,
                              const mcio_fdplan *fd, double *msgs);

/* An aggregated plan's time, walked domain by domain, in *seconds, with the shared parts of
 * prep (NULL: built for this plan alone); 0 or MCIO_ERR_NOMEM. */
int mcio_cost_predict_plan(const mcio_cost_inputs *in, mcio_cost_prep *prep,
                           const mcio_fdplan *fd, int depth, double *seconds);

#endif
