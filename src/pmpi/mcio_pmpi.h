/*
 * The drop-in layer's core, shared by the C wrappers (mcio_pmpi.c) and the Fortran ones
 * (mcio_pmpi_fortran.c).
 */
#ifndef MCIO_PMPI_H
#define MCIO_PMPI_H

#include <mpi.h>
#include <stdint.h>

/* The four shapes of a collective data call. */
enum { MCIO_FORM_BLOCKING, MCIO_FORM_NONBLOCKING, MCIO_FORM_BEGIN };

/* One collective data call, as the application made it. */
typedef struct mcio_pmpi_call {
    MPI_File fh;
    int write;      /* 1 write, 0 read */
    int at;         /* explicit offset (in etypes of the view); else the individual pointer */
    int64_t offset;
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    int form;
    MPI_Status *status;   /* MCIO_FORM_BLOCKING */
    MPI_Request *request; /* MCIO_FORM_NONBLOCKING */
} mcio_pmpi_call;

/*
 * Collective over the file's communicator. Runs the call through the engine and returns 1 with
 * *rc set (MPI_SUCCESS, or an error code already raised through the file's error handler), or
 * returns 0 having done nothing, when every rank of the file must pass the call to the MPI
 * library instead (not an mcio file, interception off, atomic mode, an unsupported view or
 * datatype on some rank).
 */
int mcio_pmpi_collective(const mcio_pmpi_call *c, int *rc);

/* The end of a split collective: 1 with *rc and *status set when mcio ran its begin. Local. */
int mcio_pmpi_split_end(MPI_File fh, MPI_Status *status, int *rc);

/* What the wrappers of open, close, set_view, set_info, get_info and sync do after (open,
 * set_view, set_info, get_info, sync) or before (close) the MPI library's routine. */
void mcio_pmpi_after_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File fh);
int mcio_pmpi_before_close(MPI_File fh);
void mcio_pmpi_after_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                              MPI_Datatype filetype, const char *datarep, MPI_Info info);
void mcio_pmpi_after_set_info(MPI_File fh, MPI_Info info);
void mcio_pmpi_after_get_info(MPI_File fh, MPI_Info info);
int mcio_pmpi_after_sync(MPI_File fh);

#endif
