/*
 * The memory a process really has (src/core/machine/mcio_memory.c, issue 17): MemAvailable, its
 * memory cgroup's headroom (v1 and v2, nested limits, "max", a container's view, missing and
 * unreadable files) and its rlimits, read from fixture trees laid out as / would be, and the
 * figure of a node from its ranks' probes.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mcio_memory.h"

namespace fs = std::filesystem;

namespace {

constexpr int64_t MiB = int64_t(1) << 20;
constexpr const char *V1_UNLIMITED = "9223372036854771712\n";

/* A fixture root: a fresh directory; put(path, text) writes root/path. */
class Root {
  public:
    Root()
    {
        char tmpl[] = "/tmp/mcio-cgroup-XXXXXX";
        dir_ = mkdtemp(tmpl);
        put("/proc/meminfo", "MemTotal: 25000000 kB\nMemAvailable: 20971520 kB\n"); /* 20 GiB */
        put("/proc/self/status", "VmSize:\t  102400 kB\nVmData:\t   51200 kB\n");
    }
    ~Root() { fs::remove_all(dir_); }
    void put(const std::string &path, const std::string &text)
    {
        fs::create_directories(fs::path(dir_ + path).parent_path());
        std::ofstream(dir_ + path) << text;
    }
    void mkdir(const std::string &path) { fs::create_directories(dir_ + path); }
    mcio_memory_probe probe(mcio_rlimits rl = {-1, -1}) const
    {
        mcio_memory_probe p;
        EXPECT_EQ(mcio_memory_probe_at(dir_.c_str(), rl, &p), MCIO_SUCCESS);
        return p;
    }

  private:
    std::string dir_;
};

std::string bytes(int64_t b)
{
    return std::to_string(b) + "\n";
}

/* A v1 memory controller mounted at /sys/fs/cgroup/memory, the process in cg. */
void v1(Root &r, const std::string &cg, const std::string &mount_root = "/")
{
    r.put("/proc/self/cgroup", "9:name=systemd:/\n5:cpu,cpuacct:/\n4:memory:" + cg + "\n0::/\n");
    r.put("/proc/self/mountinfo",
          "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
          "30 25 0:26 " + mount_root + " /sys/fs/cgroup/memory rw,nosuid shared:9 - cgroup cgroup "
          "rw,memory\n"
          "31 25 0:27 / /sys/fs/cgroup/unified rw shared:10 - cgroup2 cgroup2 rw\n");
}

/* A v1 level: limit, usage, and memory.stat's file pages and hierarchical limit. */
void v1_level(Root &r, const std::string &dir, const std::string &limit, int64_t usage,
              int64_t inactive = 0, int64_t active = 0, int64_t dirty = 0, int64_t hier = 0,
              int64_t mapped = 0)
{
    std::string d = "/sys/fs/cgroup/memory" + dir;
    r.put(d + "/memory.limit_in_bytes", limit);
    r.put(d + "/memory.usage_in_bytes", bytes(usage));
    r.put(d + "/memory.stat", "cache 1\nrss 2\nhierarchical_memory_limit " +
                                  (hier ? std::to_string(hier) : std::string("9223372036854771712")) +
                                  "\ntotal_inactive_file " + std::to_string(inactive) +
                                  "\ntotal_active_file " + std::to_string(active) +
                                  "\ntotal_dirty " + std::to_string(dirty) +
                                  "\ntotal_writeback 0\ntotal_mapped_file " + std::to_string(mapped) + "\n");
}

void v2(Root &r, const std::string &cg, const std::string &mount_root = "/")
{
    r.put("/proc/self/cgroup", "0::" + cg + "\n");
    r.put("/proc/self/mountinfo", "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
                                  "26 25 0:23 " + mount_root +
                                  " /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 "
                                  "rw,nsdelegate\n");
}

