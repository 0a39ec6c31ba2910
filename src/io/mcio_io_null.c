/*
 * Null backend, for tests and for measuring the exchange alone (IOR's DUMMY): writes succeed
 * and go nowhere, reads return zeros. Touches no file.
 */
#include <string.h>

#include "mcio_errors.h"
#include "mcio_io.h"

static int null_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, void **state,
                     int *can_read, char detail[MCIO_DETAIL_LEN])
{
    (void)comm, (void)path, (void)amode, (void)info, (void)detail;
    *state = NULL;
    *can_read = 1;
    return MCIO_SUCCESS;
}

static int null_close(void *state, char detail[MCIO_DETAIL_LEN])
{
    (void)state, (void)detail;
    return MCIO_SUCCESS;
}

static int64_t null_pwrite(void *state, const void *buf, int64_t len, int64_t off)
{
    (void)state, (void)buf, (void)off;
    return len;
}

static int64_t null_pread(void *state, void *buf, int64_t len, int64_t off)
{
    (void)state, (void)off;
    memset(buf, 0, (size_t)len);
    return len;
}

static int null_sync(void *state)
{
    (void)state;
    return 0;
}

const mcio_io_backend mcio_io_null = {
    .name = "null",
    .open = null_open,
    .close = null_close,
    .pwrite = null_pwrite,
    .pread = null_pread,
    .sync = null_sync,
};
