/*
 * MPI-IO backend: the file is opened with MPI_File_open on the file's communicator, and
 * aggregators use independent contiguous MPI_File_write_at / read_at, so mcio works on every
 * file system the MPI library's MPI-IO (ROMIO, OMPIO) supports.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_errors.h"
#include "mcio_io.h"

/* One MPI call moves at most this much: counts are int. */
#define MPIIO_CHUNK ((int64_t)1 << 30)

static void describe(int code, const char *what, const char *path, char detail[MCIO_DETAIL_LEN])
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(code, msg, &len);
    snprintf(detail, MCIO_DETAIL_LEN, "%s %.100s: %.140s", what, path, msg);
}

static int errno_of_mpi(int code)
{
    int cls = MPI_ERR_OTHER;
    PMPI_Error_class(code, &cls);
    if (cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_QUOTA)
        return ENOSPC;
    return EIO;
}

typedef struct mpiio_state {
    MPI_File fh;
    char path[];
} mpiio_state;

static int mpiio_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, void **state,
                      int *can_read, char detail[MCIO_DETAIL_LEN])
{
    mpiio_state *s = malloc(sizeof *s + strlen(path) + 1);
    int ok = s != NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(s);
        snprintf(detail, MCIO_DETAIL_LEN, "open %s: out of memory", path);
        return MCIO_ERR_NOMEM;
    }
    strcpy(s->path, path);
    /* A file to create is created by rank 0 alone and closed, then opened by all without
     * MPI_MODE_CREATE: no rank then holds the descriptor that created it while the others
     * open it. Open MPI's OMPIO keeps rank 0's creating descriptor, and GlusterFS's FUSE
     * client (direct-io-mode=enable) gives the opens made meanwhile the kernel's page cache,
     * not the bricks (mcio_io_posix.c says what that did). The creation's error class, rank
     * 0's, is every rank's. */
    int rc = MPI_SUCCESS, rank, cls = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    /* Aggregators read and write independently through this handle: romio_no_indep_rw true
     * (the program's promise for its own handle, in its info or ROMIO's hints file, which ROMIO
     * applies to every open) would have ROMIO open the file on its aggregators only. */
    MPI_Info own = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL ? PMPI_Info_dup(info, &own) : PMPI_Info_create(&own))
        own = MPI_INFO_NULL;
    if (own != MPI_INFO_NULL) {
        PMPI_Info_set(own, "romio_no_indep_rw", "false");
        info = own;
    }
    if (amode & MPI_MODE_CREATE) {
        MPI_File made;
        if (rank == 0 && (rc = PMPI_File_open(MPI_COMM_SELF, path,
                                              amode & ~MPI_MODE_DELETE_ON_CLOSE, info,
                                              &made)) == MPI_SUCCESS)
            rc = PMPI_File_close(&made);
        if (rc != MPI_SUCCESS)
            PMPI_Error_class(rc, &cls);
        PMPI_Bcast(&cls, 1, MPI_INT, 0, comm);
        rc = cls;
        amode &= ~(MPI_MODE_CREATE | MPI_MODE_EXCL);
    }
    /* MPI_File_open is collective and returns the same class on every rank. */
    if (rc == MPI_SUCCESS)
        rc = PMPI_File_open(comm, path, amode, info, &s->fh);
    if (own != MPI_INFO_NULL)
        PMPI_Info_free(&own);
    if (rc != MPI_SUCCESS) {
        describe(rc, "open", path, detail);
        free(s);
        return MCIO_ERR_FILE;
    }
    PMPI_File_set_errhandler(s->fh, MPI_ERRORS_RETURN);
    *can_read = !(amode & MPI_MODE_WRONLY);
    *state = s;
    return MCIO_SUCCESS;
}

static int mpiio_close(void *state, char detail[MCIO_DETAIL_LEN])
{
    mpiio_state *s = state;
    int rc = PMPI_File_close(&s->fh);
    if (rc != MPI_SUCCESS)
        describe(rc, "close", s->path, detail);
    free(s);
    return rc == MPI_SUCCESS ? MCIO_SUCCESS : MCIO_ERR_FILE;
}

static int64_t mpiio_pwrite(void *state, const void *buf, int64_t len, int64_t off)
{
    mpiio_state *s = state;
    MPI_Status st;
    int n = (int)(len < MPIIO_CHUNK ? len : MPIIO_CHUNK), got = 0;
    int rc = PMPI_File_write_at(s->fh, off, buf, n, MPI_BYTE, &st);
    if (rc != MPI_SUCCESS)
        return -errno_of_mpi(rc);
    PMPI_Get_count(&st, MPI_BYTE, &got);
    return got == MPI_UNDEFINED ? 0 : got;
}

static int64_t mpiio_pread(void *state, void *buf, int64_t len, int64_t off)
{
    mpiio_state *s = state;
    MPI_Status st;
    int n = (int)(len < MPIIO_CHUNK ? len : MPIIO_CHUNK), got = 0;
    int rc = PMPI_File_read_at(s->fh, off, buf, n, MPI_BYTE, &st);
    if (rc != MPI_SUCCESS)
        return -errno_of_mpi(rc);
    PMPI_Get_count(&st, MPI_BYTE, &got);
    return got == MPI_UNDEFINED ? 0 : got;
}

static int64_t mpiio_size(void *state)
{
    MPI_Offset size = 0;
    int rc = PMPI_File_get_size(((mpiio_state *)state)->fh, &size);
    return rc == MPI_SUCCESS ? (int64_t)size : -errno_of_mpi(rc);
}

static int mpiio_sync(void *state)
{
    int rc = PMPI_File_sync(((mpiio_state *)state)->fh);
    return rc == MPI_SUCCESS ? 0 : -errno_of_mpi(rc);
}

const mcio_io_backend mcio_io_mpiio = {
    .name = "mpiio",
    .open = mpiio_open,
    .close = mpiio_close,
    .pwrite = mpiio_pwrite,
    .pread = mpiio_pread,
    .sync = mpiio_sync,
    .size = mpiio_size,
    .calls_mpi = 1,
};
