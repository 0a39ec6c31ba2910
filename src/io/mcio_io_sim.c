/*
 * Simulation backend (the MCIO_SIMULATE build only, under SimGrid's SMPI): aggregators' file
 * accesses go to the simulated parallel file system of mcio_sim_storage.h, striped over the
 * platform's storage targets, and cost simulated network and disk time. No byte is stored and
 * no host file is touched: correctness is checked by the real builds, the simulation gives
 * times. The stripe is the hint striping_unit when set, else the platform's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "mcio_errors.h"
#include "mcio_io.h"
#include "mcio_machine_sim.h"
#include "mcio_sim_storage.h"

typedef struct sim_state {
    int64_t stripe;
} sim_state;

static int sim_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, void **state,
                    int *can_read, char detail[MCIO_DETAIL_LEN])
{
    (void)info;
    int64_t stripe = 0;
    int targets = mcio_sim_storage_targets(&stripe); /* the same platform on every rank */
    sim_state *s = targets > 0 ? malloc(sizeof *s) : NULL;
    int ok = s != NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(s);
        snprintf(detail, MCIO_DETAIL_LEN,
                 targets > 0 ? "open %s: out of memory"
                             : "open %s: the simulated platform has no storage targets (root zone "
                               "property mcio_storage: hosts with a disk)",
                 path);
        return targets > 0 ? MCIO_ERR_NOMEM : MCIO_ERR_FILE;
    }
    s->stripe = stripe;
    *can_read = !(amode & MPI_MODE_WRONLY);
    *state = s;
    return MCIO_SUCCESS;
}

static int sim_close(void *state, char detail[MCIO_DETAIL_LEN])
{
    (void)detail;
    free(state);
    return MCIO_SUCCESS;
}

static int64_t sim_pwrite(void *state, const void *buf, int64_t len, int64_t off)
{
    mcio_sim_buffer_touch(buf, len);
    sim_state *s = state;
    return mcio_sim_storage_access(1, len, off, s->stripe) == 0 ? len : -EIO;
}

static int64_t sim_pread(void *state, void *buf, int64_t len, int64_t off)
{
    mcio_sim_buffer_touch(buf, len);
    sim_state *s = state;
    return mcio_sim_storage_access(0, len, off, s->stripe) == 0 ? len : -EIO;
}

static void *sim_access_start(void *state, int write, void *buf, int64_t len, int64_t off)
{
    mcio_sim_buffer_touch(buf, len);
    sim_state *s = state;
    return mcio_sim_storage_start(write, len, off, s->stripe);
}

static int64_t sim_access_wait(void *handle, int64_t len, int64_t *ns)
{
    *ns = (int64_t)(mcio_sim_storage_wait(handle) * 1e9);
    return len;
}

static int sim_sync(void *state)
{
    (void)state;
    return 0;
}

static void sim_configure(void *state, const mcio_hints *hints)
{
    sim_state *s = state;
    if (hints->striping_unit > 0)
        s->stripe = hints->striping_unit;
}

const mcio_io_backend mcio_io_sim = {
    .name = "sim",
    .open = sim_open,
    .close = sim_close,
    .pwrite = sim_pwrite,
    .pread = sim_pread,
    .sync = sim_sync,
    .configure = sim_configure,
    .access_start = sim_access_start,
    .access_wait = sim_access_wait,
};
