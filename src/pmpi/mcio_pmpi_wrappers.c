/*
 * The C wrappers of the drop-in layer, generated from the table (mcio_pmpi_calls.h). Built twice:
 * into libmcio_preload.so (the wrappers are the MPI_ names) and, with -DMCIO_PMPI_LINKTIME, into
 * libmcio_wrap.a (the wrappers are __wrap_ names for -Wl,--wrap).
 */
#include <mpi.h>
#include <stddef.h>

#include "mcio_pmpi.h"
#include "mcio_pmpi_calls.h"
#include "mcio_pmpi_wrap.h"

/* Collective data calls. Parameters and arguments by position (individual pointer or explicit
 * offset) and by form (blocking, nonblocking, split begin). */
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
        mcio_pmpi_call c = {.fh = fh, .write = wr, MCIO_OFF_##pos, .buf = (void *)buf,     \
                            .count = (MPI_Count)count, .type = type,                       \
                            .form = MCIO_FORM_##fm, MCIO_S_##fm};                          \
        int rc;                                                                            \
        if (mcio_pmpi_collective(&c, &rc))                                                 \
            return rc;                                                                     \
        return MCIO_REAL(MPI_##name)(MCIO_A_##pos MCIO_TA_##fm);                           \
    }

/* The large-count form MPI_<name>_c, where mpi.h has it. */
#ifdef MCIO_HAVE_LARGE_COUNT_IO
#define MCIO_LARGE_LARGE(fm, pos, wr, name, buf_t)                                         \
    MCIO_DEFINE_COLLECTIVE(fm, pos, wr, name##_c, buf_t, MPI_Count)
#else
#define MCIO_LARGE_LARGE(fm, pos, wr, name, buf_t)
#endif
#define MCIO_LARGE_SMALL(fm, pos, wr, name, buf_t)

#define MCIO_COLLECTIVE(fm, pos, wr, name, buf_t, large)                                   \
    MCIO_DEFINE_COLLECTIVE(fm, pos, wr, name, buf_t, int)                                  \
    MCIO_LARGE_##large(fm, pos, wr, name, buf_t)
#define MCIO_C_BLOCKING_INDIV(name, wr, buf_t, large, err) MCIO_COLLECTIVE(BLOCKING, INDIV, wr, name, buf_t, large)
#define MCIO_C_BLOCKING_AT(name, wr, buf_t, large, err) MCIO_COLLECTIVE(BLOCKING, AT, wr, name, buf_t, large)
#define MCIO_C_NONBLOCKING_INDIV(name, wr, buf_t, large, err) MCIO_COLLECTIVE(NONBLOCKING, INDIV, wr, name, buf_t, large)
#define MCIO_C_NONBLOCKING_AT(name, wr, buf_t, large, err) MCIO_COLLECTIVE(NONBLOCKING, AT, wr, name, buf_t, large)
#define MCIO_C_BEGIN_INDIV(name, wr, buf_t, large, err) MCIO_COLLECTIVE(BEGIN, INDIV, wr, name, buf_t, large)
#define MCIO_C_BEGIN_AT(name, wr, buf_t, large, err) MCIO_COLLECTIVE(BEGIN, AT, wr, name, buf_t, large)

#define MCIO_C_END(name, wr, buf_t, large, err)                                            \
    MCIO_REAL_DECL(int, MPI_##name, (MPI_File fh, buf_t buf, MPI_Status * status))         \
    int MCIO_WRAPPER(MPI_##name)(MPI_File fh, buf_t buf, MPI_Status * status)              \
    {                                                                                      \
        int rc;                                                                            \
        if (mcio_pmpi_split_end(fh, status, &rc))                                          \
            return rc;                                                                     \
        return MCIO_REAL(MPI_##name)(fh, buf, status);                                     \
    }

/* Bookkeeping: `before`, the MPI library's routine, then on success `after`, whose result is the
 * call's under RAISE (an MPI code, raised already) and ignored under MPI (a void hook). */
#define MCIO_AFTER_RAISE(rc, after) rc = (after)
#define MCIO_AFTER_MPI(rc, after) after
#define MCIO_BOOKKEEPING(name, params, args, before, after, err)                           \
    MCIO_REAL_DECL(int, MPI_##name, params)                                                \
    int MCIO_WRAPPER(MPI_##name) params                                                    \
    {                                                                                      \
        before;                                                                            \
        int rc = MCIO_REAL(MPI_##name) args;                                               \
        if (rc == MPI_SUCCESS)                                                             \
            MCIO_AFTER_##err(rc, after);                                                   \
        return rc;                                                                         \
    }
#define MCIO_C_OPEN(name, wr, buf_t, large, err)                                           \
    MCIO_BOOKKEEPING(name, (MPI_Comm comm, const char *path, int amode, MPI_Info info,     \
                            MPI_File *fh), (comm, path, amode, info, fh), (void)0,         \
                     mcio_pmpi_after_open(comm, path, amode, info, *fh), err)
#define MCIO_C_CLOSE(name, wr, buf_t, large, err)                                          \
    MCIO_BOOKKEEPING(name, (MPI_File * fh), (fh), if (fh) mcio_pmpi_before_close(*fh),     \
                     (void)0, err)
#define MCIO_C_SET_VIEW(name, wr, buf_t, large, err)                                       \
    MCIO_BOOKKEEPING(name, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype,              \
                            MPI_Datatype filetype, const char *datarep, MPI_Info info),    \
                     (fh, disp, etype, filetype, datarep, info), (void)0,                  \
                     mcio_pmpi_after_set_view(fh, disp, etype, filetype, datarep, info), err)
#define MCIO_C_SET_INFO(name, wr, buf_t, large, err)                                       \
    MCIO_BOOKKEEPING(name, (MPI_File fh, MPI_Info info), (fh, info), (void)0,              \
                     mcio_pmpi_after_set_info(fh, info), err)
#define MCIO_C_GET_INFO(name, wr, buf_t, large, err)                                       \
    MCIO_BOOKKEEPING(name, (MPI_File fh, MPI_Info * info), (fh, info), (void)0,            \
                     mcio_pmpi_after_get_info(fh, *info), err)
#define MCIO_C_SYNC(name, wr, buf_t, large, err)                                           \
    MCIO_BOOKKEEPING(name, (MPI_File fh), (fh), (void)0, mcio_pmpi_after_sync(fh), err)

#define MCIO_C_WRAPPER(name, shape, wr, buf_t, large, fsym, f08sym, err)                   \
    MCIO_C_##shape(name, wr, buf_t, large, err)
MCIO_PMPI_CALLS(MCIO_C_WRAPPER)
