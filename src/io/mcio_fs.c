/*
 * The file system of a file, from the running system (mcio_fsinfo.h): statfs's f_type, the
 * mount in /proc/self/mountinfo, and from a GlusterFS client's graph under
 * <mount>/.meta/graphs/active/<translator>/ its shard size (the translator whose `type` is
 * features/shard, its options/shard-block-size) and whether it has write-behind (a translator
 * of type performance/write-behind). Local, no MPI: the engine calls it on rank 0 and broadcasts;
 * mcio-plan calls it for --fs-path.
 */
#define _GNU_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "mcio_fs.h"

/* The whole of a small text file (NUL-terminated, malloc'd), or NULL. */
static char *slurp(const char *path, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *b = cap < max ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* GlusterFS's default features.shard-block-size, when the option was never set. */
#define GLUSTER_DEFAULT_SHARD ((int64_t)64 << 20)

/* What the graph of the GlusterFS client mounted at mnt says: info->stripe, the shard size (0
 * when sharding is off or the graph unreadable); info->write_behind, whether a
 * performance/write-behind translator is in it (-1 when the graph is unreadable). */
static void gluster_graph(const char *mnt, mcio_fsinfo *info)
{
    char dir[PATH_MAX + 32], p[PATH_MAX + 320];
    snprintf(dir, sizeof dir, "%s/.meta/graphs/active", mnt);
    DIR *d = opendir(dir);
    if (!d)
        return;
    info->write_behind = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s/type", dir, e->d_name);
        char *type = slurp(p, 4096);
        int shard = type && strncmp(type, "features/shard", 14) == 0;
        if (type && strncmp(type, "performance/write-behind", 24) == 0)
            info->write_behind = 1;
        free(type);
        if (!shard)
            continue;
        snprintf(p, sizeof p, "%s/%s/options/shard-block-size", dir, e->d_name);
        char *v = slurp(p, 4096);
        int64_t size = v ? mcio_fs_parse_gluster_size(v) : GLUSTER_DEFAULT_SHARD;
        free(v);
        info->stripe = size > 0 ? size : 0;
    }
    closedir(d);
}

void mcio_fs_probe(const char *path, mcio_fsinfo *info)
{
    memset(info, 0, sizeof *info);
    info->write_behind = -1;
    struct statfs sf;
    if (statfs(path, &sf) == 0)
        info->type = mcio_fs_type_of_magic((int64_t)sf.f_type);
    snprintf(info->name, sizeof info->name, "%s", mcio_fs_type_name(info->type));
    char abs[PATH_MAX], fstype[64], mnt[PATH_MAX];
    char *mi = realpath(path, abs) ? slurp("/proc/self/mountinfo", (size_t)64 << 20) : NULL;
    if (mi && mcio_fs_mountinfo_find(mi, abs, fstype, sizeof fstype, mnt, sizeof mnt) == 0) {
        mcio_fs_type t = mcio_fs_type_of_name(fstype);
        /* mountinfo names FUSE's subtype, which f_type cannot; otherwise trust the magic. */
        if (info->type == MCIO_FS_UNKNOWN || info->type == MCIO_FS_FUSE)
            info->type = t;
        snprintf(info->name, sizeof info->name, "%s", fstype);
        if (info->type == MCIO_FS_GLUSTERFS)
            gluster_graph(mnt, info);
    }
    free(mi);
    mcio_fs_set_properties(info);
}
