#define _GNU_SOURCE /* sched_getcpu */
#include "mcio_machine.h"

#include <sched.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_errors.h"
#include "mcio_fnv1a.h"
#include "mcio_memory.h"

#ifdef MCIO_SIMULATE
#include "mcio_machine_sim.h"
#else
#include <hwloc.h>

#include "mcio_machine_sysfs.h"
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
static void detect_socket(MPI_Comm node, int rank_in_comm, int mine[3])
{
    int local, local_size, leader = rank_in_comm;
    PMPI_Comm_rank(node, &local);
    PMPI_Comm_size(node, &local_size);
    PMPI_Bcast(&leader, 1, MPI_INT, 0, node);
    mine[0] = leader;
    mine[2] = mcio_sim_node_sockets();
    mine[1] = (int)((long)local * mine[2] / local_size);
}

void mcio_machine_caches(int64_t *bytes, int *count)
{
    *bytes = 0; /* the simulated hosts say nothing of caches */
    *count = 0;
}
#else
/* hwloc's view of this host, packages and caches (the rest filtered out), loaded once per
 * process and only read after, where sysfs does not say (mcio_machine_sysfs.c: a load takes
 * 2-5.7 ms here, those files 0.03-0.15). NULL when it cannot be had. */
static hwloc_topology_t host_topo;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void load_host(void)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return;
    hwloc_topology_set_all_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_PACKAGE, HWLOC_TYPE_FILTER_KEEP_ALL);
    hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(topo) == 0)
        host_topo = topo;
    else
        hwloc_topology_destroy(topo);
}

static hwloc_topology_t host_topology(void)
{
    pthread_once(&host_once, load_host);
    return host_topo;
}

/* The host's sockets (hwloc packages) and the socket of each processing unit by its OS index,
 * as the node's first rank reads them (sysfs, else hwloc) and broadcasts them on the node
 * communicator: the other ranks of the node read nothing (hwloc's load was 2.5-5.7 ms a rank
 * here, every rank at its process's first open: on 8 ranks sharing 2 cores most of it, issue 51).
 * MAX_PUS bounds the table; a processing unit beyond it maps to socket 0. */
enum { MAX_PUS = 8192 };
typedef struct socket_map {
    int32_t leader, nsockets, npus;
    uint16_t socket_of_pu[MAX_PUS];
} socket_map;

static void socket_map_read(socket_map *map)
{
    memset(map->socket_of_pu, 0, sizeof map->socket_of_pu);
    int npus, nsockets;
    if (mcio_sysfs_sockets(map->socket_of_pu, MAX_PUS, &npus, &nsockets) == 0) {
        map->npus = npus, map->nsockets = nsockets;
        return;
    }
    memset(map->socket_of_pu, 0, sizeof map->socket_of_pu);
    hwloc_topology_t topo = host_topology();
    map->nsockets = 1;
    map->npus = 0;
    if (!topo)
        return;
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    map->nsockets = n > 0 ? n : 1;
    for (int k = 0; k < n; k++) {
        hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)k);
        unsigned pu;
        hwloc_bitmap_foreach_begin(pu, pkg->cpuset)
        {
            if (pu < MAX_PUS) {
                map->socket_of_pu[pu] = (uint16_t)pkg->logical_index;
                map->npus = (int32_t)pu + 1 > map->npus ? (int32_t)pu + 1 : map->npus;
            }
        }
        hwloc_bitmap_foreach_end();
    }
}

/* Collective on node: this rank's node key (the node's lowest rank in comm, rank_in_comm of
 * node rank 0), the socket of the processing unit it last ran on (sched_getcpu, as hwloc's
 * last CPU location), and the host's sockets. */
static void detect_socket(MPI_Comm node, int rank_in_comm, int mine[3])
{
    socket_map map; /* the leader's reading, and the broadcast's buffer */
    int local;
    PMPI_Comm_rank(node, &local);
    map.leader = rank_in_comm;
    if (local == 0)
        socket_map_read(&map);
    PMPI_Bcast(&map, (int)sizeof map, MPI_BYTE, 0, node);
    int cpu = sched_getcpu();
    mine[0] = map.leader;
    mine[1] = cpu >= 0 && cpu < map.npus ? map.socket_of_pu[cpu] : 0;
    mine[2] = map.nsockets;
}

