/*
 * Fortran wrappers of the drop-in layer (libmcio_preload.so only). Open MPI's mpif.h / `use mpi`
 * bindings call PMPI_File_* directly, so the C wrappers never see a Fortran program's calls: these
 * take the Fortran symbols (gfortran's lower case with one trailing underscore), convert the
 * handles and call the C wrappers by their MPI_ names, which in the preloaded library are ours.
 * The mpi_f08 bindings (other symbols) and Fortran's MPI_BOTTOM as a buffer are not handled.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* X(form, position, C name without MPI_, Fortran symbol) */
#define MCIO_PMPI_FORTRAN_COLLECTIVES(X)                                          \
    X(BLOCKING, INDIV, File_write_all, mpi_file_write_all_)                       \
    X(BLOCKING, INDIV, File_read_all, mpi_file_read_all_)                         \
    X(BLOCKING, AT, File_write_at_all, mpi_file_write_at_all_)                    \
    X(BLOCKING, AT, File_read_at_all, mpi_file_read_at_all_)                      \
    X(NONBLOCKING, INDIV, File_iwrite_all, mpi_file_iwrite_all_)                  \
    X(NONBLOCKING, INDIV, File_iread_all, mpi_file_iread_all_)                    \
    X(NONBLOCKING, AT, File_iwrite_at_all, mpi_file_iwrite_at_all_)               \
    X(NONBLOCKING, AT, File_iread_at_all, mpi_file_iread_at_all_)                 \
    X(BEGIN, INDIV, File_write_all_begin, mpi_file_write_all_begin_)              \
    X(BEGIN, INDIV, File_read_all_begin, mpi_file_read_all_begin_)                \
    X(BEGIN, AT, File_write_at_all_begin, mpi_file_write_at_all_begin_)           \
    X(BEGIN, AT, File_read_at_all_begin, mpi_file_read_at_all_begin_)

#define MCIO_PMPI_FORTRAN_ENDS(X)                                                 \
    X(File_write_all_end, mpi_file_write_all_end_)                                \
    X(File_read_all_end, mpi_file_read_all_end_)                                  \
    X(File_write_at_all_end, mpi_file_write_at_all_end_)                          \
    X(File_read_at_all_end, mpi_file_read_at_all_end_)

/* The layer's own C wrapper of MPI_<name> (in libmcio_preload.so the MPI_ name is ours): the
 * one place in src/ that calls an MPI_ name on purpose, so that the call enters the layer. */
#define MCIO_LAYER(name) MPI_##name

#define MCIO_F_P_INDIV MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *type
#define MCIO_F_P_AT MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count, MPI_Fint *type
#define MCIO_F_A_INDIV PMPI_File_f2c(*fh), buf, (int)*count, PMPI_Type_f2c(*type)
#define MCIO_F_A_AT PMPI_File_f2c(*fh), *offset, buf, (int)*count, PMPI_Type_f2c(*type)

static void status_out(const MPI_Status *st, MPI_Fint *fst)
{
    if (fst != MPI_F_STATUS_IGNORE)
        PMPI_Status_c2f(st, fst);
}

