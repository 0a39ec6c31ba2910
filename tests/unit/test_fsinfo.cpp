// The file-system facts' parsers (src/core/util/mcio_fsinfo.c) on fixture text: statfs magic
// numbers, /proc/self/mountinfo lines (FUSE subtypes, stacked mounts, escaped spaces, optional
// fields), GlusterFS size options.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "mcio_fsinfo.h"
}

namespace {

// A mountinfo taken from this project's GlusterFS testbed (scripts/gluster.sh), with the
// fields the kernel writes, plus a tmpfs, a Lustre client, a stacked mount and a mount point
// with a space (\040).
const char *kMountinfo =
    "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "25 22 0:21 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=1024k\n"
    "43 22 0:39 / /mnt/mcio-gluster rw,relatime - fuse.glusterfs 198.51.100.1:/mcio "
    "rw,user_id=0,group_id=0,default_permissions,allow_other,max_read=131072\n"
    "44 22 0:40 / /mnt/mcio-gluster-small rw,relatime - fuse.glusterfs 198.51.100.1:/mcio-small rw\n"
    "50 22 0:45 / /lustre rw shared:9 master:3 - lustre 10.0.0.1@o2ib:/fs rw,flock\n"
    "51 22 0:46 / /scratch rw - xfs /dev/sdb rw\n"
    "52 51 0:47 / /scratch rw - nfs4 server:/export rw\n"
    "53 22 0:48 / /data\\040dir rw - beegfs beegfs_nodev rw\n";

struct Found {
    int rc;
    std::string type, mnt;
};

Found find(const char *path)
{
    char type[64] = "", mnt[256] = "";
    int rc = mcio_fs_mountinfo_find(kMountinfo, path, type, sizeof type, mnt, sizeof mnt);
    return {rc, type, mnt};
}

TEST(FsInfo, MagicNumbers)
{
    EXPECT_EQ(mcio_fs_type_of_magic(0x01021994), MCIO_FS_TMPFS);
    EXPECT_EQ(mcio_fs_type_of_magic(0xEF53), MCIO_FS_EXT4);
    EXPECT_EQ(mcio_fs_type_of_magic(0x58465342), MCIO_FS_XFS);
    EXPECT_EQ(mcio_fs_type_of_magic(0x6969), MCIO_FS_NFS);
    EXPECT_EQ(mcio_fs_type_of_magic(0x0BD00BD0), MCIO_FS_LUSTRE);
    EXPECT_EQ(mcio_fs_type_of_magic(0x47504653), MCIO_FS_GPFS);
    EXPECT_EQ(mcio_fs_type_of_magic(0x19830326), MCIO_FS_BEEGFS);
    EXPECT_EQ(mcio_fs_type_of_magic(0x65735546), MCIO_FS_FUSE);
    // f_type is a signed long: a magic with the high bit set may come sign-extended.
    EXPECT_EQ(mcio_fs_type_of_magic((int64_t)(int32_t)0x9123683E), MCIO_FS_BTRFS);
    EXPECT_EQ(mcio_fs_type_of_magic(0x12345678), MCIO_FS_UNKNOWN);
}

TEST(FsInfo, TypeNames)
{
    EXPECT_EQ(mcio_fs_type_of_name("fuse.glusterfs"), MCIO_FS_GLUSTERFS);
    EXPECT_EQ(mcio_fs_type_of_name("fuse.sshfs"), MCIO_FS_FUSE);
    EXPECT_EQ(mcio_fs_type_of_name("nfs4"), MCIO_FS_NFS);
    EXPECT_EQ(mcio_fs_type_of_name("ext3"), MCIO_FS_EXT4);
    EXPECT_EQ(mcio_fs_type_of_name("zfs"), MCIO_FS_UNKNOWN);
    EXPECT_STREQ(mcio_fs_type_name(MCIO_FS_GLUSTERFS), "glusterfs");
    EXPECT_STREQ(mcio_fs_type_name(MCIO_FS_LUSTRE), "lustre");
}

TEST(FsInfo, MountinfoLongestPrefix)
{
    Found f = find("/mnt/mcio-gluster/test.x/f");
    EXPECT_EQ(f.rc, 0);
    EXPECT_EQ(f.type, "fuse.glusterfs");
    EXPECT_EQ(f.mnt, "/mnt/mcio-gluster");
    // A sibling whose name starts the same is another mount, not a subdirectory.
    f = find("/mnt/mcio-gluster-small/f");
    EXPECT_EQ(f.mnt, "/mnt/mcio-gluster-small");
    f = find("/mnt/mcio-glusterx/f");
    EXPECT_EQ(f.type, "ext4");
    EXPECT_EQ(f.mnt, "/");
    // The mount point itself.
    EXPECT_EQ(find("/tmp").type, "tmpfs");
    EXPECT_EQ(find("/tmpfile").type, "ext4");
}

TEST(FsInfo, MountinfoOptionalFieldsStackedAndEscaped)
{
    Found f = find("/lustre/project/out.h5"); // two optional fields before "-"
    EXPECT_EQ(f.type, "lustre");
    f = find("/scratch/run/ckpt"); // nfs4 mounted over xfs: the later mount wins
    EXPECT_EQ(f.type, "nfs4");
    f = find("/data dir/a");
    EXPECT_EQ(f.type, "beegfs");
    EXPECT_EQ(f.mnt, "/data dir");
}

TEST(FsInfo, MountinfoBadInput)
{
    char type[64], mnt[64];
    EXPECT_EQ(mcio_fs_mountinfo_find("", "/a", type, sizeof type, mnt, sizeof mnt), -1);
    EXPECT_EQ(mcio_fs_mountinfo_find("garbage line\n", "/a", type, sizeof type, mnt, sizeof mnt), -1);
    EXPECT_EQ(mcio_fs_mountinfo_find(kMountinfo, "relative/path", type, sizeof type, mnt, sizeof mnt), -1);
    // No separator: not a mountinfo line.
    EXPECT_EQ(mcio_fs_mountinfo_find("1 2 3:4 / / rw ext4 /dev/x rw\n", "/a", type, sizeof type, mnt,
                                     sizeof mnt),
              -1);
}

TEST(FsInfo, GlusterSizes)
{
    EXPECT_EQ(mcio_fs_parse_gluster_size("4MB"), 4 << 20);
    EXPECT_EQ(mcio_fs_parse_gluster_size("4MB\n"), 4 << 20); // as .meta's option files hold it
    EXPECT_EQ(mcio_fs_parse_gluster_size(" 64MB "), 64 << 20);
    EXPECT_EQ(mcio_fs_parse_gluster_size("512KB"), 512 << 10);
    EXPECT_EQ(mcio_fs_parse_gluster_size("1GB"), 1 << 30);
    EXPECT_EQ(mcio_fs_parse_gluster_size("4194304"), 4194304);
    EXPECT_EQ(mcio_fs_parse_gluster_size("16mb"), 16 << 20);
    EXPECT_EQ(mcio_fs_parse_gluster_size("MB"), -1);
    EXPECT_EQ(mcio_fs_parse_gluster_size("4 parsecs"), -1);
    EXPECT_EQ(mcio_fs_parse_gluster_size(""), -1);
    EXPECT_EQ(mcio_fs_parse_gluster_size("99999999999TB"), -1);
}

TEST(FsInfo, Properties)
{
    // GlusterFS defers errors unless its client's graph is known to lack write-behind.
    for (int wb : {-1, 1, 0}) {
        mcio_fsinfo g = {};
        g.type = MCIO_FS_GLUSTERFS;
        g.write_behind = wb;
        mcio_fs_set_properties(&g);
        EXPECT_EQ(g.remote, 1);
        EXPECT_EQ(g.defers_errors, wb != 0) << "write_behind " << wb;
    }
    mcio_fsinfo n = {};
    n.type = MCIO_FS_NFS; // write_behind is GlusterFS's: 0 means nothing to NFS
    mcio_fs_set_properties(&n);
    EXPECT_EQ(n.defers_errors, 1);
    mcio_fsinfo t = {};
    t.type = MCIO_FS_TMPFS;
    mcio_fs_set_properties(&t);
    EXPECT_EQ(t.remote, 0);
    EXPECT_EQ(t.defers_errors, 0);
}

TEST(FsInfo, NodeLocalKinds)
{
    // Every kind: the node's own only where one kernel's page cache serves every descriptor;
    // not the network's, not FUSE (its daemon may be anything), not a kind mcio does not know.
    for (int k = 0; k < MCIO_FS_COUNT; k++) {
        mcio_fs_type t = (mcio_fs_type)k;
        bool local = t == MCIO_FS_TMPFS || t == MCIO_FS_EXT4 || t == MCIO_FS_XFS ||
                     t == MCIO_FS_BTRFS || t == MCIO_FS_OVERLAY;
        EXPECT_EQ(mcio_fs_node_local(t), local ? 1 : 0) << mcio_fs_type_name(t);
        mcio_fsinfo i = {};
        i.type = t;
        mcio_fs_set_properties(&i);
        if (mcio_fs_node_local(t)) {
            EXPECT_EQ(i.remote, 0) << mcio_fs_type_name(t);
        }
    }
}

} // namespace

TEST(FsInfo, AlignStripeWritesOnlyUnlessTheHintSays)
{
    // A write aligns on the file system's stripe; a read on none (readers share a stripe
    // without conflict); the striping_unit hint stands for both; a stripe too large for an int
    // is no alignment (as the hint's range).
    mcio_fsinfo fs = {};
    fs.type = MCIO_FS_GLUSTERFS;
    fs.stripe = 4 << 20;
    EXPECT_EQ(mcio_fs_align_stripe(&fs, 0, 1), 4 << 20);
    EXPECT_EQ(mcio_fs_align_stripe(&fs, 0, 0), 0);
    EXPECT_EQ(mcio_fs_align_stripe(&fs, 1 << 20, 1), 1 << 20);
    EXPECT_EQ(mcio_fs_align_stripe(&fs, 1 << 20, 0), 1 << 20);
    fs.stripe = (int64_t)1 << 32;
    EXPECT_EQ(mcio_fs_align_stripe(&fs, 0, 1), 0);
    fs.stripe = 0;
    EXPECT_EQ(mcio_fs_align_stripe(&fs, 0, 1), 0);
    EXPECT_EQ(mcio_fs_align_stripe(&fs, 65536, 0), 65536);
}