void mcio_machine_caches(int64_t *bytes, int *count)
{
    /* The outermost level of unified or data caches the host has. */
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE,
                                              HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
                                              HWLOC_OBJ_L1CACHE};
    if (mcio_sysfs_caches(bytes, count) == 0)
        return;
    hwloc_topology_t topo = host_topology();
    *bytes = 0;
    *count = 0;
    for (size_t l = 0; topo && l < sizeof levels / sizeof levels[0] && *count == 0; l++) {
        int n = hwloc_get_nbobjs_by_type(topo, levels[l]);
        for (int i = 0; i < n; i++) {
            hwloc_obj_t c = hwloc_get_obj_by_type(topo, levels[l], (unsigned)i);
            int64_t size = c && c->attr ? (int64_t)c->attr->cache.size : 0;
            *bytes = size > *bytes ? size : *bytes;
            *count += size > 0;
        }
    }
}
#endif

/* Where each rank lies, detected once per communicator (a node communicator split and freed,
 * a broadcast: the dearest collectives of an open, 1.4-17 ms of it at 8 ranks on this 2-core
 * host, issue 51), kept as an attribute of the program's communicator origin (its duplicates
 * do not inherit it). The value is the node key, the socket and the sockets packed, not a
 * pointer to memory one rank might fail to allocate: every rank of origin has it, or none. */
static int placement_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t placement_once = PTHREAD_ONCE_INIT;

static void placement_keyval_create(void)
{
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &placement_keyval,
                            NULL);
}

_Static_assert(sizeof(void *) >= sizeof(uint64_t), "a packed placement fits an attribute value");

static int placement_kept(MPI_Comm origin, int mine[3])
{
    void *val = NULL;
    int flag = 0;
    pthread_once(&placement_once, placement_keyval_create);
    if (origin == MPI_COMM_NULL || placement_keyval == MPI_KEYVAL_INVALID)
        return 0;
    PMPI_Comm_get_attr(origin, placement_keyval, &val, &flag);
    if (!flag)
        return 0;
    uint64_t v = (uint64_t)(uintptr_t)val;
    mine[0] = (int)(v >> 32), mine[1] = (int)((v >> 16) & 0xffff), mine[2] = (int)(v & 0xffff);
    return 1;
}

static void placement_keep(MPI_Comm origin, const int mine[3])
{
    if (origin == MPI_COMM_NULL || placement_keyval == MPI_KEYVAL_INVALID)
        return;
    int nsockets = mine[2] < 0xffff ? mine[2] : 0xffff; /* hwloc's packages: never that many */
    int socket = mine[1] < nsockets ? mine[1] : nsockets - 1;
    uint64_t v = (uint64_t)(uint32_t)mine[0] << 32 | (uint64_t)socket << 16 | (uint64_t)nsockets;
    PMPI_Comm_set_attr(origin, placement_keyval, (void *)(uintptr_t)v);
}

/* This rank's node key (virtual: its node number; detected: the node's lowest rank in comm),
 * socket and sockets per node, into mine[0..2]. Collective on comm when detected, unless
 * origin (comm's ranks in the same order, or MPI_COMM_NULL) keeps them from an earlier open. */
