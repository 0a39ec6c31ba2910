/*
 * Fuzz target: the cgroup memory reader (src/core/machine/mcio_memory.c): /proc/self/cgroup,
 * /proc/self/mountinfo, the cgroup files (v1 memory.limit_in_bytes, memory.usage_in_bytes,
 * memory.stat with hierarchical_memory_limit; v2 memory.max, memory.current, memory.stat) at
 * every level up to the mount point, /proc/meminfo and /proc/self/status.
 *
 * The input is a small file tree as text: each line "@@ /path" starts a file, whose content is
 * the lines up to the next "@@ " line (corpus/cgroup/ holds trees like the unit tests' fixtures
 * of tests/unit/test_cgroup_memory.cpp). The tree is written below a fresh directory, which
 * mcio_memory_probe_at reads as its root, then removed. Paths with a ".." component are left out.
 * The input's length picks the rlimits (none, RLIMIT_AS, RLIMIT_DATA, both).
 *
 * Properties: no crash or sanitizer report; the same tree probed twice gives the same figures;
 * a cgroup figure comes with its version (1 or 2) and lies in [0, its limit], with what the
 * cgroup holds >= 0; avail is the least of the figures that exist (-1 when none) and source
 * names it; mcio_memory_node of this one probe gives avail and source back, and two ranks in
 * the same cgroup never have less than one.
 */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcio_memory.h"

static char base[256]; /* one directory per process; each input gets a fresh one below it */

static void remove_base(void)
{
    rmdir(base);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* root + path (absolute, no ".." component) with its parent directories; 0 when written. */
static int put(const char *root, const char *path, size_t plen, const char *text, size_t tlen)
{
    char full[512];
    if (plen == 0 || path[0] != '/' || plen > 200)
        return -1;
    for (size_t i = 0; i < plen;) { /* no "." or ".." component */
        size_t j = i + 1;
        while (j < plen && path[j] != '/')
            j++;
        size_t clen = j - i - 1;
        if ((clen == 1 || clen == 2) && memcmp(path + i + 1, "..", clen) == 0)
            return -1;
        i = j;
    }
    int n = snprintf(full, sizeof full, "%s%.*s", root, (int)plen, path);
    if (n < 0 || n >= (int)sizeof full || memchr(path, '\0', plen))
        return -1;
    for (char *s = strchr(full + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(full, 0700);
        *s = '/';
    }
    int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    ssize_t w = tlen ? write(fd, text, tlen) : 0;
    close(fd);
    return w == (ssize_t)tlen ? 0 : -1;
}

/* The files of the input, "@@ /path\n" then the content, below root. */
static void write_tree(const char *root, const char *d, size_t size)
{
    const char *end = d + size, *p = d;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *next = eol ? eol + 1 : end;
        if (next - p < 4 || memcmp(p, "@@ ", 3) != 0) {
            p = next;
            continue;
        }
        const char *path = p + 3;
        size_t plen = (size_t)((eol ? eol : end) - path);
        /* the content: up to the next line that starts with "@@ " */
        const char *c = next, *q = next;
        while (q < end && !(end - q >= 3 && memcmp(q, "@@ ", 3) == 0)) {
            const char *e = memchr(q, '\n', (size_t)(end - q));
            q = e ? e + 1 : end;
        }
        put(root, path, plen, c, (size_t)(q - c));
        p = q;
    }
}

static int same(const mcio_memory_probe *a, const mcio_memory_probe *b)
{
    return a->meminfo == b->meminfo && a->cgroup == b->cgroup && a->cg_used == b->cg_used &&
           a->cg_limit == b->cg_limit && a->cg_version == b->cg_version &&
           a->cg_dev == b->cg_dev && a->cg_ino == b->cg_ino &&
           strcmp(a->cg_path, b->cg_path) == 0 && a->rlimit == b->rlimit &&
           a->avail == b->avail && a->source == b->source;
}

static void fail(const char *what, const mcio_memory_probe *p)
{
    fprintf(stderr,
            "fuzz_cgroup: %s: meminfo %lld cgroup %lld (v%d, used %lld, limit %lld, '%s') rlimit "
            "%lld avail %lld source %d\n",
            what, (long long)p->meminfo, (long long)p->cgroup, p->cg_version,
            (long long)p->cg_used, (long long)p->cg_limit, p->cg_path, (long long)p->rlimit,
            (long long)p->avail, p->source);
    __builtin_trap();
}

static void check(const mcio_memory_probe *p)
{
    if (memchr(p->cg_path, '\0', sizeof p->cg_path) == NULL)
        fail("cg_path not terminated", p);
    if (p->cgroup >= 0 && (p->cg_version < 1 || p->cg_version > 2 || p->cgroup > p->cg_limit ||
                           p->cg_used < 0))
        fail("cgroup figure out of its bounds", p);
    if (p->cgroup < -1 || p->meminfo < -1 || p->rlimit < -1)
        fail("a figure below -1", p);
    const int64_t fig[3] = {p->meminfo, p->cgroup, p->rlimit};
    int64_t least = -1;
    for (int i = 0; i < 3; i++)
        if (fig[i] >= 0 && (least < 0 || fig[i] < least))
            least = fig[i];
    if (p->avail != least)
        fail("avail is not the least figure", p);
    int want = least < 0                 ? MCIO_MEM_UNKNOWN
               : least == p->meminfo     ? MCIO_MEM_MEMINFO
               : least == p->cgroup      ? (p->cg_version == 2 ? MCIO_MEM_CGROUP_V2
                                                               : MCIO_MEM_CGROUP_V1)
                                         : MCIO_MEM_RLIMIT;
    if (p->source != want)
        fail("source does not name the least figure", p);
    int src, which;
    int64_t used, one = mcio_memory_node(1, p, &src, &which, &used);
    if (one != p->avail || src != p->source)
        fail("mcio_memory_node of one probe differs from the probe", p);
    mcio_memory_probe two[2] = {*p, *p};
    int64_t both = mcio_memory_node(2, two, &src, &which, &used);
    if (one >= 0 && both >= 0 && both < one)
        fail("two ranks of one cgroup have less than one", p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!base[0]) {
        /* tmpfs when there is one: each input writes and removes a tree */
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp)
            tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(base, sizeof base, "%s/fuzz_cgroup.XXXXXX", tmp);
        if (!mkdtemp(base))
            abort();
        atexit(remove_base);
    }
    char root[sizeof base + 8];
    snprintf(root, sizeof root, "%s/t", base);
    if (mkdir(root, 0700) != 0)
        abort();
    write_tree(root, (const char *)data, size);
    mcio_rlimits rl = {size % 4 & 1 ? (int64_t)1 << 30 : -1, size % 4 & 2 ? (int64_t)1 << 29 : -1};
    mcio_memory_probe a, b;
    mcio_memory_probe_at(root, rl, &a);
    mcio_memory_probe_at(root, rl, &b);
    if (!same(&a, &b))
        fail("two probes of one tree differ", &a);
    check(&a);
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
