/* The memory of the nodes, detected or virtual: see mcio_memory.h. Pure but for reading
 * /proc and the cgroup files below a root given by the caller (mcio_memory_probe_at). */
#include "mcio_memory.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mcio_splitmix64.h"

/* A uniform double in (0, 1]. */
static double unit(uint64_t *state)
{
    return ((double)(splitmix64(state) >> 11) + 1.0) / 9007199254740992.0;
}

/* Copy the next field of s up to sep (or the end) into buf; returns the rest, or NULL at the end. */
static const char *field(const char *s, char sep, char *buf, size_t len)
{
    const char *e = strchr(s, sep);
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return e ? e + 1 : NULL;
}

int mcio_memory_virtual(const char *spec, int nnodes, int64_t *node_mem,
                        char detail[MCIO_DETAIL_LEN])
{
    char buf[64];
    const char *p;
    if (!spec || !*spec)
        goto bad;
    if (strncmp(spec, "normal:", 7) == 0) {
        int64_t v[3] = {0, 0, 1};
        int n = 0;
        for (p = spec + 7; p && n < 3; n++) {
            p = field(p, ':', buf, sizeof buf);
            if (mcio_parse_bytes(buf, 0, INT64_MAX / 4, &v[n]))
                goto bad;
        }
        if (p || n < 2)
            goto bad;
        uint64_t state = (uint64_t)v[2];
        for (int j = 0; j < nnodes; j++) {
            double u1 = unit(&state), u2 = unit(&state);
            double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            double x = (double)v[0] + (double)v[1] * z;
            node_mem[j] = x <= 0 ? 0 : (int64_t)llround(x);
        }
        return MCIO_SUCCESS;
    }
    int count = 0;
    for (p = spec; p;) {
        int64_t x;
        p = field(p, ',', buf, sizeof buf);
        if (mcio_parse_bytes(buf, 0, INT64_MAX, &x))
            goto bad;
        count++;
    }
    for (int j = 0; j < nnodes; j++) {
        int k = j % count;
        p = spec;
        for (int i = 0; i <= k; i++)
            p = field(p, ',', buf, sizeof buf);
        mcio_parse_bytes(buf, 0, INT64_MAX, &node_mem[j]);
    }
    return MCIO_SUCCESS;
bad:
    snprintf(detail, MCIO_DETAIL_LEN,
             "MCIO_VIRTUAL_NODE_MEMORY='%.100s': expected byte counts separated by commas "
             "(64m,16m,0) or normal:MEAN:SD[:SEED]",
             spec ? spec : "");
    return MCIO_ERR_ARG;
}

int64_t mcio_memory_parse_meminfo(const char *text)
{
    const char *p = strstr(text, "MemAvailable:");
    if (!p)
        return -1;
    char *end;
    long long kib = strtoll(p + strlen("MemAvailable:"), &end, 10);
    if (end == p + strlen("MemAvailable:") || kib < 0 || kib > INT64_MAX / 1024)
        return -1;
    return (int64_t)kib * 1024; /* the kernel writes kB, meaning KiB */
}

int64_t mcio_memory_available(void)
{
    char text[4096];
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return mcio_memory_parse_meminfo(text);
}

const char *mcio_memory_source_name(int source)
{
    static const char *const names[] = {"unknown",   "meminfo", "cgroup-v1", "cgroup-v2",
                                        "rlimit",    "hint",    "virtual"};
    return source >= 0 && source < (int)(sizeof names / sizeof names[0]) ? names[source]
                                                                         : "unknown";
}