static void place_rank(MPI_Comm comm, MPI_Comm origin, int rank, int nprocs, int per_node,
                       int sockets, int round_robin, int mine[3])
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
    } else if (!placement_kept(origin, mine)) {
        MPI_Comm node;
        PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        detect_socket(node, rank, mine); /* the node's lowest rank in comm names it */
        PMPI_Comm_free(&node);
        placement_keep(origin, mine);
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

#ifdef MCIO_SIMULATE
/* The simulation build's tables kept once for all simulated ranks (mcio_machine_sim.h): the
 * maps and index_nodes' scratch in one shared block, the probe's records and rank extents in
 * a gather, and the gather *ga of detection's records. The same status on every rank. */
static int sim_tables(MPI_Comm comm, mcio_machine *m, int nprocs, mcio_sim_gather *ga)
{
    size_t n = (size_t)nprocs;
    int *map = mcio_sim_shared_alloc(comm, (5 * n + 1) * sizeof(int)); /* NULL on all or none */
    int st = map ? MCIO_SUCCESS : MCIO_ERR_NOMEM;
    if (st == MCIO_SUCCESS)
        st = mcio_sim_gather_init(comm, 4 * sizeof(int), 0, ga);
    if (st == MCIO_SUCCESS) {
        st = mcio_sim_gather_init(comm, MCIO_PROBE_FIELDS * sizeof(int64_t), n * sizeof(int64_t),
                                  &m->sim_probe);
        if (st != MCIO_SUCCESS)
            mcio_sim_gather_free(ga);
    }
    if (st != MCIO_SUCCESS) {
        mcio_sim_shared_free(map);
        return st;
    }
    m->sim_map = map;
    m->node_of_rank = map;
    m->socket_of_rank = map + n;
    m->rank_order = map + 2 * n;
    m->node_first = map + 3 * n; /* n + 1 */
    return st;
}
#endif

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

/* Each rank's own tables of the nodes' memory (nnodes <= nprocs); 1 when they and the maps are
 * all there. */
static int node_tables_alloc(mcio_machine *m, int nprocs)
{
    m->node_mem = malloc((size_t)nprocs * sizeof(int64_t));
    m->node_mem_source = calloc((size_t)nprocs, sizeof(int));
    m->node_mem_used = malloc((size_t)nprocs * sizeof(int64_t));
    m->probe_node = malloc((size_t)nprocs * sizeof(mcio_memory_probe));
    return m->node_of_rank && m->socket_of_rank && m->node_mem && m->node_mem_source &&
           m->node_mem_used && m->rank_order && m->node_first && m->probe_node;
}

#ifndef MCIO_SIMULATE
/* Every rank's 4-int record into all (NULL where this rank could not allocate it). The
 * allgather needs room for every record on every rank: the ranks agree on that first (a rank
 * without it cannot take part), then the records carry the other errors. Collective. */
static int gather_records(MPI_Comm comm, const int mine[4], int *all)
{
    int have = all != NULL, everyone = 0;
    PMPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, comm);
    if (!everyone)
        return MCIO_ERR_NOMEM;
    PMPI_Allgather(mine, 4, MPI_INT, all, 4, MPI_INT, comm);
    return MCIO_SUCCESS;
}
#endif

#ifndef MCIO_SIMULATE
/* Who reads the shared memory figures (MemAvailable, the cgroups) at each call: per node, the
 * first rank in each cgroup the open's probe found; the others of that cgroup send
 * MCIO_PROBE_AS_READER and their own rlimits. Ranks of one cgroup read the same files at
 * once: on this 2-core host 8 ranks spent about 1.2 ms per call reading the same 7 files
 * each (docs/performance.md, issue 20's sixth pass). The cgroup is the one that bound each
 * rank at open; ranks of separate cgroups under one binding parent are grouped as one (their
 * figures then count once: the node's figure can only be lower). From the open's records
 * (probe_all), the same table on every rank. */
static void choose_readers(MPI_Comm comm, mcio_machine *m)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    for (int j = 0; j < m->nnodes; j++)
        for (int i = m->node_first[j]; i < m->node_first[j + 1]; i++) {
            /* The cgroup: a record's fields 3-5, cg_version, cg_dev, cg_ino. */
            int r = m->rank_order[i], k = m->node_first[j];
            const int64_t *x = &m->probe_all[(size_t)MCIO_PROBE_FIELDS * r];
            while (k < i && memcmp(&m->probe_all[(size_t)MCIO_PROBE_FIELDS * m->rank_order[k] + 3],
                                   x + 3, 3 * sizeof(int64_t)) != 0)
                k++;
            m->mem_reader[r] = m->rank_order[k];
        }
    m->mem_not_reader = m->mem_reader[rank] != rank;
}
#endif

/* The ranks of each node, in rank order (the probe combines them node by node); index: nprocs
 * ints of scratch. */
static void order_ranks(mcio_machine *m, int nprocs, int *index)
{
    memset(m->node_first, 0, ((size_t)m->nnodes + 1) * sizeof(int)); /* shared in simulation */
    for (int r = 0; r < nprocs; r++)
        m->node_first[m->node_of_rank[r] + 1]++;
    for (int j = 0; j < m->nnodes; j++)
        m->node_first[j + 1] += m->node_first[j];
    memset(index, 0, (size_t)nprocs * sizeof(int)); /* now: ranks of each node placed so far */
    for (int r = 0; r < nprocs; r++) {
        int j = m->node_of_rank[r];
        m->rank_order[m->node_first[j] + index[j]++] = r;
    }
}

#ifndef MCIO_SIMULATE
/* The per-rank tables (NULL where out of memory: the caller checks), and the gathered records
 * (*all: 4 ints per rank) and nprocs ints of scratch (*index) the caller frees. */