void v2_level(Root &r, const std::string &dir, const std::string &max, int64_t current,
              int64_t inactive = 0, int64_t active = 0, int64_t dirty = 0)
{
    std::string d = "/sys/fs/cgroup" + dir;
    r.put(d + "/memory.max", max);
    r.put(d + "/memory.current", bytes(current));
    r.put(d + "/memory.stat", "anon 1\nfile 2\ninactive_file " + std::to_string(inactive) +
                                  "\nactive_file " + std::to_string(active) + "\nfile_dirty " +
                                  std::to_string(dirty) + "\nfile_writeback 0\n");
}

TEST(CgroupMemory, NoCgroupNoRlimitIsMemAvailable)
{
    Root r;
    mcio_memory_probe p = r.probe();
    EXPECT_EQ(p.meminfo, 20 * 1024 * MiB);
    EXPECT_EQ(p.cgroup, -1);
    EXPECT_EQ(p.cg_version, 0);
    EXPECT_EQ(p.rlimit, -1);
    EXPECT_EQ(p.avail, 20 * 1024 * MiB);
    EXPECT_EQ(p.source, MCIO_MEM_MEMINFO);
}

TEST(CgroupMemory, V1LimitLessWhatCannotBeReclaimed)
{
    Root r;
    v1(r, "/job");
    /* 600 MiB used, of which 100 + 50 MiB file pages, 30 MiB of them dirty: 120 MiB
     * reclaimable, 480 MiB held, 544 MiB left under 1 GiB. */
    v1_level(r, "/job", bytes(1024 * MiB), 600 * MiB, 100 * MiB, 50 * MiB, 30 * MiB);
    v1_level(r, "", V1_UNLIMITED, 5000 * MiB); /* the root: no limit */
    EXPECT_EQ(r.probe().cgroup, 544 * MiB);
    /* Mapped file pages (code) are held: 20 MiB of them leave 524 MiB. */
    v1_level(r, "/job", bytes(1024 * MiB), 600 * MiB, 100 * MiB, 50 * MiB, 30 * MiB, 0, 20 * MiB);
    EXPECT_EQ(r.probe().cgroup, 524 * MiB);
    v1_level(r, "/job", bytes(1024 * MiB), 600 * MiB, 100 * MiB, 50 * MiB, 30 * MiB);
    mcio_memory_probe p = r.probe();
    EXPECT_EQ(p.cgroup, 544 * MiB);
    EXPECT_EQ(p.cg_used, 480 * MiB);
    EXPECT_EQ(p.cg_limit, 1024 * MiB);
    EXPECT_EQ(p.cg_version, 1);
    EXPECT_STREQ(p.cg_path, "/job");
    EXPECT_EQ(p.avail, 544 * MiB);
    EXPECT_EQ(p.source, MCIO_MEM_CGROUP_V1);
}

TEST(CgroupMemory, V1TightestAncestorBinds)
{
    Root r;
    v1(r, "/slurm/job_7/step_0");
    v1_level(r, "/slurm/job_7/step_0", V1_UNLIMITED, 100 * MiB);
    v1_level(r, "/slurm/job_7", bytes(512 * MiB), 300 * MiB); /* 212 MiB left */
    v1_level(r, "/slurm", bytes(64 * 1024 * MiB), 40 * 1024 * MiB);
    mcio_memory_probe p = r.probe();
    EXPECT_EQ(p.cgroup, 212 * MiB);
    EXPECT_STREQ(p.cg_path, "/slurm/job_7");
    /* The step tighter than the job: the step binds. */
    v1_level(r, "/slurm/job_7/step_0", bytes(150 * MiB), 100 * MiB);
    p = r.probe();
    EXPECT_EQ(p.cgroup, 50 * MiB);
    EXPECT_STREQ(p.cg_path, "/slurm/job_7/step_0");
    /* Different directories are different cgroups. */
    mcio_memory_probe q = p;
    v1_level(r, "/slurm/job_7/step_0", V1_UNLIMITED, 100 * MiB);
    q = r.probe();
    EXPECT_TRUE(p.cg_ino != q.cg_ino || p.cg_dev != q.cg_dev);
}

