/*
 * Fuzz target: the topology file parser (src/core/machine/mcio_network.c), one executable per
 * format: fuzz_topology_slurm (a Slurm topology.conf), fuzz_topology_grid, fuzz_topology_matrix.
 * The input is the file's text after a first line that selects the format, so that each target
 * explores its own format's grammar. Properties: no crash; an error names the file and a line
 * ("fuzz:<line>: ..."); a model accepted is a metric on its nodes as far as the model promises:
 * d(a, a) = 0, d(a, b) = d(b, a) >= 0, d(A, IO) >= 1, the I/O node of a node one of the file's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_network.h"

#if defined(FUZZ_FORMAT_SLURM)
static const char head[] = "SwitchName=fuzz0 Nodes=fz[0-1]\n";
#elif defined(FUZZ_FORMAT_GRID)
static const char head[] = "grid ";
#else
static const char head[] = "matrix ";
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0; /* matrices are O(n^2): keep inputs small */
    char *text = malloc(sizeof head + size);
    if (!text)
        return 0;
    memcpy(text, head, sizeof head - 1);
    memcpy(text + sizeof head - 1, data, size);
    text[sizeof head - 1 + size] = '\0';
    mcio_network net;
    char detail[MCIO_DETAIL_LEN] = "";
    int st = mcio_network_parse(text, "fuzz", &net, detail);
    if (st != MCIO_SUCCESS) {
        if (strncmp(detail, "fuzz", 4) != 0) {
            fprintf(stderr, "error without the file's name: '%s'\n", detail);
            __builtin_trap();
        }
    } else {
        int n = net.nnodes < 48 ? net.nnodes : 48;
        for (int a = 0; a < n; a++) {
            if (mcio_network_hops(&net, a, a) != 0 || mcio_network_io_hops(&net, a) < 1)
                __builtin_trap();
            int io = mcio_network_io_of(&net, a);
            if (io < 0 || (net.nio > 0 && io >= net.nio))
                __builtin_trap();
            for (int b = 0; b < n; b++) {
                int d = mcio_network_hops(&net, a, b);
                if (d < 0 || d != mcio_network_hops(&net, b, a)) {
                    fprintf(stderr, "d(%d, %d) = %d, d(%d, %d) = %d\n", a, b, d, b, a,
                            mcio_network_hops(&net, b, a));
                    __builtin_trap();
                }
            }
        }
        mcio_network_free(&net);
    }
    free(text);
    return 0;
}