static void rank_tables_alloc(mcio_machine *m, int nprocs, int **all, int **index)
{
    *all = malloc((size_t)nprocs * 4 * sizeof(int));
    m->node_of_rank = malloc((size_t)nprocs * sizeof(int));
    m->socket_of_rank = malloc((size_t)nprocs * sizeof(int));
    *index = calloc((size_t)nprocs, sizeof(int));
    m->rank_extents = calloc((size_t)nprocs, sizeof(int64_t));
    m->probe_all = malloc((size_t)nprocs * MCIO_PROBE_FIELDS * sizeof(int64_t));
    m->mem_reader = malloc((size_t)nprocs * sizeof(int));
    m->rank_order = malloc((size_t)nprocs * sizeof(int));
    m->node_first = calloc((size_t)nprocs + 1, sizeof(int));
}
#endif

/* MCIO_VIRTUAL_NODE_MEMORY (memspec, already checked), when set: the nodes' memory. */
static void virtual_memory(mcio_machine *m, const char *memspec, char memdetail[MCIO_DETAIL_LEN])
{
    if (memspec && *memspec) {
        mcio_memory_virtual(memspec, m->nnodes, m->node_mem, memdetail); /* checked above */
        m->mem_is_virtual = 1;
        for (int j = 0; j < m->nnodes; j++)
            m->node_mem_source[j] = MCIO_MEM_VIRTUAL, m->node_mem_used[j] = -1;
    }
}

int mcio_machine_detect(MPI_Comm comm, mcio_machine *m, char detail[MCIO_DETAIL_LEN])
{
    return mcio_machine_detect_kept(comm, MPI_COMM_NULL, m, detail);
}

uint64_t mcio_machine_env_key(void)
{
    static const char *const vars[] = {"MCIO_VIRTUAL_RANKS_PER_NODE", "MCIO_VIRTUAL_SOCKETS_PER_NODE",
                                       "MCIO_VIRTUAL_SOCKET_BINDING", "MCIO_VIRTUAL_NODE_MEMORY"};
    uint64_t h = MCIO_FNV1A_OFFSET;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        h = mcio_fnv1a(h, v ? v : "", v ? strlen(v) + 1 : 1); /* the NUL: values apart */
    }
    return h;
}

int mcio_machine_detect_kept(MPI_Comm comm, MPI_Comm origin, mcio_machine *m,
                             char detail[MCIO_DETAIL_LEN])
{
    int rank, nprocs, status = MCIO_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &nprocs);
    memset(m, 0, sizeof *m);
    m->net = mcio_network_flat();
    m->nprocs = nprocs;
    m->env_key = mcio_machine_env_key();

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
    if (memspec && *memspec && mcio_memory_virtual(memspec, 0, NULL, memdetail) != MCIO_SUCCESS)
        mine[3] = MCIO_ERR_ARG;
    if (per_node < 0 || sockets < 0)
        mine[3] = MCIO_ERR_ARG;
    else
        place_rank(comm, origin, rank, nprocs, per_node, sockets, round_robin, mine);
#ifdef MCIO_SIMULATE
    mcio_sim_gather ga;
    int *all = NULL, *index = NULL;
    status = sim_tables(comm, m, nprocs, &ga); /* agreed */
    if (status != MCIO_SUCCESS)
        goto done;
    index = m->sim_map + 4 * (size_t)nprocs + 1; /* used below without MPI calls between */
#else
    int *all = NULL, *index = NULL;
    rank_tables_alloc(m, nprocs, &all, &index);
#endif
    if (!node_tables_alloc(m, nprocs))
        mine[3] = MCIO_ERR_NOMEM;
#ifdef MCIO_SIMULATE
    all = mcio_sim_gather_run(comm, &ga, mine);
#else
    if (!all || !index || !m->rank_extents || !m->probe_all || !m->mem_reader)
        mine[3] = MCIO_ERR_NOMEM;
    if ((status = gather_records(comm, mine, all)) != MCIO_SUCCESS) {
        describe_failure(status, memdetail, binding, detail);
        goto done;
    }
