/*
 * Fuzz target: the machine's memory strings (src/core/machine/mcio_memory.c):
 * MCIO_VIRTUAL_NODE_MEMORY specs ("64m,16m,0", "normal:MEAN:SD[:SEED]") for 0-63 nodes, and the
 * text of /proc/meminfo. The first byte picks the node count, the rest up to a newline is the
 * spec, everything after it the meminfo text. Properties: no crash; a spec accepted for 0 nodes
 * (the syntax check the engine does first) is accepted for any count and gives every node a
 * value >= 0; a rejected one has a message; MemAvailable is -1 or >= 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int nnodes = data[0] % 64;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *rest = strchr(text, '\n');
    if (rest)
        *rest++ = '\0';
    int64_t mem[64];
    char detail[MCIO_DETAIL_LEN] = "";
    int syntax = mcio_memory_virtual(text, 0, NULL, detail);
    if (syntax != MCIO_SUCCESS && !detail[0])
        __builtin_trap();
    detail[0] = '\0';
    int st = mcio_memory_virtual(text, nnodes, mem, detail);
    if (st != syntax) {
        fprintf(stderr, "'%s': %d for the syntax, %d for %d nodes (%s)\n", text, syntax, st, nnodes, detail);
        __builtin_trap();
    }
    for (int i = 0; st == MCIO_SUCCESS && i < nnodes; i++)
        if (mem[i] < 0)
            __builtin_trap();
    if (rest && mcio_memory_parse_meminfo(rest) < -1)
        __builtin_trap();
    free(text);
    return 0;
}
