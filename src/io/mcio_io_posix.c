/*
 * POSIX backend: every rank opens the file with open(2); aggregators use pwrite/pread.
 * Rank 0 creates the file first so that MPI_MODE_CREATE|MPI_MODE_EXCL means what MPI says.
 *
 * Direct I/O (ROMIO's hints direct_write, direct_read): the file is opened a second time with
 * O_DIRECT, and each access goes through that descriptor for its aligned part (offset, length
 * and buffer on MCIO_DIO_ALIGN) and through the page cache for its unaligned head and tail. A
 * raw call may be partial (mcio_io.c finishes it), so each call moves one such part. The
 * kernel keeps the two paths coherent: a direct access writes back and drops the cached pages
 * of its range first. Where O_DIRECT cannot be opened, or an access is refused (EINVAL: a
 * block larger than MCIO_DIO_ALIGN), the file goes through the page cache for the rest of its
 * life, as ROMIO ignores direct I/O where it cannot do it.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcio_errors.h"
#include "mcio_io.h"

typedef struct posix_state {
    MPI_Comm comm;
    int fd, flags;
    int dfd;                       /* the file opened with O_DIRECT, or -1 */
    int direct_write, direct_read; /* the hints */
    int direct_ok;                 /* 0 once a direct access was refused (atomic: two threads) */
    int delete_on_close;
    char path[];
} posix_state;

/* A state for path, its descriptors not open yet (-1), no direct I/O; NULL without memory. */
static posix_state *state_new(MPI_Comm comm, const char *path, int flags)
{
    posix_state *s = malloc(sizeof *s + strlen(path) + 1);
    if (s) {
        *s = (posix_state){.comm = comm, .fd = -1, .flags = flags, .dfd = -1};
        strcpy(s->path, path);
    }
    return s;
}

static int posix_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, void **state,
                      int *can_read, char detail[MCIO_DETAIL_LEN])
{
    (void)info;
    int rank, err = 0;
    PMPI_Comm_rank(comm, &rank);
    int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
    *can_read = !(amode & MPI_MODE_WRONLY);
    posix_state *s = state_new(comm, path, flags);
    if (!s)
        err = ENOMEM;
    else
        s->delete_on_close = !!(amode & MPI_MODE_DELETE_ON_CLOSE);
    /* Rank 0 creates (and checks EXCL); the others open once it has. A descriptor that
     * created the file is closed and the file opened again, as every other rank opens it:
     * GlusterFS's FUSE client, mounted direct-io-mode=enable, hands the opens made while the
     * creating descriptor is still open the kernel's page cache instead (seen with fincore:
     * their writes and reads cached, the creator's not), so ranks 1..n-1 read the node's cached
     * pages while rank 0 and the calibration probe (which opens an existing file) go to the
     * bricks: a 4 MiB read by rank 0 took 37-72 ms, by rank 4 2.5-2.8 ms (MCIO_STATS t_io,
     * cb_nodes 1 against 4 with the same one domain), and pages cached on one client are not
     * coherent with another's writes. */
    if (rank == 0 && s) {
        int f0 = flags | ((amode & MPI_MODE_CREATE) ? O_CREAT : 0) | ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
        s->fd = open(path, f0 | O_CLOEXEC, 0666);
        if (s->fd >= 0 && (amode & MPI_MODE_CREATE)) {
            close(s->fd);
            s->fd = open(path, flags | O_CLOEXEC);
        }
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
    if (s->dfd >= 0)
        close(s->dfd);
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, s->comm);
    PMPI_Comm_rank(s->comm, &rank);
    if (s->delete_on_close && rank == 0)
        unlink(s->path);
    if (any)
        snprintf(detail, MCIO_DETAIL_LEN, "close %s: %s", s->path, strerror(any));
    free(s);
    return any ? mcio_io_status_of_errno(any) : MCIO_SUCCESS;
}

