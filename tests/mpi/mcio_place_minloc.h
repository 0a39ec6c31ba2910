/*
 * TAPIOCA's distributed aggregator election (Tessier, Vishwanath, Jeannot 2017, section 4.1):
 * every rank computes its own cost as the aggregator of each domain and an MPI_MINLOC-like
 * allreduce elects the cheapest. MPI_MINLOC itself would settle ties by rank; the reduction is
 * a user-defined one over (cost, aggregators on the rank's node, rank), so that ties go first
 * to the node hosting fewer aggregators, then to the lower rank, as in the planner
 * (mcio_place_better). Every rank learns each winner and so every node's count. Communicates;
 * it elects exactly what the pure mcio_place_aggregators elects from allgathered data (socket
 * rule none), which is what the planner uses, since the engine allgathers the summaries for
 * planning anyway.
 */
#ifndef MCIO_PLACE_MINLOC_H
#define MCIO_PLACE_MINLOC_H

#include <mpi.h>

#include "mcio_placement.h"

/*
 * Collective over comm (whose ranks are topo's ranks): elect the aggregators of ndomains
 * domains [fd_start[d], fd_end[d]) in domain order with policy (enum mcio_placement other than
 * SPREAD), one allreduce per domain (two when no rank of the domain is left), plus one to agree
 * that every rank could set up (memory, the reduction's datatype and MPI_Op). Every rank passes
 * the same arguments and gets the same agg_rank. Returns 0 or an MCIO_ERR_* code, the same on
 * every rank.
 */
int mcio_engine_place_minloc(MPI_Comm comm, const mcio_topology *topo, const mcio_summary *sum,
                             int policy, int ndomains, const int64_t *fd_start,
                             const int64_t *fd_end, int *agg_rank);

#endif
