/*
 * Slow backend, for tests and benchmarks (IOR's DUMMY backend with its delays): the POSIX
 * backend underneath (with its direct I/O, if asked), and every pwrite/pread first sleeps
 * mcio_slow_call_seconds plus mcio_slow_byte_seconds per byte. The sleep holds no CPU, so a
 * disk of any speed can be imitated on a small machine, and the overlap of file access with
 * the exchange can be shown without a slow disk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mcio_errors.h"
#include "mcio_io.h"

typedef struct slow_state {
    void *posix;
    double call_s, byte_s;
} slow_state;

static int slow_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, void **state,
                     int *can_read, char detail[MCIO_DETAIL_LEN])
{
    slow_state *s = calloc(1, sizeof *s);
    int ok = s != NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm); /* posix open is collective */
    if (!all) {
        free(s);
        snprintf(detail, MCIO_DETAIL_LEN, "open %s: out of memory", path);
        return MCIO_ERR_NOMEM;
    }
    int st = mcio_io_posix.open(comm, path, amode, info, &s->posix, can_read, detail);
    if (st != MCIO_SUCCESS) {
        free(s);
        return st;
    }
    *state = s;
    return MCIO_SUCCESS;
}

static int slow_close(void *state, char detail[MCIO_DETAIL_LEN])
{
    slow_state *s = state;
    int st = mcio_io_posix.close(s->posix, detail);
    free(s);
    return st;
}

static void slow_configure(void *state, const mcio_hints *hints)
{
    slow_state *s = state;
    s->call_s = hints->slow_call_seconds;
    s->byte_s = hints->slow_byte_seconds;
    mcio_io_posix.configure(s->posix, hints); /* direct I/O */
}

static void slow_delay(const slow_state *s, int64_t len)
{
    double t = s->call_s + s->byte_s * (double)len;
    if (t <= 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)t, .tv_nsec = (long)((t - (double)(time_t)t) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int64_t slow_pwrite(void *state, const void *buf, int64_t len, int64_t off)
{
    slow_state *s = state;
    slow_delay(s, len);
    return mcio_io_posix.pwrite(s->posix, buf, len, off);
}

static int64_t slow_pread(void *state, void *buf, int64_t len, int64_t off)
{
    slow_state *s = state;
    slow_delay(s, len);
    return mcio_io_posix.pread(s->posix, buf, len, off);
}

static int slow_sync(void *state)
{
    return mcio_io_posix.sync(((slow_state *)state)->posix);
}

const mcio_io_backend mcio_io_slow = {
    .name = "slow",
    .open = slow_open,
    .close = slow_close,
    .pwrite = slow_pwrite,
    .pread = slow_pread,
    .sync = slow_sync,
    .configure = slow_configure,
};
