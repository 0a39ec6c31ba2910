/*
 * The file system of a file, probed from the running system (mcio_fs.c). It reads the system,
 * so it lives in src/io, not in the pure core; the parsers it feeds are in mcio_fsinfo.h.
 */
#ifndef MCIO_FS_H
#define MCIO_FS_H

#include "mcio_fsinfo.h"

/*
 * Probe the file system of path (a file or directory that exists), from the running system
 * (statfs, /proc/self/mountinfo, GlusterFS's .meta). Local; never fails: what cannot be told
 * stays unknown (type MCIO_FS_UNKNOWN, stripe 0, write_behind -1).
 */
void mcio_fs_probe(const char *path, mcio_fsinfo *info);

#endif
