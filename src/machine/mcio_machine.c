#include "mcio_machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_errors.h"
#include "mcio_memory.h"

#ifdef MCIO_SIMULATE
#include "mcio_machine_sim.h"
#else
#include <hwloc.h>
#endif

/* A positive integer from the environment; 0 when unset; -1 when malformed. */
static int env_count(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    long x = strtol(v, &end, 10);
    return (*end || x < 1 || x > 1 << 30) ? -1 : (int)x;
}

#ifdef MCIO_SIMULATE
/* Simulated: the host's mcio_sockets, filled by its ranks in order ("accumulated" binding). */
static void detect_socket(MPI_Comm node, int *socket, int *nsockets)
{
    int local, local_size;
    PMPI_Comm_rank(node, &local);
    PMPI_Comm_size(node, &local_size);
    *nsockets = mcio_sim_node_sockets();
    *socket = (int)((long)local * *nsockets / local_size);
}
#else
/* The socket (hwloc package) this process last ran on, and how many the host has. */
static void detect_socket(MPI_Comm node, int *socket, int *nsockets)
{
    (void)node;
    hwloc_topology_t topo;
    *socket = 0;
    *nsockets = 1;
    if (hwloc_topology_init(&topo))
        return;
    /* Packages and cores are all we need: skip caches, I/O devices and the rest. */
    hwloc_topology_set_all_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_PACKAGE, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(topo) == 0) {
        int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (n > 0)
            *nsockets = n;
        if (set && hwloc_get_last_cpu_location(topo, set, HWLOC_CPUBIND_THREAD) == 0) {
            hwloc_obj_t pkg =
                hwloc_get_next_obj_covering_cpuset_by_type(topo, set, HWLOC_OBJ_PACKAGE, NULL);
            if (pkg)
                *socket = (int)pkg->logical_index;
        }
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
}
#endif

/* This rank's node key (virtual: its node number; detected: the node's lowest rank in comm),
 * socket and sockets per node, into mine[0..2]. Collective on comm when detected. */
static void place_rank(MPI_Comm comm, int rank, int nprocs, int per_node, int sockets,
                       int round_robin, int mine[3])
{
    if (per_node > 0) {
        int local = rank % per_node;
        if (sockets == 0)
            sockets = 1;
        mine[0] = rank / per_node;
        mine[2] = sockets;
        /* Accumulated: the node's ranks fill socket 0 first, then socket 1, ... */
        int local_size = nprocs - (rank / per_node) * per_node;
        local_size = local_size < per_node ? local_size : per_node;
        mine[1] = round_robin ? local % sockets : (int)((long)local * sockets / local_size);
    } else {
        MPI_Comm node;
        PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        int leader = rank; /* the node's lowest rank in comm names it */
        PMPI_Bcast(&leader, 1, MPI_INT, 0, node);
        detect_socket(node, &mine[1], &mine[2]);
        PMPI_Comm_free(&node);
        mine[0] = leader;
    }
}

/* The message of a failed description: the memory spec's, the virtual machine's variables', or
 * out of memory. */
static void describe_failure(int status, const char *memdetail, const char *binding,
                             char detail[MCIO_DETAIL_LEN])
{
    if (status == MCIO_ERR_ARG && memdetail[0])
        snprintf(detail, MCIO_DETAIL_LEN, "%s", memdetail);
    else if (status == MCIO_ERR_ARG)
        snprintf(detail, MCIO_DETAIL_LEN,
                 "MCIO_VIRTUAL_RANKS_PER_NODE='%s', MCIO_VIRTUAL_SOCKETS_PER_NODE='%s': each "
                 "must be a positive integer; MCIO_VIRTUAL_SOCKET_BINDING='%s': accumulated "
                 "or distributed",
                 getenv("MCIO_VIRTUAL_RANKS_PER_NODE") ? getenv("MCIO_VIRTUAL_RANKS_PER_NODE") : "",
                 getenv("MCIO_VIRTUAL_SOCKETS_PER_NODE") ? getenv("MCIO_VIRTUAL_SOCKETS_PER_NODE") : "",
                 binding ? binding : "");
    else
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory describing the machine");
}

/* Node keys (all[4 * r]) become indices 0..nnodes-1 in order of their lowest rank; sockets. */
static void index_nodes(mcio_machine *m, const int *all, int nprocs, int *index)
{
    for (int r = 0; r < nprocs; r++)
        index[r] = -1;
    m->sockets_per_node = 1;
    for (int r = 0; r < nprocs; r++) {
        int key = all[4 * r];
        /* Keys are ranks (detected) or node numbers (virtual); both are < nprocs. */
        if (index[key] < 0)
            index[key] = m->nnodes++;
        m->node_of_rank[r] = index[key];
        m->socket_of_rank[r] = all[4 * r + 1];
        if (all[4 * r + 2] > m->sockets_per_node)
            m->sockets_per_node = all[4 * r + 2];
    }
}