TEST(CgroupMemory, V1HierarchicalLimitOfAnAncestorTheContainerDoesNotShow)
{
    Root r;
    /* A container: its own cgroup mounted as the root, the ancestors invisible. */
    v1(r, "/docker/abc", "/docker/abc");
    v1_level(r, "", V1_UNLIMITED, 200 * MiB, 0, 0, 0, 256 * MiB);
    mcio_memory_probe p = r.probe();
    EXPECT_EQ(p.cgroup, 56 * MiB);
    EXPECT_EQ(p.cg_version, 1);
}

TEST(CgroupMemory, V2MaxAtEveryLevel)
{
    Root r;
    v2(r, "/user.slice/job");
    v2_level(r, "/user.slice/job", "max\n", 300 * MiB);
    v2_level(r, "/user.slice", bytes(2048 * MiB), 1536 * MiB, 0, 0, 0);
    mcio_memory_probe p = r.probe();
    EXPECT_EQ(p.cgroup, 512 * MiB);
    EXPECT_STREQ(p.cg_path, "/user.slice");
    EXPECT_EQ(p.cg_version, 2);
    EXPECT_EQ(p.source, MCIO_MEM_CGROUP_V2);
    /* The job's own limit, clean file pages reclaimable. */
    v2_level(r, "/user.slice/job", bytes(400 * MiB), 350 * MiB, 80 * MiB, 20 * MiB, 10 * MiB);
    p = r.probe();
    EXPECT_EQ(p.cgroup, 140 * MiB); /* 400 - (350 - 90) */
    EXPECT_STREQ(p.cg_path, "/user.slice/job");
    /* All "max": no cgroup limit. */
    v2_level(r, "/user.slice/job", "max\n", 350 * MiB);
    v2_level(r, "/user.slice", "max\n", 1536 * MiB);
    p = r.probe();
    EXPECT_EQ(p.cgroup, -1);
    EXPECT_EQ(p.source, MCIO_MEM_MEMINFO);
}

TEST(CgroupMemory, V2ContainerSeesItsCgroupAsTheRoot)
{
    Root r;
    v2(r, "/", "/kubepods/pod1/c1");
    v2_level(r, "", bytes(256 * MiB), 100 * MiB);
    mcio_memory_probe p = r.probe();
    EXPECT_EQ(p.cgroup, 156 * MiB);
    EXPECT_EQ(p.cg_version, 2);
}

TEST(CgroupMemory, MissingOrUnreadableFilesLimitNothing)
{
    Root r;
    v1(r, "/job");
    /* No files at all under the mount. */
    mcio_memory_probe p = r.probe();
    EXPECT_EQ(p.cgroup, -1);
    EXPECT_EQ(p.source, MCIO_MEM_MEMINFO);
    /* A limit that cannot be read (a directory where the file should be: unreadable even by
     * root), and one that is not a number. */
    r.mkdir("/sys/fs/cgroup/memory/job/memory.limit_in_bytes");
    r.put("/sys/fs/cgroup/memory/job/memory.usage_in_bytes", bytes(10 * MiB));
    EXPECT_EQ(r.probe().cgroup, -1);
    r.put("/sys/fs/cgroup/memory/memory.limit_in_bytes", "lots\n");
    r.put("/sys/fs/cgroup/memory/memory.usage_in_bytes", bytes(10 * MiB));
    EXPECT_EQ(r.probe().cgroup, -1);
    /* The usage unreadable: the limit alone says nothing about the headroom. */
    r.put("/sys/fs/cgroup/memory/memory.limit_in_bytes", bytes(100 * MiB));
    r.put("/sys/fs/cgroup/memory/memory.usage_in_bytes", "");
    EXPECT_EQ(r.probe().cgroup, -1);
    /* No /proc/self/cgroup, no mountinfo, no meminfo: nothing known. */
    mcio_memory_probe q;
    ASSERT_EQ(mcio_memory_probe_at("/nonexistent-mcio-root", {-1, -1}, &q), MCIO_SUCCESS);
    EXPECT_EQ(q.meminfo, -1);
    EXPECT_EQ(q.cgroup, -1);
    EXPECT_EQ(q.avail, -1);
    EXPECT_EQ(q.source, MCIO_MEM_UNKNOWN);
}

