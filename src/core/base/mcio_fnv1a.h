/*
 * FNV-1a (Fowler, Noll, Vo), 64 bits: the hash of strings and records in the tree: the node
 * names' table of the Slurm host lists (mcio_network.c), the file system a rank found, which the
 * ranks of an open compare (mcio_file.c), and the MCIO_VIRTUAL_* variables a machine description
 * was detected under (mcio_machine.c). (Words are mixed by splitmix64's finalizer: the
 * key of the inputs a cost-model choice was made from, mcio_twophase.c.)
 */
#ifndef MCIO_FNV1A_H
#define MCIO_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define MCIO_FNV1A_OFFSET 0xcbf29ce484222325ull

/* The hash h (MCIO_FNV1A_OFFSET to start) carried on over the n bytes at p. */
static inline uint64_t mcio_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

#endif
