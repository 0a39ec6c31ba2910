/*
 * The file system of a file, from statfs magic numbers and /proc/self/mountinfo text: pure
 * parsers (mcio_fsinfo.h). The magic numbers are those of Linux's <linux/magic.h> and of the
 * out-of-tree file systems' own headers (Lustre, GPFS, BeeGFS), written out here so that the
 * parser builds without them.
 */
#include "mcio_fsinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const names[] = {
#define MCIO_FS_NAME(id, name) name,
    MCIO_FS_LIST(MCIO_FS_NAME)
#undef MCIO_FS_NAME
};

const char *mcio_fs_type_name(mcio_fs_type t)
{
    return t >= 0 && t < MCIO_FS_COUNT ? names[t] : "unknown";
}

mcio_fs_type mcio_fs_type_of_magic(int64_t magic)
{
    static const struct {
        int64_t magic;
        mcio_fs_type type;
    } table[] = {
        {0x01021994, MCIO_FS_TMPFS},  /* TMPFS_MAGIC */
        {0xEF53, MCIO_FS_EXT4},       /* EXT2/3/4_SUPER_MAGIC */
        {0x58465342, MCIO_FS_XFS},    /* XFS_SUPER_MAGIC ("XFSB") */
        {0x9123683E, MCIO_FS_BTRFS},  /* BTRFS_SUPER_MAGIC */
        {0x6969, MCIO_FS_NFS},        /* NFS_SUPER_MAGIC */
        {0x0BD00BD0, MCIO_FS_LUSTRE}, /* LL_SUPER_MAGIC */
        {0x47504653, MCIO_FS_GPFS},   /* GPFS_SUPER_MAGIC ("GPFS") */
        {0x19830326, MCIO_FS_BEEGFS}, /* BEEGFS_MAGIC (fhgfs) */
        {0x00C36400, MCIO_FS_CEPH},   /* CEPH_SUPER_MAGIC */
        {0x794C7630, MCIO_FS_OVERLAY}, /* OVERLAYFS_SUPER_MAGIC */
        {0x65735546, MCIO_FS_FUSE},   /* FUSE_SUPER_MAGIC: the subtype is in mountinfo */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].magic == (magic & 0xFFFFFFFF))
            return table[i].type;
    return MCIO_FS_UNKNOWN;
}

mcio_fs_type mcio_fs_type_of_name(const char *fstype)
{
    static const struct {
        const char *name;
        mcio_fs_type type;
    } table[] = {
        {"tmpfs", MCIO_FS_TMPFS},        {"ext2", MCIO_FS_EXT4},
        {"ext3", MCIO_FS_EXT4},          {"ext4", MCIO_FS_EXT4},
        {"xfs", MCIO_FS_XFS},            {"btrfs", MCIO_FS_BTRFS},
        {"nfs", MCIO_FS_NFS},            {"nfs4", MCIO_FS_NFS},
        {"lustre", MCIO_FS_LUSTRE},      {"gpfs", MCIO_FS_GPFS},
        {"beegfs", MCIO_FS_BEEGFS},      {"ceph", MCIO_FS_CEPH},
        {"fuse.ceph-fuse", MCIO_FS_CEPH}, {"overlay", MCIO_FS_OVERLAY},
        {"fuse.glusterfs", MCIO_FS_GLUSTERFS}, {"glusterfs", MCIO_FS_GLUSTERFS},
    };
    if (!fstype)
        return MCIO_FS_UNKNOWN;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, fstype) == 0)
            return table[i].type;
    if (strncmp(fstype, "fuse", 4) == 0)
        return MCIO_FS_FUSE;
    return MCIO_FS_UNKNOWN;
}

int mcio_fs_node_local(mcio_fs_type t)
{
    return t == MCIO_FS_TMPFS || t == MCIO_FS_EXT4 || t == MCIO_FS_XFS || t == MCIO_FS_BTRFS ||
           t == MCIO_FS_OVERLAY;
}