TEST(CgroupMemory, UsageAboveLimitLeavesNothing)
{
    Root r;
    v1(r, "/job");
    v1_level(r, "/job", bytes(100 * MiB), 120 * MiB);
    EXPECT_EQ(r.probe().cgroup, 0);
    EXPECT_EQ(r.probe().avail, 0);
}

TEST(CgroupMemory, RlimitHeadroomIsTheSmallerOfAsAndData)
{
    Root r; /* VmSize 100 MiB, VmData 50 MiB */
    mcio_memory_probe p = r.probe({300 * MiB, -1});
    EXPECT_EQ(p.rlimit, 200 * MiB);
    EXPECT_EQ(p.source, MCIO_MEM_RLIMIT);
    p = r.probe({300 * MiB, 100 * MiB});
    EXPECT_EQ(p.rlimit, 50 * MiB);
    p = r.probe({64 * MiB, -1}); /* already past the limit */
    EXPECT_EQ(p.rlimit, 0);
    /* The tightest of the three wins. */
    v1(r, "/job");
    v1_level(r, "/job", bytes(140 * MiB), 100 * MiB);
    p = r.probe({300 * MiB, -1});
    EXPECT_EQ(p.avail, 40 * MiB);
    EXPECT_EQ(p.source, MCIO_MEM_CGROUP_V1);
}

