/*
 * Loading the network model of the machine description (mcio_network.h) at open: rank 0 reads
 * the topology file named by the mcio_topology_file hint or MCIO_TOPOLOGY_FILE, broadcasts its
 * text, and every rank parses the same text into the same model (the parser is pure), so the
 * file is read once however many ranks open it. Communicates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_machine.h"

#ifdef MCIO_SIMULATE
#include "mcio_machine_sim.h"
#endif

/* Topology files are a few lines per node or switch; past this, the path is surely wrong. */
#define MAX_TOPOLOGY_BYTES (64 << 20)

/* Rank 0: the whole file into a malloc'd, NUL-terminated string. */
static int read_text(const char *path, char **text, int64_t *len, char detail[MCIO_DETAIL_LEN])
{
    FILE *f = fopen(path, "rb");
    *text = NULL;
    *len = 0;
    if (!f) {
        snprintf(detail, MCIO_DETAIL_LEN, "topology file %s: %s", path, strerror(errno));
        return MCIO_ERR_HINT;
    }
    int st = MCIO_SUCCESS;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 == cap) {
            char *b = cap >= MAX_TOPOLOGY_BYTES ? NULL : realloc(buf, cap * 2);
            if (!b) {
                st = cap >= MAX_TOPOLOGY_BYTES ? MCIO_ERR_HINT : MCIO_ERR_NOMEM;
                snprintf(detail, MCIO_DETAIL_LEN, "topology file %s: %s", path,
                         st == MCIO_ERR_HINT ? "larger than 64 MiB" : "out of memory");
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                st = MCIO_ERR_HINT;
                snprintf(detail, MCIO_DETAIL_LEN, "topology file %s: read error", path);
            }
            break;
        }
    }
    fclose(f);
    if (!buf && st == MCIO_SUCCESS) {
        st = MCIO_ERR_NOMEM;
        snprintf(detail, MCIO_DETAIL_LEN, "topology file %s: out of memory", path);
    }
    if (st != MCIO_SUCCESS) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        free(buf);
        snprintf(detail, MCIO_DETAIL_LEN, "topology file %s: not a text file", path);
        return MCIO_ERR_HINT;
    }
    *text = buf;
    *len = (int64_t)n;
    return MCIO_SUCCESS;
}

int mcio_machine_load_network(MPI_Comm comm, mcio_machine *m, const char *hint_path,
                              char detail[MCIO_DETAIL_LEN])
{
    const char *path = hint_path && *hint_path ? hint_path : getenv("MCIO_TOPOLOGY_FILE");
#ifdef MCIO_SIMULATE
    if (!path || !*path)
        path = mcio_sim_topology_file();
#endif
    mcio_network_free(&m->net);
    if (!path || !*path)
        return MCIO_SUCCESS; /* flat: nothing to read, every rank decides alike */
    int rank;
    PMPI_Comm_rank(comm, &rank);
    char *text = NULL;
    int64_t head[2] = {MCIO_SUCCESS, 0}; /* status, length */
    if (rank == 0)
        head[0] = read_text(path, &text, &head[1], detail);
    PMPI_Bcast(head, 2, MPI_INT64_T, 0, comm);
    if (head[0] != MCIO_SUCCESS) {
        free(text);
        /* Rank 0 has the message; the caller's agreement hands it to every rank. */
        if (rank != 0)
            detail[0] = '\0';
        return (int)head[0];
    }
    int st = MCIO_SUCCESS;
    if (rank != 0 && !(text = malloc((size_t)head[1] + 1)))
        st = MCIO_ERR_NOMEM;
    /* Every rank must take part in the broadcast; one that could not allocate drains it. */
    char sink;
    for (int64_t off = 0; off < head[1];) {
        int chunk = head[1] - off > (1 << 30) ? 1 << 30 : (int)(head[1] - off);
        PMPI_Bcast(text ? text + off : &sink, text ? chunk : 0, MPI_CHAR, 0, comm);
        off += chunk;
    }
    if (st != MCIO_SUCCESS) {
        snprintf(detail, MCIO_DETAIL_LEN, "topology file %s: out of memory", path);
        return st;
    }
    text[head[1]] = '\0';
    char why[MCIO_DETAIL_LEN];
    st = mcio_network_parse(text, path, &m->net, why);
    free(text);
    if (st != MCIO_SUCCESS) {
        snprintf(detail, MCIO_DETAIL_LEN, "%s", why);
        return st == MCIO_ERR_ARG ? MCIO_ERR_HINT : st;
    }
    if (m->net.kind != MCIO_NET_FLAT && m->nnodes > m->net.nnodes) {
        snprintf(detail, MCIO_DETAIL_LEN,
                 "topology file %s describes %d nodes, the job runs on %d (job node k is the "
                 "file's node k)",
                 path, m->net.nnodes, m->nnodes);
        mcio_network_free(&m->net);
        return MCIO_ERR_HINT;
    }
    return MCIO_SUCCESS;
}