#endif
    for (int r = 0; r < nprocs; r++)
        if (all[4 * r + 3] != MCIO_SUCCESS && status == MCIO_SUCCESS)
            status = all[4 * r + 3];
    if (status != MCIO_SUCCESS) {
        describe_failure(status, memdetail, binding, detail);
        goto done;
    }
    index_nodes(m, all, nprocs, index);
    m->is_virtual = per_node > 0;
    order_ranks(m, nprocs, index);
    /* Memory: virtual, or what the ranks read. */
    virtual_memory(m, memspec, memdetail);
    mcio_machine_probe_memory(comm, m, 0, 0);
#ifndef MCIO_SIMULATE
    if (!m->mem_is_virtual)
        choose_readers(comm, m);
#endif
done:
#ifdef MCIO_SIMULATE
    if (all)
        mcio_sim_gather_free(&ga);
#else
    free(all);
    free(index);
#endif
    if (status != MCIO_SUCCESS)
        mcio_machine_free(m);
    return status;
}

void mcio_machine_free(mcio_machine *m)
{
#ifdef MCIO_SIMULATE
    mcio_sim_shared_free(m->sim_map);
    mcio_sim_gather_free(&m->sim_probe);
#else
    free(m->node_of_rank);
    free(m->socket_of_rank);
    free(m->rank_extents);
    free(m->probe_all);
    free(m->rank_order);
    free(m->node_first);
#endif
    mcio_network_free(&m->net);
    free(m->node_mem);
    free(m->node_mem_source);
    free(m->node_mem_used);
    free(m->node_mem_where);
    free(m->probe_node);
    free(m->mem_where);
    free(m->mem_reader);
    free(m->mem_last);
    memset(m, 0, sizeof *m);
    m->net = mcio_network_flat();
}

#ifndef MCIO_SIMULATE
/* This rank's last reading, when it may stand for a new one (mcio_machine_memory_read): of
 * the kind this rank reads now (the open's whole reading is not a non-reader's), young, and
 * with ample room. */
static const mcio_memory_probe *reading_to_reuse(const mcio_machine *m, int64_t ample)
{
    const mcio_memory_probe *q = m->mem_last;
    if (!q || ample <= 0 || (q->meminfo == MCIO_PROBE_AS_READER) != m->mem_not_reader ||
        PMPI_Wtime() - m->mem_last_time >= MCIO_MEM_REUSE_SECONDS)
        return NULL;
    return q->avail < 0 || q->avail >= ample ? q : NULL;
}
#endif

#ifndef MCIO_SIMULATE
/* The process's memory cgroups, located once per process (its cgroup and the mounts, read and
 * parsed: a sixth of an open's own work at one rank, issue 51); each reading then reads the
 * located files' current figures. */
static mcio_memory_where located;
static pthread_once_t located_once = PTHREAD_ONCE_INIT;

static void locate_cgroups(void)
{
    mcio_memory_locate("", &located);
}
#endif

void mcio_machine_memory_read(mcio_machine *m, int64_t my_extents, int64_t ample, int64_t *rec,
                              char *path)
{
    mcio_memory_probe p;
#ifdef MCIO_SIMULATE
    (void)m, (void)ample; /* the simulated host's property, not the machine's located cgroups */
    memset(&p, 0, sizeof p);
    p.meminfo = mcio_sim_node_memory();
    p.cgroup = p.cg_used = p.cg_limit = p.rlimit = -1;
#else
    if (!m->mem_where && (m->mem_where = malloc(sizeof *m->mem_where)) != NULL) {
        pthread_once(&located_once, locate_cgroups);
        *m->mem_where = located;
    }
    const mcio_memory_probe *last = reading_to_reuse(m, ample);
    if (m->mem_is_virtual)
        memset(&p, 0, sizeof p), p.meminfo = p.cgroup = p.cg_used = p.rlimit = -1;
    else if (last)
        p = *last;
    else if (m->mem_not_reader) /* the reader's figures stand for these (combine, below) */
        mcio_memory_probe_own("", mcio_memory_rlimits(), &p), p.meminfo = MCIO_PROBE_AS_READER;
    else if (m->mem_where)
        mcio_memory_probe_located("", m->mem_where, mcio_memory_rlimits(), &p);
    else
        mcio_memory_probe_at("", mcio_memory_rlimits(), &p);
    if (!m->mem_is_virtual && !last &&
        (m->mem_last || (m->mem_last = malloc(sizeof *m->mem_last)) != NULL)) {
        *m->mem_last = p;
        m->mem_last_time = PMPI_Wtime();
    }
#endif
    const int64_t r[MCIO_PROBE_FIELDS] = {p.meminfo,        p.cgroup,          p.cg_used,
                                          p.cg_version,     (int64_t)p.cg_dev, (int64_t)p.cg_ino,
                                          p.rlimit,         my_extents};
    memcpy(rec, r, sizeof r);
    if (path)
        snprintf(path, MCIO_MEM_WHERE_LEN, "%s", p.cg_path);
}

