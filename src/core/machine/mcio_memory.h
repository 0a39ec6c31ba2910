/*
 * The memory half of the machine description: how many bytes each node may spend on
 * collective buffers (Memavl in the memory strategy). Pure (no MPI), so that mcio-plan and the
 * unit tests use the very code the library uses.
 *
 * Detected: MemAvailable of /proc/meminfo on the node. Virtual, for tests and experiments, from
 * the environment variable MCIO_VIRTUAL_NODE_MEMORY:
 *   "64m,16m,0"           explicit values, node i gets value i modulo the count
 *   "normal:MEAN:SD:SEED" drawn per node from a normal distribution (Box-Muller on splitmix64),
 *                         clamped at 0, the way the paper modelled memory variance; SEED
 *                         optional (default 1)
 * Byte counts take k, m, g suffixes (powers of 1024).
 *
 * Detected, the memory a process really has is the tightest of three limits (issue 17):
 *   meminfo  MemAvailable of the host (/proc/meminfo), shared by every rank of the node;
 *   cgroup   the headroom of its memory cgroup: limit minus the memory the kernel could not
 *            reclaim (usage less the clean page cache), at its own level and every ancestor's
 *            (v1: memory.limit_in_bytes, memory.usage_in_bytes, memory.stat and its
 *            hierarchical_memory_limit; v2: memory.max, memory.current, memory.stat), found
 *            through /proc/self/cgroup and /proc/self/mountinfo; the ranks in one cgroup share
 *            its headroom (Slurm's job cgroup), ranks in separate cgroups bring their own;
 *   rlimit   RLIMIT_AS and RLIMIT_DATA less the process's VmSize and VmData, per process.
 * mcio_memory_probe_at reads all of it below a directory root ("/" on a real machine, a
 * fixture tree in the unit tests), so the parsing is tested without a kernel.
 */
#ifndef MCIO_MEMORY_H
#define MCIO_MEMORY_H

#include <stdint.h>

#include "mcio_base.h" /* MCIO_DETAIL_LEN, status codes */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fill node_mem[0..nnodes) from a virtual memory spec (nnodes may be 0 to check the syntax
 * only). Returns 0, or MCIO_ERR_ARG with a message naming the spec in detail.
 */
int mcio_memory_virtual(const char *spec, int nnodes, int64_t *node_mem,
                        char detail[MCIO_DETAIL_LEN]);

/* MemAvailable in bytes from the text of /proc/meminfo, or -1 when absent. */
int64_t mcio_memory_parse_meminfo(const char *text);

/* MemAvailable of this host in bytes, or -1 when it cannot be read. */
int64_t mcio_memory_available(void);

/* Where a node's memory figure came from. */
enum mcio_memory_source {
    MCIO_MEM_UNKNOWN = 0, /* nothing could be read: no limit */
    MCIO_MEM_MEMINFO,     /* MemAvailable of the host */
    MCIO_MEM_CGROUP_V1,   /* a cgroup v1 memory controller */
    MCIO_MEM_CGROUP_V2,   /* a cgroup v2 (unified) memory controller */
    MCIO_MEM_RLIMIT,      /* RLIMIT_AS or RLIMIT_DATA of the ranks */
    MCIO_MEM_HINT,        /* the mcio_node_memory hint */
    MCIO_MEM_VIRTUAL      /* MCIO_VIRTUAL_NODE_MEMORY */
};

/* "meminfo", "cgroup-v1", "cgroup-v2", "rlimit", "hint", "virtual" or "unknown". */
const char *mcio_memory_source_name(int source);

#define MCIO_MEM_WHERE_LEN 128

/* A process's resource limits, as getrlimit gives them; -1 for RLIM_INFINITY. */
typedef struct mcio_rlimits {
    int64_t as, data;
} mcio_rlimits;

