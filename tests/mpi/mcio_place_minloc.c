/*
 * TAPIOCA's distributed election with MPI_MINLOC (design note in mcio_place_minloc.h), its
 * MINLOC widened to the planner's tie rule: a user-defined reduction over (key, node load,
 * rank) ordered by mcio_place_better, one allreduce per domain as before.
 * Glossary in mcio_placement.h: partition (file domain), V_C (its senders), C1, C2; node load
 * (placement.c): the aggregators already elected on a node.
 */
#include "mcio_place_minloc.h"

#include <float.h>
#include <stddef.h>
#include <stdlib.h>

/* MPI_User_function: inout[i] becomes the better of in[i] and inout[i]. mcio_place_better is a
 * total order on distinct ranks, so the reduction is commutative and associative. */
static void better_of(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const mcio_place_candidate *a = in;
    mcio_place_candidate *b = inout;
    for (int i = 0; i < *len; i++)
        if (mcio_place_better(&a[i], &b[i]))
            b[i] = a[i];
}

/* The datatype of mcio_place_candidate and the reduction; 0 when MPI refuses either. */
static int candidate_op_create(MPI_Datatype *type, MPI_Op *op)
{
    int blocklens[3] = {1, 1, 1};
    MPI_Aint displs[3] = {offsetof(mcio_place_candidate, key),
                          offsetof(mcio_place_candidate, node_load),
                          offsetof(mcio_place_candidate, rank)};
    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_INT}, raw;
    *type = MPI_DATATYPE_NULL;
    *op = MPI_OP_NULL;
    if (PMPI_Type_create_struct(3, blocklens, displs, types, &raw) != MPI_SUCCESS)
        return 0;
    int rc = PMPI_Type_create_resized(raw, 0, (MPI_Aint)sizeof(mcio_place_candidate), type);
    PMPI_Type_free(&raw);
    if (rc != MPI_SUCCESS) {
        *type = MPI_DATATYPE_NULL;
        return 0;
    }
    if (PMPI_Type_commit(type) != MPI_SUCCESS)
        goto fail;
    if (PMPI_Op_create(better_of, 1, op) != MPI_SUCCESS)
        goto fail;
    return 1;
fail:
    if (*type != MPI_DATATYPE_NULL)
        PMPI_Type_free(type);
    return 0;
}

int mcio_engine_place_minloc(MPI_Comm comm, const mcio_topology *topo, const mcio_summary *sum,
                             int policy, int ndomains, const int64_t *fd_start,
                             const int64_t *fd_end, int *agg_rank)
{
    int me, st = MCIO_SUCCESS;
    PMPI_Comm_rank(comm, &me);
    int my_node = topo->node_of_rank[me];
    if (policy <= MCIO_PLACE_SPREAD || policy >= MCIO_PLACE_COUNT || ndomains > topo->nprocs)
        return MCIO_ERR_ARG; /* every rank sees the same arguments: no need to agree */
    char *used = calloc((size_t)topo->nprocs + 1, 1);
    int *node_load = calloc((size_t)topo->nnodes + 1, sizeof(int)); /* every rank learns it */
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    int ok = used && node_load && candidate_op_create(&type, &op), all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        st = MCIO_ERR_NOMEM;
        goto done;
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
        mcio_place_candidate in, out;
        for (int wide = 0; wide < 2; wide++) {
            in.key = err != MCIO_SUCCESS                   ? -DBL_MAX
                     : !used[me] && (sender || wide) ? key
                                                     : DBL_MAX;
            in.node_load = err == MCIO_SUCCESS ? node_load[my_node] : 0;
            in.rank = err == MCIO_SUCCESS ? me : -1 - err;
            PMPI_Allreduce(&in, &out, 1, type, op, comm);
            if (out.key < DBL_MAX || out.rank < 0)
                break;
        }
        if (out.rank < 0) {
            st = -1 - out.rank;
            break;
        }
        agg_rank[d] = out.rank;
        used[out.rank] = 1;
        node_load[topo->node_of_rank[out.rank]]++;
    }
done:
    if (op != MPI_OP_NULL)
        PMPI_Op_free(&op);
    if (type != MPI_DATATYPE_NULL)
        PMPI_Type_free(&type);
    free(used);
    free(node_load);
    return st;
}