void mcio_machine_probe_memory(MPI_Comm comm, mcio_machine *m, int64_t my_extents, int where)
{
    int64_t rec[MCIO_PROBE_FIELDS];
    char path[MCIO_MEM_WHERE_LEN];
    mcio_machine_memory_read(m, my_extents, 0, rec, path);
#ifdef MCIO_SIMULATE
    m->probe_all = mcio_sim_gather_run(comm, &m->sim_probe, rec);
    m->rank_extents = mcio_sim_gather_area(&m->sim_probe);
#else
    PMPI_Allgather(rec, MCIO_PROBE_FIELDS, MPI_INT64_T, m->probe_all, MCIO_PROBE_FIELDS,
                   MPI_INT64_T, comm);
#endif
    mcio_machine_memory_combine(comm, m, m->probe_all, MCIO_PROBE_FIELDS, path, where);
}

void mcio_machine_memory_nodes(mcio_machine *m, const int64_t *all, int stride, int *which)
{
    for (int j = 0; which && j < m->nnodes; j++)
        which[j] = -1;
    for (int r = 0; r < m->nprocs; r++)
        m->rank_extents[r] = all[(size_t)stride * r + 7];
    for (int j = 0; j < m->nnodes && !m->mem_is_virtual; j++) {
        int n = m->node_first[j + 1] - m->node_first[j];
        for (int i = 0; i < n; i++) {
            int r = m->rank_order[m->node_first[j] + i];
            const int64_t *x = &all[(size_t)stride * r], *y = x; /* y: the shared figures */
            if (x[0] == MCIO_PROBE_AS_READER && m->mem_reader)
                y = &all[(size_t)stride * m->mem_reader[r]];
            mcio_memory_probe *q = &m->probe_node[i];
            *q = (mcio_memory_probe){.meminfo = y[0], .cgroup = y[1], .cg_used = y[2],
                                     .cg_version = (int)y[3], .cg_dev = (uint64_t)y[4],
                                     .cg_ino = (uint64_t)y[5], .rlimit = x[6]};
        }
        int w;
        m->node_mem[j] = mcio_memory_node(n, m->probe_node, &m->node_mem_source[j], &w,
                                          &m->node_mem_used[j]);
        if (which)
            which[j] = w < 0 ? -1 : m->rank_order[m->node_first[j] + w];
    }
}

void mcio_machine_memory_where(MPI_Comm comm, mcio_machine *m, const char *path, const int *which)
{
    /* The binding cgroups' paths, to rank 0 (every rank sends its own; rank 0 keeps those of
     * the ranks that name a node's figure). Statistics only: best effort without memory. */
    int rank;
    PMPI_Comm_rank(comm, &rank);
    char *paths = NULL;
    int ok = 1;
    if (rank == 0) {
        paths = malloc((size_t)m->nprocs * MCIO_MEM_WHERE_LEN + 1);
        if (!m->node_mem_where)
            m->node_mem_where = calloc((size_t)m->nnodes + 1, MCIO_MEM_WHERE_LEN);
        ok = paths && m->node_mem_where && which;
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok) {
        PMPI_Gather(path, MCIO_MEM_WHERE_LEN, MPI_CHAR, paths, MCIO_MEM_WHERE_LEN, MPI_CHAR,
                    0, comm);
        for (int j = 0; rank == 0 && j < m->nnodes; j++)
            snprintf(&m->node_mem_where[(size_t)j * MCIO_MEM_WHERE_LEN], MCIO_MEM_WHERE_LEN,
                     "%s", which[j] >= 0 ? &paths[(size_t)which[j] * MCIO_MEM_WHERE_LEN] : "");
    }
    free(paths);
}

void mcio_machine_memory_combine(MPI_Comm comm, mcio_machine *m, const int64_t *all, int stride,
                                 const char *path, int where)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    int *which = where && rank == 0 ? malloc(((size_t)m->nnodes + 1) * sizeof(int)) : NULL;
    mcio_machine_memory_nodes(m, all, stride, which);
    if (where)
        mcio_machine_memory_where(comm, m, path, which);
    free(which);
}