int mcio_machine_detect(MPI_Comm comm, mcio_machine *m, char detail[MCIO_DETAIL_LEN])
{
    int rank, nprocs, status = MCIO_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &nprocs);
    memset(m, 0, sizeof *m);
    m->net = mcio_network_flat();
    m->nprocs = nprocs;

    /* Per rank: [node key, socket, sockets per node, status]. */
    int mine[4] = {0, 0, 1, MCIO_SUCCESS};
    int per_node = env_count("MCIO_VIRTUAL_RANKS_PER_NODE");
    int sockets = env_count("MCIO_VIRTUAL_SOCKETS_PER_NODE");
    /* MCIO_VIRTUAL_SOCKET_BINDING: accumulated (default) or distributed (round-robin). */
    const char *binding = getenv("MCIO_VIRTUAL_SOCKET_BINDING");
    int round_robin = binding && strcmp(binding, "distributed") == 0;
    if (binding && *binding && !round_robin && strcmp(binding, "accumulated") != 0)
        sockets = -1;
    const char *memspec = getenv("MCIO_VIRTUAL_NODE_MEMORY");
    char memdetail[MCIO_DETAIL_LEN] = "";
    int64_t avail = -1;
    if (memspec && *memspec) {
        if (mcio_memory_virtual(memspec, 0, NULL, memdetail) != MCIO_SUCCESS)
            mine[3] = MCIO_ERR_ARG;
    } else {
#ifdef MCIO_SIMULATE
        avail = mcio_sim_node_memory();
#else
        avail = mcio_memory_available();
#endif
    }
    if (per_node < 0 || sockets < 0)
        mine[3] = MCIO_ERR_ARG;
    else
        place_rank(comm, rank, nprocs, per_node, sockets, round_robin, mine);
    int *all = malloc((size_t)nprocs * 4 * sizeof(int));
    m->node_of_rank = malloc((size_t)nprocs * sizeof(int));
    m->socket_of_rank = malloc((size_t)nprocs * sizeof(int));
    int *index = calloc((size_t)nprocs, sizeof(int));
    int64_t *avail_all = malloc((size_t)nprocs * sizeof(int64_t));
    m->node_mem = malloc((size_t)nprocs * sizeof(int64_t)); /* nnodes <= nprocs */
    if (!all || !m->node_of_rank || !m->socket_of_rank || !index || !avail_all || !m->node_mem)
        mine[3] = MCIO_ERR_NOMEM;
    /* The allgather also agrees on errors: a rank that failed to allocate sends its status. */
    int fallback[4];
    PMPI_Allgather(mine, 4, MPI_INT, all ? all : fallback, 4, MPI_INT, comm);
    if (!all) {
        status = MCIO_ERR_NOMEM;
        goto done; /* the other ranks learn it from what we sent */
    }
    for (int r = 0; r < nprocs; r++)
        if (all[4 * r + 3] != MCIO_SUCCESS && status == MCIO_SUCCESS)
            status = all[4 * r + 3];
    if (status != MCIO_SUCCESS) {
        describe_failure(status, memdetail, binding, detail);
        goto done;
    }
    index_nodes(m, all, nprocs, index);
    m->is_virtual = per_node > 0;
    /* Memory: virtual, or what the node's lowest rank reads (the ranks of a node share it). */
    PMPI_Allgather(&avail, 1, MPI_INT64_T, avail_all, 1, MPI_INT64_T, comm);
    if (memspec && *memspec) {
        mcio_memory_virtual(memspec, m->nnodes, m->node_mem, memdetail); /* checked above */
        m->mem_is_virtual = 1;
    } else {
        for (int j = 0; j < m->nnodes; j++)
            m->node_mem[j] = -1;
        for (int r = nprocs - 1; r >= 0; r--)
            m->node_mem[m->node_of_rank[r]] = avail_all[r];
    }
done:
    free(all);
    free(avail_all);
    free(index);
    if (status != MCIO_SUCCESS)
        mcio_machine_free(m);
    return status;
}

void mcio_machine_free(mcio_machine *m)
{
    free(m->node_of_rank);
    free(m->socket_of_rank);
    mcio_network_free(&m->net);
    free(m->node_mem);
    memset(m, 0, sizeof *m);
    m->net = mcio_network_flat();
}
