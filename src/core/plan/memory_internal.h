/*
 * Shared between the memory strategy's files (memory.c: location, balancing, the planner;
 * ptree.c: requested bytes, aggregation groups, the partition tree), not part of
 * mcio_planner.h's interface.
 */
#ifndef MCIO_MEMORY_INTERNAL_H
#define MCIO_MEMORY_INTERNAL_H

#include <stdint.h>

#include "mcio_planner.h"

static inline int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The leftmost leaf under vertex v of a partition tree. */
static inline int leftmost_leaf(const mcio_ptree *t, int v)
{
    while (t->v[v].left >= 0)
        v = t->v[v].left;
    return v;
}

/* The rightmost leaf under vertex v. */
static inline int rightmost_leaf(const mcio_ptree *t, int v)
{
    while (t->v[v].right >= 0)
        v = t->v[v].right;
    return v;
}

#endif