static void posix_configure(void *state, const mcio_hints *hints)
{
    posix_state *s = state;
    s->direct_write = hints->direct_write;
    s->direct_read = hints->direct_read;
    if ((s->direct_write || s->direct_read) && s->dfd < 0)
        s->dfd = open(s->path, s->flags | O_DIRECT | O_CLOEXEC); /* -1: no direct I/O here */
    __atomic_store_n(&s->direct_ok, s->dfd >= 0, __ATOMIC_RELAXED);
}

/* The descriptor for the next part of an access of len bytes at off from buf, and that part's
 * length in *n: the unaligned head through the page cache, then the aligned middle directly
 * when the buffer is aligned there too, then the rest through the page cache. */
static int posix_fd_for(posix_state *s, int direct, const void *buf, int64_t len, int64_t off,
                        int64_t *n)
{
    *n = len;
    if (!direct || !__atomic_load_n(&s->direct_ok, __ATOMIC_RELAXED))
        return s->fd;
    int64_t head = (MCIO_DIO_ALIGN - off % MCIO_DIO_ALIGN) % MCIO_DIO_ALIGN;
    if (head > 0) {
        *n = head < len ? head : len;
        return s->fd;
    }
    if ((uintptr_t)buf % MCIO_DIO_ALIGN != 0 || len < MCIO_DIO_ALIGN)
        return s->fd;
    *n = len - len % MCIO_DIO_ALIGN;
    return s->dfd;
}

/* A direct access refused for its alignment: no more direct I/O on this file. */
static int posix_refused(posix_state *s, int fd, ssize_t n)
{
    if (n >= 0 || errno != EINVAL || fd != s->dfd)
        return 0;
    __atomic_store_n(&s->direct_ok, 0, __ATOMIC_RELAXED);
    return 1;
}

/* One part of a pwrite (write = 1) or pread at off: directly or through the page cache. */
static int64_t posix_access(posix_state *s, int write, void *buf, int64_t len, int64_t off)
{
    int64_t part;
    int fd = posix_fd_for(s, write ? s->direct_write : s->direct_read, buf, len, off, &part);
    for (;;) {
        ssize_t n = write ? pwrite(fd, buf, (size_t)part, (off_t)off)
                          : pread(fd, buf, (size_t)part, (off_t)off);
        if (posix_refused(s, fd, n)) {
            fd = s->fd; /* once more, through the page cache */
            continue;
        }
        return n < 0 ? -errno : n;
    }
}

static int64_t posix_pwrite(void *state, const void *buf, int64_t len, int64_t off)
{
    return posix_access(state, 1, (void *)buf, len, off); /* (pwrite only reads buf) */
}

static int64_t posix_pread(void *state, void *buf, int64_t len, int64_t off)
{
    return posix_access(state, 0, buf, len, off);
}

static int64_t posix_size(void *state)
{
    struct stat sb;
    return fstat(((posix_state *)state)->fd, &sb) ? -errno : (int64_t)sb.st_size;
}

static int posix_sync(void *state)
{
    return fsync(((posix_state *)state)->fd) ? -errno : 0;
}

int mcio_io_posix_local_open(const char *path, int flags, void **state)
{
    posix_state *s = state_new(MPI_COMM_NULL, path, flags);
    if (!s)
        return -ENOMEM;
    s->fd = open(path, flags | O_CLOEXEC);
    if (s->fd < 0) {
        int err = errno;
        free(s);
        return -err;
    }
    *state = s;
    return 0;
}

void mcio_io_posix_local_close(void *state)
{
    posix_state *s = state;
    if (s)
        close(s->fd);
    free(s);
}

const mcio_io_backend mcio_io_posix = {
    .name = "posix",
    .open = posix_open,
    .close = posix_close,
    .pwrite = posix_pwrite,
    .pread = posix_pread,
    .sync = posix_sync,
    .size = posix_size,
    .configure = posix_configure,
};
