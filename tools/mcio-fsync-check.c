/*
 * mcio-fsync-check: does a file system keep what it acknowledged and synced?
 *
 * One process, no MPI: each run writes a new file in DIR region by region (pwrite of
 * --write-bytes at a time, then fsync), and after each region reads the whole file back
 * through a new descriptor, the cached pages dropped first (posix_fadvise DONTNEED), and
 * compares every byte with what was written. The data never holds a zero byte, so a hole
 * (zeros where data was acknowledged) is told apart from misplaced data. A loss is reported
 * with its file offset, its length, how many of its bytes are zeros, and its offset within a
 * shard of --shard bytes (GlusterFS's features.shard-block-size), and the exit status is 1;
 * with --keep the file is kept for a look at the servers' copy.
 *
 * Written to separate GlusterFS 10.3's own losses from mcio's: with its client's
 * write-behind and sharding, runs of this program lost 128-512 KiB of synced writes
 * (docs/reliability.md, "GlusterFS loses writes it acknowledged and synced").
 *
 * usage: mcio-fsync-check [--runs N] [--regions N] [--region-bytes B] [--write-bytes B]
 *                         [--shard B] [--keep] [--punch OFFSET:LEN] DIR
 * --punch zeroes LEN bytes at OFFSET behind the check's back after the first region's sync
 * (another descriptor, the first run only): the loss it must report (its own test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Byte o of run g's data: never 0. */
static uint8_t data(int64_t o, unsigned g)
{
    uint64_t x = (uint64_t)o * 0x9E3779B97F4A7C15ull + g;
    x ^= x >> 29;
    return (uint8_t)(x | 1);
}

static int64_t bytes_arg(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    int64_t m = *end == 'k' || *end == 'K' ? 1 << 10 : *end == 'm' || *end == 'M' ? 1 << 20
              : *end == 'g' || *end == 'G' ? 1 << 30 : 1;
    if (v < 0 || end == s || (m > 1 ? end[1] : end[0]) != '\0') {
        fprintf(stderr, "mcio-fsync-check: '%s' is not a byte count (e.g. 8m)\n", s);
        exit(2);
    }
    return (int64_t)(v * (double)m);
}

/* The file [0, n) read back and compared; 0 when every byte is right, else 1 (reported). */
static int check(const char *path, int64_t n, unsigned g, int region, int64_t shard, uint8_t *got)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) {
        fprintf(stderr, "mcio-fsync-check: %s: reopening: %s\n", path, strerror(errno));
        exit(2);
    }
    int64_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, got + done, (size_t)(n - done), done);
        if (r <= 0) {
            printf("%s: after region %d: read stopped at %" PRId64 " of %" PRId64 " bytes (%s)\n",
                   path, region, done, n, r < 0 ? strerror(errno) : "end of file");
            close(fd);
            return 1;
        }
        done += r;
    }
    close(fd);
    int64_t at = 0;
    while (at < n && got[at] == data(at, g))
        at++;
    if (at == n)
        return 0;
    int64_t end = at, zeros = 0;
    while (end < n && got[end] != data(end, g))
        zeros += got[end++] == 0;
    printf("%s: after region %d: %" PRId64 " bytes wrong at offset %" PRId64
           " (%" PRId64 " into a shard), %" PRId64 " of them zeros\n",
           path, region, end - at, at, at % shard, zeros);
    return 1;
}

int main(int argc, char **argv)
{
    int runs = 1, regions = 3, keep = 0, i = 1;
    int64_t region = 8 << 20, wbytes = 8 << 20, shard = 4 << 20, punch_at = -1, punch_len = 0;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--keep")) {
            keep = 1;
            i--;
        } else if (!strcmp(argv[i], "--runs"))
            runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--regions"))
            regions = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--region-bytes"))
            region = bytes_arg(argv[i + 1]);
        else if (!strcmp(argv[i], "--write-bytes"))
            wbytes = bytes_arg(argv[i + 1]);
        else if (!strcmp(argv[i], "--shard"))
            shard = bytes_arg(argv[i + 1]);
        else if (!strcmp(argv[i], "--punch") && strchr(argv[i + 1], ':')) {
            char at[64];
            snprintf(at, sizeof at, "%.*s", (int)(strchr(argv[i + 1], ':') - argv[i + 1]), argv[i + 1]);
            punch_at = bytes_arg(at);
            punch_len = bytes_arg(strchr(argv[i + 1], ':') + 1);
        } else
            break;
    }
    if (i != argc - 1 || runs < 1 || regions < 1 || region <= 0 || wbytes <= 0 || shard <= 0 ||
        region % wbytes != 0 || punch_at + punch_len > region) {
        fprintf(stderr, "usage: mcio-fsync-check [--runs N] [--regions N] [--region-bytes B] "
                        "[--write-bytes B (divides the region)] [--shard B] [--keep] "
                        "[--punch OFFSET:LEN (within the first region)] DIR\n");
        return 2;
    }
    const char *dir = argv[i];
    int64_t total = (int64_t)regions * region;
    uint8_t *buf = malloc((size_t)wbytes), *got = malloc((size_t)total);
    if (!buf || !got) {
        fprintf(stderr, "mcio-fsync-check: out of memory for %" PRId64 " bytes\n", total);
        return 2;
    }
    int lost = 0;
    for (int run = 0; run < runs; run++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/.mcio-fsync-check.%d.%d", dir, (int)getpid(), run);
        unsigned g = (unsigned)(getpid() * 31 + run);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644), bad = 0;
        if (fd < 0) {
            fprintf(stderr, "mcio-fsync-check: %s: %s\n", path, strerror(errno));
            return 2;
        }
        for (int r = 0; r < regions && !bad; r++) {
            for (int64_t o = r * region; o < (r + 1) * region; o += wbytes) {
                for (int64_t k = 0; k < wbytes; k++)
                    buf[k] = data(o + k, g);
                if (pwrite(fd, buf, (size_t)wbytes, o) != wbytes) {
                    fprintf(stderr, "mcio-fsync-check: %s: write at %" PRId64 ": %s\n", path, o,
                            strerror(errno));
                    return 2;
                }
            }
            if (fsync(fd) != 0) {
                fprintf(stderr, "mcio-fsync-check: %s: fsync: %s\n", path, strerror(errno));
                return 2;
            }
            if (run == 0 && r == 0 && punch_at >= 0) {
                int pfd = open(path, O_WRONLY);
                memset(buf, 0, (size_t)(punch_len < wbytes ? punch_len : wbytes));
                for (int64_t o = 0; pfd >= 0 && o < punch_len; o += wbytes) {
                    int64_t n = punch_len - o < wbytes ? punch_len - o : wbytes;
                    if (pwrite(pfd, buf, (size_t)n, punch_at + o) != n)
                        break;
                }
                if (pfd < 0 || fsync(pfd) != 0 || close(pfd) != 0) {
                    fprintf(stderr, "mcio-fsync-check: %s: punching: %s\n", path, strerror(errno));
                    return 2;
                }
            }
            bad = check(path, (r + 1) * region, g, r, shard, got);
        }
        close(fd);
        lost += bad;
        if (!(bad && keep))
            unlink(path);
    }
    printf("mcio-fsync-check: %s: %d of %d runs lost synced data (%d regions of %" PRId64
           " bytes, written %" PRId64 " bytes at a time)\n",
           dir, lost, runs, regions, region, wbytes);
    free(buf);
    free(got);
    return lost > 0;
}
