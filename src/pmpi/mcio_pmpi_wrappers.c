/*
 * The C wrappers of the drop-in layer, generated from one list. Built twice: into
 * libmcio_preload.so (the wrappers are the MPI_ names) and, with -DMCIO_PMPI_LINKTIME, into
 * libmcio_wrap.a (the wrappers are __wrap_ names for -Wl,--wrap). The list of wrapped names
 * (mcio_pmpi_list.h) also gives CMake the --wrap options.
 */
#include <mpi.h>
#include <stddef.h>

#include "mcio_pmpi.h"
#include "mcio_pmpi_list.h"
#include "mcio_pmpi_wrap.h"

/* Parameters and arguments by position (individual pointer or explicit offset) and by form. */
#define MCIO_P_INDIV(buf_t, cnt_t) MPI_File fh, buf_t buf, cnt_t count, MPI_Datatype type
#define MCIO_P_AT(buf_t, cnt_t) MPI_File fh, MPI_Offset offset, buf_t buf, cnt_t count, MPI_Datatype type
#define MCIO_A_INDIV fh, buf, count, type
#define MCIO_A_AT fh, offset, buf, count, type
#define MCIO_OFF_INDIV .at = 0
#define MCIO_OFF_AT .at = 1, .offset = offset
#define MCIO_T_BLOCKING , MPI_Status *status
#define MCIO_T_NONBLOCKING , MPI_Request *request
#define MCIO_T_BEGIN
#define MCIO_TA_BLOCKING , status
#define MCIO_TA_NONBLOCKING , request
#define MCIO_TA_BEGIN
#define MCIO_S_BLOCKING .status = status
#define MCIO_S_NONBLOCKING .request = request
#define MCIO_S_BEGIN .status = NULL

#define MCIO_DEFINE_COLLECTIVE(fm, pos, wr, name, buf_t, cnt_t)                               \
    MCIO_REAL_DECL(int, MPI_##name, (MCIO_P_##pos(buf_t, cnt_t) MCIO_T_##fm))              \
    int MCIO_WRAPPER(MPI_##name)(MCIO_P_##pos(buf_t, cnt_t) MCIO_T_##fm)                   \
    {                                                                                      \
        mcio_pmpi_call c = {.fh = fh, .write = wr, MCIO_OFF_##pos, .buf = (void *)buf,       \
                            .count = (MPI_Count)count, .type = type,                       \
                            .form = MCIO_FORM_##fm, MCIO_S_##fm};                      \
        int rc;                                                                            \
        if (mcio_pmpi_collective(&c, &rc))                                                 \
            return rc;                                                                     \
        return MCIO_REAL(MPI_##name)(MCIO_A_##pos MCIO_TA_##fm);                          \
    }

#define MCIO_DEFINE_END(name, buf_t)                                                       \
    MCIO_REAL_DECL(int, MPI_##name, (MPI_File fh, buf_t buf, MPI_Status * status))         \
    int MCIO_WRAPPER(MPI_##name)(MPI_File fh, buf_t buf, MPI_Status * status)              \
    {                                                                                      \
        int rc;                                                                            \
        if (mcio_pmpi_split_end(fh, status, &rc))                                          \
            return rc;                                                                     \
        return MCIO_REAL(MPI_##name)(fh, buf, status);                                     \
    }

MCIO_PMPI_COLLECTIVES(MCIO_DEFINE_COLLECTIVE, int, )
#ifdef MCIO_HAVE_LARGE_COUNT_IO
MCIO_PMPI_COLLECTIVES(MCIO_DEFINE_COLLECTIVE, MPI_Count, _c)
#endif
MCIO_PMPI_SPLIT_ENDS(MCIO_DEFINE_END)

/* The calls around the collectives: the MPI library's routine, then (or, for close, first) the
 * layer's bookkeeping. */
MCIO_REAL_DECL(int, MPI_File_open, (MPI_Comm, const char *, int, MPI_Info, MPI_File *))
int MCIO_WRAPPER(MPI_File_open)(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                                MPI_File *fh)
{
    int rc = MCIO_REAL(MPI_File_open)(comm, filename, amode, info, fh);
    if (rc == MPI_SUCCESS)
        mcio_pmpi_after_open(comm, filename, amode, info, *fh);
    return rc;
}

MCIO_REAL_DECL(int, MPI_File_close, (MPI_File *))
int MCIO_WRAPPER(MPI_File_close)(MPI_File *fh)
{
    if (fh)
        mcio_pmpi_before_close(*fh);
    return MCIO_REAL(MPI_File_close)(fh);
}

MCIO_REAL_DECL(int, MPI_File_set_view,
               (MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info))
int MCIO_WRAPPER(MPI_File_set_view)(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                    MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    int rc = MCIO_REAL(MPI_File_set_view)(fh, disp, etype, filetype, datarep, info);
    if (rc == MPI_SUCCESS)
        mcio_pmpi_after_set_view(fh, disp, etype, filetype, datarep, info);
    return rc;
}

MCIO_REAL_DECL(int, MPI_File_set_info, (MPI_File, MPI_Info))
int MCIO_WRAPPER(MPI_File_set_info)(MPI_File fh, MPI_Info info)
{
    int rc = MCIO_REAL(MPI_File_set_info)(fh, info);
    if (rc == MPI_SUCCESS)
        mcio_pmpi_after_set_info(fh, info);
    return rc;
}

MCIO_REAL_DECL(int, MPI_File_get_info, (MPI_File, MPI_Info *))
int MCIO_WRAPPER(MPI_File_get_info)(MPI_File fh, MPI_Info *info)
{
    int rc = MCIO_REAL(MPI_File_get_info)(fh, info);
    if (rc == MPI_SUCCESS)
        mcio_pmpi_after_get_info(fh, *info);
    return rc;
}

MCIO_REAL_DECL(int, MPI_File_sync, (MPI_File))
int MCIO_WRAPPER(MPI_File_sync)(MPI_File fh)
{
    int rc = MCIO_REAL(MPI_File_sync)(fh);
    if (rc == MPI_SUCCESS)
        rc = mcio_pmpi_after_sync(fh);
    return rc;
}