/* The text of root/path into buf (at most len - 1 bytes); 0, or -1 when it cannot be read. */
static int read_text(const char *root, const char *path, char *buf, size_t len)
{
    char full[PATH_MAX];
    if (snprintf(full, sizeof full, "%s%s", root, path) >= (int)sizeof full)
        return -1;
    FILE *f = fopen(full, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    int err = ferror(f);
    fclose(f);
    buf[n] = '\0';
    return err ? -1 : 0;
}

/* One number from a cgroup file: bytes, "max" (v2: no limit, returns INT64_MAX), or -1. v1
 * writes "no limit" as the largest page-counter value, 2^63 less a page: anything from 2^62
 * on is no limit. */
static int64_t read_bytes(const char *root, const char *dir, const char *file)
{
    char path[PATH_MAX], text[64], *end;
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path ||
        read_text(root, path, text, sizeof text) != 0)
        return -1;
    if (strncmp(text, "max", 3) == 0)
        return INT64_MAX;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || (*end && *end != '\n'))
        return -1;
    return v >= (1ull << 62) ? INT64_MAX : (int64_t)v;
}

/* The value of "key N" in a memory.stat text, or 0 when absent. */
static int64_t stat_field(const char *text, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, k) == 0 && p[k] == ' ') {
            unsigned long long v = strtoull(p + k + 1, NULL, 10);
            return v >= (1ull << 62) ? INT64_MAX : (int64_t)v;
        }
    return 0;
}

/* A cgroup level whose limit binds: the probe keeps the tightest. */
static void consider(mcio_memory_probe *out, int version, const char *root, const char *dir,
                     const char *cgpath, int64_t limit, int64_t used)
{
    int64_t head = limit - used;
    if (head < 0)
        head = 0;
    if (out->cgroup >= 0 && head >= out->cgroup)
        return;
    struct stat sb;
    char full[PATH_MAX];
    snprintf(full, sizeof full, "%s%s", root, dir);
    out->cgroup = head;
    out->cg_used = used;
    out->cg_limit = limit;
    out->cg_version = version;
    out->cg_dev = stat(full, &sb) == 0 ? (uint64_t)sb.st_dev : 0;
    out->cg_ino = stat(full, &sb) == 0 ? (uint64_t)sb.st_ino : 0;
    snprintf(out->cg_path, sizeof out->cg_path, "%s", cgpath);
}

/*
 * Walk the cgroup directory dir (below root) and its ancestors up to the mount point mnt,
 * keeping the tightest limit. cgpath is dir's path in the hierarchy, cut as the walk goes up.
 * What a cgroup holds and cannot reclaim is its usage less its clean page cache (file pages
 * that are neither dirty, under writeback nor mapped): the kernel drops those before it kills.
 * Mapped file pages (the programs' and libraries' code) count as held: reclaimed, they are
 * faulted straight back, and a job left with only those thrashes instead of dying.
 */
static void walk_cgroup(mcio_memory_probe *out, int version, const char *root, const char *mnt,
                        char *dir, char *cgpath)
{
    size_t mlen = strlen(mnt);
    const char *limit_file = version == 1 ? "memory.limit_in_bytes" : "memory.max";
    const char *usage_file = version == 1 ? "memory.usage_in_bytes" : "memory.current";
    const char *inactive = version == 1 ? "total_inactive_file" : "inactive_file";
    const char *active = version == 1 ? "total_active_file" : "active_file";
    const char *dirty = version == 1 ? "total_dirty" : "file_dirty";
    const char *writeback = version == 1 ? "total_writeback" : "file_writeback";
    const char *mapped = version == 1 ? "total_mapped_file" : "file_mapped";
    for (int leaf = 1;; leaf = 0) {
        char path[PATH_MAX], stat_text[8192];
        int64_t limit = read_bytes(root, dir, limit_file), usage = -1;
        /* A level without a limit costs nothing more (the root's memory.stat sums the whole
         * machine and takes a millisecond), except the leaf, whose v1 memory.stat names the
         * hierarchy's limit. */
        int have_stat = 0;
        if ((limit >= 0 && limit < INT64_MAX) || (leaf && version == 1)) {
            usage = read_bytes(root, dir, usage_file);
            have_stat = snprintf(path, sizeof path, "%s/memory.stat", dir) < (int)sizeof path &&
                        read_text(root, path, stat_text, sizeof stat_text) == 0;
        }
        if (usage >= 0 && usage < INT64_MAX) {
            int64_t clean = 0;
            if (have_stat) {
                clean = stat_field(stat_text, inactive) + stat_field(stat_text, active) -
                        stat_field(stat_text, dirty) - stat_field(stat_text, writeback) -
                        stat_field(stat_text, mapped);
                clean = clean < 0 ? 0 : clean > usage ? usage : clean;
            }
            if (limit >= 0 && limit < INT64_MAX)
                consider(out, version, root, dir, cgpath, limit, usage - clean);
            /* v1: the least limit of the hierarchy, whose upper levels a container may not
             * show; paired with this level's usage, which is all we can see. */
            int64_t hier = have_stat && leaf && version == 1
                               ? stat_field(stat_text, "hierarchical_memory_limit")
                               : 0;
            if (hier > 0 && hier < INT64_MAX && (limit < 0 || hier < limit))
                consider(out, version, root, dir, cgpath, hier, usage - clean);
        }
        /* Up one level, not above the mount point. */
        size_t dlen = strlen(dir);
        if (dlen <= mlen)
            break;
        char *slash = strrchr(dir + mlen, '/');
        char *cslash = strrchr(cgpath, '/');
        if (!slash)
            break;
        *slash = '\0';
        if (cslash)
            *(cslash == cgpath ? cslash + 1 : cslash) = '\0';
    }
}

