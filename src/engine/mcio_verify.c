/*
 * mcio_write_verify: a collective write read back after its sync.
 *
 * Each rank reads the bytes it wrote (its normalized extents) back from the file through a
 * descriptor of its own, the file's cached pages of them dropped first (posix_fadvise
 * DONTNEED, so that the read reaches the file system rather than this client's cache), and
 * compares them with the memory it wrote them from. Where a file system acknowledged and synced
 * bytes that it then lost, the call fails on every rank (the agreement that follows) instead of
 * returning success. GlusterFS 10.3 with write-behind and sharding lost 128-384 KiB of synced
 * writes in 7 of 475 runs of tools/mcio-fsync-check here, with no error from any write or sync
 * (docs/reliability.md, item 4); mcio's sync cannot see that, a read can.
 *
 * The price is a read of every byte written. The file must be readable through its path by a
 * plain open(2); a rank whose extents overlap another rank's finds that rank's bytes wherever
 * they won, and fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcio_engine.h"

enum {
    VERIFY_SPAN = 4 << 20, /* the most bytes read at once */
    VERIFY_GAP = 4 << 10   /* a gap between two extents read through rather than skipped */
};

/* len bytes read at file offset off against the memory they were written from. */
static int same_bytes(const char *got, const char *want, int64_t len, int64_t off,
                      const char *path, char detail[MCIO_DETAIL_LEN])
{
    if (memcmp(got, want, (size_t)len) == 0)
        return MCIO_SUCCESS;
    /* The first run of wrong bytes, across bytes right by chance (a lost byte that was 0):
     * it ends where 64 bytes in a row are right. */
    int64_t at = 0, end, same = 0;
    while (got[at] == want[at])
        at++;
    for (end = at; end < len && same < 64; end++)
        same = got[end] == want[end] ? same + 1 : 0;
    end -= same;
    snprintf(detail, MCIO_DETAIL_LEN,
             "write to %s: %" PRId64 " bytes at offset %" PRId64 " read back different from what "
             "was written, after the sync (mcio_write_verify): the file system lost data it had "
             "acknowledged",
             path, end - at, off + at);
    return MCIO_ERR_IO;
}

/* Read len bytes at off into buf, all of them (EINTR and short reads retried). */
static int read_back(int fd, char *buf, int64_t len, int64_t off, const char *path,
                     char detail[MCIO_DETAIL_LEN])
{
    for (int64_t done = 0; done < len;) {
        ssize_t n = pread(fd, buf + done, (size_t)(len - done), off + done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "write to %s: reading it back at offset %" PRId64 " (mcio_write_verify): %s",
                     path, off + done, n < 0 ? strerror(errno) : "the file ends there");
            return MCIO_ERR_IO;
        }
        done += n;
    }
    return MCIO_SUCCESS;
}

int mcio_verify_written(mcio_plan p, const char *base, char detail[MCIO_DETAIL_LEN])
{
    const mcio_extent *e = p->ext;
    int64_t n = p->next;
    const char *path = p->fh->path;
    if (n == 0)
        return MCIO_SUCCESS;
    int64_t first = e[0].off, last = e[n - 1].off + e[n - 1].len;
    int64_t cap = last - first < VERIFY_SPAN ? last - first : VERIFY_SPAN;
    char *buf = malloc((size_t)cap);
    if (!buf) {
        snprintf(detail, MCIO_DETAIL_LEN,
                 "write to %s: no memory (%" PRId64 " bytes) to read it back (mcio_write_verify)",
                 path, cap);
        return MCIO_ERR_NOMEM;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(detail, MCIO_DETAIL_LEN, "write to %s: opening it to read it back "
                 "(mcio_write_verify): %s", path, strerror(errno));
        free(buf);
        return MCIO_ERR_IO;
    }
    posix_fadvise(fd, first, last - first, POSIX_FADV_DONTNEED); /* advice: no error to act on */
    int st = MCIO_SUCCESS;
    /* A span [lo, hi): the rest of extent i, up to VERIFY_SPAN bytes, and when that ends the
     * extent, the whole extents after it within VERIFY_GAP of each other and VERIFY_SPAN. */
    for (int64_t i = 0, done = 0; st == MCIO_SUCCESS && i < n;) {
        int64_t lo = e[i].off + done, end_i = e[i].off + e[i].len;
        int64_t hi = end_i - lo < VERIFY_SPAN ? end_i : lo + VERIFY_SPAN, j = i + 1;
        while (hi == end_i && j < n && e[j].off - hi <= VERIFY_GAP &&
               e[j].off + e[j].len - lo <= VERIFY_SPAN)
            hi = e[j].off + e[j].len, end_i = hi, j++;
        st = read_back(fd, buf, hi - lo, lo, path, detail);
        int64_t own = (j > i + 1 ? e[i].off + e[i].len : hi) - lo; /* extent i's bytes here */
        if (st == MCIO_SUCCESS)
            st = same_bytes(buf, PIECE_ADDR(base, e[i].mem + done), own, lo, path, detail);
        for (int64_t k = i + 1; st == MCIO_SUCCESS && k < j; k++)
            st = same_bytes(buf + (e[k].off - lo), PIECE_ADDR(base, e[k].mem), e[k].len, e[k].off,
                            path, detail);
        if (j > i + 1 || lo + own == e[i].off + e[i].len)
            i = j, done = 0;
        else
            done += own;
    }
    close(fd);
    free(buf);
    return st;
}