TEST(CgroupMemory, HybridV1AndV2TheTighterWins)
{
    Root r;
    r.put("/proc/self/cgroup", "4:memory:/a\n0::/b\n");
    r.put("/proc/self/mountinfo",
          "30 25 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
          "31 25 0:27 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
    v1_level(r, "/a", bytes(900 * MiB), 100 * MiB);
    r.put("/sys/fs/cgroup/unified/b/memory.max", bytes(300 * MiB));
    r.put("/sys/fs/cgroup/unified/b/memory.current", bytes(100 * MiB));
    mcio_memory_probe p = r.probe();
    EXPECT_EQ(p.cgroup, 200 * MiB);
    EXPECT_EQ(p.cg_version, 2);
    EXPECT_STREQ(p.cg_path, "/b");
}

mcio_memory_probe rank(int64_t meminfo, int version, uint64_t ino, int64_t cgroup, int64_t used,
                       int64_t rlimit = -1)
{
    mcio_memory_probe p{};
    p.meminfo = meminfo;
    p.cg_version = version;
    p.cg_dev = version ? 42 : 0;
    p.cg_ino = ino;
    p.cgroup = cgroup;
    p.cg_used = used;
    p.rlimit = rlimit;
    return p;
}

TEST(CgroupMemory, RanksOfOneCgroupShareItsHeadroom)
{
    /* Slurm's job cgroup: four ranks, one cgroup, 500 MiB left (the least any rank read). */
    std::vector<mcio_memory_probe> p = {
        rank(20000 * MiB, 1, 7, 510 * MiB, 90 * MiB), rank(20000 * MiB, 1, 7, 500 * MiB, 100 * MiB),
        rank(19000 * MiB, 1, 7, 505 * MiB, 95 * MiB), rank(20000 * MiB, 1, 7, 520 * MiB, 80 * MiB)};
    int src, which;
    int64_t used;
    EXPECT_EQ(mcio_memory_node(4, p.data(), &src, &which, &used), 500 * MiB);
    EXPECT_EQ(src, MCIO_MEM_CGROUP_V1);
    EXPECT_EQ(which, 0);
    EXPECT_EQ(used, 100 * MiB);
}

TEST(CgroupMemory, RanksInSeparateCgroupsBringTheirOwn)
{
    /* One cgroup per task: the node has the sum. */
    std::vector<mcio_memory_probe> p = {rank(20000 * MiB, 2, 1, 100 * MiB, 10 * MiB),
                                        rank(20000 * MiB, 2, 2, 150 * MiB, 20 * MiB),
                                        rank(20000 * MiB, 2, 2, 160 * MiB, 20 * MiB)};
    int src;
    int64_t used;
    EXPECT_EQ(mcio_memory_node(3, p.data(), &src, nullptr, &used), 250 * MiB);
    EXPECT_EQ(src, MCIO_MEM_CGROUP_V2);
    EXPECT_EQ(used, 30 * MiB);
    /* The host tighter than the cgroups' sum. */
    p[1].meminfo = 200 * MiB;
    EXPECT_EQ(mcio_memory_node(3, p.data(), &src, nullptr, &used), 200 * MiB);
    EXPECT_EQ(src, MCIO_MEM_MEMINFO);
    EXPECT_EQ(used, -1);
    /* A rank in no cgroup limit may take the host's memory. */
    p[1].meminfo = 20000 * MiB;
    p.push_back(rank(20000 * MiB, 0, 0, -1, -1));
    EXPECT_EQ(mcio_memory_node(4, p.data(), &src, nullptr, nullptr), 20000 * MiB);
    EXPECT_EQ(src, MCIO_MEM_MEMINFO);
}

TEST(CgroupMemory, RlimitsAddUpPerProcessWithinTheirCgroup)
{
    std::vector<mcio_memory_probe> p = {rank(20000 * MiB, 0, 0, -1, -1, 30 * MiB),
                                        rank(20000 * MiB, 0, 0, -1, -1, 40 * MiB)};
    int src, which;
    EXPECT_EQ(mcio_memory_node(2, p.data(), &src, &which, nullptr), 70 * MiB);
    EXPECT_EQ(src, MCIO_MEM_RLIMIT);
    EXPECT_EQ(which, -1);
    /* In a cgroup with less room than the rlimits' sum: the cgroup binds. */
    p = {rank(20000 * MiB, 1, 9, 50 * MiB, 1, 30 * MiB), rank(20000 * MiB, 1, 9, 50 * MiB, 1, 40 * MiB)};
    EXPECT_EQ(mcio_memory_node(2, p.data(), &src, &which, nullptr), 50 * MiB);
    EXPECT_EQ(src, MCIO_MEM_CGROUP_V1);
    /* Nothing known at all. */
    p = {rank(-1, 0, 0, -1, -1)};
    EXPECT_EQ(mcio_memory_node(1, p.data(), &src, &which, nullptr), -1);
    EXPECT_EQ(src, MCIO_MEM_UNKNOWN);
}

TEST(CgroupMemory, SourceNames)
{
    EXPECT_STREQ(mcio_memory_source_name(MCIO_MEM_MEMINFO), "meminfo");
    EXPECT_STREQ(mcio_memory_source_name(MCIO_MEM_CGROUP_V1), "cgroup-v1");
    EXPECT_STREQ(mcio_memory_source_name(MCIO_MEM_CGROUP_V2), "cgroup-v2");
    EXPECT_STREQ(mcio_memory_source_name(MCIO_MEM_RLIMIT), "rlimit");
    EXPECT_STREQ(mcio_memory_source_name(MCIO_MEM_HINT), "hint");
    EXPECT_STREQ(mcio_memory_source_name(MCIO_MEM_VIRTUAL), "virtual");
    EXPECT_STREQ(mcio_memory_source_name(99), "unknown");
}

} // namespace
