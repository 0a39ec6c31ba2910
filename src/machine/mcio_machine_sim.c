/* The simulated host's properties as the machine description (mcio_machine_sim.h). */
#include "mcio_machine_sim.h"

#include <simgrid/host.h>
#include <simgrid/zone.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_errors.h"
#include "mcio_sim_storage.h"

static long long host_number(const char *name, long long none)
{
    const char *v = sg_host_get_property_value(sg_host_self(), name);
    if (!v || !*v)
        return none;
    char *end;
    long long x = strtoll(v, &end, 10);
    return *end || x < 0 ? none : x;
}

int64_t mcio_sim_node_memory(void)
{
    return (int64_t)host_number("mcio_memory", -1);
}

int mcio_sim_node_sockets(void)
{
    long long s = host_number("mcio_sockets", 1);
    return s >= 1 && s <= 1024 ? (int)s : 1;
}

const char *mcio_sim_topology_file(void)
{
    const char *v = sg_zone_get_property_value(sg_zone_get_root(), "mcio_topology_file");
    return v && *v ? v : NULL;
}

/* A shared allocation: a count of the ranks still holding it, then the memory. */
typedef struct shared_head {
    int refs;
    int pad[3]; /* the memory after it 16-byte aligned */
} shared_head;

void *mcio_sim_shared_alloc(MPI_Comm comm, size_t bytes)
{
    int rank, nprocs;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &nprocs);
    int64_t addr = 0;
    if (rank == 0) {
        shared_head *h = calloc(1, sizeof *h + bytes);
        if (h)
            h->refs = nprocs;
        addr = h ? (int64_t)(intptr_t)(h + 1) : 0;
    }
    /* One address space: the address means the same memory on every simulated rank. */
    PMPI_Bcast(&addr, 1, MPI_INT64_T, 0, comm);
    return (void *)(intptr_t)addr;
}

void mcio_sim_shared_free(void *p)
{
    if (!p)
        return;
    shared_head *h = (shared_head *)p - 1;
    if (--h->refs == 0) /* no other rank runs between the test and the free */
        free(h);
}

int mcio_sim_shared_last(const void *p)
{
    return p && ((const shared_head *)p - 1)->refs == 1;
}

int mcio_sim_gather_init(MPI_Comm comm, size_t record, size_t area_bytes, mcio_sim_gather *g)
{
    memset(g, 0, sizeof *g);
    PMPI_Comm_rank(comm, &g->rank);
    PMPI_Comm_size(comm, &g->nprocs);
    g->record = record;
    g->area_bytes = (area_bytes + 15) & ~(size_t)15;
    size_t table = ((size_t)g->nprocs * record + 15) & ~(size_t)15;
    g->shared = mcio_sim_shared_alloc(comm, 2 * table + 2 * g->area_bytes);
    g->wire_send = SMPI_SHARED_MALLOC(record);
    g->wire_recv = SMPI_SHARED_MALLOC((size_t)g->nprocs * record);
    int failed = !g->shared || !g->wire_send || !g->wire_recv;
    PMPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
    if (failed) {
        mcio_sim_gather_free(g);
        return MCIO_ERR_NOMEM;
    }
    char *s = g->shared;
    g->table[0] = s, g->table[1] = s + table;
    g->area[0] = s + 2 * table, g->area[1] = s + 2 * table + g->area_bytes;
    return MCIO_SUCCESS;
}

void *mcio_sim_gather_put(mcio_sim_gather *g, const void *mine)
{
    char *t = g->table[++g->gen & 1];
    memcpy(t + (size_t)g->rank * g->record, mine, g->record);
    return t;
}

void *mcio_sim_gather_run(MPI_Comm comm, mcio_sim_gather *g, const void *mine)
{
    char *t = mcio_sim_gather_put(g, mine);
    PMPI_Allgather(g->wire_send, (int)g->record, MPI_BYTE, g->wire_recv, (int)g->record,
                   MPI_BYTE, comm);
    return t;
}

void *mcio_sim_gather_area(const mcio_sim_gather *g)
{
    return g->area[g->gen & 1];
}

void mcio_sim_gather_free(mcio_sim_gather *g)
{
    mcio_sim_shared_free(g->shared);
    if (g->wire_send)
        SMPI_SHARED_FREE(g->wire_send);
    if (g->wire_recv)
        SMPI_SHARED_FREE(g->wire_recv);
    memset(g, 0, sizeof *g);
}

/* This rank's collective buffers (a few: one per live plan). A global of the program, so each
 * simulated rank has its own list. */
typedef struct sim_buffer {
    char *p;
    size_t n;
    struct sim_buffer *next;
} sim_buffer;
static sim_buffer *my_buffers;

/* The bytes of an allocation of n that the node's memory counts: its whole pages. The kernel
 * keeps and pages memory by the page, and the engine pads a buffer of the plan's size by a
 * byte (never touched by the data), which must not push a node whose buffers the planner fitted
 * exactly to its memory over it. */
static int64_t counted(size_t n)
{
    return (int64_t)(n & ~(size_t)4095);
}

void *mcio_sim_buffer_alloc(size_t n)
{
    sim_buffer *b = malloc(sizeof *b);
    if (!b || mcio_sim_node_take(counted(n)) != 0) {
        free(b);
        return NULL;
    }
    if (!(b->p = SMPI_SHARED_MALLOC(n))) {
        mcio_sim_node_give(counted(n));
        free(b);
        return NULL;
    }
    b->n = n;
    b->next = my_buffers;
    my_buffers = b;
    return b->p;
}

void mcio_sim_buffer_free(void *p)
{
    for (sim_buffer **at = &my_buffers; *at; at = &(*at)->next)
        if ((*at)->p == p) {
            sim_buffer *b = *at;
            *at = b->next;
            mcio_sim_node_give(counted(b->n));
            SMPI_SHARED_FREE(b->p);
            free(b);
            return;
        }
}

void mcio_sim_buffer_touch(const void *buf, int64_t len)
{
    const char *c = buf;
    for (const sim_buffer *b = my_buffers; b; b = b->next)
        if (c >= b->p && c < b->p + b->n) {
            mcio_sim_node_page(len);
            return;
        }
}
