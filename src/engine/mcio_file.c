/*
 * Opening and closing files: hints, the machine description, the I/O backend.
 */
#define _GNU_SOURCE /* open_memstream, fmemopen */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "mcio_engine.h"
#include "mcio_fnv1a.h"
#include "mcio_fs.h"

/* What the file system holding path is and how it stripes files, and what follows from it: the
 * stripe that file domains align on when the striping_unit hint does not say, and whether
 * writes end with a sync; and its block size, the alignment unit of sub-buffers when no stripe
 * size is given (statvfs, as fstatfs would; 4096 when it cannot tell). Local: each rank's, kept
 * per process for the device that holds path (a file system's kind and layout are its mount's),
 * as ROMIO resolves the kind on every rank; the open checks that the ranks found the same. */
typedef struct fs_found {
    mcio_fsinfo fs;
    int64_t block;
} fs_found;

static fs_found probe_fs_local(const char *path)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        dev_t dev;
        int valid;
        fs_found got;
    } last;
    fs_found got = {.block = 4096};
    struct stat sb;
    int known = stat(path, &sb) == 0, hit = 0;
    pthread_mutex_lock(&lock);
    if (known && last.valid && last.dev == sb.st_dev)
        got = last.got, hit = 1;
    pthread_mutex_unlock(&lock);
    if (hit)
        return got;
    struct statvfs sv;
    mcio_fs_probe(path, &got.fs);
    if (statvfs(path, &sv) == 0 && sv.f_bsize > 0 && sv.f_bsize <= (1u << 30))
        got.block = (int64_t)sv.f_bsize;
    pthread_mutex_lock(&lock);
    if (known)
        last.dev = sb.st_dev, last.valid = 1, last.got = got;
    pthread_mutex_unlock(&lock);
    return got;
}

/* A fingerprint of what probe_fs_local found, which the ranks compare (maximum and minimum). */
static int64_t fs_fingerprint(const mcio_file f)
{
    uint64_t h = mcio_fnv1a(MCIO_FNV1A_OFFSET, &f->fs, sizeof f->fs);
    return (int64_t)(mcio_fnv1a(h, &f->fs_block, sizeof f->fs_block) >> 1);
}

/* Collective: rank 0's file system for every rank (after the open, so that the file exists). */
static void probe_fs(mcio_file f, const char *path)
{
    fs_found got = {.block = 4096};
    if (f->rank == 0)
        got = probe_fs_local(path);
    PMPI_Bcast(&got, (int)sizeof got, MPI_BYTE, 0, f->comm);
    f->fs = got.fs;
    f->fs_block = got.block;
}

/* Each rank's own descriptor, for reads and writes where the file system is the node's own
 * and the backend is mpiio (mcio_local_io auto): a pread or pwrite, without the MPI library's
 * independent read or write around it (own-access reads of 64 KiB a rank, MPICH 4.0, 2 ranks:
 * 11.0 us through ROMIO's read, 10.2 through the descriptor, against 9.3 for ROMIO's own
 * collective read; over OMPIO each call costs more: contiguous writes of 64 KiB a rank at 8
 * ranks, 176 us through OMPIO's write, 156 through the descriptor: docs/performance.md,
 * twentieth and twenty-first passes). One kernel's page cache and one inode serve both
 * descriptors: the MPI library reads what was written through this one, and its sync flushes
 * it. Opened as the access mode allows (read-only, write-only, both); reads not where
 * direct_read, writes not where direct_write asks the MPI library to go past the page cache.
 * A rank that cannot open one goes through the backend, the same bytes. Opened at open or when
 * the hints come to allow it, closed when they no longer do. */
static void local_descriptor(mcio_file f)
{
    int on = f->hints.local_io && f->io == &mcio_io_mpiio && mcio_fs_node_local(f->fs.type);
    int readable = f->can_read, writable = !(f->amode & MPI_MODE_RDONLY);
    f->local_read = on && readable && !f->hints.direct_read;
    f->local_write = on && writable && !f->hints.direct_write;
    int flags = readable && writable ? O_RDWR : writable ? O_WRONLY : O_RDONLY;
    if ((f->local_read || f->local_write) && !f->local &&
        mcio_io_posix_local_open(f->path, flags, &f->local) != 0)
        f->local = NULL;
    if (!f->local_read && !f->local_write && f->local) {
        mcio_io_posix_local_close(f->local);
        f->local = NULL;
    }
}

