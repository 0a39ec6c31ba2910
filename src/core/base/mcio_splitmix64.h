/*
 * splitmix64 (Steele, Lea, Flood 2014): the one seeded generator of the tree: the virtual node
 * memory (mcio_memory.c), the random layouts and data of mcio-bench, mcio-plan and
 * mcio-placement-cost, so that every tool draws the same random pattern from the same seed;
 * and the mixer of the words of a cost-model choice's key (mcio_twophase.c).
 */
#ifndef MCIO_SPLITMIX64_H
#define MCIO_SPLITMIX64_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
