/*
 * The planning strategies, by name. A new strategy is a new file with a function of the
 * mcio_planner signature and one row in this table; the row says whether strategy auto's cost
 * model weighs it (candidate), and nothing else needs to know it.
 */
#include <string.h>

#include "mcio_placement.h"
#include "mcio_planner.h"

static int plan_romio(const mcio_topology *topo, const mcio_summary *sum,
                      mcio_planner_params params, mcio_fdplan *plan)
{
    int st = mcio_planner_romio_topo(topo, sum, params, plan);
    /* Which rank aggregates each domain: the mcio_placement and mcio_socket_rule hints. */
    if (st == MCIO_SUCCESS && (st = mcio_place_apply(topo, sum, params, plan)) != MCIO_SUCCESS)
        mcio_fdplan_free(plan);
    return st;
}

static int plan_memory(const mcio_topology *topo, const mcio_summary *sum,
                       mcio_planner_params params, mcio_fdplan *plan)
{
    return mcio_planner_memory(topo, sum, params, plan, NULL);
}

/* In enum mcio_strategy order. */
static const mcio_planner planners[] = {
    [MCIO_STRATEGY_ROMIO] = {.name = "romio", .plan = plan_romio,
                             .candidate = MCIO_CANDIDATE_ALWAYS},
    /* As a candidate, planned as the fit strategy plans it: romio where it fits. */
    [MCIO_STRATEGY_MEMORY] = {.name = "memory", .plan = plan_memory, .keeps_node_memory = 1,
                              .candidate = MCIO_CANDIDATE_UNFIT, .cost_plan = mcio_planner_auto},
    /* The default: the engine asks the cost model (costmodel.c) which configuration to run
     * and plans with romio or fit; as a planner on its own (mcio-plan), auto plans as fit. */
    [MCIO_STRATEGY_AUTO] = {.name = "auto", .plan = mcio_planner_auto, .keeps_node_memory = 1},
    /* romio when it fits the nodes' memory, else memory (memmodel.c), without the cost model:
     * the default before issue 20. It takes the independent plan itself when romio would. */
    [MCIO_STRATEGY_FIT] = {.name = "fit", .plan = mcio_planner_auto, .keeps_node_memory = 1},
};

const mcio_planner *mcio_planner_find(const char *name)
{
    for (size_t i = 0; i < sizeof planners / sizeof planners[0]; i++)
        if (strcmp(planners[i].name, name) == 0)
            return &planners[i];
    return NULL;
}

int mcio_planner_is_independent(const mcio_planner *pl, int nprocs, const mcio_summary *sum,
                                mcio_planner_params params)
{
    return params.cb != MCIO_CB_ENABLE && !pl->keeps_node_memory &&
           !mcio_planner_interleaved(nprocs, sum);
}

int mcio_planner_make(const mcio_planner *pl, const mcio_topology *topo, const mcio_summary *sum,
                      mcio_planner_params params, mcio_fdplan *plan)
{
    if (mcio_planner_is_independent(pl, topo->nprocs, sum, params))
        return mcio_planner_independent(topo->nprocs, sum, params, plan);
    return pl->plan(topo, sum, params, plan);
}

const mcio_planner *mcio_planner_at(int s)
{
    return mcio_planner_row(NULL, s);
}

const char *mcio_planner_name(int i)
{
    return i >= 0 && (size_t)i < sizeof planners / sizeof planners[0] ? planners[i].name : NULL;
}

mcio_planner_table mcio_planners(void)
{
    return (mcio_planner_table){planners, (int)(sizeof planners / sizeof planners[0])};
}

const mcio_planner *mcio_planner_row(const mcio_planner_table *t, int s)
{
    mcio_planner_table lib = mcio_planners();
    if (!t)
        t = &lib;
    return s >= 0 && s < t->n ? &t->rows[s] : NULL;
}
