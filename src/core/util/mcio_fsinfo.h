/*
 * What file system a file is on, and how it cuts files into stripes: the facts an automatic
 * configuration (a cost model choosing aggregation, alignment, pipelining) starts from.
 *
 * The parsers here are pure (text or numbers in, a description out) and unit-tested on fixture
 * text; mcio_fs_probe (src/io/mcio_fs.h) gathers their input from the running system:
 * statfs's f_type, /proc/self/mountinfo (the FUSE subtype, e.g. fuse.glusterfs), and for
 * GlusterFS the shard size from the client's own graph under <mount>/.meta (the features/shard
 * translator's shard-block-size option), which any client can read without the gluster CLI.
 */
#ifndef MCIO_FSINFO_H
#define MCIO_FSINFO_H

#include <stddef.h>
#include <stdint.h>

/* File system kinds: the ones whose behaviour matters to collective I/O. */
#define MCIO_FS_LIST(X)                                                                            \
    X(MCIO_FS_UNKNOWN, "unknown")                                                                  \
    X(MCIO_FS_TMPFS, "tmpfs")                                                                      \
    X(MCIO_FS_EXT4, "ext4")                                                                        \
    X(MCIO_FS_XFS, "xfs")                                                                          \
    X(MCIO_FS_BTRFS, "btrfs")                                                                      \
    X(MCIO_FS_NFS, "nfs")                                                                          \
    X(MCIO_FS_LUSTRE, "lustre")                                                                    \
    X(MCIO_FS_GPFS, "gpfs")                                                                        \
    X(MCIO_FS_BEEGFS, "beegfs")                                                                    \
    X(MCIO_FS_CEPH, "ceph")                                                                        \
    X(MCIO_FS_OVERLAY, "overlay")                                                                  \
    X(MCIO_FS_FUSE, "fuse")                                                                        \
    X(MCIO_FS_GLUSTERFS, "glusterfs")

typedef enum mcio_fs_type {
#define MCIO_FS_ENUM(id, name) id,
    MCIO_FS_LIST(MCIO_FS_ENUM)
#undef MCIO_FS_ENUM
        MCIO_FS_COUNT
} mcio_fs_type;

/* What mcio knows of the file system of one file. */
typedef struct mcio_fsinfo {
    mcio_fs_type type;
    int64_t stripe;     /* stripe (GlusterFS: shard) size in bytes, 0 when not striped/unknown */
    int remote;         /* every access crosses the network to a server */
    int defers_errors;  /* the client acknowledges writes before a server has them (write-behind):
                           a failed write may be reported by a later call, or only by fsync */
    int write_behind;   /* GlusterFS: 1 when the client's graph has the write-behind translator,
                           0 when it has none (writes reach the bricks before they return); -1
                           unknown (the graph unreadable, or not GlusterFS) */
    char name[64];      /* fstype as mountinfo says it ("fuse.glusterfs", "ext4"), or the kind */
} mcio_fsinfo;

/* The kind's name ("glusterfs"). */
const char *mcio_fs_type_name(mcio_fs_type t);

/* The kind of a statfs f_type magic number; MCIO_FS_UNKNOWN for others (FUSE: MCIO_FS_FUSE,
 * whose subtype only mountinfo tells). */
mcio_fs_type mcio_fs_type_of_magic(int64_t magic);

/* The kind of a mountinfo fstype ("ext4", "fuse.glusterfs", "nfs4", "lustre", "gpfs"). */
mcio_fs_type mcio_fs_type_of_name(const char *fstype);

/* Is a file system of this kind the node's own (tmpfs, ext4, xfs, btrfs, overlay): one
 * kernel's page cache serves every descriptor of a file, so any two of them read alike? 0 for
 * the network's and for kinds mcio does not know. */
int mcio_fs_node_local(mcio_fs_type t);

/* The stripe a collective call's file domains and rounds align on: the striping_unit hint
 * where it is set (either operation), else for a write the file system's own stripe (at most
 * 2 GiB - 1; no two aggregators then write one stripe), else none (0). A read aligns on no
 * stripe of its own: readers share a stripe without conflict, and aligned domains crowded a
 * small file's reads into one aggregator (GlusterFS testbed, 8 ranks, 4 MiB files in 4 MiB
 * shards: reads split over 4 aggregators were 1.3-1.7x faster; writes gained nothing). */
int64_t mcio_fs_align_stripe(const mcio_fsinfo *fs, int64_t striping_unit, int write);

/* Remote and deferred-error properties of a kind and, for GlusterFS, of its client's graph
 * (fills info->remote, info->defers_errors; GlusterFS defers errors unless info->write_behind
 * is 0). */
void mcio_fs_set_properties(mcio_fsinfo *info);

/*
 * The mount that holds the absolute path abspath, from the text of /proc/self/mountinfo: the
 * longest mount point that is abspath or a parent directory of it (the last one mounted when
 * several are stacked on it). Octal escapes in mount points (\040 for a space) are decoded.
 * Writes the file system type ("fuse.glusterfs") and the mount point; returns 0, or -1 when no
 * line matches or the text is malformed.
 */
int mcio_fs_mountinfo_find(const char *mountinfo, const char *abspath, char *fstype,
                           size_t fstype_len, char *mountpoint, size_t mountpoint_len);

/*
 * A GlusterFS size option as `gluster volume get` and the client's .meta show it: a number with
 * an optional binary unit (B, KB, MB, GB, TB; GlusterFS's units are powers of 1024, "4MB" is
 * 4 MiB), surrounding white space ignored. Returns the bytes, or -1 when it is not one.
 */
int64_t mcio_fs_parse_gluster_size(const char *text);

#endif