/* What one process sees of its memory (mcio_memory_probe_at). Byte counts, -1 for none. */
typedef struct mcio_memory_probe {
    int64_t meminfo;  /* MemAvailable */
    int64_t cgroup;   /* headroom of the tightest memory cgroup above the process, -1: unlimited */
    int64_t cg_used;  /* what that cgroup holds and cannot reclaim (its limit - headroom) */
    int64_t cg_limit; /* its limit */
    int cg_version;   /* 1 or 2 for the tightest cgroup, 0 when no cgroup limits the process */
    uint64_t cg_dev, cg_ino; /* its directory: the same cgroup for every rank that names it */
    char cg_path[MCIO_MEM_WHERE_LEN]; /* its path in the hierarchy ("/slurm/uid_0/job_7") */
    int64_t rlimit;   /* the smaller of the RLIMIT_AS and RLIMIT_DATA headrooms */
    int64_t avail;    /* the tightest of the three for this process alone */
    int source;       /* enum mcio_memory_source of avail */
} mcio_memory_probe;

/*
 * Read the memory of the calling process below root: root/proc/meminfo, root/proc/self/cgroup,
 * root/proc/self/mountinfo, the cgroup files under the mount points it names (each prefixed
 * with root), and root/proc/self/status for VmSize and VmData against rl. A file that is
 * missing or unreadable leaves its limit out (a cgroup whose limit cannot be read limits
 * nothing). Not pure in the strict sense (it reads files), but it knows no path of its own
 * beyond root. Always fills *out; returns 0.
 */
int mcio_memory_probe_at(const char *root, mcio_rlimits rl, mcio_memory_probe *out);

/* Where the process's memory cgroups are (v1 and v2 at most), found once: /proc/self/cgroup
 * and mountinfo do not change while a file is open, and mountinfo is the costliest read. */
typedef struct mcio_memory_where {
    int n;
    struct mcio_memory_cgroup {
        int version;
        char dir[512];  /* the process's cgroup directory, below root */
        char mnt[256];  /* the controller's mount point: the walk up stops there */
        char path[MCIO_MEM_WHERE_LEN * 2]; /* the cgroup's path in the hierarchy */
    } cg[2];
} mcio_memory_where;

/* Find the process's memory cgroups below root (none when nothing can be read). */
void mcio_memory_locate(const char *root, mcio_memory_where *w);

/* mcio_memory_probe_at with the cgroups already located: the limits, usages and memory.stat of
 * the cgroups and their ancestors, MemAvailable and the rlimits, read now. Returns 0. */
int mcio_memory_probe_located(const char *root, const mcio_memory_where *where, mcio_rlimits rl,
                              mcio_memory_probe *out);

/* The figures that are the process's own, the rlimits' headroom, read now; the shared ones
 * (MemAvailable, the cgroups) left at -1: for a rank whose node's and cgroup's figures another
 * rank reads for it (mcio_machine_memory_read). Returns 0. */
int mcio_memory_probe_own(const char *root, mcio_rlimits rl, mcio_memory_probe *out);

/* The calling process's limits (getrlimit RLIMIT_AS, RLIMIT_DATA). */
mcio_rlimits mcio_memory_rlimits(void);

/*
 * The memory of one node from the probes of its n ranks: the tightest of the host's
 * MemAvailable (the least any rank read) and the sum, over the distinct cgroups the ranks sit
 * in (a cgroup is named by cg_version, cg_dev, cg_ino; ranks in none form one group without a
 * cgroup limit), of the smaller of the cgroup's headroom and its ranks' summed rlimit
 * headrooms. Returns the bytes, -1 when nothing limits the node; *source says what bound it
 * and *which (may be NULL) the index of a probe naming the binding cgroup (or -1).
 * *used (may be NULL) receives what the binding cgroups hold and cannot reclaim, -1 when no
 * cgroup binds. Pure.
 */
int64_t mcio_memory_node(int n, const mcio_memory_probe *p, int *source, int *which,
                         int64_t *used);

#ifdef __cplusplus
}
#endif

#endif
