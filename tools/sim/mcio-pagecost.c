/*
 * mcio-pagecost: what a buffer larger than the memory left to it costs on this machine, for the
 * simulation's memory model (docs/simulation.md, "Memory model").
 *
 *   mcio-pagecost BYTES PASSES DIR [anon]
 *
 * Maps BYTES and writes every byte of it PASSES times in 1 MiB pieces, as an aggregator fills
 * its collective buffer round after round, then prints one JSON line: bytes, passes, seconds,
 * and the bandwidth over all passes but the first. Run it inside a memory cgroup smaller than
 * BYTES (scripts/memlimit.sh) and every pass pages: the kernel writes pages out to make room
 * and reads them back when they are touched again. The buffer is a shared mapping of a file
 * in DIR (removed at once), so its pages go to that file, not to swap: this host has no swap
 * device, and a file mapping pages through the same reclaim path and the same disk as swap
 * would. With "anon" the buffer is anonymous memory, as a collective buffer is: without swap
 * the cgroup's OOM killer ends the process (what the simulation's oom mode does).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: mcio-pagecost BYTES PASSES DIR [anon]\n");
        return 2;
    }
    size_t bytes = strtoull(argv[1], NULL, 10);
    int passes = atoi(argv[2]), anon = argc > 4 && strcmp(argv[4], "anon") == 0;
    if (bytes == 0 || passes < 2) {
        fprintf(stderr, "mcio-pagecost: BYTES > 0 and PASSES >= 2\n");
        return 2;
    }
    char *buf;
    if (anon) {
        buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%s/mcio-pagecost.XXXXXX", argv[3]);
        int fd = mkstemp(path);
        if (fd < 0 || unlink(path) != 0 || ftruncate(fd, (off_t)bytes) != 0) {
            perror("mcio-pagecost: the backing file");
            return 1;
        }
        buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    }
    if (buf == MAP_FAILED) {
        perror("mcio-pagecost: mmap");
        return 1;
    }
    const size_t piece = (size_t)1 << 20;
    double t0 = now(), t1 = t0;
    unsigned long sum = 0;
    for (int p = 0; p < passes; p++) {
        for (size_t off = 0; off < bytes; off += piece) {
            size_t n = bytes - off < piece ? bytes - off : piece;
            memset(buf + off, p + 1, n);
            sum += (unsigned char)buf[off + n - 1]; /* read back: the pass is not optimized out */
        }
        if (p == 0)
            t1 = now();
    }
    double t2 = now();
    printf("{\"bytes\": %zu, \"passes\": %d, \"anon\": %d, \"first_pass_s\": %.4f, "
           "\"later_passes_s\": %.4f, \"bandwidth\": %.0f, \"check\": %lu}\n",
           bytes, passes, anon, t1 - t0, t2 - t1, (double)bytes * (passes - 1) / (t2 - t1), sum);
    munmap(buf, bytes);
    return 0;
}
