/*
 * Fortran wrappers of the drop-in layer (libmcio_preload.so only), generated from the table
 * (mcio_pmpi_calls.h): its Fortran column (`use mpi` / mpif.h) and, with Open MPI, its mpi_f08
 * column. Open MPI's Fortran bindings call PMPI_File_* directly, so the C wrappers never see a
 * Fortran program's calls (MPICH's mpi_f08 open, close, set_view, set_info, get_info and sync
 * too): these take the Fortran symbols, convert the handles and call the C wrappers by their
 * MPI_ names, which in the preloaded library are ours.
 *
 * Both bindings pass the same things at the ABI level: handles as a pointer to an integer
 * (mpi_f08's TYPE(MPI_File) etc. hold one INTEGER, MPI_VAL), choice buffers as an address
 * (Open MPI's mpi_f08 declares them ignore-TKR), statuses as MPI_STATUS_SIZE integers
 * (TYPE(MPI_Status) has that layout), strings with a hidden length after the arguments. One
 * difference: mpi_f08's ierror is OPTIONAL, so a NULL ierr pointer means it was left out.
 * Fortran's MPI_BOTTOM as a buffer is not handled.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_pmpi_calls.h"

/* The layer's own C wrapper of MPI_<name> (in libmcio_preload.so the MPI_ name is ours): the
 * one place in src/ that calls an MPI_ name on purpose, so that the call enters the layer. */
#define MCIO_LAYER(name) MPI_##name

/* Store the result in ierr unless the (mpi_f08, optional) ierror was left out. */
#define MCIO_F_RETURN(ierr, expr)                                                 \
    do {                                                                          \
        MPI_Fint e_ = (MPI_Fint)(expr);                                           \
        if (ierr)                                                                 \
            *(ierr) = e_;                                                         \
    } while (0)

#define MCIO_F_P_INDIV MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *type
#define MCIO_F_P_AT MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count, MPI_Fint *type
#define MCIO_F_A_INDIV PMPI_File_f2c(*fh), buf, (int)*count, PMPI_Type_f2c(*type)
#define MCIO_F_A_AT PMPI_File_f2c(*fh), *offset, buf, (int)*count, PMPI_Type_f2c(*type)

static void status_out(const MPI_Status *st, MPI_Fint *fst)
{
    if (fst != MPI_F_STATUS_IGNORE)
        PMPI_Status_c2f(st, fst);
}

