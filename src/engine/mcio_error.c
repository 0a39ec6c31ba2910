#include <string.h>

#include "mcio_engine.h"

static _Thread_local char last_error[MCIO_DETAIL_LEN];

const char *mcio_strerror(int status)
{
    switch (status) {
#define MCIO_X_CASE(name, value, msg) \
    case name:                        \
        return msg;
        MCIO_ERRORS(MCIO_X_CASE)
#undef MCIO_X_CASE
    default:
        return "unknown mcio status";
    }
}

const char *mcio_error_message(void)
{
    return last_error;
}

int mcio_error_set(int status, const char *detail)
{
    if (status == MCIO_SUCCESS)
        last_error[0] = '\0';
    else
        snprintf(last_error, sizeof last_error, "%s: %s", mcio_strerror(status),
                 detail && *detail ? detail : "(no detail)");
    return status;
}

int mcio_engine_agree(MPI_Comm comm, int status, char detail[MCIO_DETAIL_LEN], int64_t *maxvals,
                      int nvals)
{
    int rank, nprocs;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &nprocs);
    int64_t v[16];
    /* v[0]: the lowest failing rank wins the max (nprocs - rank; 0 when none failed). */
    v[0] = status != MCIO_SUCCESS ? nprocs - rank : 0;
    for (int i = 0; i < nvals && i < 15; i++)
        v[1 + i] = maxvals[i];
    PMPI_Allreduce(MPI_IN_PLACE, v, 1 + nvals, MPI_INT64_T, MPI_MAX, comm);
    for (int i = 0; i < nvals && i < 15; i++)
        maxvals[i] = v[1 + i];
    if (v[0] == 0)
        return MCIO_SUCCESS;
    return mcio_engine_agree_from(comm, nprocs - (int)v[0], status, detail);
}

int mcio_engine_agree_from(MPI_Comm comm, int root, int status, char detail[MCIO_DETAIL_LEN])
{
    int rank, nprocs;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &nprocs);
    struct {
        int status;
        char detail[MCIO_DETAIL_LEN];
    } msg;
    if (rank == root) {
        msg.status = status;
        snprintf(msg.detail, sizeof msg.detail, "%s", detail);
    }
    PMPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, root, comm);
    if (nprocs == 1)
        snprintf(detail, MCIO_DETAIL_LEN, "%s", msg.detail);
    else
        snprintf(detail, MCIO_DETAIL_LEN, "rank %d: %.240s", root, msg.detail);
    return msg.status;
}
