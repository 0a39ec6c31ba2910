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

/* Does the plan fit every node's usable memory? -1 when out of memory. */
int mcio_cost_plan_fits(const mcio_cost_inputs *in, const mcio_fdplan *fd, const int *slots);

/* An aggregated plan's time, walked domain by domain, in *seconds; 0 or MCIO_ERR_NOMEM. */
int mcio_cost_predict_plan(const mcio_cost_inputs *in, const mcio_fdplan *fd, int depth,
                           double *seconds);

#endif
