/*
 * TAPIOCA's distributed election with MPI_MINLOC (design note in mcio_place_minloc.h).
 * Glossary in mcio_placement.h: partition (file domain), V_C (its senders), C1, C2.
 */
#include "mcio_place_minloc.h"

#include <float.h>
#include <stdlib.h>

int mcio_engine_place_minloc(MPI_Comm comm, const mcio_topology *topo, const mcio_summary *sum,
                             int policy, int ndomains, const int64_t *fd_start,
                             const int64_t *fd_end, int *agg_rank)
{
    int me, st = MCIO_SUCCESS;
    PMPI_Comm_rank(comm, &me);
    if (policy <= MCIO_PLACE_SPREAD || policy >= MCIO_PLACE_COUNT || ndomains > topo->nprocs)
        return MCIO_ERR_ARG; /* every rank sees the same arguments: no need to agree */
    char *used = calloc((size_t)topo->nprocs + 1, 1);
    int ok = used != NULL, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(used);
        return MCIO_ERR_NOMEM;
    }
    for (int d = 0; d < ndomains; d++) {
        const mcio_summary *s = &sum[me];
        int sender = s->bytes > 0 && s->end > fd_start[d] && s->start < fd_end[d];
        double key = DBL_MAX;
        /* DBL_MAX marks "not a candidate". A rank that cannot compute its key sends -DBL_MAX,
         * which wins the reduction, with -1 - status as its rank: every rank learns the error. */
        int err = MCIO_SUCCESS;
        if (!used[me])
            err = mcio_place_key(topo, sum, policy, fd_start[d], fd_end[d], me, &key);
        /* Senders first: the domain's unused ranks; when none is left, any unused rank. */
        struct {
            double val;
            int rank;
        } in, out;
        for (int wide = 0; wide < 2; wide++) {
            in.val = err != MCIO_SUCCESS                   ? -DBL_MAX
                     : !used[me] && (sender || wide) ? key
                                                     : DBL_MAX;
            in.rank = err == MCIO_SUCCESS ? me : -1 - err;
            PMPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
            if (out.val < DBL_MAX || out.rank < 0)
                break;
        }
        if (out.rank < 0) {
            st = -1 - out.rank;
            break;
        }
        agg_rank[d] = out.rank;
        used[out.rank] = 1;
    }
    free(used);
    return st;
}
