/*
 * The host's sockets and outermost cache as Linux describes them in sysfs (its stable ABI,
 * Documentation/ABI/stable/sysfs-devices-system-cpu: cpuN/topology/physical_package_id,
 * cpuN/cache/indexK/{level,type,size,shared_cpu_list}), the files hwloc's own Linux backend
 * reads for them. Read directly because hwloc's load of the whole topology cost 2-4 ms of CPU a
 * process here even with every other object type filtered out (2.0-3.5 with its XML export
 * instead, 2.0-4.0 without its x86 backend), against 0.03-0.15 ms for these few files: at the
 * first collective call of a process, on the node's first rank, while the node's other ranks
 * wait for its broadcast (issue 51). Where sysfs lacks them (not Linux, a container hiding
 * /sys), mcio_machine.c asks hwloc.
 *
 * Glossary: processing unit (PU): a logical CPU, by its OS index N (cpuN); package: a socket;
 * its logical index: its rank among the host's packages by physical id, as hwloc numbers them.
 */
#include "mcio_machine_sysfs.h"

#include "mcio_fnv1a.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *cpu_dir = "/sys/devices/system/cpu";

void mcio_sysfs_root(const char *dir)
{
    cpu_dir = dir ? dir : "/sys/devices/system/cpu";
}

/* The first line of file `path`, NUL-terminated without its newline, into buf; 0 on success. */
static int read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* Does cpuN exist (possible, online or not)? */
static int pu_exists(int c)
{
    char path[600];
    snprintf(path, sizeof path, "%s/cpu%d", cpu_dir, c);
    return access(path, F_OK) == 0;
}

/* An integer file (an id, a level); -1 when missing or malformed. */
static long read_long(const char *path)
{
    char buf[64], *end;
    if (read_line(path, buf, sizeof buf) != 0)
        return -1;
    long v = strtol(buf, &end, 10);
    return end == buf || v < 0 ? -1 : v;
}

int mcio_sysfs_sockets(uint16_t *socket_of_pu, int max_pus, int *npus, int *nsockets)
{
    enum { MAX_IDS = 1024 }; /* physical package ids are small numbers */
    int id_seen[MAX_IDS] = {0};
    int *id_of = malloc((size_t)max_pus * sizeof *id_of);
    if (!id_of)
        return -1;
    char path[640];
    int n = 0;
    /* PUs by OS index while they exist; an offline one (no topology) maps to socket 0. */
    for (int c = 0; c < max_pus && pu_exists(c); c++) {
        snprintf(path, sizeof path, "%s/cpu%d/topology/physical_package_id", cpu_dir, c);
        long id = read_long(path);
        id_of[c] = id >= 0 && id < MAX_IDS ? (int)id : -1;
        if (id_of[c] >= 0)
            id_seen[id_of[c]] = 1, n = c + 1;
    }
    /* Logical indices: the ids present, in order. */
    int k = 0;
    for (int id = 0; id < MAX_IDS; id++)
        id_seen[id] = id_seen[id] ? ++k : 0;
    for (int c = 0; c < n; c++)
        socket_of_pu[c] = (uint16_t)(id_of[c] >= 0 ? id_seen[id_of[c]] - 1 : 0);
    free(id_of);
    if (n == 0 || k == 0)
        return -1;
    *npus = n;
    *nsockets = k;
    return 0;
}

/* Sizes such as "32768K" or "1M" in bytes; -1 when malformed. */
static int64_t cache_bytes(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0)
        return -1;
    return *end == 'K' ? v << 10 : *end == 'M' ? v << 20 : *end == 'G' ? v << 30 : v;
}

int mcio_sysfs_caches(int64_t *bytes, int *count)
{
    char path[640], type[32], size[32], shared[256];
    int best_level = 0, best_index = -1;
    *bytes = 0, *count = 0;
    /* cpu0's caches: the outermost level of data or unified ones. */
    for (int i = 0; i < 16; i++) {
        snprintf(path, sizeof path, "%s/cpu0/cache/index%d/level", cpu_dir, i);
        long level = read_long(path);
        if (level < 0)
            break;
        snprintf(path, sizeof path, "%s/cpu0/cache/index%d/type", cpu_dir, i);
        if (read_line(path, type, sizeof type) != 0 || strcmp(type, "Instruction") == 0)
            continue;
        if (level > best_level)
            best_level = (int)level, best_index = i;
    }
    if (best_index < 0)
        return -1;
    /* Its instances: the distinct PU sets sharing one, over the PUs; the largest's bytes. */
    enum { MAX_SETS = 256 };
    uint64_t sets[MAX_SETS]; /* each instance's PU list, hashed */
    int nsets = 0;
    for (int c = 0; c < 8192 && pu_exists(c); c++) {
        snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/shared_cpu_list", cpu_dir, c, best_index);
        if (read_line(path, shared, sizeof shared) != 0)
            continue; /* offline */
        uint64_t h = mcio_fnv1a(MCIO_FNV1A_OFFSET, shared, strlen(shared));
        int seen = 0;
        for (int s = 0; s < nsets && !seen; s++)
            seen = sets[s] == h;
        if (seen || nsets == MAX_SETS)
            continue;
        sets[nsets++] = h;
        snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/size", cpu_dir, c, best_index);
        int64_t b = read_line(path, size, sizeof size) == 0 ? cache_bytes(size) : -1;
        *bytes = b > *bytes ? b : *bytes;
    }
    *count = nsets;
    return nsets > 0 && *bytes > 0 ? 0 : -1;
}
