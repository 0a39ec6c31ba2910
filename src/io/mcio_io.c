#include "mcio_io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

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