#define MCIO_F_DEFINE(fm, pos, cname, fname) MCIO_F_DEFINE_##fm(pos, cname, fname)
#define MCIO_F_DEFINE_BLOCKING(pos, cname, fname)                                 \
    void fname(MCIO_F_P_##pos, MPI_Fint *status, MPI_Fint *ierr);                 \
    void fname(MCIO_F_P_##pos, MPI_Fint *status, MPI_Fint *ierr)                  \
    {                                                                             \
        MPI_Status st;                                                            \
        *ierr = (MPI_Fint)MCIO_LAYER(cname)(MCIO_F_A_##pos, &st);                       \
        if (*ierr == MPI_SUCCESS)                                                 \
            status_out(&st, status);                                              \
    }
#define MCIO_F_DEFINE_NONBLOCKING(pos, cname, fname)                              \
    void fname(MCIO_F_P_##pos, MPI_Fint *request, MPI_Fint *ierr);                \
    void fname(MCIO_F_P_##pos, MPI_Fint *request, MPI_Fint *ierr)                 \
    {                                                                             \
        MPI_Request rq = MPI_REQUEST_NULL;                                        \
        *ierr = (MPI_Fint)MCIO_LAYER(cname)(MCIO_F_A_##pos, &rq);                       \
        *request = PMPI_Request_c2f(rq);                                          \
    }
#define MCIO_F_DEFINE_BEGIN(pos, cname, fname)                                    \
    void fname(MCIO_F_P_##pos, MPI_Fint *ierr);                                   \
    void fname(MCIO_F_P_##pos, MPI_Fint *ierr)                                    \
    {                                                                             \
        *ierr = (MPI_Fint)MCIO_LAYER(cname)(MCIO_F_A_##pos);                            \
    }
#define MCIO_F_DEFINE_END(cname, fname)                                           \
    void fname(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr);        \
    void fname(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr)         \
    {                                                                             \
        MPI_Status st;                                                            \
        *ierr = (MPI_Fint)MCIO_LAYER(cname)(PMPI_File_f2c(*fh), buf, &st);              \
        if (*ierr == MPI_SUCCESS)                                                 \
            status_out(&st, status);                                              \
    }

MCIO_PMPI_FORTRAN_COLLECTIVES(MCIO_F_DEFINE)
MCIO_PMPI_FORTRAN_ENDS(MCIO_F_DEFINE_END)

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

void mpi_file_open_(MPI_Fint *comm, char *name, MPI_Fint *amode, MPI_Fint *info, MPI_Fint *fh,
                    MPI_Fint *ierr, size_t name_len);
void mpi_file_open_(MPI_Fint *comm, char *name, MPI_Fint *amode, MPI_Fint *info, MPI_Fint *fh,
                    MPI_Fint *ierr, size_t name_len)
{
    char *path = c_string(name, name_len);
    MPI_File c = MPI_FILE_NULL;
    if (!path) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = (MPI_Fint)MCIO_LAYER(File_open)(PMPI_Comm_f2c(*comm), path, (int)*amode, PMPI_Info_f2c(*info), &c);
    *fh = PMPI_File_c2f(c);
    free(path);
}

void mpi_file_close_(MPI_Fint *fh, MPI_Fint *ierr);
void mpi_file_close_(MPI_Fint *fh, MPI_Fint *ierr)
{
    MPI_File c = PMPI_File_f2c(*fh);
    *ierr = (MPI_Fint)MCIO_LAYER(File_close)(&c);
    *fh = PMPI_File_c2f(c);
}

void mpi_file_set_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,
                        char *datarep, MPI_Fint *info, MPI_Fint *ierr, size_t datarep_len);
void mpi_file_set_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,
                        char *datarep, MPI_Fint *info, MPI_Fint *ierr, size_t datarep_len)
{
    char *rep = c_string(datarep, datarep_len);
    if (!rep) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = (MPI_Fint)MCIO_LAYER(File_set_view)(PMPI_File_f2c(*fh), *disp, PMPI_Type_f2c(*etype),
                                        PMPI_Type_f2c(*filetype), rep, PMPI_Info_f2c(*info));
    free(rep);
}

void mpi_file_set_info_(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr);
void mpi_file_set_info_(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)MCIO_LAYER(File_set_info)(PMPI_File_f2c(*fh), PMPI_Info_f2c(*info));
}

void mpi_file_get_info_(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr);
void mpi_file_get_info_(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info c = MPI_INFO_NULL;
    *ierr = (MPI_Fint)MCIO_LAYER(File_get_info)(PMPI_File_f2c(*fh), &c);
    *info = PMPI_Info_c2f(c);
}

void mpi_file_sync_(MPI_Fint *fh, MPI_Fint *ierr);
void mpi_file_sync_(MPI_Fint *fh, MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)MCIO_LAYER(File_sync)(PMPI_File_f2c(*fh));
}
