/*
 * The host's sockets and outermost cache read from sysfs (mcio_machine_sysfs.c) instead of
 * hwloc's whole topology (issue 51: 2-4 ms a process):
 *   1. a made-up tree: package ids 0 and 3 (logical 0 and 1), an offline PU (no topology: socket
 *      0), instruction caches skipped, an L3 in two instances of which the largest counts;
 *      a tree without topology files is refused (the caller then asks hwloc);
 *   2. this host: the same sockets per PU and the same cache (bytes, instances) as hwloc says.
 */
#include <hwloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcio_machine_sysfs.h"

static int failures;
#define CHECK(c, ...)                                                                          \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            failures++;                                                                        \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #c);                       \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

static void put(const char *root, const char *rel, const char *text)
{
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        snprintf(dir, sizeof dir, "%.*s", (int)(p - path), path);
        mkdir(dir, 0755);
    }
    FILE *f = fopen(path, "w");
    if (f)
        fprintf(f, "%s\n", text), fclose(f);
}

static void made_up(void)
{
    char root[] = "/tmp/mcio-sysfs.XXXXXX";
    if (!mkdtemp(root)) {
        CHECK(0, "mkdtemp");
        return;
    }
    static const char *pkg[] = {"0", "3", NULL, "0"};
    static const char *l3[] = {"0-1", "0-1", NULL, "2-3"}, *l3size[] = {"8192K", "8192K", NULL, "16M"};
    char rel[128];
    for (int c = 0; c < 4; c++) {
        snprintf(rel, sizeof rel, "cpu%d/online", c);
        put(root, rel, pkg[c] ? "1" : "0");
        if (!pkg[c])
            continue; /* offline: no topology, no caches */
        snprintf(rel, sizeof rel, "cpu%d/topology/physical_package_id", c);
        put(root, rel, pkg[c]);
        static const char *level[] = {"1", "1", "2", "3"}, *type[] = {"Data", "Instruction", "Unified", "Unified"};
        for (int i = 0; i < 4; i++) {
            snprintf(rel, sizeof rel, "cpu%d/cache/index%d/level", c, i);
            put(root, rel, level[i]);
            snprintf(rel, sizeof rel, "cpu%d/cache/index%d/type", c, i);
            put(root, rel, type[i]);
            snprintf(rel, sizeof rel, "cpu%d/cache/index%d/size", c, i);
            put(root, rel, i == 3 ? l3size[c] : "32K");
            snprintf(rel, sizeof rel, "cpu%d/cache/index%d/shared_cpu_list", c, i);
            put(root, rel, i == 3 ? l3[c] : rel);
        }
    }
    mcio_sysfs_root(root);
    uint16_t sock[8];
    int npus = 0, nsockets = 0, count = 0;
    int64_t bytes = 0;
    CHECK(mcio_sysfs_sockets(sock, 8, &npus, &nsockets) == 0, "made-up tree refused");
    CHECK(npus == 4 && nsockets == 2, "npus %d sockets %d, expected 4 and 2", npus, nsockets);
    CHECK(sock[0] == 0 && sock[1] == 1 && sock[2] == 0 && sock[3] == 0,
          "sockets %d %d %d %d, expected 0 1 0 0", sock[0], sock[1], sock[2], sock[3]);
    CHECK(mcio_sysfs_caches(&bytes, &count) == 0, "made-up caches refused");
    CHECK(bytes == 16 << 20 && count == 2, "cache %lld bytes x %d, expected 16 MiB x 2",
          (long long)bytes, count);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s/cpu*/topology", root);
    CHECK(system(cmd) == 0, "%s", cmd);
    CHECK(mcio_sysfs_sockets(sock, 8, &npus, &nsockets) != 0, "a tree without topology accepted");
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0, "%s", cmd);
    mcio_sysfs_root(NULL);
}

static void this_host(void)
{
    enum { MAX = 8192 };
    static uint16_t sock[MAX];
    int npus, nsockets, count;
    int64_t bytes;
    hwloc_topology_t topo;
    if (mcio_sysfs_sockets(sock, MAX, &npus, &nsockets) != 0) {
        printf("mpi_sysfs: this host's sysfs has no CPU topology: hwloc serves it, not compared\n");
        return;
    }
    CHECK(hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0, "hwloc");
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    CHECK(nsockets == (n > 0 ? n : 1), "sysfs %d sockets, hwloc %d", nsockets, n);
    for (int k = 0; k < n; k++) {
        hwloc_obj_t p = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)k);
        unsigned pu;
        hwloc_bitmap_foreach_begin(pu, p->cpuset)
        {
            CHECK((int)pu < npus && sock[pu] == p->logical_index, "PU %u: sysfs socket %d, hwloc %u",
                  pu, (int)pu < npus ? sock[pu] : -1, p->logical_index);
        }
        hwloc_bitmap_foreach_end();
    }
    /* hwloc's outermost data or unified cache level. */
    int64_t hbytes = 0;
    int hcount = 0;
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
                                              HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
    for (size_t l = 0; l < sizeof levels / sizeof *levels && hcount == 0; l++)
        for (int i = 0; i < hwloc_get_nbobjs_by_type(topo, levels[l]); i++) {
            hwloc_obj_t c = hwloc_get_obj_by_type(topo, levels[l], (unsigned)i);
            int64_t size = (int64_t)c->attr->cache.size;
            hbytes = size > hbytes ? size : hbytes;
            hcount += size > 0;
        }
    if (mcio_sysfs_caches(&bytes, &count) == 0)
        CHECK(bytes == hbytes && count == hcount, "cache: sysfs %lld x %d, hwloc %lld x %d",
              (long long)bytes, count, (long long)hbytes, hcount);
    else
        printf("mpi_sysfs: this host's sysfs has no caches: hwloc serves them, not compared\n");
    printf("mpi_sysfs: %d PUs, %d sockets, cache %lld bytes x %d, as hwloc says\n", npus, nsockets,
           (long long)bytes, count);
    hwloc_topology_destroy(topo);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    made_up();
    this_host();
    MPI_Finalize();
    printf("mpi_sysfs: %d failures\n", failures);
    return failures != 0;
}