/* Local: can the kept machine stand for a new detection (detected under the same MCIO_VIRTUAL_*
 * variables)? The open agrees on it. */
static int kept_machine_fits(const mcio_kept *k)
{
    return k && k->machine.nprocs > 0 && k->machine.env_key == mcio_machine_env_key();
}

/* Rank 0: the cost table's key (what mcio_calibrate_file reads it for: the file system's kind
 * and device, the calibration hint, a pinned table), into key; -1 when the table must be read
 * again (a topology file changes its network figures, or the path cannot be stat'ed). */
static int kept_costs_key(const mcio_file f, char *key, size_t cap)
{
    struct stat sb, pb = {0};
    const char *pinned = getenv("MCIO_CALIBRATION");
    if (f->hints.topology_file[0] || stat(f->path, &sb) != 0)
        return -1;
    if (pinned && *pinned && stat(pinned, &pb) != 0)
        memset(&pb, 0, sizeof pb);
    /* A pinned table: its file as it is now (a program may write another between opens). */
    int n = snprintf(key, cap, "%d %d %d %d %llx %s %llx %lld %lld.%09ld", (int)f->hints.strategy,
                     (int)f->fs.type, f->fs.remote, (int)f->hints.calibrate,
                     (unsigned long long)sb.st_dev, pinned ? pinned : "",
                     (unsigned long long)pb.st_ino, (long long)pb.st_size,
                     (long long)pb.st_mtim.tv_sec, pb.st_mtim.tv_nsec);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Rank 0: does the kept cost table stand for this open's? */
static int kept_costs_fit(const mcio_file f)
{
    char key[sizeof f->kept->cost_key];
    return f->hints.strategy == MCIO_STRATEGY_AUTO && f->kept && f->kept->cost_ok &&
           kept_costs_key(f, key, sizeof key) == 0 && strcmp(key, f->kept->cost_key) == 0;
}

static void kept_costs_take(mcio_file f)
{
    f->cost = f->kept->cost;
    f->cost_source = f->kept->cost_source;
    f->cost_date = f->kept->cost_date;
    f->cost_kept = f->kept->cost_kept;
    memcpy(f->cost_file, f->kept->cost_file, sizeof f->cost_file);
}

/* At close: the communicator, the machine and the cost table into the kept handle. */
static void kept_leave(mcio_file f)
{
    mcio_kept *k = f->kept;
    if (!k)
        return;
    k->comm = f->comm;
    f->comm = MPI_COMM_NULL;
    k->machine = f->machine;
    memset(&f->machine, 0, sizeof f->machine);
    /* Only rank 0's key counts (kept_costs_fit); every rank keeps the table. */
    k->cost_ok = f->hints.strategy == MCIO_STRATEGY_AUTO &&
                 (f->rank != 0 || kept_costs_key(f, k->cost_key, sizeof k->cost_key) == 0);
    k->cost = f->cost;
    k->cost_source = f->cost_source;
    k->cost_date = f->cost_date;
    k->cost_kept = f->cost_kept;
    memcpy(k->cost_file, f->cost_file, sizeof k->cost_file);
}

/* Collective: does some rank need the backend's own handle, an access the amode allows not
 * going through its own descriptor (mcio_local_io off, direct_*, the file system not the
 * node's own, a descriptor that could not be opened)? Where none does, the mpiio backend's
 * MPI_File_open is left out: a second open of the file by the MPI library, OMPIO's shared file
 * pointer set-up included, was more than half of the engine's open at one rank (issue 51). */
static int backend_needed(mcio_file f, int *costs_kept)
{
    int readable = f->can_read, writable = !(f->amode & MPI_MODE_RDONLY);
    int64_t fp = fs_fingerprint(f);
    int64_t mine[4] = {f->io != &mcio_io_mpiio || (readable && !mcio_file_goes_local(f, 0)) ||
                           (writable && !mcio_file_goes_local(f, 1)),
                       f->rank == 0 && !kept_costs_fit(f), /* rank 0 reads the costs */
                       fp, -fp};
    PMPI_Allreduce(MPI_IN_PLACE, mine, 4, MPI_INT64_T, MPI_MAX, f->comm);
    *costs_kept = !mine[1];
    return mine[0] ? 1 : mine[2] != -mine[3] ? -1 : 0; /* -1: the ranks saw other file systems */
}

int mcio_file_backend_sync(mcio_file f)
{
    return f->io_state ? f->io->sync(f->io_state) : f->local ? mcio_io_posix.sync(f->local) : 0;
}

static void file_free(mcio_file f)
{
    if (!f)
        return;
    mcio_io_posix_local_close(f->local);
    if (f->given != MPI_INFO_NULL)
        PMPI_Info_free(&f->given);
    mcio_twolayer_free(f); /* its communicator may be the node gather's */
    mcio_node_gather_free(&f->node_gather);
    mcio_machine_free(&f->machine);
    mcio_engine_cbuf_release(f);
    if (f->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&f->comm);
    mcio_kept_give(f->kept); /* emptied by a close; a failed open keeps nothing */
    free(f->path);
    if (f->stats_out)
        fclose(f->stats_out);
    free(f->stats_path);
    free(f->stats_gathered);
    free(f->stats_aggs);
    free(f->stats_nodes);
    free(f->node_budget);
    free(f->node_source);
    free(f->stats_model);
    free(f->stats_predicted);
    free(f->stats_budget);
    free(f->stats_peak);
#ifdef MCIO_SIMULATE
    mcio_engine_shared_plans_free(f);
    mcio_sim_gather_free(&f->sim_summaries);
#else
    free(f->summaries);
#endif
    free(f);
}

/* What the hints decide once they are set (at open, mcio_file_set_hints). */
static void hints_taken(mcio_file f)
{
    for (int w = 0; w < 2; w++)
        f->cost_fixed[w] = mcio_hints_cost_fixed(&f->hints, w);
}

/* The allgather buffer of the summaries (f->summaries), allocated at open so that a call never
 * fails before it. In simulation a table shared by the simulated ranks, collective and agreed
 * inside. */
static int summaries_alloc(mcio_file f)
{
#ifdef MCIO_SIMULATE
    if (mcio_sim_gather_init(f->comm, sizeof(mcio_rank_record), sizeof(mcio_shared_plan),
                             &f->sim_summaries) != MCIO_SUCCESS)
        return MCIO_ERR_NOMEM;
    f->summaries = (mcio_rank_record *)f->sim_summaries.table[0];
    return MCIO_SUCCESS;
#else
    f->summaries = malloc((size_t)f->nprocs * sizeof *f->summaries);
    return f->summaries ? MCIO_SUCCESS : MCIO_ERR_NOMEM;
#endif
}

/* The file's own communicator, comm's ranks in a context of their own: started here and ready
 * when *req completes (MPI_REQUEST_NULL: ready now). Nonblocking, so that an open need not wait
 * for the other ranks (mcio_file_open_begin); collective, as the open is. */
static MPI_Comm private_comm(MPI_Comm comm, MPI_Request *req)
{
    MPI_Comm dup;
    *req = MPI_REQUEST_NULL;
#ifdef MCIO_SIMULATE
    /* SMPI's MPI_Comm_dup copies the group for every simulated rank, ranks^2 entries built one
     * by one (3 GiB and minutes of CPU at 16,384 ranks); a communicator made of comm's own
     * group shares it, and has its own context as a duplicate does. */
    MPI_Group group;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_create_group(comm, group, 0x6d64 /* "md" */, &dup);
    PMPI_Group_free(&group);
#else
    if (PMPI_Comm_idup(comm, &dup, req) != MPI_SUCCESS)
        PMPI_Comm_dup(comm, &dup), *req = MPI_REQUEST_NULL;
#endif
    return dup;
}

/* mcio_file_open's local checks of its arguments and hints, after st (a check before): the
 * access mode, the hints files and info, the backend, the path, MCIO_STATS (rank 0). */
static int open_args(mcio_file f, const char *path, int amode, MPI_Info info, int st,
                     char detail[MCIO_DETAIL_LEN])
{
    if (st == MCIO_SUCCESS && !path)
        st = MCIO_ERR_ARG, snprintf(detail, MCIO_DETAIL_LEN, "path is NULL");
    if (st == MCIO_SUCCESS && !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) +
                                      !!(amode & MPI_MODE_RDWR) != 1)
        st = MCIO_ERR_ARG, snprintf(detail, MCIO_DETAIL_LEN,
                                     "amode %d: exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY "
                                     "and MPI_MODE_RDWR is required", amode);
    if (st == MCIO_SUCCESS && (amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        st = MCIO_ERR_ARG, snprintf(detail, MCIO_DETAIL_LEN,
                                     "amode: MPI_MODE_CREATE and MPI_MODE_EXCL need write access");
    if (st == MCIO_SUCCESS && PMPI_Info_create(&f->given) != MPI_SUCCESS)
        f->given = MPI_INFO_NULL, st = MCIO_ERR_NOMEM, snprintf(detail, MCIO_DETAIL_LEN, "out of memory");
    if (st == MCIO_SUCCESS)
        st = mcio_file_read_hints(info, &f->hints, f->given, detail);
    if (st == MCIO_SUCCESS && !(f->io = mcio_io_find(f->hints.io_backend))) {
        char known[128];
        mcio_io_names(known, sizeof known);
        st = MCIO_ERR_HINT;
        snprintf(detail, MCIO_DETAIL_LEN, "hint mcio_io_backend: '%s' is not a backend (known: %s)",
                 f->hints.io_backend, known);
    }
    if (st == MCIO_SUCCESS && !(f->path = strdup(path)))
        st = MCIO_ERR_NOMEM, snprintf(detail, MCIO_DETAIL_LEN, "out of memory");
    if (st == MCIO_SUCCESS && f->rank == 0 && getenv("MCIO_STATS") && *getenv("MCIO_STATS") &&
        (!(f->stats_path = strdup(getenv("MCIO_STATS"))) ||
         !(f->stats_gathered = malloc(((size_t)f->nprocs + 1) * sizeof(int64_t)))))
        st = MCIO_ERR_NOMEM, snprintf(detail, MCIO_DETAIL_LEN, "out of memory");
    return st;
}

/* The file's arrays of one entry per node: budgets, their sources, the statistics'. Local. */
static int node_arrays(mcio_file f, char detail[MCIO_DETAIL_LEN])
{
    f->node_budget = malloc(((size_t)f->machine.nnodes + 1) * sizeof(int64_t));
    f->node_source = malloc(((size_t)f->machine.nnodes + 1) * sizeof(int));
    f->stats_budget = malloc(((size_t)f->machine.nnodes + 1) * sizeof(int64_t));
    f->stats_peak = malloc(((size_t)f->machine.nnodes + 1) * sizeof(int64_t));
    f->stats_model = malloc(((size_t)f->machine.nnodes + 1) * sizeof(int64_t));
    f->stats_predicted = malloc(((size_t)f->machine.nnodes + 1) * sizeof(int64_t));
    if (!f->node_budget || !f->node_source || !f->stats_budget || !f->stats_peak ||
        !f->stats_model || !f->stats_predicted)
        return snprintf(detail, MCIO_DETAIL_LEN, "out of memory"), MCIO_ERR_NOMEM;
    return MCIO_SUCCESS;
}

int mcio_file_open_begin(MPI_Comm comm, const char *path, int amode, MPI_Info info,
                         mcio_file *fh)
{
    if (!fh)
        return mcio_error_set(MCIO_ERR_ARG, "fh is NULL");
    *fh = MCIO_FILE_NULL;
    if (comm == MPI_COMM_NULL)
        return mcio_error_set(MCIO_ERR_ARG, "comm is MPI_COMM_NULL");
    mcio_file f = calloc(1, sizeof(struct mcio_file_s));
    if (!f)
        return mcio_error_set(MCIO_ERR_NOMEM, "out of memory");
    /* The communicator's kept handle, if a closed file left one (every rank alike: opens and
     * closes are collective), else a duplicate under way. */
    f->kept = mcio_kept_take(comm);
    if (f->kept && f->kept->comm != MPI_COMM_NULL) {
        f->comm = f->kept->comm, f->comm_ready = MPI_REQUEST_NULL;
        f->kept->comm = MPI_COMM_NULL; /* the file's until its close */
    } else {
        f->comm = private_comm(comm, &f->comm_ready);
    }
    f->given = MPI_INFO_NULL;
    f->node_gather.node = f->node_gather.leaders = MPI_COMM_NULL;
    PMPI_Comm_rank(comm, &f->rank); /* the duplicate's, which may not be ready yet */
    PMPI_Comm_size(comm, &f->nprocs);
    f->amode = amode;
    f->opening = 1;
    f->open_status = open_args(f, path, amode, info, MCIO_SUCCESS, f->open_detail);
    *fh = f;
    return mcio_error_set(MCIO_SUCCESS, NULL);
}

/* Collective, after the open's first agreement (agreed: whether the kept machine serves on
 * every rank): the machine description, its network, the node arrays and budgets, and the
 * summaries' node-level gather; agreed. */
static int open_machine(mcio_file f, int kept_machine, char detail[MCIO_DETAIL_LEN])
{
    mcio_kept *kept = f->kept;
    int st = MCIO_SUCCESS;
    if (kept_machine) {
        f->machine = kept->machine;
        memset(&kept->machine, 0, sizeof kept->machine);
    } else {
        if (kept)
            mcio_machine_free(&kept->machine);
        /* What was found on the file's communicator stays with it (kept handles keep it). */
        st = mcio_machine_detect_kept(f->comm, f->comm, &f->machine, detail); /* agreed inside */
        if (st != MCIO_SUCCESS)
            return st;
    }
    st = mcio_machine_load_network(f->comm, &f->machine, f->hints.topology_file, detail);
    if (st == MCIO_SUCCESS)
        st = node_arrays(f, detail);
    if (st == MCIO_SUCCESS)
        mcio_engine_node_budgets(f), hints_taken(f);
    st = mcio_engine_agree(f->comm, st, detail, NULL, 0);
    if (st != MCIO_SUCCESS)
        return st;
    st = mcio_node_gather_init(f->comm, &f->machine, f->hints.node_gather,
                               sizeof(mcio_rank_record), &f->node_gather); /* agreed */
    if (st != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory");
    return st;
}

/* Collective: the file system and the backend's own handle. A file that exists already (the
 * drop-in's case: the program's open made it): each rank's file system (checked alike), then
 * whether the backend's handle is needed at all, and whether the kept cost table serves, in one
 * allreduce; else the backend opens (creates) the file first. *costs_kept: the kept costs
 * serve. Agreed. */
static int open_backend(mcio_file f, const char *path, int amode, MPI_Info info, int *costs_kept,
                        char detail[MCIO_DETAIL_LEN])
{
    int early = f->io == &mcio_io_mpiio &&
                !(amode & (MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE));
    int need = 1, st = MCIO_SUCCESS;
    *costs_kept = 0;
    if (early) {
        fs_found got = probe_fs_local(path);
        f->fs = got.fs, f->fs_block = got.block;
        f->can_read = !(amode & MPI_MODE_WRONLY);
        local_descriptor(f);
        need = backend_needed(f, costs_kept);
        if (need < 0) { /* the ranks saw other file systems: rank 0's counts */
            probe_fs(f, path);
            local_descriptor(f);
            need = backend_needed(f, costs_kept) != 0;
        }
    }
    if (need) {
        st = f->io->open(f->comm, path, amode, info, &f->io_state, &f->can_read, detail);
        st = mcio_engine_agree(f->comm, st, detail, NULL, 0);
        if (st != MCIO_SUCCESS)
            return st;
    }
    if (f->io->configure && f->io_state)
        f->io->configure(f->io_state, &f->hints);
    if (!early)
        probe_fs(f, path);
    local_descriptor(f);
    return st;
}

/* Collective: wait for the file's communicator, then on it what the begin held (its checks'
 * status), the summaries' buffer, whether rank 0's MCIO_STATS is on and whether the kept machine
 * serves, in one agreement; agreed[]: those two. */
static int open_agree(mcio_file f, int64_t agreed[2], char detail[MCIO_DETAIL_LEN])
{
    if (f->comm_ready != MPI_REQUEST_NULL)
        PMPI_Wait(&f->comm_ready, MPI_STATUS_IGNORE);
    int st = f->open_status;
    snprintf(detail, MCIO_DETAIL_LEN, "%s", f->open_detail);
    if (st == MCIO_SUCCESS && (st = summaries_alloc(f)) != MCIO_SUCCESS)
        snprintf(detail, MCIO_DETAIL_LEN, "out of memory");
    /* Rank 0's MCIO_STATS decides for all (the statistics gather a count from every rank): the
     * others' 0 under its 1 in the agreement's maximum; the kept machine serves if it does on
     * every rank. */
    agreed[0] = f->stats_path != NULL, agreed[1] = !kept_machine_fits(f->kept);
    return mcio_engine_agree(f->comm, st, detail, agreed, 2);
}

int mcio_file_open_end(mcio_file *fh)
{
    char detail[MCIO_DETAIL_LEN] = "";
    if (!fh || !*fh)
        return mcio_error_set(MCIO_ERR_ARG, "file handle is NULL");
    mcio_file f = *fh;
    if (!f->opening)
        return mcio_error_set(MCIO_SUCCESS, NULL);
    f->opening = 0;
    int64_t agreed[2];
    int st = open_agree(f, agreed, detail), costs_kept = 0;
    f->stats_on = (int)agreed[0];
    if (st == MCIO_SUCCESS)
        st = open_machine(f, !agreed[1], detail);
    if (st == MCIO_SUCCESS)
        st = open_backend(f, f->path, f->amode, f->given, &costs_kept, detail);
    if (st != MCIO_SUCCESS) {
        file_free(f);
        *fh = MCIO_FILE_NULL;
        return mcio_error_set(st, detail);
    }
    /* The cost model's figures, for the default strategy only (auto chooses per call). */
    if (costs_kept)
        kept_costs_take(f);
    else if (f->hints.strategy == MCIO_STRATEGY_AUTO)
        mcio_calibrate_file(f, f->path);
    (void)mcio_file_read_shift(f); /* the host's copies measured here, not in a read */
    return mcio_error_set(MCIO_SUCCESS, NULL);
}

int mcio_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, mcio_file *fh)
{
    if (comm == MPI_COMM_NULL)
        return mcio_error_set(MCIO_ERR_ARG, "comm is MPI_COMM_NULL");
    mcio_file f = MCIO_FILE_NULL;
    int st = mcio_file_open_begin(comm, path, amode, info, fh ? &f : NULL);
    if (!f) {
        /* No handle here (fh NULL, or no memory): the others' first agreement is still met, on
         * the communicator they took (the pool's, alike on every rank, or a duplicate), and
         * nothing is kept of it. */
        char detail[MCIO_DETAIL_LEN];
        snprintf(detail, sizeof detail, "%s", mcio_error_message());
        mcio_kept *k = mcio_kept_take(comm);
        MPI_Request req = MPI_REQUEST_NULL;
        MPI_Comm dup = k && k->comm != MPI_COMM_NULL ? k->comm : private_comm(comm, &req);
        int64_t agreed[2] = {0, 1};
        if (k)
            k->comm = MPI_COMM_NULL;
        if (req != MPI_REQUEST_NULL)
            PMPI_Wait(&req, MPI_STATUS_IGNORE);
        st = mcio_engine_agree(dup, st, detail, agreed, 2);
        PMPI_Comm_free(&dup);
        mcio_kept_give(k);
        return mcio_error_set(st, detail);
    }
    st = mcio_file_open_end(&f);
    *fh = f;
    return st;
}

int mcio_file_close(mcio_file *fh)
{
    char detail[MCIO_DETAIL_LEN] = "";
    if (!fh || !*fh)
        return mcio_error_set(MCIO_ERR_ARG, "file handle is NULL");
    mcio_file f = *fh;
    if (f->opening) { /* begun, never ended: nothing opened, the communicator goes back */
        if (f->comm_ready != MPI_REQUEST_NULL)
            PMPI_Wait(&f->comm_ready, MPI_STATUS_IGNORE);
        if (f->kept) /* what it held before stays as it was */
            f->kept->comm = f->comm, f->comm = MPI_COMM_NULL;
        file_free(f);
        *fh = MCIO_FILE_NULL;
        return mcio_error_set(MCIO_SUCCESS, NULL);
    }
    if (f->live_plans > 0) {
        snprintf(detail, sizeof detail, "%d plans made on %s are still alive: free them first",
                 f->live_plans, f->path);
        return mcio_error_set(MCIO_ERR_ARG, detail);
    }
    int st = f->io_state ? f->io->close(f->io_state, detail) : MCIO_SUCCESS;
    st = mcio_engine_agree(f->comm, st, detail, NULL, 0);
    if (f->rank == 0)
        mcio_calibrate_keep_learned(f);
    kept_leave(f);
    file_free(f);
    *fh = MCIO_FILE_NULL;
    return mcio_error_set(st, detail);
}

int mcio_file_sync(mcio_file fh)
{
    char detail[MCIO_DETAIL_LEN] = "";
    if (!fh)
        return mcio_error_set(MCIO_ERR_ARG, "file handle is NULL");
    int err = mcio_file_backend_sync(fh), st = MCIO_SUCCESS;
    if (err) {
        st = mcio_io_status_of_errno(-err);
        snprintf(detail, sizeof detail, "sync %s: %s", fh->path, strerror(-err));
    }
    return mcio_error_set(mcio_engine_agree(fh->comm, st, detail, NULL, 0), detail);
}

int mcio_file_get_stats(mcio_file fh, mcio_stats *stats)
{
    if (!fh || !stats)
        return mcio_error_set(MCIO_ERR_ARG, "file handle or stats is NULL");
    mcio_engine_bytes_first_stats(fh);
    *stats = fh->stats;
    mcio_stats_name(fh, stats);
    return mcio_error_set(MCIO_SUCCESS, NULL);
}

int mcio_file_get_info(mcio_file fh, MPI_Info *info)
{
    if (!fh || !info)
        return mcio_error_set(MCIO_ERR_ARG, "file handle or info is NULL");
    PMPI_Info_create(info);
    char key[64], value[MPI_MAX_INFO_VAL + 1];
    for (int i = 0; mcio_hints_get(&fh->hints, i, key, sizeof key, value, sizeof value); i++) {
        if (strcmp(key, "cb_nodes") == 0 && fh->hints.cb_nodes == 0) /* the default in effect, */
            snprintf(value, sizeof value, "%d", fh->machine.nnodes); /* "0": not yet known */
        if (strcmp(key, "cb_nodes") == 0 && strcmp(value, "0") == 0)
            value[0] = '\0';
        if (value[0]) /* "": unset, without a default */
            PMPI_Info_set(*info, key, value);
    }
    return mcio_error_set(MCIO_SUCCESS, NULL);
}

int mcio_file_get_given_info(mcio_file fh, MPI_Info *info)
{
    if (!fh || !info)
        return mcio_error_set(MCIO_ERR_ARG, "file handle or info is NULL");
    if (PMPI_Info_dup(fh->given, info) != MPI_SUCCESS)
        return mcio_error_set(MCIO_ERR_NOMEM, "out of memory for an MPI_Info");
    return mcio_error_set(MCIO_SUCCESS, NULL);
}

/* The hints as "key=value\n" lines, in mcio_hints_get's order; the length, or -1 if cap is short. */
static int hints_text(const mcio_hints *h, char *out, int cap)
{
    char key[64], value[MPI_MAX_INFO_VAL + 1];
    int n = 0;
    for (int i = 0; mcio_hints_get(h, i, key, sizeof key, value, sizeof value); i++) {
        int k = snprintf(out + n, (size_t)(cap - n), "%s=%s\n", key, value);
        if (k < 0 || k >= cap - n)
            return -1;
        n += k;
    }
    return n;
}

/* The first line of a that differs from b's, as "key: 'x' on rank 0, 'y' here". */
static void first_difference(const char *a, const char *b, int rank, char detail[MCIO_DETAIL_LEN])
{
    while (*a && *b) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        if (!ea || !eb || ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0) {
            int kl = (int)strcspn(a, "=");
            snprintf(detail, MCIO_DETAIL_LEN, "hint %.*s: '%.*s' on rank 0 but '%.*s' on rank %d", kl, a,
                     ea ? (int)(ea - a) - kl - 1 : 0, a + kl + 1,
                     eb ? (int)(eb - b) - (int)strcspn(b, "=") - 1 : 0, b + strcspn(b, "=") + 1, rank);
            return;
        }
        a = ea + 1, b = eb + 1;
    }
    snprintf(detail, MCIO_DETAIL_LEN, "the hints of rank %d differ from rank 0's", rank);
}

int mcio_file_set_hints(mcio_file fh, MPI_Info info)
{
    enum { TEXT = 16384 };
    char detail[MCIO_DETAIL_LEN] = "";
    char *mine = NULL, *root = NULL;
    if (!fh)
        return mcio_error_set(MCIO_ERR_ARG, "file handle is NULL");
    mcio_hints h = fh->hints;
    int st = mcio_file_apply_info(info, &h, MPI_INFO_NULL, "MPI_File_set_info", detail);
    if (st == MCIO_SUCCESS && strcmp(h.io_backend, fh->hints.io_backend) != 0)
        st = MCIO_ERR_HINT, snprintf(detail, sizeof detail,
                                     "hint mcio_io_backend: '%s' after open, but the file was "
                                     "opened with '%s' (chosen at open only)",
                                     h.io_backend, fh->hints.io_backend);
    if (st == MCIO_SUCCESS && h.node_gather != fh->hints.node_gather)
        st = MCIO_ERR_HINT, snprintf(detail, sizeof detail,
                                     "hint mcio_node_gather after open (chosen at open only)");
    if (st == MCIO_SUCCESS && strcmp(h.topology_file, fh->hints.topology_file) != 0)
        st = MCIO_ERR_HINT, snprintf(detail, sizeof detail,
                                     "hint mcio_topology_file: '%.150s' after open (chosen at open "
                                     "only)", h.topology_file);
    int len = -1;
    if (st == MCIO_SUCCESS && (!(mine = malloc(TEXT)) || !(root = malloc(TEXT))))
        st = MCIO_ERR_NOMEM, snprintf(detail, sizeof detail, "out of memory");
    if (st == MCIO_SUCCESS && (len = hints_text(&h, mine, TEXT)) < 0)
        st = MCIO_ERR_INTERNAL, snprintf(detail, sizeof detail, "the hints exceed %d bytes", TEXT);
    st = mcio_engine_agree(fh->comm, st, detail, NULL, 0);
    if (st != MCIO_SUCCESS)
        goto fail;
    /* Every rank must end with rank 0's hints: a plan made from different hints on different
     * ranks would not be one plan. */
    int rlen = len;
    PMPI_Bcast(&rlen, 1, MPI_INT, 0, fh->comm);
    if (fh->rank == 0)
        memcpy(root, mine, (size_t)len + 1);
    PMPI_Bcast(root, rlen + 1, MPI_CHAR, 0, fh->comm);
    if (strcmp(root, mine) != 0)
        st = MCIO_ERR_HINT, first_difference(root, mine, fh->rank, detail);
    st = mcio_engine_agree(fh->comm, st, detail, NULL, 0);
    if (st != MCIO_SUCCESS)
        goto fail;
    mcio_engine_bytes_first_stats(fh); /* of the hints it ran under */
    mcio_hints before = fh->hints;
    fh->hints = h;
    (void)mcio_file_apply_info(info, &h, fh->given, "MPI_File_set_info", detail); /* checked above */
    fh->chosen[0].valid = fh->chosen[1].valid = 0; /* chosen under other hints */
    fh->bytes_first[0] = fh->bytes_first[1] = 0;
    mcio_engine_node_budgets(fh);
    hints_taken(fh);
    if (fh->io->configure && fh->io_state)
        fh->io->configure(fh->io_state, &fh->hints);
    local_descriptor(fh);
    /* Hints that send some access past the ranks' own descriptors: the backend's handle, left
     * out at open, is opened now (collective, as this call is). */
    int unused;
    if (!fh->io_state && backend_needed(fh, &unused) != 0) {
        int can_read = fh->can_read;
        st = fh->io->open(fh->comm, fh->path, fh->amode, fh->given, &fh->io_state, &can_read,
                          detail);
        st = mcio_engine_agree(fh->comm, st, detail, NULL, 0);
        if (st != MCIO_SUCCESS) { /* the hints before, under which every access went local */
            fh->hints = before;
            hints_taken(fh);
            mcio_engine_node_budgets(fh);
            local_descriptor(fh);
        }
    }
fail:
    free(mine);
    free(root);
    return mcio_error_set(st, detail);
}
