/*
 * POSIX backend: every rank opens the file with open(2); aggregators use pwrite/pread.
 * Rank 0 creates the file first so that MPI_MODE_CREATE|MPI_MODE_EXCL means what MPI says.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcio_errors.h"
#include "mcio_io.h"

typedef struct posix_state {
    MPI_Comm comm;
    int fd;
    int delete_on_close;
    char path[];
} posix_state;

static int posix_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, void **state,
                      int *can_read, char detail[MCIO_DETAIL_LEN])
{
    (void)info;
    int rank, err = 0;
    PMPI_Comm_rank(comm, &rank);
    int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
    *can_read = !(amode & MPI_MODE_WRONLY);
    posix_state *s = malloc(sizeof *s + strlen(path) + 1);
    if (!s)
        err = ENOMEM;
    else {
        s->comm = comm;
        s->fd = -1;
        s->delete_on_close = !!(amode & MPI_MODE_DELETE_ON_CLOSE);
        strcpy(s->path, path);
    }
    /* Rank 0 creates (and checks EXCL); the others open once it has. */
    if (rank == 0 && s) {
        int f0 = flags | ((amode & MPI_MODE_CREATE) ? O_CREAT : 0) | ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
        s->fd = open(path, f0 | O_CLOEXEC, 0666);
        if (s->fd < 0)
            err = errno;
    }
    PMPI_Bcast(&err, 1, MPI_INT, 0, comm);
    if (rank != 0 && s && !err) {
        s->fd = open(path, flags | O_CLOEXEC);
        if (s->fd < 0)
            err = errno;
    }
    int any = 0;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        snprintf(detail, MCIO_DETAIL_LEN, "open %s: %s%s", path, strerror(any),
                 err ? "" : " (on another rank)");
        if (s && s->fd >= 0)
            close(s->fd);
        free(s);
        return MCIO_ERR_FILE;
    }
    *state = s;
    return MCIO_SUCCESS;
}

static int posix_close(void *state, char detail[MCIO_DETAIL_LEN])
{
    posix_state *s = state;
    int err = close(s->fd) ? errno : 0, any = 0, rank;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, s->comm);
    PMPI_Comm_rank(s->comm, &rank);
    if (s->delete_on_close && rank == 0)
        unlink(s->path);
    if (any)
        snprintf(detail, MCIO_DETAIL_LEN, "close %s: %s", s->path, strerror(any));
    free(s);
    return any ? mcio_io_status_of_errno(any) : MCIO_SUCCESS;
}

static int64_t posix_pwrite(void *state, const void *buf, int64_t len, int64_t off)
{
    ssize_t n = pwrite(((posix_state *)state)->fd, buf, (size_t)len, (off_t)off);
    return n < 0 ? -errno : n;
}

static int64_t posix_pread(void *state, void *buf, int64_t len, int64_t off)
{
    ssize_t n = pread(((posix_state *)state)->fd, buf, (size_t)len, (off_t)off);
    return n < 0 ? -errno : n;
}

static int posix_sync(void *state)
{
    return fsync(((posix_state *)state)->fd) ? -errno : 0;
}

const mcio_io_backend mcio_io_posix = {
    .name = "posix",
    .open = posix_open,
    .close = posix_close,
    .pwrite = posix_pwrite,
    .pread = posix_pread,
    .sync = posix_sync,
};