/* From mountinfo, the mount of the memory controller: v1 (fstype cgroup with the memory
 * option) or v2 (fstype cgroup2). Copies its mount root and mount point; 0 when found. */
static int find_mount(const char *mountinfo, int version, char *mroot, char *mnt, size_t len)
{
    for (const char *line = mountinfo; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char buf[1024], f_root[512], f_mnt[512], fstype[64], opts[512];
        if (n < sizeof buf) {
            memcpy(buf, line, n);
            buf[n] = '\0';
            const char *dash = strstr(buf, " - ");
            if (dash && sscanf(buf, "%*s %*s %*s %511s %511s", f_root, f_mnt) == 2 &&
                sscanf(dash + 3, "%63s %*s %511s", fstype, opts) == 2) {
                int match = 0;
                if (version == 2)
                    match = strcmp(fstype, "cgroup2") == 0;
                else if (strcmp(fstype, "cgroup") == 0) {
                    char *save = NULL;
                    for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
                        match |= strcmp(o, "memory") == 0;
                }
                if (match && strlen(f_root) < len && strlen(f_mnt) < len) {
                    strcpy(mroot, f_root);
                    strcpy(mnt, f_mnt);
                    return 0;
                }
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    return -1;
}

/* The process's path in the hierarchy of the given version, from /proc/self/cgroup
 * ("4:memory:/slurm/job_7" for v1, "0::/user.slice" for v2); 0 when found. */
static int find_cgroup(const char *text, int version, char *path, size_t len)
{
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        const char *c1 = memchr(line, ':', n);
        const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            size_t clen = (size_t)(c2 - c1 - 1), plen = n - (size_t)(c2 + 1 - line);
            int match = 0;
            if (version == 2)
                match = clen == 0 && strncmp(line, "0:", 2) == 0;
            else
                for (const char *o = c1 + 1; o < c2;) {
                    const char *e = memchr(o, ',', (size_t)(c2 - o));
                    size_t olen = e ? (size_t)(e - o) : (size_t)(c2 - o);
                    match |= olen == 6 && strncmp(o, "memory", 6) == 0;
                    o = e ? e + 1 : c2;
                }
            if (match && plen < len) {
                memcpy(path, c2 + 1, plen);
                path[plen] = '\0';
                return 0;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    return -1;
}

void mcio_memory_locate(const char *root, mcio_memory_where *w)
{
    memset(w, 0, sizeof *w);
    char self[4096], *mountinfo = malloc(65536);
    if (!mountinfo || read_text(root, "/proc/self/cgroup", self, sizeof self) != 0 ||
        read_text(root, "/proc/self/mountinfo", mountinfo, 65536) != 0) {
        free(mountinfo);
        return;
    }
    for (int version = 1; version <= 2; version++) {
        char cgpath[MCIO_MEM_WHERE_LEN * 2], mroot[512], mnt[512], dir[PATH_MAX];
        if (find_cgroup(self, version, cgpath, sizeof cgpath) != 0 ||
            find_mount(mountinfo, version, mroot, mnt, sizeof mnt) != 0)
            continue;
        /* The path below the mount: the cgroup path less the mount's root (a container sees
         * its own cgroup mounted as the root; then the path is that root or below it). */
        const char *rel = cgpath;
        size_t rlen = strlen(mroot);
        if (strcmp(mroot, "/") != 0)
            rel = strncmp(cgpath, mroot, rlen) == 0 ? cgpath + rlen : "";
        if (snprintf(dir, sizeof dir, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel) >=
            (int)sizeof dir)
            continue;
        size_t dl = strlen(dir);
        while (dl > strlen(mnt) && dir[dl - 1] == '/')
            dir[--dl] = '\0';
        struct mcio_memory_cgroup *c = &w->cg[w->n];
        if (strlen(dir) >= sizeof c->dir || strlen(mnt) >= sizeof c->mnt ||
            strlen(cgpath) >= sizeof c->path)
            continue;
        c->version = version;
        strcpy(c->dir, dir);
        strcpy(c->mnt, mnt);
        strcpy(c->path, cgpath);
        w->n++;
    }
    free(mountinfo);
}

/* "Key:   1234 kB" of /proc/self/status in bytes, or -1. */
static int64_t status_kib(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p)
        return -1;
    char *end;
    long long kib = strtoll(p + strlen(key), &end, 10);
    return end == p + strlen(key) || kib < 0 || kib > INT64_MAX / 1024 ? -1 : (int64_t)kib * 1024;
}

int mcio_memory_probe_at(const char *root, mcio_rlimits rl, mcio_memory_probe *out)
{
    mcio_memory_where w;
    mcio_memory_locate(root, &w);
    return mcio_memory_probe_located(root, &w, rl, out);
}

/* The process's rlimit headroom (RLIMIT_AS, RLIMIT_DATA against VmSize, VmData) into out. */
static void probe_rlimit(const char *root, mcio_rlimits rl, mcio_memory_probe *out)
{
    char text[8192];
    if ((rl.as < 0 && rl.data < 0) || read_text(root, "/proc/self/status", text, sizeof text) != 0)
        return;
    int64_t vsize = status_kib(text, "VmSize:"), vdata = status_kib(text, "VmData:");
    if (rl.as >= 0 && vsize >= 0)
        out->rlimit = rl.as > vsize ? rl.as - vsize : 0;
    if (rl.data >= 0 && vdata >= 0) {
        int64_t h = rl.data > vdata ? rl.data - vdata : 0;
        out->rlimit = out->rlimit < 0 || h < out->rlimit ? h : out->rlimit;
    }
}

/* out->avail and out->source: the tightest of the figures read. */
static void probe_avail(mcio_memory_probe *out)
{
    out->avail = -1;
    out->source = MCIO_MEM_UNKNOWN;
    const int64_t fig[3] = {out->meminfo, out->cgroup, out->rlimit};
    const int src[3] = {MCIO_MEM_MEMINFO,
                        out->cg_version == 2 ? MCIO_MEM_CGROUP_V2 : MCIO_MEM_CGROUP_V1,
                        MCIO_MEM_RLIMIT};
    for (int i = 0; i < 3; i++)
        if (fig[i] >= 0 && (out->avail < 0 || fig[i] < out->avail))
            out->avail = fig[i], out->source = src[i];
}

static void probe_init(mcio_memory_probe *out)
{
    memset(out, 0, sizeof *out);
    out->meminfo = out->cgroup = out->cg_used = out->cg_limit = out->rlimit = -1;
}

int mcio_memory_probe_located(const char *root, const mcio_memory_where *where, mcio_rlimits rl,
                              mcio_memory_probe *out)
{
    char text[8192];
    probe_init(out);
    if (read_text(root, "/proc/meminfo", text, sizeof text) == 0)
        out->meminfo = mcio_memory_parse_meminfo(text);
    for (int i = 0; i < where->n; i++) {
        char dir[sizeof where->cg[i].dir], path[sizeof where->cg[i].path];
        strcpy(dir, where->cg[i].dir); /* the walk cuts them as it goes up */
        strcpy(path, where->cg[i].path);
        walk_cgroup(out, where->cg[i].version, root, where->cg[i].mnt, dir, path);
    }
    probe_rlimit(root, rl, out);
    probe_avail(out);
    return MCIO_SUCCESS;
}

int mcio_memory_probe_own(const char *root, mcio_rlimits rl, mcio_memory_probe *out)
{
    probe_init(out);
    probe_rlimit(root, rl, out);
    probe_avail(out);
    return MCIO_SUCCESS;
}

mcio_rlimits mcio_memory_rlimits(void)
{
    mcio_rlimits rl = {-1, -1};
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < INT64_MAX)
        rl.as = (int64_t)r.rlim_cur;
    if (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < INT64_MAX)
        rl.data = (int64_t)r.rlim_cur;
    return rl;
}

static int same_cgroup(const mcio_memory_probe *a, const mcio_memory_probe *b)
{
    return a->cg_version == b->cg_version && a->cg_dev == b->cg_dev && a->cg_ino == b->cg_ino;
}

/* Saturating sum of headrooms, -1 (none) being infinite. */
static int64_t add_room(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t min_room(int64_t a, int64_t b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

int64_t mcio_memory_node(int n, const mcio_memory_probe *p, int *source, int *which,
                         int64_t *used)
{
    int64_t host = -1, total = 0, cg_used = 0;
    int cg_source = MCIO_MEM_UNKNOWN, cg_which = -1, any_group = 0;
    for (int i = 0; i < n; i++)
        host = min_room(host, p[i].meminfo);
    /* Group the ranks by cgroup; the first rank of each group sums the group (O(n^2) over the
     * ranks of one node, a few hundred at most). */
    for (int i = 0; i < n; i++) {
        int first = 1;
        for (int k = 0; k < i && first; k++)
            first = !same_cgroup(&p[k], &p[i]);
        if (!first)
            continue;
        int64_t cg = -1, rl = 0, gused = -1;
        for (int k = i; k < n; k++)
            if (same_cgroup(&p[k], &p[i])) {
                if (p[i].cg_version && p[k].cgroup >= 0 && (cg < 0 || p[k].cgroup < cg))
                    cg = p[k].cgroup, gused = p[k].cg_used;
                rl = add_room(rl, p[k].rlimit);
            }
        int64_t room = min_room(cg, rl);
        if (room >= 0 && !any_group) { /* the first limited group names the figure */
            cg_source = rl >= 0 && (cg < 0 || rl < cg) ? MCIO_MEM_RLIMIT
                        : p[i].cg_version == 2        ? MCIO_MEM_CGROUP_V2
                                                      : MCIO_MEM_CGROUP_V1;
            cg_which = cg_source == MCIO_MEM_RLIMIT ? -1 : i;
            any_group = 1;
        }
        cg_used = gused >= 0 && cg_used >= 0 ? cg_used + gused : -1;
        total = add_room(total, room);
    }
    int64_t node = host;
    int src = host >= 0 ? MCIO_MEM_MEMINFO : MCIO_MEM_UNKNOWN, w = -1;
    if (any_group && total >= 0 && (host < 0 || total < host)) {
        node = total;
        src = cg_source;
        w = cg_which;
    }
    if (source)
        *source = src;
    if (which)
        *which = w;
    if (used)
        *used = src == MCIO_MEM_CGROUP_V1 || src == MCIO_MEM_CGROUP_V2 ? cg_used : -1;
    return node;
}