int64_t mcio_fs_align_stripe(const mcio_fsinfo *fs, int64_t striping_unit, int write)
{
    if (striping_unit > 0)
        return striping_unit;
    return write && fs->stripe > 0 && fs->stripe <= INT32_MAX ? fs->stripe : 0;
}

void mcio_fs_set_properties(mcio_fsinfo *info)
{
    switch (info->type) {
    case MCIO_FS_NFS:
    case MCIO_FS_GLUSTERFS:
        /* Both clients acknowledge writes from a cache (NFS's page cache until close or fsync,
         * GlusterFS's write-behind translator) and report a server's failure later; a GlusterFS
         * client whose graph has no write-behind translator waits for the bricks. */
        info->remote = 1;
        info->defers_errors = info->type == MCIO_FS_NFS || info->write_behind != 0;
        break;
    case MCIO_FS_LUSTRE:
    case MCIO_FS_GPFS:
    case MCIO_FS_BEEGFS:
    case MCIO_FS_CEPH:
        info->remote = 1;
        info->defers_errors = 0; /* page-cached writes too, but not mcio's concern by default */
        break;
    default:
        info->remote = 0;
        info->defers_errors = 0;
    }
}

/* Copy a mountinfo field of n bytes from s, decoding \ooo octal escapes. */
static void unescape(const char *s, size_t n, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < outlen; i++) {
        if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
            s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
            out[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
}

/* Does mount point m (decoded) hold path p: equal, or a parent directory of it? */
static size_t holds(const char *m, const char *p)
{
    size_t n = strlen(m);
    if (n == 1 && m[0] == '/')
        return 1;
    if (strncmp(m, p, n) == 0 && (p[n] == '\0' || p[n] == '/'))
        return n;
    return 0;
}

int mcio_fs_mountinfo_find(const char *mountinfo, const char *abspath, char *fstype,
                           size_t fstype_len, char *mountpoint, size_t mountpoint_len)
{
    size_t best = 0;
    int found = -1;
    if (!mountinfo || !abspath || abspath[0] != '/')
        return -1;
    for (const char *line = mountinfo; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        /* Fields: id parent major:minor root mountpoint options [optional...] - type source ... */
        const char *f[64];
        size_t len[64];
        int nf = 0;
        for (const char *s = line; s < end && nf < 64;) {
            while (s < end && *s == ' ')
                s++;
            if (s >= end)
                break;
            const char *e = s;
            while (e < end && *e != ' ')
                e++;
            f[nf] = s;
            len[nf++] = (size_t)(e - s);
            s = e;
        }
        int sep = -1;
        for (int i = 6; i < nf; i++)
            if (len[i] == 1 && f[i][0] == '-') {
                sep = i;
                break;
            }
        if (nf >= 5 && sep > 0 && sep + 1 < nf) {
            char mp[4096];
            unescape(f[4], len[4], mp, sizeof mp);
            size_t h = holds(mp, abspath);
            if (h > 0 && h >= best) { /* later lines are mounted on top of earlier ones */
                best = h;
                found = 0;
                unescape(f[sep + 1], len[sep + 1], fstype, fstype_len);
                snprintf(mountpoint, mountpoint_len, "%s", mp);
            }
        }
        line = *end ? end + 1 : end;
    }
    return found;
}

int64_t mcio_fs_parse_gluster_size(const char *text)
{
    if (!text)
        return -1;
    while (isspace((unsigned char)*text))
        text++;
    if (!isdigit((unsigned char)*text))
        return -1;
    char *end;
    long long v = strtoll(text, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    static const struct {
        const char *unit;
        int shift;
    } units[] = {{"", 0}, {"B", 0}, {"KB", 10}, {"MB", 20}, {"GB", 30}, {"TB", 40},
                 {"K", 10}, {"M", 20}, {"G", 30}, {"T", 40}};
    size_t n = strlen(end);
    while (n > 0 && isspace((unsigned char)end[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].unit) == n && strncasecmp(end, units[i].unit, n) == 0) {
            if (v < 0 || v > (INT64_MAX >> units[i].shift))
                return -1;
            return (int64_t)v << units[i].shift;
        }
    return -1;
}
