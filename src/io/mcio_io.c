#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "mcio_io.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mcio_errors.h"

#define MCIO_IO_MAX_BACKENDS 16

static const mcio_io_backend *registry[MCIO_IO_MAX_BACKENDS] = {
    &mcio_io_mpiio, &mcio_io_posix, &mcio_io_null, &mcio_io_slow,
#ifdef MCIO_SIMULATE
    &mcio_io_sim,
#endif
};

const mcio_io_backend *mcio_io_find(const char *name)
{
    for (int i = 0; i < MCIO_IO_MAX_BACKENDS && registry[i]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

void mcio_io_names(char *out, int outlen)
{
    int at = 0;
    out[0] = '\0';
    for (int i = 0; i < MCIO_IO_MAX_BACKENDS && registry[i] && at < outlen; i++)
        at += snprintf(out + at, (size_t)(outlen - at), "%s%s", i ? ", " : "", registry[i]->name);
}

int mcio_io_register(const mcio_io_backend *backend)
{
    if (mcio_io_find(backend->name))
        return MCIO_ERR_ARG;
    for (int i = 0; i < MCIO_IO_MAX_BACKENDS; i++)
        if (!registry[i]) {
            registry[i] = backend;
            return MCIO_SUCCESS;
        }
    return MCIO_ERR_ARG;
}

int mcio_io_status_of_errno(int err)
{
    switch (err) {
    case ENOSPC:
    case EDQUOT:
        return MCIO_ERR_NOSPACE;
    case EFBIG:
        return MCIO_ERR_FBIG;
    default:
        return MCIO_ERR_IO;
    }
}

int mcio_io_fs_full(const char *path, int64_t need)
{
    struct statvfs sv;
    return statvfs(path, &sv) == 0 && (int64_t)sv.f_bavail * (int64_t)sv.f_frsize < need;
}

int mcio_io_write_full(const mcio_io_backend *b, void *state, const void *buf, int64_t len,
                       int64_t off, const char *path, char detail[MCIO_DETAIL_LEN])
{
    const char *p = buf;
    int64_t done = 0;
    while (done < len) {
        int64_t n = b->pwrite(state, p + done, len - done, off + done);
        if (n == -EINTR)
            continue;
        if (n < 0) {
            /* An MPI library's EIO may hide a full file system (MPICH's ROMIO on GlusterFS). */
            int full = n == -EIO && mcio_io_fs_full(path, len - done);
            snprintf(detail, MCIO_DETAIL_LEN,
                     "write of %" PRId64 " bytes at offset %" PRId64 " to %s: %s%s", len - done,
                     off + done, path, strerror((int)-n),
                     full ? ": no space left on the file system" : "");
            return full ? MCIO_ERR_NOSPACE : mcio_io_status_of_errno((int)-n);
        }
        if (n == 0) {
            /* No errno: an MPI library may report a failed write as 0 bytes written (OMPIO on
             * a full GlusterFS volume). A file system without room for the rest says why. */
            int full = mcio_io_fs_full(path, len - done);
            snprintf(detail, MCIO_DETAIL_LEN,
                     "write of %" PRId64 " bytes at offset %" PRId64 " to %s: short write (0 "
                     "bytes written)%s", len - done, off + done, path,
                     full ? ": no space left on the file system" : "");
            return full ? MCIO_ERR_NOSPACE : MCIO_ERR_IO;
        }
        done += n;
    }
    return MCIO_SUCCESS;
}

int mcio_io_read_full(const mcio_io_backend *b, void *state, void *buf, int64_t len, int64_t off,
                      const char *path, char detail[MCIO_DETAIL_LEN])
{
    char *p = buf;
    int64_t done = 0;
    int again = 0; /* the read after an end of file that the size then denied */
    while (done < len) {
        int64_t n = b->pread(state, p + done, len - done, off + done);
        if (n == -EINTR)
            continue;
        if (n < 0) {
            snprintf(detail, MCIO_DETAIL_LEN, "read of %" PRId64 " bytes at offset %" PRId64
                     " from %s: %s", len - done, off + done, path, strerror((int)-n));
            return mcio_io_status_of_errno((int)-n);
        }
        if (n == 0) { /* end of file: what lies beyond reads as zeros, as MPI-IO reads holes */
            int64_t size = b->size ? b->size(state) : off + done;
            /* Past the end when it read, not when asked: another aggregator of the same write
             * extended the file meanwhile (an aggregator reads its span before it writes
             * around holes). Read once more; a second 0 is a read that stops early (OMPIO's
             * answer on a dead brick). */
            if (size > off + done && !again) {
                again = 1;
                continue;
            }
            if (size < 0 || off + done < size) {
                snprintf(detail, MCIO_DETAIL_LEN, "read of %" PRId64 " bytes at offset %" PRId64
                         " from %s: %s", len - done, off + done, path,
                         size < 0 ? "0 bytes read, and the file's size cannot be had"
                                  : "0 bytes read before the end of the file");
                return MCIO_ERR_IO;
            }
            memset(p + done, 0, (size_t)(len - done));
            break;
        }
        done += n;
        again = 0;
    }
    return MCIO_SUCCESS;
}

/* Where buf lies 1-31 bytes past off modulo 4096 (a read's kernel copy 4K-aliased), how far;
 * else 0. */
static int alias_of(const void *buf, int64_t off)
{
    int d = (int)(((uintptr_t)buf - (uintptr_t)off) % 4096);
    return d < 32 ? d : 0;
}

void *mcio_io_buffer_alloc(size_t n)
{
    void *p = NULL;
    return posix_memalign(&p, MCIO_DIO_ALIGN, n ? n : 1) == 0 ? p : NULL;
}

static int copy_alias_slow;
static pthread_once_t copy_alias_once = PTHREAD_ONCE_INIT;

static void copy_alias_measure(void)
{
#ifndef MCIO_SIMULATE
    enum { N = 64 << 10, REPS = 5 };
    int fd = memfd_create("mcio-copy-alias", 0);
    char *b = fd >= 0 ? mcio_io_buffer_alloc(N + 4096) : NULL;
    if (!b) {
        if (fd >= 0)
            close(fd);
        return;
    }
    memset(b, 0x5a, N + 4096);
    double best[2] = {1e9, 1e9};
    int ok = pwrite(fd, b, N, 0) == N;
    for (int i = 0; ok && i < REPS; i++)
        for (int k = 0; ok && k < 2; k++) { /* k = 1: 16 bytes past the page, as malloc's */
            double t0 = PMPI_Wtime();
            ok = pread(fd, b + 16 * k, N, 0) == N;
            double t = PMPI_Wtime() - t0;
            best[k] = t < best[k] ? t : best[k];
        }
    copy_alias_slow = ok && best[1] > 2 * best[0];
    close(fd);
    free(b);
#endif
}

int mcio_io_copy_alias_slow(void)
{
    pthread_once(&copy_alias_once, copy_alias_measure);
    return copy_alias_slow;
}

int mcio_io_read_shifted(const mcio_io_backend *b, void *state, void *buf, int64_t len,
                         int64_t off, const char *path, char detail[MCIO_DETAIL_LEN])
{
    int d = alias_of(buf, off);
    if (d == 0 || len < MCIO_IO_SHIFT_MIN)
        return mcio_io_read_full(b, state, buf, len, off, path, detail);
    char *p = buf;
    int64_t e = 32 - d, body = len - e;
    int st = mcio_io_read_full(b, state, p + e, body, off, path, detail);
    if (st != MCIO_SUCCESS)
        return st;
    memmove(p, p + e, (size_t)body);
    return mcio_io_read_full(b, state, p + body, e, off + body, path, detail);
}
