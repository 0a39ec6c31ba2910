/*
 * Datatype flattening for the drop-in layer: an MPI datatype becomes its type map's blocks
 * (displacement, length in bytes), in type-map order, adjacent blocks merged. Flattened once per
 * datatype and cached on it (an attribute), shared by reference with the file views using it.
 */
#ifndef MCIO_PMPI_FLATTEN_H
#define MCIO_PMPI_FLATTEN_H

#include <mpi.h>
#include <stdint.h>

typedef struct mcio_flat {
    int refs;       /* the datatype's attribute holds one; each file view holding it, one */
    int ok;         /* 0: a constructor mcio does not flatten; the caller falls back to MPI */
    int monotone;   /* usable as a filetype: blocks non-negative, in increasing order */
    int tiles_ok;   /* and copies tiled at the extent do not overlap (blocks span <= extent) */
    int64_t size;   /* MPI_Type_size */
    int64_t lb, extent; /* MPI_Type_get_extent */
    int64_t n;      /* blocks */
    int64_t *disp, *len;
    int64_t *prefix; /* [n + 1]: data bytes before block i (for seeking into the type) */
} mcio_flat;

/* The flattened form of type, cached on it; the caller releases it with mcio_flat_release.
 * NULL only when out of memory. Not collective. */
mcio_flat *mcio_flat_get(MPI_Datatype type);

/* Take another reference. */
void mcio_flat_retain(mcio_flat *f);

/* Drop a reference; frees at zero. NULL is ignored. */
void mcio_flat_release(mcio_flat *f);

/* 1 when count instances of f, tiled at its extent, are one contiguous block. */
int mcio_flat_dense(const mcio_flat *f);

#endif