#define MCIO_F_BLOCKING(pos, cname, fname)                                        \
    void fname(MCIO_F_P_##pos, MPI_Fint *status, MPI_Fint *ierr);                 \
    void fname(MCIO_F_P_##pos, MPI_Fint *status, MPI_Fint *ierr)                  \
    {                                                                             \
        MPI_Status st;                                                            \
        int rc = MCIO_LAYER(cname)(MCIO_F_A_##pos, &st);                          \
        if (rc == MPI_SUCCESS)                                                    \
            status_out(&st, status);                                              \
        MCIO_F_RETURN(ierr, rc);                                                  \
    }
#define MCIO_F_NONBLOCKING(pos, cname, fname)                                     \
    void fname(MCIO_F_P_##pos, MPI_Fint *request, MPI_Fint *ierr);                \
    void fname(MCIO_F_P_##pos, MPI_Fint *request, MPI_Fint *ierr)                 \
    {                                                                             \
        MPI_Request rq = MPI_REQUEST_NULL;                                        \
        int rc = MCIO_LAYER(cname)(MCIO_F_A_##pos, &rq);                          \
        *request = PMPI_Request_c2f(rq);                                          \
        MCIO_F_RETURN(ierr, rc);                                                  \
    }
#define MCIO_F_BEGIN(pos, cname, fname)                                           \
    void fname(MCIO_F_P_##pos, MPI_Fint *ierr);                                   \
    void fname(MCIO_F_P_##pos, MPI_Fint *ierr)                                    \
    {                                                                             \
        MCIO_F_RETURN(ierr, MCIO_LAYER(cname)(MCIO_F_A_##pos));                   \
    }
#define MCIO_F_BLOCKING_INDIV(cname, fname) MCIO_F_BLOCKING(INDIV, cname, fname)
#define MCIO_F_BLOCKING_AT(cname, fname) MCIO_F_BLOCKING(AT, cname, fname)
#define MCIO_F_NONBLOCKING_INDIV(cname, fname) MCIO_F_NONBLOCKING(INDIV, cname, fname)
#define MCIO_F_NONBLOCKING_AT(cname, fname) MCIO_F_NONBLOCKING(AT, cname, fname)
#define MCIO_F_BEGIN_INDIV(cname, fname) MCIO_F_BEGIN(INDIV, cname, fname)
#define MCIO_F_BEGIN_AT(cname, fname) MCIO_F_BEGIN(AT, cname, fname)

#define MCIO_F_END(cname, fname)                                                  \
    void fname(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr);        \
    void fname(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr)         \
    {                                                                             \
        MPI_Status st;                                                            \
        int rc = MCIO_LAYER(cname)(PMPI_File_f2c(*fh), buf, &st);                 \
        if (rc == MPI_SUCCESS)                                                    \
            status_out(&st, status);                                              \
        MCIO_F_RETURN(ierr, rc);                                                  \
    }

/* A Fortran string (blank-padded, not terminated) as a C string; NULL when out of memory. */
static char *c_string(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

static int f_open(MPI_Fint *comm, char *name, MPI_Fint *amode, MPI_Fint *info, MPI_Fint *fh,
                  size_t name_len)
{
    char *path = c_string(name, name_len);
    MPI_File c = MPI_FILE_NULL;
    if (!path)
        return MPI_ERR_NO_MEM;
    int rc = MCIO_LAYER(File_open)(PMPI_Comm_f2c(*comm), path, (int)*amode, PMPI_Info_f2c(*info), &c);
    *fh = PMPI_File_c2f(c);
    free(path);
    return rc;
}
#define MCIO_F_OPEN(cname, fname)                                                            \
    void fname(MPI_Fint *comm, char *name, MPI_Fint *amode, MPI_Fint *info, MPI_Fint *fh,    \
               MPI_Fint *ierr, size_t name_len);                                             \
    void fname(MPI_Fint *comm, char *name, MPI_Fint *amode, MPI_Fint *info, MPI_Fint *fh,    \
               MPI_Fint *ierr, size_t name_len)                                              \
    {                                                                                        \
        MCIO_F_RETURN(ierr, f_open(comm, name, amode, info, fh, name_len));                  \
    }

static int f_close(MPI_Fint *fh)
{
    MPI_File c = PMPI_File_f2c(*fh);
    int rc = MCIO_LAYER(File_close)(&c);
    *fh = PMPI_File_c2f(c);
    return rc;
}
#define MCIO_F_CLOSE(cname, fname)                                                \
    void fname(MPI_Fint *fh, MPI_Fint *ierr);                                     \
    void fname(MPI_Fint *fh, MPI_Fint *ierr) { MCIO_F_RETURN(ierr, f_close(fh)); }

static int f_set_view(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,
                      char *datarep, MPI_Fint *info, size_t datarep_len)
{
    char *rep = c_string(datarep, datarep_len);
    if (!rep)
        return MPI_ERR_NO_MEM;
    int rc = MCIO_LAYER(File_set_view)(PMPI_File_f2c(*fh), *disp, PMPI_Type_f2c(*etype),
                                       PMPI_Type_f2c(*filetype), rep, PMPI_Info_f2c(*info));
    free(rep);
    return rc;
}
#define MCIO_F_SET_VIEW(cname, fname)                                                        \
    void fname(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,          \
               char *datarep, MPI_Fint *info, MPI_Fint *ierr, size_t datarep_len);           \
    void fname(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,          \
               char *datarep, MPI_Fint *info, MPI_Fint *ierr, size_t datarep_len)            \
    {                                                                                        \
        MCIO_F_RETURN(ierr, f_set_view(fh, disp, etype, filetype, datarep, info, datarep_len)); \
    }

#define MCIO_F_SET_INFO(cname, fname)                                             \
    void fname(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr);                     \
    void fname(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr)                      \
    {                                                                             \
        MCIO_F_RETURN(ierr, MCIO_LAYER(cname)(PMPI_File_f2c(*fh), PMPI_Info_f2c(*info))); \
    }

static int f_get_info(MPI_Fint *fh, MPI_Fint *info)
{
    MPI_Info c = MPI_INFO_NULL;
    int rc = MCIO_LAYER(File_get_info)(PMPI_File_f2c(*fh), &c);
    *info = PMPI_Info_c2f(c);
    return rc;
}
#define MCIO_F_GET_INFO(cname, fname)                                             \
    void fname(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr);                     \
    void fname(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr)                      \
    {                                                                             \
        MCIO_F_RETURN(ierr, f_get_info(fh, info));                                \
    }

#define MCIO_F_SYNC(cname, fname)                                                 \
    void fname(MPI_Fint *fh, MPI_Fint *ierr);                                     \
    void fname(MPI_Fint *fh, MPI_Fint *ierr)                                      \
    {                                                                             \
        MCIO_F_RETURN(ierr, MCIO_LAYER(cname)(PMPI_File_f2c(*fh)));               \
    }

#define MCIO_F_WRAPPER(name, shape, wr, buf_t, large, fsym, f08sym, err)          \
    MCIO_F_##shape(name, fsym)
MCIO_PMPI_CALLS(MCIO_F_WRAPPER)

/* mpi_f08: Open MPI's call PMPI_ directly, every one. MPICH's data calls (mpi_file_*_f08ts_,
 * choice buffers as C descriptors) call the C MPI_ names, which the C wrappers serve; its
 * bookkeeping calls (mpi_file_open_f08_, ...) call PMPI_ directly and are wrapped here. */
#ifdef OPEN_MPI
#define MCIO_F08(shape, name, sym) MCIO_F_##shape(name, sym)
#else
#define MCIO_F08(shape, name, sym) MCIO_F08_MPICH_##shape(name, sym)
#define MCIO_F08_MPICH_BLOCKING_INDIV(name, sym)
#define MCIO_F08_MPICH_BLOCKING_AT(name, sym)
#define MCIO_F08_MPICH_NONBLOCKING_INDIV(name, sym)
#define MCIO_F08_MPICH_NONBLOCKING_AT(name, sym)
#define MCIO_F08_MPICH_BEGIN_INDIV(name, sym)
#define MCIO_F08_MPICH_BEGIN_AT(name, sym)
#define MCIO_F08_MPICH_END(name, sym)
#define MCIO_F08_MPICH_OPEN MCIO_F_OPEN
#define MCIO_F08_MPICH_CLOSE MCIO_F_CLOSE
#define MCIO_F08_MPICH_SET_VIEW MCIO_F_SET_VIEW
#define MCIO_F08_MPICH_SET_INFO MCIO_F_SET_INFO
#define MCIO_F08_MPICH_GET_INFO MCIO_F_GET_INFO
#define MCIO_F08_MPICH_SYNC MCIO_F_SYNC
#endif
#define MCIO_F08_WRAPPER(name, shape, wr, buf_t, large, fsym, f08sym, err)        \
    MCIO_F08(shape, name, f08sym)
MCIO_PMPI_CALLS(MCIO_F08_WRAPPER)
