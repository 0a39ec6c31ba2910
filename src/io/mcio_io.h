/*
 * File-access backends: one table of functions per way of touching the file, chosen by the
 * mcio_io_backend hint. Only aggregators call pwrite/pread; open, close and sync are collective
 * over the file's communicator. The raw calls may be partial and return -errno; the loops that
 * retry EINTR, finish short transfers and turn errno into an mcio status live in mcio_io.c, once,
 * for every backend.
 */
#ifndef MCIO_IO_H
#define MCIO_IO_H

#include <mpi.h>
#include <stdint.h>

#include "mcio_hints.h"
#include "mcio_planner.h" /* MCIO_DETAIL_LEN */

/* The alignment direct I/O (O_DIRECT: hints direct_write, direct_read) needs of file offsets,
 * lengths and buffers: the logical block size of every common device (512 or 4096 bytes).
 * statx(STATX_DIOALIGN) would tell it per file, but its fields are missing from glibc before
 * 2.37 (Debian 12 has 2.36); a file system that needs more refuses the access, and the posix
 * backend then falls back to the page cache. */
#define MCIO_DIO_ALIGN 4096

typedef struct mcio_io_backend {
    const char *name;
    /* Collective. Opens path on every rank of comm; *can_read is 0 when the mode forbids reads. */
    int (*open)(MPI_Comm comm, const char *path, int amode, MPI_Info info, void **state,
                int *can_read, char detail[MCIO_DETAIL_LEN]);
    /* Collective. Frees state whatever happens. */
    int (*close)(void *state, char detail[MCIO_DETAIL_LEN]);
    /* Independent. Bytes written (may be fewer than len), or -errno. */
    int64_t (*pwrite)(void *state, const void *buf, int64_t len, int64_t off);
    /* Independent. Bytes read (0 at end of file), or -errno. */
    int64_t (*pread)(void *state, void *buf, int64_t len, int64_t off);
    /* Collective. 0 or -errno. */
    int (*sync)(void *state);
    /* Optional, independent: the file's size in bytes, or -errno. A read that returns 0 bytes
     * is the end of the file only when the file ends there: an MPI library may report a failed
     * read as 0 bytes and success (OMPIO with a GlusterFS brick gone), which the size tells. */
    int64_t (*size)(void *state);
    /* Optional, local: take the hints that concern the backend (the slow backend's delays). */
    void (*configure)(void *state, const mcio_hints *hints);
    /* pwrite/pread call MPI: a pipelined executor may then call them from its I/O thread only
     * when the MPI library provides MPI_THREAD_MULTIPLE (else it calls them itself). */
    int calls_mpi;
    /* Optional, independent: nonblocking file access. access_start begins writing (write = 1)
     * or reading len bytes at off and returns a handle (NULL: it could not start);
     * access_wait completes it, sets *ns to how long the access itself took, and returns len
     * or -errno. A pipelined executor without an I/O thread (the simulation build) overlaps
     * its file access with its exchanges through them. */
    void *(*access_start)(void *state, int write, void *buf, int64_t len, int64_t off);
    int64_t (*access_wait)(void *handle, int64_t len, int64_t *ns);
} mcio_io_backend;

/*
 * A descriptor of path for this rank alone (not collective), opened with flags (O_RDONLY,
 * O_WRONLY or O_RDWR) and used through the posix backend's pread, pwrite and size
 * (mcio_io_posix with this state). The engine reads and writes through it instead of the mpiio
 * backend where the file system is this node's own (mcio_local_io). 0 and *state, or -errno
 * (nothing to close).
 */
int mcio_io_posix_local_open(const char *path, int flags, void **state);
void mcio_io_posix_local_close(void *state);

/* The backend registered under name, or NULL. */
const mcio_io_backend *mcio_io_find(const char *name);

/* The registered backends' names, ", "-separated, into out (for messages). */
void mcio_io_names(char *out, int outlen);

/*
 * Register an extra backend (tests use this for fault injection). Not thread-safe; call before
 * opening files. Returns 0, or MCIO_ERR_ARG when the table is full or the name is taken.
 */
int mcio_io_register(const mcio_io_backend *backend);

/* Write all len bytes at off: retries EINTR and short writes; errors become an mcio status. */
int mcio_io_write_full(const mcio_io_backend *b, void *state, const void *buf, int64_t len,
                       int64_t off, const char *path, char detail[MCIO_DETAIL_LEN]);

/* Read len bytes at off; bytes past the end of the file read as zeros. A read that stops
 * short of the file's end (backend size) is an error, not the end of the file. */
int mcio_io_read_full(const mcio_io_backend *b, void *state, void *buf, int64_t len, int64_t off,
                      const char *path, char detail[MCIO_DETAIL_LEN]);

/*
 * Reads into 4K-aliased memory. A kernel copy whose destination lies 1-31 bytes past its
 * source modulo 4096 runs 5-10 times slower than others on AMD's Zen 3 and later: the CPUs
 * report fast short `rep movsb` (FSRM), which the kernel's copy to user memory uses, and the
 * instruction slows down where it suspects the two ranges overlap (glibc's user-space
 * memmove avoids it there, bug 30994; the kernel does not). A read of a file's page-aligned
 * bytes into a buffer of the C library's malloc (large blocks start 16 bytes into a page) is
 * such a copy. Measured on this 2-core EPYC host, page cache: 2 MiB read into page + 16 in
 * 0.9-1.2 ms, into page + 32 in 0.15-0.18 ms.
 */

/* A buffer the file is read into or written from: page-aligned (malloc's large blocks are
 * 4K-aliased with page-aligned file offsets), freed with free(). NULL without memory. */
void *mcio_io_buffer_alloc(size_t n);

/* Are this host's kernel copies into 4K-aliased memory at least twice slower? Measured once
 * per process (thread-safe; mcio_file_open asks first): a memfd's 64 KiB read into an aligned
 * buffer and 16 bytes past it, the best of five each. 0 where it cannot be measured. */
int mcio_io_copy_alias_slow(void);

/* mcio_io_read_full, for memory that may be 4K-aliased with the file: where buf lies d = 1-31
 * bytes past off modulo 4096 and len is at least MCIO_IO_SHIFT_MIN, the first len - (32 - d)
 * bytes are read 32 - d bytes further into buf (no longer aliased) and moved back in user
 * space, and the last 32 - d bytes read in place; the same bytes end up in buf, and nothing
 * outside it is touched. Otherwise one mcio_io_read_full. */
enum { MCIO_IO_SHIFT_MIN = 16 << 10 };
int mcio_io_read_shifted(const mcio_io_backend *b, void *state, void *buf, int64_t len,
                         int64_t off, const char *path, char detail[MCIO_DETAIL_LEN]);

/* Has the file system of path less than need bytes free for an unprivileged writer? For the
 * failures that come without an errno (a 0-byte write, an MPI library's generic I/O error
 * from a sync), to tell a full file system from other causes. Local. */
int mcio_io_fs_full(const char *path, int64_t need);

/* The mcio status for an errno value of a failed file operation. */
int mcio_io_status_of_errno(int err);

extern const mcio_io_backend mcio_io_mpiio;
extern const mcio_io_backend mcio_io_posix;
extern const mcio_io_backend mcio_io_null;
extern const mcio_io_backend mcio_io_slow;
#ifdef MCIO_SIMULATE
extern const mcio_io_backend mcio_io_sim; /* simulated storage targets (mcio_io_sim.c) */
#endif

#endif
