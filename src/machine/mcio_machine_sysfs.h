/*
 * The host's sockets and outermost cache from Linux's sysfs (mcio_machine_sysfs.c). Local.
 */
#ifndef MCIO_MACHINE_SYSFS_H
#define MCIO_MACHINE_SYSFS_H

#include <stdint.h>

/* Each processing unit's socket (its package's logical index) by OS index, for the first
 * max_pus; *npus: one past the highest found, *nsockets: the packages. 0, or -1 where sysfs
 * does not say. */
int mcio_sysfs_sockets(uint16_t *socket_of_pu, int max_pus, int *npus, int *nsockets);

/* The outermost level of data or unified caches: the bytes of its largest instance and the
 * number of instances. 0, or -1 where sysfs does not say. */
int mcio_sysfs_caches(int64_t *bytes, int *count);

/* Tests: read a tree of cpuN directories at dir instead of /sys/devices/system/cpu (NULL: it).
 * Not thread-safe; for tests only. */
void mcio_sysfs_root(const char *dir);

#endif
